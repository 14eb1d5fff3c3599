"""Endpoints: what each operation takes and returns, its filters and its required fields; and (observed) what the
document leaves open: updatable account fields, optional wallet and transfer fields, list filters and paging."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

import pytest

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks, envelope
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.bad_requests import unknown_wallet_id
from wallet_conformance.world.resources import UNAVAILABLE, own_account

TRANSACTION = contract.schema("transaction.json")["$defs"]
TRANSFER_ACCEPTED = TRANSACTION["transfer-accepted"]["properties"]
BANK_TRANSFER_ACCEPTED = TRANSACTION["bank-transfer-accepted"]["properties"]


def paged_list(exchange: Exchange, requirement: str, schema_file: str, pointer: str = "") -> None:
    """data is an array of the schema's resource, with meta.pagination beside it (whose fields SVC-17 judges)."""
    checks.accepted(exchange, f"{exchange.operation_id} without parameters", requirement=requirement)
    envelope.pagination_presence(exchange, requirement=requirement)
    for where, entry in envelope.entries(exchange, requirement=requirement):
        checks.conforms(entry, schema_file, exchange, pointer=pointer, where=where, requirement=requirement)


# ------------------------------------------------------------------ accounts


def _accounts(api, resources) -> list[dict[str, Any]]:
    listed = resources.require(api.call("listAccounts"), "list accounts")
    if not isinstance(listed, list) or not all(isinstance(account, dict) for account in listed):
        pytest.skip("GET /accounts gives no list of accounts to work with")
    return listed


@pytest.mark.requirement("END-01")
def test_update_returns_the_updated_account(samples):
    """PATCH /accounts/{accountId} answers with the Account whose publicId is in the path."""
    exchange = samples("updateAccount")
    data = envelope.data_is_object(exchange)
    checks.conforms(data, "account.json", exchange)
    account_id = exchange.url.rstrip("/").rsplit("/", 1)[-1]
    checks.equals(data.get("publicId"), account_id, "data.publicId is the updated account's", exchange)


@pytest.mark.requirement("END-02")
def test_update_sets_the_webhooks_to_the_sent_list(api, resources, run_id):
    """PATCH /accounts/{accountId} with a list of webhook URLs answers with exactly those URLs."""
    added = [f"https://{run_id}.conformance.invalid/webhooks/{secrets.token_hex(3)}/{name}" for name in ("b", "a")]
    with resources.account_wide():
        account = own_account(_accounts(api, resources))
        original = account.get("webhooks", [])
        # The account's own webhooks stay in the list: a real account keeps its deliveries during the run.
        sent = [*original, *added] if isinstance(original, list) else added
        try:
            exchange = api.call("updateAccount", {"accountId": account["publicId"]},
                                json_body=bodies.account_update(sent))
        finally:
            restored = api.call("updateAccount", {"accountId": account["publicId"]},
                                json_body=bodies.account_update(original))
    checks.accepted(exchange, "an update of the webhooks")
    data = envelope.data_is_object(exchange)
    held = data.get("webhooks")
    # Whether the target keeps the order of the list is not shown: the same URLs, in any order (as EVT-01 reads it).
    checks.equals(sorted(held, key=str) if isinstance(held, list) else held, sorted(sent, key=str),
                  "data.webhooks holds the URLs sent", exchange)
    resources.require(restored, "restore the account's webhooks")


@pytest.mark.requirement("END-03")
def test_observe_updating_an_account_name(api, resources, run_id, observe):
    """Records whether an update changes an account's name (a field other than webhooks), then restores it."""
    with resources.account_wide():
        account = own_account(_accounts(api, resources))
        original, public_id = account.get("name"), account["publicId"]
        asked = f"{original} {run_id}"
        try:
            exchange = api.call("updateAccount", {"accountId": public_id},
                                json_body=bodies.account_update(account.get("webhooks", []), name=asked))
            after = next((entry for entry in _accounts(api, resources) if entry.get("publicId") == public_id), {})
        finally:
            now = next((entry for entry in _accounts(api, resources) if entry.get("publicId") == public_id), {})
            if now.get("name") != original:
                resources.require(api.call("updateAccount", {"accountId": public_id},
                                           json_body=bodies.account_update(account.get("webhooks", []),
                                                                           name=original)),
                                  "restore the account's name")
    shown = exchange.data if isinstance(exchange.data, dict) else {}
    observe("END-03", field="name", status=exchange.status,
            response_shows_new_name=shown.get("name") == asked, listed_name_changed=after.get("name") == asked)


