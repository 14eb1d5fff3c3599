"""The fault catalogue: every fault is named, tied to a requirement, read at one place, and visible to a client."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from selftests.conftest import ReferenceClient, started, wallet_body
from selftests.switches import places, reference_sources
from selftests.test_reference import (
    BANK_MINIMUM,
    EXPIRE_MAX,
    EXPIRE_MIN,
    MILLISECONDS,
    MINIMUM,
    REFERENCE_MIN,
    WALLET,
    bank_transfer_body,
    collection_body,
    parse_time,
    transfer_body,
    two_wallets,
)
from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.reference import FAULTS, Fault
from wallet_conformance.reference.ledger import TOP_FEE_TIER_FLOOR
from wallet_conformance.reference.service import WRONG_MESSAGES
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world.concurrency import RACERS, release

SECONDARY = {"emailAddress": "ada@example.com", "mobile": {"phoneNumber": "08031234567", "isoCode": "NG"}}

Scenario = Callable[[ReferenceClient], Any]


# ----------------------------------------------------------------------- small scenarios


def without(body: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: value for name, value in body.items() if name not in names}


def create_wallet(c: ReferenceClient, **body: Any) -> httpx.Response:
    return c.call("POST", "/virtual-accounts", json=body)


def wallet_read(c: ReferenceClient) -> httpx.Response:
    return c.call("GET", f"/virtual-accounts/{c.wallet()['publicId']}")


def wallet_list(c: ReferenceClient) -> httpx.Response:
    c.fund(c.wallet()["publicId"], 12345)
    return c.call("GET", "/virtual-accounts")


def close(c: ReferenceClient, **options: Any) -> httpx.Response:
    return c.call("DELETE", f"/virtual-accounts/{c.wallet()['publicId']}", **options)


def update(c: ReferenceClient, webhooks: list[str] | str) -> httpx.Response:
    account = c.data("GET", "/accounts")[0]
    c.data("PATCH", f"/accounts/{account['publicId']}", json={"webhooks": ["http://127.0.0.1:9/old"]})
    return c.call("PATCH", f"/accounts/{account['publicId']}", json={"webhooks": webhooks})


def accounts(c: ReferenceClient, **params: str) -> httpx.Response:
    return c.call("GET", "/accounts", params=params)


def collection(c: ReferenceClient, *, drop: tuple[str, ...] = (), **change: Any) -> httpx.Response:
    body = without(collection_body(c.wallet()["publicId"]) | change, *drop)
    return c.call("POST", "/collection-accounts", json=body)


def validate(c: ReferenceClient, **body: Any) -> httpx.Response:
    return c.call("POST", "/transactions/validate-account", json=body)


def banks(c: ReferenceClient, **options: Any) -> httpx.Response:
    return c.call("GET", "/transactions/banks", **options)


def transfer(c: ReferenceClient, funds: int = 3 * MINIMUM, **change: Any) -> httpx.Response:
    source, destination = two_wallets(c, funds=funds)
    return c.call("POST", "/transactions/transfer", json=transfer_body(source, destination) | change)


def settled_transfer(c: ReferenceClient) -> tuple[dict[str, Any], str]:
    """A settled wallet transfer as verify shows it, and its destination wallet."""
    source, destination = two_wallets(c, funds=3 * MINIMUM)
    sent = c.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    c.settle()
    return c.data("GET", f"/transactions/{sent['reference']}/verify"), destination


def two_transfers_settled(c: ReferenceClient) -> int:
    """The balance of a wallet that two transfers, both accepted before either settled, paid into."""
    source, destination = two_wallets(c, funds=3 * MINIMUM)
    for _ in range(2):
        c.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    c.settle()
    return c.balance(destination)


def bank_transfer(c: ReferenceClient, **change: Any) -> httpx.Response:
    source, _ = two_wallets(c, funds=10 * BANK_MINIMUM)
    return c.call("POST", "/transactions/bank-transfer", json=bank_transfer_body(source) | change)


def inbound_credit(c: ReferenceClient) -> dict[str, Any]:
    """An inbound payment as the transaction list shows it."""
    c.fund(c.wallet()["publicId"], 12345)
    return c.data("GET", "/transactions")[0]


def listed_transfer(c: ReferenceClient) -> dict[str, Any] | None:
    """A wallet transfer just made, as GET /transactions lists it (None when it does not)."""
    reference = data(transfer(c))["reference"]
    return next(
        (
            entry
            for entry in c.data("GET", "/transactions", params={"perPage": "100"})
            if entry["reference"] == reference
        ),
        None,
    )


def listed_wallet_ids(c: ReferenceClient) -> list[str]:
    return [entry["publicId"] for entry in c.data("GET", "/virtual-accounts", params={"perPage": "100"})]


def paid_into_a_collection_account(c: ReferenceClient) -> int:
    """The balance of a new wallet after a payment into a collection account made for it (another wallet first)."""
    c.wallet()
    wallet = c.wallet()["publicId"]
    account = data(c.call("POST", "/collection-accounts", json=collection_body(wallet)))
    c.fund(account["publicId"], 12345)
    return c.balance(wallet)


def meta(response: httpx.Response) -> dict[str, Any]:
    return response.json()["meta"]


def data(response: httpx.Response) -> Any:
    return response.json()["data"]


def destination_data(response: httpx.Response) -> dict[str, Any]:
    return data(response)["destinationData"]


def primaries(c: ReferenceClient, count: int) -> list[int]:
    return [create_wallet(c, category="primary").status_code for _ in range(count)]


def closed_primary_then_create(c: ReferenceClient) -> int:
    made = [c.wallet() for _ in range(contract.primary_wallet_limit())]
    c.data("DELETE", f"/virtual-accounts/{made[0]['publicId']}")
    return create_wallet(c, category="primary").status_code


def closed_wallet_sends(c: ReferenceClient) -> int:
    source, destination = two_wallets(c, funds=3 * MINIMUM)
    c.data("DELETE", f"/virtual-accounts/{source}")
    return c.call("POST", "/transactions/transfer", json=transfer_body(source, destination)).status_code


def concurrent_transfers(c: ReferenceClient) -> list[int]:
    source, destination = two_wallets(c, funds=2 * MINIMUM)

    async def send_all() -> list[int]:
        async with httpx.AsyncClient(trust_env=False, headers={"x-service-key": c.key}) as http:
            url = f"{c.server.base_url}/transactions/transfer"
            answers = await asyncio.gather(*(http.post(url, json=transfer_body(source, destination)) for _ in range(4)))
        return sorted(answer.status_code for answer in answers)

    return asyncio.run(send_all())


def concurrent_primaries(c: ReferenceClient) -> list[int]:
    """Three primary wallets asked for at once, with one place left under the limit."""
    for _ in range(contract.primary_wallet_limit() - 1):
        c.wallet()

    async def create_all() -> list[int]:
        async with httpx.AsyncClient(trust_env=False, headers={"x-service-key": c.key}) as http:
            url = f"{c.server.base_url}/virtual-accounts"
            answers = await asyncio.gather(*(http.post(url, json=wallet_body()) for _ in range(3)))
        return sorted(answer.status_code for answer in answers)

    return asyncio.run(create_all())


RACES = 3  # races a scenario of a narrow-window fault runs until one shows the fault (one event-loop turn is narrow)


def released_together(c: ReferenceClient, send: Callable[[ApiClient, int], Exchange]) -> list[Exchange]:
    """RACERS requests released together (world.concurrency.release, the suite's own race)."""
    api = ApiClient(c.server.base_url, c.key)
    try:
        return release(api, lambda number: send(api, number), RACERS)
    finally:
        api.close()


def first_broken(race: Callable[[], int], faithful: int) -> int:
    """The outcome of the first of RACES races that differs from the faithful one, else the last one's."""
    outcome = faithful
    for _ in range(RACES):
        outcome = race()
        if outcome != faithful:
            break
    return outcome


def transfers_released_together(c: ReferenceClient) -> int:
    """How many transfers of the minimum, released together from a wallet holding three, are accepted."""

    def race() -> int:
        source, destination = two_wallets(c, funds=3 * MINIMUM)
        answers = released_together(
            c, lambda api, _: api.call("transfer", json_body=transfer_body(source, destination))
        )
        return sum(answer.ok for answer in answers)

    return first_broken(race, 3)


def transfers_at_once_debited(c: ReferenceClient) -> tuple[int, int]:
    """How many transfers of the minimum, released together from a wallet holding three, are accepted, and what the
    source holds once they settled."""
    source, destination = two_wallets(c, funds=3 * MINIMUM)
    answers = released_together(c, lambda api, _: api.call("transfer", json_body=transfer_body(source, destination)))
    c.settle()
    return sum(answer.ok for answer in answers), c.balance(source)


def refused_transfer_balance(c: ReferenceClient) -> tuple[int, int]:
    """The status of a transfer one kobo below the minimum, and its source's balance after."""
    source, destination = two_wallets(c, funds=3 * MINIMUM)
    body = transfer_body(source, destination) | {"amount": MINIMUM - 1}
    refused = c.call("POST", "/transactions/transfer", json=body)
    return refused.status_code, c.balance(source)


def verified_while_pending_then_settled(c: ReferenceClient) -> str:
    """A transfer's status as verify answers it once settled, having answered it once while it was pending."""
    source, destination = two_wallets(c, funds=3 * MINIMUM)
    sent = c.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    c.data("GET", f"/transactions/{sent['reference']}/verify")
    c.settle()
    return c.data("GET", f"/transactions/{sent['reference']}/verify")["status"]


def payments_released_together(c: ReferenceClient) -> int:
    """What inbound payments of the minimum, released together into a new wallet, leave in its balance."""

    def race() -> int:
        wallet = c.wallet("secondary")["publicId"]
        payment = {"walletId": wallet, "amount": MINIMUM}
        released_together(c, lambda api, _: api.request("POST", c.server.funding_url, absolute=True, json_body=payment))
        return c.balance(wallet)

    return first_broken(race, RACERS * MINIMUM)


def references_released_together(c: ReferenceClient) -> int:
    """The most collection accounts created with one reference, of requests released together with four new ones."""
    destination = c.wallet()["publicId"]

    def race() -> int:
        references = [f"race-{secrets.token_hex(6)}" for _ in range(4)]
        answers = released_together(
            c,
            lambda api, number: api.call(
                "createCollectionAccount", json_body=collection_body(destination, reference=references[number % 4])
            ),
        )
        created = Counter(references[number % 4] for number, answer in enumerate(answers) if answer.ok)
        return max(created.values(), default=0)

    return first_broken(race, 1)


def primaries_released_together(c: ReferenceClient) -> int:
    """How many primary wallets, asked for together by an account holding none, are opened (each race's wallets
    closed after it)."""

    def race() -> int:
        answers = released_together(c, lambda api, _: api.call("createWallet", json_body=wallet_body()))
        opened = [answer.data["publicId"] for answer in answers if answer.ok]
        for public_id in opened:
            c.data("DELETE", f"/virtual-accounts/{public_id}")
        return len(opened)

    return first_broken(race, contract.primary_wallet_limit())


def get_second_wallet(c: ReferenceClient) -> str:
    c.wallet()
    second = c.wallet()["publicId"]
    return data(c.call("GET", f"/virtual-accounts/{second}"))["publicId"]


def verify_by_reference(c: ReferenceClient) -> int:
    credit = c.fund(c.wallet()["publicId"], MINIMUM)
    return c.call("GET", f"/transactions/{credit['reference']}/verify").status_code


def expiration_seconds(c: ReferenceClient) -> float:
    created = data(collection(c))
    return (parse_time(created["expiration"]) - parse_time(created["createdAt"])).total_seconds()


def duplicate_reference(c: ReferenceClient) -> int:
    wallet = c.wallet()["publicId"]
    c.data("POST", "/collection-accounts", json=collection_body(wallet, reference="order-7"))
    return c.call("POST", "/collection-accounts", json=collection_body(wallet, reference="order-7")).status_code


def persisted_webhooks(c: ReferenceClient) -> list[str]:
    update(c, ["http://127.0.0.1:9/new"])
    return c.data("GET", "/accounts")[0]["webhooks"]


def unknown_wallet(c: ReferenceClient) -> httpx.Response:
    return c.call("GET", f"/virtual-accounts/{WALLET}99999999")


def content_type(response: httpx.Response) -> str:
    return response.headers.get("content-type", "")


def padded_wallet(c: ReferenceClient) -> tuple[int, str]:
    """The status and content type of a wallet creation whose valid body is followed by a mebibyte of spaces."""
    body = json.dumps(wallet_body("secondary")) + " " * 1024 * 1024
    response = c.call("POST", "/virtual-accounts", content=body)
    return response.status_code, content_type(response)


def total_after_a_close(c: ReferenceClient) -> int:
    """The wallet list's totalCount once the only wallet made is closed."""
    close(c)
    return meta(c.call("GET", "/virtual-accounts"))["pagination"]["totalCount"]


def some_account(c: ReferenceClient) -> httpx.Response:
    return validate(c, accountNumber="0123456789", bankCode="058")


def verify_paths(c: ReferenceClient) -> tuple[int, int]:
    """The verify status at the documented path, and at /transactions/verify/{reference}."""
    reference = c.fund(c.wallet()["publicId"], MINIMUM)["reference"]
    documented = c.call("GET", f"/transactions/{reference}/verify").status_code
    moved = c.call("GET", f"/transactions/verify/{reference}").status_code
    return documented, moved


def transfer_references(c: ReferenceClient) -> int:
    """How many references three transfers from one wallet got."""
    source, destination = two_wallets(c, funds=4 * MINIMUM)
    sent = [c.data("POST", "/transactions/transfer", json=transfer_body(source, destination)) for _ in range(3)]
    return len({transaction["reference"] for transaction in sent})


def listed_number(c: ReferenceClient) -> bool:
    """Whether the wallet list shows a wallet's accountNumber as its read does."""
    made = c.wallet()
    listed = next(entry for entry in data(c.call("GET", "/virtual-accounts")) if entry["publicId"] == made["publicId"])
    return listed["accountNumber"] == c.data("GET", f"/virtual-accounts/{made['publicId']}")["accountNumber"]


def collection_numbers(c: ReferenceClient) -> tuple[bool, bool]:
    """Whether the collection account's accountNumber, and its parentAccountNumber, are the wallet's."""
    wallet = c.wallet()
    created = c.data("POST", "/collection-accounts", json=collection_body(wallet["publicId"]))
    number = wallet["accountNumber"]
    return created["accountNumber"] == number, created["parentAccountNumber"] == number


def listed_bank_transfer(c: ReferenceClient) -> tuple[str, str]:
    """destinationType of a bank transfer in its response, and in GET /transactions."""
    sent = data(bank_transfer(c))
    return sent["destinationType"], c.data("GET", "/transactions")[0]["destinationType"]


def update_unknown_account(c: ReferenceClient) -> tuple[int, list[str]]:
    """The status of a PATCH of an unknown accountId, and the default account's webhooks after it."""
    unknown = "00000000-0000-0000-0000-000000000000"
    status = c.call("PATCH", f"/accounts/{unknown}", json={"webhooks": ["http://127.0.0.1:9/new"]}).status_code
    return status, c.data("GET", "/accounts", params={"isDefault": "true"})[0]["webhooks"]


def paged_accounts(c: ReferenceClient) -> list[str]:
    """The account names on pages 1 and 2 of two accounts each."""
    return [account["name"] for page in ("1", "2") for account in data(accounts(c, perPage="2", page=page))]


def listed_balance(c: ReferenceClient, wallet_id: str) -> int:
    """The balance the wallet list shows for one wallet."""
    listed = data(c.call("GET", "/virtual-accounts", params={"perPage": "100"}))
    return next(entry["balance"] for entry in listed if entry["publicId"] == wallet_id)


def reference_on_another_wallet(c: ReferenceClient) -> int:
    """The status of a collection account reusing, on a second wallet, a reference the first one used."""
    first, second = two_wallets(c)
    c.data("POST", "/collection-accounts", json=collection_body(first, reference="order-8"))
    return c.call("POST", "/collection-accounts", json=collection_body(second, reference="order-8")).status_code


def bank_transfer_money(c: ReferenceClient) -> tuple[int, int, int]:
    """fee and actualAmount of a bank transfer, and the source balance after it."""
    sent = data(bank_transfer(c))
    return sent["fee"], sent["actualAmount"], c.balance(sent["source"])


def top_tier_bank_transfer_sums(c: ReferenceClient) -> tuple[int, int, int]:
    """amount, fee and actualAmount of a bank transfer one kobo into the top fee tier."""
    source, _ = two_wallets(c, funds=TOP_FEE_TIER_FLOOR * 2)
    sent = data(
        c.call(
            "POST", "/transactions/bank-transfer", json=bank_transfer_body(source) | {"amount": TOP_FEE_TIER_FLOOR + 1}
        )
    )
    return sent["amount"], sent["fee"], sent["actualAmount"]


def with_key_sent(c: ReferenceClient, value: str | None = None, **options: Any) -> int:
    """The status of GET /virtual-accounts with x-service-key `value` as is (no header when None)."""
    headers = {} if value is None else {"x-service-key": value}
    return c.http.get(
        f"{c.server.base_url}/virtual-accounts", headers=headers | options.pop("headers", {}), **options
    ).status_code


def funded_wallet(c: ReferenceClient, amount: int = 10 * BANK_MINIMUM) -> str:
    """A wallet of the first business (the test key's), funded."""
    wallet = c.wallet()["publicId"]
    c.fund(wallet, amount)
    return wallet


def as_other_business(c: ReferenceClient, method: str, path: str, **options: Any) -> httpx.Response:
    return c.call(method, path, key=c.server.second_secret_key, **options)


def other_business_closes(c: ReferenceClient) -> tuple[int, bool]:
    """The status of the second business's DELETE of the first's wallet, and whether the first still lists it."""
    wallet = c.wallet()["publicId"]
    status = as_other_business(c, "DELETE", f"/virtual-accounts/{wallet}").status_code
    return status, wallet in [w["publicId"] for w in c.data("GET", "/virtual-accounts")]


def other_business_sends(c: ReferenceClient, *, to_bank: bool) -> tuple[int, int]:
    """The status of the second business's (bank) transfer from the first's funded wallet, and that wallet's balance
    after it."""
    wallet = funded_wallet(c)
    own = c.wallet(key=c.server.second_secret_key)["publicId"]
    if to_bank:
        response = as_other_business(c, "POST", "/transactions/bank-transfer", json=bank_transfer_body(wallet))
    else:
        response = as_other_business(c, "POST", "/transactions/transfer", json=transfer_body(wallet, own))
    return response.status_code, c.balance(wallet)


def other_business_verifies(c: ReferenceClient) -> int:
    reference = c.fund(c.wallet()["publicId"], MINIMUM)["reference"]
    return as_other_business(c, "GET", f"/transactions/{reference}/verify").status_code


def other_business_lists_transactions(c: ReferenceClient) -> list[str]:
    c.fund(c.wallet()["publicId"], MINIMUM)
    return [t["reference"] for t in data(as_other_business(c, "GET", "/transactions"))]


def sibling_accounts_updated(c: ReferenceClient) -> list[int]:
    """The statuses of PATCHes of the other accounts of the key's business."""
    hooks = {"webhooks": ["http://127.0.0.1:9/hook"]}
    return [
        c.call("PATCH", f"/accounts/{account['publicId']}", json=hooks).status_code
        for account in c.data("GET", "/accounts")[1:]
    ]


def other_business_account_updated(c: ReferenceClient) -> list[int]:
    """The statuses of PATCHes of the second business's accounts."""
    hooks = {"webhooks": ["http://127.0.0.1:9/hook"]}
    return [
        c.call("PATCH", f"/accounts/{account['publicId']}", json=hooks).status_code
        for account in data(as_other_business(c, "GET", "/accounts"))
    ]


def created_at_sent(c: ReferenceClient) -> str:
    """The createdAt of the own account after an update that sends another one."""
    account = c.data("GET", "/accounts")[0]
    body = {"webhooks": account["webhooks"], "createdAt": "2001-02-03T04:05:06.789Z"}
    c.data("PATCH", f"/accounts/{account['publicId']}", json=body)
    return c.data("GET", "/accounts")[0]["createdAt"]


def answer_for_unknown_destination(c: ReferenceClient) -> int | str:
    """The status of a collection account for a destination that is no wallet, or `no answer` within a second."""
    body = collection_body(f"{WALLET}99999999")
    try:
        return c.call("POST", "/collection-accounts", json=body, timeout=1).status_code
    except httpx.TimeoutException:
        return "no answer"


def verify_a_prefix(c: ReferenceClient) -> int:
    reference = c.fund(c.wallet()["publicId"], MINIMUM)["reference"]
    return c.call("GET", f"/transactions/{reference[:-1]}/verify").status_code


def read_a_prefix(c: ReferenceClient) -> int:
    return c.call("GET", f"/virtual-accounts/{c.wallet()['publicId'][:-1]}").status_code


def closed_wallet(c: ReferenceClient) -> str:
    """The publicId of a wallet of the first business, closed."""
    wallet = c.wallet()["publicId"]
    c.data("DELETE", f"/virtual-accounts/{wallet}")
    return wallet


def other_business_wallet_listed(c: ReferenceClient) -> bool:
    """Whether GET /virtual-accounts?category=secondary lists a wallet of the second business."""
    theirs = as_other_business(c, "POST", "/virtual-accounts", json=wallet_body("secondary")).json()["data"]
    listed = data(c.call("GET", "/virtual-accounts", params={"category": "secondary", "perPage": "100"}))
    return any(entry["publicId"] == theirs["publicId"] for entry in listed)


def paid_by_other_business(c: ReferenceClient) -> list[str]:
    """The entries GET /transactions lists after the second business paid into the first's wallet."""
    theirs = as_other_business(c, "POST", "/virtual-accounts", json=wallet_body("secondary")).json()["data"]
    c.fund(theirs["publicId"], 3 * MINIMUM)
    sent = as_other_business(
        c, "POST", "/transactions/transfer", json=transfer_body(theirs["publicId"], c.wallet()["publicId"])
    )
    assert sent.status_code == 200, sent.text
    c.settle()
    return sorted(entry["entry"] for entry in data(c.call("GET", "/transactions")))


def answer_for_null_mobile(c: ReferenceClient) -> int | str:
    """The status of a primary wallet's creation whose mobile is null, or `no answer` within a second."""
    try:
        return c.call("POST", "/virtual-accounts", json={"category": "primary", "mobile": None}, timeout=1).status_code
    except httpx.TimeoutException:
        return "no answer"


def amount_sent_with_an_exponent(c: ReferenceClient) -> Any:
    """The amount of a collection account whose amount is sent written `1e4`."""
    text = json.dumps(collection_body(c.wallet()["publicId"]) | {"amount": 0}).replace('"amount": 0', '"amount": 1e4')
    response = c.http.post(
        c.server.base_url + "/collection-accounts",
        content=text,
        headers={"x-service-key": c.key, "content-type": "application/json"},
    )
    return response.json()["data"]["amount"]


# Each fault, and what a client observes of it: the observation differs from the faithful reference's.
SCENARIOS: dict[Fault, Scenario] = {
    # What the service does
    Fault.VERIFY_UNDER_OTHER_PATH: verify_paths,
    Fault.VALIDATE_REQUIRES_CHARSET: lambda c: some_account(c).status_code,
    Fault.ENVELOPE_DATA_MISSING_ON_WALLET_READ: lambda c: sorted(wallet_read(c).json()),
    Fault.CONTENT_TYPE_TEXT_ON_BANK_LIST: lambda c: banks(c).headers["content-type"].split(";")[0],
    Fault.STATUS_CODE_200_IN_META_ON_CREATE: lambda c: meta(create_wallet(c, category="primary"))["statusCode"],
    Fault.SUCCESS_AS_STRING_ON_TRANSFER: lambda c: meta(bank_transfer(c))["success"],
    Fault.SUCCESS_AS_STRING_PAST_FIRST_PAGE: lambda c: meta(accounts(c, page="2", perPage="1"))["success"],
    Fault.MESSAGE_NOT_STRING_ON_ACCOUNT_LIST: lambda c: meta(accounts(c)).get("message"),
    Fault.MESSAGE_MISSING_ON_CLOSE: lambda c: meta(close(c)).get("message"),
    Fault.MESSAGE_ON_WALLET_READ: lambda c: meta(wallet_read(c)).get("message"),
    Fault.WRONG_UPDATE_MESSAGE: lambda c: meta(update(c, []))["message"],
    Fault.WRONG_CREATE_WALLET_MESSAGE: lambda c: meta(create_wallet(c, category="primary"))["message"],
    Fault.WRONG_CLOSE_MESSAGE: lambda c: meta(close(c))["message"],
    Fault.WRONG_COLLECTION_MESSAGE: lambda c: meta(collection(c))["message"],
    Fault.WRONG_VALIDATE_MESSAGE: lambda c: meta(validate(c, accountNumber="0123456789", bankCode="058"))["message"],
    Fault.WRONG_BANK_LIST_MESSAGE: lambda c: meta(banks(c))["message"],
    Fault.PAGINATION_MISSING_ON_TRANSACTIONS: lambda c: "pagination" in meta(c.call("GET", "/transactions")),
    Fault.PAGINATION_TOTAL_AS_STRING: lambda c: meta(wallet_list(c))["pagination"]["totalCount"],
    Fault.TOTAL_COUNTS_CLOSED_WALLETS: total_after_a_close,
    Fault.PAGINATION_ZERO_BASED: lambda c: meta(accounts(c))["pagination"]["current"],
    Fault.CURRENT_ALWAYS_ONE: lambda c: meta(accounts(c, page="2", perPage="1"))["pagination"]["current"],
    Fault.VALIDATE_DATA_ARRAY: lambda c: type(data(some_account(c))).__name__,
    Fault.DATA_OBJECT_ON_WALLET_LIST: lambda c: type(data(wallet_list(c))).__name__,
    Fault.BALANCE_IN_NAIRA_ON_WALLET_LIST: lambda c: data(wallet_list(c))[0]["balance"],
    Fault.CURRENCY_LOWERCASE_ON_COLLECTION: lambda c: data(collection(c))["currency"],
    Fault.TIMESTAMPS_WITHOUT_MILLISECONDS_ON_TRANSACTIONS: lambda c: bool(
        MILLISECONDS.match(inbound_credit(c)["createdAt"])
    ),
    Fault.FUNDING_NOT_CREDITED: lambda c: inbound_credit(c)["balance"],
    Fault.FUNDING_CREDITED_SHORT: lambda c: inbound_credit(c)["balance"],
    Fault.SETTLEMENT_CREDITS_TWICE: lambda c: c.balance(settled_transfer(c)[1]),
    Fault.CREDIT_FROM_BALANCE_AT_ACCEPTANCE: two_transfers_settled,
    Fault.VERIFY_STATUS_FROZEN: lambda c: settled_transfer(c)[0]["status"],
    Fault.VERIFY_CACHED_PER_REFERENCE: verified_while_pending_then_settled,
    Fault.BANK_TRANSFER_FEE_NOT_DEBITED: lambda c: c.balance(data(bank_transfer(c))["source"]),
    Fault.OVERDRAFT_ALLOWED: lambda c: transfer(c, funds=MINIMUM, amount=2 * MINIMUM).status_code,
    Fault.OVERDRAFT_BY_ONE_KOBO: lambda c: transfer(c, funds=MINIMUM, amount=MINIMUM + 1).status_code,
    Fault.HIDDEN_FEE_ABOVE_TIER: lambda c: c.balance(
        data(transfer(c, funds=30 * MINIMUM, amount=20 * MINIMUM))["source"]
    ),
    Fault.CONCURRENT_OVERDRAFT: concurrent_transfers,
    Fault.BALANCE_CHECKED_THEN_DEBITED: transfers_released_together,
    Fault.SOURCE_BALANCE_WRITTEN_BACK_STALE: transfers_at_once_debited,
    Fault.REFUSED_TRANSFER_STILL_DEBITS: refused_transfer_balance,
    Fault.CREDIT_READ_THEN_WRITTEN: payments_released_together,
    Fault.AMOUNT_STRING_ACCEPTED_AND_ECHOED: lambda c: collection(c, amount=str(MINIMUM)).status_code,
    # Resources and their fields
    Fault.WALLET_PREFIX_VA: lambda c: c.wallet()["publicId"],
    Fault.BANK_ACCOUNT_PREFIX: lambda c: data(validate(c, accountNumber="0123456789", bankCode="058"))["publicId"],
    Fault.TRANSACTION_PREFIX: lambda c: inbound_credit(c)["publicId"],
    Fault.EXTERNAL_SOURCE_PREFIX: lambda c: inbound_credit(c)["sourceData"]["publicId"],
    Fault.BANK_PREFIX: lambda c: data(banks(c))[0]["publicId"],
    Fault.FEE_REFERENCE_PREFIX: lambda c: data(bank_transfer(c))["feeReference"],
    Fault.ACCOUNT_PUBLICID_PREFIXED: lambda c: data(accounts(c))[0]["publicId"][:4],
    Fault.ACCOUNT_WITHOUT_BUSINESS: lambda c: "business" in data(accounts(c))[0],
    Fault.ACCOUNT_ID_DIFFERS: lambda c: [a["id"] == a["_id"] for a in data(accounts(c))],
    Fault.PUBKEY_PREFIX: lambda c: data(accounts(c))[0]["pubKey"]["live"][:9],
    Fault.WEBHOOKS_AS_STRING: lambda c: data(update(c, ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"]))["webhooks"],
    Fault.WEBHOOKS_STRING_ACCEPTED: lambda c: update(c, "http://127.0.0.1:9/one").status_code,
    Fault.WALLET_READ_WITHOUT_PROCESSOR: lambda c: "processor" in data(wallet_read(c)),
    Fault.WALLET_CREATE_ID_NULL: lambda c: c.wallet()["id"],
    Fault.WALLET_READ_WITHOUT_ID: lambda c: "_id" in data(wallet_read(c)),
    Fault.WALLET_READ_ID_INTEGER: lambda c: type(data(wallet_read(c))["id"]).__name__,
    Fault.WALLET_CREATE_ID_STRING: lambda c: type(c.wallet()["id"]).__name__,
    Fault.WALLET_LIST_ID_STRING: lambda c: type(data(wallet_list(c))[0]["id"]).__name__,
    Fault.WALLET_CATEGORY_UPPERCASE_ON_LIST: lambda c: data(wallet_list(c))[0]["category"],
    Fault.COLLECTION_WITHOUT_BANK_NAME: lambda c: "bankName" in data(collection(c)),
    Fault.COLLECTION_PREFIX: lambda c: (data(collection(c))["publicId"][:4], c.wallet()["publicId"][:4]),
    Fault.COLLECTION_REFERENCE_IGNORED: lambda c: data(collection(c, reference="order-42"))["reference"],
    Fault.COLLECTION_REFERENCE_NOT_GENERATED: lambda c: data(collection(c))["reference"],
    Fault.COLLECTION_PARENT_IS_OWN_NUMBER: lambda c: data(collection(c))["parentAccountNumber"],
    Fault.COLLECTION_AMOUNT_IN_NAIRA: lambda c: data(collection(c))["amount"],
    Fault.COLLECTION_AMOUNT_IN_NAIRA_WHEN_LARGE: lambda c: data(collection(c, amount=10**8))["amount"],
    Fault.COLLECTION_NUMBER_IS_PARENT: collection_numbers,
    Fault.BANK_ACCOUNT_WITHOUT_VERSION: lambda c: "version" in data(some_account(c)),
    Fault.BANK_ACCOUNT_CODE_IS_NIBSS: lambda c: data(some_account(c))["bankCode"],
    Fault.BANK_WITHOUT_SLUG: lambda c: "slug" in data(banks(c))[0],
    Fault.BANK_COUNTRY_UPPERCASE: lambda c: data(banks(c))[0]["country"],
    Fault.BANK_DELETED_AT_EMPTY: lambda c: data(banks(c))[0]["deletedAt"],
    Fault.BANK_META_WITHOUT_NIBSS: lambda c: sorted(data(banks(c))[0]["meta"]),
    Fault.TRANSACTION_WITHOUT_TREF: lambda c: "tRef" in inbound_credit(c),
    Fault.INBOUND_ENTRY_CR: lambda c: inbound_credit(c)["entry"],
    Fault.INBOUND_SOURCE_TYPE_LOWERCASE: lambda c: inbound_credit(c)["sourceType"],
    Fault.LISTED_BANK_DESTINATION_TYPE: listed_bank_transfer,
    Fault.CLIENT_TRANSACTION_MISSING: lambda c: "clientTransaction" in inbound_credit(c),
    Fault.ACTUAL_AMOUNT_EXCLUDES_FEE: lambda c: data(bank_transfer(c))["actualAmount"],
    Fault.CREDIT_LEG_ACTUAL_AMOUNT_ZERO: lambda c: inbound_credit(c)["meta"]["credit"]["actualAmount"],
    Fault.ACTUAL_AMOUNT_WITHOUT_FEE_IN_TOP_TIER: top_tier_bank_transfer_sums,
    Fault.CLIENT_TRANSACTION_FEE_ZERO: lambda c: data(bank_transfer(c))["clientTransaction"]["fee"],
    Fault.CURRENCY_PAIR_DASH: lambda c: data(transfer(c))["currencyPair"],
    Fault.TRANSFER_DESTINATION_IS_ACCOUNT_NUMBER: lambda c: data(transfer(c))["destination"],
    Fault.CURRENCY_PAIR_FOREIGN_SOURCE: lambda c: data(transfer(c))["currencyPair"],
    Fault.LISTED_DESTINATION_IS_ACCOUNT_NUMBER: lambda c: listed_transfer(c)["destination"],
    Fault.WALLET_LISTED_A_MINUTE_LATE: lambda c: c.wallet()["publicId"] in listed_wallet_ids(c),
    Fault.TRANSACTION_LISTED_A_MINUTE_LATE: lambda c: listed_transfer(c) is not None,
    Fault.COLLECTION_ACCOUNT_IS_BUSINESS: lambda c: data(collection(c))["account"],
    Fault.COLLECTION_COLLECTS_INTO_OLDEST_WALLET: paid_into_a_collection_account,
    Fault.DESTINATION_DATA_ID_STRING: lambda c: type(data(transfer(c))["destinationData"]["id"]).__name__,
    Fault.EXTERNAL_SOURCE_WITHOUT_SESSION: lambda c: "sessionId" in inbound_credit(c)["sourceData"],
    Fault.RATE_AS_STRING: lambda c: inbound_credit(c)["meta"]["rate"]["rate"],
    Fault.CREDIT_LEG_WITHOUT_BALANCE: lambda c: "balance" in settled_transfer(c)[0]["meta"]["credit"],
    Fault.VERIFY_WITHOUT_BENEFICIARY: lambda c: (
        "beneficiary" in settled_transfer(c)[0]["meta"]["verify"]["data"]["data"]
    ),
    Fault.CLIENT_RESPONSE_WITHOUT_AUTHORIZATION: lambda c: (
        "authorization" in inbound_credit(c)["meta"]["clientResponse"]
    ),
    Fault.THIRD_PARTY_AS_STRING: lambda c: inbound_credit(c)["meta"]["isThirdParty"],
    Fault.TRANSACTION_DELETED_AT_EMPTY: lambda c: inbound_credit(c)["deletedAt"],
    Fault.TRANSFER_REFERENCE_REPEATS: transfer_references,
    Fault.WALLET_LIST_NUMBER_REVERSED: listed_number,
    Fault.OWN_WALLET_NUMBER_MASKED: lambda c: settled_transfer(c)[0]["destinationData"]["accountNumber"],
    Fault.INBOUND_CREDIT_LEG_WITHOUT_LINK_FIELDS: lambda c: sorted(
        set(inbound_credit(c)["meta"]["credit"]) & {"auth", "account", "linkRef"}
    ),
    Fault.DESTINATION_DATA_IS_SOURCE: lambda c: destination_data(transfer(c))["publicId"],
    Fault.CREDIT_LEG_DESTINATION_INTERNAL_ID: lambda c: settled_transfer(c)[0]["meta"]["credit"]["destination"],
    Fault.CREDIT_LEG_FROM_ITS_DESTINATION: lambda c: settled_transfer(c)[0]["meta"]["credit"]["source"],
    # States and transitions
    Fault.TRANSFER_IMMEDIATELY_SUCCESSFUL: lambda c: data(transfer(c))["status"],
    Fault.BANK_TRANSFER_STATUS_PROCESSING: lambda c: data(bank_transfer(c))["status"],
    Fault.INBOUND_CREDIT_PENDING: lambda c: inbound_credit(c)["status"],
    Fault.COLLECTION_INACTIVE: lambda c: data(collection(c))["active"],
    Fault.COLLECTION_EXPIRATION_IN_MINUTES: expiration_seconds,
    Fault.CLOSE_WITHOUT_ACCOUNT_NUMBER: lambda c: sorted(data(close(c))),
    Fault.CLOSED_WALLET_STILL_TRANSFERS: closed_wallet_sends,
    # Endpoints
    Fault.UPDATE_RETURNS_WEBHOOKS_ONLY: lambda c: sorted(data(update(c, []))),
    Fault.UPDATE_RETURNS_OLD_WEBHOOKS: lambda c: data(update(c, ["http://127.0.0.1:9/new"]))["webhooks"],
    Fault.UPDATE_UNKNOWN_ACCOUNT_ACCEPTED: update_unknown_account,
    Fault.ACCOUNTS_LIST_WRAPPED: lambda c: sorted(data(accounts(c))[0]),
    Fault.ACCOUNTS_NAME_FILTER_IGNORED: lambda c: [a["name"] for a in data(accounts(c, name="Payouts"))],
    Fault.UNMATCHED_NAME_LISTS_ALL: lambda c: len(data(accounts(c, name="No such account"))),
    Fault.ACCOUNTS_ISDEFAULT_FILTER_IGNORED: lambda c: len(data(accounts(c, isDefault="true"))),
    Fault.ACCOUNTS_LIVE_FILTER_REJECTED: lambda c: accounts(c, live="true").status_code,
    Fault.ACCOUNT_TOTAL_IGNORES_FILTERS: lambda c: meta(accounts(c, isDefault="false"))["pagination"]["totalCount"],
    Fault.CREATE_WALLET_WITH_ID: lambda c: "_id" in c.wallet(),
    Fault.CREATE_WALLET_CATEGORY_ALWAYS_PRIMARY: lambda c: c.wallet("secondary")["category"],
    Fault.WALLET_NAME_FROM_ACCOUNT: lambda c: c.wallet(accountName="Ada Stores")["accountName"],
    Fault.WALLET_LIST_OF_IDS: lambda c: type(data(wallet_list(c))[0]).__name__,
    Fault.WALLET_LIST_BALANCE_STALE: lambda c: listed_balance(c, settled_transfer(c)[1]),
    Fault.GET_WALLET_RETURNS_FIRST: get_second_wallet,
    Fault.UNKNOWN_WALLET_200: lambda c: unknown_wallet(c).status_code,
    Fault.CLOSE_ACCOUNT_NUMBER_INTEGER: lambda c: type(data(close(c))["accountNumber"]).__name__,
    Fault.COLLECTION_CREATE_RETURNS_WALLET: lambda c: sorted(data(collection(c))),
    Fault.COLLECTION_ACCEPTS_MISSING_ACCOUNT_NAME: lambda c: collection(c, drop=("accountName",)).status_code,
    Fault.COLLECTION_ACCEPTS_UNKNOWN_DESTINATION: lambda c: collection(c, destination=f"{WALLET}99999999").status_code,
    Fault.COLLECTION_REQUIRES_REFERENCE: lambda c: collection(c).status_code,
    Fault.VALIDATE_NAME_UNRESOLVED: lambda c: data(some_account(c))["accountName"],
    Fault.VALIDATE_ACCEPTS_MISSING_BANK_CODE: lambda c: validate(c, accountNumber="0123456789").status_code,
    Fault.TRANSACTIONS_LIST_OF_REFERENCES: lambda c: type(inbound_credit(c)).__name__,
    Fault.VERIFY_BY_PUBLIC_ID: verify_by_reference,
    Fault.VERIFY_WITHOUT_REQUEST_SRC: lambda c: "requestSrc" in settled_transfer(c)[0],
    Fault.UNKNOWN_REFERENCE_200: lambda c: c.call("GET", "/transactions/no-such-reference/verify").status_code,
    Fault.TRANSFER_ENTRY_CREDIT: lambda c: data(transfer(c))["entry"],
    Fault.TRANSFER_DESTINATION_TYPE_WALLET: lambda c: data(transfer(c))["destinationType"],
    Fault.BANK_TRANSFER_DESTINATION_VIRTUAL: lambda c: data(bank_transfer(c))["destinationType"],
    Fault.BANK_TRANSFER_NEGATIVE_FEE: bank_transfer_money,
    Fault.BANK_TRANSFER_DESTINATION_NUMBER_REVERSED: lambda c: destination_data(bank_transfer(c))["accountNumber"],
    Fault.BANK_LIST_NAMES_ONLY: lambda c: type(data(banks(c))[0]).__name__,
    Fault.BANK_LIST_PAGINATED: lambda c: "pagination" in meta(banks(c)),
    Fault.VERIFY_BY_PREFIX: verify_a_prefix,
    Fault.WALLET_READ_BY_PREFIX: read_a_prefix,
    Fault.MOBILE_WITHOUT_ISO_CODE_ACCEPTED: lambda c: (
        create_wallet(
            c,
            category="secondary",
            emailAddress=SECONDARY["emailAddress"],
            mobile={"phoneNumber": SECONDARY["mobile"]["phoneNumber"]},
        ).status_code
    ),
    # Authentication
    Fault.NO_AUTH_ON_BANK_LIST: lambda c: banks(c, key=None).status_code,
    Fault.NO_AUTH_ON_CLOSE: lambda c: close(c, key=None).status_code,
    Fault.ANY_KEY_ACCEPTED_ON_READS: lambda c: c.call("GET", "/virtual-accounts", key="not-the-key").status_code,
    Fault.AUTH_REFUSAL_403: lambda c: banks(c, key=None).status_code,
    Fault.KEY_REFUSED_ON_COLLECTION_ACCOUNTS: lambda c: collection(c).status_code,
    Fault.PUBKEY_TEST_MISSING: lambda c: sorted(data(accounts(c))[0]["pubKey"]),
    Fault.KEY_CASE_INSENSITIVE: lambda c: with_key_sent(c, c.key.upper()),
    Fault.KEY_PREFIX_ACCEPTED: lambda c: with_key_sent(c, c.key[:-1]),
    Fault.KEY_WITH_SUFFIX_ACCEPTED: lambda c: with_key_sent(c, c.key + "0"),
    Fault.EMPTY_KEY_ACCEPTED: lambda c: with_key_sent(c, ""),
    Fault.KEY_FROM_QUERY_PARAMETER: lambda c: with_key_sent(c, params={"apiKey": c.key}),
    Fault.BEARER_KEY_ACCEPTED: lambda c: with_key_sent(c, headers={"Authorization": f"Bearer {c.key}"}),
    # Isolation between accounts and businesses
    Fault.OTHER_ACCOUNT_WALLET_READABLE: lambda c: (
        as_other_business(c, "GET", f"/virtual-accounts/{c.wallet()['publicId']}").status_code
    ),
    Fault.OTHER_ACCOUNT_WALLET_CLOSABLE: other_business_closes,
    Fault.OTHER_ACCOUNT_WALLET_TRANSFERS: lambda c: other_business_sends(c, to_bank=False),
    Fault.OTHER_ACCOUNT_WALLET_BANK_TRANSFERS: lambda c: other_business_sends(c, to_bank=True),
    Fault.OTHER_ACCOUNT_TRANSACTION_VERIFIABLE: other_business_verifies,
    Fault.OTHER_BUSINESS_TRANSACTIONS_LISTED: other_business_lists_transactions,
    Fault.OTHER_BUSINESS_ACCOUNT_UPDATABLE: other_business_account_updated,
    Fault.SIBLING_ACCOUNT_UPDATABLE: sibling_accounts_updated,
    Fault.SERVER_OWNED_FIELD_OVERWRITTEN: created_at_sent,
    # Errors
    Fault.COLLECTION_CREATED_200: lambda c: collection(c).status_code,
    Fault.TRANSFER_201: lambda c: transfer(c).status_code,
    Fault.SUCCESS_FALSE_ON_BANK_LIST: lambda c: meta(banks(c))["success"],
    Fault.MALFORMED_JSON_500: lambda c: c.call("POST", "/virtual-accounts", content=b"{oops").status_code,
    Fault.PLAIN_ERROR_BODY: lambda c: sorted(unknown_wallet(c).json()),
    Fault.UNKNOWN_PATH_HTML_PAGE: lambda c: content_type(c.call("GET", "/no-such-operation")),
    Fault.WRONG_METHOD_TEXT_PAGE: lambda c: content_type(c.call("PATCH", "/transactions/banks")),
    Fault.LARGE_BODY_HTML_PAGE: padded_wallet,
    Fault.ERROR_STATUS_CODE_200_IN_META: lambda c: meta(unknown_wallet(c))["statusCode"],
    Fault.ERROR_SUCCESS_TRUE: lambda c: meta(unknown_wallet(c))["success"],
    Fault.UNKNOWN_DESTINATION_UNANSWERED: answer_for_unknown_destination,
    # Limits
    Fault.SIXTH_PRIMARY_ACCEPTED: lambda c: primaries(c, contract.primary_wallet_limit() + 1),
    Fault.FIFTH_PRIMARY_REFUSED: lambda c: primaries(c, contract.primary_wallet_limit() + 1),
    Fault.CLOSED_PRIMARY_STILL_COUNTED: closed_primary_then_create,
    Fault.PRIMARY_LIMIT_RACE: concurrent_primaries,
    Fault.PRIMARY_COUNTED_THEN_OPENED: primaries_released_together,
    Fault.SECONDARY_LIMITED_TO_FIVE: lambda c: [
        create_wallet(c, category="secondary", **SECONDARY).status_code
        for _ in range(contract.primary_wallet_limit() + 1)
    ],
    Fault.SECONDARY_WITHOUT_EMAIL_ACCEPTED: lambda c: (
        create_wallet(c, category="secondary", mobile=SECONDARY["mobile"]).status_code
    ),
    Fault.EMAIL_NOT_VALIDATED: lambda c: (
        create_wallet(c, category="secondary", **(SECONDARY | {"emailAddress": "ada-at-example"})).status_code
    ),
    Fault.SECONDARY_WITHOUT_MOBILE_ACCEPTED: lambda c: (
        create_wallet(c, category="secondary", emailAddress=SECONDARY["emailAddress"]).status_code
    ),
    Fault.PRIMARY_REQUIRES_EMAIL: lambda c: create_wallet(c, category="primary").status_code,
    Fault.UNKNOWN_CATEGORY_ACCEPTED: lambda c: create_wallet(c, category="tertiary", **SECONDARY).status_code,
    Fault.TRANSFER_MINIMUM_OFF_BY_ONE: lambda c: transfer(c, amount=MINIMUM - 1).status_code,
    Fault.TRANSFER_MINIMUM_EXCLUSIVE: lambda c: transfer(c, amount=MINIMUM).status_code,
    Fault.BANK_TRANSFER_MINIMUM_MISSING: lambda c: bank_transfer(c, amount=BANK_MINIMUM - 1).status_code,
    Fault.BANK_TRANSFER_MINIMUM_EXCLUSIVE: lambda c: bank_transfer(c, amount=BANK_MINIMUM).status_code,
    Fault.EXPIRE_IN_LOWER_BOUND_OFF: lambda c: collection(c, expireIn=EXPIRE_MIN - 1).status_code,
    Fault.EXPIRE_IN_UPPER_BOUND_EXCLUSIVE: lambda c: collection(c, expireIn=EXPIRE_MAX).status_code,
    Fault.EXPIRE_IN_NO_UPPER_BOUND: lambda c: collection(c, expireIn=EXPIRE_MAX + 1).status_code,
    Fault.REFERENCE_MIN_LENGTH_4: lambda c: collection(c, reference="r" * (REFERENCE_MIN - 1)).status_code,
    Fault.REFERENCE_MIN_LENGTH_6: lambda c: collection(c, reference="r" * REFERENCE_MIN).status_code,
    Fault.DUPLICATE_REFERENCE_ACCEPTED: duplicate_reference,
    Fault.REFERENCE_UNIQUE_PER_WALLET: reference_on_another_wallet,
    Fault.REFERENCE_CHECKED_THEN_STORED: references_released_together,
    Fault.PAGE_OVERFLOWS_PER_PAGE: lambda c: len(data(accounts(c, perPage="2"))),
    Fault.FRACTIONAL_AMOUNT_ACCEPTED: lambda c: transfer(c, amount=MINIMUM + 0.5).status_code,
    Fault.TRANSFER_OTHER_CURRENCY_ACCEPTED: lambda c: transfer(c, currency="USD").status_code,
    Fault.TRANSFER_OTHER_SOURCE_TYPE_ACCEPTED: lambda c: transfer(c, sourceType="External").status_code,
    Fault.PAGES_OVERLAP: paged_accounts,
    Fault.SMALL_PAGES_OVERLAP: paged_accounts,
    Fault.TOTAL_SHRINKS_PAST_FIRST_PAGE: lambda c: meta(accounts(c, perPage="2", page="2"))["pagination"]["totalCount"],
    Fault.PER_PAGE_NOT_PAGE_SIZE: lambda c: (len(data(accounts(c, perPage="2"))), meta(accounts(c, perPage="2"))),
    Fault.TOTAL_COUNT_IS_PAGE_SIZE: lambda c: meta(accounts(c, perPage="2"))["pagination"]["totalCount"],
    Fault.INVALID_EMAIL_500: lambda c: (
        create_wallet(c, category="secondary", **(SECONDARY | {"emailAddress": "ada-at-example"})).status_code
    ),
    Fault.AMOUNT_BELOW_MINIMUM_500: lambda c: transfer(c, amount=MINIMUM - 1).status_code,
    Fault.EXPIRE_IN_OUT_OF_RANGE_500: lambda c: collection(c, expireIn=EXPIRE_MIN - 1).status_code,
    Fault.SHORT_REFERENCE_500: lambda c: collection(c, reference="r" * (REFERENCE_MIN - 1)).status_code,
    # Events
    Fault.WEBHOOKS_NOT_PERSISTED: persisted_webhooks,
    Fault.NON_URL_WEBHOOK_ACCEPTED: lambda c: update(c, ["hooks.conformance.invalid/events"]).status_code,
    # Money, echoes, boolean filters and isolation through lists, as implementations in other languages break them.
    Fault.TRANSFER_ACTUAL_AMOUNT_VIA_NAIRA_FLOAT: lambda c: data(transfer(c, amount=MINIMUM + 1))["actualAmount"],
    Fault.BALANCE_WRAPS_AT_32_BITS: lambda c: c.balance(c.fund(c.wallet()["publicId"], 2**31)["destination"]),
    Fault.BANK_TRANSFER_ANSWER_DROPS_NARRATION: lambda c: data(bank_transfer(c))["narration"],
    Fault.ACCOUNTS_LIVE_FALSE_FILTERED_AS_TRUE: lambda c: len(data(accounts(c, live="false"))),
    Fault.WALLET_CATEGORY_FILTER_ACROSS_BUSINESSES: other_business_wallet_listed,
    Fault.PAYERS_DEBIT_LISTED_TO_PAYEE: paid_by_other_business,
    Fault.COLLECTION_INTO_CLOSED_WALLET_ACCEPTED: lambda c: collection(c, destination=closed_wallet(c)).status_code,
    # Empty lists, nulls, numbers in other spellings, lengths in characters and member names' case.
    Fault.EMPTY_WALLET_LIST_DATA_NULL: lambda c: data(c.call("GET", "/virtual-accounts", params={"page": "1000"})),
    Fault.EMPTY_TRANSACTION_LIST_WITHOUT_PAGINATION: lambda c: (
        "pagination" in meta(c.call("GET", "/transactions", params={"page": "1000"}))
    ),
    Fault.NULL_MOBILE_UNANSWERED: answer_for_null_mobile,
    Fault.NULL_WEBHOOK_500: lambda c: update(c, ["http://127.0.0.1:9/new", None]).status_code,
    Fault.COLLECTION_FRACTIONAL_AMOUNT_ACCEPTED: lambda c: collection(c, amount=MINIMUM + 0.5).status_code,
    Fault.COLLECTION_FLOAT_AMOUNT_KEPT: lambda c: type(data(collection(c, amount=float(MINIMUM)))["amount"]).__name__,
    Fault.EXPONENT_AMOUNT_READ_AS_MANTISSA: amount_sent_with_an_exponent,
    Fault.REFERENCE_LENGTH_IN_BYTES: lambda c: collection(c, reference="\u00e9" * (REFERENCE_MIN - 1)).status_code,
    Fault.NAMES_MATCHED_IGNORING_CASE: lambda c: collection(c, drop=("amount",), AMOUNT=MINIMUM).status_code,
    Fault.REFERENCE_LENGTH_IN_UTF16_UNITS: lambda c: (
        collection(c, reference="\U00020000" * (REFERENCE_MIN - 1)).status_code
    ),
}


# ---------------------------------------------------------------------------- the catalogue


def test_fault_names_are_unique_kebab_case() -> None:
    """Every member is its own fault (no aliases) with a unique kebab-case CLI name."""
    assert len(Fault.__members__) == len(list(Fault)) == len(FAULTS)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in FAULTS)
    assert all(Fault.parse(name) is fault and Fault.parse(fault.name) is fault for name, fault in FAULTS.items())


def test_faults_name_catalogued_requirements_in_one_line() -> None:
    """Every fault breaks a requirement of requirements.yaml and says what changes in one line."""
    known = catalogue()
    for fault in Fault:
        assert fault.requirement_id in known, fault
        assert fault.description.strip() and "\n" not in fault.description, fault


def test_every_fault_has_a_scenario() -> None:
    """The scenarios cover exactly the faults."""
    assert set(SCENARIOS) == set(Fault)


@pytest.mark.parametrize("fault", list(Fault), ids=lambda fault: fault.cli_name)
def test_fault_is_read_at_exactly_one_place(fault: Fault) -> None:
    """The package reads the fault once: as `faults.on(Fault.NAME)`, or as one row of the envelope's message table."""
    uses, reads = places("Fault", fault.name, "faults.py")
    assert len(uses) == 1, f"{fault.name} is used in {uses or 'no module'}"
    in_table = any(row_fault is fault for row_fault, _ in WRONG_MESSAGES.values())
    assert reads == ([] if in_table else uses)


def test_the_message_table_is_read_once() -> None:
    """The wrong-message faults are one table, read at one place in the envelope."""
    assert len(WRONG_MESSAGES) == 6
    sources = reference_sources("faults.py")
    reads = [name for name, text in sources.items() for _ in re.finditer(r"WRONG_MESSAGES\.get\(", text)]
    assert reads == ["service.py"]


# ------------------------------------------------------------------------ visible behaviour


@pytest.mark.parametrize("fault", list(Fault), ids=lambda fault: fault.cli_name)
def test_fault_changes_what_a_client_sees(fault: Fault, reference: ReferenceClient, http_client: httpx.Client) -> None:
    """With the fault on, the fault's scenario observes something the faithful reference does not show."""
    scenario = SCENARIOS.get(fault)
    assert scenario is not None, f"no scenario for {fault.cli_name}"
    faithful = scenario(reference)
    server = started([fault])
    try:
        faulty = scenario(ReferenceClient(server, http_client))
    finally:
        server.stop()
    assert faulty != faithful, f"{fault.cli_name}: both servers show {faithful!r}"
