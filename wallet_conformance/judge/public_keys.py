"""An account's public keys, `pubKey.live` and `pubKey.test`. Checks follow the convention of checks.py."""

from __future__ import annotations

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks, envelope
from wallet_conformance.judge.failures import check

MODES = ("live", "test")


@check
def every_account_holds_both(exchange: Exchange, *, requirement: str | None = None) -> None:
    """GET /accounts lists at least one account, and each holds pubKey, an object with a non-empty live and test
    public key."""
    accounts = envelope.data_is_array(exchange, requirement=requirement)
    if not accounts:
        checks.fail(
            "GET /accounts lists at least one account", "an account", "an empty list", exchange, requirement=requirement
        )
    for index, account in enumerate(accounts):
        pub_key = account.get("pubKey") if isinstance(account, dict) else None
        if not isinstance(pub_key, dict):
            checks.fail(
                "an account holds pubKey, an object",
                "an object with live and test",
                f"data[{index}].pubKey = {pub_key!r}",
                exchange,
                requirement=requirement,
            )
        for mode in MODES:
            value = pub_key.get(mode)
            if not isinstance(value, str) or not value:
                checks.fail(
                    f"pubKey.{mode} is a non-empty string",
                    "a public key",
                    f"data[{index}].pubKey.{mode} = {value!r}",
                    exchange,
                    requirement=requirement,
                )
