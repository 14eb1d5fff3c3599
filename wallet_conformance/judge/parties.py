"""The parties of a transaction (its source and destination, and those of its credit leg in meta.credit): what
kind each is, the checks of the identifiers and fields the document gives each kind, and of the places that repeat
a party (its data, the credit leg), which name the party `source` and `destination` name.

The kinds are spelled as schemas/transaction.json spells them (facts live in data). Checks follow the convention
of checks.py; those that look over many transactions return how many parties they judged, so that a test can
skip, naming what was missing, when there was none.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import check
from wallet_conformance.judge.records import Found
from wallet_conformance.judge.request_rules import PARTIES_REPEATED, at
from wallet_conformance.judge.rule import rule
from wallet_conformance.spec import contract

TRANSACTION = "transaction.json"
SIDES = ("source", "destination")


def _defined(definition: str, name: str) -> str:
    """`name` as the transaction schema's enum of `definition` spells it."""
    # A string of the schema's enum, equal to `name`.
    return cast(
        str, next(value for value in contract.schema(TRANSACTION)["$defs"][definition]["enum"] if value == name)
    )


EXTERNAL = _defined("sourceType", "External")
VIRTUAL_ACCOUNT = _defined("sourceType", "VirtualAccount")
BANK_ACCOUNT = next(
    value for value in contract.schema(TRANSACTION)["$defs"]["destinationType"]["enum"] if value != VIRTUAL_ACCOUNT
)
CREDIT = _defined("entry", "credit")
# The form of sourceData / destinationData for each kind of party (schemas/transaction.json).
PARTY_FORMS = {
    VIRTUAL_ACCOUNT: "#/$defs/wallet-party",
    BANK_ACCOUNT: "#/$defs/bank-account-party",
    EXTERNAL: "#/$defs/external-source",
}
# The identifier (schemas/common.json) whose prefix the publicId of each kind of party carries.
PARTY_IDS = {VIRTUAL_ACCOUNT: "walletId", BANK_ACCOUNT: "bankAccountId", EXTERNAL: "externalSourceId"}
# Where a transaction repeats its parties beyond `source` and `destination`, as (requirement, where, side): its
# parties' data and its credit leg, the places the answer to a transfer repeats the wallets it named.
REPEATED: tuple[tuple[str, str, str], ...] = tuple(
    (requirement, where, side)
    for operation_id, requirement, where, side in PARTIES_REPEATED
    if operation_id == "transfer"
)
LEG = "meta.credit."
# What an answer may withhold of another business's wallet it shows (null, absent or masked): its name, its number and
# its balance. Never an identifier, and never of the caller's own records.
WITHHELD_FIELDS = ("accountName", "accountNumber", "balance")
# A collection account's copy of its destination wallet's number, withheld where that wallet is another business's.
WITHHELD_PARENT = "parentAccountNumber"
INBOUND_LEG = "#/$defs/inbound-credit-leg"  # what an inbound credit's leg has beyond every leg's fields


def documented_value(name: str, value: Any) -> bool:
    """Whether `value` is one the transaction schema documents for the field `name` (entry, sourceType, ...): a
    value outside them is the field's own requirement's matter (RES-61, RES-62), one among them can be the wrong
    one."""
    return value in contract.schema(TRANSACTION)["$defs"][name]["enum"]


def says_external(leg: Any) -> bool:
    """Whether a transaction or credit leg has sourceType External: what the External source's sentences are about."""
    return isinstance(leg, dict) and leg.get("sourceType") == EXTERNAL


def credit_leg(transaction: dict[str, Any]) -> dict[str, Any] | None:
    """The transaction's credit leg (meta.credit), when it carries one as an object."""
    meta = transaction.get("meta")
    leg = meta.get("credit") if isinstance(meta, dict) else None
    return leg if isinstance(leg, dict) else None


