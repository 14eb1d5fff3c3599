"""Schemathesis glue: cases generated from openapi.yaml, sent through the suite's client, judged by its checks.

Schemathesis 4 makes the requests (`as_strategy` per operation, positive or negative); the suite's
`ApiClient` sends them, so the key, the production guard, the capture and the redaction are the
hand-written suite's. Every verdict is a `ConformanceFailure` naming one requirement: the suite's own
checks run first, then the Schemathesis checks of `SCHEMATHESIS_CHECKS`, each mapped to a requirement.

Whether a request is valid is decided here, on what is actually sent (after real ids replaced
generated ones), against the request schemas of openapi.yaml: a case Schemathesis generated as
negative may be valid once a header or a query value the target ignores is the only thing wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from typing import Any

import httpx
import schemathesis
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
)
from schemathesis.core import NOT_SET
from schemathesis.core.failures import FailureGroup

from wallet_conformance.client.api import DEFAULT, ApiClient, Exchange
from wallet_conformance.judge import checks, envelope
from wallet_conformance.judge.failures import ConformanceFailure
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.catalogue import catalogue

POSITIVE = GenerationMode.POSITIVE
NEGATIVE = GenerationMode.NEGATIVE

# The requirement a success response's schema violation breaks, by operation (the resource it returns).
RESPONSE_SCHEMA_REQUIREMENT = {
    "listAccounts": "RES-10", "updateAccount": "RES-10",
    "createWallet": "RES-20", "listWallets": "RES-20", "getWallet": "RES-20",
    "closeWallet": "END-18",
    "createCollectionAccount": "RES-30",
    "validateAccount": "RES-40",
    "listBanks": "RES-50",
    "transfer": "RES-60", "bankTransfer": "RES-60", "listTransactions": "RES-60", "verifyTransaction": "RES-60",
}

# Each Schemathesis check the generated tests use: the requirement it stands for, on success and on refusal
# responses (None: not run there), and why. Checks left out, and why:
# - status_code_conformance: openapi.yaml declares `4XX` and `default` (failure codes are not shown, ERR-04),
#   so it cannot fail; the documented success status is the suite's own check (ERR-01 / ERR-02).
# - positive_data_acceptance / negative_data_rejection: they read Schemathesis' own idea of valid; the suite
#   decides on what was sent, with the business-rule refusals the document allows (`judge` below).
# - ignored_auth, missing_required_header: they resend outside the suite's client; `auth_refused` does it inside.
# - unsupported_method (TRACE...), use_after_free, ensure_resource_availability: the document does not say
#   (VER-02, STA-10 are INFO) what an undeclared method or a closed wallet answers.
SCHEMATHESIS_CHECKS: dict[str, tuple[Callable[..., Any], str | None, str | None, str]] = {
    "not_a_server_error": (not_a_server_error, "ERR-05", "ERR-05", "no request gets a 5xx (SHOULD)"),
    "content_type_conformance": (content_type_conformance, "SVC-04", None,
                                 "a success response is labelled application/json (SHOULD)"),
    "response_schema_conformance": (response_schema_conformance, "resource", "ERR-06",
                                    "a success body matches its schema (MUST, the resource's requirement); "
                                    "a refusal is an envelope (SHOULD)"),
}


@cache
def openapi_schema() -> Any:
    """openapi.yaml (schemas bundled) loaded by Schemathesis; no base URL: the suite's client sends."""
    schema = schemathesis.openapi.from_dict(validation.openapi_document())
    schema.config.generation.update(database="none")
    return schema


@cache
def operation(operation_id: str) -> Any:
    return openapi_schema().find_operation_by_id(operation_id)


def strategy(operation_id: str, mode: GenerationMode = POSITIVE, **fixed: Any) -> Any:
    """Hypothesis strategy of Schemathesis cases for one operation (`fixed`: path_parameters, body...)."""
    return operation(operation_id).as_strategy(generation_mode=mode, **fixed)


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

    @classmethod
    def from_case(cls, case: Any) -> Request:
        body = DEFAULT if case.body is NOT_SET else _jsonable(case.body)
        return cls(case.operation.definition.raw["operationId"], dict(case.path_parameters or {}),
                   dict(case.query or {}), body)

    def __repr__(self) -> str:
        parts = [self.operation_id]
        if self.path:
            parts.append(f"path={self.path!r}")
        if self.query:
            parts.append(f"query={self.query!r}")
        if self.body is not DEFAULT:
            parts.append(f"body={self.body!r}")
        return f"Request({', '.join(parts)})"


def _jsonable(value: Any) -> Any:
    """Negative generation may put bytes in a JSON body; they are sent as the string of those bytes."""
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


def send(api: ApiClient, request: Request, key: Any = DEFAULT) -> Exchange:
    """Send a generated request through the run's client (guard, capture, redaction)."""
    return api.call(request.operation_id, {name: str(value) for name, value in request.path.items()},
                    json_body=request.body, params=request.query or None, key=key)


# ------------------------------------------------------------------ is the request valid?


