"""Measures how long judging a large HAR takes, and the memory it holds (docs/performance.md, "Recorded traffic").

    .venv/bin/python scripts/har_scale.py [--entries 10000] [--har recorded.har]

Without --har it records a short active run against the bundled reference (tests/test_endpoints.py,
--record-har). It then writes a HAR of `--entries` entries by repeating the recorded ones, and judges it with
`--har` in a fresh process (serial), printing the wall time, the peak resident memory of that process and the
entries per second; a run over a tenth of the entries beside it shows whether memory grows with the file.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def record(folder: Path) -> Path:
    path = folder / "recorded.har"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/test_endpoints.py",
            "-q",
            "-p",
            "no:cacheprovider",
            "--report-dir",
            str(folder / "active"),
            "--record-har",
            str(path),
        ],
        cwd=ROOT,
        check=False,
        capture_output=True,
    )
    return path


def repeated(source: Path, entries: int, path: Path) -> int:
    """A HAR of `entries` entries, the recorded ones over and over; its size in bytes."""
    recorded = json.loads(source.read_text())["log"]["entries"]
    with path.open("w", encoding="utf-8") as out:
        out.write('{"log": {"version": "1.2", "creator": {"name": "har_scale", "version": "1"}, "entries": [\n')
        for index, entry in enumerate(itertools.islice(itertools.cycle(recorded), entries)):
            out.write((",\n" if index else "") + json.dumps(entry))
        out.write("\n]}}\n")
    return path.stat().st_size


# pytest in the measured process itself, which prints its own peak resident memory (KiB) as it ends.
MEASURED = (
    "import resource, sys, pytest; status = pytest.main(sys.argv[1:]); "
    "print('peak-kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(status)"
)


def judge(path: Path, folder: Path) -> tuple[float, float, str]:
    """Judge the file in a fresh process: seconds, peak memory (MiB) of that process, its exit line."""
    started = time.perf_counter()
    process = subprocess.run(
        [
            sys.executable,
            "-c",
            MEASURED,
            "tests",
            "-q",
            "-p",
            "no:cacheprovider",
            "--report-dir",
            str(folder),
            "--har",
            str(path),
        ],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    lines = process.stdout.splitlines()
    peak = next((int(line.split()[1]) for line in lines if line.startswith("peak-kib")), 0)
    status = [line for line in lines if line.startswith("exit status")]
    return seconds, peak / 1024, status[-1] if status else process.stdout[-300:]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--har", type=Path)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source = options.har or record(folder)
        for count in (options.entries // 10, options.entries):
            path = folder / f"{count}.har"
            size = repeated(source, count, path)
            seconds, peak, last = judge(path, folder / f"report-{count}")
            print(
                f"{count} entries ({size / 2**20:.1f} MiB): {seconds:.1f} s, {count / seconds:,.0f} entries/s, "
                f"peak memory {peak:.0f} MiB; {last}"
            )


if __name__ == "__main__":
    main()
