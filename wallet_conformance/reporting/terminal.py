"""The terminal summary at the end of a run: a pure function of the report (conformance.json's dict)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wallet_conformance.client.redaction import conceal
from wallet_conformance.reporting.alarms import alarms
from wallet_conformance.reporting.conformance import run_inputs
from wallet_conformance.reporting.endings import NOT_REACHED
from wallet_conformance.reporting.gating import UNUSED_WAIVERS
from wallet_conformance.reporting.verdicts import NOT_TESTED, Outcome, Verdict
from wallet_conformance.reporting.writers import (
    TRAFFIC_COLUMNS,
    VERDICT_WORDS,
    judged_any,
    run_rows,
    traffic_facts,
    traffic_rows,
)
from wallet_conformance.settings import Settings, command_line
from wallet_conformance.spec.catalogue import LEVELS

HEADLINES = {
    Outcome.CONFORMS: "The target conforms: every MUST requirement was tested and passed.",
    Outcome.CONFORMS_TO_WHAT_WAS_TESTED: "The target conforms TO WHAT COULD BE TESTED: no tested MUST requirement "
    "failed, but some MUST requirements were not tested (listed above).",
    Outcome.CONFORMS_TO_WHAT_THE_TRAFFIC_SHOWED: "The target conforms TO WHAT THE TRAFFIC SHOWED: no recorded "
    "exchange broke a requirement; requirements no exchange judged are "
    "untested.",
    Outcome.DOES_NOT_CONFORM: "The target does NOT conform (the broken requirements are listed above).",
    Outcome.INCOMPLETE: "INCOMPLETE: MUST requirements were not tested and the gate requires them "
    "(--require-complete or --strict).",
    Outcome.SUITE_ERROR: "SUITE ERROR: the suite itself is wrong (see above); these results cannot be trusted.",
    Outcome.NOTHING_JUDGED: "NOTHING WAS JUDGED: no MUST requirement passed or failed, so this run says nothing of "
    "the target.",
    Outcome.CONFORMS_ON_THE_SELECTION: "The target conforms ON THE SELECTION: every MUST requirement the selection "
    "held was tested and passed; the others were not selected.",
    Outcome.INTERRUPTED: "INTERRUPTED: the run did not finish, so it says nothing of the target as a whole; the "
    "verdicts judge only what ran, and the requirements it had not reached are not reached.",
    Outcome.STOPPED_EARLY: "STOPPED EARLY: the suite stopped the run, so it says nothing of the target as a whole; "
    "the verdicts judge only what ran.",
    Outcome.STOPPED_AT_PREFLIGHT: "STOPPED AT THE PREFLIGHT: no test ran, so this run says nothing of the target.",
    Outcome.USAGE_ERROR: "USAGE ERROR: nothing started, so this run says nothing of the target.",
    Outcome.UNFINISHED: "UNFINISHED: the run never wrote its ending.",
}


def header_lines(settings: Settings) -> list[str]:
    """The run's header: its target and everything else its verdicts rest on, as conformance.json's `run` records
    them, ending with the command that reproduces the run."""
    if settings.passive:
        lines = [f"judging recorded traffic ({len(settings.har)} HAR file(s)); nothing is sent"]
    else:
        where = settings.base_url or "the bundled reference server (started for this run)"
        lines = [
            f"target {where}, environment {settings.environment}, seed {settings.seed}, profile {settings.profile}"
        ]
        if settings.generation_seed != settings.seed:
            lines.append(f"generated tests: seed {settings.generation_seed} (--hypothesis-seed)")
    gate = [
        flag for flag, on in (("--strict", settings.strict), ("--require-complete", settings.require_complete)) if on
    ]
    if gate:
        lines.append(f"gate: {' '.join(gate)}")
    if settings.choice_words:
        lines.append(f"selected: {' '.join(settings.choice_words)}")
    lines += [f"{name}: {value}" for name, value in run_rows(run_inputs(settings))]
    return [conceal(f"wallet-conformance: {line}") for line in lines]


def _cell(counts: dict[str, int]) -> str:
    """`3/1/0/2` style: pass (or observed), fail, skip (skip, blocked, untested), suite error when any."""
    passed = counts[Verdict.PASS] + counts[Verdict.OBSERVED]
    skipped = sum(counts[verdict] for verdict in NOT_TESTED)
    cell = f"{passed}/{counts[Verdict.FAIL]}/{skipped}"
    return cell + f"/{counts[Verdict.SUITE_ERROR]}E" if counts[Verdict.SUITE_ERROR] else cell


def table(report: dict[str, Any]) -> list[str]:
    """One row per part of the document: pass/fail/not-tested per level."""
    name_width = max(len(f"{section} {title}") for section, title in report["sections"].items())
    lines = [
        f"{'part of the document':{name_width}} " + " ".join(f"{level:>12}" for level in LEVELS),
        f"{'':{name_width}} " + " ".join(f"{'ok/fail/skip':>12}" for _ in LEVELS),
    ]
    for section, title in report["sections"].items():
        counts = report["counts_by_section"][section]
        if not judged_any(counts):
            continue
        lines.append(
            f"{section + ' ' + title:{name_width}} " + " ".join(f"{_cell(counts[level]):>12}" for level in LEVELS)
        )
    lines.append(f"{'all':{name_width}} " + " ".join(f"{_cell(report['counts'][level]):>12}" for level in LEVELS))
    return lines


def summary(report: dict[str, Any], written: Sequence[Path] = ()) -> list[str]:
    """The lines printed after a run."""
    entries = {entry["id"]: entry for entry in report["requirements"]}
    outcome = report["outcome"]
    gate = outcome["gate"]
    judged = any(entry["verdict"] not in (*NOT_TESTED, Verdict.NOT_SELECTED) for entry in report["requirements"])
    lines = table(report) if judged or not report.get("stopped") else []
    rows = traffic_rows(report)
    if report.get("traffic"):
        lines.append("recorded traffic: " + "; ".join(traffic_facts(report)[:2]))
        lines.append(f"  {'operation':<24} " + " ".join(f"{column:>9}" for column in TRAFFIC_COLUMNS))
        lines.extend(f"  {row[0]:<24} " + " ".join(f"{cell:>9}" for cell in row[1:]) for row in rows)
    for level in ("MUST", "SHOULD"):
        failed = outcome["must_failed" if level == "MUST" else "should_failed"]
        if failed:
            tail = "" if level in gate["levels"] else " (reported; they fail the run only with --strict)"
            lines.append(f"{level} requirements broken: {', '.join(failed)}{tail}")
            lines.extend(f"  {rid} {entries[rid]['title']}{_waived(entries[rid])}" for rid in failed)
    if outcome["suite_errors"]:
        lines.append(f"SUITE ERRORS (the suite is wrong, not the target): {', '.join(outcome['suite_errors'])}")
        lines.extend(f"  {rid}: {entries[rid]['reason']}" for rid in outcome["suite_errors"])
    if outcome["must_not_tested"]:
        lines.append(f"MUST requirements NOT tested ({len(outcome['must_not_tested'])}):")
        # One line per verdict and reason, the requirements it holds for first (a run stopped by a failing target
        # blocks tens of them for one reason); a passive run says why it has untested ones ("needs an active run").
        grouped: dict[tuple[str, str], list[str]] = {}
        for item in outcome["must_not_tested"]:
            grouped.setdefault((item["verdict"], item["reason"] or "no test ran for"), []).append(item["id"])
        for (verdict, reason), ids in sorted(grouped.items(), key=lambda group: group[0][0] == Verdict.UNTESTED):
            if report.get("stopped") and reason == NOT_REACHED.get(report["stopped"]["outcome"]):
                lines.append(f"  {reason}: {len(ids)} (listed in conformance.json)")
            elif verdict == Verdict.UNTESTED:
                lines.extend(
                    textwrap.wrap(
                        f"{reason}: {', '.join(ids)}", width=110, initial_indent="  ", subsequent_indent="    "
                    )
                )
            else:
                lines.append(f"  {', '.join(ids)} [{verdict}] {reason}")
    baseline = gate["baseline"]
    if baseline is not None:
        lines.append(
            f"baseline {baseline['file']}: new failures {_ids(baseline['new_failures'])}, "
            f"still failing {_ids(baseline['still_failing'])}, fixed {_ids(baseline['fixed'])}"
        )
    if gate["waived"]:
        lines.append(f"waived (not failing the run): {', '.join(gate['waived'])}")
    expired = [waiver["id"] for waiver in gate["waivers"] if waiver["expired"]]
    if expired:
        lines.append(f"EXPIRED waivers (they no longer hold): {', '.join(expired)}")
    if gate["unused_waivers"]:
        lines.append(f"{UNUSED_WAIVERS}: {', '.join(gate['unused_waivers'])}")
    lines.extend(alarms(report))
    exchanges = report["run"].get("exchanges") or {}
    if exchanges.get("judge_errors"):
        lines.append(
            f"COULD NOT JUDGE {exchanges['judge_errors']} exchange(s): the exchange judge failed on them (a "
            f"bug of the suite, or input no parser takes); the first: {exchanges.get('first_judge_error')}"
        )
    if exchanges.get("made"):
        lines.append(f"exchanges: {exchanges['made']} made, {exchanges['judged']} judged by the exchange judge")
    kept = sorted(
        {wallet for entry in report["requirements"] for test in entry["tests"] for wallet in test.get("kept", ())}
    )
    if kept:
        lines.append(
            f"kept open for inspection (--keep-failing-records): {len(kept)} wallet(s) of failing tests, "
            f"each named in the reports ({', '.join(kept[:5])}{', ...' if len(kept) > 5 else ''}); "
            "`wallet-conformance --cleanup` closes them"
        )
    if written:
        folder = Path(written[0]).parent
        lines.append(f"Reports in {folder}: {', '.join(Path(path).name for path in written)}")
    lines.append(HEADLINES[outcome["verdict"]])
    selection = outcome.get("selection")
    if selection:
        lines.append(
            f"  selection {command_line(selection['by'])}: {selection['must_selected']} of the catalogue's "
            f"{selection['must_in_catalogue']} MUST requirements selected, the others not selected"
        )
    if report.get("stopped"):
        lines.append(f"  {report['stopped']['reason']}")
    if outcome.get("reason"):
        lines.append(f"  {outcome['reason']}")
    if outcome["verdict"] == Outcome.DOES_NOT_CONFORM and outcome["exit_status"] == 0:
        lines.append("The gate passes: every failure is waived or already in the baseline.")
    lines.append(exit_line(report))
    return lines


def exit_line(report: dict[str, Any]) -> str:
    """The exit status the report gives, with what fails the run."""
    outcome = report["outcome"]
    failing = outcome["gate"]["failing"]
    if outcome["exit_status"] is None:
        return "exit status: none yet (the run had not ended)"
    return f"exit status {outcome['exit_status']}" + (f": gated by {', '.join(failing)}" if failing else "")


def last_line(report: dict[str, Any]) -> str:
    """The last line of a run's output, after pytest's own: its outcome and its exit status."""
    return f"wallet-conformance: {VERDICT_WORDS[report['outcome']['verdict']]}; {exit_line(report)}"


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(ids) if ids else "none"


def _waived(entry: dict[str, Any]) -> str:
    waiver = entry.get("waiver")
    if not waiver:
        return ""
    state = "EXPIRED" if waiver["expired"] else "waived"
    return f" [{state} until {waiver['expires']}, {waiver['owner']}: {waiver['reason']}]"
