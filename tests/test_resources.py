"""Resources and their fields: identifier prefixes, and the fields and types of every resource the document
describes (Account, Wallet, Collection account, Bank account, Bank, Transaction and its sub-objects)."""

from __future__ import annotations

import contextlib
import secrets
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from wallet_conformance.client.api import Exchange, TargetError
from wallet_conformance.judge import checks, envelope
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.resources import UNAVAILABLE, own_account

# (where in the response, the transaction, the exchange that carried it)
Found = tuple[str, dict[str, Any], Exchange]

# Its transaction fixtures (a settled transfer, an inbound credit, the list after them) are module-scoped and
# asked for by name as tests need them: under xdist its tests share a worker, which makes them once.
pytestmark = pytest.mark.xdist_group("resources-transactions")

WALLET = "wallet.json"
TRANSACTION = "transaction.json"
COMMON = "common.json"

# The transaction sources a check looks at; each is made once per module.
TRANSFER = "transfer"  # POST /transactions/transfer response
BANK_TRANSFER = "bank-transfer"  # POST /transactions/bank-transfer response
VERIFY_TRANSFER = "verify-settled-transfer"  # verify of the wallet-to-wallet transfer once it is no longer pending
VERIFY_BANK_TRANSFER = "verify-bank-transfer"  # verify of the bank transfer
LISTED = "list"  # GET /transactions entries after the above
INBOUND = "inbound-list-entry"  # an inbound credit (sourceType External) as GET /transactions lists it
VERIFY_INBOUND = "verify-inbound"  # verify of that inbound credit
EVERY_SOURCE = (TRANSFER, BANK_TRANSFER, VERIFY_TRANSFER, VERIFY_BANK_TRANSFER, LISTED, INBOUND, VERIFY_INBOUND)
DEBITS = (TRANSFER, BANK_TRANSFER, VERIFY_TRANSFER, VERIFY_BANK_TRANSFER)
VERIFIED = (VERIFY_TRANSFER, VERIFY_BANK_TRANSFER, VERIFY_INBOUND)
READ_BACK = (LISTED, INBOUND, *VERIFIED)


def documented_fields(schema_file: str) -> set[str]:
    """The field names a schema file's table documents."""
    return set(contract.schema(schema_file)["properties"])


def _source_type(name: str) -> str:
    """`External` / `VirtualAccount` spelled as the transaction schema spells them (facts live in data)."""
    return next(value for value in contract.schema(TRANSACTION)["$defs"]["sourceType"]["enum"] if value == name)


EXTERNAL = _source_type("External")
VIRTUAL_ACCOUNT = _source_type("VirtualAccount")
BANK_ACCOUNT = next(value for value in contract.schema(TRANSACTION)["$defs"]["destinationType"]["enum"]
                    if value != VIRTUAL_ACCOUNT)
PARTY_FORMS = {VIRTUAL_ACCOUNT: "#/$defs/wallet-party", BANK_ACCOUNT: "#/$defs/bank-account-party",
               EXTERNAL: "#/$defs/external-source"}


# ------------------------------------------------------------------ helpers


def single(exchange: Exchange, requirement: str, label: str) -> list[Found]:
    return [(label, envelope.data_is_object(exchange, requirement=requirement), exchange)]


def entries(exchange: Exchange, requirement: str, label: str) -> list[Found]:
    return [(where, entry, exchange) for where, entry in envelope.entries(exchange, label, requirement=requirement)]


@dataclass
class Inbound:
    """An inbound credit: the transaction list that shows it, where, and its verify response."""

    listing: Exchange
    label: str
    entry: dict[str, Any]
    verified: Exchange


@pytest.fixture(scope="module")
def inbound(api, resources) -> Inbound:
    """An inbound credit: a wallet funded through the funding hook, then found in GET /transactions."""
    wallet = None
    if resources.target.funding_url:
        wallet = resources.funded_wallet(contract.minimum_amount("transfer"))
    # List order and paging parameters are not shown: the list is read page after page until the credit shows.
    read = lists.read(api, "listTransactions", until=lambda entries: any(
        isinstance(entry, dict) and wallet and money.pays_into(entry, wallet) for entry in entries))
    listing = read.first
    resources.require(listing, "list transactions")
    listed = [(index, entry) for index, entry in enumerate(read.entries) if isinstance(entry, dict)]
    # The funded wallet received nothing else: what pays into it is the inbound credit, whatever it calls itself.
    mine = [(index, entry) for index, entry in listed if wallet and money.pays_into(entry, wallet)]
    candidates = [(index, entry) for index, entry in listed if entry.get("sourceType") == EXTERNAL]
    if not (mine or candidates):
        pytest.skip(f"no inbound credit (sourceType External) in what was read of GET /transactions ({read.note}; "
                    "give --funding-url so the run can make one)")
    index, entry = (mine or candidates)[0]
    reference = entry.get("reference")
    if not isinstance(reference, str):
        raise TargetError(f"the inbound credit data[{index}] of GET /transactions has no reference to verify")
    verified = api.call("verifyTransaction", {"reference": reference})
    resources.require(verified, f"verify the inbound credit {reference}")
    return Inbound(listing, f"GET /transactions entry {index}", entry, verified)


