"""Keys and tenants: the key's near-copies, what the client can send, the run's own account told by its wallets, the
isolation tests without a second key, production runs that write nothing with either key, and a public key that
moves money raised loudly."""

from __future__ import annotations

import socketserver
import threading

import httpx

from selftests.conftest import wallet_body
from selftests.suite_runs import run_suite, tail
from selftests.tenants import NON_DEFAULT, add_key, reference_with_second_key
from wallet_conformance.client.api import KEY_HEADER, ApiClient
from wallet_conformance.client.near_copies import NEAR_COPIES, near_copy
from wallet_conformance.client.redaction import PLACEHOLDER, redact, register_key
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.conformance import build_report
from wallet_conformance.reporting.results import TestRecord
from wallet_conformance.reporting.terminal import summary
from wallet_conformance.reporting.writers import markdown
from wallet_conformance.spec.catalogue import catalogue

KEY = "sk_test_tenants_selftest_first_3d8b1f"
SECOND_KEY = "sk_test_tenants_selftest_second_9a4c2e"
ISOLATION = ("AUTH-10", "AUTH-11", "AUTH-12", "AUTH-13", "AUTH-14", "AUTH-15")


def test_near_copies_differ_from_the_value_and_from_each_other():
    """Each near-copy of a key differs from it; a value without letters has no other-case copy."""
    copies = [near_copy(KEY, kind) for kind in NEAR_COPIES]
    assert KEY not in copies and len(set(copies)) == len(copies)
    assert near_copy("0123-4567", "other-case") is None


def test_a_near_copy_of_a_registered_key_is_redacted():
    """A target echoing a near-copy of the key (all but its last character, another case) shows none of it."""
    register_key(KEY)
    echoed = f"unknown key {KEY[:-1]}X and {KEY.swapcase()}"
    assert KEY[:-1] not in redact(echoed) and KEY.swapcase() not in redact(echoed) and PLACEHOLDER in redact(echoed)


def test_client_sends_whitespace_around_a_key_as_it_is():
    """A key with whitespace around it (which httpx will not write) goes on the wire as it is, the answer is read,
    and the exchange shows no key."""
    received: list[bytes] = []

    class Raw(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            data = b""
            while b"\r\n\r\n" not in data:
                data += self.request.recv(4096)
            received.append(data)
            body = b'{"meta": {"statusCode": 200, "success": true}, "data": []}'
            self.request.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )

    with socketserver.TCPServer(("127.0.0.1", 0), Raw) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        client = ApiClient(f"http://127.0.0.1:{server.server_address[1]}/v1", KEY)
        try:
            exchange = client.call("listWallets", key=f" {KEY}\t")
        finally:
            client.close()
            server.shutdown()
    assert f"{KEY_HEADER}:  {KEY}\t\r\n".encode() in received[0], received[0]
    assert exchange.status == 200 and exchange.data == []
    assert KEY not in exchange.describe()


def test_public_key_that_moved_money_is_raised_in_the_summary_and_the_report():
    """An AUTH-06 observation of a public key whose transfer was accepted heads the terminal summary and the report."""
    moved = {
        "requirement": "AUTH-06",
        "key": "pubKey.live",
        "operation": "transfer",
        "status": 200,
        "accepted": True,
        "public_key_moved_money": True,
    }
    records = [TestRecord("tests/test_authentication.py::test_public_key", ("AUTH-06",), observations=[moved])]
    report = build_report(
        records,
        catalogue(),
        target={"base_url": "http://127.0.0.1:1/v1"},
        environment="staging",
        seed=1,
        strict=False,
        selected=(),
        gate=gating.Gate(),
        run={"started_at": "-", "duration": 0},
    )
    assert any(line.startswith("A PUBLIC KEY MOVED MONEY (AUTH-06): transfer") for line in summary(report))
    assert "A PUBLIC KEY MOVED MONEY" in markdown(report)


