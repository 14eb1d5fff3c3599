"""--record-har under xdist: each process appends its exchanges to a part file of its own as they are made, and the
controller joins the parts into one HAR when the run ends.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.entry import entry
from wallet_conformance.client.har.writer import HarWriter
from wallet_conformance.client.redaction import conceal


class PartWriter:
    """One process's exchanges, appended as they are made to a part file (a line per entry: its start, a tab, the
    entry's JSON): bounded memory, and nothing lost when a worker ends. `join` makes the HAR of the parts."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file: IO[str] | None = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()  # a race's threads and the end-of-run sweep's add exchanges at once

    def add(self, exchange: Exchange) -> None:
        found = entry(exchange)
        line = found["startedDateTime"] + "\t" + conceal(json.dumps(found)) + "\n"
        with self._lock:
            if self._file is None:
                return
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def join(parts: Iterable[Path], path: Path, creator: dict[str, str]) -> int:
    """Write the HAR of the part files, their entries in the order the requests started; returns how many it holds.

    A part is in the order its exchanges ended (the end-of-run sweep sends several at once), so the entries are
    sorted by start through an index of where each line is (a few numbers per entry): no body is held."""
    handles = [part.open("rb") for part in parts]
    try:
        index: list[tuple[bytes, int, int, int]] = []
        for number, handle in enumerate(handles):
            offset = 0
            for line in handle:
                started, _, rest = line.partition(b"\t")
                index.append((started, number, offset + len(started) + 1, len(rest.rstrip(b"\n"))))
                offset += len(line)
        index.sort()
        with HarWriter(path, creator) as writer:
            for _, number, offset, length in index:
                handles[number].seek(offset)
                writer.add(handles[number].read(length))
    finally:
        for handle in handles:
            handle.close()
    return writer.entries
