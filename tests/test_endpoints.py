"""Endpoints: what each operation takes and returns, its filters and its required fields; and (observed) what the
document leaves open: updatable account fields, optional wallet and transfer fields, list filters and paging."""

from __future__ import annotations

import secrets
import uuid

import pytest

from wallet_conformance.client import near_copies
from wallet_conformance.judge import answer_forms, checks, envelope, filters, identifiers, records, urls
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.judge.observations import field_shown
from wallet_conformance.scenarios import account_changes, account_queries, closed_wallets, list_probes, transfer_pairs
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import bodies, controls, lists, money
from wallet_conformance.world.bad_requests import unknown_wallet_id

WITHOUT_NARRATION = catalogue()["END-36"].operations  # the wallet transfer, then the bank transfer
MOBILE_PARTS = contract.request_field("createWallet", "mobile")["required"]  # phoneNumber, isoCode


# ------------------------------------------------------------------ accounts


@pytest.mark.requirement("END-01")
def test_update_returns_the_updated_account(samples):
    """PATCH /accounts/{accountId} answers with the Account whose publicId is in the path."""
    exchange = samples("updateAccount")
    data = records.of_kind(envelope.data_is_object(exchange), "account.json", exchange)
    account_id = exchange.url.rstrip("/").rsplit("/", 1)[-1]
    checks.equals(data.get("publicId"), account_id, "data.publicId is the updated account's", exchange)


@pytest.mark.requirement("END-02")
def test_update_sets_the_webhooks_to_the_sent_list(api, resources, run_id):
    """PATCH /accounts/{accountId} with a list of webhook URLs answers with exactly those URLs."""
    public_url = resources.settings.webhook_public_url
    added = [bodies.webhook_url(run_id, f"webhooks/{secrets.token_hex(3)}/{name}", public_url) for name in ("b", "a")]
    added[1] = bodies.in_capitals(added[1])  # the same URL: a target may keep it as sent or in its normal form
    change = account_changes.webhooks_updated_then_restored(api, resources, added)
    checks.accepted(account_changes.taken(change.update), "an update of the webhooks")
    held = envelope.data_is_object(change.update).get("webhooks")
    if not isinstance(held, list):
        raise CannotJudge(
            f"the update shows webhooks {held!r}, no array (RES-13's matter): which URLs it holds cannot be read"
        )
    # Whether the target keeps the order of the list is not shown: the same URLs, in any order (as EVT-01 reads it),
    # each as RFC 3986 normalises it (a target may keep a URL in its normal form).
    if not urls.same_urls(held, change.sent):
        checks.fail("data.webhooks holds the URLs sent", sorted(change.sent, key=str), held, change.update)
    resources.require(change.restored, "restore the account's webhooks")


@pytest.mark.requirement("END-03")
def test_observe_updating_an_account_name(api, resources, run_id, observe):
    """Records whether an update changes an account's name (a field other than webhooks), then restores it."""
    renamed = account_changes.name_updated_then_restored(api, resources, run_id)
    observe(
        "END-03",
        field="name",
        status=renamed.update.status,
        response_shows_new_name=renamed.response_shows_new_name,
        listed_name_changed=renamed.listed_name_changed,
    )


@pytest.mark.requirement("END-04")
def test_update_of_unknown_account_is_refused(api, resources):
    """PATCH /accounts/{accountId} with a publicId that names no account is refused."""
    with resources.account_wide():
        account = resources.own_account()
        # The account's own webhooks: even a target that wrongly applied the update would change nothing.
        exchange = api.call(
            "updateAccount",
            {"accountId": str(uuid.uuid4())},
            json_body=bodies.account_update(account.get("webhooks", [])),
        )
    checks.refused(exchange, "an update of an account that does not exist")


@pytest.mark.requirement("END-05")
def test_account_list_is_paged_accounts(samples):
    """GET /accounts answers an array of Account with meta.pagination."""
    records.paged_list_of(samples("listAccounts"), "account.json")


