"""When the answer a thread is waiting for must be whole: from sending its request to the last byte of its body,
head and 1xx answers included, within the request's timeout (the read layer sets it, reading.py).

The wires read it at every step: httpx's through its connections' network backend (network.py), the plain transport
through a watchdog (client/plain_transport.py). A step with no time left fails as a timed-out one does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# When the whole answer must have come (time.perf_counter()), asked at each step: a held-back body's deadline moves
# when its last byte goes (reading.py).
Ends = Callable[[], float]

_ENDS: ContextVar[Ends | None] = ContextVar("wallet_conformance.answer_ends", default=None)


@contextmanager
def answered_by(ends: Ends) -> Iterator[None]:
    """While the block runs, this thread's answer must be whole by `ends()`."""
    token = _ENDS.set(ends)
    try:
        yield
    finally:
        _ENDS.reset(token)


def seconds_left() -> float | None:
    """The seconds left until this thread's answer must be whole (None: no answer is being awaited)."""
    ends = _ENDS.get()
    return None if ends is None else ends() - time.perf_counter()


def cut(timeout: float | None, late: type[Exception]) -> float | None:
    """`timeout`, the wait of one step on the wire, cut to the time left; raises `late` when none is left (a socket
    given no time at all would not wait: it would fail as if the peer had nothing to say)."""
    left = seconds_left()
    if left is None:
        return timeout
    if left <= 0:
        raise late("no whole answer within the request's timeout")
    return left if timeout is None else min(timeout, left)
