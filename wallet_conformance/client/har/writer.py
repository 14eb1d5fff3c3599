"""A HAR 1.2 file written entry by entry: the log's opening, each entry's JSON as it comes, and the ending that makes
it a whole HAR. --record-har's join of the part files and the proxy's rotated recording both write through it."""

from __future__ import annotations

import json
from pathlib import Path
from types import TracebackType
from typing import IO

VERSION = "1.2"


class HarWriter:
    """One HAR file being written. `add` appends an entry's JSON; `close` writes the ending. As a context manager,
    the ending is written only when the block did not fail: a file cut short stays one no reader takes for whole."""

    def __init__(self, path: Path, creator: dict[str, str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = path.open("wb")
        opening = json.dumps({"version": VERSION, "creator": creator, "pages": []})[:-1]
        self._file.write(('{"log": ' + opening + ', "entries": [\n').encode())
        self.entries = 0

    def add(self, entry: bytes) -> int:
        """Append one entry's JSON; returns the bytes written (its separator included)."""
        assert self._file is not None
        written = (b",\n" if self.entries else b"") + entry
        self._file.write(written)
        self.entries += 1
        return len(written)

    def close(self) -> None:
        if self._file is not None:
            self._file.write(b"\n]}}\n")
            self._file.close()
            self._file = None

    def __enter__(self) -> HarWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
        elif self._file is not None:
            self._file.close()
            self._file = None
