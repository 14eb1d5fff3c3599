"""A race of credits (SVC-24): inbound payments released at once into one wallet through the funding hook
(`concurrency.release`), each of which must raise the balance as much as one payment alone did.

What one payment raises the balance by is measured first, on its own: whether an inbound payment costs a fee or a
levy is not shown, but payments of one amount into one wallet cost the same, so the race needs no fee table. Only the
funding hook makes inbound payments (--funded-wallet funds by transfers): without one the race is not run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world.concurrency import release
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources

# The amount of each payment of the race (kobo, 10 naira): small, since tens of them are made per race. The document
# sets no minimum on an inbound payment (its minimum is the transfers').
PAYMENT = 1_000


@dataclass(frozen=True)
class CreditTarget:
    """A new wallet paid once through the funding hook: what that payment alone raised its balance by."""

    resources: Resources
    public_id: str
    amount: int
    alone: int
    took: float  # seconds that payment took to show in the balance

    @classmethod
    def paid_once(cls, resources: Resources, amount: int = PAYMENT) -> CreditTarget:
        """A new wallet, and the rise one payment of `amount` alone gives it (read once more after the first rise,
        so a levy debited with the credit shows). A payment the target did not take or credit stops the test as a
        setup error (`Resources.fund`)."""
        resources.skip_without_inbound_payments()
        wallet = resources.wallet()
        start = wallet["balance"] if type(wallet.get("balance")) is int else resources.balance(wallet["publicId"])
        paid = time.monotonic()
        resources.fund(wallet["publicId"], amount, before=start)
        took = time.monotonic() - paid
        return cls(resources, wallet["publicId"], amount, resources.balance(wallet["publicId"]) - start, took)

    def race(self, payments: int) -> CreditRace:
        """Release `payments` payments of `amount` at once into the wallet (spent from the budget first), and read
        the balance once they are credited (`balance_once_credited`)."""
        self.resources.guard.require_money_movement()
        self.resources.guard.spend(payments * self.amount)
        before = self.resources.balance(self.public_id)
        before_read = self.resources.last_read(self.public_id)
        exchanges = release(self.resources.api, lambda _: self.resources.pay_in(self.public_id, self.amount), payments)
        accepted = [exchange for exchange in exchanges if exchange.ok]
        if not accepted:
            raise CannotJudge(
                f"none of the {payments} inbound payments made at once was taken (statuses "
                f"{sorted({exchange.status for exchange in exchanges})}): no concurrent credit to check"
            )
        expected = before + len(accepted) * self.alone
        return CreditRace(
            self,
            before,
            exchanges,
            accepted,
            expected,
            self.balance_once_credited(expected),
            (before_read,) if before_read is not None else (),
        )

    def balance_once_credited(self, expected: int) -> int:
        """The balance once it holds `expected`; short of it, once it has held still twice as long as one payment
        alone took to show (at least --quiet-window); at most --settle-timeout."""
        settings = self.resources.settings
        still = max(settings.quiet_window, 2 * self.took)
        last: list[int] = []
        since = time.monotonic()

        def ended() -> list[int] | None:
            nonlocal since
            balance = self.resources.balance(self.public_id)
            if last[-1:] != [balance]:
                last.append(balance)
                since = time.monotonic()
            return [balance] if balance == expected or time.monotonic() - since >= still else None

        reached = poll(ended, settings.settle_timeout)
        return reached[0] if reached else last[-1]


@dataclass(frozen=True)
class CreditRace:
    """One release of payments into the wallet: the balance before, what they should leave and what they left."""

    target: CreditTarget
    before: int
    exchanges: list[Exchange]
    accepted: list[Exchange]
    expected: int
    final: int
    before_read: tuple[Exchange, ...]  # the read that showed the balance before the payments

    @property
    def summary(self) -> str:
        """The race in one line, for a failure's detail."""
        return (
            f"{len(self.accepted)} of {len(self.exchanges)} inbound payments of {self.target.amount} kobo made at "
            f"once were taken; one payment alone raised the balance by {self.target.alone}; the balance was "
            f"{self.before} before them"
        )
