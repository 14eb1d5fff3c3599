"""Reports and verdicts from one result list: setup errors, suite errors, untested MUST requirements,
waiver and baseline files, and the formats rendered from conformance.json."""

from __future__ import annotations

import hashlib
import html
import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from selftests.suite_runs import QUICK_SETTLEMENT, RUN_TIMEOUT, run_in_process, tail
from selftests.suite_runs import run_sample as run
from wallet_conformance.client.api import TargetError as RefusedStep
from wallet_conformance.client.api import Unanswered
from wallet_conformance.client.exchange import Silence
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.classification import classify
from wallet_conformance.judge.failures import UnansweredFailure, judged_silences
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.conformance import assemble
from wallet_conformance.reporting.html_report import html_page
from wallet_conformance.reporting.junit_report import junit
from wallet_conformance.reporting.markdown_report import markdown
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.terminal import summary
from wallet_conformance.reporting.volatile import mask
from wallet_conformance.settings import Settings, command_line, reproduction
from wallet_conformance.spec import validation
from wallet_conformance.spec.catalogue import catalogue


def verdicts(report: dict) -> dict[str, str]:
    """The verdicts of the requirements the run looked at (those a selection left out are not-selected)."""
    return {entry["id"]: entry["verdict"] for entry in report["requirements"] if entry["verdict"] != "not-selected"}


def entry(report: dict, requirement_id: str) -> dict:
    return next(e for e in report["requirements"] if e["id"] == requirement_id)


SETUP = '''
from wallet_conformance.client.api import TargetError

@pytest.mark.requirement("RES-40", "SVC-05", "SVC-06")
def test_named():
    """A refused setup step that names the requirement it exercises."""
    raise TargetError("validating the documented bank account was refused: 400", requirement="RES-40")

@pytest.mark.requirement("SVC-07", "SVC-08")
def test_unnamed():
    """A refused setup step that names no requirement."""
    raise TargetError("the target stopped answering")
'''


def test_setup_error_fails_its_own_requirement_and_blocks_the_others(pytester):
    """A refused setup step fails only the requirement it exercises, the others blocked; the terminal shows why. A
    test whose refused step exercises no requirement judged nothing: pytest shows it skipped, never FAILED."""
    result, report = run(
        pytester, SETUP, "-rs", *[f"--requirement={rid}" for rid in ("RES-40", "SVC-05", "SVC-06", "SVC-07", "SVC-08")]
    )
    found = verdicts(report)
    assert found == {
        "RES-40": "fail",
        "SVC-05": "blocked",
        "SVC-06": "blocked",
        "SVC-07": "blocked",
        "SVC-08": "blocked",
    }
    assert "validating the documented bank account was refused" in entry(report, "SVC-05")["reason"]
    assert "exercises RES-40" in entry(report, "SVC-05")["reason"]
    assert entry(report, "RES-40")["tests"][0]["attributed"] is False  # a setup step, not a check
    assert report["outcome"]["must_failed"] == ["RES-40"]
    assert [item["id"] for item in report["outcome"]["must_not_tested"]] == ["SVC-05", "SVC-06", "SVC-07", "SVC-08"]
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*MUST requirements NOT tested (4)*", "*SVC-07, SVC-08 ?blocked? *stopped answering*"])
    assert validation.problems("conformance-report.json", report) == []
    # The terminal tells the refusal, not the traceback that raised it.
    result.stdout.fnmatch_lines(["SKIPPED *test_sample.py:* blocked: a setup step failed: the target stopped *"])
    result.assert_outcomes(failed=1, skipped=1)
    assert "raise TargetError" not in result.stdout.str()


def _silent_record(nodeid: str, declared: tuple[str, ...]) -> TestRecord:
    """A test stopped by an operation's silence, recorded as the plugin records it."""
    silence = Silence(
        "POST",
        "http://127.0.0.1:41234/v1/collection-accounts",
        [("x-service-key", "<SECRET_KEY>")],
        {"amount": 10000},
        1.0,
        1.0,
        2,
        "GET http://127.0.0.1:41234/v1/transactions/banks answered 200",
    )
    found = classify(UnansweredFailure(silence), declared)
    return TestRecord(
        nodeid,
        declared,
        outcome="failed",
        failed_requirements=found.failed_requirements,
        setup_error=found.setup_error,
        setup_requirement=found.setup_requirement,
        evidence=found.evidence,
    )


