"""The run's target, resolved once on the controlling process: the bundled reference started for the run, or a
deployed implementation; either checked by the preflight (preflight.py) before any test or --cleanup; xdist workers
get the same one."""

from __future__ import annotations

import atexit
import gc
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.redaction import deactivate, redact, register_key
from wallet_conformance.client.target import Target, configured
from wallet_conformance.generation import profiles
from wallet_conformance.plugin.collection import runs_conformance
from wallet_conformance.plugin.preflight import preflight
from wallet_conformance.plugin.state import STATE as STATE_KEY
from wallet_conformance.plugin.state import WORKER_LEDGER, WORKER_SEED, WORKER_TARGET, NotRun, is_worker, state
from wallet_conformance.reporting import terminal
from wallet_conformance.settings import Settings


def pytest_configure(config: pytest.Config) -> None:
    """The controller resolves the target before xdist starts its workers: a run that cannot start starts none."""
    profiles.register_hypothesis_profiles()
    if is_worker(config) or not _sends_requests(config):
        return
    run = state(config)
    settings = run.settings
    if settings.embedded:
        run.target, run.server = _start_reference(settings)
    else:
        run.target = configured(settings)
    register_key(run.target.secret_key)
    register_key(run.target.second_secret_key)
    stop = preflight(run.target, settings.request_timeout, settings.ca_bundle)
    if stop is not None:
        run.not_run = NotRun(redact(f"cleanup not done: {stop.message}" if settings.cleanup else stop.message),
                             stop.status)
    elif settings.cleanup:
        from wallet_conformance.world.cleanup import clean_up  # imported late: only --cleanup runs need it

        message, status = clean_up(run.target, settings)
        run.not_run = NotRun(redact(message), status)
    else:
        run.not_run = None
    if run.not_run is not None:
        config.option.dist, config.option.tx = "no", []


def _start_reference(settings: Settings) -> tuple[Target, Any]:
    """Start the bundled reference server on a free loopback port; returns the target and the server."""
    from wallet_conformance.reference import (
        ReferenceServer,  # imported late: only runs that need it pay for it
    )

    server = ReferenceServer(faults=settings.reference_faults, settle_delay=settings.reference_settle_delay,
                             variants=settings.reference_variants, latency=settings.reference_latency)
    server.start()
    # The reference seeds a second business with its own key (ReferenceServer.second_secret_key) where it has one.
    target = Target(base_url=server.base_url, secret_key=server.secret_key, funding_url=server.funding_url,
                    embedded=True, second_secret_key=getattr(server, "second_secret_key", None))
    return target, server


def _sends_requests(config: pytest.Config) -> bool:
    """A conformance run that will run tests (not --help, --collect-only, --fixtures, --markers, nor --har)."""
    option = config.option
    shows = (option.help, option.collectonly, getattr(option, "showfixtures", False),
             getattr(option, "show_fixtures_per_test", False), getattr(option, "markers", False))
    return runs_conformance(config) and not any(shows) and not state(config).settings.passive


def pytest_report_header(config: pytest.Config) -> list[str]:
    return terminal.header_lines(state(config).settings) if runs_conformance(config) else []


def pytest_sessionstart(session: pytest.Session) -> None:
    """An xdist worker takes the run's target from the controller."""
    config = session.config
    if not is_worker(config):
        return
    run = state(config)
    target = config.workerinput.get(WORKER_TARGET)
    run.target = Target(**target) if target else None
    if run.target:
        register_key(run.target.secret_key)
        register_key(run.target.second_secret_key)


# A run that ends before its first test collects nothing and runs nothing; early_stop.py gives its message and status
# (pytest.exit would print the message twice, once as `Exit: ...`).
@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> bool | None:
    if state(session.config).not_run is None:
        return None
    session.items = []
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    return True if state(session.config).not_run is not None else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: every worker uses the one target (and reference server) of the run."""
    run = state(node.config)
    node.workerinput[WORKER_SEED] = run.settings.seed
    if run.ledger is None:
        run.settings.work_dir.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix="money-spent-", dir=run.settings.work_dir)
        os.close(handle)
        run.ledger = Path(name)
    node.workerinput[WORKER_LEDGER] = str(run.ledger)
    if run.target is not None:
        node.workerinput[WORKER_TARGET] = run.target.to_dict()


def pytest_unconfigure(config: pytest.Config) -> None:
    # When the process exits, spare the interpreter a last walk of every object the run made: xdist's workers all
    # exit at once, and on two cores that walk costs most of a second at the end of every parallel run. At exit,
    # not here: a run inside another process (the self-tests' in-process runs) leaves that process's garbage
    # collection alone.
    atexit.register(gc.freeze)
    run = config.stash.get(STATE_KEY, None)
    if run is not None:
        deactivate(run.secrets)
    if run is not None and run.ledger is not None:
        run.ledger.unlink(missing_ok=True)
    if run is not None and run.server is not None:
        run.server.stop()
        run.server = None
