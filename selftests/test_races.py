"""Requests released together (world.concurrency.release): each over its own connection, sent but for its last byte
until every one is, then completed together; a sender that fails first stops the release with its own error."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.world import bodies
from wallet_conformance.world.concurrency import release

SENDERS = 4
LATE = 0.2  # seconds one sender starts after the others
JITTER = 0.05  # seconds by which the server's threads may note an arrival late (far less than LATE)
RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"


class Arrivals:
    """A loopback server answering every request `{}`, noting per connection when its headers and when the last byte
    of its body arrived."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.headers: list[float] = []
        self.last_bytes: list[float] = []
        self.connections = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.answer, args=(connection,), daemon=True).start()

    def answer(self, connection: socket.socket) -> None:
        with connection:
            received = self.read(connection, lambda data: b"\r\n\r\n" in data)
            if received is None:
                return
            self.headers.append(time.monotonic())
            head, body = received.split(b"\r\n\r\n", 1)
            length = next(
                int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
            )
            if self.read(connection, lambda data: len(data) >= length, body) is None:
                return  # the client gave the request up
            self.last_bytes.append(time.monotonic())
            connection.sendall(RESPONSE)

    @staticmethod
    def read(connection: socket.socket, enough: Callable[[bytes], bool], data: bytes = b"") -> bytes | None:
        """What the connection sent until `enough` of it came; None when it closed first."""
        while not enough(data):
            chunk = connection.recv(65536)
            if not chunk:
                return None
            data += chunk
        return data


@pytest.fixture
def arrivals() -> Iterator[Arrivals]:
    server = Arrivals()
    threading.Thread(target=server.serve, daemon=True).start()
    yield server
    server.listener.close()


def test_requests_are_held_by_their_last_byte_until_all_are_sent(arrivals):
    """No request completes before the last one's headers are sent, each over a connection of its own."""
    api = ApiClient(arrivals.base_url, "test-key", timeout=5)

    def send(number: int) -> Exchange:
        if number == 0:
            time.sleep(LATE)  # one sender late: the others wait for it
        return api.call("transfer", json_body=bodies.transfer("vba-1", "vba-2", narration=f"race {number}"))

    exchanges = release(api, send, SENDERS)
    api.close()
    assert [exchange.status for exchange in exchanges] == [200] * SENDERS
    assert arrivals.connections == SENDERS
    # Unreleased, the others would complete LATE before the late one's headers arrive.
    assert min(arrivals.last_bytes) > max(arrivals.headers) - JITTER


def test_a_sender_failing_before_the_release_stops_it_with_its_own_error(arrivals):
    """A sender that fails before its request is sent ends the release at once, with that error."""
    api = ApiClient(arrivals.base_url, "test-key", timeout=5)

    def send(number: int) -> Exchange:
        if number == 1:
            raise LookupError("no wallet to send from")
        return api.call("transfer", json_body=bodies.transfer("vba-1", "vba-2"))

    started = time.monotonic()
    with pytest.raises(LookupError, match="no wallet"):
        release(api, send, SENDERS)
    api.close()
    assert time.monotonic() - started < 2
    assert arrivals.last_bytes == []
