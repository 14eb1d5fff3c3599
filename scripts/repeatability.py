"""Runs the whole suite against the bundled reference several times with one seed, serial and with workers, and
says whether every run gave every requirement the same verdict, and every test the same outcome.

    .venv/bin/python scripts/repeatability.py [--runs 10] [--seed 20261123] [--workers 2 4]

Prints one line per run (time, verdicts and test outcomes that differ from the first run) and exits 1 if any
verdict differs. A test outcome may differ by design only where a list other workers kept changing was not
judged (a skip that says so); those are printed too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def verdicts(*args: str) -> tuple[dict[str, str], dict[str, str], float]:
    """Requirement id -> verdict and test node id -> outcome of one whole run, and its seconds."""
    with tempfile.TemporaryDirectory() as report_dir:
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "tests",
                "-q",
                "-p",
                "no:cacheprovider",
                "--report-dir",
                report_dir,
                *args,
            ],
            cwd=ROOT,
            capture_output=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        report = json.loads((Path(report_dir) / "conformance.json").read_text())
    outcomes = {test["nodeid"]: test["outcome"] for entry in report["requirements"] for test in entry["tests"]}
    return {entry["id"]: entry["verdict"] for entry in report["requirements"]}, outcomes, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="serial runs (default 10)")
    parser.add_argument("--seed", default="20261123")
    parser.add_argument("--workers", type=int, nargs="*", default=[2, 4], help="xdist worker counts to compare")
    arguments = parser.parse_args()
    plans = [("serial", ("-n", "0"))] * arguments.runs + [(f"-n {n}", ("-n", str(n))) for n in arguments.workers]
    first: dict[str, str] | None = None
    first_outcomes: dict[str, str] = {}
    differing_runs = 0
    for number, (name, extra) in enumerate(plans, start=1):
        found, outcomes, seconds = verdicts("--seed", arguments.seed, *extra)
        first, first_outcomes = first or found, first_outcomes or outcomes
        differ = {rid: (first.get(rid), verdict) for rid, verdict in found.items() if first.get(rid) != verdict}
        tests = {
            nodeid: (first_outcomes.get(nodeid), outcome)
            for nodeid, outcome in outcomes.items()
            if first_outcomes.get(nodeid) != outcome
        }
        differing_runs += bool(differ)
        print(
            f"run {number:2d} ({name}): {seconds:5.1f} s, {len(found)} verdicts, "
            f"{'identical' if not differ else f'differ: {differ}'}; {len(outcomes)} tests, "
            f"{'identical' if not tests else f'outcomes differ: {tests}'}"
        )
    print(
        f"{len(plans)} runs, seed {arguments.seed}: "
        f"{'every verdict identical' if not differing_runs else f'{differing_runs} runs differ'}"
    )
    return 1 if differing_runs else 0


if __name__ == "__main__":
    raise SystemExit(main())
