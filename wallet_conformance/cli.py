"""`wallet-conformance`: the installed command. It runs the conformance suite from any folder, with every option
of `./conformance` (they are pytest's and the plugin's), writing its reports to `./reports` of that folder; with
no target it starts the bundled reference. Its own options (settings.COMMAND_OPTIONS) answer without a run:
`--help`, `--version`, `--list-requirements`, `--list-faults`, `--list-variants`, `--help-pytest`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import sys
import textwrap
from collections.abc import Generator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from wallet_conformance.reporting import terminal
from wallet_conformance.reporting.conformance import exit_status, gate_for, judged_against, stop_report, suite_version
from wallet_conformance.reporting.endings import usage_error
from wallet_conformance.reporting.gating import GateError
from wallet_conformance.reporting.merged import MergeError, load, merge
from wallet_conformance.reporting.recorded import judge_recorded
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import (
    BY_FLAG,
    COMMAND_OPTIONS,
    GROUPS,
    OPTIONS,
    PROGRAM,
    ConfigError,
    Option,
    Settings,
    argument,
    read,
    report_folder,
    value_of,
)
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import PYTEST_CONFIG, ROOT, TESTS

HELP_WIDTH = 100
FLAG_WIDTH = 34
USAGE_HINT = f"`{PROGRAM} --help` lists the options"


class UsageMistake(Exception):
    """A mistake in the command's own options: one line, exit 4 (as pytest answers a mistake in its own)."""


def version() -> str:
    """The suite's version and the sha256 of each file it judges against (the document first)."""
    lines = [f"{PROGRAM} {suite_version()}"]
    lines += [f"  {name}: {digest}" for name, digest in judged_against().items()]
    return "\n".join(lines)


def requirements(parts: list[str], levels: list[str]) -> str:
    """The catalogue's requirements, one line each: id, level, title (of the parts, or the levels, asked), the parts
    and levels checked as a run's --part and --level are."""
    try:
        chosen = Settings(parts=BY_FLAG["--part"].held(parts), levels=BY_FLAG["--level"].held(levels)).chosen
    except ConfigError as error:
        raise UsageMistake(str(error)) from None
    return "\n".join(f"{requirement.id:<8} {requirement.level:<6} {requirement.title}" for requirement in catalogue()
                     if chosen is None or requirement.id in chosen)


def _usage(option: Option) -> str:
    value = option.metavar or ("|".join(option.choices) if option.choices else "")
    return f"{option.flag} {value}".strip()


def _entry(flag: str, meaning: str) -> list[str]:
    lines = textwrap.wrap(meaning, HELP_WIDTH - FLAG_WIDTH - 2)
    if len(flag) >= FLAG_WIDTH - 2:
        return [f"  {flag}", *(" " * FLAG_WIDTH + line for line in lines)]
    return [f"  {flag:<{FLAG_WIDTH - 2}}{lines[0]}", *(" " * FLAG_WIDTH + line for line in lines[1:])]


def help_text() -> str:
    """`--help`: the suite's options, grouped as docs/options.md groups them; pytest's own behind --help-pytest."""
    lines = [f"usage: {PROGRAM} [options] [pytest options]", "",
             *textwrap.wrap("Runs the Wallet Service API conformance suite; with no --base-url, against the bundled "
                            "reference. Each option with an environment variable reads it when the option is not "
                            "given.", HELP_WIDTH), "", "The command's own:"]
    for flag, meaning in COMMAND_OPTIONS:
        lines += _entry(flag, meaning)
    for group, title in GROUPS.items():
        lines += ["", f"{title}:"]
        for option in (option for option in OPTIONS if option.group == group):
            lines += _entry(_usage(option), option.help_text)
    lines += ["", *textwrap.wrap(f"Any other argument is pytest's (-n 2, -k EXPR, --strict, --junitxml FILE, "
                                 f"--alluredir DIR...): `{PROGRAM} --help-pytest` lists them. The exit statuses: "
                                 "README.md, \"Gating\".", HELP_WIDTH)]
    return "\n".join(lines)


