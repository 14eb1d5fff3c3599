"""What every layer of the client's transports is: an httpx transport around the next one."""

from __future__ import annotations

import httpx


class Layer(httpx.BaseTransport):
    """A transport that handles a request by way of `inner`, and closes it when it is closed."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def close(self) -> None:
        self.inner.close()
