"""The silence layer: a request of an operation left without an answer is sent again once (or waited on twice as long),
and, while the target answers a cheap read, it is that operation's silence (Unanswered)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from wallet_conformance.client.call import WAIT, Call, call_of, exchange_of
from wallet_conformance.client.errors import Closed, NoAnswer, NotSent, TargetError, Unanswered
from wallet_conformance.client.exchange import Exchange, Silence
from wallet_conformance.client.redaction import redact, redact_headers
from wallet_conformance.client.transports.breaker import Breaker
from wallet_conformance.client.transports.layer import Layer
from wallet_conformance.spec import contract

# A cheap read sent as one copy, below this layer and the 429 wait, and kept nowhere: its exchange.
CheapRead = Callable[[contract.Operation], Exchange]


class SilenceTransport(Layer):
    """The answer to a request. One of an operation (or `awaited`) still unanswered after a second chance while the
    target answers a cheap read (`cheap_read`) is its silence (Unanswered); that request is not waited on again
    (`unanswered`, the client's). Another request (the funding hook, say: its silence is judged nowhere) is sent as
    it is."""

    def __init__(
        self,
        inner: httpx.BaseTransport,
        timeout: float,
        breaker: Breaker,
        unanswered: dict[tuple[Any, ...], Silence],
        cheap_read: CheapRead,
    ) -> None:
        super().__init__(inner)
        self.timeout = timeout
        self.breaker = breaker
        self.unanswered = unanswered
        self.cheap_read = cheap_read

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        call = call_of(request)
        if call.operation_id is None and not call.awaited:
            return self.inner.handle_request(request)
        known = self.unanswered.get(call.identity)
        if known is not None:
            raise Unanswered(known, again=True)
        once = call.operation_id in contract.sent_once()
        wait, copies = (2 * self.timeout, 1) if once else (self.timeout, 2)
        try:
            return self._patiently(request, call, wait, copies)
        except NoAnswer as unanswered:
            alive = self._alive(call.operation_id or "", f"{unanswered} ({'twice' if copies > 1 else 'sent once'})")
            closed = isinstance(unanswered, Closed)
        silence = Silence(
            call.method,
            redact(call.url),
            redact_headers(call.shown_headers(request), own=True),
            call.shown_body,
            self.timeout,
            wait,
            copies,
            alive,
            call.padding,
            closed,
        )
        self.unanswered[call.identity] = silence
        raise Unanswered(silence)

    def _patiently(self, request: httpx.Request, call: Call, wait: float, copies: int) -> httpx.Response:
        """Send a request, waiting `wait` seconds for its answer, and when none comes send the same request once more
        if `copies` allows (a single slow answer may be a hiccup); raises NoAnswer when the last copy got none."""
        request.extensions[WAIT] = wait
        try:
            return self.inner.handle_request(request)
        except NoAnswer as first:
            if copies < 2:
                raise
            why = (
                "the connection closed without an answer"
                if isinstance(first, Closed)
                else f"no answer within {wait:g} s"
            )
        again = call.copy()
        again.extensions[WAIT] = wait
        response = self.inner.handle_request(again)
        exchange_of(response).retries.append(f"{why}: sent again, the same request")
        return response

    def _alive(self, silent: str, unanswered: str) -> str:
        """How the target shows it still answers: a cheap read (the bank list, or another list when the bank list is
        the silent operation) answered within the timeout. When it answers nothing either, the request fails as any
        unanswered one (TargetError): the target is down, not one operation silent."""
        if self.breaker.target_down:
            raise TargetError(unanswered)
        read = next(operation for operation in contract.cheap_reads() if operation.id != silent)
        try:
            answer = self.cheap_read(read)
        except NotSent:
            raise
        except TargetError as error:
            raise TargetError(f"{unanswered}; a cheap read got no answer either: {error}") from None
        return f"{answer.method} {answer.url} answered {answer.status} in {answer.elapsed * 1000:.0f} ms"
