"""What the suite may do to the target: writes and money movement are opt-in in production,
and money moved in one run stays under --max-amount."""

from __future__ import annotations

import threading
import unittest

from wallet_conformance import contract
from wallet_conformance.options import Settings

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class NotAllowed(unittest.SkipTest):
    """The run may not do this (a write or money movement in production, or past --max-amount).

    The plugin turns it into a skip of the test, in one place (plugin.py). A SkipTest so that Hypothesis
    re-raises it at once instead of taking it for a failure to shrink."""


class Guard:
    """Called by the client before every request; raises NotAllowed when the request is not allowed."""

    def __init__(self, settings: Settings, budget: int) -> None:
        self.settings = settings
        self.remaining = budget
        self._lock = threading.Lock()

    def __call__(self, method: str, operation_id: str | None) -> None:
        if method.upper() not in READ_METHODS and not self.settings.writes_allowed:
            raise NotAllowed("writes are off in production: pass --allow-writes to create or change records")
        if operation_id in contract.money_operations():
            self.require_money_movement()

    def require_money_movement(self) -> None:
        """Raise NotAllowed unless the run may move money (always in staging; opt-in in production)."""
        if not self.settings.money_allowed:
            raise NotAllowed("money movement is off in production: pass --allow-writes --allow-money-movement")

    def spend(self, amount: int) -> None:
        """Reserve `amount` kobo of the run's budget, or raise NotAllowed."""
        with self._lock:
            if amount > self.remaining:
                raise NotAllowed(f"the run's money budget (--max-amount) has {self.remaining} kobo left, "
                                 f"this test needs {amount}")
            self.remaining -= amount
