"""File locks shared by the processes of one run (xdist workers) and by runs that share a report directory: the
flock itself, and the run's two locks on what its processes share of the account (its wallet list, and what else the
account shares)."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import IO, Any

from wallet_conformance.spec import contract

POLL = 0.005  # seconds between two tries of a lock waited for with a bound
# The lock file through which the run's own workers hold the wallet list still while one of them reads its pages
# (see WalletList.still).
WALLET_LIST_LOCK = ".wallet-list.lock"
# Seconds a worker waits for that lock before going on without it: a slow target must not serialise the run.
WALLET_LIST_WAIT = 5.0
# The lock file of what the account shares (its webhooks, its primary-wallet places): see AccountWideLock.
ACCOUNT_WIDE_LOCK = ".account-wide.lock"


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


class WalletList:
    """The run's hold on the account's wallet list, one per process: a test reading its pages holds it `still`, and
    the run's clients send the calls that change it under `sending` (ApiClient's), waiting while a worker reads it."""

    def __init__(self, work_dir: Path) -> None:
        self.lock = work_dir / WALLET_LIST_LOCK
        self._reading = False

    @contextmanager
    def still(self) -> Iterator[None]:
        """Hold the wallet list still while a test reads its pages: no worker of this run creates or closes a
        wallet meanwhile (its calls wait in `sending`). Otherwise the run's own workers, adding wallets all the
        time under `-n 4`, would keep shifting the pages and the paging tests would never judge them. Other
        clients of the account are not held: lists.judgeable copes with them."""
        with file_lock(self.lock, wait=WALLET_LIST_WAIT):
            self._reading = True
            try:
                yield
            finally:
                self._reading = False

    def sending(self, operation_id: str) -> AbstractContextManager[Any]:
        """What a client sends a call under: a call that changes the wallet list waits while another worker reads
        it (not in the process that reads it, which holds the lock itself)."""
        if operation_id not in contract.wallet_list_changes() or self._reading:
            return nullcontext()
        return file_lock(self.lock, shared=True, wait=WALLET_LIST_WAIT)


class AccountWideLock:
    """The run's one lock on what the account shares (its webhooks, its primary-wallet places), one per key's
    records (`Resources.account_wide`): xdist workers take turns, whatever the dist mode."""

    def __init__(self, work_dir: Path) -> None:
        self.path = work_dir / ACCOUNT_WIDE_LOCK
        self._depth = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock. Re-entrant within this process, so code holding it may call code that takes it again."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        with file_lock(self.path):
            self._depth = 1
            try:
                yield
            finally:
                self._depth = 0