def test_a_silence_the_client_raised_is_judged_inside_a_group_with_its_notes():
    """The client's Unanswered names no requirement; judged (as the plugin does with what a test stopped on), inside
    the group Hypothesis raises for distinct failures too, it fails ERR-09 with the example Hypothesis drew kept."""
    silence = Silence(
        "GET",
        "http://127.0.0.1:41234/v1/virtual-accounts",
        [("x-service-key", "<SECRET_KEY>")],
        None,
        1.0,
        1.0,
        2,
        "GET http://127.0.0.1:41234/v1/transactions/banks answered 200",
    )
    raised = Unanswered(silence)
    raised.add_note("Falsifying example: test_list(page=2)")
    other = ValueError("a bug of the suite")
    group = ExceptionGroup("Hypothesis found 2 distinct failures.", [raised, other])
    assert classify(raised, ("ERR-09",)).failed_requirements == ()  # a refused step, not a failure, unjudged
    judged = judged_silences(group)
    failure, kept = judged.exceptions
    assert isinstance(failure, UnansweredFailure) and failure.requirement == "ERR-09" and kept is other
    assert failure.__notes__ == ["Falsifying example: test_list(page=2)"] and str(failure).startswith("[ERR-09] GET")
    assert judged_silences(other) is other and judged_silences(failure) is failure


def test_a_generated_test_that_held_nothing_passes_nothing():
    """A generated test declares every rule of its operation: where no exchange of the run was held to a rule of a
    requirement (every generated request refused, say), its passing leaves that requirement untested, saying so;
    one exchange held to it makes the pass."""
    generated = TestRecord("tests/generated/test_schemathesis.py::test_generated[createWallet]", ("SVC-12", "RES-20"))
    report = assemble(
        [generated],
        catalogue(),
        target={"base_url": None},
        environment="staging",
        seed=1,
        strict=False,
        exchanges_held={"RES-20": 3},
    )
    assert entry(report, "RES-20")["verdict"] == "pass" and entry(report, "RES-20")["held"]["exchanges"] == 3
    untested = entry(report, "SVC-12")
    assert untested["verdict"] == "untested" and "every generated request refused" in untested["reason"]
    assert "no exchange of the run was of the kind its rules judge (meta.message words)" in untested["reason"]


def test_an_error_is_told_by_its_class_not_by_its_name():
    """An exception merely named like the suite's TargetError is one no check raised: a suite error, not a refused
    setup step; the suite's own TargetError is the refusal."""

    class TargetError(Exception):
        """A look-alike of another module."""

    assert classify(TargetError("refused"), ("SVC-05",)).suite_error
    refused = classify(RefusedStep("refused", requirement="SVC-05"), ("SVC-05", "SVC-06"))
    assert refused.setup_error and refused.setup_requirement == "SVC-05" and not refused.suite_error


def test_a_silence_fails_err_09_wherever_met_and_blocks_the_tests_own_requirements():
    """A request left unanswered fails ERR-09 as a check, with the request and its curl line, in a test that declares
    it and in one that does not; the latter's own requirement is blocked, never failed."""
    records = [
        _silent_record("tests/test_e.py::test_refused", ("END-22",)),
        _silent_record("tests/test_e.py::test_answered", ("ERR-09",)),
    ]
    report = assemble(
        records,
        catalogue(),
        target={"base_url": "http://127.0.0.1:41234/v1"},
        environment="staging",
        seed=7,
        strict=False,
        selected=("ERR-09", "END-22"),
    )
    silent, refused = entry(report, "ERR-09"), entry(report, "END-22")
    assert silent["verdict"] == "fail" and [test["attributed"] for test in silent["tests"]] == [True, True]
    assert silent["evidence"][0]["received"] == "no answer within 1 s (twice)"
    assert silent["evidence"][0]["exchange"]["curl"].startswith("curl -sS -X POST http://127.0.0.1:41234/v1/collection")
    assert refused["verdict"] == "blocked" and "ERR-09" in refused["reason"], refused
    assert report["outcome"]["must_failed"] == ["ERR-09"] and report["outcome"]["exit_status"] == 1
    assert validation.problems("conformance-report.json", report) == []


