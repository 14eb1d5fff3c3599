"""Identifiers the path names a record by (a wallet's publicId, a transaction's reference): a near-copy of one (a
prefix, another letter case: client/near_copies.py) names no record, and above all not that one. Checks follow the
convention of checks.py."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.client.near_copies import near_copy
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge, check


def identifier(record: Any, name: str, what: str) -> str:
    """The identifier `name` of a record, which a probe needs as a non-empty string; the test cannot judge without
    one (the record's own tests judge its fields)."""
    value = record.get(name) if isinstance(record, dict) else None
    if not isinstance(value, str) or not value:
        raise CannotJudge(f"{what} carries no {name} string to probe with")
    return value


def near(value: str, kind: str) -> str:
    """The near-copy `kind` of an identifier; the test cannot judge one that has none (no letters: no other case)."""
    copy = near_copy(value, kind)
    if copy is None:
        raise CannotJudge(f"{value!r} has no {kind} near-copy (it has no letters to write in another case)")
    return copy


@check
def not_that_record(exchange: Exchange, name: str, value: str, title: str, *, requirement: str | None = None) -> None:
    """The answer is not a 2xx returning the record whose `name` is `value` (any refusal, and a 2xx about another
    record, pass)."""
    data = exchange.data if exchange.ok else None
    returned = data if isinstance(data, list) else [data]
    if any(isinstance(record, dict) and record.get(name) == value for record in returned):
        checks.fail(
            title,
            f"no record with {name} {value}",
            f"HTTP {exchange.status} returning the record with {name} {value}",
            exchange,
            requirement=requirement,
        )
