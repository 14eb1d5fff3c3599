"""The failure types of the suite, and the one failure format.

- `ConformanceFailure`: a statement of the document that the target broke (the target's fault).
- `SuiteError`: the suite itself is wrong (a check names a requirement its test does not declare, or names
  none where the test declares several). Never a skip, never a pass: the test errors, loudly.
- `CannotJudge`: what the test needs to judge did not happen (an empty list, a transfer still pending, no way
  to fund a wallet). The plugin turns it into a skip with its reason.
- `UnansweredFailure`: a request the client found left without an answer (its `Unanswered`) as the failure of the
  requirement that every request is answered; the plugin makes it of the error a test stopped on (`judged_silences`).

A check's requirement defaults to the running test's own: the plugin sets `DECLARED` to the ids of the
test's `requirement` markers while the test's setup and call run (see `requirement_of`). Each call of a check that
returns holds its requirement: the plugin counts them for the test (`holding`), and a requirement passes only where
some check held it.
"""

from __future__ import annotations

import functools
import json
import unittest
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from wallet_conformance.client.api import Unanswered
from wallet_conformance.client.exchange import Exchange, Silence
from wallet_conformance.client.redaction import redact
from wallet_conformance.spec import contract

# The requirement ids the running test declares; None outside a conformance test (library use, self-tests).
DECLARED: ContextVar[tuple[str, ...] | None] = ContextVar("wallet_conformance_declared", default=None)
# The checks that held while the running test's setup and call ran, by requirement; None outside a test, and while the
# exchange judge runs its rules (judge/rules.py counts what they hold on each exchange itself).
HELD: ContextVar[Counter[str] | None] = ContextVar("wallet_conformance_held", default=None)
_IN_CHECK: ContextVar[bool] = ContextVar("wallet_conformance_in_check", default=False)
Checked = TypeVar("Checked", bound=Callable[..., Any])


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
            raise SuiteError('a check named no requirement outside a conformance test: pass requirement="ID"')
        if len(ids) != 1:
            raise SuiteError(
                f"a check named no requirement, and the test declares {len(ids)} "
                f'({", ".join(ids) or "none"}): pass requirement="ID"'
            )
        return ids[0]
    if ids is not None and requirement not in ids:
        raise SuiteError(
            f"a check names requirement {requirement!r}, which the test does not declare "
            f"(it declares {', '.join(ids) or 'none'}): a typo here would hide a failure"
        )
    return requirement


@contextmanager
def holding(held: Counter[str]) -> Iterator[Counter[str]]:
    """While the block runs, every check that holds counts one for its requirement in `held`."""
    token = HELD.set(held)
    try:
        yield held
    finally:
        HELD.reset(token)


def check(function: Checked) -> Checked:
    """Marks a check: its `requirement=` is resolved (and validated) on every call, passing or failing, so a
    typo in an id is a SuiteError at once rather than a surprise on the day the check fails. A call that returns
    held its requirement (`holding` counts it); one check calling another holds once."""

    @functools.wraps(function)
    def run(*args: Any, requirement: str | None = None, **kwargs: Any) -> Any:
        requirement = requirement_of(requirement)
        if _IN_CHECK.get():
            return function(*args, requirement=requirement, **kwargs)
        token = _IN_CHECK.set(True)
        try:
            result = function(*args, requirement=requirement, **kwargs)
        finally:
            _IN_CHECK.reset(token)
        held = HELD.get()
        if held is not None:
            held[requirement] += 1
        return result

    run.checked = function  # type: ignore[attr-defined]  # what `as_rule` calls: a function may carry attributes
    return cast(Checked, run)  # `wraps` copied the check's signature: it takes and returns what the check does


def as_rule(checked: Callable[..., Any]) -> Callable[..., Any]:
    """The function under a @check, as the exchange judge calls it (`rules_running`): the rule names the requirement
    from the registry, which read it from the catalogue, and counts what it holds itself, so the check's resolving
    and counting would do nothing there but cost a tenth of the judge's time."""
    return getattr(checked, "checked", checked)


@contextmanager
def rules_running() -> Iterator[None]:
    """While the exchange judge runs its rules: no test's requirements are the default, no check counts as the
    running test's, and a check calling another holds once, as inside any check."""
    declared, held, inside = DECLARED.set(None), HELD.set(None), _IN_CHECK.set(True)
    try:
        yield
    finally:
        DECLARED.reset(declared)
        HELD.reset(held)
        _IN_CHECK.reset(inside)


class ConformanceFailure(AssertionError):
    """A statement of the document that the target broke.

    Carries the requirement id, so the report attributes the failure to that
    requirement and no other, even when a test names several.
    """

    def __init__(
        self,
        requirement: str,
        title: str,
        expected: Any,
        received: Any,
        exchange: Exchange | None = None,
        detail: str | None = None,
        also: tuple[Exchange, ...] = (),
    ) -> None:
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


class UnansweredFailure(Unanswered):
    """A request of an operation left without an answer while the target answered others (the client's Unanswered),
    as the failure of the requirement that every request is answered (contract.ANSWERED), wherever the run meets it,
    never a blocked setup step. Still an Unanswered and a TargetError, as the report matches it (by name, with its
    `requirement`: judge/classification.py); `title`, `expected`, `received` and `detail` are a check's, and the report
    reads them by name."""

    def __init__(self, silence: Silence, again: bool = False) -> None:
        super().__init__(silence, again)
        self.requirement: str = contract.ANSWERED
        self.title = (
            f"{silence.method} {urlsplit(silence.url).path} got no answer within {silence.timeout:g} s "
            "(--request-timeout) while the target answered others"
        )
        self.expected = f"an answer, a success or a refusal, within {silence.timeout:g} s (--request-timeout)"
        self.received = silence.summary + (
            "; not waited on again: the same request went unanswered earlier in the run" if again else ""
        )
        self.detail = f"the target is up: {silence.alive}"
        lines = [
            f"[{self.requirement}] {self.title}",
            f"  {self.detail}",
            f"  expected: {self.expected}",
            f"  received: {self.received}",
            f"  request:  {silence.method} {silence.url}",
        ]
        if silence.request_body is not None:
            body = silence.request_body
            lines.append(
                f"    body:   {body if isinstance(body, str) else json.dumps(body)}"
                + (f" followed by {silence.padding} spaces" if silence.padding else "")
            )
        lines += ["  Reproduce with:", f"    {silence.curl()}"]
        self.args = (redact("\n".join(lines)),)


def judged_silences(error: BaseException) -> BaseException:
    """The error a test stopped on, with every request the client found unanswered (Unanswered) made the failure of
    the requirement that every request is answered (UnansweredFailure), inside an exception group too; `error` itself
    when it holds none. What pytest and the report show of it stays: its traceback, its cause and its notes (the
    example Hypothesis drew)."""
    if isinstance(error, BaseExceptionGroup):
        inner = [judged_silences(leaf) for leaf in error.exceptions]
        if all(new is old for new, old in zip(inner, error.exceptions, strict=True)):
            return error
        judged: BaseException = error.derive(inner)
    elif isinstance(error, Unanswered) and not isinstance(error, UnansweredFailure):
        judged = UnansweredFailure(error.silence, error.again)
    else:
        return error
    judged.__traceback__, judged.__cause__, judged.__context__ = error.__traceback__, error.__cause__, error.__context__
    judged.__suppress_context__ = error.__suppress_context__
    if hasattr(error, "__notes__"):
        judged.__notes__ = list(error.__notes__)
    return judged
