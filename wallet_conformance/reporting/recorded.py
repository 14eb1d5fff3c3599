"""--har, the whole run: recorded traffic judged in a JudgingSession (reporting/judging.py), without a pytest session,
with the header, the reports, the summary and the exit status of an active run. The installed command (cli.py) and
plain `pytest --har` (plugin/passive.py) both run it."""

from __future__ import annotations

import sys

from wallet_conformance.client import har
from wallet_conformance.client.personal import Masking
from wallet_conformance.client.redaction import Secrets, activate, deactivate, redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reporting import gating, terminal
from wallet_conformance.reporting.conformance import exit_status, stop_report
from wallet_conformance.reporting.endings import unfinished, usage_error
from wallet_conformance.reporting.judging import recorded_report
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import Settings, unwritable


def judge_recorded(settings: Settings, gate: gating.Gate) -> int:
    """Judge the recorded traffic of `settings.har`, print and write what was found; returns the exit status. The
    reports of an earlier run are replaced first (by those of a run not finished), and a file that is not a HAR
    stops the run as a usage error, whose reports say so."""
    # The run's: the keys given (a CI's WALLET_API_SECRET_KEY), those the files carry, the masks of personal data.
    secrets = Secrets(None if settings.keep_personal_data else Masking())
    activate(secrets)
    try:
        secrets.add_key(settings.secret_key)
        secrets.add_key(settings.second_secret_key)
        print("\n".join(terminal.header_lines(settings)))
        try:
            write_all(stop_report(unfinished(), settings, gate), settings.report_dir)
        except OSError as error:
            print(f"ERROR: {unwritable(settings.report_dir, error)}", file=sys.stderr)
            return int(ExitStatus.CANNOT_RUN)
        try:
            report = recorded_report(settings, gate)
        except har.HarError as error:
            report = stop_report(usage_error(redact(str(error))), settings, gate)
        try:
            written = write_all(report, settings.report_dir)
        except OSError as error:
            written = []
            report["outcome"]["exit_status"] = int(ExitStatus.REPORTS_NOT_WRITTEN)
            report["outcome"]["reason"] = unwritable(settings.report_dir, error)
        print("\n".join([*terminal.summary(report, written), terminal.last_line(report)]))
        return exit_status(report)
    finally:
        deactivate(secrets)
