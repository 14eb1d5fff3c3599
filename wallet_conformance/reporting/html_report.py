"""conformance.html: one page that links to no other file, its style and filtering script inline
(reporting/html_assets.py), volatile values masked but for the commands.
"""

from __future__ import annotations

import html
from typing import Any

from wallet_conformance.reporting.entry_view import EntryView, entry_view, kept_words
from wallet_conformance.reporting.html_assets import SCRIPT, STYLE
from wallet_conformance.reporting.report_header import VERDICT_WORDS, header
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
        shown = cell_counts(counts)
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