@pytest.mark.requirement("END-06")
def test_account_name_filter(api, resources):
    """GET /accounts?name= returns only accounts whose name holds that name, the one of exactly that name among them."""
    filtered = account_changes.filtered_by_a_distinct_name(api, resources)
    name, listing, chosen_id = filtered.name, filtered.listing, filtered.chosen.get("publicId")
    exchange = listing.first
    checks.accepted(exchange, "the name filter")
    envelope.entries(exchange, allow_empty=True)
    filters.names_hold(listing.entries, name, exchange)
    listed_ids = [entry.get("publicId") for entry in listing.entries if isinstance(entry, dict)]
    if chosen_id not in listed_ids and not listing.complete:
        pytest.skip(f"the account named {name!r} was not among the filtered accounts read ({listing.note})")
    checks.contains(
        listed_ids,
        chosen_id,
        f"the account named {name!r} is among the filtered accounts",
        exchange,
        where="data[].publicId",
    )


@pytest.mark.requirement("END-06")
def test_a_name_no_account_holds_lists_no_account(api, resources):
    """GET /accounts?name= with a name no account's name holds, in any letter case, lists no account."""
    listing = account_queries.read(api, resources, account_queries.unmatched())
    exchange = listing.first
    if 400 <= exchange.status < 500:
        pytest.skip(
            f"the target refused a name no account holds (HTTP {exchange.status}): it lists no account, and a "
            "refusal shows no list to judge"
        )
    checks.accepted(exchange, "a name filter that matches no account")
    names = [entry.get("name") for _, entry in envelope.entries(exchange, allow_empty=True)]
    if names:
        checks.fail(
            "GET /accounts?name= with a name no account holds lists no account",
            "no account",
            f"{len(names)} accounts, named {names[:5]}",
            exchange,
        )


@pytest.mark.requirement("END-07")
@pytest.mark.parametrize("is_default", (True, False))
def test_account_is_default_filter(api, is_default):
    """GET /accounts?isDefault= returns only accounts with that isDefault."""
    exchange = api.call("listAccounts", params={"isDefault": is_default})
    checks.accepted(exchange, f"isDefault={str(is_default).lower()}")
    for where, entry in envelope.entries(exchange):
        checks.equals(entry.get("isDefault"), is_default, f"{where}.isDefault matches the filter", exchange)


@pytest.mark.requirement("END-07")
def test_default_account_is_found_by_the_filter(api, resources):
    """GET /accounts?isDefault=true lists the default account of the unfiltered list."""
    # List order is not shown: the default account may sit beyond the first page.
    listing = lists.read(
        api,
        "listAccounts",
        until=lambda entries: any(isinstance(entry, dict) and entry.get("isDefault") is True for entry in entries),
    )
    resources.require(listing.first, "list accounts")
    defaults = [
        entry.get("publicId") for entry in listing.entries if isinstance(entry, dict) and entry.get("isDefault") is True
    ]
    if not defaults:
        pytest.skip(f"the unfiltered account list shows no default account in what could be read ({listing.note})")
    exchange = api.call("listAccounts", params={"isDefault": True})
    checks.accepted(exchange, "isDefault=true")
    listed = [entry.get("publicId") for _, entry in envelope.entries(exchange, allow_empty=True)]
    checks.contains(
        listed, defaults[0], "the default account is listed by isDefault=true", exchange, where="data[].publicId"
    )


@pytest.mark.requirement("END-07")
def test_is_default_filter_lists_each_account_under_one_value(api, resources):
    """GET /accounts?isDefault=true and =false, read whole, hold only matching accounts and none in common."""
    account_queries.values_apart(account_queries.split(api, resources, "isDefault"), requirement="END-07")


@pytest.mark.requirement("END-08")
def test_live_filter_lists_each_account_under_one_value(api, resources):
    """GET /accounts?live=true and =false, read whole, share no account unless both list every account."""
    account_queries.values_apart(account_queries.split(api, resources, "live"), requirement="END-08")


@pytest.mark.requirement("END-08")
@pytest.mark.parametrize("live", (True, False))
def test_account_live_filter(api, live):
    """GET /accounts?live= is accepted and lists Accounts; entries that carry live match it."""
    exchange = api.call("listAccounts", params={"live": live})
    checks.accepted(exchange, f"live={str(live).lower()}")
    for where, entry in envelope.entries(exchange):
        records.of_kind(entry, "account.json", exchange, where)
        if "live" in entry:
            checks.equals(entry["live"], live, f"{where}.live matches the filter", exchange)


# ------------------------------------------------------------------ wallets


