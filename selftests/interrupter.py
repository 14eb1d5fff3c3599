"""A pytest plugin for the self-tests of a run's endings (selftests/test_endings.py): it sends the run's controlling
process a signal at a chosen point, as a user's Ctrl-C or a CI's cancel would (`-p selftests.interrupter`).

WALLET_SELFTEST_INTERRUPT="<point>:<SIGNAL>[,<point>:<SIGNAL>...]", the points:
- collection: while the tests are collected (the first xdist worker's collection, under xdist);
- test: once the third test has ended;
- cleanup: in the end-of-run cleanup (pytest's sessionfinish, before the reports);
- reports: while the final reports are written.
"""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

PLAN = "WALLET_SELFTEST_INTERRUPT"
CONTROLLER = "WALLET_SELFTEST_CONTROLLER"  # the controlling process's pid, which its xdist workers inherit
TESTS_BEFORE = 3  # `test`: after this many tests ended


def _send(point: str) -> None:
    plan = dict(item.split(":") for item in os.environ.get(PLAN, "").split(",") if item)
    if point in plan:
        os.kill(int(os.environ[CONTROLLER]), getattr(signal, plan[point]))


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        os.environ[CONTROLLER] = str(os.getpid())
        config.pluginmanager.register(Controller(), "wallet-selftest-interrupter")


def pytest_collection_modifyitems(config: pytest.Config) -> None:
    """The collection of a run of one process, or of the first xdist worker (one signal, not one per worker)."""
    if getattr(config, "workerinput", {}).get("workerid", "gw0") == "gw0":
        _send("collection")


class Controller:
    """The controlling process's points: after the third test, the end-of-run cleanup, the final reports."""

    def __init__(self) -> None:
        self.ended = 0
        from wallet_conformance.plugin import recording  # the final reports' writer, looked up when it writes

        write = recording.write_all

        def signalled(*args: Any, **kwargs: Any) -> Any:
            _send("reports")
            return write(*args, **kwargs)

        recording.write_all = signalled

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.ended += 1
            if self.ended == TESTS_BEFORE:
                _send("test")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        _send("cleanup")
