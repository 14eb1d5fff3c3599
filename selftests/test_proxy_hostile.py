"""The proxy in front of a payment API, probed as a security tester would: raw-socket clients and a raw upstream that
logs the bytes it receives (selftests/raw_http.py), each case replaying the exact bytes of a hostile exchange. A
request is never sent twice, no client gets another's answer, what should not be forwarded is refused before anything
goes upstream, and every case ends within a deadline."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from selftests.proxy_traffic import caught_up, proxied
from selftests.raw_http import CLOSE, DEADLINE, RawUpstream, Received, answer, exchange
from selftests.test_proxy import free_port, stop_soon
from wallet_conformance import cli
from wallet_conformance.client.api import IDLE_REUSE
from wallet_conformance.client.redaction import PLACEHOLDER
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.proxy import side
from wallet_conformance.proxy.captured import Captured
from wallet_conformance.proxy.recording import RotatingHar
from wallet_conformance.proxy.service import Proxy, ProxyConfig
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reporting.conformance import write_whole
from wallet_conformance.reporting.gating import Gate

KEY = "sk_test_proxy_hostile_51a9"
TRANSFER = b'{"source":"vba-1","destination":"vba-2","amount":10000,"currency":"NGN","narration":"x"}'


def own(request: Received) -> bytes:
    """An answer that names its own request, so a client can tell its answer from another's."""
    return answer(
        200,
        json.dumps(
            {"meta": {"statusCode": 200, "success": True}, "data": {"answers": f"{request.method} {request.target}"}}
        ).encode(),
    )


def proxy_in_front_of(upstream: RawUpstream) -> Proxy:
    return Proxy(ProxyConfig(upstream=upstream.base_url, listen=("127.0.0.1", 0), request_timeout=5))


def test_a_post_the_upstream_read_and_left_unanswered_is_never_sent_again():
    """A GET warms a kept connection; the upstream then reads a transfer whole and closes without answering: the
    client gets a 502, and the upstream saw the transfer once (it may have applied it)."""

    def script(request: Received) -> bytes:
        return CLOSE if request.method == "POST" else own(request)

    with (
        RawUpstream(script) as upstream,
        proxy_in_front_of(upstream) as proxy,
        httpx.Client(base_url=proxy.base_url, headers={"x-service-key": KEY}, timeout=DEADLINE) as client,
    ):
        assert client.get("/transactions/banks").status_code == 200
        sent = client.post("/transactions/transfer", content=TRANSFER, headers={"content-type": "application/json"})
        time.sleep(0.2)  # what a retry would have sent, had there been one
    transfers = [request for request in upstream.received if request.method == "POST"]
    assert sent.status_code == 502 and "sent once and is not sent again" in sent.text, sent.text
    assert len(transfers) == 1 and transfers[0].body == TRANSFER, transfers


