"""--har, the whole run: recorded traffic judged in a ReportingSession (reporting/judging.py), without a pytest session,
with the header, the reports, the summary and the exit status of an active run. The installed command (cli.py) and
plain `pytest --har` (plugin/passive.py) both run it."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from wallet_conformance.client.har.stream import HarError
from wallet_conformance.client.personal import Masking
from wallet_conformance.client.redaction import Secrets, activate, deactivate, redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.judgement import FILE_NAME
from wallet_conformance.reporting import gating, terminal
from wallet_conformance.reporting.conformance import exit_status
from wallet_conformance.reporting.endings import unfinished, usage_error
from wallet_conformance.reporting.from_record import build_report, stop_record, write_record, write_stopped
from wallet_conformance.reporting.judging import recorded_base_url, recorded_report
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import PROGRAM, Settings, folders_without_har, unwritable


def judge_recorded(settings: Settings, gate: gating.Gate) -> int:
    """Judge the recorded traffic of `settings.har`, print and write what was found; returns the exit status. The
    reports of an earlier run are replaced first (by those of a run not finished); every file is then read through,
    and one that is not a HAR stops the run as a usage error: one ERROR line, and reports that say so."""
    # The run's: the keys given (a CI's WALLET_API_SECRET_KEY), those the files carry, the masks of personal data.
    secrets = Secrets(None if settings.keep_personal_data else Masking())
    activate(secrets)
    try:
        secrets.add_given(settings)
        try:
            write_stopped(settings.report_dir, unfinished(), settings, gate)
        except OSError as error:
            print(f"ERROR: {unwritable(settings.report_dir, error)}", file=sys.stderr)
            return int(ExitStatus.CANNOT_RUN)
        try:
            base_url = recorded_base_url(settings)
        except HarError as error:
            return _usage_error(redact(str(error)), settings, gate)
        lines = [
            f"{PROGRAM}: --har {folder}: no HAR file in this folder: nothing in it is judged"
            for folder in folders_without_har(settings.har_given)
        ]
        print("\n".join([*lines, *terminal.header_lines(settings)]))
        try:
            report = recorded_report(settings, gate, base_url)
        except HarError as error:  # a file changed after it was read through
            record = stop_record(usage_error(redact(str(error))), settings, gate)
            with contextlib.suppress(OSError):  # said below, when the reports cannot be written either
                write_record(record, settings.report_dir)
            report = build_report(record)
        return _written(report, settings)
    finally:
        deactivate(secrets)


def _usage_error(message: str, settings: Settings, gate: gating.Gate) -> int:
    """A file that is not a HAR: one ERROR line, as every usage error gives, and reports that say so."""
    with contextlib.suppress(OSError):  # the folder took the unfinished run's reports a moment ago
        write_stopped(settings.report_dir, usage_error(message), settings, gate)
    print(f"ERROR: {message}", file=sys.stderr)
    return int(ExitStatus.CANNOT_RUN)


def _written(report: dict[str, Any], settings: Settings) -> int:
    """The reports written, the summary printed; the exit status."""
    try:
        written = write_all(report, settings.report_dir)
        written += [path for path in (settings.report_dir / FILE_NAME,) if path.is_file()]
    except OSError as error:
        written = []
        report["outcome"]["exit_status"] = int(ExitStatus.REPORTS_NOT_WRITTEN)
        report["outcome"]["reason"] = unwritable(settings.report_dir, error)
    print("\n".join([*terminal.summary(report, written), terminal.last_line(report)]))
    return exit_status(report)
