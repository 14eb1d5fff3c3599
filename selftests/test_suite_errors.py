"""A bug of the suite is the suite's: an exception no check raised judges none of its test's requirements (verdict
suite-error, exit 6, the test's last exchanges shown), and a target's odd data fails the requirement it breaks."""

from __future__ import annotations

import json
from pathlib import Path

from selftests.hostile import Answer, Hostile, Request
from selftests.suite_runs import GENERATED, QUICK_SETTLEMENT, run_sample, run_suite
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.spec.catalogue import catalogue

SUITE_BUGS = '''
from wallet_conformance.judge import checks

@pytest.mark.requirement("SVC-05", "SVC-06")
def test_key_error(api):
    """Reads the banks, then trips over its own dictionary."""
    api.call("listBanks")
    {}["a key the suite forgot"]

@pytest.mark.requirement("SVC-07")
def test_bare_assert():
    """An assert the suite makes about itself."""
    assert 1 + 1 == 3, "the suite's arithmetic"

@pytest.mark.requirement("SVC-18")
def test_check_fails():
    """A failed check is the target's."""
    checks.equals(1, 2, "one is two")
'''


def test_an_exception_no_check_raised_is_a_suite_error(pytester):
    """A KeyError or a bare assert is a suite error shown with its traceback; a check still fails, shown by evidence."""
    result, report = run_sample(pytester, SUITE_BUGS)
    assert result.ret == ExitStatus.SUITE_ERROR, result.stdout.str()[-3000:]
    found = {entry["id"]: entry for entry in report["requirements"]}
    assert {rid: found[rid]["verdict"] for rid in ("SVC-05", "SVC-06", "SVC-07", "SVC-18")} == {
        "SVC-05": "suite-error",
        "SVC-06": "suite-error",
        "SVC-07": "suite-error",
        "SVC-18": "fail",
    }
    assert "KeyError" in found["SVC-05"]["reason"] and "AssertionError" in found["SVC-07"]["reason"]
    message = found["SVC-05"]["tests"][0]["message"]
    assert "no check raised" in message and "GET " in message and "/transactions/banks" in message, message
    assert report["outcome"]["suite_errors"] == ["SVC-05", "SVC-06", "SVC-07"]
    # A suite error keeps the traceback that finds the bug; the check's failure is its evidence alone.
    result.stdout.fnmatch_lines(['>*{}[[]"a key the suite forgot"[]]', "E*KeyError*", "[[]SVC-18[]] one is two"])
    assert "wallet_conformance/judge/" not in result.stdout.str()


def _pagination_null(request: Request, answer: Answer) -> Answer:
    """Every answer that carries meta.pagination carries it as null."""
    body = json.loads(answer.body) if answer.body and answer.content_type.startswith("application/json") else None
    if isinstance(body, dict) and isinstance(body.get("meta"), dict) and "pagination" in body["meta"]:
        body["meta"]["pagination"] = None
        return Answer(answer.status, json.dumps(body), answer.content_type, answer.headers)
    return answer


# The requirements about meta.pagination's fields: what a null pagination may fail.
PAGINATION_FIELDS = ("SVC-17", "SVC-18", "SVC-30", "SVC-32", "LIM-20", "LIM-21")
UNPAGED = ("test_schemathesis.py", "test_stateful.py", "test_boundaries.py")


def test_a_null_pagination_fails_the_pagination_requirements_and_nothing_else(tmp_path: Path):
    """A target answering "pagination": null fails SVC-17 (and what reads its fields), with no suite error: the
    hand-written tests and the generated paging walks (the other generated tests' lists meet the same exchange
    judge)."""
    key = "sk-pagination-null"
    assert all(
        (rid in catalogue() and "pagination" in catalogue()[rid].quote + catalogue()[rid].title)
        or "perPage" in catalogue()[rid].quote
        for rid in PAGINATION_FIELDS
    )
    with (
        ReferenceServer(secret_key=key, settle_delay=0.05) as reference,
        Hostile(lambda request: None, upstream=reference, rewrite=_pagination_null) as hostile,
    ):
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            hostile.base_url,
            "--secret-key",
            key,
            "--funding-url",
            hostile.funding_url,
            "--seed",
            "7",
            "-n",
            "2",
            *QUICK_SETTLEMENT,
            *(f"--ignore={GENERATED / name}" for name in UNPAGED),
        )
    assert report is not None, process.stdout[-3000:]
    failed = {entry["id"] for entry in report["requirements"] if entry["verdict"] in ("fail", "suite-error")}
    others = failed - set(PAGINATION_FIELDS)
    beyond = [entry.get("evidence", [])[:1] for entry in report["requirements"] if entry["id"] in others]
    assert "SVC-17" in failed and failed <= set(PAGINATION_FIELDS), (failed, beyond)
    assert not report["outcome"]["suite_errors"]
    assert process.returncode == ExitStatus.DOES_NOT_CONFORM, process.stdout[-3000:]
