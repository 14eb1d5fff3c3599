"""Every report file of a run, each a pure function of the one report dict (conformance.json).

- conformance.json: the source (reporting/conformance.py, schemas/conformance-report.json);
- conformance.md and conformance.html: for people; volatile values (loopback ports, timings, timestamps, run ids,
  uuids) masked so two reports of the same behaviour diff cleanly, but for the commands (the curl lines and the
  replays), written as they run; the HTML is one file that links to no other, its style and filtering script inline
  (reporting/html_assets.py);
- junit.xml: one test case per requirement, named by its id, for CI dashboards.

The Allure results are written during the run by allure-pytest (plugin/allure_labels.py).
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wallet_conformance.client.redaction import conceal
from wallet_conformance.reporting.alarms import alarms
from wallet_conformance.reporting.conformance import write_report, write_whole
from wallet_conformance.reporting.evidence import evidence_lines
from wallet_conformance.reporting.gating import UNUSED_WAIVERS
from wallet_conformance.reporting.html_assets import SCRIPT, STYLE
from wallet_conformance.reporting.verdicts import NOT_TESTED, Outcome, Verdict
from wallet_conformance.settings import OPTIONS, command_line
from wallet_conformance.spec.catalogue import LEVELS

MARKDOWN = "conformance.md"
HTML = "conformance.html"
JUNIT = "junit.xml"
EVIDENCE_SHOWN = 3
REPLAYS_SHOWN = 3  # the replays a requirement's entry shows (conformance.json keeps every failing test's)
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

_VOLATILE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+"), r"\1:[port]"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "[timestamp]"),
    (re.compile(r"\b\d+ ms\b"), "[n] ms"),
    (re.compile(r"\bcf[0-9a-f]{8}(?:gw\d+)?(?![0-9a-f])"), "cf[run]"),  # a run id, not the start of a sha256
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "[uuid]"),
]


def mask(text: str) -> str:
    """`text` with the values that change from run to run of the same behaviour replaced."""
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def write_all(report: dict[str, Any], directory: Path) -> list[Path]:
    """Write every format into `directory`; conformance.json first. Returns the paths written."""
    paths = [write_report(report, directory)]
    for name, render in ((MARKDOWN, markdown), (HTML, html_page), (JUNIT, junit)):
        path = directory / name
        write_whole(path, conceal(render(report)))
        paths.append(path)
    return paths


# ------------------------------------------------------------------ shared views of the report


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


def _waiver_words(entry: dict[str, Any]) -> str | None:
    waiver = entry.get("waiver")
    if not waiver:
        return None
    state = "EXPIRED waiver" if waiver["expired"] else "waived"
    return f"{state} until {waiver['expires']} by {waiver['owner']}: {waiver['reason']}"


def _cell_counts(counts: dict[str, int]) -> list[tuple[str, int]]:
    return [(verdict, count) for verdict, count in counts.items() if count]


# ------------------------------------------------------------------ Markdown


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


@dataclass(frozen=True)
class EntryView:
    """One requirement's entry as every human report shows it: what the Markdown and the HTML both render."""

    waived: str | None  # the waiver's words, when one holds the requirement
    quote: str  # the document's words, on one line
    reason: str | None  # why it was not judged (a failure's reason is its evidence)
    observations: list[str]  # each observation's facts, as JSON
    evidence: list[tuple[dict[str, Any], list[tuple[dict[str, Any], bool]]]]  # item, [(exchange, compared with)]
    tests: list[str]  # the first tests that cover it
    more_tests: bool  # more tests than those shown
    replays: list[tuple[str, str]]  # (test, script): the replay of each test that failed it (client/replay.py)
    kept: list[list[str]]  # the wallets each failing test left open (--keep-failing-records)


