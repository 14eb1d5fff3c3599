"""The client's policies are httpx transports layered around httpx's own: each works with any transport inside."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from selftests.raw_http import RawUpstream, Received
from wallet_conformance.client.api import MAX_TRANSPORT_FAILURES, ApiClient, NotSent, RateLimited
from wallet_conformance.client.bound import Bound
from wallet_conformance.client.call import CALL, Call, exchange_of
from wallet_conformance.client.errors import NoAnswer, ProxyBypassed, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.entry import entry
from wallet_conformance.client.redaction import PLACEHOLDER, Secrets, activate, deactivate
from wallet_conformance.client.transports import Policies, layered, network
from wallet_conformance.client.transports.breaker import SERVER_ERROR_WINDOW, Breaker
from wallet_conformance.client.transports.rate_limit import RateLimits
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import key_probes

KEY = "sk_test_transport_layers_0123456789"
BANKS = {"data": [], "meta": {}}
# A request's timeout in the hang tests; how long such a test lets it wait before taking it for hung; and how long a
# trickling target keeps trickling (longer than that: a client that waits for it is seen waiting).
TIMEOUT = 1.0
HUNG = 5.0
TRICKLE = 8.0


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits the client sleeps, recorded instead of slept."""
    slept: list[float] = []
    monkeypatch.setattr("wallet_conformance.client.transports.rate_limit.time.sleep", slept.append)
    return slept


def throttled_twice(seen: list[httpx.Request]) -> httpx.MockTransport:
    """A target answering 429 (Retry-After 2) to the first two requests, then 200."""

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) <= 2:
            return httpx.Response(429, headers={"retry-after": "2"}, json={"error": "slow down"})
        return httpx.Response(200, json=BANKS)

    return httpx.MockTransport(answer)


def test_the_layers_wait_out_a_429_around_a_mock_transport(pauses: list[float]) -> None:
    """Around httpx.MockTransport alone, a 429 is sent again after its Retry-After; each copy is captured and the
    one answered last is kept, with the waits in its retries."""
    seen: list[httpx.Request] = []
    kept: list[Exchange] = []

    def keep(exchange: Exchange, _: Call, __: httpx.URL) -> None:
        kept.append(exchange)

    policies = Policies(5.0, Bound(), Breaker(), RateLimits(60.0), {}, keep, _no_read)
    layers = layered(throttled_twice(seen), policies)
    with httpx.Client(transport=layers.outer) as http:

        def build(call: Call) -> httpx.Request:
            return http.build_request(call.method, call.url, headers=call.headers, extensions={CALL: call})

        headers = {"accept": "application/json"}
        call = Call("GET", "http://target/v1/transactions/banks", {}, headers, None, None, "listBanks", build)
        answer = http.send(call.copy())
    exchange = exchange_of(answer)
    assert len(seen) == 3 and pauses == [2.0, 2.0]
    assert kept == [exchange] and exchange.status == 200 and exchange.json == BANKS
    assert [retry.split(":")[-1].strip() for retry in exchange.retries] == ["waited 2.0 s and sent it again"] * 2
    assert [entry["gave_up"] for entry in policies.rate_limits.met] == [False, False]
    assert policies.rate_limits.wait_left == 56.0 and list(policies.breaker.recent_statuses) == [429, 429, 200]


def _no_read(_: Any) -> Exchange:
    raise AssertionError("no cheap read: nothing went unanswered")


def test_the_client_keeps_one_exchange_per_request_through_its_layers(pauses: list[float]) -> None:
    """ApiClient over an httpx.MockTransport: two 429 answers waited out, three copies sent, one exchange kept (the
    answer) with both waits in its retries and the client's own facts (its key's places, the key's variable)."""
    seen: list[httpx.Request] = []
    client = ApiClient("http://target/v1", KEY, transport=throttled_twice(seen))
    exchange = client.call("listBanks")
    assert len(seen) == 3 and pauses == [2.0, 2.0] and list(client.exchanges) == [exchange]
    assert exchange.status == 200 and len(exchange.retries) == 2 and client.rate_limit_wait == 56.0
    assert exchange.operation_id == "listBanks" and "header:x-service-key" in exchange.keyed and exchange.key_variable
    assert KEY not in repr(exchange) and all(request.headers["x-service-key"] == KEY for request in seen)
    client.close()