def legs(where: str, transaction: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The transaction itself, then its credit leg (meta.credit) when it carries one, each with where it is."""
    yield where, transaction
    leg = credit_leg(transaction)
    if leg is not None:
        yield f"{where}.meta.credit", leg


def _public_id(party_data: Any) -> Any:
    return party_data.get("publicId") if isinstance(party_data, dict) else None


@check
def wallet_party_prefixes(found: Iterable[Found], *, requirement: str | None = None) -> int:
    """Every wallet party (of the transaction and of its credit leg) has a sourceData / destinationData publicId
    with the wallet prefix; returns how many it judged."""
    judged = 0
    for where, transaction, exchange in found:
        for leg_where, leg in legs(where, transaction):
            for side in SIDES:
                if leg.get(f"{side}Type") == VIRTUAL_ACCOUNT:
                    checks.has_prefix(
                        _public_id(leg.get(f"{side}Data")),
                        "walletId",
                        exchange,
                        f"{leg_where}.{side}Data.publicId",
                        requirement=requirement,
                    )
                    judged += 1
    return judged


@check
def external_source_prefixes(found: Iterable[Found], *, requirement: str | None = None) -> int:
    """Every leg that says External (the transaction, its credit leg) names its source, in `source` and in
    sourceData.publicId, with the external-source prefix; returns how many legs it judged. Another sourceType
    is the sourceType requirement's matter, not the prefix's."""
    judged = 0
    for where, transaction, exchange in found:
        for leg_where, leg in legs(where, transaction):
            if says_external(leg):
                judged += 1
                checks.has_prefix(
                    _public_id(leg.get("sourceData")),
                    "externalSourceId",
                    exchange,
                    f"{leg_where}.sourceData.publicId",
                    requirement=requirement,
                )
                checks.has_prefix(
                    leg.get("source"), "externalSourceId", exchange, f"{leg_where}.source", requirement=requirement
                )
    return judged


@check
def party_forms(found: Iterable[Found], kinds: tuple[str, ...], *, requirement: str | None = None) -> int:
    """sourceData / destinationData of every party of one of `kinds` has that kind's documented form (its publicId's
    prefix left to the prefix's requirement: `wallet_party_prefixes`, RES-02's bank account test); returns how many
    parties it judged."""
    judged = 0
    for where, transaction, exchange in found:
        for side in SIDES:
            kind = transaction.get(f"{side}Type")
            if kind in kinds:
                checks.conforms(
                    transaction.get(f"{side}Data"),
                    TRANSACTION,
                    exchange,
                    pointer=PARTY_FORMS[kind],
                    where=f"{where}.{side}Data",
                    leave_prefixes=True,
                    requirement=requirement,
                )
                judged += 1
    return judged


def _into_a_wallet(transaction: dict[str, Any]) -> bool:
    """Whether the transaction pays into a wallet: the only transactions whose credit leg the document lets one read
    (a wallet transfer's, an inbound credit's)."""
    return transaction.get("destinationType") == VIRTUAL_ACCOUNT


@check
def repeats_the_parties(
    where: str,
    transaction: dict[str, Any],
    named: dict[str, Any],
    exchange: Exchange,
    *,
    requirement: str | None = None,
) -> int:
    """Every place of REPEATED holding `requirement` that the transaction shows (as a string) is the publicId `named`
    gives its side (`source`, `destination`); the credit leg only of a transaction into a wallet. A place the
    transaction does not show, or not as a string, is the schema's matter. Returns how many places it judged."""
    judged = 0
    for held_by, place, side in REPEATED:
        if held_by != requirement or side not in named or (place.startswith(LEG) and not _into_a_wallet(transaction)):
            continue
        held = at(transaction, place)
        if isinstance(held, str):
            judged += 1
            if held != named[side]:
                checks.fail(
                    f"{where}.{place} is the publicId of the transaction's {side}",
                    named[side],
                    held,
                    exchange,
                    requirement=requirement,
                )
    return judged


def named_by_the_record(transaction: dict[str, Any]) -> dict[str, str]:
    """The parties a transaction names by a publicId of their kind, by side: `source` and `destination` where each
    carries the prefix its sourceType or destinationType gives (a value of another form, or a type the document does
    not give, is another requirement's matter, and names nothing to hold the rest of the record to)."""
    named = {}
    for side in SIDES:
        value, kind = transaction.get(side), transaction.get(f"{side}Type")
        if (
            isinstance(value, str)
            and isinstance(kind, str)
            and kind in PARTY_IDS
            and value.startswith(contract.prefix(PARTY_IDS[kind]))
        ):
            named[side] = value
    return named


