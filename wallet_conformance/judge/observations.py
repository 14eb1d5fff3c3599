"""Pictures of what the target answered, for the INFO observations (`observe(...)`): short, JSON-safe, never judged.

A value shown in a message stays `failures.shown`; these describe what a value or an answer is (its type, its
keys, its status) so that observations of different targets compare.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wallet_conformance.client.api import Exchange

SMALL_TEXT = 40  # characters of a string shown as an example of its field

# Response headers that may announce a version or a deprecation (RFC 8594 Sunset, RFC 9745 Deprecation).
VERSION_HEADER_WORDS = ("version", "deprecat", "sunset")
# Headers that announce a rate limit: X-RateLimit-*, RateLimit-* and RateLimit-Policy (IETF draft), Retry-After.
RATE_LIMIT_WORDS = ("ratelimit", "rate-limit", "retry-after")


def type_and_example(value: Any) -> dict[str, Any]:
    """What kind of value a field holds: its type, and the value itself when it is small (a scalar, a short
    string), else the length of an array or object."""
    kind = type(value).__name__
    if isinstance(value, bool | int | float) or value is None or (isinstance(value, str) and len(value) <= SMALL_TEXT):
        return {"type": kind, "example": value}
    if isinstance(value, list | dict):
        return {"type": kind, "length": len(value)}
    return {"type": kind}


def keys_or_type(value: Any) -> Any:
    """An object's keys, sorted; of anything else, its type's name."""
    return sorted(value) if isinstance(value, dict) else type(value).__name__


def nested(node: Any, *path: str) -> Any:
    """node[path[0]][path[1]]..., or None where the path ends early."""
    for name in path:
        node = node.get(name) if isinstance(node, dict) else None
    return node


def field_shown(exchange: Exchange, name: str) -> dict[str, Any]:
    """`<name>_shown`: the value of data.<name> on a success (null when data is no object), nothing on a refusal."""
    if not exchange.ok:
        return {}
    data = exchange.data if isinstance(exchange.data, dict) else {}
    return {f"{name}_shown": data.get(name)}


def answer_outline(exchange: Exchange) -> dict[str, Any]:
    """An answer in brief: its status, meta.success, and the keys of its data."""
    return {
        "status": exchange.status,
        "meta.success": exchange.meta.get("success"),
        "data": keys_or_type(exchange.data),
    }


def headers_named(exchange: Exchange, words: Iterable[str]) -> dict[str, str]:
    """The response headers whose name (lower-cased) holds one of `words`, by lower-cased name."""
    return {
        name.lower(): value for name, value in exchange.response_headers if any(word in name.lower() for word in words)
    }


def rate_limit_headers(exchange: Exchange) -> dict[str, str]:
    """The headers that announce a rate limit."""
    return headers_named(exchange, RATE_LIMIT_WORDS)


def version_headers(exchange: Exchange) -> dict[str, str]:
    """The headers that may announce a version or a deprecation, and Link."""
    found = headers_named(exchange, VERSION_HEADER_WORDS)
    link = exchange.header("link")
    if link is not None:
        found["link"] = link
    return found


def version_answer(exchange: Exchange, root: str, v1: Exchange | None = None) -> dict[str, Any]:
    """What an operation answered under one version segment: the path asked (below `root`), status, content type,
    whether it is an envelope, its message, where it points, its version headers, and (given the same operation's
    answer under /v1) whether both list the same data."""
    same = (
        exchange.data == v1.data
        if v1 is not None and exchange.ok and isinstance(exchange.data, list) and isinstance(v1.data, list)
        else None
    )
    return {
        "path": exchange.url.removeprefix(root),
        "status": exchange.status,
        "content_type": exchange.header("content-type"),
        "envelope": isinstance(exchange.json, dict) and "meta" in exchange.json,
        "message": exchange.meta.get("message"),
        "same_banks_as_v1": same,
        "location": exchange.header("location"),
        "version_headers": version_headers(exchange),
    }
