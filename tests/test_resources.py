"""Resources and their fields: identifier prefixes, and the fields and types of every resource the document
describes (Account, Wallet, Collection account, Bank account, Bank, Transaction and its sub-objects)."""

from __future__ import annotations

import secrets
from collections import Counter

import pytest

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import answer_forms, checks, envelope, parties, record_registry, request_rules
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.judge.parties import BANK_ACCOUNT, EXTERNAL, PARTY_FORMS, VIRTUAL_ACCOUNT
from wallet_conformance.scenarios import account_changes, record_views, resource_samples, transaction_samples
from wallet_conformance.scenarios.transaction_samples import (
    BANK_TRANSFER,
    DEBITS,
    EVERY_SOURCE,
    INBOUND,
    LISTED,
    READ_BACK,
    TRANSFER,
    VERIFIED,
    VERIFY_BANK_TRANSFER,
    VERIFY_INBOUND,
    VERIFY_TRANSFER,
    InboundCredit,
    TransactionSources,
)
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.own_account import is_account

# Its transaction fixtures (a settled transfer, an inbound credit, the list after them) are module-scoped and
# asked for by name as tests need them: under xdist its tests share a worker, which makes them once.
pytestmark = pytest.mark.xdist_group("resources-transactions")

WALLET = "wallet.json"
TRANSACTION = "transaction.json"
COMMON = "common.json"
ACCOUNT_FORMS = catalogue()["RES-10"].operations  # the listed accounts, then the updated one
WALLET_FORMS = catalogue()["RES-20"].operations  # created, listed and read wallets
WALLET_PLACES = catalogue()["RES-01"].operations  # where a wallet's publicId shows: created, listed, read, closed


# ------------------------------------------------------------------ the transactions judged, by source


@pytest.fixture(scope="module")
def inbound(api, resources) -> InboundCredit:
    """An inbound credit: a wallet funded through the funding hook, then found in GET /transactions."""
    return transaction_samples.inbound_credit(api, resources)


@pytest.fixture(scope="module")
def settled_transfer(sample_transfer, resources) -> Exchange:
    """The verify response of the sample wallet-to-wallet transfer once it is no longer pending."""
    return transaction_samples.settled_transfer(resources, sample_transfer)


@pytest.fixture(scope="module")
def verified_bank_transfer(sample_bankTransfer, resources) -> Exchange:
    """The verify response of the sample bank transfer."""
    return transaction_samples.verified_bank_transfer(resources, sample_bankTransfer)


@pytest.fixture(scope="module")
def transaction_list(request, api, resources) -> Exchange:
    """GET /transactions after a settled transfer and a bank transfer were made (when the run can make them)."""
    return transaction_samples.transaction_list(request.getfixturevalue, api, resources)


@pytest.fixture
def transactions(request) -> TransactionSources:
    """The transactions of each source (`transactions.found(source)`), made the first time a test asks."""
    return TransactionSources(request.getfixturevalue)


# ------------------------------------------------------------------ identifier prefixes (RES-01 .. RES-07)


@pytest.mark.requirement("RES-01")
def test_wallet_public_ids_start_with_the_wallet_prefix(samples):
    """Every wallet publicId (create, read, list, close) starts with `vba-`."""
    for where, data, exchange in resource_samples.wallet_places(samples, WALLET_PLACES):
        value = data.get("publicId") if isinstance(data, dict) else None
        checks.has_prefix(value, "walletId", exchange, where)


@pytest.mark.requirement("RES-01")
@pytest.mark.parametrize("source", (TRANSFER, VERIFY_TRANSFER, LISTED))
def test_wallet_parties_of_transactions_carry_the_wallet_prefix(transactions, source):
    """sourceData and destinationData of a wallet party have a publicId starting with `vba-`."""
    if not parties.wallet_party_prefixes(transactions.found(source)):
        pytest.skip(f"no wallet party in {source}")


@pytest.mark.requirement("RES-02")
def test_validated_bank_account_public_id_starts_with_its_prefix(samples):
    """The bank account returned by validate-account has a publicId starting with `bka-`."""
    exchange = samples("validateAccount")
    data = envelope.data_is_object(exchange)
    checks.has_prefix(
        data.get("publicId"), "bankAccountId", exchange, "POST /transactions/validate-account data.publicId"
    )


