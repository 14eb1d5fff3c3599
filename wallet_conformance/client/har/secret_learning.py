"""The secrets a recorded entry carries, registered before it becomes an exchange (client/redaction.py): the key need
not be known beforehand, it is replaced wherever it appears, and in every report written afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from wallet_conformance.client.har.headers import headers_of
from wallet_conformance.client.redaction import KEY_HEADERS, PLACEHOLDER, SECRET_HEADERS, learn
from wallet_conformance.spec import contract


def learn_secrets(found: dict[str, Any]) -> None:
    """Register every secret an entry carries (secret headers' values, the token of an Authorization, every cookie's
    value): each is then replaced wherever it appears."""
    for side in ("request", "response"):
        learn_header_secrets(headers_of(found.get(side) or {}))
    learn_cookie_secrets(found)


def learn_cookie_secrets(found: dict[str, Any]) -> None:
    """Register the value of every cookie an entry lists."""
    for side in ("request", "response"):
        part = found.get(side) or {}
        for cookie in part.get("cookies") or ():
            kept = cookie.get("value") if isinstance(cookie, dict) else None
            if isinstance(kept, str) and kept:
                learn(kept)


def learn_header_secrets(headers: Iterable[tuple[str, str]]) -> None:
    """Register the secrets headers carry: a key header's value (and the token of an Authorization), every cookie's
    value."""
    for name, value in headers:
        lowered = name.lower()
        if lowered in KEY_HEADERS:
            token = value.strip().partition(" ")[2]  # `Bearer <token>`: the token alone is a key too
            for key in {value.strip(), token.strip()}:
                if key and key != PLACEHOLDER and not _public(key):
                    learn(key)
        elif lowered in SECRET_HEADERS:
            _learn_cookies(value)


@cache
def _public_prefixes() -> tuple[str, ...]:
    return contract.prefix("livePublicKey"), contract.prefix("testPublicKey")


def _public(key: str) -> bool:
    """Whether a key sent is one of the account's public keys (a client trying one as its key): not a secret, since
    every account answer shows it (pubKey), and redacted there it would break the account's table."""
    return key.startswith(_public_prefixes())


def _learn_cookies(value: str) -> None:
    for pair in value.split(";"):
        _, _, cookie = pair.partition("=")
        if cookie.strip():
            learn(cookie.strip())
