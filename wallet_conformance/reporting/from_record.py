"""The report made from the record of judgement (judge/judgement.py), and from nothing else: every mode (the active
run, --har, the proxy, merge) writes lines, `Fold` reads them, and `build_report` gives conformance.json's content,
which every other format renders.

A `Fold` takes lines one at a time (the proxy folds as it judges, keeping no line), and may be asked for the report
at any moment. A record of several runs (merge) folds into one report: each run's tests are kept apart and joined by
node id at the end (the worst outcome wins, what held adds up), while the judges' records (the findings, the
exchanges held and counted, the traffic table) add up across runs exactly, exchange by exchange.

What a merged report does not claim: the invariants between answers (judge/record_registry.INVARIANTS) were held
within each run's own exchanges; two answers seen by different runs were never compared. The merged report says so.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wallet_conformance.judge.classification import Classified
from wallet_conformance.judge.judgement import FILE_NAME, Judgement, new_run_id
from wallet_conformance.judge.judgement import FORMAT as RECORD_FORMAT
from wallet_conformance.judge.record_registry import INVARIANTS
from wallet_conformance.judge.traffic import NEEDS_AN_ACTIVE_RUN, judged_from_traffic
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.conformance import assemble, judged_against, run_inputs, suite_version
from wallet_conformance.reporting.endings import Selection, Stop, unfinished
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue

NODEID = "{by}::{requirement}[{operation}]"  # a judge's record of a requirement broken by some exchange
HELD_NODEID = "har::{requirement}[{operation}]"  # a requirement recorded exchanges were held to
UNMATCHED_SHOWN = 20  # exchanges of no operation listed by name in the report (all are counted)
UNFINISHED_TEST = "not reached: the run ended while this test ran"
TRAFFIC_MODES = ("har", "proxy")  # the modes that judge traffic others made: a traffic table, untested reasons
RATE_LIMITS_KEPT = 50  # 429 observations written to the report (all are counted)
RATE_LIMIT_REQUIREMENT = "LIM-23"  # rate limits: not shown (INFO), observed when the target answers 429
NOT_CLAIMED = (
    f"the invariants between answers ({', '.join(INVARIANTS)}) were held within each merged report's own "
    "exchanges: answers seen by different proxies or runs were never compared"
)
_OUTCOMES = ("failed", "error", "passed", "skipped")  # which outcome of one test in two runs wins


def run_line(
    *,
    mode: str,
    target: dict[str, Any],
    environment: str,
    seed: int,
    strict: bool,
    selected: Iterable[str],
    gate: gating.Gate,
    run: Mapping[str, Any],
    traffic_files: Iterable[str] | None = None,
    traffic_base: str | None = None,
    started: float | None = None,
) -> dict[str, Any]:
    """The first line of a run's record: what the run is, judged against what, as what target, under which gate;
    `run`, its facts that are not results (profile, what its verdicts rest on)."""
    line: dict[str, Any] = {
        "kind": "run",
        "format": RECORD_FORMAT,
        "run_id": new_run_id(),
        "mode": mode,
        "suite_version": suite_version(),
        "judged_against": judged_against(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started or time.time())),
        "target": target,
        "environment": environment,
        "seed": seed,
        "strict": strict,
        "selected": list(selected),
        "gate": gate.to_dict(),
        "run": dict(run),
    }
    if mode in TRAFFIC_MODES:
        line["traffic"] = {"files": list(traffic_files or ()), "base_url": traffic_base}
    return line


def run_line_of(
    settings: Settings,
    gate: gating.Gate,
    mode: str = "run",
    *,
    target: dict[str, Any] | None = None,
    inputs: Mapping[str, Any] | None = None,
    started: float | None = None,
) -> dict[str, Any]:
    """A run line from the run's settings (`inputs`: what its verdicts rest on, where it is not the suite's run)."""
    target = (
        target
        if target is not None
        else {
            "base_url": settings.base_url,
            "funding_url": settings.funding_url,
            "embedded_reference": settings.embedded and not settings.passive,
        }
    )
    return run_line(
        mode=mode,
        target=target,
        environment=settings.environment,
        seed=settings.seed,
        strict=settings.strict,
        selected=sorted(settings.chosen or ()),
        gate=gate,
        run={"profile": settings.profile, **(inputs if inputs is not None else run_inputs(settings))},
        started=started,
    )


def ending_line(
    duration: float,
    stop: Stop | None = None,
    selection: Selection | None = None,
    run: Mapping[str, Any] | None = None,
    notes: list[str] | None = None,
    nothing_judged: str | None = None,
) -> dict[str, Any]:
    """The last line of a run's record: how long it took, why it did not complete (when it did not), the part of the
    suite it chose, and what only its end knows: `run`, facts for the report's run section (the proxy's counts);
    `notes`, for its traffic section; `nothing_judged`, why nothing was judged, when that is the outcome and the run
    knows better than its exchanges tell (the proxy: what it dropped)."""
    return {
        "kind": "ending",
        "duration": round(duration, 2),
        "stop": None if stop is None else stop.to_dict(),
        "selection": None
        if selection is None
        else {
            "by": list(selection.by),
            "requirements": None if selection.requirements is None else sorted(selection.requirements),
        },
        "run": dict(run or {}),
        "notes": list(notes or ()),
        "nothing_judged": nothing_judged,
    }


@dataclass
class Traffic:
    """What the judged exchanges were: per operation the exchanges seen and judged, those of no operation, those
    outside the target's base URL."""

    files: list[str] = field(default_factory=list)
    base_url: str | None = None  # None: no entry is under a base address ending in the version segment
    entries: int = 0
    outside: int = 0  # entries not under the base URL
    operations: dict[str, dict[str, int]] = field(default_factory=dict)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    unmatched_count: int = 0
    # The exchanges of each operation by the requirements they were held to, one key a line (most exchanges of an
    # operation share one set): spread into `held` when a report asks.
    held_sets: Counter[tuple[str, tuple[str, ...]]] = field(default_factory=Counter)

    @property
    def held(self) -> Counter[tuple[str, str]]:
        """(requirement, operation) -> the exchanges held to it."""
        held: Counter[tuple[str, str]] = Counter()
        for (operation, requirements), count in self.held_sets.items():
            for requirement in requirements:
                held[(requirement, operation)] += count
        return held

    def count(self, line: Mapping[str, Any]) -> None:
        """One exchange line of recorded traffic."""
        self.entries += 1
        if line.get("outside"):
            self.outside += 1
            return
        operation = line.get("operation")
        if operation is None:
            self.unmatched_count += 1
            if len(self.unmatched) < UNMATCHED_SHOWN:
                self.unmatched.append({**line.get("where", {}), "status": line["status"]})
            return
        row = self.operations.get(operation)
        if row is None:
            row = self.operations[operation] = {"exchanges": 0, "judged": 0, "2xx": 0, "4xx": 0, "5xx": 0, "other": 0}
        row["exchanges"] += 1
        row["judged"] += bool(line["held"])
        kind = f"{line['status'] // 100}xx"
        row[kind if kind in row else "other"] += 1
        self.held_sets[(operation, tuple(line["held"]))] += 1

    def report(self, notes: list[str] | None = None) -> dict[str, Any]:
        """The report's `traffic` section: operations × exchanges seen, in openapi.yaml's order."""
        order = list(contract.operations())
        section = {
            "files": self.files,
            "base_url": self.base_url,
            "entries": self.entries,
            "outside": self.outside,
            "operations": {name: self.operations[name] for name in order if name in self.operations},
            "unmatched": {"count": self.unmatched_count, "shown": self.unmatched},
        }
        return {**section, "notes": notes} if notes else section


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


