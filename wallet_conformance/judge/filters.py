"""What a filtered list returns. Checks follow the convention of checks.py."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import check


@check
def names_hold(entries: list[Any], name: str, exchange: Exchange, *, requirement: str | None = None) -> None:
    """Every entry a name filter returned has a name holding the filter's `name`, ignoring case: what holds whether
    the filter matches exactly, by substring or ignoring case (which one is not shown)."""
    for index, entry in enumerate(entries):
        listed = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(listed, str) or name.casefold() not in listed.casefold():
            checks.fail(
                "every account the name filter returns has a name holding the filter's name",
                f"a name holding {name!r}",
                f"listed account {index} named {listed!r}",
                exchange,
                requirement=requirement,
            )
