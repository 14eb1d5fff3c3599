"""Several conformance.json (of proxies beside each instance, of --har runs, of active runs) as one report: the
records each report's requirements name are read back and joined by name, then judged again with the same code as
any run (reporting/conformance.py). A requirement broken in one report fails; one held to in some and broken in none
passes. The judges' records add up: the exchanges that broke a rule, those held to it, the traffic table.

What is not claimed: the invariants between answers (judge/record_registry.INVARIANTS) were held within each report's
own exchanges; two answers seen by different proxies were never compared. The merged report says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wallet_conformance.judge.exchanges import JUDGE
from wallet_conformance.judge.record_registry import FINDER, INVARIANTS
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.conformance import FORMAT, build_report, judged_against
from wallet_conformance.reporting.endings import Stop
from wallet_conformance.reporting.judging import HELD_NODEID, UNMATCHED_SHOWN
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.verdicts import Outcome, Verdict
from wallet_conformance.spec.catalogue import catalogue

NOT_CLAIMED = (
    f"the invariants between answers ({', '.join(INVARIANTS)}) were held within each merged report's own "
    "exchanges: answers seen by different proxies or runs were never compared"
)
# The judges' records (their messages and evidence count exchanges), by the first part of their node ids.
JUDGES = (JUDGE, FINDER, HELD_NODEID.partition("::")[0])
_COUNTED = re.compile(r"^(\d+) ")  # a judge's record's message starts with its count of exchanges
_OUTCOMES = ("failed", "error", "passed", "skipped")  # which outcome of one test in two reports wins


class MergeError(Exception):
    """A file that cannot be merged: not a conformance.json, or of another catalogue; one message naming it."""


def load(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """The reports, each checked to be a conformance.json of this catalogue, and given once: the same file twice, or
    two files of the same content, would count every exchange and test twice."""
    reports = []
    seen: dict[Path | str, Path] = {}  # each file (resolved) and each content (its digest): where it was first given
    for path in paths:
        try:
            text = path.read_bytes()
            report = json.loads(text)
        except (OSError, ValueError) as error:
            raise MergeError(f"{path}: not a readable conformance.json ({error})") from None
        for key in (path.resolve(), hashlib.sha256(text).hexdigest()):
            if key in seen:
                again = "the same file as" if isinstance(key, Path) else "the same report as"
                raise MergeError(f"{path} is {again} {seen[key]}: a report merged twice counts twice; give each once")
            seen[key] = path
        if not isinstance(report, dict) or report.get("format") != FORMAT:
            raise MergeError(f"{path}: not a conformance.json ({FORMAT})")
        catalogue_hash = judged_against()["requirements.yaml"]
        if (report.get("judged_against") or {}).get("requirements.yaml") != catalogue_hash:
            raise MergeError(f"{path}: judged against another requirements.yaml; merge reports of one catalogue")
        reports.append(report)
    return reports


def records(report: dict[str, Any]) -> dict[str, TestRecord]:
    """The test records a report's entries name, by node id: their requirements, outcome, what they failed and
    blocked, their message, evidence and observations."""
    found: dict[str, TestRecord] = {}
    for entry in report["requirements"]:
        failing = [test for test in entry["tests"] if test["failed"]]
        for test in entry["tests"]:
            record = found.setdefault(
                test["nodeid"], TestRecord(nodeid=test["nodeid"], requirements=(), outcome=test["outcome"])
            )
            record.requirements += (entry["id"],)
            record.message = record.message or test.get("message")
            record.suite_error = record.suite_error or test["suite_error"]
            if test.get("held"):
                record.held[entry["id"]] = test["held"]
            if test["failed"]:
                record.failed_requirements += (entry["id"],)
                share = entry["evidence"] if len(failing) == 1 else entry["evidence"][failing.index(test) :][:1]
                record.evidence += [{**item, "requirement": entry["id"]} for item in share]
            elif test["blocked"]:
                record.setup_error = True
        if entry["observations"] and entry["tests"]:
            found[entry["tests"][0]["nodeid"]].observations += entry["observations"]
    return found


def _join(first: TestRecord, other: TestRecord) -> None:
    """`other`, the same test (or judge's record) in another report, joined into `first`."""
    counts = [_COUNTED.match(record.message or "") for record in (first, other)]
    if first.nodeid.split("::")[0] in JUDGES and all(counts):
        total = sum(int(match.group(1)) for match in counts if match)
        first.message = _COUNTED.sub(f"{total} ", first.message or "", count=1)
        for item in first.evidence[:1]:
            if isinstance(item.get("exchanges"), int):
                extra = next(
                    (kept.get("exchanges") for kept in other.evidence if isinstance(kept.get("exchanges"), int)), 0
                )
                item["exchanges"] += extra or 0
    if _OUTCOMES.index(other.outcome) < _OUTCOMES.index(first.outcome):
        first.outcome = other.outcome
    first.requirements = tuple(dict.fromkeys(first.requirements + other.requirements))
    first.failed_requirements = tuple(dict.fromkeys(first.failed_requirements + other.failed_requirements))
    first.evidence = first.evidence or other.evidence
    first.setup_error = first.setup_error or other.setup_error
    first.suite_error = first.suite_error or other.suite_error
    first.observations += other.observations
    for requirement, count in other.held.items():
        first.held[requirement] = first.held.get(requirement, 0) + count


def _traffic(reports: list[dict[str, Any]], names: list[str]) -> dict[str, Any] | None:
    shown = [report["traffic"] for report in reports if report.get("traffic")]
    if not shown:
        return None
    bases = {traffic["base_url"] for traffic in shown}
    operations: dict[str, dict[str, int]] = {}
    for traffic in shown:
        for name, row in traffic["operations"].items():
            total = operations.setdefault(name, {})
            for column, count in row.items():
                total[column] = total.get(column, 0) + count
    unmatched = [item for traffic in shown for item in traffic["unmatched"]["shown"]]
    notes = [f"merged from {', '.join(names)}; {NOT_CLAIMED}"]
    notes += [
        f"{name}: {note}" for name, traffic in zip(names, shown, strict=False) for note in traffic.get("notes", ())
    ]
    return {
        "files": [file for traffic in shown for file in traffic["files"]],
        "base_url": bases.pop() if len(bases) == 1 else None,
        "entries": sum(traffic["entries"] for traffic in shown),
        "outside": sum(traffic["outside"] for traffic in shown),
        "operations": operations,
        "unmatched": {
            "count": sum(traffic["unmatched"]["count"] for traffic in shown),
            "shown": unmatched[:UNMATCHED_SHOWN],
        },
        "notes": notes,
    }


def merge(reports: list[dict[str, Any]], names: list[str], gate: gating.Gate | None = None) -> dict[str, Any]:
    """One report of `reports` (named `names` in it), judged again under `gate` (as --har's when they judged
    traffic)."""
    joined: dict[str, TestRecord] = {}
    for report in reports:
        for nodeid, record in records(report).items():
            if nodeid in joined:
                _join(joined[nodeid], record)
            else:
                joined[nodeid] = record
    untested = {
        entry["id"]: entry["reason"]
        for report in reports
        for entry in report["requirements"]
        if entry["verdict"] == Verdict.UNTESTED and entry["reason"]
    }
    held: dict[str, int] = {}
    for report in reports:
        for entry in report["requirements"]:
            count = (entry.get("held") or {}).get("exchanges", 0)
            if count:
                held[entry["id"]] = held.get(entry["id"], 0) + count
    traffic = _traffic(reports, names)
    gate = dataclasses.replace(gate or gating.Gate(), traffic=traffic is not None)
    exchanges: dict[str, int] = {}
    for report in reports:
        for name, count in (report["run"].get("exchanges") or {}).items():
            if isinstance(count, int):
                exchanges[name] = exchanges.get(name, 0) + count
    started = sorted(report["run"]["started_at"] for report in reports if report["run"].get("started_at"))
    # A run that did not complete leaves the whole unfinished: the merge ends as the first such run did.
    stopped = [(name, report["stopped"]) for name, report in zip(names, reports, strict=True) if report.get("stopped")]
    stop = None
    if stopped:
        name, first = stopped[0]
        stop = Stop(Outcome(first.get("outcome", Outcome.STOPPED_EARLY)), f"{name}: {first['reason']}", first["status"])
    bases = {report["target"].get("base_url") for report in reports}
    target: dict[str, Any] = {"base_url": bases.pop() if len(bases) == 1 else None}
    if len(bases) > 1:
        target["targets"] = {
            name: report["target"].get("base_url") for name, report in zip(names, reports, strict=True)
        }
        target["note"] = several_targets(target["targets"])
    return build_report(
        joined.values(),
        catalogue(),
        target=target,
        environment=reports[0]["environment"],
        seed=0,
        strict=gate.strict,
        gate=gate,
        run={
            "started_at": started[0] if started else None,
            "duration": max((report["run"].get("duration") or 0) for report in reports),
            "profile": None,
            "exchanges": exchanges,
            "merged": {"reports": names, "not_claimed": NOT_CLAIMED},
        },
        untested=untested,
        traffic=traffic,
        exchanges_held=held,
        stop=stop,
    )


def several_targets(targets: dict[str, str | None]) -> str:
    """What a merged report says, in its target and on the terminal, when its reports judged different targets."""
    each = ", ".join(f"{name}: {base or 'the bundled reference'}" for name, base in targets.items())
    return (
        f"the merged reports judged {len(set(targets.values()))} different targets ({each}): its verdicts are "
        "of no one target"
    )