def one_line(message: str) -> str:
    """pytest's usage error (its usage line, `prog: error: ...`, the inifile and the rootdir) as one line naming the
    option; for a value the suite declares, what a valid one is."""
    lines = [line for line in message.splitlines() if ": error: " in line]
    found = lines[0].split(": error: ", 1)[1] if lines else message.strip().splitlines()[0]
    flag = re.search(r"argument (--[\w-]+)", found)
    if flag and flag.group(1) in BY_FLAG:
        option = BY_FLAG[flag.group(1)]
        return f"{found}; {_usage(option)}: {option.help_text}"
    return f"{found}; {USAGE_HINT}"


class CommandLine:
    """The command's own plugin: usage errors in one line, and test ids shown from the suite's folder (its tests are
    installed inside site-packages, far from the working folder)."""

    def __init__(self) -> None:
        self.working_folder: Path | None = None

    def pytest_addoption(self, parser: pytest.Parser) -> None:
        parser.prog = PROGRAM

    @pytest.hookimpl(wrapper=True)
    def pytest_cmdline_parse(self, args: list[str]) -> Generator[None, Any, Any]:
        try:
            return (yield)
        except pytest.UsageError as error:
            message = one_line(str(error))
            stopped(args, message)
            raise pytest.UsageError(message) from None

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        # Progress lines and the short summary show node ids relative to the invocation folder; from the suite's
        # own folder they read `tests/test_money.py::...`, not `../venv/lib/python3.11/site-packages/...`.
        self.working_folder = config.invocation_params.dir
        if not TESTS.is_relative_to(self.working_folder):
            config.invocation_params = dataclasses.replace(config.invocation_params, dir=config.rootpath)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        # pytest goes back to the invocation folder before this hook; the reports are written in the working one.
        if self.working_folder is not None:
            os.chdir(self.working_folder)


def pytest_arguments(arguments: list[str], work_dir: Path) -> list[str]:
    """pytest's command line for the suite: its tests and settings wherever it is installed, its cache in the run's
    work folder."""
    return [str(TESTS), "-c", str(PYTEST_CONFIG), "--rootdir", str(ROOT),
            "-o", f"cache_dir={work_dir.absolute() / 'pytest_cache'}", *arguments]


class _OwnParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageMistake(message)


