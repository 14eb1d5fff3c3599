"""One record per conformance test, kept on the controlling process, and at the end of the run the report (every
format) and the exit status: decided here and nowhere else, from the run that never started, the early stop, or the
report's gate (waivers, baseline, --strict, --require-complete)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from wallet_conformance.client.redaction import redact
from wallet_conformance.plugin import allure_labels, early_stop, exchange_judging, phase_record
from wallet_conformance.plugin.collection import plain_nodeid, runs_conformance
from wallet_conformance.plugin.run import Run, is_worker, state
from wallet_conformance.reporting import gating, terminal
from wallet_conformance.reporting.conformance import build_report, exit_status, gate_for, run_inputs
from wallet_conformance.reporting.evidence import Classified
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.spec.catalogue import catalogue


def pytest_configure(config: pytest.Config) -> None:
    if not is_worker(config):
        config.pluginmanager.register(Recorder(config), "wallet-conformance-recorder")


def final_status(status: int, run: Run) -> int:
    """The run's exit status: a run that ended before its first test has its own (an unreachable target, files that
    are not HAR, --cleanup); a run that stopped early the stop's; else the report's gate decides, unless pytest's own
    status says the run did not finish (interrupted, an internal error, a usage error)."""
    if run.not_run is not None:
        return run.not_run.status
    if run.stops.stopped is not None:
        return run.stops.stopped.status
    if run.tally.report is not None and status in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED,
                                                   pytest.ExitCode.NO_TESTS_COLLECTED):
        return exit_status(run.tally.report)
    return status


def _skip_reason(report: pytest.TestReport) -> str | None:
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr) if report.longrepr else None


class Recorder:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = time.time()
        self.gate = self._gate(config)

    @staticmethod
    def _gate(config: pytest.Config) -> gating.Gate:
        """Waivers and baseline, read and checked before any test runs: a bad one stops the run with one message."""
        try:
            return gate_for(state(config).settings)
        except gating.GateError as error:
            raise pytest.UsageError(str(error)) from None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        phase = phase_record.of(report)
        if phase is None:
            return
        tally = state(self.config).tally
        exchange_judging.merge(tally.records, phase.findings)
        tally.exchanges = exchange_judging.add_counts(tally.exchanges, phase.exchanges)
        nodeid = plain_nodeid(report.nodeid)
        record = tally.records.get(nodeid)
        if record is None:
            record = tally.records[nodeid] = TestRecord(nodeid=nodeid, requirements=phase.requirements)
        record.duration += report.duration
        record.observations.extend(phase.observations)  # the call phase's record carries them
        if report.skipped:
            record.outcome = "skipped"
            record.message = redact(_skip_reason(report) or "skipped")
        elif report.failed:
            error = phase.error or Classified()
            record.outcome = "failed" if report.when == "call" else "error"
            record.failed_requirements = error.failed_requirements
            record.setup_error = error.setup_error
            record.setup_requirement = error.setup_requirement
            record.suite_error = bool(error.suite_error)
            record.evidence = list(error.evidence)
            record.message = redact(str(report.longrepr))[:4000]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        run = state(self.config)
        # A conformance run reports even when it judged nothing (every test deselected or skipped).
        if run.not_run is None and not self.config.option.collectonly and (
                run.tally.records or runs_conformance(self.config)):
            self._report(run)
        session.exitstatus = final_status(session.exitstatus, run)

    def _report(self, run: Run) -> None:
        """The report, built once from the run's records and what ended the run, written in every format."""
        settings, tally = run.settings, run.tally
        target = run.target.public() if run.target else {"base_url": settings.base_url}
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started))
        tally.report = build_report(list(tally.records.values()), catalogue(), target=target,
                                    environment=settings.environment, seed=settings.seed, strict=settings.strict,
                                    selected=settings.requirements, gate=self.gate,
                                    run={"started_at": started, "duration": round(time.time() - self.started, 2),
                                         "profile": settings.profile, "exchanges": tally.exchanges,
                                         **run_inputs(settings)})
        early_stop.add_to_report(tally.report, run.stops)
        tally.written = write_all(tally.report, settings.report_dir)
        allure_labels.scrub(self.config)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tally = state(self.config).tally
        if tally.report is None:
            return
        terminalreporter.section("wallet conformance")
        for line in terminal.summary(tally.report, tally.written):
            terminalreporter.write_line(line)