def test_a_kept_connection_an_upstream_would_close_for_idleness_carries_no_transfer():
    """An upstream closing connections idle for 1.5 s (gunicorn closes at 2 s) loses a request written on one as it
    closes it: a transfer forwarded after such a pause goes on a new connection and is answered, not a 502."""
    idle_timeout = 1.5
    assert idle_timeout > IDLE_REUSE
    answered_at: dict[int, float] = {}

    def script(request: Received) -> bytes:
        idle = time.monotonic() - answered_at[request.connection] if request.connection in answered_at else None
        answered_at[request.connection] = time.monotonic()
        return CLOSE if idle is not None and idle >= idle_timeout else own(request)

    with (
        RawUpstream(script) as upstream,
        proxy_in_front_of(upstream) as proxy,
        httpx.Client(base_url=proxy.base_url, headers={"x-service-key": KEY}, timeout=DEADLINE) as client,
    ):
        assert client.get("/transactions/banks").status_code == 200
        time.sleep(idle_timeout + 0.1)
        sent = client.post("/transactions/transfer", content=TRANSFER, headers={"content-type": "application/json"})
    assert sent.status_code == 200, sent.text
    assert [request.connection for request in upstream.received] == [1, 2], upstream.received


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(("GET", answer(200, b"ok") + answer(200, b'"INJECTED"')), id="more-bytes-than-content-length"),
        pytest.param(("HEAD", answer(200, b"hello")), id="a-body-after-head"),
        pytest.param(
            (
                "GET",
                b'HTTP/1.1 204 X\r\ncontent-length: 0\r\n\r\nHTTP/1.1 200 X\r\ncontent-length: 10\r\n\r\n"INJECTED"',
            ),
            id="an-answer-after-204",
        ),
    ],
)
def test_an_answer_that_does_not_end_cleanly_is_never_anyone_elses(first):
    """The upstream's first answer carries bytes after its end (more than its Content-Length, a body after a HEAD,
    a second answer after a 204): the connection is not kept, and each later client gets its own answer."""
    method, reply = first
    sent: list[str] = []

    def script(request: Received) -> bytes:
        sent.append(request.target)
        return reply if len(sent) == 1 else own(request)

    with (
        RawUpstream(script) as upstream,
        proxy_in_front_of(upstream) as proxy,
        httpx.Client(base_url=proxy.base_url, headers={"x-service-key": KEY}, timeout=DEADLINE) as client,
    ):
        client.request(method, "/transactions/banks")
        later = [client.get(f"/virtual-accounts/vba-{number}") for number in range(5)]
    for number, response in enumerate(later):
        assert response.status_code == 200 and "INJECTED" not in response.text, response.text
        assert response.json()["data"]["answers"] == f"GET /v1/virtual-accounts/vba-{number}", response.text


@pytest.mark.parametrize(
    "request_bytes",
    [
        pytest.param(b"CONNECT evil.example:443 HTTP/1.1\r\nhost: evil.example:443\r\n\r\n", id="connect"),
        pytest.param(
            b"GET http://evil.example/v1/virtual-accounts HTTP/1.1\r\nhost: evil.example\r\n\r\n", id="absolute-form"
        ),
        pytest.param(b"OPTIONS * HTTP/1.1\r\nhost: x\r\n\r\n", id="asterisk-form"),
        pytest.param(b"GET //evil.example/x HTTP/1.1\r\nhost: x\r\n\r\n", id="double-slash"),
        pytest.param(b"GET @evil.example/x HTTP/1.1\r\nhost: x\r\n\r\n", id="at-sign"),
        pytest.param(
            b"DELETE /v1/virtual-accounts/vba-1 HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n"
            b"transfer-encoding: chunked\r\n\r\n0\r\n\r\n",
            id="content-length-and-transfer-encoding",
        ),
    ],
)
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


# ------------------------------------------------------------------ a judge no input can kill


def test_a_body_nested_deeper_than_a_parser_goes_costs_no_verdict():
    """A wallet creation whose body is 50,000 `[` then 50,000 `]`: forwarded as it is, judged as text, and the
    judging goes on to the next exchange; the report has a verdict, never the judge's death."""
    nested = b"[" * 50_000 + b"]" * 50_000
    with (
        proxied() as (reference, proxy),
        httpx.Client(
            base_url=proxy.base_url, timeout=DEADLINE, headers={"x-service-key": reference.secret_key}
        ) as client,
    ):
        client.post("/virtual-accounts", content=nested, headers={"content-type": "application/json"})
        assert client.get("/transactions/banks").status_code == 200
        caught_up(proxy)
        report = proxy.report()
    assert report["run"]["exchanges"]["made"] == 2 and report["outcome"]["verdict"] != "suite-error", report["run"]


