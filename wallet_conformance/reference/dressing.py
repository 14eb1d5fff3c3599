"""What some variants change in every API answer: fields, meta, headers and charset beyond the document, and values
the document leaves open (a bank's currency).

app.py runs `dressed` over each answer under /v1 when any variant is on.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wallet_conformance.reference import serialize
from wallet_conformance.reference.records import now
from wallet_conformance.reference.variants import Variant, VariantSet

# The kind of record each path answers, named in the extra `object` field (a variant).
OBJECT_KINDS = (
    ("/v1/accounts", "account"),
    ("/v1/virtual-accounts", "virtual_account"),
    ("/v1/collection-accounts", "collection_account"),
    ("/v1/transactions/validate-account", "bank_account"),
    ("/v1/transactions/banks", "bank"),
    ("/v1/transactions", "transaction"),
)


ISO_NUMERIC_NAIRA = "566"  # ISO 4217's numeric code of the naira


def _records(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of an envelope's data: its entries, or the one record."""
    data = body.get("data")
    return [record for record in (data if isinstance(data, list) else [data]) if isinstance(record, dict)]


def _each_string(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {name: _each_string(item, change) for name, item in value.items()}
    if isinstance(value, list):
        return [_each_string(item, change) for item in value]
    return change(value) if isinstance(value, str) else value


async def dressed(request: Request, response: Response, variants: VariantSet) -> Response:
    """An API answer with what some variants add beyond the document: fields, meta, headers, charset."""
    # call_next answers starlette's streaming response, typed as the Response it derives from.
    chunks = [chunk async for chunk in response.body_iterator]  # type: ignore[attr-defined]
    raw = b"".join(chunk if isinstance(chunk, bytes) else chunk.encode() for chunk in chunks)
    headers = {name: value for name, value in response.headers.items() if name != "content-length"}
    media_type = response.media_type or headers.pop("content-type", None)
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("meta"), dict):
        if variants.on(Variant.EXTRA_FIELDS) and response.status_code < HTTPStatus.BAD_REQUEST:
            kind = next((kind for prefix, kind in OBJECT_KINDS if request.url.path.startswith(prefix)), None)
            data = body.get("data")
            records = data if isinstance(data, list) else [data]
            for record in records:
                if kind and isinstance(record, dict):
                    record["object"] = kind
        if request.url.path == "/v1/transactions/banks" and variants.on(Variant.BANK_CURRENCY_NUMERIC):
            for record in _records(body):
                if "currency" in record:
                    record["currency"] = ISO_NUMERIC_NAIRA
        if variants.on(Variant.EXTRA_META):
            body["meta"] |= {"requestId": secrets.token_hex(8), "timestamp": serialize.timestamp(now())}
        if variants.on(Variant.TIMESTAMPS_UTC_OFFSET):
            body["data"] = _each_string(body.get("data"), serialize.with_utc_offset)
        raw = json.dumps(body).encode()
    if variants.on(Variant.EXTRA_HEADERS):
        headers |= {
            "x-request-id": secrets.token_hex(8),
            "ratelimit-limit": "1000",
            "ratelimit-remaining": "999",
            "ratelimit-reset": "60",
            "cache-control": "no-store",
        }
    if variants.on(Variant.CONTENT_TYPE_CHARSET) and (media_type or "").startswith("application/json"):
        headers.pop("content-type", None)
        media_type = "application/json; charset=utf-8"
    headers.pop("content-type", None)
    return Response(raw, status_code=response.status_code, headers=headers, media_type=media_type)
