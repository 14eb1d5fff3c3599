"""The suite's core fixtures: the run's settings, target and clients (plugin/run.py builds them), what the run creates,
and observations."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.target import Target
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.plugin.phase_record import observe as keep_observation
from wallet_conformance.plugin.run import Clients, state
from wallet_conformance.settings import Settings
from wallet_conformance.world.locks import WalletList
from wallet_conformance.world.resources import Resources
from wallet_conformance.world.safety import Guard

# Why the isolation tests skip without a second key; a skipped MUST is not tested, so --require-complete asks for it.
SECOND_KEY_MISSING = (
    "give --second-secret-key KEY (or WALLET_API_SECOND_SECRET_KEY): the secret key of an account "
    "of another business on the same target"
)


@pytest.fixture(scope="session")
def settings(pytestconfig: pytest.Config) -> Settings:
    return state(pytestconfig).settings


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    resolved = state(pytestconfig).target
    if resolved is None:
        pytest.exit(
            "no target: run the conformance suite from tests/ (the plugin resolves the target at start)",
            returncode=ExitStatus.CANNOT_RUN,
        )
    return resolved


@pytest.fixture(scope="session")
def clients(pytestconfig: pytest.Config, target: Target) -> Clients:
    """The run's clients and what they share, built with the run (plugin/run.py)."""
    built = state(pytestconfig).clients
    assert built is not None, "a process that runs tests against a target has its clients"
    return built


@pytest.fixture(scope="session")
def run_id(clients: Clients) -> str:
    """Prefix of every name the run gives a record: the seed, and the xdist worker when there is one."""
    return clients.run_id


@pytest.fixture(scope="session")
def guard(clients: Clients) -> Guard:
    return clients.guard


@pytest.fixture(scope="session")
def wallet_list(clients: Clients) -> WalletList:
    """This process's hold on the account's wallet list (its readers and the calls that change it)."""
    return clients.wallet_list


@pytest.fixture(scope="session")
def api(clients: Clients) -> Iterator[ApiClient]:
    """The run's client (plugin/run.py builds it whole): sends the secret key, bounded by the current test's time,
    refuses writes production does not allow, hands every exchange to the exchange judge (and --record-har), waits
    while another worker reads the wallet list, and, against a deployed target, journals what it changes for
    --cleanup."""
    yield clients.first
    if clients.journal is not None:
        clients.journal.finish()  # the run ended normally: its crash journal is no longer needed


@pytest.fixture(scope="session")
def second_api(clients: Clients, api: ApiClient) -> ApiClient:
    """The second key's client (an account of another business): the run's guard and time bound hold it, and its
    exchanges join the run's client's log. Without a second key, every test that asks for it skips, saying which
    option gives it."""
    if clients.second is None:
        raise CannotJudge(SECOND_KEY_MISSING)
    return clients.second


@pytest.fixture(scope="session")
def resources(
    api: ApiClient,
    settings: Settings,
    target: Target,
    run_id: str,
    guard: Guard,
    wallet_list: WalletList,
    pytestconfig: pytest.Config,
) -> Iterator[Resources]:
    """Everything the run creates; closed at the end of the run, after failures and Ctrl-C too (but for the wallets
    --keep-failing-records keeps)."""
    made = Resources(api, settings, target, run_id, guard, wallet_list, kept=state(pytestconfig).kept)
    try:
        yield made
    finally:
        problems = made.sweep()
        if problems:
            print("\nwallet-conformance: could not close what the run created:\n  " + "\n  ".join(problems))


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Record an observation for an INFO requirement: `observe("ERR-04", status=404, message=...)`."""

    def record(requirement: str, **facts: Any) -> None:
        keep_observation(request.node, requirement, facts)

    return record


@pytest.fixture(scope="session")
def second_resources(
    second_api: ApiClient,
    settings: Settings,
    target: Target,
    run_id: str,
    guard: Guard,
    wallet_list: WalletList,
    pytestconfig: pytest.Config,
) -> Iterator[Resources]:
    """What the run creates in the second key's account; closed at the end of the run with that key. Its wallets are
    funded through the funding hook only (--funded-wallet is the first account's)."""
    made = Resources(
        second_api,
        replace(settings, funded_wallet=None),
        target,
        run_id,
        guard,
        wallet_list,
        kept=state(pytestconfig).kept,
    )
    try:
        yield made
    finally:
        problems = made.sweep()
        if problems:
            print(
                "\nwallet-conformance: could not close what the run created in the second key's account:\n  "
                + "\n  ".join(problems)
            )
