"""The variant catalogue, and the suite proven in the other direction.

Every variant is named, quotes the sentence that leaves its point open, is read at one place and
changes what a client sees. Then the conformance suite (tests/) runs against the reference with
every variant on at once, and with each alone (the tests that make the reference read its switch):
a conforming reading of an open point must cost it no MUST and no SHOULD failure.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from selftests.conftest import REPORTS, ReferenceClient, wallet_body
from selftests.suite_runs import HAND_WRITTEN, QUICK_SETTLEMENT, SETTLE_TIMEOUT, run_in_process, run_suite, tail
from selftests.switch_reach import AT_START
from selftests.switches import places
from selftests.test_reference import BANK_MINIMUM, MINIMUM, WALLET, bank_transfer_body, collection_body, transfer_body
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reference import VARIANTS, ReferenceServer, Variant
from wallet_conformance.reference.variants import ALL, VariantSet, expand
from wallet_conformance.world.locks import file_lock

VARIANT_ROWS = REPORTS / "variants"  # one JSON row per suite run, for reading the failures afterwards
SETTLE_WAIT = 5.0

Scenario = Callable[[ReferenceClient], Any]


# ----------------------------------------------------------------------- small scenarios


def fund(c: ReferenceClient, wallet_id: str, amount: int) -> None:
    """An inbound payment through the sandbox, waited for (a variant credits it later)."""
    before = c.balance(wallet_id)
    response = c.http.post(c.server.funding_url, json={"walletId": wallet_id, "amount": amount})
    assert response.is_success, response.text
    deadline = time.monotonic() + SETTLE_WAIT
    while c.balance(wallet_id) < before + amount:
        assert time.monotonic() < deadline, f"funding {wallet_id} did not arrive"
        time.sleep(0.05)


def credited_by_a_payment(c: ReferenceClient) -> int:
    """What a wallet holds after one inbound payment of the minimum transfer."""
    wallet_id = c.wallet()["publicId"]
    response = c.http.post(c.server.funding_url, json={"walletId": wallet_id, "amount": MINIMUM})
    assert response.is_success, response.text
    return c.balance(wallet_id)


def inbound_credit_sums(c: ReferenceClient) -> tuple[int, int, int]:
    """The amount, fee and actualAmount of the credit one inbound payment of the minimum transfer records."""
    credited_by_a_payment(c)
    credit = next(entry for entry in c.data("GET", "/transactions") if entry["sourceType"] == "External")
    return credit["amount"], credit["fee"], credit["actualAmount"]


def wallets(c: ReferenceClient, funds: int = 0) -> tuple[str, str]:
    source = c.wallet()["publicId"]
    destination = c.wallet("secondary")["publicId"]
    if funds:
        fund(c, source, funds)
    return source, destination


def transfer(c: ReferenceClient, funds: int = 3 * MINIMUM, **change: Any) -> httpx.Response:
    source, destination = wallets(c, funds)
    return c.call("POST", "/transactions/transfer", json=transfer_body(source, destination) | change)


def bank_transfer(c: ReferenceClient) -> httpx.Response:
    source, _ = wallets(c, 10 * BANK_MINIMUM)
    return c.call("POST", "/transactions/bank-transfer", json=bank_transfer_body(source))


def data(response: httpx.Response) -> Any:
    return response.json()["data"]


def meta(response: httpx.Response) -> dict[str, Any]:
    return response.json()["meta"]


def accounts(c: ReferenceClient, **params: str) -> httpx.Response:
    return c.call("GET", "/accounts", params=params)


def names(response: httpx.Response) -> list[str]:
    return [account["name"] for account in data(response)]


def unknown_wallet(c: ReferenceClient) -> httpx.Response:
    return c.call("GET", f"/virtual-accounts/{WALLET}99999999")


def duplicate_reference(c: ReferenceClient) -> int:
    wallet = c.wallet()["publicId"]
    c.data("POST", "/collection-accounts", json=collection_body(wallet, reference="order-7"))
    return c.call("POST", "/collection-accounts", json=collection_body(wallet, reference="order-7")).status_code


def closed(c: ReferenceClient) -> str:
    wallet = c.wallet()["publicId"]
    c.data("DELETE", f"/virtual-accounts/{wallet}")
    return wallet


def listed_wallets(c: ReferenceClient) -> list[str]:
    return [wallet["publicId"] for wallet in c.data("GET", "/virtual-accounts")]


def wallet_order(c: ReferenceClient) -> bool:
    """Whether the newer of two new wallets is listed before the older one."""
    older, newer = c.wallet()["publicId"], c.wallet()["publicId"]
    listed = listed_wallets(c)
    return listed.index(newer) < listed.index(older)


def settled_status(c: ReferenceClient) -> str:
    sent = data(transfer(c))
    c.settle()
    deadline = time.monotonic() + SETTLE_WAIT
    while (status := c.data("GET", f"/transactions/{sent['reference']}/verify")["status"]) == "pending":
        assert time.monotonic() < deadline, "the transfer did not settle"
        time.sleep(0.05)
    return status


def settled_credit_leg(c: ReferenceClient) -> bool:
    """Whether a settled wallet transfer's verify shows a credit leg in meta."""
    sent = data(transfer(c))
    c.settle()
    deadline = time.monotonic() + SETTLE_WAIT
    while (verified := c.data("GET", f"/transactions/{sent['reference']}/verify"))["status"] == "pending":
        assert time.monotonic() < deadline, "the transfer did not settle"
        time.sleep(0.05)
    return "credit" in verified["meta"]


