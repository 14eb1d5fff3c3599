"""The two waits of world/money.py, against a scripted target: the settlement wait (`settled_or_none`, and
`settled_or_skip`, which skips) and the balance wait (`balance_or_last`), each within its option's time, reading
once per poll."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from wallet_conformance.client.api import TargetError
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.spec import contract
from wallet_conformance.world import money
from wallet_conformance.world.resources import Resources

SETTLE, QUIET = 1.0, 0.2  # --settle-timeout and --quiet-window of these runs, in seconds
WALLET = "vba-w"


@dataclass
class Answer:
    ok: bool
    data: Any


@dataclass
class Times:
    settle_timeout: float = SETTLE
    quiet_window: float = QUIET


@dataclass
class Scripted:
    """What the money waits read of a target: balances and verify's statuses, each the next of its script (the last
    one again once the script is spent), every read counted."""

    balances: list[int] = field(default_factory=list)
    statuses: list[str | None] = field(default_factory=list)
    settings: Times = field(default_factory=Times)
    gave_up: dict[str, str] = field(default_factory=dict)
    reads: int = 0
    verifies: int = 0
    due: list[int] | None = None  # what the target says it has yet to change, asked in turn; None: it cannot say
    asked: int = 0

    def nothing_due(self) -> bool:
        if self.due is None:
            return False
        self.asked += 1
        return (self.due.pop(0) if len(self.due) > 1 else self.due[0]) == 0

    def balance(self, _wallet: str) -> int:
        self.reads += 1
        return self.balances.pop(0) if len(self.balances) > 1 else self.balances[0]

    def verify(self, reference: str) -> Answer:
        self.verifies += 1
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        return Answer(True, {"reference": reference, "status": status})


def timed(wait, *args: Any, **keywords: Any) -> tuple[Any, float]:
    started = time.monotonic()
    return wait(*args, **keywords), time.monotonic() - started


def test_a_transfer_that_leaves_pending_is_its_transaction_at_once():
    """The settlement wait gives the transaction verify shows once its status is no longer pending."""
    target = Scripted(statuses=[contract.pending_state(), contract.pending_state(), contract.success_state()])
    done, seconds = timed(money.settled_or_none, target, "ref-1")
    assert done["status"] == contract.success_state() and target.verifies == 3 and seconds < SETTLE, seconds


def test_a_transfer_still_pending_is_none_after_the_settle_timeout_and_remembered():
    """Still pending after --settle-timeout: None, and later waits do not wait again (one that must settle stops the
    test, one that need not is None at once)."""
    target = Scripted(statuses=[contract.pending_state()])
    done, seconds = timed(money.settled_or_none, target, "ref-1")
    assert done is None and seconds >= SETTLE, seconds
    verifies = target.verifies
    assert money.settled_or_none(target, "ref-2", must_settle=False) is None and target.verifies == verifies
    with pytest.raises(TargetError, match="not waited again: transaction ref-1 stayed pending"):
        money.settled_or_none(target, "ref-3")


def test_a_look_at_a_transfer_is_waited_for_and_not_remembered():
    """A wait with no question of whether the transfer must settle waits even after another gave up, and leaves no
    mark."""
    target = Scripted(statuses=[contract.pending_state()], gave_up={money.SETTLEMENT: "earlier"})
    done, seconds = timed(money.settled_or_none, target, "ref-1", must_settle=None)
    assert done is None and seconds >= SETTLE and target.gave_up == {money.SETTLEMENT: "earlier"}


def test_settled_or_skip_skips_a_transfer_still_pending():
    """The skipping form of the settlement wait: a transfer still pending after --settle-timeout is a skip."""
    with pytest.raises(CannotJudge, match="still pending after --settle-timeout"):
        money.settled_or_skip(Scripted(statuses=[contract.pending_state()]), "ref-1")


def test_skip_unless_completed_skips_only_an_end_that_moved_nothing():
    """A transaction that ended another way and moved nothing is skipped; a completed one, or one that moved money, is
    judged."""
    with pytest.raises(CannotJudge, match="did not complete"):
        money.skip_unless_completed({"reference": "ref-1", "status": "failed"}, moved=False)
    money.skip_unless_completed({"reference": "ref-1", "status": "failed"}, moved=True)
    money.skip_unless_completed({"reference": "ref-1", "status": contract.success_state()}, moved=False)


@pytest.mark.parametrize(
    ("status", "least", "most"), [(contract.success_state(), SETTLE, None), ("failed", QUIET, SETTLE)]
)
def test_a_balance_that_never_moves_after_a_settlement_is_its_value_before(status, least, most):
    """Waited for within --settle-timeout after a completed transfer, --quiet-window after another end: a balance
    that never moves is given as it was."""
    target = Scripted(balances=[500])
    value, seconds = timed(money.balance_or_last, target, WALLET, moved_from=500, after={"status": status})
    assert value == 500 and least <= seconds and (most is None or seconds < most), seconds


def test_a_balance_that_moves_after_a_settlement_is_its_new_value():
    """The balance once it left its value before, read once per poll."""
    target = Scripted(balances=[500, 500, 300])
    value = money.balance_or_last(target, WALLET, moved_from=500, after={"status": contract.success_state()})
    assert value == 300 and target.reads == 3


def test_a_balance_that_does_not_reach_its_value_is_taken_once_it_holds_still():
    """A balance that never shows the expected value is read on after --settle-timeout until it holds still."""
    target = Scripted(balances=[100])
    value, seconds = timed(money.balance_or_last, target, WALLET, reaching=200)
    assert value == 100 and seconds >= SETTLE + QUIET, seconds


def test_a_balance_held_still_is_read_until_it_stops_moving():
    """Held still: read again while it moves, at most SETTLING_READS times, then given as last read."""
    target = Scripted(balances=[100, 90, 90, 80])
    assert money.balance_or_last(target, WALLET, still=True) == 80


def test_the_balance_wait_waits_for_one_thing():
    """Asked for nothing, or for two things at once, the balance wait is the suite's own error."""
    with pytest.raises(ValueError, match="waits for one thing"):
        money.balance_or_last(Scripted(balances=[1]), WALLET)
    with pytest.raises(ValueError, match="waits for one thing"):
        money.balance_or_last(Scripted(balances=[1]), WALLET, reaching=1, still=True)


