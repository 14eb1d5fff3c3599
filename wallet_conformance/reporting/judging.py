"""The judging core, without pytest: exchanges made by anything (the suite's client, a HAR file, an httpx response)
judged by the exchange judge (judge/exchanges.py) and held to the registry of records (judge/record_registry.py),
then turned into per-requirement verdicts and the reports.

    from wallet_conformance.client.har.httpx_response import from_httpx
    from wallet_conformance.reporting.judging import JudgingSession
    from wallet_conformance.reporting.verdicts import Verdict

    session = JudgingSession("https://staging.example.com/v1")
    for response in responses:                                   # httpx.Response objects, read
        session.judge(from_httpx(response, session.base_url))
    report = session.report()                                    # conformance.json's content
    print(report["outcome"]["verdict"], [e["id"] for e in report["requirements"] if e["verdict"] == Verdict.FAIL])
    session.write(Path("reports"))                               # conformance.json, .md, .html, junit.xml

The suite's active runs feed the same `Judged` from their clients (plugin/exchange_judging.py); `--har` is a
JudgingSession over the recorded entries (plugin/passive.py).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har import recorded_files
from wallet_conformance.client.har.stream import HarError
from wallet_conformance.client.redaction import redact
from wallet_conformance.judge.exchanges import held_to, judgeable
from wallet_conformance.judge.judgement import FILE_NAME, Judgement
from wallet_conformance.judge.record_registry import RecordRegistry
from wallet_conformance.judge.traffic import invariants_taking
from wallet_conformance.reporting import evidence, gating
from wallet_conformance.reporting.conformance import run_inputs
from wallet_conformance.reporting.from_record import Fold, ending_line, run_line, write_record
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import Settings


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
class Judged:
    """One process's judge of its exchanges: what it found since it was last asked (`found`), and the record's line of
    each exchange it judged meanwhile."""

    records: RecordRegistry = field(default_factory=RecordRegistry)  # every record this process's exchanges showed

    current: str = "the run's setup"  # what is running (a test's phase, a file's entry), named in a new finding
    pending: dict[tuple[str, str, str], Found] = field(default_factory=dict)
    lines: list[dict[str, Any]] = field(default_factory=list)  # the exchange lines of the record since last asked
    _seen: set[tuple[str, str, str]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # the end-of-run sweep sends from threads

    def take(self, exchange: Exchange) -> set[str]:
        """Judge one exchange, and hold it to the records seen before it; keep what it broke, once per judge,
        requirement and operation with a count, and its line of the record; the requirements it was held to (a rule
        or an invariant judged it), which it may also have broken."""
        try:
            with self._lock:  # the registry is one state, and the end-of-run sweep sends from threads
                withheld = self.records.withheld(exchange)
            held, findings = held_to(exchange, withheld)
            with self._lock:
                findings += self.records.see(exchange, self.current)
            held |= invariants_taking(exchange)
        except Exception as error:  # the judge's own bug must not stop the test that made the exchange
            self.failed_on(str(exchange.operation_id), error, exchange)
            return set()
        with self._lock:
            self.lines.append(exchange_line(exchange, held, taken=True, broke={f.requirement for f in findings}))
            for finding in findings:
                key = (finding.by, finding.requirement, finding.operation_id)
                entry = self.pending.setdefault(key, Found(finding.by, finding.requirement, finding.operation_id))
                entry.count += 1
                if key not in self._seen:
                    self._seen.add(key)
                    entry.rule, entry.seen_in = finding.rule, self.current
                    entry.evidence = evidence.error_evidence(finding.failure)
        return held

    def failed_on(self, what: str, error: Exception, exchange: Exchange | None = None) -> None:
        """An exchange the judge could not judge (it failed on it: a bug of the suite, counted and shown in the
        report), with its error: the record's line of it."""
        text = redact(f"{what}: {type(error).__name__}: {str(error)[:200]}")
        with self._lock:
            line = exchange_line(exchange, set(), taken=True) if exchange is not None else {"kind": "exchange"}
            self.lines.append({**line, "error": text})

    def found(self) -> tuple[list[Found], list[dict[str, Any]]]:
        """What was found, and the lines of the exchanges judged, since the last time it was asked."""
        with self._lock:
            findings, self.pending = list(self.pending.values()), {}
            lines, self.lines = self.lines, []
        return findings, lines


