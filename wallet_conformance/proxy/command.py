"""`wallet-conformance proxy`: the proxy's command line (its options: settings.PROXY_OPTIONS and PROXY_SHARED),
served until SIGINT or SIGTERM, then the reports written and the exit status of a --har run."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from wallet_conformance.client.personal import Masking
from wallet_conformance.client.redaction import Secrets, activate, deactivate, redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.proxy.service import Proxy, ProxyConfig
from wallet_conformance.proxy.side import JudgeGone
from wallet_conformance.reporting import terminal
from wallet_conformance.reporting.conformance import exit_status, gate_for, run_inputs, stop_report
from wallet_conformance.reporting.endings import Stop, unfinished
from wallet_conformance.reporting.gating import GateError
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import (
    BY_FLAG,
    LOOPBACK,
    PROGRAM,
    PROXY_OPTIONS,
    PROXY_REPORTS,
    PROXY_SHARED,
    ConfigError,
    Option,
    Settings,
    argument,
    command_line,
    unwritable,
    value_of,
)

COMMAND = "proxy"
OPTIONS = (*PROXY_OPTIONS, *(BY_FLAG[flag] for flag in PROXY_SHARED))
NOT_LOOPBACK = ("--listen {host}:{port} is not a loopback address: the proxy would forward anyone's requests to the "
                "target; add --listen-anywhere to mean it")
NO_UPSTREAM = "--upstream (or WALLET_API_UPSTREAM) is required: the target's base URL, ending in /v1"


class Mistake(Exception):
    """A mistake in the proxy's options: one line, exit 4."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise Mistake(message)


def help_text() -> str:
    lines = [f"usage: {PROGRAM} {COMMAND} --upstream URL [options]", "",
             *textwrap.wrap("A validating reverse proxy: clients use http://HOST:PORT/v1 as their base URL; every "
                            "exchange is forwarded unchanged and judged on the side. Stop it with Ctrl-C (SIGINT) or "
                            "SIGTERM: the reports are written then. docs/proxy.md says more.", 100), ""]
    for option in OPTIONS:
        value = option.metavar or ""
        lines += [f"  {option.flag} {value}".rstrip(), *textwrap.wrap(option.help_text, 94, initial_indent="      ",
                                                                      subsequent_indent="      ")]
    return "\n".join(lines)


def configure(arguments: list[str], environ: dict[str, str]) -> tuple[ProxyConfig, Settings]:
    """The proxy's configuration from its command line and environment; a Mistake names what is wrong."""
    parser = _Parser(prog=f"{PROGRAM} {COMMAND}", add_help=False, allow_abbrev=False)
    for option in OPTIONS:
        parser.add_argument(option.flag, **argument(option))
    given = parser.parse_args(arguments)
    try:
        values = {option.flag: _held(option, getattr(given, option.dest), environ) for option in OPTIONS}
    except ConfigError as error:
        raise Mistake(str(error)) from None
    if not values["--upstream"]:
        raise Mistake(NO_UPSTREAM)
    host, port = values["--listen"]
    if host not in LOOPBACK and not values["--listen-anywhere"]:
        raise Mistake(NOT_LOOPBACK.format(host=host, port=port))
    report_dir = values["--report-dir"]
    if given.report_dir is None and not environ.get(BY_FLAG["--report-dir"].env or ""):
        report_dir = report_dir / PROXY_REPORTS  # never over an active run's reports
    settings = Settings(base_url=values["--upstream"], secret_key=values["--secret-key"],
                        second_secret_key=values["--second-secret-key"], environment=values["--environment"],
                        ca_bundle=values["--ca-bundle"], request_timeout=values["--request-timeout"],
                        report_dir=report_dir, record_har=values["--record-har"], waivers=values["--waivers"],
                        baseline=values["--baseline"], require_complete=values["--require-complete"],
                        keep_personal_data=values["--keep-personal-data"])
    try:
        gate = dataclasses.replace(gate_for(settings), traffic=True)
    except GateError as error:
        raise Mistake(str(error)) from None
    words = [PROGRAM, COMMAND, "--upstream", values["--upstream"]]
    words += [word for option in OPTIONS if option.flag in ("--waivers", "--baseline", "--require-complete")
              for word in _words(option, values[option.flag])]
    run = {**run_inputs(settings), "reproduce": command_line(words), "arguments": words[1:], "reference": None}
    config = ProxyConfig(upstream=values["--upstream"], listen=(host, port),
                         request_timeout=values["--request-timeout"], ca_bundle=values["--ca-bundle"],
                         annotate=values["--annotate"], max_records=values["--max-records"],
                         client_timeout=values["--client-timeout"], max_header_size=values["--max-header-size"],
                         max_connections=values["--max-connections"],
                         tally_every=values["--tally-every"], report_every=values["--report-every"],
                         report_dir=report_dir, record_har=values["--record-har"],
                         har_max_bytes=int(values["--har-max-size"] * 1_000_000), gate=gate,
                         environment=values["--environment"], run=run)
    return config, settings


def writable(folder: Path, record_har: Path | None) -> None:
    """The reports' folder and the recording's can be written, before anything is served (a Mistake says which not)."""
    for flag, where in (("--report-dir", folder), ("--record-har", record_har.parent if record_har else None)):
        if where is None:
            continue
        try:
            where.mkdir(parents=True, exist_ok=True)
            probe = where / f".{PROGRAM}-can-write"
            probe.write_text("")
            probe.unlink()
        except OSError as error:
            raise Mistake(f"{flag} {where}: cannot be written there ({error.strerror or error})") from None


def _held(option: Option, given: Any, environ: dict[str, str]) -> Any:
    return option.held(value_of(option, given, environ))


def _words(option: Option, value: Any) -> list[str]:
    if value in (None, False):
        return []
    return [option.flag] if value is True else [option.flag, str(value)]


def main(arguments: list[str], say: Callable[[str], None] | None = None) -> int:
    """Run the proxy until it is stopped; the exit status of its report (4 for a mistake in its options)."""
    say = say or _say
    if "-h" in arguments or "--help" in arguments:
        say(help_text())
        return 0
    secrets = Secrets()
    activate(secrets)
    try:
        try:
            config, settings = configure(arguments, dict(os.environ))
            secrets.masking = None if settings.keep_personal_data else Masking()
            secrets.add_key(settings.secret_key)
            secrets.add_key(settings.second_secret_key)
            folder = Path(config.report_dir or ".")
            writable(folder, config.record_har)
            # Until the proxy's end replaces them, its reports say it has not finished: never an earlier proxy's
            # verdict.
            write_all(stop_report(unfinished(), settings, config.gate, inputs=config.run), folder)
            proxy = Proxy(dataclasses.replace(config, say=say))
        except (Mistake, OSError) as error:  # OSError: the address is taken, or not this machine's
            print(redact(f"ERROR: {error}"), file=sys.stderr)
            return int(ExitStatus.CANNOT_RUN)
        say(redact(f"{PROGRAM} {COMMAND}: forwarding {proxy.base_url} to {config.upstream}; reports to "
                   f"{config.report_dir} when stopped (Ctrl-C)"))
        proxy.serve()
        try:
            report, written = proxy.write(folder)
        except JudgeGone as error:  # nothing it judged can be reported: no verdict, never a pass
            gone = Stop(Outcome.SUITE_ERROR, f"{error}: what it judged is lost", int(ExitStatus.SUITE_ERROR))
            with contextlib.suppress(OSError):
                write_all(stop_report(gone, settings, config.gate, inputs=config.run), folder)
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


def _say(line: str) -> None:
    print(line, flush=True)
