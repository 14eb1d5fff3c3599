"""How a run ended, when it did not complete, and what it chose to look at: the two facts besides the verdicts that
decide its outcome (reporting/gating.py `apply`), carried as plain data to every report.

- `Stop`: the run ended before it had run what it chose (interrupted, stopped early by the suite, stopped at its
  preflight, a usage error, or not finished at all): its outcome, its reason in one sentence, its exit status. The
  requirements it had not reached are "not reached", with that reason.
- `Selection`: the run chose part of the suite (`--requirement`, `--part`, `--level`, pytest's `-k`, `-m`, paths):
  what chose it, and the requirements its tests hold; the others are "not selected".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reporting.verdicts import Outcome

NOT_REACHED = {
    Outcome.INTERRUPTED: "not reached: the run was interrupted",
    Outcome.STOPPED_EARLY: "not reached: the run stopped early",
    Outcome.STOPPED_AT_PREFLIGHT: "not reached: the run stopped at its preflight",
    Outcome.USAGE_ERROR: "not reached: a usage error stopped the run before it started",
    Outcome.UNFINISHED: "not reached: the run had not finished when this report was written",
    Outcome.SUITE_ERROR: "not reached: an internal error stopped the run, or its tests could not be collected",
}
UNFINISHED_REASON = (
    "this report was written when the run started, and the run never replaced it: it was killed or "
    "crashed, or it is still running"
)


@dataclass(frozen=True)
class Stop:
    """Why a run did not complete: its outcome (one of verdicts.ENDED_EARLY, or a suite error for an internal error),
    the reason, the exit status (None for a run that had not ended when its report was written)."""

    outcome: Outcome
    reason: str
    status: int | None

    def __post_init__(self) -> None:
        if self.outcome not in NOT_REACHED:
            raise ValueError(f"{self.outcome} is no way for a run to stop")

    @property
    def not_reached(self) -> str:
        """The reason of a requirement the run did not reach."""
        return NOT_REACHED[self.outcome]

    def to_dict(self) -> dict[str, Any]:
        """conformance.json's `stopped`."""
        return {"outcome": str(self.outcome), "reason": self.reason, "status": self.status}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Stop:
        return cls(Outcome(data["outcome"]), data["reason"], data["status"])


def interrupted(reason: str) -> Stop:
    return Stop(Outcome.INTERRUPTED, reason, int(ExitStatus.INTERRUPTED))


def stopped_early(reason: str, status: int = int(ExitStatus.TARGET_FAILING)) -> Stop:
    return Stop(Outcome.STOPPED_EARLY, reason, status)


def usage_error(reason: str) -> Stop:
    return Stop(Outcome.USAGE_ERROR, reason, int(ExitStatus.CANNOT_RUN))


def unfinished() -> Stop:
    return Stop(Outcome.UNFINISHED, UNFINISHED_REASON, None)


@dataclass(frozen=True)
class Selection:
    """A run that chose part of the suite: the words that chose it (`--requirement VER-01`, `-k money`), and the
    requirements its tests hold (None: not known, the run stopped before its tests were collected)."""

    by: tuple[str, ...]
    requirements: frozenset[str] | None

    @classmethod
    def of(cls, by: Iterable[str], requirements: Iterable[str] | None) -> Selection:
        return cls(tuple(by), None if requirements is None else frozenset(requirements))

    @property
    def words(self) -> str:
        return " ".join(self.by)
