"""Events: an account holds webhooks set by update; deliveries are observed when a listener is given.

The tests change the account's webhooks only while holding the run's account-settings lock, add to the
webhooks the account already has (never remove the owner's), and put the original list back.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.conftest import own_account
from wallet_conformance import bodies, checks, contract
from wallet_conformance.client import ApiClient, Exchange, TargetError
from wallet_conformance.resources import Resources, poll

MAX_BODY = 1_000_000  # bytes of one delivery the listener keeps
LISTENER_GRACE = 60.0  # seconds the listener outlives the settle timeout at most, whatever happens
KIND_FIELDS = ("event", "type", "kind", "eventType", "event_type", "name")
SIGNATURE_WORDS = ("signature", "sign", "hmac", "digest")
HEX_RUN = re.compile(r"[0-9a-fA-F]{16,}")


def account_webhooks(api: ApiClient, resources: Resources, public_id: str | None = None) -> tuple[dict, Exchange]:
    """The own account (or the one with `public_id`) as GET /accounts lists it now, and the exchange."""
    exchange = api.call("listAccounts")
    accounts = resources.require(exchange, "list accounts")
    if public_id is None:
        return own_account(accounts), exchange
    for account in accounts if isinstance(accounts, list) else []:
        if isinstance(account, dict) and account.get("publicId") == public_id:
            return account, exchange
    return {}, exchange


@contextmanager
def webhooks_added(api: ApiClient, resources: Resources,
                   added: list[str]) -> Iterator[tuple[dict[str, Any], Exchange, list[str]]]:
    """Adds `added` to the own account's webhooks for the block (lock held), then puts the original list back.

    Yields the account as it was, the update's exchange and the list the update sent.
    """
    with resources.account_settings():
        account, _ = account_webhooks(api, resources)
        original = list(account.get("webhooks") or [])
        wanted = [url for url in original if url not in added] + added
        update = api.call("updateAccount", {"accountId": account["publicId"]}, json_body={"webhooks": wanted})
        try:
            yield account, update, wanted
        finally:
            restored = api.call("updateAccount", {"accountId": account["publicId"]}, json_body={"webhooks": original})
            if not restored.ok:
                print(f"\nwallet-conformance: could not restore the account's webhooks "
                      f"(HTTP {restored.status}); they were {original}")


# ------------------------------------------------------------------ EVT-01


@pytest.mark.requirement("EVT-01")
def test_webhooks_set_by_update_are_read_back(api, resources, run_id):
    """Webhooks set with PATCH /accounts/{accountId} are the account's webhooks in a later GET /accounts."""
    added = [f"https://{run_id}.conformance.invalid/hook", f"https://{run_id}.conformance.invalid/hook/second"]
    with webhooks_added(api, resources, added) as (account, update, wanted):
        checks.accepted(update, "EVT-01", "PATCH /accounts/{accountId} with webhooks")
        read, exchange = account_webhooks(api, resources, account["publicId"])
        if not read:
            checks.fail("EVT-01", "GET /accounts lists the updated account", account["publicId"], "not listed",
                        exchange)
        held = read.get("webhooks")
        checks.equals(sorted(held) if isinstance(held, list) else held, sorted(wanted), "EVT-01",
                      "the account holds the webhooks set by the update", exchange)


# ------------------------------------------------------------------ EVT-02: a listener for deliveries


