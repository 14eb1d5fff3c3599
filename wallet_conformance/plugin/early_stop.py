"""On the controlling process: why the run stopped early or never started (the exit status then, and its one
message), and the 429s met (LIM-23)."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import asdict
from typing import Any

import pytest

from wallet_conformance.client.redaction import redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.plugin import phase_record
from wallet_conformance.plugin.collection import plain_nodeid
from wallet_conformance.plugin.state import RunState, is_worker, state
from wallet_conformance.reporting.writers import write_all

RATE_LIMITS_KEPT = 50  # 429 observations written to the report (all are counted)
RATE_LIMIT_REQUIREMENT = "LIM-23"  # rate limits: not shown (INFO), observed when the target answers 429


def pytest_configure(config: pytest.Config) -> None:
    if not is_worker(config):
        config.pluginmanager.register(EarlyStop(config), "wallet-conformance-early-stop")


class EarlyStop:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rate_limited: list[dict[str, Any]] = []
        self.first_failure: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        run = state(self.config)
        phase = phase_record.of(report)
        if phase is not None:
            self.rate_limited.extend({"test": plain_nodeid(report.nodeid), **entry} for entry in phase.rate_limited)
        if report.failed and self.first_failure is None:
            self.first_failure = f"{plain_nodeid(report.nodeid)}: {_crash_line(report)}"
        if phase is not None and phase.stopped is not None:
            if run.stopped is None:  # an xdist worker's stop (in one process, running.py set it here)
                run.stopped = phase.stopped
            self._quiet()

    def _quiet(self) -> None:
        """The failures before a stop are the target failing, not findings: the summary says so in a few lines."""
        self.config.option.tbstyle = "no"
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.reportchars = ""

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Generator[None, Any, Any]:
        result = yield
        run = state(self.config)
        if run.stopped is not None:
            session.exitstatus = run.stopped.status
        if run.not_run is not None:
            session.exitstatus = run.not_run.status
        if run.report is not None and run.report_path is not None and (run.stopped or self.rate_limited):
            if run.stopped is not None:
                run.report["stopped"] = asdict(run.stopped)
                run.report["outcome"]["exit_status"] = run.stopped.status
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
        if run.not_run is not None:
            failed = run.not_run.status != ExitStatus.GATE_PASSES
            terminalreporter.write_line(f"{run.not_run.message}\n(exit status {run.not_run.status})", red=failed,
                                        bold=failed)
        if run.stopped is not None:
            failed = len(terminalreporter.stats.get("failed", [])) + len(terminalreporter.stats.get("error", []))
            if failed:
                terminalreporter.write_line(f"{failed} test(s) failed before the stop (evidence in the report); "
                                            f"the first: {self.first_failure}")
            terminalreporter.write_line(f"The run stopped early: {run.stopped.reason} "
                                        f"(exit status {run.stopped.status}).", red=True, bold=True)


def _crash_line(report: pytest.TestReport) -> str:
    text = str(report.longrepr or "").strip().splitlines()
    line = next((line for line in text if line.startswith("E ")), text[0] if text else "")  # a traceback, or evidence
    return redact(line.removeprefix("E").strip())[:300]
