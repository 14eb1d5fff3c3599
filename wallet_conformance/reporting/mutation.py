"""The mutation matrix: for each fault of the reference, which tests of its requirement it turned red."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wallet_conformance.reporting.verdicts import Verdict

MATRIX_JSON = "mutation-matrix.json"
MATRIX_MD = "mutation-matrix.md"


def killing_tests(report: dict[str, Any], requirement: str) -> list[str]:
    """Tests whose check failed naming `requirement` in one conformance.json.

    A test stopped by a broken setup step, or by an error that names no requirement, does not count:
    the fault must be caught by the check of its own requirement.
    """
    for entry in report["requirements"]:
        if entry["id"] == requirement:
            return [test["nodeid"] for test in entry["tests"] if test["attributed"] and test["outcome"] == "failed"]
    return []


def failed_beyond(report: dict[str, Any], requirement: str) -> list[str]:
    """The requirements other than `requirement` that one conformance.json fails: a fault's collateral failures."""
    return [
        entry["id"]
        for entry in report["requirements"]
        if entry["verdict"] == Verdict.FAIL and entry["id"] != requirement
    ]


def _collateral(row: dict[str, Any]) -> str:
    """The precision column: what the fault's runs failed beyond its requirement, undeclared ones in bold."""
    undeclared = set(row.get("undeclared", ()))
    return ", ".join(f"**{rid}**" if rid in undeclared else rid for rid in row.get("collateral", ())) or "-"


def write_matrix(rows: list[dict[str, Any]], directory: Path) -> tuple[Path, Path]:
    """Write the matrix as JSON and Markdown; rows hold fault, requirement, level, killed, killing_tests, seconds,
    passive (the verdict of the requirement in the killing run's recording judged as recorded traffic), collateral
    (the other requirements its runs failed) and undeclared (those of them the fault does not declare)."""
    rows = sorted(rows, key=lambda row: (row["requirement"], row["fault"]))
    directory.mkdir(parents=True, exist_ok=True)
    killed = sum(1 for row in rows if row["killed"])
    only_generated = [row["fault"] for row in rows if row.get("only_generated")]
    undeclared = {row["fault"]: row["undeclared"] for row in rows if row.get("undeclared")}
    passive = [row["fault"] for row in rows if row.get("passive") == Verdict.FAIL]
    summary = {
        "faults": len(rows),
        "killed": killed,
        "survived": [row["fault"] for row in rows if not row["killed"]],
        "only_generated": only_generated,
        "recorded_traffic_shows": passive,
        "undeclared_collateral": undeclared,
    }
    json_path = directory / MATRIX_JSON
    json_path.write_text(json.dumps({"summary": summary, "faults": rows}, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Mutation matrix",
        "",
        f"{killed} of {len(rows)} faults of the reference server killed under their own requirement.",
        "",
        f"Precision: {sum(map(len, undeclared.values()))} undeclared collateral failures (requirements a fault's runs "
        "failed beyond its own and beyond those `COLLATERAL` in faults.py declares as the document's consequence)"
        + (": " + "; ".join(f"`{fault}` {', '.join(ids)}" for fault, ids in undeclared.items()) if undeclared else "")
        + ".",
        "",
        f"Killed only by the generated tests (tests/generated/; the hand-written ones let them live): "
        f"{', '.join(f'`{fault}`' for fault in only_generated) or 'none'}.",
        "",
        f"Failed again by the killing run's recording judged as recorded traffic (`--har`, the passive column): "
        f"{len(passive)} of {len(rows)}; a fault whose requirement needs an active run is `untested` there, and one "
        "whose exchanges a recording holds but no rule of the exchange judge or the registry reads passes.",
        "",
        "| fault | requirement | level | killed | killing tests | seconds | passive | also failed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        tests = "<br>".join(f"`{test}`" for test in row["killing_tests"][:3])
        if len(row["killing_tests"]) > 3:
            tests += f"<br>(+{len(row['killing_tests']) - 3} more)"
        lines.append(
            f"| `{row['fault']}` | {row['requirement']} | {row['level']} | "
            f"{'yes' if row['killed'] else '**NO**'} | {tests or '-'} | {row['seconds']:.1f} | "
            f"{row.get('passive', '-')} | {_collateral(row)} |"
        )
    md_path = directory / MATRIX_MD
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return json_path, md_path
