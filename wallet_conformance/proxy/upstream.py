"""The proxy's HTTP/1.1 client to the upstream: h11 over asyncio streams, connections kept open and reused last in,
first out. It does one thing, forward bytes, and so does less per exchange than a general client (a pool's
bookkeeping, URL and header models): at 50 clients that is most of the proxy's work.

In front of a payment API, what it must never do comes first:
- a request is sent once: none is sent again, whatever happened to it once its first byte was written (a kept
  connection the upstream closed meanwhile is found before anything is written on it, and replaced; one idle past
  IDLE_REUSE is not used, lest the upstream close it as the request is written);
- a connection is kept for the next request only when its answer ended cleanly: h11 saw the whole message on both
  sides and nothing after it (no stray bytes: more than the Content-Length said, a body after a HEAD, 204 or 304);
  otherwise those bytes could become another client's answer;
- nor after a request with a body answered other than 2xx: an upstream may answer such a request (an early 401, a
  413) before reading its body, and what it did not read would be taken for the start of the next client's request.
  Stray bytes that arrive after the check that precedes reuse cannot be told from an answer: a kept connection
  narrows that window (IDLE_REUSE, the check itself), and only not keeping connections would close it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlsplit

import h11

from wallet_conformance.client.api import IDLE_REUSE

READ = 65_536  # bytes read from the upstream at a time
KEPT = 64  # idle connections kept for reuse, at most
CLOSING = 1.0  # seconds a kept connection may take to close when the proxy stops
ONCE = "the request was sent once and is not sent again"


class Unreachable(Exception):
    """The upstream could not be reached, or broke the protocol before answering."""


class TimedOut(Exception):
    """The upstream did not answer within the request timeout."""


class _Connection:
    """One TCP (or TLS) connection to the upstream and its h11 state."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT)
        self.kept_at = 0.0  # when its last answer ended (the event loop's clock)

    def close(self) -> None:
        """Close at once, dropping what was not written: an upstream that stopped reading must not hold the socket."""
        self.writer.transport.abort()

    async def quiet(self) -> bool:
        """Whether a kept connection may carry the next request: kept no longer than IDLE_REUSE (past it, the
        upstream may be closing it as the request is written), the upstream has not closed it, and nothing came on it
        since its last answer (read without waiting: a byte there would be the start of someone else's answer)."""
        if asyncio.get_running_loop().time() - self.kept_at > IDLE_REUSE or self.reader.at_eof():
            return False
        try:
            async with asyncio.timeout(0):
                await self.reader.read(1)  # returns at once when anything (or the end) is there
        except TimeoutError:
            return True
        return False


@dataclass
class Answer:
    """The upstream's answer: status and headers as sent (names lower-cased, as ASGI carries them), and its body as
    it comes (`chunks`)."""

    status: int
    headers: list[tuple[bytes, bytes]]
    chunks: AsyncGenerator[bytes, None]  # closed (aclose) once read, or abandoned


