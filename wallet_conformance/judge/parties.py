"""The parties of a transaction (its source and destination, and those of its credit leg in meta.credit): what
kind each is, and the checks of the identifiers and fields the document gives each kind.

The kinds are spelled as schemas/transaction.json spells them (facts live in data). Checks follow the convention
of checks.py; those that look over many transactions return how many parties they judged, so that a test can
skip, naming what was missing, when there was none.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import check
from wallet_conformance.judge.records import Found
from wallet_conformance.spec import contract

TRANSACTION = "transaction.json"
SIDES = ("source", "destination")


def _defined(definition: str, name: str) -> str:
    """`name` as the transaction schema's enum of `definition` spells it."""
    return next(value for value in contract.schema(TRANSACTION)["$defs"][definition]["enum"] if value == name)


EXTERNAL = _defined("sourceType", "External")
VIRTUAL_ACCOUNT = _defined("sourceType", "VirtualAccount")
BANK_ACCOUNT = next(value for value in contract.schema(TRANSACTION)["$defs"]["destinationType"]["enum"]
                    if value != VIRTUAL_ACCOUNT)
CREDIT = _defined("entry", "credit")
# The form of sourceData / destinationData for each kind of party (schemas/transaction.json).
PARTY_FORMS = {VIRTUAL_ACCOUNT: "#/$defs/wallet-party", BANK_ACCOUNT: "#/$defs/bank-account-party",
               EXTERNAL: "#/$defs/external-source"}


def says_external(leg: Any) -> bool:
    """Whether a transaction or credit leg has sourceType External: what the External source's sentences are about."""
    return isinstance(leg, dict) and leg.get("sourceType") == EXTERNAL


def legs(where: str, transaction: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The transaction itself, then its credit leg (meta.credit) when it carries one, each with where it is."""
    yield where, transaction
    meta = transaction.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("credit"), dict):
        yield f"{where}.meta.credit", meta["credit"]


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
                    checks.has_prefix(_public_id(leg.get(f"{side}Data")), "walletId", exchange,
                                      f"{leg_where}.{side}Data.publicId", requirement=requirement)
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
                checks.has_prefix(_public_id(leg.get("sourceData")), "externalSourceId", exchange,
                                  f"{leg_where}.sourceData.publicId", requirement=requirement)
                checks.has_prefix(leg.get("source"), "externalSourceId", exchange, f"{leg_where}.source",
                                  requirement=requirement)
    return judged


@check
def party_forms(found: Iterable[Found], kinds: tuple[str, ...], *, requirement: str | None = None) -> int:
    """sourceData / destinationData of every party of one of `kinds` has that kind's documented form; returns how
    many parties it judged."""
    judged = 0
    for where, transaction, exchange in found:
        for side in SIDES:
            kind = transaction.get(f"{side}Type")
            if kind in kinds:
                checks.conforms(transaction.get(f"{side}Data"), TRANSACTION, exchange, pointer=PARTY_FORMS[kind],
                                where=f"{where}.{side}Data", requirement=requirement)
                judged += 1
    return judged
