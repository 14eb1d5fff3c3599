"""A model of the account's money, as a Hypothesis `RuleBasedStateMachine` driven against the target.

Every program opens with two funded wallets, a wallet transfer, a bank transfer and a collection
account (its reference then reused), drawn like the rules' steps. Rules: create primary and
secondary wallets, fund, transfer wallet to wallet, bank transfer, create collection accounts (no
reference, a new one, one already used), close, settle. After settlement the target is checked
against the model: balances equal the model, money is conserved, nothing goes below zero, every
transfer is found by verify with the same amounts, the wallet list agrees with the single reads, a
collection account made without a reference gets one, references never repeat (a used one is
refused), the primary-wallet limit holds.

The model reasons in deltas from what it created: it reads nothing the run did not make, so it
works against a staging account that already holds data. It does not assume what the document
leaves open: when a transfer settles (it waits for any status but `pending`), what the final
status is called, whether an overdraft is refused at once or accepted and failed later (either
way it must move no money), whether wallet transfers cost a fee (it reads the fee the target
reports), whether a closed wallet stays listed.

Each program gets its own machine, bound to the test's context by `factory(context)` (run with
`hypothesis.stateful.run_state_machine_as_test`). A rule runs only when its precondition says it can
do something in the current state; wallets are drawn from those the rule can use (open ones, or
open ones with no transfer pending), so a step that ran always did something or judged something.

A failing program prints every step (Hypothesis) and, in the failure, the whole sequence of calls.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks, request_rules
from wallet_conformance.judge.failures import ConformanceFailure, SuiteError
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources

MINIMUM = contract.minimum_amount("transfer")
PRIMARY_LIMIT = contract.primary_wallet_limit()
FUNDING = (MINIMUM, MINIMUM * 6)  # kobo per funding step
BUDGET = 600_000  # most kobo one test's machine puts into its wallets, over all its programs
TRANSFERS = ["below the minimum", "the minimum", "half", "the whole balance", "one kobo more", "double"]
BANK_TRANSFERS = ["the minimum", "half", "the whole balance", "one kobo more"]
# The requirement a wrong balance breaks, by the money movement that touched the wallet since its balance last agreed
# with the model: a settled transfer's is the one of SETTLED whose operations hold the transfer's operation; the other
# movements' are named here. Where several movements touched it, the suite cannot tell which broke: CONSERVED.
SETTLED = ("SVC-25", "SVC-26")
OTHER_MOVEMENTS = {"overdraft": "SVC-27", "closed": "STA-09"}
CONSERVED = contract.CONSERVED
# How a transfer that did not complete ended (MoneyMachine.ending): its source's money all given back, or all but its
# fee (what a transfer that did not complete does with its fee is not said).
NOTHING_MOVED = "moved no money"
FEE_KEPT = "gave its amount back and kept its fee"


def balance_requirement(movements: list[Move]) -> str:
    """The requirement a wrong balance breaks after `movements` (each a transfer's operation, or another movement)."""
    kinds = {move.kind for move in movements}
    if len(kinds) != 1:
        return CONSERVED
    kind = kinds.pop()
    if kind in OTHER_MOVEMENTS:
        return OTHER_MOVEMENTS[kind]
    return next(rid for rid in SETTLED if kind in catalogue()[rid].operations)


@dataclass(frozen=True)
class Move:
    """A movement of money that touched a wallet: its kind (a transfer's operation, `overdraft`, `closed`), what the
    program did, and the exchange that made it."""

    kind: str
    line: str
    exchange: Exchange | None = field(default=None, repr=False)


@dataclass
class Pending:
    """An accepted transfer the model waits on."""

    reference: str
    kind: str  # transfer or bankTransfer
    source: str
    destination: str | None  # a wallet of the model, or None (bank transfer)
    amount: int
    actual: int
    affordable: bool  # actualAmount was within the source's balance when it was accepted
    accepted: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass
class Context:
    """What the machine works with; made once per test and shared by its programs."""

    api: ApiClient
    resources: Resources
    observe: Callable[..., None]
    shared_target: bool
    programs: int  # how many programs the test runs: each may fund up to BUDGET / programs
    spent: int = 0
    steps: int = 0
    lengths: list[int] = field(default_factory=list)  # steps each program ran, its first (initialize) step included
    references: set[str] = field(default_factory=set)  # transaction references seen over the whole test
    collection_references: set[str] = field(default_factory=set)
    fees: dict[str, set[int]] = field(default_factory=lambda: {op: set() for op in sorted(contract.money_operations())})
    # Whether balances that do not yet show the model are read again until they do (a target may post them a moment
    # after the status changes): until one never does within --settle-timeout, then they are judged at once.
    patient: bool = True


class MoneyMachine(RuleBasedStateMachine):
    """The account's money, as one program sees it. Made for each program by `factory(context)`."""

    def __init__(self, context: Context) -> None:
        super().__init__()
        self.context = context
        self.api, self.resources = context.api, context.resources
        self.api.exchanges.mark_example()  # a failure's replay starts with the program that showed it
        self.made: list[str] = []  # every wallet the program created, open or closed, in the order made
        self.balances: dict[str, int] = {}  # open wallets of this program: the balance once all is settled
        self.primaries: set[str] = set()
        self.closed: set[str] = set()
        self.pending: list[Pending] = []
        self.settled: list[Pending] = []
        # Per open wallet: the movements since its balance last agreed with the model, and the exchange that showed it
        # agreeing then (its creation, its funding, or the last comparison's read): a wrong balance is charged to
        # those movements, with those exchanges as evidence.
        self.moves: dict[str, list[Move]] = {}
        self.agreed: dict[str, Exchange] = {}
        self.touched: set[str] = set()
        self.paid_in = 0  # paid into the program's wallets (what the allowance counts)
        self.money_in = 0  # credited to them: the payments less any inbound fee the target charged
        self.money_out = 0  # left through bank transfers, fees and closed wallets
        self.calls: list[str] = []
        self.listed_before: Any = None
        self.collection_references: list[str] = []  # references of the collection accounts this program made
        self.holders: dict[str, str] = {}  # the wallet of each of them
        self.step_count = 0  # steps run (the invariants are checked after each, the initialize step included)
        self.failed = False  # a check of this program failed (teardown then only closes its wallets)

    # ------------------------------------------------------------ plumbing

    def call(self, operation_id: str, path: dict[str, str] | None = None, **kwargs: Any) -> Exchange:
        exchange = self.api.call(operation_id, path, **kwargs)
        body = f" {kwargs['json_body']}" if "json_body" in kwargs else ""
        line = f"{exchange.method} {exchange.url.split('/v1', 1)[-1]}{body} -> {exchange.status}"
        self.calls.append(line)
        note(line)
        return exchange

    def check(self, function: Callable[..., None], *args: Any, **kwargs: Any) -> None:
        """Run a check; its failure carries the whole sequence of calls that led to it."""
        try:
            function(*args, **kwargs)
        except ConformanceFailure as failure:
            raise self.annotated(failure) from None

    def annotated(self, failure: ConformanceFailure) -> ConformanceFailure:
        self.failed = True
        sequence = "\n    ".join(self.calls)
        detail = f"{failure.detail + chr(10) + '  ' if failure.detail else ''}calls of this program:\n    {sequence}"
        return ConformanceFailure(
            failure.requirement,
            failure.title,
            failure.expected,
            failure.received,
            failure.exchange,
            detail=detail,
            also=failure.also,
        )

    def holds(
        self,
        requirement: str,
        condition: bool,
        title: str,
        expected: Any,
        received: Any,
        exchange: Exchange | None = None,
        *,
        also: tuple[Exchange, ...] = (),
        detail: str | None = None,
    ) -> None:
        """What the model expects holds (checks.holds); its failure carries the whole sequence of calls."""
        self.check(
            checks.holds,
            condition,
            title,
            expected,
            received,
            exchange,
            also=also,
            detail=detail,
            requirement=requirement,
        )

    def balance(self, wallet: str) -> Any:
        return self.read(wallet)[0]

    def read(self, wallet: str) -> tuple[Any, Exchange]:
        """A wallet's balance as its read shows it, and that read."""
        exchange = self.call("getWallet", {"walletId": wallet})
        self.check(checks.accepted, exchange, requirement="END-16", why=f"reading the run's wallet {wallet}")
        return exchange.data.get("balance") if isinstance(exchange.data, dict) else None, exchange

    def unmoved(self, refused: Exchange, requirement: str, *wallets: str | None) -> None:
        """A refused transfer moved no money: the open wallets it named hold the model's balance, read at once
        (nothing of theirs is pending: `send` settles first). One that moved breaks `requirement`: the overdraft's
        or the closed wallet's, else conservation, since no movement explains it."""
        for wallet in wallets:
            if wallet in self.balances:
                value, read = self.read(wallet)
                self.holds(
                    requirement,
                    value == self.balances[wallet],
                    f"a refused {refused.operation_id} leaves the balance of {wallet} as it was",
                    self.balances[wallet],
                    value,
                    read,
                    also=(self.agreed[wallet], refused),
                )
                self.agreed[wallet] = read

    def moved(self, wallet: str | None, kind: str, exchange: Exchange | None) -> None:
        """Note a movement touching an open wallet of the program (the comparison after settlement judges it)."""
        if wallet in self.balances:
            self.moves.setdefault(wallet, []).append(Move(kind, self.calls[-1], exchange))

    def pending_on(self, wallet: str) -> bool:
        return any(wallet in (item.source, item.destination) for item in self.pending)

    def sources(self) -> list[str]:
        """Wallets a transfer is sent from: open ones holding at least the minimum, and closed ones (STA-09). From
        one holding less, every choice but the minimum is below the minimum; so all the program's wallets only when
        none holds the minimum and none is closed."""
        holding = [wallet for wallet in self.made if wallet in self.closed or self.balances.get(wallet, 0) >= MINIMUM]
        return holding or self.made

    def idle(self) -> list[str]:
        """Open wallets of the program with no transfer pending (what funding and closing may touch)."""
        return [wallet for wallet in self.balances if not self.pending_on(wallet)]

    # ------------------------------------------------------------ rules

    @property
    def allowance(self) -> int:
        """Kobo this program may still put into its wallets (depends on the program only, as Hypothesis needs)."""
        return BUDGET // max(1, self.context.programs) - self.paid_in

    # Money bugs show only once money has moved, and a program may be short (Hypothesis's mutations of earlier
    # programs end some early) or use only some of the rules (swarm testing): many a program never transfers, pays
    # out or makes a collection account. So every program opens with one of each, drawn like a rule's.
    @initialize(
        amounts=st.tuples(st.integers(*FUNDING), st.integers(*FUNDING)),
        choice=st.sampled_from(TRANSFERS),
        bank_choice=st.sampled_from(BANK_TRANSFERS),
        with_reference=st.booleans(),
    )
    def first_steps(self, amounts: tuple[int, int], choice: str, bank_choice: str, with_reference: bool) -> None:
        """Two funded secondary wallets, a transfer below the minimum and another from the first to the second, a bank
        transfer from the second, a collection account for the first and its reference again for the second."""
        listed = self.api.call("listWallets")
        self.listed_before = lists.pagination(listed).get("totalCount") if listed.ok else None
        first, second = self.create("secondary"), self.create("secondary")  # or LIM-04 failed
        for wallet, amount in ((first, amounts[0]), (second, amounts[1])):
            if wallet is not None and self.resources.can_fund and amount <= self.allowance:
                self.fund_wallet(wallet, amount)
        if first is not None and second is not None:
            self.send("transfer", first, second, "below the minimum")  # refused, and moving nothing: every program
            self.send("transfer", first, second, choice)
            self.send("bankTransfer", second, None, bank_choice)
            made = len(self.collection_references)
            self.collect(first, "new" if with_reference else "none")
            if len(self.collection_references) > made:
                self.collect_again(second, self.collection_references[-1])

    @rule(category=st.sampled_from(["secondary", "secondary", "primary"]))
    def create_wallet(self, category: str) -> None:
        self.create(category)

    def create(self, category: str) -> str | None:
        """A new wallet of the program, or None when a primary one is refused (a secondary one must be accepted)."""
        held = len(self.primaries)
        exchange = self.call("createWallet", json_body=bodies.wallet(self.resources.run_id, category))
        self.resources.track(exchange)
        if category == "primary" and held >= PRIMARY_LIMIT:
            self.check(
                checks.refused,
                exchange,
                requirement="LIM-01",
                why=f"a primary wallet while this program holds {held} open ones",
            )
        if not exchange.ok:
            if category == "secondary":
                self.check(checks.accepted, exchange, requirement="LIM-04", why="a secondary wallet")
            if held < PRIMARY_LIMIT:  # the account may hold other primaries (other runs, other tests)
                note(f"a primary wallet refused while this program holds {held} open ones: allowed, not judged")
            return None
        wallet = exchange.data["publicId"]
        note(f"made {category} wallet {wallet}")
        self.made.append(wallet)
        self.balances[wallet] = 0
        self.agreed[wallet] = exchange
        if category == "primary":
            self.primaries.add(wallet)
        return wallet

    @precondition(lambda self: self.resources.can_fund and self.allowance >= FUNDING[1] and bool(self.idle()))
    @rule(data=st.data(), amount=st.integers(*FUNDING))
    def fund(self, data: st.DataObject, amount: int) -> None:
        """Pay into an open wallet with nothing pending (an overdraft pending on it must settle as it was judged)."""
        self.fund_wallet(data.draw(st.sampled_from(self.idle()), label="wallet"), amount)

    def fund_wallet(self, wallet: str, amount: int) -> None:
        credited = self.resources.fund(wallet, amount)  # less than amount if the target charges inbound payments
        self.calls.append(f"fund {wallet} with {amount} (funding hook): credited {credited}")
        note(self.calls[-1])
        self.context.spent += amount
        self.paid_in += amount
        self.money_in += credited
        self.balances[wallet] += credited
        # The funding is judged where it is made (it returns what the balance rose by): from here the wallet agrees.
        self.moves[wallet] = []
        self.agreed[wallet] = self.resources.last_read(wallet) or self.agreed[wallet]
        self.touched.add(wallet)

    # A transfer is sent from one of `sources()` (closed ones too: STA-09 judges those) to any other wallet of the
    # program, closed ones too (a wallet to itself is not shown).
    @precondition(lambda self: len(self.made) >= 2)
    @rule(data=st.data(), choice=st.sampled_from(TRANSFERS))
    def transfer(self, data: st.DataObject, choice: str) -> None:
        source = data.draw(st.sampled_from(self.sources()), label="source")
        destination = data.draw(
            st.sampled_from([wallet for wallet in self.made if wallet != source]), label="destination"
        )
        self.send("transfer", source, destination, choice)

    @precondition(lambda self: bool(self.made))
    @rule(data=st.data(), choice=st.sampled_from(BANK_TRANSFERS))
    def bank_transfer(self, data: st.DataObject, choice: str) -> None:
        self.send("bankTransfer", data.draw(st.sampled_from(self.sources()), label="source"), None, choice)

    def send(self, kind: str, source: str, destination: str | None, choice: str) -> None:
        for wallet in (source, destination):
            if wallet is not None and self.pending_on(wallet):
                self.settle()
        available = self.balances.get(source, 0)
        amount = {
            "below the minimum": MINIMUM - 1,
            "the minimum": MINIMUM,
            "half": available // 2,
            "the whole balance": available,
            "one kobo more": available + 1,
            "double": available * 2,
        }[choice]
        amount = max(amount, 1)
        note(f"{kind} of {choice}: {amount} kobo from {source} (model balance {available})")
        if kind == "transfer":
            assert destination is not None  # a transfer names a wallet (`transfer` above)
            body = bodies.transfer(source, destination, amount)
        else:
            number, code = self.resources.external_account()
            body = bodies.bank_transfer(source, number, code, amount)
        exchange = self.call(kind, json_body=body)
        closed = [wallet for wallet in (source, destination) if wallet in self.closed]
        if closed and not exchange.ok:
            self.check(checks.refused, exchange, requirement="STA-09", why=f"a {kind} touching closed {closed}")
            self.unmoved(exchange, "STA-09", source, destination)
            return
        if closed:
            # Refused at once or accepted and failed later (transitions are not shown), as for an overdraft: it
            # must move no money, which the comparison after settlement checks.
            data: Any = exchange.data if isinstance(exchange.data, dict) else {}  # the target's, values unchecked
            self.pending.append(Pending(data.get("reference"), kind, source, destination, amount, amount, False, data))
            self.touched.update(wallet for wallet in (source, destination) if wallet in self.balances)
            for wallet in (source, destination):
                self.moved(wallet, "closed", exchange)
            return
        if amount < MINIMUM:
            self.check(
                checks.refused,
                exchange,
                requirement="LIM-10" if kind == "transfer" else "LIM-12",
                why=f"a {kind} of {amount} kobo",
            )
            self.unmoved(exchange, CONSERVED, source)
            return
        if not exchange.ok:
            # Only with room for any fee the suite allows (money.funding) and no fee seen: a fee is not bounded.
            if money.funding(kind, amount) <= available and not self.context.fees[kind] - {0}:
                self.check(
                    checks.accepted,
                    exchange,
                    why=f"a {kind} of {amount} kobo from a balance of {available}",
                    requirement=contract.refusal_requirement(kind, exchange.request_body, exchange.status),
                )
            else:
                why = (
                    "the balance may not cover it and its fee"
                    if money.funding(kind, amount) > available
                    else f"the target charges {kind} fees, which the document does not bound"
                )
                note(f"the {kind} was refused, which is allowed ({why}): not judged")
            self.unmoved(exchange, OTHER_MOVEMENTS["overdraft"] if amount > available else CONSERVED, source)
            return
        data = exchange.data if isinstance(exchange.data, dict) else {}
        reference, fee, actual = data.get("reference"), data.get("fee"), data.get("actualAmount")
        self.holds(
            "END-28",
            reference not in self.context.references,
            "every transfer gets a reference of its own",
            "a new reference",
            reference,
            exchange,
        )
        self.context.references.add(reference)
        if isinstance(fee, int):
            self.context.fees[kind].add(fee)
        self.check(
            checks.equals,
            actual,
            amount + (fee if isinstance(fee, int) else 0),
            requirement=checks.actual_amount_requirement(fee),
            title="actualAmount is amount plus fee",
            exchange=exchange,
        )
        self.pending.append(Pending(reference, kind, source, destination, amount, actual, actual <= available, data))
        self.touched.add(source)
        if actual <= available:
            self.balances[source] -= actual  # reserved now; the comparison with the target waits for settlement
            self.moved(source, kind, exchange)
            self.moved(destination, kind, exchange)
        else:
            self.moved(source, "overdraft", exchange)

    @precondition(lambda self: bool(self.balances))
    @rule(data=st.data())
    def collection_account(self, data: st.DataObject) -> None:
        """A collection account for an open wallet: with no reference (the target generates one), a new one, or one
        this program already used (refused, LIM-19), then on another wallet than the first."""
        kind = data.draw(
            st.sampled_from(["none", "new", "used"] if self.collection_references else ["none", "new"]),
            label="reference",
        )
        if kind != "used":
            self.collect(data.draw(st.sampled_from(list(self.balances)), label="wallet"), kind)
            return
        reference = data.draw(st.sampled_from(self.collection_references), label="used reference")
        others = [wallet for wallet in self.balances if wallet != self.holders[reference]]
        self.collect_again(data.draw(st.sampled_from(others or list(self.balances)), label="wallet"), reference)

    def collect_again(self, wallet: str, reference: str) -> None:
        """A collection account for `wallet` with a reference already used: refused (LIM-19)."""
        body = {**bodies.collection_account(self.resources.run_id, wallet), "reference": reference}
        exchange = self.call("createCollectionAccount", json_body=body)
        if exchange.ok and not request_rules.takes_the_reference(exchange):
            note("accepted, showing another reference than the one sent (RES-32): no reuse of one the target holds")
            return
        self.check(checks.refused, exchange, requirement="LIM-19", why=f"reference {reference!r} again")

    def collect(self, wallet: str, kind: str) -> None:
        """A collection account for `wallet` with a new reference (`new`) or none (`none`): accepted, and its
        reference never seen before."""
        body = bodies.collection_account(self.resources.run_id, wallet)
        if kind == "new":
            body["reference"] = "ref" + hashlib.sha256(secrets.token_bytes(8)).hexdigest()[:12]
        exchange = self.call("createCollectionAccount", json_body=body)
        # One without a reference is accepted as END-23 says, one with a new reference as END-20 does; the run's own
        # key refused (401) is AUTH-04's matter.
        accepting = contract.KEY_ACCEPTED if exchange.status == 401 else "END-23" if kind == "none" else "END-20"
        self.check(
            checks.accepted,
            exchange,
            requirement=accepting,
            why=f"a collection account for an open wallet ({'without' if kind == 'none' else 'with'} reference)",
        )
        if request_rules.answers_the_destination(exchange):
            note("the answer shows the destination wallet, not a collection account (END-20): its reference unread")
            return
        reference = exchange.data.get("reference") if isinstance(exchange.data, dict) else None
        if kind == "none":
            self.holds(
                "RES-33",
                isinstance(reference, str) and bool(reference),
                "a collection account made without a reference gets a generated one",
                "a generated reference",
                reference,
                exchange,
            )
        self.holds(
            "RES-33" if kind == "none" else "LIM-19",
            reference not in self.context.collection_references,
            "collection references never repeat",
            "a new reference",
            reference,
            exchange,
        )
        if isinstance(reference, str):
            self.context.collection_references.add(reference)
            self.collection_references.append(reference)
            self.holders[reference] = wallet

    @precondition(lambda self: len(self.balances) >= 3 and bool(self.idle()))
    @rule(data=st.data())
    def close(self, data: st.DataObject) -> None:
        """Close an open wallet with nothing pending, keeping at least two open for the money to move between."""
        wallet = data.draw(st.sampled_from(self.idle()), label="wallet")
        exchange = self.call("closeWallet", {"walletId": wallet})
        self.resources.track(exchange)
        if not exchange.ok:
            note(f"closing {wallet} holding {self.balances[wallet]} kobo was refused (allowed: not shown)")
            return
        self.money_out += self.balances.pop(wallet)
        self.primaries.discard(wallet)
        self.closed.add(wallet)

    @precondition(lambda self: bool(self.pending))
    @rule()
    def settle(self) -> None:
        """Wait until every pending transfer settles, then compare the target with the model."""
        for item in list(self.pending):
            final = money.settled_or_none(self.resources, item.reference, must_settle=item.affordable)
            self.calls.append(f"waited for {item.reference} to settle: {final and final.get('status')!r}")
            if final is None:
                continue  # still pending: settlement time is not shown; compared at a later settle
            verified = self.api.exchanges[-1]
            self.pending.remove(item)
            self.settled.append(item)
            completed = final.get("status") == contract.success_state()
            ending = self.ending(item, final) if item.affordable else None if completed else NOTHING_MOVED
            # A transfer that did not complete may show what it charged in the end (fee 0, say): only a completed
            # one's fee and actualAmount must be the accepted ones.
            for name in ("amount", "reference", *(() if ending else ("fee", "actualAmount"))):
                self.check(
                    checks.equals,
                    final.get(name),
                    item.accepted.get(name),
                    requirement="END-28",
                    title=f"verify returns the transfer's {name}",
                    exchange=verified,
                )
            if item.affordable and ending == NOTHING_MOVED:
                self.balances[item.source] += item.actual  # the reservation comes back: nothing moved
            elif item.affordable and ending == FEE_KEPT:
                self.balances[item.source] += item.amount  # the amount comes back, the fee is kept
                self.money_out += item.actual - item.amount
            elif item.affordable:
                self.money_out += item.actual - (item.amount if item.destination in self.balances else 0)
                if item.destination in self.balances:
                    self.balances[item.destination] += item.amount
            self.calls.append(f"{item.reference} ended: {ending or 'completed'}")
            self.touched.update(wallet for wallet in (item.source, item.destination) if wallet)
        self.compare()

    def ending(self, item: Pending, final: dict[str, Any]) -> str | None:
        """How an affordable transfer that left `pending` ended: None when it completed (the observed completed
        status, or another word after which it moved all its money); NOTHING_MOVED when it moved no money, FEE_KEPT when
        its amount came back and its fee was kept. The status words after settlement are not shown, nor what a
        transfer that did not complete does with its fee (a payout may end failed, refunded whole or less its fee).

        When balances show a settlement is not shown either: the source is read until it holds still for
        --quiet-window, so a debit or a refund posted a moment after the status changed is seen. A source that holds
        anything else is judged as completed: its comparison fails where money appeared or vanished.
        """
        if final.get("status") == contract.success_state() or item.source not in self.balances:
            return None
        value = money.balance_or_last(self.resources, item.source, still=True, read=self.balance)
        if value == self.balances[item.source] + item.actual:
            return NOTHING_MOVED
        if item.actual > item.amount and value == self.balances[item.source] + item.amount:
            return FEE_KEPT
        return None

    # ------------------------------------------------------------ the target against the model

    def settled_balances(self, wallets: list[str]) -> dict[str, tuple[Any, Exchange]]:
        """The target's balances of `wallets`, each with the read that showed it; those that differ from the model
        are read again until they agree, within --settle-timeout (when balances show a settled transfer is not
        shown)."""
        seen = {wallet: self.read(wallet) for wallet in wallets}

        def agree() -> bool:
            for wallet in wallets:
                if seen[wallet][0] != self.balances[wallet]:
                    seen[wallet] = self.read(wallet)
            return all(seen[wallet][0] == self.balances[wallet] for wallet in wallets)

        differ = any(seen[wallet][0] != self.balances[wallet] for wallet in wallets)
        if differ and self.context.patient and not poll(agree, self.resources.settings.settle_timeout):
            self.context.patient = False  # a target whose balances never agree is judged at once from now on
        return seen

    def compare(self) -> None:
        """Every quiet wallet holds the model's balance. A wrong one is charged to the movements that touched it since
        it last agreed (`balance_requirement`), shown by its read now, the one that showed it agreeing, and the
        movements' exchanges; the money of the program is conserved when every wallet agrees."""
        quiet = [wallet for wallet in self.balances if not self.pending_on(wallet)]
        seen = self.settled_balances(quiet)
        if not self.pending and self.money_in - self.money_out != sum(self.balances.values()):
            raise SuiteError(
                f"the money model lost track of its own money: it put in {self.money_in} and saw "
                f"{self.money_out} leave, yet its wallets hold {sum(self.balances.values())} "
                f"({self.balances})"
            )
        for wallet, (value, read) in seen.items():
            moves = self.moves.get(wallet, [])
            shown = [self.agreed[wallet], *(move.exchange for move in moves if move.exchange is not None)]
            self.holds(
                balance_requirement(moves),
                value == self.balances[wallet],
                f"the balance of {wallet} after settlement is the model's",
                self.balances[wallet],
                value,
                read,
                also=tuple({id(each): each for each in shown}.values()),
                detail="movements since it last agreed: " + ("; ".join(move.line for move in moves) or "none"),
            )
            self.moves[wallet], self.agreed[wallet] = [], read
        self.compare_list({wallet: value for wallet, (value, _) in seen.items()})

    def compare_list(self, seen: dict[str, Any]) -> None:
        """Every wallet of the program found in the wallet list shows the balance of its single read. How soon a list
        shows a balance is not said (a list may be served from a replica a moment behind): the list is read again
        within --settle-timeout until every entry agrees, and judged on its last reading."""
        walks: list[lists.Listing] = []

        def listed() -> dict[Any, Any]:
            walks.append(lists.walk(self.api, "listWallets", lists.discover(self.api, "listWallets"), lists.LARGE_PAGE))
            self.calls.append(f"read the wallet list: {len(walks[-1].exchanges)} pages")
            return {lists.identity(item): item for item in walks[-1].entries}

        def agrees(entries: dict[Any, Any]) -> bool:
            return all(
                not isinstance(entries.get(wallet), dict) or entries[wallet].get("balance") == value
                for wallet, value in seen.items()
            )

        if not agrees(listed()):
            poll(lambda: agrees(listed()), self.resources.settings.settle_timeout)
        listed_last = {lists.identity(item): item for item in walks[-1].entries}
        for wallet, value in seen.items():
            entry = listed_last.get(wallet)
            if isinstance(entry, dict):
                self.holds(
                    "END-14",
                    entry.get("balance") == value,
                    f"the wallet list shows {wallet} with the balance of its single read, within --settle-timeout",
                    value,
                    entry.get("balance"),
                    walks[-1].exchanges[-1],
                )

    @invariant()
    def nothing_below_zero(self) -> None:
        self.context.steps += 1
        self.step_count += 1
        for wallet in sorted(self.touched):
            if wallet in self.balances:
                value = self.balance(wallet)
                if isinstance(value, int):
                    self.holds(
                        "SVC-27",
                        value >= 0,
                        f"the balance of {wallet} never goes below zero",
                        ">= 0",
                        value,
                        self.api.exchanges[-1],
                    )
        self.touched.clear()

    @invariant()
    def primary_limit_holds(self) -> None:
        if self.primaries:
            self.holds(
                "LIM-01",
                len(self.primaries) <= PRIMARY_LIMIT,
                "no more than five open primary wallets",
                PRIMARY_LIMIT,
                len(self.primaries),
            )

    def teardown(self) -> None:
        """Settle, compare, then close what the program opened (primary places are account-wide).

        A program that already failed is not judged again, only closed: its failure may have left the model halfway
        through a step, and a comparison raised here would replace that failure (and its requirement) in the report.
        """
        try:
            if self.failed:
                return
            if self.pending:
                self.settle()
            if self.listed_before is not None and not self.context.shared_target:
                listed = self.api.call("listWallets")
                total = lists.pagination(listed).get("totalCount") if listed.ok else None
                opened = len(self.balances)
                if isinstance(total, int) and total < self.listed_before + opened:
                    # Fewer than before plus the program's: another client (another run) may have closed wallets
                    # meanwhile. What breaks LIM-21 is a totalCount below the entries the list itself holds.
                    walk = lists.walk(
                        self.api, "listWallets", lists.discover(self.api, "listWallets"), lists.LARGE_PAGE
                    )
                    entries = len({str(lists.identity(entry)) for entry in walk.entries})
                    if walk.total is not None:
                        self.holds(
                            "LIM-21",
                            entries <= walk.total,
                            "the wallet list's totalCount moves with the wallets created",
                            f"at least {entries}, the wallets the list holds (it said {total} before, having "
                            f"held {self.listed_before}, and the program opened {opened})",
                            walk.total,
                            walk.exchanges[0],
                        )
        finally:
            self.context.lengths.append(self.step_count)
            if not (self.failed and self.resources.settings.keep_failing_records):  # else kept, or closed by the sweep
                for wallet in list(self.balances):
                    self.resources.close_wallet(wallet)


def factory(context: Context) -> Callable[[], MoneyMachine]:
    """What `run_state_machine_as_test` calls for each program: a new machine bound to the test's context."""

    def money_machine() -> MoneyMachine:
        return MoneyMachine(context)

    return money_machine
