"""The suite's pytest plugin: requirement markers, verdicts by level, exit status, configuration, redaction."""

from __future__ import annotations

import fnmatch
import gc
import json
import re
import socket

import _pytest.unraisableexception
import pytest

from selftests.suite_runs import QUICK_SETTLEMENT, run_in_process, tail
from selftests.suite_runs import run_sample as run
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reference import Fault
from wallet_conformance.reporting.volatile import mask
from wallet_conformance.spec import validation


def verdicts(report: dict) -> dict[str, str]:
    return {entry["id"]: entry["verdict"] for entry in report["requirements"]}


def test_unknown_requirement_is_a_usage_error(pytester):
    """A test naming a requirement that is not in the catalogue stops the run at collection."""
    result, _ = run(pytester, '@pytest.mark.requirement("NOPE-99")\ndef test_x():\n    """x."""\n')
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown requirement 'NOPE-99'*"])


def test_test_without_requirement_is_a_usage_error(pytester):
    """A conformance test that names no requirement stops the run at collection."""
    result, _ = run(pytester, 'def test_x():\n    """x."""\n')
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*names no requirement*"])


LEVELS = '''
@pytest.mark.requirement("SVC-05")
def test_must():
    """A MUST requirement broken."""
    raise ConformanceFailure("SVC-05", "statusCode", 200, 201)

@pytest.mark.requirement("SVC-18")
def test_should():
    """A SHOULD requirement broken."""
    raise ConformanceFailure("SVC-18", "current", 1, 0)

@pytest.mark.requirement("ERR-04")
def test_info(observe):
    """An INFO observation stopped by a check."""
    observe("ERR-04", status=418)
    raise ConformanceFailure("ERR-04", "the refusal could be read", "an envelope", "an HTML page")

@pytest.mark.requirement("SVC-06", "SVC-07")
def test_two():
    """Two requirements, the first broken."""
    raise ConformanceFailure("SVC-06", "success", True, "true")

@pytest.mark.requirement("SVC-03")
def test_pass():
    """Passes."""
    checks.holds(True, "held", True, True)

@pytest.mark.requirement("SVC-04")
def test_skip():
    """Skips."""
    pytest.skip("no funding configured")
'''


def test_verdicts_by_level_and_report_format(pytester):
    """Verdicts follow the level; the report validates against its schema; a MUST failure fails the run."""
    result, report = run(pytester, LEVELS)
    assert result.ret == 1
    found = verdicts(report)
    assert found["SVC-05"] == "fail" and found["SVC-18"] == "fail" and found["ERR-04"] == "observed"
    assert found["SVC-06"] == "fail" and found["SVC-07"] == "skip"  # not reached: the test stopped at SVC-06
    assert found["SVC-03"] == "pass" and found["SVC-04"] == "skip" and found["SVC-01"] == "untested"
    outcome = report["outcome"]
    assert (outcome["conforms"], outcome["must_failed"], outcome["should_failed"]) == (
        False,
        ["SVC-05", "SVC-06"],
        ["SVC-18"],
    )
    entry = next(e for e in report["requirements"] if e["id"] == "SVC-04")
    assert entry["reason"] == "no funding configured"
    info = next(e for e in report["requirements"] if e["id"] == "ERR-04")
    assert info["observations"] == [{"requirement": "ERR-04", "status": 418}]
    assert validation.problems("conformance-report.json", report) == []


MUST_HOLDS = '''
@pytest.mark.requirement("SVC-03")
def test_must_holds():
    """A MUST requirement held."""
    checks.holds(True, "held", True, True)
'''


def test_should_failure_does_not_fail_the_run_unless_strict(pytester):
    """A broken SHOULD requirement is reported but exits 0; with --strict it exits 1."""
    source = LEVELS.split('@pytest.mark.requirement("SVC-18")')[1].split('@pytest.mark.requirement("ERR-04")')[0]
    result, report = run(pytester, MUST_HOLDS + '@pytest.mark.requirement("SVC-18")' + source)
    assert result.ret == 0 and report["outcome"]["should_failed"] == ["SVC-18"]
    result.stdout.fnmatch_lines(["*SHOULD requirements broken: SVC-18*only with --strict*"])
    strict, _ = run(pytester, MUST_HOLDS + '@pytest.mark.requirement("SVC-18")' + source, "--strict")
    assert strict.ret == 1


