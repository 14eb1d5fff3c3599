"""The validating proxy (`wallet-conformance proxy`): traffic forwarded unchanged, judged on the side by the judge and
registry `--har` uses, against the bundled reference; and `wallet-conformance merge`."""

from __future__ import annotations

import json

import pytest

from selftests.proxy_traffic import caught_up, proxied
from selftests.suite_runs import HAND_WRITTEN, QUICK_SETTLEMENT, run_in_process, tail
from wallet_conformance.judge.traffic import judged_from_traffic


def verdicts(report: dict) -> dict[str, str]:
    return {entry["id"]: entry["verdict"] for entry in report["requirements"]}


def test_the_suites_active_run_through_the_proxy(pytester):
    """probe"""
    with proxied() as (reference, proxy):
        process, active, _ = run_in_process(
            pytester, pytester.path / "active", "--base-url", proxy.base_url, "--secret-key", reference.secret_key,
            "--second-secret-key", reference.second_secret_key,
            "--funding-url", proxy.base_url.removesuffix("/v1") + "/sandbox/fund", "--tb=line", *HAND_WRITTEN,
            paths=("tests",))
        caught_up(proxy)
        report = proxy.report()
    assert active is not None, tail(process)
    mine, theirs = verdicts(report), verdicts(active)
    diff = {rid: (theirs[rid], mine[rid]) for rid in judged_from_traffic() if mine[rid] != theirs[rid]}
    print(json.dumps(diff, indent=1))
    print(report["traffic"]["notes"], report["run"]["exchanges"], active["outcome"]["verdict"])
    for e in report["requirements"]:
        if e["verdict"] == "fail":
            print(e["id"], e["evidence"][0]["title"])
    assert not diff
