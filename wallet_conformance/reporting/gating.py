"""Release gating: which verdicts fail the run, with waivers and a baseline, and the exit status.

- a failed MUST requirement fails the run (with `--strict`, a failed SHOULD one too);
- a suite error (the suite itself is wrong) always fails the run, with its own exit status;
- with `--require-complete` (implied by `--strict`) a MUST requirement that was not tested (skipped,
  blocked, untested) fails the run: "conforms" then means every MUST requirement was checked;
- a waiver (id, reason, owner, expiry date) keeps a requirement's failure from failing the run until
  the day after its expiry date; the failure stays in every report, marked waived; a waiver of a requirement the
  run judged and did not fail is reported unused;
- a baseline (an earlier conformance.json of the same catalogue) keeps failures it already had from
  failing the run: only new breakage does;
- a run in which no MUST requirement passed or failed (every test deselected or skipped, recorded traffic of which
  no exchange was judged) judged nothing: it never conforms, and has its own exit status;
- a run that did not complete (interrupted, stopped early, stopped at its preflight, a usage error: its
  endings.Stop) ends as its stop, with the stop's exit status, whatever its verdicts: it never conforms in any form;
- a run that chose part of the suite (an endings.Selection) conforms at most on the selection, and is never
  complete: --require-complete fails it (the selection, not each requirement it left out).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reporting.endings import Selection, Stop
from wallet_conformance.reporting.verdicts import JUDGED, NOT_TESTED, Outcome, Verdict
from wallet_conformance.spec.catalogue import Catalogue

WAIVER_FIELDS = ("id", "reason", "owner", "expires")
# How every human report names the waivers of requirements that did not fail (the gate's `unused_waivers`).
UNUSED_WAIVERS = "unused waivers (their requirement did not fail: drop them, or check they waive the right one)"


class _DatesAsText(yaml.SafeLoader):
    """YAML without its implicit timestamps: `expires` is read as written, so a date of any shape (2026-13-45,
    31/12/2026) gets the same one message, naming the waiver, instead of YAML's own error."""


_DatesAsText.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class GateError(ValueError):
    """A waiver file or a baseline the run cannot use; the message says why, in one place."""


@dataclass(frozen=True)
class Waiver:
    id: str
    reason: str
    owner: str
    expires: dt.date

    def expired(self, today: dt.date) -> bool:
        return today > self.expires

    def to_dict(self, today: dt.date) -> dict[str, Any]:
        return {
            "id": self.id,
            "reason": self.reason,
            "owner": self.owner,
            "expires": self.expires.isoformat(),
            "expired": self.expired(today),
        }


