"""SIGINT and SIGTERM end a conformance run alike, in every process of it (the controller and each xdist worker): as
the interruption pytest knows (KeyboardInterrupt), the signal's name kept for the reports. Without this SIGTERM (a
CI's cancel, `kill`) ends the process at once: no report, no cleanup.

Once the final reports are being written (plugin/recording.py) it is too late to change how the run ended: a signal
then is noted, not raised, so the reports are written whole and the process exits with the status they give.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import pytest

SIGNALS = (signal.SIGINT, signal.SIGTERM)
INTERRUPTION = pytest.StashKey["Interruption"]()


@dataclass
class Interruption:
    """The signals a run received, by name and in order, and whether they came once its final reports were being
    written (`late`)."""

    received: list[str] = field(default_factory=list)
    late: list[str] = field(default_factory=list)
    _final: bool = False
    _previous: dict[int, Any] = field(default_factory=dict)

    def install(self) -> None:
        """Handle the signals from now on (only the main thread can; a run elsewhere keeps the handlers it has)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for number in SIGNALS:
            self._previous[number] = signal.signal(number, self._handle)

    def restore(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()

    def _handle(self, number: int, frame: FrameType | None) -> None:
        name = signal.Signals(number).name
        if self._final:
            self.late.append(name)
            return
        self.received.append(name)
        raise KeyboardInterrupt(name)

    @contextmanager
    def final(self) -> Iterator[None]:
        """While the final reports are written (and until the process ends): a signal is noted, not raised."""
        self._final = True
        yield

    def reason(self) -> str | None:
        """How the run was interrupted, when it was: the signals, in order."""
        if not self.received:
            return None
        first, *again = self.received
        return f"interrupted ({first}" + (f", then {', '.join(again)}" if again else "") + ")"


def of(config: pytest.Config) -> Interruption:
    """The run's interruption (an empty one where none was installed)."""
    return config.stash.setdefault(INTERRUPTION, Interruption())
