"""`wallet-conformance proxy`: the proxy's command line (its options: settings.SUBCOMMANDS["proxy"], read as every
subcommand's are, command_line.py), served until SIGINT or SIGTERM, then the reports written and the exit status of a
--har run."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path

from wallet_conformance.client.personal import Masking
from wallet_conformance.client.redaction import Secrets, activate, deactivate, redact
from wallet_conformance.command_line import UsageMistake, parse
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.proxy.service import Proxy, ProxyConfig
from wallet_conformance.proxy.side import JudgeGone
from wallet_conformance.reporting import terminal
from wallet_conformance.reporting.conformance import exit_status, gate_for, run_inputs
from wallet_conformance.reporting.endings import Stop, unfinished
from wallet_conformance.reporting.from_record import stop_report, write_stopped
from wallet_conformance.reporting.gating import GateError
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import (
    PROGRAM,
    PROXY,
    ConfigError,
    Settings,
    command_line,
    read,
    reproduction,
    unwritable,
)

NOT_LISTENING = "--listen {host}:{port}: cannot listen there ({error})"


def configure(arguments: list[str], environ: dict[str, str]) -> tuple[ProxyConfig, Settings]:
    """The proxy's configuration from its command line and environment, read and checked as every subcommand's are;
    a UsageMistake names what is wrong."""
    given, _ = parse(PROXY, arguments, environ)
    try:
        settings = read(given, command=PROXY)
        gate = dataclasses.replace(gate_for(settings), traffic=True)
    except (ConfigError, GateError) as error:
        raise UsageMistake(str(error)) from None
    words = reproduction(settings, PROXY)
    run = {**run_inputs(settings), "reproduce": command_line(words), "arguments": words[1:], "reference": None}
    return ProxyConfig.of(settings, gate, run), settings


def writable(folder: Path, record_har: Path | None) -> None:
    """The reports' folder and the recording's can be written, before anything is served (a UsageMistake says which
    not)."""
    for flag, where in (("--report-dir", folder), ("--record-har", record_har.parent if record_har else None)):
        if where is None:
            continue
        try:
            where.mkdir(parents=True, exist_ok=True)
            probe = where / f".{PROGRAM}-can-write"
            probe.write_text("")
            probe.unlink()
        except OSError as error:
            raise UsageMistake(f"{flag} {where}: cannot be written there ({error.strerror or error})") from None


def main(arguments: list[str], say: Callable[[str], None] | None = None) -> int:
    """Run the proxy until it is stopped; the exit status of its report (4 for a mistake in its options, or an address
    it cannot listen on)."""
    say = say or _say
    secrets = Secrets()
    activate(secrets)
    try:
        try:
            config, settings = configure(arguments, dict(os.environ))
            secrets.masking = None if settings.keep_personal_data else Masking()
            secrets.add_given(settings)
            folder = Path(config.report_dir or ".")
            writable(folder, config.record_har)
            proxy = listening(dataclasses.replace(config, say=say))
            # Until the proxy's end replaces them, its reports say it has not finished: never an earlier proxy's
            # verdict (its record, streamed there as it judges, has no ending line yet: it says so too).
            try:
                write_all(stop_report(unfinished(), settings, config.gate, inputs=config.run), folder)
            except OSError:
                proxy.stop()
                raise
        except (UsageMistake, OSError) as error:  # OSError: the first reports cannot be written
            print(redact(f"ERROR: {error}"), file=sys.stderr)
            return int(ExitStatus.CANNOT_RUN)
        say(
            redact(
                f"{PROGRAM} {PROXY}: forwarding {proxy.base_url} to {config.upstream}; reports to "
                f"{config.report_dir} when stopped (Ctrl-C)"
            )
        )
        say(redact(proxy.upstream_line()))
        proxy.serve()
        try:
            report, written = proxy.write(folder)
        except JudgeGone as error:  # nothing it judged can be reported: no verdict, never a pass
            gone = Stop(Outcome.SUITE_ERROR, f"{error}: what it judged is lost", int(ExitStatus.SUITE_ERROR))
            with contextlib.suppress(OSError):
                write_stopped(folder, gone, settings, config.gate, inputs=config.run)
            print(redact(f"ERROR: {error}; the reports say so, and give no verdict"), file=sys.stderr)
            return int(ExitStatus.SUITE_ERROR)
        except OSError as error:  # a full or read-only disk at the end: its own status, never a verdict's
            print(redact(f"ERROR: {unwritable(folder, error)}"), file=sys.stderr)
            return int(ExitStatus.REPORTS_NOT_WRITTEN)
        for line in terminal.summary(report, written):
            say(line)
        return exit_status(report)
    finally:
        deactivate(secrets)


def listening(config: ProxyConfig) -> Proxy:
    """The proxy, its address bound; a UsageMistake naming --listen when it cannot be (taken, not this machine's)."""
    try:
        return Proxy(config)
    except OSError as error:
        host, port = config.listen
        raise UsageMistake(NOT_LISTENING.format(host=host, port=port, error=error.strerror or error)) from None


def _say(line: str) -> None:
    print(line, flush=True)