def test_info_failure_never_fails_the_run(pytester):
    """An INFO test stopped by a check is an observation that did not complete, never a failure of the run."""
    source = LEVELS.split('@pytest.mark.requirement("ERR-04")')[1].split('@pytest.mark.requirement("SVC-06"')[0]
    result, report = run(pytester, MUST_HOLDS + '@pytest.mark.requirement("ERR-04")' + source)
    assert result.ret == 0 and verdicts(report)["ERR-04"] == "observed"


@pytest.mark.parametrize(
    ("source", "args", "reason"),
    [
        (LEVELS, ("-k", "no_such_test"), "no conformance test ran (every test was deselected*"),
        (
            '@pytest.mark.requirement("SVC-03")\ndef test_skips():\n'
            '    """Skipped."""\n    pytest.skip("no funding")\n',
            (),
            "every test of the run was skipped (1); the first: no funding",
        ),
        (LEVELS, ("--requirement", "SVC-18"), "1 test(s) ran, but none judged a MUST requirement"),
    ],
    ids=["deselected", "skipped", "no-must"],
)
def test_a_run_that_judged_no_must_requirement_judged_nothing(pytester, source, args, reason):
    """Every test deselected, every test skipped, or only a SHOULD one judged: the outcome is nothing-judged (exit
    11) with its reason, and neither the terminal nor any report says the target conforms."""
    result, report = run(pytester, source, *args)
    assert result.ret == ExitStatus.NOTHING_JUDGED and report is not None, result.stdout.str()
    outcome = report["outcome"]
    assert outcome["verdict"] == "nothing-judged" and outcome["conforms"] is False
    assert fnmatch.fnmatch(outcome["reason"], reason), outcome["reason"]
    result.stdout.fnmatch_lines(["NOTHING WAS JUDGED*", f"  {reason}", "exit status 11*"])
    out = pytester.path / "out"
    shown = [
        result.stdout.str(),
        (out / "conformance.md").read_text(),
        (out / "junit.xml").read_text(),
        (out / "conformance.html").read_text().split("</style>")[1],
    ]  # the page, not its stylesheet
    assert not any(re.search(r"\bconforms\b", text, re.IGNORECASE) for text in shown)
    assert validation.problems("conformance-report.json", report) == []


