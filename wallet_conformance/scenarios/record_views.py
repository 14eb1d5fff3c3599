"""Records in every answer that shows them: a wallet created, read, found in the wallet list and closed; transfers
made one after another from one wallet, each verified and found in the transaction list. What the answers show is
judged by the registry of records (judge/record_registry.py)."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge.identifiers import identifier
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.resources import Resources


def _shows(entries: list[Any], public_ids: set[str]) -> bool:
    """Whether list entries show every one of `public_ids`."""
    return public_ids <= {
        entry["publicId"] for entry in entries if isinstance(entry, dict) and isinstance(entry.get("publicId"), str)
    }


def wallet_everywhere(api: ApiClient, resources: Resources) -> list[Exchange]:
    """A new wallet's create answer, its read, the wallet list read until it shows the wallet (held still meanwhile),
    and its close."""
    created = resources.create_wallet(bodies.wallet(resources.run_id))
    public_id = identifier(resources.require(created, "create a wallet"), "publicId", "the created wallet")
    read = api.call("getWallet", {"walletId": public_id})
    with resources.wallet_list_still():
        listing = lists.read(api, "listWallets", until=lambda entries: _shows(entries, {public_id}))
    return [created, read, *listing.exchanges, resources.close_wallet(public_id)]


def transfers_everywhere(api: ApiClient, resources: Resources, count: int) -> list[Exchange]:
    """`count` wallet transfers made one after another from one new wallet to another: the wallets' creation, each
    transfer's answer and verify, and the transaction list read until it shows them all."""
    start = len(api.exchanges)
    source = resources.funded_wallet(count * money.funding("transfer"))["publicId"]
    destination = resources.wallet()["publicId"]
    made = api.exchanges[start:]
    body = bodies.transfer(source, destination, contract.minimum_amount("transfer"))
    answers = [api.call("transfer", json_body=body) for _ in range(count)]
    sent = [money.accepted_transfer(answer, "make a wallet transfer") for answer in answers]
    verified = [resources.verify(transaction["reference"]) for transaction in sent]
    public_ids = {transaction["publicId"] for transaction in sent if isinstance(transaction.get("publicId"), str)}
    listing = lists.read(api, "listTransactions", until=lambda entries: _shows(entries, public_ids))
    return [*made, *answers, *verified, *listing.exchanges]
