"""The suite's options on pytest's command line (one group, each with an environment-variable fallback), read once
into the run's Settings (wallet_conformance/settings/ declares them). Nothing else reads pytest's options.

This module is the one pytest loads through the `pytest11` entry point wherever the suite is installed, so that pytest
knows the options before it reads the command line (`--report-dir reports` is then never taken for a test path). The
rest of the plugin (its fixtures and hooks) comes with the suite's tests (their conftest loads
`wallet_conformance.plugin`); in a run of anything else this module only declares the options."""

from __future__ import annotations

import contextlib
import os
import zlib
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

import pytest

from wallet_conformance.settings import (
    OPTIONS,
    PROGRAM,
    ConfigError,
    Settings,
    argument,
    read,
    report_folder,
    unwritable,
    value_of,
)

GROUP = "wallet-conformance"
SUITE = "wallet_conformance.plugin"  # the plugin's name as the suite's conftest (or `-p`) loads it
BASE_URL_PLUGIN, BASE_URL_MODULE = "base_url", "pytest_base_url.plugin"  # pytest-base-url's entry point and module
WORKER_SEED = "wallet_conformance_seed"  # the run's seed, which the controller hands every xdist worker
SETTINGS = pytest.StashKey[Settings]()


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    group = parser.getgroup(GROUP, "Wallet Service API conformance")
    shared = {"--base-url"} if base_url_plugin(pluginmanager) else set()
    for option in OPTIONS:
        if option.flag in shared:
            continue
        group.addoption(option.flag, **argument(option))
    if pluginmanager.is_blocked("cacheprovider"):
        # pyproject.toml sets cache_dir (in the work folder); with `-p no:cacheprovider` it would be an unknown ini.
        parser.addini("cache_dir", "unused: the cache provider is off (-p no:cacheprovider)", default="")


def base_url_plugin(pluginmanager: pytest.PytestPluginManager) -> bool:
    """Whether pytest-base-url is, or is about to be, loaded: then it declares --base-url (with our dest, base_url)
    and the suite reads it. Asked before the plugins installed in the environment are all loaded, in whatever order,
    and two declarations of one option are an error."""
    if pluginmanager.has_plugin(BASE_URL_PLUGIN) or pluginmanager.has_plugin(BASE_URL_MODULE):
        return True
    if pluginmanager.is_blocked(BASE_URL_PLUGIN):
        return False
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return BASE_URL_MODULE in os.environ.get("PYTEST_PLUGINS", "")
    return any(entry.value.startswith(BASE_URL_MODULE) for entry in metadata.entry_points(group="pytest11"))


def settings(config: pytest.Config) -> Settings:
    """The options' values (the command line, else the environment, else the declared default), checked once; bad
    configuration is a UsageError with one message naming the option (exit 4), and a conformance run writes the
    reports of that stop where its report folder can be read (no earlier run's verdict is left there)."""
    found = config.stash.get(SETTINGS, None)
    if found is not None:
        return found
    values: dict[str, Any] = {}
    try:
        for option in OPTIONS:
            value = value_of(option, config.getoption(option.dest, default=None), os.environ)
            if value is None and option.flag == "--base-url" and config.pluginmanager.has_plugin(BASE_URL_PLUGIN):
                value = config.getini("base_url") or None  # pytest-base-url's ini, after PYTEST_BASE_URL and ours
            values[option.dest] = value
        found = read(values, strict=bool(config.getini("strict")))
        _reference_names(found)
    except ConfigError as error:
        _usage_error(config, str(error), _folder(values))
    found = replace(
        found,
        generation_seed=_generation_seed(config, found.seed),
        pytest_selection=_selection(config),
        pytest_stops=_stops(config),
    )
    config.stash[SETTINGS] = found
    return found


def _reference_names(found: Settings) -> None:
    """The bundled reference's faults and variants given are names it has."""
    if not (found.reference_faults or found.reference_variants):  # the reference package imports its server
        return
    from wallet_conformance.reference.faults import FAULTS
    from wallet_conformance.reference.variants import ALL, VARIANTS

    for flag, given, known, listing in (
        ("--reference-fault", found.reference_faults, FAULTS, "--list-faults"),
        ("--reference-variant", found.reference_variants, {ALL, *VARIANTS}, "--list-variants"),
    ):
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ConfigError(f"{flag} {', '.join(unknown)}: no such name; `{PROGRAM} {listing}` lists them")


def _folder(values: dict[str, Any]) -> Path | None:
    """Where the run's reports go, when the options that say so are right."""
    try:
        return report_folder(values)
    except ConfigError:
        return None


def _usage_error(config: pytest.Config, message: str, folder: Path | None) -> NoReturn:
    """Stop on a mistake in the options: in a conformance run that is not a worker, the reports of that stop replace
    the report folder's (`folder`, when the options that name it are right), then the one-line UsageError."""
    # The suite's plugin and reports: imported in its runs only (this module is loaded by every pytest).
    from wallet_conformance.plugin.recording import write_stop
    from wallet_conformance.plugin.run import is_worker
    from wallet_conformance.reporting.endings import usage_error

    if folder is not None and not is_worker(config) and sends_requests(config):
        with contextlib.suppress(OSError):
            write_stop(Settings(report_dir=folder), usage_error(message))
    raise pytest.UsageError(message) from None


