"""The time bound of what a run is doing now, which its clients read before each request."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Bound:
    """The time bound of what the run is doing now (a test, its teardown): after `deadline` (time.monotonic()) no
    request is sent, and `reason` says why. One per run, shared by its clients; the run moves it from test to test."""

    deadline: float | None = None
    reason: str = ""
