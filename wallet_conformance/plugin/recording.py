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
from wallet_conformance.plugin.state import RunState, is_worker, state
from wallet_conformance.reporting import gating, terminal
from wallet_conformance.reporting.conformance import build_report, exit_status, gate_for, run_inputs
from wallet_conformance.reporting.evidence import Classified
from wallet_conformance.reporting.judging import untested_reasons
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.spec.catalogue import catalogue


def pytest_configure(config: pytest.Config) -> None:
    if not is_worker(config):
        config.pluginmanager.register(Recorder(config), "wallet-conformance-recorder")


def final_status(status: int, run: RunState) -> int:
    """The run's exit status: a run that ended before its first test has its own (an unreachable target, files that
    are not HAR, --cleanup); a run that stopped early the stop's; else the report's gate decides, unless pytest's own
    status says the run did not finish (interrupted, an internal error, a usage error)."""
    if run.not_run is not None:
        return run.not_run.status
    if run.stopped is not None:
        return run.stopped.status
    if run.report is not None and status in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED,
                                             pytest.ExitCode.NO_TESTS_COLLECTED):
        return exit_status(run.report)
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
        run = state(self.config)
        exchange_judging.merge(run.records, phase.findings)
        run.exchanges = exchange_judging.add_counts(run.exchanges, phase.exchanges)
        nodeid = plain_nodeid(report.nodeid)
        record = run.records.get(nodeid)
        if record is None:
            record = run.records[nodeid] = TestRecord(nodeid=nodeid, requirements=phase.requirements)
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
                run.records or run.settings.passive or runs_conformance(self.config)):
            self._report(run)
        session.exitstatus = final_status(session.exitstatus, run)

    def _report(self, run: RunState) -> None:
        """The report, built once from the run's records and what ended the run, written in every format."""
        settings = run.settings
        records, exchanges, traffic, untested = list(run.records.values()), run.exchanges, None, None
        if run.judging is not None:  # --har: the recorded exchanges' records
            records += run.judging.records()
            exchanges, traffic, untested = run.judging.counts, run.judging.traffic.report(), untested_reasons()
        target = run.target.public() if run.target else {
            "base_url": traffic["base_url"] if traffic else settings.base_url}
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started))
        run.report = build_report(records, catalogue(), target=target,
                                  environment=settings.environment, seed=settings.seed, strict=settings.strict,
                                  selected=settings.requirements, gate=self.gate,
                                  run={"started_at": started, "duration": round(time.time() - self.started, 2),
                                       "profile": settings.profile, "exchanges": exchanges, **run_inputs(settings)},
                                  untested=untested, traffic=traffic)
        early_stop.add_to_report(run.report, run)
        run.written = write_all(run.report, settings.report_dir)
        allure_labels.scrub(self.config)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        run = state(self.config)
        if run.report is None:
            return
        terminalreporter.section("wallet conformance")
        for line in terminal.summary(run.report, run.written):
            terminalreporter.write_line(line)
