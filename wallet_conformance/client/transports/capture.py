"""The capture layer: each answer the client gets made the exchange it keeps, by the one constructor of exchanges."""

from __future__ import annotations

from typing import cast

import httpx

from wallet_conformance.client.call import BODY, EXCHANGE, Body, call_of
from wallet_conformance.client.har.exchange import Sent, exchange_from
from wallet_conformance.client.transports.layer import Layer


class CaptureTransport(Layer):
    """Makes an exchange of each answered copy (client/har/exchange.exchange_from, told what the client knows of the
    request it sent: its operation, its body, the answer's charset), its secrets replaced, and hands the answer on
    with it in its extensions (EXCHANGE). Every copy is captured; which exchange the client keeps is decided above
    (the 429 wait, the silences, the log)."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        call = call_of(request)
        response = self.inner.handle_request(request)
        body = cast(Body, response.extensions[BODY])
        response.extensions[EXCHANGE] = exchange_from(
            call.method,
            str(request.url),
            "",
            request_headers=call.shown_headers(request),
            request_text=None,
            status=response.status_code,
            response_headers=list(response.headers.items()),
            response_body=body.kept,
            whole_size=body.size,
            elapsed=body.elapsed,
            sent=Sent(call.operation_id, call.shown_body, response.charset_encoding or "utf-8", body.started),
        )
        return response
