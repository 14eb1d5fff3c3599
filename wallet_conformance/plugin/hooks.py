"""The pytest plugin of the suite: hooks only. Its state lives in `config.stash`.

- options and their validation (options.py)
- the target: the bundled reference or a deployed implementation, resolved once per run
  on the controlling process and handed to xdist workers
- the `requirement` marker, checked against the catalogue at collection; while a test runs, its declared
  ids are the default requirement of every check (failures.declared)
- the safety guard's NotAllowed turned into a skip, in this one place
- one record per test, turned into the reports and the exit status (reporting/: records, gating, writers)
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.redaction import redact, register_secret
from wallet_conformance.client.target import EXIT_TARGET_FAILING, Target, configured, preflight, start_reference
from wallet_conformance.judge.failures import ConformanceFailure, SuiteError, declared
from wallet_conformance.plugin import options
from wallet_conformance.reporting import allure_results, evidence, gating, terminal
from wallet_conformance.reporting.conformance import FORMAT, build_report, exit_status, judged_against
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import ROOT
from wallet_conformance.world import bodies
from wallet_conformance.world.safety import NotAllowed

TESTS_INI = "wallet_conformance_tests"
WORKER_TARGET = "wallet_conformance_target"
WORKER_SEED = "wallet_conformance_seed"
WORKER_LEDGER = "wallet_conformance_money_ledger"
EXCHANGES_SHOWN = 3
COLLECTION_FILE = "collection.json"


@dataclass
class RunState:
    settings: options.Settings
    target: Target | None = None
    server: Any = None  # the bundled reference, when this process started it
    records: dict[str, TestRecord] = field(default_factory=dict)
    client: Any = None  # the run's ApiClient, once a fixture made it
    report_path: Path | None = None
    report: dict[str, Any] | None = None
    written: list[Path] = field(default_factory=list)  # every report file of the run
    started: float = field(default_factory=time.monotonic)
    test_deadline: float | None = None  # the current test's bound (monotonic), applied to the client
    stopped: dict[str, Any] | None = None  # why the run stopped early ({"reason", "status"}), if it did
    ledger: Path | None = None  # the money the workers of an xdist run spent (safety.Guard), made by the controller


STATE = pytest.StashKey[RunState]()
TESTS_DIR = pytest.StashKey[Path]()
IS_CONFORMANCE = pytest.StashKey[bool]()
TEST_START = pytest.StashKey[int]()
RATE_LIMITS_START = pytest.StashKey[int]()
RUN_STOPPED = "run_stopped"
RATE_LIMITED = "rate_limited"
RATE_LIMITS_KEPT = 50  # 429 observations written to the report (all are counted)
ACCOUNT_WIDE_GROUP = "account-wide"
OPERATION_GROUP = "operation-"
# Under --dist loadgroup xdist appends `@<group>` to the node id of a grouped test: the groups added here, and
# those a test module declares itself (`pytestmark = pytest.mark.xdist_group(...)`, tests sharing a fixture).
_GROUP_SUFFIX = re.compile(r"@[\w.-]+$")
RATE_LIMIT_REQUIREMENT = "LIM-23"  # rate limits: not shown (INFO), observed when the target answers 429


def state(config: pytest.Config) -> RunState:
    return config.stash[STATE]


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def tests_dir(config: pytest.Config) -> Path:
    """The folder of conformance tests (ini `wallet_conformance_tests`, default tests/ beside the catalogue)."""
    found = config.stash.get(TESTS_DIR, None)
    if found is None:
        configured_dir = config.getini(TESTS_INI)
        found = (config.rootpath / configured_dir).resolve() if configured_dir else ROOT / "tests"
        config.stash[TESTS_DIR] = found
    return found


def is_conformance_item(item: pytest.Item) -> bool:
    """Whether a test is one of the conformance suite's (asked several times per test: kept on the item)."""
    known = item.stash.get(IS_CONFORMANCE, None)
    if known is None:
        known = item.stash[IS_CONFORMANCE] = item.path.is_relative_to(tests_dir(item.config))
    return known


def requirement_ids(item: pytest.Item) -> tuple[str, ...]:
    ids: list[str] = []
    for marker in item.iter_markers("requirement"):
        ids.extend(marker.args)
    return tuple(dict.fromkeys(ids))


def runs_conformance(config: pytest.Config) -> bool:
    """Whether this run collects from tests/ (the self-tests do not need a target)."""
    conformance = tests_dir(config)
    for arg in config.args:
        path = (Path(config.invocation_params.dir) / arg.split("::")[0]).resolve()
        if path.is_relative_to(conformance) or conformance.is_relative_to(path):
            return True
    return False


