"""The HTTP client of a run: one httpx client sending `x-service-key`, capturing every exchange."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import httpx

from wallet_conformance import contract
from wallet_conformance.curl import curl_command
from wallet_conformance.redaction import redact, redact_headers

KEY_HEADER = "x-service-key"
EXCERPT = 600
# After this many requests in a row fail to get any answer (timeout, refused connection), the target is
# taken as down: later requests fail at once instead of each waiting out its timeout.
MAX_TRANSPORT_FAILURES = 5


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()  # "use the configured key" / "no body"


class TargetError(Exception):
    """The target could not be reached or did not let the suite set up what a test needs.

    `exchange` is the refused exchange, when there was one. `requirement`, when set, is the requirement the
    setup step itself exercises (a documented create-wallet request is accepted: END-10): the report counts
    the error as a failure of that requirement only, and the test's other requirements as blocked.
    """

    def __init__(self, message: str, exchange: Exchange | None = None, requirement: str | None = None) -> None:
        super().__init__(message)
        self.exchange = exchange
        self.requirement = requirement


@dataclass
class Exchange:
    """One request and its response, with secrets already replaced."""

    operation_id: str | None
    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: Any
    status: int
    response_headers: list[tuple[str, str]]
    text: str
    elapsed: float
    _parsed: Any = field(default=None, repr=False)

    @cached_property
    def is_json(self) -> bool:
        try:
            self._parsed = json.loads(self.text)
        except ValueError:
            return False
        return True

    @property
    def json(self) -> Any:
        """The parsed body, or None when it is not JSON."""
        return self._parsed if self.is_json else None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def header(self, name: str) -> str | None:
        for key, value in self.response_headers:
            if key.lower() == name.lower():
                return value
        return None

    @property
    def envelope(self) -> dict[str, Any]:
        body = self.json
        return body if isinstance(body, dict) else {}

    @property
    def meta(self) -> dict[str, Any]:
        meta = self.envelope.get("meta")
        return meta if isinstance(meta, dict) else {}

    @property
    def data(self) -> Any:
        return self.envelope.get("data")

    def curl(self) -> str:
        return curl_command(self.method, self.url, self.request_headers, self.request_body)

    def describe(self) -> str:
        """Request, response (an excerpt) and a curl line: what a QA engineer needs to reproduce it."""
        excerpt = self.text if len(self.text) <= EXCERPT else self.text[:EXCERPT] + f"... ({len(self.text)} chars)"
        lines = [f"request:  {self.method} {self.url}"]
        if self.request_body is not None:
            body = self.request_body if isinstance(self.request_body, str) else json.dumps(self.request_body)
            lines.append(f"  body:   {body}")
        content_type = self.header("content-type") or "-"
        lines.append(f"response: {self.status} ({content_type}, {self.elapsed * 1000:.0f} ms) {excerpt}")
        lines.append("Reproduce with:")
        lines.append(f"  {self.curl()}")
        return "\n".join(lines)


class ApiClient:
    """Calls the target's operations by operationId and keeps every exchange."""

    def __init__(self, base_url: str, secret_key: str, timeout: float = 10.0,
                 transport: httpx.BaseTransport | None = None,
                 guard: Callable[[str, str | None], None] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = secret_key
        self._guard = guard
        self.transport_failures = 0
        self._http = httpx.Client(timeout=timeout, transport=transport, follow_redirects=False)
        self.exchanges: list[Exchange] = []

    def close(self) -> None:
        self._http.close()

    @property
    def target_down(self) -> bool:
        """Whether the target stopped answering (MAX_TRANSPORT_FAILURES requests in a row got no answer)."""
        return self.transport_failures >= MAX_TRANSPORT_FAILURES

    def call(self, operation_id: str, path_params: Mapping[str, str] | None = None, *,
             json_body: Any = DEFAULT, params: Mapping[str, Any] | None = None, key: Any = DEFAULT,
             headers: Mapping[str, str] | None = None, content: str | None = None) -> Exchange:
        """Call one operation of openapi.yaml. `key=None` sends no key; a string sends that key instead."""
        operation = contract.operations()[operation_id]
        path = operation.path
        for name, value in (path_params or {}).items():
            path = path.replace("{" + name + "}", str(value))
        return self.request(operation.method, path, json_body=json_body, params=params, key=key,
                            headers=headers, content=content, operation_id=operation_id)

    def request(self, method: str, path: str, *, json_body: Any = DEFAULT, params: Mapping[str, Any] | None = None,
                key: Any = DEFAULT, headers: Mapping[str, str] | None = None, content: str | None = None,
                operation_id: str | None = None, absolute: bool = False) -> Exchange:
        """Send one request to `{base_url}{path}` (or to `path` itself when `absolute`)."""
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
            payload = json.dumps(json_body).encode()
        elif content is not None:
            sent_headers["content-type"] = "application/json"
            body = content
            payload = content.encode()
        sent_headers.update(headers or {})
        query = {name: _query_value(value) for name, value in (params or {}).items()}
        if self.target_down:
            raise TargetError(f"{method} {redact(url)} not sent: the target stopped answering "
                              f"({self.transport_failures} requests in a row got no answer)")
        started = time.perf_counter()
        try:
            response = self._http.request(method, url, params=query, headers=sent_headers, content=payload)
        except httpx.HTTPError as error:
            self.transport_failures += 1
            raise TargetError(f"{method} {redact(url)} failed: {type(error).__name__}: {redact(str(error))}") from None
        self.transport_failures = 0
        elapsed = time.perf_counter() - started
        exchange = Exchange(
            operation_id=operation_id,
            method=method,
            url=redact(str(response.request.url)),
            request_headers=redact_headers(list(sent_headers.items())),
            request_body=_redact_body(body),
            status=response.status_code,
            response_headers=redact_headers(list(response.headers.items())),
            text=redact(response.text),
            elapsed=elapsed,
        )
        self.exchanges.append(exchange)
        return exchange


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
