"""A collection account's expiration: "about `expireIn` seconds after creation"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import check

# "about expireIn seconds after creation": how far from createdAt + expireIn the expiration may be.
EXPIRATION_TOLERANCE = timedelta(seconds=60)
# Without a readable createdAt the suite's own clock stands in for it, and clocks may differ a little.
OWN_CLOCK_TOLERANCE = EXPIRATION_TOLERANCE * 5


def parse_timestamp(value: Any) -> datetime | None:
    """An ISO 8601 timestamp as a datetime, or None when the value is no such string. One without a zone is read
    as UTC, as the document says every timestamp is (whether it is written so is SVC-23's matter): two timestamps
    then always compare."""
    try:
        parsed = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed is not None and parsed.tzinfo is None else parsed


@check
def expires_expire_in_after_creation(
    data: dict[str, Any], expire_in: int, asked_at: datetime, exchange: Exchange, *, requirement: str | None = None
) -> datetime:
    """data.expiration is a timestamp about `expire_in` seconds after data.createdAt (else after `asked_at`, when the
    request was sent, with a wider tolerance); returns the expiration."""
    expiration = parse_timestamp(data.get("expiration"))
    if expiration is None:
        checks.fail(
            "data.expiration is a timestamp",
            "an ISO 8601 timestamp",
            data.get("expiration"),
            exchange,
            requirement=requirement,
        )
    created = parse_timestamp(data.get("createdAt"))
    start, tolerance = (created, EXPIRATION_TOLERANCE) if created else (asked_at, OWN_CLOCK_TOLERANCE)
    expected = start + timedelta(seconds=expire_in)
    if abs(expiration - expected) > tolerance:
        checks.fail(
            f"data.expiration is about {expire_in} s after creation",
            f"{expected.isoformat()} (within {tolerance.total_seconds():g} s)",
            data.get("expiration"),
            exchange,
            requirement=requirement,
        )
    return expiration
