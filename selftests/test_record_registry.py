"""The registry of records: the invariants between answers, held on constructed exchanges and on a run."""

from __future__ import annotations

import json
from typing import Any

from selftests.suite_runs import QUICK_SETTLEMENT, run_in_process, tail
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.exchanges import Finding
from wallet_conformance.judge.record_registry import INVARIANTS, RecordRegistry, contradictions
from wallet_conformance.judge.session import ExchangeJudge
from wallet_conformance.reference.faults import Fault
from wallet_conformance.spec import contract

WALLET = contract.prefix("walletId")
TRANSACTION = contract.prefix("transactionId")
MINE, THEIRS = "65a1f0c0000000000000000a", "65a1f0c0000000000000000b"  # two accounts' record ids


def answer(operation_id: str, data: Any, status: int = 200, sent: Any = None, text: str | None = None) -> Exchange:
    operation = contract.operations()[operation_id]
    body = {"meta": {"statusCode": status, "success": status < 400}, "data": data}
    return Exchange(
        operation_id=operation_id,
        method=operation.method,
        url=f"https://target.invalid/v1{operation.path}",
        request_headers=[],
        request_body=sent,
        status=status,
        response_headers=[("content-type", "application/json")],
        text=json.dumps(body) if text is None else text,
        elapsed=0.01,
    )


def wallet(number: int, owner: str = MINE, **shown: Any) -> dict[str, Any]:
    return {
        "publicId": f"{WALLET}{number:08d}",
        "accountNumber": f"91000000{number:02d}",
        "account": owner,
        "live": False,
        "balance": 0,
        **shown,
    }


def party(record: dict[str, Any], **shown: Any) -> dict[str, Any]:
    return {"publicId": record["publicId"], "accountNumber": record["accountNumber"], "reference": None, **shown}


def transaction(
    number: int, source: dict[str, Any], destination: dict[str, Any], owner: str = MINE, **shown: Any
) -> dict[str, Any]:
    return {
        "_id": f"t{number}",
        "publicId": f"{TRANSACTION}{number:010d}",
        "account": owner,
        "live": False,
        "entry": "debit",
        "amount": 10000,
        "reference": f"wt-{number:010d}",
        "status": contract.pending_state(),
        "source": source["publicId"],
        "sourceType": "VirtualAccount",
        "sourceData": party(source),
        "destination": destination["publicId"],
        "destinationType": "VirtualAccount",
        "destinationData": party(destination),
        **shown,
    }


def sent(source: dict[str, Any], destination: dict[str, Any]) -> dict[str, Any]:
    return {"source": source["publicId"], "destination": destination["publicId"], "amount": 10000}


def findings(*exchanges: Exchange) -> list[Finding]:
    return contradictions(exchanges)[0]


def at(exchange: Exchange, started: float, elapsed: float = 0.01) -> Exchange:
    """The exchange, its request sent at `started` (seconds since the epoch) and answered `elapsed` seconds later."""
    exchange.started, exchange.elapsed = started, elapsed
    return exchange


def test_a_generated_reference_two_transactions_show_is_caught():
    """Two transfers of one account answered with one reference: RES-79, naming the earlier transfer."""
    source, destination = wallet(1), wallet(2)
    first = transaction(1, source, destination)
    second = transaction(2, source, destination, reference=first["reference"])
    found = findings(
        answer("transfer", first, sent=sent(source, destination)),
        answer("transfer", second, sent=sent(source, destination)),
    )
    assert [(finding.requirement, finding.operation_id, finding.by) for finding in found] == [
        ("RES-79", "transfer", "records")
    ]
    failure = found[0].failure
    assert first["publicId"] in failure.title and second["publicId"] in failure.title
    assert "data of the transfer answer to POST https://target.invalid/v1/transactions/transfer" in failure.expected


def test_a_record_changing_identity_between_a_list_and_a_read_is_caught():
    """A wallet listed with another accountNumber than its read shows: RES-80, the read named as what it contradicts."""
    read = wallet(1, _id="w1")
    listed = {**read, "accountNumber": read["accountNumber"][::-1]}
    registry = RecordRegistry()
    assert registry.see(answer("getWallet", read), during="tests/test_x.py::test_read") == []
    found = registry.see(answer("listWallets", [wallet(2), listed]))
    assert [finding.requirement for finding in found] == ["RES-80"]
    expected = found[0].failure.expected
    assert "data of the getWallet answer" in expected and "(during tests/test_x.py::test_read)" in expected
    assert "data[1]" in str(found[0].failure.received)