def add_finding(records: dict[str, TestRecord], finding: Mapping[str, Any]) -> None:
    """A finding line added to the judges' records: one failed record per requirement and operation broken, its
    evidence the first exchange that broke it, with the rule, where it was seen and the count so far."""
    requirement = finding["requirement"]
    nodeid = NODEID.format(by=finding["by"], requirement=requirement, operation=finding["operation"])
    record = records.get(nodeid)
    if record is None:
        record = records[nodeid] = TestRecord(
            nodeid=nodeid, requirements=(requirement,), outcome="failed", failed_requirements=(requirement,)
        )
    if not record.evidence:  # each process sends the evidence with its first finding of a requirement
        record.evidence = [
            {
                **(finding["evidence"] or {}),
                "requirement": requirement,
                "rule": finding["rule"],
                "first_seen_in": finding["seen_in"],
                "exchanges": 0,
            }
        ]
        record.replay = finding["replay"]
    first = record.evidence[0]
    first["exchanges"] += finding["count"]
    record.message = (
        f"{first['exchanges']} exchange(s) of {finding['operation']} broke the rule "
        f"{first.get('rule', '?')!r} ({requirement}), first seen during "
        f"{first.get('first_seen_in', '?')}: {first['title']}"
    )


def add_phase(records: dict[str, TestRecord], line: Mapping[str, Any]) -> None:
    """A phase line added to its test's record: a test passes once its call has; a failed phase (or one whose error
    counts: a test blocked by a refused step is shown skipped, too) makes it failed, or an error outside its call."""
    nodeid = line["nodeid"]
    record = records.get(nodeid)
    if record is None:
        record = records[nodeid] = TestRecord(
            nodeid=nodeid, requirements=tuple(line["requirements"]), outcome="skipped", message=UNFINISHED_TEST
        )
    record.duration += line["duration"]
    record.observations.extend(line["observations"])
    for requirement, count in line["held"].items():
        record.held[requirement] = record.held.get(requirement, 0) + count
    if line["error"] is not None or line["outcome"] == "failed":
        error = (
            Classified(**{**line["error"], "failed_requirements": tuple(line["error"]["failed_requirements"])})
            if line["error"] is not None
            else Classified()
        )
        record.outcome = "failed" if line["when"] == "call" else "error"
        record.failed_requirements = error.failed_requirements
        record.setup_error = error.setup_error
        record.setup_requirement = error.setup_requirement
        record.suite_error = bool(error.suite_error)
        record.evidence = list(error.evidence)
        record.replay = error.replay
        record.kept = list(error.kept)
        record.message = line["message"]
    elif line["outcome"] == "skipped":
        record.outcome = "skipped"
        record.message = line["message"]
    elif line["when"] == "call":
        record.outcome, record.message = "passed", None


