"""One record per conformance test, kept on the controlling process, and at the end of the run the report (every
format) and the exit status: decided here and nowhere else, however the run ends. The report tells the ending
(reporting/gating.py `apply` decides it): the run that never started (its preflight), an interruption (SIGINT,
SIGTERM: plugin/interruption.py), the early stop, an internal error, the selection the run made, or the gate
(waivers, baseline, --strict, --require-complete) of a run that completed; the process exits with the status the
report gives.

Before anything starts, the controlling process replaces the reports of an earlier run with those of a run that has
not finished (`unfinished`), so that a run killed or crashed never leaves an earlier verdict behind.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.redaction import conceal, redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.judgement import FILE_NAME, Judgement, phase_line
from wallet_conformance.judge.session import finding_line
from wallet_conformance.plugin import allure_labels, interruption, phase_record
from wallet_conformance.plugin.collection import declared, plain_nodeid, runs_conformance
from wallet_conformance.plugin.run import Run, is_worker, state
from wallet_conformance.reporting import endings, terminal
from wallet_conformance.reporting.conformance import exit_status
from wallet_conformance.reporting.endings import Selection, Stop
from wallet_conformance.reporting.from_record import (
    UNFINISHED_TEST,
    ending_line,
    run_line_of,
    write_stopped,
)
from wallet_conformance.reporting.gating import Gate
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import Settings, unwritable


def pytest_configure(config: pytest.Config) -> None:
    if not is_worker(config):
        config.pluginmanager.register(Recorder(config), "wallet-conformance-recorder")


def write_stop(settings: Settings, stop: Stop, gate: Gate | None = None) -> list[Path]:
    """Replace the record and the reports in the run's report folder with those of a run that stopped before it
    judged anything (or has not finished): no earlier run's verdict is left there."""
    return write_stopped(settings.report_dir, stop, settings, gate)


def _skip_reason(report: pytest.TestReport) -> str | None:
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr) if report.longrepr else None


