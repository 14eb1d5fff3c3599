"""The command that reproduces a run, or a subcommand's report, word by word, and as one line for a shell: the
options that can change a verdict, keys as placeholders, never their values."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wallet_conformance.settings.option import Option
from wallet_conformance.settings.program import PROGRAM, RUN
from wallet_conformance.settings.subcommands import BY_ANY_FLAG, SUBCOMMANDS
from wallet_conformance.settings.suite_options import GROUPS, OPTIONS
from wallet_conformance.settings.validated import Settings


def _words(option: Option, value: Any) -> tuple[str, ...]:
    """An option's value as the words that give it on a command line: none when off or unset, one per value of a
    repeatable option; seconds as written (30, 0.15), a pair as written (NUMBER:BANKCODE, HOST:PORT)."""
    if value is None or value is False:
        return ()
    if value is True:
        return (option.flag,)
    words: list[str] = []
    for item in value if option.action == "append" else (value,):
        if isinstance(item, tuple):
            item = ":".join(str(part) for part in item if part is not None)
        elif isinstance(item, float):
            item = f"{item:g}"
        elif isinstance(item, Path):
            item = item.as_posix()
        words += [option.flag, option.placeholder if option.secret else str(item)]
    return tuple(words)


def reproduction(settings: Settings, command: str = RUN) -> list[str]:
    """The whole command that reproduces the run, word by word (the program first): every option that can change a
    verdict and is not at its default (as declared in OPTIONS, by group; a value the environment gave appears as
    its flag), the seed and profile of a run that sends requests, the environment of a deployed target, keys as
    placeholders (<SECRET_KEY>), never their values; then pytest's own arguments that change a verdict: --strict,
    --hypothesis-seed, those that chose the tests and those that stop it at a failure (-x, --maxfail, --sw-reset).
    Another subcommand's (`command`): its name, then the options it declares `reproduced` that were given."""
    if command != RUN:
        options = [BY_ANY_FLAG[flag] for flag in SUBCOMMANDS[command].reproduced]
        return [
            PROGRAM,
            command,
            *(word for option in options for word in _words(option, getattr(settings, option.attribute))),
        ]
    words = [PROGRAM]
    for option in sorted(OPTIONS, key=lambda option: list(GROUPS).index(option.group)):
        given = _words(option, getattr(settings, option.attribute))
        default = option.derived(vars(settings)) if option.derived else option.default
        shown = {
            "changed": given != _words(option, default),
            "active": not settings.passive,
            "deployed": not settings.embedded and not settings.passive,
            "never": False,
        }[option.reproduce]
        if shown:
            words += given
    if settings.strict:
        words.append("--strict")
    if settings.generation_seed != settings.seed and not settings.passive:
        words += ["--hypothesis-seed", str(settings.generation_seed)]
    return words + list(settings.pytest_selection) + list(settings.pytest_stops)


_PLACEHOLDER = re.compile(r"<[A-Z_]+>")


def command_line(words: Iterable[str]) -> str:
    """Words of a command as one line for a shell, each quoted where it needs it; a placeholder (<SECRET_KEY>) is left
    as it is, for its reader to replace."""
    return " ".join(word if _PLACEHOLDER.fullmatch(word) else shlex.quote(word) for word in words)
