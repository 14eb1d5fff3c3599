"""The mutation matrix: every fault of the reference turns at least one test of its own requirement red."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selftests.conftest import MATRIX_ROWS
from selftests.suite_runs import (
    GENERATED_NODES,
    HAND_WRITTEN,
    QUICK_SETTLEMENT,
    QUICK_SILENCE,
    SETTLE_TIMEOUT,
    collection,
    run_in_process,
    tail,
)
from wallet_conformance.reference.faults import COLLATERAL, FAULTS
from wallet_conformance.reporting.judging import recorded_session
from wallet_conformance.reporting.mutation import failed_beyond, killing_tests
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue


@pytest.fixture(scope="session")
def covering(tmp_path_factory) -> dict[str, list[str]]:
    return collection(tmp_path_factory.mktemp("collection"))


@pytest.fixture(scope="session")
def seed(pytestconfig: pytest.Config) -> str:
    return pytestconfig.getoption("--matrix-seed")


@pytest.mark.parametrize("fault_name", sorted(FAULTS))
def test_fault_is_killed_under_its_requirement(fault_name, pytester, covering, seed):
    """With the fault on, at least one test of the requirement it declares fails, and no requirement fails beyond it
    but those COLLATERAL declares (every run under one seed)."""
    fault = FAULTS[fault_name]
    tests = covering.get(fault.requirement_id)
    assert tests, f"fault {fault_name!r}: no test names {fault.requirement_id}"
    # Only the modules holding tests of the requirement are collected: the run stays short. The hand-written
    # modules run first; the generated ones (tests/generated/, seconds each) only when those let the fault live,
    # so a row killed by generated tests is a fault only generation catches.
    modules = sorted({nodeid.split("::")[0] for nodeid in tests})
    hand_written = [module for module in modules if not module.startswith(GENERATED_NODES)]
    generated = [module for module in modules if module.startswith(GENERATED_NODES)]
    killers, seconds, process, collateral = [], 0.0, None, set()
    recording = pytester.path / "run.har"  # the last run's exchanges: the one that killed the fault, if any
    timing = QUICK_SILENCE if fault.requirement_id == contract.ANSWERED else ()
    # Last, for a fault only the exchange judge sees (in an exchange no test of its requirement makes): every
    # hand-written test, the judge holding every exchange to the fault's requirement.
    everything = (["tests"], HAND_WRITTEN)
    for paths, selection in (
        (hand_written, ("--requirement", fault.requirement_id)),
        (generated, ("--requirement", fault.requirement_id)),
        everything,
    ):
        if killers or not paths:
            continue
        # --tb=line: the matrix reads the report, and pytest formats a long traceback by parsing the source of each
        # of its frames (about 0.1 s a failure, a fifth of a fault's run).
        process, report, took = run_in_process(
            pytester,
            pytester.path / "report",
            "--reference-fault",
            fault_name,
            *selection,
            "--seed",
            seed,
            "--record-har",
            str(recording),
            "--settle-timeout",
            SETTLE_TIMEOUT,
            *QUICK_SETTLEMENT,
            *timing,
            "--tb=line",
            paths=tuple(paths),
        )
        seconds += took
        assert report is not None, f"{fault_name}: the run wrote no report\n{tail(process)}"
        killers = killing_tests(report, fault.requirement_id)
        collateral.update(failed_beyond(report, fault.requirement_id))
    MATRIX_ROWS.mkdir(parents=True, exist_ok=True)
    row = {
        "fault": fault_name,
        "requirement": fault.requirement_id,
        "seed": seed,
        "level": catalogue()[fault.requirement_id].level,
        "description": fault.description,
        "killed": bool(killers),
        "killing_tests": killers,
        "seconds": round(seconds, 2),
        "only_generated": bool(killers) and all(test.startswith(GENERATED_NODES) for test in killers),
        "passive": passive_verdict(recording, fault.requirement_id),
        "collateral": sorted(collateral),
        "undeclared": sorted(collateral - set(COLLATERAL.get(fault, {}))),
    }
    (MATRIX_ROWS / f"{fault_name}.json").write_text(json.dumps(row, indent=2) + "\n")
    assert killers, (
        f"fault {fault_name!r} survived: no test of {fault.requirement_id} failed "
        f"({fault.description})\n{tail(process)}"
    )
    assert not row["undeclared"], (
        f"fault {fault_name!r} also failed {row['undeclared']}, which COLLATERAL does not "
        f"declare: a failure on the wrong requirement, or a fault breaking two statements\n"
        f"{tail(process)}"
    )


def passive_verdict(recording: Path, requirement: str) -> str:
    """The verdict the run's recording, judged as recorded traffic (--har), gives the fault's requirement."""
    if not recording.exists():
        return "untested"
    report = recorded_session(Settings(har_given=(str(recording),), har=(recording,))).report()
    return next(entry["verdict"] for entry in report["requirements"] if entry["id"] == requirement)


def test_an_inbound_credit_not_called_external_is_not_judged_by_the_external_sources_sentences(pytester):
    """Inbound credits with sourceType `external`: the sourceType requirement fails; the External sourceData shape
    (about External sources only) skips, and the `src-` prefix is judged only on the leg that says External."""
    process, report, _ = run_in_process(
        pytester,
        pytester.path / "report",
        "--reference-fault",
        "inbound-source-type-lowercase",
        "--requirement",
        "RES-04",
        "--requirement",
        "RES-70",
        "--requirement",
        "RES-62",
        *QUICK_SETTLEMENT,
        "--tb=line",
        paths=("tests/test_resources.py",),
    )
    assert report is not None, tail(process)
    verdicts = {entry["id"]: entry for entry in report["requirements"]}
    assert verdicts["RES-62"]["verdict"] == "fail", verdicts["RES-62"]
    assert verdicts["RES-70"]["verdict"] == "skip" and "STA-05" in verdicts["RES-70"]["reason"], verdicts["RES-70"]
    # The credit leg in meta.credit still says External: the prefix is judged there, and holds.
    assert verdicts["RES-04"]["verdict"] == "pass", verdicts["RES-04"]
