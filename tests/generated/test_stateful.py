"""The account's money as a state machine: sequences of operations checked against a model after every step."""

from __future__ import annotations

import collections

import hypothesis
import pytest
from hypothesis import Phase
from hypothesis.stateful import run_state_machine_as_test

from wallet_conformance.generation import money_model, profiles


@pytest.mark.account_wide
@pytest.mark.requirement(
    "SVC-25",
    "SVC-26",
    "SVC-27",
    "SVC-31",
    "RES-33",
    "RES-65",
    "RES-87",
    "END-14",
    "END-16",
    "END-20",
    "END-23",
    "END-28",
    "END-40",
    "END-41",
    "LIM-01",
    "LIM-04",
    "LIM-10",
    "LIM-11",
    "LIM-12",
    "LIM-13",
    "LIM-19",
    "STA-09",
    "LIM-21",
    "AUTH-04",
)
def test_money_follows_the_model(api, resources, generation, request, observe):
    """Over any sequence of wallets, funding, transfers, collections and closes, the target keeps the model's money."""
    if not resources.can_fund:
        pytest.skip("the money model needs a way to fund wallets: give --funding-url or --funded-wallet")
    budget = generation.profile
    context = money_model.Context(
        api, resources, observe, programs=budget.programs, shared_target=hasattr(request.config, "workerinput")
    )
    # No shrinking: every replay of a program against a live target costs money and seconds; a failure prints
    # the whole failing program instead, step by step, with every call it made.
    settings = profiles.hypothesis_settings(
        budget.programs,
        stateful_step_count=budget.steps,
        phases=[Phase.explicit, Phase.generate],
        report_multiple_bugs=False,
    )
    # Hypothesis runs a program for up to stateful_step_count steps and may end one sooner (its mutations of earlier
    # programs do): the steps of every program are observed below. The seed goes on the factory, where Hypothesis
    # reads it.
    seed = profiles.test_seed(generation.seed, profiles.test_name(request.node))
    with profiles.replayable():
        run_state_machine_as_test(hypothesis.seed(seed)(money_model.factory(context)), settings=settings)
    observe(
        "SVC-25",
        transfers_seen=len(context.references),
        fees_seen={kind: sorted(fees) for kind, fees in context.fees.items()},
        kobo_funded=context.spent,
        steps=context.steps,
        programs_by_steps=dict(sorted(collections.Counter(context.lengths).items())),
    )
