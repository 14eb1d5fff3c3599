"""Budgets of the generated tests (named profiles) and the one seed that reproduces them.

`--profile quick` (the default) keeps the run short; `--profile thorough` is for nightly runs. Every
generated test (Schemathesis cases, boundary properties, paging, the money state machine) draws from
Hypothesis with the run's seed: `--hypothesis-seed` when given, else the suite's `--seed`; each test
mixes in its own name, so adding a test does not change what another one generates.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import hypothesis
import hypothesis.errors
import pytest
from hypothesis import HealthCheck
from hypothesis.vendor import pretty

from wallet_conformance.judge.failures import CannotJudge


@dataclass(frozen=True)
class Profile:
    """How much each kind of generated test may do."""

    name: str
    cases: int  # Schemathesis cases per operation and mode (positive, negative)
    auth_cases: int  # cases per operation sent without a key and with a wrong one
    boundaries: int  # examples per boundary property
    settlements: int  # examples per property that waits for each transfer to settle
    programs: int  # programs (sequences of steps) the money state machine runs
    steps: int  # most steps per program
    paging_extra: int  # items created beyond one page when a list is too short to page through
    shrink_cases: bool  # shrink a failing Schemathesis case to a minimal one (each step is a round of requests)


PROFILES = {
    "quick": Profile(
        "quick",
        cases=6,
        auth_cases=2,
        boundaries=6,
        settlements=3,
        programs=4,
        steps=10,
        paging_extra=3,
        shrink_cases=False,
    ),
    "thorough": Profile(
        "thorough",
        cases=60,
        auth_cases=10,
        boundaries=40,
        settlements=15,
        programs=30,
        steps=30,
        paging_extra=12,
        shrink_cases=True,
    ),
}

# Health checks the generated tests are allowed to trip, each with the test that trips it and why. None: with every
# check on, tests/generated (test_boundaries, test_paging, test_schemathesis, test_stateful) tripped none against the
# reference, under --profile quick and --profile thorough --max-amount 100000000, with and without
# --reference-variant all. A slow target cannot trip too_slow: it times only the drawing of data (strategies, the
# state machine's choice of rules), never the calls a test makes with what it drew.
SUPPRESSED_HEALTH_CHECKS: tuple[HealthCheck, ...] = ()


def test_name(node: pytest.Item) -> str:
    """`test_module.py::test_name[params]`: the same serial and under xdist (whose groups suffix node ids)."""
    return f"{node.path.name}::{node.name}"


def test_seed(seed: int, name: str) -> int:
    """A test's own seed: the run's seed mixed with the test's name (stable across Python processes)."""
    return zlib.crc32(f"{seed}:{name}".encode())


def hypothesis_settings(max_examples: int, **more: Any) -> hypothesis.settings:
    """Settings for tests against a live target: no deadline, no example database (the seed reproduces a run),
    every health check on but those in SUPPRESSED_HEALTH_CHECKS."""
    return hypothesis.settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=SUPPRESSED_HEALTH_CHECKS,
        print_blob=False,
        **more,
    )


def run(
    test: Callable[..., None], seed: int, settings: hypothesis.settings, each_example: Callable[[], None] | None = None
) -> None:
    """Run a `@given` test function with an explicit seed and settings; a failing example shows what it drew.
    `each_example` is called as each example begins (Hypothesis' documented `inner_test` hook): a failure's replay
    starts at the last one, the shrunk example Hypothesis runs again to report it."""
    if each_example is not None:
        inner = test.hypothesis.inner_test  # type: ignore[attr-defined]

        def example(*args: Any, **kwargs: Any) -> None:
            each_example()
            inner(*args, **kwargs)

        test.hypothesis.inner_test = example  # type: ignore[attr-defined]
    # Hypothesis' own printer of a failing example's arguments, put back: Schemathesis (its pytest plugin as it loads,
    # `as_strategy` when first called) swaps it once per process for one that prints nothing, for the speed of its own
    # runner, which the suite does not use; every argument then printed empty (`property_(amount=,)`).
    hypothesis.core.RepresentationPrinter = pretty.RepresentationPrinter
    with replayable():
        hypothesis.seed(seed)(settings(test))()


@contextmanager
def replayable() -> Iterator[None]:
    """Judge a Hypothesis run only if its examples replay alike.

    Draws may follow the target's answers (a refused primary wallet leaves the model one wallet short). When
    another client of the account changes what it answers between two examples (another run taking primary
    places), Hypothesis finds that one choice sequence drew two ways and raises FlakyStrategyDefinition: not a
    fault of the target, and not something the test can judge. It is a skip that says so, never a failure.
    """
    try:
        yield
    except hypothesis.errors.FlakyStrategyDefinition as error:
        raise CannotJudge(
            "the target answered one replayed program two ways (another client of the account changed "
            f"it between examples), so it is not judged: {str(error).splitlines()[0]}"
        ) from None


def register_hypothesis_profiles() -> None:
    """The suite's profiles as Hypothesis profiles too (`--hypothesis-profile thorough` for other property tests)."""
    for name, budget in PROFILES.items():
        hypothesis.settings.register_profile(name, hypothesis_settings(budget.boundaries))
