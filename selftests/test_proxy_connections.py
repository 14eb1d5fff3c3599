"""What the proxy does with its connections when a peer breaks HTTP/1.1's framing or stops taking part: a client that
never reads its answer or half-closes after its request, a request framed two ways with a second one behind it, an
upstream that answers a request before reading its body or frames its answer two ways, a judge gone under
--annotate. Raw sockets on both sides (selftests/raw_http.py); each case ends within seconds."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import time
from collections.abc import Callable

import httpx

from selftests.raw_http import DEADLINE, RawUpstream, Received, answer, exchange
from selftests.test_proxy_hostile import KEY, TRANSFER, bounded_proxy, own, proxy_in_front_of
from wallet_conformance.proxy import side
from wallet_conformance.proxy.forwarding import ANNOTATION
from wallet_conformance.proxy.service import Proxy, ProxyConfig

LARGE = 16 * 1024 * 1024  # more than a loopback socket's buffers hold, so that the proxy's writing pauses


def serving_large(size: int) -> Callable[[Received], bytes]:
    """An upstream's script: GET .../large answers `size` bytes, anything else as the reference would."""

    def script(request: Received) -> bytes:
        return answer(200, b"x" * size) if request.target.endswith("/large") else own(request)

    return script


def asking_for_large(port: int) -> socket.socket:
    """A client that asked the proxy on `port` for the large answer, its receive buffer 4 KiB (reading nothing yet)."""
    client = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.sendall(b"GET /v1/large HTTP/1.1\r\nhost: x\r\n\r\n")
    return client


def test_a_client_that_never_reads_its_answer_is_aborted_within_the_client_timeout():
    """A client that sends a GET and never reads its 16 MiB answer, on a proxy of one connection: its connection is
    aborted within --client-timeout (1 s) of the proxy's writing pausing, counted as the client's (not the
    upstream's), its upstream socket is released, the next client is served, and the proxy stops at once."""
    with RawUpstream(serving_large(LARGE)) as upstream:
        proxy = bounded_proxy(upstream.base_url, max_connections=1).start()
        try:
            silent = asking_for_large(proxy.port)
            served, deadline = b"", time.monotonic() + 5
            while not served.startswith(b"HTTP/1.1 200") and time.monotonic() < deadline:
                time.sleep(0.25)
                with contextlib.suppress(OSError):  # refused 503 and closed as it is written: tried again
                    served = exchange(
                        proxy.port, b"GET /v1/transactions/banks HTTP/1.1\r\nhost: x\r\n\r\n", until=b"}}"
                    )
            tally = proxy.forwarder.tally
            counted = (tally.client_stalls, tally.client_disconnects, tally.cut_upstream)
        finally:
            started = time.monotonic()
            proxy.stop()
            stopping = time.monotonic() - started
            silent.close()
    assert served.startswith(b"HTTP/1.1 200") and b"GET /v1/transactions/banks" in served, served[:200]
    assert counted == (1, 1, 0), counted
    assert stopping < 3, stopping


def test_a_client_still_reading_a_large_answer_slowly_is_not_aborted():
    """A client taking its 4 MiB answer a KiB every 20 ms, for three times --client-timeout (1 s) while most of the
    answer waits in the socket's send queue, is still reading: its connection is not aborted."""
    with RawUpstream(serving_large(4 * 1024 * 1024)) as upstream:
        proxy = bounded_proxy(upstream.base_url, max_connections=2).start()
        try:
            slow = asking_for_large(proxy.port)
            got, started = 0, time.monotonic()
            with contextlib.suppress(ConnectionResetError):
                while time.monotonic() - started < 3 and (chunk := slow.recv(1024)):
                    got += len(chunk)
                    time.sleep(0.02)
            reading_for = time.monotonic() - started
            stalls = proxy.forwarder.tally.client_stalls
        finally:
            slow.close()
            proxy.stop()
    assert stalls == 0 and reading_for >= 3, (stalls, reading_for, got)


def test_a_request_framed_two_ways_closes_its_connection_so_nothing_behind_it_is_read():
    """A request framed by both Content-Length and Transfer-Encoding, with a second request behind its chunked end:
    refused 400 with `connection: close`, the connection closed, and the request behind it never goes upstream."""
    smuggled = (
        b"POST /v1/transactions/transfer HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n"
        b"0\r\n\r\nGET /v1/virtual-accounts/vba-smuggled HTTP/1.1\r\nhost: x\r\nx-service-key: %s\r\n\r\n"
        % KEY.encode()
    )
    with RawUpstream(own) as upstream, proxy_in_front_of(upstream) as proxy:
        started = time.monotonic()
        reply = exchange(proxy.port, smuggled)
        took = time.monotonic() - started
    assert reply.startswith(b"HTTP/1.1 400") and reply.count(b"HTTP/1.1 ") == 1, reply
    assert b"connection: close" in reply.lower() and took < DEADLINE / 2, (reply, took)
    assert upstream.received == [], upstream.received


