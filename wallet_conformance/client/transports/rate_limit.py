"""The 429 wait: a request answered 429 is sent again after the wait the target asked for, within the run's bounds."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from wallet_conformance.client.bound import Bound
from wallet_conformance.client.call import call_of, exchange_of
from wallet_conformance.client.errors import RateLimited
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.redaction import redact
from wallet_conformance.client.transports.layer import Layer

# Rate limiting (429): the most retries of one request, the longest single wait, and the first wait when the target
# asks for none (doubled at each retry).
RATE_LIMIT_RETRIES = 3
RATE_LIMIT_MAX_PAUSE = 10.0
RATE_LIMIT_FIRST_PAUSE = 0.5


@dataclass
class RateLimits:
    """The seconds a client may still spend waiting out 429 answers (--rate-limit-wait), and every 429 met: what it
    asked and what the client did (`met`: shared by the clients whose exchange log is shared)."""

    wait_left: float
    met: list[dict[str, Any]] = field(default_factory=list)


class RateLimitWaitTransport(Layer):
    """Sends a request again (a fresh copy) after each 429 it may wait out, noting each wait in the exchange's retries;
    a 429 it may not wait out (past --rate-limit-wait, RATE_LIMIT_MAX_PAUSE, RATE_LIMIT_RETRIES or the run's bound)
    is RateLimited, with that answer's exchange."""

    def __init__(self, inner: httpx.BaseTransport, limits: RateLimits, bound: Bound) -> None:
        super().__init__(inner)
        self.limits = limits
        self.bound = bound

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        call = call_of(request)
        retries: list[str] = []
        while True:
            response = self.inner.handle_request(request)
            exchange = exchange_of(response)
            pause = self._pause(exchange, len(retries))
            if pause is None:
                break
            retries.append(
                f"answered 429 ({exchange.elapsed * 1000:.0f} ms, Retry-After "
                f"{exchange.header('retry-after') or '-'}): waited {pause:.1f} s and sent it again"
            )
            time.sleep(pause)
            request = call.copy()
        exchange.retries = [*retries, *exchange.retries]
        if exchange.status == 429 and self.limits.met and self.limits.met[-1]["gave_up"]:
            raise RateLimited(
                f"{call.method} {redact(call.url)} answered 429 (rate limited; Retry-After "
                f"{exchange.header('retry-after') or '-'}) past what the run may wait (--rate-limit-wait:"
                f" {self.limits.wait_left:g} s left, at most {RATE_LIMIT_MAX_PAUSE:g} s a wait, "
                f"{RATE_LIMIT_RETRIES} times): a throttled answer is not judged",
                exchange,
            )
        return response

    def _pause(self, exchange: Exchange, retried: int) -> float | None:
        """How long to wait before sending a 429-answered request again; None to keep the answer as it is."""
        if exchange.status != 429:
            return None
        asked = retry_after(exchange.header("retry-after"))
        pause = asked if asked is not None else RATE_LIMIT_FIRST_PAUSE * 2**retried
        left = self.bound.deadline - time.monotonic() if self.bound.deadline is not None else pause
        # Never sooner than the target asked: a wait longer than allowed keeps the 429 as the answer.
        retry = retried < RATE_LIMIT_RETRIES and pause <= min(RATE_LIMIT_MAX_PAUSE, self.limits.wait_left, left)
        self.limits.met.append(
            {
                "operation": exchange.operation_id,
                "method": exchange.method,
                "retry_after": exchange.header("retry-after"),
                "waited": round(pause, 3) if retry else 0.0,
                "gave_up": not retry,
            }
        )
        if not retry:
            return None
        self.limits.wait_left -= pause
        return pause


def retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (a number of seconds or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
