"""A walk across the range of amounts: transfers of many amounts bounced between two wallets of the run, each
followed to its end; and the verdicts on each (its sums, verify, both balances, the wallet list).

- The answer: `actual_is_amount_plus_fee`.
- Verify after settlement: `verify_repeats_the_transfer`.
- Both balances after settlement: `moved_actual_and_amount`.
- The wallet list after settlement: `list_shows_each_balance`.

And a walk across every order of magnitude the target accepts, up to the top of its fee tiers (`MagnitudeWalk`),
with the verdicts on each of its transfers: `fee_of_every_point`, `actual_of_every_point`,
`settled_sums_of_every_point`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import answer_forms, checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources
from wallet_conformance.world.safety import NotAllowed

# The share of the source's balance a transfer takes at most, in tenths: the rest leaves room for a fee.
MOST_TENTHS = 9
# The money fields of a transfer that verify repeats.
SUMS = ("amount", "fee", "actualAmount")


@dataclass(frozen=True)
class Step:
    """The next transfer of the walk: `amount` from `source` to `destination`, with both balances `before` it and the
    reads that showed them."""

    source: str
    destination: str
    amount: int
    before: dict[str, int]
    reads: tuple[Exchange, ...] = ()


class Answered:
    """A transfer the target answered: its transaction's fee and actualAmount, as shown."""

    transaction: dict[str, Any]

    @property
    def fee(self) -> Any:
        return self.transaction.get("fee")

    @property
    def actual(self) -> Any:
        return self.transaction.get("actualAmount")


@dataclass(frozen=True)
class Sent(Answered):
    """A step's transfer as the target answered it: the exchange and the transaction it accepted."""

    step: Step
    exchange: Exchange
    transaction: dict[str, Any]


