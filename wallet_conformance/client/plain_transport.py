"""An httpx transport over the standard library's http.client, for the requests httpx cannot write.

httpx writes HTTP/1.1 through h11, which refuses a header value with whitespace around it. RFC 9110 section 5.5
says such whitespace is not part of the field value and a recipient drops it, so a conforming target accepts the
key written that way, which a requirement of the catalogue checks: the client sends those requests through this
transport instead. http.client writes the value as it is given; the answer's body is read up to the client's cap
like any other. http.client waits for each read with the socket's timeout and passes over any number of 100
Continue answers: a watchdog shuts the socket down when the answer's deadline passes (answer_deadline.py), which
wakes a read blocked on it, and the request fails as a timed-out one.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading

import httpx

from wallet_conformance.client.transports.answer_deadline import seconds_left


class Watchdog:
    """Shuts `connection`'s socket down after `seconds`, once it has one; `fired` says it did."""

    def __init__(self, connection: http.client.HTTPConnection, seconds: float) -> None:
        self.connection = connection
        self.fired = threading.Event()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired.set()
        sock = self.connection.sock
        if sock is not None:
            # close() would not wake a recv blocked in another thread; and socket's own shutdown, even of a TLS
            # socket: ssl's would unwrap it under that recv, which then fails as no OSError.
            with contextlib.suppress(OSError):  # already closed
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


class PlainTransport(httpx.BaseTransport):
    """One connection per request through http.client, with the client's TLS settings and a cap on the body; the
    whole answer within the answer's deadline (else the request's read timeout)."""

    def __init__(self, tls: ssl.SSLContext, max_body: int) -> None:
        self.tls = tls
        self.max_body = max_body

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        timeout = request.extensions.get("timeout", {}).get("read")
        left = seconds_left()
        if left is None:
            left = timeout
        elif timeout is not None:
            timeout = min(timeout, left)
        if left is not None and left <= 0:
            raise httpx.ReadTimeout("no whole answer within the request's timeout", request=request)
        port = url.port or (443 if url.scheme == "https" else 80)
        if url.scheme == "https":
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                url.host, port, timeout=timeout, context=self.tls
            )
        else:
            connection = http.client.HTTPConnection(url.host, port, timeout=timeout)
        watchdog = None if left is None else Watchdog(connection, left)
        target = url.raw_path.decode("ascii")
        try:
            connection.connect()
            if watchdog is not None and watchdog.fired.is_set():  # it fired before the socket was there to shut
                raise TimeoutError("connected past the answer's deadline")
            connection.putrequest(request.method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in request.headers.raw:
                if name.lower() != b"accept-encoding":  # the body comes back as it is, never compressed
                    connection.putheader(name.decode("latin-1"), value.decode("latin-1"))
            body = request.read()
            connection.endheaders(body or None)
            answer = connection.getresponse()
            content = answer.read(self.max_body + 1)
            if watchdog is not None and watchdog.fired.is_set():  # what came before the shutdown may be cut short
                raise TimeoutError("no whole answer within the request's timeout")
            headers = [
                (name, value)
                for name, value in answer.getheaders()
                if name.lower() not in ("content-length", "transfer-encoding", "content-encoding")
            ]
            return httpx.Response(answer.status, headers=headers, content=content, request=request)
        except (OSError, http.client.HTTPException) as error:
            if isinstance(error, TimeoutError) or (watchdog is not None and watchdog.fired.is_set()):
                raise httpx.ReadTimeout(str(error) or "timed out", request=request) from None
            raise httpx.ConnectError(f"{type(error).__name__}: {error}", request=request) from None
        finally:
            if watchdog is not None:
                watchdog.cancel()
            connection.close()
