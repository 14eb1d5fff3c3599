"""An httpx transport over the standard library's http.client, for the requests httpx cannot write.

httpx writes HTTP/1.1 through h11, which refuses a header value with whitespace around it. RFC 9110 section 5.5
says such whitespace is not part of the field value and a recipient drops it, so a conforming target accepts the
key written that way, which a requirement of the catalogue checks: the client sends those requests through this
transport instead. http.client writes the value as it is given; the answer's body is read up to the client's cap
like any other.
"""

from __future__ import annotations

import http.client
import ssl

import httpx


class PlainTransport(httpx.BaseTransport):
    """One connection per request through http.client, with the client's TLS settings and a cap on the body."""

    def __init__(self, tls: ssl.SSLContext, max_body: int) -> None:
        self.tls = tls
        self.max_body = max_body

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        timeout = request.extensions.get("timeout", {}).get("read")
        port = url.port or (443 if url.scheme == "https" else 80)
        if url.scheme == "https":
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                url.host, port, timeout=timeout, context=self.tls
            )
        else:
            connection = http.client.HTTPConnection(url.host, port, timeout=timeout)
        target = url.raw_path.decode("ascii")
        try:
            connection.putrequest(request.method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in request.headers.raw:
                if name.lower() != b"accept-encoding":  # the body comes back as it is, never compressed
                    connection.putheader(name.decode("latin-1"), value.decode("latin-1"))
            body = request.read()
            connection.endheaders(body or None)
            answer = connection.getresponse()
            content = answer.read(self.max_body + 1)
            headers = [
                (name, value)
                for name, value in answer.getheaders()
                if name.lower() not in ("content-length", "transfer-encoding", "content-encoding")
            ]
            return httpx.Response(answer.status, headers=headers, content=content, request=request)
        except TimeoutError as error:
            raise httpx.ReadTimeout(str(error), request=request) from None
        except (OSError, http.client.HTTPException) as error:
            raise httpx.ConnectError(f"{type(error).__name__}: {error}", request=request) from None
        finally:
            connection.close()