@pytest.mark.requirement("END-04")
def test_update_of_unknown_account_is_refused(api, resources):
    """PATCH /accounts/{accountId} with a publicId that names no account is refused."""
    with resources.account_wide():
        account = own_account(_accounts(api, resources))
        # The account's own webhooks: even a target that wrongly applied the update would change nothing.
        exchange = api.call("updateAccount", {"accountId": str(uuid.uuid4())},
                            json_body=bodies.account_update(account.get("webhooks", [])))
    checks.refused(exchange, "an update of an account that does not exist")


@pytest.mark.requirement("END-05")
def test_account_list_is_paged_accounts(samples):
    """GET /accounts answers an array of Account with meta.pagination."""
    paged_list(samples("listAccounts"), "END-05", "account.json")


@pytest.mark.requirement("END-06")
def test_account_name_filter(api, resources):
    """GET /accounts?name= returns only accounts whose name holds that name, the one of exactly that name among them."""
    with resources.account_wide():
        accounts = [account for account in _accounts(api, resources) if isinstance(account.get("name"), str)]
        if not accounts:
            pytest.skip("GET /accounts shows no account with a name to filter on")
        # Whether the filter matches exactly, by substring or ignoring case is not shown: what holds for every such
        # rule is checked, on a name no other listed account's name contains (so an ignored filter shows).
        chosen = min(accounts, key=lambda account: sum(account["name"].casefold() in other["name"].casefold()
                                                       for other in accounts))
        name = chosen["name"]
        listing = lists.read(api, "listAccounts", params={"name": name},
                              until=lambda entries: any(isinstance(entry, dict)
                                                        and entry.get("publicId") == chosen.get("publicId")
                                                        for entry in entries))
    exchange = listing.first
    checks.accepted(exchange, "the name filter")
    envelope.entries(exchange, allow_empty=True)
    for index, entry in enumerate(listing.entries):
        listed = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(listed, str) or name.casefold() not in listed.casefold():
            checks.fail("every account the name filter returns has a name holding the filter's name",
                        f"a name holding {name!r}", f"listed account {index} named {listed!r}", exchange)
    listed_ids = [entry.get("publicId") for entry in listing.entries if isinstance(entry, dict)]
    if chosen.get("publicId") not in listed_ids and not listing.complete:
        pytest.skip(f"the account named {name!r} was not among the filtered accounts read ({listing.note})")
    checks.contains(listed_ids, chosen.get("publicId"), f"the account named {name!r} is among the filtered accounts",
                    exchange, where="data[].publicId")


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
    listing = lists.read(api, "listAccounts", until=lambda entries: any(
        isinstance(entry, dict) and entry.get("isDefault") is True for entry in entries))
    resources.require(listing.first, "list accounts")
    defaults = [entry.get("publicId") for entry in listing.entries
                if isinstance(entry, dict) and entry.get("isDefault") is True]
    if not defaults:
        pytest.skip(f"the unfiltered account list shows no default account in what could be read ({listing.note})")
    exchange = api.call("listAccounts", params={"isDefault": True})
    checks.accepted(exchange, "isDefault=true")
    listed = [entry.get("publicId") for _, entry in envelope.entries(exchange, allow_empty=True)]
    checks.contains(listed, defaults[0], "the default account is listed by isDefault=true", exchange,
                    where="data[].publicId")