SUITE = '''
from wallet_conformance.judge.failures import SuiteError

@pytest.mark.requirement("SVC-05", "SVC-06")
def test_typo():
    """A check names a requirement its test does not declare."""
    raise SuiteError("a check names SVC-99, which test_typo does not declare")

@pytest.mark.requirement("SVC-03")
def test_pass():
    """Passes."""
    checks.holds(True, "held", True, True)
'''


def test_suite_error_is_never_a_pass_and_has_its_own_exit_status(pytester):
    """A SuiteError judges none of its test's requirements, is reported loudly everywhere and exits 6."""
    result, report = run(
        pytester, SUITE, "--requirement", "SVC-05", "--requirement", "SVC-06", "--requirement", "SVC-03"
    )
    assert result.ret == ExitStatus.SUITE_ERROR == 6
    assert verdicts(report) == {"SVC-03": "pass", "SVC-05": "suite-error", "SVC-06": "suite-error"}
    assert report["outcome"]["verdict"] == "suite-error" and not report["outcome"]["conforms"]
    result.stdout.fnmatch_lines(
        [
            "*SUITE ERRORS (the suite is wrong, not the target): SVC-05, SVC-06*",
            "*SUITE ERROR: the suite itself is wrong*",
        ]
    )
    cases = ET.parse(pytester.path / "out" / "junit.xml").getroot().iter("testcase")
    errors = {case.get("name").split()[0] for case in cases if case.find("error") is not None}
    assert errors == {"SVC-05", "SVC-06"}
    assert "Suite errors" in (pytester.path / "out" / "conformance.md").read_text()


COMPLETE = '''
@pytest.mark.requirement("SVC-03")
def test_pass():
    """Passes."""
    checks.holds(True, "held", True, True)

@pytest.mark.requirement("SVC-05")
def test_skip():
    """Skips: money never settled."""
    pytest.skip("no transfer settled within 30 s")
'''


def test_untested_must_requirements_are_named_and_can_fail_the_run(pytester):
    """Skipped MUST requirements make the run 'conforms to what could be tested'; --require-complete and
    --strict fail it (exit 7)."""
    selection = ("--requirement", "SVC-03", "--requirement", "SVC-05")
    result, report = run(pytester, COMPLETE, *selection)
    assert result.ret == 0
    assert report["outcome"]["verdict"] == "conforms-to-what-was-tested" and not report["outcome"]["complete"]
    assert report["outcome"]["must_not_tested"] == [
        {"id": "SVC-05", "verdict": "skip", "reason": "no transfer settled within 30 s"}
    ]
    result.stdout.fnmatch_lines(
        ["*SVC-05 ?skip? no transfer settled within 30 s*", "*conforms TO WHAT COULD BE TESTED*"]
    )
    for option in ("--require-complete", "--strict"):
        gated, report = run(pytester, COMPLETE, *selection, option)
        assert gated.ret == ExitStatus.INCOMPLETE == 7, option
        assert report["outcome"]["verdict"] == "incomplete" and "SVC-05" in report["outcome"]["gate"]["failing"]
    only_pass, report = run(pytester, COMPLETE, "--requirement", "SVC-03")
    assert only_pass.ret == 0 and report["outcome"]["verdict"] == "conforms-on-the-selection"
    # A gate that asks for completeness fails a selection: its other MUST requirements were not selected.
    gated, report = run(pytester, COMPLETE, "--requirement", "SVC-03", "--require-complete")
    assert gated.ret == ExitStatus.INCOMPLETE and report["outcome"]["verdict"] == "incomplete"
    assert report["outcome"]["gate"]["failing"] == [] and "--require-complete" in report["outcome"]["reason"]


