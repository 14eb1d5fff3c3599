"""The options' values read into `Settings`: each held to its declaration (`Option.held`: its conversion and its
check), then the checks that span several options; a ConfigError names what is wrong."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from wallet_conformance.settings import proxy_options
from wallet_conformance.settings.har_files import har_files
from wallet_conformance.settings.option import ConfigError
from wallet_conformance.settings.program import PROXY, REPORT_FOLDERS, RUN
from wallet_conformance.settings.subcommands import BY_ANY_FLAG, SUBCOMMANDS, default
from wallet_conformance.settings.suite_options import BY_FLAG
from wallet_conformance.settings.validated import Settings


def _across(held: Mapping[str, Any], command: str) -> None:
    """The checks that span several options (each option's own value is checked by its `check`); a ConfigError
    naming the options. Those of a target and its keys hold where `command` takes --base-url (the proxy forwards
    its clients' keys: it needs none); the proxy's own first."""
    taken = {option.flag for option in SUBCOMMANDS[command].values_of}
    given: dict[str, Any] = {
        flag: held.get(option.attribute) if flag in taken else None for flag, option in BY_ANY_FLAG.items()
    }
    if command == PROXY:
        proxy_options.across(given)
    if given["--har"]:
        for flag in ("--record-har", "--cleanup", "--keep-failing-records", "--reference-fault", "--reference-variant"):
            if given[flag]:
                raise ConfigError(f"{flag} needs an active run; --har judges recorded traffic and sends nothing")
    key, second_key = given["--secret-key"], given["--second-secret-key"]
    if second_key and second_key == key:
        raise ConfigError(
            f"{BY_FLAG['--second-secret-key'].named} is the --secret-key itself: give the secret key of "
            "an account of another business, or leave it out"
        )
    if "--base-url" not in taken:  # the proxy: its clients' keys are theirs
        pass
    elif given["--base-url"]:
        if not key and not given["--har"]:
            raise ConfigError(
                f"--base-url is given but no {BY_FLAG['--secret-key'].named}: the target needs the account's secret key"
            )
    elif key or second_key:
        flag = BY_FLAG["--secret-key" if key else "--second-secret-key"].named
        raise ConfigError(
            f"{flag} is given but no {BY_FLAG['--base-url'].named}: say which target the key is for "
            "(without both, the suite runs against the bundled reference and needs no key)"
        )
    chosen = [option for option in ("--requirement", "--part", "--level") if given[option]]
    if (
        len(chosen) > 1
        and not Settings(requirements=given["--requirement"], parts=given["--part"], levels=given["--level"]).chosen
    ):
        raise ConfigError(f"{' and '.join(chosen)} together choose no requirement: each narrows the others' choice")
    for flag in ("--reference-fault", "--reference-latency", "--reference-variant"):
        if given[flag] and given["--base-url"]:
            raise ConfigError(f"{flag} applies to the bundled reference only; drop --base-url")
    if given["--cleanup"] and not given["--base-url"]:
        raise ConfigError("--cleanup works on a deployed target: give --base-url and --secret-key")
    if given["--keep-failing-records"] and not given["--base-url"]:
        raise ConfigError(
            "--keep-failing-records works on a deployed target: the bundled reference, and every record "
            "in it, ends with the run"
        )


def unwritable(folder: Path, error: OSError) -> str:
    """The one line of a run whose reports cannot be written where they go."""
    return f"--report-dir {folder}: the reports cannot be written there ({error.strerror or error})"


def report_folder(values: Mapping[str, Any], command: str = RUN) -> Path:
    """Where `command` given these values (by dest, defaults applied) writes its reports: --report-dir, and where
    none is given, its folder there (REPORT_FOLDERS: a --har run's is har/), so that its reports never replace an
    active run's; a ConfigError when --report-dir itself is wrong."""
    given = values.get("report_dir") or default("--report-dir")
    folder: Path = BY_FLAG["--report-dir"].held(given)
    inside = REPORT_FOLDERS.get("har" if command == RUN and values.get(BY_FLAG["--har"].dest) else command)
    return folder / inside if inside and given == default("--report-dir") else folder


def held_values(values: Mapping[str, Any], command: str = RUN) -> dict[str, Any]:
    """Each option of `command` as its declaration holds it (`Option.held`), by flag, from `values` (by dest,
    defaults applied; an option missing there is not given); a ConfigError for an empty value or one its check
    refuses."""
    options = [option for option in SUBCOMMANDS[command].values_of if option.dest in values]
    for option in options:
        if values[option.dest] == "" or (option.action == "append" and "" in (values[option.dest] or ())):
            raise ConfigError(
                f"{option.flag} is given an empty value; give {option.metavar or 'a value'}, or leave it out"
            )
    return {option.flag: option.held(values[option.dest]) for option in options}


def read(values: Mapping[str, Any], *, strict: bool = False, command: str = RUN) -> Settings:
    """Check the options' values (by dest, defaults applied) and make the Settings of `command` (a run, or the
    subcommand given: its options' values, the others at their defaults); a ConfigError says what is wrong, naming
    the option. Each option's value is made and checked as the option declares (`held_values`); then the checks that
    span several (`_across`)."""
    held = {BY_ANY_FLAG[flag].attribute: value for flag, value in held_values(values, command).items()}
    _across(held, command)
    settings_fields = {each.name for each in fields(Settings)}
    held = {name: value for name, value in held.items() if name in settings_fields}
    seed = held.get("seed")
    if seed is None:  # a run's drawn at random; a subcommand that takes no --seed sends nothing of its own: 0
        seed = secrets.randbelow(2**32) if command == RUN else 0
    har = har_files(held.get("har_given", ()))
    held["report_dir"] = report_folder(values, command)
    return Settings(**(held | {"seed": seed, "generation_seed": seed, "strict": strict, "har": har}))