def _join(first: TestRecord, other: TestRecord) -> None:
    """`other`, the same test in another run, joined into `first`."""
    if _OUTCOMES.index(other.outcome) < _OUTCOMES.index(first.outcome):
        first.outcome = other.outcome
        first.message = other.message
    first.requirements = tuple(dict.fromkeys(first.requirements + other.requirements))
    first.failed_requirements = tuple(dict.fromkeys(first.failed_requirements + other.failed_requirements))
    first.evidence = first.evidence or other.evidence
    first.replay = first.replay or other.replay
    first.setup_error = first.setup_error or other.setup_error
    first.setup_requirement = first.setup_requirement or other.setup_requirement
    first.suite_error = first.suite_error or other.suite_error
    first.observations += other.observations
    first.duration += other.duration
    for requirement, count in other.held.items():
        first.held[requirement] = first.held.get(requirement, 0) + count


@dataclass
class _Run:
    """What one run of the record said of itself and of its tests."""

    line: dict[str, Any]
    tests: dict[str, TestRecord] = field(default_factory=dict)
    ending: dict[str, Any] | None = None
    rate_limited: list[dict[str, Any]] = field(default_factory=list)


class Fold:
    """Lines of a record of judgement folded, one at a time, into what the report needs."""

    def __init__(self) -> None:
        self.runs: list[_Run] = []
        self.findings: dict[str, TestRecord] = {}  # the judges' records, across runs
        self.traffic = Traffic()
        self.exchanges: dict[str, Any] = {"made": 0, "judged": 0, "judge_errors": 0}
        self._held_sets: Counter[tuple[str, ...]] = Counter()  # the exchanges by the requirements they were held to

    def take(self, line: Mapping[str, Any]) -> None:
        kind = line["kind"]
        if kind == "run":
            self.runs.append(_Run(dict(line)))
            if line["mode"] in TRAFFIC_MODES:
                self.traffic.files += line["traffic"]["files"]
                base = line["traffic"]["base_url"]
                self.traffic.base_url = base if len(self.runs) == 1 or self.traffic.base_url == base else None
            return
        run = self.runs[-1]
        if kind == "phase":
            add_phase(run.tests, line)
            run.rate_limited += [{"test": line["nodeid"], **entry} for entry in line["rate_limited"]]
        elif kind == "finding":
            add_finding(self.findings, line)
        elif kind == "exchange":
            self._exchange(run, line)
        elif kind == "ending":
            run.ending = dict(line)

    def _exchange(self, run: _Run, line: Mapping[str, Any]) -> None:
        if line.get("error") is not None:
            self.exchanges["judge_errors"] += 1
            self.exchanges.setdefault("first_judge_error", line["error"])
        elif line.get("taken"):
            self.exchanges["made"] += 1
            self.exchanges["judged"] += bool(line["judgeable"])
            self._held_sets[tuple(line["held"])] += 1
        if run.line["mode"] in TRAFFIC_MODES and "where" in line:
            self.traffic.count(line)

    @property
    def held(self) -> Counter[str]:
        """By requirement, the exchanges a rule or an invariant held it on."""
        held: Counter[str] = Counter()
        for requirements, count in self._held_sets.items():
            for requirement in requirements:
                held[requirement] += count
        return held

    @property
    def tests(self) -> dict[str, TestRecord]:
        """The tests of the last run, by node id (the active run reads its own as they end)."""
        return self.runs[-1].tests if self.runs else {}

    def records(self) -> list[TestRecord]:
        """Every test of every run (one record per node id), the judges' records, and the passes of what recorded
        exchanges were held to."""
        joined: dict[str, TestRecord] = {}
        for run in self.runs:
            for nodeid, record in run.tests.items():
                if nodeid in joined:
                    _join(joined[nodeid], dataclasses.replace(record))
                else:
                    joined[nodeid] = dataclasses.replace(
                        record,
                        requirements=record.requirements,
                        observations=list(record.observations),
                        held=dict(record.held),
                    )
        held = {}
        if any(run.line["mode"] in TRAFFIC_MODES for run in self.runs):
            for (requirement, operation), count in sorted(self.traffic.held.items()):
                nodeid = HELD_NODEID.format(requirement=requirement, operation=operation)
                held[nodeid] = TestRecord(
                    nodeid=nodeid,
                    requirements=(requirement,),
                    message=f"{count} recorded exchange(s) of {operation} held to it",
                )
        return [*joined.values(), *self.findings.values(), *held.values()]

    def report(
        self, gate: gating.Gate | None = None, names: list[str] | None = None, ending: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """conformance.json's content: of the one run, or of several (`names`: each run's name in a merged report;
        `gate`: the merge's own, else the run's); `ending`, an ending line for a run still going (the proxy's
        report so far), not kept."""
        if not self.runs:
            raise ValueError("a record of judgement without a run line")
        traffic_modes = [run for run in self.runs if run.line["mode"] in TRAFFIC_MODES]
        if len(self.runs) == 1:
            run = self.runs[0] if ending is None else dataclasses.replace(self.runs[0], ending=ending)
            return self._report_of_one(run, gate, bool(traffic_modes))
        return self._merged(names or [run.line["run_id"] for run in self.runs], gate, bool(traffic_modes))

    def _report_of_one(self, run: _Run, gate: gating.Gate | None, traffic: bool) -> dict[str, Any]:
        line, ending = run.line, run.ending
        stop = unfinished() if ending is None else (None if ending["stop"] is None else Stop.from_dict(ending["stop"]))
        selection = None
        if ending is not None and ending["selection"] is not None:
            chosen = ending["selection"]
            selection = Selection.of(chosen["by"], chosen["requirements"])
        facts = {
            "started_at": line["started_at"],
            "duration": ending["duration"] if ending else None,
            "profile": line["run"].get("profile"),
            "exchanges": dict(self.exchanges),
            **{key: value for key, value in line["run"].items() if key != "profile"},
            **(ending["run"] if ending else {}),
        }
        report = assemble(
            self.records(),
            catalogue(),
            target=line["target"],
            environment=line["environment"],
            seed=line["seed"],
            strict=line["strict"],
            selected=tuple(line["selected"]),
            gate=gate or gating.Gate.from_dict(line["gate"]),
            run=facts,
            untested=untested_reasons() if traffic else None,
            traffic=self.traffic.report(ending["notes"] if ending else None) if traffic else None,
            exchanges_held=self.held,
            stop=stop,
            selection=selection,
        )
        if ending is not None and ending["nothing_judged"] and report["outcome"]["verdict"] == Outcome.NOTHING_JUDGED:
            report["outcome"]["reason"] = ending["nothing_judged"]
        _observe_rate_limits(report, run.rate_limited)
        return report

    def _merged(self, names: list[str], gate: gating.Gate | None, traffic: bool) -> dict[str, Any]:
        gate = dataclasses.replace(gate or gating.Gate(), traffic=traffic)
        stopped = [
            (name, run.ending["stop"] if run.ending else unfinished().to_dict())
            for name, run in zip(names, self.runs, strict=True)
            if not run.ending or run.ending["stop"]
        ]
        stop = None
        if stopped:  # a run that did not complete leaves the whole unfinished: the merge ends as the first such run did
            name, first = stopped[0]
            stop = Stop.from_dict({**first, "reason": f"{name}: {first['reason']}"})
        identities = {target_identity(run.line) for run in self.runs}
        target: dict[str, Any] = dict(self.runs[0].line["target"]) if len(identities) == 1 else {"base_url": None}
        if len(identities) > 1:
            target["targets"] = {name: _shown_target(run.line) for name, run in zip(names, self.runs, strict=True)}
            target["note"] = several_targets(target["targets"])
        started = sorted(run.line["started_at"] for run in self.runs)
        notes = [f"merged from {', '.join(names)}; {NOT_CLAIMED}"]
        report = assemble(
            self.records(),
            catalogue(),
            target=target,
            environment=self.runs[0].line["environment"],
            seed=0,
            strict=gate.strict,
            gate=gate,
            run={
                "started_at": started[0],
                "profile": None,
                "exchanges": dict(self.exchanges),
                "duration": max((run.ending or {}).get("duration") or 0 for run in self.runs),
                "merged": {"reports": names, "not_claimed": NOT_CLAIMED},
            },
            untested=untested_reasons() if traffic else None,
            traffic=self.traffic.report(notes) if traffic else None,
            exchanges_held=self.held,
            stop=stop,
            selection=merged_selection(names, self.runs),
            no_one_target=target.get("note"),
        )
        _observe_rate_limits(report, [entry for run in self.runs for entry in run.rate_limited])
        return report


def target_identity(line: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a run judged, as a merge compares it: the bundled reference by its faults and variants (its port is
    the run's own), a deployed target by its base URL."""
    if line["target"].get("embedded_reference"):
        reference = line["run"].get("reference") or {}
        return ("reference", tuple(sorted(reference.get("faults", ()))), tuple(sorted(reference.get("variants", ()))))
    return ("target", line["target"].get("base_url"))


def merged_selection(names: list[str], runs: list[_Run]) -> Selection | None:
    """The part of the suite merged runs chose together: where every run chose part of it, the union of what each
    held (a requirement none of them chose is not selected), chosen by each run's words; None where a run took the
    whole suite (or judged traffic, which chooses no test)."""
    chosen: list[dict[str, Any]] = [run.ending["selection"] for run in runs if run.ending and run.ending["selection"]]
    if not runs or len(chosen) < len(runs):
        return None
    held = [selection["requirements"] for selection in chosen]
    union = None if any(part is None for part in held) else {rid for part in held for rid in part}
    by = [f"({name}: {' '.join(selection['by'])})" for name, selection in zip(names, chosen, strict=True)]
    return Selection.of(by, union)


def _shown_target(line: Mapping[str, Any]) -> str | None:
    """A merged run's target as its report names it: the base URL, or the bundled reference with what was on."""
    identity = target_identity(line)
    if identity[0] == "target":
        return str(identity[1]) if identity[1] is not None else None
    switched = [*identity[1], *identity[2]]
    return "the bundled reference" + (f" with {', '.join(switched)}" if switched else "")


def several_targets(targets: dict[str, str | None]) -> str:
    """What a merged report says, in its target and on the terminal, when its runs judged different targets."""
    each = ", ".join(f"{name}: {base or 'the bundled reference'}" for name, base in targets.items())
    return (
        f"the merged reports judged {len(set(targets.values()))} different targets ({each}): its verdicts are "
        "of no one target, and it conforms for none"
    )


def _observe_rate_limits(report: dict[str, Any], met: list[dict[str, Any]]) -> None:
    """What the report says of the 429s the run met: LIM-23 (rate limits: not shown) observes every one, whichever
    test met it."""
    entry = next((e for e in report["requirements"] if e["id"] == RATE_LIMIT_REQUIREMENT), None)
    if entry is None or not met:
        return
    summary = {
        "requirement": RATE_LIMIT_REQUIREMENT,
        "status": 429,
        "answers": len(met),
        "waited_seconds": round(sum(item["waited"] for item in met), 3),
        "kept_as_answer": sum(item["gave_up"] for item in met),
    }
    entry["observations"].append(summary)
    entry["observations"].extend(
        {"requirement": RATE_LIMIT_REQUIREMENT, "status": 429, **item} for item in met[:RATE_LIMITS_KEPT]
    )


def build_report(
    lines: Iterable[Mapping[str, Any]], gate: gating.Gate | None = None, names: list[str] | None = None
) -> dict[str, Any]:
    """conformance.json's content from a record of judgement's lines (one run's, or several runs' for a merge)."""
    fold = Fold()
    for line in lines:
        fold.take(line)
    return fold.report(gate, names)


def stop_record(
    stop: Stop,
    settings: Settings | None = None,
    gate: gating.Gate | None = None,
    inputs: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The record of a run that stopped before it judged anything (a usage error, its preflight), or of one that has
    not finished (written when it starts, replaced when it ends): every requirement not reached, the stop its outcome.
    `settings`: what the run was given, where it could be read (not for a mistake in the options themselves);
    `inputs`: what its verdicts rest on, where it is not the suite's run (the proxy's command)."""
    settings = settings or Settings()
    gate = gate or gating.Gate(strict=settings.strict)
    given = {} if stop.outcome == Outcome.USAGE_ERROR else (inputs if inputs is not None else run_inputs(settings))
    return [run_line_of(settings, gate, inputs=given), ending_line(0.0, stop)]


def stop_report(
    stop: Stop,
    settings: Settings | None = None,
    gate: gating.Gate | None = None,
    inputs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report of `stop_record`'s record."""
    return build_report(stop_record(stop, settings, gate, inputs))


def write_record(lines: Iterable[dict[str, Any]], directory: Path) -> Path:
    """A whole record of judgement written into `directory` (the record a stopped run or a merge made at once)."""
    judgement = Judgement(directory / FILE_NAME, keep=False)
    try:
        for line in lines:
            judgement.add(line)
    finally:
        judgement.close()
    return directory / FILE_NAME


def write_stopped(
    directory: Path,
    stop: Stop,
    settings: Settings | None = None,
    gate: gating.Gate | None = None,
    inputs: Mapping[str, Any] | None = None,
) -> list[Path]:
    """The record and every report of a run that stopped before it judged anything (or has not finished) written
    into `directory`, in place of an earlier run's."""
    lines = stop_record(stop, settings, gate, inputs)
    directory.mkdir(parents=True, exist_ok=True)
    return [write_record(lines, directory), *write_all(build_report(lines), directory)]
