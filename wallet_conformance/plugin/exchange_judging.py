"""Every exchange of the run judged (judge/exchanges.py), whatever made it: a test, a fixture, a setup read, a paging
walk, the cleanup at the end of the run; and held, with the exchanges before it, to the invariants between answers
(judge/record_registry.py: one identifier, one record; one record, one identity).

Each process judges its clients' exchanges as they are made (an xdist worker those of its own tests: the registry
of records compares the answers one process saw). What each phase of a test (setup, call, teardown) found rides on
that phase's report to the controlling process, which keeps one record per requirement and operation broken
(`exchange-judge::REQ[operation]`, and `records::REQ[operation]` for the registry's findings): the number of
exchanges that broke it, the test during which it was first seen, and that exchange as evidence. A test's teardown
report is made after the fixtures it ends, the last test's after the run's cleanup, so no exchange goes unreported.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pytest

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge.exchanges import judge, judgeable
from wallet_conformance.judge.record_registry import RecordRegistry
from wallet_conformance.reporting import evidence
from wallet_conformance.reporting.results import TestRecord

FINDINGS = "exchange_findings"
COUNTS = "exchanges_judged"
NODEID = "{by}::{requirement}[{operation}]"
JUDGED = pytest.StashKey["Judged"]()


@dataclass
class Judged:
    """One process's judge of its exchanges: what it found since the last report, and how many it saw."""

    records: RecordRegistry = field(default_factory=RecordRegistry)  # every record this process's exchanges showed

    current: str = "the run's setup"  # the test whose phase is running, named in a new finding
    made: int = 0
    judged: int = 0
    errors: int = 0  # exchanges the judge itself failed on (a bug of the suite: counted, shown in the report)
    first_error: str | None = None
    pending: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    _seen: set[tuple[str, str, str]] = field(default_factory=set)
    _counted: tuple[int, int, int] = (0, 0, 0)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # the end-of-run sweep sends from threads

    def take(self, exchange: Exchange) -> None:
        """Judge one exchange, and hold it to the records seen before it; keep what it broke, once per judge,
        requirement and operation with a count."""
        try:
            with self._lock:  # the registry is one state, and the end-of-run sweep sends from threads
                withheld = self.records.withheld(exchange)
            findings = judge(exchange, withheld)
            with self._lock:
                findings += self.records.see(exchange, self.current)
        except Exception as error:  # the judge's own bug must not stop the test that made the exchange
            with self._lock:
                self.errors += 1
                self.first_error = self.first_error or f"{exchange.operation_id}: {type(error).__name__}: {error}"
            return
        with self._lock:
            self.made += 1
            self.judged += judgeable(exchange)
            for finding in findings:
                key = (finding.by, finding.requirement, finding.operation_id)
                entry = self.pending.setdefault(key, {"by": finding.by, "requirement": finding.requirement,
                                                      "operation": finding.operation_id, "count": 0})
                entry["count"] += 1
                if key not in self._seen:
                    self._seen.add(key)
                    entry.update(rule=finding.rule, seen_in=self.current,
                                 evidence=evidence.error_evidence(finding.failure))

    def properties(self) -> list[tuple[str, Any]]:
        """What was found and counted since the last report, as report properties (none when nothing was)."""
        with self._lock:
            found, self.pending = list(self.pending.values()), {}
            made, judged, errors = self._counted
            counts = {"made": self.made - made, "judged": self.judged - judged, "judge_errors": self.errors - errors}
            self._counted = (self.made, self.judged, self.errors)
        if counts["judge_errors"]:
            counts["first_judge_error"] = self.first_error
        return ([(FINDINGS, found)] if found else []) + ([(COUNTS, counts)] if any(counts.values()) else [])


def add_counts(total: dict[str, Any], counts: dict[str, Any]) -> dict[str, Any]:
    """The run's exchange counts with one report's added."""
    added = {name: total.get(name, 0) + counts.get(name, 0) for name in ("made", "judged", "judge_errors")}
    first = total.get("first_judge_error") or counts.get("first_judge_error")
    return {**added, **({"first_judge_error": first} if first else {})}


def judged(config: pytest.Config) -> Judged:
    """This process's judge of exchanges."""
    if JUDGED not in config.stash:
        config.stash[JUDGED] = Judged()
    return config.stash[JUDGED]


def merge(records: dict[str, TestRecord], findings: list[dict[str, Any]]) -> None:
    """Add what a report carried to the run's records: one failed record per requirement and operation broken, its
    evidence the first exchange that broke it, with the rule, the test it was seen in and the count so far."""
    for finding in findings:
        requirement = finding["requirement"]
        nodeid = NODEID.format(by=finding.get("by", "exchange-judge"), requirement=requirement,
                               operation=finding["operation"])
        record = records.get(nodeid)
        if record is None:
            record = records[nodeid] = TestRecord(nodeid=nodeid, requirements=(requirement,), outcome="failed",
                                                  failed_requirements=(requirement,))
        if not record.evidence:  # each process sends the evidence with its first finding of a requirement
            record.evidence = [{**finding["evidence"], "requirement": requirement, "rule": finding["rule"],
                                "first_seen_in": finding["seen_in"], "exchanges": 0}]
        first = record.evidence[0]
        first["exchanges"] += finding["count"]
        record.message = (f"{first['exchanges']} exchange(s) of {finding['operation']} broke the rule "
                          f"{first.get('rule', '?')!r} ({requirement}), first seen during "
                          f"{first.get('first_seen_in', '?')}: {first['title']}")