class Listener:
    """A tiny HTTP server in a thread that records every request it gets; it stops by itself at the latest
    `lifetime` seconds after it started."""

    def __init__(self, host: str, port: int, lifetime: float) -> None:
        self.received: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 5  # seconds one connection may take

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(min(length, MAX_BODY)) if length else b""
                listener.record(self.command, self.path, list(self.headers.items()), raw)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_PUT = do_POST

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

        server_class = ThreadingHTTPServer
        if ":" in host:
            server_class = type("ThreadingHTTPServer6", (ThreadingHTTPServer,), {"address_family": socket.AF_INET6})
        self.server = server_class((host, port), Handler)
        self.server.daemon_threads = True
        self.host = host
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="webhook-listener", daemon=True)
        self._stopper = threading.Timer(lifetime, self.server.shutdown)
        self._stopper.daemon = True

    def record(self, method: str, path: str, headers: list[tuple[str, str]], raw: bytes) -> None:
        with self._lock:
            self.received.append({"method": method, "path": path, "headers": headers, "raw": raw})

    def deliveries(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.received)

    def __enter__(self) -> Listener:
        self._thread.start()
        self._stopper.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopper.cancel()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def url(self, run_id: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/{run_id}"


def parse_listen(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise pytest.UsageError(f"--webhook-listen must be HOST:PORT, got {value!r}")
    return host, int(port)


def shape(value: str) -> str:
    """A header value with long hex runs replaced by their length: the format without the value."""
    return HEX_RUN.sub(lambda found: f"<{len(found.group())} hex>", value)[:120]


def signed_with(raw: bytes, value: str, key: str) -> bool:
    """Whether a signature header holds the HMAC-SHA256 of the body keyed by `key` (hex, maybe after `=`)."""
    expected = hmac.new(key.encode(), raw, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(part.strip().lower(), expected) for part in re.split(r"[=,;\s]", value) if part)


def describe(delivery: dict[str, Any], references: set[str], key: str) -> dict[str, Any]:
    raw: bytes = delivery["raw"]
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = None
    headers = {name.lower(): value for name, value in delivery["headers"]}
    signatures = {name: value for name, value in headers.items() if any(word in name for word in SIGNATURE_WORDS)}
    text = raw.decode(errors="replace")
    return {
        "method": delivery["method"],
        "content_type": headers.get("content-type"),
        "kind": next((payload[name] for name in KIND_FIELDS if isinstance(payload, dict) and name in payload), None),
        "payload_keys": sorted(payload) if isinstance(payload, dict) else type(payload).__name__,
        "data_keys": sorted(payload["data"]) if isinstance(payload, dict) and isinstance(payload.get("data"), dict)
        else None,
        "header_names": sorted(headers),
        "signature_headers": {name: shape(value) for name, value in signatures.items()},
        "signed_hmac_sha256_with_secret_key": any(signed_with(raw, value, key) for value in signatures.values())
        if signatures else None,
        "about_this_test": any(reference in text for reference in references),
    }


@pytest.mark.requirement("EVT-02")
def test_webhook_deliveries_are_observed(api, resources, settings, target, run_id, observe):
    """What the target delivers to a registered webhook around a funding and a transfer (recorded, not judged)."""
    if not settings.webhook_listen:
        pytest.skip("deliveries are observed only with --webhook-listen HOST:PORT (and --webhook-public-url when "
                    "the target reaches the listener at another address)")
    host, port = parse_listen(settings.webhook_listen)
    amount = contract.minimum_amount("transfer")
    with Listener(host, port, lifetime=settings.settle_timeout + LISTENER_GRACE) as listener:
        url = settings.webhook_public_url or listener.url(run_id)
        with webhooks_added(api, resources, [url]) as (_, update, _):
            if not update.ok:
                raise TargetError(f"could not register the listener as a webhook (HTTP {update.status})\n"
                                  f"{update.describe()}")
            source = resources.funded_wallet(amount)
            destination = resources.wallet()
            sent = api.call("transfer", json_body=bodies.transfer(source["publicId"], destination["publicId"], amount))
            transaction = resources.require(sent, "transfer between two wallets of the run")
            reference = transaction.get("reference") if isinstance(transaction, dict) else None
            references = {value for value in (reference, source["publicId"], destination["publicId"]) if value}
            settled = resources.wait_settled(reference) if isinstance(reference, str) else None

            def about_the_transfer() -> bool:
                return any(reference and reference in item["raw"].decode(errors="replace")
                           for item in listener.deliveries())

            poll(about_the_transfer, settings.settle_timeout)
            received = listener.deliveries()
    described = [describe(item, references, target.secret_key) for item in received]
    examples: dict[str, dict[str, Any]] = {}
    for item in described:  # one example per kind of event
        examples.setdefault(str(item["kind"]), item)
    observe(
        "EVT-02",
        webhook="--webhook-public-url" if settings.webhook_public_url else "the listener's own address",
        transfer_settled=settled is not None,
        deliveries=len(described),
        about_this_test=sum(1 for item in described if item["about_this_test"]),
        kinds=sorted(examples),
        waited_seconds_at_most=settings.settle_timeout,
        examples=list(examples.values()),
    )
