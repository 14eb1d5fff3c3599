"""The exchange judge: every rule one answer can break, held on every exchange of the run, whatever made it."""

from __future__ import annotations

import json

import pytest

from selftests.suite_runs import QUICK_SETTLEMENT, run_in_process, tail
from wallet_conformance.client.api import Exchange
from wallet_conformance.judge.exchanges import judge
from wallet_conformance.reference.faults import Fault


def exchange(operation_id: str, method: str, status: int, body: object, path: str = "/virtual-accounts",
             sent: object = None) -> Exchange:
    return Exchange(operation_id=operation_id, method=method, url=f"https://target.invalid/v1{path}",
                    request_headers=[], request_body=sent, status=status,
                    response_headers=[("content-type", "application/json")], text=json.dumps(body), elapsed=0.01)


def broken_requirements(found: list) -> set[str]:
    return {finding.requirement for finding in found}


def test_judge_holds_an_accepted_request_to_the_documented_limits():
    """A transfer below the minimum amount answered 201 breaks LIM-10; the same transfer refused breaks nothing of
    the limits."""
    sent = {"sourceType": "VirtualAccount", "source": "vba-1", "destinationType": "VirtualAccount",
            "destination": "vba-2", "amount": 1, "currency": "NGN", "narration": "below the minimum"}
    accepted = exchange("transfer", "POST", 201, {"meta": {"statusCode": 201, "success": True}, "data": {}},
                        "/transactions/transfer", sent)
    refused = exchange("transfer", "POST", 400, {"meta": {"statusCode": 400, "success": False, "message": "low"},
                                                 "data": None}, "/transactions/transfer", sent)
    assert "LIM-10" in broken_requirements(judge(accepted))
    assert "LIM-10" not in broken_requirements(judge(refused))


def test_judge_holds_an_answer_to_what_was_sent():
    """A created wallet of another category than the one sent breaks END-11; a verify answering another reference
    than the path's breaks END-28; answers that carry what was sent break neither."""
    sent = {"category": "primary", "accountName": "Ada Stores", "currency": "NGN"}
    wallet = {"meta": {"statusCode": 201, "success": True, "message": "created"},
              "data": {"category": "secondary", "accountName": "Ada Stores"}}
    assert "END-11" in broken_requirements(judge(exchange("createWallet", "POST", 201, wallet, sent=sent)))
    wallet["data"]["category"] = "primary"
    assert "END-11" not in broken_requirements(judge(exchange("createWallet", "POST", 201, wallet, sent=sent)))
    verified = {"meta": {"statusCode": 200, "success": True}, "data": {"reference": "other-reference"}}
    path = "/transactions/asked-reference/verify"
    assert "END-28" in broken_requirements(judge(exchange("verifyTransaction", "GET", 200, verified, path)))
    verified["data"]["reference"] = "asked-reference"
    assert "END-28" not in broken_requirements(judge(exchange("verifyTransaction", "GET", 200, verified, path)))


def test_judge_names_each_rule_an_answer_breaks_with_its_requirement():
    """A refusal whose meta.statusCode is not its HTTP status and whose success is true breaks two rules."""
    found = judge(exchange("listWallets", "GET", 404, {"meta": {"statusCode": 200, "success": True}, "data": None}))
    assert {finding.requirement for finding in found} >= {"ERR-07", "ERR-08"}, found
    assert all(finding.operation_id == "listWallets" for finding in found)


def test_judge_passes_a_conforming_answer_and_leaves_what_is_no_operation():
    """A conforming refusal breaks nothing; a request of no operation of the contract, or by another method, is
    not judged."""
    refusal = {"meta": {"statusCode": 404, "success": False, "message": "Wallet not found"}, "data": None}
    assert judge(exchange("getWallet", "GET", 404, refusal, "/virtual-accounts/wal-1")) == []
    assert judge(exchange(None, "GET", 404, "plain")) == []  # type: ignore[arg-type]
    assert judge(exchange("getWallet", "TRACE", 200, "plain")) == []


@pytest.mark.parametrize("paths", [("tests/generated/test_paging.py",)])
def test_judge_fails_a_rule_broken_only_in_a_paging_walk(pytester, paths):
    """A target whose later pages alone carry meta.success as a string (no test reads their envelope): the judge
    fails SVC-06 for each list, with the count of exchanges and the first one as evidence, named by operation."""
    fault = Fault.SUCCESS_AS_STRING_PAST_FIRST_PAGE
    process, report, _ = run_in_process(pytester, pytester.path / "report", "--reference-fault", fault.cli_name,
                                        *QUICK_SETTLEMENT, "--tb=line", paths=paths)
    assert report is not None, tail(process)
    entry = next(entry for entry in report["requirements"] if entry["id"] == "SVC-06")
    judged = [test for test in entry["tests"] if test["nodeid"].startswith("exchange-judge::SVC-06[")]
    assert entry["verdict"] == "fail" and judged, entry
    assert all(test["failed"] and test["attributed"] for test in judged)
    assert "exchange(s) of list" in judged[0]["message"] and "first seen during" in judged[0]["message"]
    evidence = entry["evidence"][0]
    assert evidence["exchange"]["curl"].startswith("curl") and "page=" in evidence["exchange"]["request"]
    assert report["run"]["exchanges"]["judged"] > 0 and process.returncode != 0


def test_faithful_run_judges_every_exchange_and_finds_nothing(pytester):
    """Against the faithful reference neither the judge nor the registry of records finds anything, and the judge
    judges the run's exchanges (those of an operation of the contract)."""
    process, report, _ = run_in_process(pytester, pytester.path / "report", *QUICK_SETTLEMENT,
                                        paths=("tests/test_endpoints.py",))
    assert report is not None, tail(process)
    judged = [test for entry in report["requirements"] for test in entry["tests"]
              if test["nodeid"].startswith(("exchange-judge::", "records::"))]
    assert not judged, judged
    counts = report["run"]["exchanges"]
    assert counts["judged"] > 100 and counts["judged"] <= counts["made"], counts
