"""The circuit breaker: a target that stopped answering, or answers mostly 5xx, is sent nothing more."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

import httpx

from wallet_conformance.client.call import call_of
from wallet_conformance.client.errors import CLOSED, Closed, NoAnswer, NotSent, TargetError
from wallet_conformance.client.redaction import redact
from wallet_conformance.client.tls import tls_hint
from wallet_conformance.client.transports.layer import Layer
from wallet_conformance.client.transports.reading import TooSlow

# After this many requests in a row fail to get any answer (timeout, refused connection), the target is
# taken as down: later requests fail at once instead of each waiting out its timeout.
MAX_TRANSPORT_FAILURES = 5
# When SERVER_ERRORS_FAILING of the last SERVER_ERROR_WINDOW answers are 5xx, the target is taken as failing:
# no further request is sent and the run stops after the current test. (A target answering 5xx to some invalid
# input never gets there: the suite's requests alternate valid and invalid ones.)
SERVER_ERROR_WINDOW = 20
SERVER_ERRORS_FAILING = 16


@dataclass
class Breaker:
    """What the breaker knows of the target, shared by the transports of one client and the threads that send through
    it (a race's, the end-of-run sweep's): the requests in a row that got no answer, and the statuses of the last
    answers, each read and changed under its lock."""

    transport_failures: int = 0
    recent_statuses: deque[int] = field(default_factory=lambda: deque(maxlen=SERVER_ERROR_WINDOW))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def target_down(self) -> bool:
        return self.transport_failures >= MAX_TRANSPORT_FAILURES

    @property
    def server_errors(self) -> int:
        with self._lock:  # counted while another thread's answer joins the window: a deque iterated must not change
            return sum(status >= 500 for status in self.recent_statuses)

    @property
    def target_failing(self) -> bool:
        return self.server_errors >= SERVER_ERRORS_FAILING

    def answered(self, status: int) -> None:
        """An answer came: the failures in a row end, and its status joins the window."""
        with self._lock:
            self.transport_failures = 0
            self.recent_statuses.append(status)

    def unanswered(self) -> None:
        """A request got no answer."""
        with self._lock:
            self.transport_failures += 1

    def forget_server_errors(self) -> None:
        with self._lock:
            self.recent_statuses.clear()


class CircuitBreakerTransport(Layer):
    """Refuses to send (NotSent) while the target is down or failing; an answer resets the count of failures in a row
    and joins the window of statuses; a copy that got none (a timeout, a closed connection, a connection refused)
    counts as a failure and is raised as what it is to the client: NoAnswer, Closed, or a TargetError."""

    def __init__(self, inner: httpx.BaseTransport, breaker: Breaker) -> None:
        super().__init__(inner)
        self.breaker = breaker

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        call, breaker = call_of(request), self.breaker
        if breaker.target_down:
            raise NotSent(
                f"{call.method} {redact(call.url)} not sent: the target stopped answering "
                f"({breaker.transport_failures} requests in a row got no answer)"
            )
        if breaker.target_failing:  # the run stops after this test
            raise NotSent(
                f"{call.method} {redact(call.url)} not sent: the target is failing ({breaker.server_errors} of its "
                f"last {len(breaker.recent_statuses)} answers were 5xx)"
            )
        try:
            response = self.inner.handle_request(request)
        except (httpx.TimeoutException, TooSlow) as error:
            breaker.unanswered()
            raise NoAnswer(
                f"{call.method} {redact(call.url)} failed: no full answer within "
                f"{request.extensions['timeout']['read']:g} s (--request-timeout; {type(error).__name__})"
            ) from None
        except httpx.HTTPError as error:
            breaker.unanswered()
            failed = (
                f"{call.method} {redact(call.url)} failed: {type(error).__name__}: {redact(str(error))}"
                f"{tls_hint(error)}"
            )
            raise (Closed if isinstance(error, CLOSED) else TargetError)(failed) from None
        breaker.answered(response.status_code)
        return response