def _selection(config: pytest.Config) -> tuple[str, ...]:
    """pytest's own arguments that chose the tests, from the command line or PYTEST_ADDOPTS, as they choose them again
    from any folder: -k, -m, --deselect, --ignore-glob, --lf (with --lfnf=none, which deselects every test where none
    failed last), stepwise's --sw and --sw-skip (they leave out the tests before the last failure), and the paths of
    tests other than the suite's folder, relative to the rootdir as node ids are (tests/test_money.py::test_x); an
    --ignore path inside the rootdir becomes the --ignore-glob that matches it wherever the suite is."""
    from wallet_conformance.plugin.collection import tests_dir  # the suite's plugin: loaded in the suite's runs only

    option, root, folder = config.option, config.rootpath, tests_dir(config)
    words: list[str] = []
    for flag, value in (("-k", getattr(option, "keyword", "")), ("-m", getattr(option, "markexpr", ""))):
        if value:
            words += [flag, value]
    words += [f"--deselect={node}" for node in getattr(option, "deselect", None) or ()]
    for ignored in getattr(option, "ignore", None) or ():
        path = (config.invocation_params.dir / ignored).resolve()
        words.append(
            f"--ignore-glob=*/{path.relative_to(root).as_posix()}"
            if path.is_relative_to(root)
            else f"--ignore={ignored}"
        )
    words += [f"--ignore-glob={pattern}" for pattern in getattr(option, "ignore_glob", None) or ()]
    if getattr(option, "lf", False):
        words.append("--lf")
        if getattr(option, "last_failed_no_failures", "all") == "none":
            words.append("--lfnf=none")
    if getattr(option, "stepwise_skip", False):
        words.append("--sw-skip")
    elif getattr(option, "stepwise", False) and not getattr(option, "stepwise_reset", False):
        words.append("--sw")
    for arg in config.args:
        name, separator, node = arg.partition("::")
        path = (config.invocation_params.dir / name).resolve()
        if path == folder and not separator:
            continue  # the suite's folder: every test, as without a path
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else name
        words.append(shown + separator + node)
    return tuple(words)


def _stops(config: pytest.Config) -> tuple[str, ...]:
    """pytest's own arguments that stop the run at a failure (-x is --maxfail=1; --sw-reset runs every test, then
    stops at the first failure as --sw does): no selection, kept to reproduce the run."""
    maxfail = getattr(config.option, "maxfail", 0) or 0
    words = [] if maxfail <= 0 else ["-x"] if maxfail == 1 else [f"--maxfail={maxfail}"]
    if getattr(config.option, "stepwise_reset", False) and not getattr(config.option, "stepwise_skip", False):
        words.append("--sw-reset")
    return tuple(words)


def _generation_seed(config: pytest.Config, suite_seed: int) -> int:
    """The seed of the generated tests: `--hypothesis-seed` when given, else the suite's seed."""
    given = config.getoption("hypothesis_seed", default=None)
    if given in (None, ""):
        return suite_seed
    return int(given) if str(given).isdigit() else zlib.crc32(str(given).encode())


@pytest.hookimpl(tryfirst=True)  # before the other modules of the plugin
def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin(SUITE):
        return  # only the options, declared through the entry point, in a run of something else: nothing to do
    # The `requirement` marker is declared here only (not in pyproject.toml): the plugin owns it.
    config.addinivalue_line(
        "markers", "requirement(*ids): the catalogue requirements (requirements.yaml) this test checks"
    )
    config.addinivalue_line("markers", "account_wide: uses an account-wide limit; runs in one xdist group")
    config.addinivalue_line(
        "markers",
        "schemathesis_cases: draws its requests with Schemathesis; against a target on this machine, runs in the "
        "account-wide xdist group",
    )
    config.addinivalue_line("markers", "money: moves money; needs a funding URL or a funded wallet")
    # The suite's plugin and reports: imported in the suite's runs only.
    from wallet_conformance.plugin import interruption, run
    from wallet_conformance.plugin.recording import write_stop
    from wallet_conformance.reporting.conformance import gate_for
    from wallet_conformance.reporting.endings import unfinished
    from wallet_conformance.reporting.gating import GateError

    found = settings(config)
    if run.is_worker(config):  # an xdist worker: the controller's seed (a random one is drawn per process)
        seed = config.workerinput[WORKER_SEED]  # type: ignore[attr-defined]  # xdist sets it on a worker's config
        found = replace(found, seed=seed, generation_seed=_generation_seed(config, seed))

    sending = sends_requests(config)
    gate = None
    if not run.is_worker(config):
        try:
            gate = gate_for(found)  # waivers and baseline: checked before anything starts
        except GateError as error:
            _usage_error(config, str(error), found.report_dir)
        if sending and not found.cleanup and not found.passive:
            try:
                write_stop(found, unfinished(), gate)  # replaced when the run ends, however it ends
            except OSError as error:  # checked before anything starts: a run whose reports cannot be written
                _usage_error(config, unwritable(found.report_dir, error), None)
    if sending:
        interruption.of(config).install()
    config.stash[run.RUN] = run.build(config, found, sends_requests=sending, gate=gate)


def sends_requests(config: pytest.Config) -> bool:
    """A conformance run that will run tests (not --help, --collect-only, --fixtures, --markers)."""
    from wallet_conformance.plugin.collection import runs_conformance

    option = config.option
    shows = (
        option.help,
        option.collectonly,
        getattr(option, "showfixtures", False),
        getattr(option, "show_fixtures_per_test", False),
        getattr(option, "markers", False),
    )
    return runs_conformance(config) and not any(shows)
