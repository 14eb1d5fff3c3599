"""`wallet-conformance`: the installed command, its subcommands (settings.SUBCOMMANDS) dispatched here. `run` (the
bare command, and one starting with an option or a test path) runs the conformance suite from any folder, with every
option of `./conformance` (they are pytest's and the plugin's), writing its reports to `./reports` of that folder;
with no target it starts the bundled reference. Its own options (settings.COMMAND_OPTIONS) answer without a run:
`--help`, `--version`, `--list-requirements`, `--list-faults`, `--list-variants`, `--help-pytest`. `har` and `merge`
run here too; `proxy` in proxy/command.py.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import os
import re
import sys
import textwrap
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.api import KEY_VARIABLE, SECOND_KEY_VARIABLE
from wallet_conformance.client.redaction import Secrets
from wallet_conformance.command_line import (
    HELP_WIDTH,
    USAGE_HINT,
    UsageMistake,
    entry,
    not_a_subcommand,
    parse,
    parser,
    subcommands_help,
    usage,
)
from wallet_conformance.command_line import help_text as subcommand_help
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reporting import replayed, terminal
from wallet_conformance.reporting.conformance import exit_status, gate_for, judged_against, suite_version
from wallet_conformance.reporting.endings import usage_error
from wallet_conformance.reporting.from_record import write_record, write_stopped
from wallet_conformance.reporting.gating import GateError
from wallet_conformance.reporting.merged import MergeError, lines_of, load, merge
from wallet_conformance.reporting.recorded import judge_recorded
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import (
    BY_FLAG,
    COMMAND_OPTIONS,
    GROUPS,
    OPTIONS,
    PROGRAM,
    RUN,
    SUBCOMMANDS,
    ConfigError,
    Settings,
    Subcommand,
    read,
    report_folder,
)
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import PYTEST_CONFIG, ROOT, TESTS

# The run's options the command's own read before pytest does: --list-requirements's --part and --level, and where
# the run's work folder is (pytest's cache goes there).
OWN_READS = ("--work-dir", "--part", "--level")


def version() -> str:
    """The suite's version and the sha256 of each file it judges against (the document first)."""
    lines = [f"{PROGRAM} {suite_version()}"]
    lines += [f"  {name}: {digest}" for name, digest in judged_against().items()]
    return "\n".join(lines)


def requirements(parts: list[str] | None, levels: list[str] | None) -> str:
    """The catalogue's requirements, one line each: id, level, title (of the parts, or the levels, asked), the parts
    and levels checked as a run's --part and --level are."""
    try:
        chosen = Settings(parts=BY_FLAG["--part"].held(parts), levels=BY_FLAG["--level"].held(levels)).chosen
    except ConfigError as error:
        raise UsageMistake(str(error)) from None
    return "\n".join(
        f"{requirement.id:<8} {requirement.level:<6} {requirement.title}"
        for requirement in catalogue()
        if chosen is None or requirement.id in chosen
    )


def help_text() -> str:
    """`--help` (and `run --help`): the subcommands, then the suite's options, grouped as docs/options.md groups them;
    pytest's own behind --help-pytest."""
    lines = [
        f"usage: {PROGRAM} [run] [options] [pytest options] [test paths]",
        "",
        *textwrap.wrap(
            "Runs the Wallet Service API conformance suite; with no --base-url, against the bundled "
            "reference. Each option with an environment variable reads it when the option is not "
            "given.",
            HELP_WIDTH,
        ),
        "",
        "Subcommands (SUBCOMMAND --help lists its options):",
        *subcommands_help(),
        "",
        "The command's own:",
    ]
    for option in COMMAND_OPTIONS:
        lines += entry(usage(option), option.help_text)
    for group, title in GROUPS.items():
        lines += ["", f"{title}:"]
        for option in (option for option in OPTIONS if option.group == group):
            lines += entry(usage(option), option.help_text)
    lines += [
        "",
        *textwrap.wrap(
            f"Any other argument is pytest's (-n 2, -k EXPR, --strict, --junitxml FILE, "
            f"--alluredir DIR...): `{PROGRAM} --help-pytest` lists them. The exit statuses: "
            'README.md, "Gating".',
            HELP_WIDTH,
        ),
    ]
    return "\n".join(lines)


