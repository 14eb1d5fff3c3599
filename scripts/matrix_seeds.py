"""Runs the mutation matrix under several seeds (three by default) and says which faults one run killed and another
did not (a flaky detection, to be made deterministic), and which failed a requirement they do not declare under any
seed (the precision column).

    .venv/bin/python scripts/matrix_seeds.py [--seeds 20261125 7 1234] [-n 4]

Each run's matrix is kept as reports/mutation-matrix-seed-<seed>.json. Prints the kill count of each run, the faults
whose verdict differs between runs and the undeclared collateral failures; exits 1 if there is any of either.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MATRIX = ROOT / "reports" / "mutation-matrix.json"
SEEDS = ["20261125", "7", "1234"]


def matrix(seed: str, workers: str) -> tuple[dict[str, dict], float]:
    """Fault -> its matrix row, for one run of the matrix self-tests under `seed`, and its seconds."""
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "selftests/test_mutation_matrix.py",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            workers,
            "-k",
            "test_fault_is_killed",
            "--matrix-seed",
            seed,
        ],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    kept = MATRIX.with_name(f"mutation-matrix-seed-{seed}.json")
    shutil.copyfile(MATRIX, kept)
    rows = json.loads(kept.read_text())["faults"]
    return {row["fault"]: row for row in rows}, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", nargs="+", default=SEEDS)
    parser.add_argument("-n", dest="workers", default="4", help="xdist workers (default 4)")
    arguments = parser.parse_args()
    runs = {seed: matrix(seed, arguments.workers) for seed in arguments.seeds}
    for seed, (rows, seconds) in runs.items():
        killed = sum(row["killed"] for row in rows.values())
        print(f"seed {seed}: {killed} of {len(rows)} faults killed, {seconds:.0f} s")
    faults = sorted(set().union(*(rows.keys() for rows, _ in runs.values())))
    differ = [
        fault
        for fault in faults
        if len({rows[fault]["killed"] if fault in rows else None for rows, _ in runs.values()}) > 1
    ]
    print(f"faults killed under one seed and not another: {differ or 'none'}")
    undeclared = {
        fault: sorted({rid for rows, _ in runs.values() for rid in rows.get(fault, {}).get("undeclared", [])})
        for fault in faults
    }
    undeclared = {fault: ids for fault, ids in undeclared.items() if ids}
    print(f"undeclared collateral failures: {undeclared or 'none'}")
    return 1 if differ or undeclared else 0


if __name__ == "__main__":
    sys.exit(main())
