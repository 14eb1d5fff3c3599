"""An httpx exchange judged like a recorded one: for traffic the suite did not send (reporting/judging.py)."""

from __future__ import annotations

import httpx

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.exchange import exchange_from


def from_httpx(response: httpx.Response, base_url: str) -> Exchange:
    """An httpx exchange (its response read) as the exchange the client would have kept (client/har/exchange.py):
    for judging traffic the suite did not send (reporting/judging.py)."""
    request = response.request
    try:
        elapsed = response.elapsed.total_seconds()
    except RuntimeError:  # a response that was never sent over the wire (an httpx.MockTransport's) has none
        elapsed = 0.0
    return exchange_from(
        request.method.upper(),
        str(request.url),
        base_url,
        request_headers=list(request.headers.items()),
        request_text=request.content.decode("utf-8", errors="replace") if request.content else None,
        status=response.status_code,
        response_headers=list(response.headers.items()),
        response_body=response.text.encode("utf-8", errors="replace"),
        whole_size=len(response.content),
        elapsed=elapsed,
    )
