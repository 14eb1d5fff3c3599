"""The judging core, without pytest and without the reports: exchanges made by anything (the suite's client, a HAR
file, an httpx response, the proxy's capture) judged by the exchange judge (judge/exchanges.py), held to the registry
of records (judge/record_registry.py), and written as lines of the record of judgement (judge/judgement.py).

    from wallet_conformance.client.har.httpx_response import from_httpx
    from wallet_conformance.judge.session import JudgingSession

    session = JudgingSession(base_url, opening)             # the record's `run` line (reporting's run_line)
    for response in responses:                              # httpx.Response objects, read
        result = session.judge(from_httpx(response, base_url))
        print(sorted(result.broke))                         # the requirements this exchange broke
    session.finish(ending)                                  # its `ending` line; session.lines: the whole record

Reports are made by folding the same lines (reporting/from_record.Fold, a listener of the session's record);
reporting/judging.py's ReportingSession does it, with the run and ending lines of a run. The suite's active runs feed
one `ExchangeJudge` per process from their clients (plugin/run.py) and write its lines themselves
(plugin/recording.py).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.redaction import Secrets, active
from wallet_conformance.judge.classification import error_evidence
from wallet_conformance.judge.exchanges import held_to, judgeable
from wallet_conformance.judge.judgement import Judgement
from wallet_conformance.judge.record_registry import RecordRegistry
from wallet_conformance.judge.traffic import invariants_taking


@dataclass
class FindingTally:
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
class ExchangeJudge:
    """One process's judge of its exchanges, with what it found since it was last asked (`drain`): the tallies of
    what they broke, and the record's line of each exchange it judged meanwhile. `secrets` redact the evidence and
    the errors it keeps (None: the process's active ones, when it keeps them)."""

    records: RecordRegistry = field(default_factory=RecordRegistry)  # every record this process's exchanges showed
    secrets: Secrets | None = None

    current: str = "the run's setup"  # what is running (a test's phase, a file's entry), named in a new finding
    _pending: dict[tuple[str, str, str], FindingTally] = field(default_factory=dict)
    _lines: list[dict[str, Any]] = field(default_factory=list)  # the exchange lines of the record since last asked
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
                compared = self.records.held
            held |= invariants_taking(exchange, compared)
        except Exception as error:  # the judge's own bug must not stop the test that made the exchange
            self.failed_on(str(exchange.operation_id), error, exchange)
            return set()
        with self._lock:
            self._lines.append(exchange_line(exchange, held, taken=True, broke={f.requirement for f in findings}))
            for finding in findings:
                key = (finding.by, finding.requirement, finding.operation_id)
                entry = self._pending.setdefault(
                    key, FindingTally(finding.by, finding.requirement, finding.operation_id)
                )
                entry.count += 1
                if key not in self._seen:
                    self._seen.add(key)
                    entry.rule, entry.seen_in = finding.rule, self.current
                    entry.evidence = error_evidence(finding.failure, self.secrets)
        return held

    def pass_over(self, exchange: Exchange | None) -> None:
        """An exchange the judges do not take, as the record's line of it: one outside the target's base URL (None:
        only counted), or one of no operation."""
        line = (
            {"kind": "exchange", "outside": True} if exchange is None else exchange_line(exchange, set(), taken=False)
        )
        with self._lock:
            self._lines.append(line)

    def failed_on(self, what: str, error: Exception, exchange: Exchange | None = None) -> None:
        """An exchange the judge could not judge (it failed on it: a bug of the suite, counted and shown in the
        report), with its error: the record's line of it."""
        secrets = self.secrets if self.secrets is not None else active()
        text = secrets.redact(f"{what}: {type(error).__name__}: {str(error)[:200]}")
        with self._lock:
            line = exchange_line(exchange, set(), taken=True) if exchange is not None else {"kind": "exchange"}
            self._lines.append({**line, "error": text})

    def drain(self) -> tuple[list[FindingTally], list[dict[str, Any]]]:
        """What was found, and the lines of the exchanges judged, since the last time it was asked."""
        with self._lock:
            findings, self._pending = list(self._pending.values()), {}
            lines, self._lines = self._lines, []
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


def finding_line(finding: FindingTally) -> dict[str, Any]:
    """A finding as the record of judgement keeps it."""
    return {"kind": "finding", **dataclasses.asdict(finding)}


@dataclass(frozen=True)
class ExchangeResult:
    """What judging one exchange gave: the requirements it was held to and those it broke, and the findings it told
    first (each with its evidence: the first exchange of its operation to break its requirement)."""

    held: frozenset[str] = frozenset()
    broke: frozenset[str] = frozenset()
    first_findings: tuple[FindingTally, ...] = ()


class JudgingSession:
    """Exchanges of one target judged one by one, in the order they were made, into a record of judgement opened
    with `opening` (its `run` line): kept in memory with `keep_lines`, written to `record` as it comes when given,
    and handed line by line to each of `listeners` (what folds it into a report). `max_records` bounds each table of
    the registry of records.

    The session's own secrets (`secrets`, the process's active ones when not given) redact and mask every line it
    writes and the evidence its findings carry, so two sessions of one process keep their secrets apart. Still
    process-wide (client/redaction.py's active secrets): the keys recorded traffic teaches (secret_learning), and
    the text of exceptions and exchanges made outside the session (a failure's message, an exchange's description)."""

    def __init__(
        self,
        base_url: str | None,
        opening: Mapping[str, Any],
        *,
        record: Path | None = None,
        keep_lines: bool = True,
        max_records: int | None = None,
        secrets: Secrets | None = None,
        listeners: Iterable[Callable[[dict[str, Any]], None]] = (),
    ) -> None:
        self.base_url = base_url
        self.secrets = secrets if secrets is not None else active()
        registry = RecordRegistry() if max_records is None else RecordRegistry(limit=max_records)
        self._judge = ExchangeJudge(records=registry, secrets=self.secrets, current="the first exchange")
        self.entries = 0  # exchanges given to `judge`
        self.judgement = Judgement(record, keep=keep_lines, secrets=self.secrets, listeners=listeners)
        self.judgement.add(dict(opening))

    @property
    def lines(self) -> list[dict[str, Any]]:
        """The record's lines written so far, as a reader of its file reads them (none unless `keep_lines`)."""
        return self.judgement.lines

    def judge(self, exchange: Exchange | None, where: Mapping[str, Any] | None = None) -> ExchangeResult:
        """Judge one exchange (None: one outside the target's base URL, only counted): what it was held to, what it
        broke. `where` names it in the evidence and the listings, in strings and numbers (e.g. {"file": ..., "entry":
        ...})."""
        where = dict(where or {})
        self.entries += 1
        if exchange is not None and exchange.operation_id is not None:
            self._judge.current = (
                " entry ".join(str(where[k]) for k in ("file", "entry") if k in where) or f"exchange {self.entries}"
            )
            self._judge.take(exchange)
        else:
            self._judge.pass_over(exchange)
        if exchange is not None and "request" not in where:
            where["request"] = f"{exchange.method} {exchange.url}"
        findings, lines = self._judge.drain()
        for line in lines:
            self.judgement.add({**line, "where": where}, plain=True)  # exchange_line's, and `where`: JSON's types
        for finding in findings:
            self.judgement.add(finding_line(finding))
        return ExchangeResult(
            frozenset().union(*(line.get("held", ()) for line in lines)),
            frozenset().union(*(line.get("broke", ()) for line in lines)),
            tuple(finding for finding in findings if finding.evidence is not None),
        )

    def failed_on(self, what: str, error: Exception) -> None:
        """An exchange that could not even be given to the judge (its capture could not be read): counted as one
        the judge failed on."""
        self._judge.failed_on(what, error)
        for line in self._judge.drain()[1]:
            self.judgement.add(line)

    def registry_facts(self) -> dict[str, Any]:
        """The registry of records' bound on each table, and what it forgot past it, by table."""
        records = self._judge.records
        return {"registry_bound": records.limit, "forgotten": dict(records.forgotten)}

    def finish(self, ending: Mapping[str, Any]) -> None:
        """The record's last line (its `ending`) written, and the record closed."""
        self.judgement.add(dict(ending))
        self.judgement.close()