def test_the_client_sends_back_the_cookies_its_answers_set(pauses: list[float]) -> None:
    """A cookie set by any answer, a 429 waited out among them, goes with the client's later requests as httpx's own
    client sends it; an answer setting none leaves the jar as it was."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(429, headers={"retry-after": "1", "set-cookie": "lb=first; Path=/"}, json={})
        if len(seen) == 3:
            return httpx.Response(200, headers={"Set-Cookie": "session=third; Path=/v1"}, json=BANKS)
        return httpx.Response(200, json=BANKS)

    client = ApiClient("http://target/v1", KEY, transport=httpx.MockTransport(answer))
    for _ in range(3):
        client.call("listBanks")
    assert pauses == [1.0]
    assert [request.headers.get("cookie") for request in seen] == [
        None,
        "lb=first",
        "lb=first",
        "session=third; lb=first",
    ]
    client.close()


def test_a_call_choosing_its_own_key_neither_sends_nor_keeps_cookies() -> None:
    """A call without the key, or with another, carries none of the cookies the target set (a target's session would
    make it keyed) and the jar keeps none its answer sets; the client's keyed calls still send the target's cookie."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        session = "keyed" if request.headers.get("x-service-key") == KEY else "anonymous"
        return httpx.Response(200, headers={"set-cookie": f"session={session}; Path=/"}, json=BANKS)

    client = ApiClient("http://target/v1", KEY, transport=httpx.MockTransport(answer))
    client.call("listBanks")
    client.call("listBanks", key=None)
    client.call("listBanks", key="conformance-wrong-key-cf12345")
    client.call("listBanks", key=f" {KEY}\t")  # sent plain, as httpx will not write it
    client.call("listBanks")
    assert [request.headers.get("cookie") for request in seen] == [None, None, None, None, "session=keyed"]
    client.close()


def test_the_evidence_shows_the_cookie_a_request_carried_concealed() -> None:
    """The exchange, its curl line and its HAR entry show the Cookie a keyed request carried, its value concealed."""
    secrets = Secrets()
    secrets.add_key(KEY)
    activate(secrets)
    try:
        client = ApiClient(
            "http://target/v1",
            KEY,
            transport=httpx.MockTransport(
                lambda _: httpx.Response(200, headers={"set-cookie": "session=s3ss10nTOKENvalue123456"}, json=BANKS)
            ),
        )
        client.call("listBanks")
        exchange = client.call("listBanks")
        client.close()
        shown = [repr(exchange.request_headers), exchange.curl(), repr(entry(exchange))]
    finally:
        deactivate(secrets)
    assert ("Cookie", PLACEHOLDER) in exchange.request_headers
    assert f"-H 'Cookie: {PLACEHOLDER}'" in exchange.curl()
    assert not any("s3ss10nTOKENvalue123456" in text or KEY in text for text in shown)