def test_an_own_wallet_a_transaction_shows_with_another_number_is_caught():
    """A transaction of the wallet's own account showing it in sourceData with another accountNumber: RES-80."""
    source, destination = wallet(1), wallet(2)
    shown = transaction(1, source, destination, sourceData=party(source, accountNumber="9999999999"))
    found = findings(
        answer("createWallet", source, 201),
        answer("createWallet", destination, 201),
        answer("verifyTransaction", shown),
    )
    assert [finding.requirement for finding in found] == ["RES-80"]
    assert "data.sourceData" in found[0].failure.received


def test_conforming_answers_across_operations_and_two_accounts_pass():
    """Create, read, list, transfer, verify and list of transactions agree; another account's records, its own
    references, and its wallet as a transaction shows it (masked) contradict nothing."""
    mine, other, theirs = wallet(1), wallet(2), wallet(3, THEIRS)
    made = transaction(1, mine, other)
    settled = {**made, "status": contract.success_state(), "balance": 5000, "updatedAt": "later"}
    into_theirs = transaction(2, mine, theirs, destinationData=party(theirs, accountNumber="91******03"))
    their_own = transaction(3, theirs, theirs, THEIRS, reference=made["reference"])  # references: per account
    found, compared = contradictions(
        [
            answer("createWallet", {**mine, "id": 1}, 201),
            answer("createWallet", {**other, "id": 2}, 201),
            answer("getWallet", {**mine, "_id": "w1", "id": "w1", "balance": 7}),
            answer("listWallets", [{**other, "_id": "w2", "id": 2}, {**mine, "_id": "w1", "id": 1}]),
            answer("createWallet", {**theirs, "id": 3}, 201),
            answer("transfer", made, sent=sent(mine, other)),
            answer("verifyTransaction", settled),
            answer("transfer", into_theirs, sent=sent(mine, theirs)),
            answer("listTransactions", [into_theirs, settled]),
            answer("listTransactions", [their_own]),
            answer("closeWallet", {"publicId": other["publicId"], "accountNumber": other["accountNumber"]}),
            answer("getWallet", {**other, "_id": "w2", "id": "w2", "status": "closed"}),
        ]
    )
    assert found == [] and compared >= 6, (found, compared)


def test_a_transfer_accepted_after_its_wallet_closed_and_completed_is_caught():
    """A transfer from a wallet already closed that verifies `success` breaks STA-09; one that fails does not."""
    source, destination = wallet(1), wallet(2)
    closing = answer("closeWallet", {"publicId": source["publicId"], "accountNumber": source["accountNumber"]})
    completed = transaction(1, source, destination)
    failed = transaction(2, source, destination)
    found = findings(
        at(closing, 1000.0),
        at(answer("transfer", completed, sent=sent(source, destination)), 1001.0),
        at(answer("transfer", failed, sent=sent(source, destination)), 1002.0),
        answer("verifyTransaction", {**failed, "status": "failed"}),
        answer("verifyTransaction", {**completed, "status": contract.success_state()}),
    )
    assert [(finding.requirement, finding.operation_id) for finding in found] == [("STA-09", "verifyTransaction")]
    assert "data of the closeWallet answer" in str(found[0].failure.expected)


def test_a_transfer_sent_before_a_close_ended_is_not_judged_after_it_whatever_the_order_it_comes_in():
    """STA-09 follows when exchanges happened, not the order they are fed in (the proxy feeds them as they end): a
    transfer sent while the close was under way, or either of whose times is not known, that then completes breaks
    nothing; one sent after the close's answer ended does."""
    source, destination = wallet(1), wallet(2)
    made = transaction(1, source, destination)

    def run(close_started: float | None, transfer_started: float | None) -> list[str]:
        closing = answer("closeWallet", {"publicId": source["publicId"], "accountNumber": source["accountNumber"]})
        closing.started, closing.elapsed = close_started, 0.05
        transfer = answer("transfer", made, sent=sent(source, destination))
        transfer.started, transfer.elapsed = transfer_started, 0.5
        verified = answer("verifyTransaction", {**made, "status": contract.success_state()})
        return [finding.requirement for finding in findings(closing, transfer, verified)]

    assert run(1000.1, 1000.0) == []  # sent before the close, answered after it: fed after it by the proxy
    assert run(1000.1, 1000.12) == []  # sent while the close was under way
    assert run(None, 1001.0) == [] and run(1000.1, None) == []
    assert run(1000.1, 1001.0) == ["STA-09"]