def one_line(message: str) -> str:
    """pytest's usage error (its usage line, `prog: error: ...`, the inifile and the rootdir) as one line naming the
    option; for a value the suite declares, what a valid one is."""
    lines = [line for line in message.splitlines() if ": error: " in line]
    found = lines[0].split(": error: ", 1)[1] if lines else message.strip().splitlines()[0]
    flag = re.search(r"argument (--[\w-]+)", found)
    if flag and flag.group(1) in BY_FLAG:
        option = BY_FLAG[flag.group(1)]
        return f"{found}; {usage(option)}: {option.help_text}"
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
            config = yield
        except pytest.UsageError as error:
            message = one_line(str(error))
            stopped(args, message)
            raise pytest.UsageError(message) from None
        stray = [word for word in config.args if not is_test_path(word, config.invocation_params.dir)]
        if stray and not config.option.pyargs:  # before anything starts or is written: never a run
            raise pytest.UsageError(not_a_subcommand(stray[0]))
        return config

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
    return [
        str(TESTS),
        "-c",
        str(PYTEST_CONFIG),
        "--rootdir",
        str(ROOT),
        "-o",
        f"cache_dir={work_dir.absolute() / 'pytest_cache'}",
        *arguments,
    ]


def is_test_path(word: str, folder: Path) -> bool:
    """Whether `word` names a test path that exists, a file or folder or a node id in one (tests/test_money.py::
    test_x), from `folder` or from the suite's root (as a report's command writes them: outside the suite's folder,
    the command's pytest reads them from there, CommandLine.pytest_configure)."""
    name = word.partition("::")[0]
    return any((base / name).exists() for base in (folder, ROOT))


def subcommand(arguments: list[str]) -> tuple[Subcommand, list[str]]:
    """The subcommand the command line asks for, and the words after its name: the first word's; `run` when there is
    none, or it is an option or a test path; a UsageMistake for any other word (never a run)."""
    first = arguments[0] if arguments else "-"
    if first in SUBCOMMANDS:
        return SUBCOMMANDS[first], arguments[1:]
    if first.startswith("-") or is_test_path(first, Path.cwd()):
        return SUBCOMMANDS[RUN], arguments
    raise UsageMistake(not_a_subcommand(first))


def runner(chosen: Subcommand) -> Callable[[list[str]], int]:
    """The function that runs a subcommand (its module imported now: the proxy's imports its server only when
    asked for)."""
    module, _, function = chosen.runner.partition(":")
    return getattr(importlib.import_module(module), function)