@pytest.mark.requirement("END-56")
def test_a_wallet_just_created_is_listed(api, resources):
    """GET /virtual-accounts, read page after page, lists a wallet the key just created (within --settle-timeout)."""
    public_id = resources.wallet()["publicId"]
    listed, read = lists.listed_within(
        api,
        "listWallets",
        lambda entry: isinstance(entry, dict) and entry.get("publicId") == public_id,
        resources.settings.settle_timeout,
    )
    if listed is None and not read.complete:
        raise CannotJudge(f"{public_id} is not in what could be read of the wallet list ({read.note})")
    checks.holds(
        listed is not None,
        "the wallet list lists a wallet just created",
        f"{public_id} listed",
        f"not in {read.note}",
        read.exchanges[-1],
    )


# Forms a country code may take in mobile.isoCode: ISO 3166 alpha-2 and alpha-3, and the dialling code, bare and with +.
COUNTRY_CODES = ("NG", "NGA", "234", "+234")


@pytest.mark.requirement("END-58")
def test_country_code_forms_are_observed(resources, run_id, observe):
    """Which forms of a country code a secondary wallet's mobile.isoCode takes is recorded."""
    taken = {}
    for code in COUNTRY_CODES:
        body = bodies.wallet(run_id, "secondary")
        body["mobile"]["isoCode"] = code
        taken[code] = resources.create_wallet(body).status
    observe("END-58", statuses=taken)


@pytest.mark.requirement("END-10")
def test_create_wallet_returns_a_wallet_without_internal_id(samples):
    """POST /virtual-accounts answers with the new Wallet, without `_id`."""
    exchange = samples("createWallet")
    records.of_kind(envelope.data_is_object(exchange), "wallet.json", exchange)
    answer_forms.schema_form(exchange)


@pytest.mark.requirement("END-11")
def test_created_wallet_has_the_requested_category(samples):
    """A created wallet has the requested category."""
    exchange = samples("createWallet")
    data = envelope.data_is_object(exchange)
    checks.equals(
        data.get("category"), exchange.request_body["category"], "data.category is the requested one", exchange
    )


@pytest.mark.requirement("END-12")
def test_created_wallet_has_the_requested_name(samples):
    """A created wallet has the requested accountName."""
    exchange = samples("createWallet")
    data = envelope.data_is_object(exchange)
    checks.equals(
        data.get("accountName"), exchange.request_body["accountName"], "data.accountName is the requested one", exchange
    )


@pytest.mark.requirement("END-13")
@pytest.mark.parametrize("left_out", ("accountName", "currency"))
def test_observe_wallet_without_optional_looking_field(resources, run_id, observe, left_out):
    """Records whether a secondary wallet is created without accountName, or without currency."""
    body = bodies.wallet(run_id)
    del body[left_out]
    exchange = resources.create_wallet(body)
    observe("END-13", left_out=left_out, status=exchange.status, created=exchange.ok, **field_shown(exchange, left_out))


@pytest.mark.requirement("END-53")
@pytest.mark.parametrize(
    "missing", [(part,) for part in MOBILE_PARTS] + [tuple(MOBILE_PARTS)], ids=[*MOBILE_PARTS, "both"]
)
def test_secondary_wallet_with_partial_mobile_is_refused(resources, run_id, missing):
    """A secondary wallet whose mobile lacks phoneNumber, isoCode or both ({}) is refused."""
    body = bodies.wallet(run_id)
    for name in missing:
        del body["mobile"][name]
    checks.refused(resources.create_wallet(body), f"a secondary wallet whose mobile lacks {' and '.join(missing)}")


@pytest.mark.requirement("END-14")
def test_wallet_list_is_paged_wallets(samples):
    """GET /virtual-accounts answers an array of Wallet list entries with meta.pagination."""
    records.paged_list_of(samples("listWallets"), "wallet.json")


@pytest.mark.requirement("END-15")
def test_observe_list_filters(api, samples, observe):
    """Records which query filters GET /virtual-accounts and GET /transactions honour."""
    trials = list_probes.filter_trials(samples)
    observe("END-15", filters=list_probes.filters_tried(api, trials))


@pytest.mark.requirement("END-16")
def test_read_returns_the_wallet_named_in_the_path(api, resources):
    """GET /virtual-accounts/{walletId} returns the wallet with that publicId (checked on two new wallets)."""
    for wallet in (resources.wallet(), resources.wallet()):
        exchange = api.call("getWallet", {"walletId": wallet["publicId"]})
        checks.accepted(exchange, "reading an open wallet")
        data = records.of_kind(envelope.data_is_object(exchange), "wallet.json", exchange)
        for name in ("publicId", "accountNumber"):
            checks.equals(data.get(name), wallet.get(name), f"data.{name} is the requested wallet's", exchange)