@pytest.mark.requirement("END-08")
@pytest.mark.parametrize("live", (True, False))
def test_account_live_filter(api, live):
    """GET /accounts?live= is accepted and lists Accounts; entries that carry live match it."""
    exchange = api.call("listAccounts", params={"live": live})
    checks.accepted(exchange, f"live={str(live).lower()}")
    for where, entry in envelope.entries(exchange):
        checks.conforms(entry, "account.json", exchange, where=where)
        if "live" in entry:
            checks.equals(entry["live"], live, f"{where}.live matches the filter", exchange)


# ------------------------------------------------------------------ wallets


@pytest.mark.requirement("END-10")
def test_create_wallet_returns_a_wallet_without_internal_id(samples):
    """POST /virtual-accounts answers with the new Wallet, without `_id`."""
    exchange = samples("createWallet")
    checks.conforms(envelope.data_is_object(exchange), "wallet.json", exchange, pointer="#/$defs/created")


@pytest.mark.requirement("END-11")
def test_created_wallet_has_the_requested_category(samples):
    """A created wallet has the requested category."""
    exchange = samples("createWallet")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("category"), exchange.request_body["category"], "data.category is the requested one",
                  exchange)


@pytest.mark.requirement("END-12")
def test_created_wallet_has_the_requested_name(samples):
    """A created wallet has the requested accountName."""
    exchange = samples("createWallet")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("accountName"), exchange.request_body["accountName"],
                  "data.accountName is the requested one", exchange)


@pytest.mark.requirement("END-13")
@pytest.mark.parametrize("left_out", ("accountName", "currency"))
def test_observe_wallet_without_optional_looking_field(resources, run_id, observe, left_out):
    """Records whether a secondary wallet is created without accountName, or without currency."""
    body = bodies.wallet(run_id)
    del body[left_out]
    exchange = resources.create_wallet(body)
    data = exchange.data if exchange.ok and isinstance(exchange.data, dict) else {}
    observe("END-13", left_out=left_out, status=exchange.status, created=exchange.ok,
            **{f"{left_out}_shown": data.get(left_out)} if exchange.ok else {})


@pytest.mark.requirement("END-14")
def test_wallet_list_is_paged_wallets(samples):
    """GET /virtual-accounts answers an array of Wallet list entries with meta.pagination."""
    paged_list(samples("listWallets"), "END-14", "wallet.json", pointer="#/$defs/list-entry")


@pytest.mark.requirement("END-15")
def test_observe_list_filters(api, samples, observe):
    """Records which query filters GET /virtual-accounts and GET /transactions honour."""
    wallet = samples.wallet()
    candidates: dict[str, list[tuple[str, Any]]] = {
        "listWallets": [(name, wallet.get(name)) for name in ("category", "accountNumber", "publicId", "accountName")],
    }
    try:
        listed = samples("listTransactions").data
    except UNAVAILABLE:
        listed = None
    first = listed[0] if isinstance(listed, list) and listed and isinstance(listed[0], dict) else {}
    candidates["listTransactions"] = [(name, first.get(name)) for name in
                                      ("status", "entry", "reference", "source", "sourceType", "destination")]
    seen: dict[str, dict[str, Any]] = {}
    for operation_id, filters in candidates.items():
        base = api.call(operation_id)
        base_entries = base.data if isinstance(base.data, list) else []
        total = (base.meta.get("pagination") or {}).get("totalCount")
        seen[operation_id] = {"unfiltered_totalCount": total}
        for name, value in filters:
            if value is None:
                continue
            exchange = api.call(operation_id, params={name: value})
            entries = exchange.data if isinstance(exchange.data, list) else []
            seen[operation_id][name] = {
                "status": exchange.status,
                "totalCount": (exchange.meta.get("pagination") or {}).get("totalCount"),
                "entries": len(entries),
                "all_entries_match": all(isinstance(entry, dict) and entry.get(name) == value for entry in entries),
            }
            seen[operation_id][name]["honoured"] = bool(exchange.ok and seen[operation_id][name]["all_entries_match"]
                                                        and len(entries) < len(base_entries))
    observe("END-15", filters=seen)