@pytest.fixture(scope="module")
def settled_transfer(sample_transfer, resources) -> Exchange:
    """The verify response of the sample wallet-to-wallet transfer once it is no longer pending."""
    data = sample_transfer.data
    reference = data.get("reference") if isinstance(data, dict) else None
    if not isinstance(reference, str):
        raise TargetError("the transfer response carries no reference to verify")
    resources.require(resources.verify(reference), f"verify the transfer {reference}")
    if money.wait_settled(resources, reference) is None:
        pytest.skip(f"the transfer {reference} stayed pending past --settle-timeout")
    return resources.verify(reference)


@pytest.fixture(scope="module")
def verified_bank_transfer(sample_bankTransfer, resources) -> Exchange:
    """The verify response of the sample bank transfer."""
    data = sample_bankTransfer.data
    reference = data.get("reference") if isinstance(data, dict) else None
    if not isinstance(reference, str):
        raise TargetError("the bank-transfer response carries no reference to verify")
    exchange = resources.verify(reference)
    resources.require(exchange, f"verify the bank transfer {reference}")
    return exchange


@pytest.fixture(scope="module")
def transaction_list(request, api, resources) -> Exchange:
    """GET /transactions after a settled transfer and a bank transfer were made (when the run can make them)."""
    for made in ("settled_transfer", "verified_bank_transfer"):
        with contextlib.suppress(*UNAVAILABLE):
            request.getfixturevalue(made)
    exchange = api.call("listTransactions")
    resources.require(exchange, "list transactions")
    return exchange


def transactions(request, source: str, requirement: str) -> list[Found]:
    """The transactions of one source, each with where it was found."""
    samples = request.getfixturevalue("samples")
    if source == TRANSFER:
        return single(samples("transfer"), requirement, "POST /transactions/transfer data")
    if source == BANK_TRANSFER:
        return single(samples("bankTransfer"), requirement, "POST /transactions/bank-transfer data")
    if source == VERIFY_TRANSFER:
        return single(request.getfixturevalue("settled_transfer"), requirement, "verify (settled transfer) data")
    if source == VERIFY_BANK_TRANSFER:
        return single(request.getfixturevalue("verified_bank_transfer"), requirement, "verify (bank transfer) data")
    if source == LISTED:
        return entries(request.getfixturevalue("transaction_list"), requirement, "GET /transactions data")
    found: Inbound = request.getfixturevalue("inbound")
    if source == INBOUND:
        return [(found.label, found.entry, found.listing)]
    return single(found.verified, requirement, "verify (inbound credit) data")


def every_transaction(request, sources: tuple[str, ...], requirement: str) -> list[Found]:
    """The transactions of every source the run can make (sources it cannot make are left out)."""
    found: list[Found] = []
    for source in sources:
        try:
            found.extend(transactions(request, source, requirement))
        except UNAVAILABLE:
            continue
    return found


def transaction_params(sources: tuple[str, ...]) -> list[Any]:
    return [pytest.param(source, id=source) for source in sources]


# ------------------------------------------------------------------ identifier prefixes (RES-01 .. RES-07)


def _wallet_places(samples) -> list[tuple[str, Any, Exchange]]:
    created = samples("createWallet")
    read = samples("getWallet")
    listed = samples("listWallets")
    closed = samples("closeWallet")
    places = [("POST /virtual-accounts data.publicId", created.data, created),
              ("GET /virtual-accounts/{walletId} data.publicId", read.data, read),
              ("DELETE /virtual-accounts/{walletId} data.publicId", closed.data, closed)]
    places += [(f"GET /virtual-accounts data[{index}].publicId", entry, listed)
               for index, entry in enumerate(envelope.data_is_array(listed, requirement="RES-01"))]
    return places


@pytest.mark.requirement("RES-01")
def test_wallet_public_ids_start_with_the_wallet_prefix(samples):
    """Every wallet publicId (create, read, list, close) starts with `vba-`."""
    for where, data, exchange in _wallet_places(samples):
        value = data.get("publicId") if isinstance(data, dict) else None
        checks.has_prefix(value, "walletId", exchange, where)


@pytest.mark.requirement("RES-01")
def test_collection_account_public_id_starts_with_the_wallet_prefix(samples):
    """A collection account's publicId starts with the wallet prefix `vba-`."""
    exchange = samples("createCollectionAccount")
    data = envelope.data_is_object(exchange)
    checks.has_prefix(data.get("publicId"), "walletId", exchange, "POST /collection-accounts data.publicId")


