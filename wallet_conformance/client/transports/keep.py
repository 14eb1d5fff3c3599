"""The outermost layer: the exchange a request ends with handed to the client, which keeps it (its log, its judge)."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from wallet_conformance.client.call import Call, call_of, exchange_of
from wallet_conformance.client.errors import RateLimited
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.transports.layer import Layer

# What the client does with the exchange a request ends with, told the URL it went to (ApiClient: completes it, logs
# it, and so shows it to the run's exchange judge).
Keep = Callable[[Exchange, Call, httpx.URL], None]


class KeepTransport(Layer):
    """Hands `keep` the exchange each request ends with: its answer's, or the 429 it could not wait out (RateLimited,
    raised once kept). Copies that went unanswered, 429 answers waited out and cheap reads are not kept: their
    exchange's retries say what happened to them."""

    def __init__(self, inner: httpx.BaseTransport, keep: Keep) -> None:
        super().__init__(inner)
        self.keep = keep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        call = call_of(request)
        try:
            response = self.inner.handle_request(request)
        except RateLimited as throttled:
            if throttled.exchange is not None:
                self.keep(throttled.exchange, call, request.url)
            raise
        self.keep(exchange_of(response), call, request.url)
        return response
