"""Keeps secret keys out of everything the suite prints or writes.

Redaction happens on the data (exchanges, messages) before any formatter sees it,
so a new report or log line cannot leak a key it never received.
"""

from __future__ import annotations

from collections.abc import Iterable

from wallet_conformance.client.near_copies import every_near_copy

PLACEHOLDER = "<SECRET_KEY>"
SECRET_HEADERS = frozenset({"x-service-key", "authorization", "proxy-authorization", "cookie", "set-cookie",
                            "x-wallet-signature"})

_secrets: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember a value that must never appear in output (keys shorter than 4 characters are refused)."""
    if value:
        if len(value) < 4:
            raise ValueError("a secret key shorter than 4 characters cannot be redacted reliably")
        _secrets.add(value)


def register_key(value: str | None) -> None:
    """Remember a secret key, and its near-copies (near_copies.py) that the key probes send, as never to appear in
    output: a target that echoes a refused key back would otherwise show all of the key but one character. A
    near-copy shorter than 4 characters is left out (it would mask unrelated text)."""
    if value:
        register_secret(value)
        for copy in every_near_copy(value):
            if len(copy) >= 4:
                register_secret(copy)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every registered secret (and every one of `secrets`) replaced by a placeholder."""
    for secret in sorted({*_secrets, *secrets}, key=len, reverse=True):
        if secret:
            text = text.replace(secret, PLACEHOLDER)
    return text


def redact_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Headers with the value of every secret-bearing header replaced."""
    return [(name, PLACEHOLDER if name.lower() in SECRET_HEADERS else redact(value)) for name, value in headers]
