"""The reference implementation answers as the document says, over real HTTP on a loopback port."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from selftests.conftest import ReferenceClient, started, wallet_body
from wallet_conformance.reference import FAULTS, Fault, ReferenceServer, Variant
from wallet_conformance.reference.faults import FaultSet
from wallet_conformance.reference.switches import Switch, SwitchSet
from wallet_conformance.reference.variants import ALL, VariantSet
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import ROOT, SCHEMAS

WALLET = contract.prefix("walletId")
MINIMUM = contract.minimum_amount("transfer")
BANK_MINIMUM = contract.minimum_amount("bankTransfer")
EXPIRE_MIN, EXPIRE_MAX = contract.expire_in_bounds()
REFERENCE_MIN = contract.reference_min_length()
PAGE_SIZE = contract.default_page_size()
LIST_OPERATIONS = set(catalogue()["SVC-20"].operations)
MILLISECONDS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
GTBANK = "058"  # a listed bank (the reference's data/banks.json)
SOME_ACCOUNT = "0123456789"
NO_ACCOUNT = "0000000000"  # the sandbox account that exists at no bank


# ------------------------------------------------------------------------------------- helpers


@cache
def _registry() -> Registry:
    resources = []
    for path in SCHEMAS.glob("*.json"):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents, default_specification=DRAFT202012)))
    return Registry().with_resources(resources)


def conforms(instance: Any, schema_ref: str) -> None:
    """The instance is valid against a schema of schemas/ (`wallet.json#/$defs/created`)."""
    validator = Draft202012Validator(
        {"$ref": schema_ref}, registry=_registry(), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    errors = [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(instance)]
    assert not errors, f"{schema_ref}:\n  " + "\n  ".join(errors)


def succeeded(response: httpx.Response, operation_id: str) -> Any:
    """Checks the success envelope of an operation as the document states it, and returns `data`."""
    assert response.status_code == contract.operations()[operation_id].success_status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"meta", "data"}
    meta = body["meta"]
    assert meta["statusCode"] == response.status_code
    assert meta["success"] is True
    if contract.message_rule(operation_id) == "present":
        assert meta["message"] == contract.success_message(operation_id)
    else:
        assert "message" not in meta
    assert ("pagination" in meta) == contract.is_paginated(operation_id)
    if "pagination" in meta:
        assert all(isinstance(meta["pagination"][name], int) for name in ("totalCount", "perPage", "current"))
    assert isinstance(body["data"], list if operation_id in LIST_OPERATIONS else dict)
    return body["data"]


def refused(response: httpx.Response, status: int) -> str:
    """Checks an error envelope with that status; returns its message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["data"] is None
    assert body["meta"]["statusCode"] == status
    assert body["meta"]["success"] is False
    assert isinstance(body["meta"]["message"], str) and body["meta"]["message"]
    return body["meta"]["message"]


def transfer_body(source: str, destination: str, amount: int = MINIMUM, **extra: Any) -> dict[str, Any]:
    return {
        "source": source,
        "sourceType": "VirtualAccount",
        "destination": destination,
        "destinationType": "VirtualAccount",
        "amount": amount,
        "currency": "NGN",
        "narration": "rent",
    } | extra


def bank_transfer_body(source: str, amount: int = BANK_MINIMUM, **extra: Any) -> dict[str, Any]:
    return {
        "source": source,
        "accountNumber": SOME_ACCOUNT,
        "bankCode": GTBANK,
        "amount": amount,
        "currency": "NGN",
        "narration": "payout",
    } | extra


def collection_body(destination: str, **extra: Any) -> dict[str, Any]:
    return {
        "destination": destination,
        "accountName": "Chioma Okafor",
        "amount": 250000,
        "expireIn": EXPIRE_MIN,
    } | extra


