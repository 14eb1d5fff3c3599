"""The suite's command-line options (one group, each with an environment-variable fallback) and the
validated configuration they make."""

from __future__ import annotations

import os
import secrets
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from wallet_conformance.spec import contract

GROUP = "wallet-conformance"

# (flags, environment variable, pytest addoption keywords)
OPTIONS: list[tuple[str, str | None, dict[str, Any]]] = [
    ("--base-url", "WALLET_API_BASE_URL",
     {"metavar": "URL", "help": "base URL of the implementation, ending in /v1 (default: start the bundled "
                                "reference server)"}),
    ("--secret-key", "WALLET_API_SECRET_KEY",
     {"metavar": "KEY", "help": "the account's secret key, sent as x-service-key (never printed)"}),
    ("--environment", "WALLET_API_ENVIRONMENT",
     {"choices": ["staging", "production"], "help": "staging (default) or production: production runs read-only "
                                                     "tests unless --allow-writes"}),
    ("--funding-url", "WALLET_API_FUNDING_URL",
     {"metavar": "URL", "help": "a POST /sandbox/fund hook that credits a wallet ({walletId, amount})"}),
    ("--funded-wallet", "WALLET_API_FUNDED_WALLET",
     {"metavar": "PUBLIC_ID", "help": "an existing funded wallet to draw test money from"}),
    ("--bank-account", "WALLET_API_BANK_ACCOUNT",
     {"metavar": "NUMBER:BANKCODE", "help": "an external account the target resolves, for validate-account and "
                                           "bank transfers (default: 0123456789 at the first listed bank)"}),
    ("--settle-timeout", "WALLET_API_SETTLE_TIMEOUT",
     {"type": float, "metavar": "SECONDS", "help": "how long to wait for a pending transfer to settle (default 30)"}),
    ("--quiet-window", "WALLET_API_QUIET_WINDOW",
     {"type": float, "metavar": "SECONDS", "help": "how long balances are watched after a refused transfer, for a "
                                                   "movement that must not come (default 0.4)"}),
    ("--request-timeout", "WALLET_API_REQUEST_TIMEOUT",
     {"type": float, "metavar": "SECONDS", "help": "timeout of one HTTP request (default 10)"}),
    ("--report-dir", "WALLET_API_REPORT_DIR",
     {"metavar": "DIR", "help": "where the reports are written: conformance.json, .md, .html, junit.xml, "
                                "allure-results/ (default reports/)"}),
    ("--waivers", "WALLET_API_WAIVERS",
     {"metavar": "FILE", "help": "YAML list of waived requirements (id, reason, owner, expires): their failures "
                                 "do not fail the run until the expiry date has passed"}),
    ("--baseline", "WALLET_API_BASELINE",
     {"metavar": "FILE", "help": "an earlier conformance.json of the same catalogue: only failures it did not "
                                 "have fail the run"}),
    ("--require-complete", None,
     {"action": "store_true", "help": "fail the run (exit 7) when a MUST requirement was not tested (skipped, "
                                      "blocked, untested); --strict implies it"}),
    ("--seed", "WALLET_API_SEED", {"type": int, "metavar": "N", "help": "seed of the run (default: random)"}),
    ("--profile", "WALLET_API_PROFILE",
     {"choices": ["quick", "thorough"], "help": "budget of the generated tests: quick (default) or thorough"}),
    ("--allow-writes", None, {"action": "store_true", "help": "allow creating and changing records in production"}),
    ("--allow-money-movement", None,
     {"action": "store_true", "help": "allow transfers in production (also needs --allow-writes)"}),
    ("--max-amount", "WALLET_API_MAX_AMOUNT",
     {"type": int, "metavar": "KOBO", "help": "most money the run may move, in kobo (default 5000000)"}),
    ("--webhook-listen", None,
     {"metavar": "HOST:PORT", "help": "listen for webhook deliveries there during the run (INFO)"}),
    ("--webhook-public-url", None,
     {"metavar": "URL", "help": "the URL the target should deliver to, when it differs from the listener's"}),
    ("--requirement", None,
     {"action": "append", "metavar": "ID", "help": "run only the tests of this requirement (repeatable)"}),
    ("--reference-fault", None,
     {"action": "append", "metavar": "NAME", "help": "start the bundled reference with this fault (self-tests)"}),
    ("--reference-variant", "WALLET_API_REFERENCE_VARIANTS",
     {"action": "append", "metavar": "NAME", "help": "start the bundled reference with this variant, another "
                                                     "legitimate reading of an open point (repeatable; all: every "
                                                     "variant; env: comma-separated) (self-tests)"}),
    ("--reference-settle-delay", None,
     {"type": float, "metavar": "SECONDS", "help": "settle delay of the bundled reference (default 0.2)"}),
    ("--reference-latency", "WALLET_API_REFERENCE_LATENCY",
     {"type": float, "metavar": "SECONDS", "help": "the bundled reference sleeps this long before each answer, "
                                                  "like a remote target (default 0)"}),
    ("--ca-bundle", "WALLET_API_CA_BUNDLE",
     {"metavar": "FILE", "help": "PEM file of the CA(s) to trust for an https target (default: the system's, "
                                 "or SSL_CERT_FILE); certificates are always verified"}),
    ("--test-timeout", "WALLET_API_TEST_TIMEOUT",
     {"type": float, "metavar": "SECONDS", "help": "most time one test may spend on the target (default 120)"}),
    ("--run-budget", "WALLET_API_RUN_BUDGET",
     {"type": float, "metavar": "SECONDS", "help": "most time the whole run may take; then it stops with what it "
                                                   "has (default 1200)"}),
    ("--rate-limit-wait", "WALLET_API_RATE_LIMIT_WAIT",
     {"type": float, "metavar": "SECONDS", "help": "most time the run may spend waiting out 429 answers "
                                                   "(default 60)"}),
    ("--cleanup", None,
     {"action": "store_true", "help": "run no test: close what earlier runs left on the target (wallets named "
                                      "with the suite's run-id prefix), restore webhooks they changed, and report"}),
]

