"""A network round trip for the reference: an ASGI middleware that sleeps before each answer.

With `latency` seconds, the bundled reference behaves like a target tens of milliseconds away, so the
suite's speed against a remote target can be measured on loopback (`--reference-latency`).
"""

from __future__ import annotations

import asyncio
from typing import Any

Scope = dict[str, Any]


class Latency:
    """Delays every HTTP request by `seconds` before the wrapped app sees it (concurrent requests overlap)."""

    def __init__(self, app: Any, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and self.seconds > 0:
            await asyncio.sleep(self.seconds)
        await self.app(scope, receive, send)


def with_latency(app: Any, seconds: float) -> Any:
    """`app` itself when `seconds` is 0, else `app` behind the delay."""
    return Latency(app, seconds) if seconds > 0 else app
