"""HTTP/1.1 on raw sockets, for the hostile self-tests of the proxy (selftests/test_proxy_hostile.py) and of the
client's transports (selftests/test_client_transports.py): an upstream that logs every request it reads, as it read
it, and answers the exact bytes a script gives; and a client that sends exact bytes and reads whatever comes back,
within a deadline."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

CLOSE = b""  # a script's answer: close the connection without answering
DEADLINE = 10.0  # seconds any raw exchange may take: a proxy that hangs fails the test, never holds it


@dataclass(frozen=True)
class Received:
    """One request as the upstream read it: on which connection, its head and body as they came."""

    connection: int
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


def answer(status: int, body: bytes, *headers: str) -> bytes:
    """An answer's bytes with a Content-Length that matches its body."""
    head = [f"HTTP/1.1 {status} X", f"content-length: {len(body)}", "content-type: application/json", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


@dataclass
class RawUpstream:
    """A keep-alive upstream on a raw socket: `script(request)` gives the bytes to answer (CLOSE: hang up), or an
    iterable of them, sent one by one as it gives them (a trickle). Without `reads_bodies` it answers on a request's
    head, and what follows the head is read as the next request (an upstream that answers before the body)."""

    script: Callable[[Received], bytes | Iterable[bytes]]
    reads_bodies: bool = True
    received: list[Received] = field(default_factory=list)
    _server: socket.socket = field(init=False)
    _connections: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> RawUpstream:
        self._server = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, name="raw-upstream", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}/v1"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self._connections += 1
                number = self._connections
            threading.Thread(target=self._serve, args=(connection, number), daemon=True).start()

    def _serve(self, connection: socket.socket, number: int) -> None:
        buffered = b""
        with connection:
            connection.settimeout(DEADLINE)
            while True:
                try:
                    while b"\r\n\r\n" not in buffered:
                        data = connection.recv(65536)
                        if not data:
                            return
                        buffered += data
                    head, buffered = buffered.split(b"\r\n\r\n", 1)
                    line, *fields = head.decode("latin-1").split("\r\n")
                    method, target, _ = line.split(" ", 2)
                    headers = {
                        name.strip().lower(): value.strip()
                        for name, _, value in (field_.partition(":") for field_ in fields)
                    }
                    length = int(headers.get("content-length", "0")) if self.reads_bodies else 0
                    while len(buffered) < length:
                        data = connection.recv(65536)
                        if not data:
                            return
                        buffered += data
                    body, buffered = buffered[:length], buffered[length:]
                except (OSError, ValueError):
                    return
                request = Received(number, method, target, headers, body)
                with self._lock:
                    self.received.append(request)
                reply = self.script(request)
                if reply == CLOSE:
                    return
                try:
                    for chunk in [reply] if isinstance(reply, bytes) else reply:
                        connection.sendall(chunk)
                except OSError:  # the proxy hung up: what it read, it read
                    return


def exchange(port: int, data: bytes, *, until: bytes | None = None) -> bytes:
    """Send `data` to the proxy on a new connection and read what comes back: until the connection closes, `until`
    is read, or DEADLINE passes (what came by then)."""
    received = b""
    deadline = time.monotonic() + DEADLINE
    with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as connection:
        connection.sendall(data)
        while time.monotonic() < deadline and not (until and until in received):
            connection.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = connection.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            received += chunk
    return received
