"""A recorded HAR entry as the exchange the client would have kept: its operation, its secrets replaced, its body cut
where the client cuts it.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from wallet_conformance.client.api import MAX_BODY, Exchange
from wallet_conformance.client.har.headers import headers_of
from wallet_conformance.client.har.secret_learning import learn_secrets
from wallet_conformance.client.har.url_matching import operation_of
from wallet_conformance.client.redaction import redact, redact_headers


def _request_body(request: dict[str, Any]) -> Any:
    posted = request.get("postData")
    text = posted.get("text") if isinstance(posted, dict) else None
    if not isinstance(text, str):
        return None
    text = redact(text)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser goes: judged as text
        return text


def _response_text(content: Any) -> tuple[str, int | None]:
    """The response body as the client would keep it, and its whole size when more was received than is kept
    (a body cut at the cap, or not recorded at all)."""
    content = content if isinstance(content, dict) else {}
    text = content.get("text")
    size = content.get("size")
    size = size if type(size) is int and size > 0 else 0
    if not isinstance(text, str):
        return "", size or None  # a body the recorder left out cannot be judged; an empty one can
    if content.get("encoding") == "base64":
        try:
            body = base64.b64decode(text, validate=False)
        except (binascii.Error, ValueError):
            return "", size or 1
    else:
        body = text.encode("utf-8", errors="replace")
    whole = max(size, len(body))
    kept = body[:MAX_BODY]
    return kept.decode("utf-8", errors="replace"), whole if whole > len(kept) else None


def exchange_of(found: dict[str, Any], base_url: str) -> Exchange:
    """A HAR entry as the exchange the client would have kept: its operation (None when it is none), secrets
    replaced, the body cut where the client cuts it."""
    learn_secrets(found)
    request, response = found["request"], found["response"]
    method, url = request["method"].upper(), request["url"]
    text, size = _response_text(response.get("content"))
    elapsed = found.get("time")
    return Exchange(
        operation_id=operation_of(method, url, base_url),
        method=method,
        url=redact(url),
        request_headers=redact_headers(headers_of(request)),
        request_body=_request_body(request),
        status=response["status"],
        response_headers=redact_headers(headers_of(response)),
        text=redact(text),
        elapsed=elapsed / 1000 if isinstance(elapsed, int | float) and elapsed > 0 else 0.0,
        size=size,
    )