def test_a_url_keeps_its_own_query() -> None:
    """A URL given whole (a funding URL with a token in its query, say) is sent with its query; an operation's query
    parameters are sent as its query."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=BANKS)

    client = ApiClient("http://target/v1", KEY, transport=httpx.MockTransport(answer))
    funded = client.request("POST", "http://target/sandbox/fund?token=abc", absolute=True, json_body={"amount": 1})
    listed = client.call("listTransactions", params={"page": 2})
    assert [str(request.url) for request in seen] == [
        "http://target/sandbox/fund?token=abc",
        "http://target/v1/transactions?page=2",
    ]
    assert (funded.url, listed.url) == ("http://target/sandbox/fund?token=abc", "http://target/v1/transactions?page=2")
    client.close()


def test_the_breaker_opens_inside_the_layers() -> None:
    """MAX_TRANSPORT_FAILURES requests refused in a row open the breaker: the next is NotSent, and never reaches the
    transport inside."""
    seen: list[httpx.Request] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        raise httpx.ConnectError("refused", request=request)

    client = ApiClient("http://target/v1", KEY, transport=httpx.MockTransport(refuse))
    for _ in range(MAX_TRANSPORT_FAILURES):
        with pytest.raises(Exception, match="ConnectError: refused"):
            client.request("GET", "/transactions/banks")
    with pytest.raises(NotSent, match="stopped answering"):
        client.call("listBanks")
    assert len(seen) == MAX_TRANSPORT_FAILURES and client.target_down and not client.exchanges
    client.close()


def test_a_silent_copy_is_sent_again_once_through_the_layers() -> None:
    """A copy left without an answer is sent again, and the answer to the second is the one kept, saying so."""
    seen: list[httpx.Request] = []

    def hiccup(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            raise httpx.ReadTimeout("no answer", request=request)
        return httpx.Response(200, json=BANKS)

    client = ApiClient("http://target/v1", KEY, timeout=0.5, transport=httpx.MockTransport(hiccup))
    exchange = client.call("listBanks")
    assert len(seen) == 2 and list(client.exchanges) == [exchange] and client.transport_failures == 0
    assert exchange.retries == ["no answer within 0.5 s: sent again, the same request"]
    client.close()


def test_a_429_past_the_budget_is_kept_and_raised(pauses: list[float]) -> None:
    """A 429 whose wait is past --rate-limit-wait is kept as the answer and raised as RateLimited."""
    client = ApiClient(
        "http://target/v1",
        KEY,
        rate_limit_wait=1.0,
        transport=httpx.MockTransport(lambda request: httpx.Response(429, headers={"retry-after": "2"})),
    )
    with pytest.raises(RateLimited) as refused:
        client.call("listBanks")
    assert pauses == [] and list(client.exchanges) == [refused.value.exchange] and client.rate_limited[-1]["gave_up"]
    client.close()


def test_the_breaker_counts_its_window_while_other_threads_answer() -> None:
    """Threads sending through one client (a race, the end-of-run sweep) add answers to the breaker's window while
    another counts its 5xx: the count never meets a window being changed, and ends where the answers say."""
    breaker, stop, errors = Breaker(), threading.Event(), []

    def answers() -> None:
        while not stop.is_set():
            breaker.answered(200)

    def counts() -> None:
        try:
            while not stop.is_set():
                assert not breaker.target_failing
        except Exception as error:  # the failure this test is about, seen in the thread that met it
            errors.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns as often as the interpreter lets them
    threads = [threading.Thread(target=answers), threading.Thread(target=answers), threading.Thread(target=counts)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(0.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        sys.setswitchinterval(interval)
    assert not errors, errors
    breaker.answered(503)
    assert breaker.server_errors == 1 and len(breaker.recent_statuses) == SERVER_ERROR_WINDOW


def trickled(head: bytes, piece: bytes) -> Iterator[bytes]:
    """`head`, then `piece` every tenth of a second for TRICKLE seconds."""
    yield head
    ends = time.monotonic() + TRICKLE
    while time.monotonic() < ends:
        time.sleep(0.1)
        yield piece


def sent_to(answer: Iterator[bytes], key: str = KEY) -> tuple[BaseException | None, float]:
    """What a request with `key` to a target answering `answer` ends with (None: an answer), and in how many seconds;
    fails the test when it still waits after HUNG seconds."""
    outcome: list[BaseException | None] = []
    with RawUpstream(lambda _: answer) as upstream:
        client = ApiClient(upstream.base_url, KEY, timeout=TIMEOUT)

        def send() -> None:
            try:
                client.request("GET", "/transactions/banks", key=key)
                outcome.append(None)
            except Exception as error:
                outcome.append(error)

        started = time.perf_counter()
        thread = threading.Thread(target=send, daemon=True)
        thread.start()
        thread.join(HUNG)
        took = time.perf_counter() - started
        assert outcome, f"the request still waits after {HUNG:g} s with a timeout of {TIMEOUT:g} s"
        client.close()
    return outcome[0], took


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param((b"", b"HTTP/1.1 102 Processing\r\n\r\n"), id="1xx-forever"),
        pytest.param((b"HTTP/1.1 200 OK\r\n", b"x"), id="head-trickled"),
        pytest.param((b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n", b"1\r\n \r\n"), id="body-trickled"),
    ],
)
def test_a_trickled_answer_ends_at_the_request_timeout(answer: tuple[bytes, bytes]) -> None:
    """An answer that keeps coming a little at a time, 1xx answers, its head or its body, fails as unanswered within
    the request's timeout: the whole answer has that time, not each read."""
    error, took = sent_to(trickled(*answer))
    assert isinstance(error, NoAnswer) and f"no full answer within {TIMEOUT:g} s" in str(error), error
    assert TIMEOUT - 0.1 < took < TIMEOUT + 1


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param((b"", b"HTTP/1.1 100 Continue\r\n\r\n"), id="100-forever"),
        pytest.param((b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n", b"1\r\n \r\n"), id="body-trickled"),
    ],
)
def test_a_trickled_answer_to_a_request_sent_plain_ends_at_the_request_timeout(answer: tuple[bytes, bytes]) -> None:
    """The same through http.client (a key with whitespace around it, client/plain_transport.py): 100 Continue
    answers or a body trickled in fail as unanswered within the request's timeout."""
    error, took = sent_to(trickled(*answer), key=f" {KEY}\t")
    assert isinstance(error, NoAnswer) and f"no full answer within {TIMEOUT:g} s" in str(error), error
    assert TIMEOUT - 0.1 < took < TIMEOUT + 1


