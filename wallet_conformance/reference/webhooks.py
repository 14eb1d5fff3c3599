"""Event deliveries to an account's webhooks (the document leaves events open; this is our format).

An event is POSTed as JSON to every URL of the account that owns the transaction:

    {"event": "transaction.credit" | "transfer.settled", "data": <Transaction>,
     "account": <account publicId>, "createdAt": <timestamp>}

signed with the header `x-wallet-signature: sha256=<hex HMAC-SHA256 of the raw body>`, keyed by the
account's secret key of the transaction's mode. For safety the reference delivers only to loopback
hosts; any other URL is recorded as `skipped`. Deliveries run in the background (2 s timeout) and
never hold up a request; every attempt is recorded for `GET /sandbox/deliveries`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import json
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from wallet_conformance.reference import serialize
from wallet_conformance.reference.faults import FaultSet
from wallet_conformance.reference.records import Transaction, now
from wallet_conformance.reference.store import Store
from wallet_conformance.reference.variants import Variant

SIGNATURE_HEADER = "x-wallet-signature"
# Under a variant: the bare Transaction is delivered, signed in this header.
BARE_SIGNATURE_HEADER = "x-signature"
TIMEOUT_SECONDS = 2.0


@dataclass
class Delivery:
    url: str
    event: str
    reference: str
    status: str  # "pending", "delivered" (2xx answer), "failed" (other answer or error), "skipped" (not loopback)
    statusCode: int | None = None
    error: str | None = None


def signature(body: bytes, key: str) -> str:
    return "sha256=" + hmac.new(key.encode(), body, hashlib.sha256).hexdigest()


def is_loopback(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False


class Webhooks:
    """Listens to the store and delivers its events."""

    def __init__(self, store: Store, faults: FaultSet) -> None:
        self.store = store
        self.faults = faults
        self.deliveries: list[Delivery] = []
        self._tasks: set[asyncio.Task[None]] = set()
        store.listeners.append(self.publish)

    def publish(self, event: str, transaction: Transaction) -> None:
        """Schedules one delivery per webhook of the transaction's account (called inside the event loop)."""
        account = transaction.account
        credential = self.store.credential_of(account, transaction.live)
        if not account.webhooks or credential is None:
            return
        record = serialize.transaction(transaction, self.faults)
        payload: Any = {
            "event": event,
            "data": record,
            "account": account.public_id,
            "createdAt": serialize.timestamp(now()),
        }
        header = SIGNATURE_HEADER
        if self.store.variants.on(Variant.WEBHOOK_BARE_TRANSACTION):
            payload, header = record, BARE_SIGNATURE_HEADER
        body = json.dumps(payload).encode()
        headers = {"content-type": "application/json", header: signature(body, credential.secret_key)}
        urls = [account.webhooks] if isinstance(account.webhooks, str) else account.webhooks
        for url in urls:
            delivery = Delivery(url=url, event=event, reference=transaction.reference, status="pending")
            self.deliveries.append(delivery)
            if not is_loopback(url):
                delivery.status = "skipped"
                delivery.error = "the reference delivers to loopback addresses only"
                continue
            task = asyncio.get_running_loop().create_task(self._deliver(delivery, body, headers))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _deliver(self, delivery: Delivery, body: bytes, headers: dict[str, str]) -> None:
        try:
            async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, trust_env=False) as client:
                response = await client.post(delivery.url, content=body, headers=headers)
            delivery.statusCode = response.status_code
            delivery.status = "delivered" if response.is_success else "failed"
        except Exception as error:  # a webhook's failure must never reach the service
            delivery.status = "failed"
            delivery.error = f"{type(error).__name__}: {error}"

    def listing(self) -> list[dict[str, Any]]:
        return [asdict(delivery) for delivery in self.deliveries]
