"""Small misbehaving servers on loopback, for the hostile-target self-tests (test_hostile_targets.py).

`Hostile(behave)` serves every request through `behave(request)`: it returns an `Answer`, `HANG` (accept,
never answer), `RESET` (drop the connection), or None to forward the request to `upstream` (a faithful
reference), optionally rewriting the answer with `rewrite`. Started and stopped as a context manager; it
leaves no thread, socket or port behind.
"""

from __future__ import annotations

import json
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from wallet_conformance.client.api import IDLE_REUSE
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.sandbox import FUND_PATH
from wallet_conformance.spec import contract


@dataclass
class Request:
    method: str
    path: str  # with the query
    headers: dict[str, str]
    body: bytes
    number: int  # 1 for the first request the server got
    idle: float | None = None  # seconds its connection was idle since its last answer (None: its first request)


@dataclass
class Answer:
    status: int = 200
    body: bytes | str = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


HANG = object()
RESET = object()
Behaviour = Callable[[Request], Any]
Rewrite = Callable[[Request, Answer], Answer]


def envelope(data: Any, status: int = 200, **meta: Any) -> Answer:
    """An answer in the document's envelope."""
    return Answer(status, json.dumps({"meta": {"statusCode": status, "success": status < 400, **meta}, "data": data}))


def preflight_reads(request: Request) -> Answer | None:
    """The two reads of the suite's preflight answered as a conforming target would (empty lists)."""
    if request.method == "GET" and request.path.startswith("/v1/transactions/banks"):
        return envelope([])
    if request.method == "GET" and request.path.split("?")[0] == "/v1/virtual-accounts":
        return envelope([], pagination={"totalCount": 0, "perPage": 10, "current": 1})
    return None


class _Server(ThreadingHTTPServer):
    """A listen backlog like a web server's (uvicorn's is 2048): socketserver's is 5, which a burst of the suite's
    concurrent requests (its races open a connection each, at once) can fill while the accept thread waits for its
    turn on a loaded machine, and Linux then drops the connections that come next until their SYN is sent again."""

    request_queue_size = 128


class Hostile:
    def __init__(
        self,
        behave: Behaviour,
        upstream: ReferenceServer | None = None,
        rewrite: Rewrite | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.behave = behave
        self.upstream = upstream
        self.rewrite = rewrite
        self.tls = tls
        self.count = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._forward = (
            httpx.Client(timeout=30, trust_env=False, limits=httpx.Limits(keepalive_expiry=IDLE_REUSE))
            if upstream
            else None
        )
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        assert self._server is not None
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}{contract.version_segment()}"

    @property
    def funding_url(self) -> str:
        return f"{self.origin}{FUND_PATH}"

    def __enter__(self) -> Hostile:
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: with Nagle's algorithm on, each answer waits for the
            # client's delayed ACK (about 40 ms), and a whole run through this server takes four times longer.
            disable_nagle_algorithm = True

            answered_at: float | None = None  # when this connection's last answer was written

            def log_message(self, *args: Any) -> None:
                pass

            def handle_one_request(self) -> None:
                try:
                    super().handle_one_request()
                except (ConnectionError, TimeoutError, ssl.SSLError):
                    self.close_connection = True

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with hostile._lock:
                    hostile.count += 1
                    number = hostile.count
                idle = None if self.answered_at is None else time.monotonic() - self.answered_at
                request = Request(
                    self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, number, idle
                )
                answer = hostile.behave(request)
                if answer is HANG:
                    hostile._stopping.wait()
                    self.close_connection = True
                    return
                if answer is RESET:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    return
                if answer is None:
                    answer = hostile._forwarded(request)
                payload = answer.body.encode() if isinstance(answer.body, str) else answer.body
                self.send_response(answer.status)
                self.send_header("content-type", answer.content_type)
                self.send_header("content-length", str(len(payload)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
                self.answered_at = time.monotonic()

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        server = _Server(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        if self.tls is not None:
            server.socket = self.tls.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="hostile-server", daemon=True
        )
        self._thread.start()
        return self

    def _forwarded(self, request: Request) -> Answer:
        assert self.upstream is not None and self._forward is not None
        # Whitespace around a value is not part of it (RFC 9110 section 5.5): forwarded without it, as a proxy does.
        headers = {k: v.strip() for k, v in request.headers.items() if k in ("x-service-key", "content-type", "accept")}
        response = self._forward.request(
            request.method, self.upstream.origin + request.path, headers=headers, content=request.body or None
        )
        answer = Answer(
            response.status_code, response.content, response.headers.get("content-type", "application/json")
        )
        return self.rewrite(request, answer) if self.rewrite else answer

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._forward is not None:
            self._forward.close()
        time.sleep(0.05)  # let handler threads that were hanging see the stop and close their sockets
