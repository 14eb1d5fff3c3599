"""The rules one answer can break, each tied to the requirement it holds: the one registry of what the generated
tests judge on every exchange they make, and from which their requirement lists are derived.

A rule says which answers it judges (`when`), which requirements it may stand for (the first whose catalogue
`operations` take in the exchange's operation), and its check. The suite's own checks (judge/checks.py,
judge/envelope.py) and three of Schemathesis' checks are registered here. Schemathesis checks left out, and why:
- status_code_conformance: openapi.yaml declares `4XX` and `default` (failure codes are not shown, ERR-04), so it
  cannot fail; the documented success status is the suite's own rule (ERR-01 / ERR-02).
- positive_data_acceptance / negative_data_rejection: they read Schemathesis' own idea of valid; the generated
  tests decide on what was sent, with the business-rule refusals the document allows (generation/cases.py).
- ignored_auth, missing_required_header: they resend outside the suite's client; the generated tests send
  requests without the key themselves.
- unsupported_method (TRACE...), use_after_free, ensure_resource_availability: the document does not say (VER-02,
  STA-10 are INFO) what an undeclared method or a closed wallet answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

import httpx
import schemathesis
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance
from schemathesis.core.failures import FailureGroup

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks, envelope
from wallet_conformance.judge.failures import ConformanceFailure
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.catalogue import catalogue

When = Literal["success", "client-error", "not-success"]


@dataclass(frozen=True)
class Rule:
    """One rule an answer can break: its name, which answers it judges, the requirements it may stand for, and
    its check, called as `check(exchange, requirement)`."""

    name: str
    when: When
    requirements: tuple[str, ...]
    check: Callable[[Exchange, str], Any]
    why: str = ""

    def requirement_for(self, operation_id: str) -> str | None:
        """The requirement this rule holds on `operation_id`: the first of its requirements whose catalogue scope
        (`operations`) takes the operation in, or None where none does."""
        for requirement_id in self.requirements:
            scope = catalogue()[requirement_id].operations
            if "all" in scope or operation_id in scope:
                return requirement_id
        return None

    def judges(self, exchange: Exchange) -> bool:
        if self.when == "success":
            return exchange.ok
        if self.when == "client-error":
            return 400 <= exchange.status < 500
        return not exchange.ok


# ------------------------------------------------------------------ Schemathesis' checks, on any exchange


@cache
def openapi_schema() -> Any:
    """openapi.yaml (schemas bundled) loaded by Schemathesis; no base URL: the suite's client sends."""
    schema = schemathesis.openapi.from_dict(validation.openapi_document())
    schema.config.generation.update(database="none")
    return schema


@cache
def operation(operation_id: str) -> Any:
    return openapi_schema().find_operation_by_id(operation_id)


def _response(exchange: Exchange) -> httpx.Response:
    """The exchange as an httpx response, for Schemathesis' checks (the key is already redacted)."""
    request = httpx.Request(exchange.method, exchange.url, headers=exchange.request_headers)
    response = httpx.Response(exchange.status, headers=exchange.response_headers,
                              content=exchange.text.encode(), request=request)
    response.elapsed = timedelta(seconds=exchange.elapsed)
    return response


def _path_parameters(exchange: Exchange) -> dict[str, str]:
    """The path parameters of an exchange, read off its URL by its operation's path template."""
    template = contract.operations()[exchange.operation_id].path
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    found = re.search(pattern + "$", urlsplit(exchange.url).path)
    return {name: unquote(value) for name, value in found.groupdict().items()} if found else {}


def _schemathesis(check: Callable[..., Any], name: str, why: str) -> Callable[[Exchange, str], None]:
    """A Schemathesis check run on an exchange of the run's own; its failure names the requirement."""

    def run(exchange: Exchange, requirement: str) -> None:
        case = operation(exchange.operation_id).Case(path_parameters=_path_parameters(exchange))
        try:
            case.validate_response(_response(exchange), checks=[check])
        except FailureGroup as group:
            first = group.exceptions[0]
            lines = [line for line in str(first.message).splitlines() if line.strip()]
            raise ConformanceFailure(requirement, f"Schemathesis {name}: {first.title}", why, "\n".join(lines[:6]),
                                     exchange, detail=f"check {name}") from None

    return run


# ------------------------------------------------------------------ the registry

RESOURCE_SCHEMAS = ("RES-10", "RES-20", "RES-30", "RES-40", "RES-50", "RES-60", "END-18")
MESSAGE_VALUES = contract.MESSAGE_REQUIREMENTS

