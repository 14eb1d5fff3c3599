"""The judging core, without pytest: exchanges made by anything (the suite's client, a HAR file, an httpx response)
judged by the exchange judge (judge/exchanges.py) and held to the registry of records (judge/record_registry.py),
then turned into per-requirement verdicts and the reports.

    from wallet_conformance.client import har
    from wallet_conformance.reporting.judging import JudgingSession
    from wallet_conformance.reporting.verdicts import Verdict

    session = JudgingSession("https://staging.example.com/v1")
    for response in responses:                                   # httpx.Response objects, read
        session.judge(har.from_httpx(response, session.base_url))
    report = session.report()                                    # conformance.json's content
    print(report["outcome"]["verdict"], [e["id"] for e in report["requirements"] if e["verdict"] == Verdict.FAIL])
    session.write(Path("reports"))                               # conformance.json, .md, .html, junit.xml

The suite's active runs feed the same `Judged` from their clients (plugin/exchange_judging.py); `--har` is a
JudgingSession over the recorded entries (plugin/passive.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wallet_conformance.client import har
from wallet_conformance.client.api import Exchange
from wallet_conformance.client.redaction import redact
from wallet_conformance.judge.exchanges import held_to, judgeable
from wallet_conformance.judge.record_registry import RecordRegistry
from wallet_conformance.judge.traffic import NEEDS_AN_ACTIVE_RUN, invariants_taking, judged_from_traffic
from wallet_conformance.reporting import evidence, gating
from wallet_conformance.reporting.conformance import build_report, run_inputs
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue

NODEID = "{by}::{requirement}[{operation}]"  # a judge's record of a requirement broken by some exchange
HELD_NODEID = "har::{requirement}[{operation}]"  # a requirement recorded exchanges were held to
UNMATCHED_SHOWN = 20  # exchanges of no operation listed by name in the report (all are counted)


@dataclass
class Found:
    """A requirement that one operation's exchanges broke, as one judge counted it since it was last asked; the first
    time it is told, it also carries the rule, where it was first seen and the exchange that broke it, as evidence."""

    by: str  # the judge: exchange-judge, or records (the registry of records)
    requirement: str
    operation: str
    count: int = 0
    rule: str | None = None
    seen_in: str | None = None
    evidence: dict[str, Any] | None = None
    replay: str | None = None  # the replay of the exchange that broke it first (client/replay.py)


@dataclass
class Counts:
    """The exchanges one judge took and judged, those it failed on itself (with the first such error), and by
    requirement the exchanges a rule or an invariant held it on, since it was last asked."""

    made: int = 0
    judged: int = 0
    judge_errors: int = 0
    first_judge_error: str | None = None
    held: dict[str, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.made or self.judged or self.judge_errors)


@dataclass
class Judged:
    """One process's judge of its exchanges: what it found since it was last asked (`found`), and how many it saw."""

    records: RecordRegistry = field(default_factory=RecordRegistry)  # every record this process's exchanges showed

    current: str = "the run's setup"  # what is running (a test's phase, a file's entry), named in a new finding
    made: int = 0
    judged: int = 0
    errors: int = 0  # exchanges the judge itself failed on (a bug of the suite: counted, shown in the report)
    first_error: str | None = None
    pending: dict[tuple[str, str, str], Found] = field(default_factory=dict)
    held: dict[str, int] = field(default_factory=dict)  # by requirement: the exchanges held to it since last asked
    _seen: set[tuple[str, str, str]] = field(default_factory=set)
    _counted: tuple[int, int, int] = (0, 0, 0)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # the end-of-run sweep sends from threads

    def take(self, exchange: Exchange) -> set[str]:
        """Judge one exchange, and hold it to the records seen before it; keep what it broke, once per judge,
        requirement and operation with a count; the requirements it was held to (a rule or an invariant judged
        it), which it may also have broken."""
        try:
            with self._lock:  # the registry is one state, and the end-of-run sweep sends from threads
                withheld = self.records.withheld(exchange)
            held, findings = held_to(exchange, withheld)
            with self._lock:
                findings += self.records.see(exchange, self.current)
            held |= invariants_taking(exchange)
        except Exception as error:  # the judge's own bug must not stop the test that made the exchange
            self.failed_on(str(exchange.operation_id), error)
            return set()
        with self._lock:
            self.made += 1
            self.judged += judgeable(exchange)
            for requirement in held:
                self.held[requirement] = self.held.get(requirement, 0) + 1
            for finding in findings:
                key = (finding.by, finding.requirement, finding.operation_id)
                entry = self.pending.setdefault(key, Found(finding.by, finding.requirement, finding.operation_id))
                entry.count += 1
                if key not in self._seen:
                    self._seen.add(key)
                    entry.rule, entry.seen_in = finding.rule, self.current
                    entry.evidence = evidence.error_evidence(finding.failure)
        return held

    def failed_on(self, what: str, error: Exception) -> None:
        """Count an exchange the judge could not judge (it failed on it), with the first such error."""
        with self._lock:
            self.errors += 1
            self.first_error = self.first_error or redact(f"{what}: {type(error).__name__}: {str(error)[:200]}")

    def found(self) -> tuple[list[Found], Counts]:
        """What was found, and the exchanges counted, since the last time it was asked."""
        with self._lock:
            findings, self.pending = list(self.pending.values()), {}
            made, judged, errors = self._counted
            counts = Counts(self.made - made, self.judged - judged, self.errors - errors, held=self.held)
            self._counted, self.held = (self.made, self.judged, self.errors), {}
        if counts.judge_errors:
            counts.first_judge_error = self.first_error
        return findings, counts