def test_an_answer_before_the_body_is_read_never_opens_another_clients_request():
    """An upstream that answers a transfer 401 on its head, never reading its body: the body (the start of a request
    for another path) is left on that connection, which is not kept; the next client's request goes on a new one and
    gets its own answer, and the left body never reaches the upstream as a request."""
    body = b"GET /v1/virtual-accounts/vba-attacker HTTP/1.1\r\nx-ignore: "

    def script(request: Received) -> bytes:
        return answer(401, b'{"early": true}') if request.method == "POST" else own(request)

    with RawUpstream(script, reads_bodies=False) as upstream, proxy_in_front_of(upstream) as proxy:
        early = httpx.post(f"{proxy.base_url}/transactions/transfer", content=body, timeout=DEADLINE)
        later = httpx.get(f"{proxy.base_url}/virtual-accounts/vba-2", headers={"x-service-key": KEY}, timeout=DEADLINE)
    assert early.status_code == 401, early.text
    assert later.json()["data"]["answers"] == "GET /v1/virtual-accounts/vba-2", later.text
    assert "/v1/virtual-accounts/vba-attacker" not in [request.target for request in upstream.received]


def test_an_answer_framed_by_both_lengths_reaches_the_client_whole():
    """An upstream answer with Content-Length: 10 and Transfer-Encoding: chunked, its chunks longer: the chunked
    framing wins (RFC 9112 section 6.3), the Content-Length is not relayed, and the client gets the whole body."""
    body = json.dumps({"meta": {"statusCode": 200, "success": True}, "data": {"balance": "12345678.00"}}).encode()

    def script(request: Received) -> list[bytes]:
        head = b"HTTP/1.1 200 X\r\ncontent-type: application/json\r\ncontent-length: 10\r\ntransfer-encoding: chunked"
        return [head + b"\r\n\r\na\r\n" + body[:10] + b"\r\n", b"%x\r\n%s\r\n0\r\n\r\n" % (len(body) - 10, body[10:])]

    with RawUpstream(script) as upstream, proxy_in_front_of(upstream) as proxy:
        relayed = httpx.get(f"{proxy.base_url}/virtual-accounts/vba-1", timeout=DEADLINE)
    assert relayed.content == body and relayed.headers.get("content-length") != "10", relayed.headers


def test_with_annotate_a_judge_gone_leaves_the_answer_relayed_without_its_header():
    """--annotate with the judging process killed: a transfer is answered with the upstream's own 200 (it was applied:
    a 500 would invite a second one), without the header, sent upstream once, and counted as not annotated."""
    with (
        RawUpstream(own) as upstream,
        Proxy(ProxyConfig(upstream=upstream.base_url, listen=("127.0.0.1", 0), annotate=True)) as proxy,
    ):
        proxy.side.facts()  # the judge has started
        assert proxy.side.pid is not None
        os.kill(proxy.side.pid, signal.SIGKILL)
        sent = httpx.post(
            f"{proxy.base_url}/transactions/transfer",
            content=TRANSFER,
            headers={"x-service-key": KEY, "content-type": "application/json"},
            timeout=DEADLINE,
        )
        not_annotated = proxy.forwarder.tally.not_annotated
    assert sent.status_code == 200 and ANNOTATION not in sent.headers, (sent.status_code, sent.text)
    assert [request.method for request in upstream.received] == ["POST"] and not_annotated == 1


def test_a_client_that_half_closes_after_its_request_gets_its_answer():
    """A client that sends a whole request, then shuts down its side of the connection (as `nc -N` does): the request
    goes upstream once, its answer comes back whole, and the proxy then closes the connection."""
    with (
        RawUpstream(own) as upstream,
        proxy_in_front_of(upstream) as proxy,
        socket.create_connection(("127.0.0.1", proxy.port), timeout=DEADLINE) as client,
    ):
        client.sendall(b"GET /v1/virtual-accounts/vba-1 HTTP/1.1\r\nhost: x\r\n\r\n")
        client.shutdown(socket.SHUT_WR)
        started, reply = time.monotonic(), b""
        while chunk := client.recv(65536):
            reply += chunk
        took = time.monotonic() - started
    assert reply.startswith(b"HTTP/1.1 200") and b"GET /v1/virtual-accounts/vba-1" in reply, reply
    assert len(upstream.received) == 1 and took < DEADLINE / 2, (upstream.received, took)


def test_with_annotate_a_judge_that_stops_answering_holds_an_answer_only_a_bounded_time(monkeypatch):
    """--annotate with the judging process frozen (SIGSTOP): the client still gets the upstream's answer, without the
    header, once the judge has had its time for one exchange (1 s here); the judge is then ended, not waited on."""
    monkeypatch.setattr(side, "ANNOTATING", 1.0)
    with (
        RawUpstream(own) as upstream,
        Proxy(ProxyConfig(upstream=upstream.base_url, listen=("127.0.0.1", 0), annotate=True)) as proxy,
    ):
        proxy.side.facts()  # the judge has started
        assert proxy.side.pid is not None
        os.kill(proxy.side.pid, signal.SIGSTOP)
        started = time.monotonic()
        sent = httpx.get(f"{proxy.base_url}/virtual-accounts/vba-1", headers={"x-service-key": KEY}, timeout=DEADLINE)
        took = time.monotonic() - started
    assert sent.status_code == 200 and ANNOTATION not in sent.headers, (sent.status_code, sent.text)
    assert took < 1.0 + 2, took
