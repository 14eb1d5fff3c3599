"""The rules' sufficient schemas (judge/rule.py): an answer whose body holds them is held to those rules without their
checks. They may be stricter than the checks, never looser: the judge's verdict on any body is the verdict of every
check run one by one."""

from __future__ import annotations

import functools
import json
import re
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from selftests import examples as ex
from selftests.test_exchange_judge import exchange
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks, failures, rules
from wallet_conformance.spec import contract, validation

# A conforming record (or list of records) of each operation's success, from the document's tables.
DATA: dict[str, Any] = {
    "updateAccount": ex.ACCOUNT,
    "listAccounts": [ex.ACCOUNT],
    "listWallets": [ex.WALLET_LIST_ENTRY],
    "createWallet": ex.WALLET_CREATED,
    "getWallet": ex.WALLET_READ,
    "closeWallet": ex.CLOSED_WALLET,
    "createCollectionAccount": ex.COLLECTION_ACCOUNT,
    "validateAccount": ex.BANK_ACCOUNT,
    "listTransactions": [ex.INBOUND_CREDIT, ex.TRANSFER],
    "verifyTransaction": ex.VERIFIED,
    "transfer": ex.TRANSFER,
    "bankTransfer": ex.BANK_TRANSFER,
    "listBanks": [ex.BANK],
}
# Names and strings a broken answer is likely to get wrong, beside the ones the examples hold.
NAMES = sorted(
    checks.WALKED_FIELDS
    | {"meta", "data", "message", "pagination", "statusCode", "success", "totalCount", "perPage", "current"}
    | {"publicId", "credit", "sourceType", "sourceData", "destinationType", "destinationData", "status"}
)
STRINGS = [
    "",
    "NGN",
    "USD",
    "ngn",
    ex.T0,
    ex.T0 + "\n",
    ex.T0.replace("Z", "+00:00"),
    ex.T0.replace(".345", ""),
    "\u0662\u0660\u0662\u0664" + ex.T0[4:],  # Arabic-Indic digits: `\d` would take them, [0-9] does not
    "VirtualAccount",
    "vba-9f8e7d6c5b4a",
    *sorted({message for operation in DATA if (message := contract.success_message(operation))}),
]
SCALARS = [None, 0, 1, -1, 200, 201, 2**70, 1000.0, 0.5, float("nan"), True, False]
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.sampled_from(SCALARS)
    | st.sampled_from(STRINGS)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
    max_leaves=6,
)

