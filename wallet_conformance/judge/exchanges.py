"""The exchange judge: every rule one answer can break (the registry, judge/rules.py), run on any exchange of the
run, whatever made it: a test, a fixture, a setup read, a paging walk, the cleanup.

A pure function of one exchange, with no pytest inside: the plugin feeds it every exchange the run's clients make
(judge/session.py's ExchangeJudge), and the same function can judge exchanges recorded elsewhere.

An exchange is judged when it is a request of an operation of the contract and got a whole answer: a request that
got no answer (status 0), or whose body the client cut at its cap, shows nothing a rule can judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.failures import ConformanceFailure
from wallet_conformance.judge.rules import held_and_broken
from wallet_conformance.spec import contract

JUDGE = "exchange-judge"  # names the exchange judge's findings (their run records: `exchange-judge::REQ[op]`)


@dataclass(frozen=True)
class Finding:
    """One rule one exchange broke: the rule's name, the requirement it holds on that operation, the failure, and
    which judge found it (it names the finding's run record: `exchange-judge::REQ[operation]`)."""

    rule: str
    requirement: str
    operation_id: str
    failure: ConformanceFailure
    by: str = JUDGE


def judgeable(exchange: Exchange) -> bool:
    """Whether the exchange is a request of an operation of the contract (its method) and got a whole answer."""
    operation = contract.operations().get(exchange.operation_id or "")
    return (
        operation is not None
        and exchange.method.upper() == operation.method  # openapi.yaml's, upper case (contract.operations)
        and exchange.status >= 100
        and not exchange.truncated
    )


def findings_of(exchange: Exchange, withheld: frozenset[str] = frozenset()) -> list[Finding]:
    """Every rule of the registry that judges this exchange and that it breaks ([] when it keeps them all, or
    cannot be judged). `withheld`: the places where the answer shows another account's wallet, which may be null,
    absent or masked there (the registry of records names them, `RecordRegistry.withheld`)."""
    return held_to(exchange, withheld)[1]


def held_to(exchange: Exchange, withheld: frozenset[str] = frozenset()) -> tuple[set[str], list[Finding]]:
    """The requirements a rule of the registry held on this exchange, and every rule it broke (`findings_of`);
    nothing for an exchange that cannot be judged."""
    if not judgeable(exchange):
        return set(), []
    held, broken = held_and_broken(exchange, withheld)
    assert exchange.operation_id is not None  # judgeable: an operation's exchange
    return (
        {requirement for _, requirement in held},
        [Finding(rule.name, requirement, exchange.operation_id, failure) for rule, requirement, failure in broken],
    )
