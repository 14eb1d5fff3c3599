"""The proxy judge's work per exchange as a count of machine instructions: a measure that does not drift with the
machine's load, where its time does by a third between minutes (docs/performance.md).

Valgrind's cachegrind counts the instructions of the proxy's judging process (proxy/side.py's SideJudge, started as the
proxy starts it, fed the proxy benchmark's mix, scripts/proxy_benchmark.py's `captured`, as fast as it takes them): all
it does for an exchange, the pipe, the judge, the registry, the record's line and its fold, and its garbage collector.
It counts once with WARM exchanges and once with WARM + EXCHANGES; the difference over EXCHANGES is the count per
exchange. With --in-process, it counts the per-exchange work alone (`_Judging.take` in a loop of one process, its
collector left at Python's defaults): quicker, and what a change to the judging code moves. Hash seeds are fixed, so two
counts of the same code agree to about one part in a hundred, or better. What the kernel does for the process (reading
the pipe, writing the record) is not counted: `proxy_benchmark.py --judge-rate-only` measures it, in time.

    .venv/bin/python scripts/judge_instructions.py [--exchanges 2000] [--in-process] [--compare-with DIR ...]

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
WARM = 300  # exchanges judged before counting starts: the validators compiled, the caches filled

# What the counted process runs: the code of the folder first on its path, the mix of this script's folder.
MADE = """
import multiprocessing, sys, tempfile, time
from pathlib import Path
from proxy_benchmark import captured
from wallet_conformance.client.redaction import Secrets, activate
from wallet_conformance.proxy.side import Opening, SideJudge, _Judging
from wallet_conformance.reporting.gating import Gate

if __name__ == "__main__":  # the forkserver imports this module too: it makes nothing there
    activate(Secrets())
    base, key = "https://bench.example/v1", "test_sk_" + "ab" * 20
    made = [captured(index, base, key) for index in range(int(sys.argv[1]))]
    opening = Opening(Gate(traffic=True), "staging", {})
"""
IN_PROCESS = """
    ours, _ = multiprocessing.Pipe()
    with tempfile.TemporaryDirectory() as folder:
        judging = _Judging(base, 50_000, ours, None, Path(folder) / "judgement.jsonl", opening)
        for exchange in made:
            judging.take(exchange)
"""
JUDGING_PROCESS = """
    with tempfile.TemporaryDirectory() as folder:
        judge = SideJudge(base, 50_000, Path(folder) / "judgement.jsonl", opening, size=100_000)
        judge.facts()  # once it answers, it has started
        print("judging process", judge.pid, flush=True)
        for exchange in made:
            while judge.waiting() > 5_000:
                time.sleep(0.001)
            judge.offer(exchange)
        while judge.done < len(made):
            time.sleep(0.05)
        judge.close()
"""


def instructions(code: Path, exchanges: int, in_process: bool) -> int:
    """Instructions of the process judging `exchanges` exchanges with the code of `code`."""
    script = MADE + (IN_PROCESS if in_process else JUDGING_PROCESS)
    return counted(script, [str(exchanges)], code, counted_pid=r"judging process (\d+)")


def counted(script: str, arguments: list[str], code: Path, counted_pid: str | None = None) -> int:
    """Valgrind's count of the user-space instructions of `script` run with `arguments` and the code of `code` first on
    its path (this folder's scripts next, hash seeds fixed): of the process whose pid it prints matching `counted_pid`
    (its children are traced too), else of the first process to end."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(code), str(ROOT / "scripts")]),
        "PYTHONHASHSEED": "0",
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "counted.py"
        path.write_text(script)
        run = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                "--trace-children=yes",  # the judging process is forked from a forkserver the script starts
                "--cachegrind-out-file=/dev/null",
                sys.executable,
                str(path),
                *arguments,
            ],
            env=environment,
            cwd=folder,
            capture_output=True,
            text=True,
            errors="replace",
            check=True,
        )
    found = re.search(counted_pid, run.stdout) if counted_pid else None
    pid = found.group(1) if found else r"\d+"
    counts = re.findall(rf"=={pid}== I\s+refs:\s+([\d,]+)", run.stderr)
    if not counts:
        raise RuntimeError(f"valgrind printed no count:\n{run.stderr[-2000:]}")
    return int(counts[0].replace(",", ""))


def require_valgrind() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")


def per_exchange(code: Path, exchanges: int, in_process: bool) -> float:
    return (instructions(code, WARM + exchanges, in_process) - instructions(code, WARM, in_process)) / exchanges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=2000, help="exchanges counted, after the first WARM")
    parser.add_argument("--in-process", action="store_true", help="the per-exchange work alone, in a loop")
    parser.add_argument("--compare-with", type=Path, action="append", default=[], help="another checkout's folder")
    arguments = parser.parse_args()
    require_valgrind()
    what = "in a loop of one process" if arguments.in_process else "in the judging process"
    for code in [*arguments.compare_with, ROOT]:
        count = per_exchange(code.resolve(), arguments.exchanges, arguments.in_process)
        print(f"{count:,.0f} instructions per exchange judged, {what} ({code})")


if __name__ == "__main__":
    main()