def _suite_options(arguments: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The suite's options among `arguments` (by dest, the environment and the defaults applied), and the others."""
    return parse(RUN, arguments, os.environ, known=True)


def runs_the_suite(arguments: list[str]) -> bool:
    """Whether the command runs the suite (not a listing, --version, --help, another subcommand, nor a mistake in
    its first word)."""
    try:
        chosen, arguments = subcommand(arguments)
    except UsageMistake:
        return False
    if chosen.name != RUN:
        return False
    try:
        asked, _ = _own_parser().parse_known_args(arguments)
    except UsageMistake:
        return True
    return not any(
        (asked.help, asked.version, asked.list_requirements, asked.list_faults, asked.list_variants, asked.help_pytest)
    )


def stopped(arguments: list[str], message: str) -> None:
    """A run stopped by a mistake in its options: where the options that name the report folder are right, the
    reports of that stop replace the folder's, so that no earlier run's verdict is left there."""
    try:
        values, _ = _suite_options(arguments)
        folder = report_folder(values)
    except (UsageMistake, ConfigError):
        return
    with contextlib.suppress(OSError):
        write_stopped(folder, usage_error(message), Settings(report_dir=folder))


def _own_parser() -> argparse.ArgumentParser:
    """The parser of the command's own options (COMMAND_OPTIONS, and -h) and of the run's options they read
    (OWN_READS); every other word is left to the run."""
    own = parser(RUN, (*COMMAND_OPTIONS, *(BY_FLAG[flag] for flag in OWN_READS)))
    own.add_argument("-h", "--help", action="store_true")
    return own


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        chosen, rest = subcommand(arguments)
        if chosen.name != RUN and ("-h" in rest or "--help" in rest):
            print(subcommand_help(chosen))
            return 0
        return runner(chosen)(rest)
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


def settings_of(name: str, arguments: list[str]) -> tuple[Settings, dict[str, Any]]:
    """The Settings of the subcommand `name` from its command line and the environment, and its values (by dest); a
    UsageMistake names what is wrong."""
    values, _ = parse(name, arguments, os.environ)
    try:
        return read(values, command=name), values
    except ConfigError as error:
        raise UsageMistake(str(error)) from None


def judge_har(arguments: list[str]) -> int:
    """`har FILE... [options]`: the recorded traffic judged, as `--har FILE...` judges it."""
    settings, _ = settings_of("har", arguments)
    try:
        gate = gate_for(settings)
    except GateError as error:
        raise UsageMistake(str(error)) from None
    return judge_recorded(settings, gate)


def merged(arguments: list[str]) -> int:
    """`merge REPORT... [--report-dir DIR] [gate options]`: one report of several runs' records of judgement."""
    settings, values = settings_of("merge", arguments)
    paths = [Path(name) for name in values["reports"]]
    try:
        gate = gate_for(settings)
        reports = load(paths)
    except (GateError, MergeError) as error:
        raise UsageMistake(str(error)) from None
    report = merge(reports, gate)
    written = [*write_all(report, settings.report_dir), write_record(lines_of(reports), settings.report_dir)]
    several = report["target"].get("note")
    print(
        "\n".join(
            [
                *terminal.summary(report, written),
                *([f"merged: {several}"] if several else []),
                f"merged: {report['run']['merged']['not_claimed']}",
            ]
        )
    )
    return exit_status(report)


def replay(arguments: list[str]) -> int:
    """`replay REPORT --test NODEID | --requirement ID [target options]`: a failure's replay, from a report of any
    format, run against the target (or a bundled reference with the report's faults and variants), and whether the
    failure shows again (exit 1), does not (0), or the answers cannot tell (11)."""
    settings, values = settings_of("replay", arguments)
    reports, test = values["reports"], values["test"]
    if len(reports) != 1 or not (test or settings.requirements):
        raise UsageMistake("replay takes one REPORT and --test NODEID or --requirement ID")
    path = Path(reports[0])
    try:
        chosen = replayed.chosen(replayed.replays_in(path), test, (settings.requirements or (None,))[0])
    except OSError as error:
        raise UsageMistake(f"{path}: {error.strerror or error}") from None
    except (ValueError, replayed.ReplayError) as error:
        raise UsageMistake(f"{path}: {error}") from None
    funding_url: str | None
    with contextlib.ExitStack() as stack:
        if settings.base_url is None:
            # Imported here: Starlette brings anyio, which pytest must import itself to rewrite its plugin's asserts.
            from wallet_conformance.reference.server import ReferenceServer

            reference = replayed.reference_of(path)
            server = stack.enter_context(
                ReferenceServer(
                    faults=reference.get("faults") or (),
                    variants=reference.get("variants") or (),
                    settle_delay=reference.get("settle_delay") or 0.1,
                )
            )
            base_url, funding_url = server.base_url, server.funding_url
            keys = {KEY_VARIABLE: server.secret_key, SECOND_KEY_VARIABLE: server.second_secret_key}
            print(
                f"replay: against a bundled reference with the report's faults "
                f"({', '.join(reference.get('faults', ())) or 'none'}) and variants "
                f"({', '.join(reference.get('variants', ())) or 'none'})"
            )
        else:
            base_url, funding_url = str(settings.base_url), settings.funding_url
            keys = {
                variable: key
                for variable, key in (
                    (KEY_VARIABLE, settings.secret_key),
                    (SECOND_KEY_VARIABLE, settings.second_secret_key),
                )
                if key
            }
        secrets = Secrets()  # the keys and their near-copies, kept out of what the replay prints
        for key in keys.values():
            secrets.add_key(key)
        try:
            outcome = replayed.run(
                chosen, base_url=base_url, keys=keys, funding_url=funding_url, timeout=settings.test_timeout
            )
        except replayed.ReplayError as error:
            raise UsageMistake(secrets.redact(str(error))) from None
    print(secrets.redact(outcome.output.rstrip("\n")))
    print(secrets.redact(replayed.verdict_line(outcome)))
    if outcome.shows_again:
        return int(ExitStatus.DOES_NOT_CONFORM)
    return int(ExitStatus.NOTHING_JUDGED) if outcome.cannot_tell else int(ExitStatus.GATE_PASSES)


def run_suite(arguments: list[str]) -> int:
    """`run` (the bare command): the command's own options answered, recorded traffic judged (--har), else the suite
    run by pytest."""
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
    for flag, values in (("--part", asked.part or []), ("--level", asked.level or [])):
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
