"""The run of one process (the controlling one, or an xdist worker): built once from Settings by `build`, when the
plugin is configured (plugin/options.py), and kept in `config.stash`.

`build` makes every part of the run and nothing assigns a field of it afterwards: the target (the bundled reference
started for the run, or a deployed implementation, checked by the preflight; an xdist worker takes the controller's),
the run's secrets, the exchange judge and registry of records, the --record-har part file, the money ledger an xdist
run's workers share, and, in a process that runs tests, the clients: whole, with their guard, time bound, observers
and journal given at construction. What the controlling process learns while the run goes on is kept in two small
objects, each filled in by one module: `tally` by plugin/recording.py, `stops` by plugin/early_stop.py.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.bound import Bound
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.parts import PartWriter
from wallet_conformance.client.personal import Masking
from wallet_conformance.client.redaction import Secrets, activate, redact
from wallet_conformance.client.target import Target, configured
from wallet_conformance.judge.judgement import Judgement
from wallet_conformance.judge.session import ExchangeJudge
from wallet_conformance.plugin.preflight import preflight
from wallet_conformance.reporting.endings import Stop
from wallet_conformance.reporting.from_record import Fold
from wallet_conformance.reporting.gating import Gate
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.settings import Settings
from wallet_conformance.world import bodies
from wallet_conformance.world.locks import WalletList
from wallet_conformance.world.safety import Guard, money_budget

if TYPE_CHECKING:
    from wallet_conformance.world.cleanup import Journal

RUN = pytest.StashKey["Run"]()

# What the controller hands every xdist worker (node.workerinput).
WORKER_TARGET = "wallet_conformance_target"
WORKER_LEDGER = "wallet_conformance_money_ledger"
WORKER_PARTS = "wallet_conformance_har_parts"
WORKER_SELECTION = "wallet_conformance_selection"
WORKER_MASKING = "wallet_conformance_masking"  # the salt of --mask-personal-data: one value, one mask in every process


@dataclass(frozen=True)
class NotRun:
    """Why the run ended before its first test (an unreachable target, a target that does not speak the protocol,
    --cleanup's own report): the one message the terminal shows, and the exit status; `stop`, the preflight's stop the
    reports tell (None for --cleanup, which writes none)."""

    message: str
    status: int
    stop: Stop | None = None


@dataclass
class RunResults:
    """What the controlling process keeps of the run (plugin/recording.py fills it in): the record of judgement as it
    is written, folded as it comes (one record per test, the exchange counts), and at the end the report and its
    files."""

    fold: Fold = field(default_factory=Fold)
    judgement: Judgement | None = None  # opened with the run's first line
    report: dict[str, Any] | None = None
    written: list[Path] = field(default_factory=list)


@dataclass
class Stops:
    """What the controlling process learns of an early stop (plugin/early_stop.py fills it in)."""

    stopped: Stop | None = None


@dataclass(frozen=True)
class Clients:
    """The clients of a process that runs tests, and what they share: the guard of writes and money, the hold on the
    account's wallet list, the prefix of every name the process gives a record, and, against a deployed target, the
    crash journal of what the first key's client changes (for --cleanup)."""

    first: ApiClient
    second: ApiClient | None  # None without a second key
    guard: Guard
    wallet_list: WalletList
    run_id: str
    journal: Journal | None = None  # against a deployed target

    def close(self) -> None:
        self.first.close()
        if self.second is not None:
            self.second.close()


@dataclass(frozen=True)
class Run:
    settings: Settings
    secrets: Secrets  # what no output of the run may show (client/redaction.py)
    started: float  # time.monotonic() when the run was built
    bound: Bound  # the current test's time bound, which the run's clients read (plugin/running.py moves it)
    target: Target | None = None  # None: nothing is sent (--collect-only, --help, the self-tests' own runs)
    server: Any = None  # the bundled reference, when this process started it
    not_run: NotRun | None = None  # why it ends before its first test, if it does
    exchange_judge: ExchangeJudge = field(default_factory=ExchangeJudge)  # this process's, with its registry of records
    har_parts: Path | None = None  # --record-har: the folder of the processes' part files
    recorder: PartWriter | None = None  # --record-har: this process's part file, when it runs tests
    ledger: Path | None = None  # the money an xdist run's workers spent (world/safety.Guard)
    selection_file: Path | None = None  # where an xdist run's workers write the requirements their tests declare
    clients: Clients | None = None  # in a process that runs tests against a target
    tally: RunResults = field(default_factory=RunResults)
    stops: Stops = field(default_factory=Stops)
    gate: Gate = field(default_factory=Gate)  # the waivers and baseline, read and checked before anything started
    kept: set[str] = field(default_factory=set)  # --keep-failing-records: wallets the end-of-run sweep leaves open

    def close(self) -> None:
        """The run ended: its clients and its part file closed, the reference it started stopped."""
        if self.clients is not None:
            self.clients.close()
        if self.recorder is not None:
            self.recorder.close()
        if self.server is not None:
            self.server.stop()


def state(config: pytest.Config) -> Run:
    return config.stash[RUN]


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def starts_workers(config: pytest.Config) -> bool:
    """Whether this (controlling) process hands its tests to xdist workers."""
    return config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))


