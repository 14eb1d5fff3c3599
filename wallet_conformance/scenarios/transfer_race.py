"""A race of transfers (SVC-28): transfers of the minimum released at once from one funded wallet
(`concurrency.release`), which together exceed what it holds, and what the target made of them once they ended."""

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
class TransferRace:
    """Transfers of `amount` kobo from `source` (which held `funded`) to `destination`, sent together; `exchanges`
    in the order they were fired."""

    resources: Resources
    source: str
    destination: str
    amount: int
    funded: int
    exchanges: list[Exchange]

    @classmethod
    def fire(cls, resources: Resources, transfers: int, funded_shares: int) -> TransferRace:
        """Fund a new source with `funded_shares` minimum transfers, then release `transfers` of them at once to a new
        destination (`concurrency.release`).

        The test cannot judge a race the target accepted none of: nothing moved, so nothing could overdraw.
        """
        amount = contract.minimum_amount("transfer")
        source = resources.funded_wallet(amount * funded_shares)["publicId"]
        destination = resources.wallet()["publicId"]
        funded = resources.balance(source)

        def send(number: int) -> Exchange:
            body = bodies.transfer(source, destination, amount, narration=f"{resources.run_id} concurrent {number}")
            return resources.api.call("transfer", json_body=body)

        race = cls(resources, source, destination, amount, funded, release(resources.api, send, transfers))
        if not race.accepted:
            raise CannotJudge(f"none of the {transfers} concurrent transfers of {amount} kobo was accepted (statuses "
                              f"{sorted({exchange.status for exchange in race.exchanges})}): no concurrent debit to "
                              "check")
        return race

    @property
    def accepted(self) -> list[Exchange]:
        """The transfers the target accepted (a 2xx)."""
        return [exchange for exchange in self.exchanges if exchange.ok]

    @property
    def summary(self) -> str:
        """The race in one line, for a failure's detail."""
        return (f"{len(self.accepted)} of {len(self.exchanges)} concurrent transfers of {self.amount} kobo were "
                f"accepted from a wallet holding {self.funded}")

    def shown_balances(self) -> list[tuple[Any, Exchange]]:
        """The balance each accepted transfer's response shows, with its exchange (an accepted transfer without a
        transaction reference is a setup error)."""
        return [(money.accepted_transfer(exchange, "read an accepted concurrent transfer").get("balance"), exchange)
                for exchange in self.accepted]

    def actual_amounts(self) -> list[int]:
        """The actualAmount of each accepted transfer: what it debits if it completes (an integer of kobo)."""
        return [money.amount_of(exchange.data, "actualAmount", exchange) for exchange in self.accepted]

    def final_balance(self) -> int:
        """The source's balance once every accepted transfer has ended.

        Each is waited for until it leaves `pending`; the test cannot judge while one is still pending after
        --settle-timeout (an overdraft accepted to fail later need never leave it). Then the balance is read until
        it is one the accepted transfers can leave (`balances.reachable`: when balances show a settled transfer is
        not shown), or --settle-timeout passes and the last read is taken.
        """
        possible = balances.reachable(self.funded, self.actual_amounts())
        for exchange in self.accepted:
            reference = money.accepted_transfer(exchange, "read an accepted concurrent transfer")["reference"]
            if money.wait_settled(self.resources, reference, must_settle=False) is None:
                raise CannotJudge(f"transaction {reference} was still pending after --settle-timeout "
                                  f"({self.resources.settings.settle_timeout:g} s): the final balance cannot be read "
                                  "yet")
        reached = poll(lambda: [balance] if (balance := self.resources.balance(self.source)) in possible else None,
                       self.resources.settings.settle_timeout)
        return reached[0] if reached else self.resources.balance(self.source)
