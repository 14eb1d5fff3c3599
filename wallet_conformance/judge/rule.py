"""A rule one answer can break, declared on its check: `@rule(...)` over a check registers it with the exchange judge's
registry (judge/rules.py), as Schemathesis registers its checks with `@schemathesis.check`.

    @rule("SVC-05", when="success", name="meta.statusCode")
    @check
    def meta_status_code(exchange, *, requirement=None): ...

The rule calls the check as `check(exchange, *args, requirement=REQ)`, where REQ is the requirement the rule holds on
the exchange's operation. A check may carry several declarations (json_envelope is both "json envelope" on a success
and "error envelope" on a refusal). The registry orders the rules (rules.ORDER): which one a generated test reports
first is part of its verdict.

A rule may also say, as a JSON schema, what an answer's body surely keeps it (`sufficient`): rules.py validates the
schemas of an operation's rules together, once per answer with the operation's documented success status; where the
body holds them all, those rules are held without their checks, and where it does not, every check runs. A schema
stricter than its check only costs time (the checks run); one looser than its check would pass a broken answer, so
each says in its docstring why it is not (selftests/test_sufficient_schemas.py holds each to its check).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.failures import as_rule
from wallet_conformance.spec.catalogue import catalogue

When = Literal["success", "client-error", "not-success"]
Check = TypeVar("Check", bound=Callable[..., Any])
# Given an operation and the requirement the rule holds on it: a JSON schema (whose `$ref`s name files of schemas/)
# that the body of an answer of that operation, with its documented success status, holds only where the rule's
# check passes; None where the rule has none for that operation.
Sufficient = Callable[[str, str], dict[str, Any] | None]


@dataclass(frozen=True)
class Rule:
    """One rule an answer can break: its name, which answers it judges, the requirements it may stand for, and
    its check, called as `check(exchange, *args, requirement=REQ)`."""

    name: str
    when: When
    requirements: tuple[str, ...]
    check: Callable[..., Any]
    args: tuple[Any, ...] = ()
    where: Callable[[Exchange], bool] | None = None  # which of the `when` answers it judges at all
    sufficient: Sufficient | None = None  # what a success's body surely keeps it (rules.py's fast path)

    def requirement_for(self, operation_id: str | None) -> str | None:
        """The requirement this rule holds on `operation_id`: the first of its requirements whose catalogue scope
        (`operations`) takes the operation in, or None where none does (an exchange of no operation: all's alone)."""
        for requirement_id in self.requirements:
            scope = catalogue()[requirement_id].operations
            if "all" in scope or operation_id in scope:
                return requirement_id
        return None


_DECLARED: list[Rule] = []


def declared_rules() -> tuple[Rule, ...]:
    """Every rule declared so far, in the order of declaration."""
    return tuple(_DECLARED)


def rule(
    *requirements: str,
    when: When,
    name: str,
    args: tuple[Any, ...] = (),
    where: Callable[[Exchange], bool] | None = None,
    each: bool = False,
    sufficient: Sufficient | None = None,
) -> Callable[[Check], Check]:
    """Declares the decorated check a rule of the exchange judge, and returns the check as it is.

    - `requirements`: those the rule may stand for: on an operation, the first whose catalogue `operations` take it in;
      with `each`, one rule per requirement, each held wherever its own scope reaches;
    - `when`: the answers it judges: a success, a refusal (4xx), or any answer but a success;
    - `name`: how the registry and docs/requirements.md name it;
    - `args`: what the check takes after the exchange (meta_success_is: the boolean expected);
    - `where`: which of those answers it judges at all (an error's meta is judged where the error carries one);
    - `sufficient`: a schema a success's body holds only where it keeps the rule (see the module's docstring).
    """
    kept = tuple(dict.fromkeys(requirements))

    def declare(check: Check) -> Check:
        for standing in [(requirement,) for requirement in kept] if each else [kept]:
            _DECLARED.append(Rule(name, when, standing, as_rule(check), args, where, sufficient))
        return check

    return declare
