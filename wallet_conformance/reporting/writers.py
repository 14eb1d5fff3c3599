"""Every report file of a run, each a pure function of the one report dict (conformance.json).

- conformance.json: the source (reporting/conformance.py, schemas/conformance-report.json);
- conformance.md and conformance.html: for people (reporting/markdown_report.py, reporting/html_report.py); volatile
  values (loopback ports, timings, timestamps, run ids, uuids) masked so two reports of the same behaviour diff
  cleanly (reporting/volatile.py), but for the commands (the curl lines and the replays), written as they run; the
  HTML is one file that links to no other, its style and filtering script inline (reporting/html_assets.py); what
  both show alike is reporting/report_header.py, report_views.py and entry_view.py;
- junit.xml: one test case per requirement, named by its id, for CI dashboards (reporting/junit_report.py).

The Allure results are written during the run by allure-pytest (plugin/allure_labels.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wallet_conformance.client.redaction import conceal
from wallet_conformance.reporting.conformance import write_report, write_whole
from wallet_conformance.reporting.html_report import html_page
from wallet_conformance.reporting.junit_report import junit
from wallet_conformance.reporting.markdown_report import markdown

MARKDOWN = "conformance.md"
HTML = "conformance.html"
JUNIT = "junit.xml"


def write_all(report: dict[str, Any], directory: Path) -> list[Path]:
    """Write every format into `directory`; conformance.json first. Returns the paths written."""
    paths = [write_report(report, directory)]
    for name, render in ((MARKDOWN, markdown), (HTML, html_page), (JUNIT, junit)):
        path = directory / name
        write_whole(path, conceal(render(report)))
        paths.append(path)
    return paths
