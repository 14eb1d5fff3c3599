"""httpx's connections made to stop at the answer's deadline (answer_deadline.py), and whether httpx sends a URL
through a proxy: the one place the client reaches past httpx's public API.

httpcore reads an answer's head with its per-read timeout on each read and passes over any number of 1xx answers,
so a target trickling its head, or sending 1xx answers forever, holds a request that only has a read timeout for
ever. httpcore's connection pools take a network backend (public: httpcore.ConnectionPool(network_backend=...)), but
httpx builds its pools itself, one per transport it chooses (its own, one per proxy the environment names); so the
backend is set on the pools a client built, right after it built them, before any connection is made
(selftests/test_client_transports.py fails if httpx or httpcore changes where these live).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable

import httpcore
import httpx

from wallet_conformance.client.transports.answer_deadline import cut

# httpcore's SOCKET_OPTION, spelled out: it lives in a private module of httpcore.
SocketOptions = Iterable[tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]]


class DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read, write and TLS handshake waits at most until the answer's deadline."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self.stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.stream.read(max_bytes, cut(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.stream.write(buffer, cut(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return DeadlineStream(
            self.stream.start_tls(ssl_context, server_hostname, cut(timeout, httpcore.ConnectTimeout))
        )

    def get_extra_info(self, info: str) -> object:
        return self.stream.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """`backend`'s connections, each a DeadlineStream, opened within the answer's deadline."""

    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self.backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: SocketOptions | None = None,
    ) -> httpcore.NetworkStream:
        stream = self.backend.connect_tcp(
            host, port, cut(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        return DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: SocketOptions | None = None
    ) -> httpcore.NetworkStream:
        stream = self.backend.connect_unix_socket(path, cut(timeout, httpcore.ConnectTimeout), socket_options)
        return DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self.backend.sleep(seconds)


def pools(client: httpx.Client) -> list[httpcore.ConnectionPool]:
    """The connection pools of the transports `client` chooses from (httpx's own; a transport given is not one)."""
    transports = [client._transport, *client._mounts.values()]
    return [transport._pool for transport in transports if isinstance(transport, httpx.HTTPTransport)]


def bounded(client: httpx.Client) -> httpx.Client:
    """`client`, whose connections stop at the answer's deadline: a DeadlineBackend set on each of its pools."""
    for pool in pools(client):
        backend = pool._network_backend  # an AttributeError here, not a silent hang, if httpcore renames it
        if not isinstance(backend, DeadlineBackend):
            pool._network_backend = DeadlineBackend(backend)
    return client


def proxied(client: httpx.Client, url: httpx.URL) -> bool:
    """Whether `client` sends a request for `url` through a proxy the environment names, as httpx decides it."""
    return client._transport_for_url(url) is not client._transport