@dataclass(frozen=True)
class Gate:
    """What decides the exit status besides the verdicts."""

    strict: bool = False
    require_complete: bool = False
    waivers: tuple[Waiver, ...] = ()
    baseline: dict[str, Any] | None = None
    baseline_name: str | None = None
    traffic: bool = False  # recorded traffic was judged (--har): nothing failing means it conforms to what it showed
    today: dt.date = field(default_factory=lambda: dt.datetime.now(dt.UTC).date())

    def to_dict(self) -> dict[str, Any]:
        """The gate as a record of judgement keeps it: of a baseline, only the verdicts the gate reads."""
        baseline = (
            None
            if self.baseline is None
            else {
                "requirements": [
                    {"id": entry["id"], "verdict": entry["verdict"]} for entry in self.baseline.get("requirements", [])
                ]
            }
        )
        return {
            "strict": self.strict,
            "require_complete": self.require_complete,
            "waivers": [
                {"id": waiver.id, "reason": waiver.reason, "owner": waiver.owner, "expires": waiver.expires.isoformat()}
                for waiver in self.waivers
            ],
            "baseline": baseline,
            "baseline_name": self.baseline_name,
            "traffic": self.traffic,
            "today": self.today.isoformat(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Gate:
        waivers = tuple(
            Waiver(item["id"], item["reason"], item["owner"], dt.date.fromisoformat(item["expires"]))
            for item in data["waivers"]
        )
        return cls(
            strict=data["strict"],
            require_complete=data["require_complete"],
            waivers=waivers,
            baseline=data["baseline"],
            baseline_name=data["baseline_name"],
            traffic=data["traffic"],
            today=dt.date.fromisoformat(data["today"]),
        )

    @property
    def complete_required(self) -> bool:
        return self.require_complete or self.strict

    @property
    def gated_levels(self) -> tuple[str, ...]:
        return ("MUST", "SHOULD") if self.strict else ("MUST",)


def load_waivers(path: Path, catalogue: Catalogue) -> tuple[Waiver, ...]:
    """Read a waiver file: a YAML list (or `waivers:` list) of {id, reason, owner, expires: YYYY-MM-DD}."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise GateError(f"--waivers {path}: cannot read it: {error}") from None
    try:
        raw = yaml.load(text, Loader=_DatesAsText)
    except yaml.YAMLError as error:
        raise GateError(f"--waivers {path}{_where(error, text)}: not YAML: {_yaml_problem(error)}") from None
    if isinstance(raw, dict) and set(raw) == {"waivers"}:
        raw = raw["waivers"]
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise GateError(f"--waivers {path}: expected a list of waivers (id, reason, owner, expires)")
    problems, waivers = [], []
    for index, entry in enumerate(raw):
        where = f"waiver {index + 1}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: not a mapping of id, reason, owner, expires")
            continue
        where = f"waiver {index + 1} ({entry.get('id', 'no id')})"
        missing = [name for name in WAIVER_FIELDS if entry.get(name) in (None, "")]
        unknown = sorted(set(entry) - set(WAIVER_FIELDS))
        if missing:
            problems.append(f"{where}: missing {', '.join(missing)}")
        if unknown:
            problems.append(f"{where}: unknown field {', '.join(unknown)}")
        if entry.get("id") and entry["id"] not in catalogue:
            problems.append(f"{where}: no such requirement in requirements.yaml")
        expires = entry.get("expires")
        if isinstance(expires, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", expires.strip()):
            with contextlib.suppress(ValueError):
                expires = dt.date.fromisoformat(expires.strip())
        if expires is not None and not isinstance(expires, dt.date):
            problems.append(f"{where}: expires must be a date (YYYY-MM-DD), got {entry.get('expires')!r}")
        # (expires is a date here: a missing or other one is a problem above)
        if not missing and not unknown and not problems and isinstance(expires, dt.date):
            waivers.append(Waiver(str(entry["id"]), str(entry["reason"]), str(entry["owner"]), expires))
    seen = [waiver.id for waiver in waivers]
    problems.extend(f"{rid}: waived twice" for rid in sorted({rid for rid in seen if seen.count(rid) > 1}))
    if len(problems) == 1:
        raise GateError(f"--waivers {path}: {problems[0]}")
    if problems:
        raise GateError(f"--waivers {path}:\n  " + "\n  ".join(problems))
    return tuple(waivers)


def _where(error: yaml.YAMLError, text: str) -> str:
    """Where in the file YAML stopped, as its line and column (YAML's own message names the text "<unicode string>")."""
    if isinstance(error, yaml.MarkedYAMLError) and (mark := error.problem_mark or error.context_mark):
        return f", line {mark.line + 1}, column {mark.column + 1}"
    if isinstance(error, yaml.reader.ReaderError):  # a character YAML takes in no file: where, by its position
        lines = text[: error.position].split("\n")
        return f", line {len(lines)}, column {len(lines[-1]) + 1}"
    return ""


def _yaml_problem(error: yaml.YAMLError) -> str:
    """What YAML found wrong, in one line, without where (`_where` says it)."""
    if isinstance(error, yaml.MarkedYAMLError):
        return "; ".join(str(part) for part in (error.context, error.problem) if part)
    return str(error).splitlines()[0]


def load_baseline(path: Path, catalogue_hash: str, report_format: str) -> dict[str, Any]:
    """Read an earlier conformance.json; one judged against another catalogue is refused."""
    try:
        baseline = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise GateError(f"--baseline {path}: cannot read it as JSON: {error}") from None
    if not isinstance(baseline, dict) or baseline.get("format") != report_format:
        found = baseline.get("format") if isinstance(baseline, dict) else None
        raise GateError(f"--baseline {path}: not a {report_format} report (format {found!r})")
    theirs = (baseline.get("judged_against") or {}).get("requirements.yaml")
    if theirs != catalogue_hash:
        raise GateError(
            f"--baseline {path} was judged against another catalogue (requirements.yaml "
            f"{theirs or 'unknown'}, this run {catalogue_hash}): its verdicts cannot be compared; "
            "make a new baseline with this version of the suite"
        )
    return baseline


def apply(
    entries: list[dict[str, Any]],
    gate: Gate,
    stop: Stop | None = None,
    selection: Selection | None = None,
    no_one_target: str | None = None,
) -> dict[str, Any]:
    """The run's outcome from the requirement entries, how it ended (`stop`: it did not complete) and what it chose
    (`selection`): its verdict, what fails the run, and the exit status. The one place these are decided.
    `no_one_target`: why the verdicts are of no one target (a merge of runs of several): such a report never
    conforms; where nothing failed it is incomplete, with that reason.

    Marks waived entries (`entry["waiver"]`) as a side effect, so every format shows them.
    """
    waivers = {waiver.id: waiver for waiver in gate.waivers}
    before = _baseline_verdicts(gate.baseline)
    failing_levels = gate.gated_levels
    must_failed, should_failed, not_tested, gating, waived, known, suite_errors = [], [], [], [], [], [], []
    must_selected = must_total = 0
    for entry in entries:
        rid, level, result = entry["id"], entry["level"], entry["verdict"]
        waiver = waivers.get(rid)
        entry["waiver"] = waiver.to_dict(gate.today) if waiver else None
        if level == "MUST":
            must_total += 1
            must_selected += result != Verdict.NOT_SELECTED
        if result == Verdict.FAIL and level == "MUST":
            must_failed.append(rid)
        if result == Verdict.FAIL and level == "SHOULD":
            should_failed.append(rid)
        if result == Verdict.SUITE_ERROR:
            suite_errors.append(rid)
        if level == "MUST" and result in NOT_TESTED:
            not_tested.append({"id": rid, "verdict": result, "reason": entry["reason"]})
        counts = (result == Verdict.FAIL and level in failing_levels) or (
            gate.complete_required and level == "MUST" and result in NOT_TESTED
        )
        if not counts:
            continue
        if waiver and not waiver.expired(gate.today):
            waived.append(rid)
        elif before is not None and _already(before.get(rid), result):
            known.append(rid)
        else:
            gating.append(rid)
    fixed = [e["id"] for e in entries if e["verdict"] == Verdict.PASS and (before or {}).get(e["id"]) == Verdict.FAIL]
    # A waiver whose requirement the run looked at and did not fail, and that kept nothing from failing the run (a
    # run that did not complete looked at nothing through).
    verdicts = {entry["id"]: entry["verdict"] for entry in entries}
    unused = (
        []
        if stop is not None
        else [
            waiver.id
            for waiver in gate.waivers
            if waiver.id not in waived
            and verdicts.get(waiver.id) not in (None, Verdict.FAIL, Verdict.NOT_SELECTED, Verdict.SUITE_ERROR)
        ]
    )
    failed_now = [rid for rid in gating if any(e["id"] == rid and e["verdict"] == Verdict.FAIL for e in entries)]
    verdict: Outcome
    status: int | None
    if stop is not None:
        verdict, status = stop.outcome, stop.status
    elif suite_errors:
        verdict, status = Outcome.SUITE_ERROR, ExitStatus.SUITE_ERROR
    elif failed_now:
        verdict, status = Outcome.DOES_NOT_CONFORM, ExitStatus.DOES_NOT_CONFORM
    elif not any(entry["level"] == "MUST" and entry["verdict"] in JUDGED for entry in entries):
        verdict, status = Outcome.NOTHING_JUDGED, ExitStatus.NOTHING_JUDGED
    elif gating or (gate.complete_required and selection is not None) or (no_one_target and not must_failed):
        verdict, status = Outcome.INCOMPLETE, ExitStatus.INCOMPLETE
    elif must_failed:
        verdict, status = Outcome.DOES_NOT_CONFORM, ExitStatus.GATE_PASSES  # every failure waived or in the baseline
    elif gate.traffic:
        verdict, status = Outcome.CONFORMS_TO_WHAT_THE_TRAFFIC_SHOWED, ExitStatus.GATE_PASSES
    elif not_tested:
        verdict, status = Outcome.CONFORMS_TO_WHAT_WAS_TESTED, ExitStatus.GATE_PASSES
    elif selection is not None:
        verdict, status = Outcome.CONFORMS_ON_THE_SELECTION, ExitStatus.GATE_PASSES
    else:
        verdict, status = Outcome.CONFORMS, ExitStatus.GATE_PASSES
    reason = {}
    if verdict == Outcome.INCOMPLETE and no_one_target and not gating:
        reason = {"reason": no_one_target}
    elif verdict == Outcome.INCOMPLETE and selection is not None:
        reason = {
            "reason": f"the run chose part of the suite ({' '.join(selection.by)}), and the gate asks for the "
            "whole (--require-complete)"
        }
    return {
        **reason,
        "verdict": verdict,
        "conforms": stop is None
        and not must_failed
        and not suite_errors
        and verdict != Outcome.NOTHING_JUDGED
        and not no_one_target,
        "complete": not not_tested and selection is None and stop is None and not no_one_target,
        "must_failed": must_failed,
        "should_failed": should_failed,
        "must_not_tested": not_tested,
        "suite_errors": suite_errors,
        "selection": None
        if selection is None
        else {"by": list(selection.by), "must_selected": must_selected, "must_in_catalogue": must_total},
        "gate": {
            "strict": gate.strict,
            "require_complete": gate.complete_required,
            "levels": list(failing_levels),
            "failing": gating,
            "waived": waived,
            "unused_waivers": unused,
            "waivers": [waiver.to_dict(gate.today) for waiver in gate.waivers],
            "baseline": None
            if before is None
            else {
                "file": gate.baseline_name,
                "still_failing": known,
                "fixed": fixed,
                "new_failures": failed_now,
            },
        },
        "exit_status": None if status is None else int(status),
    }


def _already(before: str | None, now: str) -> bool:
    """Whether the baseline already had this: the same failure, or the same requirement not tested."""
    return before == now == Verdict.FAIL or (before in NOT_TESTED and now in NOT_TESTED)


def _baseline_verdicts(baseline: dict[str, Any] | None) -> dict[str, str] | None:
    if baseline is None:
        return None
    return {entry["id"]: entry["verdict"] for entry in baseline.get("requirements", [])}