def _suite_options(arguments: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The suite's options among `arguments` (by dest, the environment and the defaults applied), and the others."""
    parser = _OwnParser(prog=PROGRAM, add_help=False, allow_abbrev=False)
    for option in OPTIONS:
        parser.add_argument(option.flag, **argument(option))
    given, others = parser.parse_known_args(arguments)
    try:
        return {option.dest: value_of(option, getattr(given, option.dest), os.environ) for option in OPTIONS}, others
    except ConfigError as error:
        raise UsageMistake(str(error)) from None


def runs_the_suite(arguments: list[str]) -> bool:
    """Whether the command runs the suite (not a listing, --version, --help, the proxy or merge)."""
    if arguments[:1] in (["proxy"], ["merge"]):
        return False
    try:
        asked, _ = _own_parser().parse_known_args(arguments)
    except UsageMistake:
        return True
    return not any((asked.help, asked.version, asked.list_requirements, asked.list_faults, asked.list_variants,
                    asked.help_pytest))


def stopped(arguments: list[str], message: str) -> None:
    """A run stopped by a mistake in its options: where the options that name the report folder are right, the
    reports of that stop replace the folder's, so that no earlier run's verdict is left there."""
    try:
        values, _ = _suite_options(arguments)
        folder = report_folder(values)
    except (UsageMistake, ConfigError):
        return
    with contextlib.suppress(OSError):
        write_all(stop_report(usage_error(message), Settings(report_dir=folder)), folder)


def _own_parser() -> argparse.ArgumentParser:
    own = _OwnParser(prog=PROGRAM, add_help=False, allow_abbrev=False)
    for flag in ("--version", "--list-requirements", "--list-faults", "--list-variants", "--help-pytest"):
        own.add_argument(flag, action="store_true")
    own.add_argument("-h", "--help", action="store_true")
    own.add_argument("--work-dir")
    own.add_argument("--part", action="append", default=[])
    own.add_argument("--level", action="append", default=[])
    return own


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(arguments)
    except UsageMistake as mistake:
        if runs_the_suite(arguments):
            stopped(arguments, str(mistake))
        print(f"ERROR: {mistake}", file=sys.stderr)
        return int(pytest.ExitCode.USAGE_ERROR)
    except BrokenPipeError:  # the output piped into `head`: what it wanted was written
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def recorded_traffic(arguments: list[str]) -> int | None:
    """`--har` given only the suite's options: the recorded traffic judged and reported without a pytest session
    (reporting/judging.py), with the header, the reports, the summary and the exit status a pytest run gives. None
    when other arguments (pytest's) need pytest."""
    values, others = _suite_options(arguments)
    if others or not values[BY_FLAG["--har"].dest]:
        return None
    try:
        settings = read(values)
        gate = gate_for(settings)
    except (ConfigError, GateError) as error:
        raise UsageMistake(str(error)) from None
    return judge_recorded(settings, gate)


MERGED_REPORTS = "merged"  # merge's reports: reports/merged/ unless --report-dir says otherwise


def merged(arguments: list[str]) -> int:
    """`merge A.json B.json ... [--report-dir DIR] [gate options]`: one report of several conformance.json."""
    parser = _OwnParser(prog=f"{PROGRAM} merge", add_help=False, allow_abbrev=False)
    parser.add_argument("reports", nargs="+", type=Path)
    gate_options = [BY_FLAG[flag] for flag in ("--report-dir", "--waivers", "--baseline", "--require-complete")]
    for option in gate_options:
        parser.add_argument(option.flag, **argument(option))
    given = parser.parse_args(arguments)
    try:
        values = {option.dest: option.held(value_of(option, getattr(given, option.dest), os.environ))
                  for option in gate_options}
        gate = gate_for(Settings(**values))
        reports = load(given.reports)
    except (ConfigError, GateError, MergeError) as error:
        raise UsageMistake(str(error)) from None
    report = merge(reports, [str(path) for path in given.reports], gate)
    directory = values["report_dir"] if given.report_dir else values["report_dir"] / MERGED_REPORTS
    written = write_all(report, directory)
    several = report["target"].get("note")
    print("\n".join([*terminal.summary(report, written), *([f"merged: {several}"] if several else []),
                     f"merged: {report['run']['merged']['not_claimed']}"]))
    return exit_status(report)


def _run(arguments: list[str]) -> int:
    if arguments[:1] == ["proxy"]:
        from wallet_conformance.proxy.command import main as proxy  # starts nothing at import; imported when asked

        return proxy(arguments[1:])
    if arguments[:1] == ["merge"]:
        return merged(arguments[1:])
    asked, rest = _own_parser().parse_known_args(arguments)
    if asked.help:
        print(help_text())
        return 0
    if asked.version:
        print(version())
        return 0
    if asked.list_requirements:
        print(requirements(asked.part, asked.level))
        return 0
    if asked.list_faults or asked.list_variants:  # the reference's package imports its server: only when asked
        from wallet_conformance.reference.faults import list_faults
        from wallet_conformance.reference.variants import list_variants

        print(list_faults() if asked.list_faults else list_variants())
        return 0
    for flag, values in (("--part", asked.part), ("--level", asked.level)):
        rest += [word for value in values for word in (flag, value)]  # not the catalogue's listing: a run's choice
    if not asked.help_pytest:
        judged = recorded_traffic([*rest, *(["--work-dir", asked.work_dir] if asked.work_dir else [])])
        if judged is not None:
            return judged
    work = BY_FLAG["--work-dir"]
    work_dir = Path(asked.work_dir or os.environ.get(work.env or "") or work.default)
    if asked.work_dir:
        rest += ["--work-dir", asked.work_dir]
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(work_dir.absolute() / "hypothesis"))
    _cache_bytecode(work_dir)
    if asked.help_pytest:
        rest.append("--help")
    return int(pytest.main(pytest_arguments(rest, work_dir), plugins=[CommandLine()]))


def _cache_bytecode(work_dir: Path) -> None:
    """Where PYTHONDONTWRITEBYTECODE is set (as on many CI images), every process of a run (each xdist worker too)
    would compile and rewrite for pytest's asserts some 500 modules again, a second and a half each: their bytecode
    is kept in the work folder instead, never beside the sources."""
    if not sys.dont_write_bytecode and not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    prefix = os.environ.setdefault("PYTHONPYCACHEPREFIX", str(work_dir.absolute() / "pycache"))
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode, sys.pycache_prefix = False, prefix


if __name__ == "__main__":
    sys.exit(main())
