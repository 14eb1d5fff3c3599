"""A wallet transfer and a bank transfer side by side, from one wallet funded for both: what the observations
about both ways money leaves a wallet start from (a transfer without narration, what a pending transfer becomes)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge.observations import nested
from wallet_conformance.world import bodies, money
from wallet_conformance.world.resources import Resources

BANK_TRANSFER = "bankTransfer"


@dataclass(frozen=True)
class TransferPair:
    """A wallet funded for a wallet transfer and a bank transfer (each with room for its fee), a wallet to transfer
    to, and an external account to pay out to."""

    source: str
    destination: str
    account_number: str
    bank_code: str

    def body(self, operation_id: str) -> dict[str, Any]:
        """The body of the bank transfer (`bankTransfer`), else of the wallet transfer, of the smallest amount."""
        if operation_id == BANK_TRANSFER:
            return bodies.bank_transfer(self.source, self.account_number, self.bank_code)
        return bodies.transfer(self.source, self.destination)


def funded_for_both(resources: Resources) -> TransferPair:
    """A wallet funded for one wallet transfer and one bank transfer, a destination wallet, and the external
    account (the test cannot judge without a way to fund or an account the target resolves)."""
    source = resources.funded_wallet(money.funding("transfer") + money.funding(BANK_TRANSFER))
    destination = resources.wallet()
    number, code = resources.external_account()
    return TransferPair(source["publicId"], destination["publicId"], number, code)


def _followed(resources: Resources, exchange: Exchange, started: float) -> dict[str, Any]:
    """What became of one transfer: the status it was accepted with and the one it reached within --settle-timeout
    (or its refusal's status)."""
    data = exchange.data if exchange.ok and isinstance(exchange.data, dict) else {}
    reference = data.get("reference")
    if not isinstance(reference, str):
        return {"accepted": exchange.status}
    settled = money.settled_or_none(resources, reference)
    return {
        "status_on_acceptance": data.get("status"),
        "status_after": settled.get("status")
        if settled
        else f"still pending after {resources.settings.settle_timeout:g} s",
        "seconds_waited_so_far": round(time.monotonic() - started, 2),
        "verify_transactionStatus": nested(settled, "meta", "verify", "data", "data", "transactionStatus"),
    }


def pending_transfers_followed(api: ApiClient, resources: Resources) -> dict[str, dict[str, Any]]:
    """A wallet transfer and a bank transfer, made one after the other, then each followed to the status it reaches
    within --settle-timeout; by `wallet transfer` and `bank transfer`."""
    pair = funded_for_both(resources)
    made = {
        "wallet transfer": api.call("transfer", json_body=pair.body("transfer")),
        "bank transfer": api.call(BANK_TRANSFER, json_body=pair.body(BANK_TRANSFER)),
    }
    started = time.monotonic()
    return {name: _followed(resources, exchange, started) for name, exchange in made.items()}
