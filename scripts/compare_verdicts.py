"""Record the verdicts of a fixed set of runs, and compare two such records: a refactor must not change one.

    python scripts/compare_verdicts.py record before.json     # on the code before the change
    python scripts/compare_verdicts.py record after.json      # on the code after it
    python scripts/compare_verdicts.py compare before.json after.json

The runs, each with --seed 7 against the bundled reference: the faithful reference with its second business's key
and without one (given by URL, so the isolation tests skip), every variant together, and 30 faults spread over the
parts of the document (each run under its own requirement). A record holds, per run, the outcome, the exit status and
every requirement's verdict.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wallet_conformance.reference import ReferenceServer  # noqa: E402
from wallet_conformance.reference.faults import FAULTS  # noqa: E402
from wallet_conformance.spec.catalogue import catalogue  # noqa: E402

SEED = "7"
SAMPLED_FAULTS = 30
KEY = "sk_test_compare_verdicts"


def sampled_faults() -> list[str]:
    """30 faults, taken in turn from each part of the document (by their requirement), in name order."""
    known = catalogue()
    by_part: dict[str, list[str]] = {}
    for name, fault in sorted(FAULTS.items()):
        by_part.setdefault(known[fault.requirement_id].section, []).append(name)
    chosen: list[str] = []
    while len(chosen) < SAMPLED_FAULTS and any(by_part.values()):
        for names in by_part.values():
            if names and len(chosen) < SAMPLED_FAULTS:
                chosen.append(names.pop(len(names) // 2))
    return sorted(chosen)


def run(*args: str) -> dict[str, Any]:
    """One run of the suite in a fresh process: its exit status, outcome and verdicts."""
    with tempfile.TemporaryDirectory() as folder:
        reports, work = Path(folder) / "reports", Path(folder) / "work"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "tests",
                "-q",
                "-p",
                "no:cacheprovider",
                "--seed",
                SEED,
                "--report-dir",
                str(reports),
                "--work-dir",
                str(work),
                *args,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        path = reports / "conformance.json"
        if not path.exists():
            return {
                "exit_status": done.returncode,
                "outcome": None,
                "verdicts": {},
                "output": (done.stdout + done.stderr)[-2000:],
            }
        report = json.loads(path.read_text())
    return {
        "exit_status": done.returncode,
        "outcome": report["outcome"]["verdict"],
        "verdicts": {entry["id"]: entry["verdict"] for entry in report["requirements"]},
    }


def record(path: Path) -> None:
    runs: dict[str, dict[str, Any]] = {"faithful": run()}
    with ReferenceServer(secret_key=KEY) as server:
        runs["faithful-without-second-key"] = run(
            "--base-url", server.base_url, "--secret-key", KEY, "--funding-url", server.funding_url
        )
    runs["every-variant"] = run("--reference-variant", "all")
    for name in sampled_faults():
        runs[f"fault:{name}"] = run("--reference-fault", name, "--requirement", FAULTS[name].requirement_id)
        print(name, runs[f"fault:{name}"]["outcome"], flush=True)
    path.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")
    print(f"{len(runs)} runs recorded in {path}")


def compare(before: Path, after: Path) -> int:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    differences = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            differences.append(f"{name}: only in {'after' if a is None else 'before'}")
            continue
        for key in ("exit_status", "outcome"):
            if a[key] != b[key]:
                differences.append(f"{name}: {key} {a[key]} -> {b[key]}")
        for rid in sorted(set(a["verdicts"]) | set(b["verdicts"])):
            if a["verdicts"].get(rid) != b["verdicts"].get(rid):
                differences.append(f"{name}: {rid} {a['verdicts'].get(rid)} -> {b['verdicts'].get(rid)}")
    print("\n".join(differences) or f"identical: {len(old)} runs, every outcome, exit status and verdict")
    return 1 if differences else 0


if __name__ == "__main__":
    command, *paths = sys.argv[1:]
    if command == "record" and len(paths) == 1:
        record(Path(paths[0]))
    elif command == "compare" and len(paths) == 2:
        sys.exit(compare(Path(paths[0]), Path(paths[1])))
    else:
        sys.exit(__doc__)