def parse_time(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def two_wallets(reference: ReferenceClient, funds: int = 0) -> tuple[str, str]:
    source = reference.wallet()["publicId"]
    destination = reference.wallet("secondary")["publicId"]
    if funds:
        reference.fund(source, funds)
    return source, destination


# ------------------------------------------------------------------------ every operation


def test_every_documented_operation_is_routed() -> None:
    """The reference serves exactly the operations of openapi.yaml, at their methods and paths (one Route a path)."""
    api = [route for route in ReferenceServer().app.routes if route.path.startswith("/v1/")]
    assert len({route.path for route in api}) == len(api)
    served: dict[str, tuple[str, str]] = {}
    for route in api:
        for method, handler in route.endpoint.handlers.items():
            assert handler.operation_id not in served, handler.operation_id
            served[handler.operation_id] = (method, route.path.removeprefix("/v1"))
    assert served == {op.id: (op.method, op.path) for op in contract.operations().values()}


def test_every_operation_answers_its_documented_envelope(reference: ReferenceClient) -> None:
    """Every operation succeeds with its documented status, message, pagination and data forms."""
    seen: set[str] = set()

    def call(operation_id: str, method: str, path: str, schema_ref: str | None, **options: Any) -> Any:
        seen.add(operation_id)
        operation = contract.operations()[operation_id]
        assert operation.method == method, operation
        data = succeeded(reference.call(method, path, **options), operation_id)
        if schema_ref is not None:
            for item in data if isinstance(data, list) else [data]:
                conforms(item, schema_ref)
        return data

    accounts = call("listAccounts", "GET", "/accounts", "account.json")
    call("updateAccount", "PATCH", f"/accounts/{accounts[0]['publicId']}", "account.json", json={"webhooks": []})
    wallet = call(
        "createWallet", "POST", "/virtual-accounts", "wallet.json#/$defs/created", json={"category": "primary"}
    )
    other = reference.wallet("secondary")
    call("listWallets", "GET", "/virtual-accounts", "wallet.json#/$defs/list-entry")
    call("getWallet", "GET", f"/virtual-accounts/{wallet['publicId']}", "wallet.json#/$defs/read")
    body = collection_body(wallet["publicId"])
    call("createCollectionAccount", "POST", "/collection-accounts", "collection-account.json#/$defs/created", json=body)
    body = {"accountNumber": SOME_ACCOUNT, "bankCode": GTBANK}
    call("validateAccount", "POST", "/transactions/validate-account", "bank-account.json", json=body)
    call("listBanks", "GET", "/transactions/banks", "bank.json")
    reference.fund(wallet["publicId"], 10 * MINIMUM)
    body = transfer_body(wallet["publicId"], other["publicId"])
    sent = call("transfer", "POST", "/transactions/transfer", "transaction.json#/$defs/transfer-accepted", json=body)
    body = bank_transfer_body(wallet["publicId"])
    paid = call(
        "bankTransfer",
        "POST",
        "/transactions/bank-transfer",
        "transaction.json#/$defs/bank-transfer-accepted",
        json=body,
    )
    reference.settle()
    for reference_ in (sent["reference"], paid["reference"]):
        call("verifyTransaction", "GET", f"/transactions/{reference_}/verify", "transaction.json#/$defs/verified")
    call("listTransactions", "GET", "/transactions", "transaction.json")
    call("closeWallet", "DELETE", f"/virtual-accounts/{other['publicId']}", "closed-wallet.json")
    assert seen == set(contract.operations())


@pytest.mark.parametrize("operation_id", sorted(contract.operations()))
def test_every_operation_refuses_a_missing_or_wrong_key(reference: ReferenceClient, operation_id: str) -> None:
    """Every operation answers 401 without x-service-key and with a key that is not the account's."""
    operation = contract.operations()[operation_id]
    path = re.sub(r"\{[^}]+\}", "x", operation.path)
    options: dict[str, Any] = {"json": {}} if operation.method in ("POST", "PATCH") else {}
    refused(reference.call(operation.method, path, key=None, **options), 401)
    refused(reference.call(operation.method, path, key="sk_not_the_key", **options), 401)


def test_refusals_name_the_key_header(reference: ReferenceClient) -> None:
    """A 401 carries a WWW-Authenticate header naming x-service-key."""
    response = reference.call("GET", "/virtual-accounts", key=None)
    assert "x-service-key" in response.headers["www-authenticate"]


def test_unknown_route_and_wrong_method_are_enveloped(reference: ReferenceClient) -> None:
    """An unknown path answers 404 and a wrong method 405 with its Allow header, both as envelopes."""
    refused(reference.call("GET", "/nothing-here"), 404)
    refused(reference.call("GET", "/accounts/"), 404)
    response = reference.call("PUT", "/virtual-accounts")
    refused(response, 405)
    assert set(response.headers["allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


def test_a_body_padded_past_a_mebibyte_is_read_as_its_json(reference: ReferenceClient) -> None:
    """A valid wallet body followed by a mebibyte of JSON whitespace creates the wallet: the reference sets no size."""
    content = json.dumps(wallet_body("secondary")) + " " * 1024 * 1024
    assert reference.call("POST", "/virtual-accounts", content=content).status_code == 201


def test_malformed_bodies_are_refused(reference: ReferenceClient) -> None:
    """A body that is not JSON, not an object, or holds NaN is answered 400."""
    for content in (b"{not json", b"[1, 2]", b'{"category": NaN}', b"\xff\xfe"):
        refused(reference.call("POST", "/virtual-accounts", content=content), 400)


def test_timestamps_have_milliseconds(reference: ReferenceClient) -> None:
    """Every timestamp the reference writes is ISO 8601 UTC with milliseconds."""
    source, _ = two_wallets(reference, funds=MINIMUM)
    stamps = [reference.data("GET", f"/virtual-accounts/{source}")["createdAt"]]
    transaction = reference.data("GET", "/transactions")[0]
    stamps += [transaction["createdAt"], transaction["sourceData"]["createdAt"]]
    stamps += [transaction["meta"]["clientResponse"]["tranDateTime"]]
    assert all(MILLISECONDS.match(stamp) for stamp in stamps), stamps


# ------------------------------------------------------------------------------ accounts


def test_accounts_are_listed_with_their_documented_fields(reference: ReferenceClient) -> None:
    """The business has a default `Main account` and two others; id equals _id; publicId is a UUID."""
    accounts = reference.data("GET", "/accounts")
    assert [account["isDefault"] for account in accounts].count(True) == 1
    default = next(account for account in accounts if account["isDefault"])
    assert default["name"] == "Main account"
    for account in accounts:
        assert account["id"] == account["_id"]
        assert str(uuid.UUID(account["publicId"])) == account["publicId"]
        assert account["pubKey"]["live"].startswith(contract.prefix("livePublicKey"))
        assert account["pubKey"]["test"].startswith(contract.prefix("testPublicKey"))
        assert account["business"] == default["business"]


def test_accounts_filters(reference: ReferenceClient) -> None:
    """name and isDefault filter the accounts; live is accepted and keeps them all (accounts have no mode)."""
    everyone = reference.data("GET", "/accounts")
    assert [a["name"] for a in reference.data("GET", "/accounts", params={"name": "Payouts"})] == ["Payouts"]
    assert reference.data("GET", "/accounts", params={"name": "Nobody"}) == []
    assert [a["isDefault"] for a in reference.data("GET", "/accounts", params={"isDefault": "true"})] == [True]
    assert len(reference.data("GET", "/accounts", params={"isDefault": "false"})) == len(everyone) - 1
    for live in ("true", "false"):
        assert len(reference.data("GET", "/accounts", params={"live": live})) == len(everyone)
    refused(reference.call("GET", "/accounts", params={"isDefault": "yes"}), 400)


def test_update_sets_webhooks_and_bumps_the_revision(reference: ReferenceClient) -> None:
    """PATCH of the key's own account sets webhooks, answers the updated Account, and a later list shows them."""
    account = reference.data("GET", "/accounts", params={"isDefault": "true"})[0]
    hooks = ["https://merchant.example/hooks", "http://127.0.0.1:9/hook"]
    updated = succeeded(
        reference.call("PATCH", f"/accounts/{account['publicId']}", json={"webhooks": hooks}), "updateAccount"
    )
    assert updated["webhooks"] == hooks
    assert updated["__v"] == account["__v"] + 1
    listed = next(a for a in reference.data("GET", "/accounts") if a["publicId"] == account["publicId"])
    assert listed["webhooks"] == hooks


def test_update_refusals(reference: ReferenceClient) -> None:
    """webhooks must be an array of strings; an unknown account is 404; an update without webhooks changes nothing."""
    account = reference.data("GET", "/accounts")[0]
    path = f"/accounts/{account['publicId']}"
    for webhooks in ("https://x.example", [1], [None], {"url": "x"}):
        refused(reference.call("PATCH", path, json={"webhooks": webhooks}), 400)
    refused(reference.call("PATCH", f"/accounts/{uuid.uuid4()}", json={"webhooks": []}), 404)
    assert reference.data("PATCH", path, json={})["__v"] == account["__v"]


# ------------------------------------------------------------------------------- wallets


def test_wallet_forms(reference: ReferenceClient) -> None:
    """Create shows an integer id and no _id; a read shows _id and id equal to it; the list shows _id and integer id."""
    created = reference.wallet()
    assert isinstance(created["id"], int) and "_id" not in created
    assert created["publicId"].startswith(WALLET)
    assert re.fullmatch(r"\d{10}", created["accountNumber"])
    assert created["balance"] == 0 and created["currency"] == "NGN" and created["live"] is False
    read = reference.data("GET", f"/virtual-accounts/{created['publicId']}")
    assert read["id"] == read["_id"] and isinstance(read["_id"], str)
    (listed,) = reference.data("GET", "/virtual-accounts")
    assert listed["id"] == created["id"] and listed["_id"] == read["_id"]
    banks = {bank["bankCode"]: bank["bankName"] for bank in reference.data("GET", "/transactions/banks")}
    assert banks[created["bankCode"]] == created["bankName"]


def test_wallet_defaults_and_names(reference: ReferenceClient) -> None:
    """accountName and currency may be left out (the account's name, NGN); a sent name is kept."""
    bare = reference.data("POST", "/virtual-accounts", json={"category": "primary"})
    assert bare["accountName"] == "Main account" and bare["currency"] == "NGN"
    assert reference.wallet(accountName="Bola Stores")["accountName"] == "Bola Stores"


def test_wallet_field_refusals(reference: ReferenceClient) -> None:
    """A missing or unknown category, a wrong currency or a non-string accountName is refused 400."""
    for body in (
        {},
        {"category": "tertiary"},
        {"category": "PRIMARY"},
        {"category": "primary", "currency": "USD"},
        {"category": "primary", "accountName": 7},
        {"category": "primary", "emailAddress": "not-an-email"},
        {"category": "primary", "mobile": "08031234567"},
    ):
        refused(reference.call("POST", "/virtual-accounts", json=body), 400)


def test_only_the_first_primary_wallet_is_favourite(reference: ReferenceClient) -> None:
    """isFavourite is true on the account's first primary wallet, false on later and secondary ones."""
    assert reference.wallet()["isFavourite"] is True
    assert reference.wallet()["isFavourite"] is False
    assert reference.wallet("secondary")["isFavourite"] is False


def test_sixth_open_primary_wallet_is_refused_and_closing_frees_a_place(reference: ReferenceClient) -> None:
    """Five open primary wallets are accepted, the sixth is refused 409, and closing one frees its place."""
    limit = contract.primary_wallet_limit()
    wallets = [reference.wallet() for _ in range(limit)]
    refused(reference.call("POST", "/virtual-accounts", json={"category": "primary"}), 409)
    reference.data("DELETE", f"/virtual-accounts/{wallets[0]['publicId']}")
    reference.wallet()
    refused(reference.call("POST", "/virtual-accounts", json={"category": "primary"}), 409)
    # The live mode has its own five.
    reference.wallet(key=reference.server.live_secret_key)


def test_secondary_wallets_have_no_limit(reference: ReferenceClient) -> None:
    """More secondary wallets than the primary limit are created."""
    for _ in range(contract.primary_wallet_limit() + 2):
        reference.wallet("secondary")


@pytest.mark.parametrize(
    "change",
    [
        {"emailAddress": None},
        {"emailAddress": "ada.example.com"},
        {"emailAddress": "ada@example"},
        {"emailAddress": "ada@example.com\n"},
        {"mobile": None},
        {"mobile": {"phoneNumber": "08031234567"}},
        {"mobile": {"isoCode": "NG"}},
        {"mobile": {"phoneNumber": 8031234567, "isoCode": "NG"}},
    ],
)
def test_secondary_wallet_needs_email_and_mobile(reference: ReferenceClient, change: dict[str, Any]) -> None:
    """A secondary wallet without a valid emailAddress or a mobile {phoneNumber, isoCode} is refused 400."""
    body = {
        "category": "secondary",
        "emailAddress": "ada@example.com",
        "mobile": {"phoneNumber": "08031234567", "isoCode": "NG"},
    }
    body = {name: value for name, value in (body | change).items() if value is not None}
    refused(reference.call("POST", "/virtual-accounts", json=body), 400)


def test_closed_wallet_is_gone(reference: ReferenceClient) -> None:
    """Closing answers publicId and accountNumber; the wallet then reads, lists, closes and receives as unknown."""
    source, destination = two_wallets(reference, funds=MINIMUM)
    wallet = reference.data("GET", f"/virtual-accounts/{destination}")
    closed = succeeded(reference.call("DELETE", f"/virtual-accounts/{destination}"), "closeWallet")
    assert closed == {"publicId": destination, "accountNumber": wallet["accountNumber"]}
    refused(reference.call("GET", f"/virtual-accounts/{destination}"), 404)
    refused(reference.call("DELETE", f"/virtual-accounts/{destination}"), 404)
    assert destination not in [w["publicId"] for w in reference.data("GET", "/virtual-accounts")]
    refused(reference.call("POST", "/transactions/transfer", json=transfer_body(source, destination)), 404)
    refused(reference.call("POST", "/collection-accounts", json=collection_body(destination)), 404)
    refused(reference.call("POST", "/transactions/transfer", json=transfer_body(destination, source)), 404)


def test_unknown_wallet_is_not_found(reference: ReferenceClient) -> None:
    """GET and DELETE of an unknown wallet answer 404."""
    refused(reference.call("GET", f"/virtual-accounts/{WALLET}99999999"), 404)
    refused(reference.call("DELETE", f"/virtual-accounts/{WALLET}99999999"), 404)


def test_wallet_list_is_newest_first_and_paged(reference: ReferenceClient) -> None:
    """The wallet list shows the newest wallet first, perPage entries a page, and counts them all."""
    made = [reference.wallet("secondary")["publicId"] for _ in range(PAGE_SIZE + 2)]
    response = reference.call("GET", "/virtual-accounts")
    first = succeeded(response, "listWallets")
    assert response.json()["meta"]["pagination"] == {"totalCount": len(made), "perPage": PAGE_SIZE, "current": 1}
    assert [w["publicId"] for w in first] == made[::-1][:PAGE_SIZE]
    second = reference.call("GET", "/virtual-accounts", params={"page": 2})
    assert [w["publicId"] for w in second.json()["data"]] == made[::-1][PAGE_SIZE:]
    assert second.json()["meta"]["pagination"]["current"] == 2
    small = reference.call("GET", "/virtual-accounts", params={"perPage": 3, "page": 2}).json()
    assert [w["publicId"] for w in small["data"]] == made[::-1][3:6]
    assert small["meta"]["pagination"] == {"totalCount": len(made), "perPage": 3, "current": 2}
    assert reference.data("GET", "/virtual-accounts", params={"page": 99}) == []


@pytest.mark.parametrize("params", [{"page": "0"}, {"page": "x"}, {"perPage": "0"}, {"perPage": "101"}, {"page": "-1"}])
def test_bad_paging_is_refused(reference: ReferenceClient, params: dict[str, str]) -> None:
    """page and perPage must be whole numbers from 1 (perPage at most 100)."""
    refused(reference.call("GET", "/transactions", params=params), 400)


# ---------------------------------------------------------------------- collection accounts


def test_collection_account_fields(reference: ReferenceClient) -> None:
    """A collection account carries the request, the wallet's number as parent, its own number, pending and active."""
    wallet = reference.wallet()
    body = collection_body(wallet["publicId"], reference="order-1001", expireIn=EXPIRE_MAX)
    created = succeeded(reference.call("POST", "/collection-accounts", json=body), "createCollectionAccount")
    assert created["publicId"].startswith(WALLET)
    assert created["reference"] == "order-1001"
    assert created["parentAccountNumber"] == wallet["accountNumber"]
    assert created["accountNumber"] != wallet["accountNumber"] and re.fullmatch(r"\d{10}", created["accountNumber"])
    assert (created["accountName"], created["amount"]) == (body["accountName"], body["amount"])
    assert (created["status"], created["active"], created["currency"]) == ("pending", True, "NGN")
    lifetime = parse_time(created["expiration"]) - parse_time(created["createdAt"])
    assert lifetime == timedelta(seconds=EXPIRE_MAX)


def test_collection_reference_is_generated_and_unique(reference: ReferenceClient) -> None:
    """Without a reference one is generated; each is distinct; a used reference is refused 409."""
    wallet = reference.wallet()["publicId"]
    generated = {
        reference.data("POST", "/collection-accounts", json=collection_body(wallet))["reference"] for _ in "ab"
    }
    assert len(generated) == 2 and all(isinstance(ref, str) and ref for ref in generated)
    reference.data("POST", "/collection-accounts", json=collection_body(wallet, reference="order-2002"))
    refused(reference.call("POST", "/collection-accounts", json=collection_body(wallet, reference="order-2002")), 409)
    refused(reference.call("POST", "/collection-accounts", json=collection_body(wallet, reference=min(generated))), 409)


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"expireIn": EXPIRE_MIN - 1}, 400),
        ({"expireIn": EXPIRE_MIN}, 201),
        ({"expireIn": EXPIRE_MAX}, 201),
        ({"expireIn": EXPIRE_MAX + 1}, 400),
        ({"expireIn": "900"}, 400),
        ({"reference": "r" * (REFERENCE_MIN - 1)}, 400),
        ({"reference": "r" * REFERENCE_MIN}, 201),
        ({"reference": 12345678}, 400),
        ({"amount": 0}, 400),
        ({"amount": 1}, 201),
        ({"amount": 100.5}, 400),
        ({"amount": 100.0}, 201),
        ({"amount": "100"}, 400),
        ({"amount": True}, 400),
        ({"accountName": None}, 400),
        ({"accountName": ""}, 400),
        ({"destination": None}, 400),
        ({"amount": None}, 400),
        ({"expireIn": None}, 400),
        ({"destination": f"{WALLET}99999999"}, 404),
    ],
)
def test_collection_account_rules(reference: ReferenceClient, change: dict[str, Any], status: int) -> None:
    """Collection accounts: expireIn within bounds, reference length, whole positive amounts, required fields."""
    body = collection_body(reference.wallet()["publicId"]) | change
    body = {name: value for name, value in body.items() if value is not None}
    response = reference.call("POST", "/collection-accounts", json=body)
    if status == 201:
        succeeded(response, "createCollectionAccount")
    else:
        refused(response, status)


