"""The layer of the run's time bound: no copy sent past it, each copy's timeout cut to what is left of it."""

from __future__ import annotations

import time

import httpx

from wallet_conformance.client.bound import Bound
from wallet_conformance.client.call import WAIT, call_of
from wallet_conformance.client.errors import TargetError
from wallet_conformance.client.redaction import redact
from wallet_conformance.client.transports.layer import Layer
from wallet_conformance.client.transports.reading import TooSlow


class DeadlineTransport(Layer):
    """Gives each copy its timeout: the wait it is given (WAIT; else `timeout`, --request-timeout), cut to what is left
    of the run's `bound`. Past the bound nothing is sent, and a copy whose cut timeout ran out is stopped by the bound,
    not left unanswered by the target (a TargetError, which the circuit breaker does not count)."""

    def __init__(self, inner: httpx.BaseTransport, timeout: float, bound: Bound) -> None:
        super().__init__(inner)
        self.timeout = timeout
        self.bound = bound

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        call = call_of(request)
        wait = request.extensions.get(WAIT) or self.timeout
        timeout = wait
        if self.bound.deadline is not None:
            left = self.bound.deadline - time.monotonic()
            if left <= 0:
                raise TargetError(f"{call.method} {redact(call.url)} not sent: {self.bound.reason}")
            timeout = min(timeout, left)
        request.extensions["timeout"] = httpx.Timeout(timeout).as_dict()
        try:
            return self.inner.handle_request(request)
        except (httpx.TimeoutException, TooSlow):
            if timeout < wait:  # cut short by the test's bound, not the target's fault alone
                raise TargetError(f"{call.method} {redact(call.url)} stopped: {self.bound.reason}") from None
            raise
