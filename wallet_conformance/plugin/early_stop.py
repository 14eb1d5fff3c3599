"""On the controlling process: the early stop a test's phase decided (plugin/running.py), --cleanup's own message, and
the 429s met (LIM-23). How the run ended, its reports and its exit status are decided in one place,
plugin/recording.py (reporting/gating.py `apply`).

The failures before an early stop are the target failing, not findings: the terminal says so in a few lines, and
shows each of those failures by its first line, without its evidence and exchanges (the report keeps them). That is
done to the suite's own failure reports, just before pytest lists them; pytest's settings (--tb, -r) stay the user's.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from wallet_conformance.client.redaction import redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.plugin import phase_record
from wallet_conformance.plugin.collection import plain_nodeid
from wallet_conformance.plugin.run import Stops, is_worker, state
from wallet_conformance.plugin.running import EXCHANGES_SECTION

RATE_LIMITS_KEPT = 50  # 429 observations written to the report (all are counted)
RATE_LIMIT_REQUIREMENT = "LIM-23"  # rate limits: not shown (INFO), observed when the target answers 429


def pytest_configure(config: pytest.Config) -> None:
    if not is_worker(config):
        config.pluginmanager.register(EarlyStop(config), "wallet-conformance-early-stop")


class EarlyStop:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.first_failure: str | None = None
        self.failed: list[pytest.TestReport] = []  # the conformance tests' failed reports, shown briefly after a stop

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        stops = state(self.config).stops
        phase = phase_record.of(report)
        if phase is not None:
            stops.rate_limited.extend({"test": plain_nodeid(report.nodeid), **entry} for entry in phase.rate_limited)
        if report.failed and self.first_failure is None:
            self.first_failure = f"{plain_nodeid(report.nodeid)}: {_crash_line(report)}"
        if report.failed and phase is not None:
            self.failed.append(report)
        if phase is not None and phase.stopped is not None and stops.stopped is None:
            stops.stopped = phase.stopped  # decided where the test ran (plugin/running.py)

    @pytest.hookimpl(specname="pytest_terminal_summary", wrapper=True, tryfirst=True)
    def pytest_terminal_summary_before_the_failures(self) -> Generator[None, None, None]:
        """After an early stop, each conformance test that failed shows its first line, not its evidence and its
        last exchanges: every other hook has read those reports by now, the report files hold the evidence."""
        if state(self.config).stops.stopped is not None:
            for report in self.failed:
                report.longrepr = _crash_line(report)
                report.sections = [section for section in report.sections if section[0] != EXCHANGES_SECTION]
        return (yield)

    @pytest.hookimpl(tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """--cleanup's message (it writes no report); after an early stop, the tests that failed before it (the
        report's summary, plugin/recording.py, tells the stop)."""
        run = state(self.config)
        if run.not_run is not None and run.not_run.stop is None:
            failed = run.not_run.status != ExitStatus.GATE_PASSES
            terminalreporter.write_line(
                f"{run.not_run.message}\n(exit status {run.not_run.status})", red=failed, bold=failed
            )
        if run.stops.stopped is not None:
            failed = len(terminalreporter.stats.get("failed", [])) + len(terminalreporter.stats.get("error", []))
            if failed:
                terminalreporter.write_line(
                    f"{failed} test(s) failed before the stop (evidence in the report); the first: {self.first_failure}"
                )


def add_to_report(report: dict[str, Any], stops: Stops) -> None:
    """What the report says of the 429s the run met: LIM-23 (rate limits: not shown) observes every one, whichever
    test met it."""
    entry = next((e for e in report["requirements"] if e["id"] == RATE_LIMIT_REQUIREMENT), None)
    met = stops.rate_limited
    if entry is None or not met:
        return
    summary = {
        "requirement": RATE_LIMIT_REQUIREMENT,
        "status": 429,
        "answers": len(met),
        "waited_seconds": round(sum(item["waited"] for item in met), 3),
        "kept_as_answer": sum(item["gave_up"] for item in met),
    }
    entry["observations"].append(summary)
    entry["observations"].extend(
        {"requirement": RATE_LIMIT_REQUIREMENT, "status": 429, **item} for item in met[:RATE_LIMITS_KEPT]
    )


def _crash_line(report: pytest.TestReport) -> str:
    text = str(report.longrepr or "").strip().splitlines()
    line = next((line for line in text if line.startswith("E ")), text[0] if text else "")  # a traceback, or evidence
    return redact(line.removeprefix("E").strip())[:300]