def add_counts(total: dict[str, Any], counts: Counts | None) -> dict[str, Any]:
    """The run's exchange counts (conformance.json's run.exchanges) with one report's added."""
    counts = counts or Counts()
    added = {
        "made": total.get("made", 0) + counts.made,
        "judged": total.get("judged", 0) + counts.judged,
        "judge_errors": total.get("judge_errors", 0) + counts.judge_errors,
    }
    first = total.get("first_judge_error") or counts.first_judge_error
    return {**added, **({"first_judge_error": first} if first else {})}


def add_held(total: dict[str, int], counts: Counts | None) -> None:
    """The exchanges held to each requirement in the run, with one report's added."""
    for requirement, count in (counts.held if counts else {}).items():
        total[requirement] = total.get(requirement, 0) + count


def merge(records: dict[str, TestRecord], findings: list[Found]) -> None:
    """Add findings to the run's records: one failed record per requirement and operation broken, its evidence the
    first exchange that broke it, with the rule, where it was seen and the count so far."""
    for finding in findings:
        requirement = finding.requirement
        nodeid = NODEID.format(by=finding.by, requirement=requirement, operation=finding.operation)
        record = records.get(nodeid)
        if record is None:
            record = records[nodeid] = TestRecord(
                nodeid=nodeid, requirements=(requirement,), outcome="failed", failed_requirements=(requirement,)
            )
        if not record.evidence:  # each process sends the evidence with its first finding of a requirement
            record.evidence = [
                {
                    **(finding.evidence or {}),
                    "requirement": requirement,
                    "rule": finding.rule,
                    "first_seen_in": finding.seen_in,
                    "exchanges": 0,
                }
            ]
            record.replay = finding.replay
        first = record.evidence[0]
        first["exchanges"] += finding.count
        record.message = (
            f"{first['exchanges']} exchange(s) of {finding.operation} broke the rule "
            f"{first.get('rule', '?')!r} ({requirement}), first seen during "
            f"{first.get('first_seen_in', '?')}: {first['title']}"
        )


@dataclass
class Traffic:
    """What the judged exchanges were: per operation the exchanges seen and judged, those of no operation, those
    outside the target's base URL."""

    files: list[str]
    base_url: str | None  # None: no entry is under a base address ending in the version segment
    entries: int = 0
    outside: int = 0  # entries not under the base URL
    operations: dict[str, dict[str, int]] = field(default_factory=dict)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    unmatched_count: int = 0
    held: dict[tuple[str, str], int] = field(default_factory=dict)  # (requirement, operation) -> exchanges held

    def count(self, exchange: Exchange | None, held: set[str], where: Mapping[str, Any]) -> None:
        """One exchange seen (None: outside the base URL), held to `held`; `where` names it (file, entry,
        request) in the listing of those of no operation."""
        self.entries += 1
        if exchange is None:
            self.outside += 1
            return
        operation = exchange.operation_id
        if operation is None:
            self.unmatched_count += 1
            if len(self.unmatched) < UNMATCHED_SHOWN:
                self.unmatched.append({**where, "status": exchange.status})
            return
        row = self.operations.setdefault(
            operation, {"exchanges": 0, "judged": 0, "2xx": 0, "4xx": 0, "5xx": 0, "other": 0}
        )
        row["exchanges"] += 1
        row["judged"] += bool(held)
        kind = f"{exchange.status // 100}xx"
        row[kind if kind in row else "other"] += 1
        for requirement in held:
            self.held[(requirement, operation)] = self.held.get((requirement, operation), 0) + 1

    def report(self) -> dict[str, Any]:
        """The report's `traffic` section: operations × exchanges seen, in openapi.yaml's order."""
        order = list(contract.operations())
        return {
            "files": self.files,
            "base_url": self.base_url,
            "entries": self.entries,
            "outside": self.outside,
            "operations": {name: self.operations[name] for name in order if name in self.operations},
            "unmatched": {"count": self.unmatched_count, "shown": self.unmatched},
        }


def untested_reasons() -> dict[str, str]:
    """Why a requirement no judged exchange judged is untested: it needs an active run, or the exchanges showed
    none of those its rules judge."""
    judgeable_by = judged_from_traffic()
    reasons = {}
    for requirement in catalogue():
        if requirement.id not in judgeable_by:
            reasons[requirement.id] = NEEDS_AN_ACTIVE_RUN
        else:
            reasons[requirement.id] = (
                f"the recorded traffic showed no exchange it judges (judged by "
                f"{', '.join(judgeable_by[requirement.id])})"
            )
    return reasons


