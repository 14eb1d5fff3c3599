"""Checks of a balance against the money that moved: never below zero, what debits that may each complete or fail can
leave of a funding, and that transfers which completed moved exactly their money (SVC-27, SVC-28). The checks follow
the convention of checks.py."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge.checks import fail
from wallet_conformance.judge.failures import CannotJudge, check


@check
def not_below_zero(
    balance: Any,
    title: str,
    exchange: Exchange | None = None,
    *,
    detail: str | None = None,
    requirement: str | None = None,
) -> None:
    """A balance the target shows, when it is an integer, is 0 or more (any other value is another check's)."""
    if type(balance) is int and balance < 0:
        fail(title, ">= 0", balance, exchange, detail=detail, requirement=requirement)


@check
def none_below_zero(
    shown: Iterable[tuple[Any, Exchange]], title: str, *, detail: str | None = None, requirement: str | None = None
) -> None:
    """Every balance shown, each with the exchange that showed it, is 0 or more (`not_below_zero`)."""
    for balance, exchange in shown:
        not_below_zero(balance, title, exchange, detail=detail, requirement=requirement)


def reachable(funded: int, debits: list[int]) -> set[int]:
    """The balances a wallet holding `funded` can end at when some of `debits` complete and the others move
    nothing (any of them, none or all), leaving out those below zero."""
    sums = {0}
    for debit in debits:  # the sums of every choice of debits, built one debit at a time (tens race at once)
        sums |= {total + debit for total in sums}
    return {funded - total for total in sums if funded - total >= 0}


@check
def funding_less_some_debits(
    final: int,
    funded: int,
    debits: list[int],
    exchange: Exchange,
    *,
    detail: str | None = None,
    requirement: str | None = None,
) -> None:
    """Passes when the final balance is the funding less the actualAmount of some of the accepted transfers
    (`debits`: any of them, the others failed moving nothing), never below zero.

    Fails when the final balance is below zero, or any other value. Cannot judge when it is the funding itself:
    none of the accepted transfers completed, so nothing shows how the target debits them.
    """
    detail = ", ".join(part for part in (detail, f"actualAmount {debits} ({sum(debits)} kobo in all)") if part)
    not_below_zero(final, "the source balance never goes below zero", exchange, detail=detail, requirement=requirement)
    possible = reachable(funded, debits)
    if final == funded and funded in possible:
        raise CannotJudge(
            f"none of the {len(debits)} accepted transfers completed (the balance stayed {funded}): no debit to check"
        )
    if final not in possible:
        fail(
            "after settlement the source holds its funding minus the actualAmount of the accepted transfers that "
            "completed, never below zero",
            f"one of {sorted(possible)}",
            final,
            exchange,
            detail=detail,
            requirement=requirement,
        )


@dataclass(frozen=True)
class Movement:
    """An accepted transfer once it left `pending`: the amount it gives its destination, the actualAmount it takes
    from its source, and whether its status is the observed completed one (`completed`). The status words after
    settlement are not shown: one that ended with another word may have moved its money or nothing."""

    amount: int
    actual: int
    completed: bool


def conserved(movements: list[Movement]) -> set[tuple[int, int]]:
    """What the movements can have taken from their source and given their destination, as (taken, given): every
    completed one moved its actualAmount out and its amount in; each of the others moved that, or nothing."""
    done = [movement for movement in movements if movement.completed]
    outcomes = {(sum(movement.actual for movement in done), sum(movement.amount for movement in done))}
    for movement in movements:
        if not movement.completed:  # tens race at once: the pairs stay few, built one movement at a time
            outcomes |= {(taken + movement.actual, given + movement.amount) for taken, given in outcomes}
    return outcomes


@check
def movements_conserved(
    taken: int,
    given: int | None,
    movements: list[Movement],
    exchange: Exchange,
    *,
    also: tuple[Exchange, ...] = (),
    detail: str | None = None,
    requirement: str | None = None,
) -> None:
    """The source lost exactly the actualAmount of the transfers that completed and the destination gained exactly
    their amount (`given` None: the destination is outside the service, a bank account); one that did not complete
    moved nothing. `exchange` shows the source as judged, `also` the other states it is compared with."""
    outcomes = conserved(movements)
    if given is None:
        possible: set[Any] = {out for out, _ in outcomes}
        seen: Any = taken
    else:
        possible, seen = outcomes, (taken, given)
    if seen in possible:
        return
    completed = sum(movement.completed for movement in movements)
    shown = sorted(possible)[:10]
    fail(
        "every accepted transfer that completed moved its money and no more: the source lost their actualAmount, the "
        "destination gained their amount, and one that did not complete moved nothing",
        f"{'(taken, given) ' if given is not None else 'taken '}one of {shown}"
        f"{' ...' if len(possible) > 10 else ''} ({completed} of {len(movements)} show the completed status)",
        f"taken {taken}" + (f", given {given}" if given is not None else ""),
        exchange,
        also=also,
        detail=detail,
        requirement=requirement,
    )