def transactions_of(exchange: Exchange) -> Iterator[tuple[str, dict[str, Any]]]:
    """The transactions a successful answer shows (its data, or each entry of a list), each with where it is."""
    data = exchange.data if exchange.ok else None
    if isinstance(data, dict):
        yield "data", data
    elif isinstance(data, list):
        yield from ((f"data[{index}]", entry) for index, entry in enumerate(data) if isinstance(entry, dict))


@rule(*(requirement for requirement, *_ in REPEATED), when="success", name="the parties repeated alike", each=True)
@check
def parties_named_alike(exchange: Exchange, *, requirement: str | None = None) -> None:
    """Each transaction an answer shows repeats, in its data and its credit leg, the parties its own `source` and
    `destination` name (`repeats_the_parties`): in a list or verify, both; in the answer to a transfer, those its
    request did not name (a bank transfer's destination), the others being held to the request
    (request_rules.sent_comes_back)."""
    sent = {side for operation_id, _, _, side in PARTIES_REPEATED if operation_id == exchange.operation_id}
    for where, transaction in transactions_of(exchange):
        named = {side: value for side, value in named_by_the_record(transaction).items() if side not in sent}
        repeats_the_parties(where, transaction, named, exchange, requirement=requirement)


@check
def inbound_leg_holds_its_fields(
    where: str, transaction: dict[str, Any], exchange: Exchange, *, requirement: str | None = None
) -> int:
    """The credit leg of an inbound credit (sourceType External), when it shows one, also holds auth, account and
    linkRef (`$defs/inbound-credit-leg`); returns how many legs it judged (0 or 1)."""
    leg = credit_leg(transaction)
    if not says_external(transaction) or leg is None:
        return 0
    checks.conforms(
        leg, TRANSACTION, exchange, pointer=INBOUND_LEG, where=f"{where}.meta.credit", requirement=requirement
    )
    return 1


@rule("RES-68", when="success", name="parties named by publicId")
@check
def parties_named_by_public_id(exchange: Exchange, *, requirement: str | None = None) -> int:
    """Every transaction an answer shows names a wallet (`VirtualAccount`) and a bank account (`BankAccount`) in its
    `source` and `destination` by a publicId of that kind (its prefix). An External source's is RES-04's matter, a
    type the document does not give the type's requirement's, and the credit leg's parties RES-83's and RES-84's.
    Returns how many it judged."""
    judged = 0
    for where, transaction in transactions_of(exchange):
        for side in SIDES:
            kind = transaction.get(f"{side}Type")
            if kind in (VIRTUAL_ACCOUNT, BANK_ACCOUNT) and side in transaction:
                checks.has_prefix(
                    transaction[side], PARTY_IDS[kind], exchange, f"{where}.{side}", requirement=requirement
                )
                judged += 1
    return judged


@rule("RES-67", when="success", name="currency pair of the parties")
@check
def currency_pair_of_the_parties(exchange: Exchange, *, requirement: str | None = None) -> int:
    """Every transaction an answer shows whose currencyPair has the form `AAA/BBB` names, on the side of a wallet
    party, the currency its sourceData or destinationData shows (a wallet's, whose table gives it NGN). Another party's
    currency has no value in the document, and may be written in another code than the pair's (566 for NGN): not
    judged. The form itself is the test of RES-67's. Returns how many halves it judged."""
    judged = 0
    for where, transaction in transactions_of(exchange):
        pair = transaction.get("currencyPair")
        if not isinstance(pair, str) or pair.count("/") != 1:
            continue
        for side, half in zip(SIDES, pair.split("/"), strict=True):
            if transaction.get(f"{side}Type") != VIRTUAL_ACCOUNT:
                continue
            data = transaction.get(f"{side}Data")
            shown = data.get("currency") if isinstance(data, dict) else None
            if isinstance(shown, str):
                judged += 1
                if half != shown:
                    checks.fail(
                        f"{where}.currencyPair names the {side}'s currency on its {side} side",
                        shown,
                        pair,
                        exchange,
                        detail=f"{where}.{side}Data.currency is {shown!r}",
                        requirement=requirement,
                    )
    return judged


@rule("RES-81", when="success", name="inbound credit leg")
@check
def inbound_legs_hold_their_fields(exchange: Exchange, *, requirement: str | None = None) -> None:
    """Every inbound credit an answer shows has a credit leg, if any, with auth, account and linkRef."""
    for where, transaction in transactions_of(exchange):
        inbound_leg_holds_its_fields(where, transaction, exchange, requirement=requirement)
