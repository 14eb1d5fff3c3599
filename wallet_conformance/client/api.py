"""The HTTP client of a run: one httpx client sending `x-service-key`, capturing every exchange.

ApiClient composes: it builds each request (its key, body, query, the race gate) and sends it through an httpx.Client
whose transport is the client's policies layered around httpx's own (client/transports/: the exchange kept, the 429
wait, silences, capture, the circuit breaker, the run's time bound, the capped read); what it raises is in
client/errors.py."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import lru_cache
from http.cookiejar import CookieJar
from typing import Any

import httpx

from wallet_conformance.client.bound import Bound
from wallet_conformance.client.call import CALL, HELD, Call, HeldBack, exchange_of
from wallet_conformance.client.cookies import NO_COOKIES, SetCookieClient
from wallet_conformance.client.errors import NotSent as NotSent
from wallet_conformance.client.errors import ProxyBypassed as ProxyBypassed
from wallet_conformance.client.errors import RateLimited as RateLimited
from wallet_conformance.client.errors import TargetError as TargetError
from wallet_conformance.client.errors import Unanswered as Unanswered
from wallet_conformance.client.exchange import MAX_BODY as MAX_BODY
from wallet_conformance.client.exchange import Exchange, ExchangeLog, Silence
from wallet_conformance.client.near_copies import every_near_copy, key_template
from wallet_conformance.client.plain_transport import PlainTransport
from wallet_conformance.client.redaction import redact
from wallet_conformance.client.tls import tls_verification
from wallet_conformance.client.transports import Layers, Policies, layered
from wallet_conformance.client.transports.breaker import MAX_TRANSPORT_FAILURES as MAX_TRANSPORT_FAILURES
from wallet_conformance.client.transports.breaker import Breaker
from wallet_conformance.client.transports.rate_limit import RateLimits
from wallet_conformance.client.transports.wire import ClientTransport
from wallet_conformance.settings import variable_of
from wallet_conformance.spec import contract

KEY_HEADER = "x-service-key"
# Seconds a kept connection is reused after its last answer, under the idle timeouts servers close connections at
# (gunicorn 2 s; Node, uvicorn and Apache 5 s): a request written on a connection the server is closing that moment
# is lost unanswered, and one of a money-moving operation is not sent twice.
IDLE_REUSE = 1.0
# Where a replay reads each key from: the variables the options read it from.
KEY_VARIABLE = variable_of("--secret-key")
SECOND_KEY_VARIABLE = variable_of("--second-secret-key")
URLS_PARSED = 4096  # the URLs whose parse is kept (parsed_url)


@lru_cache(maxsize=URLS_PARSED)
def parsed_url(url: str) -> httpx.URL:
    """`url` as httpx reads it, parsed once: httpx parses a URL given as text again for every request it builds (in
    Python), and a run sends the same URLs over and over (a wallet read until its balance settles). An httpx.URL never
    changes, so one serves every request."""
    return httpx.URL(url)


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()  # "use the configured key" / "no body"


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
        self._key_forms = (secret_key, *every_near_copy(secret_key)) if secret_key else ()
        # The environment variable a replay reads this client's key from (client/replay.py).
        self.key_variable = SECOND_KEY_VARIABLE if shares_log_of is not None else KEY_VARIABLE
        self._guard = guard
        self.timeout = timeout
        self.bound = bound or Bound()
        self._journal = journal
        self._sending = sending
        self._transport = transport
        self._verify = tls_verification(ca_bundle)
        self.exchanges: ExchangeLog = shares_log_of.exchanges if shares_log_of else ExchangeLog(observer=observer)
        self._breaker = Breaker()
        # the 429 budget; every 429 met (what it asked and what the client did) is shared with `shares_log_of`
        self._rate_limits = RateLimits(rate_limit_wait, shares_log_of.rate_limited if shares_log_of else [])
        self.unanswered: dict[tuple[Any, ...], Silence] = {}  # requests found silent, not waited on again
        self._policies = Policies(
            timeout, self.bound, self._breaker, self._rate_limits, self.unanswered, self._keep, self._cheap_read
        )
        self._http, self._layers = self._layered(
            lambda jar: SetCookieClient(
                timeout=timeout,
                transport=transport,
                follow_redirects=False,
                verify=self._verify,
                limits=httpx.Limits(keepalive_expiry=IDLE_REUSE),
                cookies=jar,
            )
        )
        self._own = threading.local()  # a thread's client of its own (own_connection), while it holds one
        # For a header value with whitespace around it, which httpx (h11) will not write (plain_transport.py).
        self._plain, _ = self._layered(
            lambda jar: SetCookieClient(
                timeout=timeout,
                follow_redirects=False,
                transport=transport or PlainTransport(tls_verification(ca_bundle), MAX_BODY),
                cookies=jar,
            )
        )

    def _layered(self, wire: Callable[[CookieJar], httpx.Client]) -> tuple[httpx.Client, Layers]:
        """A client sending through this client's layers around `wire`, the plain httpx client that goes on the wire
        (sharing its cookie jar, as one client's); the outer one is told nothing of the environment, so that no
        proxy it names bypasses the layers (the wire client honours it)."""
        jar = CookieJar()
        layers = layered(ClientTransport(wire(jar)), self._policies)
        outer = SetCookieClient(
            timeout=self.timeout, follow_redirects=False, trust_env=False, cookies=jar, transport=layers.outer
        )
        return outer, layers

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
        http, layers = self._layered(
            lambda jar: SetCookieClient(
                timeout=self.timeout,
                follow_redirects=False,
                verify=self._verify,
                limits=httpx.Limits(keepalive_expiry=IDLE_REUSE),
                cookies=jar,
            )
        )
        self._own.http, self._own.layers = http, layers
        try:
            yield
        finally:
            self._own.http = self._own.layers = self._own.gate = None
            http.close()

    @property
    def transport_failures(self) -> int:
        """How many requests in a row got no answer."""
        return self._breaker.transport_failures

    @property
    def recent_statuses(self) -> deque[int]:
        """The statuses of the last SERVER_ERROR_WINDOW answers."""
        return self._breaker.recent_statuses

    @property
    def target_down(self) -> bool:
        """Whether the target stopped answering (MAX_TRANSPORT_FAILURES requests in a row got no answer)."""
        return self._breaker.target_down

    @property
    def server_errors(self) -> int:
        """How many of the last SERVER_ERROR_WINDOW answers were 5xx."""
        return self._breaker.server_errors

    @property
    def target_failing(self) -> bool:
        """Whether the target is failing (SERVER_ERRORS_FAILING of the last SERVER_ERROR_WINDOW answers were 5xx)."""
        return self._breaker.target_failing

    def forget_server_errors(self) -> None:
        """Take the target as no longer failing: the end-of-run sweep tries to close what the run made even after
        a 5xx storm (a storm that goes on marks it failing again within SERVER_ERRORS_FAILING answers)."""
        self._breaker.forget_server_errors()

    @property
    def rate_limit_wait(self) -> float:
        """Seconds the run may still spend waiting out 429 answers."""
        return self._rate_limits.wait_left

    @property
    def rate_limited(self) -> list[dict[str, Any]]:
        """Every 429 met: what it asked and what the client did."""
        return self._rate_limits.met

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
        """Call one operation of openapi.yaml. `key=None` sends no key; a string sends that key instead; either sends
        none of the client's cookies (cookies.py). `padding` spaces follow the JSON body."""
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
        plain = any(isinstance(value, str) and value != value.strip() for value in sent_headers.values())
        if plain and self.proxied(url):
            raise ProxyBypassed(
                f"{method} {redact(url)} not sent: a header value with whitespace around it goes through the standard "
                "library's http.client, which would not go through the proxy the environment names for the target "
                "(HTTP_PROXY, HTTPS_PROXY or ALL_PROXY; NO_PROXY)"
            )
        http = self._plain if plain else self._connection()[0]
        build = self._builder(http, held=not plain, cookies=key is DEFAULT)
        call = Call(
            method, url, query, sent_headers, payload, body, operation_id, build, awaited, padding, self._key_forms
        )
        return exchange_of(http.send(call.copy()))

    def proxied(self, url: str | None = None) -> bool:
        """Whether this client's requests for `url` (the base URL) go through a proxy the environment names; a request
        with a header value that has whitespace around it is then not sent (ProxyBypassed)."""
        wire = self._layers.wire
        return isinstance(wire, ClientTransport) and wire.proxied(httpx.URL(url or self.base_url))

    def _keep(self, exchange: Exchange, call: Call, url: httpx.URL) -> None:
        """The exchange a request ends with, completed with what this client knows (the body's padding, where its key
        went: `url` is where it was sent) and added to its log, which shows it to the run's observer."""
        exchange.padding = call.padding
        exchange.keyed = self._keyed(str(url), call.headers, call.payload, call.padding)
        exchange.key_variable = self.key_variable
        self.exchanges.append(exchange)

    def _cheap_read(self, read: contract.Operation) -> Exchange:
        """One copy of a cheap read (the silence layer's: does the target answer at all?), sent as it is, kept
        nowhere."""
        http, layers = self._connection()
        headers = {"accept": "application/json", KEY_HEADER: self._key}
        build = self._builder(http)
        call = Call(
            read.method, self.base_url + read.path, {}, headers, None, None, read.id, build, key_forms=self._key_forms
        )
        return exchange_of(layers.copy.handle_request(call.copy()))

    def _builder(self, http: httpx.Client, held: bool = True, cookies: bool = True) -> Callable[[Call], httpx.Request]:
        """How `http` builds each copy of a request (Call.copy): the body held back at this thread's gate where it
        holds one (`held`; a request sent plain never is); with the jar's cookies, or, for a call that chooses its
        own credential, without them (`cookies`; cookies.NO_COOKIES)."""

        def build(call: Call) -> httpx.Request:
            content, headers = self._held_back(call.payload, call.headers) if held else (call.payload, call.headers)
            extensions: dict[str, Any] = {CALL: call}
            if isinstance(content, HeldBack):
                extensions[HELD] = content
            # No params but the call's own: httpx replaces a URL's query with any params given, even an empty mapping.
            params = call.query or None
            if not cookies:
                extensions[NO_COOKIES] = True
            request = http.build_request(
                call.method,
                parsed_url(call.url),
                params=params,
                headers=headers,
                content=content,
                extensions=extensions,
            )
            if not cookies and "cookie" not in (name.lower() for name in call.headers):
                request.headers.pop("cookie", None)
            return request

        return build

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
        return HeldBack(payload, gate), {**headers, "content-length": str(len(payload))}

    def _connection(self) -> tuple[httpx.Client, Layers]:
        """The httpx client of this thread, and its layers: its own (own_connection), else the run's."""
        http = getattr(self._own, "http", None)
        if http is not None:
            return http, self._own.layers
        return self._http, self._layers


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
