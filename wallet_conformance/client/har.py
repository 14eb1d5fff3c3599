"""HAR 1.2 files: the suite's exchanges written as HAR entries (--record-har), and recorded entries read back as
exchanges (--har), streamed one entry at a time, every secret header redacted before anything is kept.

A HAR (browser devtools, mitmproxy, Charles, Proxyman, Postman, Insomnia) holds keys and cookies in clear. The
values of `x-service-key`, `Authorization`, cookies and the other secret headers of every entry are registered as
secrets (client/redaction.py) before the entry becomes an exchange, so the key need not be known beforehand: it is
replaced wherever it appears, in headers, URLs and bodies, and in every report written afterwards.
"""

from __future__ import annotations

import base64
import binascii
import http
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from wallet_conformance.client.api import MAX_BODY, Exchange
from wallet_conformance.client.redaction import PLACEHOLDER, SECRET_HEADERS, conceal, learn, redact, redact_headers
from wallet_conformance.spec import contract

VERSION = "1.2"
HTTP_VERSION = "HTTP/1.1"
CHUNK = 1 << 20  # characters read at a time while streaming a file's entries
KEY_HEADERS = frozenset({"x-service-key", "authorization", "proxy-authorization"})  # values that are keys


class HarError(Exception):
    """A file that is not a readable HAR: one message naming the file (and the entry), never a traceback."""


# ------------------------------------------------------------------ writing


