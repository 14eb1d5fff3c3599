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
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

import requests
import schemathesis
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance
from schemathesis.core.failures import FailureGroup
from schemathesis.core.transport import Response

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks, envelope
from wallet_conformance.judge.failures import DECLARED, ConformanceFailure
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


def _response(exchange: Exchange) -> Response:
    """The exchange as a Schemathesis response, for its checks (the key is already redacted). Made directly: through
    an httpx response, Schemathesis would prepare a `requests` request, which costs more than the checks."""
    request = requests.PreparedRequest()
    request.method, request.url, request.body = exchange.method, exchange.url, None
    request.headers = requests.structures.CaseInsensitiveDict(exchange.request_headers)
    headers: dict[str, list[str]] = {}
    for name, value in exchange.response_headers:
        headers.setdefault(name.lower(), []).append(value)
    content = exchange.text.encode()
    return Response(status_code=exchange.status, headers=headers, content=content, request=request,
                    elapsed=exchange.elapsed, verify=True, encoding="utf-8")


def _path_parameters(exchange: Exchange) -> dict[str, str]:
    """The path parameters of an exchange, read off its URL by its operation's path template."""
    template = contract.operations()[exchange.operation_id].path
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    found = re.search(pattern + "$", urlsplit(exchange.url).path)
    return {name: unquote(value) for name, value in found.groupdict().items()} if found else {}


# The Schemathesis case and response of the exchange last judged, per thread: the registry holds several
# Schemathesis checks, and converting one exchange costs more than checking it.
_last = threading.local()


def _case_and_response(exchange: Exchange) -> tuple[Any, Response]:
    held = getattr(_last, "held", None)
    if held is None or held[0] is not exchange:
        case = operation(exchange.operation_id).Case(path_parameters=_path_parameters(exchange))
        held = _last.held = (exchange, case, _response(exchange))
    return held[1], held[2]


def _in_meta(failure: Any) -> bool:
    """Whether a schema failure lies in the envelope's `meta`, which the envelope's own rules judge, each under its
    requirement (a resource's requirement is about `data`)."""
    path = getattr(failure, "instance_path", None)
    return bool(path) and path[0] == "meta"


def _schemathesis(check: Callable[..., Any], name: str, why: str, data_only: bool = False
                  ) -> Callable[[Exchange, str], None]:
    """A Schemathesis check run on an exchange of the run's own; its failure names the requirement (with
    `data_only`, a failure in `meta` is left to the envelope's rules)."""

    def run(exchange: Exchange, requirement: str) -> None:
        case, response = _case_and_response(exchange)
        try:
            case.validate_response(response, checks=[check])
        except FailureGroup as group:
            failures = [failure for failure in group.exceptions if not (data_only and _in_meta(failure))]
            if not failures:
                return
            first = failures[0]
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
                       "a success body's data matches its schema (MUST, the resource's requirement)", data_only=True)),
    Rule("response_schema_conformance", "not-success", ("ERR-06",),
         _schemathesis(response_schema_conformance, "response_schema_conformance",
                       "a refusal is an envelope (SHOULD)")),
)


@cache
def _applying(operation_id: str) -> tuple[tuple[Rule, str], ...]:
    return tuple((rule, requirement) for rule in RULES
                 if (requirement := rule.requirement_for(operation_id)) is not None)


def applying(operation_id: str, when: tuple[When, ...] = ("success", "client-error", "not-success")
             ) -> Iterator[tuple[Rule, str]]:
    """The rules that hold on an operation's answers of the kinds `when`, each with its requirement there."""
    for rule, requirement in _applying(operation_id):
        if rule.when in when:
            yield rule, requirement


def requirements(operation_id: str, when: tuple[When, ...] = ("success", "client-error", "not-success")
                 ) -> list[str]:
    """The requirements the rules hold on an operation's answers of the kinds `when`, in the registry's order."""
    return list(dict.fromkeys(requirement for _, requirement in applying(operation_id, when)))


def broken(exchange: Exchange) -> list[tuple[Rule, str, ConformanceFailure]]:
    """Every rule of the registry that judges this answer and that it breaks, with the requirement it holds and
    the failure, in the registry's order. Worked out once per exchange: the exchange judge and the generated
    tests both ask."""
    if exchange.broken is None:
        found = []
        token = DECLARED.set(None)  # each rule holds its own requirement, whichever test made the exchange
        try:
            for rule, requirement in applying(exchange.operation_id):
                if rule.judges(exchange):
                    try:
                        rule.check(exchange, requirement)
                    except ConformanceFailure as failure:
                        found.append((rule, requirement, failure))
        finally:
            DECLARED.reset(token)
        exchange.broken = found
    return exchange.broken


def judge_answer(exchange: Exchange, when: tuple[When, ...] = ("success", "client-error", "not-success")) -> None:
    """Every rule of the registry that judges this answer (of the kinds `when`), in order; the first broken one
    raises its ConformanceFailure."""
    for rule, _, failure in broken(exchange):
        if rule.when in when:
            raise failure
