"""The option model: what an option is (its flag, environment variable, default, help, and what its value must be),
how a command line declares it (`argument`, for argparse and pytest alike), and where its value comes from
(`value_of`: the command line, else the environment, else the default)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.settings.program import RUN


class ConfigError(Exception):
    """Bad configuration: one message naming the option (the plugin shows it as a usage error, exit 4)."""


# What an option's value must be: a check takes the option and its value (given, or the default), and gives the value
# as the run's Settings hold it (a Path, a pair, a URL without its trailing slash), or raises a ConfigError naming the
# option. A repeatable option's check takes all its values at once.
Check = Callable[["Option", Any], Any]


@dataclass(frozen=True)
class Option:
    """One option of the suite: its flag, environment variable, default, help (which may say {default}), and what
    its value must be: `convert` makes its text a number (on the command line and from the environment), `check`
    says whether the value will do, and gives it as the run holds it (`read` applies them to every option)."""

    flag: str
    help: str
    env: str | None = None
    default: Any = None
    convert: Callable[[str], Any] | None = None  # its text as a number (float, int): argparse's type, and the env's
    check: Check | None = None
    metavar: str | None = None  # of a flag (store_true): what else it reads, as its help shows it
    choices: tuple[str, ...] | None = None
    action: str | None = None  # store_true, append
    group: str = "run"  # a key of GROUPS (suite_options.py), or "proxy", "command"
    # In the command that reproduces a run (`reproduction`): "changed" when its value is not the default, "active"
    # always in a run that sends requests, "deployed" always against a deployed target, "never" when no verdict
    # depends on it (where the reports and the run's working files go, a recording of the traffic).
    reproduce: str = "changed"
    secret: bool = False  # a key: the command shows a placeholder (<SECRET_KEY>), never the value
    setting: str | None = None  # the Settings field holding its value, when it is not `dest`
    derived: Callable[[Mapping[str, Any]], Any] | None = None  # the default, from the other values (by attribute)
    # Its help in the subcommands where it means something else than in a run (by subcommand: SUBCOMMANDS).
    helps: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def attribute(self) -> str:
        """The name of the Settings field that holds the option's value."""
        return self.setting or self.dest

    @property
    def named(self) -> str:
        """The option as a message names it where the environment may have given it: `--secret-key (or
        WALLET_API_SECRET_KEY)`."""
        return f"{self.flag} (or {self.env})" if self.env else self.flag

    @property
    def placeholder(self) -> str:
        """What stands for a secret option's value in a command: <SECRET_KEY>, <SECOND_SECRET_KEY>."""
        return f"<{self.dest.upper()}>"

    @property
    def help_text(self) -> str:
        """Its help in a run (`wallet-conformance --help`, docs/options.md)."""
        return self.help_for(RUN)

    def help_for(self, command: str) -> str:
        """Its help in the subcommand `command`: the text declared for it there, else its own; {default} filled in,
        its environment variable named."""
        text = self.helps.get(command, self.help).format(default=self.default)
        return f"{text} [env {self.env}]" if self.env else text

    def from_environment(self, environ: Mapping[str, str]) -> Any:
        """The value the environment variable gives (None when unset or empty; a repeatable option's, a list of its
        comma-separated values); a ConfigError when unreadable."""
        raw = environ.get(self.env) if self.env else None
        if raw is None or raw == "":
            return None
        if self.action == "append":  # a repeatable option's values, comma-separated
            return [name.strip() for name in raw.split(",") if name.strip()] or None
        return self._converted(raw, f"{self.env} (for {self.flag})")

    def held(self, value: Any) -> Any:
        """`value` (given, or the default; None: neither) as the run's Settings hold it: a flag True or False, a
        repeatable option's values a tuple, text made a number (`convert`); then, when there is one, checked
        (`check`): a ConfigError naming the option when it will not do."""
        if self.action == "store_true":
            value = bool(value)
        elif self.action == "append":
            value = tuple(value or ())
        elif isinstance(value, str) and self.convert:
            value = self._converted(value, self.flag)
        if self.check is None or value is None or value is False or value == ():  # not given, no default
            return value
        return self.check(self, value)

    def _converted(self, raw: str, named: str) -> Any:
        """`raw` made the option's kind of value (`convert`); a ConfigError saying which kind when it cannot be."""
        try:
            return self.convert(raw) if self.convert else raw
        except ValueError:
            kind = getattr(self.convert, "__name__", "value")
            raise ConfigError(f"{named} must be a {kind}, got {raw!r}") from None


def argument(option: Option) -> dict[str, Any]:
    """How a command line declares the option: argparse's keywords, which pytest's parser takes too (the one
    declaration both the subcommands' parsers, command_line.py, and the pytest plugin's read)."""
    keywords: dict[str, Any] = {"dest": option.dest, "default": None, "help": option.help_text}
    if option.action:
        keywords["action"] = option.action
    if option.convert and not option.action:
        keywords["type"] = option.convert
    if option.metavar and option.action != "store_true":  # a flag takes no value to name
        keywords["metavar"] = option.metavar
    if option.choices:  # checked by the option's own `check`, as every value is: one message, one place
        keywords["metavar"] = "{" + ",".join(option.choices) + "}"
    return keywords


def value_of(option: Option, given: Any, environ: Mapping[str, str]) -> Any:
    """An option's value: the command line's, else its environment variable's, else its default."""
    value = option.from_environment(environ) if given in (None, []) else given
    return option.default if value in (None, []) else value
