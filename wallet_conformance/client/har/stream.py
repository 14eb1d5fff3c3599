"""The entries of a HAR file read one at a time, as they are in the file: a file's entries are never all in memory, and
a file that is not a HAR is one HarError naming it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

CHUNK = 1 << 20  # characters read at a time while streaming a file's entries


class HarError(Exception):
    """A file that is not a readable HAR: one message naming the file (and the entry), never a traceback."""


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
