"""Every way a run ends, told the same way everywhere: the process's exit status, the terminal's last line,
conformance.json, the Markdown, the HTML and junit.xml agree; none says "conforms" where the run did not complete;
the report folder never keeps an earlier run's verdict. A table of endings, mistakes and selections; a run that is
sent a signal runs in a process of its own, as a user's or a CI's does (the signals are real), the others in this one
(no interpreter start-up: the table stays within CI's time).

Most rows run a small suite of the plugin's (SUITE, as a checkout's tests/ would be), whose whole conforms: the endings
are the plugin's, whatever the tests. The rows marked `command` run the installed command on the suite itself.
"""

from __future__ import annotations

import html
import json
import os
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from selftests.hostile import Answer, Hostile
from selftests.interrupter import PLAN
from selftests.suite_runs import RUN_TIMEOUT
from selftests.test_broken_target import DOWN
from wallet_conformance import cli
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reporting.report_header import VERDICT_WORDS
from wallet_conformance.reporting.terminal import last_line
from wallet_conformance.reporting.verdicts import ENDED_EARLY, Outcome
from wallet_conformance.spec.files import ROOT

PLUGIN = "wallet_conformance.plugin"  # the suite's plugin, which a checkout's conftest loads
MARKER = "AN-EARLIER-RUN-SAID-CONFORMS"  # in the reports an earlier run left: none may be left after a run
KEY = "sk-endings"

SUITE = '''
import time

import pytest

from wallet_conformance.judge import checks
from wallet_conformance.spec.catalogue import catalogue

MUST = tuple(requirement.id for requirement in catalogue() if requirement.level == "MUST")


@pytest.mark.requirement(*MUST)
def test_every_must_requirement():
    """Holds every MUST requirement."""
    for requirement in MUST:
        checks.holds(True, "held", True, True, requirement=requirement)


@pytest.mark.requirement("VER-01")
@pytest.mark.parametrize("n", range(8))
def test_a_while(n):
    """Holds VER-01, taking a while."""
    time.sleep(0.2)
    checks.holds(True, "held", True, True)


@pytest.mark.slow
@pytest.mark.requirement("LIM-01")
def test_marked():
    """Holds LIM-01."""
    checks.holds(True, "held", True, True)
'''
SUITE_BUG = '''

@pytest.mark.requirement("SVC-03")
def test_a_bug_of_the_suite():
    """Stops on an error no check raised."""
    raise KeyError("a bug of the suite")
'''
# A failure of SVC-12 between the tests that hold every MUST requirement and the rest, and a waiver of it: a run
# pytest stops at the failure (-x, --maxfail) has not run the rest, and passes no gate however it is waived.
FAILING = '''

@pytest.mark.requirement("SVC-12")
def test_a_failure():
    """Fails SVC-12."""
    checks.holds(False, "the documented message", "deleted", "closed", requirement="SVC-12")
'''
SUITE_FAILING = SUITE.replace(
    '\n\n@pytest.mark.requirement("VER-01")', FAILING + '\n\n@pytest.mark.requirement("VER-01")', 1
)
WAIVED = ("--waivers", "waivers.yaml")
WAIVER = "- id: SVC-12\n  reason: known\n  owner: team\n  expires: 2099-12-31\n"
# A second test module that cannot be imported: a suite error, whether the run stops there or goes on without it.
NOT_IMPORTABLE = "import wallet_conformance.no_such_module\n"
# Every request finds nobody: the suite takes the target as down and stops the run early.
TARGET_DOWN = "import pytest\n" + DOWN
BROKEN_HOOK = """
def pytest_collection_modifyitems(items):
    raise RuntimeError("a plugin's own bug")
"""
INI = """[pytest]
wallet_conformance_tests = conformance
addopts = -p no:cacheprovider
markers =
    slow: a marked test (-m)
"""


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # bound, not listening: connections are refused


@contextmanager
def html_target() -> Iterator[str]:
    """A target that answers an HTML page to everything: not the protocol."""
    with Hostile(lambda request: Answer(200, "<html><body>Welcome</body></html>", "text/html")) as hostile:
        yield hostile.base_url


THROTTLED = Answer(429, '{"meta": {"statusCode": 429, "success": false}, "data": null}', headers={"retry-after": "30"})
# A test reading the account list, which a throttling target answers 429 and asks a wait longer than a run may take.
READS_ACCOUNTS = '''
import pytest

from wallet_conformance.judge import checks


@pytest.mark.requirement("END-01")
@pytest.mark.parametrize("n", range(3))
def test_list_accounts(api, n):
    """Reads the account list."""
    checks.accepted(api.call("listAccounts"), "the account list")
'''


