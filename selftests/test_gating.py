"""Release gating end to end: the suite against the reference with two faults on, in every report format,
with waivers, expired waivers and baselines; no key in anything written; the HTML page in a real browser;
`--lf` with the cache in the work folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from selftests.browser import FLAGS, NO_BROWSER, chromium
from selftests.suite_runs import HAND_WRITTEN, RUN_TIMEOUT, run_suite, tail
from wallet_conformance.client.redaction import PLACEHOLDER
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.spec.files import ROOT

FAULTS = {"wrong-close-message": "SVC-12", "bank-prefix": "RES-05"}
BROKEN = list(FAULTS.values())  # in catalogue order, as reports list them
PASSING = "SVC-03"  # selected too: it must stay a pass while the faults are on
# The hand-written tests of the chosen requirements: a generated test names many requirements at once.
SELECTION = (*(arg for rid in (*BROKEN, PASSING) for arg in ("--requirement", rid)), *HAND_WRITTEN)
FAULT_ARGS = tuple(arg for fault in FAULTS for arg in ("--reference-fault", fault))
KEY = "sk_test_reports_gate_do_not_leak_7c1e5a"


def verdicts(report: dict) -> dict[str, str]:
    """The verdicts of the requirements the run looked at (those a selection left out are not-selected)."""
    return {entry["id"]: entry["verdict"] for entry in report["requirements"] if entry["verdict"] != "not-selected"}


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess, dict]:
    """One run against a reference with both faults on, given by URL and a recognisable key."""
    directory = tmp_path_factory.mktemp("failing")
    with ReferenceServer(secret_key=KEY, faults=list(FAULTS)) as server:
        process, report, _ = run_suite(
            directory,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--funding-url",
            server.funding_url,
            *SELECTION,
            "--showlocals",
            "-rA",
            "--alluredir",
            str(directory / "allure-results"),
        )
    assert report is not None, tail(process)
    return directory, process, report


def test_two_faults_fail_exactly_their_requirements_in_every_format(failing):
    """The faults' requirements, and only they, fail in conformance.json, Markdown, HTML, JUnit and Allure,
    each with its evidence (expected/received and a curl line); the run exits 1."""
    directory, process, report = failing
    assert process.returncode == 1, tail(process)
    assert verdicts(report) == {**dict.fromkeys(BROKEN, "fail"), PASSING: "pass"}
    assert report["outcome"]["gate"]["failing"] == BROKEN
    for rid in BROKEN:
        entry = next(e for e in report["requirements"] if e["id"] == rid)
        assert entry["evidence"] and entry["evidence"][0]["received"] and entry["evidence"][0]["exchange"]["curl"]
    md = (directory / "conformance.md").read_text()
    failures = md.split("## Failures (2)")[1].split("\n## ")[0]
    assert all(f"### {rid} · MUST · fail" in failures for rid in BROKEN) and failures.count("Reproduce with") >= 2
    page = (directory / "conformance.html").read_text()
    assert all(f'<div class="req fail" id="{rid}" ' in page for rid in BROKEN) and PASSING in page
    cases = {case.get("name").split()[0]: case for case in ET.parse(directory / "junit.xml").getroot().iter("testcase")}
    assert {rid for rid, case in cases.items() if case.find("failure") is not None} == set(BROKEN)
    assert all("Reproduce with" in cases[rid].find("failure").text for rid in BROKEN)
    labels: dict[str, str] = {}
    for path in (directory / "allure-results").glob("*-result.json"):
        result = json.loads(path.read_text())
        for label in result["labels"]:
            if label["name"] == "requirement":
                labels[label["value"]] = result["status"]
        if result["status"] == "failed":
            assert result.get("attachments"), f"{result['name']}: no exchange attached"
    assert {rid for rid, status in labels.items() if status == "failed"} == set(BROKEN)
    assert f"MUST requirements broken: {', '.join(BROKEN)}" in process.stdout


def test_no_key_in_anything_the_run_wrote(failing):
    """The key appears in no file under the report directory (Allure attachments and JUnit included),
    nor in the terminal output, although the run failed with --showlocals."""
    directory, process, _ = failing
    written = [path for path in directory.rglob("*") if path.is_file()]
    assert any(path.parent.name == "allure-results" for path in written)
    leaks = [path.name for path in written if KEY.encode() in path.read_bytes()]
    assert leaks == [] and KEY not in process.stdout + process.stderr
    assert PLACEHOLDER in (directory / "conformance.md").read_text()  # the curl lines are there, redacted


def write_waivers(path: Path, expires: str) -> Path:
    path.write_text(
        "\n".join(
            f"- id: {rid}\n  reason: known, fix planned\n  owner: payments-team\n  expires: {expires}" for rid in BROKEN
        )
        + "\n"
    )
    return path


def test_unexpired_waivers_pass_the_gate_and_keep_the_failures_visible(tmp_path):
    """Both failures waived until a future date: exit 0, and every format still shows them, marked waived."""
    waivers = write_waivers(tmp_path / "waivers.yaml", "2999-12-31")
    process, report, _ = run_suite(tmp_path / "out", *FAULT_ARGS, *SELECTION, "--waivers", str(waivers))
    assert process.returncode == 0, tail(process)
    assert [rid for rid, verdict in verdicts(report).items() if verdict == "fail"] == BROKEN
    assert report["outcome"]["gate"]["waived"] == BROKEN and report["outcome"]["gate"]["failing"] == []
    for name in ("conformance.md", "conformance.html", "junit.xml"):
        assert (tmp_path / "out" / name).read_text().count("waived until 2999-12-31 by payments-team") >= 2, name
    assert f"waived (not failing the run): {', '.join(BROKEN)}" in process.stdout


def test_expired_waivers_fail_the_run(tmp_path):
    """A waiver whose expiry date has passed no longer holds: exit 1, and the reports say it expired."""
    waivers = write_waivers(tmp_path / "waivers.yaml", "2000-01-01")
    process, report, _ = run_suite(tmp_path / "out", *FAULT_ARGS, *SELECTION, "--waivers", str(waivers))
    assert process.returncode == 1, tail(process)
    assert report["outcome"]["gate"]["failing"] == BROKEN
    assert f"EXPIRED waivers (they no longer hold): {', '.join(BROKEN)}" in process.stdout


def test_baseline_that_already_failed_passes_the_gate(failing, tmp_path):
    """With a baseline that already had both failures, the run exits 0 and lists them as still failing."""
    baseline = failing[0] / "conformance.json"
    process, report, _ = run_suite(tmp_path, *FAULT_ARGS, *SELECTION, "--baseline", str(baseline))
    assert process.returncode == 0, tail(process)
    assert report["outcome"]["gate"]["baseline"]["still_failing"] == BROKEN
    assert report["outcome"]["gate"]["baseline"]["new_failures"] == []


def test_baseline_where_they_passed_fails_the_run(tmp_path):
    """With a baseline of a clean run, the same failures are new breakage: exit 1; the clean run reports them fixed."""
    clean, clean_report, _ = run_suite(tmp_path / "clean", *SELECTION)
    assert clean.returncode == 0 and clean_report["outcome"]["verdict"] == "conforms-on-the-selection", tail(clean)
    process, report, _ = run_suite(
        tmp_path / "broken", *FAULT_ARGS, *SELECTION, "--baseline", str(tmp_path / "clean" / "conformance.json")
    )
    assert process.returncode == 1, tail(process)
    assert report["outcome"]["gate"]["baseline"]["new_failures"] == BROKEN
    fixed, fixed_report, _ = run_suite(
        tmp_path / "fixed", *SELECTION, "--baseline", str(tmp_path / "broken" / "conformance.json")
    )
    assert fixed.returncode == 0 and fixed_report["outcome"]["gate"]["baseline"]["fixed"] == BROKEN


def test_html_report_shows_the_table_and_the_evidence_in_a_browser(failing, tmp_path):
    """conformance.html, opened from file:// in headless Chromium, shows the summary table and a failing
    requirement's evidence (expected, received, the curl line)."""
    command = chromium()
    if command is None:
        pytest.skip(NO_BROWSER)
    page = (failing[0] / "conformance.html").as_uri()
    flags = ("--headless", *FLAGS, f"--user-data-dir={tmp_path / 'profile'}")
    dom = subprocess.run(
        [command, *flags, "--dump-dom", page], capture_output=True, text=True, timeout=120, check=False
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'id="summary-table"' in dom.stdout and "What the service does" in dom.stdout
    evidence = dom.stdout.split('id="SVC-12"')[1].split('class="req ')[0]
    assert "VirtualAccount successfully closed" in evidence and "curl -sS -X DELETE" in evidence
    shot = tmp_path / "report.png"
    subprocess.run(
        [command, *flags, "--window-size=1200,1600", f"--screenshot={shot}", page],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.exists() and shot.stat().st_size > 10_000, "the page rendered nothing"


def test_last_failed_reruns_only_the_failures_with_the_cache_in_the_work_folder(tmp_path):
    """`--lf` works: the pytest cache is on, and by default it lives in the work folder, not with the reports."""
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"][
        "cache_dir"
    ].startswith(".wallet-conformance/")
    env = dict(os.environ)
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests",
        "-q",
        "-o",
        f"cache_dir={tmp_path / 'cache'}",
        "--report-dir",
        str(tmp_path / "out"),
        "--reference-fault",
        "wrong-close-message",
        "--requirement",
        "SVC-12",
        "--requirement",
        PASSING,
        *HAND_WRITTEN,
    ]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False)
    again = subprocess.run(
        [*command, "--lf"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )
    assert first.returncode == again.returncode == 1, tail(again)
    assert "1 failed" in again.stdout and "passed" not in again.stdout.splitlines()[-1], tail(again)
    assert (tmp_path / "cache").is_dir()
