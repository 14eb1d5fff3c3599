"""Schemathesis glue: cases generated from openapi.yaml, sent through the suite's client, judged by its rules.

Schemathesis 4 makes the requests (`as_strategy` per operation, positive or negative); the suite's
`ApiClient` sends them, so the key, the production guard, the capture and the redaction are the
hand-written suite's. Every verdict is a `ConformanceFailure` naming one requirement: `check_generated` decides what the
request needed (accepted, refused) and then runs the registry of rules (judge/rules.py) on the answer.

Whether a request is valid is decided here, on what is actually sent (after real ids replaced
generated ones), against the request schemas of openapi.yaml: a case Schemathesis generated as
negative may be valid once a header or a query value the target ignores is the only thing wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import hypothesis
from hypothesis import strategies as st

from wallet_conformance.client.api import DEFAULT
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks, request_rules, rules
from wallet_conformance.judge.failures import ConformanceFailure
from wallet_conformance.judge.request_rules import (
    INVALID_INPUT_REQUIREMENTS,
    RequestViolation,
    invalid_input_requirement,
)
from wallet_conformance.spec import contract, validation

# Schemathesis' generation modes, by value: Schemathesis is imported where a case is first generated, so that a
# process that runs no generated test (most of a run's workers, the proxy, --har) never pays for its import.
POSITIVE = "positive"
NEGATIVE = "negative"


@cache
def openapi_schema() -> Any:
    """openapi.yaml (schemas bundled) loaded by Schemathesis; no base URL: the suite's client sends."""
    import schemathesis

    schema = schemathesis.openapi.from_dict(validation.openapi_document())
    schema.config.generation.update(database="none")
    return schema


@cache
def operation(operation_id: str) -> Any:
    """The Schemathesis operation of `operation_id`, whose strategies make the generated cases."""
    return openapi_schema().find_operation_by_id(operation_id)


