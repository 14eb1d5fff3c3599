"""A collection account after its creation, which the document does not show (it has no operation that reads a
collection account): how it shows when read as a wallet by its publicId, and whether the wallet list holds it."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange

ON_CREATION = ("status", "active", "expiration")
STATE_FIELDS = ("status", "active")


def seen_after_creation(api: ApiClient, created: Exchange) -> dict[str, Any]:
    """What a new collection account showed on creation, what GET /virtual-accounts/{publicId} answers for it (when
    it has a publicId), and whether the first page of the wallet list holds its account number."""
    data = created.data if isinstance(created.data, dict) else {}
    facts: dict[str, Any] = {"on_creation": {name: data.get(name) for name in ON_CREATION}}
    public_id = data.get("publicId")
    if isinstance(public_id, str):
        read = api.call("getWallet", {"walletId": public_id})
        shown = read.data if isinstance(read.data, dict) else {}
        facts["GET /virtual-accounts/{publicId}"] = {
            "status": read.status,
            **{name: shown.get(name) for name in STATE_FIELDS if name in shown},
        }
    listed = api.call("listWallets")
    entries = listed.data if isinstance(listed.data, list) else []
    numbers = [entry.get("accountNumber") for entry in entries if isinstance(entry, dict)]
    facts["listed_among_wallets_on_first_page"] = data.get("accountNumber") in numbers
    facts["note"] = "the document has no operation that reads a collection account"
    return facts
