"""The proxy's side facing its clients: uvicorn's h11 protocol, bounded as a proxy in front of a payment API must be,
as nginx bounds its clients (client_header_timeout, keepalive_timeout, large_client_header_buffers,
worker_connections):

- a request's head arrives whole within the client timeout of the connection's opening or of its last answer, else
  the connection is closed, with a 408 where a head had begun (an idle keep-alive connection closes quietly);
- a head larger than the header limit is answered 431, however its bytes arrive (a byte at a time too);
- past the connection limit, a new connection is answered 503 and closed at once: descriptors never run out;
- an answer its client takes no byte of for the client timeout (the connection's writing stays paused) has its
  connection aborted, as nginx's send_timeout: a client that never reads holds neither a request, a connection nor
  an upstream socket (a request waiting to send then sees its client gone), and closing would wait on that client;
- a client that half-closes after a whole request still gets its answer, which it may be waiting for (uvicorn lets
  asyncio close the connection on the client's end of sending, and the request went upstream unanswered).

A request body's own time bound is the forwarding's, which reads it (forwarding.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import struct
import termios
from dataclasses import dataclass
from http import HTTPStatus

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from wallet_conformance.proxy.forwarding import ForwardingCounts, envelope


@dataclass(frozen=True)
class Bounds:
    """What a client may take: seconds for a request's head (and its body, forwarding.py), bytes of a head, open
    connections at once."""

    client_timeout: float
    header_bytes: int
    connections: int


def bounded(bounds: Bounds, counts: ForwardingCounts) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with these bounds (uvicorn's Config takes the class as `http`); the connections
    it aborts for a client that stopped reading are counted in `counts`."""
    return type("BoundedH11Protocol", (_Bounded,), {"bounds": bounds, "counts": counts})


class _Bounded(H11Protocol):
    bounds: Bounds
    counts: ForwardingCounts

    # As uvicorn's own: asyncio hands a stream protocol a Transport, where BaseProtocol's annotation says BaseTransport.
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self._waiting_bytes = 0  # what waited for the client when its time to read began
        self._eof = False  # the client has half-closed
        if len(self.connections) > self.bounds.connections:
            self._refuse(
                HTTPStatus.SERVICE_UNAVAILABLE,
                f"the proxy serves at most {self.bounds.connections} connections at once (--max-connections)",
            )
            return
        self._await_a_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        self._written()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_timer is None:
            self._await_reading()

    def _await_reading(self) -> None:
        """The client has the client timeout to take some of what waits for it (asyncio resumes writing only once
        most of it is gone)."""
        self._waiting_bytes = self._waiting()
        self._write_timer = self.loop.call_later(self.bounds.client_timeout, self._write_timed_out)

    def _waiting(self) -> int:
        """The bytes of the answer the client has not taken: asyncio's buffer, and the socket's send queue where the
        system tells it (Linux's SIOCOUTQ): a large send buffer holds what a slow client is still reading."""
        waiting = self.transport.get_write_buffer_size()
        sock = self.transport.get_extra_info("socket")
        if sock is not None and hasattr(termios, "TIOCOUTQ"):
            with contextlib.suppress(OSError):
                waiting += struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
        return waiting

    def resume_writing(self) -> None:
        super().resume_writing()
        self._written()

    def _written(self) -> None:
        timer: asyncio.TimerHandle | None = getattr(self, "_write_timer", None)  # none before connection_made
        if timer is not None:
            timer.cancel()
            self._write_timer = None

    def _write_timed_out(self) -> None:
        self._write_timer = None
        if self._waiting() < self._waiting_bytes:  # a slow client, still reading
            self._await_reading()
            return
        self.counts.client_stalls += 1
        self.transport.abort()  # close() would keep the connection until the client reads what waits for it

    # asyncio's Protocol.eof_received may return True to keep the transport open for writing; uvicorn's says None.
    def eof_received(self) -> bool | None:  # type: ignore[override]
        """A client that half-closes after a whole request gets its answer (the request goes upstream all the same),
        then the connection closes; one that half-closes sooner has its connection closed now (uvicorn's None)."""
        self._eof = True
        awaiting = self.cycle is not None and not self.cycle.response_complete
        return True if awaiting and self.conn.their_state is h11.DONE else None

    def data_received(self, data: bytes) -> None:
        waiting = self.conn.their_state is h11.IDLE and (self.cycle is None or self.cycle.response_complete)
        if waiting and self._head_too_large(data):
            self._refuse(
                HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                f"a request's head is at most {self.bounds.header_bytes} bytes (--max-header-size)",
            )
            return
        super().data_received(data)

    def _head_too_large(self, data: bytes) -> bool:
        """Whether the head being received (what came before `data`, and `data`) passes the header limit: its end
        comes past the limit, or has not come within it. A body after the head does not count."""
        limit = self.bounds.header_bytes
        pending = self.conn.trailing_data[0] + data[: limit + 4]  # what came before is within the limit, or refused
        end = pending.find(b"\r\n\r\n")
        return end > limit if end >= 0 else len(pending) > limit

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._stop_waiting()  # a whole head came: the request's own bounds take over

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._eof and (self.cycle is None or self.cycle.response_complete):
            self.transport.close()
        elif not self.transport.is_closing():
            self._await_a_head()

    def _await_a_head(self) -> None:
        self._stop_waiting()
        self._head_timer = self.loop.call_later(self.bounds.client_timeout, self._head_timed_out)

    def _stop_waiting(self) -> None:
        timer: asyncio.TimerHandle | None = getattr(self, "_head_timer", None)  # none before connection_made
        if timer is not None:
            timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or (self.cycle is not None and not self.cycle.response_complete):
            return
        if self.conn.trailing_data[0]:  # a head had begun
            self._refuse(
                HTTPStatus.REQUEST_TIMEOUT,
                f"a request's head must arrive within {self.bounds.client_timeout:g} s (--client-timeout)",
            )
        else:
            self.transport.close()

    def _refuse(self, status: HTTPStatus, message: str) -> None:
        """Answer `status` in the document's envelope and close the connection, whatever h11 thinks of it."""
        body = envelope(status, message)
        self.transport.write(
            f"HTTP/1.1 {status.value} {status.phrase}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
            + body
        )
        self.transport.close()
