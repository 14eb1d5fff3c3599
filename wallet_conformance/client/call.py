"""One request as the client sends it, handed to its transports (client/transports/) in the request's extensions:
what its exchange shows of it, and how each further copy of it is built; and what the transports hand back on a
response (its body as read, its exchange)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import httpx

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.redaction import KEY_HEADERS, redact

# The keys of a request's extensions: its Call; the seconds this copy is waited on (the silence layer's, else the
# client's timeout); its HeldBack body, when its last byte waits for a gate.
CALL = "wallet_conformance.call"
WAIT = "wallet_conformance.wait"
HELD = "wallet_conformance.held"
# The keys of a response's extensions: its body as read (Body); the exchange made of it.
BODY = "wallet_conformance.body"
EXCHANGE = "wallet_conformance.exchange"


@dataclass
class Call:
    """A request of the client: what its exchange shows (`headers` as the client gave them, before httpx adds its
    own; `body` as given: JSON, or the text sent), and `build`, which makes each copy of it as the client makes one
    (a fresh httpx.Request: the client's cookies and default headers, the race gate while the thread holds one)."""

    method: str
    url: str
    query: dict[str, str]
    headers: dict[str, str]
    payload: bytes | None
    body: Any
    operation_id: str | None
    build: Callable[[Call], httpx.Request] = field(repr=False)
    awaited: bool = False
    padding: int = 0
    key_forms: tuple[str, ...] = ()  # the client's key and its near-copies, concealed in what a key header shows

    def copy(self) -> httpx.Request:
        """A further copy of this request, to send again."""
        return self.build(self)

    @property
    def shown_body(self) -> Any:
        """The body as an exchange shows it: secrets replaced."""
        if self.body is None:
            return None
        if isinstance(self.body, str):
            return redact(self.body)
        return json.loads(redact(json.dumps(self.body)))

    def shown_headers(self, request: httpx.Request) -> list[tuple[str, str]]:
        """The headers an exchange shows of `request`, a copy of this call: the client's own, a key header's with
        the client's key forms concealed (as the run's are, even where the run did not register them), and the Cookie
        its jar added (httpx adds others, for which curl sends its own)."""
        headers = [
            (name, redact(value, self.key_forms) if name.lower() in KEY_HEADERS else value)
            for name, value in self.headers.items()
        ]
        cookie = request.headers.get("cookie")
        if cookie is not None and "cookie" not in (name.lower() for name in self.headers):
            headers.append(("Cookie", cookie))
        return headers

    @property
    def identity(self) -> tuple[Any, ...]:
        """What makes two requests the same request (a silent one is not waited on again)."""
        return (
            self.method,
            self.url,
            tuple(sorted(self.query.items())),
            tuple(sorted(self.headers.items())),
            self.payload,
        )


@dataclass(frozen=True)
class Body:
    """An answer's body as the client read it: the first MAX_BODY bytes, the whole size, when the request went
    (seconds since the epoch) and how long its answer took (from the last byte of a held-back body)."""

    kept: bytes
    size: int
    started: float
    elapsed: float


class HeldBack:
    """A request body sent all but its last byte, which waits for `gate()`; `released`: when it went on."""

    def __init__(self, payload: bytes, gate: Callable[[], object]) -> None:
        self.payload = payload
        self.gate = gate
        self.released = time.perf_counter()

    def __iter__(self) -> Iterator[bytes]:
        yield self.payload[:-1]
        self.gate()
        self.released = time.perf_counter()
        yield self.payload[-1:]


def call_of(request: httpx.Request) -> Call:
    return cast(Call, request.extensions[CALL])


def exchange_of(response: httpx.Response) -> Exchange:
    return cast(Exchange, response.extensions[EXCHANGE])
