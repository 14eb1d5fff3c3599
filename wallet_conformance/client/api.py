"""The HTTP client of a run: one httpx client sending `x-service-key`, capturing every exchange."""

from __future__ import annotations

import json
import threading
import time
import unittest
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from wallet_conformance.client.bound import Bound
from wallet_conformance.client.exchange import Exchange, ExchangeLog, Silence
from wallet_conformance.client.near_copies import key_template
from wallet_conformance.client.plain_transport import PlainTransport
from wallet_conformance.client.redaction import redact, redact_headers
from wallet_conformance.client.tls import tls_hint, tls_verification
from wallet_conformance.settings import variable_of
from wallet_conformance.spec import contract

KEY_HEADER = "x-service-key"
# After this many requests in a row fail to get any answer (timeout, refused connection), the target is
# taken as down: later requests fail at once instead of each waiting out its timeout.
MAX_TRANSPORT_FAILURES = 5
# When SERVER_ERRORS_FAILING of the last SERVER_ERROR_WINDOW answers are 5xx, the target is taken as failing:
# no further request is sent and the run stops after the current test. (A target answering 5xx to some invalid
# input never gets there: the suite's requests alternate valid and invalid ones.)
SERVER_ERROR_WINDOW = 20
SERVER_ERRORS_FAILING = 16
# The most of a response body kept (bytes); the rest is read and thrown away, its size recorded.
MAX_BODY = 256 * 1024
# Seconds a kept connection is reused after its last answer, under the idle timeouts servers close connections at
# (gunicorn 2 s; Node, uvicorn and Apache 5 s): a request written on a connection the server is closing that moment
# is lost unanswered, and one of a money-moving operation is not sent twice.
IDLE_REUSE = 1.0
# Where a replay reads each key from: the variables the options read it from.
KEY_VARIABLE = variable_of("--secret-key")
SECOND_KEY_VARIABLE = variable_of("--second-secret-key")
# Rate limiting (429): the most retries of one request, the longest single wait, and the default of
# the run's total waiting (--rate-limit-wait).
RATE_LIMIT_RETRIES = 3
RATE_LIMIT_MAX_PAUSE = 10.0
RATE_LIMIT_FIRST_PAUSE = 0.5


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()  # "use the configured key" / "no body"


class TargetError(Exception):
    """The target could not be reached or did not let the suite set up what a test needs.

    `exchange` is the refused exchange, when there was one. `requirement`, when set, is the requirement the
    setup step itself exercises (that a documented create-wallet request is accepted, say): the report counts
    the error as a failure of that requirement only, and the test's other requirements as blocked.
    """

    def __init__(self, message: str, exchange: Exchange | None = None, requirement: str | None = None) -> None:
        super().__init__(message)
        self.exchange = exchange
        self.requirement = requirement


class NotSent(TargetError, unittest.SkipTest):
    """A request the client would not send because the run is stopping (the target is down or failing).

    The test is not judged (a skip that says why; the run's stop reason is in the report), and a property test
    stops at once: Hypothesis re-raises a skip, where a failure would have it replay examples, each refused
    again, for seconds of CPU.
    """


class Unanswered(TargetError):
    """The silence of one operation: a request the target left without an answer, sent again once (or waited on twice
    as long), while it answered a cheap read at once; `again` when the same request went unanswered earlier in the run
    and was not waited on this time. A fact of the transport: what it means for the target's conformance is decided
    above the client."""

    def __init__(self, silence: Silence, again: bool = False) -> None:
        self.silence = silence
        self.again = again
        super().__init__(
            redact(
                f"{silence.method} {silence.url}: {silence.summary}"
                + ("; not waited on again: the same request went unanswered earlier in the run" if again else "")
                + f"; meanwhile {silence.alive}"
            )
        )


class RateLimited(TargetError):
    """A 429 the client could not wait out (--rate-limit-wait, Retry-After beyond its bounds): the test cannot judge
    a throttled answer, and the run stops after it (plugin/running.py)."""


