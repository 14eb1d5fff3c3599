"""Running the conformance suite (tests/) from the self-tests, the way a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.spec.files import ROOT

RUN_TIMEOUT = 300
# The generated tests' folder, and their node ids' prefix; leaving it out runs the hand-written suite.
GENERATED = ROOT / "tests" / "generated"
GENERATED_NODES = "tests/generated/"
HAND_WRITTEN = ("--ignore", str(GENERATED))
# The suite's --settle-timeout in runs against the reference: every late effect of a variant (a slow settlement,
# a delayed funding) lands within about a second, and a wait that cannot end (a fault) should not take 30 s.
SETTLE_TIMEOUT = "5"
# The bundled reference's settle delay in the many short runs (one per fault, one per variant): settlements land
# on the suite's first poll instead of its third, and balances after a refused transfer need watching only a
# few settle delays. The whole runs keep the defaults.
QUICK_SETTLEMENT = ("--reference-settle-delay", "0.05", "--quiet-window", "0.15")
# The suite's --request-timeout in a run against a fault that leaves requests without an answer: each such request
# is waited on twice before the verdict. The reference answers everything else in milliseconds, so one second keeps
# the run to seconds and stays far above any answer it gives.
QUICK_SILENCE = ("--request-timeout", "1")


Run = tuple[subprocess.CompletedProcess, dict[str, Any] | None, float]


def work_dir(report_dir: Path) -> Path:
    """A run's own work folder (locks, journals) beside its reports: runs of the self-tests in parallel, each against
    its own reference, never take turns on each other's locks."""
    return report_dir.with_name(report_dir.name + "-work")


def run_suite(report_dir: Path, *args: str, paths: tuple[str, ...] = ("tests",), timeout: float = RUN_TIMEOUT) -> Run:
    """Run `pytest tests` in a fresh process; returns the process, its conformance.json and the seconds it took."""
    env = dict(os.environ)
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    started = time.perf_counter()
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *paths,
            "-q",
            "-p",
            "no:cacheprovider",
            "--report-dir",
            str(report_dir),
            "--work-dir",
            str(work_dir(report_dir)),
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    seconds = time.perf_counter() - started
    path = report_dir / "conformance.json"
    return process, json.loads(path.read_text()) if path.exists() else None, seconds


def tail(process: subprocess.CompletedProcess, lines: int = 40) -> str:
    return "\n".join((process.stdout + process.stderr).splitlines()[-lines:])


def collection(report_dir: Path) -> dict[str, list[str]]:
    """Requirement -> node ids of the tests naming it, from `pytest tests --collect-only`."""
    process, _, _ = run_suite(report_dir, "--collect-only")
    path = report_dir / "collection.json"
    if not path.exists():
        raise RuntimeError(f"collection failed:\n{tail(process)}")
    return json.loads(path.read_text())


def run_in_process(pytester: pytest.Pytester, report_dir: Path, *args: str, paths: tuple[str, ...]) -> Run:
    """Run the suite inside this process (no interpreter start-up): fast enough to run once per fault."""
    started = time.perf_counter()
    result = pytester.runpytest_inprocess(
        *(str(ROOT / path) for path in paths),
        "--rootdir",
        str(ROOT),
        "-c",
        str(ROOT / "pyproject.toml"),
        # Allure results are the reports' own business (test_gating); here they would cost a second a run. The
        # unraisable-exception plugin collects garbage at the run's end, the whole heap of this long-lived process.
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:allure_pytest",
        "-p",
        "no:unraisableexception",
        "--report-dir",
        str(report_dir),
        *args,
    )
    seconds = time.perf_counter() - started
    process = subprocess.CompletedProcess(args, int(result.ret), result.stdout.str(), result.stderr.str())
    path = report_dir / "conformance.json"
    return process, json.loads(path.read_text()) if path.exists() else None, seconds


PLUGINS = ("-p", "wallet_conformance.plugin")
INI = """
[pytest]
wallet_conformance_tests = conformance
addopts = -p no:cacheprovider
"""
HEADER = """
import pytest
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import ConformanceFailure
"""


def run_sample(pytester: pytest.Pytester, source: str, *args: str) -> tuple[pytest.RunResult, dict | None]:
    """Run a throwaway conformance module (`source`) through the plugin, in this process; its report too."""
    pytester.makefile(".ini", pytest=INI)
    folder = pytester.path / "conformance"
    folder.mkdir(exist_ok=True)
    (folder / "test_sample.py").write_text(HEADER + source)
    result = pytester.runpytest_inprocess(*PLUGINS, "conformance", "--report-dir", "out", *args)
    report_path = pytester.path / "out" / "conformance.json"
    return result, json.loads(report_path.read_text()) if report_path.exists() else None