def test_an_exchange_the_judge_fails_on_is_counted_and_the_next_is_judged(monkeypatch, tmp_path):
    """Whatever one exchange makes the judge fail on (a bug of the suite, anything), it is that exchange's: counted
    as one it could not judge, with the error, and the judging goes on; a recording that cannot be written (a full
    disk) stops, says why, and the judging goes on."""

    class Lines:
        def send(self, lines: object) -> None:
            pass

    judging = side._Judging(
        "http://127.0.0.1:9/v1",
        1_000,
        Lines(),
        RotatingHar(Path("/dev/full"), 1 << 30),
        tmp_path / "judgement.jsonl",
        side.Opening(Gate(traffic=True), "staging", {}),
    )
    banks = b'{"meta": {"statusCode": 200, "success": true}, "data": []}'
    good = Captured(
        "GET",
        "http://127.0.0.1:9/v1/transactions/banks",
        [],
        b"",
        0,
        200,
        [("content-type", "application/json")],
        banks,
        len(banks),
        time.time(),
        0.001,
    )
    real = Captured.exchange
    monkeypatch.setattr(Captured, "exchange", lambda *args: (_ for _ in ()).throw(RuntimeError("a bug")))
    judging.take(good)
    monkeypatch.setattr(Captured, "exchange", real)
    for _ in range(200):  # enough to fill the recording's buffer: /dev/full refuses it
        judging.take(good)
    judging.session.judging.judgement.close()
    counts = judging.session.fold.exchanges
    assert counts["judge_errors"] == 1 and "RuntimeError: a bug" in counts["first_judge_error"]
    assert counts["made"] == 200 and "the recording stopped" in judging.facts()["recording_stopped"]


def test_keys_a_client_chooses_never_rewrite_a_report_or_a_har(tmp_path):
    """Clients sending `": "`, `http` or `data` as their key: none is learnt as a secret (they have no key's form), so
    the reports keep their words and URLs and the HAR stays JSON; a key of a key's form is learnt and redacted."""
    real = "sk_live_0123456789abcdef0123"
    with proxied(record_har=tmp_path / "live.har") as (_, proxy):
        for key in ('": "', "http", "data", real):
            httpx.get(
                f"{proxy.base_url}/transactions/banks?echo={key}", headers={"x-service-key": key}, timeout=DEADLINE
            )
        caught_up(proxy)
        report, written = proxy.write(tmp_path / "reports")
    assert json.loads((tmp_path / "live.har").read_text())["log"]["entries"]
    texts = [path.read_text() for path in written]
    assert all(real not in text for text in texts) and f"{PLACEHOLDER}://" not in texts[0]
    assert f"meta and {PLACEHOLDER}" not in "\n".join(texts)
    assert report["run"]["proxy"]["keys_learnt"] == 1 and report["run"]["proxy"]["keys_not_learnt"] >= 3


# ------------------------------------------------------------------ bounded in every direction

CLIENT_TIMEOUT = 1.0


def bounded_proxy(upstream_url: str, **bounds: object) -> Proxy:
    """A proxy whose client bounds are short, so each case ends in seconds."""
    # `bounds`: ProxyConfig's own fields, by name, each of its type.
    return Proxy(
        ProxyConfig(
            upstream=upstream_url, listen=("127.0.0.1", 0), request_timeout=2, client_timeout=CLIENT_TIMEOUT, **bounds
        )
    )  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sent", "status"),
    [
        pytest.param(None, None, id="a-silent-connection"),
        pytest.param(b"GET /v1/transactions/banks HTTP/1.1\r\nhost: x\r\n", b"HTTP/1.1 408", id="a-head-never-ended"),
        pytest.param(
            b'POST /v1/transactions/transfer HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n{"amo',
            b"HTTP/1.1 408",
            id="a-body-never-ended",
        ),
    ],
)
def test_a_client_that_sends_too_slowly_is_closed_within_the_client_timeout(sent, status):
    """A connection that sends nothing, a head that never ends (a byte now and then, slowloris), a body that stops:
    closed within --client-timeout (408 where a request had begun), never left open."""
    with RawUpstream(own) as upstream, bounded_proxy(upstream.base_url) as proxy:
        started = time.monotonic()
        reply = exchange(proxy.port, sent or b"")
        took = time.monotonic() - started
    assert took < CLIENT_TIMEOUT * 3, took
    assert (reply[:12] == status) if status else reply == b"", reply[:200]