@pytest.mark.requirement("RES-02")
@pytest.mark.parametrize("source", (BANK_TRANSFER, VERIFY_BANK_TRANSFER))
def test_bank_account_destination_carries_the_bank_account_prefix(transactions, source):
    """A bank transfer's destinationData.publicId starts with `bka-`."""
    for where, transaction, exchange in transactions.found(source):
        destination = transaction.get("destinationData")
        value = destination.get("publicId") if isinstance(destination, dict) else None
        checks.has_prefix(value, "bankAccountId", exchange, f"{where}.destinationData.publicId")


@pytest.mark.requirement("RES-03")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_transaction_public_id_starts_with_its_prefix(transactions, source):
    """Every transaction publicId starts with `trx-`."""
    for where, transaction, exchange in transactions.found(source):
        checks.has_prefix(transaction.get("publicId"), "transactionId", exchange, f"{where}.publicId")


@pytest.mark.requirement("RES-04")
@pytest.mark.parametrize("source", (INBOUND, VERIFY_INBOUND))
def test_external_source_public_id_starts_with_its_prefix(transactions, source):
    """An inbound credit's external source (source, sourceData.publicId, and in meta.credit) starts with `src-`."""
    # The prefix is the External source's: a leg with another sourceType is STA-05's matter.
    if not parties.external_source_prefixes(transactions.found(source)):
        pytest.skip(f"the inbound credit of {source} shows no sourceType {EXTERNAL} (see STA-05)")


@pytest.mark.requirement("RES-05")
def test_bank_public_ids_start_with_the_bank_prefix(samples):
    """Every bank of GET /transactions/banks has a publicId starting with `bnk-`."""
    for where, bank, exchange in resource_samples.banks(samples):
        checks.has_prefix(bank.get("publicId"), "bankId", exchange, f"{where}.publicId")


@pytest.mark.requirement("RES-06")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_fee_reference_is_null_or_prefixed(transactions, source):
    """A transaction's feeReference is null or starts with `fee-`."""
    for where, transaction, exchange in transactions.found(source):
        if transaction.get("feeReference") is not None:
            checks.has_prefix(transaction["feeReference"], "feeReference", exchange, f"{where}.feeReference")


@pytest.mark.requirement("RES-07")
def test_account_public_id_is_a_uuid_without_prefix(samples):
    """Every account publicId (list and update) is a UUID without prefix."""
    for where, account, exchange in resource_samples.records_of(samples, ACCOUNT_FORMS):
        checks.conforms(
            account.get("publicId"), COMMON, exchange, pointer="#/$defs/accountPublicId", where=f"{where}.publicId"
        )


# ------------------------------------------------------------------ Account (RES-10 .. RES-13)


@pytest.mark.requirement("RES-10")
def test_account_has_every_documented_field(samples):
    """Every Account (list and update) has each documented field with its documented type."""
    for where, account, exchange in resource_samples.records_of(samples, ACCOUNT_FORMS):
        checks.conforms(account, "account.json", exchange, where=where)


@pytest.mark.requirement("RES-11")
def test_account_id_equals_internal_id(samples):
    """An Account's id equals its _id."""
    for where, account, exchange in resource_samples.records_of(samples, ACCOUNT_FORMS):
        checks.equals(account.get("id"), account.get("_id"), f"{where}.id equals {where}._id", exchange)
        if not isinstance(account.get("id"), str):
            checks.fail(f"{where}.id is a string", "a string", account.get("id"), exchange)


@pytest.mark.requirement("RES-12")
def test_account_public_keys_carry_their_prefixes(samples):
    """An Account's pubKey holds a `live_pub_` live key and a `test_pub_` test key."""
    for where, account, exchange in resource_samples.records_of(samples, ACCOUNT_FORMS):
        keys = account.get("pubKey")
        if not isinstance(keys, dict):
            checks.fail(f"{where}.pubKey is an object", "an object with live and test", keys, exchange)
        checks.has_prefix(keys.get("live"), "livePublicKey", exchange, f"{where}.pubKey.live")
        checks.has_prefix(keys.get("test"), "testPublicKey", exchange, f"{where}.pubKey.test")


@pytest.mark.requirement("RES-13")
def test_account_webhooks_are_an_array_of_strings(samples):
    """An Account's webhooks is an array of strings."""
    for where, account, exchange in resource_samples.records_of(samples, ACCOUNT_FORMS):
        checks.conforms(
            account.get("webhooks"), "account.json", exchange, pointer="#/$defs/webhooks", where=f"{where}.webhooks"
        )


# ------------------------------------------------------------------ Wallet (RES-20 .. RES-27)