def test_a_collection_reference_two_collection_accounts_of_one_account_show_is_caught():
    """One reference on two collection accounts of one account breaks LIM-19; on another account's, nothing."""

    def collection(number: int, owner: str) -> dict[str, Any]:
        return {
            "publicId": f"{WALLET}c{number:07d}",
            "accountNumber": f"92000000{number:02d}",
            "account": owner,
            "live": False,
            "reference": "order-17",
        }

    created = [
        answer("createCollectionAccount", collection(number, owner), 201)
        for number, owner in ((1, MINE), (2, THEIRS), (3, MINE))
    ]
    assert [finding.requirement for finding in findings(*created[:2])] == []
    assert [finding.requirement for finding in findings(*created)] == ["LIM-19"]


def test_an_account_number_is_held_to_one_open_record_at_a_time():
    """RES-79: a number two open virtual accounts show is caught; one shown again after its wallet closed, or after
    its collection account expired, names the new record alone."""

    def collection(number: int, account_number: str, created: str, expiration: str) -> dict[str, Any]:
        return {
            "publicId": f"{WALLET}c{number:07d}",
            "accountNumber": account_number,
            "account": MINE,
            "live": False,
            "reference": f"order-{number}",
            "createdAt": created,
            "expiration": expiration,
        }

    first = answer(
        "createCollectionAccount",
        collection(1, "9300000001", "2026-01-01T10:00:00.000Z", "2026-01-01T10:10:00.000Z"),
        201,
    )
    while_open = answer(
        "createCollectionAccount",
        collection(2, "9300000001", "2026-01-01T10:05:00.000Z", "2026-01-01T10:15:00.000Z"),
        201,
    )
    once_expired = answer(
        "createCollectionAccount",
        collection(3, "9300000001", "2026-01-01T10:20:00.000Z", "2026-01-01T10:30:00.000Z"),
        201,
    )
    assert [finding.requirement for finding in findings(first, while_open)] == ["RES-79"]
    assert findings(first, once_expired) == []
    closed, successor = wallet(1), wallet(2)
    successor["accountNumber"] = closed["accountNumber"]
    close = answer("closeWallet", {"publicId": closed["publicId"], "accountNumber": closed["accountNumber"]})
    assert [
        finding.requirement for finding in findings(answer("getWallet", closed), answer("getWallet", successor))
    ] == ["RES-79"]
    assert findings(answer("getWallet", closed), close, answer("getWallet", successor)) == []


def test_a_closed_wallet_read_or_listed_after_its_number_passed_on_breaks_nothing():
    """A closed wallet still reads and lists (STA-10: not shown): once its number names a new wallet, a view of the
    closed one claims the number no more; a wallet never closed that shows it still breaks RES-79."""
    closed, successor, other = wallet(1), wallet(2), wallet(3)
    successor["accountNumber"] = other["accountNumber"] = closed["accountNumber"]
    made = [
        answer("createWallet", closed, 201),
        answer("closeWallet", {"publicId": closed["publicId"], "accountNumber": closed["accountNumber"]}),
        answer("createWallet", successor, 201),
    ]
    assert findings(*made, answer("listWallets", [successor, closed]), answer("getWallet", closed)) == []
    assert [finding.requirement for finding in findings(*made, answer("getWallet", other))] == ["RES-79"]