@contextmanager
def throttling() -> Iterator[str]:
    """A target that answers its account list 429 with Retry-After 30 s, the rest as the reference does."""
    with (
        ReferenceServer(secret_key=KEY) as reference,
        Hostile(lambda request: THROTTLED if "/accounts" in request.path else None, upstream=reference) as hostile,
    ):
        yield hostile.base_url


@contextmanager
def another_key() -> Iterator[str]:
    """A target whose account's key is not the run's: it refuses the run's key."""
    with ReferenceServer(secret_key=f"{KEY}-of-another-account") as reference:
        yield reference.base_url


@contextmanager
def unreachable() -> Iterator[str]:
    yield f"http://127.0.0.1:{closed_port()}/v1"


@dataclass(frozen=True)
class Ending:
    """How a run is made to end, and what it must say of it: its outcome and exit status, and words its stop's reason
    holds. `interrupt`: when the run is sent which signal (selftests/interrupter.py); `command`: the installed command
    on the suite itself, not the small suite; `target`: a deployed target for the run."""

    args: tuple[str, ...]
    outcome: Outcome
    status: int
    interrupt: str = ""
    command: bool = False
    source: str = SUITE
    conftest: str = ""
    reason: str = ""
    target: Callable[[], AbstractContextManager[str]] | None = None
    other: str = ""  # a second test module's source