@pytest.mark.requirement("END-16")
def test_read_returns_the_wallet_named_in_the_path(api, resources):
    """GET /virtual-accounts/{walletId} returns the wallet with that publicId (checked on two new wallets)."""
    for wallet in (resources.wallet(), resources.wallet()):
        exchange = api.call("getWallet", {"walletId": wallet["publicId"]})
        checks.accepted(exchange, "reading an open wallet")
        data = envelope.data_is_object(exchange)
        checks.conforms(data, "wallet.json", exchange)
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
    checks.conforms(envelope.data_is_object(exchange), "collection-account.json", exchange)


@pytest.mark.requirement("END-21")
@pytest.mark.parametrize("left_out", ("destination", "accountName", "amount", "expireIn"))
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
    assert "reference" not in body
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.accepted(exchange, "a collection account without reference")


# ------------------------------------------------------------------ bank accounts and banks


@pytest.mark.requirement("END-25")
def test_validate_account_returns_a_bank_account_with_resolved_name(samples):
    """POST /transactions/validate-account answers with a Bank account carrying a resolved accountName."""
    exchange = samples("validateAccount")
    data = envelope.data_is_object(exchange)
    checks.conforms(data, "bank-account.json", exchange)
    name = data.get("accountName")
    if not isinstance(name, str) or not name.strip():
        checks.fail("data.accountName is the resolved holder name", "a non-empty string", name, exchange)


@pytest.mark.requirement("END-26")
@pytest.mark.parametrize("left_out", ("accountNumber", "bankCode"))
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
        checks.conforms(entry, "bank.json", exchange, where=where)


@pytest.mark.requirement("END-38")
def test_bank_list_has_no_pagination(samples):
    """GET /transactions/banks carries no pagination object."""
    envelope.pagination_presence(samples("listBanks"))


# ------------------------------------------------------------------ transactions


@pytest.mark.requirement("END-27")
def test_transaction_list_is_paged_transactions(samples):
    """GET /transactions answers an array of Transaction with meta.pagination."""
    paged_list(samples("listTransactions"), "END-27", "transaction.json")


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
    data = envelope.data_is_object(exchange)
    checks.conforms(data, "transaction.json", exchange, pointer="#/$defs/verified")


@pytest.mark.requirement("END-30")
def test_verify_of_unknown_reference_is_refused(api, run_id):
    """GET /transactions/{reference}/verify with a reference that names no transaction is refused."""
    exchange = api.call("verifyTransaction", {"reference": f"{run_id}unknown{secrets.token_hex(4)}"})
    checks.refused(exchange, "verifying a reference that does not exist")


@pytest.mark.requirement("END-31")
def test_transfer_is_returned_as_a_debit(samples):
    """A wallet-to-wallet transfer is returned with entry `debit`."""
    exchange = samples("transfer")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("entry"), TRANSFER_ACCEPTED["entry"]["const"], "data.entry of a transfer", exchange)


@pytest.mark.requirement("END-32")
def test_transfer_destination_type_is_virtual_account(samples):
    """A wallet-to-wallet transfer is returned with destinationType `VirtualAccount`."""
    exchange = samples("transfer")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("destinationType"), TRANSFER_ACCEPTED["destinationType"]["const"],
                  "data.destinationType of a wallet-to-wallet transfer", exchange)


@pytest.mark.requirement("END-33")
def test_bank_transfer_destination_type_is_bank_account(samples):
    """A bank transfer is returned with destinationType `BankAccount`."""
    exchange = samples("bankTransfer")
    data = envelope.data_is_object(exchange)
    checks.equals(data.get("destinationType"), BANK_TRANSFER_ACCEPTED["destinationType"]["const"],
                  "data.destinationType of a bank transfer", exchange)


@pytest.mark.requirement("END-34")
def test_bank_transfer_fee_is_a_non_negative_integer(samples):
    """A bank transfer's fee is an integer of 0 or more."""
    exchange = samples("bankTransfer")
    money.fee(envelope.data_is_object(exchange), exchange)