@dataclass(frozen=True)
class Settled:
    """A sent transfer once it left `pending`: the transaction verify showed (`end`, with the exchange that showed
    it) and both balances `after` it, with the reads that showed them."""

    sent: Sent
    end: dict[str, Any]
    verified: Exchange
    after: dict[str, int]
    reads: tuple[Exchange, ...] = ()


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
        source, destination = (
            (self.pair[0], self.pair[1]) if balances[0] >= balances[1] else (self.pair[1], self.pair[0])
        )
        before = {self.pair[0]: balances[0], self.pair[1]: balances[1]}
        return Step(
            source,
            destination,
            min(wanted, before[source] * MOST_TENTHS // 10),
            before,
            money.reads(self.resources, before),
        )

    def send(self, step: Step) -> Sent:
        """Send the step's transfer (a refusal is a setup error: the walk moves money between its own wallets)."""
        exchange = self.api.call("transfer", json_body=bodies.transfer(step.source, step.destination, step.amount))
        return Sent(step, exchange, self.resources.require(exchange, "transfer between two wallets of the run"))

    def settle(self, sent: Sent) -> Settled:
        """The transfer once it left `pending`, and both balances after it: a balance that has not moved yet is read
        again (when balances show a settled transfer is not shown). The test cannot judge one still pending past
        --settle-timeout."""
        end = money.settled_or_none(self.resources, sent.exchange)
        if end is None:
            raise CannotJudge(
                f"the transfer stayed pending past --settle-timeout ({self.resources.settings.settle_timeout:g} s)"
            )
        verified = self.api.exchanges[-1]  # the verify that showed the transaction leave pending
        after = {
            wallet: money.balance_or_last(self.resources, wallet, moved_from=sent.step.before[wallet], after=end)
            for wallet in self.pair
        }
        return Settled(sent, end, verified, after, money.reads(self.resources, after))

    def wallet_list(self) -> lists.Listing:
        """The whole wallet list, in large pages under the paging the target honours."""
        return lists.walk(self.api, "listWallets", self.scheme, lists.LARGE_PAGE)


def actual_is_amount_plus_fee(sent: Sent) -> None:
    """The answer's actualAmount is amount plus fee (plus 0 when the fee is no integer: another check's concern), each
    fee's requirement's (checks.actual_amount_requirement)."""
    fee = sent.fee
    checks.equals(
        sent.actual,
        sent.step.amount + (fee if isinstance(fee, int) else 0),
        requirement=checks.actual_amount_requirement(fee),
        exchange=sent.exchange,
        title=f"actualAmount of a {sent.step.amount} kobo transfer is amount plus fee ({fee})",
    )


def verify_repeats_the_transfer(settled: Settled, *, requirement: str | None = None) -> None:
    """Verify, once the transfer settled, shows the amount, fee and actualAmount the transfer was answered with (one
    that did not complete: its amount and reference). A
    verify that answered another transaction of that reference (its publicId another: two transactions share the
    reference, RES-79's matter) answered one with that reference, and its sums are not compared."""
    sent, shown = settled.sent.transaction.get("publicId"), settled.end.get("publicId")
    if isinstance(sent, str) and isinstance(shown, str) and sent != shown:
        return
    # A transfer that did not complete (another status word, and no money moved) may show what it charged in the
    # end (fee 0, say): only a completed one's fee and actualAmount must be the answered ones.
    completed = settled.end.get("status") == contract.success_state() or settled.after != settled.sent.step.before
    for name in SUMS if completed else ("amount", "reference"):
        checks.equals(
            settled.end.get(name),
            settled.sent.transaction.get(name),
            requirement=requirement,
            exchange=settled.verified,
            title=f"verify returns the transfer's {name}",
        )


def moved_actual_and_amount(settled: Settled, *, requirement: str | None = None) -> None:
    """A settled transfer debits the source by actualAmount (amount plus the fee it shows: `money.charged`) and
    credits the destination by amount; the test cannot judge one that ended another way and moved nothing (the status
    words after settlement are not shown)."""
    step, exchange = settled.sent.step, settled.sent.exchange
    money.skip_unless_completed(settled.end, settled.after != step.before)
    charged = money.charged(settled.sent.transaction, step.amount, exchange)
    shown: dict[str, Any] = {
        "exchange": settled.reads[0] if settled.reads else exchange,
        "also": (*settled.reads[1:], *step.reads, exchange),
    }  # the reads after, before, and the transfer
    checks.equals(
        settled.after[step.source],
        step.before[step.source] - charged,
        requirement=requirement,
        title=f"a settled {step.amount} kobo transfer debits the source by actualAmount, amount plus fee",
        **shown,
    )
    checks.equals(
        settled.after[step.destination],
        step.before[step.destination] + step.amount,
        requirement=requirement,
        title=f"a settled {step.amount} kobo transfer credits the destination by amount",
        **shown,
    )


def list_shows_each_balance(walk: AmountRange, *, requirement: str | None = None) -> None:
    """The wallet list shows each wallet of the walk it lists with the balance a single read of it gave just before.
    How soon a list shows a balance is not said (a list may be served from a replica a moment behind): the list is
    read again within --settle-timeout until every entry agrees, and judged on its last reading."""
    balances = {wallet: walk.resources.balance(wallet) for wallet in walk.pair}
    listings: list[lists.Listing] = []

    def listed() -> dict[Any, Any]:
        listings.append(walk.wallet_list())
        return {lists.identity(item): item for item in listings[-1].entries}

    def agrees(entries: dict[Any, Any]) -> bool:
        return all(
            not isinstance(entries.get(wallet), dict) or entries[wallet].get("balance") == balances[wallet]
            for wallet in walk.pair
        )

    if not agrees(listed()):
        poll(lambda: agrees(listed()), walk.resources.settings.settle_timeout)
    entries = {lists.identity(item): item for item in listings[-1].entries}
    for wallet in walk.pair:
        entry = entries.get(wallet)
        if isinstance(entry, dict):
            checks.equals(
                entry.get("balance"),
                balances[wallet],
                requirement=requirement,
                exchange=listings[-1].exchanges[-1],
                title=f"the wallet list shows {wallet} with its single read's balance after a settled transfer, "
                f"within --settle-timeout",
            )


# ------------------------------------------------------------------ every order of magnitude, up to the top fee tier

# The steps of a decade the magnitude walk takes, as multiples of a power of ten times the minimum: round fee-tier
# bounds (5,000 and 50,000 naira, say) are among them.
STEPS = (1, 2, 5)
# How far past the amount where the fee last changed the walk goes: a decade (the top tier, held across a decade).
PAST_LAST_CHANGE = 10
# The decades above the minimum the walk spans at least, whatever the fees (100 naira to 1,000,000 naira): fees change
# with the amount where the walk cannot see it coming, and large amounts break what small ones do not.
DECADES = 4
# The share of the run's money budget one walk may fund (a quarter: the two walks leave half to the other tests).
BUDGET_SHARE = 4
# What the walk adds to the first amount of each decade, by turns, for one amount with kobo per decade (ending in 01, 99
# and 50): every round amount is a whole number of naira, and an amount worked out in naira as a float is exact there
# and may come back fractional only for an amount with kobo.
KOBO = (1, 99, 50)
KOBO_PER_NAIRA = 100  # kobo, the minor unit of NGN: 100 naira is 10000 kobo


@dataclass(frozen=True)
class Point(Answered):
    """One transfer of a magnitude walk: `amount` from a new wallet holding `before`, to `destination` (a new wallet
    holding nothing, or None for a bank transfer), and the transaction the target answered."""

    amount: int
    source: str
    destination: str | None
    before: int
    exchange: Exchange
    transaction: dict[str, Any]
    read_before: Exchange | None = None  # the read that showed `before` (None: the funding showed it)


@dataclass
class Magnitudes:
    """What a magnitude walk sent (`points`, in order), why it stopped, and each point once settled (its transaction
    after pending, and the balances then); points that ended another way moving nothing, or only their fee, are
    `unfinished`."""

    operation_id: str
    points: list[Point]
    stopped: str
    settled: list[tuple[Point, dict[str, Any], dict[str, int]]]
    unfinished: list[Point]
    reads: dict[str, Exchange] = field(default_factory=dict)  # by wallet: the read that showed its balance after

    @property
    def top(self) -> int:
        """The largest amount the walk sent."""
        return max((point.amount for point in self.points), default=0)

    def observation(self) -> dict[str, Any]:
        """What the walk records: the fee tiers it saw, why it stopped, the amounts that ended another way, moving no
        money or only their fee."""
        return {
            "fee_tiers": self.tiers(),
            "stopped": self.stopped,
            "ended_without_completing": [point.amount for point in self.unfinished],
        }

    def tiers(self) -> list[dict[str, Any]]:
        """The fee structure the walk saw: each run of amounts with one fee, from its first amount to its last."""
        found: list[dict[str, Any]] = []
        for point in sorted(self.points, key=lambda point: point.amount):
            if found and found[-1]["fee"] == point.fee:
                found[-1]["to"] = point.amount
            else:
                found.append({"from": point.amount, "to": point.amount, "fee": point.fee})
        return found


def amounts(minimum: int) -> Iterator[int]:
    """The walk's amounts: 1, 2 and 5 times each power of ten, times the minimum."""
    for power in count():
        for step in STEPS:
            yield minimum * step * 10**power


def with_kobo(minimum: int, amount: int) -> int | None:
    """The amount with kobo the walk sends beside `amount` when it is the first of its decade (the minimum times a
    power of ten): that amount plus KOBO's entry for the decade; None for the other amounts."""
    decade = amount // minimum
    if amount % minimum or decade != 10 ** (len(str(decade)) - 1):
        return None
    return amount + KOBO[(len(str(decade)) - 1) % len(KOBO)]


class MagnitudeWalk:
    """Transfers of `operation_id` from the minimum up, at every step of every decade (`amounts`), each from a new
    wallet funded for it (the money of one still pending never stands in the way of the next), through DECADES
    decades and `reach` at least, until the fee has held for a decade past its last change (the top fee tier the
    target shows); or until the target refuses an amount (the most it accepts: no maximum is documented), or its
    share of the run's money budget (--max-amount) ends. Where the fee changed between two amounts it also sends one
    kobo above the lower: at a round tier bound the fee of that amount shows the lower was the top of its tier. Beside
    the first amount of each decade it sends one with kobo (`with_kobo`): money the target works out in naira as a
    float shows only there. Settlement is waited for once all are sent."""

    def __init__(self, api: ApiClient, resources: Resources, operation_id: str, reach: int = 0) -> None:
        self.api = api
        self.resources = resources
        self.operation_id = operation_id
        self.reach = reach
        self.points: list[Point] = []
        self._account: tuple[str, str] | None = None
        self._allowance = resources.guard.budget // BUDGET_SHARE

    def walk(self) -> Magnitudes:
        """Send the walk's transfers, then follow each to its end."""
        stopped = self._send_all()
        if not self.points:
            raise CannotJudge(f"no {self.operation_id} of the walk was sent: {stopped}")
        settled, unfinished, reads = [], [], {}
        for point in self.points:
            end = money.settled_or_none(self.resources, point.exchange)
            if end is None:
                raise CannotJudge(
                    f"the {point.amount} kobo {self.operation_id} stayed pending past --settle-timeout "
                    f"({self.resources.settings.settle_timeout:g} s)"
                )
            after = self._balances_after(point, end)
            reads.update({wallet: read for wallet in after if (read := self.resources.last_read(wallet)) is not None})
            moved = after != self._balances_before(point)
            # Only the fee taken: its amount given back (what a failed transfer does with its fee is not said).
            fee_kept = after.get(point.destination or "", 0) == 0 and money.only_the_fee(
                point.before - after[point.source],
                money.charged(point.transaction, point.amount, point.exchange),
                point.amount,
            )
            if end.get("status") != contract.success_state() and (not moved or fee_kept):
                unfinished.append(point)  # it ended another way (a payout failed and given back, say)
            else:
                settled.append((point, end, after))
        return Magnitudes(self.operation_id, self.points, stopped, settled, unfinished, reads)

    def _send_all(self) -> str:
        """Send the walk's transfers; why it stopped."""
        minimum = contract.minimum_amount(self.operation_id)
        reach, last_change = max(self.reach, minimum * 10**DECADES), minimum
        previous: Point | None = None  # the last point sent but the amounts with kobo
        for amount in amounts(minimum):
            if amount > max(reach, last_change * PAST_LAST_CHANGE):
                return (
                    f"the fee held from {last_change} to {self.top()} kobo, a decade past its last change and "
                    f"{DECADES} decades above the minimum"
                )
            try:
                point = self._send(amount)
                if point is None:
                    return f"the target refused a {self.operation_id} of {amount} kobo: the most it accepts"
                if previous is not None and point.fee != previous.fee:
                    above = self._send(previous.amount + 1)
                    last_change = above.amount if above is not None and above.fee == point.fee else amount
                    point = above or point
                previous = point
                odd = with_kobo(minimum, amount)
                if odd is not None:
                    self._send(odd, refusable=False)
            except NotAllowed as refused:
                return f"{refused} (amounts from {amount} kobo on were not sent)"
        raise AssertionError("the amounts never end")

    def top(self) -> int:
        return max(point.amount for point in self.points)

    def _send(self, amount: int, *, refusable: bool = True) -> Point | None:
        """One transfer of `amount` from a new funded wallet (None when the target refused it after the first, where
        `refusable`: the amount may be past the most the target accepts; an amount with kobo below one it accepted is
        a documented request, whose refusal is a setup error)."""
        resources = self.resources
        resources.guard.require_money_movement()
        funds = money.funding(self.operation_id, amount)
        if funds > self._allowance:
            raise NotAllowed(
                f"the walk's share of the run's money budget (1/{BUDGET_SHARE} of --max-amount) has "
                f"{self._allowance} kobo left, a {self.operation_id} of {amount} needs {funds}"
            )
        self._allowance -= funds
        wallet = resources.wallet()
        source, empty = wallet["publicId"], wallet.get("balance") == 0
        rise = resources.fund(source, funds, before=0 if empty else None)
        before = rise if empty else resources.balance(source)
        destination: str | None
        if self.operation_id == "transfer":
            destination = resources.wallet()["publicId"]
            body = bodies.transfer(source, destination, amount)
        else:
            destination = None
            if self._account is None:
                self._account = resources.validated_account()
            body = bodies.bank_transfer(source, *self._account, amount)
        exchange = self.api.call(self.operation_id, json_body=body)
        if not exchange.ok and self.points and refusable:
            return None
        transaction = money.accepted_transfer(exchange, f"send a {self.operation_id} of {amount} kobo")
        point = Point(
            amount, source, destination, before, exchange, transaction, None if empty else resources.last_read(source)
        )
        self.points.append(point)
        return point

    def _balances_before(self, point: Point) -> dict[str, int]:
        return {point.source: point.before, **({point.destination: 0} if point.destination else {})}

    def _balances_after(self, point: Point, end: dict[str, Any]) -> dict[str, int]:
        return {
            wallet: money.balance_or_last(self.resources, wallet, moved_from=before, after=end)
            for wallet, before in self._balances_before(point).items()
        }


def fee_of_every_point(walk: Magnitudes, *, requirement: str | None = None) -> None:
    """Every transfer of the walk was answered with a fee that is an integer of 0 or more."""
    for point in walk.points:
        answer_forms.fee(point.transaction, point.exchange, requirement=requirement)


def actual_of_every_point(walk: Magnitudes) -> None:
    """Every transfer of the walk was answered with actualAmount equal to amount plus fee, each fee's requirement's
    (checks.actual_amount_requirement)."""
    for point in walk.points:
        fee = point.fee if isinstance(point.fee, int) else 0
        checks.equals(
            point.actual,
            point.amount + fee,
            requirement=checks.actual_amount_requirement(fee),
            exchange=point.exchange,
            title=f"actualAmount of a {point.amount} kobo {walk.operation_id} is amount plus fee ({fee})",
        )


def settled_sums_of_every_point(walk: Magnitudes, *, requirement: str | None = None) -> None:
    """Every settled transfer of the walk debited its source by actualAmount (amount plus the fee it shows:
    `money.charged`) and credited its destination wallet, if any, by amount; the test cannot judge a walk none of whose
    transfers completed."""
    if not walk.settled:
        raise CannotJudge(
            f"none of the walk's {len(walk.points)} transfers completed: each ended another way, moving no money"
        )
    for point, _, after in walk.settled:
        charged = money.charged(point.transaction, point.amount, point.exchange)
        before = (*filter(None, [point.read_before]), point.exchange)  # the read before (if any), the transfer
        checks.equals(
            after[point.source],
            point.before - charged,
            requirement=requirement,
            exchange=walk.reads.get(point.source, point.exchange),
            also=before,
            title=f"a settled {point.amount} kobo {walk.operation_id} debits the source by actualAmount, "
            "amount plus fee",
        )
        if point.destination is not None:
            checks.equals(
                after[point.destination],
                point.amount,
                requirement=requirement,
                exchange=walk.reads.get(point.destination, point.exchange),
                also=(point.exchange,),
                title=f"a settled {point.amount} kobo transfer credits the destination by amount",
            )


def kobo_points_whole(walk: Magnitudes, *, requirement: str | None = None) -> None:
    """Every transfer of the walk whose amount has kobo (not a whole number of naira) was answered, and once settled
    verified, with every money amount an integer of kobo; the test cannot judge a walk that sent none."""
    odd = [point for point in walk.points if point.amount % KOBO_PER_NAIRA]
    if not odd:
        raise CannotJudge(f"the {walk.operation_id} walk sent no amount with kobo ({walk.stopped})")
    ends = {id(point): end for point, end, _ in walk.settled}
    for point in odd:
        checks.money_is_integer_kobo(point.exchange, requirement=requirement)
        end = ends.get(id(point), {})
        shown = {name: end[name] for name in SUMS if name in end and type(end[name]) is not int}
        checks.holds(
            not shown,
            f"verify shows the {point.amount} kobo {walk.operation_id}'s amounts as integers of kobo",
            "integers",
            shown,
            point.exchange,
            requirement=requirement,
        )