def test_collection_for_another_modes_wallet_is_not_found(reference: ReferenceClient) -> None:
    """A destination wallet of the other mode (live key) is not the caller's: 404."""
    live_wallet = reference.wallet(key=reference.server.live_secret_key)["publicId"]
    refused(reference.call("POST", "/collection-accounts", json=collection_body(live_wallet)), 404)


# -------------------------------------------------------------------------- bank accounts


def test_validate_account_resolves_a_name(reference: ReferenceClient) -> None:
    """validate-account answers a Bank account with the resolved name, the sent number and bank."""
    body = {"accountNumber": SOME_ACCOUNT, "bankCode": GTBANK}
    first = succeeded(reference.call("POST", "/transactions/validate-account", json=body), "validateAccount")
    assert first["publicId"].startswith(contract.prefix("bankAccountId"))
    assert (first["accountNumber"], first["bankCode"], first["bankName"]) == (
        SOME_ACCOUNT,
        GTBANK,
        "Guaranty Trust Bank",
    )
    assert first["accountName"] and first["beneficiaryType"] == "personal" and first["clientIds"] == {}
    again = reference.data("POST", "/transactions/validate-account", json=body)
    assert again["accountName"] == first["accountName"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"accountNumber": NO_ACCOUNT, "bankCode": GTBANK}, 404),
        ({"accountNumber": "012345678", "bankCode": GTBANK}, 400),
        ({"accountNumber": "01234567890", "bankCode": GTBANK}, 400),
        ({"accountNumber": SOME_ACCOUNT + "\n", "bankCode": GTBANK}, 400),
        ({"accountNumber": 123456789, "bankCode": GTBANK}, 400),
        ({"accountNumber": SOME_ACCOUNT, "bankCode": "999"}, 400),
        ({"accountNumber": SOME_ACCOUNT}, 400),
        ({"bankCode": GTBANK}, 400),
    ],
)
def test_validate_account_refusals(reference: ReferenceClient, body: dict[str, Any], status: int) -> None:
    """An account that does not exist is 404; a malformed number, an unlisted bank or a missing field is 400."""
    refused(reference.call("POST", "/transactions/validate-account", json=body), status)


