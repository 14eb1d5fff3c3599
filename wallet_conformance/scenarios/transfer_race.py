"""A race of transfers (SVC-28): transfers of the minimum released at once from one funded wallet
(`concurrency.release`), wallet transfers to one new wallet or bank transfers to the external account, which together
exceed what the source holds, and what the target made of them once they ended.

What one such transfer moves is measured first, alone (`Alone`): the race is judged against it, so that a transfer
that moves the wrong money even alone fails its own requirement (SVC-25, SVC-26) and not the race's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import balances
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, money
from wallet_conformance.world.concurrency import release
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources


@dataclass(frozen=True)
class Alone:
    """What one transfer of the minimum moves when nothing races it: taken from its source, given its destination
    (None for a bank transfer)."""

    taken: int
    given: int | None

    @classmethod
    def measured(cls, resources: Resources, operation_id: str) -> Alone:
        """One transfer from a new funded wallet, once it left `pending`: what it moved. One that moved nothing (it
        ended another way) counts as what its answer says it moves (actualAmount, amount)."""
        amount = contract.minimum_amount(operation_id)
        source = resources.funded_wallet(money.funding(operation_id))["publicId"]
        source_before = resources.balance(source)
        if operation_id == "transfer":
            destination = resources.wallet()["publicId"]
            destination_before = resources.balance(destination)
            exchange = resources.api.call("transfer", json_body=bodies.transfer(source, destination, amount))
        else:
            exchange = resources.api.call(
                "bankTransfer", json_body=bodies.bank_transfer(source, *resources.external_account(), amount)
            )
        data = money.accepted_transfer(exchange, f"make a {operation_id} alone")
        done = money.settled_or_skip(resources, data["reference"])
        taken = source_before - money.balance_or_last(resources, source, moved_from=source_before, after=done)
        given = None
        if operation_id == "transfer":
            after = money.balance_or_last(resources, destination, moved_from=destination_before, after=done)
            given = after - destination_before
        if not taken and not given:
            return cls(money.amount_of(data, "actualAmount", exchange), None if given is None else amount)
        return cls(taken, given)


@dataclass(frozen=True)
class Ending:
    """A race once every accepted transfer left `pending`: each as a `balances.Movement`, and the balances then, with
    the reads that showed them and those before the race (the states a check compares)."""

    movements: list[balances.Movement]
    source: int
    destination: int | None  # None for bank transfers: their destination is outside the service
    taken: int
    given: int | None
    reads: tuple[Exchange, ...]  # the source's read now, then the destination's now and both before the race


@dataclass(frozen=True)
class TransferRace:
    """Transfers (`operation_id`) of `amount` kobo from `source` (which held `funded`) to `destination` (a wallet, or
    None for bank transfers), sent together; `exchanges` in the order they were fired."""

    resources: Resources
    operation_id: str
    source: str
    destination: str | None
    amount: int
    funded: int
    destination_before: int | None
    before: tuple[Exchange, ...]  # the reads that showed the source funded and the destination before the race
    exchanges: list[Exchange]

    @classmethod
    def fire(
        cls, resources: Resources, transfers: int, funded_shares: int, operation_id: str = "transfer"
    ) -> TransferRace:
        """Fund a new source with `funded_shares` minimum transfers and room for one fee (`money.funding`: the document
        bounds no fee), then release `transfers` of them at once, to a new wallet or to the external account
        (`concurrency.release`).

        The test cannot judge a race the target accepted none of: nothing moved, so nothing could overdraw.
        """
        amount = contract.minimum_amount(operation_id)
        source = resources.funded_wallet(amount * (funded_shares - 1) + money.funding(operation_id))["publicId"]
        funded = resources.balance(source)
        before = [resources.last_read(source)]
        destination, destination_before = None, None
        if operation_id == "transfer":
            destination = resources.wallet()["publicId"]
            destination_before = resources.balance(destination)
            before.append(resources.last_read(destination))
        else:
            number, code = resources.external_account()

        def send(number_sent: int) -> Exchange:
            narration = f"{resources.run_id} concurrent {number_sent}"
            if destination is not None:
                return resources.api.call(
                    "transfer", json_body=bodies.transfer(source, destination, amount, narration=narration)
                )
            body = bodies.bank_transfer(source, number, code, amount, narration=narration)
            return resources.api.call("bankTransfer", json_body=body)

        race = cls(
            resources,
            operation_id,
            source,
            destination,
            amount,
            funded,
            destination_before,
            tuple(read for read in before if read is not None),
            release(resources.api, send, transfers),
        )
        if not race.accepted:
            raise CannotJudge(
                f"none of the {transfers} concurrent {operation_id}s of {amount} kobo was accepted "
                f"(statuses {sorted({exchange.status for exchange in race.exchanges})}): no concurrent "
                "debit to check"
            )
        return race

    @property
    def accepted(self) -> list[Exchange]:
        """The transfers the target accepted (a 2xx)."""
        return [exchange for exchange in self.exchanges if exchange.ok]

    @property
    def summary(self) -> str:
        """The race in one line, for a failure's detail."""
        return (
            f"{len(self.accepted)} of {len(self.exchanges)} concurrent {self.operation_id}s of {self.amount} kobo "
            f"were accepted from a wallet holding {self.funded}"
        )

    def shown_balances(self) -> list[tuple[Any, Exchange]]:
        """The balance each accepted transfer's response shows, with its exchange (an accepted transfer without a
        transaction reference is a setup error)."""
        return [
            (money.accepted_transfer(exchange, "read an accepted concurrent transfer").get("balance"), exchange)
            for exchange in self.accepted
        ]

    def ended(self, alone: Alone) -> Ending:
        """The race once every accepted transfer has ended, each completed one expected to move what one transfer
        `alone` moves.

        Each is waited for until it leaves `pending`; the test cannot judge while one is still pending after
        --settle-timeout (an overdraft accepted to fail later need never leave it). Then the balances are read until
        they show what the transfers can leave (`balances.conserved`; when balances show a settled transfer is not
        shown), or --settle-timeout passes and the last reads are taken. When a status other than the observed
        completed one leaves open whether a transfer moved money, the balances must also have held still for
        --quiet-window: a debit posted a moment after the status changed would otherwise pass for none.
        """
        movements = []
        for exchange in self.accepted:
            reference = money.accepted_transfer(exchange, "read an accepted concurrent transfer")["reference"]
            done = money.settled_or_none(self.resources, reference, must_settle=False)
            if done is None:
                raise CannotJudge(
                    f"transaction {reference} was still pending after --settle-timeout "
                    f"({self.resources.settings.settle_timeout:g} s): the balances cannot be judged yet"
                )
            completed = done.get("status") == contract.success_state()
            movements.append(balances.Movement(alone.given or 0, alone.taken, completed))
        outcomes = balances.conserved(movements)

        def read() -> Ending:
            source = self.resources.balance(self.source)
            reads = [self.resources.last_read(self.source)]
            destination = given = None
            if self.destination is not None and self.destination_before is not None:
                destination = self.resources.balance(self.destination)
                reads.append(self.resources.last_read(self.destination))
                given = destination - self.destination_before
            shown = tuple(each for each in (*reads, *self.before) if each is not None)
            return Ending(movements, source, destination, self.funded - source, given, shown)

        def conserved() -> Ending | None:
            ending = read()
            if ending.given is None:
                return ending if ending.taken in {taken for taken, _ in outcomes} else None
            return ending if (ending.taken, ending.given) in outcomes else None

        if all(movement.completed for movement in movements):
            return poll(conserved, self.resources.settings.settle_timeout) or read()
        money.balance_or_last(self.resources, self.source, still=True)
        if self.destination is not None:
            money.balance_or_last(self.resources, self.destination, still=True)
        return poll(conserved, self.resources.settings.settle_timeout) or read()
