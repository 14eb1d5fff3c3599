"""Inbound credits: an external payment into a wallet (through the funding hook, --funding-url), found where
GET /transactions lists it.

List order and paging parameters are not shown: the list is read page after page until the credit shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.judge.parties import CREDIT
from wallet_conformance.spec import contract
from wallet_conformance.world import lists, money
from wallet_conformance.world.resources import Resources

Indexed = tuple[int, dict[str, Any]]  # a listed transaction and its place in what was read


def paying_into(entries: list[Any], wallet: dict[str, Any] | None, *, entry: str | None = None) -> list[Indexed]:
    """The listed transactions that pay into `wallet` (none without a wallet), with their index; only those whose
    `entry` is the one given, when one is."""
    if wallet is None:
        return []
    return [
        (index, listed)
        for index, listed in enumerate(entries)
        if isinstance(listed, dict)
        and money.pays_into(listed, wallet)
        and (entry is None or listed.get("entry") == entry)
    ]


@dataclass(frozen=True)
class PaymentListed:
    """A payment into a new wallet, and what was read of GET /transactions looking for its credit."""

    wallet: dict[str, Any]
    read: lists.Listing

    @property
    def listing(self) -> Exchange:
        return self.read.first

    def credit(self) -> Indexed:
        """The payment into the wallet as the list shows it: the first credit into the wallet, else the first
        transaction paying into it (its entry is what the test judges). None in the whole list fails the test's
        requirement; none in the part that could be read, or a list of no objects (END-27's matter), cannot be
        judged."""
        entries = self.read.entries
        if entries and not any(isinstance(entry, dict) for entry in entries):
            raise CannotJudge(
                f"GET /transactions lists no objects ({self.read.note}; see END-27): no transaction to "
                "find the payment among"
            )
        credits = paying_into(entries, self.wallet, entry=CREDIT) or paying_into(entries, self.wallet)
        if not credits:
            if not self.read.complete:
                raise CannotJudge(
                    f"no credit into {self.wallet['publicId']} in what could be read of GET "
                    f"/transactions ({self.read.note}): the rest of the list could not be reached"
                )
            checks.fail(
                "the payment into the wallet is listed as a credit",
                f"a credit into {self.wallet['publicId']} in GET /transactions",
                f"none in {self.read.note}",
                self.listing,
            )
        return credits[0]


def payment_into_a_new_wallet(api: ApiClient, resources: Resources) -> PaymentListed:
    """An external payment into a new wallet (the smallest transfer's amount), then GET /transactions read until it
    shows a credit into that wallet. A run that cannot make an inbound payment cannot judge."""
    resources.skip_without_inbound_payments()
    wallet = resources.funded_wallet(contract.minimum_amount("transfer"))
    read = lists.read(api, "listTransactions", until=lambda entries: bool(paying_into(entries, wallet)))
    resources.require(read.first, "list transactions")
    return PaymentListed(wallet, read)