RULES: tuple[Rule, ...] = (
    # Success answers: the envelope, its meta, the documented status and message, and the values of data.
    Rule("json envelope", "success", ("SVC-03",), lambda ex, rid: envelope.json_envelope(ex, requirement=rid)),
    Rule("meta.statusCode", "success", ("SVC-05",), lambda ex, rid: envelope.meta_status_code(ex, requirement=rid)),
    Rule("meta.success boolean", "success", ("SVC-06",),
         lambda ex, rid: envelope.meta_success_is_boolean(ex, requirement=rid)),
    Rule("meta.success true", "success", ("ERR-03",),
         lambda ex, rid: envelope.meta_success_is(ex, True, requirement=rid)),
    Rule("meta.message string", "success", ("SVC-07",),
         lambda ex, rid: envelope.message_is_string(ex, requirement=rid)),
    Rule("meta.message presence", "success", (contract.MESSAGE_PRESENT, contract.MESSAGE_ABSENT),
         lambda ex, rid: envelope.message_presence(ex, requirement=rid)),
    Rule("meta.message words", "success", MESSAGE_VALUES, lambda ex, rid: envelope.message_value(ex, requirement=rid)),
    Rule("meta.pagination presence", "success", (contract.PAGINATED, "END-38"),
         lambda ex, rid: envelope.pagination_presence(ex, requirement=rid)),
    Rule("meta.pagination fields", "success", ("SVC-17",),
         lambda ex, rid: envelope.pagination_shape(ex, requirement=rid)),
    Rule("success status", "success", ("ERR-01", "ERR-02"), lambda ex, rid: checks.success_status(ex, requirement=rid)),
    Rule("money in kobo", "success", (contract.MONEY_INTEGERS,),
         lambda ex, rid: checks.money_is_integer_kobo(ex, requirement=rid)),
    Rule("currency NGN", "success", ("SVC-22",), lambda ex, rid: checks.currencies_are_ngn(ex, requirement=rid)),
    Rule("timestamps", "success", ("SVC-23",), lambda ex, rid: checks.timestamps_are_utc_ms(ex, requirement=rid)),
    # Refusals: an envelope repeating its status with success false.
    Rule("error envelope", "client-error", ("ERR-06",), lambda ex, rid: envelope.json_envelope(ex, requirement=rid)),
    Rule("error meta.statusCode", "client-error", ("ERR-07",),
         lambda ex, rid: envelope.meta_status_code(ex, requirement=rid)),
    Rule("error meta.success false", "client-error", ("ERR-08",),
         lambda ex, rid: envelope.meta_success_is(ex, False, requirement=rid)),
    # Schemathesis' checks.
    Rule("not_a_server_error", "success", ("ERR-05",),
         _schemathesis(not_a_server_error, "not_a_server_error", "no request gets a 5xx (SHOULD)")),
    Rule("not_a_server_error", "not-success", ("ERR-05",),
         _schemathesis(not_a_server_error, "not_a_server_error", "no request gets a 5xx (SHOULD)")),
    Rule("content_type_conformance", "success", ("SVC-04",),
         _schemathesis(content_type_conformance, "content_type_conformance",
                       "a success response is labelled application/json (SHOULD)")),
    Rule("response_schema_conformance", "success", RESOURCE_SCHEMAS,
         _schemathesis(response_schema_conformance, "response_schema_conformance",
                       "a success body matches its schema (MUST, the resource's requirement)")),
    Rule("response_schema_conformance", "not-success", ("ERR-06",),
         _schemathesis(response_schema_conformance, "response_schema_conformance",
                       "a refusal is an envelope (SHOULD)")),
)


def applying(operation_id: str, when: tuple[When, ...] = ("success", "client-error", "not-success")
             ) -> Iterator[tuple[Rule, str]]:
    """The rules that hold on an operation's answers of the kinds `when`, each with its requirement there."""
    for rule in RULES:
        requirement = rule.requirement_for(operation_id) if rule.when in when else None
        if requirement is not None:
            yield rule, requirement


def requirements(operation_id: str, when: tuple[When, ...] = ("success", "client-error", "not-success")
                 ) -> list[str]:
    """The requirements the rules hold on an operation's answers of the kinds `when`, in the registry's order."""
    return list(dict.fromkeys(requirement for _, requirement in applying(operation_id, when)))


def judge_answer(exchange: Exchange, when: tuple[When, ...] = ("success", "client-error", "not-success")) -> None:
    """Every rule of the registry that judges this answer (of the kinds `when`), in order; the first broken one
    raises its ConformanceFailure."""
    for rule, requirement in applying(exchange.operation_id, when):
        if rule.judges(exchange):
            rule.check(exchange, requirement)