def test_bank_list_holds_real_banks(reference: ReferenceClient) -> None:
    """The bank list holds Nigerian banks with their public bank and NIBSS codes, lower-case country, no pagination."""
    banks = {bank["bankCode"]: bank for bank in reference.data("GET", "/transactions/banks")}
    expected = {"044": "000014", "058": "000013", "057": "000015", "011": "000016", "033": "000004", "035": "000017"}
    assert {code: banks[code]["nibssBankCode"] for code in expected} == expected
    assert banks["50515"]["nibssBankCode"] == "090405"
    for bank in banks.values():
        assert bank["publicId"].startswith(contract.prefix("bankId"))
        assert (bank["country"], bank["type"], bank["currency"], bank["active"]) == ("nigeria", "nuban", "NGN", True)
        assert bank["meta"] == {
            "bankCode": bank["bankCode"],
            "name": bank["bankName"],
            "nibssBankCode": bank["nibssBankCode"],
        }


# ------------------------------------------------------------------------------- money


def test_inbound_payment_is_a_successful_external_credit(reference: ReferenceClient) -> None:
    """Funding records a `success` credit from an External source and raises the balance by its amount."""
    wallet = reference.wallet()
    credit = reference.fund(wallet["publicId"], 123456)
    assert reference.balance(wallet["publicId"]) == 123456
    (listed,) = reference.data("GET", "/transactions")
    conforms(listed, "transaction.json")
    assert (listed["entry"], listed["status"], listed["sourceType"]) == ("credit", "success", "External")
    assert listed["reference"] == credit["reference"]
    assert listed["destination"] == wallet["publicId"] and listed["balance"] == 123456
    assert listed["sourceData"]["publicId"].startswith(contract.prefix("externalSourceId"))
    assert listed["sourceData"]["channel"] == "dedicated_nuban"
    meta = listed["meta"]
    assert meta["clientResponse"]["amount"] == 123456 and meta["clientResponse"]["authorization"]["sessionId"]
    assert meta["rate"]["convertedAmount"] == 123456 and meta["rate"]["rate"] == 1
    assert {"auth", "account", "linkRef", "balance"} <= set(meta["credit"])
    by_number = httpx.post(
        reference.server.funding_url, json={"accountNumber": wallet["accountNumber"], "amount": 1}, trust_env=False
    )
    assert by_number.status_code == 200
    assert reference.balance(wallet["publicId"]) == 123457


def test_funding_refusals(reference: ReferenceClient) -> None:
    """The funding hook refuses an unknown wallet (404) and a non-positive or fractional amount (400)."""
    wallet = reference.wallet()["publicId"]
    url = reference.server.funding_url
    assert httpx.post(url, json={"walletId": f"{WALLET}99999999", "amount": 5}, trust_env=False).status_code == 404
    for amount in (0, -5, 1.5, "5"):
        assert httpx.post(url, json={"walletId": wallet, "amount": amount}, trust_env=False).status_code == 400
    assert httpx.post(url, json={"amount": 5}, trust_env=False).status_code == 400


def test_transfer_is_accepted_pending_and_debits_at_once(reference: ReferenceClient) -> None:
    """A wallet transfer answers a pending debit with fee 0 and debits the source immediately."""
    source, destination = two_wallets(reference, funds=3 * MINIMUM)
    response = reference.call("POST", "/transactions/transfer", json=transfer_body(source, destination))
    sent = succeeded(response, "transfer")
    conforms(sent, "transaction.json#/$defs/transfer-accepted")
    assert (sent["status"], sent["entry"], sent["destinationType"], sent["sourceType"]) == (
        "pending",
        "debit",
        "VirtualAccount",
        "VirtualAccount",
    )
    assert (sent["source"], sent["destination"]) == (source, destination)
    assert (sent["amount"], sent["fee"], sent["actualAmount"], sent["feeReference"]) == (MINIMUM, 0, MINIMUM, None)
    assert sent["clientTransaction"] == {"fee": 0, "actualAmount": MINIMUM}
    assert sent["currencyPair"] == "NGN/NGN" and sent["meta"] == {"isThirdParty": False}
    assert sent["publicId"].startswith(contract.prefix("transactionId"))
    assert reference.balance(source) == 2 * MINIMUM and sent["balance"] == 2 * MINIMUM
    assert reference.balance(destination) == 0


