"""Time in the reference's answers: a network round trip, and a request held without an answer.

With `latency` seconds, the bundled reference behaves like a target tens of milliseconds away, so the
suite's speed against a remote target can be measured on loopback (`--reference-latency`). A fault holds a
request without an answer (`held_until_abandoned`) until its client gives up.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from starlette.requests import Request

Scope = dict[str, Any]
# The longest a request is held without an answer: past any --request-timeout a run sets (10 s by default), so the
# client gives up first; a bound all the same, so that a client without a timeout is answered in the end.
HOLD_LIMIT = 120.0


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


async def held_until_abandoned(request: Request, limit: float = HOLD_LIMIT) -> None:
    """Hold a request without an answer until its client gives up and closes the connection (at most `limit`
    seconds): the handler then ends at once, leaving nothing behind to delay the server's stop."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limit):
            while (await request.receive())["type"] != "http.disconnect":
                pass