@pytest.mark.requirement("END-17")
def test_read_of_unknown_wallet_is_refused(api, run_id):
    """GET /virtual-accounts/{walletId} with a publicId that names no wallet is refused."""
    exchange = api.call("getWallet", {"walletId": unknown_wallet_id(run_id)})
    checks.refused(exchange, "reading a wallet that does not exist")


@pytest.mark.requirement("END-18")
def test_close_returns_public_id_and_account_number(samples):
    """DELETE /virtual-accounts/{walletId} answers with publicId and accountNumber strings."""
    exchange = samples("closeWallet")
    checks.conforms(envelope.data_is_object(exchange), "closed-wallet.json", exchange)


# ------------------------------------------------------------------ collection accounts


@pytest.mark.requirement("END-20")
def test_create_collection_account_returns_it(samples):
    """POST /collection-accounts answers with the new Collection account."""
    exchange = samples("createCollectionAccount")
    records.of_kind(envelope.data_is_object(exchange), "collection-account.json", exchange)


@pytest.mark.requirement("END-21")
@pytest.mark.parametrize("left_out", contract.request_schema("createCollectionAccount")["required"])
def test_collection_account_without_required_field_is_refused(api, samples, run_id, left_out):
    """POST /collection-accounts without one of its required fields is refused."""
    body = bodies.collection_account(run_id, samples.wallet()["publicId"])
    del body[left_out]
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.refused(exchange, f"a collection account without {left_out}")


@pytest.mark.requirement("END-22")
def test_collection_account_for_unknown_destination_is_refused(api, run_id):
    """POST /collection-accounts whose destination is no wallet of the caller is refused."""
    body = bodies.collection_account(run_id, unknown_wallet_id(run_id))
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.refused(exchange, "a collection account for a destination that is no wallet")


@pytest.mark.requirement("END-23")
def test_collection_account_without_reference_is_accepted(api, samples, run_id):
    """POST /collection-accounts without a reference is accepted."""
    body = bodies.collection_account(run_id, samples.wallet()["publicId"])
    assert "reference" not in body, "the sample body is made without a reference"
    exchange = api.call("createCollectionAccount", json_body=body)
    reference = bodies.collection_reference(2 * contract.reference_min_length())
    controls.accepted(
        exchange,
        "a collection account without reference",
        lambda: api.call("createCollectionAccount", json_body={**body, "reference": reference}),
        "a new reference",
    )


# ------------------------------------------------------------------ bank accounts and banks


@pytest.mark.requirement("END-25")
def test_validate_account_returns_a_bank_account_with_resolved_name(samples):
    """POST /transactions/validate-account answers with a Bank account carrying a resolved accountName."""
    exchange = samples("validateAccount")
    data = records.of_kind(envelope.data_is_object(exchange), "bank-account.json", exchange)
    name = data.get("accountName")
    if not isinstance(name, str) or not name.strip():
        checks.fail("data.accountName is the resolved holder name", "a non-empty string", name, exchange)


@pytest.mark.requirement("END-26")
@pytest.mark.parametrize("left_out", contract.request_schema("validateAccount")["required"])
def test_validate_account_without_required_field_is_refused(api, resources, left_out):
    """POST /transactions/validate-account without accountNumber or without bankCode is refused."""
    number, code = resources.external_account()
    body = bodies.validation(number, code)
    del body[left_out]
    exchange = api.call("validateAccount", json_body=body)
    checks.refused(exchange, f"a validation without {left_out}")


@pytest.mark.requirement("END-37")
def test_bank_list_is_an_array_of_banks(samples):
    """GET /transactions/banks answers an array of Bank."""
    exchange = samples("listBanks")
    for where, entry in envelope.entries(exchange):
        records.of_kind(entry, "bank.json", exchange, where)


@pytest.mark.requirement("END-38")
def test_bank_list_has_no_pagination(samples):
    """GET /transactions/banks carries no pagination object."""
    envelope.pagination_presence(samples("listBanks"))


# ------------------------------------------------------------------ transactions