DEFAULTS: dict[str, Any] = {
    "environment": "staging",
    "settle_timeout": 30.0,
    "quiet_window": 0.4,
    "request_timeout": 10.0,
    "report_dir": "reports",
    "max_amount": 5_000_000,
    "reference_settle_delay": 0.2,
    "profile": "quick",
    "reference_latency": 0.0,
    "test_timeout": 120.0,
    "run_budget": 1200.0,
    "rate_limit_wait": 60.0,
}
MIN_KEY_LENGTH = 4  # shorter keys cannot be kept out of the output reliably (redaction.py)


def dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, "Wallet Service API conformance")
    for flag, env, keywords in OPTIONS:
        help_text = keywords.get("help", "")
        if env:
            help_text += f" [env {env}]"
        try:
            group.addoption(flag, dest=dest(flag), default=None, **{**keywords, "help": help_text})
        except ValueError:
            # pytest-base-url (or another plugin) already defines --base-url with the same dest: reuse it.
            if flag != "--base-url":
                raise


def option(config: pytest.Config, flag: str) -> Any:
    """An option's value: the command line first, then its environment variable, then its default."""
    name = dest(flag)
    value = config.getoption(name, default=None)
    if value in (None, []):
        env = next((env for f, env, _ in OPTIONS if f == flag), None)
        raw = os.environ.get(env) if env else None
        if raw not in (None, ""):
            kind = next(k.get("type") for f, _, k in OPTIONS if f == flag)
            try:
                value = kind(raw) if kind else raw
            except ValueError:
                raise pytest.UsageError(f"{env} (for {flag}) must be a {kind.__name__}, got {raw!r}") from None
    if value in (None, []):
        value = DEFAULTS.get(name, value)
    return value


@dataclass(frozen=True)
class Settings:
    """The validated configuration of a run. The secret key is held here and nowhere in output."""

    base_url: str | None
    secret_key: str | None = field(repr=False)
    environment: str
    funding_url: str | None
    funded_wallet: str | None
    bank_account: tuple[str, str | None]
    settle_timeout: float
    request_timeout: float
    report_dir: Path
    seed: int
    strict: bool
    allow_writes: bool
    allow_money_movement: bool
    max_amount: int
    webhook_listen: str | None
    webhook_public_url: str | None
    requirements: tuple[str, ...]
    reference_faults: tuple[str, ...]
    reference_variants: tuple[str, ...]
    reference_settle_delay: float
    reference_latency: float = 0.0
    ca_bundle: str | None = None
    test_timeout: float = 120.0
    run_budget: float = 1200.0
    rate_limit_wait: float = 60.0
    cleanup: bool = False
    quiet_window: float = 0.4

    @property
    def embedded(self) -> bool:
        """No target given: the suite runs against the bundled reference server."""
        return self.base_url is None

    @property
    def writes_allowed(self) -> bool:
        return self.environment != "production" or self.allow_writes

    @property
    def money_allowed(self) -> bool:
        return self.environment != "production" or (self.allow_writes and self.allow_money_movement)


def _http_url(flag: str, value: str) -> str:
    """`value` if it is an absolute http(s) URL with a host; else a UsageError naming `flag`."""
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise pytest.UsageError(f"{flag} must be an http(s) URL (absolute, with a host), got {value!r}")
    return value


def _positive(config: pytest.Config, flag: str) -> float:
    value = float(option(config, flag))
    if not value > 0:
        raise pytest.UsageError(f"{flag} must be a number of seconds above 0, got {value:g}")
    return value