@cache
def _request_validator(operation_id: str) -> Draft202012Validator:
    document = validation.openapi_document()
    registry = Registry().with_resource("urn:openapi", Resource(contents=document, specification=DRAFT202012))
    op = contract.operations()[operation_id]
    definition = document["paths"][op.path][op.method.lower()]
    body = definition["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return Draft202012Validator({"$ref": "urn:openapi" + body}, registry=registry,
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


@dataclass(frozen=True)
class Problem:
    """One way a request breaks openapi.yaml: where (`body.amount`, `query.live`, `path.walletId`) and the keyword."""

    where: str
    keyword: str
    message: str


def _without_nulls(body: Any) -> Any:
    """The body with every null-valued property left out: a target may read `"mobile": null` as no mobile at
    all (the document does not say), so a null is judged as the property's absence, never as a wrong type."""
    if isinstance(body, dict):
        return {name: _without_nulls(value) for name, value in body.items() if value is not None}
    if isinstance(body, list):
        return [_without_nulls(item) for item in body]
    return body


def _contact_of_a_wallet_not_secondary(operation_id: str, body: Any, where: str) -> bool:
    """Whether a problem sits in emailAddress or mobile of a wallet that is not secondary: the document states their
    rules ("valid e-mail address", the mobile's parts) for secondary wallets, which alone require them; a target
    may ignore them on a primary wallet."""
    secondary = isinstance(body, dict) and body.get("category") == "secondary"
    return operation_id == "createWallet" and not secondary and where.startswith(("body.emailAddress", "body.mobile"))


def request_problems(request: Request) -> list[Problem]:
    """Every way the request, as sent, breaks openapi.yaml (empty: the request is valid)."""
    found: list[Problem] = []
    op = contract.operations()[request.operation_id]
    if request.body is not DEFAULT:
        body = _without_nulls(request.body)
        for error in _request_validator(request.operation_id).iter_errors(body):
            where = ".".join(["body", *(str(part) for part in error.absolute_path)])
            if _contact_of_a_wallet_not_secondary(request.operation_id, body, where):
                continue
            if error.validator == "required":
                missing = re.findall(r"'([^']+)' is a required property", error.message)
                where = ".".join([where, *missing])
            found.append(Problem(where, str(error.validator), error.message))
    elif op.method in ("POST", "PATCH"):
        found.append(Problem("body", "required", "no request body"))
    for name, value in request.query.items():
        if name in ("isDefault", "live") and str(value).lower() not in ("true", "false"):
            found.append(Problem(f"query.{name}", "type", f"{value!r} is not a boolean"))
    for name, value in request.path.items():
        if name == "walletId" and not str(value).startswith(contract.prefix("walletId")):
            found.append(Problem(f"path.{name}", "pattern", f"{value!r} is not a wallet publicId"))
    return found


# The requirement a refused-invalid-request verdict names, by (where, keyword); first match wins.
# Everything else invalid in a body falls under ERR-05 (SHOULD: invalid input is refused with a 4xx).
INVALID_INPUT_REQUIREMENTS: tuple[tuple[str, str, str, str], ...] = (
    # operation, where (prefix), keyword, requirement
    ("transfer", "body.amount", "minimum", "LIM-10"),
    ("bankTransfer", "body.amount", "minimum", "LIM-12"),
    ("createCollectionAccount", "body.expireIn", "minimum", "LIM-14"),
    ("createCollectionAccount", "body.expireIn", "maximum", "LIM-16"),
    ("createCollectionAccount", "body.reference", "minLength", "LIM-17"),
    ("createCollectionAccount", "body.", "required", "END-21"),
    ("validateAccount", "body.", "required", "END-26"),
    ("createWallet", "body.category", "enum", "LIM-09"),
    ("createWallet", "body.emailAddress", "required", "LIM-05"),
    ("createWallet", "body.emailAddress", "format", "LIM-06"),
    ("createWallet", "body.mobile", "required", "LIM-07"),
)


def invalid_input_requirement(operation_id: str, problems: Iterable[Problem]) -> str | None:
    """The requirement a 2xx to this invalid request breaks; None when the document says nothing of it.

    Query filters with an odd value and the headers are not judged: their handling is not shown.
    """
    body_problems = [problem for problem in problems if problem.where.startswith("body")]
    if not body_problems:
        return None
    for op, where, keyword, requirement in INVALID_INPUT_REQUIREMENTS:
        for problem in body_problems:
            if op == operation_id and problem.where.startswith(where) and problem.keyword == keyword:
                return requirement
    return "ERR-05"


# ------------------------------------------------------------------ verdicts


def _response(exchange: Exchange) -> httpx.Response:
    """The exchange as an httpx response, for Schemathesis' checks (the key is already redacted)."""
    request = httpx.Request(exchange.method, exchange.url, headers=exchange.request_headers)
    response = httpx.Response(exchange.status, headers=exchange.response_headers,
                              content=exchange.text.encode(), request=request)
    response.elapsed = timedelta(seconds=exchange.elapsed)
    return response


def schemathesis_checks(case: Any, exchange: Exchange) -> None:
    """Run the Schemathesis checks of SCHEMATHESIS_CHECKS on an exchange; a failure names its requirement."""
    success = exchange.ok
    response = _response(exchange)
    for name, (check, on_success, on_refusal, _) in SCHEMATHESIS_CHECKS.items():
        requirement = on_success if success else on_refusal
        if requirement is None:
            continue
        if requirement == "resource":
            requirement = RESPONSE_SCHEMA_REQUIREMENT[exchange.operation_id]
        try:
            case.validate_response(response, checks=[check])
        except FailureGroup as group:
            first = group.exceptions[0]
            raise ConformanceFailure(requirement, f"Schemathesis {name}: {first.title}",
                                     SCHEMATHESIS_CHECKS[name][3], _first_lines(first.message), exchange,
                                     detail=f"check {name}") from None


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in str(text).splitlines() if line.strip()]
    return "\n".join(lines[:count])


