"""The run's configuration: every option declared once (flag, environment variable, default, help, and what its
value must be: `convert`, `check`), and the validated `Settings` the machinery receives. `read` holds each option to
its declaration, then adds only the checks that span several options. Plain data: the pytest plugin turns its
command line into these (plugin/options.py); nothing else reads pytest's options.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
import shlex
import ssl
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlsplit

from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import LEVELS, catalogue

PROGRAM = "wallet-conformance"  # the installed command (wallet_conformance/cli.py); the command reproducing a run
HAR_SUFFIX = ".har"  # the files of a folder given to --har, in any letter case
RUN = "run"  # the subcommand of the bare command: the suite run (SUBCOMMANDS)
# Where each subcommand that is not a run writes its reports, inside --report-dir's default (reports/har/...), so that
# they never replace an active run's; a --har run's are the har subcommand's. --report-dir given: there.
REPORT_FOLDERS = {"har": "har", "proxy": "proxy", "merge": "merged"}
NOT_A_RUN = ("har", "proxy", "merge")  # the subcommands that run no test: where an option's help says so
MIN_KEY_LENGTH = 4  # shorter keys cannot be kept out of the output reliably (client/redaction.py)
QUIET_WINDOW = 0.4  # seconds balances are watched for a movement that must not come (--quiet-window)
REFERENCE_QUIET_MARGIN = 0.15  # beyond the bundled reference's settle delay, for a settlement a busy machine delays
DEFAULT_BANK_ACCOUNT = "0123456789"
NUBAN_DIGITS = 10  # an account number at a bank the list shows of type `nuban`: a NUBAN, ten digits


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
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    action: str | None = None  # store_true, append
    group: str = "run"  # a key of GROUPS
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
        if raw in (None, ""):
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


# ------------------------------------------------------------------ what a value must be (an Option's `check`)


def http_url(option: Option, value: str) -> str:
    """An absolute http(s) URL with a host."""
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"{option.flag} must be an http(s) URL (absolute, with a host), got {value!r}")
    return value


def base_url(option: Option, value: str) -> str:
    """The target's base address: an http(s) URL ending in the document's version segment (a trailing slash
    dropped), without credentials (they would be shown in every report, and sent in the proxy's Host header)."""
    value = http_url(option, value.rstrip("/"))
    if "@" in urlparse(value).netloc:
        raise ConfigError(
            f"{option.flag} carries credentials (user:password@host): they would be written in every "
            "report and line of output; the suite authenticates with the secret key alone"
        )
    if not value.endswith(contract.version_segment()):
        raise ConfigError(
            f"{option.flag} must end with the version segment {contract.version_segment()} "
            f"(the document's base address), got {value!r}"
        )
    return value


def absolute_url(option: Option, value: str) -> str:
    """A URL with a scheme and a host. Any scheme: which URLs a target takes as webhooks is not shown, and a refused
    one is worth observing."""
    parsed = urlparse(value)
    if not (parsed.scheme and parsed.netloc):
        raise ConfigError(f"{option.flag} must be an absolute URL (scheme and host), got {value!r}")
    return value


def secret_key(option: Option, key: str) -> str:
    """A key of at least MIN_KEY_LENGTH characters: a shorter one cannot be kept out of the output reliably."""
    if len(key) < MIN_KEY_LENGTH:
        raise ConfigError(
            f"{option.named} is {len(key)} characters long: a secret key has at least {MIN_KEY_LENGTH} "
            "(is it the whole key?)"
        )
    return key


def choice(words: str | None = None) -> Check:
    """One of the option's `choices`; its message names them as `words` (default: `one of quick, thorough`)."""

    def check(option: Option, value: str) -> str:
        if value not in (option.choices or ()):
            raise ConfigError(
                f"{option.flag} must be {words or 'one of ' + ', '.join(option.choices or ())}, got {value!r}"
            )
        return value

    return check


def positive_seconds(option: Option, value: float) -> float:
    """A number of seconds above 0."""
    value = float(value)
    if not value > 0:
        raise ConfigError(f"{option.flag} must be a number of seconds above 0, got {value:g}")
    return value


def seconds_or_zero(option: Option, value: float) -> float:
    """A number of seconds, 0 or more."""
    value = float(value)
    if not value >= 0:
        raise ConfigError(f"{option.flag} must be a number of seconds 0 or more, got {value:g}")
    return value


def positive_kobo(option: Option, value: int) -> int:
    """An amount of kobo above 0."""
    if int(value) <= 0:
        raise ConfigError(f"{option.flag} must be a number of kobo above 0, got {value}")
    return int(value)


def bank_account(option: Option, value: str) -> tuple[str, str | None]:
    """NUMBER or NUMBER:BANKCODE, as the pair (number, bank code or None): the number a NUBAN (NUBAN_DIGITS digits,
    the account number at a bank the list shows of type `nuban`), the bank code, when given, a word."""
    number, colon, code = value.partition(":")
    if not (len(number) == NUBAN_DIGITS and number.isascii() and number.isdigit()) or (
        colon and not re.fullmatch(r"[^\s:]+", code)
    ):
        raise ConfigError(
            f"{option.named} must be NUMBER or NUMBER:BANKCODE, NUMBER a NUBAN account number of "
            f"{NUBAN_DIGITS} digits and BANKCODE a bankCode of the bank list, got {value!r}"
        )
    return number, code or None


def host_and_port(option: Option, value: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets or not), as the pair (host, port)."""
    host, _, port = value.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise ConfigError(f"{option.flag} must be HOST:PORT, got {value!r}")
    return host, int(port)


def path(_option: Option, value: str | Path) -> Path:
    """A file's path; whether it can be read is the reader's matter (reporting/gating.py for waivers, baseline)."""
    return Path(value)


def folder(option: Option, value: str | Path) -> Path:
    """A folder's path (made when the run first writes there); not a file's."""
    given = Path(value)
    if given.exists() and not given.is_dir():
        raise ConfigError(f"{option.flag} {given}: a file is there; give a folder (it is made when missing)")
    return given


def har_to_write(option: Option, value: str | Path) -> Path:
    """The path of the HAR file the run writes (--record-har); not a folder's."""
    if Path(value).is_dir():
        raise ConfigError(f"{option.flag} {value}: a folder is there; give the HAR file to write")
    return Path(value)


def pem_file(option: Option, value: str) -> str:
    """A readable PEM file of CA certificates."""
    try:
        ssl.create_default_context(cafile=value)
    except (OSError, ssl.SSLError) as error:
        raise ConfigError(f"{option.flag} {value!r} is not a readable PEM file of CA certificates ({error})") from None
    return value


def requirement_ids(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Ids of the catalogue, in any letter case (`ver-01`), as the catalogue writes them."""
    known = catalogue()
    unknown = [name for name in given if name.upper() not in known]
    if unknown:
        raise ConfigError(
            f"{option.flag} {', '.join(unknown)}: no such requirement in requirements.yaml; "
            f"`{PROGRAM} --list-requirements` lists them"
        )
    return tuple(dict.fromkeys(name.upper() for name in given))


def parts(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Parts of the document, as the catalogue names them (`limits`), in any letter case."""
    known = catalogue().sections
    unknown = [name for name in given if name.lower() not in known]
    if unknown:
        raise ConfigError(
            f"{option.flag} {', '.join(unknown)}: no such part of the document; the parts are {', '.join(known)}"
        )
    return tuple(dict.fromkeys(name.lower() for name in given))


def levels(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Levels of requirements (MUST, SHOULD, INFO), in any letter case."""
    unknown = [name for name in given if name.upper() not in LEVELS]
    if unknown:
        raise ConfigError(f"{option.flag} {', '.join(unknown)}: no such level; the levels are {', '.join(LEVELS)}")
    return tuple(dict.fromkeys(name.upper() for name in given))


def files_or_folders(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Paths of files or folders that exist, as given (`har_files` finds the files they stand for)."""
    for name in given:
        if not (Path(name).is_dir() or Path(name).is_file()):
            raise ConfigError(f"{option.flag} {name}: no such file or folder")
    return given


# The option groups, in the order a user meets them (docs/options.md, `wallet-conformance --help`, the command that
# reproduces a run).
GROUPS = {
    "target": "The target",
    "run": "The run",
    "gating": "The gate",
    "safety": "Real environments: writes and money",
    "timing": "Time bounds",
    "reference": "The bundled reference (self-tests, demos)",
}
# The installed command's own options: they answer without running the suite (wallet_conformance/cli.py).
COMMAND_OPTIONS = (
    ("--version", "the suite's version and the sha256 of the files it judges by"),
    ("--list-requirements [--part P] [--level L]", "the catalogue, one line per requirement: id, level, title"),
    ("--list-faults", "the bundled reference's faults, for --reference-fault"),
    ("--list-variants", "the bundled reference's variants, for --reference-variant"),
    ("--help-pytest", "pytest's own options (-n, -k, --junitxml...), taken too"),
)

# The money budget of a run without --max-amount, in kobo: 50,000 naira where the money is real (production) or drawn
# from a wallet the run was given (--funded-wallet). Where a funding hook makes it (staging, the bundled reference):
# what the magnitude walks take to pass a fee table topping out at 50,000 naira by a decade (about 4,200,000 naira for
# both walks, scenarios/amount_range.py) and the rest of the run, with room to spare, and one payment past 2^31 kobo
# (about 21,474,837 naira, scenarios/large_balance.py).
MONEY_BUDGET = 5_000_000
HOOK_MONEY_BUDGET = 4_000_000_000
REPORTS_WRITTEN = "where the reports are written: conformance.json, .md, .html, junit.xml"
KEY_REDACTED = (
    "a key to redact wherever it appears in the output and the reports (never sent; the keys the traffic "
    "carries are redacted too)"
)

OPTIONS: tuple[Option, ...] = (
    Option(
        "--base-url",
        "base URL of the implementation, ending in /v1 (default: start the bundled reference server)",
        env="WALLET_API_BASE_URL",
        check=base_url,
        metavar="URL",
        group="target",
        helps={
            "har": "the target's base URL, ending in /v1: only the recorded entries under it are judged "
            "(default: the one base address the entries share)",
            "replay": "the target the replay is sent to, ending in /v1 (default: a bundled reference with "
            "the faults and variants of the report's run)",
        },
    ),
    Option(
        "--secret-key",
        "the account's secret key, sent as x-service-key (never printed)",
        env="WALLET_API_SECRET_KEY",
        check=secret_key,
        metavar="KEY",
        group="target",
        secret=True,
        helps=dict.fromkeys(("har", "proxy"), KEY_REDACTED),
    ),
    Option(
        "--second-secret-key",
        "the key of an account of another business on the target, for the isolation "
        "tests, which skip without it (default: the bundled reference's second business's); never printed",
        env="WALLET_API_SECOND_SECRET_KEY",
        check=secret_key,
        metavar="KEY",
        group="target",
        secret=True,
        helps={
            **dict.fromkeys(("har", "proxy"), KEY_REDACTED),
            "replay": "the key of the other business, for a replay of an isolation test (never printed)",
        },
    ),
    Option(
        "--environment",
        "staging or production (default {default}): production runs read-only tests unless --allow-writes",
        env="WALLET_API_ENVIRONMENT",
        default="staging",
        check=choice("staging or production"),
        choices=("staging", "production"),
        group="target",
        reproduce="deployed",
        helps=dict.fromkeys(
            ("har", "proxy"),
            "staging or production: the target's environment, as the reports "
            "name it (default {default}); nothing is sent of the suite's own",
        ),
    ),
    Option(
        "--funding-url",
        "a POST hook that credits a wallet ({{walletId, amount}}), like the reference's /sandbox/fund",
        env="WALLET_API_FUNDING_URL",
        check=http_url,
        metavar="URL",
        group="target",
    ),
    Option(
        "--funded-wallet",
        "an existing funded wallet to draw test money from",
        env="WALLET_API_FUNDED_WALLET",
        metavar="PUBLIC_ID",
        group="target",
    ),
    Option(
        "--bank-account",
        f"an external account (a NUBAN: {NUBAN_DIGITS} digits) the target resolves, for "
        "validate-account and bank transfers (default: {default} at the first listed bank)",
        env="WALLET_API_BANK_ACCOUNT",
        default=DEFAULT_BANK_ACCOUNT,
        check=bank_account,
        metavar="NUMBER:BANKCODE",
        group="target",
    ),
    Option(
        "--settle-timeout",
        "how long to wait for a pending transfer to settle (default {default:g})",
        env="WALLET_API_SETTLE_TIMEOUT",
        default=30.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="timing",
    ),
    Option(
        "--quiet-window",
        "how long balances are watched after a refused transfer (default "
        f"{QUIET_WINDOW:g}; against the bundled reference without variants, its settle delay + "
        f"{REFERENCE_QUIET_MARGIN:g})",
        env="WALLET_API_QUIET_WINDOW",
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="timing",
        derived=lambda held: quiet_window(held["base_url"], held["reference_settle_delay"], held["reference_variants"]),
    ),
    Option(
        "--request-timeout",
        "timeout of one HTTP request (default {default:g})",
        env="WALLET_API_REQUEST_TIMEOUT",
        default=10.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="timing",
        helps={
            "proxy": "seconds the upstream has to answer a forwarded request; past them the "
            "client is answered 504 (default {default:g})"
        },
    ),
    Option(
        "--test-timeout",
        "most time one test may spend on the target (default {default:g})",
        env="WALLET_API_TEST_TIMEOUT",
        default=120.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="timing",
        helps={"replay": "most time the replay may take (default {default:g})"},
    ),
    Option(
        "--run-budget",
        "most time the whole run may take; then it stops with what it has (default {default:g})",
        env="WALLET_API_RUN_BUDGET",
        default=1200.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="timing",
    ),
    Option(
        "--rate-limit-wait",
        "most time the run may spend waiting out 429 answers (default {default:g})",
        env="WALLET_API_RATE_LIMIT_WAIT",
        default=60.0,
        convert=float,
        check=seconds_or_zero,
        metavar="SECONDS",
        group="timing",
    ),
    Option(
        "--report-dir",
        f"{REPORTS_WRITTEN} (default {{default}}/; a --har run's: {{default}}/{REPORT_FOLDERS['har']}/)",
        env="WALLET_API_REPORT_DIR",
        default="reports",
        check=folder,
        metavar="DIR",
        group="run",
        reproduce="never",
        helps={name: f"{REPORTS_WRITTEN} (default {{default}}/{inside}/)" for name, inside in REPORT_FOLDERS.items()}
        | {
            "proxy": f"{REPORTS_WRITTEN}, when the proxy is stopped and every --report-every (default {{default}}/"
            f"{REPORT_FOLDERS['proxy']}/)"
        },
    ),
    Option(
        "--work-dir",
        "where the run keeps what is no report: pytest's cache, Hypothesis' files, locks, the crash "
        "journals --cleanup reads (default {default}/)",
        env="WALLET_API_WORK_DIR",
        default=".wallet-conformance",
        check=folder,
        metavar="DIR",
        group="run",
        reproduce="never",
    ),
    Option(
        "--waivers",
        "YAML list of waived requirements (id, reason, owner, expires): their failures fail the run only once expired",
        env="WALLET_API_WAIVERS",
        check=path,
        metavar="FILE",
        group="gating",
    ),
    Option(
        "--baseline",
        "an earlier conformance.json of the same catalogue: only failures it did not have fail the run",
        env="WALLET_API_BASELINE",
        check=path,
        metavar="FILE",
        group="gating",
    ),
    Option(
        "--require-complete",
        "fail the run (exit 7) when a MUST requirement was not tested (skipped, "
        "blocked, untested); --strict implies it",
        action="store_true",
        group="gating",
        helps=dict.fromkeys(NOT_A_RUN, "fail (exit 7) when a MUST requirement was not judged (untested)"),
    ),
    Option(
        "--seed",
        "seed of the run (default: random)",
        env="WALLET_API_SEED",
        convert=int,
        metavar="N",
        group="run",
        reproduce="active",
    ),
    Option(
        "--profile",
        "budget of the generated tests: quick (default) or thorough",
        env="WALLET_API_PROFILE",
        default="quick",
        check=choice(),
        choices=("quick", "thorough"),
        group="run",
        reproduce="active",
    ),
    Option(
        "--requirement",
        "run only the tests of this requirement (repeatable; any letter case)",
        action="append",
        check=requirement_ids,
        metavar="ID",
        group="run",
        setting="requirements",
        helps={
            "har": "judge only this requirement (repeatable; any letter case); the others are not selected",
            "replay": "without --test: the first failure of this requirement the report holds a replay of",
        },
    ),
    Option(
        "--part",
        "run only the tests of the requirements of this part of the document (repeatable, any "
        f"case): {', '.join(catalogue().sections)}",
        action="append",
        check=parts,
        metavar="PART",
        group="run",
        setting="parts",
    ),
    Option(
        "--level",
        f"run only the tests of the requirements of this level (repeatable, any case): {', '.join(LEVELS)}",
        action="append",
        check=levels,
        metavar="LEVEL",
        group="run",
        setting="levels",
    ),
    Option("--allow-writes", "allow creating and changing records in production", action="store_true", group="safety"),
    Option(
        "--allow-money-movement",
        "allow transfers in production (also needs --allow-writes)",
        action="store_true",
        group="safety",
    ),
    Option(
        "--max-amount",
        f"most money the run may move, in kobo (default {MONEY_BUDGET:,}; {HOOK_MONEY_BUDGET:,} in "
        "staging with a funding hook)",
        env="WALLET_API_MAX_AMOUNT",
        convert=int,
        check=positive_kobo,
        metavar="KOBO",
        group="safety",
    ),
    Option(
        "--ca-bundle",
        "PEM file of the CA(s) an https target is verified with (default: the system's, "
        "SSL_CERT_FILE); never unverified",
        env="WALLET_API_CA_BUNDLE",
        check=pem_file,
        metavar="FILE",
        group="target",
    ),
    Option(
        "--webhook-listen",
        "listen for webhook deliveries there during the run (INFO)",
        check=host_and_port,
        metavar="HOST:PORT",
        group="run",
    ),
    Option(
        "--webhook-public-url",
        "the URL the target delivers to, if not the listener's; also the base of the "
        "update tests' webhook URLs (else a reserved .invalid host, which a target may refuse)",
        check=absolute_url,
        metavar="URL",
        group="run",
    ),
    Option(
        "--har",
        "judge the exchanges recorded in this HAR file (repeatable; a folder: its *.har, any case) "
        "and send nothing; the base URL, when given, chooses the target's entries",
        action="append",
        check=files_or_folders,
        metavar="FILE",
        group="run",
        setting="har_given",
    ),
    Option(
        "--keep-personal-data",
        "with --har and in the proxy: keep personal fields (names, account numbers, "
        "e-mails, phones) in every output, not masked",
        action="store_true",
        group="run",
    ),
    Option(
        "--mask-personal-data",
        "in a run against a target: mask personal fields in every output, as --har and the proxy do",
        action="store_true",
        group="run",
    ),
    Option(
        "--record-har",
        "write every exchange into this HAR 1.2 file (keys redacted, bodies cut as the client cuts them)",
        env="WALLET_API_RECORD_HAR",
        check=har_to_write,
        metavar="FILE",
        group="run",
        reproduce="never",
        helps={
            "proxy": "write every exchange forwarded into this HAR 1.2 file, rotated by --har-max-size (keys redacted)"
        },
    ),
    Option(
        "--keep-failing-records",
        "leave open the wallets a failing test used (its report names them) for its curl lines; --cleanup closes them",
        action="store_true",
        group="run",
        reproduce="never",
    ),
    Option(
        "--cleanup",
        "run no test: close the wallets earlier runs left (named with the suite's run-id prefix), "
        "restore the webhooks they changed",
        action="store_true",
        group="run",
    ),
    Option(
        "--reference-fault",
        "start the bundled reference with this fault (repeatable)",
        action="append",
        metavar="NAME",
        group="reference",
        setting="reference_faults",
    ),
    Option(
        "--reference-variant",
        "start the bundled reference with this variant, another reading of an open point (repeatable; all: every one)",
        env="WALLET_API_REFERENCE_VARIANTS",
        action="append",
        metavar="NAME",
        group="reference",
        setting="reference_variants",
    ),
    Option(
        "--reference-settle-delay",
        "settle delay of the bundled reference (default {default:g})",
        default=0.1,
        convert=float,
        check=seconds_or_zero,
        metavar="SECONDS",
        group="reference",
    ),
    Option(
        "--reference-latency",
        "the bundled reference sleeps this long before each answer, like a remote target (default {default:g})",
        env="WALLET_API_REFERENCE_LATENCY",
        default=0.0,
        convert=float,
        check=seconds_or_zero,
        metavar="SECONDS",
        group="reference",
    ),
)
BY_FLAG = {option.flag: option for option in OPTIONS}


def variable_of(flag: str) -> str:
    """The environment variable an option reads (a replay reads its value from there too)."""
    variable = BY_FLAG[flag].env
    if variable is None:
        raise LookupError(f"{flag} reads no environment variable")
    return variable


# The options of the suite the proxy takes too: the keys (redacted wherever they appear), the target's TLS and time
# bound, where the reports and the recording go, the gate.
PROXY_SHARED = (
    "--secret-key",
    "--second-secret-key",
    "--environment",
    "--ca-bundle",
    "--request-timeout",
    "--report-dir",
    "--record-har",
    "--waivers",
    "--baseline",
    "--require-complete",
    "--keep-personal-data",
)
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def positive_count(option: Option, value: int) -> int:
    """A whole number above 0."""
    if int(value) <= 0:
        raise ConfigError(f"{option.flag} must be a whole number above 0, got {value}")
    return int(value)


def positive_megabytes(option: Option, value: float) -> float:
    """A number of megabytes above 0."""
    if not float(value) > 0:
        raise ConfigError(f"{option.flag} must be a number of megabytes above 0, got {value:g}")
    return float(value)


HAR_FILES_KEPT = 5  # --har-max-size: the rotated files kept besides the current one
# The proxy's own options (`wallet-conformance proxy`, wallet_conformance/proxy/command.py), with PROXY_SHARED.
PROXY_OPTIONS: tuple[Option, ...] = (
    Option(
        "--upstream",
        "the target's base URL, ending in /v1: every request is forwarded there",
        env="WALLET_API_UPSTREAM",
        check=base_url,
        metavar="URL",
        group="proxy",
        setting="base_url",
    ),
    Option(
        "--listen",
        "where the proxy listens (default {default}); clients use http://HOST:PORT/v1 as their base URL",
        default="127.0.0.1:8080",
        check=host_and_port,
        metavar="HOST:PORT",
        group="proxy",
    ),
    Option(
        "--listen-anywhere",
        "allow a --listen address that is not loopback (the proxy forwards whatever reaches "
        "it to the target, with the caller's key)",
        action="store_true",
        group="proxy",
    ),
    Option(
        "--report-every",
        "write the reports every SECONDS while running, not only when stopped (SIGINT, SIGTERM)",
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="proxy",
    ),
    Option(
        "--tally-every",
        "print a tally of what was judged every SECONDS (default {default:g})",
        default=5.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="proxy",
    ),
    Option(
        "--annotate",
        "add a response header, x-conformance-broken, listing the requirements each answer broke: "
        "changes the traffic, and judges each exchange before its answer is sent",
        action="store_true",
        group="proxy",
    ),
    Option(
        "--har-max-size",
        "with --record-har: rotate the file when it passes this many megabytes (default "
        f"{{default:g}}; the last {HAR_FILES_KEPT} files are kept besides the current one)",
        default=100.0,
        convert=float,
        check=positive_megabytes,
        metavar="MB",
        group="proxy",
    ),
    Option(
        "--max-records",
        "the registry of records' bound per table: past it, the records learnt longest ago are "
        "forgotten, and counted in the report (default {default}: about 100 MB once full)",
        default=50_000,
        convert=int,
        check=positive_count,
        metavar="N",
        group="proxy",
    ),
    Option(
        "--client-timeout",
        "seconds a client has for a request's head (from its connection or its last answer: "
        "idle keep-alive connections too) and for its body; past them 408, and the connection closes (default "
        "{default:g})",
        default=30.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="proxy",
    ),
    Option(
        "--max-header-size",
        "bytes a request's head may take, however they arrive; more is answered 431 (default {default})",
        default=32_768,
        convert=int,
        check=positive_count,
        metavar="BYTES",
        group="proxy",
    ),
    Option(
        "--max-connections",
        "client connections open at once; one more is answered 503 and closed, so "
        "descriptors never run out (default {default})",
        default=512,
        convert=int,
        check=positive_count,
        metavar="N",
        group="proxy",
    ),
)
# The replay's own options (`wallet-conformance replay`, reporting/replayed.py), with the target's.
REPLAY_OPTIONS: tuple[Option, ...] = (
    Option(
        "--test",
        "the test whose failure is replayed: its node id as the report writes it, or the start of one",
        metavar="NODEID",
        group="run",
    ),
)
BY_ANY_FLAG = {option.flag: option for option in (*OPTIONS, *PROXY_OPTIONS, *REPLAY_OPTIONS)}


@dataclass(frozen=True)
class Subcommand:
    """A subcommand of the installed command (`wallet-conformance NAME ...`): what it does, what it takes, and the
    function that runs it, named as "module:function" (imported only when it is asked for; called with the words
    after the subcommand's name, it returns the exit status)."""

    name: str
    summary: str  # what it does, in a line of the command's help
    runner: str
    flags: tuple[str, ...] | None = None  # its options, in the order its help lists them; None: every one of OPTIONS
    positional: str | None = None  # the words that are not options (FILE, REPORT), as its usage names them
    dest: str | None = None  # the value those words give (by dest)
    usage: str = "[options]"  # after its name and its positional words
    details: str = ""  # what its own help says besides the summary

    @property
    def options(self) -> tuple[Option, ...]:
        """Its options, as its command line declares them."""
        return OPTIONS if self.flags is None else tuple(BY_ANY_FLAG[flag] for flag in self.flags)

    @property
    def values_of(self) -> tuple[Option, ...]:
        """The options whose values it reads: its own, and the one its positional words give (har: --har's)."""
        given = [option for option in OPTIONS if self.flags is not None and option.dest == self.dest]
        return (*self.options, *given)

    @property
    def usage_line(self) -> str:
        words = [PROGRAM, self.name, f"{self.positional}..." if self.positional else "", self.usage]
        return " ".join(word for word in words if word)


# The subcommands, in the order the command's help lists them: `wallet-conformance NAME` runs NAME's runner; the bare
# command, and one starting with an option or a test path, is `run`. One more subcommand is one more entry here.
SUBCOMMANDS = {
    subcommand.name: subcommand
    for subcommand in (
        Subcommand(
            RUN,
            "run the suite (as the bare command, and ./conformance, do)",
            "wallet_conformance.cli:run_suite",
            usage="[options] [test paths]",
        ),
        Subcommand(
            "har",
            "judge recorded traffic, sending nothing (as --har FILE does)",
            "wallet_conformance.cli:judge_har",
            (
                "--base-url",
                "--secret-key",
                "--second-secret-key",
                "--environment",
                "--requirement",
                "--keep-personal-data",
                "--report-dir",
                "--waivers",
                "--baseline",
                "--require-complete",
            ),
            positional="FILE",
            dest=BY_FLAG["--har"].dest,
            details="A FILE that is a folder stands for every *.har in it. docs/har.md says more.",
        ),
        Subcommand(
            "proxy",
            "a validating proxy in front of the target (docs/proxy.md)",
            "wallet_conformance.proxy.command:main",
            (*(option.flag for option in PROXY_OPTIONS), *PROXY_SHARED),
            usage="--upstream URL [options]",
            details="Clients use http://HOST:PORT/v1 as their base URL; every exchange is forwarded unchanged and "
            "judged on the side. Stop it with Ctrl-C (SIGINT) or SIGTERM: the reports are written then.",
        ),
        Subcommand(
            "replay",
            "replay a failure from a report; say whether it shows again",
            "wallet_conformance.cli:replay",
            (
                "--test",
                "--requirement",
                "--base-url",
                "--secret-key",
                "--second-secret-key",
                "--funding-url",
                "--test-timeout",
            ),
            positional="REPORT",
            dest="reports",
            details="REPORT is a conformance.json, conformance.md, conformance.html or junit.xml; the replay is "
            "the script the report shows for the failing test, run with bash (curl and python3 needed) "
            "against --base-url, or, without one, a bundled reference with the faults and variants the "
            "report's run had. Exit 1: the failure shows again; 0: it does not; 11: the answers cannot "
            "tell (only a list's status could be compared). docs/reports.md says more.",
        ),
        Subcommand(
            "merge",
            "one report of several conformance.json (proxies, --har runs)",
            "wallet_conformance.cli:merged",
            ("--report-dir", "--waivers", "--baseline", "--require-complete"),
            positional="REPORT",
            dest="reports",
            details="Each REPORT a conformance.json of this catalogue, each given once; every requirement is "
            'judged again on what they all judged (docs/proxy.md, "Several proxies, one verdict").',
        ),
    )
}


def argument(option: Option) -> dict[str, Any]:
    """How a command line declares the option (argparse's keywords; pytest's parser takes the same)."""
    keywords: dict[str, Any] = {"dest": option.dest, "default": None, "help": option.help_text}
    if option.action:
        keywords["action"] = option.action
    if option.convert and not option.action:
        keywords["type"] = option.convert
    if option.metavar:
        keywords["metavar"] = option.metavar
    if option.choices:  # checked by the option's own `check`, as every value is: one message, one place
        keywords["metavar"] = "{" + ",".join(option.choices) + "}"
    return keywords


def value_of(option: Option, given: Any, environ: Mapping[str, str]) -> Any:
    """An option's value: the command line's, else its environment variable's, else its default."""
    value = option.from_environment(environ) if given in (None, []) else given
    return option.default if value in (None, []) else value


def default(flag: str) -> Any:
    """An option's default, as declared."""
    return BY_FLAG[flag].default


@dataclass(frozen=True)
class Settings:
    """The validated configuration of a run. The secret key is held here and nowhere in output."""

    base_url: str | None = None
    secret_key: str | None = field(default=None, repr=False)
    second_secret_key: str | None = field(default=None, repr=False)
    environment: str = default("--environment")
    funding_url: str | None = None
    funded_wallet: str | None = None
    bank_account: tuple[str, str | None] = (DEFAULT_BANK_ACCOUNT, None)
    settle_timeout: float = default("--settle-timeout")
    quiet_window: float = None  # type: ignore[assignment]  # None: derived from the target (quiet_window below)
    request_timeout: float = default("--request-timeout")
    test_timeout: float = default("--test-timeout")
    run_budget: float = default("--run-budget")
    rate_limit_wait: float = default("--rate-limit-wait")
    report_dir: Path = Path(default("--report-dir"))
    work_dir: Path = Path(default("--work-dir"))  # caches, locks, ledgers and crash journals: never in the reports
    waivers: Path | None = None
    baseline: Path | None = None
    require_complete: bool = False
    seed: int = 0
    generation_seed: int = 0  # the seed of the generated tests: --hypothesis-seed when given, else `seed`
    profile: str = default("--profile")
    strict: bool = False
    requirements: tuple[str, ...] = ()  # --requirement, as the catalogue writes the ids
    parts: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()
    allow_writes: bool = False
    allow_money_movement: bool = False
    max_amount: int | None = None  # None: the default budget of the environment (world/safety.py)
    ca_bundle: str | None = None
    webhook_listen: tuple[str, int] | None = None
    webhook_public_url: str | None = None
    cleanup: bool = False
    keep_failing_records: bool = False
    har_given: tuple[str, ...] = ()  # --har as given (files and folders); none: an active run
    har: tuple[Path, ...] = ()  # the recorded files to judge (folders expanded)
    keep_personal_data: bool = False  # --har and the proxy: personal fields kept in outputs, not masked
    mask_personal_data: bool = False  # a run against a target: personal fields masked in outputs, not kept
    record_har: Path | None = None
    reference_faults: tuple[str, ...] = ()
    reference_variants: tuple[str, ...] = ()
    reference_settle_delay: float = default("--reference-settle-delay")
    reference_latency: float = default("--reference-latency")
    # pytest's own arguments that chose the tests (-k, -m, --deselect, --ignore-glob, --lf, test paths), as they
    # reproduce the choice (plugin/options.py)
    pytest_selection: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """An option left out whose default follows from the others (`Option.derived`) takes that default."""
        for option in OPTIONS:
            if option.derived is not None and getattr(self, option.attribute) is None:
                object.__setattr__(self, option.attribute, option.derived(vars(self)))

    @property
    def chosen(self) -> frozenset[str] | None:
        """The requirements --requirement, --part and --level choose (each one given narrows the choice); None when
        none is given: the whole catalogue."""
        if not (self.requirements or self.parts or self.levels):
            return None
        return frozenset(
            requirement.id
            for requirement in catalogue()
            if (not self.requirements or requirement.id in self.requirements)
            and (not self.parts or requirement.section in self.parts)
            and (not self.levels or requirement.level in self.levels)
        )

    @property
    def choice_words(self) -> tuple[str, ...]:
        """The options that chose the requirements, as a command gives them (`--part limits --level MUST`)."""
        return tuple(
            word
            for flag, values in (("--requirement", self.requirements), ("--part", self.parts), ("--level", self.levels))
            for value in values
            for word in (flag, value)
        )

    @property
    def embedded(self) -> bool:
        """No target given: the suite runs against the bundled reference server."""
        return self.base_url is None

    @property
    def on_this_machine(self) -> bool:
        """The target runs on this machine: the bundled reference, or a --base-url on a loopback address (127.0.0.0/8,
        ::1, localhost): the implementer's own server."""
        if self.base_url is None:
            return True
        host = urlsplit(self.base_url).hostname or ""
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    @property
    def passive(self) -> bool:
        """Recorded traffic is judged (--har): nothing is sent."""
        return bool(self.har_given)

    @property
    def writes_allowed(self) -> bool:
        return self.environment != "production" or self.allow_writes

    @property
    def money_allowed(self) -> bool:
        return self.environment != "production" or (self.allow_writes and self.allow_money_movement)


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


def reproduction(settings: Settings) -> list[str]:
    """The whole command that reproduces the run, word by word (the program first): every option that can change a
    verdict and is not at its default (as declared in OPTIONS, by group; a value the environment gave appears as
    its flag), the seed and profile of a run that sends requests, the environment of a deployed target, keys as
    placeholders (<SECRET_KEY>), never their values; then pytest's own arguments that change a verdict: --strict,
    --hypothesis-seed, and those that chose the tests."""
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
    return words + list(settings.pytest_selection)


_PLACEHOLDER = re.compile(r"<[A-Z_]+>")


def command_line(words: Iterable[str]) -> str:
    """Words of a command as one line for a shell, each quoted where it needs it; a placeholder (<SECRET_KEY>) is left
    as it is, for its reader to replace."""
    return " ".join(word if _PLACEHOLDER.fullmatch(word) else shlex.quote(word) for word in words)


def har_in(folder: Path) -> list[Path]:
    """The HAR files of a folder given to --har: its files named *.har, the extension in any letter case (x.HAR),
    sorted."""
    return sorted(path for path in folder.iterdir() if path.suffix.lower() == HAR_SUFFIX and path.is_file())


def har_files(given: Iterable[str]) -> tuple[Path, ...]:
    """--har's files: each file given, and every HAR file of each folder given (`har_in`; a folder without one gives
    none: nothing is judged)."""
    found: list[Path] = []
    for name in given:
        path = Path(name)
        found.extend(har_in(path) if path.is_dir() else [path])
    return tuple(dict.fromkeys(found))


def folders_without_har(given: Iterable[str]) -> list[str]:
    """The folders given to --har that hold no HAR file, as given."""
    return [name for name in given if Path(name).is_dir() and not har_in(Path(name))]


def _across(held: Mapping[str, Any], command: str) -> None:
    """The checks that span several options (each option's own value is checked by its `check`); a ConfigError
    naming the options. Those of a target and its keys hold where `command` takes --base-url (the proxy forwards
    its clients' keys: it needs none)."""
    taken = {option.flag for option in SUBCOMMANDS[command].values_of}
    given = {option.flag: held.get(option.attribute) if option.flag in taken else None for option in OPTIONS}
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
    folder = BY_FLAG["--report-dir"].held(given)
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
    settings_fields = {each.name for each in fields(Settings)}
    held = {
        BY_ANY_FLAG[flag].attribute: value
        for flag, value in held_values(values, command).items()
        if BY_ANY_FLAG[flag].attribute in settings_fields
    }
    _across(held, command)
    seed = held.get("seed")
    if seed is None:  # a run's drawn at random; a subcommand that takes no --seed sends nothing of its own: 0
        seed = secrets.randbelow(2**32) if command == RUN else 0
    har = har_files(held.get("har_given", ()))
    held["report_dir"] = report_folder(values, command)
    return Settings(**(held | {"seed": seed, "generation_seed": seed, "strict": strict, "har": har}))


def quiet_window(base_url: str | None, reference_settle_delay: float, reference_variants: Iterable[str]) -> float:
    """--quiet-window when it is not given: against the bundled reference without variants, whose balances all move
    at its settle delay, that delay and a margin for a late settlement; else QUIET_WINDOW (a deployed target, and the
    variants, some of which post a settled transfer's balances later)."""
    if base_url is not None:
        return QUIET_WINDOW
    after_settlement = round(reference_settle_delay + REFERENCE_QUIET_MARGIN, 3)
    return max(QUIET_WINDOW, after_settlement) if tuple(reference_variants) else after_settlement
