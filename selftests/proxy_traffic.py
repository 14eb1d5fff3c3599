"""Traffic for the proxy's self-tests: a tour of every operation of the document, made by plain httpx as any client
would, and the bundled reference with a proxy in front of it, both in this process."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from wallet_conformance.client.redaction import Secrets, activate, deactivate
from wallet_conformance.proxy.service import Proxy, ProxyConfig
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.settings import DEFAULT_BANK_ACCOUNT
from wallet_conformance.world import bodies

SETTLE_DELAY = 0.05  # the reference's, in these runs: settlements land before the tour reads them back
WAIT = 30.0  # seconds the side judge may take to catch up with a tour (it runs when the CPU is free)


@contextmanager
def proxied(
    faults: Iterable[str] = (), variants: Iterable[str] = (), **config: Any
) -> Iterator[tuple[ReferenceServer, Proxy]]:
    """The reference (with `faults` and `variants`) and a proxy in front of it, on free loopback ports; the proxy's
    secrets its own, as `wallet-conformance proxy` makes them (no key an earlier run of this process learnt)."""
    secrets = Secrets()
    activate(secrets)
    try:
        with (
            ReferenceServer(faults=list(faults), variants=list(variants), settle_delay=SETTLE_DELAY) as reference,
            Proxy(ProxyConfig(upstream=reference.base_url, listen=("127.0.0.1", 0), **config)) as proxy,
        ):
            yield reference, proxy
    finally:
        deactivate(secrets)


def caught_up(proxy: Proxy) -> None:
    """Wait until the side judge has judged everything forwarded so far."""
    deadline = time.monotonic() + WAIT
    while proxy.side.done + proxy.side.dropped < proxy.forwarder.tally.forwarded:
        assert time.monotonic() < deadline, "the side judge did not catch up"
        time.sleep(0.01)


def tour(base_url: str, key: str, run_id: str = "cf0proxy0") -> None:
    """Every operation of the document at least once, as a client of the target would call them: accounts, wallets
    made, read, listed and closed, money in through the reference's funding hook (a path outside /v1, forwarded
    too), a collection account, a validated bank account, a wallet and a bank transfer, the transaction list and
    verify, the banks; and a few refusals (a reused collection reference, a transfer to a closed wallet, an unknown
    wallet, a wrong key, a body that is not JSON)."""
    origin = base_url.removesuffix("/v1")
    with httpx.Client(base_url=base_url, headers={"x-service-key": key}, timeout=10, trust_env=False) as client:

        def data(response: httpx.Response) -> Any:
            assert response.status_code < 300, (response.request.method, response.request.url, response.text)
            return response.json()["data"]

        account = data(client.get("/accounts"))[0]["publicId"]
        data(client.patch(f"/accounts/{account}", json=bodies.account_update(["https://hooks.example.com/w"])))
        source = data(client.post("/virtual-accounts", json=bodies.wallet(run_id, "primary")))["publicId"]
        destination = data(client.post("/virtual-accounts", json=bodies.wallet(run_id)))["publicId"]
        spare = data(client.post("/virtual-accounts", json=bodies.wallet(f"{run_id}s", "primary")))["publicId"]
        data(client.get(f"/virtual-accounts/{source}"))
        data(client.get("/virtual-accounts"))
        data(client.post(f"{origin}/sandbox/fund", json={"walletId": source, "amount": 10_000_000}))
        time.sleep(SETTLE_DELAY * 3)
        code = next(
            bank["bankCode"]
            for bank in data(client.get("/transactions/banks"))  # as world/bank_accounts.py
            if "bankCode" in bank and bank.get("active") is not False and bank.get("deletedAt") is None
        )
        data(client.post("/transactions/validate-account", json=bodies.validation(DEFAULT_BANK_ACCOUNT, code)))
        reference = bodies.collection_reference(12)
        data(client.post("/collection-accounts", json=bodies.collection_account(run_id, source, reference=reference)))
        client.post("/collection-accounts", json=bodies.collection_account(run_id, destination, reference=reference))
        moved = data(client.post("/transactions/transfer", json=bodies.transfer(source, destination, 150_000)))
        data(client.post("/transactions/transfer", json=bodies.transfer(source, destination, 160_000)))
        data(
            client.post(
                "/transactions/bank-transfer", json=bodies.bank_transfer(source, DEFAULT_BANK_ACCOUNT, code, 150_000)
            )
        )
        time.sleep(SETTLE_DELAY * 4)
        data(client.get("/transactions"))
        data(client.get(f"/transactions/{moved['reference']}/verify"))
        data(client.get(f"/virtual-accounts/{source}"))
        data(client.delete(f"/virtual-accounts/{spare}"))
        client.post("/transactions/transfer", json=bodies.transfer(source, spare, 170_000))  # to a closed wallet
        time.sleep(SETTLE_DELAY * 4)
        data(client.get("/transactions"))
        client.get("/virtual-accounts/vba-99999999")
        client.get("/transactions/banks", headers={"x-service-key": "sk_wrong_0000000000"})
        client.post("/virtual-accounts", content=b"{not json", headers={"content-type": "application/json"})


@contextmanager
def served(app: Any, **tls: Any) -> Iterator[str]:
    """An ASGI app served on a free loopback port, in a thread: its origin (https with uvicorn's `ssl_certfile` and
    `ssl_keyfile` in `tls`)."""
    import socket
    import threading

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(
        uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="off", ws="none", http="h11", loop="asyncio", **tls
        )
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.005)
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=5)
