"""The exchange judge: every rule one answer can break, held on every exchange of the run, whatever made it."""

from __future__ import annotations

import json

import httpx
import pytest

from selftests import examples as ex
from selftests.suite_runs import QUICK_SETTLEMENT, run_in_process, tail
from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.exchanges import findings_of
from wallet_conformance.judge.record_registry import RecordRegistry
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.faults import Fault
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies


def exchange(
    operation_id: str, method: str, status: int, body: object, path: str = "/virtual-accounts", sent: object = None
) -> Exchange:
    return Exchange(
        operation_id=operation_id,
        method=method,
        url=f"https://target.invalid/v1{path}",
        request_headers=[],
        request_body=sent,
        status=status,
        response_headers=[("content-type", "application/json")],
        text=json.dumps(body),
        elapsed=0.01,
    )


def broken_requirements(found: list) -> set[str]:
    return {finding.requirement for finding in found}


def test_judge_holds_an_accepted_request_to_the_documented_limits():
    """A transfer below the minimum amount answered 201 breaks LIM-10; the same transfer refused breaks nothing of
    the limits."""
    sent = {
        "sourceType": "VirtualAccount",
        "source": "vba-1",
        "destinationType": "VirtualAccount",
        "destination": "vba-2",
        "amount": 1,
        "currency": "NGN",
        "narration": "below the minimum",
    }
    accepted = exchange(
        "transfer",
        "POST",
        201,
        {"meta": {"statusCode": 201, "success": True}, "data": {}},
        "/transactions/transfer",
        sent,
    )
    refused = exchange(
        "transfer",
        "POST",
        400,
        {"meta": {"statusCode": 400, "success": False, "message": "low"}, "data": None},
        "/transactions/transfer",
        sent,
    )
    assert "LIM-10" in broken_requirements(findings_of(accepted))
    assert "LIM-10" not in broken_requirements(findings_of(refused))


def test_judge_holds_an_answer_to_what_was_sent():
    """A created wallet of another category than the one sent breaks END-11; a verify answering another reference
    than the path's breaks END-28; answers that carry what was sent break neither."""
    sent = {"category": "primary", "accountName": "Ada Stores", "currency": "NGN"}
    wallet = {
        "meta": {"statusCode": 201, "success": True, "message": "created"},
        "data": {"category": "secondary", "accountName": "Ada Stores"},
    }
    assert "END-11" in broken_requirements(findings_of(exchange("createWallet", "POST", 201, wallet, sent=sent)))
    wallet["data"]["category"] = "primary"
    assert "END-11" not in broken_requirements(findings_of(exchange("createWallet", "POST", 201, wallet, sent=sent)))
    verified = {"meta": {"statusCode": 200, "success": True}, "data": {"reference": "other-reference"}}
    path = "/transactions/asked-reference/verify"
    assert "END-28" in broken_requirements(findings_of(exchange("verifyTransaction", "GET", 200, verified, path)))
    verified["data"]["reference"] = "asked-reference"
    assert "END-28" not in broken_requirements(findings_of(exchange("verifyTransaction", "GET", 200, verified, path)))


def test_the_rules_declared_on_the_checks_are_held_in_the_registrys_order():
    """Every rule a check declares (`@rule`) is in the registry, in the place ORDER gives its name; one check may
    declare several (meta_success_is: true on a success, false on a refusal that carries meta)."""
    from wallet_conformance.judge import rules
    from wallet_conformance.judge.rule import declared_rules

    names = [held.name for held in rules.RULES]
    assert set(rules.RULES) == set(declared_rules()) and names == sorted(names, key=rules.ORDER.index)
    by_name = {held.name: held for held in rules.RULES}
    assert by_name["meta.success true"].requirements == ("ERR-03",)
    assert by_name["error meta.success false"].when == "client-error"
    refusal = exchange(
        "getWallet", "GET", 404, {"meta": {"statusCode": 404, "success": True}, "data": None}, "/virtual-accounts/vba-1"
    )
    assert "ERR-08" in broken_requirements(findings_of(refusal))
    bare = exchange("getWallet", "GET", 404, {"message": "not found"}, "/virtual-accounts/vba-1")
    assert {"ERR-06"} <= broken_requirements(findings_of(bare))
    assert "ERR-08" not in broken_requirements(findings_of(bare))


