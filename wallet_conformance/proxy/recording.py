"""--record-har in the proxy: the judged exchanges appended to a HAR 1.2 file as they are judged (the key redacted),
rotated by size: past the size, the file is closed (a whole HAR), renamed FILE.1.har (the older ones shifted, the
oldest of HAR_FILES_KEPT removed), and a new FILE begun. The file being written is a whole HAR once the proxy stops."""

from __future__ import annotations

import json
from pathlib import Path

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.entry import entry
from wallet_conformance.client.har.writer import HarWriter
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
        self._writer: HarWriter | None = None
        self._size = 0

    def add(self, exchange: Exchange) -> None:
        if self._writer is None:
            self._writer, self._size = HarWriter(self.path, CREATOR), 0
        self._size += self._writer.add(conceal(json.dumps(entry(exchange))).encode())
        if self._size >= self.max_bytes:
            self._rotate()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def rotated(self, number: int) -> Path:
        """The name of the `number`th file before the current one (1: the newest)."""
        return self.path.with_name(f"{self.path.stem}.{number}{self.path.suffix}")

    def _rotate(self) -> None:
        self.close()
        self.rotated(self.kept).unlink(missing_ok=True)
        for number in range(self.kept - 1, 0, -1):
            if self.rotated(number).exists():
                self.rotated(number).rename(self.rotated(number + 1))
        self.path.rename(self.rotated(1))
        self.rotations += 1
