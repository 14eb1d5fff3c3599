"""conformance.json: one entry per catalogue requirement with its verdict, its evidence and the tests that cover it.

The report is a pure function of the run's record of judgement (reporting/from_record.py folds it into the test
records, what the run was judged against and the gate, which `assemble` takes); every other format (Markdown, HTML,
JUnit, the terminal summary) renders this dict. Its format is
described once, by schemas/conformance-report.json.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from wallet_conformance.client.redaction import conceal
from wallet_conformance.judge.traffic import judged_from_traffic
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.endings import Selection, Stop
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.verdicts import Outcome, Verdict
from wallet_conformance.settings import OPTIONS, Settings, command_line, reproduction
from wallet_conformance.spec.catalogue import LEVELS, Catalogue, Requirement, catalogue
from wallet_conformance.spec.files import CATALOGUE, DOCUMENT, OPENAPI, SCHEMAS

FORMAT = "wallet-conformance-report/1"
FILE_NAME = "conformance.json"
GENERATED = "tests/generated/"  # the generated tests' node ids start here


def verdict(
    requirement: Requirement, records: list[TestRecord], held: int = 0, not_reached: str | None = None
) -> tuple[Verdict, str | None]:
    """The verdict of one requirement from the records of the tests that name it, with its reason; `held`, how many
    checks and exchanges held it in the run; `not_reached`, the reason of a requirement no test reached (the run did
    not complete).

    A failure wins over everything; then a suite error (a test of this requirement could not be trusted:
    never a pass); then a pass, where a test of it passed and something held it; then blocked (a setup step the
    target refused), skipped, not reached, and untested: a test passed but held nothing, or no test ran.
    """
    failing = [record for record in records if record.fails(requirement.id)]
    suite = [record for record in records if record.stopped and record.suite_error]
    passing = [record for record in records if record.outcome == "passed"]
    blocked = [record for record in records if record.blocks(requirement.id)]
    skipped = [record for record in records if record.outcome == "skipped"]
    stopped = [record for record in records if record.stopped and record not in failing + suite + blocked]
    if suite and not failing:
        return Verdict.SUITE_ERROR, f"suite error in {suite[0].nodeid}: {_cause(suite[0], requirement.id)}"
    if requirement.level == "INFO":
        if passing or failing:
            reason = None if not failing else f"an observation did not complete: {_cause(failing[0], requirement.id)}"
            return Verdict.OBSERVED, reason
    elif failing:
        return Verdict.FAIL, _cause(failing[0], requirement.id)
    elif passing and held:
        return Verdict.PASS, None
    if blocked:
        step = f" (the step exercises {blocked[0].setup_requirement})" if blocked[0].setup_requirement else ""
        return Verdict.BLOCKED, f"{blocked[0].nodeid}: a setup step failed{step}: {_cause(blocked[0], requirement.id)}"
    if skipped:
        return Verdict.SKIP, _first_line(skipped[0].message)
    if stopped:
        return Verdict.SKIP, f"not reached: {stopped[0].nodeid} stopped at {', '.join(stopped[0].failed_requirements)}"
    if passing:
        return Verdict.UNTESTED, nothing_held(requirement, passing)
    return Verdict.UNTESTED, not_reached


def nothing_held(requirement: Requirement, passing: list[TestRecord]) -> str:
    """Why a requirement whose tests passed is untested: no check of theirs held it, and no exchange of the run was
    held to a rule that stands for it."""
    tests = f"{len(passing)} test(s) of it passed ({passing[0].nodeid}{', ...' if len(passing) > 1 else ''})"
    rules = judged_from_traffic().get(requirement.id)
    if all(record.nodeid.startswith(GENERATED) for record in passing):
        tests += ", every generated request refused or none of the kind it judges"
    if rules:
        return (
            f"nothing held it: {tests}, but no check held it and no exchange of the run was of the kind its rules "
            f"judge ({', '.join(rules)})"
        )
    return f"nothing held it: {tests}, but no check of them held it"


def _cause(record: TestRecord, requirement_id: str) -> str | None:
    """What stopped a test, in one line: its evidence's title (the check, the refused step), else its message."""
    named = [item for item in record.evidence if item.get("requirement") == requirement_id]
    for item in named or record.evidence:
        if item.get("title"):
            prefix = f"[{item['requirement']}] " if item.get("kind") == "check" and item.get("requirement") else ""
            return (prefix + str(item["title"]))[:300]
    return _first_line(record.message)


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    lines = text.strip().splitlines()
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]  # a traceback's error lines
    shown = errors or lines
    return shown[0][:300] if shown else None


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@cache
def judged_against() -> dict[str, str]:
    """Hashes of the files a run is judged against: the API document, the catalogue, the OpenAPI document and the
    schemas."""
    schemas = hashlib.sha256()
    for path in sorted(SCHEMAS.glob("*.json")):
        schemas.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return {
        "wallet-service-api.md": _sha256(DOCUMENT.read_bytes()),
        "requirements.yaml": _sha256(CATALOGUE.read_bytes()),
        "openapi.yaml": _sha256(OPENAPI.read_bytes()),
        "schemas": "sha256:" + schemas.hexdigest(),
    }