def test_an_answer_on_a_kept_connection_is_read_whole() -> None:
    """Two requests over one kept connection are each answered whole, the answer's deadline notwithstanding."""
    body = b'{"data": [], "meta": {}}'
    head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"

    def answer(_: Received) -> bytes:
        return head.encode() + body

    with RawUpstream(answer) as upstream:
        client = ApiClient(upstream.base_url, KEY, timeout=TIMEOUT)
        exchanges = [client.request("GET", "/transactions/banks") for _ in range(2)]
        client.close()
    assert [exchange.json for exchange in exchanges] == [BANKS, BANKS]
    assert [request.connection for request in upstream.received] == [1, 1]


@pytest.fixture
def proxy_for_https(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment names a proxy (one that is not there) for https URLs, none for localhost."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "localhost")


@pytest.mark.usefixtures("proxy_for_https")
def test_the_pools_httpx_builds_stop_at_the_answer_deadline() -> None:
    """Every connection pool httpx builds for a client, its own and one per proxy the environment names, gets the
    answer deadline's network backend, and the proxy httpx sends a URL through is seen: the places inside httpx and
    httpcore client/transports/network.py reaches are where it reaches them."""
    with network.bounded(httpx.Client()) as client:
        pools = network.pools(client)
        assert len(pools) == 2 and all(isinstance(pool._network_backend, network.DeadlineBackend) for pool in pools)
        assert network.proxied(client, httpx.URL("https://target.example/v1"))
        assert not network.proxied(client, httpx.URL("https://localhost/v1"))
        assert not network.proxied(client, httpx.URL("http://target.example/v1"))


@pytest.mark.usefixtures("proxy_for_https")
def test_a_request_sent_plain_is_not_sent_past_the_proxy() -> None:
    """Where the environment names a proxy for the target, a key with whitespace around it is not sent (http.client
    would go past the proxy) and the AUTH-08 probe cannot judge; other requests go through the proxy."""
    client = ApiClient("https://target.example/v1", KEY, timeout=TIMEOUT)
    with pytest.raises(ProxyBypassed, match="not sent"):
        client.request("GET", "/transactions/banks", key=f" {KEY}\t")
    fixtures = {"api": client, "target": SimpleNamespace(secret_key=KEY)}
    with pytest.raises(CannotJudge, match="past the proxy"):
        key_probes.probe(fixtures.__getitem__, "listBanks", key_probes.WHITESPACE)
    with pytest.raises(TargetError, match="Connection refused"):  # the proxy named is not there
        client.request("GET", "/transactions/banks")
    client.close()
