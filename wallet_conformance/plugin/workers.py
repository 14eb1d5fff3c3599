"""How many processes run the tests when the command line does not say (no `-n`).

Against the bundled reference the run uses two workers per core (xdist's count of cores), at most four, or as many
as PYTEST_XDIST_AUTO_NUM_WORKERS says (served to workers, the reference runs in a process of its own: plugin/run.py).
Against a deployed target the run stays one process: how hard the
suite presses a real environment is the user's choice (docs/real-environments.md). With `-n`, `--pdb`, or xdist not
loaded, nothing changes; with PYTEST_XDIST_AUTO_NUM_WORKERS=0 the run is one process, as the self-tests' in-process
runs need.
"""

from __future__ import annotations

import os

import pytest

from wallet_conformance.settings import Settings

AUTO_WORKERS = "PYTEST_XDIST_AUTO_NUM_WORKERS"  # xdist's: the count itself, when set
WORKERS_PER_CORE = 2
MAX_WORKERS = 4
DIST_MODE = "loadgroup"  # the tests that share a fixture or an account-wide limit share a worker


def choose_workers(config: pytest.Config, settings: Settings, sends_requests: bool) -> None:
    """Sets xdist's options for the default number of workers, before xdist reads them (in its pytest_configure)."""
    if not (sends_requests and settings.embedded) or hasattr(config, "workerinput"):
        return
    if not config.pluginmanager.hasplugin("xdist") or config.getoption("usepdb", False):
        return
    if config.getoption("numprocesses", None) is not None or config.getoption("tx", None):
        return
    count = int(config.hook.pytest_xdist_auto_num_workers(config=config))
    if not os.environ.get(AUTO_WORKERS):
        # Most of a test's time is the target's (settlement, quiet windows): workers beyond the cores fill it.
        count = min(count * WORKERS_PER_CORE, MAX_WORKERS)
    if count > 1:
        config.option.tx = ["popen"] * count
        if config.option.dist == "no":
            config.option.dist = DIST_MODE