def _wallet_party_prefixes(found: list[Found]) -> int:
    """Checks the publicId of every wallet party (also in meta.credit); returns how many it checked."""
    checked = 0
    for where, transaction, exchange in found:
        legs = [(where, transaction)]
        meta = transaction.get("meta")
        if isinstance(meta, dict) and isinstance(meta.get("credit"), dict):
            legs.append((f"{where}.meta.credit", meta["credit"]))
        for leg_where, leg in legs:
            for side in ("source", "destination"):
                if leg.get(f"{side}Type") != VIRTUAL_ACCOUNT:
                    continue
                data = leg.get(f"{side}Data")
                checks.has_prefix(data.get("publicId") if isinstance(data, dict) else None, "walletId", exchange,
                                  f"{leg_where}.{side}Data.publicId", requirement="RES-01")
                checked += 1
    return checked


@pytest.mark.requirement("RES-01")
@pytest.mark.parametrize("source", transaction_params((TRANSFER, VERIFY_TRANSFER, LISTED)))
def test_wallet_parties_of_transactions_carry_the_wallet_prefix(request, source):
    """sourceData and destinationData of a wallet party have a publicId starting with `vba-`."""
    found = transactions(request, source, "RES-01")
    if not _wallet_party_prefixes(found):
        pytest.skip(f"no wallet party in {source}")


@pytest.mark.requirement("RES-02")
def test_validated_bank_account_public_id_starts_with_its_prefix(samples):
    """The bank account returned by validate-account has a publicId starting with `bka-`."""
    exchange = samples("validateAccount")
    data = envelope.data_is_object(exchange)
    checks.has_prefix(data.get("publicId"), "bankAccountId", exchange,
                      "POST /transactions/validate-account data.publicId")


@pytest.mark.requirement("RES-02")
@pytest.mark.parametrize("source", transaction_params((BANK_TRANSFER, VERIFY_BANK_TRANSFER)))
def test_bank_account_destination_carries_the_bank_account_prefix(request, source):
    """A bank transfer's destinationData.publicId starts with `bka-`."""
    for where, transaction, exchange in transactions(request, source, "RES-02"):
        destination = transaction.get("destinationData")
        value = destination.get("publicId") if isinstance(destination, dict) else None
        checks.has_prefix(value, "bankAccountId", exchange, f"{where}.destinationData.publicId")


@pytest.mark.requirement("RES-03")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_transaction_public_id_starts_with_its_prefix(request, source):
    """Every transaction publicId starts with `trx-`."""
    for where, transaction, exchange in transactions(request, source, "RES-03"):
        checks.has_prefix(transaction.get("publicId"), "transactionId", exchange, f"{where}.publicId")


@pytest.mark.requirement("RES-04")
@pytest.mark.parametrize("source", transaction_params((INBOUND, VERIFY_INBOUND)))
def test_external_source_public_id_starts_with_its_prefix(request, source):
    """An inbound credit's external source (source, sourceData.publicId, and in meta.credit) starts with `src-`."""
    judged = 0
    for where, transaction, exchange in transactions(request, source, "RES-04"):
        legs = [(where, transaction)]
        meta = transaction.get("meta")
        if isinstance(meta, dict) and isinstance(meta.get("credit"), dict):
            legs.append((f"{where}.meta.credit", meta["credit"]))
        for leg_where, leg in legs:
            if not says_external(leg):  # the prefix is the External source's; another sourceType is STA-05's matter
                continue
            judged += 1
            data = leg.get("sourceData")
            checks.has_prefix(data.get("publicId") if isinstance(data, dict) else None, "externalSourceId", exchange,
                              f"{leg_where}.sourceData.publicId")
            checks.has_prefix(leg.get("source"), "externalSourceId", exchange, f"{leg_where}.source")
    if not judged:
        pytest.skip(f"the inbound credit of {source} shows no sourceType {EXTERNAL} (see STA-05)")


@pytest.mark.requirement("RES-05")
def test_bank_public_ids_start_with_the_bank_prefix(samples):
    """Every bank of GET /transactions/banks has a publicId starting with `bnk-`."""
    exchange = samples("listBanks")
    for where, bank, _ in entries(exchange, "RES-05", "GET /transactions/banks data"):
        checks.has_prefix(bank.get("publicId"), "bankId", exchange, f"{where}.publicId")


@pytest.mark.requirement("RES-06")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_fee_reference_is_null_or_prefixed(request, source):
    """A transaction's feeReference is null or starts with `fee-`."""
    for where, transaction, exchange in transactions(request, source, "RES-06"):
        if transaction.get("feeReference") is not None:
            checks.has_prefix(transaction["feeReference"], "feeReference", exchange, f"{where}.feeReference")


def _accounts(samples, requirement: str) -> Iterator[tuple[str, dict[str, Any], Exchange]]:
    """The listed accounts, then the updated one (made only once the listed ones were checked)."""
    yield from entries(samples("listAccounts"), requirement, "GET /accounts data")
    updated = samples("updateAccount")
    yield "PATCH /accounts/{accountId} data", envelope.data_is_object(updated, requirement=requirement), updated


@pytest.mark.requirement("RES-07")
def test_account_public_id_is_a_uuid_without_prefix(samples):
    """Every account publicId (list and update) is a UUID without prefix."""
    for where, account, exchange in _accounts(samples, "RES-07"):
        checks.conforms(account.get("publicId"), COMMON, exchange, pointer="#/$defs/accountPublicId",
                        where=f"{where}.publicId")