def test_bad_waiver_file_stops_the_run_with_one_message(pytester):
    """An unknown id, a missing field or a bad date in the waiver file stops the run before any test."""
    pytester.makefile(
        ".yaml",
        waivers="""
- id: NOPE-01
  reason: r
  owner: o
  expires: 2030-01-01
- id: SVC-03
  reason: r
  expires: soon
""",
    )
    result, report = run(pytester, COMPLETE, "--waivers", "waivers.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and report["outcome"]["verdict"] == "usage-error"
    result.stderr.fnmatch_lines(
        [
            "*--waivers waivers.yaml:*",
            "*waiver 1 (NOPE-01): no such requirement*",
            "*waiver 2 (SVC-03): missing owner*",
            "*expires must be a date*",
        ]
    )


def test_baseline_from_another_catalogue_is_refused(pytester):
    """A baseline judged against another requirements.yaml is refused with a clear message, not misread."""
    _, report = run(pytester, COMPLETE, "--requirement", "SVC-03")
    report["judged_against"]["requirements.yaml"] = "sha256:" + "0" * 64
    (pytester.path / "old.json").write_text(json.dumps(report))
    result, _ = run(pytester, COMPLETE, "--baseline", "old.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--baseline old.json was judged against another catalogue*"])


# ------------------------------------------------------------------ formats, as pure functions of the report


def sample_report(**gate: object) -> dict:
    evidence = {
        "requirement": "SVC-12",
        "kind": "check",
        "title": "meta.message of closeWallet is the documented one",
        "expected": "VirtualAccount successfully deleted",
        "received": "VirtualAccount successfully closed",
        "exchange": {
            "request": "DELETE http://127.0.0.1:41234/v1/virtual-accounts/vba-1",
            "request_body": None,
            "status": 200,
            "content_type": "application/json",
            "response": '{"meta":{"at":"2026-11-23T00:15:38.668Z"}}',
            "curl": "curl -sS -X DELETE http://127.0.0.1:41234/v1/virtual-accounts/vba-1",
        },
    }
    records = [
        TestRecord(
            "tests/test_a.py::test_close",
            ("SVC-12",),
            outcome="failed",
            failed_requirements=("SVC-12",),
            message="[SVC-12] meta.message",
            evidence=[evidence],
        ),
        TestRecord("tests/test_a.py::test_ok", ("SVC-03",), held={"SVC-03": 1}),
        TestRecord("tests/test_a.py::test_info", ("ERR-04",), observations=[{"requirement": "ERR-04", "status": 404}]),
        TestRecord("tests/test_a.py::test_skip", ("SVC-05",), outcome="skipped", message="no funding configured"),
    ]
    return assemble(
        records,
        catalogue(),
        target={"base_url": "http://127.0.0.1:41234/v1", "embedded_reference": True},
        environment="staging",
        seed=7,
        strict=False,
        selected=("SVC-12", "SVC-03", "ERR-04", "SVC-05"),
        gate=gating.Gate(**gate),
        run={"started_at": "2026-11-23T00:00:00Z", "duration": 1.5},
    )


def test_every_format_renders_the_failure_and_its_evidence():
    """JSON (valid against its schema), Markdown, HTML, JUnit and the terminal summary show the failure's
    requirement, the document's words, expected/received and the curl line; volatile values are masked, but for the
    curl line, which runs as copied (its port kept)."""
    report = sample_report()
    assert validation.problems("conformance-report.json", report) == []
    assert report["outcome"]["verdict"] == "does-not-conform" and report["outcome"]["exit_status"] == 1
    quote = " ".join(catalogue()["SVC-12"].quote.split())
    md, page = markdown(report), html_page(report)
    for text in (md, page):
        assert "SVC-12" in text and "VirtualAccount successfully closed" in text and "Reproduce with" in text
        assert "request: " in text and "127.0.0.1:[port]" in text  # the request line: masked
        curls = [line for line in text.splitlines() if "curl -sS" in line]
        assert curls and all("127.0.0.1:41234" in line for line in curls), curls  # the command: as it runs
        assert "2026-11-23T00:15:38" not in text
    assert quote.replace("|", "\\|") in md  # a table pipe, escaped in Markdown
    assert md.index("## Failures") < md.index("## Not tested") < md.index("## Observations") < md.index("## Passes")
    assert "http://" not in page.replace("http://127.0.0.1:[port]", "").replace("http://127.0.0.1:41234", "")
    root = ET.fromstring(junit(report).split("?>", 1)[1])
    cases = {case.get("name").split()[0]: case for case in root.iter("testcase")}
    assert cases["SVC-12"].get("name").startswith("SVC-12 [MUST] ")
    assert "curl -sS -X DELETE" in cases["SVC-12"].find("failure").text
    assert cases["SVC-05"].find("skipped").get("message") == "skip: no funding configured"
    assert root.get("failures") == "1" and root.get("tests") == "4"
    lines = "\n".join(summary(report))
    assert "MUST requirements broken: SVC-12" in lines and "SVC-05 [skip] no funding configured" in lines


