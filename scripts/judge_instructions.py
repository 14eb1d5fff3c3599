"""The proxy judge's work per exchange as a count of machine instructions: a measure that does not drift with the
machine's load, where its time does by a third between minutes (docs/performance.md).

Valgrind's cachegrind counts the instructions of a process judging the proxy benchmark's mix (scripts/
proxy_benchmark.py's `captured`) with the proxy's own per-exchange work (proxy/side.py's `_Judging.take`: the
Exchange made from the capture, the judge, the registry, the record's line and its fold), once with WARM exchanges
and once with WARM + EXCHANGES; the difference over EXCHANGES is the count per exchange. Hash seeds are fixed, so
two counts of the same code agree to about one part in a hundred. It leaves out what only the judging process pays
(taking the exchanges off the pipe, the write's system call): `proxy_benchmark.py --judge-rate-only` measures that
process as a whole, in time.

    .venv/bin/python scripts/judge_instructions.py [--exchanges 2000] [--compare-with DIR ...]

--compare-with counts the code of another checkout (its folder, e.g. a `git worktree`) with this script's mix.
Needs valgrind (Debian: `apt-get install valgrind`). Not a test: it prints its figures.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM = 200  # exchanges judged before counting starts: the validators compiled, the caches filled

# What the counted process runs: the code of the folder first on its path, the mix of this script's folder.
JUDGING = """
import multiprocessing, sys, tempfile
from pathlib import Path
from proxy_benchmark import captured
from wallet_conformance.client.redaction import Secrets, activate
from wallet_conformance.proxy.side import Opening, _Judging
from wallet_conformance.reporting.gating import Gate

activate(Secrets())
base, key = "https://bench.example/v1", "test_sk_" + "ab" * 20
made = [captured(index, base, key) for index in range(int(sys.argv[1]))]
ours, _ = multiprocessing.Pipe()
with tempfile.TemporaryDirectory() as folder:
    opening = Opening(Gate(traffic=True), "staging", {})
    judging = _Judging(base, 50_000, ours, None, Path(folder) / "judgement.jsonl", opening)
    for exchange in made:
        judging.take(exchange)
"""


def instructions(code: Path, exchanges: int) -> int:
    """Instructions of one process judging `exchanges` exchanges with the code of `code`."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(code), str(ROOT / "scripts")]),
        "PYTHONHASHSEED": "0",
    }
    with tempfile.TemporaryDirectory() as folder:
        counted = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                f"--cachegrind-out-file={Path(folder) / 'out'}",
                sys.executable,
                "-c",
                JUDGING,
                str(exchanges),
            ],
            env=environment,
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"I\s+refs:\s+([\d,]+)", counted.stderr)
    if found is None:
        raise RuntimeError(f"valgrind printed no count:\n{counted.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_exchange(code: Path, exchanges: int) -> float:
    return (instructions(code, WARM + exchanges) - instructions(code, WARM)) / exchanges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=2000, help="exchanges counted, after the first WARM")
    parser.add_argument("--compare-with", type=Path, action="append", default=[], help="another checkout's folder")
    arguments = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    for code in [*arguments.compare_with, ROOT]:
        count = per_exchange(code.resolve(), arguments.exchanges)
        print(f"{count:,.0f} instructions per exchange judged ({code})")


if __name__ == "__main__":
    main()