@pytest.mark.requirement("END-35")
def test_bank_transfer_goes_to_the_requested_account(samples):
    """A bank transfer's destinationData names the requested accountNumber and bankCode."""
    exchange = samples("bankTransfer")
    data = envelope.data_is_object(exchange)
    destination = data.get("destinationData") if isinstance(data.get("destinationData"), dict) else {}
    for name in ("accountNumber", "bankCode"):
        checks.equals(destination.get(name), exchange.request_body[name],
                      f"data.destinationData.{name} is the requested one", exchange)


@pytest.mark.money
@pytest.mark.requirement("END-36")
def test_observe_transfers_without_narration(api, resources, observe):
    """Records whether a wallet transfer and a bank transfer without narration are accepted (funded wallets)."""
    source = resources.funded_wallet(money.funding("transfer") + money.funding("bankTransfer"))
    destination = resources.wallet()
    number, code = resources.external_account()
    made = {
        "transfer": bodies.transfer(source["publicId"], destination["publicId"]),
        "bankTransfer": bodies.bank_transfer(source["publicId"], number, code),
    }
    seen = {}
    for operation_id, body in made.items():
        del body["narration"]
        exchange = api.call(operation_id, json_body=body)
        data = exchange.data if exchange.ok and isinstance(exchange.data, dict) else {}
        seen[operation_id] = {"status": exchange.status, "accepted": exchange.ok,
                              **({"narration_shown": data.get("narration")} if exchange.ok else {})}
    observe("END-36", without_narration=seen)


PAGING_CANDIDATES = ({"page": 2}, {"perPage": 1}, {"per_page": 1}, {"limit": 1}, {"pageSize": 1}, {"size": 1},
                     {"offset": 1}, {"skip": 1})


@pytest.mark.requirement("END-39")
@pytest.mark.parametrize("operation_id", contract.paginated_operations())
def test_observe_paging_parameters(api, resources, operation_id, observe):
    """Records which common paging parameters change meta.pagination or the entries of a list."""
    if operation_id == "listWallets":
        resources.wallet()
        resources.wallet()  # so the list holds more than one entry
    base = api.call(operation_id)
    base_data = base.data if isinstance(base.data, list) else []
    seen: dict[str, Any] = {"unpaged": {"status": base.status, "pagination": base.meta.get("pagination"),
                                        "entries": len(base_data)}}
    for params in PAGING_CANDIDATES:
        exchange = api.call(operation_id, params=params)
        data = exchange.data if isinstance(exchange.data, list) else []
        first = data[0].get("publicId") if data and isinstance(data[0], dict) else None
        base_first = base_data[0].get("publicId") if base_data and isinstance(base_data[0], dict) else None
        seen["&".join(f"{name}={value}" for name, value in params.items())] = {
            "status": exchange.status,
            "pagination": exchange.meta.get("pagination"),
            "entries": len(data),
            "changed_the_page": exchange.ok and (exchange.meta.get("pagination") != base.meta.get("pagination")
                                                 or len(data) != len(base_data) or first != base_first),
        }
    observe("END-39", operation=operation_id, tried=seen)


@pytest.mark.money
@pytest.mark.requirement("END-40")
def test_wallet_transfer_with_the_documented_body_is_accepted(api, resources):
    """A wallet-to-wallet transfer with every documented body field is accepted."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(money.funding("transfer"))  # room for a fee, which is not shown
    destination = resources.wallet()
    body = bodies.transfer(source["publicId"], destination["publicId"], amount)
    exchange = api.call("transfer", json_body=body)
    checks.accepted(exchange, "a funded wallet-to-wallet transfer of the minimum amount")


@pytest.mark.money
@pytest.mark.requirement("END-41")
def test_bank_transfer_to_a_validated_account_is_accepted(api, resources):
    """A bank transfer to a validated account, with every documented body field, is accepted."""
    amount = contract.minimum_amount("bankTransfer")
    number, code = resources.validated_account()
    source = resources.funded_wallet(money.funding("bankTransfer"))  # room for the fee
    exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source["publicId"], number, code, amount))
    checks.accepted(exchange, "a funded bank transfer of the minimum amount to a validated account")
