"""A walk across the range of amounts: transfers of many amounts bounced between two wallets of the run, each
followed to its end; and the verdicts on each (its sums, verify, both balances, the wallet list).

- The answer: `actual_is_amount_plus_fee`.
- Verify after settlement: `verify_repeats_the_transfer`.
- Both balances after settlement: `moved_actual_and_amount`.
- The wallet list after settlement: `list_shows_each_balance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.resources import Resources

# The share of the source's balance a transfer takes at most, in tenths: the rest leaves room for a fee.
MOST_TENTHS = 9
# The money fields of a transfer that verify repeats.
SUMS = ("amount", "fee", "actualAmount")


@dataclass(frozen=True)
class Step:
    """The next transfer of the walk: `amount` from `source` to `destination`, with both balances `before` it."""

    source: str
    destination: str
    amount: int
    before: dict[str, int]


@dataclass(frozen=True)
class Sent:
    """A step's transfer as the target answered it: the exchange and the transaction it accepted."""

    step: Step
    exchange: Exchange
    transaction: dict[str, Any]

    @property
    def fee(self) -> Any:
        return self.transaction.get("fee")

    @property
    def actual(self) -> Any:
        return self.transaction.get("actualAmount")


@dataclass(frozen=True)
class Settled:
    """A sent transfer once it left `pending`: the transaction verify showed (`end`, with the exchange that showed
    it) and both balances `after` it."""

    sent: Sent
    end: dict[str, Any]
    verified: Exchange
    after: dict[str, int]


class AmountRange:
    """Two wallets of the run, the first funded once with `funds` kobo; each transfer goes from the one holding more
    to the other, of the amount wanted but at most MOST_TENTHS tenths of the source's balance."""

    def __init__(self, api: ApiClient, resources: Resources, funds: int) -> None:
        self.api = api
        self.resources = resources
        self.pair = [resources.funded_wallet(funds)["publicId"], resources.wallet()["publicId"]]
        self.scheme = lists.discover(api, "listWallets")

    def step(self, wanted: int) -> Step:
        """The next transfer, for an amount of `wanted` kobo."""
        balances = [self.resources.balance(wallet) for wallet in self.pair]
        source, destination = (self.pair[0], self.pair[1]) if balances[0] >= balances[1] else (self.pair[1],
                                                                                                 self.pair[0])
        before = {self.pair[0]: balances[0], self.pair[1]: balances[1]}
        return Step(source, destination, min(wanted, before[source] * MOST_TENTHS // 10), before)

    def send(self, step: Step) -> Sent:
        """Send the step's transfer (a refusal is a setup error: the walk moves money between its own wallets)."""
        exchange = self.api.call("transfer", json_body=bodies.transfer(step.source, step.destination, step.amount))
        return Sent(step, exchange, self.resources.require(exchange, "transfer between two wallets of the run"))

    def settle(self, sent: Sent) -> Settled:
        """The transfer once it left `pending`, and both balances after it: a balance that has not moved yet is read
        again (when balances show a settled transfer is not shown). The test cannot judge one still pending past
        --settle-timeout."""
        end = money.transfer_end(self.resources, sent.exchange)
        if end is None:
            raise CannotJudge(f"the transfer stayed pending past --settle-timeout "
                              f"({self.resources.settings.settle_timeout:g} s)")
        verified = self.api.exchanges[-1]  # the verify that showed the transaction leave pending
        after = {wallet: money.balance_after_settlement(self.resources, wallet, sent.step.before[wallet], end)
                 for wallet in self.pair}
        return Settled(sent, end, verified, after)

    def wallet_list(self) -> lists.Listing:
        """The whole wallet list, in large pages under the paging the target honours."""
        return lists.walk(self.api, "listWallets", self.scheme, lists.LARGE_PAGE)


def actual_is_amount_plus_fee(sent: Sent, *, requirement: str | None = None) -> None:
    """The answer's actualAmount is amount plus fee (plus 0 when the fee is no integer: another check's concern)."""
    fee = sent.fee
    checks.equals(sent.actual, sent.step.amount + (fee if isinstance(fee, int) else 0), requirement=requirement,
                  exchange=sent.exchange,
                  title=f"actualAmount of a {sent.step.amount} kobo transfer is amount plus fee ({fee})")


def verify_repeats_the_transfer(settled: Settled, *, requirement: str | None = None) -> None:
    """Verify, once the transfer settled, shows the amount, fee and actualAmount the transfer was answered with."""
    for name in SUMS:
        checks.equals(settled.end.get(name), settled.sent.transaction.get(name), requirement=requirement,
                      exchange=settled.verified, title=f"verify returns the transfer's {name}")


def moved_actual_and_amount(settled: Settled, *, requirement: str | None = None) -> None:
    """A settled transfer debits the source by actualAmount and credits the destination by amount; the test cannot
    judge one that ended another way and moved nothing (the status words after settlement are not shown)."""
    step, exchange = settled.sent.step, settled.sent.exchange
    money.did_not_complete(settled.end, settled.after != step.before)
    checks.equals(settled.after[step.source], step.before[step.source] - settled.sent.actual,
                  requirement=requirement, exchange=exchange,
                  title=f"a settled {step.amount} kobo transfer debits the source by actualAmount")
    checks.equals(settled.after[step.destination], step.before[step.destination] + step.amount,
                  requirement=requirement, exchange=exchange,
                  title=f"a settled {step.amount} kobo transfer credits the destination by amount")


def list_shows_each_balance(walk: AmountRange, *, requirement: str | None = None) -> None:
    """The wallet list shows each wallet of the walk it lists with the balance a single read of it gives."""
    listing = walk.wallet_list()
    listed = {lists.identity(item): item for item in listing.entries}
    for wallet in walk.pair:
        entry = listed.get(wallet)
        if isinstance(entry, dict):
            checks.equals(entry.get("balance"), walk.resources.balance(wallet), requirement=requirement,
                          exchange=listing.exchanges[-1],
                          title=f"the wallet list shows {wallet} with its single read's balance after a settled "
                                "transfer")