def settings(config: pytest.Config) -> Settings:
    """Read and check the options; bad configuration is a UsageError with one clear message naming the option."""
    base_url = option(config, "--base-url")
    secret_key = option(config, "--secret-key")
    if secret_key is not None and len(secret_key) < MIN_KEY_LENGTH:
        raise pytest.UsageError(f"--secret-key (or WALLET_API_SECRET_KEY) is {len(secret_key)} characters long: "
                                f"a secret key has at least {MIN_KEY_LENGTH} (is it the whole key?)")
    if base_url:
        base_url = _http_url("--base-url", base_url.rstrip("/"))
        if not base_url.endswith(contract.version_segment()):
            raise pytest.UsageError(f"--base-url must end with the version segment {contract.version_segment()} "
                                    f"(the document's base address), got {base_url!r}")
        if not secret_key:
            raise pytest.UsageError("--base-url is given but no --secret-key (or WALLET_API_SECRET_KEY): "
                                    "the target needs the account's secret key")
    elif secret_key:
        raise pytest.UsageError("--secret-key (or WALLET_API_SECRET_KEY) is given but no --base-url (or "
                                "WALLET_API_BASE_URL): say which target the key is for (without both, the suite "
                                "runs against the bundled reference and needs no key)")
    for flag in ("--reference-fault", "--reference-latency"):
        if option(config, flag) and base_url:
            raise pytest.UsageError(f"{flag} applies to the bundled reference only; drop --base-url")
    variants = option(config, "--reference-variant") or ()
    if isinstance(variants, str):  # from the environment: comma-separated
        variants = [name.strip() for name in variants.split(",") if name.strip()]
    if variants and base_url:
        raise pytest.UsageError("--reference-variant applies to the bundled reference only; drop --base-url")
    if variants:  # the reference package imports its server (uvicorn, Starlette): only when it is asked for
        from wallet_conformance.reference.variants import ALL, VARIANTS

        unknown = sorted(set(variants) - {ALL, *VARIANTS})
        if unknown:
            raise pytest.UsageError(f"unknown --reference-variant {', '.join(unknown)}; see "
                                    "python -m wallet_conformance.reference --list-variants")
    environment = option(config, "--environment")
    if environment not in ("staging", "production"):
        raise pytest.UsageError(f"--environment must be staging or production, got {environment!r}")
    funding_url = option(config, "--funding-url")
    if funding_url:
        funding_url = _http_url("--funding-url", funding_url)
    bank_account = option(config, "--bank-account") or "0123456789"
    number, _, code = bank_account.partition(":")
    if not number.strip():
        raise pytest.UsageError(f"--bank-account must be NUMBER or NUMBER:BANKCODE, got {bank_account!r}")
    ca_bundle = option(config, "--ca-bundle")
    if ca_bundle:
        try:
            ssl.create_default_context(cafile=ca_bundle)
        except (OSError, ssl.SSLError) as error:
            raise pytest.UsageError(f"--ca-bundle {ca_bundle!r} is not a readable PEM file of CA certificates "
                                    f"({error})") from None
    cleanup = bool(option(config, "--cleanup"))
    if cleanup and not base_url:
        raise pytest.UsageError("--cleanup works on a deployed target: give --base-url and --secret-key")
    latency = float(option(config, "--reference-latency"))
    if latency < 0:
        raise pytest.UsageError(f"--reference-latency must be 0 or more seconds, got {latency:g}")
    seed = option(config, "--seed")
    return Settings(
        base_url=base_url or None,
        secret_key=secret_key or None,
        environment=environment,
        funding_url=funding_url,
        funded_wallet=option(config, "--funded-wallet"),
        bank_account=(number, code or None),
        settle_timeout=_positive(config, "--settle-timeout"),
        quiet_window=_positive(config, "--quiet-window"),
        request_timeout=_positive(config, "--request-timeout"),
        report_dir=Path(option(config, "--report-dir")),
        seed=int(seed) if seed is not None else secrets.randbelow(2**32),
        # pytest 9 owns --strict (its strict mode); the suite reads the same switch: SHOULD failures fail the run.
        strict=bool(config.getini("strict")),
        allow_writes=bool(option(config, "--allow-writes")),
        allow_money_movement=bool(option(config, "--allow-money-movement")),
        max_amount=int(option(config, "--max-amount")),
        webhook_listen=option(config, "--webhook-listen"),
        webhook_public_url=option(config, "--webhook-public-url"),
        requirements=tuple(option(config, "--requirement") or ()),
        reference_faults=tuple(option(config, "--reference-fault") or ()),
        reference_variants=tuple(variants),
        reference_settle_delay=float(option(config, "--reference-settle-delay")),
        reference_latency=latency,
        ca_bundle=ca_bundle or None,
        test_timeout=_positive(config, "--test-timeout"),
        run_budget=_positive(config, "--run-budget"),
        rate_limit_wait=max(0.0, float(option(config, "--rate-limit-wait"))),
        cleanup=cleanup,
    )