def build(config: pytest.Config, settings: Settings, sends_requests: bool, gate: Gate | None = None) -> Run:
    """The run of this process, from its settings and gate; `sends_requests` when it will run tests against a target
    (not --help, --collect-only, nor a run of other tests)."""
    # xdist sets workerinput on a worker's config; pytest's Config does not declare it.
    worker = config.workerinput if is_worker(config) else None  # type: ignore[attr-defined]
    if worker is not None:
        masking = Masking(bytes.fromhex(worker[WORKER_MASKING])) if worker.get(WORKER_MASKING) else None
    else:
        masking = Masking() if settings.mask_personal_data else None
    secrets = Secrets(masking)
    activate(secrets)  # until the run is closed (plugin/session.py)
    secrets.add_given(settings)
    target, server, not_run = None, None, None
    if worker is not None:
        target = Target(**worker[WORKER_TARGET]) if worker.get(WORKER_TARGET) else None
    elif sends_requests:
        target, server, not_run = _resolve(settings, own_process=starts_workers(config))
    if target is not None:
        secrets.add_key(target.secret_key)
        secrets.add_key(target.second_secret_key)
    if not_run is not None:
        config.option.dist, config.option.tx = "no", []  # a run that cannot start starts no worker
    ledger = _ledger(config, settings) if target is not None and not_run is None else None
    selection_file = _selection_file(config, settings) if target is not None and not_run is None else None
    parts = _har_parts(config, settings)
    runs_tests = target is not None and not_run is None and (worker is not None or not starts_workers(config))
    exchange_judge = ExchangeJudge()
    recorder = None
    if runs_tests and parts is not None:
        recorder = PartWriter(parts / f"{worker.get('workerid', 'worker') if worker else 'main'}.part")
    bound = Bound()
    clients = _clients(settings, target, bound, ledger, exchange_judge, recorder) if runs_tests and target else None
    return Run(
        settings=settings,
        secrets=secrets,
        started=time.monotonic(),
        bound=bound,
        target=target,
        server=server,
        not_run=not_run,
        exchange_judge=exchange_judge,
        har_parts=parts,
        recorder=recorder,
        ledger=ledger,
        clients=clients,
        gate=gate or Gate(),
        selection_file=selection_file,
    )


def _resolve(settings: Settings, own_process: bool) -> tuple[Target, Any, NotRun | None]:
    """The controller's target (the bundled reference started, in a process of its own when `own_process`, or the
    deployed one), and why the run does not start when the preflight stops it or --cleanup is its whole work."""
    server = None
    if settings.embedded:
        target, server = _start_reference(settings, own_process)
    else:
        target = configured(settings)
    stop = preflight(target, settings.request_timeout, settings.ca_bundle)
    if stop is not None:
        message = redact(f"cleanup not done: {stop.reason}" if settings.cleanup else stop.reason)
        status = int(stop.status or 0)
        stop_in_reports = None if settings.cleanup else Stop(Outcome.STOPPED_AT_PREFLIGHT, message, status)
        return target, server, NotRun(message, status, stop_in_reports)
    if settings.cleanup:
        from wallet_conformance.world.cleanup import clean_up  # imported late: only --cleanup runs need it

        message, status = clean_up(target, settings)
        return target, server, NotRun(redact(message), status)
    return target, server, None


