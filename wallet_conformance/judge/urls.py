"""When two URLs are the same URL: RFC 3986's syntax- and scheme-based normalisation (sections 6.2.2 and 6.2.3), so
that a target that keeps a webhook in its normal form (`https://Example.COM` as `https://example.com/`, a default port
left out, `%7e` as `~`) holds the URL it was sent."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


def normal_url(text: str) -> str:
    """`text` in its normal form where it is an absolute URL with a host; any other text as it is."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    if not parts.scheme or not parts.netloc or parts.hostname is None:
        return text
    scheme = parts.scheme.lower()
    userinfo, at, _ = parts.netloc.rpartition("@")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname  # hostname: lower-cased, unbracketed
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    path = _remove_dot_segments(_percent_encoded(parts.path))
    if not path and scheme in DEFAULT_PORTS:
        path = "/"
    netloc = f"{_percent_encoded(userinfo)}{at}{host}"
    return urlunsplit((scheme, netloc, path, _percent_encoded(parts.query), _percent_encoded(parts.fragment)))


def same_urls(held: Iterable[object], sent: Iterable[object]) -> bool:
    """Whether two lists hold the same URLs, in any order (each in its normal form)."""
    return {normal_url(str(item)) for item in held} == {normal_url(str(item)) for item in sent}


def _percent_encoded(text: str) -> str:
    """Each percent-encoding in upper case, and decoded where it encodes an unreserved character (section 6.2.2.2)."""

    def normal(match: re.Match[str]) -> str:
        character = chr(int(match.group()[1:], 16))
        return character if character in _UNRESERVED else match.group().upper()

    return _PERCENT.sub(normal, text)


def _remove_dot_segments(path: str) -> str:
    """The path without its `.` and `..` segments (section 5.2.4)."""
    kept: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if len(kept) > 1:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    if path.endswith(("/.", "/..")):
        kept.append("")
    return "/".join(kept)
