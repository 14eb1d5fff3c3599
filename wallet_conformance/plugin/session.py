"""The run's target, resolved once on the controlling process: the bundled reference started for the run, or a
deployed implementation checked by a preflight; xdist workers get the same one."""

from __future__ import annotations

import atexit
import gc
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.redaction import redact, register_key
from wallet_conformance.client.target import Target, configured, preflight, start_reference
from wallet_conformance.generation import profiles
from wallet_conformance.plugin.collection import runs_conformance
from wallet_conformance.plugin.state import STATE as STATE_KEY
from wallet_conformance.plugin.state import WORKER_LEDGER, WORKER_SEED, WORKER_TARGET, is_worker, state


def pytest_configure(config: pytest.Config) -> None:
    profiles.register_hypothesis_profiles()


def pytest_report_header(config: pytest.Config) -> list[str]:
    settings = state(config).settings
    if settings.passive:
        return [f"wallet-conformance: judging recorded traffic ({len(settings.har)} HAR file(s)); nothing is sent"]
    where = settings.base_url or "the bundled reference server (started for this run)"
    seed, profile = settings.generation_seed, settings.profile
    return [f"wallet-conformance: target {redact(where)}, environment {settings.environment}, seed {settings.seed}",
            f"wallet-conformance: generated tests: profile {profile}, seed {seed} "
            f"(reproduce with --seed {seed} --profile {profile})"]


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    run = state(config)
    if is_worker(config):
        target = config.workerinput.get(WORKER_TARGET)
        run.target = Target(**target) if target else None
        if run.target:
            register_key(run.target.secret_key)
            register_key(run.target.second_secret_key)
        return
    if not runs_conformance(config) or config.option.collectonly or run.settings.passive:
        return
    settings = run.settings
    if settings.embedded:
        run.target, run.server = start_reference(settings)
    else:
        run.target = configured(settings)
    register_key(run.target.secret_key)
    register_key(run.target.second_secret_key)
    if settings.cleanup:
        from wallet_conformance.world.cleanup import clean_up  # imported late: only --cleanup runs need it

        message, status = clean_up(run.target, settings)
        pytest.exit(redact(message), returncode=status)
    stop = preflight(run.target, settings.request_timeout, settings.ca_bundle)
    if stop is not None:
        pytest.exit(redact(stop.message), returncode=stop.status)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: every worker uses the one target (and reference server) of the run."""
    run = state(node.config)
    node.workerinput[WORKER_SEED] = run.settings.seed
    if run.ledger is None:
        run.settings.report_dir.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=".money-spent-", dir=run.settings.report_dir)
        os.close(handle)
        run.ledger = Path(name)
    node.workerinput[WORKER_LEDGER] = str(run.ledger)
    if run.target is not None:
        node.workerinput[WORKER_TARGET] = run.target.to_dict()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every process: the run ended normally, so its crash journal (world/cleanup.py) is no longer needed."""
    run = session.config.stash.get(STATE_KEY, None)
    journal = getattr(run.client, "journal", None) if run is not None else None
    if journal is not None:
        journal.finish()


def pytest_unconfigure(config: pytest.Config) -> None:
    # When the process exits, spare the interpreter a last walk of every object the run made: xdist's workers all
    # exit at once, and on two cores that walk costs most of a second at the end of every parallel run. At exit,
    # not here: a run inside another process (the self-tests' in-process runs) leaves that process's garbage
    # collection alone.
    atexit.register(gc.freeze)
    run = config.stash.get(STATE_KEY, None)
    if run is not None and run.ledger is not None:
        run.ledger.unlink(missing_ok=True)
    if run is not None and run.server is not None:
        run.server.stop()
        run.server = None
