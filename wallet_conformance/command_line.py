"""A subcommand's command line (settings.SUBCOMMANDS) read into the values of its options, by dest (the command
line's, else the environment's, else the default), with the one argparse parser every subcommand's is built as, from
the option declarations; and its --help, each option with the help it has in that subcommand (`Option.help_for`)."""

from __future__ import annotations

import argparse
import difflib
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from wallet_conformance.settings import (
    PROGRAM,
    SUBCOMMANDS,
    ConfigError,
    Option,
    Subcommand,
    argument,
    value_of,
)

HELP_WIDTH = 100
FLAG_WIDTH = 34
USAGE_HINT = f"`{PROGRAM} --help` lists the options"


class UsageMistake(Exception):
    """A mistake in a command line: one line, exit 4 (as pytest answers a mistake in its own options)."""


class Parser(argparse.ArgumentParser):
    """argparse, its mistakes a UsageMistake."""

    def error(self, message: str) -> NoReturn:
        raise UsageMistake(message)


def parser(name: str, options: Iterable[Option] | None = None) -> Parser:
    """The parser of the subcommand `name`, the one every subcommand's command line is read with: its positional
    words, then its options (or `options`), each as its declaration says (`argument`, which pytest's parser reads
    too)."""
    subcommand = SUBCOMMANDS[name]
    built = Parser(prog=f"{PROGRAM} {name}", add_help=False, allow_abbrev=False)
    if subcommand.positional and subcommand.dest:
        built.add_argument(subcommand.dest, nargs="+", metavar=subcommand.positional)
    for option in subcommand.options if options is None else options:
        built.add_argument(option.flag, **argument(option))
    return built


def parse(
    name: str, arguments: list[str], environ: Mapping[str, str], *, known: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The values of the subcommand `name`'s options among `arguments` (by dest; its positional words by its
    `dest`), and, when `known`, the arguments that are none of them (else they are a UsageMistake)."""
    subcommand = SUBCOMMANDS[name]
    built = parser(name)
    if known:
        given, rest = built.parse_known_args(arguments)
    else:
        given, rest = built.parse_intermixed_args(arguments), []
    try:
        values = {option.dest: value_of(option, getattr(given, option.dest), environ) for option in subcommand.options}
    except ConfigError as error:
        raise UsageMistake(str(error)) from None
    if subcommand.positional and subcommand.dest:
        values[subcommand.dest] = getattr(given, subcommand.dest)
    return values, rest


def not_a_subcommand(word: str) -> str:
    """The one line for a word where a subcommand or a test path was expected."""
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1)
    guess = f" (did you mean {close[0]}?)" if close else ""
    return (
        f"{word!r} is neither a subcommand nor a test path that exists{guess}; the subcommands are "
        f"{', '.join(SUBCOMMANDS)} (`{PROGRAM} --help`)"
    )


def usage(option: Option) -> str:
    """The option as a usage line shows it: its flag and what its value is (`--listen HOST:PORT`)."""
    value = option.metavar or ("|".join(option.choices) if option.choices else "")
    return f"{option.flag} {value}".strip()


def entry(flag: str, meaning: str) -> list[str]:
    """One entry of a help: the flag, then its meaning wrapped beside it."""
    lines = textwrap.wrap(meaning, HELP_WIDTH - FLAG_WIDTH - 2)
    if len(flag) >= FLAG_WIDTH - 2:
        return [f"  {flag}", *(" " * FLAG_WIDTH + line for line in lines)]
    return [f"  {flag:<{FLAG_WIDTH - 2}}{lines[0]}", *(" " * FLAG_WIDTH + line for line in lines[1:])]


def help_text(subcommand: Subcommand) -> str:
    """A subcommand's --help (not a run's: cli.help_text): its usage, what it does, its options and their defaults
    as they are in it."""
    about = f"{subcommand.summary[:1].upper()}{subcommand.summary[1:]}. {subcommand.details}"
    lines = [f"usage: {subcommand.usage_line}", "", *textwrap.wrap(about, HELP_WIDTH), "", "Options:"]
    for option in subcommand.options:
        lines += entry(usage(option), option.help_for(subcommand.name))
    lines += entry("-h, --help", "this help")
    return "\n".join(lines)


def subcommands_help() -> list[str]:
    """The subcommands as a run's --help lists them."""
    return [
        line
        for subcommand in SUBCOMMANDS.values()
        for line in entry(subcommand.usage_line.removeprefix(f"{PROGRAM} "), subcommand.summary)
    ]
