"""The proxy in front of a payment API, probed as a security tester would: raw-socket clients and a raw upstream that
logs the bytes it receives (selftests/raw_http.py), each case replaying the exact bytes of a hostile exchange. A
request is never sent twice, no client gets another's answer, what should not be forwarded is refused before anything
goes upstream, and every case ends within a deadline."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from selftests.raw_http import CLOSE, DEADLINE, RawUpstream, Received, answer, exchange
from wallet_conformance import cli
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.proxy.service import Proxy, ProxyConfig

KEY = "sk_test_proxy_hostile_51a9"
TRANSFER = b'{"source":"vba-1","destination":"vba-2","amount":10000,"currency":"NGN","narration":"x"}'


def own(request: Received) -> bytes:
    """An answer that names its own request, so a client can tell its answer from another's."""
    return answer(200, json.dumps({"meta": {"statusCode": 200, "success": True},
                                   "data": {"answers": f"{request.method} {request.target}"}}).encode())


def proxy_in_front_of(upstream: RawUpstream) -> Proxy:
    return Proxy(ProxyConfig(upstream=upstream.base_url, listen=("127.0.0.1", 0), request_timeout=5))


def test_a_post_the_upstream_read_and_left_unanswered_is_never_sent_again():
    """A GET warms a kept connection; the upstream then reads a transfer whole and closes without answering: the
    client gets a 502, and the upstream saw the transfer once (it may have applied it)."""

    def script(request: Received) -> bytes:
        return CLOSE if request.method == "POST" else own(request)

    with RawUpstream(script) as upstream, proxy_in_front_of(upstream) as proxy, \
            httpx.Client(base_url=proxy.base_url, headers={"x-service-key": KEY}, timeout=DEADLINE) as client:
        assert client.get("/transactions/banks").status_code == 200
        sent = client.post("/transactions/transfer", content=TRANSFER, headers={"content-type": "application/json"})
        time.sleep(0.2)  # what a retry would have sent, had there been one
    transfers = [request for request in upstream.received if request.method == "POST"]
    assert sent.status_code == 502 and "sent once and is not sent again" in sent.text, sent.text
    assert len(transfers) == 1 and transfers[0].body == TRANSFER, transfers


@pytest.mark.parametrize("first", [
    pytest.param(("GET", answer(200, b"ok") + answer(200, b'"INJECTED"')), id="more-bytes-than-content-length"),
    pytest.param(("HEAD", answer(200, b"hello")), id="a-body-after-head"),
    pytest.param(("GET", b"HTTP/1.1 204 X\r\ncontent-length: 0\r\n\r\nHTTP/1.1 200 X\r\ncontent-length: 10\r\n\r\n"
                          b'"INJECTED"'), id="an-answer-after-204"),
])
def test_an_answer_that_does_not_end_cleanly_is_never_anyone_elses(first):
    """The upstream's first answer carries bytes after its end (more than its Content-Length, a body after a HEAD,
    a second answer after a 204): the connection is not kept, and each later client gets its own answer."""
    method, reply = first
    sent: list[str] = []

    def script(request: Received) -> bytes:
        sent.append(request.target)
        return reply if len(sent) == 1 else own(request)

    with RawUpstream(script) as upstream, proxy_in_front_of(upstream) as proxy, \
            httpx.Client(base_url=proxy.base_url, headers={"x-service-key": KEY}, timeout=DEADLINE) as client:
        client.request(method, "/transactions/banks")
        later = [client.get(f"/virtual-accounts/vba-{number}") for number in range(5)]
    for number, response in enumerate(later):
        assert response.status_code == 200 and "INJECTED" not in response.text, response.text
        assert response.json()["data"]["answers"] == f"GET /v1/virtual-accounts/vba-{number}", response.text


@pytest.mark.parametrize("request_bytes", [
    pytest.param(b"CONNECT evil.example:443 HTTP/1.1\r\nhost: evil.example:443\r\n\r\n", id="connect"),
    pytest.param(b"GET http://evil.example/v1/virtual-accounts HTTP/1.1\r\nhost: evil.example\r\n\r\n",
                 id="absolute-form"),
    pytest.param(b"OPTIONS * HTTP/1.1\r\nhost: x\r\n\r\n", id="asterisk-form"),
    pytest.param(b"GET //evil.example/x HTTP/1.1\r\nhost: x\r\n\r\n", id="double-slash"),
    pytest.param(b"GET @evil.example/x HTTP/1.1\r\nhost: x\r\n\r\n", id="at-sign"),
    pytest.param(b"DELETE /v1/virtual-accounts/vba-1 HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n"
                 b"transfer-encoding: chunked\r\n\r\n0\r\n\r\n", id="content-length-and-transfer-encoding"),
])
def test_what_is_no_request_of_the_api_is_refused_before_anything_goes_upstream(request_bytes):
    """CONNECT, a target in absolute, asterisk or authority form, a path a server could take for another host, a
    request framed two ways: answered 400 in an envelope by the proxy, nothing sent upstream, and the proxy goes on
    serving at once (no hang)."""
    with RawUpstream(own) as upstream, proxy_in_front_of(upstream) as proxy:
        started = time.monotonic()
        reply = exchange(proxy.port, request_bytes, until=b"null}")
        after = httpx.get(f"{proxy.base_url}/transactions/banks", headers={"x-service-key": KEY}, timeout=DEADLINE)
        took = time.monotonic() - started
        refused = proxy.forwarder.tally.refused
    assert reply.startswith(b"HTTP/1.1 400") and b'"success": false' in reply, reply[:300]
    assert refused == 1 and [request.target for request in upstream.received] == ["/v1/transactions/banks"]
    assert after.status_code == 200 and took < DEADLINE / 2


def test_the_upstream_gets_its_own_host_and_credentials_in_the_upstream_url_are_refused(capsys):
    """The Host sent upstream is the upstream's own; an --upstream carrying user:password@ is a mistake of the options
    (it would be written in every report and line): one line, exit 4, the password nowhere."""
    with RawUpstream(own) as upstream, proxy_in_front_of(upstream) as proxy:
        httpx.get(f"{proxy.base_url}/transactions/banks", headers={"x-service-key": KEY, "host": "evil.example"})
        origin = upstream.base_url.removeprefix("http://").removesuffix("/v1")
    assert upstream.received[0].headers["host"] == origin
    status = cli.main(["proxy", "--upstream", "http://svc:S3cretPassw0rd@127.0.0.1:9/v1"])
    error = capsys.readouterr().err
    assert status == ExitStatus.CANNOT_RUN and "carries credentials" in error and "S3cretPassw0rd" not in error