def test_waived_failure_stays_visible_and_expired_waiver_gates_again():
    """A waived failure still shows in every format, marked waived; once expired it fails the run again."""
    import datetime as dt

    waiver = gating.Waiver("SVC-12", "fix in 2.4", "payments-team", dt.date(2026, 12, 31))
    report = sample_report(waivers=(waiver,), today=dt.date(2026, 11, 23))
    assert report["outcome"]["exit_status"] == 0 and report["outcome"]["gate"]["waived"] == ["SVC-12"]
    assert report["outcome"]["verdict"] == "does-not-conform"  # the gate passes; the verdict stays honest
    assert "waived until 2026-12-31 by payments-team" in markdown(report)
    assert "waived until 2026-12-31 by payments-team" in html_page(report)
    assert "waived until 2026-12-31" in junit(report)
    expired = sample_report(waivers=(waiver,), today=dt.date(2027, 1, 1))
    assert expired["outcome"]["exit_status"] == 1 and "EXPIRED waiver" in markdown(expired)


def test_a_waiver_of_a_requirement_that_did_not_fail_is_reported_unused():
    """Waivers of a requirement that passed and of one skipped are unused, in conformance.json (valid), Markdown, HTML
    and the terminal; the waiver of the failure is not, nor that of a requirement the selection left out; one that
    --require-complete makes keep a skipped MUST requirement from failing the run is used."""
    import datetime as dt

    waivers = tuple(
        gating.Waiver(rid, "known", "payments-team", dt.date(2026, 12, 31))
        for rid in ("SVC-12", "SVC-03", "SVC-05", "LIM-01")
    )
    report = sample_report(waivers=waivers, today=dt.date(2026, 11, 23))
    assert validation.problems("conformance-report.json", report) == []
    assert report["outcome"]["gate"]["unused_waivers"] == ["SVC-03", "SVC-05"]
    assert report["outcome"]["gate"]["waived"] == ["SVC-12"] and report["outcome"]["exit_status"] == 0
    line = f"{gating.UNUSED_WAIVERS}: SVC-03, SVC-05"
    assert line in markdown(report) and line in "\n".join(summary(report))
    assert html.escape(gating.UNUSED_WAIVERS) in html_page(report) and "SVC-03, SVC-05" in html_page(report)
    complete = sample_report(waivers=waivers, today=dt.date(2026, 11, 23), require_complete=True)
    assert complete["outcome"]["gate"]["unused_waivers"] == ["SVC-03"]
    assert sample_report()["outcome"]["gate"]["unused_waivers"] == []


def test_mask_replaces_volatile_values():
    """Ports, timings, timestamps, run ids and uuids are masked so two reports of one behaviour diff cleanly."""
    text = (
        "http://127.0.0.1:45123/v1 (application/json, 12 ms) 2026-11-23T00:15:38.668Z cf1a2b3c4dgw1 "
        "9f1c2d3e-0a1b-4c5d-8e9f-0123456789ab"
    )
    assert mask(text) == "http://127.0.0.1:[port]/v1 (application/json, [n] ms) [timestamp] cf[run] [uuid]"
    digest = "sha256:cf" + "0" * 62  # a file's hash that starts like a run id is left whole
    assert mask(digest) == digest


