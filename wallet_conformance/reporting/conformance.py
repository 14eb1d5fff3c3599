"""conformance.json: one entry per catalogue requirement with its verdict and the tests that cover it.

Its format is described by schemas/conformance-report.json; later reports and release gating read it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wallet_conformance.catalogue import LEVELS, Catalogue, Requirement
from wallet_conformance.redaction import redact
from wallet_conformance.reporting.records import TestRecord

FORMAT = "wallet-conformance-report/1"
FILE_NAME = "conformance.json"
VERDICTS = ("pass", "fail", "skip", "observed", "untested")


def verdict(requirement: Requirement, records: list[TestRecord]) -> tuple[str, str | None]:
    """The verdict of one requirement from the records of the tests that name it, with its reason."""
    failing = [record for record in records if record.fails(requirement.id)]
    passing = [record for record in records if record.outcome == "passed"]
    skipped = [record for record in records if record.outcome == "skipped"]
    stopped = [record for record in records if record.outcome in ("failed", "error") and record not in failing]
    if requirement.level == "INFO":
        if passing or failing:
            reason = None if not failing else f"an observation did not complete: {_first_line(failing[0].message)}"
            return "observed", reason
    elif failing:
        return "fail", _first_line(failing[0].message)
    elif passing:
        return "pass", None
    if skipped:
        return "skip", _first_line(skipped[0].message)
    if stopped:
        return "skip", f"not reached: {stopped[0].nodeid} stopped at {', '.join(stopped[0].failed_requirements)}"
    return "untested", None


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    return text.strip().splitlines()[0][:300]


def build_report(records: Iterable[TestRecord], catalogue: Catalogue, *, target: dict[str, Any],
                 environment: str, seed: int, strict: bool, selected: tuple[str, ...] = ()) -> dict[str, Any]:
    """The whole report. `selected` (from --requirement) limits the entries to those requirements."""
    by_requirement: dict[str, list[TestRecord]] = {requirement.id: [] for requirement in catalogue}
    for record in records:
        for requirement_id in record.requirements:
            by_requirement.setdefault(requirement_id, []).append(record)
    entries = []
    counts: dict[str, dict[str, int]] = {level: dict.fromkeys(VERDICTS, 0) for level in LEVELS}
    for requirement in catalogue:
        if selected and requirement.id not in selected:
            continue
        covering = by_requirement[requirement.id]
        result, reason = verdict(requirement, covering)
        counts[requirement.level][result] += 1
        observations = [obs for record in covering for obs in record.observations
                        if obs.get("requirement") == requirement.id]
        entries.append({
            "id": requirement.id,
            "section": requirement.section,
            "level": requirement.level,
            "title": requirement.title,
            "verdict": result,
            "reason": reason,
            "observations": observations,
            "tests": [
                {"nodeid": record.nodeid, "outcome": record.outcome,
                 "failed": record.fails(requirement.id),
                 # True when a check named this requirement in its failure (not a setup step that broke).
                 "attributed": record.fails(requirement.id) and requirement.id in record.failed_requirements,
                 "message": record.message if record.fails(requirement.id) or record.outcome == "skipped" else None}
                for record in covering
            ],
        })
    must_failed = [entry["id"] for entry in entries if entry["level"] == "MUST" and entry["verdict"] == "fail"]
    should_failed = [entry["id"] for entry in entries if entry["level"] == "SHOULD" and entry["verdict"] == "fail"]
    return {
        "format": FORMAT,
        "target": target,
        "environment": environment,
        "seed": seed,
        "strict": strict,
        "sections": catalogue.sections,
        "outcome": {
            "conforms": not must_failed,
            "must_failed": must_failed,
            "should_failed": should_failed,
        },
        "counts": counts,
        "requirements": entries,
    }


def exit_status(report: dict[str, Any]) -> int:
    """0 when every tested MUST requirement passed (and, with --strict, every SHOULD one); 1 otherwise."""
    outcome = report["outcome"]
    if outcome["must_failed"] or (report["strict"] and outcome["should_failed"]):
        return 1
    return 0


def write_report(report: dict[str, Any], directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / FILE_NAME
    # Observations come from redacted exchanges; redacting the whole text again covers anything a test recorded.
    path.write_text(redact(json.dumps(report, indent=2, sort_keys=False)) + "\n", encoding="utf-8")
    return path