# ------------------------------------------------------------------ options and configuration


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    options.add_options(parser)
    if pluginmanager.is_blocked("cacheprovider"):
        # pyproject.toml sets cache_dir (inside reports/); with `-p no:cacheprovider` it would be an unknown ini.
        parser.addini("cache_dir", "unused: the cache provider is off (-p no:cacheprovider)", default="")
    parser.addini(TESTS_INI, "folder of the conformance tests, relative to the rootdir (default: tests)", default="")


@pytest.hookimpl(tryfirst=True)  # before allure-pytest reads --alluredir
def pytest_configure(config: pytest.Config) -> None:
    # The `requirement` marker is declared here only (not in pyproject.toml): the plugin owns it.
    config.addinivalue_line("markers", "requirement(*ids): the catalogue requirements (requirements.yaml) "
                                       "this test checks")
    config.addinivalue_line("markers", "account_wide: uses an account-wide limit; runs in one xdist group")
    config.addinivalue_line("markers", "money: moves money; needs a funding URL or a funded wallet")
    settings = options.settings(config)
    if is_worker(config):
        settings = _replace_seed(settings, config.workerinput[WORKER_SEED])
    register_secret(settings.secret_key)
    config.stash[STATE] = RunState(settings=settings)
    if runs_conformance(config):
        allure_results.default_directory(config, settings.report_dir)
    if not is_worker(config):
        config.pluginmanager.register(Recorder(config), "wallet-conformance-recorder")
        config.pluginmanager.register(EarlyStop(config), "wallet-conformance-early-stop")


def _replace_seed(settings: options.Settings, seed: int) -> options.Settings:
    from dataclasses import replace

    return replace(settings, seed=seed)


def pytest_report_header(config: pytest.Config) -> list[str]:
    run = state(config)
    where = run.settings.base_url or "the bundled reference server (started for this run)"
    return [f"wallet-conformance: target {redact(where)}, environment {run.settings.environment}, "
            f"seed {run.settings.seed}"]


# ------------------------------------------------------------------ the target


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    run = state(config)
    if is_worker(config):
        target = config.workerinput.get(WORKER_TARGET)
        run.target = Target(**target) if target else None
        if run.target:
            register_secret(run.target.secret_key)
        return
    if not runs_conformance(config) or config.option.collectonly:
        return
    settings = run.settings
    if settings.embedded:
        run.target, run.server = start_reference(settings)
    else:
        run.target = configured(settings)
    register_secret(run.target.secret_key)
    if settings.cleanup:
        from wallet_conformance.world.cleanup import clean_up  # imported late: only --cleanup runs need it

        message, status = clean_up(run.target, settings)
        pytest.exit(redact(message), returncode=status)
    stop = preflight(run.target, settings.request_timeout, settings.ca_bundle)
    if stop is not None:
        pytest.exit(redact(stop.message), returncode=stop.status)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: every worker uses the one target (and reference server) of the run."""
    run = state(node.config)
    node.workerinput[WORKER_SEED] = run.settings.seed
    if run.ledger is None:
        run.settings.report_dir.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=".money-spent-", dir=run.settings.report_dir)
        os.close(handle)
        run.ledger = Path(name)
    node.workerinput[WORKER_LEDGER] = str(run.ledger)
    if run.target is not None:
        node.workerinput[WORKER_TARGET] = run.target.to_dict()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every process: the run ended normally, so its crash journal (cleanup.py) is no longer needed."""
    run = session.config.stash.get(STATE, None)
    journal = getattr(run.client, "journal", None) if run is not None else None
    if journal is not None:
        journal.finish()


def money_ledger(config: pytest.Config) -> Path | None:
    """The run's shared money ledger in an xdist worker; None in a run of one process."""
    name = config.workerinput.get(WORKER_LEDGER) if is_worker(config) else None
    return Path(name) if name else None


def pytest_unconfigure(config: pytest.Config) -> None:
    # When the process exits, spare the interpreter a last walk of every object the run made: a few tenths of a
    # second of CPU per process, and xdist's workers all exit at once when the last is done, so on two cores it
    # was most of a second at the end of every parallel run. At exit, not here: a run inside another process
    # (the self-tests' in-process runs) must leave that process's garbage collection alone.
    atexit.register(gc.freeze)
    run = config.stash.get(STATE, None)
    if run is not None and run.ledger is not None:
        run.ledger.unlink(missing_ok=True)
    if run is not None and run.server is not None:
        run.server.stop()
        run.server = None


# ------------------------------------------------------------------ collection


