"""The proxy's data plane, candidate by candidate (docs/proxy.md, "The data plane"; docs/performance.md, "The
proxy"): what each does with the hostile upstream answers of selftests/test_proxy_hostile.py, and how many requests
a second it carries to one reference process for 50 concurrent clients.

Candidates: the proxy's own upstream client (proxy/upstream.py, h11 over asyncio streams); httpcore's connection
pool (what httpx's transport is); and, given `--mitmdump PATH`, mitmproxy's reverse mode as a whole proxy. The first
two are asked as clients; mitmdump is put in front of the same raw upstream and asked through. Not a test: it prints
what each did.

    .venv/bin/python scripts/data_plane_candidates.py [--clients 50] [--seconds 10] [--mitmdump PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpcore
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from selftests.raw_http import CLOSE, RawUpstream, Received, answer
from wallet_conformance.proxy.upstream import Upstream

READ = "/transactions/banks"
TRANSFER = b'{"source":"vba-1","destination":"vba-2","amount":10000,"currency":"NGN","narration":"x"}'
# (what the first request is, the bytes the upstream answers it with): an answer after it is someone else's
CROSSING = {
    "more bytes than Content-Length": ("GET", answer(200, b"ok") + answer(200, b'"INJECTED"')),
    "a body after HEAD": ("HEAD", answer(200, b'"INJECTED"')),
    "an answer after a 204": ("GET", b"HTTP/1.1 204 X\r\ncontent-length: 0\r\n\r\n" + answer(200, b'"INJECTED"')),
}

# One request through a candidate: (method, path, body) -> (status, body), or raises on a failed exchange.
Ask = Callable[[str, str, bytes], Awaitable[tuple[int, bytes]]]


Make = Callable[[str, str], tuple[Ask, Callable[[], Awaitable[None]]]]  # (base URL, key) -> (ask, close)


def own(base: str, key: str) -> tuple[Ask, Callable[[], Awaitable[None]]]:
    upstream = Upstream(base, ssl.create_default_context(), timeout=5)
    host = base.split("/")[2].encode()

    async def ask(method: str, path: str, body: bytes) -> tuple[int, bytes]:
        headers = [(b"host", host), (b"x-service-key", key.encode()), (b"content-length", str(len(body)).encode())]
        got = await upstream.send(method.encode(), b"/v1" + path.encode(), headers, body)
        return got.status, b"".join([chunk async for chunk in got.chunks])

    return ask, upstream.close


def pool(base: str, key: str) -> tuple[Ask, Callable[[], Awaitable[None]]]:
    connections = httpcore.AsyncConnectionPool(max_connections=64)

    async def ask(method: str, path: str, body: bytes) -> tuple[int, bytes]:
        got = await connections.request(method, base + path, content=body, headers={"x-service-key": key})
        return got.status, got.content

    return ask, connections.aclose


def through(proxy: str, key: str) -> tuple[Ask, Callable[[], Awaitable[None]]]:
    client = httpx.AsyncClient(
        base_url=proxy, timeout=5, headers={"x-service-key": key}, limits=httpx.Limits(max_connections=1)
    )

    async def ask(method: str, path: str, body: bytes) -> tuple[int, bytes]:
        got = await client.request(method, path, content=body)
        return got.status_code, got.content

    return ask, client.aclose


async def attempt(ask: Ask, method: str, path: str, body: bytes = b"") -> str:
    try:
        status, content = await ask(method, path, body)
    except Exception as error:  # what the candidate made of it is the finding
        return f"{type(error).__name__}"
    return f"{status} {content[:20]!r}"


async def hostile(make: Make) -> list[str]:
    """What one client candidate does with each hostile case: a transfer the upstream read and left unanswered on a
    kept connection (how many times it reached the upstream), and each answer that does not end cleanly (what the
    next request on the same candidate got)."""

    def unanswered_post(request: Received) -> bytes:
        return CLOSE if request.method == "POST" else answer(200, b'"banks"')

    with RawUpstream(unanswered_post) as upstream:
        ask, close = make(upstream.base_url, "")
        await attempt(ask, "GET", READ)
        got = await attempt(ask, "POST", "/transactions/transfer", TRANSFER)
        await asyncio.sleep(0.3)
        await close()
        sent = sum(request.method == "POST" for request in upstream.received)
    lines = [f"a transfer read and left unanswered: the client got {got}; the upstream received it {sent}x"]
    for case, (method, bytes_) in CROSSING.items():
        with RawUpstream(
            lambda request, bytes_=bytes_: bytes_ if request.target.endswith("/first") else answer(200, b'"own answer"')
        ) as upstream:
            ask, close = make(upstream.base_url, "")
            await attempt(ask, method, "/first")
            got = await attempt(ask, "GET", "/second")
            await close()
        lines.append(f"{case}: the next request got {got}")
    return lines


def mitm(mitmdump: str) -> list[str]:
    """The same cases through mitmdump in reverse mode, each before its own raw upstream."""
    lines = []
    cases = {"a transfer read and left unanswered": ("POST", b""), **CROSSING}
    for case, (method, bytes_) in cases.items():

        def script(request: Received, method: str = method, bytes_: bytes = bytes_) -> bytes:
            if method == "POST":
                return CLOSE if request.method == "POST" else answer(200, b'"banks"')
            return bytes_ if request.target.endswith("/first") else answer(200, b'"own answer"')

        with RawUpstream(script) as upstream, mitmdump_before(mitmdump, upstream.base_url) as proxied:
            ask, close = through(proxied, "")

            async def run(ask: Ask = ask, close: Callable[[], Awaitable[None]] = close, method: str = method) -> str:
                if method == "POST":
                    await attempt(ask, "GET", READ)
                    got = await attempt(ask, "POST", "/transactions/transfer", TRANSFER)
                else:
                    await attempt(ask, method, "/first")
                    got = await attempt(ask, "GET", "/second")
                await close()
                return got

            got = asyncio.run(run())
            time.sleep(0.3)
            sent = sum(request.method == "POST" for request in upstream.received)
        lines.append(
            f"{case}: the client got {got}" + (f"; the upstream received it {sent}x" if method == "POST" else "")
        )
    return lines


class mitmdump_before:
    def __init__(self, mitmdump: str, upstream: str) -> None:
        self.port = free_port()
        origin = upstream.rsplit("/v1", 1)[0]
        self.process = subprocess.Popen(
            [
                mitmdump,
                "--mode",
                f"reverse:{origin}",
                "--listen-host",
                "127.0.0.1",
                "--listen-port",
                str(self.port),
                "-q",
            ],
            stdout=subprocess.DEVNULL,
        )

    def __enter__(self) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc: object) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def load(asks: list[Ask], seconds: float) -> int:
    """Requests done by one client per `asks` entry, each asking as fast as its answers come, for `seconds`."""
    done = 0
    deadline = time.monotonic() + seconds

    async def client(ask: Ask) -> None:
        nonlocal done
        while time.monotonic() < deadline:
            status, _ = await ask("GET", READ, b"")
            assert status == 200, status
            done += 1

    await asyncio.gather(*(client(ask) for ask in asks))
    return done


def rate(make: Make, base: str, key: str, clients: int, seconds: float, *, shared: bool) -> tuple[float, float]:
    """Requests a second, and this process's CPU per request (ms), for `clients` concurrent clients: through one
    instance of the candidate (`shared`: as the proxy uses its upstream client), or one each (as clients are)."""

    async def run() -> int:
        made = [make(base, key) for _ in range(1 if shared else clients)]
        try:
            return await load([made[index % len(made)][0] for index in range(clients)], seconds)
        finally:
            for _, close in made:
                await close()

    before = time.process_time()
    done = asyncio.run(run())
    return done / seconds, (time.process_time() - before) / done * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--mitmdump", help="mitmproxy's mitmdump, to measure its reverse mode too")
    arguments = parser.parse_args()
    key = f"test_sk_{secrets.token_hex(20)}"
    for name, make in (("own (proxy/upstream.py)", own), (f"httpcore {httpcore.__version__} pool", pool)):
        print(f"{name}:")
        for line in asyncio.run(hostile(make)):
            print(f"  {line}")
    if arguments.mitmdump:
        print("mitmdump reverse mode:")
        for line in mitm(arguments.mitmdump):
            print(f"  {line}")
    port = free_port()
    reference = subprocess.Popen(
        [sys.executable, "-m", "wallet_conformance.reference", "--port", str(port), "--secret-key", key],
        stdout=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(base + READ, headers={"x-service-key": key}, timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        clients, seconds = arguments.clients, arguments.seconds
        direct, _ = rate(through, base, key, clients, seconds, shared=False)
        print(f"{clients} clients, each its own httpx client, direct to the reference: {direct:.0f}/s")
        for name, make in (("own", own), ("httpcore", pool)):
            per_second, cpu = rate(make, base, key, clients, seconds, shared=True)
            print(
                f"{clients} clients through one {name} pool, direct to the reference: {per_second:.0f}/s "
                f"({per_second / direct:.0%}), {cpu:.2f} ms of CPU per request (the load's included)"
            )
        if arguments.mitmdump:
            with mitmdump_before(arguments.mitmdump, base) as proxied:
                per_second, _ = rate(through, proxied, key, clients, seconds, shared=False)
            print(
                f"{clients} clients, each its own httpx client, through mitmdump's reverse mode: {per_second:.0f}/s "
                f"({per_second / direct:.0%})"
            )
    finally:
        reference.terminate()
        reference.wait(timeout=10)
    print(json.dumps({"load average": os.getloadavg()}))


if __name__ == "__main__":
    main()
