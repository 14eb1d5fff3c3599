"""--har: conformance from recorded traffic. No target is started, no preflight made, no test collected: the
recorded exchanges are read one at a time (client/har.py) and held to the same exchange judge and registry of
records an active run feeds (plugin/exchange_judging.py), whose findings become the same records
(`exchange-judge::REQ[operation]`, `records::REQ[operation]`), each failure's evidence naming the file and the entry.

A requirement the judges stand for (judge/traffic.py) passes when some recorded exchange was held to it and none
broke it; one they do not stand for is untested: it needs an active run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from wallet_conformance.client import har
from wallet_conformance.client.redaction import redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.traffic import NEEDS_AN_ACTIVE_RUN, judged_from_traffic, put_to_the_test
from wallet_conformance.plugin import exchange_judging
from wallet_conformance.plugin.state import NotRun, is_worker, state
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue

NODEID = "har::{requirement}[{operation}]"
UNMATCHED_SHOWN = 20  # entries of no operation listed by name in the report (all are counted)


@dataclass
class Traffic:
    """What the recorded files held: per operation the exchanges seen and judged, the entries of no operation."""

    files: list[str]
    base_url: str | None  # None: no entry is under a base address ending in the version segment
    entries: int = 0
    outside: int = 0  # entries not under the base URL
    operations: dict[str, dict[str, int]] = field(default_factory=dict)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    unmatched_count: int = 0
    held: dict[tuple[str, str], int] = field(default_factory=dict)  # (requirement, operation) -> exchanges held

    def count(self, recorded: har.Recorded, held: set[str]) -> None:
        exchange = recorded.exchange
        self.entries += 1
        if exchange is None:
            self.outside += 1
            return
        operation = exchange.operation_id
        if operation is None:
            self.unmatched_count += 1
            if len(self.unmatched) < UNMATCHED_SHOWN:
                self.unmatched.append({"file": str(recorded.file), "entry": recorded.index,
                                       "request": recorded.request, "status": exchange.status})
            return
        row = self.operations.setdefault(operation, {"exchanges": 0, "judged": 0, "2xx": 0, "4xx": 0, "5xx": 0,
                                                     "other": 0})
        row["exchanges"] += 1
        row["judged"] += bool(held)
        kind = f"{exchange.status // 100}xx"
        row[kind if kind in row else "other"] += 1
        for requirement in held:
            self.held[(requirement, operation)] = self.held.get((requirement, operation), 0) + 1

    def report(self) -> dict[str, Any]:
        """The report's `traffic` section: operations × exchanges seen, in openapi.yaml's order."""
        order = list(contract.operations())
        return {"files": self.files, "base_url": self.base_url, "entries": self.entries, "outside": self.outside,
                "operations": {name: self.operations[name] for name in order if name in self.operations},
                "unmatched": {"count": self.unmatched_count, "shown": self.unmatched}}


def _base_url(settings: Settings) -> str | None:
    """The target's base address: --base-url, else the one `/v1` origin of the entries (None when they have none:
    nothing is judged; refused when they have several)."""
    found = har.bases(settings.har)
    if settings.base_url:
        return settings.base_url
    if len(found) <= 1:
        return next(iter(found), None)
    listing = ", ".join(f"{base} ({count} entries)" for base, count in sorted(found.items()))
    raise har.HarError(f"the recorded entries are under more than one base address: {listing}; choose the "
                       "target's with --base-url")


def judge_traffic(settings: Settings) -> tuple[list[TestRecord], Traffic, dict[str, Any]]:
    """The records of the recorded exchanges (failures of the judges, passes of what they held), what the traffic
    held, and the exchange counts. Every file is read through once before any is judged: a file that is not a HAR
    stops the run before anything is reported."""
    base_url = _base_url(settings)
    traffic = Traffic([str(path) for path in settings.har], redact(base_url) if base_url else None)
    judged = exchange_judging.Judged()
    for recorded in har.recorded(settings.har, base_url):
        held: set[str] = set()
        if recorded.exchange is not None and recorded.exchange.operation_id is not None:
            judged.current = f"{recorded.file} entry {recorded.index}"
            held = put_to_the_test(recorded.exchange)
            judged.take(recorded.exchange)
        traffic.count(recorded, held)
    properties = dict(judged.properties())
    records: dict[str, TestRecord] = {}
    exchange_judging.merge(records, properties.get(exchange_judging.FINDINGS, []))
    for (requirement, operation), count in sorted(traffic.held.items()):
        nodeid = NODEID.format(requirement=requirement, operation=operation)
        records[nodeid] = TestRecord(nodeid=nodeid, requirements=(requirement,),
                                     message=f"{count} recorded exchange(s) of {operation} held to it")
    counts = exchange_judging.add_counts({}, properties.get(exchange_judging.COUNTS, {}))
    return list(records.values()), traffic, counts


def untested_reasons() -> dict[str, str]:
    """Why a requirement no recorded exchange judged is untested: it needs an active run, or the traffic showed
    none of the exchanges its rules judge."""
    judgeable = judged_from_traffic()
    reasons = {}
    for requirement in catalogue():
        if requirement.id not in judgeable:
            reasons[requirement.id] = NEEDS_AN_ACTIVE_RUN
        else:
            reasons[requirement.id] = (f"the recorded traffic showed no exchange it judges (judged by "
                                       f"{', '.join(judgeable[requirement.id])})")
    return reasons


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> bool | None:
    """Passive: nothing is collected, no test runs."""
    if not state(session.config).settings.passive:
        return None
    session.items = []
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """Passive: the recorded traffic judged, its records handed to the reports (plugin/recording.py)."""
    run = state(session.config)
    if not run.settings.passive or is_worker(session.config):
        return None
    try:
        records, traffic, counts = judge_traffic(run.settings)
    except har.HarError as error:
        run.not_run = NotRun(redact(str(error)), ExitStatus.CANNOT_RUN)
        return True
    run.records.update((record.nodeid, record) for record in records)
    run.exchanges = counts
    run.traffic = traffic.report()
    run.untested = untested_reasons()
    return True