# ------------------------------------------------------------------ Account (RES-10 .. RES-13)


@pytest.mark.requirement("RES-10")
def test_account_has_every_documented_field(samples):
    """Every Account (list and update) has each documented field with its documented type."""
    for where, account, exchange in _accounts(samples, "RES-10"):
        checks.conforms(account, "account.json", exchange, where=where)


@pytest.mark.requirement("RES-11")
def test_account_id_equals_internal_id(samples):
    """An Account's id equals its _id."""
    for where, account, exchange in _accounts(samples, "RES-11"):
        checks.equals(account.get("id"), account.get("_id"), f"{where}.id equals {where}._id", exchange)
        if not isinstance(account.get("id"), str):
            checks.fail(f"{where}.id is a string", "a string", account.get("id"), exchange)


@pytest.mark.requirement("RES-12")
def test_account_public_keys_carry_their_prefixes(samples):
    """An Account's pubKey holds a `live_pub_` live key and a `test_pub_` test key."""
    for where, account, exchange in _accounts(samples, "RES-12"):
        keys = account.get("pubKey")
        if not isinstance(keys, dict):
            checks.fail(f"{where}.pubKey is an object", "an object with live and test", keys, exchange)
        checks.has_prefix(keys.get("live"), "livePublicKey", exchange, f"{where}.pubKey.live")
        checks.has_prefix(keys.get("test"), "testPublicKey", exchange, f"{where}.pubKey.test")


@pytest.mark.requirement("RES-13")
def test_account_webhooks_are_an_array_of_strings(samples):
    """An Account's webhooks is an array of strings."""
    for where, account, exchange in _accounts(samples, "RES-13"):
        checks.conforms(account.get("webhooks"), "account.json", exchange, pointer="#/$defs/webhooks",
                        where=f"{where}.webhooks")


# ------------------------------------------------------------------ Wallet (RES-20 .. RES-27)


def _wallets(samples, requirement: str, operations: tuple[str, ...]) -> list[tuple[str, dict[str, Any], Exchange]]:
    found = []
    if "createWallet" in operations:
        found += single(samples("createWallet"), requirement, "POST /virtual-accounts data")
    if "getWallet" in operations:
        found += single(samples("getWallet"), requirement, "GET /virtual-accounts/{walletId} data")
    if "listWallets" in operations:
        found += entries(samples("listWallets"), requirement, "GET /virtual-accounts data")
    return found


WALLET_FORMS = catalogue()["RES-20"].operations  # created, listed and read wallets


@pytest.mark.requirement("RES-20")
@pytest.mark.parametrize("operation_id", WALLET_FORMS)
def test_wallet_has_every_documented_field(samples, operation_id):
    """A Wallet (created, read, listed) has each documented field with its documented type."""
    for where, wallet, exchange in _wallets(samples, "RES-20", (operation_id,)):
        checks.conforms(wallet, WALLET, exchange, where=where)


@pytest.mark.requirement("RES-21")
@pytest.mark.parametrize("operation_id", WALLET_FORMS)
def test_wallet_id_is_integer_or_string(samples, operation_id):
    """A Wallet's id is an integer or a string."""
    for where, wallet, exchange in _wallets(samples, "RES-21", (operation_id,)):
        checks.conforms(wallet.get("id"), WALLET, exchange, pointer="#/$defs/id", where=f"{where}.id")


@pytest.mark.requirement("RES-22")
@pytest.mark.parametrize("operation_id", catalogue()["RES-22"].operations)
def test_wallet_read_carries_internal_id(samples, operation_id):
    """The single-wallet read and the wallet list entries carry a string `_id`."""
    for where, wallet, exchange in _wallets(samples, "RES-22", (operation_id,)):
        if not isinstance(wallet.get("_id"), str):
            checks.fail(f"{where} carries a string _id", "a string _id", wallet.get("_id", "no _id"), exchange)


@pytest.mark.requirement("RES-23")
def test_wallet_read_id_is_string_equal_to_internal_id(samples):
    """In the single-wallet read, id is a string equal to _id."""
    ((where, wallet, exchange),) = _wallets(samples, "RES-23", ("getWallet",))
    if not isinstance(wallet.get("id"), str):
        checks.fail(f"{where}.id is a string", "a string", wallet.get("id"), exchange)
    if "_id" in wallet:  # a missing _id is RES-22's failure
        checks.equals(wallet.get("id"), wallet["_id"], f"{where}.id equals {where}._id", exchange)


@pytest.mark.requirement("RES-24")
def test_wallet_create_shows_integer_id(samples):
    """The create-wallet response shows an integer id."""
    ((where, wallet, exchange),) = _wallets(samples, "RES-24", ("createWallet",))
    checks.equals(type(wallet.get("id")).__name__, "int", f"{where}.id is an integer", exchange)