@pytest.mark.requirement("RES-20")
@pytest.mark.parametrize("operation_id", WALLET_FORMS)
def test_wallet_has_every_documented_field(samples, operation_id):
    """A Wallet (created, read, listed) has each documented field with its documented type."""
    for where, wallet, exchange in resource_samples.sample_records(samples, operation_id):
        checks.conforms(wallet, WALLET, exchange, where=where)


@pytest.mark.requirement("RES-21")
@pytest.mark.parametrize("operation_id", WALLET_FORMS)
def test_wallet_id_is_integer_or_string(samples, operation_id):
    """A Wallet's id is an integer or a string."""
    for where, wallet, exchange in resource_samples.sample_records(samples, operation_id):
        checks.conforms(wallet.get("id"), WALLET, exchange, pointer="#/$defs/id", where=f"{where}.id")


@pytest.mark.requirement("RES-22")
@pytest.mark.parametrize("operation_id", catalogue()["RES-22"].operations)
def test_wallet_read_carries_internal_id(samples, operation_id):
    """The single-wallet read and the wallet list entries carry a string `_id`."""
    for exchange in {
        id(exchange): exchange for _, _, exchange in resource_samples.sample_records(samples, operation_id)
    }.values():
        answer_forms.read_internal_id(exchange)


@pytest.mark.requirement("RES-23")
def test_wallet_read_id_is_string_equal_to_internal_id(samples):
    """In the single-wallet read, id is a string equal to _id."""
    ((where, wallet, exchange),) = resource_samples.sample_records(samples, "getWallet")
    if not isinstance(wallet.get("id"), str):
        checks.fail(f"{where}.id is a string", "a string", wallet.get("id"), exchange)
    if "_id" in wallet:  # a missing _id is RES-22's failure
        checks.equals(wallet.get("id"), wallet["_id"], f"{where}.id equals {where}._id", exchange)


@pytest.mark.requirement("RES-24")
def test_wallet_create_shows_integer_id(samples):
    """The create-wallet response shows an integer id."""
    ((_, _, exchange),) = resource_samples.sample_records(samples, "createWallet")
    answer_forms.created_integer_id(exchange)


@pytest.mark.requirement("RES-25")
def test_wallet_list_entries_show_integer_id(samples):
    """Wallet list entries repeat an integer id."""
    for where, wallet, exchange in resource_samples.sample_records(samples, "listWallets"):
        checks.equals(type(wallet.get("id")).__name__, "int", f"{where}.id is an integer", exchange)


@pytest.mark.requirement("RES-26")
@pytest.mark.parametrize("operation_id", WALLET_FORMS)
def test_wallet_category_is_primary_or_secondary(samples, operation_id):
    """A Wallet's category is `primary` or `secondary`."""
    for where, wallet, exchange in resource_samples.sample_records(samples, operation_id):
        checks.conforms(wallet.get("category"), WALLET, exchange, pointer="#/$defs/category", where=f"{where}.category")


@pytest.mark.requirement("RES-27")
def test_observe_when_is_favourite_is_true(samples, observe):
    """Records isFavourite by category on the created, read and listed wallets."""
    seen = resource_samples.is_favourite_by_category(samples, WALLET_FORMS)
    observe(
        "RES-27",
        isFavourite_by_category=seen,
        note="created and read wallets are the run's secondary wallets; the list shows the first page",
    )


# ------------------------------------------------------------------ Collection account (RES-30 .. RES-36)


@pytest.mark.requirement("RES-30")
def test_collection_account_has_every_documented_field(samples):
    """A Collection account has each documented field with its documented type."""
    data, exchange = resource_samples.collection_account(samples)
    checks.conforms(data, "collection-account.json", exchange)


@pytest.mark.requirement("RES-31")
def test_collection_account_public_id_has_the_wallet_prefix(samples):
    """A Collection account's publicId starts with `vba-`."""
    data, exchange = resource_samples.collection_account(samples)
    checks.has_prefix(data.get("publicId"), "walletId", exchange, "data.publicId")


