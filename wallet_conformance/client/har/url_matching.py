"""Which target and which operation a recorded request is: its base address, and the operation of openapi.yaml its
method and path are.
"""

from __future__ import annotations

import re
from functools import cache
from urllib.parse import urlsplit

from wallet_conformance.spec import contract


def base_of(url: str) -> str | None:
    """The base address a URL is under: its origin and its path up to the version segment (`/v1`); None when the
    path has no such segment."""
    parts = urlsplit(url)
    segment = contract.version_segment().strip("/")
    names = parts.path.split("/")
    if segment not in names or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}" + "/".join(names[: names.index(segment) + 1])


@cache
def _templates() -> dict[str, tuple[tuple[re.Pattern[str], str], ...]]:
    """By method, (path pattern, operationId) of every operation; literal paths first (`/transactions/banks` before
    a path with a parameter in its place)."""
    found = [(operation.method.upper(), operation.path, operation.id) for operation in contract.operations().values()]
    found.sort(key=lambda item: "{" in item[1])
    by_method: dict[str, list[tuple[re.Pattern[str], str]]] = {}
    for method, path, operation_id in found:
        pattern = re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)) + "$")
        by_method.setdefault(method, []).append((pattern, operation_id))
    return {method: tuple(templates) for method, templates in by_method.items()}


def operation_of(method: str, url: str, base_url: str) -> str | None:
    """The operation a request under `base_url` is, by its method and openapi.yaml's path templates; None when it is
    none of them."""
    parts, base = urlsplit(url), urlsplit(base_url)
    if (parts.scheme, parts.netloc) != (base.scheme, base.netloc) or not parts.path.startswith(base.path + "/"):
        return None
    path = parts.path[len(base.path) :]
    return next(
        (operation_id for pattern, operation_id in _templates().get(method.upper(), ()) if pattern.match(path)), None
    )


def in_target(url: str, base_url: str) -> bool:
    parts, base = urlsplit(url), urlsplit(base_url)
    return (parts.scheme, parts.netloc) == (base.scheme, base.netloc) and (
        parts.path == base.path or parts.path.startswith(base.path.rstrip("/") + "/")
    )