def _start_reference(settings: Settings, own_process: bool = False) -> tuple[Target, Any]:
    """Start the bundled reference server on a free loopback port; returns the target and the server. Served to
    xdist's workers it runs in a process of its own, so that its CPU and the controller's do not share one
    interpreter; in a run of one process it serves from a thread of it, where self-tests can patch it."""
    # Imported late: only runs that need it pay for it.
    from wallet_conformance.reference import ReferenceServer
    from wallet_conformance.reference.process import ReferenceProcess

    kind = ReferenceProcess if own_process else ReferenceServer
    server = kind(
        faults=settings.reference_faults,
        settle_delay=settings.reference_settle_delay,
        variants=settings.reference_variants,
        latency=settings.reference_latency,
    )
    server.start()
    # The reference seeds a second business with its own key (ReferenceServer.second_secret_key) where it has one.
    target = Target(
        base_url=server.base_url,
        secret_key=server.secret_key,
        funding_url=server.funding_url,
        embedded=True,
        second_secret_key=getattr(server, "second_secret_key", None),
        due_url=server.due_url,
    )
    return target, server


def _ledger(config: pytest.Config, settings: Settings) -> Path | None:
    """The file in which an xdist run's workers add up the money they spend: made by the controller when it starts
    workers, handed to each; None in a run of one process."""
    if is_worker(config):
        name = config.workerinput.get(WORKER_LEDGER)  # type: ignore[attr-defined]  # xdist sets it on a worker
        return Path(name) if name else None
    if not starts_workers(config):
        return None
    settings.work_dir.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix="money-spent-", dir=settings.work_dir)
    os.close(handle)
    return Path(name)


def _selection_file(config: pytest.Config, settings: Settings) -> Path | None:
    """Where an xdist run's workers write the requirements their tests declare: named by the controller when it starts
    workers, handed to each; None in a run of one process (its controller collects the tests itself)."""
    if is_worker(config):
        name = config.workerinput.get(WORKER_SELECTION)  # type: ignore[attr-defined]  # xdist sets it on a worker
        return Path(name) if name else None
    if not starts_workers(config):
        return None
    settings.work_dir.mkdir(parents=True, exist_ok=True)
    return settings.work_dir / f"selection-{os.getpid()}-{time.monotonic_ns()}.json"


def _har_parts(config: pytest.Config, settings: Settings) -> Path | None:
    """--record-har: the folder where each process appends its exchanges (plugin/har_recording.py joins them); the
    controller clears what an earlier run that did not end left there."""
    if is_worker(config):
        folder = config.workerinput.get(WORKER_PARTS)  # type: ignore[attr-defined]  # xdist sets it on a worker
        return Path(folder) if folder else None
    if settings.record_har is None:
        return None
    folder = settings.record_har.with_name(settings.record_har.name + ".parts")
    shutil.rmtree(folder, ignore_errors=True)
    return folder


def _clients(
    settings: Settings,
    target: Target,
    bound: Bound,
    ledger: Path | None,
    exchange_judge: ExchangeJudge,
    recorder: PartWriter | None,
) -> Clients:
    """The clients, built whole: each sends its key, is bounded by the current test's time, refuses what production
    does not allow, hands every exchange to the exchange judge (and --record-har), and waits while another worker
    reads the wallet list; the first key's, against a deployed target, journals what it changes for --cleanup. The
    second key's exchanges join the first's log, so the judge sees them and a test's evidence shows both keys'
    requests in order; it journals nothing (the second key's records are closed by its own sweep)."""
    guard = Guard(settings, budget=money_budget(settings, target.funding_url), ledger=ledger)
    wallet_list = WalletList(settings.work_dir)
    run_id = bodies.run_id(settings.seed)
    journal = None
    if not target.embedded:
        from wallet_conformance.world.cleanup import Journal  # only runs against a deployed target journal

        journal = Journal(settings.work_dir, target.base_url, run_id)
    observer = exchange_judge.take if recorder is None else _both(exchange_judge.take, recorder.add)
    first = ApiClient(
        target.base_url,
        target.secret_key,
        timeout=settings.request_timeout,
        guard=guard,
        ca_bundle=settings.ca_bundle,
        rate_limit_wait=settings.rate_limit_wait,
        bound=bound,
        observer=observer,
        journal=journal,
        sending=wallet_list.sending,
    )
    second = None
    if target.second_secret_key:
        second = ApiClient(
            target.base_url,
            target.second_secret_key,
            timeout=settings.request_timeout,
            guard=guard,
            ca_bundle=settings.ca_bundle,
            rate_limit_wait=settings.rate_limit_wait,
            bound=bound,
            shares_log_of=first,
        )
    return Clients(first=first, second=second, guard=guard, wallet_list=wallet_list, run_id=run_id, journal=journal)


def _both(first: Callable[[Exchange], object], second: Callable[[Exchange], object]) -> Callable[[Exchange], None]:
    def observe(exchange: Exchange) -> None:
        first(exchange)
        second(exchange)

    return observe