def exchange_line(exchange: Exchange, held: Iterable[str], *, taken: bool, broke: Iterable[str] = ()) -> dict[str, Any]:
    """One exchange as the record of judgement keeps it: what it was (no body: a finding carries the evidence), the
    requirements it was held to and those it broke; `taken`: the judges took it (one of an operation, or any of the
    active run's)."""
    return {
        "kind": "exchange",
        "operation": exchange.operation_id,
        "method": exchange.method,
        "url": exchange.url,
        "status": exchange.status,
        "taken": taken,
        "judgeable": taken and judgeable(exchange),
        "held": sorted(held),
        "broke": sorted(broke),
        "error": None,
    }


def finding_line(finding: Found) -> dict[str, Any]:
    """A finding as the record of judgement keeps it."""
    return {"kind": "finding", **dataclasses.asdict(finding)}


@dataclass(frozen=True)
class ExchangeJudged:
    """What judging one exchange gave: the requirements it was held to and those it broke, and the findings it told
    first (each with its evidence: the first exchange of its operation to break its requirement)."""

    held: frozenset[str] = frozenset()
    broke: frozenset[str] = frozenset()
    first_findings: tuple[Found, ...] = ()


class JudgingSession:
    """Exchanges of one target judged one by one, in the order they were made, into a record of judgement
    (judge/judgement.py: kept, and written to `record` as it comes when given), and the report made from it.

    A requirement a rule or an invariant stands for passes when some exchange was held to it and none broke it, and
    fails with the first exchange that broke it as evidence; the others are untested (they need an active run).
    `mode`, `gate`, `environment`, `seed`, `selected` and `run` are the run line's (reporting/from_record.py);
    `keep_lines=False` keeps no line in memory (a proxy judging for days folds them as they come); `max_records`
    bounds each table of the registry of records (judge/record_registry.py)."""

    def __init__(
        self,
        base_url: str | None,
        files: list[str] | None = None,
        *,
        mode: str = "har",
        gate: gating.Gate | None = None,
        environment: str = "staging",
        seed: int = 0,
        selected: tuple[str, ...] = (),
        run: Mapping[str, Any] | None = None,
        record: Path | None = None,
        keep_lines: bool = True,
        max_records: int | None = None,
    ) -> None:
        self.base_url = base_url
        registry = RecordRegistry() if max_records is None else RecordRegistry(limit=max_records)
        self.judged = Judged(records=registry, current="the first exchange")
        self.entries = 0  # exchanges given to `judge`
        self.started = time.time()
        self.judgement = Judgement(record, keep=keep_lines)
        self.fold = Fold()
        shown = redact(base_url) if base_url else None
        self._add(
            run_line(
                mode=mode,
                target={"base_url": shown},
                environment=environment,
                seed=seed,
                strict=(gate or gating.Gate()).strict,
                selected=selected,
                gate=gate or gating.Gate(traffic=True),
                run=run or {},
                traffic_files=files,
                traffic_base=shown,
                started=self.started,
            )
        )

    def _add(self, line: dict[str, Any]) -> None:
        self.fold.take(self.judgement.add(line))

    def judge(self, exchange: Exchange | None, where: Mapping[str, Any] | None = None) -> ExchangeJudged:
        """Judge one exchange (None: one outside the target's base URL, only counted): what it was held to, what it
        broke. `where` names it in the evidence and the listings (e.g. {"file": ..., "entry": ...})."""
        where = dict(where or {})
        self.entries += 1
        if exchange is None:
            self.judged.lines.append({"kind": "exchange", "outside": True})
        elif exchange.operation_id is not None:
            self.judged.current = (
                " entry ".join(str(where[k]) for k in ("file", "entry") if k in where) or f"exchange {self.entries}"
            )
            self.judged.take(exchange)
        else:
            self.judged.lines.append(exchange_line(exchange, set(), taken=False))
        if exchange is not None and "request" not in where:
            where["request"] = f"{exchange.method} {exchange.url}"
        findings, lines = self.judged.found()
        for line in lines:
            self._add({**line, "where": where})
        for finding in findings:
            self._add(finding_line(finding))
        return ExchangeJudged(
            frozenset(held for line in lines for held in line.get("held", ())),
            frozenset(broke for line in lines for broke in line.get("broke", ())),
            tuple(finding for finding in findings if finding.evidence is not None),
        )

    def registry_facts(self) -> dict[str, Any]:
        """The registry of records' bound on each table, and what it forgot past it, by table."""
        records = self.judged.records
        return {"registry_bound": records.limit, "forgotten": dict(records.forgotten)}

    def failed_on(self, what: str, error: Exception) -> None:
        """An exchange that could not even be given to the judge (its capture could not be read): counted as one
        the judge failed on."""
        self.judged.failed_on(what, error)
        for line in self.judged.found()[1]:
            self._add(line)

    def report(
        self, *, run: Mapping[str, Any] | None = None, notes: list[str] | None = None, nothing_judged: str | None = None
    ) -> dict[str, Any]:
        """conformance.json's content for what was judged so far: every requirement's verdict, the outcome, the gate
        (`run`, `notes`, `nothing_judged`: the ending's, as `finish` would write it)."""
        ending = ending_line(time.time() - self.started, run=run, notes=notes, nothing_judged=nothing_judged)
        return self.fold.report(ending=ending)

    def finish(
        self, *, run: Mapping[str, Any] | None = None, notes: list[str] | None = None, nothing_judged: str | None = None
    ) -> dict[str, Any]:
        """The record's last line written, and the report of the whole."""
        self._add(ending_line(time.time() - self.started, run=run, notes=notes, nothing_judged=nothing_judged))
        self.judgement.close()
        return self.fold.report()

    def write(self, directory: Path, report: dict[str, Any] | None = None) -> list[Path]:
        """Write every report of the session (or of `report`) into `directory`, and the record of judgement kept in
        memory when the session writes none of its own."""
        written = write_all(report or self.report(), directory)
        if self.judgement.path is None:
            written.append(write_record(self.judgement.lines, directory))
        return written