def suite_version() -> str:
    try:
        return metadata.version("wallet-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def gate_for(settings: Settings) -> gating.Gate:
    """The run's gate: its waivers and baseline read and checked (a GateError says what is wrong with either)."""
    waivers = gating.load_waivers(settings.waivers, catalogue()) if settings.waivers else ()
    baseline = (
        gating.load_baseline(settings.baseline, judged_against()["requirements.yaml"], FORMAT)
        if settings.baseline
        else None
    )
    return gating.Gate(
        strict=settings.strict,
        require_complete=settings.require_complete,
        waivers=waivers,
        baseline=baseline,
        baseline_name=settings.baseline.name if settings.baseline else None,
        traffic=settings.passive,
    )


def run_inputs(settings: Settings) -> dict[str, Any]:
    """What the run's verdicts rest on besides the target's answers, for conformance.json's `run` and every header:
    the command that reproduces the run (as one line and word by word after the program), the bundled reference's
    faults, variants and timing (None for another target), the time bounds, the files given (waivers, baseline,
    recorded traffic) with the sha256 of their content, and pytest's own selection. Never a key."""
    words = reproduction(settings)
    given = [
        (flag, path)
        for flag, paths in (
            ("--waivers", (settings.waivers,)),
            ("--baseline", (settings.baseline,)),
            ("--har", settings.har),
        )
        for path in paths
        if path is not None
    ]
    reference = None
    if settings.embedded and not settings.passive:
        reference = {
            "faults": list(settings.reference_faults),
            "variants": list(settings.reference_variants),
            "settle_delay": settings.reference_settle_delay,
            "latency": settings.reference_latency,
        }
    return {
        "reproduce": command_line(words),
        "arguments": words[1:],
        "reference": reference,
        "time_bounds": {
            option.attribute: getattr(settings, option.attribute) for option in OPTIONS if option.group == "timing"
        },
        "files": [
            {"option": flag, "file": path.as_posix(), "sha256": _sha256(path.read_bytes())} for flag, path in given
        ],
        "pytest_selection": list(settings.pytest_selection),
    }


def assemble(
    records: Iterable[TestRecord],
    catalogue: Catalogue,
    *,
    target: dict[str, Any],
    environment: str,
    seed: int,
    strict: bool,
    selected: tuple[str, ...] = (),
    gate: gating.Gate | None = None,
    run: dict[str, Any] | None = None,
    untested: Mapping[str, str] | None = None,
    traffic: dict[str, Any] | None = None,
    exchanges_held: Mapping[str, int] | None = None,
    stop: Stop | None = None,
    selection: Selection | None = None,
    no_one_target: str | None = None,
) -> dict[str, Any]:
    """The whole report, one entry per requirement of the catalogue, from what a record of judgement folds into
    (reporting/from_record.py `build_report` is the one caller).

    `run` carries the run's facts that are not results: started_at, duration, profile. `untested` gives the reason of
    a requirement no test judged, where there is one to give; `traffic`, what recorded traffic held (--har);
    `exchanges_held`, how many exchanges the exchange judge and the registry of records held each requirement on;
    `stop`, why the run did not complete; `selection`, what part of the suite it chose (`selected`: the requirements
    chosen by id, a selection of those); a requirement outside it is not selected; `no_one_target`, why the verdicts
    are of no one target (a merge of several: gating.apply).
    """
    gate = gate or gating.Gate(strict=strict)
    if selection is None and selected:
        selection = Selection.of([word for rid in selected for word in ("--requirement", rid)], selected)
    exchanges_held = exchanges_held or {}
    records = list(records)
    by_requirement: dict[str, list[TestRecord]] = {requirement.id: [] for requirement in catalogue}
    for record in records:
        for requirement_id in record.requirements:
            by_requirement.setdefault(requirement_id, []).append(record)
        # A refused setup step fails the requirement the step itself exercises, even one its test does not name.
        if record.setup_error and record.setup_requirement and record.setup_requirement not in record.requirements:
            by_requirement.setdefault(record.setup_requirement, []).append(record)
    entries = []
    counts: dict[str, dict[Verdict, int]] = {level: dict.fromkeys(Verdict, 0) for level in LEVELS}
    by_section: dict[str, dict[str, dict[Verdict, int]]] = {
        section: {level: dict.fromkeys(Verdict, 0) for level in LEVELS} for section in catalogue.sections
    }
    chosen = selection.requirements if selection is not None else None
    left_out = f"not selected: the run chose {selection.words}" if selection is not None else ""
    for requirement in catalogue:
        covering = by_requirement[requirement.id]
        checks_held = sum(record.held.get(requirement.id, 0) for record in covering)
        held = {"checks": checks_held, "exchanges": exchanges_held.get(requirement.id, 0)}
        reason: str | None
        if chosen is not None and requirement.id not in chosen:
            covering = []
            held = {"checks": 0, "exchanges": 0}
            result, reason = Verdict.NOT_SELECTED, left_out
        else:
            result, reason = verdict(
                requirement, covering, sum(held.values()), stop.not_reached if stop is not None else None
            )
        if result == Verdict.UNTESTED and reason is None and untested:
            reason = untested.get(requirement.id)
        counts[requirement.level][result] += 1
        by_section[requirement.section][requirement.level][result] += 1
        observations = [
            obs for record in covering for obs in record.observations if obs.get("requirement") == requirement.id
        ]
        entries.append(
            {
                "id": requirement.id,
                "section": requirement.section,
                "level": requirement.level,
                "title": requirement.title,
                "quote": requirement.quote,
                "verdict": result,
                "reason": reason,
                # A hand-written test's evidence first: it is the plainest to read.
                "evidence": [
                    item
                    for record in sorted(covering, key=lambda record: record.nodeid.startswith(GENERATED))
                    for item in record.evidence_for(requirement.id)
                ][:5],
                "observations": observations,
                "held": held,
                "tests": [
                    {
                        "nodeid": record.nodeid,
                        "outcome": record.outcome,
                        "failed": record.fails(requirement.id),
                        # True when a check named this requirement in its failure (not a setup step that broke).
                        "attributed": record.fails(requirement.id) and requirement.id in record.failed_requirements,
                        "blocked": record.blocks(requirement.id),
                        "suite_error": record.stopped and record.suite_error,
                        "held": record.held.get(requirement.id, 0),
                        "message": record.message
                        if (
                            record.fails(requirement.id)
                            or record.blocks(requirement.id)
                            or record.suite_error
                            or record.outcome == "skipped"
                        )
                        else None,
                        "replay": record.replay if record.fails(requirement.id) else None,
                        "kept": record.kept if record.fails(requirement.id) else [],
                    }
                    for record in covering
                ],
            }
        )
    outcome = gating.apply(entries, gate, stop, selection, no_one_target)
    if outcome["verdict"] == Outcome.NOTHING_JUDGED:
        outcome["reason"] = _nothing_judged(records, traffic)
    extra: dict[str, Any] = {"traffic": traffic} if traffic is not None else {}
    if stop is not None:
        extra["stopped"] = stop.to_dict()
    return {
        "format": FORMAT,
        "suite_version": suite_version(),
        "judged_against": judged_against(),
        "run": {"started_at": None, "duration": None, "profile": None, **(run or {})},
        "target": target,
        "environment": environment,
        "seed": seed,
        "strict": strict,
        "selected": list(selected),
        "sections": catalogue.sections,
        "outcome": outcome,
        "counts": counts,
        "counts_by_section": by_section,
        "requirements": entries,
        **extra,
    }


def _nothing_judged(records: list[TestRecord], traffic: dict[str, Any] | None) -> str:
    """Why no MUST requirement got a verdict, in one sentence."""
    if traffic is not None:
        judged = sum(row["judged"] for row in traffic["operations"].values())
        if not traffic["files"]:
            return "no HAR file was found where --har pointed"
        if not traffic["entries"]:
            return f"the recorded file(s) hold no entry: {', '.join(traffic['files'])}"
        if traffic["outside"] == traffic["entries"]:
            where = traffic["base_url"] or "a base address ending in the document's version segment"
            return f"none of the {traffic['entries']} recorded entries is under {where}"
        if not judged:
            return (
                f"no recorded exchange under {traffic['base_url']} is an operation of the document "
                f"({traffic['entries']} entries)"
            )
        return f"{judged} recorded exchange(s) were judged, but none by a rule of a MUST requirement"
    if not records:
        return "no conformance test ran (every test was deselected, or none was collected)"
    if all(record.outcome == "skipped" for record in records):
        first = _first_line(records[0].message) or "skipped"
        return f"every test of the run was skipped ({len(records)}); the first: {first}"
    return f"{len(records)} test(s) ran, but none judged a MUST requirement"


def exit_status(report: dict[str, Any]) -> int:
    """The run's exit status as the report's gate decided it (see reporting/gating.py)."""
    return int(report["outcome"]["exit_status"])


def write_report(report: dict[str, Any], directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / FILE_NAME
    # Observations come from redacted exchanges; redacting the whole text again covers anything a test recorded.
    write_whole(path, conceal(json.dumps(report, indent=2, sort_keys=False)) + "\n")
    return path


def write_whole(path: Path, text: str) -> None:
    """Write `path` whole or not at all: into a file beside it, renamed over it once written, so that a full disk or
    an interruption never leaves a report cut short (an OSError says why it was not written)."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise
