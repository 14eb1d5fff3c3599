"""The views of a report every human report shows alike: its groups of requirements, the counts of a part of the
document, the recorded traffic, the gate.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wallet_conformance.reporting.gating import UNUSED_WAIVERS
from wallet_conformance.reporting.verdicts import NOT_TESTED, Verdict
from wallet_conformance.spec.catalogue import LEVELS


def groups(report: dict[str, Any]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """Failures first, then suite errors, not tested (MUST first), observations, passes."""
    entries = report["requirements"]
    order = {level: index for index, level in enumerate(LEVELS)}

    def pick(verdicts: Iterable[Verdict]) -> list[dict[str, Any]]:
        chosen = [entry for entry in entries if entry["verdict"] in verdicts]
        return sorted(chosen, key=lambda entry: order[entry["level"]])

    return [
        ("failures", "Failures", pick((Verdict.FAIL,))),
        ("suite-errors", "Suite errors (the suite is wrong, not the target)", pick((Verdict.SUITE_ERROR,))),
        ("not-tested", "Not tested: blocked, skipped, untested (with reasons)", pick(NOT_TESTED)),
        (
            "observations",
            "Observations (the document says 'not shown': facts, not failures)",
            pick((Verdict.OBSERVED,)),
        ),
        ("passes", "Passes (held by checks of the tests, and by exchanges of the run)", pick((Verdict.PASS,))),
        (str(Verdict.NOT_SELECTED), "Not selected (the run chose part of the suite)", pick((Verdict.NOT_SELECTED,))),
    ]


def judged_any(counts: dict[str, dict[str, int]]) -> bool:
    """Whether a part of the document has a requirement the run did not leave out (a row of the tables)."""
    return any(count for level in LEVELS for verdict, count in counts[level].items() if verdict != Verdict.NOT_SELECTED)


def held_words(entry: dict[str, Any]) -> str:
    """How many checks and exchanges held a requirement: `3 checks, 120 exchanges`."""
    held = entry.get("held") or {}
    return f"{held.get('checks', 0)} checks, {held.get('exchanges', 0)} exchanges"


TRAFFIC_COLUMNS = ("exchanges", "judged", "2xx", "4xx", "5xx", "other")


def traffic_facts(report: dict[str, Any]) -> list[str]:
    """What recorded traffic held (--har, the proxy), in lines above its table; none for an active run."""
    traffic = report.get("traffic")
    if not traffic:
        return []
    unmatched = traffic["unmatched"]
    base = f"the base address {traffic['base_url']}" if traffic["base_url"] else "any base address of the document"
    notes = traffic.get("notes") or []  # the proxy's, and a merge's: what was not judged, what is not claimed
    facts = [f"files: {', '.join(traffic['files']) or 'none'}"] if traffic["files"] or not notes else []
    facts += [
        *notes,
        f"{traffic['entries']} entries; {traffic['outside']} outside {base}; "
        f"{unmatched['count']} of no operation of openapi.yaml",
    ]
    facts += [
        f"no operation: {item['file']} entry {item['entry']}: {item['request']} ({item['status']})"
        for item in unmatched["shown"]
    ]
    if unmatched["count"] > len(unmatched["shown"]):
        facts.append(f"... and {unmatched['count'] - len(unmatched['shown'])} more of no operation")
    return facts


def traffic_rows(report: dict[str, Any]) -> list[list[str]]:
    """Operations × exchanges seen in the recorded traffic (--har): one row per operation."""
    traffic = report.get("traffic") or {}
    return [
        [operation, *(str(row.get(column, 0)) for column in TRAFFIC_COLUMNS)]
        for operation, row in traffic.get("operations", {}).items()
    ]


def cell_counts(counts: dict[str, int]) -> list[tuple[str, int]]:
    return [(verdict, count) for verdict, count in counts.items() if count]


def gate_lines(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The gate as every human report shows it, (label, value) each: what fails the run, the MUST requirements not
    tested, the waivers, the baseline."""
    outcome, gate = report["outcome"], report["outcome"]["gate"]
    lines = [("failing the run", ", ".join(gate["failing"]) or "nothing")]
    if outcome["must_not_tested"]:
        lines.append(("MUST requirements not tested", ", ".join(item["id"] for item in outcome["must_not_tested"])))
    if gate["waived"]:
        lines.append(("waived", ", ".join(gate["waived"])))
    lines += [
        ("EXPIRED waiver", f"{waiver['id']} (expired {waiver['expires']}, {waiver['owner']})")
        for waiver in gate["waivers"]
        if waiver["expired"]
    ]
    if gate["unused_waivers"]:
        lines.append((UNUSED_WAIVERS, ", ".join(gate["unused_waivers"])))
    baseline = gate["baseline"]
    if baseline is not None:
        lines.append(
            (
                f"baseline {baseline['file']}",
                f"new failures {', '.join(baseline['new_failures']) or 'none'}; "
                f"still failing {', '.join(baseline['still_failing']) or 'none'}; "
                f"fixed {', '.join(baseline['fixed']) or 'none'}",
            )
        )
    return lines
