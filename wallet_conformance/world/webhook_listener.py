"""A webhook listener for --webhook-listen: a tiny HTTP server that records what the target delivers, and
the readers that describe a delivery without judging it (EVT-02 is observed, never failed)."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 1_000_000  # bytes of one delivery the listener keeps
LISTENER_GRACE = 60.0  # seconds the listener outlives the settle timeout at most, whatever happens
KIND_FIELDS = ("event", "type", "kind", "eventType", "event_type", "name")
SIGNATURE_WORDS = ("signature", "sign", "hmac", "digest")
HEX_RUN = re.compile(r"[0-9a-fA-F]{16,}")


class Listener:
    """A tiny HTTP server in a thread that records every request it gets; it stops by itself at the latest
    `lifetime` seconds after it started."""

    def __init__(self, host: str, port: int, lifetime: float) -> None:
        self.received: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 5  # seconds one connection may take

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(min(length, MAX_BODY)) if length else b""
                listener.record(self.command, self.path, list(self.headers.items()), raw)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_PUT = do_POST

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

        server_class = ThreadingHTTPServer
        if ":" in host:
            server_class = type("ThreadingHTTPServer6", (ThreadingHTTPServer,), {"address_family": socket.AF_INET6})
        self.server = server_class((host, port), Handler)
        self.server.daemon_threads = True
        self.host = host
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, name="webhook-listener", daemon=True
        )
        self._stopper = threading.Timer(lifetime, self.server.shutdown)
        self._stopper.daemon = True

    def record(self, method: str, path: str, headers: list[tuple[str, str]], raw: bytes) -> None:
        with self._lock:
            self.received.append({"method": method, "path": path, "headers": headers, "raw": raw})

    def deliveries(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.received)

    def __enter__(self) -> Listener:
        self._thread.start()
        self._stopper.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopper.cancel()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def url(self, run_id: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/{run_id}"


def shape(value: str) -> str:
    """A header value with long hex runs replaced by their length: the format without the value."""
    return HEX_RUN.sub(lambda found: f"<{len(found.group())} hex>", value)[:120]


def signed_with(raw: bytes, value: str, key: str) -> bool:
    """Whether a signature header holds the HMAC-SHA256 of the body keyed by `key` (hex, maybe after `=`)."""
    expected = hmac.new(key.encode(), raw, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(part.strip().lower(), expected) for part in re.split(r"[=,;\s]", value) if part)


def describe(delivery: dict[str, Any], references: set[str], key: str) -> dict[str, Any]:
    raw: bytes = delivery["raw"]
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = None
    headers = {name.lower(): value for name, value in delivery["headers"]}
    signatures = {name: value for name, value in headers.items() if any(word in name for word in SIGNATURE_WORDS)}
    text = raw.decode(errors="replace")
    return {
        "method": delivery["method"],
        "content_type": headers.get("content-type"),
        "kind": next((payload[name] for name in KIND_FIELDS if isinstance(payload, dict) and name in payload), None),
        "payload_keys": sorted(payload) if isinstance(payload, dict) else type(payload).__name__,
        "data_keys": sorted(payload["data"])
        if isinstance(payload, dict) and isinstance(payload.get("data"), dict)
        else None,
        "header_names": sorted(headers),
        "signature_headers": {name: shape(value) for name, value in signatures.items()},
        "signed_hmac_sha256_with_secret_key": any(signed_with(raw, value, key) for value in signatures.values())
        if signatures
        else None,
        "about_this_test": any(reference in text for reference in references),
    }