def test_settlement_moves_money_and_leaves_a_credit_leg(reference: ReferenceClient) -> None:
    """Settlement: pending -> success, the destination gets amount, a credit leg appears (meta.credit and a credit)."""
    source, destination = two_wallets(reference, funds=3 * MINIMUM)
    sent = reference.data("POST", "/transactions/transfer", json=transfer_body(source, destination, 2 * MINIMUM))
    settled = reference.settle(sent["reference"])
    assert settled.status_code == 200 and [t["reference"] for t in settled.json()["data"]] == [sent["reference"]]
    verified = succeeded(reference.call("GET", f"/transactions/{sent['reference']}/verify"), "verifyTransaction")
    assert verified["status"] == "success" and verified["requestSrc"] == "api"
    assert reference.balance(source) == MINIMUM
    assert reference.balance(destination) == 2 * MINIMUM
    credit = verified["meta"]["credit"]
    assert (credit["destination"], credit["amount"], credit["balance"]) == (destination, 2 * MINIMUM, 2 * MINIMUM)
    details = verified["meta"]["verify"]["data"]["data"]
    assert details["transactionStatus"] == "successful" and details["type"] == "debit"
    assert (
        details["beneficiary"]["accountNumber"]
        == reference.data("GET", f"/virtual-accounts/{destination}")["accountNumber"]
    )
    credits = [
        t for t in reference.data("GET", "/transactions") if t["entry"] == "credit" and t["destination"] == destination
    ]
    assert len(credits) == 1 and credits[0]["debitReference"] == sent["reference"]
    assert credits[0]["linkRef"] == sent["linkRef"] and credits[0]["sourceType"] == "VirtualAccount"
    assert reference.settle(sent["reference"]).status_code == 404


def test_transfers_settle_by_themselves(http_client: httpx.Client) -> None:
    """With a settle delay, a pending transfer becomes `success` without the sandbox."""
    with ReferenceServer(settle_delay=0.05) as server:
        client = ReferenceClient(server, http_client)
        source, destination = two_wallets(client, funds=MINIMUM)
        sent = client.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
        deadline = time.monotonic() + 5
        while client.data("GET", f"/transactions/{sent['reference']}/verify")["status"] != "success":
            assert time.monotonic() < deadline, "the transfer never settled"
            time.sleep(0.02)
        assert client.balance(destination) == MINIMUM


def test_the_sandbox_counts_the_changes_still_due(http_client: httpx.Client) -> None:
    """GET /sandbox/due counts a pending transfer's settlement until it is made, and is 0 once nothing will change
    without another request (the suite ends a balance wait on it)."""
    with ReferenceServer(settle_delay=0.3) as server:
        client = ReferenceClient(server, http_client)
        source, destination = two_wallets(client, funds=MINIMUM)

        def due() -> int:
            answer = http_client.get(server.due_url)
            assert answer.status_code == 200
            return answer.json()["data"]["due"]

        assert due() == 0
        client.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
        assert due() == 1 and client.balance(destination) == 0
        deadline = time.monotonic() + 5
        while due():
            assert time.monotonic() < deadline, "the settlement never came"
            time.sleep(0.02)
        assert client.balance(destination) == MINIMUM


def test_every_later_change_of_the_reference_is_counted_as_due() -> None:
    """The reference schedules a change on its loop in one place, Store.later, which /sandbox/due counts: a change
    scheduled anywhere else would let the suite end a wait before it lands."""
    folder = ROOT / "wallet_conformance" / "reference"
    scheduling = re.compile(r"\b(call_later|call_soon|call_at|create_task|ensure_future|run_in_executor|Timer)\(")
    found = {
        path.name: sorted(set(scheduling.findall(path.read_text())))
        for path in folder.rglob("*.py")
        if scheduling.search(path.read_text())
    }
    # The webhook deliveries are tasks too, and change no balance nor status; process.py's Timer runs in the process
    # that starts the server (it stops a server that does not start).
    assert found == {"store.py": ["call_later", "call_soon"], "webhooks.py": ["create_task"], "process.py": ["Timer"]}


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"amount": MINIMUM - 1}, 400),
        ({"amount": MINIMUM + 0.5}, 400),
        ({"amount": str(MINIMUM)}, 400),
        ({"amount": None}, 400),
        ({"source": None}, 400),
        ({"destination": None}, 400),
        ({"sourceType": "External"}, 400),
        ({"destinationType": "BankAccount"}, 400),
        ({"currency": "USD"}, 400),
        ({"narration": 5}, 400),
        ({"destination": f"{WALLET}99999999"}, 404),
        ({"source": f"{WALLET}99999999"}, 404),
        ({"narration": None, "sourceType": None, "destinationType": None, "currency": None}, 200),
    ],
)
def test_transfer_rules(reference: ReferenceClient, change: dict[str, Any], status: int) -> None:
    """A transfer needs source, destination and a whole amount from the minimum; the optional fields are checked."""
    source, destination = two_wallets(reference, funds=10 * MINIMUM)
    body = {name: value for name, value in (transfer_body(source, destination) | change).items() if value is not None}
    response = reference.call("POST", "/transactions/transfer", json=body)
    if status == 200:
        assert succeeded(response, "transfer")["narration"] == ""
    else:
        refused(response, status)
        assert reference.balance(source) == 10 * MINIMUM


def test_transfer_to_itself_is_refused(reference: ReferenceClient) -> None:
    """A transfer from a wallet to itself is refused 400."""
    source, _ = two_wallets(reference, funds=MINIMUM)
    refused(reference.call("POST", "/transactions/transfer", json=transfer_body(source, source)), 400)


def test_insufficient_balance_changes_nothing(reference: ReferenceClient) -> None:
    """A transfer or bank transfer above the balance is refused 400 and no balance or transaction changes."""
    source, destination = two_wallets(reference, funds=MINIMUM + 1)
    before = reference.data("GET", "/transactions")
    refused(reference.call("POST", "/transactions/transfer", json=transfer_body(source, destination, MINIMUM + 2)), 400)
    # The fee makes this one too large.
    refused(reference.call("POST", "/transactions/bank-transfer", json=bank_transfer_body(source, MINIMUM)), 400)
    assert (reference.balance(source), reference.balance(destination)) == (MINIMUM + 1, 0)
    assert reference.data("GET", "/transactions") == before


def test_concurrent_transfers_never_overdraw(http_client: httpx.Client) -> None:
    """Concurrent transfers that together exceed the balance: only what the balance holds is accepted."""
    with ReferenceServer(settle_delay=None) as server:
        client = ReferenceClient(server, http_client)
        source, destination = two_wallets(client, funds=2 * MINIMUM)

        async def send_all() -> list[int]:
            async with httpx.AsyncClient(trust_env=False, headers={"x-service-key": server.secret_key}) as http:
                url = f"{server.base_url}/transactions/transfer"
                answers = await asyncio.gather(
                    *(http.post(url, json=transfer_body(source, destination)) for _ in range(6))
                )
            return sorted(answer.status_code for answer in answers)

        assert asyncio.run(send_all()) == [200, 200, 400, 400, 400, 400]
        assert client.balance(source) == 0


