"""Measures the suite's speed on this machine and prints a Markdown table for the README.

    .venv/bin/python scripts/benchmark.py [--rounds 3]

What it times (wall clock, best of the rounds):
  - the conformance suite against the bundled reference, serial and with two workers;
  - the mutation matrix (every fault, in-process runs, two workers) and its mean seconds per fault;
  - the reference server alone: sequential requests per second for a read and a write.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wallet_conformance.reference import ReferenceServer  # noqa: E402


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=False, capture_output=True, env={**os.environ, "CI": "true"})
    return time.perf_counter() - started


def suite(*args: str) -> float:
    with tempfile.TemporaryDirectory() as report_dir:
        return timed([sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider",
                      "--report-dir", report_dir, *args])


def reference_throughput(requests: int = 500) -> tuple[float, float]:
    """Sequential requests per second: GET /transactions/banks, then POST /virtual-accounts (secondary)."""
    with ReferenceServer() as server, httpx.Client(headers={"x-service-key": server.secret_key}) as http:
        started = time.perf_counter()
        for _ in range(requests):
            http.get(f"{server.base_url}/transactions/banks")
        reads = requests / (time.perf_counter() - started)
        body = {"accountName": "bench", "category": "secondary", "currency": "NGN",
                "emailAddress": "bench@example.com", "mobile": {"phoneNumber": "08030000000", "isoCode": "NG"}}
        started = time.perf_counter()
        for _ in range(requests):
            http.post(f"{server.base_url}/virtual-accounts", json=body)
        writes = requests / (time.perf_counter() - started)
    return reads, writes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    serial = min(suite() for _ in range(rounds))
    parallel = min(suite("-n", "2") for _ in range(rounds))
    matrix = timed([sys.executable, "-m", "pytest", "selftests/test_mutation_matrix.py", "-q", "-n", "2"])
    rows = json.loads((ROOT / "reports" / "mutation-matrix.json").read_text())["faults"]
    per_fault = sum(row["seconds"] for row in rows) / len(rows)
    reads, writes = reference_throughput()
    print(f"Measured on {os.cpu_count()} cores, Python {platform.python_version()}, best of {rounds} for the suite:\n")
    print("| what | time |")
    print("|---|---|")
    print(f"| conformance suite vs bundled reference, serial | {serial:.1f} s |")
    print(f"| conformance suite vs bundled reference, `-n 2` | {parallel:.1f} s |")
    print(f"| mutation matrix, {len(rows)} faults, `-n 2` | {matrix:.1f} s ({per_fault:.2f} s per fault run) |")
    print(f"| reference server, sequential GET /transactions/banks | {reads:.0f} requests/s |")
    print(f"| reference server, sequential POST /virtual-accounts | {writes:.0f} requests/s |")


if __name__ == "__main__":
    main()