def test_a_refusals_meta_is_held_at_its_own_level():
    """A refusal is an envelope (ERR-06, MUST); what its meta holds is ERR-07's and ERR-08's (SHOULD: the error shape
    is not shown), so a meta without statusCode or success, or with them as strings, fails those alone."""
    path = "/virtual-accounts/vba-1"
    for meta, broken in [
        ({"success": False, "message": "Unauthorized"}, {"ERR-07"}),
        ({"statusCode": "404", "success": False}, {"ERR-07"}),
        ({"statusCode": 404}, {"ERR-08"}),
        ({"statusCode": 404, "success": "false"}, {"ERR-08"}),
    ]:
        found = broken_requirements(findings_of(exchange("getWallet", "GET", 404, {"meta": meta, "data": None}, path)))
        assert found == broken, (meta, found)


@pytest.mark.parametrize(
    ("status", "headers", "text", "broken"),
    [
        (304, [("etag", '"v1"')], "", set()),  # HTTP gives a 304 no content (RFC 9110 section 15.4.5)
        (502, [("content-type", "text/html")], "<html>bad gateway</html>", {"ERR-05"}),
        (504, [("content-type", "text/plain")], "upstream timed out", {"ERR-05"}),
        (500, [("content-type", "text/html")], "<html>error</html>", {"ERR-05", "ERR-06"}),
    ],
)
def test_an_answer_http_or_a_gateway_gives_no_envelope_is_not_held_to_one(status, headers, text, broken):
    """A 304 (no content by HTTP) and a gateway's 502 or 504 are no operation's own answer: ERR-06 does not hold them;
    a 500 is the service's, and is held."""
    answer = Exchange(
        "getWallet", "GET", "https://target.invalid/v1/virtual-accounts/vba-1", [], None, status, headers, text, 0.01
    )
    assert broken_requirements(findings_of(answer)) == broken


def test_a_null_pagination_is_no_pagination_object_on_the_bank_list():
    """The bank list has no pagination object (END-38): none, or a null one as a serialiser writing every field of
    meta gives it, conforms; an object fails."""
    banks = ex.envelope([ex.BANK], message="successful")
    for pagination, broken in [(None, set()), (ex.PAGINATION, {"END-38"})]:
        banks["meta"]["pagination"] = pagination
        answer = exchange("listBanks", "GET", 200, banks, "/transactions/banks")
        assert broken_requirements(findings_of(answer)) == broken, pagination


def test_webhooks_held_in_their_normal_form_are_the_webhooks_sent():
    """An update's answer holding each webhook in its RFC 3986 normal form holds the URLs sent (END-02); another URL
    does not."""
    sent = ["HTTPS://Hooks.Example:443", "https://hooks.example/a/./b/%7euser"]
    for held, broken in [
        (["https://hooks.example/", "https://hooks.example/a/b/~user"], False),
        (["https://hooks.example/", "https://hooks.example/a/b/other"], True),
    ]:
        account = {**ex.fresh(ex.ACCOUNT), "webhooks": held}
        body = ex.envelope(account, message=contract.success_message("updateAccount"))
        answer = exchange("updateAccount", "PATCH", 200, body, f"/accounts/{account['publicId']}", {"webhooks": sent})
        assert ("END-02" in broken_requirements(findings_of(answer))) is broken, held


PARTIES = {"RES-68", "RES-82", "RES-83", "RES-84"}


def transfer_answer(transaction: dict) -> Exchange:
    """The answer to the wallet transfer of the examples (its source to its destination) showing `transaction`."""
    sent = {
        "source": ex.TRANSFER["source"],
        "sourceType": "VirtualAccount",
        "destination": ex.TRANSFER["destination"],
        "destinationType": "VirtualAccount",
        "amount": 10000,
        "currency": "NGN",
        "narration": "rent share",
    }
    return exchange(
        "transfer", "POST", 200, ex.envelope(transaction, message="successful"), "/transactions/transfer", sent
    )


