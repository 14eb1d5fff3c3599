"""What the suite may do to the target: writes and money movement are opt-in in production,
and money moved in one run stays under --max-amount."""

from __future__ import annotations

import threading
import unittest
from pathlib import Path

from wallet_conformance.settings import HOOK_MONEY_BUDGET, MONEY_BUDGET, Settings
from wallet_conformance.spec import contract
from wallet_conformance.world.locks import file_lock

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def money_budget(settings: Settings, funding_url: str | None) -> int:
    """The run's money budget: --max-amount when given; else the larger default in staging with a funding hook (its
    money is the hook's), the strict one otherwise (settings/suite_options.py)."""
    if settings.max_amount is not None:
        return settings.max_amount
    return HOOK_MONEY_BUDGET if funding_url and settings.environment != "production" else MONEY_BUDGET


class NotAllowed(unittest.SkipTest):
    """The run may not do this (a write or money movement in production, or past --max-amount).

    The plugin turns it into a skip of the test, in one place (plugin.py). A SkipTest so that Hypothesis
    re-raises it at once instead of taking it for a failure to shrink."""


class Guard:
    """Called by the client before every request; raises NotAllowed when the request is not allowed.

    The money budget is the run's: xdist workers share it through `ledger`, a file holding the kobo spent so far
    (made by the controller), so which test meets an exhausted budget never depends on how tests were dealt out.
    """

    def __init__(self, settings: Settings, budget: int, ledger: Path | None = None) -> None:
        self.settings = settings
        self.budget = budget
        self.ledger = ledger
        self._spent = 0  # without a ledger: this process is the whole run
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
            if self.ledger is None:
                self._spent = self._reserve(self._spent, amount)
                return
            with file_lock(self.ledger) as handle:
                assert handle is not None  # the lock is waited for without end: never missed
                spent = self._reserve(int(handle.read().strip() or 0), amount)
                handle.seek(0)
                handle.truncate()
                handle.write(str(spent))

    def _reserve(self, spent: int, amount: int) -> int:
        if spent + amount > self.budget:
            raise NotAllowed(
                f"the run's money budget (--max-amount) has {self.budget - spent} kobo left, this test needs {amount}"
            )
        return spent + amount