@pytest.mark.requirement("RES-32")
def test_collection_account_keeps_the_supplied_reference(api, samples, run_id):
    """A Collection account created with a reference carries that reference."""
    reference = f"{run_id}r{secrets.token_hex(4)}"
    assert len(reference) >= contract.reference_min_length(), f"the supplied reference {reference!r} is long enough"
    body = bodies.collection_account(run_id, samples.wallet()["publicId"], reference=reference)
    exchange = api.call("createCollectionAccount", json_body=body)
    if not exchange.ok:  # which collection accounts are accepted is LIM-15's, LIM-18's and END-20's matter
        pytest.skip(
            f"the collection account with a fresh reference was refused (HTTP {exchange.status}): no "
            "reference kept to look at"
        )
    data = request_rules.collection_account_shown(exchange)
    checks.equals(data.get("reference"), reference, "data.reference is the supplied reference", exchange)


@pytest.mark.requirement("RES-33")
def test_collection_account_without_reference_gets_one(samples):
    """A Collection account created without a reference gets a generated, non-empty one."""
    data, exchange = resource_samples.collection_account(samples)
    assert "reference" not in exchange.request_body, "the sample is made without a reference"
    reference = data.get("reference")
    checks.holds(
        isinstance(reference, str) and bool(reference.strip()),
        "data.reference is a generated string",
        "a non-empty string",
        reference,
        exchange,
    )


@pytest.mark.requirement("RES-34")
def test_collection_account_parent_is_the_destination_wallet(samples):
    """parentAccountNumber is the account number of the destination wallet."""
    data, exchange = resource_samples.collection_account(samples)
    wallet = samples.wallet()
    assert exchange.request_body["destination"] == wallet["publicId"], "the sample is made for the sample wallet"
    checks.equals(
        data.get("parentAccountNumber"),
        wallet.get("accountNumber"),
        "data.parentAccountNumber is the destination wallet's accountNumber",
        exchange,
    )


@pytest.mark.requirement("RES-35")
def test_collection_account_amount_is_the_requested_one(samples):
    """A Collection account's amount is the amount requested, in kobo."""
    data, exchange = resource_samples.collection_account(samples)
    checks.equals(data.get("amount"), exchange.request_body["amount"], "data.amount is the requested amount", exchange)


# Collection amounts from a hundred kobo to a hundred million naira: a target that keeps small amounts right and
# large ones wrong (naira for kobo above some amount, say) shows it only at the large ones. Then amounts with kobo
# (ending in 01, 99 and 50): one worked out in naira as a float may come back fractional only there.
COLLECTION_MAGNITUDES = tuple(10**exponent for exponent in range(2, 11, 2))
COLLECTION_AMOUNTS = (*COLLECTION_MAGNITUDES, 10**4 + 1, 10**6 + 99, 10**8 + 50)


@pytest.mark.requirement("RES-35")
def test_collection_account_amount_is_kept_at_every_magnitude(api, samples, run_id):
    """Collection accounts of amounts across every order of magnitude, some with kobo, carry the amount requested."""
    destination = samples.wallet()["publicId"]
    kept = 0
    for amount in COLLECTION_AMOUNTS:
        exchange = api.call(
            "createCollectionAccount", json_body=bodies.collection_account(run_id, destination, amount=amount)
        )
        if not exchange.ok:
            continue  # which amounts a collection account takes is not shown: a refusal is the target's bound
        checks.equals(
            request_rules.collection_account_shown(exchange).get("amount"),
            amount,
            "data.amount is the requested amount",
            exchange,
        )
        kept += 1
    if not kept:
        raise CannotJudge(f"no collection account of {', '.join(map(str, COLLECTION_AMOUNTS))} kobo was accepted")


@pytest.mark.requirement("RES-36")
def test_collection_account_has_requested_name_and_its_own_number(samples):
    """A Collection account has the requested accountName and an accountNumber of its own."""
    data, exchange = resource_samples.collection_account(samples)
    checks.equals(
        data.get("accountName"),
        exchange.request_body["accountName"],
        "data.accountName is the requested name",
        exchange,
    )
    own = data.get("accountNumber")
    if not isinstance(own, str) or own in (samples.wallet().get("accountNumber"), data.get("parentAccountNumber")):
        checks.fail(
            "data.accountNumber is the collection account's own number",
            "a number other than the destination wallet's",
            own,
            exchange,
        )


