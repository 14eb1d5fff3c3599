"""Where the self-tests' processor goes: each self-test's CPU, and how busy the cores were through the run.

    .venv/bin/python scripts/selftest_cpu.py [--top 25] [-- ./selftest's arguments]

Runs `CI=1 ./selftest -q` (on its four workers) with this module loaded as a pytest plugin in every worker: around
each self-test it reads `getrusage`, the worker's own CPU and that of the children the test waited for (the suite's
subprocess runs), and writes a line per test into a temporary folder. Meanwhile it samples /proc/stat every two
seconds (Linux). At the end it prints the self-tests' CPU by test function (a parametrised test summed over its
cases), the cases that waited longest (wall time beyond their CPU), and the cores' busy share per half minute: the
figures of docs/performance.md's part-by-part section.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINES = "SELFTEST_CPU_DIR"  # the folder the plugin writes its lines into, given by the parent
SAMPLE = 2.0  # seconds between two looks at /proc/stat
BUCKET = 30  # seconds of each busy share printed


# ------------------------------------------------------------------ the plugin, in each worker


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    folder = os.environ.get(LINES)
    own, children = _cpu()
    started = time.perf_counter()
    yield
    if folder is None:
        return
    own_after, children_after = _cpu()
    line = {
        "nodeid": item.nodeid,
        "own": own_after - own,
        "children": children_after - children,
        "wall": time.perf_counter() - started,
    }
    with (Path(folder) / f"{os.getpid()}.jsonl").open("a", encoding="utf-8") as lines:
        lines.write(json.dumps(line) + "\n")


# ------------------------------------------------------------------ the parent


def _busy(samples: list[tuple[float, float]], stop: threading.Event) -> None:
    """(seconds since the start, share of the cores busy) every SAMPLE seconds, until `stop`."""

    def ticks() -> tuple[int, int]:
        fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = fields[3] + fields[4]  # idle, iowait
        return sum(fields) - idle, sum(fields)

    started = time.monotonic()
    busy, total = ticks()
    while not stop.wait(SAMPLE):
        now_busy, now_total = ticks()
        samples.append((time.monotonic() - started, (now_busy - busy) / max(1, now_total - total)))
        busy, total = now_busy, now_total


def _by_function(lines: list[dict[str, Any]]) -> Counter[str]:
    found: Counter[str] = Counter()
    for line in lines:
        found[re.sub(r"\[.*", "", line["nodeid"])] += line["own"] + line["children"]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25, help="test functions and waiting cases printed")
    parser.add_argument("selftest_arguments", nargs="*", help="after --: what ./selftest is also given")
    arguments = parser.parse_args()
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    sampler = threading.Thread(target=_busy, args=(samples, stop), daemon=True)
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "CI": "1",
            LINES: folder,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "scripts"), os.environ.get("PYTHONPATH")])),
        }
        if Path("/proc/stat").exists():
            sampler.start()
        started = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            ["./selftest", "-q", "-p", "selftest_cpu", *arguments.selftest_arguments], cwd=ROOT, env=env, check=False
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        took = time.perf_counter() - started
        stop.set()
        lines = [json.loads(text) for path in Path(folder).glob("*.jsonl") for text in path.read_text().splitlines()]
    spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    in_tests = sum(line["own"] + line["children"] for line in lines)
    print(f"\n{len(lines)} self-tests; {took:.0f} s; {spent:.0f} s of CPU in all, {in_tests:.0f} s in the tests")
    print("\nCPU by test function (s, share of the tests' CPU):")
    for name, seconds in _by_function(lines).most_common(arguments.top):
        print(f"  {seconds:7.1f}  {100 * seconds / max(in_tests, 1e-9):4.1f}%  {name}")
    print("\nThe cases that waited longest (wall time beyond their CPU, s):")
    for line in sorted(lines, key=lambda line: line["own"] + line["children"] - line["wall"])[: arguments.top]:
        waited = line["wall"] - line["own"] - line["children"]
        print(f"  {waited:7.1f}  of {line['wall']:6.1f}  {line['nodeid']}")
    if samples:
        print(f"\nThe cores' busy share, per {BUCKET} s:")
        buckets: dict[int, list[float]] = {}
        for at, share in samples:
            buckets.setdefault(int(at // BUCKET), []).append(share)
        for index, shares in sorted(buckets.items()):
            print(f"  {index * BUCKET:5d} s  {100 * sum(shares) / len(shares):4.0f}%")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