def _iso(seconds: float | None) -> str:
    moment = datetime.fromtimestamp(seconds or 0.0, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _pairs(headers: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers]


def _header(headers: Iterable[tuple[str, str]], name: str) -> str | None:
    return next((value for key, value in headers if key.lower() == name), None)


def entry(exchange: Exchange) -> dict[str, Any]:
    """One exchange as a HAR 1.2 entry (its secrets were replaced when the client kept it)."""
    milliseconds = round(exchange.elapsed * 1000, 3)
    request: dict[str, Any] = {
        "method": exchange.method,
        "url": exchange.url,
        "httpVersion": HTTP_VERSION,
        "cookies": [],
        "headers": _pairs(exchange.request_headers),
        "queryString": _pairs(parse_qsl(urlsplit(exchange.url).query, keep_blank_values=True)),
        "headersSize": -1,
        "bodySize": 0,
    }
    body = exchange.request_body
    if body is not None:
        text = body if isinstance(body, str) else json.dumps(body)
        request["postData"] = {
            "mimeType": _header(exchange.request_headers, "content-type") or "application/json",
            "text": text,
        }
        request["bodySize"] = len(text.encode()) + exchange.padding
        if exchange.padding:
            request["postData"]["comment"] = f"sent followed by {exchange.padding} spaces, not kept here"
    size = exchange.size if exchange.truncated else len(exchange.text.encode())
    content: dict[str, Any] = {"size": size, "mimeType": exchange.header("content-type") or "", "text": exchange.text}
    if exchange.truncated:
        content["comment"] = f"cut by the client: the first {len(exchange.text.encode())} of {size} bytes kept"
    try:
        phrase = http.HTTPStatus(exchange.status).phrase
    except ValueError:
        phrase = ""
    return {
        "startedDateTime": _iso(exchange.started),
        "time": milliseconds,
        "request": request,
        "response": {
            "status": exchange.status,
            "statusText": phrase,
            "httpVersion": HTTP_VERSION,
            "cookies": [],
            "headers": _pairs(exchange.response_headers),
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": size,
        },
        "cache": {},
        "timings": {"send": 0, "wait": milliseconds, "receive": 0},
    }


class PartWriter:
    """One process's exchanges, appended as they are made to a part file (a line per entry: its start, a tab, the
    entry's JSON): bounded memory, and nothing lost when a worker ends. `join` makes the HAR of the parts."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file: IO[str] | None = path.open("a", encoding="utf-8")

    def add(self, exchange: Exchange) -> None:
        if self._file is None:
            return
        found = entry(exchange)
        self._file.write(found["startedDateTime"] + "\t" + conceal(json.dumps(found)) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def join(parts: Iterable[Path], path: Path, creator: dict[str, str]) -> int:
    """Write the HAR of the part files, their entries in the order the requests started; returns how many it holds.

    A part is in the order its exchanges ended (the end-of-run sweep sends several at once), so the entries are
    sorted by start through an index of where each line is (a few numbers per entry): no body is held."""
    handles = [part.open("rb") for part in parts]
    written = 0
    try:
        index: list[tuple[bytes, int, int, int]] = []
        for number, handle in enumerate(handles):
            offset = 0
            for line in handle:
                started, _, rest = line.partition(b"\t")
                index.append((started, number, offset + len(started) + 1, len(rest.rstrip(b"\n"))))
                offset += len(line)
        index.sort()
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as out:
            opening = json.dumps({"version": VERSION, "creator": creator, "pages": []})[:-1]
            out.write(('{"log": ' + opening + ', "entries": [\n').encode())
            for _, number, offset, length in index:
                handles[number].seek(offset)
                out.write((b",\n" if written else b"") + handles[number].read(length))
                written += 1
            out.write(b"\n]}}\n")
    finally:
        for handle in handles:
            handle.close()
    return written


# ------------------------------------------------------------------ reading: a stream of entries


class _Stream:
    """A JSON text read piece by piece: one value at a time is decoded, so a file's entries are never all in
    memory."""

    def __init__(self, handle: IO[str], name: str) -> None:
        self.handle, self.name = handle, name
        self.text, self.at, self.ended = "", 0, False
        self.decoder = json.JSONDecoder()

    def _more(self) -> bool:
        if self.ended:
            return False
        try:
            # A value longer than what is held: read as much again, so a long body is decoded a few times, not once
            # per CHUNK.
            chunk = self.handle.read(max(CHUNK, len(self.text) - self.at))
        except UnicodeDecodeError as error:
            raise HarError(f"{self.name}: not a HAR file: not UTF-8 text ({error.reason})") from None
        if not chunk:
            self.ended = True
            return False
        self.text = self.text[self.at :] + chunk
        self.at = 0
        return True

    def peek(self) -> str:
        while True:
            while self.at < len(self.text) and self.text[self.at] in " \t\r\n":
                self.at += 1
            if self.at < len(self.text) or not self._more():
                return self.text[self.at] if self.at < len(self.text) else ""

    def expect(self, characters: str, where: str) -> str:
        found = self.peek()
        if not found or found not in characters:
            what = "the file ends" if not found else f"{found!r} comes"
            raise HarError(f"{self.name}: not a HAR file, or cut short ({what} where {where} should)")
        self.at += 1
        return found

    def value(self, where: str) -> Any:
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.text, self.at)
            except json.JSONDecodeError:
                if self._more():
                    continue
                raise HarError(
                    f"{self.name}: not a HAR file, or cut short (no readable JSON value for {where})"
                ) from None
            if end == len(self.text) and self._more():  # a number may go on in the next piece
                continue
            self.at = end
            return value


def _members(stream: _Stream, where: str) -> Iterator[str]:
    """The keys of the object that starts here, each left for the caller to read the value of."""
    stream.expect("{", where)
    if stream.peek() == "}":
        stream.at += 1
        return
    while True:
        key = stream.value(f"a key of {where}")
        if not isinstance(key, str):
            raise HarError(f"{stream.name}: not a HAR file ({where} is not a JSON object)")
        stream.expect(":", f"the ':' after {key!r}")
        yield key
        if stream.expect(",}", f"',' or '}}' in {where}") == "}":
            return


def raw_entries(path: Path) -> Iterator[dict[str, Any]]:
    """The entries of a HAR file, one at a time, as they are in the file; a HarError for a file that is not one."""
    name = str(path)
    try:
        handle = path.open(encoding="utf-8-sig")
    except OSError as error:
        raise HarError(f"{name}: cannot read it ({error.strerror})") from None
    seen_entries = False
    with handle:
        stream = _Stream(handle, name)
        first = stream.peek()
        if first != "{":
            raise HarError(f"{name}: not a HAR file: {_opening(first)}")
        for key in _members(stream, "the file"):
            if key != "log":
                stream.value(key)
                continue
            for log_key in _members(stream, "log"):
                if log_key != "entries":
                    stream.value(f"log.{log_key}")
                    continue
                seen_entries = True
                stream.expect("[", "log.entries")
                if stream.peek() == "]":
                    stream.at += 1
                    continue
                index = 0
                while True:
                    found = stream.value(f"entry {index}")
                    _check(found, name, index)
                    yield found
                    index += 1
                    if stream.expect(",]", "',' or ']' after an entry") == "]":
                        break
    if not seen_entries:
        raise HarError(f"{name}: not a HAR file (no log.entries)")


def _opening(first: str) -> str:
    """What a file begins with, where a HAR's JSON object should (its content is not shown: it may be a secret)."""
    if not first:
        return "the file is empty"
    found = {"[": "a JSON array", '"': "a JSON string", "<": "markup (HTML or XML)"}.get(first)
    if found is None:
        found = "a JSON number" if first in "-0123456789" else "text"
    return f"{found} where a JSON object should begin"


def _check(found: Any, name: str, index: int) -> None:
    request = found.get("request") if isinstance(found, dict) else None
    response = found.get("response") if isinstance(found, dict) else None
    if not (
        isinstance(request, dict)
        and isinstance(request.get("method"), str)
        and isinstance(request.get("url"), str)
        and isinstance(response, dict)
        and type(response.get("status")) is int
    ):
        raise HarError(
            f"{name}: entry {index} is not a HAR entry (it needs request.method, request.url and response.status)"
        )


# ------------------------------------------------------------------ reading: which target, which operation


def base_of(url: str) -> str | None:
    """The base address a URL is under: its origin and its path up to the version segment (`/v1`); None when the
    path has no such segment."""
    parts = urlsplit(url)
    segment = contract.version_segment().strip("/")
    names = parts.path.split("/")
    if segment not in names or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}" + "/".join(names[: names.index(segment) + 1])


