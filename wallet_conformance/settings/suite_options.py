"""The suite's options: every option of a run, declared once (flag, environment variable, default, help, and what
its value must be), by group; the other subcommands take some of them (subcommands.py)."""

from __future__ import annotations

from collections.abc import Iterable

from wallet_conformance.settings.checks import (
    NUBAN_DIGITS,
    absolute_url,
    bank_account,
    base_url,
    choice,
    files_or_folders,
    folder,
    har_to_write,
    host_and_port,
    http_url,
    levels,
    parts,
    path,
    pem_file,
    positive_kobo,
    positive_seconds,
    requirement_ids,
    seconds_or_zero,
    secret_key,
)
from wallet_conformance.settings.option import Option
from wallet_conformance.settings.program import NOT_A_RUN, REPORT_FOLDERS
from wallet_conformance.spec.catalogue import LEVELS, catalogue

QUIET_WINDOW = 0.4  # seconds balances are watched for a movement that must not come (--quiet-window)
REFERENCE_QUIET_MARGIN = 0.15  # beyond the bundled reference's settle delay, for a settlement a busy machine delays
DEFAULT_BANK_ACCOUNT = "0123456789"

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


def quiet_window(base_url: str | None, reference_settle_delay: float, reference_variants: Iterable[str]) -> float:
    """--quiet-window when it is not given: against the bundled reference without variants, whose balances all move
    at its settle delay, that delay and a margin for a late settlement; else QUIET_WINDOW (a deployed target, and the
    variants, some of which post a settled transfer's balances later)."""
    if base_url is not None:
        return QUIET_WINDOW
    after_settlement = round(reference_settle_delay + REFERENCE_QUIET_MARGIN, 3)
    return max(QUIET_WINDOW, after_settlement) if tuple(reference_variants) else after_settlement
