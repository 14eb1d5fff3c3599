"""Fixtures of the generated tests: the run's profile and seed, and real records for generated requests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import hypothesis
import pytest

from wallet_conformance.client.api import ApiClient
from wallet_conformance.generation import profiles
from wallet_conformance.generation.binding import Binder
from wallet_conformance.settings import Settings
from wallet_conformance.world.resources import Resources


@dataclass(frozen=True)
class Generation:
    """The budget and the seed of the generated tests of this run."""

    profile: profiles.Profile
    seed: int

    def run(
        self,
        request: pytest.FixtureRequest,
        test: Callable[..., None],
        max_examples: int,
        *,
        shrink: bool = True,
        **more: Any,
    ) -> None:
        """Run a `@given` function with this run's seed mixed with the test's node id.

        `shrink=False` for properties whose every example waits for a settlement, or makes a record a failing
        answer would make the target look failing when replayed: the failing example is shown as drawn rather than
        replayed dozens of times against the target to make it smaller."""
        if not shrink:
            more["phases"] = [hypothesis.Phase.explicit, hypothesis.Phase.generate]
        seed = profiles.test_seed(self.seed, profiles.test_name(request.node))
        profiles.run(
            test,
            seed,
            profiles.hypothesis_settings(max_examples, **more),
            each_example=request.getfixturevalue("api").exchanges.mark_example,
        )

    def settings(self, max_examples: int, **more: Any) -> hypothesis.settings:
        return profiles.hypothesis_settings(max_examples, **more)


@pytest.fixture(scope="session")
def generation(pytestconfig: pytest.Config, settings: Settings) -> Generation:
    return Generation(profiles.PROFILES[settings.profile], settings.generation_seed)


@pytest.fixture(scope="session")
def binder(api: ApiClient, resources: Resources, request: pytest.FixtureRequest) -> Binder:
    """Real records for generated requests, shared by the generated tests of the run."""
    return Binder(api, resources, request.getfixturevalue)