@cache
def _templates() -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """(method, path pattern, operationId) of every operation; literal paths first (`/transactions/banks` before a
    path with a parameter in its place)."""
    found = [(operation.method.upper(), operation.path, operation.id) for operation in contract.operations().values()]
    found.sort(key=lambda item: "{" in item[1])
    return tuple(
        (method, re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)) + "$"), operation_id)
        for method, path, operation_id in found
    )


def operation_of(method: str, url: str, base_url: str) -> str | None:
    """The operation a request under `base_url` is, by its method and openapi.yaml's path templates; None when it is
    none of them."""
    parts, base = urlsplit(url), urlsplit(base_url)
    if (parts.scheme, parts.netloc) != (base.scheme, base.netloc) or not parts.path.startswith(base.path + "/"):
        return None
    path = parts.path[len(base.path) :]
    return next(
        (
            operation_id
            for verb, pattern, operation_id in _templates()
            if verb == method.upper() and pattern.match(path)
        ),
        None,
    )


def in_target(url: str, base_url: str) -> bool:
    parts, base = urlsplit(url), urlsplit(base_url)
    return (parts.scheme, parts.netloc) == (base.scheme, base.netloc) and (
        parts.path == base.path or parts.path.startswith(base.path.rstrip("/") + "/")
    )


# ------------------------------------------------------------------ reading: an entry as an exchange


def _headers(part: dict[str, Any]) -> list[tuple[str, str]]:
    headers = part.get("headers")
    if not isinstance(headers, list):
        return []
    return [
        (str(header.get("name")), str(header.get("value", "")))
        for header in headers
        if isinstance(header, dict) and isinstance(header.get("name"), str) and not header["name"].startswith(":")
    ]  # HTTP/2 pseudo-headers: the request line says them


def _learn_secrets(found: dict[str, Any]) -> None:
    """Register every secret an entry carries (secret headers' values, the token of an Authorization, every cookie's
    value): each is then replaced wherever it appears."""
    for side in ("request", "response"):
        part = found.get(side) or {}
        for name, value in _headers(part):
            lowered = name.lower()
            if lowered in KEY_HEADERS:
                token = value.strip().partition(" ")[2]  # `Bearer <token>`: the token alone is a key too
                for key in {value.strip(), token.strip()}:
                    if key and key != PLACEHOLDER and not _public(key):
                        learn(key)
            elif lowered in SECRET_HEADERS:
                _learn_cookies(value)
        for cookie in part.get("cookies") or ():
            kept = cookie.get("value") if isinstance(cookie, dict) else None
            if isinstance(kept, str) and kept:
                learn(kept)


@cache
def _public_prefixes() -> tuple[str, ...]:
    return contract.prefix("livePublicKey"), contract.prefix("testPublicKey")


def _public(key: str) -> bool:
    """Whether a key sent is one of the account's public keys (a client trying one as its key): not a secret, since
    every account answer shows it (pubKey), and redacted there it would break the account's table."""
    return key.startswith(_public_prefixes())


