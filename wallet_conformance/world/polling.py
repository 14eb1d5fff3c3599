"""Waiting on the target: every wait of the suite polls through here, bounded by a timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

FIRST_PAUSE = 0.05  # seconds before the second try; the pause doubles up to MAX_PAUSE
MAX_PAUSE = 0.5


def poll(until: Callable[[], Any], timeout: float) -> Any:
    """Call `until` until it returns something truthy or `timeout` seconds pass; returns its last value."""
    deadline = time.monotonic() + timeout
    pause = FIRST_PAUSE
    while True:
        value = until()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, MAX_PAUSE)
