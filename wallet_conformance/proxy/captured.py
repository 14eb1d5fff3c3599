"""One exchange as the proxy copied it off the wire, before judging: plain bytes and headers, bodies capped as the
suite's client caps them. Made in the request path, so it does nothing but keep references."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import MAX_BODY


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

    def har_entry(self) -> dict[str, Any]:
        """The exchange as a HAR entry (the shape client/har.py reads back): secrets still in it, for the reader to
        learn and redact; a body cut at the cap keeps its whole size."""
        body, size = self._decoded()
        request: dict[str, Any] = {
            "method": self.method,
            "url": self.url,
            "headers": [{"name": name, "value": value} for name, value in self.request_headers],
        }
        if self.request_size:
            text = self.request_body.decode("utf-8", errors="replace")
            content_type = next((value for key, value in self.request_headers if key.lower() == "content-type"), "")
            request["postData"] = {"mimeType": content_type, "text": text}
        return {
            "request": request,
            "response": {
                "status": self.status,
                "headers": [{"name": name, "value": value} for name, value in self.response_headers],
                "content": {"text": body.decode("utf-8", errors="replace"), "size": size},
            },
            "time": self.elapsed * 1000,
        }

    def _decoded(self) -> tuple[bytes, int]:
        """The answer's body as its client reads it (gzip or deflate undone when whole), and its whole size."""
        encoding = (self.header("content-encoding") or "").strip().lower()
        if encoding in ("gzip", "deflate") and self.response_size <= MAX_BODY:
            try:
                whole = zlib.decompress(self.response_body, 47 if encoding == "gzip" else zlib.MAX_WBITS)
            except zlib.error:
                return self.response_body, self.response_size
            return whole[:MAX_BODY], len(whole)
        return self.response_body, self.response_size