class JudgingSession:
    """Exchanges of one target judged one by one, in the order they were made, then verdicts and reports.

    A requirement a rule or an invariant stands for passes when some exchange was held to it and none broke it, and
    fails with the first exchange that broke it as evidence; the others are untested (they need an active run)."""

    def __init__(self, base_url: str | None, files: list[str] | None = None) -> None:
        self.base_url = base_url
        self.judged = Judged(current="the first exchange")
        self.traffic = Traffic(list(files or ()), redact(base_url) if base_url else None)
        self._records: dict[str, TestRecord] = {}
        self._counts: dict[str, Any] = {}
        self._held: dict[str, int] = {}
        self.started = time.time()

    def judge(self, exchange: Exchange | None, where: Mapping[str, Any] | None = None) -> set[str]:
        """Judge one exchange (None: one outside the target's base URL, only counted); the requirements it was held
        to. `where` names it in the evidence and the listings (e.g. {"file": ..., "entry": ...})."""
        where = dict(where or {})
        held: set[str] = set()
        if exchange is not None and exchange.operation_id is not None:
            self.judged.current = (
                " entry ".join(str(where[k]) for k in ("file", "entry") if k in where)
                or f"exchange {self.traffic.entries + 1}"
            )
            held = self.judged.take(exchange)
        if exchange is not None and "request" not in where:
            where["request"] = f"{exchange.method} {exchange.url}"
        self.traffic.count(exchange, held, where)
        return held

    def records(self) -> list[TestRecord]:
        """The records of what was judged so far: the judges' failures, and the passes of what exchanges were held
        to."""
        findings, counts = self.judged.found()
        merge(self._records, findings)
        self._counts = add_counts(self._counts, counts)
        add_held(self._held, counts)
        held = {}
        for (requirement, operation), count in sorted(self.traffic.held.items()):
            nodeid = HELD_NODEID.format(requirement=requirement, operation=operation)
            held[nodeid] = TestRecord(
                nodeid=nodeid,
                requirements=(requirement,),
                message=f"{count} recorded exchange(s) of {operation} held to it",
            )
        return [*self._records.values(), *held.values()]

    @property
    def counts(self) -> dict[str, Any]:
        """How many exchanges were made and judged (after `records()`)."""
        return self._counts

    def report(
        self,
        gate: gating.Gate | None = None,
        *,
        environment: str = "staging",
        seed: int = 0,
        selected: tuple[str, ...] = (),
        run: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """conformance.json's content for what was judged: every requirement's verdict, the outcome, the gate."""
        records = self.records()
        gate = gate or gating.Gate(traffic=True)
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started))
        return build_report(
            records,
            catalogue(),
            target={"base_url": self.traffic.base_url},
            environment=environment,
            seed=seed,
            strict=gate.strict,
            selected=selected,
            gate=gate,
            run={
                "started_at": started,
                "duration": round(time.time() - self.started, 2),
                "exchanges": self._counts,
                **(run or {}),
            },
            untested=untested_reasons(),
            traffic=self.traffic.report(),
            exchanges_held=self._held,
        )

    def write(self, directory: Path, report: dict[str, Any] | None = None) -> list[Path]:
        """Write every report of the session (or of `report`) into `directory`."""
        return write_all(report or self.report(), directory)


def recorded_base_url(settings: Settings) -> str | None:
    """The target's base address in recorded traffic: --base-url, else the one `/v1` origin of the entries (None when
    they have none: nothing is judged); a HarError when they have several (and when a file is not a HAR)."""
    found = har.bases(settings.har)
    if settings.base_url:
        return settings.base_url
    if len(found) <= 1:
        return next(iter(found), None)
    listing = ", ".join(f"{base} ({count} entries)" for base, count in sorted(found.items()))
    raise har.HarError(
        f"the recorded entries are under more than one base address: {listing}; choose the target's with --base-url"
    )


def recorded_session(settings: Settings, base_url: str | None = None) -> JudgingSession:
    """The recorded exchanges of --har judged in one session, as the target at `base_url` (`recorded_base_url`'s,
    found here when not given). Every file is read through once before any is judged: a file that is not a HAR
    stops the run (HarError) before anything is reported."""
    session = JudgingSession(base_url or recorded_base_url(settings), [str(path) for path in settings.har])
    for recorded in har.recorded(settings.har, session.base_url):
        session.judge(
            recorded.exchange, {"file": str(recorded.file), "entry": recorded.index, "request": recorded.request}
        )
    return session


def recorded_report(settings: Settings, gate: gating.Gate, base_url: str | None = None) -> dict[str, Any]:
    """--har's report, as the plugin writes it for the same files and options (`base_url`: as `recorded_session`)."""
    return recorded_session(settings, base_url).report(
        gate,
        environment=settings.environment,
        seed=settings.seed,
        selected=settings.requirements,
        run={"profile": settings.profile, **run_inputs(settings)},
    )