class _NoAnswer(TargetError):
    """No full answer within the request's wait (a timeout of the target's own, not the test's bound)."""


class _Closed(_NoAnswer):
    """The connection was closed or reset after the request was sent, without an answer (or with bytes that are no
    HTTP answer): no answer, as a silence is, only sooner."""


# The transport errors of a request sent on an open connection that got no answer; a connection that could not be
# opened (httpx.ConnectError) is a target that cannot be reached, not one operation left unanswered.
_CLOSED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


# What a client tells before and after a call that carries its key (world/cleanup.Journal): the client, the
# operation, its path parameters, and the exchange (None before the call).
Journal = Callable[["ApiClient", str, Mapping[str, str], "Exchange | None"], None]


class ApiClient:
    """Calls the target's operations by operationId and keeps the recent exchanges.

    Bounded on a hostile target: bodies are capped (MAX_BODY), every request has a deadline, a run of
    transport failures or 5xx answers marks the target down or failing, and 429 answers are waited out
    within a total `rate_limit_wait`.
    """

    def __init__(
        self,
        base_url: str,
        secret_key: str,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
        guard: Callable[[str, str | None], None] | None = None,
        ca_bundle: str | None = None,
        rate_limit_wait: float = 60.0,
        *,
        bound: Bound | None = None,
        observer: Callable[[Exchange], object] | None = None,
        journal: Journal | None = None,
        sending: Callable[[str], AbstractContextManager[Any]] | None = None,
        shares_log_of: ApiClient | None = None,
    ) -> None:
        """Everything a client does besides sending is given here, and nothing is set on it afterwards: the run's
        time `bound`, the `observer` of every exchange, the crash `journal` of the calls carrying its key, what a
        call is `sending` under (world/locks.py: the run's workers hold the wallet list still while one of them
        reads its pages), and another client whose exchange log and 429 list it joins (`shares_log_of`: the second
        key's client, so a test's evidence shows both keys' requests in order)."""
        self.base_url = base_url.rstrip("/")
        self._key = secret_key
        # The environment variable a replay reads this client's key from (client/replay.py).
        self.key_variable = SECOND_KEY_VARIABLE if shares_log_of is not None else KEY_VARIABLE
        self._guard = guard
        self.timeout = timeout
        self.transport_failures = 0
        self.recent_statuses: deque[int] = deque(maxlen=SERVER_ERROR_WINDOW)
        self.rate_limit_wait = rate_limit_wait  # seconds the run may still spend waiting out 429 answers
        self.bound = bound or Bound()
        self._journal = journal
        self._sending = sending
        self._transport = transport
        self._verify = tls_verification(ca_bundle)
        self._http = httpx.Client(
            timeout=timeout,
            transport=transport,
            follow_redirects=False,
            verify=self._verify,
            limits=httpx.Limits(keepalive_expiry=IDLE_REUSE),
        )
        self._own = threading.local()  # a thread's client of its own (own_connection), while it holds one
        # For a header value with whitespace around it, which httpx (h11) will not write (plain_transport.py).
        self._plain = httpx.Client(
            timeout=timeout,
            follow_redirects=False,
            transport=transport or PlainTransport(tls_verification(ca_bundle), MAX_BODY),
        )
        self.exchanges: ExchangeLog = shares_log_of.exchanges if shares_log_of else ExchangeLog(observer=observer)
        # every 429 met: what it asked and what the client did
        self.rate_limited: list[dict[str, Any]] = shares_log_of.rate_limited if shares_log_of else []
        self.unanswered: dict[tuple[Any, ...], Silence] = {}  # requests found silent, not waited on again

    def close(self) -> None:
        self._http.close()
        self._plain.close()

    @contextmanager
    def own_connection(self, gate: Callable[[], object] | None = None) -> Iterator[None]:
        """Send this thread's requests over a connection of its own, closed on leaving. With `gate`, its next request
        with a body sends all of it but the last byte, calls `gate()`, and only then sends that byte: the requests of
        threads sharing one gate (a barrier) complete at the target together, however long each took to connect and
        send (the last-byte synchronisation of race testing). With a transport given, as in the self-tests, the
        client's own is kept: closing a client closes its transport."""
        self._own.gate = gate
        if self._transport is not None:
            try:
                yield
            finally:
                self._own.gate = None
            return
        http = httpx.Client(
            timeout=self.timeout,
            follow_redirects=False,
            verify=self._verify,
            limits=httpx.Limits(keepalive_expiry=IDLE_REUSE),
        )
        self._own.http = http
        try:
            yield
        finally:
            self._own.http = self._own.gate = None
            http.close()

    @property
    def target_down(self) -> bool:
        """Whether the target stopped answering (MAX_TRANSPORT_FAILURES requests in a row got no answer)."""
        return self.transport_failures >= MAX_TRANSPORT_FAILURES

    @property
    def server_errors(self) -> int:
        """How many of the last SERVER_ERROR_WINDOW answers were 5xx."""
        return sum(status >= 500 for status in self.recent_statuses)

    @property
    def target_failing(self) -> bool:
        """Whether the target is failing (SERVER_ERRORS_FAILING of the last SERVER_ERROR_WINDOW answers were 5xx)."""
        return self.server_errors >= SERVER_ERRORS_FAILING

    def forget_server_errors(self) -> None:
        """Take the target as no longer failing: the end-of-run sweep tries to close what the run made even after
        a 5xx storm (a storm that goes on marks it failing again within SERVER_ERRORS_FAILING answers)."""
        self.recent_statuses.clear()

    def call(
        self,
        operation_id: str,
        path_params: Mapping[str, str] | None = None,
        *,
        json_body: Any = DEFAULT,
        params: Mapping[str, Any] | None = None,
        key: Any = DEFAULT,
        headers: Mapping[str, str] | None = None,
        content: str | None = None,
        padding: int = 0,
    ) -> Exchange:
        """Call one operation of openapi.yaml. `key=None` sends no key; a string sends that key instead; `padding`
        spaces follow the JSON body."""
        operation = contract.operations()[operation_id]
        path = operation.path
        for name, value in (path_params or {}).items():
            path = path.replace("{" + name + "}", str(value))
        journal = self._journal if self._carries_own_key(key, headers, params) else None
        if journal is not None:
            journal(self, operation_id, path_params or {}, None)  # before a change: what to restore after a crash
        with self._sending(operation_id) if self._sending is not None else nullcontext():
            exchange = self.request(
                operation.method,
                path,
                json_body=json_body,
                params=params,
                key=key,
                headers=headers,
                content=content,
                operation_id=operation_id,
                padding=padding,
            )
        if journal is not None:
            journal(self, operation_id, path_params or {}, exchange)
        return exchange

    def _carries_own_key(self, key: Any, headers: Mapping[str, str] | None, params: Mapping[str, Any] | None) -> bool:
        """Whether a call carries this client's key somewhere (the header, another header, a query parameter): then
        it may change the account's records, and the crash journal follows it."""
        if key is DEFAULT:
            return True
        sent = [key, *(headers or {}).values(), *(params or {}).values()]
        return any(isinstance(value, str) and self._key in value for value in sent)

    def probe(self, method: str, path: str, *, json_body: Any = DEFAULT) -> Exchange:
        """Send `method` to `{base_url}{path}` where the contract has no operation (a path none has, a method its path
        does not declare): no operation's rules judge the answer, but it is awaited as a call's is, and a silence
        is Unanswered."""
        return self.request(method, path, json_body=json_body, awaited=True)

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = DEFAULT,
        params: Mapping[str, Any] | None = None,
        key: Any = DEFAULT,
        headers: Mapping[str, str] | None = None,
        content: str | None = None,
        operation_id: str | None = None,
        absolute: bool = False,
        padding: int = 0,
        awaited: bool = False,
    ) -> Exchange:
        """Send one request to `{base_url}{path}` (or to `path` itself when `absolute`). The silence of a call of an
        operation, or of an `awaited` request, is Unanswered; any other request's is a TargetError."""
        if self._guard is not None:
            self._guard(method, operation_id)
        url = path if absolute else self.base_url + path
        sent_headers = {"accept": "application/json"}
        used_key = self._key if key is DEFAULT else key
        if used_key is not None:
            sent_headers[KEY_HEADER] = used_key
        body: Any = None
        payload: bytes | None = None
        if json_body is not DEFAULT:
            sent_headers["content-type"] = "application/json"
            body = json_body
            payload = json.dumps(json_body).encode() + b" " * padding
        elif content is not None:
            sent_headers["content-type"] = "application/json"
            body = content
            payload = content.encode()
        sent_headers.update(headers or {})
        query = {name: _query_value(value) for name, value in (params or {}).items()}
        retries: list[str] = []
        while True:
            exchange = self._answer(method, url, query, sent_headers, payload, body, operation_id, awaited, padding)
            pause = self._rate_limit_pause(exchange, len(retries))
            if pause is None:
                break
            retries.append(
                f"answered 429 ({exchange.elapsed * 1000:.0f} ms, Retry-After "
                f"{exchange.header('retry-after') or '-'}): waited {pause:.1f} s and sent it again"
            )
            time.sleep(pause)
        exchange.retries = [*retries, *exchange.retries]
        exchange.padding = padding
        exchange.keyed = self._keyed(str(httpx.URL(url, params=query)), sent_headers, payload, padding)
        exchange.key_variable = self.key_variable
        self.exchanges.append(exchange)
        if exchange.status == 429 and self.rate_limited and self.rate_limited[-1]["gave_up"]:
            raise RateLimited(
                f"{method} {redact(url)} answered 429 (rate limited; Retry-After "
                f"{exchange.header('retry-after') or '-'}) past what the run may wait (--rate-limit-wait:"
                f" {self.rate_limit_wait:g} s left, at most {RATE_LIMIT_MAX_PAUSE:g} s a wait, "
                f"{RATE_LIMIT_RETRIES} times): a throttled answer is not judged",
                exchange,
            )
        return exchange

    def _answer(
        self,
        method: str,
        url: str,
        query: dict[str, str],
        sent_headers: dict[str, str],
        payload: bytes | None,
        body: Any,
        operation_id: str | None,
        awaited: bool = False,
        padding: int = 0,
    ) -> Exchange:
        """The answer to a request. One of an operation (or `awaited`) still unanswered after a second chance
        (_patiently) while the target answers a cheap read is its silence (Unanswered); that request is not waited on
        again."""
        if operation_id is None and not awaited:  # the funding hook, say: its silence is judged nowhere
            return self._send(method, url, query, sent_headers, payload, body, operation_id)
        request_key = (method, url, tuple(sorted(query.items())), tuple(sorted(sent_headers.items())), payload)
        known = self.unanswered.get(request_key)
        if known is not None:
            raise Unanswered(known, again=True)
        once = operation_id in contract.sent_once()
        wait, copies = (2 * self.timeout, 1) if once else (self.timeout, 2)
        try:
            return self._patiently(method, url, query, sent_headers, payload, body, operation_id, wait, copies)
        except _NoAnswer as unanswered:
            alive = self._alive(operation_id or "", f"{unanswered} ({'twice' if copies > 1 else 'sent once'})")
            closed = isinstance(unanswered, _Closed)
        silence = Silence(
            method,
            redact(url),
            redact_headers(list(sent_headers.items())),
            _redact_body(body),
            self.timeout,
            wait,
            copies,
            alive,
            padding,
            closed,
        )
        self.unanswered[request_key] = silence
        raise Unanswered(silence)

    def _patiently(
        self,
        method: str,
        url: str,
        query: dict[str, str],
        sent_headers: dict[str, str],
        payload: bytes | None,
        body: Any,
        operation_id: str | None,
        wait: float,
        copies: int,
    ) -> Exchange:
        """Send a request, waiting `wait` seconds for its answer, and when none comes send the same request once more
        if `copies` allows (a single slow answer may be a hiccup); raises _NoAnswer when the last copy got none."""
        try:
            return self._send(method, url, query, sent_headers, payload, body, operation_id, wait)
        except _NoAnswer as first:
            if copies < 2:
                raise
            why = (
                "the connection closed without an answer"
                if isinstance(first, _Closed)
                else f"no answer within {wait:g} s"
            )
        exchange = self._send(method, url, query, sent_headers, payload, body, operation_id, wait)
        exchange.retries.append(f"{why}: sent again, the same request")
        return exchange

    def _alive(self, silent: str, unanswered: str) -> str:
        """How the target shows it still answers: a cheap read (the bank list, or another list when the bank list is
        the silent operation) answered within the timeout. When it answers nothing either, the request fails as any
        unanswered one (TargetError): the target is down, not one operation silent."""
        if self.target_down:
            raise TargetError(unanswered)
        read = next(operation for operation in contract.cheap_reads() if operation.id != silent)
        headers = {"accept": "application/json", KEY_HEADER: self._key}
        try:
            answer = self._send(read.method, self.base_url + read.path, {}, headers, None, None, read.id)
        except NotSent:
            raise
        except TargetError as error:
            raise TargetError(f"{unanswered}; a cheap read got no answer either: {error}") from None
        return f"{answer.method} {answer.url} answered {answer.status} in {answer.elapsed * 1000:.0f} ms"

    def _send(
        self,
        method: str,
        url: str,
        query: dict[str, str],
        sent_headers: dict[str, str],
        payload: bytes | None,
        body: Any,
        operation_id: str | None,
        wait: float | None = None,
    ) -> Exchange:
        if self.target_down:
            raise NotSent(
                f"{method} {redact(url)} not sent: the target stopped answering "
                f"({self.transport_failures} requests in a row got no answer)"
            )
        if self.target_failing:  # the run stops after this test
            raise NotSent(
                f"{method} {redact(url)} not sent: the target is failing ({self.server_errors} of its "
                f"last {len(self.recent_statuses)} answers were 5xx)"
            )
        wait = wait or self.timeout
        timeout = wait
        if self.bound.deadline is not None:
            left = self.bound.deadline - time.monotonic()
            if left <= 0:
                raise TargetError(f"{method} {redact(url)} not sent: {self.bound.reason}")
            timeout = min(timeout, left)
        sent_at = time.time()
        started = time.perf_counter()
        plain = any(isinstance(value, str) and value != value.strip() for value in sent_headers.values())
        content, headers = (payload, sent_headers) if plain else self._held_back(payload, sent_headers)
        try:
            http = self._plain if plain else self._client()
            with http.stream(method, url, params=query, headers=headers, content=content, timeout=timeout) as response:
                started = content.released if isinstance(content, _HeldBack) else started
                kept, size = _read_capped(response, started + timeout)
        except (httpx.TimeoutException, _TooSlow) as error:
            if timeout < wait:  # cut short by the test's bound, not the target's fault alone
                raise TargetError(f"{method} {redact(url)} stopped: {self.bound.reason}") from None
            self.transport_failures += 1
            raise _NoAnswer(
                f"{method} {redact(url)} failed: no full answer within {timeout:g} s "
                f"(--request-timeout; {type(error).__name__})"
            ) from None
        except httpx.HTTPError as error:
            self.transport_failures += 1
            failed = f"{method} {redact(url)} failed: {type(error).__name__}: {redact(str(error))}{tls_hint(error)}"
            raise (_Closed if isinstance(error, _CLOSED) else TargetError)(failed) from None
        self.transport_failures = 0
        self.recent_statuses.append(response.status_code)
        elapsed = time.perf_counter() - started
        text = kept.decode(response.charset_encoding or "utf-8", errors="replace")
        return Exchange(
            operation_id=operation_id,
            method=method,
            url=redact(str(response.request.url)),
            request_headers=redact_headers(list(sent_headers.items())),
            request_body=_redact_body(body),
            status=response.status_code,
            response_headers=redact_headers(list(response.headers.items())),
            text=redact(text),
            elapsed=elapsed,
            size=size if size > len(kept) else None,
            started=sent_at,
        )

    def _keyed(self, url: str, headers: dict[str, str], payload: bytes | None, padding: int) -> dict[str, str]:
        """The parts of a request that carry this client's key, each with the key's appearances marked (Exchange)."""
        parts = {"url": url, **{f"header:{name}": value for name, value in headers.items()}}
        if payload is not None:
            parts["body"] = payload[: len(payload) - padding].decode("utf-8", errors="replace")
        keyed = {}
        for part, text in parts.items():
            marked = key_template(text, self._key)
            if marked is not None:
                keyed[part] = redact(marked)
        return keyed

    def _held_back(self, payload: bytes | None, headers: dict[str, str]) -> tuple[Any, dict[str, str]]:
        """The body to send and the headers to send it with: the payload as it is, or, when this thread holds a gate
        (own_connection; used once), the payload with its last byte held back until the gate opens, under an explicit
        Content-Length so that it goes out as it is, not chunked."""
        gate = getattr(self._own, "gate", None)
        if gate is None or payload is None or len(payload) < 2:
            return payload, headers
        self._own.gate = None
        return _HeldBack(payload, gate), {**headers, "content-length": str(len(payload))}

    def _client(self) -> httpx.Client:
        """The httpx client of this thread: its own (own_connection), else the run's."""
        return getattr(self._own, "http", None) or self._http

    def _rate_limit_pause(self, exchange: Exchange, retried: int) -> float | None:
        """How long to wait before sending a 429-answered request again; None to keep the answer as it is."""
        if exchange.status != 429:
            return None
        asked = _retry_after(exchange.header("retry-after"))
        pause = asked if asked is not None else RATE_LIMIT_FIRST_PAUSE * 2**retried
        left = self.bound.deadline - time.monotonic() if self.bound.deadline is not None else pause
        # Never sooner than the target asked: a wait longer than allowed keeps the 429 as the answer.
        retry = retried < RATE_LIMIT_RETRIES and pause <= min(RATE_LIMIT_MAX_PAUSE, self.rate_limit_wait, left)
        self.rate_limited.append(
            {
                "operation": exchange.operation_id,
                "method": exchange.method,
                "retry_after": exchange.header("retry-after"),
                "waited": round(pause, 3) if retry else 0.0,
                "gave_up": not retry,
            }
        )
        if not retry:
            return None
        self.rate_limit_wait -= pause
        return pause


class _HeldBack:
    """A request body sent all but its last byte, which waits for `gate()`; `released`: when it went on."""

    def __init__(self, payload: bytes, gate: Callable[[], None]) -> None:
        self.payload = payload
        self.gate = gate
        self.released = time.perf_counter()

    def __iter__(self) -> Iterator[bytes]:
        yield self.payload[:-1]
        self.gate()
        self.released = time.perf_counter()
        yield self.payload[-1:]


class _TooSlow(Exception):
    """The body kept coming past the request's timeout."""


def _read_capped(response: httpx.Response, deadline: float) -> tuple[bytes, int]:
    """The first MAX_BODY bytes of the body and its whole size; the rest is read and dropped, by `deadline`."""
    kept = bytearray()
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if len(kept) < MAX_BODY:
            kept.extend(chunk[: MAX_BODY - len(kept)])
        if time.perf_counter() > deadline:  # a body trickled in forever: each read is bounded, the whole too
            raise _TooSlow
    return bytes(kept), size


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (a number of seconds or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _redact_body(body: Any) -> Any:
    if body is None:
        return None
    if isinstance(body, str):
        return redact(body)
    return json.loads(redact(json.dumps(body)))
