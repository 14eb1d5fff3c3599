"""junit.xml: one test case per requirement, named by its id, for CI dashboards."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from wallet_conformance.reporting.entry_view import EVIDENCE_SHOWN, entry_view, waiver_words
from wallet_conformance.reporting.evidence import evidence_lines
from wallet_conformance.reporting.report_header import VERDICT_WORDS
from wallet_conformance.reporting.verdicts import NOT_TESTED, Verdict


def junit(report: dict[str, Any]) -> str:
    """One <testcase> per requirement, named `<ID> [<LEVEL>] <title>`, grouped in one <testsuite> per part.

    fail: <failure> (a waived one too, its message says so); suite error: <error>; blocked, skipped,
    untested: <skipped> with the reason; pass and observed: passed (observations in system-out). A requirement a
    selection left out is no case: the run did not look at it.
    A run that did not complete leads with a test suite of one case, `the run`, an <error> saying how it ended, so
    that a CI's test view is never green for it.
    """
    root = ET.Element("testsuites", name="wallet-conformance")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    stopped = report.get("stopped")
    if stopped:
        outcome = report["outcome"]
        suite = ET.SubElement(root, "testsuite", name="the run", tests="1", failures="0", errors="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname="wallet_conformance.run", name="the run", time="0")
        status = "no exit status yet" if outcome["exit_status"] is None else f"exit status {outcome['exit_status']}"
        ET.SubElement(
            case, "error", message=f"{VERDICT_WORDS[outcome['verdict']]} ({status}): {stopped['reason']}"
        ).text = stopped["reason"]
        totals["tests"] += 1
        totals["errors"] += 1
    by_section: dict[str, list[dict[str, Any]]] = {}
    for entry in report["requirements"]:
        if entry["verdict"] != Verdict.NOT_SELECTED:
            by_section.setdefault(entry["section"], []).append(entry)
    for section, entries in by_section.items():
        suite = ET.SubElement(root, "testsuite", name=f"{section}: {report['sections'].get(section, section)}")
        counts = dict.fromkeys(totals, 0)
        for entry in entries:
            counts["tests"] += 1
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"wallet_conformance.{section}",
                name=f"{entry['id']} [{entry['level']}] {entry['title']}",
                time="0",
            )
            _junit_outcome(case, entry, counts)
        for name, value in counts.items():
            suite.set(name, str(value))
            totals[name] += value
    for name, value in totals.items():
        root.set(name, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def _junit_outcome(case: ET.Element, entry: dict[str, Any], counts: dict[str, int]) -> None:
    verdict = entry["verdict"]
    detail = _evidence_text(entry)
    if verdict == Verdict.FAIL:
        counts["failures"] += 1
        waived = waiver_words(entry)
        prefix = f"[{waived}] " if waived else ""
        ET.SubElement(case, "failure", message=prefix + (entry["reason"] or "failed")).text = detail
    elif verdict == Verdict.SUITE_ERROR:
        counts["errors"] += 1
        ET.SubElement(case, "error", message=entry["reason"] or "suite error").text = detail
    elif verdict in NOT_TESTED:
        counts["skipped"] += 1
        ET.SubElement(case, "skipped", message=f"{verdict}: {entry['reason'] or 'no test ran for it'}")
    elif entry["observations"]:
        ET.SubElement(case, "system-out").text = "\n".join(
            json.dumps(observation, sort_keys=True, default=str) for observation in entry["observations"]
        )


def _evidence_text(entry: dict[str, Any]) -> str:
    lines = [" ".join(entry["quote"].split())]
    for item in entry["evidence"][:EVIDENCE_SHOWN]:
        lines += [item["title"], *evidence_lines(item)]
    if not entry["evidence"]:
        lines += [test["message"] for test in entry["tests"] if test["message"]][:1]
    for nodeid, script in entry_view(entry).replays:
        lines += ["", f"Replay of {nodeid}:", script]
    return "\n".join(lines)
