"""Transfers at the edge of a balance: a source's whole balance, one kobo less or one kobo more, sent to one
destination; what each did to both balances once it ended; and the verdicts on the three ways it can go.

- The balance cannot cover it (amount plus the wallet-transfer fee above it): `moved_nothing`.
- The balance covers it and the target refused it: `refusal_explained_by_fee`.
- The balance covers it and the target accepted it: `moved_actual_and_amount`, once settled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import bodies, money
from wallet_conformance.world.resources import Resources


def wallet_transfer_fee(api: ApiClient, resources: Resources) -> int:
    """The fee the target charges on a minimum wallet-to-wallet transfer, seen on one such transfer (0 in the
    reference; 0 too when the target refuses it or shows no integer fee: whether wallet transfers cost one is not
    shown)."""
    source = resources.funded_wallet(money.funding("transfer"))
    exchange = api.call("transfer", json_body=bodies.transfer(source["publicId"], resources.wallet()["publicId"]))
    fee = exchange.data.get("fee") if exchange.ok and isinstance(exchange.data, dict) else None
    return fee if isinstance(fee, int) else 0


@dataclass(frozen=True)
class EdgeTransfer:
    """One transfer of `amount` from `source`, which held `balance`, to the edge's destination: the exchange, its
    end (the transaction once it left `pending`; None when refused or still pending past --settle-timeout), what
    the source holds `after` it and what the destination was `credited`."""

    source: str
    balance: int
    amount: int
    fee: int
    exchange: Exchange
    end: dict[str, Any] | None
    after: int
    credited: int
    reads: tuple[Exchange, ...] = ()  # the reads before it (the source's, the destination's) and after it (same order)

    @property
    def overdraws(self) -> bool:
        """Whether the balance cannot cover the transfer and the wallet-transfer fee."""
        return self.amount + self.fee > self.balance

    @property
    def story(self) -> str:
        """What happened, in one line (a note of the example)."""
        ended = f"; settled as {self.end and self.end.get('status')!r}" if self.exchange.ok else ""
        return f"balance {self.balance}, transfer of {self.amount}: HTTP {self.exchange.status}{ended}"


class BalanceEdge:
    """Transfers at the edge of a balance, each from a new source to one destination of the test, with the fee the
    target charges on a wallet transfer (`wallet_transfer_fee`, seen once)."""

    def __init__(self, api: ApiClient, resources: Resources) -> None:
        self.api = api
        self.resources = resources
        self.destination = resources.wallet()["publicId"]
        self.fee = wallet_transfer_fee(api, resources)

    def funded_source(self, paid: int) -> tuple[str, int]:
        """A new wallet funded with `paid` kobo, and the balance it holds (less than paid if the target charges
        inbound payments)."""
        source = self.resources.funded_wallet(paid)["publicId"]
        return source, self.resources.balance(source)

    def transfer(self, source: str, balance: int, amount: int) -> EdgeTransfer:
        """Send `amount` from `source`, which holds `balance`, and follow it to its end.

        An accepted transfer is waited for until it leaves `pending` (one the balance cannot cover need never
        leave it). When balances show a settled transfer is not shown: once a covered transfer settled, a balance
        that has not moved yet is read again until it does.
        """
        resources = self.resources
        credited_before = resources.balance(self.destination)
        before = money.reads(resources, {source: balance, self.destination: credited_before})
        exchange = self.api.call("transfer", json_body=bodies.transfer(source, self.destination, amount))
        covered = amount + self.fee <= balance
        end = money.settled_or_none(resources, exchange, must_settle=covered) if exchange.ok else None
        after = resources.balance(source)
        credited = resources.balance(self.destination) - credited_before
        if exchange.ok and covered and end is not None:
            if after == balance:
                after = money.balance_or_last(resources, source, moved_from=balance, after=end)
            if credited == 0:
                credited = (
                    money.balance_or_last(resources, self.destination, moved_from=credited_before, after=end)
                    - credited_before
                )
        after_reads = money.reads(resources, {source: after, self.destination: credited})
        return EdgeTransfer(source, balance, amount, self.fee, exchange, end, after, credited, (*before, *after_reads))


def moved_nothing(moved: EdgeTransfer, *, requirement: str | None = None) -> None:
    """A transfer the balance cannot cover, refused at once or failed later, changes no balance and credits nothing
    to the destination."""
    checks.equals(
        moved.after,
        moved.balance,
        requirement=requirement,
        exchange=moved.exchange,
        title=f"a transfer of {moved.amount} kobo from a balance of {moved.balance} changes no balance",
    )
    checks.equals(
        moved.credited,
        0,
        requirement=requirement,
        exchange=moved.exchange,
        title="an overdraft credits nothing to the destination",
    )


def refusal_explained_by_fee(
    moved: EdgeTransfer, observe: Callable[..., None], *, requirement: str | None = None
) -> None:
    """A transfer the balance covers, refused: a failure when the target charges no fee on a wallet transfer (then
    nothing but the balance could stop it); else observed, since a fee the document does not bound may take more
    than the edge left (`observe` gets the note under `requirement`)."""
    if moved.fee == 0:
        checks.accepted(
            moved.exchange,
            requirement=requirement,
            why=f"a transfer of {moved.amount} from a balance of {moved.balance} (the target charged no "
            "fee on a wallet transfer)",
        )
    observe(
        requirement, note=f"a transfer of {moved.amount} from {moved.balance} refused; wallet transfer fee {moved.fee}"
    )


def moved_actual_and_amount(moved: EdgeTransfer, *, requirement: str | None = None) -> None:
    """A transfer the balance covers, accepted and settled, debits the source by actualAmount (amount plus the fee it
    shows: `money.charged`) and credits the destination by amount.

    The test cannot judge one still pending past --settle-timeout (when it leaves pending is not shown), nor one
    that ended another way and moved nothing (`money.skip_unless_completed`).
    """
    if moved.end is None:
        raise CannotJudge(
            f"the transfer stayed pending past --settle-timeout: when it leaves pending is not shown, "
            f"so its money cannot be checked here ({moved.story})"
        )
    money.skip_unless_completed(moved.end, (moved.after, moved.credited) != (moved.balance, 0))
    charged = money.charged(moved.exchange.data, moved.amount, moved.exchange)
    before, after = moved.reads[: len(moved.reads) // 2], moved.reads[len(moved.reads) // 2 :]
    checks.equals(
        moved.after,
        moved.balance - charged,
        requirement=requirement,
        title="a settled transfer debits the source by actualAmount, amount plus fee",
        exchange=after[0] if after else moved.exchange,
        also=(*before[:1], moved.exchange),
    )
    checks.equals(
        moved.credited,
        moved.amount,
        requirement=requirement,
        title="a settled transfer credits the destination by amount",
        exchange=after[-1] if after else moved.exchange,
        also=(*before[1:], moved.exchange),
    )