def test_a_head_a_byte_at_a_time_is_bounded_by_its_size_and_its_time():
    """A head that keeps coming a byte at a time past the header limit is answered 431; the proxy serves the next
    client meanwhile."""
    with RawUpstream(own) as upstream, bounded_proxy(upstream.base_url, max_header_size=512) as proxy:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=DEADLINE) as slow:
            slow.sendall(b"GET /v1/transactions/banks HTTP/1.1\r\nhost: x\r\n")
            for _ in range(600):
                try:
                    slow.sendall(b"x")
                except OSError:
                    break
            reply = slow.recv(4096)
        fine = httpx.get(f"{proxy.base_url}/transactions/banks", headers={"x-service-key": KEY}, timeout=DEADLINE)
    assert reply.startswith(b"HTTP/1.1 431") and fine.status_code == 200, reply[:200]


def test_past_the_connection_limit_a_client_is_answered_503_at_once():
    """With --max-connections 3 held by idle clients, a fourth connection is answered 503 and closed: descriptors
    never run out."""
    with RawUpstream(own) as upstream, bounded_proxy(upstream.base_url, max_connections=3) as proxy:
        held = [socket.create_connection(("127.0.0.1", proxy.port), timeout=DEADLINE) for _ in range(3)]
        time.sleep(0.1)
        try:
            reply = exchange(proxy.port, b"")
        finally:
            for connection in held:
                connection.close()
    assert reply.startswith(b"HTTP/1.1 503"), reply[:200]


def trickle(request: Received) -> Iterator[bytes]:
    """An answer's head, then a byte every quarter of a second, for ten seconds: no single read waits long."""
    yield b"HTTP/1.1 200 X\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n"
    for _ in range(40):
        time.sleep(0.25)
        yield b" "


def test_an_upstream_that_trickles_its_answer_is_bounded_by_the_request_timeout():
    """An upstream that sends its answer's head, then a byte now and then: the client's answer ends within
    --request-timeout (2 s) of the request, cut and counted, never held for the trickle's ten seconds."""
    with RawUpstream(trickle) as upstream, bounded_proxy(upstream.base_url) as proxy:
        started = time.monotonic()
        replies = [exchange(proxy.port, b"GET /v1/transactions/banks HTTP/1.1\r\nhost: x\r\n\r\n") for _ in (1, 2)]
        took = time.monotonic() - started
        cut = proxy.forwarder.tally.cut_upstream
    assert took < 2 * 2 + 1 and cut == 2, (took, cut)
    assert all(reply.startswith(b"HTTP/1.1 200") and len(reply.split(b"\r\n\r\n", 1)[1]) < 1000 for reply in replies)


def test_an_upstream_that_reads_only_the_head_of_an_upload_is_bounded_by_the_request_timeout():
    """A 20 MB POST to an upstream that reads its head and nothing more: the client is answered 504 within
    --request-timeout (2 s) of its request, never held while the upload waits on the upstream."""
    held: list[socket.socket] = []
    size = 20_000_000

    def head_only(server: socket.socket) -> None:
        connection, _ = server.accept()
        connection.recv(1024)  # the head, and not a byte more
        held.append(connection)

    def upload(client: socket.socket) -> None:
        with contextlib.suppress(OSError):  # the proxy closes the connection once it has answered
            client.sendall(b" " * size)

    with socket.create_server(("127.0.0.1", 0)) as server:
        threading.Thread(target=head_only, args=(server,), daemon=True).start()
        upstream = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
        with (
            bounded_proxy(upstream) as proxy,
            socket.create_connection(("127.0.0.1", proxy.port), timeout=DEADLINE) as client,
        ):
            client.sendall(
                b"POST /v1/transactions/transfer HTTP/1.1\r\nhost: x\r\ncontent-type: application/json"
                b"\r\ncontent-length: %d\r\n\r\n" % size
            )
            started = time.monotonic()
            threading.Thread(target=upload, args=(client,), daemon=True).start()
            reply = whole_answer(client)
            took = time.monotonic() - started
            timed_out = proxy.forwarder.tally.timed_out
        for connection in held:
            connection.close()
    assert reply.startswith(b"HTTP/1.1 504") and timed_out == 1, reply[:200]
    assert took < 2 + 1.5, took


