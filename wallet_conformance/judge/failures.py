"""The failure types of the suite, and the one failure format.

- `ConformanceFailure`: a statement of the document that the target broke (the target's fault).
- `SuiteError`: the suite itself is wrong (a check names a requirement its test does not declare, or names
  none where the test declares several). Never a skip, never a pass: the test errors, loudly.
- `CannotJudge`: what the test needs to judge did not happen (an empty list, a transfer still pending, no way
  to fund a wallet). The plugin turns it into a skip with its reason.

A check's requirement defaults to the running test's own: the plugin sets `DECLARED` to the ids of the
test's `requirement` markers while the test's setup and call run (see `requirement_of`).
"""

from __future__ import annotations

import functools
import json
import unittest
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.client.redaction import redact

# The requirement ids the running test declares; None outside a conformance test (library use, self-tests).
DECLARED: ContextVar[tuple[str, ...] | None] = ContextVar("wallet_conformance_declared", default=None)


class SuiteError(Exception):
    """An error of the suite, not of the target: the test is wrong and must be fixed."""

    def __init__(self, message: str) -> None:
        super().__init__(f"SUITE ERROR (a bug of the conformance suite, not of the target): {message}")


class CannotJudge(unittest.SkipTest):
    """The test cannot judge its requirement here, and says why (the plugin skips it with this reason).

    A SkipTest, so that Hypothesis re-raises it at once instead of taking it for a failure to shrink."""


@contextmanager
def declared(ids: tuple[str, ...]) -> Iterator[None]:
    """While the block runs, checks default to (and may only name) these requirement ids."""
    token = DECLARED.set(tuple(ids))
    try:
        yield
    finally:
        DECLARED.reset(token)


def requirement_of(requirement: str | None) -> str:
    """The requirement a check holds: the one it names, else the running test's single declared one.

    Raises SuiteError when the check names an id its test does not declare, or names none while the test
    declares several (or runs outside a test).
    """
    ids = DECLARED.get()
    if requirement is None:
        if ids is None:
            raise SuiteError("a check named no requirement outside a conformance test: pass requirement=\"ID\"")
        if len(ids) != 1:
            raise SuiteError(f"a check named no requirement, and the test declares {len(ids)} "
                             f"({', '.join(ids) or 'none'}): pass requirement=\"ID\"")
        return ids[0]
    if ids is not None and requirement not in ids:
        raise SuiteError(f"a check names requirement {requirement!r}, which the test does not declare "
                         f"(it declares {', '.join(ids) or 'none'}): a typo here would hide a failure")
    return requirement


def check(function: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a check: its `requirement=` is resolved (and validated) on every call, passing or failing, so a
    typo in an id is a SuiteError at once rather than a surprise on the day the check fails."""

    @functools.wraps(function)
    def run(*args: Any, requirement: str | None = None, **kwargs: Any) -> Any:
        return function(*args, requirement=requirement_of(requirement), **kwargs)

    return run


class ConformanceFailure(AssertionError):
    """A statement of the document that the target broke.

    Carries the requirement id, so the report attributes the failure to that
    requirement and no other, even when a test names several.
    """

    def __init__(self, requirement: str, title: str, expected: Any, received: Any,
                 exchange: Exchange | None = None, detail: str | None = None,
                 also: tuple[Exchange, ...] = ()) -> None:
        self.requirement = requirement
        self.title = title
        self.expected = expected
        self.received = received
        self.exchange = exchange
        self.detail = detail
        # The other exchanges that show the failure: where a check compares two states (a balance before and after,
        # the movement between), `exchange` shows the state judged and these the ones it was compared with.
        self.also = tuple(also)
        super().__init__(format_failure(self))


SHOWN = 400  # characters of a value shown in a failure message


def shown(value: Any, other: Any = None, limit: int = SHOWN) -> str:
    """A value as the suite shows it (failures, evidence, observations): a string as it is, unless the value it is
    compared with (`other`) is not a string ("true" against true: then quoted), anything else as JSON; cut at
    `limit` characters."""
    if isinstance(value, str) and (other is None or isinstance(other, str)):
        text = value
    else:
        try:
            text = json.dumps(value, sort_keys=True, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def format_failure(failure: ConformanceFailure) -> str:
    """Title; expected / received; the exchange and a curl line (secrets already replaced)."""
    lines = [f"[{failure.requirement}] {failure.title}"]
    if failure.detail:
        lines.append(f"  {failure.detail}")
    lines.append(f"  expected: {shown(failure.expected, failure.received)}")
    lines.append(f"  received: {shown(failure.received, failure.expected)}")
    if failure.exchange is not None:
        lines.extend("  " + line for line in failure.exchange.describe().splitlines())
    for other in failure.also:
        lines.append("  compared with:")
        lines.extend("    " + line for line in other.describe().splitlines())
    return redact("\n".join(lines))