@pytest.mark.requirement("RES-86")
@pytest.mark.parametrize("operation_id", catalogue()["RES-86"].operations)
def test_the_owning_account_is_the_keys_listed_account(samples, api, resources, operation_id):
    """A new wallet's and collection account's `account` is the key's own account, one GET /accounts lists."""
    exchange = samples(operation_id)
    owner = envelope.data_is_object(exchange).get("account")
    own = resources.own_account_id()
    checks.equals(
        owner, own, f"the {operation_id} answer's account is the key's own account (the one its wallets name)", exchange
    )
    listing = lists.read(api, "listAccounts", until=lambda entries: any(is_account(entry, own) for entry in entries))
    if not any(is_account(entry, own) for entry in listing.entries):
        if not listing.complete:
            raise CannotJudge(f"the account {own} is not in what could be read of GET /accounts ({listing.note})")
        checks.fail(
            "the owning account is one GET /accounts lists to the key",
            f"an account with _id {own}",
            f"none in {listing.note}",
            listing.first,
        )


# ------------------------------------------------------------------ Bank account (RES-40 .. RES-42)


@pytest.mark.requirement("RES-40")
def test_bank_account_has_every_documented_field(samples):
    """A validated Bank account has each documented field with its documented type."""
    exchange = samples("validateAccount")
    checks.conforms(envelope.data_is_object(exchange), "bank-account.json", exchange)


@pytest.mark.requirement("RES-41")
def test_bank_account_is_the_one_asked_about(samples):
    """The validated Bank account has the accountNumber and bankCode that were sent."""
    exchange = samples("validateAccount")
    data = envelope.data_is_object(exchange)
    for name in ("accountNumber", "bankCode"):
        checks.equals(data.get(name), exchange.request_body[name], f"data.{name} is the one sent", exchange)


@pytest.mark.requirement("RES-42")
def test_observe_beneficiary_type_and_client_ids(samples, observe):
    """Records beneficiaryType and clientIds of a validated bank account."""
    data = samples("validateAccount").data
    data = data if isinstance(data, dict) else {}
    observe("RES-42", beneficiaryType=data.get("beneficiaryType", "absent"), clientIds=data.get("clientIds", "absent"))


# ------------------------------------------------------------------ Bank (RES-50 .. RES-54)


@pytest.mark.requirement("RES-50")
def test_bank_has_every_documented_field(samples):
    """Every Bank has each documented field with its documented type."""
    for where, bank, exchange in resource_samples.banks(samples):
        checks.conforms(bank, "bank.json", exchange, where=where)


@pytest.mark.requirement("RES-51")
def test_bank_deleted_at_is_timestamp_or_null(samples):
    """A Bank's deletedAt is a timestamp or null."""
    for where, bank, exchange in resource_samples.banks(samples):
        if "deletedAt" in bank:  # a missing field is RES-50's failure
            checks.conforms(
                bank["deletedAt"], COMMON, exchange, pointer="#/$defs/nullableTimestamp", where=f"{where}.deletedAt"
            )


@pytest.mark.requirement("RES-52")
def test_bank_meta_holds_code_name_and_nibss_code(samples):
    """A Bank's meta holds bankCode, name and nibssBankCode strings."""
    for where, bank, exchange in resource_samples.banks(samples):
        checks.conforms(bank.get("meta"), "bank.json", exchange, pointer="#/$defs/meta", where=f"{where}.meta")


@pytest.mark.requirement("RES-53")
def test_bank_country_is_lower_case(samples):
    """A Bank's country is a lower-case name."""
    for where, bank, exchange in resource_samples.banks(samples):
        checks.conforms(
            bank.get("country"), "bank.json", exchange, pointer="#/$defs/lower-case-country", where=f"{where}.country"
        )


@pytest.mark.requirement("RES-54")
def test_observe_bank_types(samples, observe):
    """Records the values of a Bank's type."""
    listed = samples("listBanks").data
    types = (
        Counter(str(bank.get("type")) for bank in listed if isinstance(bank, dict))
        if isinstance(listed, list)
        else {"(no list)": 1}
    )
    observe("RES-54", types=dict(sorted(types.items())))


# ------------------------------------------------------------------ Transaction (RES-60 .. RES-78)


@pytest.mark.requirement("RES-60")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_transaction_has_every_documented_field(transactions, source):
    """A Transaction has each documented field with its documented type."""
    for where, transaction, exchange in transactions.found(source):
        checks.conforms(transaction, TRANSACTION, exchange, where=where)


@pytest.mark.requirement("RES-61")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_transaction_entry_is_debit_or_credit(transactions, source):
    """A Transaction's entry is `debit` or `credit`."""
    for where, transaction, exchange in transactions.found(source):
        checks.conforms(
            transaction.get("entry"), TRANSACTION, exchange, pointer="#/$defs/entry", where=f"{where}.entry"
        )