WORKERS = ("-n", "2")
ENDINGS = {
    "complete": Ending(("-n", "0"), Outcome.CONFORMS, 0),
    "complete, workers": Ending(WORKERS, Outcome.CONFORMS, 0),
    "nothing judged": Ending(("-k", "no_such_test"), Outcome.NOTHING_JUDGED, 11),
    "a suite error": Ending(("-n", "0"), Outcome.SUITE_ERROR, 6, source=SUITE + SUITE_BUG),
    "an internal error": Ending(("-n", "0"), Outcome.SUITE_ERROR, 3, conftest=BROKEN_HOOK, reason="internal error"),
    "stopped early: the target stopped answering": Ending(
        ("-n", "0"), Outcome.STOPPED_EARLY, 9, source=TARGET_DOWN, reason="the target stopped answering"
    ),
    "stopped early: rate limited past --rate-limit-wait": Ending(
        ("--secret-key", KEY, "-n", "0"),
        Outcome.STOPPED_EARLY,
        9,
        source=READS_ACCOUNTS,
        target=throttling,
        reason="answering 429",
    ),
    "stopped by -x, its failure waived": Ending(
        ("-n", "0", "-x", *WAIVED), Outcome.STOPPED_EARLY, 9, source=SUITE_FAILING, reason="pytest stopped the run"
    ),
    "stopped by --maxfail, its failure waived, workers": Ending(
        (*WORKERS, "--maxfail=1", *WAIVED),
        Outcome.STOPPED_EARLY,
        9,
        source=SUITE_FAILING,
        reason="pytest stopped the run",
    ),
    "-x at a failure of the last test: a whole run": Ending(
        ("-n", "0", "-x"), Outcome.DOES_NOT_CONFORM, 1, source=SUITE + FAILING
    ),
    "a module that cannot be collected": Ending(
        ("-n", "0"), Outcome.SUITE_ERROR, 6, other=NOT_IMPORTABLE, reason="conformance/test_other.py"
    ),
    "a module that cannot be collected, --continue-on-collection-errors": Ending(
        ("-n", "0", "--continue-on-collection-errors"),
        Outcome.SUITE_ERROR,
        6,
        other=NOT_IMPORTABLE,
        reason="conformance/test_other.py",
    ),
    "a module that cannot be collected, workers": Ending(
        WORKERS, Outcome.SUITE_ERROR, 6, other=NOT_IMPORTABLE, reason="conformance/test_other.py"
    ),
    "stopped at the preflight: unreachable": Ending(
        ("--secret-key", KEY), Outcome.STOPPED_AT_PREFLIGHT, 4, target=unreachable, reason="cannot be reached"
    ),
    "stopped at the preflight: a refused key": Ending(
        ("--secret-key", KEY),
        Outcome.STOPPED_AT_PREFLIGHT,
        4,
        target=another_key,
        reason="the target refused the secret key",
    ),
    "stopped at the preflight: not the protocol": Ending(
        ("--secret-key", KEY),
        Outcome.STOPPED_AT_PREFLIGHT,
        8,
        target=html_target,
        reason="does not answer JSON envelopes",
    ),
    "interrupted during collection": Ending(
        ("-n", "0"), Outcome.INTERRUPTED, 2, "collection:SIGINT", reason="interrupted (SIGINT) before"
    ),
    "interrupted during collection, workers": Ending(
        WORKERS, Outcome.INTERRUPTED, 2, "collection:SIGINT", reason="interrupted (SIGINT)"
    ),
    "interrupted mid-run": Ending(
        ("-n", "0"), Outcome.INTERRUPTED, 2, "test:SIGINT", reason="interrupted (SIGINT) after"
    ),
    "interrupted mid-run, workers": Ending(
        WORKERS, Outcome.INTERRUPTED, 2, "test:SIGINT", reason="interrupted (SIGINT) after"
    ),
    "cancelled mid-run (SIGTERM)": Ending(
        ("-n", "0"), Outcome.INTERRUPTED, 2, "test:SIGTERM", reason="interrupted (SIGTERM) after"
    ),
    "cancelled mid-run (SIGTERM), workers": Ending(
        WORKERS, Outcome.INTERRUPTED, 2, "test:SIGTERM", reason="interrupted (SIGTERM) after"
    ),
    "interrupted in the end-of-run cleanup": Ending(
        ("-n", "0"), Outcome.INTERRUPTED, 2, "cleanup:SIGINT", reason="cleanup was interrupted"
    ),
    "interrupted in the end-of-run cleanup, workers": Ending(
        WORKERS, Outcome.INTERRUPTED, 2, "cleanup:SIGINT", reason="cleanup was interrupted"
    ),
    "a second Ctrl-C in the cleanup": Ending(
        ("-n", "0"), Outcome.INTERRUPTED, 2, "test:SIGINT,cleanup:SIGINT", reason="interrupted (SIGINT, then SIGINT)"
    ),
    "a signal while the final reports are written": Ending(("-n", "0"), Outcome.CONFORMS, 0, "reports:SIGINT"),
    "a signal while the final reports are written, workers": Ending(WORKERS, Outcome.CONFORMS, 0, "reports:SIGTERM"),
    "the command interrupted mid-run": Ending(
        ("-n", "0"), Outcome.INTERRUPTED, 2, "test:SIGINT", command=True, reason="interrupted (SIGINT) after"
    ),
    "the command interrupted mid-run, workers": Ending(
        WORKERS, Outcome.INTERRUPTED, 2, "test:SIGINT", command=True, reason="interrupted (SIGINT) after"
    ),
}
# Each mistake of an option or a file given, under one process and under workers: one ERROR line, exit 4, before
# anything starts (no reference, no worker, no verdict printed), and the reports of that stop.
MISTAKES = {
    "an unknown requirement": (("--requirement", "NOPE-1"), "--requirement NOPE-1: no such requirement"),
    "an unknown part": (("--part", "money"), "--part money: no such part of the document"),
    "an unknown level": (("--level", "MAY"), "--level MAY: no such level"),
    "a part and a level that choose nothing": (
        ("--part", "versioning", "--level", "SHOULD"),
        "--part and --level together choose no requirement",
    ),
    "a value not among the choices": (("--environment", "prod"), "--environment must be staging or production"),
    "a waiver file naming no requirement": (("--waivers", "waivers.yaml"), "no such requirement in requirements.yaml"),
    "a baseline of another catalogue": (("--baseline", "baseline.json"), "was judged against another catalogue"),
}
# Each way of choosing part of the suite: the run conforms on the selection, holding what it says; with
# --require-complete it is incomplete (exit 7).
SELECTIONS = {
    "--requirement, in any letter case": (("--requirement", "ver-01"), ["--requirement", "VER-01"], 1),
    "--part": (("--part", "versioning"), ["--part", "versioning"], 1),
    "--level": (("--level", "MUST"), ["--level", "MUST"], None),
    "-k": (("-k", "a_while"), ["-k", "a_while"], 1),
    "-m": (("-m", "slow"), ["-m", "slow"], 1),
    "a path": (("conformance/test_sample.py::test_marked",), ["conformance/test_sample.py::test_marked"], 1),
    # stepwise (pytest's cache on): it leaves out the tests before the last failure, here none
    "--sw": (("--sw",), ["--sw"], None),
    "--sw-skip": (("--sw-skip",), ["--sw-skip"], None),
}


@dataclass
class Ran:
    status: int
    lines: list[str]  # what it printed, stdout then stderr, without blank lines
    reports: Path

    @property
    def report(self) -> dict[str, Any]:
        return json.loads((self.reports / "conformance.json").read_text(encoding="utf-8"))