def test_a_client_that_hangs_up_ends_its_upstream_download():
    """A client that hangs up while the upstream trickles its answer: the proxy stops reading from the upstream at
    once (the upstream's writes fail), counts the client gone, and judges nothing of it."""
    with RawUpstream(trickle) as upstream, bounded_proxy(upstream.base_url) as proxy:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=DEADLINE) as client:
            client.sendall(b"GET /v1/transactions/banks HTTP/1.1\r\nhost: x\r\n\r\n")
            assert client.recv(4096).startswith(b"HTTP/1.1 200")
        deadline = time.monotonic() + 1.5
        while not proxy.forwarder.tally.client_disconnects and time.monotonic() < deadline:
            time.sleep(0.05)
        gone = proxy.forwarder.tally.client_disconnects
    assert gone == 1 and proxy.forwarder.tally.forwarded == 0


def whole_answer(connection: socket.socket) -> bytes:
    """One answer read from `connection`: its head and as many body bytes as its Content-Length says (what came by
    DEADLINE, or by the connection's close)."""
    received, deadline = b"", time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        head, _, body = received.partition(b"\r\n\r\n")
        length = re.search(rb"content-length: *(\d+)", head, re.IGNORECASE)
        if length and len(body) >= int(length[1]):
            break
        connection.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = connection.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def clients_requests(upstream: RawUpstream) -> list[Received]:
    """What the upstream received from clients: all but the proxy's own look at its base URL when it starts."""
    return [request for request in upstream.received if (request.method, request.target) != ("GET", "/v1")]


def test_a_proxy_stopped_at_once_tells_each_client_what_became_of_its_request(tmp_path):
    """A second Ctrl-C with a transfer sent upstream and unanswered, and another request's body still arriving: the
    first client gets a 502 envelope saying its request went upstream once and may have been acted on, the second a 503
    envelope saying it was not forwarded; the report counts both, never "forwarded 0" as if nothing had gone."""
    release, port, replies = threading.Event(), free_port(), {}

    def held(request: Received) -> Iterator[bytes]:
        release.wait(DEADLINE)
        yield own(request)

    def traffic() -> None:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
        with (
            socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as sent,
            socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as arriving,
        ):
            sent.sendall(
                b"POST /v1/transactions/transfer HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(TRANSFER), TRANSFER)
            )
            while not clients_requests(upstream) and time.monotonic() < deadline:
                time.sleep(0.02)
            arriving.sendall(b"POST /v1/virtual-accounts HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{")
            for _ in (1, 2):
                time.sleep(0.3)
                os.kill(os.getpid(), signal.SIGINT)
            replies["sent"], replies["arriving"] = whole_answer(sent), whole_answer(arriving)

    with RawUpstream(held) as upstream:
        thread = threading.Thread(target=traffic, daemon=True)
        thread.start()
        try:
            status = cli.main(
                [
                    "proxy",
                    "--upstream",
                    upstream.base_url,
                    "--listen",
                    f"127.0.0.1:{port}",
                    "--report-dir",
                    str(tmp_path),
                ]
            )
            thread.join(DEADLINE)
        finally:
            release.set()
    report = json.loads((tmp_path / "conformance.json").read_text())
    facts = report["run"]["proxy"]
    assert replies["sent"].startswith(b"HTTP/1.1 502") and b"sent upstream once" in replies["sent"], replies
    assert replies["arriving"].startswith(b"HTTP/1.1 503") and b"not forwarded" in replies["arriving"], replies
    assert json.loads(replies["sent"].split(b"\r\n\r\n", 1)[1])["meta"]["statusCode"] == 502
    assert (facts["stopped_sent"], facts["stopped_not_sent"], facts["forwarded"]) == (1, 1, 0), facts
    assert status == ExitStatus.NOTHING_JUDGED and "1 request(s) sent upstream" in report["outcome"]["reason"]
    assert [request.method for request in clients_requests(upstream)] == ["POST"]


# ------------------------------------------------------------------ its own failures are never verdicts