def test_a_wallet_the_traffic_never_showed_may_be_withheld_but_the_callers_own_may_not():
    """A transaction's party and a collection account's parent wallet the registry never saw may be another
    business's, whose details it may withhold; one the registry saw owned by the caller's account may not."""
    source, destination = wallet(1), wallet(2)
    made = answer("transfer", transaction(1, source, destination), sent=sent(source, destination))
    collected = answer(
        "createCollectionAccount",
        {"publicId": f"{WALLET}c0000001", "accountNumber": "9200000001", "account": MINE, "live": False},
        201,
        sent={"destination": destination["publicId"]},
    )
    unseen = RecordRegistry()
    assert "data.destinationData.accountNumber" in unseen.withheld(made)
    assert "data.parentAccountNumber" in unseen.withheld(collected)
    own = RecordRegistry()
    own.see(answer("getWallet", destination))
    assert "data.destinationData.accountNumber" not in own.withheld(made)
    assert "data.parentAccountNumber" not in own.withheld(collected)
    theirs = RecordRegistry()
    theirs.see(answer("getWallet", wallet(2, THEIRS)))
    assert "data.destinationData.accountNumber" in theirs.withheld(made)
    assert "data.parentAccountNumber" in theirs.withheld(collected)


def test_an_exchange_is_held_to_an_invariant_only_where_it_was_compared():
    """The first collection account an exchange shows is held to no invariant (there was nothing to compare it with);
    a second of the account is held to LIM-19 and RES-79 (its reference and number against the first's), not RES-80
    (no earlier view of it); a wallet read again is held to RES-80."""

    def collection(number: int) -> dict[str, Any]:
        return {
            "publicId": f"{WALLET}c{number:07d}",
            "accountNumber": f"92000000{number:02d}",
            "account": MINE,
            "live": False,
            "reference": f"order-{number}",
        }

    judge = ExchangeJudge()
    invariants = set(INVARIANTS)
    assert judge.take(answer("createCollectionAccount", collection(1), 201)) & invariants == set()
    second = judge.take(answer("createCollectionAccount", collection(2), 201)) & invariants
    assert {"LIM-19", "RES-79"} <= second and "RES-80" not in second
    assert "RES-80" not in judge.take(answer("getWallet", wallet(1)))
    assert "RES-80" in judge.take(answer("getWallet", wallet(1)))


def test_refusals_cut_bodies_and_text_show_no_record():
    """A refusal, a body the client cut and an answer that is not JSON are not taken."""
    read = wallet(1)
    refused = answer("getWallet", {**read, "accountNumber": "0"}, status=404)
    cut = answer("getWallet", {**read, "accountNumber": "1"})
    cut.size = 10**7
    text = answer("getWallet", None, text="<html>not json</html>")
    assert findings(answer("getWallet", read), refused, cut, text) == []


def test_memory_is_bounded():
    """At its limit the registry forgets the record it learnt longest ago for each new one, counts what it forgot, and
    holds the records it still knows to the invariants."""
    registry = RecordRegistry(limit=1)
    registry.see(answer("getWallet", wallet(1)))
    assert registry.see(answer("getWallet", wallet(2))) == []
    assert registry.forgotten["records"] == 1
    assert [f.requirement for f in registry.see(answer("getWallet", wallet(2, accountNumber="1")))] == ["RES-80"]
    assert registry.see(answer("getWallet", wallet(1, accountNumber="1"))) == []


def test_a_run_fails_a_record_changing_identity_that_no_test_of_its_requirement_looks_at(pytester):
    """Wallet list entries showing another accountNumber, in a run of the wallet list's own tests only: the registry
    fails RES-80 for listWallets, its evidence the contradicting list and its message the earlier answer."""
    fault = Fault.WALLET_LIST_NUMBER_REVERSED
    process, report, _ = run_in_process(
        pytester,
        pytester.path / "report",
        "--reference-fault",
        fault.cli_name,
        "-k",
        "test_wallet_list_is_paged_wallets",
        *QUICK_SETTLEMENT,
        "--tb=line",
        paths=("tests/test_endpoints.py",),
    )
    assert report is not None, tail(process)
    entry = next(entry for entry in report["requirements"] if entry["id"] == fault.requirement_id)
    judged = [test for test in entry["tests"] if test["nodeid"] == "records::RES-80[listWallets]"]
    assert entry["verdict"] == "fail" and judged and judged[0]["attributed"], entry
    assert "first seen during tests/test_endpoints.py::" in judged[0]["message"]
    evidence = entry["evidence"][0]
    assert "of the createWallet answer to POST " in evidence["expected"]
    assert evidence["exchange"]["curl"].startswith("curl")
    assert evidence["exchange"]["request"].startswith("GET ") and evidence["rule"] == "one record, one identity"