@pytest.mark.parametrize(
    ("amount", "fee"),
    [(BANK_MINIMUM, 1075), (500_000, 1075), (500_001, 2688), (5_000_000, 2688), (5_000_001, 5375)],
)
def test_bank_transfer_fee_tiers(reference: ReferenceClient, amount: int, fee: int) -> None:
    """A bank transfer charges the tiered fee; actualAmount is amount plus fee, debited at acceptance."""
    source, _ = two_wallets(reference, funds=amount + fee + 7)
    response = reference.call("POST", "/transactions/bank-transfer", json=bank_transfer_body(source, amount))
    paid = succeeded(response, "bankTransfer")
    conforms(paid, "transaction.json#/$defs/bank-transfer-accepted")
    assert (paid["fee"], paid["actualAmount"], paid["clientTransaction"]) == (
        fee,
        amount + fee,
        {"fee": fee, "actualAmount": amount + fee},
    )
    assert paid["feeReference"].startswith(contract.prefix("feeReference"))
    assert (paid["status"], paid["destinationType"], paid["entry"]) == ("pending", "BankAccount", "debit")
    data = paid["destinationData"]
    assert (data["accountNumber"], data["bankCode"]) == (SOME_ACCOUNT, GTBANK)
    assert data["publicId"].startswith(contract.prefix("bankAccountId")) and isinstance(data["id"], int)
    assert reference.balance(source) == 7
    reference.settle()
    assert reference.data("GET", f"/transactions/{paid['reference']}/verify")["status"] == "success"
    assert reference.balance(source) == 7


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"amount": BANK_MINIMUM - 1}, 400),
        ({"amount": BANK_MINIMUM + 0.25}, 400),
        ({"accountNumber": NO_ACCOUNT}, 404),
        ({"accountNumber": "12345"}, 400),
        ({"bankCode": "999"}, 400),
        ({"bankCode": None}, 400),
        ({"source": f"{WALLET}99999999"}, 404),
        ({"currency": "usd"}, 400),
    ],
)
def test_bank_transfer_rules(reference: ReferenceClient, change: dict[str, Any], status: int) -> None:
    """A bank transfer needs a listed bank, a resolvable 10-digit account and a whole amount from the minimum."""
    source, _ = two_wallets(reference, funds=10 * BANK_MINIMUM)
    body = {name: value for name, value in (bank_transfer_body(source) | change).items() if value is not None}
    refused(reference.call("POST", "/transactions/bank-transfer", json=body), status)
    assert reference.balance(source) == 10 * BANK_MINIMUM


def test_transactions_are_newest_first_and_verified_by_reference(reference: ReferenceClient) -> None:
    """The transaction list is newest first; verify finds a transaction by its reference only."""
    source = reference.wallet()["publicId"]
    references = [reference.fund(source, MINIMUM + n)["reference"] for n in range(3)]
    listed = reference.data("GET", "/transactions")
    assert [t["reference"] for t in listed] == references[::-1]
    verified = reference.data("GET", f"/transactions/{references[0]}/verify")
    assert verified["amount"] == MINIMUM and "verify" in verified["meta"]
    refused(reference.call("GET", f"/transactions/{verified['publicId']}/verify"), 404)
    refused(reference.call("GET", "/transactions/no-such-reference/verify"), 404)


# ---------------------------------------------------------------------------------- modes


def test_test_and_live_keys_see_their_own_records(reference: ReferenceClient) -> None:
    """The test key makes live=false records and the live key live=true ones; neither sees the other's."""
    live = reference.server.live_secret_key
    test_wallet = reference.wallet()
    live_wallet = reference.wallet(key=live)
    assert (test_wallet["live"], live_wallet["live"]) == (False, True)
    assert [w["publicId"] for w in reference.data("GET", "/virtual-accounts", key=live)] == [live_wallet["publicId"]]
    refused(reference.call("GET", f"/virtual-accounts/{test_wallet['publicId']}", key=live), 404)
    reference.fund(live_wallet["publicId"], MINIMUM)
    body = transfer_body(live_wallet["publicId"], test_wallet["publicId"])
    refused(reference.call("POST", "/transactions/transfer", json=body, key=live), 404)
    assert reference.data("GET", "/transactions") == []
    (credit,) = reference.data("GET", "/transactions", key=live)
    assert credit["live"] is True


# ------------------------------------------------------- isolation between businesses and accounts


def raw_status(server: ReferenceServer, header_line: str) -> int:
    """The status of GET /accounts sent with one header line written as is (httpx refuses whitespace around a value)."""
    with socket.create_connection((server.host, server.port), timeout=10) as connection:
        connection.sendall(
            f"GET /v1/accounts HTTP/1.1\r\nHost: reference\r\n{header_line}\r\nConnection: close\r\n\r\n".encode()
        )
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def first_business_records(reference: ReferenceClient) -> dict[str, Any]:
    """With the first business's key: two funded wallets, a settled transfer, a bank transfer, a collection account."""
    source, destination = two_wallets(reference, funds=10 * BANK_MINIMUM)
    sent = reference.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    paid = reference.data("POST", "/transactions/bank-transfer", json=bank_transfer_body(source))
    reference.settle()
    reference.data("POST", "/collection-accounts", json=collection_body(source))
    references = [t["reference"] for t in reference.data("GET", "/transactions")]
    assert {sent["reference"], paid["reference"]} <= set(references)
    return {"wallets": [source, destination], "references": references, "balance": reference.balance(source)}


def test_the_second_business_has_its_own_account_and_keys(reference: ReferenceClient) -> None:
    """The second key lists its business's one account (default, its own business id); neither business lists the
    other's accounts."""
    server = reference.server
    assert (
        len({server.secret_key, server.live_secret_key, server.second_secret_key, server.second_live_secret_key}) == 4
    )
    first = reference.data("GET", "/accounts")
    (second,) = reference.data("GET", "/accounts", key=server.second_secret_key)
    assert reference.data("GET", "/accounts", key=server.second_live_secret_key) == [second]
    conforms(second, "account.json")
    assert second["isDefault"] is True and second["name"] == "Second business"
    assert second["business"] not in {account["business"] for account in first}
    assert second["publicId"] not in {account["publicId"] for account in first}
    wallet = reference.wallet(key=server.second_secret_key)
    assert wallet["account"] == second["_id"] and wallet["live"] is False


def test_another_business_sees_none_of_the_records(reference: ReferenceClient) -> None:
    """The second key lists none of the first business's wallets and transactions, reads none of its wallets and
    verifies none of its transactions (404, as unknown ones)."""
    records = first_business_records(reference)
    other = reference.server.second_secret_key
    own = reference.wallet(key=other)["publicId"]
    assert [w["publicId"] for w in reference.data("GET", "/virtual-accounts", key=other)] == [own]
    assert reference.data("GET", "/transactions", key=other) == []
    for wallet in records["wallets"]:
        refused(reference.call("GET", f"/virtual-accounts/{wallet}", key=other), 404)
    for reference_ in records["references"]:
        refused(reference.call("GET", f"/transactions/{reference_}/verify", key=other), 404)
    # ...and the first key sees none of the second's.
    theirs = reference.wallet(key=other)["publicId"]
    reference.fund(theirs, MINIMUM)
    refused(reference.call("GET", f"/virtual-accounts/{theirs}"), 404)
    assert theirs not in [w["publicId"] for w in reference.data("GET", "/virtual-accounts")]
    assert [t["reference"] for t in reference.data("GET", "/transactions")] == records["references"]


def test_another_business_cannot_close_or_move_the_money(reference: ReferenceClient) -> None:
    """With the second key, the first business's wallet is closed by no DELETE, is the source of no transfer or bank
    transfer and the destination of no collection account (404); its money and its state stay."""
    records = first_business_records(reference)
    source, destination = records["wallets"]
    other = reference.server.second_secret_key
    own = reference.wallet(key=other)["publicId"]
    reference.fund(own, 10 * BANK_MINIMUM)
    refused(reference.call("DELETE", f"/virtual-accounts/{source}", key=other), 404)
    refused(reference.call("POST", "/transactions/transfer", json=transfer_body(source, own), key=other), 404)
    refused(reference.call("POST", "/transactions/bank-transfer", json=bank_transfer_body(source), key=other), 404)
    refused(reference.call("POST", "/collection-accounts", json=collection_body(source), key=other), 404)
    reference.settle()
    assert reference.balance(source) == records["balance"]
    assert reference.balance(own, key=other) == 10 * BANK_MINIMUM
    assert {source, destination} <= {w["publicId"] for w in reference.data("GET", "/virtual-accounts")}
    assert [t["reference"] for t in reference.data("GET", "/transactions")] == records["references"]