def test_judge_holds_every_place_that_repeats_a_party_to_the_wallet_named():
    """The answer to a transfer names the wallets sent in its source and destination (RES-68), their data (RES-82),
    its credit leg's destination (RES-83) and source (RES-84); each place changed fails its own requirement only."""
    assert not PARTIES & broken_requirements(findings_of(transfer_answer(ex.fresh(ex.TRANSFER))))
    for place, value, requirement in [
        ("destination", ex.TRANSFER["source"], "RES-68"),
        ("destinationData", ex.WALLET_PARTY, "RES-82"),
        ("meta.credit.destination", "66389601c1b2d3e4f5a6b7d1", "RES-83"),
        ("meta.credit.destinationData", ex.WALLET_PARTY, "RES-83"),
        ("meta.credit.source", ex.TRANSFER["destination"], "RES-84"),
    ]:
        transaction = ex.fresh(ex.TRANSFER)
        *parents, name = place.split(".")
        held = transaction
        for parent in parents:
            held = held[parent]
        held[name] = value
        assert PARTIES & broken_requirements(findings_of(transfer_answer(transaction))) == {requirement}, place
    pending = ex.fresh(ex.TRANSFER)
    del pending["meta"]["credit"]  # no credit leg while pending: nothing of the leg is judged
    assert not PARTIES & broken_requirements(findings_of(transfer_answer(pending)))


def test_judge_holds_a_read_transaction_to_the_parties_it_names():
    """A listed transaction whose destinationData or credit leg names another wallet than its destination breaks RES-82
    or RES-83; one whose destination is no wallet publicId (RES-68's matter) is not held to it; an inbound credit's
    leg without linkRef breaks RES-81."""

    def listed(transaction: dict) -> set[str]:
        answer = ex.envelope([transaction], pagination=ex.PAGINATION)
        return broken_requirements(findings_of(exchange("listTransactions", "GET", 200, answer, "/transactions")))

    assert not (PARTIES | {"RES-81"}) & listed(ex.fresh(ex.TRANSFER))
    assert not (PARTIES | {"RES-81"}) & listed(ex.fresh(ex.INBOUND_CREDIT))
    described_wrong = ex.fresh(ex.TRANSFER) | {"destinationData": ex.WALLET_PARTY}
    assert PARTIES & listed(described_wrong) == {"RES-82"}
    leg_wrong = ex.fresh(ex.TRANSFER)
    leg_wrong["meta"]["credit"]["destination"] = ex.TRANSFER["source"]
    assert PARTIES & listed(leg_wrong) == {"RES-83"}
    not_a_public_id = ex.fresh(ex.TRANSFER) | {"destination": ex.OTHER_WALLET_PARTY["accountNumber"]}
    assert not {"RES-82", "RES-83"} & listed(not_a_public_id)
    inbound = ex.fresh(ex.INBOUND_CREDIT)
    del inbound["meta"]["credit"]["linkRef"]
    assert "RES-81" in listed(inbound)
    typed_as_a_list = ex.fresh(ex.TRANSFER) | {"sourceType": []}  # no party type: names nothing, breaks its table
    assert "RES-60" in listed(typed_as_a_list) and not {"RES-82", "RES-84"} & listed(typed_as_a_list)


def test_judge_names_each_rule_an_answer_breaks_with_its_requirement():
    """A refusal whose meta.statusCode is not its HTTP status and whose success is true breaks two rules."""
    answer = {"meta": {"statusCode": 200, "success": True}, "data": None}
    found = findings_of(exchange("listWallets", "GET", 404, answer))
    assert {finding.requirement for finding in found} >= {"ERR-07", "ERR-08"}, found
    assert all(finding.operation_id == "listWallets" for finding in found)


