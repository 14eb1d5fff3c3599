"""Safe against real environments: production runs write nothing unless told (a run closing what it opened is
proven on test_suite's whole run)."""

from __future__ import annotations

import httpx
import pytest

from selftests.suite_runs import run_suite, tail
from wallet_conformance.reference import ReferenceServer

KEY = "sk_test_safety_selftest_0b7e2d"


def wallets(server: ReferenceServer) -> list[dict]:
    response = httpx.get(
        f"{server.base_url}/virtual-accounts",
        params={"perPage": 100},
        headers={"x-service-key": server.secret_key},
        trust_env=False,
    )
    return response.json()["data"]


def transactions(server: ReferenceServer) -> list[dict]:
    response = httpx.get(
        f"{server.base_url}/transactions", headers={"x-service-key": server.secret_key}, trust_env=False
    )
    return response.json()["data"]


@pytest.mark.long
def test_production_run_without_opt_in_writes_nothing(tmp_path):
    """With --environment production and no --allow-writes, no record is created and no money moves."""
    with ReferenceServer(secret_key=KEY) as server:
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--funding-url",
            server.funding_url,
            "--environment",
            "production",
        )
        assert wallets(server) == [] and transactions(server) == [], tail(process)
    assert report is not None and process.returncode == 0, tail(process)
    skipped = [entry for entry in report["requirements"] if entry["verdict"] == "skip"]
    assert any("writes are off in production" in (entry["reason"] or "") for entry in skipped)
    passed = {entry["id"] for entry in report["requirements"] if entry["verdict"] == "pass"}
    assert {"RES-05", "END-37", "END-38"} <= passed  # the read-only checks still ran


def test_production_writes_without_money_movement_move_no_money(tmp_path):
    """With --allow-writes but not --allow-money-movement, wallets may be made but no transfer is sent."""
    with ReferenceServer(secret_key=KEY) as server:
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--environment",
            "production",
            "--allow-writes",
            "--requirement",
            "SVC-25",
            "--requirement",
            "LIM-11",
        )
        moved = [t for t in transactions(server) if t.get("entry") == "debit"]
        assert moved == [], tail(process)
    assert report is not None
    reasons = {entry["id"]: entry["reason"] for entry in report["requirements"]}
    assert all("money movement is off in production" in (reasons[rid] or "") for rid in ("SVC-25", "LIM-11"))


def test_workers_share_one_money_budget(tmp_path):
    """Two workers' guards on one ledger: together they never reserve more than --max-amount."""
    from types import SimpleNamespace

    from wallet_conformance.world.safety import Guard, NotAllowed

    ledger = tmp_path / ".money-spent"
    ledger.write_text("")
    settings = SimpleNamespace(writes_allowed=True, money_allowed=True)
    first, second = (Guard(settings, budget=100_000, ledger=ledger) for _ in range(2))  # type: ignore[arg-type]
    first.spend(60_000)
    second.spend(40_000)
    with pytest.raises(NotAllowed, match="has 0 kobo left"):
        first.spend(1)
    assert ledger.read_text() == "100000"


def test_the_money_budget_is_strict_unless_a_funding_hook_makes_the_money():
    """Without --max-amount the budget is the strict one in production or without a funding hook, and the larger one
    in staging with a hook; --max-amount always wins."""
    from wallet_conformance.settings import HOOK_MONEY_BUDGET, MONEY_BUDGET, Settings
    from wallet_conformance.world.safety import money_budget

    hook = "http://127.0.0.1:9/sandbox/fund"
    assert money_budget(Settings(), hook) == HOOK_MONEY_BUDGET > MONEY_BUDGET
    assert money_budget(Settings(), None) == MONEY_BUDGET
    assert money_budget(Settings(environment="production"), hook) == MONEY_BUDGET
    assert money_budget(Settings(max_amount=7), hook) == 7
