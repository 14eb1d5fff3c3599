"""What the suite keeps of each test: enough to give every requirement its verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["passed", "failed", "skipped", "error"]


@dataclass
class TestRecord:
    nodeid: str
    requirements: tuple[str, ...]
    outcome: Outcome = "passed"
    failed_requirements: tuple[str, ...] = ()  # empty on a failure: every requirement of the test failed
    message: str | None = None
    observations: list[dict[str, Any]] = field(default_factory=list)
    duration: float = 0.0

    __test__ = False  # not a pytest test class

    def fails(self, requirement: str) -> bool:
        if self.outcome not in ("failed", "error"):
            return False
        return not self.failed_requirements or requirement in self.failed_requirements