@pytest.mark.money
@pytest.mark.requirement("END-57")
def test_a_transfer_just_accepted_is_listed(api, resources):
    """GET /transactions, read page after page, lists a transfer just accepted (within --settle-timeout)."""
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    exchange = api.call("transfer", json_body=bodies.transfer(source, resources.wallet()["publicId"]))
    reference = money.accepted_transfer(exchange, "make a wallet-to-wallet transfer")["reference"]
    listed, read = lists.listed_within(
        api,
        "listTransactions",
        lambda entry: isinstance(entry, dict) and entry.get("reference") == reference,
        resources.settings.settle_timeout,
    )
    if listed is None and not read.complete:
        raise CannotJudge(f"{reference} is not in what could be read of the transaction list ({read.note})")
    checks.holds(
        listed is not None,
        "the transaction list lists a transfer just accepted",
        f"{reference} listed",
        f"not in {read.note}",
        read.exchanges[-1],
        also=(exchange,),
    )


@pytest.mark.requirement("END-27")
def test_transaction_list_is_paged_transactions(samples):
    """GET /transactions answers an array of Transaction with meta.pagination."""
    records.paged_list_of(samples("listTransactions"), "transaction.json")


@pytest.mark.requirement("END-28")
def test_verify_returns_the_transaction_with_that_reference(api, samples):
    """GET /transactions/{reference}/verify answers with the transaction of that reference."""
    transfer = envelope.data_is_object(samples("transfer"))
    reference = transfer.get("reference")
    if not isinstance(reference, str):
        checks.fail("the transfer carries a reference to verify", "a string", reference, samples("transfer"))
    exchange = api.call("verifyTransaction", {"reference": reference})
    checks.accepted(exchange, "verifying a transaction by its reference")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("reference"), reference, "data.reference is the one in the path", exchange)
    checks.equals(data.get("publicId"), transfer.get("publicId"), "data is the transfer that was made", exchange)


@pytest.mark.requirement("END-29")
def test_verify_includes_request_src_and_meta_verify(samples):
    """The verify response is a Transaction including requestSrc and meta.verify."""
    exchange = samples("verifyTransaction")
    records.of_kind(envelope.data_is_object(exchange), "transaction.json", exchange)
    answer_forms.schema_form(exchange)


@pytest.mark.requirement("END-30")
def test_verify_of_unknown_reference_is_refused(api, run_id):
    """GET /transactions/{reference}/verify with a reference that names no transaction is refused."""
    exchange = api.call("verifyTransaction", {"reference": f"{run_id}unknown{secrets.token_hex(4)}"})
    checks.refused(exchange, "verifying a reference that does not exist")


@pytest.mark.requirement("END-45")
def test_verify_no_longer_answers_pending_once_the_list_shows_a_transfer_settled(api, resources):
    """Once the list shows a transfer left pending, verify stops answering it pending, whatever it answered at first."""
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    destination = resources.wallet()["publicId"]
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, contract.minimum_amount("transfer")))
    sent = money.accepted_transfer(exchange, "make a wallet-to-wallet transfer")
    # Asked at once, as a client following its transfer does: a verify that keeps its first answer shows here.
    resources.verify(sent["reference"])
    found = money.settled_or_none(resources, sent["reference"], must_settle=None, look=money.listed(resources, sent))
    if found is None:
        raise CannotJudge(
            f"the transaction list still showed {sent['reference']} pending, or did not show it, after "
            "--settle-timeout: what verify should show then is open"
        )
    listed, page = found
    look = money.verify_answer(resources, sent["reference"])
    # Verify once it stopped saying pending; else its last answer, still pending after --settle-timeout.
    verified = money.settled_or_none(resources, sent["reference"], must_settle=None, look=look) or api.exchanges[-1]
    status = verified.data.get("status") if isinstance(verified.data, dict) else None
    checks.holds(
        status != contract.pending_state(),
        "verify shows the transfer as the transaction list did",
        f"a status other than {status!r} (the list showed {listed.get('status')!r})",
        status,
        verified,
        also=(page,),
    )


@pytest.mark.requirement("END-31")
def test_transfer_is_returned_as_a_debit(samples):
    """A wallet-to-wallet transfer is returned with entry `debit`."""
    exchange = samples("transfer")
    envelope.data_is_object(exchange)
    answer_forms.stated_values(exchange)


