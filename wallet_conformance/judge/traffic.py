"""What recorded traffic can judge, derived from the judges themselves: a requirement is judged from recorded
exchanges when a rule of the exchange judge (judge/rules.py) or an invariant of the registry of records
(judge/record_registry.py) stands for it. Every other requirement needs an active run: its test makes the exchanges
it needs (a sixth primary wallet, a request without the key, a transfer and its settlement) and judges what the
target did with them, which no recording of someone else's traffic is sure to show.
"""

from __future__ import annotations

from functools import cache

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import rules
from wallet_conformance.judge.exchanges import judgeable
from wallet_conformance.judge.record_registry import INVARIANTS, shows_records
from wallet_conformance.spec.catalogue import catalogue

NEEDS_AN_ACTIVE_RUN = "needs an active run"


@cache
def judged_from_traffic() -> dict[str, tuple[str, ...]]:
    """Every requirement recorded traffic can judge, with the rules and invariants that stand for it (in the
    catalogue's order)."""
    standing: dict[str, list[str]] = {}
    for rule in rules.RULES:
        for requirement in rule.requirements:
            standing.setdefault(requirement, []).append(rule.name)
    for requirement, invariant in INVARIANTS.items():
        standing.setdefault(requirement, []).append(invariant)
    return {
        requirement.id: tuple(dict.fromkeys(standing[requirement.id]))
        for requirement in catalogue()
        if requirement.id in standing
    }


@cache
def _invariants_of(operation_id: str) -> frozenset[str]:
    """The invariants whose scope takes in the operation."""
    return frozenset(
        requirement
        for requirement in INVARIANTS
        if "all" in (scope := catalogue()[requirement].operations) or operation_id in scope
    )


def invariants_taking(exchange: Exchange, compared: frozenset[str]) -> frozenset[str]:
    """The invariants between answers (judge/record_registry.py) one exchange is held to: of those whose scope takes
    the operation of an exchange that shows records (none for one that cannot be judged), the ones under which the
    registry `compared` it with an earlier answer (RecordRegistry.held). An exchange showing records no earlier
    answer showed is held to none: a requirement no exchange was compared under stays untested."""
    if not judgeable(exchange) or not shows_records(exchange):
        return frozenset()
    return _invariants_of(str(exchange.operation_id)) & compared
