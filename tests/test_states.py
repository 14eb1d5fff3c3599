"""States and transitions: the status a transfer, an inbound credit and a collection account start in, what
closing a wallet returns, and (observed) what happens afterwards."""

from __future__ import annotations

import contextlib
from collections import Counter
from datetime import datetime

import pytest

from wallet_conformance.judge import answer_forms, checks, envelope, expiration, request_rules
from wallet_conformance.judge.observations import answer_outline
from wallet_conformance.judge.parties import CREDIT, EXTERNAL, documented_value
from wallet_conformance.scenarios import closed_wallets, collection_accounts, inbound_credits, transfer_pairs
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, money
from wallet_conformance.world.setup_steps import UNAVAILABLE

PENDING = contract.pending_state()  # the catalogue's STA-03 value, the one place it is read
# States: an inbound credit is recorded `success` (the catalogue's STA-05 value).
INBOUND_CREDIT_STATUS = contract.success_state()


# ------------------------------------------------------------------ transactions


@pytest.mark.requirement("STA-01")
def test_observe_transaction_status_values(api, samples, resources, observe):
    """Records the transaction statuses seen in the transaction list and on the verify response."""
    seen: Counter[str] = Counter()
    with contextlib.suppress(*UNAVAILABLE):
        samples("transfer")
    listing = resources.require(api.call("listTransactions"), "list transactions")
    for entry in listing if isinstance(listing, list) else []:
        if isinstance(entry, dict):
            seen[f"{entry.get('entry')} {entry.get('status')}"] += 1
    observe("STA-01", entry_and_status_on_first_page=dict(sorted(seen.items())))


@pytest.mark.requirement("STA-03")
def test_accepted_transfer_is_pending_with_fee_and_actual_amount(samples):
    """An accepted wallet-to-wallet transfer is returned `pending`, with integer fee and actualAmount."""
    exchange = samples("transfer")
    envelope.data_is_object(exchange)
    answer_forms.stated_values(exchange)


@pytest.mark.requirement("STA-04")
def test_accepted_bank_transfer_is_pending(samples):
    """An accepted bank transfer is returned `pending`."""
    exchange = samples("bankTransfer")
    envelope.data_is_object(exchange)
    answer_forms.stated_values(exchange)


@pytest.mark.money
@pytest.mark.requirement("STA-05")
def test_inbound_payment_is_a_success_credit_from_an_external_source(api, resources):
    """An external payment into a wallet is recorded as a `success` credit with sourceType External."""
    payment = inbound_credits.payment_into_a_new_wallet(api, resources)
    index, entry = payment.credit()
    where = f"listed transaction {index}"
    # A value outside the field's documented ones is RES-61's or RES-62's matter; among them, it must be this one.
    for name, expected in (("entry", CREDIT), ("sourceType", EXTERNAL)):
        if documented_value(name, entry.get(name)):
            checks.equals(entry.get(name), expected, f"{where}.{name} of an inbound payment", payment.listing)
    checks.equals(entry.get("status"), INBOUND_CREDIT_STATUS, f"{where}.status of an inbound payment", payment.listing)
    if isinstance(entry.get("reference"), str):
        verified = resources.verify(entry["reference"])
        data = resources.require(verified, "verify the inbound payment")
        # Verify answering pending what the list shows settled is END-45's matter.
        if isinstance(data, dict) and data.get("status") != PENDING:
            checks.equals(data.get("status"), INBOUND_CREDIT_STATUS, "the verified inbound payment's status", verified)


@pytest.mark.money
@pytest.mark.requirement("STA-11")
def test_observe_what_a_pending_transfer_becomes(api, resources, observe):
    """Records the status a pending wallet transfer and a pending bank transfer reach within the settle timeout."""
    observe("STA-11", transitions=transfer_pairs.pending_transfers_followed(api, resources))


# ------------------------------------------------------------------ collection accounts


@pytest.mark.requirement("STA-02")
def test_observe_collection_account_status_values(samples, observe):
    """Records the status and active flag of a new collection account."""
    data = samples("createCollectionAccount").data
    data = data if isinstance(data, dict) else {}
    observe("STA-02", status=data.get("status", "absent"), active=data.get("active", "absent"))