@pytest.mark.requirement("RES-25")
def test_wallet_list_entries_show_integer_id(samples):
    """Wallet list entries repeat an integer id."""
    for where, wallet, exchange in _wallets(samples, "RES-25", ("listWallets",)):
        checks.equals(type(wallet.get("id")).__name__, "int", f"{where}.id is an integer", exchange)


@pytest.mark.requirement("RES-26")
@pytest.mark.parametrize("operation_id", WALLET_FORMS)
def test_wallet_category_is_primary_or_secondary(samples, operation_id):
    """A Wallet's category is `primary` or `secondary`."""
    for where, wallet, exchange in _wallets(samples, "RES-26", (operation_id,)):
        checks.conforms(wallet.get("category"), WALLET, exchange, pointer="#/$defs/category", where=f"{where}.category")


@pytest.mark.requirement("RES-27")
def test_observe_when_is_favourite_is_true(samples, observe):
    """Records isFavourite by category on the created, read and listed wallets."""
    seen: Counter[str] = Counter()
    for operation_id in WALLET_FORMS:
        data = samples(operation_id).data
        for wallet in data if isinstance(data, list) else [data]:
            if isinstance(wallet, dict):
                seen[f"{operation_id}: {wallet.get('category')!s} isFavourite={wallet.get('isFavourite')!s}"] += 1
    observe("RES-27", isFavourite_by_category=dict(sorted(seen.items())),
            note="created and read wallets are the run's secondary wallets; the list shows the first page")


# ------------------------------------------------------------------ Collection account (RES-30 .. RES-36)


def _collection(samples, requirement: str) -> tuple[dict[str, Any], Exchange]:
    exchange = samples("createCollectionAccount")
    return envelope.data_is_object(exchange, requirement=requirement), exchange


@pytest.mark.requirement("RES-30")
def test_collection_account_has_every_documented_field(samples):
    """A Collection account has each documented field with its documented type."""
    data, exchange = _collection(samples, "RES-30")
    checks.conforms(data, "collection-account.json", exchange)


@pytest.mark.requirement("RES-31")
def test_collection_account_public_id_has_the_wallet_prefix(samples):
    """A Collection account's publicId starts with `vba-`."""
    data, exchange = _collection(samples, "RES-31")
    checks.has_prefix(data.get("publicId"), "walletId", exchange, "data.publicId")


@pytest.mark.requirement("RES-32")
def test_collection_account_keeps_the_supplied_reference(api, samples, run_id):
    """A Collection account created with a reference carries that reference."""
    reference = f"{run_id}r{secrets.token_hex(4)}"
    assert len(reference) >= contract.reference_min_length()
    body = bodies.collection_account(run_id, samples.wallet()["publicId"], reference=reference)
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.accepted(exchange, "a collection account with a fresh reference")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("reference"), reference, "data.reference is the supplied reference", exchange)


@pytest.mark.requirement("RES-33")
def test_collection_account_without_reference_gets_one(samples):
    """A Collection account created without a reference gets a generated, non-empty one."""
    data, exchange = _collection(samples, "RES-33")
    assert "reference" not in exchange.request_body
    reference = data.get("reference")
    if not isinstance(reference, str) or not reference.strip():
        checks.fail("data.reference is a generated string", "a non-empty string", reference, exchange)


@pytest.mark.requirement("RES-34")
def test_collection_account_parent_is_the_destination_wallet(samples):
    """parentAccountNumber is the account number of the destination wallet."""
    data, exchange = _collection(samples, "RES-34")
    wallet = samples.wallet()
    checks.equals(exchange.request_body["destination"], wallet["publicId"],
                  "the collection account was made for the sample wallet", exchange)
    checks.equals(data.get("parentAccountNumber"), wallet.get("accountNumber"),
                  "data.parentAccountNumber is the destination wallet's accountNumber", exchange)


@pytest.mark.requirement("RES-35")
def test_collection_account_amount_is_the_requested_one(samples):
    """A Collection account's amount is the amount requested, in kobo."""
    data, exchange = _collection(samples, "RES-35")
    checks.equals(data.get("amount"), exchange.request_body["amount"], "data.amount is the requested amount", exchange)


@pytest.mark.requirement("RES-36")
def test_collection_account_has_requested_name_and_its_own_number(samples):
    """A Collection account has the requested accountName and an accountNumber of its own."""
    data, exchange = _collection(samples, "RES-36")
    checks.equals(data.get("accountName"), exchange.request_body["accountName"],
                  "data.accountName is the requested name", exchange)
    own = data.get("accountNumber")
    if not isinstance(own, str) or own in (samples.wallet().get("accountNumber"), data.get("parentAccountNumber")):
        checks.fail("data.accountNumber is the collection account's own number",
                    "a number other than the destination wallet's", own, exchange)


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


def _banks(samples, requirement: str) -> list[tuple[str, dict[str, Any], Exchange]]:
    return entries(samples("listBanks"), requirement, "GET /transactions/banks data")


@pytest.mark.requirement("RES-50")
def test_bank_has_every_documented_field(samples):
    """Every Bank has each documented field with its documented type."""
    for where, bank, exchange in _banks(samples, "RES-50"):
        checks.conforms(bank, "bank.json", exchange, where=where)