class Upstream:
    """Connections to one upstream origin (`url`'s scheme, host and port), TLS verified with `verify`."""

    def __init__(self, url: str, verify: ssl.SSLContext, timeout: float) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.ssl = verify if parts.scheme == "https" else None
        self.timeout = timeout
        self._idle: list[_Connection] = []

    async def close(self) -> None:
        """Close the kept connections, waiting briefly for each (a TLS one says goodbye first)."""
        while self._idle:
            connection = self._idle.pop()
            connection.writer.close()  # an idle connection has nothing left to write: closed politely
            with contextlib.suppress(OSError, TimeoutError, ssl.SSLError):
                async with asyncio.timeout(CLOSING):
                    await connection.writer.wait_closed()

    async def _connection(self) -> _Connection:
        """A kept connection that is quiet, else a new one: a request is never written on a connection the upstream
        closed, so none ever needs to be sent again."""
        while self._idle:
            connection = self._idle.pop()
            if await connection.quiet():
                return connection
            connection.close()
        writer = None
        try:
            async with asyncio.timeout(self.timeout):
                reader, writer = await asyncio.open_connection(self.host, self.port, limit=READ * 4)
                if self.ssl is not None:  # TLS after connecting: a refused certificate leaves a socket to close here
                    await writer.start_tls(self.ssl, server_hostname=self.host)
        except TimeoutError:
            if writer is not None:
                writer.close()
            raise TimedOut("connect") from None
        except (OSError, ssl.SSLError) as error:
            if writer is not None:
                writer.close()
            raise Unreachable(f"{type(error).__name__}: {error}") from None
        return _Connection(reader, writer)

    async def send(
        self, method: bytes, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes | AsyncIterator[bytes]
    ) -> Answer:
        """Send one request, once, and read its answer's head; the body follows through `Answer.chunks`. Whatever
        happens once it is written (the connection closed, reset, no answer) is the upstream's answer to it: never a
        reason to send it again, since the upstream may have applied it (a transfer)."""
        connection = await self._connection()
        try:
            return await self._exchange(connection, method, target, headers, body)
        except BaseException:
            connection.close()
            raise

    async def _exchange(
        self,
        connection: _Connection,
        method: bytes,
        target: bytes,
        headers: list[tuple[bytes, bytes]],
        body: bytes | AsyncIterator[bytes],
    ) -> Answer:
        state, writer = connection.h11, connection.writer
        try:
            writer.write(state.send(h11.Request(method=method, target=target, headers=headers)))
            if isinstance(body, bytes):
                if body:
                    writer.write(state.send(h11.Data(data=body)))
            else:
                async for chunk in body:
                    writer.write(state.send(h11.Data(data=chunk)))
                    await writer.drain()
            writer.write(state.send(h11.EndOfMessage()))
            await writer.drain()
        except h11.LocalProtocolError as error:
            raise Unreachable(f"the request cannot be forwarded: {error}") from None
        except OSError as error:
            raise Unreachable(f"{type(error).__name__} while sending the request; {ONCE}") from None
        head = await self._next(connection)
        assert isinstance(head, h11.Response)
        # An upstream may answer before reading a body (early): its unread rest would open the next request.
        reusable = (isinstance(body, bytes) and not body) or 200 <= head.status_code < 300
        return Answer(head.status_code, list(head.headers), self._chunks(connection, reusable))

    async def _next(self, connection: _Connection) -> h11.Event | type[h11.PAUSED]:
        """The next event of the answer (informational 1xx answers skipped); PAUSED once it is whole."""
        state = connection.h11
        while True:
            try:
                event = state.next_event()
            except h11.RemoteProtocolError as error:
                raise Unreachable(f"the upstream broke HTTP/1.1: {error}") from None
            if event is h11.NEED_DATA:
                try:
                    async with asyncio.timeout(self.timeout):
                        data = await connection.reader.read(READ)
                except TimeoutError:
                    raise TimedOut("read") from None
                except OSError as error:
                    raise Unreachable(f"{type(error).__name__} {ONCE}") from None
                if not data and state.their_state is h11.SEND_RESPONSE:
                    raise Unreachable(f"the upstream closed the connection without answering; {ONCE}")
                state.receive_data(data)
                continue
            if isinstance(event, h11.InformationalResponse):
                continue
            return cast("h11.Event | type[h11.PAUSED]", event)  # not NEED_DATA: read past above (`is` narrows none)

    async def _chunks(self, connection: _Connection, reusable: bool) -> AsyncGenerator[bytes, None]:
        """The answer's body as it comes; the connection is kept for the next request when it is `reusable` and both
        sides are done."""
        done = False
        try:
            while True:
                event = await self._next(connection)
                if isinstance(event, h11.Data):
                    yield bytes(event.data)
                elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    done = isinstance(event, h11.EndOfMessage)
                    return
        finally:
            state = connection.h11
            clean = (
                reusable
                and done
                and state.our_state is h11.DONE
                and state.their_state is h11.DONE
                and not state.trailing_data[0]
                and not state.trailing_data[1]
            )
            if clean and len(self._idle) < KEPT:
                state.start_next_cycle()
                connection.kept_at = asyncio.get_running_loop().time()
                self._idle.append(connection)
            else:
                connection.close()
