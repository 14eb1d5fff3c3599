"""The innermost layer: a request handed to httpx's own transport."""

from __future__ import annotations

import httpx


class ClientTransport(httpx.BaseTransport):
    """A request sent through a plain httpx.Client, unchanged (`send(stream=True)`), so that httpx chooses the transport
    as it chooses one for any client: its connection pool (keep-alive as the client's limits say), the environment's
    HTTP(S)_PROXY and NO_PROXY, a transport given instead. Its connections stop at the answer's deadline
    (network.py). That client shares its cookie jar with the client the layers serve, so that every answer's cookies
    are kept as they come."""

    def __init__(self, client: httpx.Client) -> None:
        # Imported as httpx imports httpcore, when a client is built: httpcore imports anyio, a pytest plugin's
        # package, which a process that has not started pytest yet (the installed command) must not import.
        from wallet_conformance.client.transports import network

        self.client = network.bounded(client)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.client.send(request, stream=True)

    def proxied(self, url: httpx.URL) -> bool:
        """Whether a request for `url` goes through a proxy the environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY;
        NO_PROXY)."""
        from wallet_conformance.client.transports import network

        return network.proxied(self.client, url)

    def close(self) -> None:
        self.client.close()