@pytest.mark.requirement("RES-51")
def test_bank_deleted_at_is_timestamp_or_null(samples):
    """A Bank's deletedAt is a timestamp or null."""
    for where, bank, exchange in _banks(samples, "RES-51"):
        if "deletedAt" in bank:  # a missing field is RES-50's failure
            checks.conforms(bank["deletedAt"], COMMON, exchange, pointer="#/$defs/nullableTimestamp",
                            where=f"{where}.deletedAt")


@pytest.mark.requirement("RES-52")
def test_bank_meta_holds_code_name_and_nibss_code(samples):
    """A Bank's meta holds bankCode, name and nibssBankCode strings."""
    for where, bank, exchange in _banks(samples, "RES-52"):
        checks.conforms(bank.get("meta"), "bank.json", exchange, pointer="#/$defs/meta", where=f"{where}.meta")


@pytest.mark.requirement("RES-53")
def test_bank_country_is_lower_case(samples):
    """A Bank's country is a lower-case name."""
    for where, bank, exchange in _banks(samples, "RES-53"):
        checks.conforms(bank.get("country"), "bank.json", exchange, pointer="#/$defs/lower-case-country",
                        where=f"{where}.country")


@pytest.mark.requirement("RES-54")
def test_observe_bank_types(samples, observe):
    """Records the values of a Bank's type."""
    listed = samples("listBanks").data
    types = Counter(str(bank.get("type")) for bank in listed if isinstance(bank, dict)) \
        if isinstance(listed, list) else {"(no list)": 1}
    observe("RES-54", types=dict(sorted(types.items())))


# ------------------------------------------------------------------ Transaction (RES-60 .. RES-78)


@pytest.mark.requirement("RES-60")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_transaction_has_every_documented_field(request, source):
    """A Transaction has each documented field with its documented type."""
    for where, transaction, exchange in transactions(request, source, "RES-60"):
        checks.conforms(transaction, TRANSACTION, exchange, where=where)


@pytest.mark.requirement("RES-61")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_transaction_entry_is_debit_or_credit(request, source):
    """A Transaction's entry is `debit` or `credit`."""
    for where, transaction, exchange in transactions(request, source, "RES-61"):
        checks.conforms(transaction.get("entry"), TRANSACTION, exchange, pointer="#/$defs/entry",
                        where=f"{where}.entry")


@pytest.mark.requirement("RES-62")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_transaction_source_type_is_documented(request, source):
    """A Transaction's sourceType is `VirtualAccount` or `External`."""
    for where, transaction, exchange in transactions(request, source, "RES-62"):
        checks.conforms(transaction.get("sourceType"), TRANSACTION, exchange, pointer="#/$defs/sourceType",
                        where=f"{where}.sourceType")


@pytest.mark.requirement("RES-63")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_transaction_destination_type_is_documented(request, source):
    """A Transaction's destinationType is `VirtualAccount` or `BankAccount`."""
    for where, transaction, exchange in transactions(request, source, "RES-63"):
        checks.conforms(transaction.get("destinationType"), TRANSACTION, exchange, pointer="#/$defs/destinationType",
                        where=f"{where}.destinationType")


@pytest.mark.requirement("RES-64")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_client_transaction_holds_integer_fee_and_actual_amount(request, source):
    """A Transaction's clientTransaction holds integer fee and actualAmount."""
    for where, transaction, exchange in transactions(request, source, "RES-64"):
        checks.conforms(transaction.get("clientTransaction"), TRANSACTION, exchange,
                        pointer="#/$defs/clientTransaction", where=f"{where}.clientTransaction")


@pytest.mark.requirement("RES-65")
@pytest.mark.parametrize("source", transaction_params(DEBITS))
def test_debit_actual_amount_is_amount_plus_fee(request, source):
    """A debit's actualAmount equals its amount plus its fee."""
    for where, transaction, exchange in transactions(request, source, "RES-65"):
        amount, fee, actual = (transaction.get(name) for name in ("amount", "fee", "actualAmount"))
        if not all(type(value) is int for value in (amount, fee, actual)):
            checks.fail(f"{where}: amount, fee and actualAmount are integers", "three integers",
                        {"amount": amount, "fee": fee, "actualAmount": actual}, exchange)
        checks.equals(actual, amount + fee, f"{where}.actualAmount is amount ({amount}) plus fee ({fee})", exchange)


@pytest.mark.requirement("RES-66")
@pytest.mark.parametrize("source", transaction_params(DEBITS))
def test_client_transaction_repeats_fee_and_actual_amount(request, source):
    """clientTransaction.fee and clientTransaction.actualAmount repeat the transaction's fee and actualAmount."""
    for where, transaction, exchange in transactions(request, source, "RES-66"):
        client = transaction.get("clientTransaction")
        if not isinstance(client, dict):
            pytest.skip(f"{where} has no clientTransaction object (RES-64)")
        for name in ("fee", "actualAmount"):
            checks.equals(client.get(name), transaction.get(name),
                          f"{where}.clientTransaction.{name} repeats {where}.{name}", exchange)


