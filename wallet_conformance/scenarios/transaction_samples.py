"""The transactions the resource tests judge, by source: the transfer and bank-transfer responses, their verify
responses, the transaction list after them, and an inbound credit as listed and as verified.

Each source is made once: the samples (tests/conftest.py) and the module fixtures of test_resources.py, reached
through `get`, the test run's fixture getter (`request.getfixturevalue`), under the fixture names below.

A test that looks at several sources leaves out those the run cannot make (UNAVAILABLE: no funding, a refused
setup step). A source the run made that did not come to what the checks need (a transfer still pending, no
inbound credit in the list) is `NotReached`: the test skips with that reason rather than judge without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import parties, records
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.judge.parties import EXTERNAL
from wallet_conformance.judge.records import Found
from wallet_conformance.scenarios.inbound_credits import paying_into
from wallet_conformance.spec import contract
from wallet_conformance.world import lists, money
from wallet_conformance.world.resources import Resources
from wallet_conformance.world.samples import Fixtures
from wallet_conformance.world.setup_steps import UNAVAILABLE

Part = tuple[str, Any, Exchange]  # a part of a transaction (meta.rate...), where it is, and its exchange

TRANSFER = "transfer"  # POST /transactions/transfer response
BANK_TRANSFER = "bank-transfer"  # POST /transactions/bank-transfer response
VERIFY_TRANSFER = "verify-settled-transfer"  # verify of the wallet-to-wallet transfer once it is no longer pending
VERIFY_BANK_TRANSFER = "verify-bank-transfer"  # verify of the bank transfer
LISTED = "list"  # GET /transactions entries after the above
INBOUND = "inbound-list-entry"  # an inbound credit (sourceType External) as GET /transactions lists it
VERIFY_INBOUND = "verify-inbound"  # verify of that inbound credit
EVERY_SOURCE = (TRANSFER, BANK_TRANSFER, VERIFY_TRANSFER, VERIFY_BANK_TRANSFER, LISTED, INBOUND, VERIFY_INBOUND)
DEBITS = (TRANSFER, BANK_TRANSFER, VERIFY_TRANSFER, VERIFY_BANK_TRANSFER)
VERIFIED = (VERIFY_TRANSFER, VERIFY_BANK_TRANSFER, VERIFY_INBOUND)
READ_BACK = (LISTED, INBOUND, *VERIFIED)

# The fixtures that make the sources beyond the samples (module-scoped, in test_resources.py).
SETTLED_TRANSFER = "settled_transfer"
VERIFIED_BANK_TRANSFER = "verified_bank_transfer"
TRANSACTION_LIST = "transaction_list"
INBOUND_CREDIT = "inbound"


class NotReached(CannotJudge):
    """A source the run made did not come to what the checks need: the test cannot judge, and says why."""


@contextmanager
def left_out_if_unavailable() -> Iterator[None]:
    """The block makes a source the test can do without: when the run cannot make it (UNAVAILABLE), the test goes
    on without it; a source made that did not come to what the checks need (NotReached) stops the test."""
    try:
        yield
    except NotReached:
        raise
    except UNAVAILABLE:
        pass


@dataclass(frozen=True)
class InboundCredit:
    """An inbound credit: the transaction list that shows it, where, the entry, and its verify response; `wallet`, the
    publicId of the wallet the run paid into (None: the credit is one the list showed, into a wallet of its own)."""

    listing: Exchange
    label: str
    entry: dict[str, Any]
    verified: Exchange
    wallet: str | None = None


def inbound_credit(api: ApiClient, resources: Resources) -> InboundCredit:
    """An inbound credit to look at: a wallet funded through the funding hook (when the run has one), found in
    GET /transactions, else any listed credit from an External source; verified by its reference.

    The funded wallet received nothing else, so what pays into it is the inbound credit, whatever it calls itself.
    Without either, the test cannot judge.
    """
    wallet = None
    if resources.target.funding_url:
        wallet = resources.funded_wallet(contract.minimum_amount("transfer"))
    read = lists.read(api, "listTransactions", until=lambda entries: bool(paying_into(entries, wallet)))
    listing = read.first
    resources.require(listing, "list transactions")
    mine = paying_into(read.entries, wallet)
    candidates = [
        (index, entry)
        for index, entry in enumerate(read.entries)
        if isinstance(entry, dict) and entry.get("sourceType") == EXTERNAL
    ]
    if not (mine or candidates):
        raise NotReached(
            f"no inbound credit (sourceType External) in what was read of GET /transactions "
            f"({read.note}; give --funding-url so the run can make one)"
        )
    index, entry = (mine or candidates)[0]
    reference = entry.get("reference")
    if not isinstance(reference, str):
        raise TargetError(f"the inbound credit data[{index}] of GET /transactions has no reference to verify")
    verified = api.call("verifyTransaction", {"reference": reference})
    resources.require(verified, f"verify the inbound credit {reference}")
    paid_into = wallet["publicId"] if mine and wallet is not None else None
    return InboundCredit(listing, f"GET /transactions entry {index}", entry, verified, paid_into)


def _reference(transaction: Exchange, what: str) -> str:
    data = transaction.data
    reference = data.get("reference") if isinstance(data, dict) else None
    if not isinstance(reference, str):
        raise TargetError(f"the {what} response carries no reference to verify")
    return reference


def settled_transfer(resources: Resources, transfer: Exchange) -> Exchange:
    """The verify response of a wallet-to-wallet transfer once it is no longer pending (it cannot be judged as
    settled while it stays pending)."""
    reference = _reference(transfer, "transfer")
    resources.require(resources.verify(reference), f"verify the transfer {reference}")
    if money.settled_or_none(resources, reference) is None:
        raise NotReached(f"the transfer {reference} stayed pending past --settle-timeout")
    return resources.verify(reference)


def verified_bank_transfer(resources: Resources, bank_transfer: Exchange) -> Exchange:
    """The verify response of a bank transfer."""
    reference = _reference(bank_transfer, "bank-transfer")
    exchange = resources.verify(reference)
    resources.require(exchange, f"verify the bank transfer {reference}")
    return exchange


def transaction_list(get: Fixtures, api: ApiClient, resources: Resources) -> Exchange:
    """GET /transactions after a settled transfer and a bank transfer were made (those the run can make)."""
    for made in (SETTLED_TRANSFER, VERIFIED_BANK_TRANSFER):
        with left_out_if_unavailable():
            get(made)
    exchange = api.call("listTransactions")
    resources.require(exchange, "list transactions")
    return exchange


def shaped(exchange: Exchange) -> Exchange:
    """The exchange, whose data is an object, or a list of objects: the transactions a test reads. Another shape is
    the operation's matter (SVC-19, SVC-20, END-27 ...), not that of the fields a test reads of each transaction: the
    test cannot judge."""
    data = exchange.data
    if isinstance(data, dict) or (isinstance(data, list) and all(isinstance(entry, dict) for entry in data)):
        return exchange
    raise CannotJudge(
        f"the {exchange.operation_id} answer shows no transaction as an object (see SVC-19, SVC-20 and "
        "the operation's own requirement)"
    )


class TransactionSources:
    """The transactions of each source, each with where it was found; made on first use."""

    def __init__(self, get: Fixtures) -> None:
        self._get = get

    def found(self, source: str, *, requirement: str | None = None) -> list[Found]:
        """The transactions of one source, each a record (an object); an answer that shows them in no object cannot
        be judged here (`shaped`)."""
        get = self._get
        if source == TRANSFER:
            return records.one_record(
                shaped(get("sample_transfer")), "POST /transactions/transfer data", requirement=requirement
            )
        if source == BANK_TRANSFER:
            return records.one_record(
                shaped(get("sample_bankTransfer")), "POST /transactions/bank-transfer data", requirement=requirement
            )
        if source == VERIFY_TRANSFER:
            return records.one_record(
                shaped(get(SETTLED_TRANSFER)), "verify (settled transfer) data", requirement=requirement
            )
        if source == VERIFY_BANK_TRANSFER:
            return records.one_record(
                shaped(get(VERIFIED_BANK_TRANSFER)), "verify (bank transfer) data", requirement=requirement
            )
        if source == LISTED:
            return records.listed_records(
                shaped(get(TRANSACTION_LIST)), "GET /transactions data", requirement=requirement
            )
        credit: InboundCredit = get(INBOUND_CREDIT)
        if source == INBOUND:
            return [Found(credit.label, credit.entry, credit.listing)]
        if source == VERIFY_INBOUND:
            return records.one_record(shaped(credit.verified), "verify (inbound credit) data", requirement=requirement)
        raise ValueError(f"no transaction source {source!r} (the sources are {', '.join(EVERY_SOURCE)})")

    def every(self, sources: tuple[str, ...], *, requirement: str | None = None) -> list[Found]:
        """The transactions of every source the run can make (sources it cannot make are left out)."""
        found: list[Found] = []
        for source in sources:
            with left_out_if_unavailable():
                found.extend(self.found(source, requirement=requirement))
        return found

    def named(self, source: str, transaction: dict[str, Any]) -> dict[str, str]:
        """The parties the transaction of `source` names, by side: those the run named (the wallets a transfer's
        request sent, only the source for a bank transfer, the wallet an inbound payment went to), else those its own
        `source` and `destination` name by a publicId of their kind."""
        named = parties.named_by_the_record(transaction)
        if source in (TRANSFER, VERIFY_TRANSFER, BANK_TRANSFER, VERIFY_BANK_TRANSFER):
            sent = self._get("sample_transfer" if source in (TRANSFER, VERIFY_TRANSFER) else "sample_bankTransfer")
            body = sent.request_body if isinstance(sent.request_body, dict) else {}
            named |= {side: body[side] for side in parties.SIDES if isinstance(body.get(side), str)}
        elif source in (INBOUND, VERIFY_INBOUND):
            credit: InboundCredit = self._get(INBOUND_CREDIT)
            if credit.wallet is not None:
                named["destination"] = credit.wallet
        return named

    def parties_repeated(self, sources: tuple[str, ...], *, requirement: str | None = None) -> int:
        """Every place of the transactions of the sources (those the run can make) that repeats a party (their data,
        their credit leg), held to the party the transaction names (`named`, `parties.repeats_the_parties`); returns
        how many places it judged."""
        judged = 0
        for source in sources:
            with left_out_if_unavailable():
                for where, transaction, exchange in self.found(source, requirement=requirement):
                    judged += parties.repeats_the_parties(
                        where, transaction, self.named(source, transaction), exchange, requirement=requirement
                    )
        return judged

    def meta_parts(self, sources: tuple[str, ...], name: str, *, requirement: str | None = None) -> list[Part]:
        """meta.<name> of every transaction of the sources that carries it; none at all cannot be judged."""
        parts = []
        for where, transaction, exchange in self.every(sources, requirement=requirement):
            meta = transaction.get("meta")
            if isinstance(meta, dict) and name in meta:
                parts.append((f"{where}.meta.{name}", meta[name], exchange))
        if not parts:
            raise CannotJudge(f"no transaction of {', '.join(sources)} carries meta.{name}")
        return parts
