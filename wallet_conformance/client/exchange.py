"""What the client keeps of what it sent and was answered: each exchange (its secrets already replaced), the log of
a client's exchanges, and a request left without an answer (Silence)."""

from __future__ import annotations

import json
import math
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from wallet_conformance.client.curl import curl_command

EXCERPT = 600  # characters of a body an exchange's description shows
# How many exchanges the client keeps in memory (the newest); older ones are dropped, their count kept.
KEPT_EXCHANGES = 200
MADE_KEPT = 20_000  # records whose making a client remembers for replays (ExchangeLog.made)
# The most of a response body kept (bytes); the rest is read and thrown away, its size recorded.
MAX_BODY = 256 * 1024


# Whether the body being parsed (per thread) holds a float without a fraction (`1000.0`) or one that is not finite:
# values jsonschema-rs reads otherwise than the suite's jsonschema (spec/validation.py), noted as the parser meets them.
_FLOATS = threading.local()


def _float(text: str) -> float:
    value = float(text)
    if value.is_integer() or not math.isfinite(value):  # `1e999` parses as infinity
        _FLOATS.whole = True
    return value


def _constant(name: str) -> float:
    _FLOATS.whole = True  # NaN, Infinity, -Infinity: Python's parser takes them, as float() does
    return float(name)


_DECODER = json.JSONDecoder(parse_float=_float, parse_constant=_constant)


@dataclass(frozen=True)
class Silence:
    """A request of an operation the target left without an answer while it answered a cheap read: secrets replaced."""

    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: Any
    timeout: float  # --request-timeout
    waited: float  # how long each copy was waited on
    sent: int  # how many copies were sent: 2, or 1 where a second could be applied as well (contract.sent_once)
    alive: str  # the cheap read that was answered meanwhile
    padding: int = 0  # spaces sent after the JSON body (Exchange.padding)
    closed: bool = False  # the connection was closed (or reset) without an answer, rather than left waiting

    @property
    def summary(self) -> str:
        """What the client saw: how long it waited, on how many copies."""
        if self.closed:
            return "the connection was closed without an answer" + (
                " (twice)" if self.sent > 1 else " (sent once: a second copy could be applied as well as the first)"
            )
        if self.sent > 1:
            return f"no answer within {self.waited:g} s (twice)"
        return (
            f"no answer within {self.waited:g} s (sent once and waited on twice as long: a second copy could be "
            "applied as well as the first)"
        )

    def curl(self) -> str:
        return curl_command(self.method, self.url, self.request_headers, self.request_body, self.padding)


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
    size: int | None = None  # bytes of the whole response body, when more than the kept `text` was received
    retries: list[str] = field(default_factory=list)  # 429 answers waited out before this one
    started: float | None = None  # when the request was sent (seconds since the epoch), as a HAR entry says it
    # Spaces sent after the JSON body (JSON's insignificant whitespace: a large body that parses as a small one);
    # `request_body` holds the body without them.
    padding: int = 0
    # Where the request carried the client's key or a near-copy of it, for a replay: its parts ("url", "body",
    # "header:<name>") with each appearance marked by its form (near_copies.key_template), other secrets redacted;
    # and the environment variable of the key that client holds.
    keyed: dict[str, str] = field(default_factory=dict, repr=False)
    key_variable: str | None = None
    _parsed: Any = field(default=None, repr=False)
    _whole_floats: bool = field(default=False, repr=False)

    @classmethod
    def unanswered(cls, silence: Silence) -> Exchange:
        """A request the target left without an answer, as an exchange: status 0, as HAR writes a request that got no
        response, and what the client saw instead of one (`answered`: whether an exchange got an answer)."""
        return cls(
            None,
            silence.method,
            silence.url,
            silence.request_headers,
            silence.request_body,
            0,
            [],
            "",
            silence.waited,
            retries=[f"{silence.summary}; meanwhile {silence.alive}"],
            padding=silence.padding,
        )

    @property
    def answered(self) -> bool:
        """Whether the request got an answer: an HTTP status (a request left unanswered has none: `unanswered`)."""
        return self.status > 0

    @property
    def truncated(self) -> bool:
        """Whether the body was longer than the client keeps (MAX_BODY): `text` is then its beginning."""
        return self.size is not None

    @cached_property
    def is_json(self) -> bool:
        if self.truncated:
            return False
        _FLOATS.whole = False
        try:
            self._parsed = _DECODER.decode(self.text)
        except ValueError:
            return False
        self._whole_floats = _FLOATS.whole
        return True

    @property
    def holds_whole_float(self) -> bool:
        """Whether the body is JSON holding, anywhere, a float without a fraction (`1000.0`) or one not finite."""
        return self.is_json and self._whole_floats

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

    @cached_property
    def envelope(self) -> dict[str, Any]:
        body = self.json
        return body if isinstance(body, dict) else {}

    @cached_property
    def meta(self) -> dict[str, Any]:
        meta = self.envelope.get("meta")
        return meta if isinstance(meta, dict) else {}

    @cached_property
    def data(self) -> Any:
        return self.envelope.get("data")

    def curl(self) -> str:
        return curl_command(self.method, self.url, self.request_headers, self.request_body, self.padding)

    def describe(self) -> str:
        """Request, response (an excerpt) and a curl line: what a QA engineer needs to reproduce it."""
        excerpt = self.text if len(self.text) <= EXCERPT else self.text[:EXCERPT] + f"... ({len(self.text)} chars)"
        if self.truncated:
            excerpt += f" [body of {self.size} bytes: the first {len(self.text)} kept]"
        lines = [f"request:  {self.method} {self.url}"]
        if self.request_body is not None:
            body = self.request_body if isinstance(self.request_body, str) else json.dumps(self.request_body)
            lines.append(f"  body:   {body}" + (f" followed by {self.padding} spaces" if self.padding else ""))
        content_type = self.header("content-type") or "-"
        lines.extend(f"  {retry}" for retry in self.retries)
        lines.append(f"response: {self.status} ({content_type}, {self.elapsed * 1000:.0f} ms) {excerpt}")
        lines.append("Reproduce with:")
        lines.append(f"  {self.curl()}")
        return "\n".join(lines)


