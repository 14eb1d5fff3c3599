"""conformance.md: the report for people, volatile values masked but for its code blocks (the curl lines and the
replays), written as they run.
"""

from __future__ import annotations

import html
from typing import Any

from wallet_conformance.reporting.entry_view import entry_view, kept_words
from wallet_conformance.reporting.report_header import header
from wallet_conformance.reporting.report_views import (
    TRAFFIC_COLUMNS,
    cell_counts,
    gate_lines,
    groups,
    held_words,
    judged_any,
    traffic_facts,
    traffic_rows,
)
from wallet_conformance.reporting.verdicts import Verdict
from wallet_conformance.reporting.volatile import mask
from wallet_conformance.spec.catalogue import LEVELS


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
            cells = [", ".join(f"{n} {v}" for v, n in cell_counts(counts[level])) or "-" for level in LEVELS]
            lines.append(f"| {title} | " + " | ".join(cells) + " |")
    totals = [", ".join(f"{n} {v}" for v, n in cell_counts(report["counts"][level])) or "-" for level in LEVELS]
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