# First: xdist's worker turns the xdist_group markers added here into node ids in its own hook of this name.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    known = catalogue()
    selected = state(config).settings.requirements
    problems = [f"--requirement {rid}: no such requirement in requirements.yaml" for rid in selected
                if rid not in known]
    keep, drop = [], []
    for item in items:
        if not is_conformance_item(item):
            keep.append(item)
            continue
        ids = requirement_ids(item)
        if not ids:
            problems.append(f"{item.nodeid}: names no requirement (add @pytest.mark.requirement(\"ID\"))")
        problems.extend(f"{item.nodeid}: unknown requirement {rid!r} (not in requirements.yaml)"
                        for rid in ids if rid not in known)
        item.user_properties.append(("requirements", ids))
        allure_results.label(item, [known[rid] for rid in ids if rid in known], known.sections)
        if item.get_closest_marker("account_wide"):
            item.add_marker(pytest.mark.xdist_group(ACCOUNT_WIDE_GROUP))
        elif (operation := _operation_param(item)) is not None:
            # Under xdist the tests of one operation share a worker, so its session samples (a success, the
            # requests without a key) are made once, not once per worker: fewer requests to a remote target.
            item.add_marker(pytest.mark.xdist_group(f"{OPERATION_GROUP}{operation}"))
        (keep if not selected or set(ids) & set(selected) else drop).append(item)
    if problems:
        raise pytest.UsageError("requirement markers:\n  " + "\n  ".join(problems))
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    if config.option.collectonly and not is_worker(config):
        write_collection(items, state(config).settings.report_dir)


def plain_nodeid(nodeid: str) -> str:
    """A node id without the group suffix xdist gives the tests grouped here: a test has one name in the reports
    (and baselines), serial or parallel."""
    return _GROUP_SUFFIX.sub("", nodeid)


def _operation_param(item: pytest.Item) -> str | None:
    """The operationId a test is parametrized with, if any."""
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get("operation_id") if callspec is not None else None
    return value if isinstance(value, str) else None