class ExchangeLog:
    """The client's exchanges: indexed from the first of the run, but only the newest `kept` held in memory.

    `len()` counts every exchange ever added, so `log[start:]` with `start = len(log)` taken earlier gives the
    exchanges since then (as far as they are still kept).
    """

    def __init__(self, kept: int = KEPT_EXCHANGES, observer: Callable[[Exchange], object] | None = None) -> None:
        self._items: deque[Exchange] = deque(maxlen=kept)
        self._count = 0
        self._lock = threading.Lock()  # the end-of-run sweep sends from several threads
        self.observer = observer  # sees every exchange (the run's exchange judge, the HAR recorder)
        # For a failing test's replay (client/replay.py): where the current example of a property test began, the
        # exchange that made each record (by the identifiers its answer gave), and the funding hook's calls by the
        # wallet or account number they paid; at most MADE_KEPT records.
        self.example_start = 0
        self.made: dict[str, Exchange] = {}
        self.payments: dict[str, list[Exchange]] = {}

    def append(self, exchange: Exchange) -> None:
        with self._lock:
            self._items.append(exchange)
            self._count += 1
            if exchange.method == "POST" and exchange.ok and len(self.made) < MADE_KEPT:
                self._remember(exchange)
        if self.observer is not None:
            self.observer(exchange)

    def _remember(self, exchange: Exchange) -> None:
        body = exchange.request_body
        if exchange.operation_id is None and isinstance(body, dict):  # the funding hook
            for name in ("walletId", "accountNumber"):
                if isinstance(body.get(name), str):
                    self.payments.setdefault(body[name], []).append(exchange)
            return
        data = exchange.data
        if isinstance(data, dict):
            sent = json.dumps(body) if body is not None else ""
            for name in ("publicId", "accountNumber", "reference"):
                if isinstance(data.get(name), str) and data[name] not in sent:  # one the target assigned
                    self.made.setdefault(data[name], exchange)

    def mark_example(self) -> None:
        """A property test's example begins: a failure's replay starts here (or at its test's start, if later)."""
        self.example_start = self._count

    def __len__(self) -> int:
        return self._count

    @property
    def oldest_kept(self) -> int:
        """The run-wide index of the oldest exchange still held."""
        return self._count - len(self._items)

    # Read under the lock, from a copy: another thread's exchange may join (and push the oldest out) meanwhile.
    def __iter__(self) -> Iterator[Exchange]:
        with self._lock:
            return iter(list(self._items))

    def __getitem__(self, index: int | slice) -> Any:
        with self._lock:
            items, count = list(self._items), self._count
        first = count - len(items)  # the run-wide index of the oldest kept exchange
        if isinstance(index, slice):
            start, stop, step = index.indices(count)
            return [items[i - first] for i in range(start, stop, step) if i >= first]
        position = index + count if index < 0 else index
        if not first <= position < count:
            raise IndexError(f"exchange {index} is no longer kept (the client keeps the last {len(items)})")
        return items[position - first]
