"""The suite's core fixtures: configuration, target, client, observations, and the run's records."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.client.target import Target
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.plugin import exchange_judging, har_recording
from wallet_conformance.plugin.phase_record import observe as keep_observation
from wallet_conformance.plugin.state import money_ledger, state
from wallet_conformance.settings import Settings
from wallet_conformance.world import bodies
from wallet_conformance.world.resources import Resources, WalletList
from wallet_conformance.world.safety import Guard, money_budget

# Why the isolation tests skip without a second key; a skipped MUST is not tested, so --require-complete asks for it.
SECOND_KEY_MISSING = ("give --second-secret-key KEY (or WALLET_API_SECOND_SECRET_KEY): the secret key of an account "
                      "of another business on the same target")

@pytest.fixture(scope="session")
def settings(pytestconfig: pytest.Config) -> Settings:
    return state(pytestconfig).settings


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    resolved = state(pytestconfig).target
    if resolved is None:
        pytest.exit("no target: run the conformance suite from tests/ (the plugin resolves the target at start)",
                    returncode=ExitStatus.CANNOT_RUN)
    return resolved


@pytest.fixture(scope="session")
def run_id(settings: Settings) -> str:
    """Prefix of every name the run gives a record: the seed, and the xdist worker when there is one."""
    return bodies.run_id(settings.seed)


@pytest.fixture(scope="session")
def guard(pytestconfig: pytest.Config, settings: Settings, target: Target) -> Guard:
    budget = money_budget(settings, target.funding_url)
    return Guard(settings, budget=budget, ledger=money_ledger(pytestconfig))


@pytest.fixture(scope="session")
def wallet_list(settings: Settings) -> WalletList:
    """This process's hold on the account's wallet list (its readers and the calls that change it)."""
    return WalletList(settings.work_dir)


@pytest.fixture(scope="session")
def api(pytestconfig: pytest.Config, settings: Settings, target: Target, guard: Guard, run_id: str,
        wallet_list: WalletList) -> Iterator[ApiClient]:
    """The run's client, built whole: sends the secret key, bounded by the current test's time, refuses writes
    production does not allow, hands every exchange to the exchange judge (and --record-har), waits while another
    worker reads the wallet list, and, against a deployed target, journals what it changes for --cleanup."""
    run = state(pytestconfig)
    judge = exchange_judging.judged(pytestconfig).take
    recorder = har_recording.part(pytestconfig)
    journal = None
    if not target.embedded:
        from wallet_conformance.world.cleanup import Journal  # only runs against a deployed target journal

        journal = Journal(settings.work_dir, target.base_url, run_id)
    client = ApiClient(target.base_url, target.secret_key, timeout=settings.request_timeout, guard=guard,
                       ca_bundle=settings.ca_bundle, rate_limit_wait=settings.rate_limit_wait, bound=run.bound,
                       observer=judge if recorder is None else _both(judge, recorder.add), journal=journal,
                       sending=wallet_list.sending)
    run.client = client
    yield client
    client.close()
    if journal is not None:
        journal.finish()  # the run ended normally: its crash journal is no longer needed


def _both(first: Callable[[Exchange], None], second: Callable[[Exchange], None]) -> Callable[[Exchange], None]:
    def observe(exchange: Exchange) -> None:
        first(exchange)
        second(exchange)

    return observe


@pytest.fixture(scope="session")
def second_api(pytestconfig: pytest.Config, settings: Settings, target: Target, guard: Guard,
               api: ApiClient) -> Iterator[ApiClient]:
    """The second key's client (an account of another business): the run's guard and time bound hold it, and its
    exchanges join the run's client's log, so the exchange judge sees them and a test's evidence shows both keys'
    requests in order. Without a second key, every test that asks for it skips, saying which option gives it. It
    journals nothing: the second key's records are closed by its own sweep."""
    if not target.second_secret_key:
        raise CannotJudge(SECOND_KEY_MISSING)
    run = state(pytestconfig)
    client = ApiClient(target.base_url, target.second_secret_key, timeout=settings.request_timeout, guard=guard,
                       ca_bundle=settings.ca_bundle, rate_limit_wait=settings.rate_limit_wait, bound=run.bound,
                       shares_log_of=api)
    run.second_client = client
    yield client
    client.close()


@pytest.fixture(scope="session")
def resources(api: ApiClient, settings: Settings, target: Target, run_id: str, guard: Guard,
              wallet_list: WalletList) -> Iterator[Resources]:
    """Everything the run creates; closed at the end of the run, after failures and Ctrl-C too."""
    made = Resources(api, settings, target, run_id, guard, wallet_list)
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
def second_resources(second_api: ApiClient, settings: Settings, target: Target, run_id: str,
                     guard: Guard, wallet_list: WalletList) -> Iterator[Resources]:
    """What the run creates in the second key's account; closed at the end of the run with that key. Its wallets are
    funded through the funding hook only (--funded-wallet is the first account's)."""
    made = Resources(second_api, replace(settings, funded_wallet=None), target, run_id, guard, wallet_list)
    try:
        yield made
    finally:
        problems = made.sweep()
        if problems:
            print("\nwallet-conformance: could not close what the run created in the second key's account:\n  "
                  + "\n  ".join(problems))
