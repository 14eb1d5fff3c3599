"""Runs the mutation matrix under two seeds and says which faults one run killed and the other did not: a flaky
detection, to be made deterministic or reached in every run.

    .venv/bin/python scripts/matrix_seeds.py [--seeds 20261125 7] [-n 4]

Each run's matrix is kept as reports/mutation-matrix-seed-<seed>.json. Prints the kill count of each run and the
faults whose verdict differs; exits 1 if any does.
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


def matrix(seed: str, workers: str) -> tuple[dict[str, bool], float]:
    """Fault -> killed, for one run of the matrix self-tests under `seed`, and its seconds."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "selftests/test_mutation_matrix.py", "-q", "-p", "no:cacheprovider",
                    "-n", workers, "-k", "test_fault_is_killed", "--matrix-seed", seed],
                   cwd=ROOT, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    kept = MATRIX.with_name(f"mutation-matrix-seed-{seed}.json")
    shutil.copyfile(MATRIX, kept)
    rows = json.loads(kept.read_text())["faults"]
    return {row["fault"]: row["killed"] for row in rows}, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", nargs=2, default=["20261125", "7"])
    parser.add_argument("-n", dest="workers", default="4", help="xdist workers (default 4)")
    arguments = parser.parse_args()
    runs = {seed: matrix(seed, arguments.workers) for seed in arguments.seeds}
    for seed, (killed, seconds) in runs.items():
        print(f"seed {seed}: {sum(killed.values())} of {len(killed)} faults killed, {seconds:.0f} s")
    (first, _), (second, _) = runs.values()
    differ = sorted(fault for fault in first.keys() | second.keys() if first.get(fault) != second.get(fault))
    print(f"faults killed under one seed and not the other: {differ or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