def entry_view(entry: dict[str, Any]) -> EntryView:
    """What the human reports show of one requirement's entry."""
    evidence = []
    for item in entry["evidence"][:EVIDENCE_SHOWN]:
        shown = [exchange for exchange in [item.get("exchange"), *item.get("compared_with", ())] if exchange]
        evidence.append((item, [(exchange, exchange is not item.get("exchange")) for exchange in shown]))
    tests = [test["nodeid"] for test in entry["tests"]]
    return EntryView(
        waived=_waiver_words(entry),
        quote=" ".join(entry["quote"].split()),
        reason=entry["reason"] if entry["reason"] and entry["verdict"] != Verdict.FAIL else None,
        observations=[
            json.dumps(
                {key: value for key, value in observation.items() if key != "requirement"}, sort_keys=True, default=str
            )
            for observation in entry["observations"]
        ],
        evidence=evidence,
        tests=tests[:5],
        more_tests=len(tests) > 5,
        replays=[(test["nodeid"], test["replay"]) for test in entry["tests"] if test.get("replay")][:REPLAYS_SHOWN],
        kept=[test["kept"] for test in entry["tests"] if test.get("kept")],
    )


def kept_words(kept: list[str]) -> str:
    """What --keep-failing-records left open for a failing test, and how it is closed later."""
    return (
        f"kept open for inspection (--keep-failing-records): {', '.join(kept)}; `wallet-conformance --cleanup` "
        "closes them"
    )


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Wallet Service API conformance report", "", "| | |", "|---|---|"]
    lines += [f"| {name} | {_md(value)} |" for name, value in header(report)]
    lines += [
        "",
        "## By part of the document",
        "",
        "| part | " + " | ".join(LEVELS) + " |",
        "|---|" + "---|" * len(LEVELS),
    ]
    for section, title in report["sections"].items():
        counts = report["counts_by_section"][section]
        if judged_any(counts):
            cells = [", ".join(f"{n} {v}" for v, n in _cell_counts(counts[level])) or "-" for level in LEVELS]
            lines.append(f"| {title} | " + " | ".join(cells) + " |")
    totals = [", ".join(f"{n} {v}" for v, n in _cell_counts(report["counts"][level])) or "-" for level in LEVELS]
    lines.append("| **all** | " + " | ".join(totals) + " |")
    lines += _markdown_gate(report)
    if report.get("traffic"):
        lines += ["", "## Recorded traffic", ""] + [f"- {_md(fact)}" for fact in traffic_facts(report)]
        lines += ["", "| operation | " + " | ".join(TRAFFIC_COLUMNS) + " |", "|---|" + "---|" * len(TRAFFIC_COLUMNS)]
        lines += ["| " + " | ".join(row) + " |" for row in traffic_rows(report)]
    for _, title, entries in groups(report):
        if not entries:
            continue
        lines += ["", f"## {title} ({len(entries)})", ""]
        if entries[0]["verdict"] == Verdict.PASS:
            lines += ["| id | level | requirement | held by |", "|---|---|---|---|"]
            lines += [f"| {e['id']} | {e['level']} | {_md(e['title'])} | {held_words(e)} |" for e in entries]
            continue
        if entries[0]["verdict"] == Verdict.NOT_SELECTED:
            lines += [f"{entries[0]['reason']}: {', '.join(e['id'] for e in entries)}"]
            continue
        for entry in entries:
            lines += _markdown_entry(entry)
    return "\n".join(_masked_outside_code(lines)) + "\n"


def _masked_outside_code(lines: list[str]) -> list[str]:
    """The Markdown's lines with volatile values masked, but for its code blocks (curl lines, replays): a command
    copied from the report runs as written."""
    masked, code = [], False
    for line in lines:
        masked.append(line if code or line.startswith("```") else mask(line))
        code = code != line.startswith("```")
    return masked


def _markdown_gate(report: dict[str, Any]) -> list[str]:
    return ["", "## Gate", "", *(f"- {label}: {value}" for label, value in gate_lines(report))]


