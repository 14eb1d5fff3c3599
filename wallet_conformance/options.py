"""The suite's command-line options (one group, each with an environment-variable fallback) and the
validated configuration they make."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

GROUP = "wallet-conformance"
VERSION_SEGMENT = "/v1"

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
]

DEFAULTS: dict[str, Any] = {
    "environment": "staging",
    "settle_timeout": 30.0,
    "request_timeout": 10.0,
    "report_dir": "reports",
    "max_amount": 5_000_000,
    "reference_settle_delay": 0.2,
}


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
            value = kind(raw) if kind else raw
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


def settings(config: pytest.Config) -> Settings:
    """Read and check the options; bad configuration is a UsageError with one clear message."""
    base_url = option(config, "--base-url")
    secret_key = option(config, "--secret-key")
    if base_url:
        base_url = base_url.rstrip("/")
        if not base_url.startswith(("http://", "https://")):
            raise pytest.UsageError(f"--base-url must be an http(s) URL, got {base_url!r}")
        if not base_url.endswith(VERSION_SEGMENT):
            raise pytest.UsageError(f"--base-url must end with the version segment {VERSION_SEGMENT} "
                                    f"(the document's base address), got {base_url!r}")
        if not secret_key:
            raise pytest.UsageError("--base-url is given but no --secret-key (or WALLET_API_SECRET_KEY): "
                                    "the target needs the account's secret key")
    if option(config, "--reference-fault") and base_url:
        raise pytest.UsageError("--reference-fault applies to the bundled reference only; drop --base-url")
    variants = option(config, "--reference-variant") or ()
    if isinstance(variants, str):  # from the environment: comma-separated
        variants = [name.strip() for name in variants.split(",") if name.strip()]
    if variants and base_url:
        raise pytest.UsageError("--reference-variant applies to the bundled reference only; drop --base-url")
    from wallet_conformance.reference.variants import ALL, VARIANTS  # a small module: names only

    unknown = sorted(set(variants) - {ALL, *VARIANTS})
    if unknown:
        raise pytest.UsageError(f"unknown --reference-variant {', '.join(unknown)}; see "
                                "python -m wallet_conformance.reference --list-variants")
    environment = option(config, "--environment")
    if environment not in ("staging", "production"):
        raise pytest.UsageError(f"--environment must be staging or production, got {environment!r}")
    bank_account = option(config, "--bank-account") or "0123456789"
    number, _, code = bank_account.partition(":")
    seed = option(config, "--seed")
    return Settings(
        base_url=base_url or None,
        secret_key=secret_key or None,
        environment=environment,
        funding_url=option(config, "--funding-url"),
        funded_wallet=option(config, "--funded-wallet"),
        bank_account=(number, code or None),
        settle_timeout=float(option(config, "--settle-timeout")),
        request_timeout=float(option(config, "--request-timeout")),
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
    )
