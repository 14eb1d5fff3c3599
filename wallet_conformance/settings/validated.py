"""The validated configuration the machinery receives: `Settings`, made by `read` (reading.py) from the options'
values, and what follows from them (the requirements chosen, the target, what a production run may do)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from wallet_conformance.settings.subcommands import default
from wallet_conformance.settings.suite_options import DEFAULT_BANK_ACCOUNT, OPTIONS
from wallet_conformance.spec.catalogue import catalogue


@dataclass(frozen=True)
class Settings:
    """The validated configuration of a run, or of another subcommand (the proxy's too). The secret key is held here
    and nowhere in output."""

    base_url: str | None = None
    secret_key: str | None = field(default=None, repr=False)
    second_secret_key: str | None = field(default=None, repr=False)
    environment: str = default("--environment")
    funding_url: str | None = None
    funded_wallet: str | None = None
    bank_account: tuple[str, str | None] = (DEFAULT_BANK_ACCOUNT, None)
    settle_timeout: float = default("--settle-timeout")
    quiet_window: float = None  # type: ignore[assignment]  # None: derived from the target (suite_options.quiet_window)
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
    # pytest's own arguments that stop a run at a failure (-x, --maxfail): no selection, but the run reproduced
    # stops where it stopped (plugin/options.py)
    pytest_stops: tuple[str, ...] = ()
    # The proxy's own (proxy_options.py; --upstream is base_url): where it listens, its bounds, what it prints
    listen: tuple[str, int] | None = None  # None: no proxy
    report_every: float | None = None
    tally_every: float = default("--tally-every")
    annotate: bool = False
    har_max_size: float = default("--har-max-size")  # megabytes
    max_records: int = default("--max-records")
    client_timeout: float = default("--client-timeout")
    max_header_size: int = default("--max-header-size")
    max_connections: int = default("--max-connections")

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
