"""Judging on the side: the exchanges the proxy forwarded, judged by the exchange judge and held to the registry of
records (reporting/judging.py's JudgingSession, as `--har` judges them) in a thread of their own, fed through a
bounded queue. A full queue drops the exchange and counts it: the judge falling behind never slows the traffic."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from wallet_conformance.client import har
from wallet_conformance.client.api import Exchange
from wallet_conformance.judge.record_registry import RecordRegistry
from wallet_conformance.proxy.captured import Captured
from wallet_conformance.reporting.judging import Found, JudgingSession

QUEUE = 10_000  # exchanges waiting for the judge, at most; beyond, they are dropped (counted)
QUEUE_BYTES = 64 * 1024 * 1024  # and their bodies' bytes at most (a body is kept up to 256 KiB each way)
SOURCE = "live traffic"  # how a finding's first_seen_in names the proxy's traffic: "live traffic entry 41"
Key = tuple[str, str, str]  # (judge, requirement, operation)


class SideJudge:
    """One session judging the proxy's exchanges in order, in its thread. `first_break` is told of each requirement
    and operation the first time an exchange breaks it; `recorded` of each exchange judged (for --record-har)."""

    def __init__(self, upstream: str, max_records: int, first_break: Callable[[Found], None] | None = None,
                 recorded: Callable[[Exchange], None] | None = None, size: int = QUEUE) -> None:
        self.session = JudgingSession(upstream)
        self.session.judged.records = RecordRegistry(limit=max_records)
        self.lock = threading.Lock()  # the session's state: the judging thread, a report, an annotation
        self.dropped = 0
        self.entries = 0  # exchanges taken by the judge
        self.queued_bytes = 0  # bytes of the bodies waiting
        self._bytes_lock = threading.Lock()
        self.done = 0  # exchanges it has finished with
        self._queue: queue.Queue[Captured | None] = queue.Queue(maxsize=size)
        self._first_break = first_break
        self._recorded = recorded
        self._told: set[Key] = set()
        self._thread = threading.Thread(target=self._work, name="proxy-judge", daemon=True)
        self._thread.start()

    def offer(self, captured: Captured) -> None:
        """Hand one exchange over without waiting: dropped (counted) when the judge is that far behind."""
        size = len(captured.request_body) + len(captured.response_body)
        if self.queued_bytes + size > QUEUE_BYTES:
            self.dropped += 1
            return
        try:
            self._queue.put_nowait(captured)
        except queue.Full:
            self.dropped += 1
            return
        with self._bytes_lock:
            self.queued_bytes += size

    def judge(self, captured: Captured) -> list[str]:
        """Judge one exchange now (--annotate); the requirements it broke, in id order."""
        with self.lock:
            before = {key: found.count for key, found in self.session.judged.pending.items()}
            self._judge(captured)
            broken = {key[1] for key, found in self.session.judged.pending.items() if found.count > before.get(key, 0)}
        return sorted(broken)

    def close(self, wait: float) -> None:
        """Stop taking exchanges; judge those waiting for up to `wait` seconds (the rest are counted dropped)."""
        self._queue.put(None)
        self._thread.join(timeout=wait)
        if self._thread.is_alive():
            self.dropped += self._queue.qsize()

    def waiting(self) -> int:
        return self._queue.qsize()

    def _work(self) -> None:
        while (captured := self._queue.get()) is not None:
            with self._bytes_lock:
                self.queued_bytes -= len(captured.request_body) + len(captured.response_body)
            with self.lock:
                self._judge(captured)

    def _judge(self, captured: Captured) -> None:
        self.entries += 1
        base = self.session.base_url or ""
        exchange = har.exchange(captured.har_entry(), base) if har.in_target(captured.url, base) else None
        if exchange is not None:
            exchange.started = captured.started
        self.session.judge(exchange, {"file": SOURCE, "entry": self.entries,
                                      "request": f"{exchange.method} {exchange.url}" if exchange else
                                      f"{captured.method} {captured.url}"})
        if exchange is not None and self._recorded is not None:
            self._recorded(exchange)
        if self._first_break is not None:
            for key, found in self.session.judged.pending.items():
                if key not in self._told and found.evidence is not None:
                    self._told.add(key)
                    self._first_break(found)
        self.done += 1

    def facts(self) -> dict[str, Any]:
        """The registry's bound and what it forgot, and what was dropped (for the report)."""
        records = self.session.judged.records
        return {"dropped": self.dropped, "registry_bound": records.limit, "forgotten": dict(records.forgotten)}