def given_cases(operation_id: str, mode: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """`@given` of a case test: `sent`, the Request of a Schemathesis case of the operation in `mode` (what a failing
    example prints), and Hypothesis' `data` for draws."""
    return hypothesis.given(sent=strategy(operation_id, mode).map(Request.from_case), data=st.data())


def strategy(operation_id: str, mode: str = POSITIVE, **fixed: Any) -> Any:
    """Hypothesis strategy of Schemathesis cases for one operation in `mode` (POSITIVE, NEGATIVE; `fixed`:
    path_parameters, body...)."""
    from schemathesis import GenerationMode

    return operation(operation_id).as_strategy(generation_mode=GenerationMode(mode), **fixed)


# ------------------------------------------------------------------ requests


@dataclass
class Request:
    """What is sent for one generated case: the case's path, query and body, never its headers.

    The headers of a case are Schemathesis' guesses at the security scheme (an empty or random
    `x-service-key`); the suite's client sends the run's key, or none or a wrong one on purpose.
    """

    operation_id: str
    path: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = DEFAULT
    issued: set[str] = field(default_factory=set)  # body fields bound to a record the target itself issued

    @classmethod
    def from_case(cls, case: Any) -> Request:
        from schemathesis.core import NOT_SET

        body = DEFAULT if case.body is NOT_SET else _jsonable(case.body)
        return cls(
            case.operation.definition.raw["operationId"], dict(case.path_parameters or {}), dict(case.query or {}), body
        )

    def __repr__(self) -> str:
        """The operation only: Hypothesis prints a failing example as drawn, before real records are bound into it;
        the request as sent follows as a note (binding.send)."""
        operation = contract.operations()[self.operation_id]
        return f"Request({self.operation_id}: {operation.method} {operation.path})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """How Hypothesis prints a drawn request in a failing example (its printer reads this, not `__repr__`)."""
        printer.text(repr(self))


def _jsonable(value: Any) -> Any:
    """Negative generation may put bytes in a JSON body; they are sent as the string of those bytes."""
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


# ------------------------------------------------------------------ is the request valid?


def request_problems(request: Request) -> list[RequestViolation]:
    """Every way the request, as sent, breaks openapi.yaml (empty: the request is valid). A field bound to a record
    the target issued names that record, whatever its identifier's pattern: an identifier without its prefix is the
    issuing requirement's failure (RES-01), not invalid input."""
    found = request_rules.problems(request.operation_id, request.body, query=request.query, path=request.path)
    return [
        problem
        for problem in found
        if not (problem.keyword == "pattern" and problem.where.removeprefix("body.") in request.issued)
    ]


# ------------------------------------------------------------------ verdicts


def check_generated(
    exchange: Exchange, problems: list[RequestViolation], must_accept: str | None, success_checks: bool = True
) -> None:
    """The verdict on one generated exchange.

    - never a 5xx (ERR-05); a 401 to the run's own key breaks AUTH-04;
    - an invalid request (problems) that is accepted breaks the requirement of what was invalid;
    - a valid request the document says must succeed (`must_accept`: its requirement) that is refused fails;
      any other refusal of a valid request is a business rule the document allows (limits, balance, unknown ids);
    - every answer then passes the registry of rules (a success answer only when `success_checks`: the tests of
      invalid requests leave those to the tests of valid ones).
    """
    if exchange.status == 401:
        raise ConformanceFailure(
            KEY_ACCEPTED,
            "the account's secret key is accepted",
            "not 401",
            exchange.status,
            exchange,
            detail="the run's own key was refused: every other verdict would lie",
        )
    if exchange.status >= 500:
        checks.refused_with_4xx(exchange, requirement="ERR-05", why="a generated request")
    if problems:
        assert exchange.operation_id is not None  # a generated request is one of an operation
        requirement = invalid_input_requirement(exchange.operation_id, problems)
        if requirement is not None and exchange.ok:
            listing = "; ".join(f"{problem.where}: {problem.message}" for problem in problems[:4])
            raise ConformanceFailure(
                requirement,
                "an invalid request is not accepted",
                checks.NOT_ACCEPTED,
                exchange.status,
                exchange,
                detail=f"invalid: {listing}",
            )
    elif must_accept is not None:
        checks.accepted(exchange, requirement=must_accept, why=f"a valid {exchange.operation_id} request")
    if exchange.ok and not success_checks:
        return
    rules.judge_answer(exchange)


# The requirement the judge holds besides the registry's: the run's own key is accepted; and what a refusal looks
# like is observed (ERR-04).
KEY_ACCEPTED = contract.KEY_ACCEPTED
REFUSALS_OBSERVED = "ERR-04"


def limit_requirements(operation_id: str) -> list[str]:
    """The requirements an accepted invalid request of this operation breaks."""
    return [rid for op, _, _, rid in INVALID_INPUT_REQUIREMENTS if op == operation_id]


def valid_requirements(operation_id: str, must_accept: str | None) -> list[str]:
    """The requirements the generated valid requests of one operation check: every rule of the registry on its
    answers, the key accepted, what refusals look like, its acceptance (`must_accept`; for a transfer of exactly the
    minimum, that the minimum is accepted) and its limits."""
    minimum = (
        [contract.MINIMUM_ACCEPTED[operation_id]] if must_accept and operation_id in contract.MINIMUM_ACCEPTED else []
    )
    ids = [
        *rules.requirements(operation_id),
        "ERR-05",
        REFUSALS_OBSERVED,
        KEY_ACCEPTED,
        *([must_accept] if must_accept else []),
        *minimum,
        *limit_requirements(operation_id),
    ]
    return list(dict.fromkeys(ids))


def invalid_requirements(operation_id: str) -> list[str]:
    """The requirements the generated invalid requests of one operation check: refusals, never a 5xx."""
    ids = [
        *rules.requirements(operation_id, ("client-error", "not-success")),
        REFUSALS_OBSERVED,
        KEY_ACCEPTED,
        *limit_requirements(operation_id),
    ]
    return list(dict.fromkeys(ids))
