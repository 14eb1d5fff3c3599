"""The layer that reads an answer's body: at most MAX_BODY bytes kept, the whole answer read within the request's
timeout, and the time its answer took."""

from __future__ import annotations

import time

import httpx

from wallet_conformance.client.call import BODY, HELD, Body, HeldBack
from wallet_conformance.client.exchange import MAX_BODY
from wallet_conformance.client.transports.answer_deadline import answered_by
from wallet_conformance.client.transports.layer import Layer


class TooSlow(Exception):
    """The body kept coming past the request's timeout."""


class ReadTransport(Layer):
    """Reads each answer's body whole (capped) and hands on an answer without a stream, its body in the response's
    extensions (Body). The whole answer, head and 1xx answers included, comes within the request's timeout from its
    last byte sent (answer_deadline.py: the wire stops there): a hostile target's endless or trickling answer is
    bounded here."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        timeout = request.extensions["timeout"]["read"]
        sent_at = time.time()
        started = time.perf_counter()
        held = request.extensions.get(HELD)

        def sent() -> float:
            """When the request went: a held-back body's, when its last byte went."""
            return held.released if isinstance(held, HeldBack) else started

        with answered_by(lambda: sent() + timeout):
            response = self.inner.handle_request(request)
            try:
                kept, size = read_capped(response, sent() + timeout)
            finally:
                response.close()
        elapsed = time.perf_counter() - sent()
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
        if time.perf_counter() > deadline:  # a transport given, whose reads know no deadline, trickling its body
            raise TooSlow
    return bytes(kept), size
