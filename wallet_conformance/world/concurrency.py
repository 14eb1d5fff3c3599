"""Requests released together: the building block of every race the suite runs (transfers that together exceed a
balance, payments into one wallet, one collection reference asked for several times, primary wallets asked for with
one place left).

A race window on a server can be as narrow as the gap between the two statements of a read-then-write. To land
requests in one, each sender opens a connection of its own and sends its whole request but the last byte; a barrier
then releases the last bytes together (the last-byte synchronisation of race testing), so that the requests complete
at the target within a fraction of a millisecond of each other, however long each connection took to open. There are
tens of them (RACERS), and a race is run ROUNDS times on fresh records.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from wallet_conformance.client.api import ApiClient, Exchange, TargetError

# Requests released together in a race. Every sender holds a connection and a thread for the race's length.
RACERS = 24
# Times a race is run, each on fresh records, stopping at the first that shows the target losing the race.
ROUNDS = 3
# Seconds a sender waits at the barrier beyond the request timeout before the release is given up.
BARRIER_GRACE = 5.0


def release(api: ApiClient, send: Callable[[int], Exchange], count: int = RACERS) -> list[Exchange]:
    """`count` requests released together: each thread calls `send(number)`, which must send one request with a body
    (a POST); over the thread's own connection all of it but the last byte goes out, then the thread waits until every
    thread got that far, and the last bytes go together. Returns the exchanges in `number` order.

    `send` must not skip or raise CannotJudge from its thread (a skip there would stop the whole test); it sends
    straight through the client and leaves judging to the caller. A sender that fails before the release breaks the
    barrier, so the others stop at once; its error is raised once every thread has ended (each is bounded by the
    request timeout)."""
    ready = threading.Barrier(count)
    patience = api.timeout + BARRIER_GRACE

    def sender(number: int) -> Exchange:
        with api.own_connection(gate=lambda: ready.wait(timeout=patience)):
            try:
                return send(number)
            except BaseException:
                ready.abort()  # the others stop waiting at once
                raise

    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="race") as pool:
        futures = [pool.submit(sender, number) for number in range(count)]
    return _results(futures, patience)


def _results(futures: list[Future[Exchange]], patience: float) -> list[Exchange]:
    """The senders' exchanges; else the error that stopped the release (not the broken barrier it left the others)."""
    errors = [error for future in futures if (error := future.exception()) is not None]
    causes = [error for error in errors if not isinstance(error, threading.BrokenBarrierError)]
    if causes:
        raise causes[0]
    if errors:
        raise TargetError(
            f"the {len(futures)} requests of a race were not all sent but their last byte within "
            f"{patience:g} s: the target takes requests too slowly to race"
        )
    return [future.result() for future in futures]