def _learn_cookies(value: str) -> None:
    for pair in value.split(";"):
        _, _, cookie = pair.partition("=")
        if cookie.strip():
            learn(cookie.strip())


def _request_body(request: dict[str, Any]) -> Any:
    posted = request.get("postData")
    text = posted.get("text") if isinstance(posted, dict) else None
    if not isinstance(text, str):
        return None
    text = redact(text)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser goes: judged as text
        return text


def _response_text(content: Any) -> tuple[str, int | None]:
    """The response body as the client would keep it, and its whole size when more was received than is kept
    (a body cut at the cap, or not recorded at all)."""
    content = content if isinstance(content, dict) else {}
    text = content.get("text")
    size = content.get("size")
    size = size if type(size) is int and size > 0 else 0
    if not isinstance(text, str):
        return "", size or None  # a body the recorder left out cannot be judged; an empty one can
    if content.get("encoding") == "base64":
        try:
            body = base64.b64decode(text, validate=False)
        except (binascii.Error, ValueError):
            return "", size or 1
    else:
        body = text.encode("utf-8", errors="replace")
    whole = max(size, len(body))
    kept = body[:MAX_BODY]
    return kept.decode("utf-8", errors="replace"), whole if whole > len(kept) else None


def exchange(found: dict[str, Any], base_url: str) -> Exchange:
    """A HAR entry as the exchange the client would have kept: its operation (None when it is none), secrets
    replaced, the body cut where the client cuts it."""
    _learn_secrets(found)
    request, response = found["request"], found["response"]
    method, url = request["method"].upper(), request["url"]
    text, size = _response_text(response.get("content"))
    elapsed = found.get("time")
    return Exchange(
        operation_id=operation_of(method, url, base_url),
        method=method,
        url=redact(url),
        request_headers=redact_headers(_headers(request)),
        request_body=_request_body(request),
        status=response["status"],
        response_headers=redact_headers(_headers(response)),
        text=redact(text),
        elapsed=elapsed / 1000 if isinstance(elapsed, int | float) and elapsed > 0 else 0.0,
        size=size,
    )


def from_httpx(response: httpx.Response, base_url: str) -> Exchange:
    """An httpx exchange (its response read) as the exchange the client would have kept, like a HAR entry: for
    judging traffic the suite did not send (reporting/judging.py)."""
    request = response.request
    body = request.content.decode("utf-8", errors="replace") if request.content else None
    try:
        elapsed = response.elapsed.total_seconds() * 1000
    except RuntimeError:  # a response that was never sent over the wire (an httpx.MockTransport's) has none
        elapsed = 0
    found = {
        "request": {
            "method": request.method,
            "url": str(request.url),
            "headers": [{"name": name, "value": value} for name, value in request.headers.items()],
            **(
                {"postData": {"mimeType": request.headers.get("content-type", ""), "text": body}}
                if body is not None
                else {}
            ),
        },
        "response": {
            "status": response.status_code,
            "headers": [{"name": name, "value": value} for name, value in response.headers.items()],
            "content": {"text": response.text, "size": len(response.content)},
        },
        "time": elapsed,
    }
    return exchange(found, base_url)


@dataclass(frozen=True)
class Recorded:
    """One entry of a HAR file: where it is (the file, its index from 0) and its exchange (None: outside the
    target's base URL)."""

    file: Path
    index: int
    exchange: Exchange | None
    request: str  # method and URL, redacted: how a listing names it


def recorded(paths: Iterable[Path], base_url: str | None) -> Iterator[Recorded]:
    """Every entry of the files, in order, as an exchange of the target at `base_url` (or as outside it; with no base
    address every entry is outside)."""
    for path in paths:
        for index, found in enumerate(raw_entries(path)):
            request = found["request"]
            made = exchange(found, base_url) if base_url and in_target(request["url"], base_url) else None
            if made is None:
                _learn_secrets(found)
            yield Recorded(path, index, made, redact(f"{request['method'].upper()} {request['url']}"))


def bases(paths: Iterable[Path]) -> dict[str, int]:
    """The base addresses the files' entries are under, with how many entries each (a pass over every entry: a
    file that is not a HAR is found here, before anything is judged)."""
    found: dict[str, int] = {}
    for path in paths:
        for raw in raw_entries(path):
            base = base_of(raw["request"]["url"])
            if base is not None:
                found[base] = found.get(base, 0) + 1
    return found