def test_a_wait_ends_at_the_first_read_after_the_target_has_nothing_left_to_change():
    """Where the target says it has nothing left to change (the bundled reference's /sandbox/due), a balance wait ends
    with the read made after it said so: the watch after a refusal, a settlement that moved nothing, a value never
    reached; each gives what the whole window would have."""
    target = Scripted(balances=[500], due=[0])
    value, seconds = timed(money.balance_or_last, target, WALLET, moved_from=500, after={"status": "success"})
    assert value == 500 and target.reads == 1 and seconds < QUIET, seconds
    target = Scripted(balances=[100], due=[0])
    value, seconds = timed(money.balance_or_last, target, WALLET, reaching=200)
    assert value == 100 and target.reads == 3 and seconds < QUIET, seconds  # not reached; the value; still
    target = Scripted(balances=[100], due=[0])
    now, moved = money._balances(target, [WALLET], lambda seen: seen[WALLET] != 100, QUIET)
    assert now == {WALLET: 100} and not moved and target.reads == 1


def test_a_wait_goes_on_while_the_target_has_changes_due():
    """While the target has changes due, a balance wait reads on: a settlement posted after two reads is seen, and
    the target asked before each read."""
    target = Scripted(balances=[500, 500, 300], due=[1, 1, 0])
    value = money.balance_or_last(target, WALLET, moved_from=500, after={"status": contract.success_state()})
    assert value == 300 and target.reads == 3 and target.asked == 3


def test_a_read_once_asks_the_target_nothing():
    """A wait of no time (one read) does not ask the target what it has due."""
    target = Scripted(balances=[7], due=[0])
    assert money._balances(target, [WALLET], lambda seen: False, 0) == ({WALLET: 7}, False) and target.asked == 0


def test_only_the_bundled_references_zero_counts_as_nothing_due():
    """Resources.nothing_due is true only where the due address answers a count of 0: no address, an address that
    answers no count (a 404), or one nobody serves (a closed port) leave the wait its whole window."""
    with ReferenceServer(settle_delay=None) as server:
        closed = f"{server.origin}/sandbox/due".replace(str(server.port), "9")

        def asked(url: str | None) -> bool:
            target, settings = SimpleNamespace(due_url=url), SimpleNamespace(request_timeout=2)
            resources = SimpleNamespace(target=target, settings=settings)
            return Resources.nothing_due(resources)  # type: ignore[arg-type]  # only what it reads

        assert asked(server.due_url) is True
        assert [asked(url) for url in (None, "", f"{server.origin}/sandbox/nowhere", closed)] == [False] * 4