def verify_in_other_case(c: ReferenceClient) -> int:
    """The status of a verify of a transfer's reference written in the other letter case."""
    reference = data(transfer(c))["reference"]
    return c.call("GET", f"/transactions/{reference.swapcase()}/verify").status_code


def one_reference_in_two_accounts(c: ReferenceClient) -> tuple[bool, bool]:
    """Whether the two businesses' first transfers share a reference, and whether verify of that reference answers
    each key with its own transfer (its publicId), never the other's."""
    keys = (c.server.secret_key, c.server.second_secret_key)
    sent = []
    for key in keys:
        source, destination = c.wallet(key=key)["publicId"], c.wallet("secondary", key=key)["publicId"]
        c.fund(source, 3 * MINIMUM)
        body = transfer_body(source, destination)
        sent.append(c.data("POST", "/transactions/transfer", json=body, key=key))
    verified = [
        c.data("GET", f"/transactions/{transfer['reference']}/verify", key=key)["publicId"]
        for key, transfer in zip(keys, sent, strict=True)
    ]
    shared = sent[0]["reference"] == sent[1]["reference"]
    return shared, verified == [transfer["publicId"] for transfer in sent]


def balances_before_settlement(c: ReferenceClient) -> tuple[int, int]:
    """Source and destination balances right after a transfer is accepted (nothing settled yet)."""
    source, destination = wallets(c, 3 * MINIMUM)
    c.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    return c.balance(source), c.balance(destination)


def overdraft(c: ReferenceClient) -> tuple[int, str | None, int]:
    """The status of a transfer the balance cannot cover, its status once settled, and the source balance."""
    source, destination = wallets(c, MINIMUM)
    response = c.call("POST", "/transactions/transfer", json=transfer_body(source, destination, 2 * MINIMUM))
    c.settle()
    status = None
    if response.is_success:
        status = c.data("GET", f"/transactions/{data(response)['reference']}/verify")["status"]
    return response.status_code, status, c.balance(source)


def balance_right_after_settlement(c: ReferenceClient) -> int:
    """The destination's balance read at once after the sandbox settled a wallet transfer to it."""
    source, destination = wallets(c, 3 * MINIMUM)
    c.data("POST", "/transactions/transfer", json=transfer_body(source, destination))
    c.settle()
    return c.balance(destination)


def large_payout_status(c: ReferenceClient) -> tuple[str, int]:
    """The status a bank transfer of four times the minimum ends with, and its source's balance then."""
    source, _ = wallets(c, 10 * BANK_MINIMUM)
    body = bank_transfer_body(source) | {"amount": 4 * BANK_MINIMUM}
    sent = c.data("POST", "/transactions/bank-transfer", json=body)
    c.settle()
    return c.data("GET", f"/transactions/{sent['reference']}/verify")["status"], c.balance(source)


