"""Forwarding: each request sent upstream as the client sent it (method, path, query, headers, body), and the answer
sent back as the upstream sent it (status, headers, body bytes), streamed. Only the hop-by-hop headers (RFC 9110
section 7.6.1: Connection and those it names, Keep-Alive, Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade)
stay on their own hop, and Host names the upstream. An upstream that cannot be reached is answered 502, one that does
not answer in time 504, in the document's envelope; neither is judged.

The copy for the judge is made as the bytes pass (bodies capped at the client's MAX_BODY) and handed over without
waiting (side.py); with `annotate`, the answer is held until its exchange is judged, and carries the requirements it
broke in a header.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from wallet_conformance.client.api import MAX_BODY
from wallet_conformance.proxy.captured import Captured
from wallet_conformance.proxy.upstream import Answer, TimedOut, Unreachable, Upstream
from wallet_conformance.spec import contract

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"transfer-encoding", b"upgrade", b"host"}
)
ANNOTATION = "x-conformance-broken"  # --annotate: the requirements an answer broke, comma-separated
UNREACHABLE = 502
TIMED_OUT = 504
REFUSED = 400  # a request the proxy will not forward: not an origin-form request of this API, or ambiguously framed
CLIENT_TIMED_OUT = 408  # the client did not send its request within --client-timeout
STOPPED = 503  # the proxy was stopped at once (a second signal) before the request went upstream


class ClientGone(Exception):
    """The client disconnected before its request was whole."""


class ClientTimedOut(Exception):
    """The client did not send its request's body within the client timeout."""


class AnswerCut(Exception):
    """The upstream broke off an answer already under way: the client's connection is closed on it, so that the client
    sees it cut, as it was (an answer ended early would read as whole)."""


async def _until_gone(receive: Receive) -> None:
    """Returns once the client has gone (or its answer is complete: uvicorn then says the same)."""
    while (await receive())["type"] != "http.disconnect":
        pass


@dataclass
class ForwardingCounts:
    """What the forwarding counted: answers relayed, and those it could not relay (never judged)."""

    forwarded: int = 0
    unreachable: int = 0  # answered 502: the upstream could not be reached
    timed_out: int = 0  # answered 504: the upstream did not answer within the request timeout
    client_disconnects: int = 0  # the client went away mid-request or mid-answer
    cut_upstream: int = 0  # the upstream broke off mid-answer (the client got what came)
    refused: int = 0  # answered 400 by the proxy itself: not forwarded (refused())
    client_timeouts: int = 0  # answered 408: the client's body did not arrive within --client-timeout
    stopped_not_sent: int = 0  # answered 503: the proxy was stopped at once before sending it upstream
    stopped_sent: int = 0  # sent upstream, its answer not relayed whole: the proxy was stopped at once
    not_annotated: int = 0  # --annotate: relayed without the annotation, the judge gone or failing on it
    client_stalls: int = 0  # client connections aborted: their client took no byte of its answer for --client-timeout


@dataclass
class _Progress:
    """How far one request went: what its client is told if the proxy is stopped at once under it."""

    sent: bool = False  # the upstream may have received all of it
    answering: bool = False  # the answer's head has gone to the client


def envelope(status: int, message: str) -> bytes:
    """The document's envelope of a refusal: meta.statusCode, meta.success false, meta.message; data null."""
    return json.dumps({"meta": {"statusCode": status, "success": False, "message": message}, "data": None}).encode()