def test_run_without_second_key_leaves_isolation_untested_and_names_the_option(tmp_path):
    """Without --second-secret-key the isolation requirements are skipped with the option in the reason, and
    --require-complete fails the run for them (exit 7) when it judged another MUST requirement (alone, the run
    judged nothing: exit 11)."""
    selection = [arg for rid in (*ISOLATION, "SVC-12") for arg in ("--requirement", rid)]
    with ReferenceServer(secret_key=KEY) as server:
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--funding-url",
            server.funding_url,
            "--require-complete",
            *selection,
            paths=("tests/test_isolation.py", "tests/test_service.py"),
        )
    assert report is not None and process.returncode == 7, tail(process)
    entries = {entry["id"]: entry for entry in report["requirements"]}
    assert all(
        entries[rid]["verdict"] == "skip" and "--second-secret-key" in entries[rid]["reason"] for rid in ISOLATION
    ), entries
    assert set(ISOLATION) <= {item["id"] for item in report["outcome"]["must_not_tested"]}


def test_own_account_is_the_keys_not_the_default_one(tmp_path):
    """With the key of an account that is not the business's default, the tests update that account and restore it;
    the default account is never written."""
    with ReferenceServer(secret_key=KEY) as server:
        add_key(server, SECOND_KEY, NON_DEFAULT)
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            SECOND_KEY,
            "--funding-url",
            server.funding_url,
            "--requirement",
            "EVT-01",
            "--requirement",
            "END-02",
            "--requirement",
            "AUTH-20",
            paths=("tests/test_events.py", "tests/test_endpoints.py", "tests/test_authentication.py"),
        )
        accounts = server.service.store.accounts
        default, own = accounts[0], accounts[NON_DEFAULT]
    assert report is not None and process.returncode == 0, tail(process)
    verdicts = {entry["id"]: entry["verdict"] for entry in report["requirements"] if entry["verdict"] != "not-selected"}
    assert verdicts == {"EVT-01": "pass", "END-02": "pass", "AUTH-20": "pass"}, verdicts
    assert default.revision == 0 and own.revision > 0 and own.webhooks == []


def seeded(server: ReferenceServer, *keys: str) -> None:
    """A wallet with an inbound payment in the account of each key: records a read-only run can probe."""
    for key in keys:
        wallet = httpx.post(
            f"{server.base_url}/virtual-accounts",
            json=wallet_body("secondary"),
            headers={KEY_HEADER: key},
            trust_env=False,
        )
        public_id = wallet.json()["data"]["publicId"]
        httpx.post(server.funding_url, json={"walletId": public_id, "amount": 50_000}, trust_env=False)


def records_of(server: ReferenceServer) -> tuple[int, ...]:
    """What the store holds that a write would add to or change: its records and the accounts' revisions."""
    store = server.service.store
    return (
        len(store.wallets),
        len(store.transactions),
        len(store.collection_accounts),
        len(store.bank_accounts),
        *(account.revision for account in store.accounts),
    )


def test_production_run_without_opt_in_writes_nothing_with_either_key(tmp_path):
    """In production without --allow-writes, the key and isolation tests send no write with either key, and the
    read-only isolation probes still run on what the accounts hold."""
    with reference_with_second_key(KEY, SECOND_KEY) as server:
        seeded(server, KEY, SECOND_KEY)
        held = records_of(server)
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--second-secret-key",
            SECOND_KEY,
            "--funding-url",
            server.funding_url,
            "--environment",
            "production",
            paths=("tests/test_isolation.py", "tests/test_authentication.py"),
        )
        assert records_of(server) == held, tail(process)
    assert report is not None, tail(process)
    entries = {entry["id"]: entry for entry in report["requirements"]}
    assert entries["AUTH-10"]["verdict"] == "pass" and entries["AUTH-14"]["verdict"] == "pass", tail(process)
    assert all(
        "writes are off in production" in (entries[rid]["reason"] or "")
        for rid in ("AUTH-11", "AUTH-12", "AUTH-13", "AUTH-20")
    ), entries