def to_a_closed_wallet(c: ReferenceClient) -> int:
    source, _ = wallets(c, 3 * MINIMUM)
    return c.call("POST", "/transactions/transfer", json=transfer_body(source, closed(c))).status_code


def one_customer_twice(c: ReferenceClient) -> int:
    """The status of a second secondary wallet for the customer (e-mail address, phone number) of a first."""
    c.wallet("secondary")
    return c.call("POST", "/virtual-accounts", json=wallet_body("secondary")).status_code


def without_narration(c: ReferenceClient) -> int:
    source, destination = wallets(c, 3 * MINIMUM)
    body = {name: value for name, value in transfer_body(source, destination).items() if name != "narration"}
    return c.call("POST", "/transactions/transfer", json=body).status_code


def update_webhooks(c: ReferenceClient, webhooks: list[str]) -> httpx.Response:
    account = c.data("GET", "/accounts", params={"isDefault": "true"})[0]
    return c.call("PATCH", f"/accounts/{account['publicId']}", json={"webhooks": webhooks})


def delivered_events(c: ReferenceClient) -> list[str]:
    """The events recorded for a webhook after a funding and an accepted transfer (not settled)."""
    update_webhooks(c, ["http://127.0.0.1:9/hook"])
    transfer(c)
    deliveries = c.http.get(f"{c.server.origin}/sandbox/deliveries").json()["data"]
    return sorted({delivery["event"] for delivery in deliveries})


