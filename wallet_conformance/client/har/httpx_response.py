"""An httpx exchange judged like a recorded one: for traffic the suite did not send (reporting/judging.py)."""

from __future__ import annotations

import httpx

from wallet_conformance.client.api import Exchange
from wallet_conformance.client.har.exchange import exchange_of


def from_httpx(response: httpx.Response, base_url: str) -> Exchange:
    """An httpx exchange (its response read) as the exchange the client would have kept, like a HAR entry: for
    judging traffic the suite did not send (reporting/judging.py)."""
    request = response.request
    body = request.content.decode("utf-8", errors="replace") if request.content else None
    try:
        elapsed = response.elapsed.total_seconds() * 1000
    except RuntimeError:  # a response that was never sent over the wire (an httpx.MockTransport's) has none
        elapsed = 0
    found = {"request": {"method": request.method, "url": str(request.url),
                         "headers": [{"name": name, "value": value} for name, value in request.headers.items()],
                         **({"postData": {"mimeType": request.headers.get("content-type", ""), "text": body}}
                            if body is not None else {})},
             "response": {"status": response.status_code,
                          "headers": [{"name": name, "value": value} for name, value in response.headers.items()],
                          "content": {"text": response.text, "size": len(response.content)}},
             "time": elapsed}
    return exchange_of(found, base_url)