@pytest.mark.requirement("END-32")
def test_transfer_destination_type_is_virtual_account(samples):
    """A wallet-to-wallet transfer is returned with destinationType `VirtualAccount`."""
    exchange = samples("transfer")
    envelope.data_is_object(exchange)
    answer_forms.stated_values(exchange)


@pytest.mark.requirement("END-33")
def test_bank_transfer_destination_type_is_bank_account(samples):
    """A bank transfer is returned with destinationType `BankAccount`."""
    exchange = samples("bankTransfer")
    envelope.data_is_object(exchange)
    answer_forms.stated_values(exchange)


@pytest.mark.requirement("END-34")
def test_bank_transfer_fee_is_a_non_negative_integer(samples):
    """A bank transfer's fee is an integer of 0 or more."""
    exchange = samples("bankTransfer")
    envelope.data_is_object(exchange)
    answer_forms.fee_of_a_bank_transfer(exchange)


@pytest.mark.requirement("END-71")
def test_collection_account_for_a_closed_wallet_is_refused(api, resources, run_id):
    """A collection account for a wallet the caller closed is refused: a closed wallet takes no payment."""
    wallet = resources.wallet()["publicId"]
    closed_wallets.closed(resources, wallet)
    exchange = api.call("createCollectionAccount", json_body=bodies.collection_account(run_id, wallet))
    checks.refused(exchange, f"a collection account for the closed wallet {wallet}")


@pytest.mark.requirement("END-70")
@pytest.mark.parametrize("operation_id", catalogue()["END-70"].operations)
def test_transfer_answer_carries_the_narration_sent(samples, operation_id):
    """A transfer and a bank transfer are answered with the narration they were sent."""
    exchange = samples(operation_id)
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("narration"), exchange.request_body["narration"], "data.narration is the one sent", exchange)


@pytest.mark.requirement("END-35")
def test_bank_transfer_goes_to_the_requested_account(samples):
    """A bank transfer's destinationData names the requested accountNumber and bankCode."""
    exchange = samples("bankTransfer")
    data = envelope.data_is_object(exchange)
    destination = data.get("destinationData") if isinstance(data.get("destinationData"), dict) else {}
    for name in ("accountNumber", "bankCode"):
        checks.equals(
            destination.get(name),
            exchange.request_body[name],
            f"data.destinationData.{name} is the requested one",
            exchange,
        )


@pytest.mark.money
@pytest.mark.requirement("END-36")
def test_observe_transfers_without_narration(api, resources, observe):
    """Records whether a wallet transfer and a bank transfer without narration are accepted (funded wallets)."""
    pair = transfer_pairs.funded_for_both(resources)
    seen = {}
    for operation_id in WITHOUT_NARRATION:
        body = pair.body(operation_id)
        del body["narration"]
        exchange = api.call(operation_id, json_body=body)
        seen[operation_id] = {"status": exchange.status, "accepted": exchange.ok, **field_shown(exchange, "narration")}
    observe("END-36", without_narration=seen)


@pytest.mark.requirement("END-39")
@pytest.mark.parametrize("operation_id", contract.paginated_operations())
def test_observe_paging_parameters(api, resources, operation_id, observe):
    """Records which common paging parameters change meta.pagination or the entries of a list."""
    observe("END-39", operation=operation_id, tried=list_probes.paging_parameters_tried(api, resources, operation_id))


@pytest.mark.money
@pytest.mark.requirement("END-40")
def test_wallet_transfer_with_the_documented_body_is_accepted(api, resources):
    """A wallet-to-wallet transfer with every documented body field is accepted."""
    amount = 2 * contract.minimum_amount("transfer")  # above the minimum: the minimum itself is LIM-11's
    source = resources.funded_wallet(money.funding("transfer", amount))  # room for a fee, which is not shown
    destination = resources.wallet()
    body = bodies.transfer(source["publicId"], destination["publicId"], amount)
    exchange = api.call("transfer", json_body=body)
    checks.accepted(exchange, f"a funded wallet-to-wallet transfer of {amount} kobo")


@pytest.mark.money
@pytest.mark.requirement("END-41")
def test_bank_transfer_to_a_validated_account_is_accepted(api, resources):
    """A bank transfer to a validated account, with every documented body field, is accepted."""
    amount = 2 * contract.minimum_amount("bankTransfer")  # above the minimum: the minimum itself is LIM-13's
    number, code = resources.validated_account()
    source = resources.funded_wallet(money.funding("bankTransfer", amount))  # room for the fee
    exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source["publicId"], number, code, amount))
    checks.accepted(exchange, f"a funded bank transfer of {amount} kobo to a validated account")


