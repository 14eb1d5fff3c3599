"""The one failure type of the suite, and its one format."""

from __future__ import annotations

import json
from typing import Any

from wallet_conformance.client import Exchange
from wallet_conformance.redaction import redact


class ConformanceFailure(AssertionError):
    """A statement of the document that the target broke.

    Carries the requirement id, so the report attributes the failure to that
    requirement and no other, even when a test names several.
    """

    def __init__(self, requirement: str, title: str, expected: Any, received: Any,
                 exchange: Exchange | None = None, detail: str | None = None) -> None:
        self.requirement = requirement
        self.title = title
        self.expected = expected
        self.received = received
        self.exchange = exchange
        self.detail = detail
        super().__init__(format_failure(self))


def _show(value: Any, other: Any = None) -> str:
    """A value for a failure message; a string is quoted when the other side is not one ("true" vs true)."""
    if isinstance(value, str) and (other is None or isinstance(other, str)):
        return value
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 400 else text[:400] + "..."


def format_failure(failure: ConformanceFailure) -> str:
    """Title; expected / received; the exchange and a curl line (secrets already replaced)."""
    lines = [f"[{failure.requirement}] {failure.title}"]
    if failure.detail:
        lines.append(f"  {failure.detail}")
    lines.append(f"  expected: {_show(failure.expected, failure.received)}")
    lines.append(f"  received: {_show(failure.received, failure.expected)}")
    if failure.exchange is not None:
        lines.extend("  " + line for line in failure.exchange.describe().splitlines())
    return redact("\n".join(lines))
