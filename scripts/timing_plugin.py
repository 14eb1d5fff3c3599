"""A pytest plugin for scripts/benchmark.py only: where one run's time goes, written as JSON by every process of the run
(the controller and each xdist worker) into the folder named by BENCHMARK_TIMING_DIR.

    PYTHONPATH=scripts python -m pytest tests -p timing_plugin ...

Per test: its duration (setup, call and teardown), its xdist group, the requests it sent, the seconds spent waiting
on the target and the seconds slept in the suite's own waits, by kind. Per fixture: its setup time and requests.
Per process: CPU seconds, those spent before its first test (its start-up), and those of the bundled reference where
it serves (a thread of this process, or a child process). It patches the suite's client and time.sleep from outside;
the suite itself knows nothing of it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

FOLDER = os.environ.get("BENCHMARK_TIMING_DIR")
_real_sleep = time.sleep
_state = threading.local()


class Timings:
    def __init__(self) -> None:
        self.requests = 0
        self.target = 0.0
        self.sleeps: Counter[str] = Counter()
        self.cpu = 0.0  # of the test's own thread

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "target": round(self.target, 4),
            "sleeps": dict(self.sleeps),
            "cpu": round(self.cpu, 4),
        }


RUN = Timings()
TESTS: dict[str, dict[str, Any]] = {}
FIXTURES: dict[str, dict[str, Any]] = defaultdict(lambda: {"count": 0, "seconds": 0.0, "requests": 0})
_current: list[Timings] = []  # the test being run (the run's timings always count)
_limits: dict[str, float] = {}
MOMENTS: dict[str, float] = {}  # time.time() of the process's start, its first test's start, its last test's end
START_CPU: list[float] = []  # the process's CPU seconds when its first test started: its start-up's


def _kind() -> str:
    """What a sleep of the suite waits for, read off its callers."""
    frame = sys._getframe(2)
    while frame is not None:
        name, path = frame.f_code.co_name, frame.f_code.co_filename
        if path.endswith(os.path.join("world", "polling.py")) and name == "poll":
            timeout = frame.f_locals.get("timeout")
            if timeout == _limits.get("quiet_window"):
                return "quiet window"
            if timeout == _limits.get("settle_timeout"):
                return "settlement"
            return "other polls"
        if path.endswith(os.path.join("client", "api.py")) and name == "request":
            return "rate limit"
        if path.endswith(os.path.join("world", "locks.py")):
            return "locks"
        frame = frame.f_back
    return "other"


def _sleep(seconds: float) -> None:
    caller = sys._getframe(1).f_code.co_filename
    if "wallet_conformance" not in caller or os.sep + "reference" + os.sep in caller:
        return _real_sleep(seconds)
    kind = _kind()
    started = time.perf_counter()
    _real_sleep(seconds)
    took = time.perf_counter() - started
    for timings in (RUN, *_current):
        timings.sleeps[kind] += took


def _patch_client() -> None:
    # The capture layer sends each copy of a request; a checkout from before the client's layers (measured with
    # --compare-with) sent them from ApiClient._send.
    try:
        from wallet_conformance.client.transports.capture import CaptureTransport as sender

        method = "handle_request"
    except ImportError:
        from wallet_conformance.client.api import ApiClient as sender

        method = "_send"
    send = getattr(sender, method)

    def timed_send(self: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return send(self, *args, **kwargs)
        finally:
            took = time.perf_counter() - started
            for timings in (RUN, *_current):
                timings.requests += 1
                timings.target += took

    setattr(sender, method, timed_send)  # timed: each copy of a request the client sends, replaced for this run


def _process_start() -> float:
    """When this process started (time.time()), from /proc: before its imports."""
    ticks = os.sysconf("SC_CLK_TCK")
    since_boot = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]) / ticks
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return time.time() - uptime + since_boot


def pytest_configure(config: pytest.Config) -> None:
    if FOLDER is None:
        return
    MOMENTS["start"] = _process_start()
    MOMENTS["configured"] = time.time()
    time.sleep = _sleep  # type: ignore[assignment]  # timed; typeshed's also takes a SupportsIndex
    _patch_client()
    settings = getattr(config.stash.get(_run_key(), None), "settings", None)
    if settings is not None:
        _limits.update(settle_timeout=settings.settle_timeout, quiet_window=settings.quiet_window)


def _run_key() -> Any:
    from wallet_conformance.plugin.run import RUN as KEY

    return KEY


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    timings = Timings()
    _current.append(timings)
    MOMENTS.setdefault("first_test", time.time())
    if not START_CPU:
        START_CPU.append(time.process_time())
    started, cpu = time.perf_counter(), time.thread_time()
    try:
        return (yield)
    finally:
        timings.cpu = time.thread_time() - cpu
        _current.remove(timings)
        MOMENTS["last_test"] = time.time()
        marker = item.get_closest_marker("xdist_group")
        group = (marker.args[0] if marker.args else marker.kwargs.get("name")) if marker else None
        TESTS[item.nodeid.split("@")[0]] = {
            "seconds": round(time.perf_counter() - started, 4),
            "group": group,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            **timings.as_dict(),
        }


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: Any) -> Any:
    before = RUN.requests
    started = time.perf_counter()
    try:
        return (yield)
    finally:
        entry = FIXTURES[f"{fixturedef.argname} ({fixturedef.scope})"]
        entry["count"] += 1
        entry["seconds"] += time.perf_counter() - started
        entry["requests"] += RUN.requests - before


def _reference_cpu() -> tuple[float, str]:
    """CPU seconds of the bundled reference: its server thread in this process, or a child process serving it."""
    for thread in threading.enumerate():
        if thread.name.startswith("reference-server") and thread.ident is not None:
            return time.clock_gettime(time.pthread_getcpuclockid(thread.ident)), "thread"
    ticks = os.sysconf("SC_CLK_TCK")
    for task in Path("/proc/self/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:  # a thread that ended since the folder was listed
            continue
        for pid in children:
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if b"wallet_conformance.reference" in command:
                return (int(fields[11]) + int(fields[12])) / ticks, "process"
    return 0.0, "none"


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if FOLDER is None:
        return
    reference, where = _reference_cpu()
    record = {
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "cpu": time.process_time(),
        "reference_cpu": reference,
        "reference_in": where,
        "run": RUN.as_dict(),
        "tests": TESTS,
        "moments": MOMENTS,
        "start_cpu": START_CPU[0] if START_CPU else None,
        "fixtures": dict(FIXTURES),
    }
    Path(FOLDER, f"{os.getpid()}.json").write_text(json.dumps(record))