def suite_checks(exchange: Exchange) -> None:
    """The hand-written suite's checks that hold for any response of any operation."""
    if exchange.ok:
        envelope.json_envelope(exchange, requirement="SVC-03")
        envelope.meta_status_code(exchange, requirement="SVC-05")
        envelope.meta_success_is_boolean(exchange, requirement="SVC-06")
        envelope.meta_success_is(exchange, True, requirement="ERR-03")
        envelope.message_is_string(exchange, requirement="SVC-07")
        if contract.message_rule(exchange.operation_id) is not None:
            envelope.message_presence(exchange, requirement=_message_presence_requirement(exchange.operation_id))
        if contract.success_message(exchange.operation_id) is not None:
            envelope.message_value(exchange, requirement=message_requirement(exchange.operation_id))
        if contract.is_paginated(exchange.operation_id):
            envelope.pagination_presence(exchange, requirement="SVC-16")
        elif exchange.operation_id == "listBanks":
            envelope.pagination_presence(exchange, requirement="END-38")
        if contract.is_paginated(exchange.operation_id):
            envelope.pagination_shape(exchange, requirement="SVC-17")
        checks.success_status(exchange, requirement=success_status_requirement(exchange.operation_id))
        checks.money_is_integer_kobo(exchange, requirement="SVC-21")
        checks.currencies_are_ngn(exchange, requirement="SVC-22")
        checks.timestamps_are_utc_ms(exchange, requirement="SVC-23")
    elif 400 <= exchange.status < 500:
        # An error response is an envelope (ERR-06) repeating its status (ERR-07) with success false (ERR-08).
        envelope.json_envelope(exchange, requirement="ERR-06")
        envelope.meta_status_code(exchange, requirement="ERR-07")
        envelope.meta_success_is(exchange, False, requirement="ERR-08")


def _message_presence_requirement(operation_id: str) -> str:
    return "SVC-09" if contract.message_rule(operation_id) == "absent" else "SVC-08"


def message_requirement(operation_id: str) -> str:
    """The requirement holding the documented meta.message of an operation (SVC-10 .. SVC-15)."""
    for requirement_id in contract.MESSAGE_REQUIREMENTS:
        if operation_id in catalogue()[requirement_id].operations:
            return requirement_id
    raise KeyError(operation_id)


def success_status_requirement(operation_id: str) -> str:
    return "ERR-02" if contract.operations()[operation_id].success_status == 201 else "ERR-01"


def judge(case: Any, exchange: Exchange, problems: list[Problem], must_accept: str | None,
          success_checks: bool = True) -> None:
    """The verdict on one generated exchange.

    - never a 5xx (ERR-05); a 401 to the run's own key breaks AUTH-04;
    - an invalid request (problems) that is accepted breaks the requirement of what was invalid;
    - a valid request the document says must succeed (`must_accept`: its requirement) that is refused fails;
      any other refusal of a valid request is a business rule the document allows (limits, balance, unknown ids);
    - every response then passes the suite's checks and the Schemathesis checks (a success response only when
      `success_checks`: the tests of invalid requests leave those to the tests of valid ones).
    """
    if exchange.status == 401:
        raise ConformanceFailure("AUTH-04", "the account's secret key is accepted", "not 401", exchange.status,
                                 exchange, detail="the run's own key was refused: every other verdict would lie")
    if exchange.status >= 500:
        checks.client_error(exchange, requirement="ERR-05", why="a generated request")
    if problems:
        requirement = invalid_input_requirement(exchange.operation_id, problems)
        if requirement is not None and exchange.ok:
            listing = "; ".join(f"{problem.where}: {problem.message}" for problem in problems[:4])
            raise ConformanceFailure(requirement, "an invalid request is refused with a 4xx", "a status in 400..499",
                                     exchange.status, exchange, detail=f"invalid: {listing}")
    elif must_accept is not None:
        checks.accepted(exchange, requirement=must_accept, why=f"a valid {exchange.operation_id} request")
    if exchange.ok and not success_checks:
        return
    suite_checks(exchange)
    schemathesis_checks(case, exchange)