def _markdown_entry(entry: dict[str, Any]) -> list[str]:
    view = entry_view(entry)
    lines = [f"### {entry['id']} · {entry['level']} · {entry['verdict']} · {_md(entry['title'])}", ""]
    if view.waived:
        lines += [f"**{_md(view.waived)}**", ""]
    lines += [f"> {_md(view.quote)}", ""]
    if view.reason:
        lines += [f"Reason: {_md(view.reason)}", ""]
    lines += [f"- observed: {_code(facts)}" for facts in view.observations] + ([""] if view.observations else [])
    for item, exchanges in view.evidence:
        lines += [f"**{_md(item['title'])}**", ""]
        if "expected" in item:
            lines += [f"- expected: {_code(item['expected'])}", f"- received: {_code(item['received'])}"]
        if item.get("first_seen_in"):  # the exchange judge's: the test, or the recorded file and entry (--har)
            lines.append(f"- first seen in: {_code(item['first_seen_in'])}")
        for exchange, compared in exchanges:
            if compared:
                lines += ["", "Compared with:", ""]
            lines.append(
                f"- request: {_code(exchange['request'])}"
                + (f" body {_code(exchange['request_body'])}" if exchange["request_body"] else "")
            )
            lines.append(f"- response: {exchange['status']} {_code(exchange['response'])}")
            lines += ["", "Reproduce with:", "", "```sh", exchange["curl"], "```"]
        lines.append("")
    for kept in view.kept:
        lines += [f"- {_md(kept_words(kept))}", ""]
    for nodeid, script in view.replays:
        lines += [
            f"<details><summary>Replay of <code>{html.escape(nodeid)}</code> (bash; curl, python3)</summary>",
            "",
            "```sh",
            script.rstrip("\n"),
            "```",
            "",
            "</details>",
            "",
        ]
    if view.tests:
        lines += ["Tests: " + ", ".join(f"`{test}`" for test in view.tests) + (" ..." if view.more_tests else ""), ""]
    return lines


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """An inline code span that survives backticks and table pipes in the value."""
    text = _md(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


# ------------------------------------------------------------------ HTML


def _h(text: Any) -> str:
    """Masked (volatile values), then escaped."""
    return html.escape(mask(str(text)), quote=True)


REPLAY_LABEL = "Replay (bash; needs curl and python3):"


def part_names(report: dict[str, Any]) -> dict[str, str]:
    """Each part of the document as the HTML names it, numbered in the document's order: `§2 Resources and ...`."""
    return {section: f"§{number} {title}" for number, (section, title) in enumerate(report["sections"].items(), 1)}


def html_page(report: dict[str, Any]) -> str:
    """One self-contained page (inline style and script, no link to another file, no network) that opens from
    file://: each requirement with its part of the document and the document's words, a search box and filters by
    part, level and verdict; with scripts off, everything shows."""
    outcome = report["outcome"]
    named = part_names(report)
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>Wallet Service API conformance report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>Wallet Service API conformance report</h1>",
        f'<p><span class="verdict v-{_h(outcome["verdict"])}" id="verdict">'
        f"{_h(VERDICT_WORDS[outcome['verdict']])}</span></p>",
        '<table id="header">',
    ]
    rows = header(report)
    page += [f"<tr><th>{_h(name)}</th><td>{_h(value)}</td></tr>" for name, value in rows]
    run = report["run"]  # the one volatile row, kept: a person wants to know when it ran
    page.append(
        f"<tr><th>run</th><td>started {html.escape(str(run.get('started_at') or '-'))}, "
        f"took {html.escape(str(run.get('duration')))} s</td></tr>"
    )
    page.append("</table>")
    page += _html_table(report, named)
    page += _html_gate(report)
    if report.get("traffic"):
        page += [
            '<h2 id="traffic">Recorded traffic</h2>',
            "<ul>" + "".join(f"<li>{_h(fact)}</li>" for fact in traffic_facts(report)) + "</ul>",
            '<table id="traffic-table"><tr><th>operation</th>'
            + "".join(f"<th>{_h(column)}</th>" for column in TRAFFIC_COLUMNS)
            + "</tr>",
        ]
        page += ["<tr>" + "".join(f"<td>{_h(cell)}</td>" for cell in row) + "</tr>" for row in traffic_rows(report)]
        page.append("</table>")
    page.append(_html_filters(report, named))
    for group, title, entries in groups(report):
        if not entries:
            continue
        page.append(f'<section class="group"><h2 id="{group}">{_h(title)} ({len(entries)})</h2>')
        if group == "passes":
            page.append(_html_rows("show the passed requirements", entries, named))
        elif group == Verdict.NOT_SELECTED:
            page += [
                f"<p>{_h(entries[0]['reason'])}</p>",
                _html_rows("show the requirements not selected", entries, named),
            ]
        else:
            page += [_html_entry(entry, named) for entry in entries]
        page.append("</section>")
    page += [f"<script>{SCRIPT}</script>", "</body></html>"]
    return "\n".join(page) + "\n"