@dataclass
class Runner:
    """Runs the suite from `folder` (pytester's, this process's working folder), its report folder holding an earlier
    run's green reports: with a signal to send, in a process of its own; else in this process."""

    pytester: pytest.Pytester
    capsys: pytest.CaptureFixture[str]

    @property
    def folder(self) -> Path:
        return self.pytester.path

    def __call__(
        self,
        args: tuple[str, ...],
        *,
        interrupt: str = "",
        command: bool = False,
        source: str = SUITE,
        conftest: str = "",
        other: str = "",
        cache: bool = False,
    ) -> Ran:
        reports = self.folder / "out"
        reports.mkdir(parents=True, exist_ok=True)
        for name in ("conformance.json", "conformance.md", "conformance.html", "junit.xml"):
            (reports / name).write_text(f'"{MARKER}: conforms, exit status 0"\n', encoding="utf-8")
        common = ("--report-dir", str(reports), "--work-dir", str(self.folder / "work"))
        if not command:
            ini = INI.replace("addopts = -p no:cacheprovider\n", "") if cache else INI
            (self.folder / "pytest.ini").write_text(ini, encoding="utf-8")
            (self.folder / "conformance").mkdir(exist_ok=True)
            (self.folder / "conformance" / "test_sample.py").write_text(source, encoding="utf-8")
            if conftest:
                (self.folder / "conformance" / "conftest.py").write_text(conftest, encoding="utf-8")
            if other:
                (self.folder / "conformance" / "test_other.py").write_text(other, encoding="utf-8")
            (self.folder / "waivers.yaml").write_text(WAIVER, encoding="utf-8")
        if interrupt:
            return self._process((*args, *common), interrupt, command, reports)
        if command:
            status = cli.main([*args, *common])
            captured = self.capsys.readouterr()
            return Ran(status, _lines(captured.out + captured.err), reports)
        result = self.pytester.runpytest_inprocess("-p", PLUGIN, "conformance", *common, *args)
        return Ran(int(result.ret), _lines("\n".join(result.outlines + result.errlines)), reports)

    def _process(self, args: tuple[str, ...], interrupt: str, command: bool, reports: Path) -> Ran:
        env = {
            name: value for name, value in os.environ.items() if not name.startswith(("WALLET_API_", "PYTEST_XDIST"))
        }
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
        env[PLAN] = interrupt
        program = ["wallet_conformance.cli"] if command else ["pytest", "-p", PLUGIN, "conformance"]
        done = subprocess.run(
            [sys.executable, "-m", *program, "-p", "selftests.interrupter", *args],
            cwd=self.folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        return Ran(done.returncode, _lines(done.stdout + done.stderr), reports)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture
def run(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Runner:
    """The suite's runs of a row, none reading this machine's WALLET_API_ variables."""
    for name in [name for name in os.environ if name.startswith("WALLET_API_")]:
        monkeypatch.delenv(name)
    return Runner(pytester, capsys)


def told_alike(ran: Ran, outcome: Outcome, status: int) -> dict[str, Any]:
    """The process's exit status, the terminal's last line, conformance.json, the Markdown, the HTML and junit.xml say
    the same ending; no earlier run's report is left; a run that did not complete says "conforms" nowhere and names
    what it had not reached. The report, for more."""
    shown = "\n".join(ran.lines[-40:])
    assert not any(MARKER in path.read_text(encoding="utf-8") for path in ran.reports.iterdir()), shown
    report = ran.report
    words = VERDICT_WORDS[outcome]
    assert (ran.status, report["outcome"]["exit_status"], report["outcome"]["verdict"]) == (status, status, outcome), (
        shown
    )
    stopped = report.get("stopped")
    if outcome == Outcome.USAGE_ERROR:
        assert ran.lines == [f"ERROR: {stopped['reason']}"], shown  # nothing printed before claims a verdict
    else:
        assert ran.lines[-1] == last_line(report), shown
    markdown = (ran.reports / "conformance.md").read_text(encoding="utf-8")
    assert f"| verdict | {words} (exit status {status})" in markdown, markdown[:1500]
    page = (ran.reports / "conformance.html").read_text(encoding="utf-8")
    assert f'id="verdict">{html.escape(words)}</span>' in page
    suites = list(ET.parse(ran.reports / "junit.xml").getroot())
    run_case = suites[0].find("testcase/error") if suites and suites[0].get("name") == "the run" else None
    assert (run_case is not None) == (stopped is not None), shown
    if stopped is not None:
        assert stopped["status"] == status and stopped["outcome"] == outcome
        assert run_case is not None and run_case.get("message", "").startswith(words)
    if outcome in ENDED_EARLY or stopped is not None:
        said = [ran.lines[-1], markdown.split("\n## ", 1)[0], "" if run_case is None else run_case.get("message", "")]
        assert not any("conforms" in text.lower() for text in said), said
        assert not report["outcome"]["conforms"] and not report["outcome"]["complete"]
        untested = [item for item in report["outcome"]["must_not_tested"] if item["verdict"] == "untested"]
        assert all(item["reason"] for item in untested), untested
    return report


@pytest.mark.parametrize("name", list(ENDINGS))
def test_every_ending_is_told_alike(name, run):
    """Each way a run ends (complete; interrupted by SIGINT or SIGTERM during collection, mid-run, in the cleanup, by
    a second Ctrl-C, or while its reports are written; stopped early; stopped at the preflight; a suite error or an
    internal one; nothing judged), in one process and under workers: every output says the same ending."""
    ending = ENDINGS[name]
    with (ending.target or nullcontext)() as base_url:
        target = ("--base-url", base_url) if base_url else ()
        ran = run(
            (*target, *ending.args),
            interrupt=ending.interrupt,
            command=ending.command,
            source=ending.source,
            conftest=ending.conftest,
            other=ending.other,
        )
    report = told_alike(ran, ending.outcome, ending.status)
    assert ending.reason in (report.get("stopped") or {}).get("reason", ""), report.get("stopped")
    if ending.outcome == Outcome.INTERRUPTED and "collection" not in ending.interrupt:
        reached = [item for item in report["outcome"]["must_not_tested"] if item["verdict"] == "untested"]
        assert all(item["reason"].startswith("not reached") for item in reached), reached
    if {"-x", "--maxfail=1"} & set(ending.args):  # the command that reproduces the run stops where it stopped
        assert "-x" in report["run"]["arguments"], report["run"]["arguments"]
    if ending.other:  # every report names the module that could not be collected
        for name in ("conformance.md", "conformance.html", "junit.xml"):
            assert ending.reason in (ran.reports / name).read_text(encoding="utf-8"), name
        assert any(ending.reason in line for line in ran.lines[-12:]), ran.lines[-12:]
    if "reports:" in ending.interrupt:  # too late to change the ending: the run says so, above its last line
        assert ran.lines[-2].endswith("too late to change its ending)"), ran.lines[-3:]


@pytest.mark.parametrize("workers", [("-n", "0"), WORKERS], ids=["one process", "workers"])
@pytest.mark.parametrize("name", list(MISTAKES))
def test_a_mistake_stops_the_run_before_anything_starts(name, workers, run):
    """Each mistake in an option or a file given, under any -n: one ERROR line naming it, exit 4, the reports of that
    stop in place of an earlier run's."""
    args, words = MISTAKES[name]
    (run.folder / "waivers.yaml").write_text("- id: NOPE-01\n  reason: r\n  owner: o\n  expires: 2030-01-01\n")
    (run.folder / "baseline.json").write_text(
        json.dumps(
            {
                "format": "wallet-conformance-report/1",
                "judged_against": {"requirements.yaml": "sha256:" + "0" * 64},
                "requirements": [],
            }
        )
    )
    ran = run((*args, *workers), command=True)
    report = told_alike(ran, Outcome.USAGE_ERROR, 4)
    assert words in report["stopped"]["reason"], report["stopped"]


@pytest.mark.parametrize("name", list(SELECTIONS))
def test_a_selection_says_it_is_one(name, run):
    """A run restricted to part of the suite conforms on the selection, says how many MUST requirements it held and
    that the rest were not selected, and is never complete: --require-complete fails it."""
    args, by, held = SELECTIONS[name]
    cache = args[0].startswith("--sw")  # stepwise needs pytest's cache
    ran = run((*args, "-n", "0"), cache=cache)
    report = told_alike(ran, Outcome.CONFORMS_ON_THE_SELECTION, 0)
    selection = report["outcome"]["selection"]
    must = selection["must_in_catalogue"]
    assert selection["by"] == by and selection["must_selected"] == (held or must), selection
    left_out = [entry for entry in report["requirements"] if entry["verdict"] == "not-selected"]
    assert left_out and all(entry["reason"].startswith("not selected") for entry in left_out)
    assert not report["outcome"]["complete"]
    assert f"{selection['must_selected']} of the catalogue's {must} MUST requirements selected" in "\n".join(ran.lines)
    gated = run((*args, "-n", "0", "--require-complete"), cache=cache)
    assert told_alike(gated, Outcome.INCOMPLETE, 7)["outcome"]["gate"]["failing"] == []
