"""What the suite keeps of each test: enough to give every requirement its verdict and its evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

TestOutcome = Literal["passed", "failed", "skipped", "error"]  # how a test ended (a run's outcome: verdicts.Outcome)


@dataclass
class TestRecord:
    """One conformance test as it ended.

    A failed test fails the requirements its checks named (`failed_requirements`). Two kinds of stop are not
    failures of the target:
    - a setup step the target refused (`TargetError`): it fails only the requirement that the step itself
      exercises (`setup_requirement`, when the error names one) and blocks the test's other requirements;
    - an error of the suite itself (a `SuiteError`, a check naming a requirement its test does not declare, or an
      exception no check raised): it judges none of the test's requirements and is reported as a suite error.
    A record of a failure that names no requirement, and is neither of these, fails all of its requirements.
    """

    nodeid: str
    requirements: tuple[str, ...]
    outcome: TestOutcome = "passed"
    failed_requirements: tuple[str, ...] = ()  # empty on a failure: every requirement of the test failed
    message: str | None = None
    observations: list[dict[str, Any]] = field(default_factory=list)
    duration: float = 0.0
    setup_error: bool = False  # stopped by a TargetError: the target refused a setup step
    setup_requirement: str | None = None  # the requirement that setup step exercises, when it names one
    suite_error: bool = False  # stopped by an error of the suite itself, not of the target
    evidence: list[dict[str, Any]] = field(default_factory=list)  # one entry per failed check, redacted
    # The calls of a check that held, by the requirement each held (judge/failures.py `check`): a test that passed
    # holds only the requirements some check of it held.
    held: dict[str, int] = field(default_factory=dict)
    replay: str | None = None  # a failure's replay: a bash script of the requests that showed it (client/replay.py)
    kept: list[str] = field(default_factory=list)  # --keep-failing-records: the wallets its failure left open

    __test__ = False  # not a pytest test class

    @property
    def stopped(self) -> bool:
        return self.outcome in ("failed", "error")

    def fails(self, requirement: str) -> bool:
        """Whether this test failed `requirement`."""
        if not self.stopped or self.suite_error:
            return False
        if self.failed_requirements:
            return requirement in self.failed_requirements
        if self.setup_error:
            return requirement == self.setup_requirement
        return True

    def blocks(self, requirement: str) -> bool:
        """Whether a setup step the target refused kept this test from judging `requirement`."""
        return self.stopped and self.setup_error and not self.suite_error and not self.fails(requirement)

    def evidence_for(self, requirement: str) -> list[dict[str, Any]]:
        """The evidence of this test's failure of `requirement` (a setup error's evidence names no requirement)."""
        if not self.fails(requirement):
            return []
        named = [item for item in self.evidence if item.get("requirement") == requirement]
        return named or [item for item in self.evidence if item.get("requirement") is None]