def test_judge_passes_a_conforming_answer_and_leaves_what_is_no_operation():
    """A conforming refusal breaks nothing; a request of no operation of the contract, or by another method, is
    not judged."""
    refusal = {"meta": {"statusCode": 404, "success": False, "message": "Wallet not found"}, "data": None}
    assert findings_of(exchange("getWallet", "GET", 404, refusal, "/virtual-accounts/wal-1")) == []
    assert findings_of(exchange(None, "GET", 404, "plain")) == []  # type: ignore[arg-type]  # None: of no operation
    assert findings_of(exchange("getWallet", "TRACE", 200, "plain")) == []


@pytest.mark.parametrize("paths", [("tests/generated/test_paging.py",)])
def test_judge_fails_a_rule_broken_only_in_a_paging_walk(pytester, paths):
    """A target whose later pages alone carry meta.success as a string (no test reads their envelope): the judge
    fails SVC-06 for each list, with the count of exchanges and the first one as evidence, named by operation."""
    fault = Fault.SUCCESS_AS_STRING_PAST_FIRST_PAGE
    process, report, _ = run_in_process(
        pytester,
        pytester.path / "report",
        "--reference-fault",
        fault.cli_name,
        *QUICK_SETTLEMENT,
        "--tb=line",
        paths=paths,
    )
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
    process, report, _ = run_in_process(
        pytester, pytester.path / "report", *QUICK_SETTLEMENT, paths=("tests/test_endpoints.py",)
    )
    assert report is not None, tail(process)
    judged = [
        test
        for entry in report["requirements"]
        for test in entry["tests"]
        if test["nodeid"].startswith(("exchange-judge::", "records::"))
    ]
    assert not judged, judged
    counts = report["run"]["exchanges"]
    assert counts["judged"] > 100 and counts["judged"] <= counts["made"], counts


def withheld_credit_leg() -> tuple[list[Exchange], Exchange, Exchange]:
    """Against the reference withholding another business's wallet (variant other-business-withheld): the answers that
    made the payer's wallet and the payee's (each under its own key), the payee's wallet read, and the payer's verify
    of a settled transfer into it, whose credit leg shows the payee's balance null and its number left out."""
    server = ReferenceServer(variants=["other-business-withheld"], settle_delay=None).start()
    payer, payee = ApiClient(server.base_url, server.secret_key), ApiClient(server.base_url, server.second_secret_key)
    try:
        made = [
            payer.call("createWallet", json_body=bodies.wallet("judge", "secondary")),
            payee.call("createWallet", json_body=bodies.wallet("judge", "secondary")),
        ]
        source, destination = (exchange.data["publicId"] for exchange in made)
        httpx.post(server.funding_url, json={"walletId": source, "amount": 30_000}).raise_for_status()
        sent = payer.call("transfer", json_body=bodies.transfer(source, destination)).data
        httpx.post(server.settle_url).raise_for_status()
        verify = payer.call("verifyTransaction", {"reference": sent["reference"]})
        return made, payee.call("getWallet", {"walletId": destination}), verify
    finally:
        payer.close()
        payee.close()
        server.stop()


def test_another_business_may_withhold_its_wallet_but_the_caller_may_not():
    """A credit leg withholding another account's wallet (balance null, number absent, name masked) breaks nothing,
    nor does it about a wallet the traffic never showed (one client's traffic need never read the payee's wallet);
    the same answer about a wallet the run saw as the caller's own fails RES-60."""
    made, theirs, verify = withheld_credit_leg()
    assert verify.data["meta"]["credit"]["balance"] is None
    assert "accountNumber" not in verify.data["meta"]["credit"]["destinationData"]
    registry = RecordRegistry()
    for seen in made:
        registry.see(seen)
    assert not broken_requirements(findings_of(verify, registry.withheld(verify)))
    mine = json.loads(theirs.text)
    mine["data"]["account"] = verify.data["account"]  # the payee's wallet, as if the caller's account owned it
    own = RecordRegistry()
    own.see(exchange("getWallet", "GET", 200, mine, "/virtual-accounts/w"))
    assert "RES-60" in broken_requirements(findings_of(verify, own.withheld(verify)))
    assert not broken_requirements(findings_of(verify, RecordRegistry().withheld(verify)))
