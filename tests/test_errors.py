"""Errors: the documented success statuses, meta.success, and how refusals look.

The document fixes success responses only: 200 or 201 per operation, with meta.success true. Error
statuses, bodies and codes are 'not shown': the suite asks a 4xx of invalid input and an envelope of
every error (SHOULD, from HTTP and the general conventions) and records everything else (INFO).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks, envelope
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world.bad_requests import ALL_CASES, INPUT_CASES

OPERATIONS = tuple(contract.operations())
CREATED = catalogue()["ERR-02"].operations
SUCCESS_STATUSES = [
    pytest.param(operation_id, "ERR-02" if operation_id in CREATED else "ERR-01",
                 marks=pytest.mark.requirement("ERR-02" if operation_id in CREATED else "ERR-01"),
                 id=operation_id)
    for operation_id in OPERATIONS
]
# Names a body or meta field may give an error code under (ERR-04 records what it finds).
ERROR_CODE_FIELDS = ("code", "errorCode", "error_code", "error", "errors", "type", "reason", "details")


def refusal(invalid: Callable[[str], Exchange], case: str) -> Exchange:
    """The exchange of an error case; cases the target accepted are not error responses (see ERR-05)."""
    exchange = invalid(case)
    if exchange.ok:
        pytest.skip(f"the target accepted {case} (HTTP {exchange.status}): no error response to look at")
    return exchange


def shown(value: Any, limit: int = 300) -> Any:
    """A value small enough to record as it is, else its JSON excerpt."""
    text = json.dumps(value, default=str)
    return value if len(text) <= limit else text[:limit] + "..."


def has_envelope(exchange: Exchange) -> bool:
    body = exchange.json
    return isinstance(body, dict) and isinstance(body.get("meta"), dict)


# ------------------------------------------------------------------ success responses


@pytest.mark.parametrize(("operation_id", "requirement_id"), SUCCESS_STATUSES)
def test_success_uses_the_documented_status(samples, operation_id, requirement_id):
    """A successful call answers the operation's documented status: 201 for the three creates, else 200."""
    checks.success_status(samples(operation_id), requirement=requirement_id)


@pytest.mark.requirement("ERR-03")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_success_carries_meta_success_true(samples, operation_id):
    """meta.success is true on every successful response."""
    envelope.meta_success_is(samples(operation_id), True)


# ------------------------------------------------------------------ refusals


@pytest.mark.requirement("ERR-05")
@pytest.mark.parametrize("case", tuple(INPUT_CASES))
def test_invalid_input_is_a_client_error(invalid, case):
    """An invalid request (malformed JSON, a missing or mistyped field, an unknown id) is answered with a 4xx."""
    checks.refused(invalid(case), case)


@pytest.mark.requirement("ERR-06")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_error_is_an_envelope(invalid, case):
    """An error response is a JSON object holding meta and data."""
    envelope.json_envelope(refusal(invalid, case))


@pytest.mark.requirement("ERR-07")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_error_meta_status_code_repeats_http_status(invalid, case):
    """An error envelope's meta.statusCode is an integer equal to the HTTP status."""
    exchange = refusal(invalid, case)
    if not has_envelope(exchange):
        pytest.skip("the error body is not an envelope with meta (see ERR-06)")
    envelope.meta_status_code(exchange)


@pytest.mark.requirement("ERR-08")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_error_meta_success_is_false(invalid, case):
    """An error envelope's meta.success is false."""
    exchange = refusal(invalid, case)
    if not has_envelope(exchange):
        pytest.skip("the error body is not an envelope with meta (see ERR-06)")
    envelope.meta_success_is(exchange, False)


@pytest.mark.requirement("ERR-04")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_error_response_is_observed(invalid, observe, case):
    """The status, body shape, message and any error code of a refusal are recorded."""
    exchange = invalid(case)
    body = exchange.json
    meta = exchange.meta
    codes = {f"meta.{name}": meta[name] for name in ERROR_CODE_FIELDS if name in meta}
    if isinstance(body, dict):
        codes.update({name: body[name] for name in ERROR_CODE_FIELDS if name in body})
    observe(
        "ERR-04",
        case=case,
        status=exchange.status,
        content_type=exchange.header("content-type"),
        json=exchange.is_json,
        body_keys=sorted(body) if isinstance(body, dict) else type(body).__name__,
        meta_keys=sorted(meta),
        message=meta.get("message"),
        data=shown(exchange.data) if not exchange.ok else "(a success response)",
        error_codes=codes,
        excerpt=None if exchange.is_json else exchange.text[:200],
    )
