"""The headers of a recorded request or response."""

from __future__ import annotations

from typing import Any


def headers_of(part: dict[str, Any]) -> list[tuple[str, str]]:
    headers = part.get("headers")
    if not isinstance(headers, list):
        return []
    return [
        (str(header.get("name")), str(header.get("value", "")))
        for header in headers
        if isinstance(header, dict) and isinstance(header.get("name"), str) and not header["name"].startswith(":")
    ]  # HTTP/2 pseudo-headers: the request line says them
