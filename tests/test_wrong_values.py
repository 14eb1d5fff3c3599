"""Body fields sent wrong: each documented field of each request body in another JSON type (a string for a number, a
number for a string, one item for an array, a fraction of a kobo) or outside its documented values (another currency,
category or party type, a webhook that is no URL), each in an otherwise valid request (world/wrong_values.py derives
them from openapi.yaml).

What each gets, and the level it rests on:
- a value that is no valid value of its field, however read: refused (no 2xx), under the rule it breaks (LIM-09
  category, LIM-22 whole kobo, LIM-24 NGN, LIM-25 party types, EVT-03 URLs: SHOULD; LIM-06 e-mail, END-22 the
  wallet collected into: MUST; anything else ERR-05, SHOULD);
- a value that spells a valid one in another JSON type (a numeric string, a number for a string, one URL for the
  list), or a whole number in another spelling (10000.0, 1e4: one JSON number, RFC 8259): refused, or read as that
  value; which is observed (END-44, INFO), and what was read is held to the echo requirements by the exchange judge
  (an amount string, or 1e4, read as another number fails RES-35);
- null, for each field and for an array's last item: answered (ERR-09, MUST: never a connection closed or left
  waiting), read as the value's absence (refused where the field is required, under the rule a field left out breaks);
  a 5xx fails ERR-05 and a refusal out of the envelope ERR-06, as the exchange judge holds every answer;
- a required field's name in upper case (`AMOUNT`), its value valid: the body lacks the field, as JSON compares names
  code unit by code unit (RFC 8259, section 8.3), so it is refused; ERR-05 (SHOULD), not the MUST of a field left
  out, since the document does not say names are case-sensitive and some frameworks match them ignoring case;
- accepted either way, never kept as sent: neither the answer nor a later read shows the field with the wrong value
  as sent, under the requirement that gives the field its type or values (SVC-21 kobo integers, SVC-22 NGN, RES-13
  webhooks an array, EVT-03 of URLs, RES-26 the two categories, END-32 destinationType, LIM-25 sourceType, the
  resources' types).
"""

from __future__ import annotations

import pytest

from wallet_conformance.judge import checks
from wallet_conformance.judge.request_rules import SHOWN, at
from wallet_conformance.scenarios.wrong_values import primary_with_null, shows_as_sent
from wallet_conformance.spec import contract
from wallet_conformance.world.wrong_values import NULL, VALID_VALUE_KINDS, cases, refusal_requirement

CASES = cases()
REFUSAL = {name: refusal_requirement(case) for name, case in CASES.items()}


def _marks(operation_id: str, *requirements: str) -> list[pytest.MarkDecorator]:
    money = [pytest.mark.money] if operation_id in contract.money_operations() else []
    return [pytest.mark.requirement(*requirements), *money]


REFUSED = [
    pytest.param(case.operation_id, name, marks=_marks(case.operation_id, REFUSAL[name]), id=name)
    for name, case in CASES.items()
    if REFUSAL[name] is not None
]
READABLE = [
    pytest.param(case.operation_id, name, marks=_marks(case.operation_id, "END-44"), id=name)
    for name, case in CASES.items()
    if REFUSAL[name] is None and case.kind != NULL
]
NULLS = [
    pytest.param(case.operation_id, name, marks=_marks(case.operation_id, "ERR-09", "ERR-05"), id=name)
    for name, case in CASES.items()
    if case.kind == NULL
]
# (operation, the requirement a field sent wrong breaks when shown as sent): each judges the accepted cases it rules
# (a null accepted is the field's absence, and a name in another case carries a valid value: the record's table and
# the echo rules judge what the record shows instead).
SHOWN_BY = sorted(
    {
        (case.operation_id, case.shown_by)
        for case in CASES.values()
        if case.shown_by and case.kind not in VALID_VALUE_KINDS
    }
)
SHOWN_PARAMS = [
    pytest.param(operation_id, requirement, marks=_marks(operation_id, requirement), id=f"{operation_id}-{requirement}")
    for operation_id, requirement in SHOWN_BY
]


@pytest.mark.parametrize(("operation_id", "case"), REFUSED)
def test_a_value_of_no_valid_reading_is_refused(sent_wrong, operation_id, case):
    """A body field sent in a value that is no valid value of the field, however read, is refused (no 2xx)."""
    outcome = sent_wrong(operation_id)[case]
    if not outcome.answer.answered:
        pytest.skip(f"{case} got no answer: that fails ERR-09, and no refusal can be read")
    checks.refused(outcome.answer, f"{case}: {outcome.case.field} sent as {outcome.value!r}")


@pytest.mark.parametrize(("operation_id", "case"), NULLS)
def test_a_null_is_answered(sent_wrong, operation_id, case):
    """A body field, or an array's item, sent as null is answered, never left waiting nor answered with a 5xx."""
    answer = sent_wrong(operation_id)[case].answer
    checks.answered(answer, requirement="ERR-09")
    checks.no_server_error(answer, requirement="ERR-05")


@pytest.mark.account_wide
@pytest.mark.requirement("ERR-09")
@pytest.mark.parametrize("field", ["emailAddress", "mobile"])
def test_a_primary_wallet_with_a_null_contact_is_answered(resources, field):
    """A primary wallet's creation whose emailAddress or mobile (required of secondary ones) is null is answered."""
    with resources.account_wide():
        answer = primary_with_null(resources, field)
    checks.answered(answer)


@pytest.mark.parametrize(("operation_id", "case"), READABLE)
def test_a_value_in_another_json_type_is_refused_or_read(sent_wrong, observe, operation_id, case):
    """How a value in another JSON type or spelling that denotes a valid one is taken: refused, or read (as what)."""
    outcome = sent_wrong(operation_id)[case]
    shown = SHOWN.get((operation_id, outcome.case.field))
    observe(
        "END-44",
        case=case,
        sent=outcome.value,
        status=outcome.answer.status,
        reading="refused" if not outcome.answer.ok else "read",
        shown=[at(record, shown.where) for _, record in outcome.shown()] if shown and outcome.answer.ok else None,
    )


@pytest.mark.parametrize(("operation_id", "requirement_id"), SHOWN_PARAMS)
def test_an_accepted_wrong_value_is_never_shown_as_sent(sent_wrong, operation_id, requirement_id):
    """Accepted, a field sent wrong is never shown as sent (same JSON type and value) in the answer or a later read."""
    accepted = [
        outcome
        for outcome in sent_wrong(operation_id).values()
        if outcome.answer.ok and outcome.case.shown_by == requirement_id and outcome.case.kind not in VALID_VALUE_KINDS
    ]
    if not accepted:
        pytest.skip(
            f"the target refused every {operation_id} request with a field sent wrong that {requirement_id} rules"
        )
    for outcome in accepted:
        for exchange, record in outcome.shown():
            held = shows_as_sent(outcome, record)
            if held is not None:
                where = SHOWN[operation_id, outcome.case.field].where
                checks.fail(
                    f"data.{where} never shows {outcome.case.field} as it was sent wrong ({outcome.case.kind})",
                    "the value read as the field's type, or a refusal",
                    held,
                    exchange,
                    detail=f"{outcome.case.name}: sent {outcome.value!r}",
                )
