"""One exchange as the proxy copied it off the wire, before judging: plain bytes and headers, bodies capped as the
suite's client caps them. Made in the request path, so it does nothing but keep references."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from wallet_conformance.client.api import MAX_BODY
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.exchange import exchange_from


@dataclass
class Captured:
    """What one forwarded exchange showed: the request as sent upstream, the answer as the upstream sent it."""

    method: str
    url: str  # the upstream URL the request went to
    request_headers: list[tuple[str, str]]
    request_body: bytes  # at most MAX_BODY bytes
    request_size: int  # bytes of the whole request body
    status: int
    response_headers: list[tuple[str, str]]
    response_body: bytes  # at most MAX_BODY bytes
    response_size: int  # bytes of the whole response body, as sent on the wire
    started: float  # seconds since the epoch
    elapsed: float  # seconds from the request's start to the answer's last byte

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.response_headers if key.lower() == name), None)

    def exchange(self, base_url: str) -> Exchange:
        """The exchange the suite's client would have kept of it (client/har/exchange.py): secrets learnt from its
        headers and redacted; a body cut at the cap keeps its whole size, and one the proxy cannot decode is left out
        (neither can be judged)."""
        body, size = self._decoded()
        return exchange_from(
            self.method.upper(),
            self.url,
            base_url,
            request_headers=self.request_headers,
            request_text=self.request_body.decode("utf-8", errors="replace") if self.request_size else None,
            status=self.status,
            response_headers=self.response_headers,
            response_body=body,
            whole_size=size,
            elapsed=self.elapsed,
        )

    def _decoded(self) -> tuple[bytes | None, int]:
        """The answer's body as its client reads it (gzip or deflate undone), and its whole size; None for a body whose
        encoding the proxy cannot undo (br, zstd, several, one cut at the cap, one that does not decode): what its
        client read is unknown."""
        codings = [coding.strip().lower() for coding in (self.header("content-encoding") or "").split(",")]
        codings = [coding for coding in codings if coding not in ("", "identity")]
        if not codings:
            return self.response_body, self.response_size
        if codings not in (["gzip"], ["x-gzip"], ["deflate"]) or self.response_size > MAX_BODY:
            return None, self.response_size
        try:
            whole = zlib.decompress(self.response_body, zlib.MAX_WBITS if codings == ["deflate"] else 47)
        except zlib.error:
            return None, self.response_size
        return whole[:MAX_BODY], len(whole)
