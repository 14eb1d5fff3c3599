"""The layer that reads an answer's body: at most MAX_BODY bytes kept, the whole of it read within the request's
timeout, and the time its answer took."""

from __future__ import annotations

import time

import httpx

from wallet_conformance.client.call import BODY, HELD, Body, HeldBack
from wallet_conformance.client.exchange import MAX_BODY
from wallet_conformance.client.transports.layer import Layer


class TooSlow(Exception):
    """The body kept coming past the request's timeout."""


class ReadTransport(Layer):
    """Reads each answer's body whole (capped, by the request's timeout) and hands on an answer without a stream, its
    body in the response's extensions (Body): a hostile target's endless or trickling body is bounded here."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        timeout = request.extensions["timeout"]["read"]
        sent_at = time.time()
        started = time.perf_counter()
        response = self.inner.handle_request(request)
        try:
            held = request.extensions.get(HELD)
            started = held.released if isinstance(held, HeldBack) else started
            kept, size = read_capped(response, started + timeout)
        finally:
            response.close()
        elapsed = time.perf_counter() - started
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(b""),
            request=request,
            extensions={BODY: Body(kept, size, sent_at, elapsed)},
        )


def read_capped(response: httpx.Response, deadline: float) -> tuple[bytes, int]:
    """The first MAX_BODY bytes of the body and its whole size; the rest is read and dropped, by `deadline`."""
    kept = bytearray()
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if len(kept) < MAX_BODY:
            kept.extend(chunk[: MAX_BODY - len(kept)])
        if time.perf_counter() > deadline:  # a body trickled in forever: each read is bounded, the whole too
            raise TooSlow
    return bytes(kept), size
