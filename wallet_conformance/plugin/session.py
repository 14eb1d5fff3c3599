"""The run's life in pytest's session: built when the plugin is configured (plugin/run.py, from plugin/options.py),
shown in the header, handed to xdist's workers, and closed at the end. A run that cannot start collects and runs
nothing."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.redaction import deactivate
from wallet_conformance.plugin import interruption
from wallet_conformance.plugin.collection import runs_conformance
from wallet_conformance.plugin.options import WORKER_SEED, sends_requests, settings
from wallet_conformance.plugin.run import (
    RUN,
    WORKER_LEDGER,
    WORKER_MASKING,
    WORKER_PARTS,
    WORKER_SELECTION,
    WORKER_TARGET,
    is_worker,
    state,
)
from wallet_conformance.reporting import terminal

SPARE_WORKERS, MOST_WORKERS = 1, 4  # beyond the cores, and in all (docs/performance.md: the worker count)
CPU_QUOTA = Path("/sys/fs/cgroup/cpu.max")  # cgroup v2: "QUOTA PERIOD" in microseconds, or "max PERIOD"
AUTO_WORKERS = "PYTEST_XDIST_AUTO_NUM_WORKERS"  # xdist's own override of what `-n auto` means
HYPOTHESIS_PROFILE = "--hypothesis-profile"  # Hypothesis' pytest plugin's option


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """A run against the bundled reference, or a target on this machine (a loopback --base-url: the implementer's
    own server), that chose no workers (no -n) runs on xdist's `-n auto`, which `pytest_xdist_auto_num_workers`
    answers: most of such a run is settle delays and quiet windows, which workers wait out side by side. Against a
    deployed target the default stays one process (docs/real-environments.md says what -n buys there)."""
    if getattr(config.option, "numprocesses", False) is not None or is_worker(config):  # -n given, no xdist
        return
    if sends_requests(config) and settings(config).on_this_machine:
        config.option.numprocesses = "auto"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` against a target on this machine (local_workers); xdist's own answer when
    PYTEST_XDIST_AUTO_NUM_WORKERS says, or for a deployed target."""
    if os.environ.get(AUTO_WORKERS):
        return None
    return local_workers(settings(config).on_this_machine, usable_cores())


def local_workers(on_this_machine: bool, cores: int | None) -> int | None:
    """The workers of a run against a target on this machine (the bundled reference, a loopback --base-url): one more
    than the cores, at most four (the spare one runs while another waits on a settlement; each worker beyond costs
    its start-up and its own session samples); None for a deployed target."""
    return min(MOST_WORKERS, (cores or 1) + SPARE_WORKERS) if on_this_machine else None


def usable_cores(quota_file: Path = CPU_QUOTA) -> int | None:
    """The cores this process may run on: those of its CPU affinity, fewer when its control group's CPU quota
    (cgroup v2's cpu.max, e.g. a container's --cpus) allows less; None when neither can be read."""
    try:
        cores: int | None = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count()
    try:
        quota, period = quota_file.read_text().split()[:2]
    except (OSError, ValueError):
        return cores
    if quota == "max" or int(period) <= 0:
        return cores
    allowed = max(1, math.ceil(int(quota) / int(period)))
    return min(cores, allowed) if cores else allowed


def pytest_configure(config: pytest.Config) -> None:
    # Only Hypothesis' own --hypothesis-profile reads the suite's profiles by name (the generated tests give their
    # settings themselves): without it Hypothesis is not imported here, so an xdist controller never imports it.
    if config.getoption(HYPOTHESIS_PROFILE, None):
        from wallet_conformance.generation import profiles

        profiles.register_hypothesis_profiles()


def pytest_report_header(config: pytest.Config) -> list[str]:
    return terminal.header_lines(state(config).settings) if runs_conformance(config) else []


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
    """xdist controller: every worker uses the one target (and reference server), seed, money ledger and HAR parts
    folder of the run."""
    run = state(node.config)
    node.workerinput[WORKER_SEED] = run.settings.seed
    if run.ledger is not None:
        node.workerinput[WORKER_LEDGER] = str(run.ledger)
    if run.target is not None:
        node.workerinput[WORKER_TARGET] = run.target.to_dict()
    if run.har_parts is not None:
        node.workerinput[WORKER_PARTS] = str(run.har_parts)
    if run.selection_file is not None:
        node.workerinput[WORKER_SELECTION] = str(run.selection_file)
    if run.secrets.masking is not None:
        node.workerinput[WORKER_MASKING] = run.secrets.masking.salt.hex()


def pytest_unconfigure(config: pytest.Config) -> None:
    interruption.of(config).restore()
    run = config.stash.get(RUN, None)
    if run is None:
        return
    run.close()
    deactivate(run.secrets)
    if not is_worker(config):  # the controller named them
        for made in (run.ledger, run.selection_file):
            if made is not None:
                made.unlink(missing_ok=True)