def _html_table(report: dict[str, Any], named: dict[str, str]) -> list[str]:
    rows = [
        '<h2 id="summary">By part of the document</h2>',
        '<table id="summary-table">',
        "<tr><th>part of the document</th>" + "".join(f"<th>{level}</th>" for level in LEVELS) + "</tr>",
    ]

    def cell(counts: dict[str, int]) -> str:
        shown = _cell_counts(counts)
        badges = "".join(f'<span class="b b-{_h(v)}">{n} {_h(v)}</span>' for v, n in shown)
        return badges or '<span class="muted">-</span>'

    for section in report["sections"]:
        counts = report["counts_by_section"][section]
        if judged_any(counts):
            rows.append(
                f"<tr><td>{_h(named[section])}</td>"
                + "".join(f"<td>{cell(counts[level])}</td>" for level in LEVELS)
                + "</tr>"
            )
    rows.append(
        "<tr><th>all</th>" + "".join(f"<td>{cell(report['counts'][level])}</td>" for level in LEVELS) + "</tr></table>"
    )
    return rows


def _html_gate(report: dict[str, Any]) -> list[str]:
    lines = gate_lines(report)
    items = [
        f"{_h(label)}: <b>{_h(value)}</b>" if index == 0 else f"{_h(label)}: {_h(value)}"
        for index, (label, value) in enumerate(lines)
    ]  # what fails the run, in bold
    return ['<h2 id="gate">Gate</h2>', "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"]


def _html_filters(report: dict[str, Any], named: dict[str, str]) -> str:
    """The search box and the filters, hidden until the script shows them: each <select> is named after the
    attribute of a requirement's element it compares (data-part, data-level, data-verdict)."""
    present = {entry["verdict"] for entry in report["requirements"]}

    def select(name: str, choices: list[tuple[str, str]]) -> str:
        options = "".join(f'<option value="{_h(value)}">{_h(words)}</option>' for value, words in choices)
        return (
            f'<label>{name} <select id="filter-{name}" name="{name}"><option value="">all</option>{options}'
            "</select></label>"
        )

    return "".join(
        [
            '<div id="filters" hidden>',
            '<label>Search <input type="search" id="search" placeholder="id, words, test, status..."></label>',
            select("part", list(named.items())),
            select("level", [(level, level) for level in LEVELS]),
            select("verdict", [(verdict, verdict) for verdict in Verdict if verdict in present]),
            '<output id="shown"></output></div>',
        ]
    )


def _data(entry: dict[str, Any]) -> str:
    """The attributes of a requirement's element that the filters compare (html_assets.SCRIPT)."""
    return f'data-part="{_h(entry["section"])}" data-level="{_h(entry["level"])}" data-verdict="{_h(entry["verdict"])}"'


