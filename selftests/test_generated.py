"""The generated tests' machinery: house rules, request classification, profiles and seeds, paging discovery."""

from __future__ import annotations

import ast
import itertools
import json
import re
from typing import Any

import httpx
import hypothesis
import pytest
from hypothesis import strategies as st

from selftests.suite_runs import GENERATED, QUICK_SETTLEMENT, run_in_process, run_suite, tail
from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.generation import cases, profiles
from wallet_conformance.generation.cases import Request
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.reference import Fault, ReferenceServer
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists, page_checks

MODULES = sorted(GENERATED.glob("test_*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.name)
def test_every_generated_test_has_a_one_line_docstring(module):
    """Each generated test states in one line what it proves, like the hand-written ones."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    tests = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    assert tests, f"{module.name} holds no test"
    bad = [node.name for node in tests if not ast.get_docstring(node) or "\n" in ast.get_docstring(node).strip()]
    assert not bad, f"{module.name}: tests without a one-line docstring: {bad}"


@pytest.mark.parametrize(("profile", "accepted"), [("thorough", True), ("no-such-profile", False)])
def test_hypothesis_own_profile_option_names_the_suites_profiles(tmp_path, profile, accepted):
    """`--hypothesis-profile` (Hypothesis' own option) loads the suite's profiles by name, and refuses another name."""
    process, _, _ = run_suite(
        tmp_path / "reports",
        "--collect-only",
        "--hypothesis-profile",
        profile,
        paths=(str(GENERATED / "test_paging.py"),),
    )
    assert (process.returncode == 0) is accepted, tail(process)


def test_a_valid_transfer_has_no_problem():
    """A documented transfer body is valid; one below the minimum is a LIM-10 matter."""
    body = bodies.transfer("vba-1", "vba-2", contract.minimum_amount("transfer"))
    assert cases.request_problems(Request("transfer", body=body)) == []
    low = Request("transfer", body={**body, "amount": contract.minimum_amount("transfer") - 1})
    assert cases.invalid_input_requirement("transfer", cases.request_problems(low)) == "LIM-10"


def test_invalid_query_filters_are_never_judged():
    """An odd value of a query filter is a problem of the request, but the document says nothing of it."""
    problems = cases.request_problems(Request("listAccounts", query={"isDefault": "maybe"}))
    assert problems and cases.invalid_input_requirement("listAccounts", problems) is None


def test_collection_account_problems_name_their_limit():
    """expireIn outside its range, a short reference, a missing field: each names its own requirement."""
    body = bodies.collection_account("run", "vba-1")
    sent_bodies = {
        "LIM-14": {**body, "expireIn": 599},
        "LIM-16": {**body, "expireIn": 1801},
        "LIM-17": {**body, "reference": "abcd"},
        "END-21": {k: v for k, v in body.items() if k != "amount"},
    }
    for requirement, sent in sent_bodies.items():
        problems = cases.request_problems(Request("createCollectionAccount", body=sent))
        assert cases.invalid_input_requirement("createCollectionAccount", problems) == requirement, sent


def test_a_secondary_wallets_contact_problems_name_their_requirement():
    """A secondary wallet without mobile breaks LIM-07; with a mobile lacking a part, END-53; a primary wallet's
    partial mobile names nothing (the document requires it of secondary wallets only)."""
    body = bodies.wallet("run")
    partial = {**body, "mobile": {"phoneNumber": body["mobile"]["phoneNumber"]}}
    for requirement, sent in {
        "LIM-07": {k: v for k, v in body.items() if k != "mobile"},
        "END-53": partial,
        None: {**partial, "category": "primary"},
    }.items():
        problems = cases.request_problems(Request("createWallet", body=sent))
        assert cases.invalid_input_requirement("createWallet", problems) == requirement, sent


def test_every_rule_names_a_requirement_on_every_operation():
    """Each rule of the registry stands for catalogue requirements, and each operation's success answers are held
    to its resource's table, its status, its envelope."""
    from wallet_conformance.judge import rules
    from wallet_conformance.spec.catalogue import catalogue

    for rule in rules.RULES:
        assert rule.requirements and all(rid in catalogue() for rid in rule.requirements), rule.name
    for operation_id in contract.operations():
        held = {rule.name: requirement for rule, requirement in rules.applying(operation_id, ("success",))}
        assert {"json envelope", "success status", "resource table"} <= set(held), operation_id
    assert {"END-40", "LIM-10"} <= set(cases.valid_requirements("transfer", "END-40"))


def test_test_seeds_are_stable_and_distinct():
    """A test's seed depends on the run's seed and the test's name only."""
    assert profiles.test_seed(7, "a") == profiles.test_seed(7, "a")
    assert profiles.test_seed(7, "a") != profiles.test_seed(7, "b")
    assert profiles.test_seed(7, "a") != profiles.test_seed(8, "a")
    assert profiles.PROFILES["thorough"].cases > profiles.PROFILES["quick"].cases


def test_paging_discovery_finds_the_reference_parameters():
    """Against the reference, discovery finds page/perPage and a walk holds every wallet once."""
    with ReferenceServer() as server:
        api = ApiClient(server.base_url, server.secret_key)
        body = bodies.wallet("selftest")
        made = [api.call("createWallet", json_body=body).data["publicId"] for _ in range(5)]
        found = lists.discover(api, "listWallets")
        assert found == lists.Scheme("page", "perPage")
        walk = lists.walk(api, "listWallets", found, 2)
        assert sorted(walk.ids) == sorted(set(walk.ids)) and set(made) <= set(walk.ids)
        assert len(walk.exchanges) == 3
        api.close()


class AddsAWalletAfterOneRead(ApiClient):
    """A client after whose read of `params` another client of the account adds a wallet (once)."""

    def __init__(self, base_url: str, key: str, params: dict[str, int]) -> None:
        super().__init__(base_url, key)
        self.other = ApiClient(base_url, key)
        self.params, self.added = params, False

    def call(self, operation_id: str, *args: Any, **kwargs: Any) -> Exchange:
        exchange = super().call(operation_id, *args, **kwargs)
        if operation_id == "listWallets" and kwargs.get("params") == self.params and not self.added:
            self.added = True
            self.other.call("createWallet", json_body=bodies.wallet("selftest-other"))
        return exchange


def test_paging_discovery_is_not_fooled_by_an_entry_added_between_two_reads():
    """A list paged by offset and limit ignores `page`: a wallet added by another client between discovery's reads
    of page 2 and page 1 under page/limit makes the two differ, yet discovery finds offset/limit."""
    with ReferenceServer(variants=["PAGING_OFFSET_LIMIT"]) as server:
        setup = ApiClient(server.base_url, server.secret_key)
        for _ in range(5):
            setup.call("createWallet", json_body=bodies.wallet("selftest"))
        api = AddsAWalletAfterOneRead(server.base_url, server.secret_key, {"page": 2, "limit": lists.SMALL_PAGE})
        found = lists.discover(api, "listWallets")
        assert api.added, lists.notes(api, "listWallets")
        assert found == lists.Scheme("offset", "limit"), lists.notes(api, "listWallets")
        for client in (setup, api, api.other):
            client.close()


def test_paging_discovery_learns_a_page_number_counted_from_zero():
    """A list paged by `page` from 0 and `size`, current counting from 1: discovery numbers pages from 0, the first
    pages read show no numbering problem, and a walk holds every wallet once."""
    with ReferenceServer(variants=["PAGING_ZERO_BASED"]) as server:
        api = ApiClient(server.base_url, server.secret_key)
        made = [api.call("createWallet", json_body=bodies.wallet("selftest")).data["publicId"] for _ in range(5)]
        found = lists.discover(api, "listWallets")
        assert found == lists.Scheme("page", "size", first=0), lists.notes(api, "listWallets")
        assert found.params(1, 2) == {"page": 0, "size": 2}
        assert not page_checks.numbering_problems(lists.first_pages(api, "listWallets", found, 3), found)
        walk = lists.walk(api, "listWallets", found, 2)
        assert sorted(walk.ids) == sorted(set(walk.ids)) and set(made) <= set(walk.ids)
        assert [lists.pagination(page)["current"] for page in walk.exchanges] == [1, 2, 3]
        api.close()


def test_paging_discovery_is_not_fooled_about_the_first_page_by_an_entry_added_between_two_reads():
    """A wallet another client adds just after discovery's read of the first page without a page number makes
    neither page=1 nor page=0 match it; the first page is read again, and page=0 found first."""
    with ReferenceServer(variants=["PAGING_ZERO_BASED"]) as server:
        setup = ApiClient(server.base_url, server.secret_key)
        for _ in range(5):
            setup.call("createWallet", json_body=bodies.wallet("selftest"))
        api = AddsAWalletAfterOneRead(server.base_url, server.secret_key, {"size": lists.SMALL_PAGE})
        found = lists.discover(api, "listWallets")
        assert api.added, lists.notes(api, "listWallets")
        assert found == lists.Scheme("page", "size", first=0), lists.notes(api, "listWallets")
        for client in (setup, api, api.other):
            client.close()


def test_a_read_for_an_entry_past_the_last_page_it_reads_goes_on_in_large_pages():
    """An oldest-first transaction list longer than MAX_PAGES pages of the target's size: a read looking for the
    newest entry reads the list again, whole, in large pages, and finds it."""
    with ReferenceServer(variants=["LISTS_OLDEST_FIRST"]) as server:
        api = ApiClient(server.base_url, server.secret_key)
        wallet = api.call("createWallet", json_body=bodies.wallet("selftest")).data["publicId"]
        with httpx.Client(trust_env=False) as http:
            credits = [
                http.post(server.funding_url, json={"walletId": wallet, "amount": 100}).json()["data"]
                for _ in range(lists.MAX_PAGES * 10 + 5)
            ]
        newest = credits[-1]["reference"]
        read = lists.read(
            api,
            "listTransactions",
            until=lambda entries: any(
                isinstance(entry, dict) and entry.get("reference") == newest for entry in entries
            ),
        )
        assert any(entry.get("reference") == newest for entry in read.entries), read.note
        assert "then pages 1 to" in read.note, read.note
        api.close()


def test_one_seed_gives_the_same_verdicts(tmp_path):
    """Two runs of the generated tests with one seed give the same verdict for every requirement."""
    verdicts = []
    for index in range(2):
        process, report, _ = run_suite(
            tmp_path / str(index),
            "--seed",
            "4242",
            "-k",
            "around or unique or shapes",
            paths=("tests/generated/test_boundaries.py", "tests/generated/test_paging.py"),
        )
        assert report is not None, tail(process)
        verdicts.append({item["id"]: item["verdict"] for item in report["requirements"]})
    assert verdicts[0] == verdicts[1]
    assert report["seed"] == 4242


def test_a_failing_example_shows_what_hypothesis_drew(pytester):
    """A failing generated example prints the operation and the amount Hypothesis drew, never an empty `name=,`, and
    the request as sent, records bound, never the placeholder drawn before binding."""
    # Schemathesis swaps Hypothesis' printer of an example for one that prints nothing; profiles.run puts it back.
    faults = (Fault.WRONG_CLOSE_MESSAGE, Fault.BANK_TRANSFER_MINIMUM_MISSING)
    process, report, _ = run_in_process(
        pytester,
        pytester.path / "report",
        *(f"--reference-fault={fault.cli_name}" for fault in faults),
        *(f"--requirement={fault.requirement_id}" for fault in faults),
        "--seed",
        "7",
        *QUICK_SETTLEMENT,
        paths=("tests/generated/test_schemathesis.py", "tests/generated/test_boundaries.py"),
    )
    assert report is not None and process.returncode != 0, tail(process)
    output = process.stdout
    assert "sent=Request(closeWallet: DELETE /virtual-accounts/{walletId})," in output, output
    assert re.search(r"^sent: DELETE http://\S+/v1/virtual-accounts/vba-\d+$", output, re.M), output
    assert "path={'walletId'" not in output, output
    assert f"amount={contract.minimum_amount('bankTransfer') - 1}," in output, output
    assert not re.findall(r"\b\w+=,", output), output


def test_a_program_the_target_answers_two_ways_is_skipped_not_failed():
    """When a replayed example draws differently (the account changed under it), the test is a skip, not a failure."""
    calls = itertools.count()

    @hypothesis.given(st.data())
    def property_(data):
        data.draw(st.integers(0, 10))
        if next(calls) == 0:  # the first run draws once more and fails; its replay does neither
            data.draw(st.integers(0, 10))
            raise AssertionError("a failure that drew one value more than its replay")

    settings = profiles.hypothesis_settings(5, phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate])
    with pytest.raises(CannotJudge, match="answered one replayed program two ways"):
        profiles.run(property_, 1, settings)


def _page(ids: list[str], total: int) -> Exchange:
    body = {
        "meta": {"statusCode": 200, "success": True, "pagination": {"totalCount": total, "perPage": 2}},
        "data": [{"publicId": public_id} for public_id in ids],
    }
    return Exchange(
        "listWallets",
        "GET",
        "http://target/v1/virtual-accounts",
        [],
        None,
        200,
        [("content-type", "application/json")],
        json.dumps(body),
        0.0,
    )


@pytest.mark.parametrize(
    ("reads", "judged"),
    [
        # a paging fault reads the same every time: judged on the second read
        ([[["a", "b"], ["b", "c"]]] * 4, 2),
        # another client adds wallets between reads (totalCount moves): never judged
        (
            [[["a", "b"], ["b", "c"]], [["x", "a"], ["b", "c"]], [["y", "x"], ["a", "b"]], [["z", "y"], ["x", "a"]]],
            None,
        ),
        # the same size every time, the pages shifting anyway: the target's order is not stable, judged (last read)
        ([[["a", "b"], ["b", "c"]], [["c", "a"], ["a", "d"]], [["d", "b"], ["b", "a"]], [["b", "c"], ["c", "d"]]], 4),
    ],
    ids=["same-every-time", "list-growing", "order-unstable"],
)
def test_pages_are_judged_only_when_what_they_show_holds_still(reads, judged):
    """lists.judgeable judges a fault that reads alike or a list whose size held still, never one that changed."""
    totals = iter([4, 4, 5, 6, 7] if judged is None else [4] * 5)
    made: list[list[Exchange]] = []

    def read() -> list[Exchange]:
        total = next(totals)
        made.append([_page(ids, total) for ids in reads[len(made)]])
        return made[-1]

    found = lists.judgeable(read, 4)
    assert (found is None) if judged is None else (found is made[judged - 1]), (len(made), found)