@pytest.mark.requirement("RES-67")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_currency_pair_is_source_slash_destination(request, source):
    """A Transaction's currencyPair has the form `<source currency>/<destination currency>`."""
    for where, transaction, exchange in transactions(request, source, "RES-67"):
        checks.conforms(transaction.get("currencyPair"), TRANSACTION, exchange, pointer="#/$defs/currencyPair",
                        where=f"{where}.currencyPair")


@pytest.mark.requirement("RES-68")
def test_wallet_transfer_names_source_and_destination_by_public_id(samples):
    """A wallet-to-wallet transfer's source and destination are the two wallets' publicIds."""
    exchange = samples("transfer")
    data = envelope.data_is_object(exchange)
    for side in ("source", "destination"):
        checks.equals(data.get(side), exchange.request_body[side], f"data.{side} is the publicId of the {side} wallet",
                      exchange)


@pytest.mark.requirement("RES-68")
def test_bank_transfer_names_source_and_destination_by_public_id(samples):
    """A bank transfer's source is the wallet's publicId and its destination the bank account's publicId."""
    exchange = samples("bankTransfer")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("source"), exchange.request_body["source"],
                  "data.source is the publicId of the source wallet", exchange)
    destination = data.get("destinationData") if isinstance(data.get("destinationData"), dict) else {}
    if not isinstance(data.get("destination"), str) or data["destination"] != destination.get("publicId"):
        checks.fail("data.destination is the publicId of the destination bank account",
                    destination.get("publicId", "destinationData.publicId"), data.get("destination"), exchange)


def _party_forms(found: list[Found], requirement: str, kinds: tuple[str, ...]) -> int:
    checked = 0
    for where, transaction, exchange in found:
        for side in ("source", "destination"):
            kind = transaction.get(f"{side}Type")
            if kind in kinds:
                checks.conforms(transaction.get(f"{side}Data"), TRANSACTION, exchange, pointer=PARTY_FORMS[kind],
                                where=f"{where}.{side}Data", requirement=requirement)
                checked += 1
    return checked


@pytest.mark.requirement("RES-69")
@pytest.mark.parametrize("source", transaction_params((TRANSFER, BANK_TRANSFER, *VERIFIED, LISTED)))
def test_wallet_and_bank_account_parties_hold_documented_fields(request, source):
    """sourceData and destinationData of a wallet or bank account hold the documented fields and types."""
    found = transactions(request, source, "RES-69")
    if not _party_forms(found, "RES-69", (VIRTUAL_ACCOUNT, BANK_ACCOUNT)):
        pytest.skip(f"no wallet or bank-account party in {source}")


@pytest.mark.requirement("RES-70")
@pytest.mark.parametrize("source", transaction_params((INBOUND, VERIFY_INBOUND)))
def test_external_source_data_holds_documented_fields(request, source):
    """sourceData of an External source (an inbound credit) holds the documented fields."""
    legs = [(where, transaction, exchange) for where, transaction, exchange in transactions(request, source, "RES-70")
            if says_external(transaction)]
    if not legs:
        pytest.skip(f"the inbound credit of {source} shows no sourceType {EXTERNAL} (see STA-05)")
    for where, transaction, exchange in legs:
        checks.conforms(transaction.get("sourceData"), TRANSACTION, exchange, pointer=PARTY_FORMS[EXTERNAL],
                        where=f"{where}.sourceData")


def says_external(leg: Any) -> bool:
    """Whether a transaction or credit leg has sourceType External: what the External source's sentences are about."""
    return isinstance(leg, dict) and leg.get("sourceType") == EXTERNAL


def _meta_parts(request, sources: tuple[str, ...], requirement: str, name: str) -> list[tuple[str, Any, Exchange]]:
    """meta.<name> of every transaction of the sources that carries it."""
    found = []
    for where, transaction, exchange in every_transaction(request, sources, requirement):
        meta = transaction.get("meta")
        if isinstance(meta, dict) and name in meta:
            found.append((f"{where}.meta.{name}", meta[name], exchange))
    if not found:
        pytest.skip(f"no transaction of {', '.join(sources)} carries meta.{name}")
    return found


@pytest.mark.requirement("RES-71")
def test_meta_rate_holds_documented_fields(request):
    """meta.rate, where present, holds rateId, rate, sourceCurrency, destinationCurrency and convertedAmount."""
    for where, rate, exchange in _meta_parts(request, READ_BACK, "RES-71", "rate"):
        checks.conforms(rate, TRANSACTION, exchange, pointer="#/$defs/rate", where=where)


@pytest.mark.requirement("RES-72")
def test_meta_credit_holds_the_credit_leg(request):
    """meta.credit, where present (settled transfers, inbound credits), holds the credit leg's documented fields."""
    for where, credit, exchange in _meta_parts(request, READ_BACK, "RES-72", "credit"):
        checks.conforms(credit, TRANSACTION, exchange, pointer="#/$defs/credit", where=where)