@pytest.mark.requirement("RES-62")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_transaction_source_type_is_documented(transactions, source):
    """A Transaction's sourceType is `VirtualAccount` or `External`."""
    for where, transaction, exchange in transactions.found(source):
        checks.conforms(
            transaction.get("sourceType"),
            TRANSACTION,
            exchange,
            pointer="#/$defs/sourceType",
            where=f"{where}.sourceType",
        )


@pytest.mark.requirement("RES-63")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_transaction_destination_type_is_documented(transactions, source):
    """A Transaction's destinationType is `VirtualAccount` or `BankAccount`."""
    for where, transaction, exchange in transactions.found(source):
        checks.conforms(
            transaction.get("destinationType"),
            TRANSACTION,
            exchange,
            pointer="#/$defs/destinationType",
            where=f"{where}.destinationType",
        )


@pytest.mark.requirement("RES-64")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_client_transaction_holds_integer_fee_and_actual_amount(transactions, source):
    """A Transaction's clientTransaction holds integer fee and actualAmount."""
    for where, transaction, exchange in transactions.found(source):
        checks.conforms(
            transaction.get("clientTransaction"),
            TRANSACTION,
            exchange,
            pointer="#/$defs/clientTransaction",
            where=f"{where}.clientTransaction",
        )


@pytest.mark.requirement("RES-65", "RES-87")
@pytest.mark.parametrize("source", DEBITS)
def test_debit_actual_amount_is_amount_plus_fee(transactions, source):
    """A debit's actualAmount is its amount where its fee is 0 (RES-65), and amount plus fee otherwise (RES-87)."""
    for where, transaction, exchange in transactions.found(source, requirement="RES-65"):
        amount, fee, actual = (transaction.get(name) for name in ("amount", "fee", "actualAmount"))
        if not all(type(value) is int for value in (amount, fee, actual)):
            checks.fail(
                f"{where}: amount, fee and actualAmount are integers",
                "three integers",
                {"amount": amount, "fee": fee, "actualAmount": actual},
                exchange,
                requirement="RES-65",
            )
        checks.equals(
            actual,
            amount + fee,
            f"{where}.actualAmount is amount ({amount}) plus fee ({fee})",
            exchange,
            requirement=checks.actual_amount_requirement(fee),
        )


@pytest.mark.requirement("RES-66")
@pytest.mark.parametrize("source", DEBITS)
def test_client_transaction_repeats_fee_and_actual_amount(transactions, source):
    """clientTransaction.fee and clientTransaction.actualAmount repeat the transaction's fee and actualAmount."""
    for where, transaction, exchange in transactions.found(source):
        client = transaction.get("clientTransaction")
        if not isinstance(client, dict):
            pytest.skip(f"{where} has no clientTransaction object (RES-64)")
        for name in ("fee", "actualAmount"):
            checks.equals(
                client.get(name),
                transaction.get(name),
                f"{where}.clientTransaction.{name} repeats {where}.{name}",
                exchange,
            )


@pytest.mark.requirement("RES-67")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_currency_pair_is_source_slash_destination(transactions, source):
    """A Transaction's currencyPair has the form `<source currency>/<destination currency>`."""
    for where, transaction, exchange in transactions.found(source):
        checks.conforms(
            transaction.get("currencyPair"),
            TRANSACTION,
            exchange,
            pointer="#/$defs/currencyPair",
            where=f"{where}.currencyPair",
        )


@pytest.mark.requirement("RES-68")
def test_wallet_transfer_names_source_and_destination_by_public_id(samples):
    """A wallet-to-wallet transfer's source and destination are the two wallets' publicIds."""
    exchange = samples("transfer")
    data = envelope.data_is_object(exchange)
    for side in ("source", "destination"):
        checks.equals(
            data.get(side), exchange.request_body[side], f"data.{side} is the publicId of the {side} wallet", exchange
        )


@pytest.mark.requirement("RES-68")
def test_bank_transfer_names_source_and_destination_by_public_id(samples):
    """A bank transfer's source is the wallet's publicId and its destination the bank account's publicId."""
    exchange = samples("bankTransfer")
    data = envelope.data_is_object(exchange)
    checks.equals(
        data.get("source"),
        exchange.request_body["source"],
        "data.source is the publicId of the source wallet",
        exchange,
    )
    destination = data.get("destinationData") if isinstance(data.get("destinationData"), dict) else {}
    if not isinstance(data.get("destination"), str) or data["destination"] != destination.get("publicId"):
        checks.fail(
            "data.destination is the publicId of the destination bank account",
            destination.get("publicId", "destinationData.publicId"),
            data.get("destination"),
            exchange,
        )


