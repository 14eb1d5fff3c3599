"""Running the reference: uvicorn in a daemon thread, on a loopback port."""

from __future__ import annotations

import secrets
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import astuple
from types import TracebackType

import uvicorn

from wallet_conformance.reference.app import create_app
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.latency import with_latency
from wallet_conformance.reference.sandbox import DUE_PATH, FUND_PATH
from wallet_conformance.reference.service import Service
from wallet_conformance.reference.store import SecretKeys, Store
from wallet_conformance.reference.variants import Variant, VariantSet
from wallet_conformance.reference.webhooks import Webhooks

START_TIMEOUT_SECONDS = 10.0


class ReferenceServer:
    """The reference implementation of the API, in memory, served over HTTP.

        with ReferenceServer(faults=["sixth-primary-accepted"]) as server:
            httpx.get(f"{server.base_url}/virtual-accounts", headers={"x-service-key": server.secret_key})

    `secret_key` is the test-mode key (records live=false), `live_secret_key` the live-mode one;
    both are random unless `secret_key` is given. A second business, kept apart from the first, has
    its own account and keys: `second_secret_key` (test mode; random unless given) and
    `second_live_secret_key`. Transfers settle `settle_delay` seconds after
    acceptance (None: only through `settle_url`). `funding_url` records inbound payments.
    `variants` take other legitimate readings of points the document leaves open (variants.py;
    names or `all`). `latency` seconds are slept before each answer, like the round trip to a remote target.
    """

    def __init__(
        self,
        secret_key: str | None = None,
        faults: Iterable[str | Fault] = (),
        settle_delay: float | None = 0.2,
        host: str = "127.0.0.1",
        port: int = 0,
        variants: Iterable[str | Variant] = (),
        latency: float = 0.0,
        second_secret_key: str | None = None,
    ) -> None:
        self.secret_key = secret_key or f"test_sk_{secrets.token_hex(20)}"
        self.live_secret_key = f"live_sk_{secrets.token_hex(20)}"
        self.second_secret_key = second_secret_key or f"test_sk_{secrets.token_hex(20)}"
        self.second_live_secret_key = f"live_sk_{secrets.token_hex(20)}"
        keys = SecretKeys(self.secret_key, self.live_secret_key, self.second_secret_key, self.second_live_secret_key)
        if len(set(astuple(keys))) < len(astuple(keys)):
            raise ValueError("the two businesses' secret keys must differ")
        self.faults = FaultSet(faults)
        self.variants = VariantSet(variants)
        self.settle_delay = settle_delay
        self.host = host
        self.port = port
        self.latency = latency
        store = Store(self.faults, keys, self.variants)
        self.service = Service(
            store=store,
            faults=self.faults,
            webhooks=Webhooks(store, self.faults),
            settle_delay=settle_delay,
            variants=self.variants,
        )
        self.app = with_latency(create_app(self.service), latency)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    @property
    def funding_url(self) -> str:
        return f"{self.origin}{FUND_PATH}"

    @property
    def due_url(self) -> str:
        return f"{self.origin}{DUE_PATH}"

    @property
    def settle_url(self) -> str:
        return f"{self.origin}/sandbox/settle"

    @property
    def deliveries_url(self) -> str:
        return f"{self.origin}/sandbox/deliveries"

    @property
    def reset_url(self) -> str:
        return f"{self.origin}/sandbox/reset"

    def start(self) -> ReferenceServer:
        """Serves in a daemon thread; returns once the server answers."""
        if self._thread is not None:
            raise RuntimeError("the reference server is already running")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on sockets whose proto says TCP, and without
        # it every keep-alive response waits ~40 ms for a delayed ACK.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_level="warning", access_log=False, lifespan="off", ws="none", http="h11", loop="asyncio"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=f"reference-server-{self.port}", daemon=True
        )
        self._thread.start()
        self._wait_until_up(sock)
        return self

    def _wait_until_up(self, sock: socket.socket) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self._thread is None or not self._thread.is_alive():
                sock.close()
                raise RuntimeError("the reference server stopped while starting")
            if self._server is not None and self._server.started:
                return
            time.sleep(0.005)
        self.stop()
        raise RuntimeError(f"the reference server did not start within {START_TIMEOUT_SECONDS} s")

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> ReferenceServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
