"""The precision of every fault over the whole suite: which requirements each fault of the reference fails, running
every test that can see it, not only the tests of its own requirement as the mutation matrix does.

    .venv/bin/python scripts/precision.py [--seed 20261125] [-j 2] [--faults NAME ...]

One faithful run of the whole suite (hand-written and generated) finds, with selftests/switch_reach.py, the tests
during which the reference reads each fault's switch: with the fault on, every other test gets the faithful answers,
so it cannot fail because of it. Then each fault runs those tests and the tests of its own requirement (the whole
suite for a switch read as the reference is built; a generated module whole, since Schemathesis' tests are selected by
module, not node id), and the requirements its run fails beyond its own are its collateral. Those COLLATERAL in
wallet_conformance/reference/faults.py declares are the document's consequences; any other is a defect.

Writes reports/precision.json and reports/precision.md; prints the undeclared collateral failures and the faults no
run killed, and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from selftests.suite_runs import GENERATED_NODES, QUICK_SETTLEMENT, QUICK_SILENCE, SETTLE_TIMEOUT  # noqa: E402
from selftests.switch_reach import AT_START  # noqa: E402
from wallet_conformance.reference.faults import COLLATERAL, FAULTS  # noqa: E402
from wallet_conformance.reporting.mutation import failed_beyond, killing_tests  # noqa: E402
from wallet_conformance.reporting.verdicts import Verdict  # noqa: E402
from wallet_conformance.spec import contract  # noqa: E402

REPORTS = ROOT / "reports"
LISTENING = ("--webhook-listen", "127.0.0.1:0")


def pytest(report_dir: Path, *args: str) -> dict | None:
    """One run of the suite in a fresh process; its conformance.json (None if it wrote none)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_XDIST")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:allure_pytest",
            "--report-dir",
            str(report_dir),
            "--tb=line",
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=False,
    )
    path = report_dir / "conformance.json"
    return json.loads(path.read_text()) if path.exists() else None


def reach(work: Path, seed: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Fault -> the tests during which the faithful reference read its switch; requirement -> the tests naming it."""
    path = work / "fault-reach.json"
    pytest(
        work / "reach", "tests", "--seed", seed, *LISTENING, "-p", "selftests.switch_reach", "--fault-reach", str(path)
    )
    pytest(work / "collection", "tests", "--collect-only")
    return json.loads(path.read_text()), json.loads((work / "collection" / "collection.json").read_text())


def selection(nodeids: set[str]) -> list[str]:
    """What to run for these node ids: the hand-written ones as they are, a generated one's whole module."""
    return sorted({nodeid.split("::")[0] if nodeid.startswith(GENERATED_NODES) else nodeid for nodeid in nodeids})


def failed(report: dict, requirement: str) -> bool:
    """Whether the run fails `requirement`: by its own check, or by a setup step that names it (in the whole suite a
    fixture may be the first to meet the fault, funding a wallet, say, and the report fails the requirement then)."""
    return bool(killing_tests(report, requirement)) or any(
        entry["id"] == requirement and entry["verdict"] == Verdict.FAIL for entry in report["requirements"]
    )


def precision(fault_name: str, tests: list[str], seed: str, work: Path) -> dict:
    """One fault's run over `tests`: killed or not, and the requirements it failed beyond its own."""
    fault = FAULTS[fault_name]
    timing = QUICK_SILENCE if fault.requirement_id == contract.ANSWERED else ()
    started = time.perf_counter()
    report = pytest(
        work / fault_name,
        *tests,
        "--reference-fault",
        fault_name,
        "--seed",
        seed,
        *LISTENING,
        "--settle-timeout",
        SETTLE_TIMEOUT,
        *QUICK_SETTLEMENT,
        *timing,
    )
    collateral = failed_beyond(report, fault.requirement_id) if report else []
    declared = COLLATERAL.get(fault, {})
    return {
        "fault": fault_name,
        "requirement": fault.requirement_id,
        "tests": len(tests),
        "killed": bool(report and failed(report, fault.requirement_id)),
        "collateral": collateral,
        "undeclared": [rid for rid in collateral if rid not in declared],
        "seconds": round(time.perf_counter() - started, 1),
        "report": report is not None,
    }


def write(rows: list[dict], seed: str) -> None:
    undeclared = [row for row in rows if row["undeclared"]]
    (REPORTS / "precision.json").write_text(json.dumps({"seed": seed, "faults": rows}, indent=2) + "\n")
    lines = [
        "# Precision of the faults over the whole suite",
        "",
        f"Seed {seed}. Every fault run over every test that makes the reference read its switch, and the tests "
        f"of its requirement: {sum(row['killed'] for row in rows)} of {len(rows)} killed; "
        f"{len(undeclared)} with undeclared collateral failures.",
        "",
        "| fault | requirement | tests run | killed | also failed | undeclared | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in sorted(rows, key=lambda row: (row["requirement"], row["fault"])):
        lines.append(
            f"| `{row['fault']}` | {row['requirement']} | {row['tests']} | "
            f"{'yes' if row['killed'] else '**NO**'} | {', '.join(row['collateral']) or '-'} | "
            f"{', '.join(f'**{rid}**' for rid in row['undeclared']) or '-'} | {row['seconds']} |"
        )
    (REPORTS / "precision.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", default="20261125")
    parser.add_argument("-j", dest="jobs", type=int, default=2, help="faults run at once (default 2)")
    parser.add_argument("--faults", nargs="+", default=sorted(FAULTS))
    arguments = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        reached, covering = reach(work, arguments.seed)
        every_test = sorted({nodeid for nodeids in covering.values() for nodeid in nodeids})

        def tests(fault_name: str) -> list[str]:
            if fault_name in reached[AT_START]:
                return ["tests"]
            found = set(reached.get(fault_name, ())) | set(covering.get(FAULTS[fault_name].requirement_id, ()))
            return selection(found & set(every_test))

        with ThreadPoolExecutor(arguments.jobs) as pool:
            rows = list(pool.map(lambda name: precision(name, tests(name), arguments.seed, work), arguments.faults))
    REPORTS.mkdir(exist_ok=True)
    write(rows, arguments.seed)
    undeclared = {row["fault"]: row["undeclared"] for row in rows if row["undeclared"]}
    survived = [row["fault"] for row in rows if not row["killed"]]
    print(
        f"{len(rows)} faults in {time.perf_counter() - started:.0f} s: {len(rows) - len(survived)} killed; "
        f"undeclared collateral: {undeclared or 'none'}; survived: {survived or 'none'}"
    )
    return 1 if undeclared or survived else 0


if __name__ == "__main__":
    sys.exit(main())