@pytest.mark.requirement("RES-69")
@pytest.mark.parametrize("source", (TRANSFER, BANK_TRANSFER, *VERIFIED, LISTED))
def test_wallet_and_bank_account_parties_hold_documented_fields(transactions, source):
    """sourceData and destinationData of a wallet or bank account hold the documented fields and types."""
    if not parties.party_forms(transactions.found(source), (VIRTUAL_ACCOUNT, BANK_ACCOUNT)):
        pytest.skip(f"no wallet or bank-account party in {source}")


@pytest.mark.requirement("RES-70")
@pytest.mark.parametrize("source", (INBOUND, VERIFY_INBOUND))
def test_external_source_data_holds_documented_fields(transactions, source):
    """sourceData of an External source (an inbound credit) holds the documented fields."""
    legs = [
        (where, transaction, exchange)
        for where, transaction, exchange in transactions.found(source)
        if parties.says_external(transaction)
    ]
    if not legs:
        pytest.skip(f"the inbound credit of {source} shows no sourceType {EXTERNAL} (see STA-05)")
    for where, transaction, exchange in legs:
        # The publicId's prefix is RES-04's.
        checks.conforms(
            transaction.get("sourceData"),
            TRANSACTION,
            exchange,
            pointer=PARTY_FORMS[EXTERNAL],
            where=f"{where}.sourceData",
            leave_prefixes=True,
        )


@pytest.mark.requirement("RES-71")
def test_meta_rate_holds_documented_fields(transactions):
    """meta.rate, where present, holds rateId, rate, sourceCurrency, destinationCurrency and convertedAmount."""
    for where, rate, exchange in transactions.meta_parts(READ_BACK, "rate"):
        checks.conforms(rate, TRANSACTION, exchange, pointer="#/$defs/rate", where=where)


@pytest.mark.requirement("RES-72")
def test_meta_credit_holds_the_credit_leg(transactions):
    """meta.credit, where present (settled transfers, inbound credits), holds the credit leg's documented fields."""
    for where, credit, exchange in transactions.meta_parts(READ_BACK, "credit"):
        # The prefixes of the parties' publicIds are RES-01's, RES-02's and RES-04's.
        checks.conforms(credit, TRANSACTION, exchange, pointer="#/$defs/credit", where=where, leave_prefixes=True)


@pytest.mark.requirement("RES-81")
@pytest.mark.parametrize("source", (INBOUND, VERIFY_INBOUND))
def test_inbound_credit_leg_holds_auth_account_and_link_ref(transactions, source):
    """The credit leg (meta.credit) of an inbound credit also holds auth, account and linkRef."""
    judged = sum(
        parties.inbound_leg_holds_its_fields(where, transaction, exchange)
        for where, transaction, exchange in transactions.found(source)
    )
    if not judged:
        pytest.skip(
            f"the inbound credit of {source} shows no credit leg (meta may hold one), or no sourceType "
            f"{EXTERNAL} (see STA-05)"
        )


@pytest.mark.requirement("RES-73")
def test_meta_verify_holds_documented_fields(transactions):
    """meta.verify of a verify response has status and data with the documented nested fields."""
    for where, verify, exchange in transactions.meta_parts(VERIFIED, "verify"):
        checks.conforms(verify, TRANSACTION, exchange, pointer="#/$defs/verify", where=where)


@pytest.mark.requirement("RES-74")
def test_meta_client_response_holds_documented_fields(transactions):
    """meta.clientResponse, where present (inbound credits), holds the documented fields and authorization."""
    for where, response, exchange in transactions.meta_parts((INBOUND, VERIFY_INBOUND, LISTED), "clientResponse"):
        checks.conforms(response, TRANSACTION, exchange, pointer="#/$defs/clientResponse", where=where)


@pytest.mark.requirement("RES-75")
def test_meta_is_third_party_is_boolean(transactions):
    """meta.isThirdParty, where present, is a boolean."""
    for where, value, exchange in transactions.meta_parts(EVERY_SOURCE, "isThirdParty"):
        if not isinstance(value, bool):
            checks.fail(f"{where} is a boolean", "true or false", value, exchange)