@pytest.mark.requirement("RES-73")
def test_meta_verify_holds_documented_fields(request):
    """meta.verify of a verify response has status and data with the documented nested fields."""
    for where, verify, exchange in _meta_parts(request, VERIFIED, "RES-73", "verify"):
        checks.conforms(verify, TRANSACTION, exchange, pointer="#/$defs/verify", where=where)


@pytest.mark.requirement("RES-74")
def test_meta_client_response_holds_documented_fields(request):
    """meta.clientResponse, where present (inbound credits), holds the documented fields and authorization."""
    for where, response, exchange in _meta_parts(request, (INBOUND, VERIFY_INBOUND, LISTED), "RES-74",
                                                 "clientResponse"):
        checks.conforms(response, TRANSACTION, exchange, pointer="#/$defs/clientResponse", where=where)


@pytest.mark.requirement("RES-75")
def test_meta_is_third_party_is_boolean(request):
    """meta.isThirdParty, where present, is a boolean."""
    for where, value, exchange in _meta_parts(request, EVERY_SOURCE, "RES-75", "isThirdParty"):
        if not isinstance(value, bool):
            checks.fail(f"{where} is a boolean", "true or false", value, exchange)


@pytest.mark.requirement("RES-76")
@pytest.mark.parametrize("source", transaction_params(EVERY_SOURCE))
def test_nullable_transaction_fields(request, source):
    """deletedAt is a timestamp or null; feeReference, debitReference and batchId are strings or null."""
    for where, transaction, exchange in transactions(request, source, "RES-76"):
        if "deletedAt" in transaction:  # a missing field is RES-60's failure
            checks.conforms(transaction["deletedAt"], COMMON, exchange, pointer="#/$defs/nullableTimestamp",
                            where=f"{where}.deletedAt")
        for name in ("feeReference", "debitReference", "batchId"):
            value = transaction.get(name)
            if value is not None and not isinstance(value, str):
                checks.fail(f"{where}.{name} is a string or null", "a string or null", value, exchange)


INTERNAL_FIELDS = ("auth", "account", "business", "_id", "__v", "version", "clientIds", "tags", "metadata", "batchId",
                   "debitReference", "requestSrc", "tRef", "linkRef")


def _shown(value: Any) -> Any:
    """A short, JSON-safe picture of a value: its type, and the value when it is small."""
    kind = type(value).__name__
    if isinstance(value, bool | int | float) or value is None or (isinstance(value, str) and len(value) <= 40):
        return {"type": kind, "example": value}
    if isinstance(value, list | dict):
        return {"type": kind, "length": len(value)}
    return {"type": kind}


def _resource_samples(request) -> dict[str, tuple[dict[str, Any], str]]:
    """One record of each resource the run can make, by name, with the schema file of its table."""
    samples = request.getfixturevalue("samples")
    made: dict[str, tuple[dict[str, Any], str]] = {}
    wanted = {
        "account (GET /accounts)": (lambda: own_account(samples("listAccounts").data), "account.json"),
        "wallet (POST /virtual-accounts)": (lambda: samples("createWallet").data, WALLET),
        "wallet (GET /virtual-accounts/{walletId})": (lambda: samples("getWallet").data, WALLET),
        "wallet (GET /virtual-accounts entry)": (lambda: samples("listWallets").data[0], WALLET),
        "collection account": (lambda: samples("createCollectionAccount").data, "collection-account.json"),
        "bank account": (lambda: samples("validateAccount").data, "bank-account.json"),
        "bank": (lambda: samples("listBanks").data[0], "bank.json"),
        "closed wallet": (lambda: samples("closeWallet").data, "closed-wallet.json"),
        "transaction (transfer)": (lambda: samples("transfer").data, TRANSACTION),
        "transaction (bank transfer)": (lambda: samples("bankTransfer").data, TRANSACTION),
        "transaction (verify)": (lambda: request.getfixturevalue("settled_transfer").data, TRANSACTION),
        "transaction (inbound credit)": (lambda: request.getfixturevalue("inbound").verified.data, TRANSACTION),
    }
    for name, (make, schema_file) in wanted.items():
        try:
            record = make()
        except (*UNAVAILABLE, LookupError, TypeError, AttributeError):
            continue
        if isinstance(record, dict):
            made[name] = (record, schema_file)
    return made


@pytest.mark.requirement("RES-77")
def test_observe_internal_fields(request, observe):
    """Records the type and a short example of each internal field the resources carry."""
    seen = {name: {field: _shown(record[field]) for field in INTERNAL_FIELDS if field in record}
            for name, (record, _) in _resource_samples(request).items()}
    observe("RES-77", internal_fields=seen)


@pytest.mark.requirement("RES-78")
def test_observe_fields_beyond_the_documented_ones(request, observe):
    """Records, per resource, the fields the target returns that the document's tables do not list."""
    extra = {name: sorted(set(record) - documented_fields(schema_file))
             for name, (record, schema_file) in _resource_samples(request).items()}
    observe("RES-78", undocumented_fields=extra)