def test_a_transfer_may_pay_another_business_s_wallet(reference: ReferenceClient) -> None:
    """A transfer may pay into another business's wallet: the debit is the sender's record, the credit leg the
    receiver's; neither verifies the other's."""
    theirs = reference.wallet()["publicId"]
    other = reference.server.second_secret_key
    own = reference.wallet(key=other)["publicId"]
    reference.fund(own, 3 * MINIMUM)
    sent = reference.data("POST", "/transactions/transfer", json=transfer_body(own, theirs), key=other)
    reference.settle()
    assert reference.balance(theirs) == MINIMUM and reference.balance(own, key=other) == 2 * MINIMUM
    (credit,) = reference.data("GET", "/transactions")
    assert (credit["entry"], credit["debitReference"], credit["destination"]) == ("credit", sent["reference"], theirs)
    assert sent["reference"] in [t["reference"] for t in reference.data("GET", "/transactions", key=other)]
    refused(reference.call("GET", f"/transactions/{sent['reference']}/verify"), 404)
    refused(reference.call("GET", f"/transactions/{credit['reference']}/verify", key=other), 404)


def test_an_account_is_updated_with_its_own_key_only(reference: ReferenceClient) -> None:
    """PATCH of another account of the key's business is refused 403, of another business's account 404; neither
    changes; the key's own account is updated."""
    own, *others = reference.data("GET", "/accounts")
    other_key = reference.server.second_secret_key
    (theirs,) = reference.data("GET", "/accounts", key=other_key)
    hooks = {"webhooks": ["http://127.0.0.1:9/hook"]}
    for account in others:
        refused(reference.call("PATCH", f"/accounts/{account['publicId']}", json=hooks), 403)
    refused(reference.call("PATCH", f"/accounts/{theirs['publicId']}", json=hooks), 404)
    refused(reference.call("PATCH", f"/accounts/{own['publicId']}", json=hooks, key=other_key), 404)
    assert reference.data("GET", "/accounts") == [own, *others]
    assert reference.data("GET", "/accounts", key=other_key) == [theirs]
    assert reference.data("PATCH", f"/accounts/{own['publicId']}", json=hooks)["webhooks"] == hooks["webhooks"]
    updated = reference.data("PATCH", f"/accounts/{theirs['publicId']}", json=hooks, key=other_key)
    assert updated["webhooks"] == hooks["webhooks"]


def test_an_update_changes_no_server_owned_field(reference: ReferenceClient) -> None:
    """An update carrying _id, id, publicId, business, pubKey, createdAt and __v (and its own webhooks) changes none."""
    account = reference.data("GET", "/accounts", params={"isDefault": "true"})[0]
    (theirs,) = reference.data("GET", "/accounts", key=reference.server.second_secret_key)
    body = {
        "webhooks": account["webhooks"],
        "_id": theirs["_id"],
        "id": theirs["id"],
        "publicId": str(uuid.uuid4()),
        "business": theirs["business"],
        "pubKey": {"live": "live_pub_0", "test": "test_pub_0"},
        "createdAt": "2001-02-03T04:05:06.789Z",
        "__v": account["__v"] + 7,
        "isDefault": False,
        "updatedAt": None,
    }
    assert reference.data("PATCH", f"/accounts/{account['publicId']}", json=body) == account
    assert reference.data("GET", "/accounts", params={"isDefault": "true"}) == [account]


def key_spellings(key: str) -> dict[str, str]:
    """Values of x-service-key that are not the key, though close to it."""
    changed = chr(ord(key[-1]) + 1) if key[-1] != "z" else "a"
    return {
        "upper case": key.upper(),
        "prefix": key[:-1],
        "one character changed": key[:-1] + changed,
        "appended": key + "0",
        "empty": "",
    }


@pytest.mark.parametrize("spelling", list(key_spellings("test_sk_0")))
def test_the_key_is_compared_exactly(reference: ReferenceClient, spelling: str) -> None:
    """Another letter case, a prefix, one character changed, characters appended or an empty value: 401."""
    for key in (reference.server.secret_key, reference.server.second_secret_key):
        sent = {"x-service-key": key_spellings(key)[spelling]}  # as is: the client's key="" would send the test key
        refused(reference.http.get(f"{reference.server.base_url}/virtual-accounts", headers=sent), 401)


def test_the_key_is_read_from_its_header_only(reference: ReferenceClient) -> None:
    """A key in a query parameter or in `Authorization: Bearer` is no key: 401, as a missing one."""
    key = reference.server.secret_key
    for name in ("key", "apiKey", "api_key", "secretKey", "x-service-key"):
        refused(reference.call("GET", "/accounts", key=None, params={name: key}), 401)
    response = reference.http.get(f"{reference.server.base_url}/accounts", headers={"Authorization": f"Bearer {key}"})
    refused(response, 401)


def test_the_header_name_in_any_case_and_whitespace_around_the_value(reference: ReferenceClient) -> None:
    """The header's name in any letter case names it; whitespace around its value is not part of the key."""
    server = reference.server
    for name in ("x-service-key", "X-Service-Key", "X-SERVICE-KEY", "x-SERVICE-key"):
        assert raw_status(server, f"{name}: {server.secret_key}") == 200, name
    for spaced in (f"  {server.secret_key}", f"{server.secret_key} \t", f"\t{server.second_secret_key}  "):
        assert raw_status(server, f"x-service-key:{spaced}") == 200, repr(spaced)
    assert raw_status(server, "x-service-key:   ") == 401
    assert raw_status(server, f"x-service-key: {server.secret_key[:8]} {server.secret_key[8:]}") == 401


def test_identifiers_are_matched_exactly(reference: ReferenceClient) -> None:
    """Verify matches the whole reference in its letter case; a wallet read the whole publicId: prefixes are 404."""
    wallet = reference.wallet()["publicId"]
    credit = reference.fund(wallet, MINIMUM)["reference"]
    for text in (credit[:-1], credit[:4], credit.upper(), credit + "0"):
        refused(reference.call("GET", f"/transactions/{text}/verify"), 404)
    for text in (wallet[:-1], wallet[: len(WALLET) + 1], wallet.upper(), wallet + "0"):
        refused(reference.call("GET", f"/virtual-accounts/{text}"), 404)
    assert reference.data("GET", f"/transactions/{credit}/verify")["reference"] == credit


def test_reset_keeps_both_businesses_keys(reference: ReferenceClient) -> None:
    """After a reset, both businesses' keys still open their own (empty) records."""
    server = reference.server
    reference.wallet(key=server.second_secret_key)
    reference.reset()
    for key in (server.secret_key, server.live_secret_key, server.second_secret_key, server.second_live_secret_key):
        assert reference.data("GET", "/virtual-accounts", key=key) == []


# ------------------------------------------------------------------------------ webhooks


class _Listener:
    """A loopback HTTP endpoint that records what is POSTed to it."""

    def __init__(self) -> None:
        received: list[tuple[dict[str, str], bytes]] = []
        self.received = received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, count: int) -> list[tuple[dict[str, str], bytes]]:
        deadline = time.monotonic() + 5
        while len(self.received) < count:
            assert time.monotonic() < deadline, f"{len(self.received)} deliveries, expected {count}"
            time.sleep(0.01)
        return self.received

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[_Listener]:
    endpoint = _Listener()
    yield endpoint
    endpoint.close()


