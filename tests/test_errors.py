"""Errors: the documented success statuses, meta.success, every request answered, and how refusals look.

The document fixes success responses only: 200 or 201 per operation, with meta.success true. Error
statuses, bodies and codes are 'not shown': the suite asks a 4xx of invalid input and an envelope of
every error (SHOULD, from HTTP and the general conventions) and records everything else (INFO). The
error cases include requests no operation serves (a path, a method, a mebibyte body): their refusals
are held to the envelope and their answer is awaited, but they are no operation's invalid input.
"""

from __future__ import annotations

import pytest

from wallet_conformance.judge import checks, envelope, refusals
from wallet_conformance.judge.failures import shown
from wallet_conformance.judge.observations import keys_or_type
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world.bad_requests import ALL_CASES, INPUT_CASES, PROBE_CASES

OPERATIONS = tuple(contract.operations())
CREATED = catalogue()["ERR-02"].operations
SUCCESS_STATUSES = [
    pytest.param(
        operation_id,
        "ERR-02" if operation_id in CREATED else "ERR-01",
        marks=pytest.mark.requirement("ERR-02" if operation_id in CREATED else "ERR-01"),
        id=operation_id,
    )
    for operation_id in OPERATIONS
]


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


@pytest.mark.requirement("ERR-09")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_a_documented_request_is_answered(samples, operation_id):
    """A documented request of the operation is answered; a silence fails ERR-09 in whichever test meets it."""
    checks.answered(samples(operation_id))


@pytest.mark.requirement("ERR-09")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_an_invalid_request_is_answered(invalid, case):
    """An invalid request, a request without the key, or one no operation serves is answered, never left unanswered."""
    checks.answered(invalid.answer(case))


# ------------------------------------------------------------------ refusals


@pytest.mark.requirement("ERR-05")
@pytest.mark.parametrize("case", tuple(INPUT_CASES))
def test_invalid_input_is_a_client_error(invalid, case):
    """An invalid request (malformed JSON, a missing or mistyped field, an unknown id) is answered with a 4xx."""
    checks.refused_with_4xx(invalid(case), case)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, marks=pytest.mark.requirement("ERR-10" if case in PROBE_CASES else "ERR-06"))
        for case in ALL_CASES
    ],
)
def test_error_is_an_envelope(invalid, case):
    """An error response is a JSON object holding meta and data (ERR-06; what answers a probe, ERR-10)."""
    envelope.json_envelope(refusals.refusal(invalid(case), case))


@pytest.mark.requirement("ERR-07")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_error_meta_status_code_repeats_http_status(invalid, case):
    """An error envelope's meta.statusCode is an integer equal to the HTTP status."""
    envelope.meta_status_code(refusals.enveloped_refusal(invalid(case), case))


@pytest.mark.requirement("ERR-08")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_error_meta_success_is_false(invalid, case):
    """An error envelope's meta.success is false."""
    envelope.meta_success_is(refusals.enveloped_refusal(invalid(case), case), False)


@pytest.mark.requirement("ERR-04")
@pytest.mark.parametrize("case", tuple(ALL_CASES))
def test_error_response_is_observed(invalid, observe, case):
    """The status, body shape, message and any error code of a refusal are recorded."""
    exchange = invalid(case)
    observe(
        "ERR-04",
        case=case,
        status=exchange.status,
        content_type=exchange.header("content-type"),
        json=exchange.is_json,
        body_keys=keys_or_type(exchange.json),
        meta_keys=sorted(exchange.meta),
        message=exchange.meta.get("message"),
        data=shown(exchange.data) if not exchange.ok else "(a success response)",
        error_codes=refusals.error_codes(exchange),
        excerpt=None if exchange.is_json else exchange.text[:200],
    )
