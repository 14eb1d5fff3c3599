"""--record-har in the proxy: the judged exchanges appended to a HAR 1.2 file as they are judged (the key redacted),
rotated by size: past the size, the file is closed (a whole HAR), renamed FILE.1.har (the older ones shifted, the
oldest of HAR_FILES_KEPT removed), and a new FILE begun. The file being written is a whole HAR once the proxy stops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from wallet_conformance.client.api import Exchange
from wallet_conformance.client.har.entry import VERSION, entry
from wallet_conformance.client.redaction import conceal
from wallet_conformance.settings import HAR_FILES_KEPT, PROGRAM

CREATOR = {"name": f"{PROGRAM} proxy", "version": "1"}


class RotatingHar:
    """A HAR file written entry by entry, rotated past `max_bytes`."""

    def __init__(self, path: Path, max_bytes: int, kept: int = HAR_FILES_KEPT) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.kept = kept
        self.rotations = 0
        self._file: IO[str] | None = None
        self._entries = 0
        self._size = 0

    def add(self, exchange: Exchange) -> None:
        if self._file is None:
            self._open()
        assert self._file is not None
        text = ("" if not self._entries else ",\n") + conceal(json.dumps(entry(exchange)))
        self._file.write(text)
        self._entries += 1
        self._size += len(text)
        if self._size >= self.max_bytes:
            self._rotate()

    def close(self) -> None:
        if self._file is not None:
            self._file.write("\n]}}\n")
            self._file.close()
            self._file = None

    def rotated(self, number: int) -> Path:
        """The name of the `number`th file before the current one (1: the newest)."""
        return self.path.with_name(f"{self.path.stem}.{number}{self.path.suffix}")

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("w", encoding="utf-8")
        opening = json.dumps({"version": VERSION, "creator": CREATOR, "pages": []})[:-1]
        self._file.write('{"log": ' + opening + ', "entries": [\n')
        self._entries, self._size = 0, 0

    def _rotate(self) -> None:
        self.close()
        self.rotated(self.kept).unlink(missing_ok=True)
        for number in range(self.kept - 1, 0, -1):
            if self.rotated(number).exists():
                self.rotated(number).rename(self.rotated(number + 1))
        self.path.rename(self.rotated(1))
        self.rotations += 1