def test_a_folder_where_nothing_can_be_written_stops_the_proxy_at_once(capsys):
    """A report folder or a recording where nothing can be written is found before anything is served: one line,
    exit 4, never a traceback at the end and the status of "does not conform"."""
    for option in ("--report-dir", "--record-har"):
        path = "/dev/full/reports" if option == "--report-dir" else "/dev/full/live.har"
        status = cli.main(["proxy", "--upstream", "http://127.0.0.1:9/v1", option, path])
        lines = capsys.readouterr().err.strip().splitlines()
        assert status == ExitStatus.CANNOT_RUN and len(lines) == 1 and "cannot be written there" in lines[0], lines


def test_a_report_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """A write that fails (a full disk) leaves the report that was there as it was, and no part of the new one."""
    path = tmp_path / "conformance.json"
    path.write_text("the earlier report")

    def full(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError):
        write_whole(path, "the new report")
    monkeypatch.undo()
    assert path.read_text() == "the earlier report" and [item.name for item in tmp_path.iterdir()] == [path.name]


# ------------------------------------------------------------------ personal data


CUSTOMER = {
    "accountName": "Adaeze Okonkwo",
    "emailAddress": "adaeze.okonkwo@example.com",
    "mobile": {"phoneNumber": "08031234567", "isoCode": "NG"},
}


@pytest.mark.parametrize("keep", [False, True], ids=["masked", "kept"])
def test_personal_data_is_masked_in_everything_the_proxy_keeps(keep, tmp_path, capsys):
    """A customer's wallet made and closed through the proxy in front of a reference whose close answer breaks SVC-12
    (its evidence quotes the answer): the customer's name, e-mail address, phone number and account number appear in
    no report, live line or HAR, each masked in its format (an account number stays ten digits); with
    --keep-personal-data they are kept. The client got the values as they are."""
    port = free_port()
    seen: dict[str, str] = {}

    def traffic() -> None:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}/v1", timeout=DEADLINE, headers={"x-service-key": reference.secret_key}
        ) as client:
            made = client.post("/virtual-accounts", json={**CUSTOMER, "category": "secondary", "currency": "NGN"})
            seen.update(made.json()["data"])
            client.delete(f"/virtual-accounts/{seen['publicId']}")

    with ReferenceServer(faults=[Fault.WRONG_CLOSE_MESSAGE]) as reference:
        stop_soon(1.0, traffic)
        cli.main(
            [
                "proxy",
                "--upstream",
                reference.base_url,
                "--listen",
                f"127.0.0.1:{port}",
                "--report-dir",
                str(tmp_path / "reports"),
                "--record-har",
                str(tmp_path / "live.har"),
                *(["--keep-personal-data"] if keep else []),
            ]
        )
    printed = capsys.readouterr().out
    recorded = (tmp_path / "live.har").read_text()
    kept = [printed, recorded, *(path.read_text() for path in (tmp_path / "reports").iterdir())]
    personal = [
        CUSTOMER["accountName"],
        CUSTOMER["emailAddress"],
        CUSTOMER["mobile"]["phoneNumber"],
        seen["accountNumber"],
    ]
    assert seen["accountName"] == CUSTOMER["accountName"] and "BROKEN SVC-12" in printed
    for value in personal:
        assert (value in recorded) == keep, value  # the HAR holds every exchange: each value is in it, or masked
        assert keep or not any(value in text for text in kept), value
    if not keep:
        entries = json.loads(recorded)["log"]["entries"]
        made = next(entry for entry in entries if entry["request"]["method"] == "POST")
        sent = json.loads(made["request"]["postData"]["text"])
        answered = json.loads(made["response"]["content"]["text"])
        number = answered["data"]["accountNumber"]
        assert re.fullmatch(r"\d{10}", number) and number != seen["accountNumber"], number
        assert re.fullmatch(r"[a-z]{6}\.[a-z]{7}@[a-z]{7}\.[a-z]{3}", sent["emailAddress"]), sent["emailAddress"]
        assert any(number in text for text in kept[2:]), number  # the same mask for the same value, everywhere