def _drop_hop_by_hop(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    named = {
        token.strip().lower() for name, value in headers if name.lower() == b"connection" for token in value.split(b",")
    }
    return [(name, value) for name, value in headers if name.lower() not in HOP_BY_HOP and name.lower() not in named]


def _relayed_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """An answer's headers as relayed: its hop-by-hop ones dropped, and its Content-Length too when it came with a
    Transfer-Encoding, which framed the body read (RFC 9112 section 6.3): the client must not take the answer to end
    where that Content-Length says."""
    relayed = _drop_hop_by_hop(headers)
    if any(name.lower() == b"transfer-encoding" for name, _ in headers):
        return [(name, value) for name, value in relayed if name.lower() != b"content-length"]
    return relayed


def refused(scope: Scope) -> str | None:
    """Why a request is not forwarded, or None: only an origin-form request (a path, as a client of the API writes
    it) goes upstream, never CONNECT nor an absolute-form (`http://host/...`), authority-form (`host:443`) or
    asterisk-form (`*`) target, nor a path that a server could take for another host (`//host/...`); and never a
    request framed two ways, Content-Length beside Transfer-Encoding (RFC 9112 section 6.3), which the upstream might
    read otherwise than the proxy did."""
    raw = scope.get("raw_path") or scope["path"].encode()
    if scope["method"] == "CONNECT" or not raw.startswith(b"/") or raw.startswith(b"//"):
        return f"the proxy forwards a path of the API only, not {scope['method']} {raw.decode('latin-1')[:100]!r}"
    names = {name.lower() for name, _ in scope["headers"]}
    if b"content-length" in names and b"transfer-encoding" in names:
        return "a request framed by both Content-Length and Transfer-Encoding is not forwarded (RFC 9112 section 6.3)"
    return None


def _text(headers: list[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers]


class Forwarder:
    """The ASGI app of the proxy: forwards to `upstream` (a base URL ending in the version segment) through `client`,
    hands each whole exchange to `hand_over` (which must not block), and with `annotate` to `judge_now` (awaited) for
    the requirements it broke."""

    def __init__(
        self,
        upstream: str,
        client: Upstream,
        hand_over: Callable[[Captured], None],
        judge_now: Callable[[Captured], Awaitable[list[str]]] | None = None,
        client_timeout: float = 30.0,
    ) -> None:
        parts = urlsplit(upstream)
        self.upstream = upstream.rstrip("/")
        self.version = contract.version_segment()  # /v1: the proxy's paths are the target's under it
        self.origin_path = self.upstream.removesuffix(self.version)  # where paths outside /v1 go (a sandbox hook)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.host = (parts.hostname or "").encode() + (f":{parts.port}".encode() if parts.port else b"")
        self.client = client
        self.hand_over = hand_over
        self.judge_now = judge_now
        self.client_timeout = client_timeout
        self.tally = ForwardingCounts()

    def target(self, path: str, query: bytes) -> str:
        """The upstream URL of a request to the proxy's `path`: /v1/x goes to UPSTREAM/x."""
        if path == self.version or path.startswith(self.version + "/"):
            url = self.upstream + path[len(self.version) :]
        else:
            url = self.origin_path + path
        return url + ("?" + query.decode("latin-1") if query else "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":  # websockets are not this API's
            return
        progress = _Progress()

        async def watched(message: Message) -> None:
            progress.answering = progress.answering or message["type"] == "http.response.start"
            await send(message)

        try:
            await self._forward(scope, receive, watched, progress)
        except asyncio.CancelledError:  # a second signal: the server ends at once, with this request under way
            await self._stopped(send, progress)

    async def _forward(self, scope: Scope, receive: Receive, send: Send, progress: _Progress) -> None:
        started, clock = time.time(), time.perf_counter()
        refusal = refused(scope)
        if refusal is not None:
            self.tally.refused += 1
            await self._refuse(send, REFUSED, refusal, unread=True)
            return
        url = self.target(
            scope.get("raw_path", scope["path"].encode()).decode("latin-1").split("?")[0],
            scope.get("query_string", b""),
        )
        headers = [*_drop_hop_by_hop(list(scope["headers"])), (b"host", self.host)]
        try:
            first = await self._received(receive)
        except ClientTimedOut:
            await self._timed_out_client(send)
            return
        if first["type"] == "http.disconnect":
            self.tally.client_disconnects += 1
            return
        kept = bytearray(first.get("body", b"")[:MAX_BODY])
        sizes = [len(first.get("body", b""))]
        content: bytes | AsyncIterator[bytes]
        if first.get("more_body"):
            content = self._rest(first.get("body", b""), receive, kept, sizes, progress)
            if not any(name.lower() == b"content-length" for name, _ in headers):
                headers.append((b"transfer-encoding", b"chunked"))  # the client's was chunked: so is this hop
        else:
            whole: bytes = first.get("body", b"")
            content = whole
            if content and not any(name.lower() == b"content-length" for name, _ in headers):
                headers.append((b"content-length", str(len(whole)).encode()))  # it came chunked, in one piece
        # --request-timeout bounds the whole upstream exchange: the upload, the answer's head and its body.
        deadline = asyncio.get_running_loop().time() + self.client.timeout
        try:
            target = url[len(self.origin) :].encode("latin-1")  # the path and query as the client wrote them
            progress.sent = not first.get("more_body")  # else once its last chunk goes (_rest)
            async with asyncio.timeout_at(deadline):
                response = await self.client.send(scope["method"].encode(), target, headers, content)
        except ClientGone:
            self.tally.client_disconnects += 1
            return
        except ClientTimedOut:
            await self._timed_out_client(send)
            return
        except (TimedOut, TimeoutError) as error:
            self.tally.timed_out += 1
            await self._refuse(
                send,
                TIMED_OUT,
                f"the proxy's upstream {self.upstream} did not answer within the "
                f"request timeout ({error or 'the whole exchange'})",
                unread=not progress.sent,
            )
            return
        except Unreachable as error:
            self.tally.unreachable += 1
            await self._refuse(
                send,
                UNREACHABLE,
                f"the proxy's upstream {self.upstream} could not be reached ({error})",
                unread=not progress.sent,
            )
            return
        # The answer is relayed while the client is watched: a client that hangs up ends the upstream download.
        relaying = asyncio.ensure_future(
            self._relay(scope, url, headers, bytes(kept), sizes[0], response, send, started, clock, deadline)
        )
        gone = asyncio.ensure_future(_until_gone(receive))
        try:
            await asyncio.wait({relaying, gone}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            relaying.cancel()
            await asyncio.wait({relaying})
            raise
        finally:
            gone.cancel()
        if not relaying.done():
            relaying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await relaying
            self.tally.client_disconnects += 1
            return
        relaying.result()

    async def _relay(
        self,
        scope: Scope,
        url: str,
        headers: list[tuple[bytes, bytes]],
        kept: bytes,
        size_sent: int,
        response: Answer,
        send: Send,
        started: float,
        clock: float,
        deadline: float,
    ) -> None:
        """The upstream's answer, sent on to the client as it comes (with annotate, once judged), and the exchange
        handed to the judge; an answer the upstream breaks off, or does not end by the deadline, is cut."""
        answer_headers = _relayed_headers(response.headers)
        body = bytearray()
        size = 0
        try:
            if self.judge_now is None:
                await send({"type": "http.response.start", "status": response.status, "headers": answer_headers})
            chunks: list[bytes] = []  # with annotate, the whole answer; else the one chunk not yet sent
            loop = asyncio.get_running_loop()
            async with asyncio.timeout_at(deadline) as upstream_time:
                async for chunk in response.chunks:
                    if len(body) < MAX_BODY:
                        body += chunk[: MAX_BODY - len(body)]
                    size += len(chunk)
                    if self.judge_now is None and chunks:
                        # A chunk goes once the next has come: the last one ends the answer after the exchange is
                        # counted and handed over, so a client holding the whole answer finds it counted. The wait
                        # for a slow client is its own (serving.py bounds it), not the upstream's.
                        upstream_time.reschedule(None)
                        waited = loop.time()
                        await send({"type": "http.response.body", "body": chunks.pop(), "more_body": True})
                        deadline += loop.time() - waited
                        upstream_time.reschedule(deadline)
                    chunks.append(chunk)
        except (Unreachable, TimedOut, TimeoutError):
            self.tally.cut_upstream += 1
            if self.judge_now is None:
                await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
                raise AnswerCut from None  # uvicorn closes the connection (service.py keeps it out of the log)
            await self._refuse(send, UNREACHABLE, f"the proxy's upstream {self.upstream} broke off its answer")
            return
        finally:
            await response.chunks.aclose()
        captured = Captured(
            scope["method"],
            url,
            _text(headers),
            kept,
            size_sent,
            response.status,
            _text(answer_headers),
            bytes(body),
            size,
            started,
            time.perf_counter() - clock,
        )
        self.tally.forwarded += 1
        if self.judge_now is not None:
            try:
                broken = await self.judge_now(captured)
            except Exception:  # the judge is gone (side.JudgeGone) or failed: the answer is relayed all the same
                self.tally.not_annotated += 1
                broken = []
            annotation = [(ANNOTATION.encode(), ", ".join(broken).encode())] if broken else []
            await send(
                {"type": "http.response.start", "status": response.status, "headers": answer_headers + annotation}
            )
            await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": False})
        else:
            self.hand_over(captured)
            await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": False})

    async def _stopped(self, send: Send, progress: _Progress) -> None:
        """The client of a request under way when the proxy is stopped at once is told what became of it: never sent
        upstream (503), or sent and not answered (502: the upstream may have acted on it); an answer already under way
        is cut. Counted either way: a request that went upstream is never reported as not forwarded."""
        task = asyncio.current_task()
        assert task is not None  # uvicorn runs the app in a task
        task.uncancel()  # this task ends here, having told its client
        if not progress.sent:
            self.tally.stopped_not_sent += 1
            await self._refuse(
                send,
                STOPPED,
                "the proxy was stopped before this request was sent upstream whole: it was not forwarded",
                unread=True,
            )
            return
        self.tally.stopped_sent += 1
        if progress.answering:
            raise AnswerCut
        await self._refuse(
            send,
            UNREACHABLE,
            "the proxy was stopped before the upstream's answer was relayed: the "
            "request was sent upstream once, and may have been acted on",
        )

    async def _received(self, receive: Receive) -> Message:
        """The client's next message, within the client timeout (ClientTimedOut past it)."""
        try:
            async with asyncio.timeout(self.client_timeout):
                return await receive()
        except TimeoutError:
            raise ClientTimedOut from None

    async def _timed_out_client(self, send: Send) -> None:
        self.tally.client_timeouts += 1
        await self._refuse(
            send,
            CLIENT_TIMED_OUT,
            f"the request's body did not arrive within {self.client_timeout:g} s (--client-timeout)",
            unread=True,
        )

    async def _rest(
        self, opening: bytes, receive: Receive, kept: bytearray, sizes: list[int], progress: _Progress
    ) -> AsyncIterator[bytes]:
        """The request body as it arrives, copied up to the cap; ClientGone when the client leaves before its end,
        ClientTimedOut when it stops sending for the client timeout. The request counts as sent once its last chunk
        goes: before, the upstream holds a part of a request, which no server acts on."""
        yield opening
        while True:
            message = await self._received(receive)
            if message["type"] == "http.disconnect":
                raise ClientGone
            chunk = message.get("body", b"")
            if len(kept) < MAX_BODY:
                kept += chunk[: MAX_BODY - len(kept)]
            sizes[0] += len(chunk)
            progress.sent = not message.get("more_body")
            if chunk:
                yield chunk
            if progress.sent:
                return

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """The server's start and end: at the end, the upstream connections are closed on the loop that made them."""
        while True:
            try:
                message = await receive()
            except asyncio.CancelledError:  # a second signal: the server ends at once, without its shutdown message
                return
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.client.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    async def _refuse(send: Send, status: int, message: str, *, unread: bool = False) -> None:
        """Answer `status` in the document's envelope. With `unread` (the request's body was not read whole, or its
        framing is in doubt) the connection closes after it (RFC 9112 section 6.3): what follows on it is no request
        of anyone's, and must never be read as the next."""
        body = envelope(status, message)
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [*headers, (b"connection", b"close")] if unread else headers,
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})