SETTINGS = settings(
    max_examples=600, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def conforming(operation: str) -> dict[str, Any]:
    """A conforming success envelope of `operation`, as the document shows it, its whole floats written as integers
    (meta.rate's `1.0` as `1`): an answer holding one anywhere is judged by the checks alone (validation.valid_with)."""
    message = contract.success_message(operation) if contract.message_rule(operation) == "present" else None
    pagination = ex.PAGINATION if contract.is_paginated(operation) else None
    status = contract.operations()[operation].success_status
    text = json.dumps(ex.envelope(DATA[operation], status, message, pagination))
    return json.loads(
        text, parse_float=lambda number: int(float(number)) if float(number).is_integer() else float(number)
    )


def answer(operation: str, body: Any) -> Exchange:
    """A new exchange of `operation` answered with its success status and `body` (a new one each time: the judge
    remembers what it judged by identity)."""
    definition = contract.operations()[operation]
    data = body.get("data") if isinstance(body, dict) else None
    shown = data if isinstance(data, dict) else {}
    path = re.sub(r"\{(\w+)\}", lambda name: str(shown.get(name[1], "x")), definition.path)  # the record's own
    return exchange(operation, definition.method, definition.success_status, body, path)


def verdict(answered: Exchange) -> tuple[list[Any], list[Any]]:
    """What the judge held and broke on the answer, comparable between two judgings."""
    held, broken = rules.held_and_broken(answered)
    return (
        [(rule.name, requirement) for rule, requirement in held],
        [(rule.name, requirement, failure.title, repr(failure.received)) for rule, requirement, failure in broken],
    )


def checked_one_by_one(operation: str, body: Any) -> tuple[list[Any], list[Any]]:
    """The judge's verdict with every check run, none taken as kept by its schema."""
    with mock.patch.object(rules, "_kept", lambda answered: frozenset()):
        return verdict(answer(operation, body))


def with_schemas(operation: str) -> list[str]:
    """The rules held on the operation's successes that declare a sufficient schema there, by name."""
    return [
        rule.name
        for rule, requirement in rules.applying(operation, ("success",))
        if rule.sufficient is not None and rule.sufficient(operation, requirement) is not None
    ]


def test_every_operation_has_a_conforming_success_here():
    """Every operation of openapi.yaml has its document's success here, so that each operation's schemas are proven."""
    assert sorted(DATA) == sorted(contract.operations())


@pytest.mark.parametrize("operation", sorted(DATA))
def test_a_conforming_success_is_kept_by_every_rules_schema(operation):
    """The document's own success of each operation holds every rule's schema, so the judge takes them as kept (else
    the fast path would never be taken), and its verdict is the one of every check run one by one: all held."""
    body = conforming(operation)
    answered = answer(operation, body)
    applying = list(rules.applying(operation, ("success",)))
    kept = sorted(applying[place][0].name for place in rules._kept(answered))
    assert kept == sorted(with_schemas(operation)) and kept, (kept, with_schemas(operation))
    held, broken = verdict(answered)
    assert broken == [] and (held, broken) == checked_one_by_one(operation, body)


@st.composite
def changed(draw: st.DrawFn) -> tuple[str, Any]:
    """An operation, and its conforming success changed in one to three places, anywhere in the body: a value
    replaced, a field or item added or removed, or a field a rule reads (NAMES) given a value likely to be wrong."""
    operation = draw(st.sampled_from(sorted(DATA)))
    body = conforming(operation)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        containers = [body]
        for node in containers:
            children = node.values() if isinstance(node, dict) else node
            containers.extend(child for child in children if isinstance(child, (dict, list)))
        named = [(node, key) for node in containers if isinstance(node, dict) for key in node if key in NAMES]
        action = draw(st.sampled_from(["aim", "replace", "remove", "add"]))
        if action == "aim" and named:
            node, key = draw(st.sampled_from(named))
            node[key] = draw(st.sampled_from([*STRINGS, *SCALARS, {}, []]))
            continue
        node = draw(st.sampled_from(containers))
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if action == "add" or not keys:
            if isinstance(node, dict):
                node[draw(st.sampled_from(NAMES))] = draw(VALUES)
            else:
                node.append(draw(VALUES))
        elif action == "remove":
            del node[draw(st.sampled_from(keys))]
        else:
            node[draw(st.sampled_from(keys))] = draw(VALUES)
    return operation, body


@functools.cache
def schema_alone(operation: str, name: str, requirement: str) -> Any:
    """The compiled sufficient schema of one rule held on the operation's successes."""
    rule = next(
        rule for rule, held in rules.applying(operation, ("success",)) if (rule.name, held) == (name, requirement)
    )
    assert rule.sufficient is not None
    return validation.compiled_all_of([rule.sufficient(operation, requirement) or {}])


@SETTINGS
@given(changed())
def test_a_body_holding_one_rules_schema_keeps_that_rule(case):
    """On a conforming success changed anywhere, each rule whose schema the body holds, alone, passes its check
    where it judges the answer at all: each schema is at least as strict as its own check."""
    operation, body = case
    answered = answer(operation, body)
    with failures.rules_running():
        for rule, requirement in rules.applying(operation, ("success",)):
            if rule.name not in with_schemas(operation) or not (rule.where is None or rule.where(answered)):
                continue
            if validation.valid_with(schema_alone(operation, rule.name, requirement), answered.json):
                event(f"held the schema of {rule.name}")
                rule.check(answered, *rule.args, requirement=requirement)  # a ConformanceFailure fails the test


@SETTINGS
@given(changed())
def test_the_judge_gives_every_changed_success_the_verdict_of_its_checks(case):
    """On a conforming success changed anywhere (a value of another type, a whole float, a timestamp with a newline,
    a currency not NGN, a field removed...), what the judge holds and breaks is what every check run one by one holds
    and breaks: no schema is looser than its rule's check."""
    operation, body = case
    event("the schemas held: rules kept unchecked" if rules._kept(answer(operation, body)) else "the checks ran")
    assert verdict(answer(operation, body)) == checked_one_by_one(operation, body)


@SETTINGS
@given(VALUES)
def test_an_answer_notes_its_whole_floats_as_the_walk_finds_them(value):
    """Whether an answer's body holds a float without a fraction or one not finite, noted as it is parsed (what the
    judge asks before its compiled validation), is what validation's walk finds in the parsed body."""
    answered = answer("getWallet", value)
    assert answered.is_json and answered.holds_whole_float == validation._holds_whole_float(answered.json)
