"""What some variants change in every API answer: fields, meta, headers and charset beyond the document, and values
the document leaves open (a bank's currency).

app.py puts `Dressing` around the application when any variant is on: a plain ASGI middleware, which holds each
answer under /v1 whole and sends it dressed (Starlette's BaseHTTPMiddleware would run every request in a task of its
own, with memory streams between the two).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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


class Dressing:
    """The ASGI middleware that dresses every answer under /v1 (`dressed`); the others pass as they are."""

    def __init__(self, app: ASGIApp, variants: VariantSet) -> None:
        self.app = app
        self.variants = variants

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v1"):
            await self.app(scope, receive, send)
            return
        started: Message = {}
        chunks: list[bytes] = []

        async def hold(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, hold)
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in started["headers"]}
        answer = dressed(scope["path"], started["status"], headers, b"".join(chunks), self.variants)
        await answer(scope, receive, send)


def dressed(path: str, status: int, headers: dict[str, str], raw: bytes, variants: VariantSet) -> Response:
    """An API answer with what some variants add beyond the document: fields, meta, headers, charset."""
    headers.pop("content-length", None)
    media_type = headers.pop("content-type", None)
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("meta"), dict):
        if variants.on(Variant.EXTRA_FIELDS) and status < HTTPStatus.BAD_REQUEST:
            kind = next((kind for prefix, kind in OBJECT_KINDS if path.startswith(prefix)), None)
            data = body.get("data")
            records = data if isinstance(data, list) else [data]
            for record in records:
                if kind and isinstance(record, dict):
                    record["object"] = kind
        if path == "/v1/transactions/banks" and variants.on(Variant.BANK_CURRENCY_NUMERIC):
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
        media_type = "application/json; charset=utf-8"
    return Response(raw, status_code=status, headers=headers, media_type=media_type)
