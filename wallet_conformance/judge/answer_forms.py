"""What the document says of one operation's answer beyond the table of its record: the create answer without `_id`
and with an integer id, a transfer `pending` and a debit to a `VirtualAccount`, a bank transfer `pending` to a
`BankAccount` with a fee of 0 or more, a collection account `pending` and active, verify's requestSrc and meta.verify,
a wallet read's `_id`.

Each check judges one accepted exchange of its operation under its own requirement: the hand-written tests judge
their samples with it, and, through the rule it declares (`@rule`), the exchange judge (rules.py) every accepted
exchange of the operation, a recording's too, in the order the checks are defined here.
Whether data is an object at all is SVC-19's matter, and a record's table its RES requirement's (rules._table).
"""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import check
from wallet_conformance.judge.request_rules import answers_the_destination
from wallet_conformance.judge.rule import rule
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue

_TRANSACTION = contract.schema("transaction.json")["$defs"]
_COLLECTION = contract.schema("collection-account.json")["$defs"]["created"]["properties"]

# requirement -> operation -> (field of data, the value the document states for it, what the record is), each value
# read where the contract keeps it (the catalogue's `pending`, the schemas' constants).
STATED_VALUES: dict[str, dict[str, tuple[tuple[str, Any, str], ...]]] = {
    "STA-03": {"transfer": (("status", contract.pending_state(), "an accepted transfer"),)},
    "END-31": {
        "transfer": (("entry", _TRANSACTION["transfer-accepted"]["properties"]["entry"]["const"], "a transfer"),)
    },
    "END-32": {
        "transfer": (
            (
                "destinationType",
                _TRANSACTION["transfer-accepted"]["properties"]["destinationType"]["const"],
                "a wallet-to-wallet transfer",
            ),
        )
    },
    "STA-04": {"bankTransfer": (("status", contract.pending_state(), "an accepted bank transfer"),)},
    "END-33": {
        "bankTransfer": (
            (
                "destinationType",
                _TRANSACTION["bank-transfer-accepted"]["properties"]["destinationType"]["const"],
                "a bank transfer",
            ),
        )
    },
    "STA-06": {
        "createCollectionAccount": tuple(
            (name, _COLLECTION[name]["const"], "a new collection account") for name in ("status", "active")
        )
    },
}
ACCEPTED_TRANSFER = "STA-03"  # also: with an integer fee and actualAmount


def _data(exchange: Exchange) -> dict[str, Any] | None:
    """data of an accepted exchange when it is an object, and not the destination wallet a collection-account request
    named (that answer is no collection account: END-20's matter)."""
    data = exchange.data if exchange.ok and exchange.is_json else None
    return data if isinstance(data, dict) and not answers_the_destination(exchange) else None


@rule(*STATED_VALUES, when="success", name="the operation's stated form", each=True)
@check
def stated_values(exchange: Exchange, *, requirement: str | None = None) -> None:
    """The fields whose value the document states for this operation's answer under `requirement` hold it."""
    data = _data(exchange)
    for name, value, what in STATED_VALUES.get(requirement, {}).get(str(exchange.operation_id), ()):
        if data is not None:
            checks.equals(data.get(name), value, f"data.{name} of {what}", exchange, requirement=requirement)
    if requirement == ACCEPTED_TRANSFER and data is not None:
        for name in ("fee", "actualAmount"):
            if type(data.get(name)) is not int:
                checks.fail(
                    f"the accepted transfer carries an integer {name}",
                    "an integer",
                    data.get(name, f"no {name}"),
                    exchange,
                    requirement=requirement,
                )


# requirement -> the schema of schemas/ and the pointer to what the document says of its operation's answer.
SCHEMA_FORMS: dict[str, tuple[str, str]] = {
    "END-10": ("wallet.json", "#/$defs/without-internal-id"),  # the create answer without `_id`
    "END-29": ("transaction.json", "#/$defs/verify-fields"),  # verify's requestSrc and meta.verify
}


@rule(*SCHEMA_FORMS, when="success", name="the operation's stated form", each=True)
@check
def schema_form(exchange: Exchange, *, requirement: str | None = None) -> None:
    """The answer's data holds the form SCHEMA_FORMS gives `requirement` (the create-wallet answer without `_id`,
    the verify answer with requestSrc and meta.verify)."""
    data = _data(exchange)
    if data is not None:
        schema_file, pointer = SCHEMA_FORMS[str(requirement)]
        checks.conforms(data, schema_file, exchange, pointer=pointer, requirement=requirement)


@rule("RES-24", when="success", name="the operation's stated form")
@check
def created_integer_id(exchange: Exchange, *, requirement: str | None = None) -> None:
    """The create-wallet answer shows an integer id (one of neither type a Wallet's id may have is RES-21's)."""
    data = _data(exchange)
    if data is not None and isinstance(data.get("id"), str):
        checks.fail("data.id is an integer", "int", f"the string {data['id']!r}", exchange, requirement=requirement)


@check
def fee(data: dict[str, Any], exchange: Exchange, where: str = "data", *, requirement: str | None = None) -> int:
    """A transfer's fee: an integer of 0 or more."""
    value = data.get("fee")
    if type(value) is not int or value < 0:
        checks.fail(
            f"{where}.fee is an integer of 0 or more", "an integer >= 0", value, exchange, requirement=requirement
        )
    return value


@rule("END-34", when="success", name="the operation's stated form")
@check
def fee_of_a_bank_transfer(exchange: Exchange, *, requirement: str | None = None) -> None:
    """A bank transfer's answer shows a fee of 0 or more."""
    data = _data(exchange)
    if data is not None:
        fee(data, exchange, requirement=requirement)


@rule("RES-22", when="success", name="the operation's stated form")
@check
def read_internal_id(exchange: Exchange, *, requirement: str | None = None) -> None:
    """Each Wallet of a wallet read (the single read's data, the list's entries) carries a string `_id`; data of
    another shape is SVC-19's or SVC-20's."""
    data = exchange.data if exchange.ok and exchange.is_json else None
    if exchange.operation_id in catalogue()[contract.SINGLE_RECORD].operations:
        found = [("data", data)] if isinstance(data, dict) else []
    else:
        found = [
            (f"data[{index}]", entry)
            for index, entry in enumerate(data if isinstance(data, list) else [])
            if isinstance(entry, dict)
        ]
    for where, wallet in found:
        if not isinstance(wallet.get("_id"), str):
            checks.fail(
                f"{where} carries a string _id",
                "a string _id",
                wallet.get("_id", "no _id"),
                exchange,
                requirement=requirement,
            )
