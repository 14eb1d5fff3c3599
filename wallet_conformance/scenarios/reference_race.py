"""A race for collection references (LIM-19): REFERENCES new references, each sent by several of the requests of one
release (`concurrency.release`); the requests sharing a reference may open at most one collection account between
them (the document makes a reference unique; it does not say a replay of the same request is refused, so several
answers showing the one account opened pass).

Several references share one release because the race for a single one is decided by its first two requests alone:
a target that handles the first before the second arrives never shows the race, however many follow.
"""

from __future__ import annotations

from dataclasses import dataclass

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import request_rules
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import bodies
from wallet_conformance.world.concurrency import release

REFERENCES = 4  # references raced for in one release (each collection account the target opens lives 10 minutes)
REFERENCE_TAIL = 12  # characters of the random part of a raced reference, after the run id


def account_of(exchange: Exchange) -> object:
    """Which collection account an accepted creation answered: its publicId, else its accountNumber; an answer
    showing neither counts as an account of its own."""
    data = exchange.data if isinstance(exchange.data, dict) else {}
    for field in ("publicId", "accountNumber"):
        if isinstance(data.get(field), str):
            return (field, data[field])
    return id(exchange)


@dataclass(frozen=True)
class ReferenceRace:
    """`exchanges`: creations of a collection account released together, request `number` with
    `references[number % len(references)]`."""

    references: tuple[str, ...]
    exchanges: list[Exchange]

    @classmethod
    def fire(cls, api: ApiClient, run_id: str, destination: str, requests: int) -> ReferenceRace:
        """Release `requests` creations of a collection account into `destination`, REFERENCES new references each
        sent by as many of them.

        The test cannot judge a race the target accepted none of: no reference was taken, so none was taken twice.
        """
        references = tuple(f"{run_id}-{bodies.collection_reference(REFERENCE_TAIL)}" for _ in range(REFERENCES))
        created = [bodies.collection_account(run_id, destination, reference=reference) for reference in references]

        def send(number: int) -> Exchange:
            return api.call("createCollectionAccount", json_body=created[number % len(created)])

        race = cls(references, release(api, send, requests))
        if not any(exchange.ok for exchange in race.exchanges):
            raise CannotJudge(
                f"none of the {requests} collection accounts asked for at once was created (statuses "
                f"{sorted({e.status for e in race.exchanges})}): no concurrent use of a reference to "
                "check"
            )
        return race

    def reference_of(self, number: int) -> str:
        """The reference request `number` was sent with."""
        return self.references[number % len(self.references)]

    def accepted_twice(self) -> list[tuple[str, list[Exchange]]]:
        """Each reference more than one collection account was opened with, and one accepted exchange per account
        opened (an accepted request whose account shows another reference did not take the one sent: RES-32's
        matter). Accepted requests answering one account opened one: a target may answer a replay of the same
        request with the account it opened for the first (`account_of`)."""
        opened: dict[str, dict[object, Exchange]] = {}
        for number, exchange in enumerate(self.exchanges):
            if exchange.ok and request_rules.takes_the_reference(exchange):
                accounts = opened.setdefault(self.reference_of(number), {})
                accounts.setdefault(account_of(exchange), exchange)
        return [(reference, list(accounts.values())) for reference, accounts in opened.items() if len(accounts) > 1]

    @property
    def summary(self) -> str:
        """The race in one line, for a failure's detail."""
        sent, accepted = len(self.exchanges), sum(exchange.ok for exchange in self.exchanges)
        return (
            f"{sent} collection accounts asked for at once, {sent // len(self.references)} with each of "
            f"{len(self.references)} new references; {accepted} were created"
        )