def _html_rows(summary: str, entries: list[dict[str, Any]], named: dict[str, str]) -> str:
    """A folded table of requirements, one row each: id, level, part, what is checked with the document's words, and
    what held it."""
    rows = [
        f'<tr id="{_h(e["id"])}" {_data(e)}><td>{_h(e["id"])}</td><td>{_h(e["level"])}</td>'
        f"<td>{_h(named.get(e['section'], e['section']))}</td><td>{_h(e['title'])}"
        f'<div class="quote">{_h(entry_view(e).quote)}</div></td><td>{_h(held_words(e))}</td></tr>'
        for e in entries
    ]
    return (
        f"<details><summary>{_h(summary)}</summary><table><tr><th>requirement</th><th>level</th><th>part</th>"
        "<th>what is checked, and the document's words</th><th>held by</th></tr>" + "".join(rows) + "</table></details>"
    )


def _html_entry(entry: dict[str, Any], named: dict[str, str]) -> str:
    view = entry_view(entry)
    parts = [
        f'<div class="req {_h(entry["verdict"])}" id="{_h(entry["id"])}" {_data(entry)}>',
        f'<h3>{_h(entry["id"])} <span class="b b-{_h(entry["verdict"])}">{_h(entry["verdict"])}</span> '
        f'<span class="muted">{_h(entry["level"])}</span> {_h(entry["title"])}</h3>',
        f'<p class="part">{_h(named.get(entry["section"], entry["section"]))}</p>',
    ]
    if view.waived:
        parts.append(f'<p class="waiver">{_h(view.waived)}</p>')
    parts.append(f"<blockquote>{_h(view.quote)}</blockquote>")
    if view.reason:
        parts.append(f"<p>Reason: {_h(view.reason)}</p>")
    if view.observations:
        parts.append(
            "<ul>" + "".join(f"<li>observed: <code>{_h(facts)}</code></li>" for facts in view.observations) + "</ul>"
        )
    for item, exchanges in view.evidence:
        parts.append(f'<div class="evidence"><p><b>{_h(item["title"])}</b></p>')
        if "expected" in item:
            parts.append(
                f"<table><tr><th>expected</th><td><code>{_h(item['expected'])}</code></td></tr>"
                f"<tr><th>received</th><td><code>{_h(item['received'])}</code></td></tr></table>"
            )
        if item.get("first_seen_in"):
            parts.append(f"<p>first seen in: <code>{_h(item['first_seen_in'])}</code></p>")
        for exchange, compared in exchanges:
            if compared:
                parts.append("<p>compared with:</p>")
            body = f"\n  body: {exchange['request_body']}" if exchange["request_body"] else ""
            parts.append(
                f"<pre>request:  {_h(exchange['request'])}{_h(body)}\n"
                f"response: {_h(exchange['status'])} {_h(exchange['response'])}</pre>"
            )
            parts.append(f'<p>Reproduce with:</p><pre class="curl">{html.escape(exchange["curl"])}</pre>')
        parts.append("</div>")
    parts += _html_tests(entry, view)
    parts.append("</div>")
    return "".join(parts)


def _html_tests(entry: dict[str, Any], view: EntryView) -> list[str]:
    """The tests that cover a requirement, the first few and every one with a replay, each replay under its test.
    A replay is written as given, unmasked, so that the element's text is the script itself; the newline after
    <pre> is the one an HTML parser drops, so a script's own first line stays whole."""
    tests = [test for index, test in enumerate(entry["tests"]) if index < len(view.tests) or test.get("replay")]
    if not tests:
        return []
    items = []
    for test in tests:
        replay = test.get("replay")
        item = f"<li><code>{_h(test['nodeid'])}</code>"
        if test.get("kept"):
            item += f"<p>{_h(kept_words(test['kept']))}</p>"
        if replay:
            item += (
                f'<p>{_h(REPLAY_LABEL)}</p><pre class="replay" data-test="{html.escape(test["nodeid"])}">\n'
                f"{html.escape(replay, quote=False)}</pre>"
            )
        items.append(item + "</li>")
    more = '<p class="muted">...</p>' if len(entry["tests"]) > len(tests) else ""
    return ['<p class="muted">tests:</p><ul class="tests">', *items, "</ul>" + more]


# ------------------------------------------------------------------ JUnit


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
        waived = _waiver_words(entry)
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