class Listener:
    """A loopback webhook listener recording the header names and bodies it receives."""

    def __init__(self) -> None:
        received: list[tuple[list[str], Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                received.append((sorted(name.lower() for name in self.headers), json.loads(body)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.received = received
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def delivery_shape(c: ReferenceClient) -> tuple[list[str], list[str]]:
    """The signature header and the top-level fields of the first delivery of a funding."""
    listener = Listener()
    try:
        update_webhooks(c, [listener.url])
        fund(c, c.wallet()["publicId"], MINIMUM)
        deadline = time.monotonic() + SETTLE_WAIT
        while not listener.received:
            assert time.monotonic() < deadline, "no delivery arrived"
            time.sleep(0.05)
        headers, body = listener.received[0]
        return [name for name in headers if "signature" in name], sorted(body)
    finally:
        listener.close()


def funding_status(c: ReferenceClient) -> int:
    wallet = c.wallet()["publicId"]
    return c.http.post(c.server.funding_url, json={"walletId": wallet, "amount": MINIMUM}).status_code


def others_records(c: ReferenceClient) -> tuple[int, int]:
    """The statuses of the second business's read of the first's wallet and verify of its credit."""
    wallet = c.wallet()["publicId"]
    fund(c, wallet, MINIMUM)
    reference = c.data("GET", "/transactions")[0]["reference"]
    other = c.server.second_secret_key
    return (
        c.call("GET", f"/virtual-accounts/{wallet}", key=other).status_code,
        c.call("GET", f"/transactions/{reference}/verify", key=other).status_code,
    )


def into_another_business(c: ReferenceClient) -> int:
    """The status of a transfer into the second business's wallet."""
    source, _ = wallets(c, 3 * MINIMUM)
    theirs = c.wallet(key=c.server.second_secret_key)["publicId"]
    return c.call("POST", "/transactions/transfer", json=transfer_body(source, theirs)).status_code


def another_business_credit_leg(c: ReferenceClient) -> dict:
    """The credit leg a settled transfer into the second business's wallet shows its payer."""
    source, _ = wallets(c, 3 * MINIMUM)
    theirs = c.wallet(key=c.server.second_secret_key)["publicId"]
    sent = c.data("POST", "/transactions/transfer", json=transfer_body(source, theirs))
    c.settle()
    return c.data("GET", f"/transactions/{sent['reference']}/verify")["meta"]["credit"]


def another_account_updated(c: ReferenceClient) -> int:
    """The status of a PATCH of another account of the key's business."""
    other = c.data("GET", "/accounts", params={"isDefault": "false"})[0]
    return c.call("PATCH", f"/accounts/{other['publicId']}", json={"webhooks": []}).status_code


# Each variant, and what a client observes of it: the observation differs from the faithful reference's.
SCENARIOS: dict[Variant, Scenario] = {
    Variant.VALIDATION_422: lambda c: c.call("POST", "/virtual-accounts", json={"category": "tertiary"}).status_code,
    Variant.UNKNOWN_RECORD_400: lambda c: unknown_wallet(c).status_code,
    Variant.CONFLICTS_400: duplicate_reference,
    Variant.COLLECTION_REFERENCE_IDEMPOTENT: duplicate_reference,
    Variant.INSUFFICIENT_BALANCE_402: lambda c: transfer(c, funds=MINIMUM, amount=2 * MINIMUM).status_code,
    Variant.OTHERS_RECORDS_403: others_records,
    Variant.OTHER_ACCOUNT_UPDATE_404: another_account_updated,
    Variant.ERROR_DETAILS: lambda c: (sorted(meta(unknown_wallet(c))), data(unknown_wallet(c))),
    Variant.STRICT_QUERY: lambda c: c.call("GET", "/virtual-accounts", params={"sort": "asc"}).status_code,
    Variant.PAGING_PAGE_LIMIT: lambda c: len(data(accounts(c, limit="1"))),
    Variant.PAGING_OFFSET_LIMIT: lambda c: names(accounts(c, offset="1", limit="1")),
    Variant.PAGING_ZERO_BASED: lambda c: meta(accounts(c, page="1", size="1"))["pagination"],
    Variant.PER_PAGE_CAPPED: lambda c: meta(accounts(c, perPage="50"))["pagination"]["perPage"],
    Variant.PER_PAGE_LIMITED: lambda c: c.call("GET", "/accounts", params={"perPage": "100"}).status_code,
    Variant.LISTS_OLDEST_FIRST: wallet_order,
    Variant.ACCOUNTS_NEWEST_FIRST: lambda c: names(accounts(c))[0],
    Variant.CLOSED_WALLET_READABLE: lambda c: c.call("GET", f"/virtual-accounts/{closed(c)}").status_code,
    Variant.CLOSED_WALLET_LISTED: lambda c: closed(c) in listed_wallets(c),
    Variant.CLOSE_IS_IDEMPOTENT: lambda c: c.call("DELETE", f"/virtual-accounts/{closed(c)}").status_code,
    Variant.FUNDED_WALLET_NOT_CLOSABLE: lambda c: (
        c.call("DELETE", f"/virtual-accounts/{wallets(c, MINIMUM)[0]}").status_code
    ),
    Variant.CLOSED_WALLET_FAILS_LATER: to_a_closed_wallet,
    Variant.BALANCES_POSTED_LATER: balance_right_after_settlement,
    Variant.PAYOUTS_ABOVE_LIMIT_FAIL: large_payout_status,
    Variant.FAILED_PAYOUT_KEEPS_FEE: large_payout_status,
    Variant.SLOW_SETTLEMENT: lambda c: c.settle().status_code,
    Variant.SETTLED_STATUS_SUCCESSFUL: settled_status,
    Variant.DEBIT_AT_SETTLEMENT: balances_before_settlement,
    Variant.CREDIT_AT_ACCEPTANCE: balances_before_settlement,
    Variant.OVERDRAFT_FAILS_LATER: overdraft,
    Variant.WALLET_TRANSFER_FEE: lambda c: (data(transfer(c))["fee"], data(transfer(c))["actualAmount"]),
    Variant.BANK_TRANSFER_FREE: lambda c: data(bank_transfer(c))["fee"],
    Variant.BANK_TRANSFER_FEE_ABOVE_MINIMUM: lambda c: data(bank_transfer(c))["fee"],
    Variant.EXTRA_FIELDS: lambda c: "object" in c.wallet(),
    Variant.REVISION_KEPT_ON_UPDATE: lambda c: update_webhooks(c, ["https://a.invalid/"]).json()["data"]["__v"],
    Variant.EXTRA_META: lambda c: sorted(meta(accounts(c))),
    Variant.EXTRA_HEADERS: lambda c: "ratelimit-limit" in accounts(c).headers,
    Variant.CONTENT_TYPE_CHARSET: lambda c: accounts(c).headers["content-type"],
    Variant.TIMESTAMPS_UTC_OFFSET: lambda c: c.wallet()["createdAt"][-6:],
    Variant.WRONG_KEY_403: lambda c: c.call("GET", "/accounts", key="not-the-key").status_code,
    Variant.WEBHOOK_ON_ACCEPTANCE: delivered_events,
    Variant.WEBHOOK_BARE_TRANSACTION: delivery_shape,
    Variant.WEBHOOK_URLS_CHECKED: lambda c: update_webhooks(c, ["ftp://hooks.conformance.invalid/events"]).status_code,
    Variant.WEBHOOKS_SORTED: lambda c: update_webhooks(c, ["https://b.invalid/", "https://a.invalid/"]).json()["data"][
        "webhooks"
    ],
    Variant.WEBHOOKS_NORMALISED: lambda c: update_webhooks(c, ["HTTPS://Hooks.Example:443", "x://h:99999"]).json()[
        "data"
    ]["webhooks"],
    Variant.FUNDING_DELAYED: funding_status,
    Variant.INBOUND_PAYMENT_FEE: credited_by_a_payment,
    Variant.INBOUND_PAYMENT_FEE_NET: inbound_credit_sums,
    Variant.INBOUND_LEVY_DEBITED: credited_by_a_payment,
    Variant.NAME_FILTER_SUBSTRING: lambda c: names(accounts(c, name="pay")),
    Variant.MORE_ACCOUNTS: lambda c: meta(accounts(c))["pagination"]["totalCount"],
    Variant.ACCOUNTS_OWN_ONLY: lambda c: names(accounts(c)),
    Variant.TRANSFERS_WITHIN_BUSINESS: into_another_business,
    Variant.OTHER_BUSINESS_WITHHELD: another_business_credit_leg,
    Variant.COLLECTIONS_INTO_ANY_WALLET: lambda c: (
        c.call(
            "POST", "/collection-accounts", json=collection_body(c.wallet(key=c.server.second_secret_key)["publicId"])
        ).status_code
    ),
    Variant.INACTIVE_BANK_FIRST: lambda c: c.data("GET", "/transactions/banks")[0]["active"],
    Variant.NUMERIC_STRINGS_PARSED: lambda c: transfer(c, amount=str(MINIMUM)).status_code,
    Variant.PREEXISTING_RECORDS: lambda c: meta(c.call("GET", "/virtual-accounts"))["pagination"]["totalCount"],
    Variant.WALLET_NAME_REQUIRED: lambda c: (
        c.call("POST", "/virtual-accounts", json={"category": "primary"}).status_code
    ),
    Variant.NARRATION_REQUIRED: without_narration,
    Variant.CUSTOMERS_UNIQUE: one_customer_twice,
    Variant.PAGE_SIZE_20: lambda c: meta(accounts(c))["pagination"]["perPage"],
    Variant.VERIFY_ANY_CASE: verify_in_other_case,
    Variant.REFERENCES_PER_ACCOUNT: one_reference_in_two_accounts,
    Variant.NO_CREDIT_LEG: settled_credit_leg,
    Variant.RESERVED_WEBHOOK_HOSTS_REFUSED: lambda c: (
        update_webhooks(c, ["https://hooks.conformance.invalid/"]).status_code
    ),
    Variant.BANK_CURRENCY_NUMERIC: lambda c: c.data("GET", "/transactions/banks")[0]["currency"],
}


# ---------------------------------------------------------------------------- the catalogue


def test_variants_are_many_and_unique_kebab_case() -> None:
    """At least thirty variants, each its own member with a unique kebab-case CLI name; `all` is every one."""
    assert len(Variant.__members__) == len(list(Variant)) == len(VARIANTS) >= 30
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in VARIANTS)
    assert all(
        Variant.parse(name) is variant and Variant.parse(variant.name) is variant for name, variant in VARIANTS.items()
    )
    assert expand([ALL]) == list(Variant) and len(VariantSet([ALL, "lists-oldest-first"])) == len(Variant)
    with pytest.raises(ValueError, match="unknown variant"):
        Variant.parse("no-such-variant")


def test_variants_quote_the_open_sentence_in_one_line() -> None:
    """Every variant quotes the document's sentence that leaves its point open and says in one line what changes."""
    for variant in Variant:
        assert variant.quote.strip() and variant.description.strip() and "\n" not in variant.description, variant
    # The quoted sentences leave points open: about half say 'not shown'; the others state a shape and leave a
    # detail of it free (an order, a spelling of UTC, a status word), which a variant reads another way.
    assert sum("not shown" in variant.quote for variant in Variant) >= len(Variant) * 2 // 5


def test_variants_and_faults_do_not_share_names() -> None:
    """A variant is never also a fault: one breaks the document, the other does not."""
    from wallet_conformance.reference import FAULTS

    assert not set(VARIANTS) & set(FAULTS)


def test_every_variant_has_a_scenario() -> None:
    """The scenarios cover exactly the variants."""
    assert set(SCENARIOS) == set(Variant)


@pytest.mark.parametrize("variant", list(Variant), ids=lambda variant: variant.cli_name)
def test_variant_is_read_at_exactly_one_place(variant: Variant) -> None:
    """The package reads the variant once, as `variants.on(Variant.NAME)`."""
    uses, reads = places("Variant", variant.name, "variants.py")
    assert len(uses) == 1, f"{variant.name} is used in {uses or 'no module'}"
    assert reads == uses


def test_cli_lists_variants() -> None:
    """`--list-variants` prints every variant with what changes and the sentence it rests on."""
    from wallet_conformance.reference.__main__ import parse_arguments
    from wallet_conformance.reference.variants import list_variants

    listing = list_variants()
    for name, variant in VARIANTS.items():
        assert name in listing and variant.description in listing and variant.quote in listing
    assert parse_arguments(["--variant", "all", "--variant", "lists-oldest-first"]).variant == [
        ALL,
        "lists-oldest-first",
    ]


# ------------------------------------------------------------------------ visible behaviour


@pytest.fixture
def variant_server(request: pytest.FixtureRequest) -> Iterator[ReferenceServer]:
    server = ReferenceServer(variants=[request.param], settle_delay=None).start()
    yield server
    server.stop()


@pytest.mark.parametrize("variant_server", list(Variant), ids=lambda variant: variant.cli_name, indirect=True)
def test_variant_changes_what_a_client_sees(
    variant_server: ReferenceServer, reference: ReferenceClient, http_client: httpx.Client
) -> None:
    """With the variant on, its scenario observes something the reference without it does not show."""
    (variant,) = variant_server.variants
    scenario = SCENARIOS[variant]
    faithful = scenario(reference)
    varied = scenario(ReferenceClient(variant_server, http_client))
    assert varied != faithful, f"{variant.cli_name}: both servers show {faithful!r}"


def test_a_shared_reference_verifies_the_callers_own_transaction(http_client: httpx.Client) -> None:
    """With references numbered per account, both businesses' first transfers carry one reference, and verify of it
    answers each key with its own transfer: the reference names a transaction within its account only."""
    server = ReferenceServer(variants=[Variant.REFERENCES_PER_ACCOUNT], settle_delay=None).start()
    try:
        assert one_reference_in_two_accounts(ReferenceClient(server, http_client)) == (True, True)
    finally:
        server.stop()


# --------------------------------------------------------------- the suite, the other way round


def first_line(message: str | None) -> str:
    """The first line of a failure's reason: the exception's line (a ConformanceFailure's title, a TargetError's
    message), else the first `E` line, else the first line."""
    text = message or ""
    raised = re.search(r"^E\s+[\w.]*(?:Failure|Error|Exception): (\S.*)$", text, re.MULTILINE)
    any_e = re.search(r"^E\s+(\S.*)$", text, re.MULTILINE)
    return (raised or any_e).group(1) if (raised or any_e) else text.split("\n")[0]


def failures(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The MUST and SHOULD requirements the run failed, each with its failed tests and their first line."""
    found = []
    for entry in report["requirements"]:
        if entry["level"] in ("MUST", "SHOULD") and entry["verdict"] == "fail":
            tests = [
                {"nodeid": test["nodeid"], "reason": first_line(test.get("message"))}
                for test in entry["tests"]
                if test["outcome"] == "failed"
            ]
            found.append({"requirement": entry["id"], "level": entry["level"], "tests": tests})
    return found


# The every-variant run and the two variants that wait (late settlements, late credits) are the long ones.
LONG_VARIANTS = (ALL, Variant.SLOW_SETTLEMENT.cli_name, Variant.FUNDING_DELAYED.cli_name)


# The variant runs listen for webhook deliveries, as the run finding the variants' reach does: the switches of what
# a delivery holds are read then, in the tests that make deliveries.
LISTENING = ("--webhook-listen", "127.0.0.1:0")


@pytest.fixture(scope="session")
def variant_reach(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Variant -> the hand-written tests during which (or in whose fixtures) the faithful reference reads its switch
    (selftests/switch_reach.py); worked out by one run of the suite, shared by the workers of this session."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    shared = tmp_path_factory.getbasetemp().parent if run_id else tmp_path_factory.getbasetemp()
    path = shared / f"variant-reach-{run_id or 'serial'}.json"
    with file_lock(shared / "variant-reach.lock"):
        if not path.exists():
            report = shared / "variant-reach-report"
            process, _, _ = run_suite(
                report,
                "--settle-timeout",
                SETTLE_TIMEOUT,
                *QUICK_SETTLEMENT,
                *HAND_WRITTEN,
                *LISTENING,
                "-p",
                "selftests.switch_reach",
                "--variant-reach",
                str(path),
            )
            assert path.exists() and process.returncode == 0, f"the faithful run failed:\n{tail(process)}"
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(name, marks=pytest.mark.long) if name in LONG_VARIANTS else name
        for name in [ALL, *sorted(VARIANTS)]
    ],
)
def test_suite_passes_the_reference_with_the_variant(
    variant: str, pytester: pytest.Pytester, variant_reach: dict[str, list[str]]
) -> None:
    """The suite finds no MUST and no SHOULD failure in a reference that reads open points another way.

    Every variant on: the whole suite. One variant alone: the hand-written tests that make the faithful reference
    read its switch (the others get the faithful reference's answers); all of them when it is read as the reference
    is built (it may shape every later answer), or never."""
    arguments = ("--reference-variant", variant, "--settle-timeout", SETTLE_TIMEOUT)
    if variant == ALL:
        # The generated tests (seconds each, every variant's reading drawn from) run once, with every variant on,
        # in a process of their own: Schemathesis' state does not survive a second in-process session cleanly.
        # Two workers: the run mostly waits for slow settlements and late credits, and those waits overlap.
        process, report, seconds = run_suite(pytester.path / "report", *arguments, "-n", "2")
        tests = "all"
    else:
        reached = variant_reach.get(variant)
        paths = ("tests",) if reached is None or variant in variant_reach[AT_START] else tuple(reached)
        tests = "all" if paths == ("tests",) else len(paths)
        process, report, seconds = run_in_process(
            pytester, pytester.path / "report", *arguments, *QUICK_SETTLEMENT, *HAND_WRITTEN, *LISTENING, paths=paths
        )
    assert report is not None, f"{variant}: the run wrote no report\n{tail(process)}"
    failed = failures(report)
    VARIANT_ROWS.mkdir(parents=True, exist_ok=True)
    row = {"variant": variant, "tests": tests, "failures": failed, "seconds": round(seconds, 2)}
    (VARIANT_ROWS / f"{variant}.json").write_text(json.dumps(row, indent=2) + "\n")
    summary = "\n".join(
        f"  {entry['requirement']} ({entry['level']}): "
        + "; ".join(f"{test['nodeid']}: {test['reason']}" for test in entry["tests"])
        for entry in failed
    )
    assert not failed, f"the suite failed a conforming reading ({variant}):\n{summary}"


def test_a_refused_page_size_is_the_suites_guess_not_a_failure(pytester: pytest.Pytester) -> None:
    """A target that refuses page sizes above 50 with a 400 (which sizes a list takes is not shown): the walks that
    asked for larger pages ask again for smaller ones, the lists and the primary limit are judged, and the refusal
    is observed under END-39."""
    arguments = ("--reference-variant", Variant.PER_PAGE_LIMITED.cli_name, *QUICK_SETTLEMENT)
    process, report, _ = run_in_process(
        pytester, pytester.path / "report", *arguments, paths=("tests/test_limits.py", "tests/generated/test_paging.py")
    )
    assert report is not None, tail(process)
    verdicts = {entry["id"]: entry for entry in report["requirements"]}
    assert verdicts["LIM-02"]["verdict"] == "pass", verdicts["LIM-02"]
    assert not failures(report) and process.returncode == 0, tail(process)
    refused = [size for seen in verdicts["END-39"]["observations"] for size in seen.get("refused_page_sizes", [])]
    assert refused and all("HTTP 400" in size for size in refused), verdicts["END-39"]["observations"]


CLOSED_BEFORE = ("Ops float 1", "Ops float 2")  # primary wallets a user of the account made and closed


@pytest.mark.parametrize(
    "variants",
    [
        [Variant.CLOSED_WALLET_LISTED],
        [Variant.CLOSED_WALLET_LISTED, Variant.CLOSED_WALLET_READABLE],
    ],
    ids=lambda variants: "+".join(variant.cli_name for variant in variants),
)
def test_primaries_closed_before_the_run_hold_no_place(
    variants: list[Variant], pytester: pytest.Pytester, http_client: httpx.Client
) -> None:
    """A target that lists closed wallets with nothing marking them closed, whose account holds primary wallets
    closed before the run: they are not counted as open, so the limit is judged on the target's free places and
    LIM-01 to LIM-03 pass; run again, the first run's closed primaries are not taken for another run's places."""
    with ReferenceServer(variants=variants, settle_delay=None) as server:
        headers = {"x-service-key": server.secret_key}
        for name in CLOSED_BEFORE:
            body = {"accountName": name, "category": "primary", "currency": "NGN"}
            made = http_client.post(f"{server.base_url}/virtual-accounts", json=body, headers=headers)
            closing = f"{server.base_url}/virtual-accounts/{made.json()['data']['publicId']}"
            assert http_client.delete(closing, headers=headers).status_code == 200
        for run in ("first", "second"):
            arguments = ("--base-url", server.base_url, "--secret-key", server.secret_key, "-k", "primary")
            process, report, _ = run_in_process(
                pytester, pytester.path / run, *arguments, paths=("tests/test_limits.py",)
            )
            assert report is not None, tail(process)
            verdicts = {entry["id"]: entry for entry in report["requirements"]}
            assert not failures(report) and process.returncode == 0, f"{run} run\n{tail(process)}"
            for rid in ("LIM-01", "LIM-02", "LIM-03"):
                assert verdicts[rid]["verdict"] == "pass", (run, verdicts[rid])


def test_a_refused_webhook_listener_skips_the_delivery_observation(pytester: pytest.Pytester) -> None:
    """A target that refuses the listener's URL as a webhook (which URLs it takes is not shown): EVT-02 skips
    naming --webhook-public-url, and the update operation is not failed for it."""
    arguments = (
        "--reference-variant",
        Variant.WEBHOOK_URLS_CHECKED.cli_name,
        "--webhook-listen",
        "127.0.0.1:0",
        "--webhook-public-url",
        "ftp://hooks.conformance.invalid/deliveries",
        "-k",
        "deliveries",
    )
    process, report, _ = run_in_process(pytester, pytester.path / "report", *arguments, paths=("tests",))
    assert report is not None, tail(process)
    verdicts = {entry["id"]: entry for entry in report["requirements"]}
    assert verdicts["EVT-02"]["verdict"] == "skip", verdicts["EVT-02"]
    assert "--webhook-public-url" in verdicts["EVT-02"]["reason"], verdicts["EVT-02"]
    # The one test selected skipped: nothing was judged, which is no failure and no pass.
    assert not failures(report) and process.returncode == ExitStatus.NOTHING_JUDGED, tail(process)


@pytest.mark.parametrize("seed", ["1", "2"])
def test_the_money_model_waits_for_a_settled_debit_posted_late(seed: str, tmp_path) -> None:
    """Settled transfers whose status word is not the observed one, debited at settlement and shown in the balance a
    moment later: the money model reads the source until it holds still, not taking it for a transfer that failed."""
    variants = (Variant.SETTLED_STATUS_SUCCESSFUL, Variant.DEBIT_AT_SETTLEMENT, Variant.BALANCES_POSTED_LATER)
    arguments = [argument for variant in variants for argument in ("--reference-variant", variant.cli_name)]
    process, report, _ = run_suite(tmp_path, *arguments, "--seed", seed, paths=("tests/generated/test_stateful.py",))
    assert report is not None, tail(process)
    assert not failures(report) and process.returncode == 0, tail(process)