@pytest.mark.money
@pytest.mark.requirement("END-55")
def test_a_payment_into_a_collection_account_credits_its_wallet(api, resources, run_id):
    """A payment into a collection account credits the wallet it was made for, and its transactions show it."""
    resources.wallet()  # the account holds another wallet too: the payment is for the one the account was made for
    wallet = resources.wallet()
    created = api.call("createCollectionAccount", json_body=bodies.collection_account(run_id, wallet["publicId"]))
    collection = resources.require(created, "create a collection account")
    amount = contract.minimum_amount("transfer")
    paid = resources.pay_into_collection_account(collection, wallet["publicId"], amount)
    checks.holds(
        paid.credited,
        "a payment into a collection account credits the wallet it collects into",
        f"the balance of {wallet['publicId']} above {paid.before}",
        paid.after,
        paid.payment,
        detail=paid.note,
        also=money.reads(resources, {wallet["publicId"]: paid.before}),
    )
    if paid.rise != amount:
        money.shortfall_accounted_for(api, wallet, paid)

    # The wallet is new: a credit into it of the amount paid, or of less (a fee on the credit), is the payment.
    def the_payment(entry: object) -> bool:
        return any(money.is_credit_to(entry, wallet["publicId"], credited) for credited in range(paid.rise, amount + 1))

    searched = lists.read(api, "listTransactions", until=lambda entries: any(map(the_payment, entries)))
    listed = next(filter(the_payment, searched.entries), None)
    if listed is None and not searched.complete:
        raise CannotJudge(
            f"no credit to {wallet['publicId']} in what could be read of GET /transactions ({searched.note})"
        )
    checks.holds(
        listed is not None,
        "the wallet's transactions show the payment into its collection account",
        f"a credit to {wallet['publicId']} of {amount}",
        f"none in {searched.note}",
        searched.first,
    )


@pytest.mark.requirement("END-42")
@pytest.mark.parametrize("copy", [near_copies.PREFIX, near_copies.APPENDED])
def test_verify_by_near_copy_of_reference_is_not_that_transaction(samples, api, copy):
    """Verify with a prefix of a transaction's reference, or a longer text, does not return that transaction."""
    reference = identifiers.identifier(samples("verifyTransaction").data, "reference", "the verified transaction")
    exchange = api.call("verifyTransaction", {"reference": identifiers.near(reference, copy)})
    identifiers.not_that_record(exchange, "reference", reference, f"verify with the {copy} near-copy of a reference")


@pytest.mark.requirement("END-54")
def test_verify_by_reference_in_another_case_is_observed(samples, api, observe):
    """Whether verify with a transaction's reference in another letter case returns that transaction is recorded."""
    reference = identifiers.identifier(samples("verifyTransaction").data, "reference", "the verified transaction")
    exchange = api.call("verifyTransaction", {"reference": identifiers.near(reference, near_copies.OTHER_CASE)})
    data = exchange.data if exchange.ok and isinstance(exchange.data, dict) else {}
    observe("END-54", status=exchange.status, returns_the_transaction=data.get("reference") == reference)


@pytest.mark.requirement("END-43")
def test_wallet_read_by_prefix_of_public_id_is_not_that_wallet(api, resources):
    """GET /virtual-accounts/{walletId} with a prefix of a wallet's publicId does not return that wallet."""
    public_id = identifiers.identifier(resources.wallet_to_read(), "publicId", "the wallet")
    text = near_copies.prefix(public_id)
    exchange = api.call("getWallet", {"walletId": text})
    identifiers.not_that_record(exchange, "publicId", public_id, "a wallet read with a prefix of its publicId")
    # Nor another wallet whose publicId the text only begins (the newest of them, say): only one it names exactly.
    answered = exchange.data.get("publicId") if exchange.ok and isinstance(exchange.data, dict) else None
    if isinstance(answered, str) and answered != text and answered.startswith(text):
        checks.fail(
            "a wallet read with a prefix of publicIds returns no wallet the prefix only begins",
            f"a refusal, or the wallet whose publicId is {text}",
            f"HTTP {exchange.status} returning {answered}",
            exchange,
        )