def _error_line(report: pytest.CollectReport) -> str:
    """A collection error in one line: the exception pytest shows last (`E   ImportError: ...`), redacted."""
    lines = [line for line in str(report.longrepr or "").splitlines() if line.strip()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    return redact((errors or lines or [""])[-1])[:300]


def _stopped_by_pytest(session: pytest.Session) -> str | None:
    """Why pytest itself stopped the run before its last test, when it did: -x or --maxfail after a failure, --sw
    at one (pytest's session, or under xdist the controller's, which stops the workers), never a signal."""
    dsession = session.config.pluginmanager.get_plugin("dsession")
    for why in (session.shouldfail, session.shouldstop, getattr(dsession, "shouldstop", False)):
        if why and "keyboard-interrupt" not in str(why):
            return str(why)
    return None


def _concealed(report: pytest.TestReport) -> None:
    """What pytest shows of a failure (its text and sections), with personal data masked where the run masks it: here,
    once the record has taken the text as it is (the reports mask it when written)."""
    if report.longrepr is not None:
        text = str(report.longrepr)
        if conceal(text) != text:
            report.longrepr = conceal(text)
    report.sections = [(title, conceal(content)) for title, content in report.sections]


class Recorder:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = time.time()
        self.declared: set[str] | None = None  # what the run's tests declare, once collected in this process
        self.collected = 0
        # The test modules (or other collectors) that could not be collected, with their error's line: under xdist
        # the controller hears each once, and the workers run the rest.
        self.not_collected: dict[str, str] = {}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A module that cannot be collected (an import error, a syntax error) is a suite error: its tests never
        ran, and under xdist (or --continue-on-collection-errors) the run goes on without them."""
        if report.failed:
            self.not_collected.setdefault(plain_nodeid(report.nodeid) or ".", _error_line(report))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """A run of one process collects its tests here; an xdist run's workers write what theirs declare."""
        self.declared = declared(session.items)
        self.collected = len(session.items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A test's phase, the exchanges judged meanwhile and what the judges found, as lines of the record."""
        phase = phase_record.of(report)
        if phase is None:
            return
        message = None
        if phase.error is not None or report.failed:  # a test blocked by a refused step is shown skipped, too
            reason = _skip_reason(report) if report.skipped else str(report.longrepr)
            assert reason is not None  # a skipped report carries its reason
            message = redact(reason)[:4000]
            _concealed(report)
        elif report.skipped:
            message = redact(_skip_reason(report) or "skipped")
        self._add(
            phase_line(
                plain_nodeid(report.nodeid),
                report.when,
                phase.requirements,
                outcome=report.outcome,
                duration=report.duration,
                message=message,
                error=phase.error,
                observations=phase.observations,
                held=phase.held,
                rate_limited=phase.rate_limited,
            )
        )
        for line in phase.exchanges:  # the judge's lines hold JSON's own types (judge/session.py exchange_line)
            self._add(line, plain=True)
        for finding in phase.findings:
            self._add(finding_line(finding))

    def _add(self, line: dict[str, Any], *, plain: bool = False) -> None:
        """One line of the run's record: written to the report folder as it comes (opened with the run's line),
        folded into what the report is made of; `plain` as Judgement.add's."""
        tally = state(self.config).tally
        if tally.judgement is None:
            run = state(self.config)
            settings = run.settings
            target = run.target.public() if run.target else {"base_url": settings.base_url}
            try:
                tally.judgement = Judgement(settings.report_dir / FILE_NAME)
            except OSError:  # a folder that cannot be written: said when the reports are not written either
                tally.judgement = Judgement()
            tally.fold.take(tally.judgement.add(run_line_of(settings, run.gate, target=target, started=self.started)))
        tally.fold.take(tally.judgement.add(line, plain=plain))

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Generator[None, None, None]:
        """After the run's end (the end-of-run cleanup, xdist's workers shut down): the report, whatever ended the run,
        and the process's exit status, the report's. A second interrupt during that end stops it there, and the run
        is reported interrupted; from the first line of the reports on, a signal changes nothing (it is too late)."""
        again = None
        try:
            yield
        except KeyboardInterrupt:
            again = (
                "the end-of-run cleanup was interrupted too: what the run made may be left on the target "
                "(--cleanup closes it)"
            )
            exitstatus = pytest.ExitCode.INTERRUPTED
        run = state(self.config)
        stopping = interruption.of(self.config)
        with stopping.final():
            if (
                runs_conformance(self.config)
                and not self.config.option.collectonly
                and (run.not_run is None or run.not_run.stop is not None)
            ):
                self._report(run, self._stop(run, session, exitstatus, again))
        session.exitstatus = self._status(run, session.exitstatus)

    def _stop(self, run: Run, session: pytest.Session, exitstatus: int, again: str | None) -> Stop | None:
        """Why the run did not complete, when it did not: its preflight, the suite's early stop, an interruption
        (a signal, or pytest's own), an internal error or a usage error of pytest's."""
        if run.not_run is not None:
            return run.not_run.stop
        if run.stops.stopped is not None:
            return run.stops.stopped
        signals = interruption.of(self.config).reason()
        if signals is None and self.not_collected:
            return self._not_collected(run, session)
        stopped_by = None if signals is not None else _stopped_by_pytest(session)
        if stopped_by is not None and not self._every_test_ended(run, session):
            where = self._progress(run, session)
            return endings.stopped_early(
                f"pytest stopped the run {where} ({stopped_by}: -x, --maxfail or --sw): the tests after it never ran",
                int(ExitStatus.TARGET_FAILING),
            )
        if signals is not None or exitstatus == pytest.ExitCode.INTERRUPTED:
            where = self._progress(run, session)
            how = signals or "pytest stopped"  # a KeyboardInterrupt no signal of this process raised
            return endings.interrupted("; ".join(filter(None, [f"{how} {where}", again])))
        if exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            return Stop(
                Outcome.SUITE_ERROR,
                f"the run stopped on an internal error {self._progress(run, session)} (INTERNALERROR above)",
                int(ExitStatus.INTERNAL_ERROR),
            )
        if exitstatus == pytest.ExitCode.USAGE_ERROR:
            return endings.usage_error("a usage error stopped the run (the ERROR line above)")
        return None

    def _not_collected(self, run: Run, session: pytest.Session) -> Stop:
        """A suite error: the modules that could not be collected, named, and how far the rest of the run got."""
        named = "; ".join(f"{nodeid} ({line})" if line else nodeid for nodeid, line in self.not_collected.items())
        return Stop(
            Outcome.SUITE_ERROR,
            f"a suite error: {len(self.not_collected)} test module(s) could not be collected, their tests never "
            f"ran: {named}; the run ended {self._progress(run, session)}",
            int(ExitStatus.SUITE_ERROR),
        )

    def _every_test_ended(self, run: Run, session: pytest.Session) -> bool:
        """Whether every test collected ended: pytest may stop a run (-x, --maxfail) at its last test, a whole run."""
        done = sum(record.message != UNFINISHED_TEST for record in run.tally.fold.tests.values())
        collected = session.testscollected or self.collected
        return bool(collected) and done >= collected

    def _progress(self, run: Run, session: pytest.Session) -> str:
        """How far the run got: `after 49 of 1043 tests`, or before its first."""
        done = sum(record.message != UNFINISHED_TEST for record in run.tally.fold.tests.values())
        collected = session.testscollected or self.collected
        if not done:
            return "before its first test ended" if collected else "before its tests were collected"
        return f"after {done} of {collected} tests" if collected else f"after {done} tests"

    def _selection(self, run: Run) -> Selection | None:
        """What part of the suite the run chose, and the requirements it holds: those its tests declare, and those
        its exchanges were found breaking (the exchange judge holds every exchange to every rule); of the ids chosen
        by --requirement, --part and --level only. None for a run of the whole suite."""
        settings = run.settings
        words = (*settings.choice_words, *settings.pytest_selection)
        if not words:
            return None
        declared = self.declared if self.declared is not None else self._declared_by_workers()
        chosen = settings.chosen
        if declared is None:
            return Selection.of(words, chosen)
        broken = {rid for record in run.tally.fold.records() for rid in record.requirements if record.fails(rid)}
        found = declared | broken
        return Selection.of(words, found if chosen is None else found & chosen)

    def _declared_by_workers(self) -> set[str] | None:
        path = state(self.config).selection_file
        try:
            return set(json.loads(path.read_text(encoding="utf-8"))) if path is not None else None
        except (OSError, ValueError):
            return None  # the run ended before a worker collected its tests

    def _report(self, run: Run, stop: Stop | None) -> None:
        """The record's last line, and the report made from the record, written in every format."""
        settings, tally = run.settings, run.tally
        self._add(ending_line(time.time() - self.started, stop, self._selection(run)))
        assert tally.judgement is not None
        tally.judgement.close()
        tally.report = tally.fold.report()
        try:
            tally.written = write_all(tally.report, settings.report_dir)
            if tally.judgement.path is not None:
                tally.written.append(tally.judgement.path)
        except OSError as error:  # a full or read-only disk: said, with its own exit status, never a verdict's
            tally.report["outcome"]["exit_status"] = int(ExitStatus.REPORTS_NOT_WRITTEN)
            tally.report["outcome"]["reason"] = unwritable(settings.report_dir, error)
        allure_labels.scrub(self.config)

    @staticmethod
    def _status(run: Run, status: int) -> int:
        """The process's exit status: the report's; --cleanup's own, which writes none; pytest's where no report was
        written (--collect-only, a run of other tests)."""
        if run.tally.report is not None:
            return exit_status(run.tally.report)
        if run.not_run is not None:
            return run.not_run.status
        return status

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tally = state(self.config).tally
        if tally.report is None:
            return
        terminalreporter.section("wallet conformance")
        for line in terminal.summary(tally.report, tally.written):
            terminalreporter.write_line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """The run's last line, after pytest's own: its outcome and exit status, as the reports give them; and a signal
        that came too late to change them."""
        report = state(config).tally.report
        writer = config.pluginmanager.get_plugin("terminalreporter")
        if report is None or writer is None:
            return
        late = interruption.of(config).late
        if late:
            writer.write_line(
                f"({', '.join(late)} received once the run had ended and its reports were being "
                "written: too late to change its ending)"
            )
        writer.write_line(terminal.last_line(report), bold=True)
