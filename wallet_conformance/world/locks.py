"""File locks shared by the processes of one run (xdist workers) and by runs that share a report directory."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

POLL = 0.005  # seconds between two tries of a lock waited for with a bound


@contextmanager
def file_lock(path: Path, *, shared: bool = False, wait: float | None = None) -> Iterator[IO[str] | None]:
    """An flock on `path` (made if missing), exclusive unless `shared`; waited for without end, or at most `wait`
    seconds. Yields the open file (read and write, at its start) while the lock is held, or None when it could not
    be taken in time (the caller goes on without it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    with os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+") as handle:
        held = _take(handle, mode, wait)
        try:
            yield handle if held else None
        finally:
            if held:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _take(handle: IO[str], mode: int, wait: float | None) -> bool:
    if wait is None:
        fcntl.flock(handle, mode)
        return True
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(handle, mode | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL)
