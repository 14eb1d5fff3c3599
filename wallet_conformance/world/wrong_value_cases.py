"""Body fields sent wrong: every documented field of every request body, in another JSON type than its own, outside
its documented values, or null (the field, and the last item of an array), each in an otherwise valid body.

The fields, their JSON types, their allowed values and which of them are URLs are read from the request schemas of
openapi.yaml (money fields by their names, judge/checks.py); only the wrong values themselves are made up here. What
a target must do with each is judged by the tests (tests/test_wrong_values.py) through `refusal_requirement`: the
requirement a 2xx to the case breaks, or None when the value spells a valid one of its own type (END-44 observes how
the target read it). A null is judged as the value's absence (request_rules): refused where the field is required,
and every null case is held to an answer (ERR-09).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from wallet_conformance.judge import request_rules
from wallet_conformance.judge.checks import MONEY_FIELDS
from wallet_conformance.spec import contract, validation
from wallet_conformance.world import bodies

STRING_FOR_NUMBER = "string-for-number"  # "10000" for 10000
NUMBER_FOR_STRING = "number-for-string"  # 12345 for "12345"
ITEM_FOR_ARRAY = "string-for-array"  # one URL for a list of URLs
FRACTION_FOR_INTEGER = "fraction-for-integer"  # 10000.5 kobo: money is integers in kobo
OTHER_VALUE = "other-value"  # USD for NGN
NOT_A_URL = "not-a-url"  # a host and a path, without a scheme
NULL = "null"  # null for the field's value, or for the last item of an array
# The same JSON number in another spelling (RFC 8259 section 6 has one number type): read as the value, or refused by
# a parser typed to integers; never another number.
FLOAT_FOR_INTEGER = "float-for-integer"  # 10000.0 for 10000
EXPONENT_FOR_INTEGER = "exponent-for-integer"  # 1e4 for 10000
# A required field's name in upper case (`AMOUNT` for `amount`), its value valid: JSON compares member names code unit
# by code unit (RFC 8259 section 8.3), so the body lacks the field; some frameworks match names ignoring case.
NAME_IN_OTHER_CASE = "name-in-other-case"
# Kinds whose value is no wrong value to be shown as sent: a null is the value's absence, a name in another case
# carries a valid value.
VALID_VALUE_KINDS = (NULL, NAME_IN_OTHER_CASE)
VALUE_KINDS = (OTHER_VALUE, NOT_A_URL)  # the field's own JSON type, a value outside its documented ones
# Fields never sent null: a wallet whose category is null may be opened as a primary one, whose places only the
# account-wide tests may take.
NOT_SENT_NULL = {("createWallet", ("category",))}
LAST = -1  # in a path: the item the valid body adds last to a list (the own account's webhooks come first)

# Values outside a field's documented ones: another value the document gives the same field elsewhere (a
# transaction's other party types), another currency, another category; any other field gets `not-<allowed>`.
OTHER_VALUES = {"currency": "USD", "category": "tertiary", "sourceType": "External", "destinationType": "BankAccount"}


@dataclass(frozen=True)
class Ids:
    """The records a valid body names: the run, wallets, the external account and the own account's webhooks."""

    run_id: str
    source: str
    destination: str
    external_account: tuple[str, str]
    webhooks: tuple[str, ...] = ()


# Stand-ins of the records, for working out at collection what each case is (the values' types are what count).
PLACEHOLDERS = Ids(
    "cf00000000",
    f"{contract.prefix('walletId')}00000001",
    f"{contract.prefix('walletId')}00000002",
    ("0123456789", "000"),
)


def added_webhook(run_id: str) -> str:
    """The URL a valid update adds to the own account's webhooks."""
    return bodies.webhook_url(run_id, "hook")


def valid_body(operation_id: str, ids: Ids) -> dict[str, Any]:
    """A valid body of `operation_id` naming `ids`' records (a secondary wallet; the minimum amounts)."""
    number, code = ids.external_account
    if operation_id == "updateAccount":
        return bodies.account_update([*ids.webhooks, added_webhook(ids.run_id)])
    if operation_id == "createWallet":
        return bodies.wallet(ids.run_id)
    if operation_id == "createCollectionAccount":
        return bodies.collection_account(ids.run_id, ids.destination)
    if operation_id == "validateAccount":
        return bodies.validation(number, code)
    if operation_id == "transfer":
        return bodies.transfer(ids.source, ids.destination)
    return bodies.bank_transfer(ids.source, number, code)