def write_collection(items: list[pytest.Item], directory: Path) -> Path:
    """With --collect-only: collection.json maps each requirement to the tests that name it."""
    covering: dict[str, list[str]] = {}
    for item in items:
        for requirement_id in dict(item.user_properties).get("requirements", ()):
            covering.setdefault(requirement_id, []).append(item.nodeid)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / COLLECTION_FILE
    path.write_text(json.dumps(dict(sorted(covering.items())), indent=2) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------ results


def _run_declared(item: pytest.Item):
    """Runs one phase of a conformance test with its declared ids as the checks' default requirement;
    the guard's NotAllowed becomes a skip here, and nowhere else."""
    if not is_conformance_item(item):
        return (yield)
    with declared(requirement_ids(item)):
        try:
            return (yield)
        except NotAllowed as refusal:
            pytest.skip(str(refusal))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    run = state(item.config)
    client = run.client
    item.stash[TEST_START] = len(client.exchanges) if client else 0
    item.stash[RATE_LIMITS_START] = len(client.rate_limited) if client else 0
    # The test's bound, cut at the end of the run's budget; teardown gets a fresh one (cleanup must happen).
    end_of_budget = run.started + run.settings.run_budget
    _bound(run, min(time.monotonic() + run.settings.test_timeout, end_of_budget),
           f"the test used up its time bound (--test-timeout {run.settings.test_timeout:g} s)"
           if time.monotonic() + run.settings.test_timeout < end_of_budget
           else f"the run used up its budget (--run-budget {run.settings.run_budget:g} s)")
    if is_conformance_item(item):
        allure_results.operation_parameter(item)
    return (yield from _run_declared(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    return (yield from _run_declared(item))


def suite_error(error: BaseException, declared_ids: tuple[str, ...]) -> str | None:
    """The message of an error of the suite itself: a SuiteError, or a failure naming an undeclared id."""
    if isinstance(error, SuiteError):
        return str(error)
    if isinstance(error, ConformanceFailure) and error.requirement not in declared_ids:
        return (f"SUITE ERROR: a failure names requirement {error.requirement!r}, which the test does not declare "
                f"({', '.join(declared_ids)})")
    if isinstance(error, BaseExceptionGroup):
        return next((found for inner in error.exceptions if (found := suite_error(inner, declared_ids))), None)
    return None


def pytest_runtest_teardown(item: pytest.Item) -> None:
    run = state(item.config)
    _bound(run, time.monotonic() + run.settings.test_timeout,
           f"the test's cleanup used up its time bound (--test-timeout {run.settings.test_timeout:g} s)")


def _bound(run: RunState, deadline: float, reason: str) -> None:
    run.test_deadline = deadline
    if run.client is not None:
        run.client.deadline, run.client.deadline_reason = deadline, reason


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest):
    """When the run's client is made: the current test's bound applies to it, and it journals what it changes."""
    value = yield
    run = request.config.stash.get(STATE, None)
    if fixturedef.argname == "api" and run is not None and run.client is value and value is not None:
        value.deadline = run.test_deadline
        value.rate_limit_wait = run.settings.rate_limit_wait
        if run.target is not None and not run.target.embedded:
            from wallet_conformance.world.cleanup import Journal

            value.journal = Journal(run.settings.report_dir, run.target.base_url, bodies.run_id(run.settings.seed),
                                    value)
    return value


def failed_requirements(error: BaseException) -> tuple[str, ...]:
    """The requirements a failure names; empty when it names none (see reporting/evidence.py)."""
    return evidence.classify(error).failed_requirements


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if not is_conformance_item(item):
        return report
    properties = list(report.user_properties)
    client = state(item.config).client
    made = client.exchanges[item.stash.get(TEST_START, 0):] if client is not None else []
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        classified = evidence.classify(call.excinfo.value)
        problem = suite_error(call.excinfo.value, requirement_ids(item))
        if problem:
            # A suite error judges none of the test's requirements and fails the run; its message leads.
            classified.suite_error, classified.failed_requirements = True, ()
            report.longrepr = f"{problem}\n\n{report.longrepr}"
        if made:
            for item_evidence in classified.evidence:  # no exchange of its own: the test's last one
                item_evidence.setdefault("exchange", evidence.exchange_evidence(made[-1]))
        properties.extend(classified.properties())
        allure_results.attach_evidence(classified.evidence)
        recent = made[-EXCHANGES_SHOWN:]
        if recent:
            report.sections.append(("exchanges (last of this test)",
                                    "\n\n".join(exchange.describe() for exchange in recent)))
    if call.when == "call":
        allure_results.attach_exchanges(made)
    run = state(item.config)
    if client is not None and report.when == "call":
        limited = client.rate_limited[item.stash.get(RATE_LIMITS_START, 0):]
        if limited:
            properties.append((RATE_LIMITED, limited))
    stop = _why_stop(run)
    if stop is not None and not item.session.shouldstop:
        item.session.shouldstop = stop
        properties.append((RUN_STOPPED, {"reason": stop, "status": EXIT_TARGET_FAILING}))
    report.user_properties = properties
    if report.longrepr is not None:
        text = str(report.longrepr)
        if redact(text) != text:
            report.longrepr = redact(text)
    return report


def _why_stop(run: RunState) -> str | None:
    """Why the run should stop after this test (the target is down, failing, or the budget is gone), or None."""
    client = run.client
    if client is not None and client.target_down:
        return "the target stopped answering: the run stops here rather than wait on every request"
    if client is not None and client.target_failing:
        return (f"the target is failing: {client.server_errors} of its last {len(client.recent_statuses)} answers "
                "were 5xx; the run stops here rather than fail every test on it")
    if time.monotonic() - run.started > run.settings.run_budget:
        return f"the run used up its budget (--run-budget {run.settings.run_budget:g} s): it stops with what it has"
    return None


class EarlyStop:
    """On the controlling process: why the run stopped early (the exit status then), and the 429s met (LIM-23)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rate_limited: list[dict[str, Any]] = []
        self.first_failure: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        run = state(self.config)
        properties = dict(report.user_properties)
        self.rate_limited.extend({"test": plain_nodeid(report.nodeid), **entry}
                                 for entry in properties.get(RATE_LIMITED, ()))
        if report.failed and self.first_failure is None:
            self.first_failure = f"{plain_nodeid(report.nodeid)}: {_crash_line(report)}"
        stopped = properties.get(RUN_STOPPED)
        if stopped and run.stopped is None:
            run.stopped = stopped
            self._quiet()

    def _quiet(self) -> None:
        """The failures before a stop are the target failing, not findings: the summary says so in a few lines."""
        self.config.option.tbstyle = "no"
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.reportchars = ""

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int):
        result = yield
        run = state(self.config)
        if run.stopped is None and session.shouldstop and "target" in str(session.shouldstop):
            run.stopped = {"reason": str(session.shouldstop), "status": EXIT_TARGET_FAILING}
        if run.stopped is not None:
            session.exitstatus = run.stopped["status"]
        if run.report is not None and run.report_path is not None and (run.stopped or self.rate_limited):
            if run.stopped is not None:
                run.report["stopped"] = run.stopped
                run.report["outcome"]["exit_status"] = run.stopped["status"]
            self._record_rate_limits(run)
            run.written = write_all(run.report, run.settings.report_dir)
        return result

    def _record_rate_limits(self, run: RunState) -> None:
        """LIM-23 (rate limits: not shown) observes every 429 the client met, whichever test met it."""
        entry = next((e for e in run.report["requirements"] if e["id"] == RATE_LIMIT_REQUIREMENT), None)
        if entry is None or not self.rate_limited:
            return
        summary = {"requirement": RATE_LIMIT_REQUIREMENT, "status": 429, "answers": len(self.rate_limited),
                   "waited_seconds": round(sum(item["waited"] for item in self.rate_limited), 3),
                   "kept_as_answer": sum(item["gave_up"] for item in self.rate_limited)}
        entry["observations"].append(summary)
        entry["observations"].extend({"requirement": RATE_LIMIT_REQUIREMENT, "status": 429, **item}
                                     for item in self.rate_limited[:RATE_LIMITS_KEPT])

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        run = state(self.config)
        if run.stopped is not None:
            failed = len(terminalreporter.stats.get("failed", [])) + len(terminalreporter.stats.get("error", []))
            if failed:
                terminalreporter.write_line(f"{failed} test(s) failed before the stop (evidence in the report); "
                                            f"the first: {self.first_failure}")
            terminalreporter.write_line(f"The run stopped early: {run.stopped['reason']} "
                                        f"(exit status {run.stopped['status']}).", red=True, bold=True)


def _crash_line(report: pytest.TestReport) -> str:
    text = str(report.longrepr or "").strip().splitlines()
    line = next((line for line in text if line.startswith("E ")), text[-1] if text else "")
    return redact(line.removeprefix("E").strip())[:300]


def _skip_reason(report: pytest.TestReport) -> str | None:
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr) if report.longrepr else None


class Recorder:
    """Keeps one record per conformance test on the controlling process and writes the report at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = time.time()
        self.gate = self._gate(config)

    @staticmethod
    def _gate(config: pytest.Config) -> gating.Gate:
        """Waivers and baseline, read and checked before any test runs: a bad one stops the run with one message."""
        settings = state(config).settings
        waivers_path, baseline_path = options.option(config, "--waivers"), options.option(config, "--baseline")
        try:
            waivers = gating.load_waivers(Path(waivers_path), catalogue()) if waivers_path else ()
            baseline = (gating.load_baseline(Path(baseline_path), judged_against()["requirements.yaml"], FORMAT)
                        if baseline_path else None)
        except gating.GateError as error:
            raise pytest.UsageError(str(error)) from None
        return gating.Gate(strict=settings.strict, require_complete=bool(options.option(config, "--require-complete")),
                           waivers=waivers, baseline=baseline,
                           baseline_name=Path(baseline_path).name if baseline_path else None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = dict(report.user_properties)
        if "requirements" not in properties:
            return
        run = state(self.config)
        nodeid = plain_nodeid(report.nodeid)
        record = run.records.get(nodeid)
        if record is None:
            record = run.records[nodeid] = TestRecord(nodeid=nodeid, requirements=tuple(properties["requirements"]))
        record.duration += report.duration
        if report.when == "call":  # setup and teardown reports repeat the test's user_properties
            record.observations.extend(value for name, value in report.user_properties if name == "observation")
        if report.skipped:
            record.outcome = "skipped"
            record.message = redact(_skip_reason(report) or "skipped")
        elif report.failed:
            record.outcome = "failed" if report.when == "call" else "error"
            record.failed_requirements = tuple(properties.get("failed_requirements", ()))
            record.setup_error = bool(properties.get("setup_error"))
            record.setup_requirement = properties.get("setup_requirement")
            record.suite_error = bool(properties.get("suite_error"))
            record.evidence = list(properties.get("evidence", ()))
            record.message = redact(str(report.longrepr))[:4000]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        run = state(self.config)
        if not run.records:
            return
        settings = run.settings
        target = run.target.public() if run.target else {"base_url": settings.base_url}
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started))
        run.report = build_report(run.records.values(), catalogue(), target=target,
                                  environment=settings.environment, seed=settings.seed, strict=settings.strict,
                                  selected=settings.requirements, gate=self.gate,
                                  run={"started_at": started, "duration": round(time.time() - self.started, 2),
                                       "profile": options.option(self.config, "--profile")})
        run.written = write_all(run.report, settings.report_dir)
        allure_results.scrub(self.config)
        run.report_path = run.written[0]
        if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = exit_status(run.report)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        run = state(self.config)
        if run.report is None:
            return
        terminalreporter.section("wallet conformance")
        for line in terminal.summary(run.report, run.written):
            terminalreporter.write_line(line)
