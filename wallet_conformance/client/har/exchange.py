"""An exchange as the client keeps it: its operation, its secrets replaced, its body cut where the client cuts it.
`exchange_from` is the one way, from the parts of an exchange; a recorded HAR entry (`exchange_of`), an httpx response
(httpx_response.py), the proxy's capture (proxy/captured.py) and the client's own capture layer
(client/transports/capture.py, with what it knows of the request it `Sent`) each give it theirs.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from wallet_conformance.client.exchange import MAX_BODY, Exchange
from wallet_conformance.client.har.headers import headers_of
from wallet_conformance.client.har.secret_learning import learn_cookie_secrets, learn_header_secrets
from wallet_conformance.client.har.url_matching import operation_of
from wallet_conformance.client.redaction import redact, redact_headers


def _request_body(text: str | None) -> Any:
    if text is None:
        return None
    text = redact(text)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser goes: judged as text
        return text


def _response_body(content: Any) -> tuple[bytes | None, int]:
    """A HAR entry's response body as bytes (None: the recorder left it out), and the whole size it records."""
    content = content if isinstance(content, dict) else {}
    text = content.get("text")
    size = content.get("size")
    size = size if type(size) is int and size > 0 else 0
    if not isinstance(text, str):
        return None, size
    if content.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=False), size
        except (binascii.Error, ValueError):
            return None, size or 1
    return text.encode("utf-8", errors="replace"), size


@dataclass(frozen=True)
class Sent:
    """What the client that sent a request knows of it, which a recording does not say: the operation it called (None:
    none, whatever the URL), the body as the exchange shows it (secrets replaced), the charset its answer is read in,
    and when it was sent (seconds since the epoch). Its own secrets are known, so none is learnt from its headers."""

    operation_id: str | None
    request_body: Any
    charset: str
    started: float


def exchange_from(
    method: str,
    url: str,
    base_url: str,
    *,
    request_headers: list[tuple[str, str]],
    request_text: str | None,
    status: int,
    response_headers: list[tuple[str, str]],
    response_body: bytes | None,
    whole_size: int = 0,
    elapsed: float = 0.0,
    sent: Sent | None = None,
) -> Exchange:
    """The exchange the client would have kept of one seen elsewhere: its operation (None when it is none), the
    secrets its headers carry learnt and replaced everywhere, the body cut where the client cuts it (`whole_size`:
    the whole body's bytes, when more was received than is given; a body left out, None, cannot be judged). With
    `sent`, the client's own exchange: its operation, body, charset and start as the client says (`base_url` unused),
    and its key headers as sent but for the run's secrets (redaction.redact_headers)."""
    if sent is None:
        learn_header_secrets(request_headers)
        learn_header_secrets(response_headers)
    if response_body is None:
        text, size = "", whole_size or None
    else:
        whole = max(whole_size, len(response_body))
        kept = response_body[:MAX_BODY]
        charset = sent.charset if sent is not None else "utf-8"
        text, size = kept.decode(charset, errors="replace"), whole if whole > len(kept) else None
    return Exchange(
        operation_id=sent.operation_id if sent is not None else operation_of(method, url, base_url),
        method=method,
        url=redact(url),
        request_headers=redact_headers(request_headers, own=sent is not None),
        request_body=sent.request_body if sent is not None else _request_body(request_text),
        status=status,
        response_headers=redact_headers(response_headers),
        text=redact(text),
        elapsed=elapsed if elapsed > 0 else 0.0,
        size=size,
        started=sent.started if sent is not None else None,
    )


def exchange_of(found: dict[str, Any], base_url: str) -> Exchange:
    """A recorded HAR entry as the exchange the client would have kept (`exchange_from`); its cookies' values learnt
    as secrets too."""
    learn_cookie_secrets(found)
    request, response = found["request"], found["response"]
    posted = request.get("postData")
    text = posted.get("text") if isinstance(posted, dict) else None
    body, size = _response_body(response.get("content"))
    elapsed = found.get("time")
    made = exchange_from(
        request["method"].upper(),
        request["url"],
        base_url,
        request_headers=headers_of(request),
        request_text=text if isinstance(text, str) else None,
        status=response["status"],
        response_headers=headers_of(response),
        response_body=body,
        whole_size=size,
        elapsed=elapsed / 1000 if isinstance(elapsed, int | float) else 0.0,
    )
    made.started = _started(found.get("startedDateTime"))
    return made


def _started(value: Any) -> float | None:
    """When a HAR entry's request was sent (seconds since the epoch), from its startedDateTime; None when that is no
    ISO 8601 timestamp with its offset, or the epoch itself (what a recording writes for a start it did not know)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None or moment.timestamp() <= 0:
        return None
    return moment.timestamp()