def test_webhooks_are_delivered_signed(reference: ReferenceClient, listener: _Listener) -> None:
    """Inbound credits and settlements are POSTed to loopback webhooks, signed with HMAC-SHA256 of the body."""
    account = next(a for a in reference.data("GET", "/accounts") if a["isDefault"])
    hooks = [listener.url, "https://merchant.example/hooks"]
    reference.data("PATCH", f"/accounts/{account['publicId']}", json={"webhooks": hooks})
    source, destination = two_wallets(reference, funds=MINIMUM)
    sent = reference.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    reference.settle()
    deliveries = listener.wait_for(3)
    events = []
    for headers, body in deliveries:
        expected = "sha256=" + hmac.new(reference.key.encode(), body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["x-wallet-signature"], expected)
        event = json.loads(body)
        assert event["account"] == account["publicId"] and MILLISECONDS.match(event["createdAt"])
        events.append((event["event"], event["data"]["entry"]))
    credit, settled = ("transaction.credit", "credit"), ("transfer.settled", "debit")
    assert sorted(events) == [credit, credit, settled]
    assert any(json.loads(body)["data"]["reference"] == sent["reference"] for _, body in deliveries)
    recorded = httpx.get(reference.server.deliveries_url, trust_env=False).json()["data"]
    assert {(d["url"], d["status"]) for d in recorded} == {(listener.url, "delivered"), (hooks[1], "skipped")}


# ------------------------------------------------------------------------------- sandbox


def test_sandbox_controls(reference: ReferenceClient) -> None:
    """The sandbox answers health, settles all or one pending transfer, and resets to a fresh state."""
    http = reference.http
    origin = reference.server.base_url.removesuffix("/v1")
    assert http.get(f"{origin}/sandbox/health").status_code == 200
    source, destination = two_wallets(reference, funds=2 * MINIMUM)
    for _ in range(2):
        reference.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    assert reference.settle("no-such-reference").status_code == 404
    assert len(reference.settle().json()["data"]) == 2
    assert reference.settle().json()["data"] == []
    reference.reset()
    assert reference.data("GET", "/virtual-accounts") == []
    assert reference.wallet()["publicId"] == source


# --------------------------------------------------------------------------- the package


def test_reference_reads_the_contract_facts_not_copies() -> None:
    """No prefix, multi-word message or numeric limit of the contract is written literally in the reference's code."""
    source = "\n".join(path.read_text() for path in (ROOT / "wallet_conformance" / "reference").rglob("*.py"))
    prefixes = [contract.prefix(name) for name in (*contract.PREFIXES, "livePublicKey", "testPublicKey")]
    messages = [contract.success_message(op) for op in contract.operations()]
    for text in prefixes + [m for m in messages if m and " " in m]:
        assert f'"{text}' not in source, text
    numbers = {MINIMUM, BANK_MINIMUM, EXPIRE_MIN, EXPIRE_MAX}
    for number in numbers:
        assert not re.search(rf"(?<![\w.]){number}(?![\w.])", source), number


def test_public_api() -> None:
    """The package exports ReferenceServer, Fault, FAULTS, Variant and VARIANTS, and nothing else."""
    import wallet_conformance.reference as package

    assert sorted(package.__all__) == ["FAULTS", "Fault", "ReferenceServer", "VARIANTS", "Variant"]
    assert {fault.cli_name: fault for fault in Fault} == FAULTS
    assert {variant.cli_name: variant for variant in package.Variant} == package.VARIANTS


def test_faults_and_variants_share_one_machinery_of_named_switches() -> None:
    """Fault and Variant are catalogues of one kind of named switch, and their sets one kind of set: a switch is
    found by its command-line name, its member name or itself, and only in its own catalogue; `all` stands for every
    variant and names no fault."""
    assert issubclass(Fault, Switch) and issubclass(Variant, Switch)
    assert issubclass(FaultSet, SwitchSet) and issubclass(VariantSet, SwitchSet)
    fault, variant = Fault.WRONG_CLOSE_MESSAGE, Variant.LISTS_OLDEST_FIRST
    assert list(FaultSet([fault.cli_name, fault.name, fault])) == [fault] and FaultSet([fault]).on(fault)
    assert list(VariantSet([variant.cli_name, ALL])) == sorted(Variant, key=lambda each: each.name)
    for wrong, catalogue_of in ((variant.cli_name, FaultSet), (fault.cli_name, VariantSet), (ALL, FaultSet)):
        with pytest.raises(ValueError, match=f"unknown {catalogue_of.kind.__name__.lower()} "):
            catalogue_of([wrong])


def test_server_keys_are_random_unless_given() -> None:
    """Two servers get different keys; given keys become the test keys of the two businesses, which must differ."""
    first, second = ReferenceServer(), ReferenceServer(secret_key="my-key", second_secret_key="their-key")
    assert first.secret_key != ReferenceServer().secret_key and first.secret_key != first.live_secret_key
    assert first.second_secret_key not in (first.secret_key, first.live_secret_key, first.second_live_secret_key)
    assert (second.secret_key, second.second_secret_key) == ("my-key", "their-key")
    assert first.base_url.endswith("/v1")
    with pytest.raises(ValueError, match="must differ"):
        ReferenceServer(secret_key="same-key", second_secret_key="same-key")


def test_cli_lists_faults() -> None:
    """`--list-faults` prints every fault with the requirement it breaks and its description."""
    output = subprocess.run(
        [sys.executable, "-m", "wallet_conformance.reference", "--list-faults"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    lines = output.strip().splitlines()
    assert len(lines) == len(FAULTS)
    for line in lines:
        name, requirement, description = line.split(maxsplit=2)
        assert FAULTS[name].requirement_id == requirement and FAULTS[name].description == description


def test_cli_serves_and_prints_where() -> None:
    """The CLI on a free port prints the /v1 base URL, the keys of both businesses and the funding URL, and serves."""
    process = subprocess.Popen(
        [sys.executable, "-m", "wallet_conformance.reference", "--port", "0", "--fault", "wallet-prefix-va"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        printed = {}
        while "funding URL" not in printed:
            line = process.stdout.readline()
            assert line, "the CLI stopped before printing its URLs"
            label, _, value = line.partition(":")
            printed[label.strip()] = value.strip()
        assert printed["base URL"].endswith("/v1") and printed["funding URL"].endswith("/sandbox/fund")
        headers = {"x-service-key": printed["test secret key"]}
        url = f"{printed['base URL']}/virtual-accounts"
        created = httpx.post(url, json={"category": "primary"}, headers=headers, trust_env=False)
        assert created.status_code == 201 and created.json()["data"]["publicId"].startswith("va-")
        live = httpx.get(url, headers={"x-service-key": printed["live secret key"]}, trust_env=False)
        assert live.status_code == 200 and live.json()["data"] == []
        second = httpx.get(url, headers={"x-service-key": printed["second test secret key"]}, trust_env=False)
        assert second.status_code == 200 and second.json()["data"] == []
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def test_faulty_server_is_started_by_name() -> None:
    """A server takes faults by CLI name or by member, and refuses an unknown name."""
    server = started([Fault.WALLET_PREFIX_VA, "bank-prefix"])
    try:
        assert {fault.name for fault in server.faults} == {"WALLET_PREFIX_VA", "BANK_PREFIX"}
    finally:
        server.stop()
    with pytest.raises(ValueError, match="unknown fault"):
        ReferenceServer(faults=["no-such-fault"])