# ------------------------------------------------------------------ a run reproducible from its report


def test_the_reproduce_command_names_every_option_that_changes_a_verdict():
    """The command from Settings: non-default options by group, seed, profile, keys as placeholders, --strict last."""
    deployed = Settings(
        base_url="https://staging.example.com/v1",
        secret_key="sk_live_not_shown",
        seed=7,
        generation_seed=7,
        strict=True,
        waivers=Path("ci/waivers.yaml"),
        report_dir=Path("out"),
    )
    assert command_line(reproduction(deployed)) == (
        "wallet-conformance --base-url https://staging.example.com/v1 --secret-key <SECRET_KEY> --environment staging "
        "--seed 7 --profile quick --waivers ci/waivers.yaml --strict"
    )
    reference = Settings(
        seed=7,
        generation_seed=9,
        reference_faults=("wrong-close-message",),
        quiet_window=0.15,
        pytest_selection=("-k", "close and not list"),
    )
    assert command_line(reproduction(reference)) == (
        "wallet-conformance --seed 7 --profile quick --quiet-window 0.15 --reference-fault wrong-close-message "
        "--hypothesis-seed 9 -k 'close and not list'"
    )
    recorded = Settings(har_given=("captures/a run.har",), har=(Path("captures/a run.har"),), seed=7)
    assert command_line(reproduction(recorded)) == "wallet-conformance --har 'captures/a run.har'"


def _human_reports(folder: Path) -> dict[str, str]:
    """The Markdown and the HTML report of a run, the HTML's entities unescaped."""
    return {
        "md": (folder / "conformance.md").read_text(),
        "html": html.unescape((folder / "conformance.html").read_text()),
    }


def test_reference_faults_and_variants_are_recorded_in_the_header_and_every_report(pytester):
    """A fault, a variant and -k are named, with the command, in the header, conformance.json, the .md and the .html."""
    result, report = run(
        pytester,
        COMPLETE,
        "--seed",
        "7",
        "--requirement",
        "SVC-03",
        "--reference-fault",
        "wrong-close-message",
        "--reference-variant",
        "close-is-idempotent",
        "-k",
        "pass",
    )
    command = (
        "wallet-conformance --seed 7 --profile quick --requirement SVC-03 --reference-fault wrong-close-message "
        "--reference-variant close-is-idempotent -k pass"
    )
    assert report["run"]["reference"] == {
        "faults": ["wrong-close-message"],
        "variants": ["close-is-idempotent"],
        "settle_delay": 0.1,
        "latency": 0.0,
    }
    assert report["run"]["reproduce"] == command and report["run"]["pytest_selection"] == ["-k", "pass"]
    assert validation.problems("conformance-report.json", report) == []
    switched = "faults wrong-close-message; variants close-is-idempotent"
    result.stdout.fnmatch_lines(
        [f"wallet-conformance: reference: {switched}", f"wallet-conformance: reproduce with: {command}"]
    )
    for name, text in _human_reports(pytester.path / "out").items():
        assert f"reference | {switched}" in text or f"<th>reference</th><td>{switched}</td>" in text, name
        assert command in text, name


def test_waiver_and_baseline_files_are_recorded_with_their_sha256(pytester):
    """Waiver and baseline files appear as given, with their sha256, in the header, the JSON, the .md and the .html."""
    pytester.makefile(".yaml", waivers="- id: SVC-05\n  reason: r\n  owner: o\n  expires: 2999-12-31\n")
    _, earlier = run(pytester, COMPLETE, "--requirement", "SVC-03")
    (pytester.path / "old.json").write_text(json.dumps(earlier))
    result, report = run(
        pytester, COMPLETE, "--requirement", "SVC-03", "--waivers", "waivers.yaml", "--baseline", "old.json"
    )
    digests = {
        name: "sha256:" + hashlib.sha256((pytester.path / name).read_bytes()).hexdigest()
        for name in ("waivers.yaml", "old.json")
    }
    assert report["run"]["files"] == [
        {"option": "--waivers", "file": "waivers.yaml", "sha256": digests["waivers.yaml"]},
        {"option": "--baseline", "file": "old.json", "sha256": digests["old.json"]},
    ]
    assert "--waivers waivers.yaml --baseline old.json" in report["run"]["reproduce"]
    assert validation.problems("conformance-report.json", report) == []
    result.stdout.fnmatch_lines(
        [
            f"wallet-conformance: waivers: waivers.yaml ({digests['waivers.yaml']})",
            f"wallet-conformance: baseline: old.json ({digests['old.json']})",
        ]
    )
    for name, text in _human_reports(pytester.path / "out").items():
        assert all(f"{file} ({digest})" in text for file, digest in digests.items()), name