@pytest.mark.requirement("STA-06")
def test_new_collection_account_is_pending_and_active(samples):
    """A new collection account has status `pending` and active true."""
    exchange = samples("createCollectionAccount")
    envelope.data_is_object(exchange)
    request_rules.collection_account_shown(exchange)
    answer_forms.stated_values(exchange)


@pytest.mark.requirement("STA-07")
@pytest.mark.parametrize("end", ("shortest", "longest"))
def test_collection_account_expires_expire_in_seconds_after_creation(api, samples, run_id, end):
    """A new collection account's expiration is about expireIn seconds after its creation."""
    low, high = contract.expire_in_bounds()
    expire_in = low if end == "shortest" else high
    asked_at = datetime.now().astimezone()
    body = bodies.collection_account(run_id, samples.wallet()["publicId"], expireIn=expire_in)
    exchange = api.call("createCollectionAccount", json_body=body)
    if not exchange.ok:  # which collection accounts are accepted is LIM-15's and END-20's matter
        pytest.skip(
            f"the collection account with expireIn {expire_in} was refused (HTTP {exchange.status}): no "
            "expiration to look at"
        )
    data = request_rules.collection_account_shown(exchange)
    expiration.expires_expire_in_after_creation(data, expire_in, asked_at, exchange)


@pytest.mark.requirement("STA-12")
def test_observe_collection_account_after_creation(api, samples, observe):
    """Records how a collection account shows after creation: read as a wallet by its publicId, and the wallet list."""
    observe("STA-12", **collection_accounts.seen_after_creation(api, samples("createCollectionAccount")))


# ------------------------------------------------------------------ wallets


@pytest.mark.requirement("STA-08")
def test_closing_a_wallet_returns_its_public_id_and_account_number(resources, wallet):
    """Closing a wallet returns that wallet's publicId and accountNumber."""
    exchange = resources.close_wallet(wallet["publicId"])
    checks.accepted(exchange, "closing an open wallet")
    data = envelope.data_is_object(exchange)
    # A field shown in another type than a string is END-18's matter (publicId and accountNumber strings).
    judged = [name for name in ("publicId", "accountNumber") if name not in data or isinstance(data[name], str)]
    if not judged:
        pytest.skip("the close answer shows publicId and accountNumber in another type than a string (see END-18)")
    for name in judged:
        checks.equals(data.get(name), wallet.get(name), f"data.{name} is the closed wallet's {name}", exchange)


@pytest.mark.money
@pytest.mark.requirement("STA-09")
def test_closed_wallet_does_not_send(api, resources):
    """A transfer from a closed wallet (which still held the money) never completes and moves no money."""
    amount = contract.minimum_amount("transfer")
    funding = money.funding("transfer")  # room for a fee, so only the closure stops it
    source = resources.funded_wallet(funding)["publicId"]
    destination = resources.wallet()["publicId"]
    before = {destination: resources.balance(destination)}
    closed_wallets.closed_holding(resources, source, funding)
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    money.never_completes(
        resources,
        exchange,
        before,
        "a transfer from a closed wallet",
        f"transfer of {amount} kobo from the closed wallet {source}",
    )


@pytest.mark.money
@pytest.mark.requirement("STA-09")
def test_closed_wallet_does_not_receive(api, resources):
    """A transfer to a closed wallet never completes and moves no money."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]  # room for a fee
    destination = resources.wallet()["publicId"]
    before = {source: resources.balance(source)}
    closed_wallets.closed(resources, destination)
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    money.never_completes(
        resources,
        exchange,
        before,
        "a transfer to a closed wallet",
        f"transfer of {amount} kobo to the closed wallet {destination}",
    )


@pytest.mark.requirement("STA-10")
def test_observe_closed_wallet_afterwards(api, resources, wallet, observe):
    """Records how a closed wallet reads, whether it is listed, and how a second close is answered."""
    after = closed_wallets.closed_then_revisited(api, resources, wallet["publicId"])
    observe(
        "STA-10",
        read_after_close=answer_outline(after.read),
        listed_on_first_page=after.listed is not None,
        listed_entry_fields=after.listed_state(),
        second_close=answer_outline(after.again),
    )