def recorded_base_url(settings: Settings) -> str | None:
    """The target's base address in recorded traffic: --base-url, else the one `/v1` origin of the entries (None when
    they have none: nothing is judged); a HarError when they have several (and when a file is not a HAR)."""
    found = recorded_files.bases(settings.har)
    if settings.base_url:
        return settings.base_url
    if len(found) <= 1:
        return next(iter(found), None)
    listing = ", ".join(f"{base} ({count} entries)" for base, count in sorted(found.items()))
    raise HarError(
        f"the recorded entries are under more than one base address: {listing}; choose the target's with --base-url"
    )


def recorded_session(
    settings: Settings, gate: gating.Gate, base_url: str | None = None, record: Path | None = None
) -> JudgingSession:
    """The recorded exchanges of --har judged in one session, as the target at `base_url` (`recorded_base_url`'s,
    found here when not given), its record written to `record` when given. Every file is read through once before
    any is judged: a file that is not a HAR stops the run (HarError) before anything is reported."""
    base_url = base_url or recorded_base_url(settings)
    session = JudgingSession(
        base_url,
        [str(path) for path in settings.har],
        gate=gate,
        environment=settings.environment,
        seed=settings.seed,
        selected=settings.requirements,
        run={"profile": settings.profile, **run_inputs(settings)},
        record=record,
    )
    for recorded in recorded_files.recorded(settings.har, session.base_url):
        session.judge(
            recorded.exchange, {"file": str(recorded.file), "entry": recorded.index, "request": recorded.request}
        )
    return session


def recorded_report(settings: Settings, gate: gating.Gate, base_url: str | None = None) -> dict[str, Any]:
    """--har's report, as the plugin writes it for the same files and options (`base_url`: as `recorded_session`)."""
    return recorded_session(settings, gate, base_url, settings.report_dir / FILE_NAME).finish()