KEY = "sk_test_reproduce_5e1f9a"


def test_a_secret_key_never_appears_in_the_header_or_the_reports(pytester, monkeypatch):
    """A key from the environment is in no header or report file; the command shows --secret-key <SECRET_KEY>."""
    monkeypatch.setenv("WALLET_API_SECRET_KEY", KEY)
    with ReferenceServer(secret_key=KEY) as server:
        result, report = run(
            pytester, COMPLETE, "--base-url", server.base_url, "--seed", "7", "--requirement", "SVC-03"
        )
    command = (
        f"wallet-conformance --base-url {server.base_url} --secret-key <SECRET_KEY> --environment staging "
        "--seed 7 --profile quick --requirement SVC-03"
    )
    assert report["run"]["reproduce"] == command and report["run"]["reference"] is None
    result.stdout.fnmatch_lines([f"wallet-conformance: reproduce with: {command}"])
    assert KEY not in result.stdout.str() + result.stderr.str()
    written = [path for path in (pytester.path / "out").rglob("*") if path.is_file()]
    assert {"conformance.json", "conformance.md", "conformance.html", "junit.xml"} <= {path.name for path in written}
    assert not [path.name for path in written if KEY in path.read_text(errors="replace")]
    for name, text in _human_reports(pytester.path / "out").items():
        assert "--secret-key <SECRET_KEY>" in text, name


def test_the_reproduce_command_of_a_report_gives_the_same_verdicts(pytester, tmp_path):
    """The report's command, rerun elsewhere, runs the same tests and fails SVC-12 alike; the seed alone passes it."""
    selection = ("--requirement", "SVC-12", "--seed", "7", *QUICK_SETTLEMENT)
    module = "tests/test_service.py"  # a path of the suite's chooses its tests, written from the suite's root
    _, first, _ = run_in_process(
        pytester, tmp_path / "first", "--reference-fault", "wrong-close-message", *selection, paths=(module,)
    )
    words = shlex.split(first["run"]["reproduce"])
    assert words[0] == "wallet-conformance" and words[1:] == first["run"]["arguments"] and words[-1] == module
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith(("WALLET_API_", "PYTEST_XDIST_"))
    }
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "wallet_conformance.cli",
            *words[1:],
            "-q",
            "-p",
            "no:cacheprovider",
            "--report-dir",
            str(tmp_path / "again"),
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert (tmp_path / "again" / "conformance.json").exists(), tail(again)
    repeated = json.loads((tmp_path / "again" / "conformance.json").read_text())
    assert verdicts(repeated) == verdicts(first) == {"SVC-12": "fail"}, tail(again)
    tests = [[test["nodeid"] for test in entry(report, "SVC-12")["tests"]] for report in (first, repeated)]
    assert tests[0] == tests[1] and all(nodeid.startswith((module, "exchange-judge::")) for nodeid in tests[0])
    assert again.returncode == 1 and repeated["run"]["reproduce"] == first["run"]["reproduce"]
    received = {entry(report, "SVC-12")["evidence"][0]["received"] for report in (first, repeated)}
    assert received == {"VirtualAccount successfully closed"}
    _, without_fault, _ = run_in_process(pytester, tmp_path / "seed-only", *selection, paths=(module,))
    assert verdicts(without_fault) == {"SVC-12": "pass"}