def test_requirement_option_selects_tests(pytester):
    """--requirement runs only the tests naming that requirement (in any letter case); the others are not selected,
    and the run conforms on the selection, never as a whole."""
    result, report = run(pytester, LEVELS, "--requirement", "svc-03")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*1 passed*5 deselected*"])
    assert {entry["id"] for entry in report["requirements"] if entry["verdict"] != "not-selected"} == {"SVC-03"}
    assert report["outcome"]["verdict"] == "conforms-on-the-selection" and not report["outcome"]["complete"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--base-url", "http://127.0.0.1:1/v1"), "*no --secret-key*"),
        (("--base-url", "http://127.0.0.1:1/v2", "--secret-key", "k-1234"), "*must end with the version segment /v1*"),
        (("--base-url", "ftp://example.invalid/v1", "--secret-key", "k-1234"), "*must be an http(s) URL*"),
        (("--environment", "prod"), "*--environment must be staging or production, got 'prod'*"),
        (
            ("--base-url", "http://127.0.0.1:1/v1", "--secret-key", "k-1234", "--second-secret-key", "k-1"),
            "*--second-secret-key*3 characters long*",
        ),
        (
            ("--base-url", "http://127.0.0.1:1/v1", "--secret-key", "k-1234", "--second-secret-key", "k-1234"),
            "*--second-secret-key*is the --secret-key itself*",
        ),
        (("--second-secret-key", "k-5678"), "*--second-secret-key*no --base-url*"),
        (("--har", "no-such-file.har"), "*--har no-such-file.har: no such file or folder*"),
        (("--har", "pytest.ini", "--record-har", "out.har"), "*--record-har needs an active run*"),
        (
            ("--har", "pytest.ini", "--reference-fault", "wrong-close-message"),
            "*--reference-fault needs an active run*",
        ),
    ],
)
def test_bad_configuration_stops_the_run(pytester, args, message):
    """Bad configuration stops the run before any test with one clear message, and the reports of that stop replace
    the folder's: exit 4, no verdict, the message as the reason."""
    result, report = run(pytester, '@pytest.mark.requirement("SVC-03")\ndef test_x():\n    """x."""\n', *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR and report is not None
    assert (report["outcome"]["verdict"], report["outcome"]["exit_status"]) == ("usage-error", 4)
    assert fnmatch.fnmatch(report["stopped"]["reason"], message) and not report["outcome"]["conforms"]
    result.stderr.fnmatch_lines([message])


def test_unreachable_target_stops_the_run(pytester):
    """A target that does not answer stops the run before any test, naming the URL and never the key."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, not listening: connections are refused
        result, _ = run(
            pytester,
            '@pytest.mark.requirement("SVC-03")\ndef test_x():\n    """x."""\n',
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
            "--secret-key",
            "sk-do-not-print-1",
        )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "cannot be reached" in output and "sk-do-not-print-1" not in output
    assert "no tests ran" in output or "passed" not in output


SUITE_ERRORS = '''
from wallet_conformance.judge import checks

@pytest.mark.requirement("SVC-05")
def test_typo():
    """A failing check naming an id the test does not declare."""
    checks.equals(1, 2, "one is two", requirement="SVC-04")

@pytest.mark.requirement("SVC-06", "SVC-07")
def test_ambiguous():
    """A check naming no id in a test that declares two."""
    checks.equals(1, 2, "one is two")

@pytest.mark.requirement("SVC-03")
def test_passing_check_with_typo():
    """Even a passing check that names an undeclared id is an error of the suite."""
    checks.equals(1, 1, "one is one", requirement="SVC-29")

@pytest.mark.requirement("SVC-18")
def test_default():
    """A failing check naming no id fails the test's own requirement."""
    checks.equals(1, 2, "one is two")

@pytest.mark.requirement("SVC-19")
def test_default_passes():
    """A passing check naming no id."""
    assert checks.equals(1, 1, "one is one") == 1
'''


def test_check_naming_an_undeclared_requirement_is_a_suite_error(pytester):
    """A check naming an id its test does not declare, or none among several, errors loudly: never skip or pass."""
    result, report = run(pytester, SUITE_ERRORS)
    result.assert_outcomes(failed=4, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*SUITE ERROR*'SVC-04', which the test does not declare*",
            "*SUITE ERROR*the test declares 2 (SVC-06, SVC-07)*",
            "*SUITE ERROR*'SVC-29', which the test does not declare*",
        ]
    )
    assert report is not None and result.ret == 6  # a suite error outranks a failure of the target
    found = verdicts(report)
    assert {rid: found[rid] for rid in ("SVC-05", "SVC-06", "SVC-07", "SVC-03")} == dict.fromkeys(
        ("SVC-05", "SVC-06", "SVC-07", "SVC-03"), "suite-error"
    )
    assert found["SVC-18"] == "fail"
    assert found["SVC-19"] == "pass" and found["SVC-04"] == "untested" and found["SVC-29"] == "untested"
    reasons = {entry["id"]: entry["reason"] or "" for entry in report["requirements"]}
    assert all("SUITE ERROR" in reasons[rid] for rid in ("SVC-05", "SVC-06", "SVC-03")), reasons
    attributed = {entry["id"]: [test["attributed"] for test in entry["tests"]] for entry in report["requirements"]}
    assert attributed["SVC-18"] == [True]  # the check named no id: it failed the test's own requirement


HELD = '''
from wallet_conformance.judge import checks

@pytest.mark.requirement("SVC-03")
def test_holds():
    """A check holds SVC-03, twice."""
    checks.holds(True, "held", True, True)
    checks.equals(1, 1, "one is one")

@pytest.mark.requirement("SVC-05")
def test_checks_nothing():
    """Passes without a check: holds nothing."""

@pytest.mark.requirement("ERR-04")
def test_observes_another_requirement(observe):
    """An observation of a requirement the test does not declare."""
    observe("ERR-10", status=418)
'''


def test_a_pass_is_something_held(pytester):
    """A requirement passes only where a check of its test held it (the calls are counted); a test that checked
    nothing passes nothing: its requirement is untested, with the reason. An observation of an id the test does not
    declare is the suite's error, as a check naming it is."""
    result, report = run(pytester, HELD, "-n", "0")
    entries = {entry["id"]: entry for entry in report["requirements"]}
    assert entries["SVC-03"]["verdict"] == "pass" and entries["SVC-03"]["held"]["checks"] == 2
    assert entries["SVC-05"]["verdict"] == "untested", entries["SVC-05"]
    assert entries["SVC-05"]["reason"].startswith("nothing held it: 1 test(s) of it passed")
    assert entries["ERR-04"]["verdict"] == "suite-error" and "ERR-10" in entries["ERR-04"]["reason"]
    assert result.ret == 6 and validation.problems("conformance-report.json", report) == []


# A frame of the suite's own checks in a traceback (the failure below is raised in judge/envelope.py).
SUITE_FRAME = "wallet_conformance/judge/"


def test_a_failure_of_the_target_shows_its_evidence_and_the_suites_traceback_only_with_v(pytester):
    """A failed check prints its evidence and exchanges, no frame of the suite's internals; -v adds the traceback."""
    fault = Fault.WRONG_CLOSE_MESSAGE
    args = (f"--reference-fault={fault.cli_name}", f"--requirement={fault.requirement_id}", *QUICK_SETTLEMENT)
    # run_in_process passes -q: -vv is a user's -v.
    shown = {
        name: run_in_process(pytester, pytester.path / name, *args, *more, paths=("tests/test_service.py",))[0]
        for name, more in (("plain", ()), ("verbose", ("-vv",)))
    }
    for process in shown.values():
        assert process.returncode == ExitStatus.DOES_NOT_CONFORM, tail(process)
        assert "[SVC-12] meta.message of closeWallet is the documented message" in process.stdout, tail(process)
        assert "exchanges (last of this test)" in process.stdout and "Reproduce with:" in process.stdout
    plain = shown["plain"].stdout
    assert "expected: VirtualAccount successfully deleted" in plain and "received: " in plain, plain
    assert SUITE_FRAME not in plain and "Traceback" not in plain and "ConformanceFailure" not in plain, plain
    assert SUITE_FRAME in shown["verbose"].stdout, shown["verbose"].stdout


TYPED = '''
from wallet_conformance.client.api import TargetError
from wallet_conformance.judge.failures import SuiteError

@pytest.mark.requirement("SVC-05")
def test_check(api):
    """A failed check with its exchange; the exchange judge holds the same answer to every rule."""
    exchange = api.call("listBanks")
    raise ConformanceFailure("SVC-05", "statusCode", 201, exchange.status, exchange)

@pytest.mark.requirement("RES-40", "SVC-06")
def test_refused():
    """A refused setup step naming the requirement it exercises."""
    raise TargetError("validating the documented bank account was refused: 400", requirement="RES-40")

@pytest.mark.requirement("SVC-07")
def test_suite_bug():
    """An error of the suite itself."""
    raise SuiteError("a bug of this test")

@pytest.mark.requirement("ERR-04")
def test_observed(observe):
    """An observation."""
    observe("ERR-04", status=418)

@pytest.mark.requirement("SVC-03")
def test_passes():
    """Passes."""

@pytest.mark.requirement("SVC-04")
def test_skips():
    """Skips."""
    pytest.skip("no funding configured")
'''
RECEIVED = '''
"""Writes what the controlling process received of each conformance test's phase: the record's types and fields."""
import json

from wallet_conformance.plugin import phase_record


class Received:
    def pytest_runtest_logreport(self, report):
        record = phase_record.of(report)
        line = {"nodeid": report.nodeid, "when": report.when,
                "user_properties": [name for name, _ in report.user_properties], "record": None, "types": None}
        if record is not None:
            line["record"] = record.to_dict()
            line["types"] = {"record": type(record).__name__, "error": type(record.error).__name__,
                             "findings": sorted({type(found).__name__ for found in record.findings})}
        with open("received.jsonl", "a") as received:
            received.write(json.dumps(line) + "\\n")


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controlling process only
        config.pluginmanager.register(Received(), "received")
'''


def _received(pytester: pytest.Pytester, *args: str) -> tuple[dict, dict, set]:
    """One run of TYPED: what the controller received per test and phase, but the exchange judge's share (each
    process reports that of its own exchanges, in whichever phase made them); the report's verdicts, reasons,
    evidence and observations; and the types of the judge's findings received. Ports masked."""
    (pytester.path / "received.jsonl").unlink(missing_ok=True)
    result, report = run(pytester, TYPED, "--reference-fault", Fault.BANK_PREFIX.cli_name, *args)
    assert result.ret == ExitStatus.SUITE_ERROR and report is not None, result.stdout.str()
    received, found = {}, set()
    for text in (pytester.path / "received.jsonl").read_text().splitlines():
        line = json.loads(mask(text))
        if line["record"] is not None:
            found.update(line["types"].pop("findings"))
            for judges in ("findings", "exchanges"):
                line["record"].pop(judges)
        received[line["nodeid"], line["when"]] = line
    judged = {
        entry["id"]: [entry["verdict"], entry["reason"], entry["evidence"], entry["observations"]]
        for entry in report["requirements"]
        if entry["verdict"] != "untested"
    }
    return received, json.loads(mask(json.dumps(judged))), found


def test_the_controller_receives_the_same_typed_records_in_one_process_and_under_xdist(pytester):
    """Each phase of a conformance test reaches the controlling process as one PhaseRecord (its error Classified,
    the exchange judge's findings FindingTally), with the same fields whether the test ran in the same process or on an
    xdist worker; the verdicts and evidence of the report are the same both ways, and user_properties hold only the
    test's requirement ids (for pytest's own --junitxml)."""
    pytester.makeconftest(RECEIVED)
    alone, alone_judged, alone_found = _received(pytester, "-p", "no:xdist")
    parallel, parallel_judged, parallel_found = _received(pytester, "-n", "2")
    assert alone == parallel and alone_judged == parallel_judged
    assert len(alone) == 18  # six tests, three phases each
    assert {line["types"]["record"] for line in alone.values()} == {"PhaseRecord"}
    assert (
        alone_found == parallel_found == {"FindingTally"}
    )  # the exchange judge's findings ride on some phase's record
    refused = alone["conformance/test_sample.py::test_refused", "call"]
    assert refused["types"]["error"] == "Classified" and refused["record"]["error"]["setup_requirement"] == "RES-40"
    assert alone["conformance/test_sample.py::test_observed", "call"]["record"]["observations"] == [
        {"requirement": "ERR-04", "status": 418}
    ]
    assert {name for line in alone.values() for name in line["user_properties"]} == {"requirements"}
    assert alone_judged["SVC-05"][0] == "fail" and alone_judged["SVC-05"][2][0]["exchange"]["status"] == 200
    assert alone_judged["RES-50"][0] == "fail" and alone_judged["RES-50"][2][0]["rule"]  # the exchange judge's
    assert (alone_judged["RES-40"][0], alone_judged["SVC-06"][0], alone_judged["SVC-07"][0]) == (
        "fail",
        "blocked",
        "suite-error",
    )


def test_a_run_hands_the_garbage_collector_back_after_pytest_has_collected(pytester, monkeypatch):
    """pytest's own last garbage collection (its unraisable-exception check) walks a heap still frozen, and the run
    hands the process back unfrozen, with the collector's thresholds it found."""
    frozen_when_collected: list[int] = []
    collect = _pytest.unraisableexception.gc_collect_harder

    def counted(iterations: int) -> None:
        frozen_when_collected.append(gc.get_freeze_count())
        collect(iterations)

    monkeypatch.setattr(_pytest.unraisableexception, "gc_collect_harder", counted)
    thresholds = gc.get_threshold()
    pytester.makepyfile(test_one='def test_one():\n    """x."""\n')
    result = pytester.runpytest_inprocess("-p", "wallet_conformance.plugin.garbage_collection", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert frozen_when_collected and frozen_when_collected[-1] > 0
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == thresholds