def names_an_external_account(operation_id: str) -> bool:
    """Whether the operation's body names an external bank account (an account number and a bank code)."""
    return {"accountNumber", "bankCode"} <= set(_request_schema(operation_id).get("properties", {}))


# ------------------------------------------------------------------ the fields, from openapi.yaml


def _document() -> dict[str, Any]:
    """The bundled openapi.yaml, which the walk below reads (it resolves a reference at every node)."""
    return validation.shared_openapi_document()


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    document = _document()
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = {**target, **{key: value for key, value in node.items() if key != "$ref"}}
    return node


def _request_schema(operation_id: str) -> dict[str, Any]:
    """The request body's schema of openapi.yaml with the schemas bundled in."""
    operation = contract.operations()[operation_id]
    definition = _document()["paths"][operation.path][operation.method.lower()]
    return _resolved(definition["requestBody"]["content"]["application/json"]["schema"])


def _fields(node: dict[str, Any], path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every field under `node`, at any depth (an array's item as LAST), with its resolved schema."""
    node = _resolved(node)
    if path:
        yield path, node
    for name, child in node.get("properties", {}).items():
        yield from _fields(child, (*path, name))
    if "items" in node:
        yield from _fields(node["items"], (*path, LAST))


def _kinds(name: Any, schema: dict[str, Any]) -> list[str]:
    """The wrong kinds a field of this schema is sent in: null for every field (an array's item too)."""
    by_type: dict[Any, list[str]] = {
        "number": [STRING_FOR_NUMBER, FLOAT_FOR_INTEGER, EXPONENT_FOR_INTEGER],
        "string": [NUMBER_FOR_STRING],
        "array": [ITEM_FOR_ARRAY],
    }
    kinds = [NULL, *by_type.get(schema.get("type"), [])]
    if schema.get("type") == "number" and name in MONEY_FIELDS:
        kinds.append(FRACTION_FOR_INTEGER)
    if "enum" in schema:
        kinds.append(OTHER_VALUE)
    if schema.get("format") == "uri":
        kinds.append(NOT_A_URL)
    if not isinstance(name, str) or not name.isupper():
        kinds.append(NAME_IN_OTHER_CASE)
    return kinds


# ------------------------------------------------------------------ the cases


@dataclass(frozen=True)
class WrongValue:
    """One body field of one operation, sent in one wrong kind."""

    operation_id: str
    path: tuple[Any, ...]
    kind: str
    allowed: tuple[Any, ...] = ()  # the field's documented values (an enum)

    @property
    def field(self) -> str:
        """The top-level body field the case changes."""
        return str(self.path[0])

    @property
    def shown_by(self) -> str | None:
        """The requirement an answer showing this field as it was sent breaks (None: no answer shows the field): the
        one ruling the field's values for a value outside them, else the one giving it its type."""
        shown = request_rules.SHOWN.get((self.operation_id, self.field))
        if shown is None:
            return None
        return (shown.valued_by or shown.typed_by) if self.kind in VALUE_KINDS else shown.typed_by

    @property
    def name(self) -> str:
        where = "-".join("item" if part == LAST else str(part) for part in self.path)
        return f"{self.kind}-{where}-{self.operation_id}"

    def value(self, valid: Any, run_id: str) -> Any:
        """The wrong value that stands for the valid one."""
        if self.kind == STRING_FOR_NUMBER:
            return json.dumps(valid)
        if self.kind == NUMBER_FOR_STRING:
            return int(valid) if isinstance(valid, str) and valid.isdigit() else run_number(run_id, self.name)
        if self.kind == ITEM_FOR_ARRAY:
            return valid[LAST]
        if self.kind == FRACTION_FOR_INTEGER:
            return valid + 0.5
        if self.kind == NULL:
            return None
        if self.kind == FLOAT_FOR_INTEGER:
            return float(valid)
        if self.kind == EXPONENT_FOR_INTEGER:
            return Spelled(exponent_form(valid))
        if self.kind == OTHER_VALUE:
            return OTHER_VALUES.get(self.path[LAST], f"not-{self.allowed[0]}")
        return f"{run_id}.{bodies.WEBHOOK_HOST}/hook"  # NOT_A_URL

    @property
    def sent_path(self) -> tuple[Any, ...]:
        """Where the body carries the field (under its name in upper case, for a name in another case)."""
        return (self.field.upper(),) if self.kind == NAME_IN_OTHER_CASE else self.path

    def body(self, ids: Ids) -> dict[str, Any]:
        """A valid body of the operation with this field, and only it, sent wrong."""
        body = valid_body(self.operation_id, ids)
        if self.kind == NAME_IN_OTHER_CASE:
            body[self.field.upper()] = body.pop(self.field)
            return body
        *container_path, last = self.path
        container: Any = body
        for part in container_path:
            container = container[part]
        container[last] = self.value(container[last] if _holds(container, last) else None, ids.run_id)
        return body


@dataclass(frozen=True)
class Spelled:
    """A JSON number sent in the spelling `text` (`1e4`), which json.dumps does not write for any Python number."""

    text: str


def exponent_form(value: int) -> str:
    """An integer written with an exponent and no trailing zeros (10000: `1e4`; 12345: `12345e0`)."""
    exponent = 0
    while value and value % 10 == 0:
        value, exponent = value // 10, exponent + 1
    return f"{value}e{exponent}"


# What stands for a Spelled number in the text json.dumps writes, before the spelling takes its place.
_SPELLED = "\u0000spelled\u0000"


def spelled_text(body: Any) -> str | None:
    """The JSON text of a body holding Spelled numbers, each in its spelling; None when it holds none."""
    spellings: list[str] = []

    def placed(node: Any) -> Any:
        if isinstance(node, Spelled):
            spellings.append(node.text)
            return _SPELLED
        if isinstance(node, dict):
            return {name: placed(value) for name, value in node.items()}
        if isinstance(node, list):
            return [placed(item) for item in node]
        return node

    text = json.dumps(placed(body))
    if not spellings:
        return None
    for spelling in spellings:
        text = text.replace(json.dumps(_SPELLED), spelling, 1)
    return text


def as_parsed(body: Any) -> Any:
    """The body as the target's JSON parser reads it (each Spelled number as its number)."""
    text = spelled_text(body)
    return body if text is None else json.loads(text)


def _holds(container: Any, key: Any) -> bool:
    return key in container if isinstance(container, dict) else bool(container)


def run_number(run_id: str, salt: str) -> int:
    """A ten-digit number of this run's own (a reference sent as a number must still be new)."""
    return 10**9 + int(hashlib.sha256(f"{run_id}:{salt}".encode()).hexdigest(), 16) % (9 * 10**9)


@cache
def cases() -> dict[str, WrongValue]:
    """Every case, by name: each field of each operation with a body, in each wrong kind its schema allows."""
    found = {}
    for operation_id in contract.write_operations():
        for path, schema in _fields(_request_schema(operation_id), ()):
            for kind in _kinds(path[LAST], schema):
                if kind == NULL and (operation_id, path) in NOT_SENT_NULL:
                    continue
                if kind == NAME_IN_OTHER_CASE and (len(path) > 1 or path[0] not in _present(operation_id)):
                    continue  # only a field the valid body carries, at the top level
                case = WrongValue(operation_id, path, kind, tuple(schema.get("enum", ())))
                if kind == NAME_IN_OTHER_CASE and refusal_requirement(case) is None:
                    continue  # a body without the field is valid: nothing tells whether the name was taken
                found[case.name] = case
    return found


def _present(operation_id: str) -> set[str]:
    """The top-level fields a valid body of the operation carries."""
    return set(valid_body(operation_id, PLACEHOLDERS))


def refusal_requirement(case: WrongValue, ids: Ids = PLACEHOLDERS) -> str | None:
    """The requirement a 2xx to the case breaks (invalid input, read as the target may read it); None when the wrong
    value spells a valid one of the field's type ("10000" for 10000), which a target may read so (END-44)."""
    problems = request_rules.body_problems(case.operation_id, as_parsed(case.body(ids)))[1]
    return request_rules.invalid_input_requirement(case.operation_id, problems)
