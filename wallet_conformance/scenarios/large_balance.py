"""A wallet paid past 2^31 kobo, where the funding hook makes the money (the bundled reference, a sandbox): its
balance read back, and the credit of the payment as the transaction list shows it.

A balance kept in a signed 32-bit integer holds at most 2,147,483,647 kobo (21,474,836.47 naira); the money the other
tests move never gets near it. One payment past it, into a new wallet, is enough to show a wrap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import lists, money
from wallet_conformance.world.resources import Resources

INT32_MAX = 2**31 - 1
PAST_32_BITS = INT32_MAX + 100  # the payment, in kobo: a hundred kobo past the largest 32-bit integer


@dataclass(frozen=True)
class LargePayment:
    """The payment into a new wallet, its balance before and after (read until it shows the payment, or held still),
    and the credit into the wallet the transaction list shows (None when none was read)."""

    wallet: dict[str, Any]
    payment: Exchange
    before: int
    after: int
    credit: dict[str, Any] | None
    listing: lists.Listing

    @property
    def amount(self) -> int:
        return PAST_32_BITS


def pay_past_32_bits(resources: Resources) -> LargePayment:
    """Pay PAST_32_BITS kobo into a new wallet through the funding hook, and read back its balance and its credit.

    Only where the hook makes the money: in production, or with --funded-wallet (money moved from a real wallet), the
    test cannot judge. The payment comes out of the run's budget (--max-amount): a budget too small skips it. The wait
    is the balance's own (`money.balance_or_last`), not the funding step's: a balance that wrapped never rises, and the
    funding step would stop the run's later fundings on it.
    """
    resources.skip_without_inbound_payments()
    if resources.settings.environment == "production":
        raise CannotJudge(
            "in production the funding hook's money may be real: a payment past 2^31 kobo is made only "
            "in staging or against the bundled reference"
        )
    resources.guard.require_money_movement()
    resources.guard.spend(PAST_32_BITS)
    wallet = resources.wallet()
    public_id = wallet["publicId"]
    before = 0 if wallet.get("balance") == 0 else resources.balance(public_id)
    payment = resources.pay_in(public_id, PAST_32_BITS)
    resources.require(payment, f"pay {PAST_32_BITS} kobo into a wallet through --funding-url", envelope=False)
    after = money.balance_or_last(resources, public_id, reaching=before + PAST_32_BITS)

    def credit_of(entries: list[Any]) -> dict[str, Any] | None:
        return next(
            (
                entry
                for entry in entries
                if isinstance(entry, dict) and entry.get("entry") == "credit" and money.pays_into(entry, wallet)
            ),
            None,
        )

    listing = lists.read(resources.api, "listTransactions", until=lambda entries: credit_of(entries) is not None)
    return LargePayment(wallet, payment, before, after, credit_of(listing.entries), listing)