@pytest.mark.requirement("RES-76")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_nullable_transaction_fields(transactions, source):
    """deletedAt is a timestamp or null; feeReference, debitReference and batchId are strings or null."""
    for where, transaction, exchange in transactions.found(source):
        if "deletedAt" in transaction:  # a missing field is RES-60's failure
            checks.conforms(
                transaction["deletedAt"],
                COMMON,
                exchange,
                pointer="#/$defs/nullableTimestamp",
                where=f"{where}.deletedAt",
            )
        for name in ("feeReference", "debitReference", "batchId"):
            value = transaction.get(name)
            if value is not None and not isinstance(value, str):
                checks.fail(f"{where}.{name} is a string or null", "a string or null", value, exchange)


@pytest.mark.requirement("RES-77")
def test_observe_internal_fields(request, samples, observe):
    """Records the type and a short example of each internal field the resources carry."""
    made = resource_samples.one_of_each_resource(samples, request.getfixturevalue)
    observe("RES-77", internal_fields=made.internal_fields(), **made.gaps())


@pytest.mark.requirement("RES-78")
def test_observe_fields_beyond_the_documented_ones(request, samples, observe):
    """Records, per resource, the fields the target returns that the document's tables do not list."""
    made = resource_samples.one_of_each_resource(samples, request.getfixturevalue)
    observe("RES-78", undocumented_fields=made.undocumented_fields(), **made.gaps())


# ------------------------------------------------------------------ the parties, wherever a transaction repeats them


@pytest.mark.requirement("RES-82")
@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_party_data_describes_the_parties_named(transactions, source):
    """sourceData.publicId and destinationData.publicId are the parties the request, or the transaction, names."""
    if not transactions.parties_repeated((source,)):
        pytest.skip(
            f"no transaction of {source} that the run could make names its parties by publicId and shows "
            "their data's publicId"
        )


@pytest.mark.requirement("RES-83")
def test_credit_leg_credits_the_destination(transactions):
    """The credit leg of a transaction into a wallet names that wallet as its destination and in destinationData."""
    if not transactions.parties_repeated(EVERY_SOURCE):
        pytest.skip("no transaction into a wallet shows a credit leg (meta may hold one)")


@pytest.mark.requirement("RES-84")
def test_credit_leg_names_the_source(transactions):
    """The credit leg of a transaction into a wallet names the transaction's source as its source and in sourceData."""
    if not transactions.parties_repeated(EVERY_SOURCE):
        pytest.skip("no transaction into a wallet shows a credit leg (meta may hold one)")


@pytest.mark.requirement("RES-85")
def test_observe_the_revision_across_an_update(api, resources, run_id, observe):
    """Records the account's __v before an update that changes its webhooks, in the update's answer, and after it."""
    added = [
        bodies.webhook_url(run_id, f"webhooks/{secrets.token_hex(3)}/revision", resources.settings.webhook_public_url)
    ]
    seen = account_changes.revisions_across_a_change(api, resources, added)
    observe(
        "RES-85",
        status=seen.update.status,
        before=seen.before,
        answered=seen.answered,
        listed_after=seen.listed_after,
        moved=seen.listed_after != seen.before,
    )


# ------------------------------------------------------------------ records across answers (RES-79, RES-80)

TRANSFERS_IN_A_ROW = 3  # made one after another from one wallet: each gets a reference of its own


@pytest.fixture(scope="module")
def transfers_in_a_row(api, resources) -> list[Exchange]:
    """Transfers made one after another from one wallet: their answers, each verified, and the list showing them."""
    return record_views.transfers_everywhere(api, resources, TRANSFERS_IN_A_ROW)


@pytest.mark.money
@pytest.mark.requirement("RES-79")
def test_each_identifier_names_one_record(transfers_in_a_row):
    """Transfers made one after another get references of their own; no identifier their answers show names two."""
    record_registry.consistent(transfers_in_a_row, "transfers made one after another, verified and listed")


@pytest.mark.money
@pytest.mark.requirement("RES-80")
def test_a_transaction_shows_one_identity_wherever_it_appears(transfers_in_a_row):
    """A transfer shows one reference, _id, amount, source and destination in its answer, verify and the list."""
    record_registry.consistent(transfers_in_a_row, "transfers made one after another, verified and listed")


@pytest.mark.requirement("RES-80")
def test_a_wallet_shows_one_identity_wherever_it_appears(api, resources):
    """A wallet shows the same accountNumber, _id and owner when created, read, listed and closed."""
    record_registry.consistent(record_views.wallet_everywhere(api, resources), "a wallet created, read, listed, closed")
