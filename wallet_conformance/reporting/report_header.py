"""The run's facts shown above every human report: the verdict and its words, the target, the gate, what the verdicts
rest on.
"""

from __future__ import annotations

from typing import Any

from wallet_conformance.reporting.alarms import alarms
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.reporting.volatile import mask
from wallet_conformance.settings import OPTIONS, command_line

VERDICT_WORDS = {
    Outcome.CONFORMS: "conforms",
    Outcome.CONFORMS_TO_WHAT_WAS_TESTED: "conforms to what could be tested",
    Outcome.CONFORMS_TO_WHAT_THE_TRAFFIC_SHOWED: "conforms to what the traffic showed",
    Outcome.DOES_NOT_CONFORM: "does NOT conform",
    Outcome.INCOMPLETE: "incomplete: MUST requirements not tested",
    Outcome.SUITE_ERROR: "SUITE ERROR: results cannot be trusted",
    Outcome.NOTHING_JUDGED: "NOTHING WAS JUDGED: no verdict on the target",
    Outcome.CONFORMS_ON_THE_SELECTION: "conforms on the selection",
    Outcome.INTERRUPTED: "INTERRUPTED: no verdict on the target",
    Outcome.STOPPED_EARLY: "STOPPED EARLY: no verdict on the target",
    Outcome.STOPPED_AT_PREFLIGHT: "STOPPED AT THE PREFLIGHT: no verdict on the target",
    Outcome.USAGE_ERROR: "USAGE ERROR: no verdict on the target",
    Outcome.UNFINISHED: "UNFINISHED: the run never wrote its ending",
}


def header(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The run's facts shown above every human report (no secret: the target's public fields only)."""
    outcome, target = report["outcome"], report["target"]
    where = target.get("base_url") or target.get("note") or "-"  # a merge of several targets: its note says which
    if target.get("embedded_reference"):
        where += " (the bundled reference)"
    judged = report["judged_against"]
    status = "no exit status yet" if outcome["exit_status"] is None else f"exit status {outcome['exit_status']}"
    rows = [
        (
            "verdict",
            f"{VERDICT_WORDS[outcome['verdict']]} ({status})"
            + (f": {outcome['reason']}" if outcome.get("reason") else ""),
        ),
        ("target", mask(where)),
        ("environment", report["environment"]),
        # A run's that sent requests, as its command gives it; recorded traffic, the proxy and a merge have none
        *([("seed", str(report["seed"]))] if "--seed" in report["run"].get("arguments", ()) else []),
        ("profile", report["run"].get("profile") or "-"),
        ("gate", _gate_words(report)),
        (
            "suite",
            f"wallet-conformance {report['suite_version']}; "
            + ", ".join(f"{name} {digest[:19]}" for name, digest in judged.items()),
        ),
    ]
    if report.get("stopped"):
        rows.insert(1, ("stopped", report["stopped"]["reason"]))
    selection = outcome.get("selection")
    if selection:
        rows.append(
            (
                "selection",
                f"{command_line(selection['by'])}: {selection['must_selected']} of the catalogue's "
                f"{selection['must_in_catalogue']} MUST requirements selected, the others not "
                "selected",
            )
        )
    rows += run_rows(report["run"])
    rows.extend(("ALARM", alarm) for alarm in alarms(report))
    return rows


_DEFAULTS = {option.attribute: option.default for option in OPTIONS}


def run_rows(run: dict[str, Any]) -> list[tuple[str, str]]:
    """What the run's verdicts rest on besides its target, environment, seed and profile (conformance.json's `run`):
    the bundled reference's faults, variants and timing when any is not the default, time bounds not at their
    default (those the command that reproduces the run gives), each file given with its sha256, pytest's selection,
    and the command that reproduces the run. Rows of the Markdown's and the HTML's header, and lines of the
    terminal's (plugin/session.py)."""
    rows: list[tuple[str, str]] = []
    reference = run.get("reference")
    if reference:
        facts = [f"{name} {', '.join(reference[name])}" for name in ("faults", "variants") if reference[name]]
        facts += [
            f"{name.replace('_', ' ')} {reference[name]:g} s"
            for name in ("settle_delay", "latency")
            if reference[name] != _DEFAULTS[f"reference_{name}"]
        ]
        if facts:
            rows.append(("reference", "; ".join(facts)))
    flags = {option.attribute: option.flag for option in OPTIONS}  # a bound not at its default is in the command
    bounds = [
        f"{name.replace('_', ' ')} {value:g} s"
        for name, value in (run.get("time_bounds") or {}).items()
        if flags[name] in run.get("arguments", ())
    ]
    if bounds:
        rows.append(("time bounds", ", ".join(bounds)))
    files: dict[str, list[str]] = {}
    for item in run.get("files") or ():
        files.setdefault(item["option"].removeprefix("--"), []).append(f"{item['file']} ({item['sha256']})")
    rows += [(name, "; ".join(shown)) for name, shown in files.items()]
    if run.get("pytest_selection"):
        rows.append(("pytest selection", command_line(run["pytest_selection"])))
    if run.get("reproduce"):
        rows.append(("reproduce with", run["reproduce"]))
    return rows


def _gate_words(report: dict[str, Any]) -> str:
    gate = report["outcome"]["gate"]
    words = ["MUST and SHOULD failures fail the run" if "SHOULD" in gate["levels"] else "MUST failures fail the run"]
    if gate["require_complete"]:
        words.append("an untested MUST requirement fails the run")
    if gate["waivers"]:
        words.append(f"{len(gate['waivers'])} waiver(s)")
    if gate["baseline"] is not None:
        words.append(f"baseline {gate['baseline']['file']}")
    return "; ".join(words)
