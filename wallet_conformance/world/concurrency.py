"""Requests sent at once: the building block of every race the suite runs (transfers that together exceed a
balance, primary wallets asked for with one place left)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from wallet_conformance.client.api import Exchange

# Seconds a sender waits at the barrier beyond the request timeout before the burst is given up.
BARRIER_GRACE = 5.0


def burst(send: Callable[[int], Exchange], count: int, request_timeout: float) -> list[Exchange]:
    """`count` requests released together: each thread calls `send(number)` once every thread is ready, so the
    target gets them as close together as one process can send them. Returns the exchanges in `number` order.

    `send` must not skip or raise CannotJudge from its thread (a skip there would stop the whole test); it sends
    straight through the client and leaves judging to the caller."""
    start = threading.Barrier(count)
    wait = request_timeout + BARRIER_GRACE

    def released(number: int) -> Exchange:
        start.wait(timeout=wait)
        return send(number)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(released, range(count), timeout=wait * 2))
