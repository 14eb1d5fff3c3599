"""The configuration of a run and of every subcommand: each option declared once (flag, environment variable,
default, help, and what its value must be: `convert`, `check`), and the validated `Settings` the machinery receives.
`read` holds each option to its declaration, then adds only the checks that span several options. Plain data: the
pytest plugin (plugin/options.py) and the subcommands' parser (command_line.py) both declare their options from here.

    program        the command's name, its subcommands' names, where their reports go
    option         the Option model: a declaration, how a parser declares it, where its value comes from
    checks         what a value must be (an Option's `check`)
    suite_options  the run's options, by group
    proxy_options  the proxy's own options and the checks that span them
    subcommands    the subcommands (what each takes) and the command's own options
    validated      Settings
    reading        the values read into Settings
    reproduction   the command that reproduces a run
    har_files      --har's files
"""

from wallet_conformance.settings.checks import MIN_KEY_LENGTH
from wallet_conformance.settings.har_files import folders_without_har, har_files
from wallet_conformance.settings.option import ConfigError, Option, argument, value_of
from wallet_conformance.settings.program import PROGRAM, PROXY, REPORT_FOLDERS, RUN
from wallet_conformance.settings.proxy_options import HAR_FILES_KEPT, PROXY_OPTIONS, PROXY_SHARED
from wallet_conformance.settings.reading import read, report_folder, unwritable
from wallet_conformance.settings.reproduction import command_line, reproduction
from wallet_conformance.settings.subcommands import COMMAND_OPTIONS, SUBCOMMANDS, Subcommand, default
from wallet_conformance.settings.suite_options import (
    BY_FLAG,
    DEFAULT_BANK_ACCOUNT,
    GROUPS,
    HOOK_MONEY_BUDGET,
    MONEY_BUDGET,
    OPTIONS,
    variable_of,
)
from wallet_conformance.settings.validated import Settings

__all__ = [
    "BY_FLAG",
    "COMMAND_OPTIONS",
    "DEFAULT_BANK_ACCOUNT",
    "GROUPS",
    "HAR_FILES_KEPT",
    "HOOK_MONEY_BUDGET",
    "MIN_KEY_LENGTH",
    "MONEY_BUDGET",
    "OPTIONS",
    "PROGRAM",
    "PROXY",
    "PROXY_OPTIONS",
    "PROXY_SHARED",
    "REPORT_FOLDERS",
    "RUN",
    "SUBCOMMANDS",
    "ConfigError",
    "Option",
    "Settings",
    "Subcommand",
    "argument",
    "command_line",
    "default",
    "folders_without_har",
    "har_files",
    "read",
    "report_folder",
    "reproduction",
    "unwritable",
    "value_of",
    "variable_of",
]
