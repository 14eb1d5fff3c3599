"""One exchange of the suite as a HAR 1.2 entry (--record-har, the proxy's recording): its secrets were replaced when
the client kept it.
"""

from __future__ import annotations

import http
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from wallet_conformance.client.exchange import Exchange

HTTP_VERSION = "HTTP/1.1"


def _iso(seconds: float | None) -> str:
    moment = datetime.fromtimestamp(seconds or 0.0, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _pairs(headers: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers]


def _header(headers: Iterable[tuple[str, str]], name: str) -> str | None:
    return next((value for key, value in headers if key.lower() == name), None)


def entry(exchange: Exchange) -> dict[str, Any]:
    """One exchange as a HAR 1.2 entry (its secrets were replaced when the client kept it)."""
    milliseconds = round(exchange.elapsed * 1000, 3)
    request: dict[str, Any] = {
        "method": exchange.method,
        "url": exchange.url,
        "httpVersion": HTTP_VERSION,
        "cookies": [],
        "headers": _pairs(exchange.request_headers),
        "queryString": _pairs(parse_qsl(urlsplit(exchange.url).query, keep_blank_values=True)),
        "headersSize": -1,
        "bodySize": 0,
    }
    body = exchange.request_body
    if body is not None:
        text = body if isinstance(body, str) else json.dumps(body)
        request["postData"] = {
            "mimeType": _header(exchange.request_headers, "content-type") or "application/json",
            "text": text,
        }
        request["bodySize"] = len(text.encode()) + exchange.padding
        if exchange.padding:
            request["postData"]["comment"] = f"sent followed by {exchange.padding} spaces, not kept here"
    size = exchange.size if exchange.truncated else len(exchange.text.encode())
    content: dict[str, Any] = {"size": size, "mimeType": exchange.header("content-type") or "", "text": exchange.text}
    if exchange.truncated:
        content["comment"] = f"cut by the client: the first {len(exchange.text.encode())} of {size} bytes kept"
    try:
        phrase = http.HTTPStatus(exchange.status).phrase
    except ValueError:
        phrase = ""
    return {
        "startedDateTime": _iso(exchange.started),
        "time": milliseconds,
        "request": request,
        "response": {
            "status": exchange.status,
            "statusText": phrase,
            "httpVersion": HTTP_VERSION,
            "cookies": [],
            "headers": _pairs(exchange.response_headers),
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": size,
        },
        "cache": {},
        "timings": {"send": 0, "wait": milliseconds, "receive": 0},
    }
