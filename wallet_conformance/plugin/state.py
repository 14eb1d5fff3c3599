"""The run's state, kept in `config.stash` (one per process: the controller and each xdist worker)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient, Bound
from wallet_conformance.client.redaction import Secrets
from wallet_conformance.client.target import Target
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reporting.judging import JudgingSession
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.settings import Settings

# What the controller hands every xdist worker (node.workerinput).
WORKER_TARGET = "wallet_conformance_target"
WORKER_SEED = "wallet_conformance_seed"
WORKER_LEDGER = "wallet_conformance_money_ledger"


@dataclass(frozen=True)
class NotRun:
    """Why the run ended before its first test (an unreachable target, recorded files that are not HAR, --cleanup's
    own report): the one message the terminal shows, and the exit status."""

    message: str
    status: int


@dataclass(frozen=True)
class Stopped:
    """Why the run stopped early, decided after a test's phase (plugin/running.py): the target stopped answering or is
    failing, or the run used up its budget; and the exit status it ends with. conformance.json's `stopped`."""

    reason: str
    status: int = int(ExitStatus.TARGET_FAILING)


@dataclass
class RunState:
    settings: Settings
    target: Target | None = None
    server: Any = None  # the bundled reference, when this process started it
    records: dict[str, TestRecord] = field(default_factory=dict)
    client: ApiClient | None = None  # the run's client, once the `api` fixture made it
    second_client: ApiClient | None = None  # the second key's client, once the `second_api` fixture made it
    report: dict[str, Any] | None = None
    written: list[Path] = field(default_factory=list)  # every report file of the run
    started: float = field(default_factory=time.monotonic)
    bound: Bound = field(default_factory=Bound)  # the current test's time bound, which the run's clients read
    stopped: Stopped | None = None  # why the run stopped early, if it did
    rate_limited: list[dict[str, Any]] = field(default_factory=list)  # the 429s met, each with its test (controller)
    not_run: NotRun | None = None  # why it ended before its first test, if it did
    exchanges: dict[str, Any] = field(default_factory=dict)  # made, judged (plugin/exchange_judging.py)
    judging: JudgingSession | None = None  # --har: the recorded exchanges judged (plugin/passive.py)
    ledger: Path | None = None  # the money an xdist run's workers spent (world/safety.Guard), made by the controller
    secrets: Secrets = field(default_factory=Secrets)  # what no output of the run may show (client/redaction.py)


STATE = pytest.StashKey[RunState]()


def state(config: pytest.Config) -> RunState:
    return config.stash[STATE]


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def money_ledger(config: pytest.Config) -> Path | None:
    """The run's shared money ledger in an xdist worker; None in a run of one process."""
    name = config.workerinput.get(WORKER_LEDGER) if is_worker(config) else None
    return Path(name) if name else None
