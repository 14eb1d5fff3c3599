"""Fixtures of the conformance tests. The machinery (client, target, cleanup, money) lives in wallet_conformance/.

What a run makes once and shares is a session-scoped fixture: pytest caches its value, and re-raises its
error or skip to every test that asks again. Tests reach the per-operation ones through three small views:
`samples(operationId)`, `invalid(case)` and `unauthenticated(operationId, kind)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient, Exchange, TargetError
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world import bad_requests, bodies, money
from wallet_conformance.world.resources import Resources

# ------------------------------------------------------------------ samples: one success per operation


def _sample(exchange: Exchange) -> Exchange:
    """A sample must be a success; a refusal is a failure of the operation's acceptance requirement."""
    if not exchange.ok:
        raise TargetError(f"a valid {exchange.operation_id} request was not accepted (HTTP {exchange.status})\n"
                          f"{exchange.describe()}", exchange,
                          requirement=contract.acceptance_requirement(exchange.operation_id))
    return exchange


@pytest.fixture(scope="session")
def sample_wallet(resources: Resources, sample_createWallet: Exchange) -> dict[str, Any]:
    """The wallet the createWallet sample made (read by the other samples)."""
    return resources.require(sample_createWallet, "create a wallet")


@pytest.fixture(scope="session")
def sample_listAccounts(api: ApiClient) -> Exchange:
    return _sample(api.call("listAccounts"))


@pytest.fixture(scope="session")
def sample_updateAccount(api: ApiClient, resources: Resources) -> Exchange:
    with resources.account_wide():
        account = resources.own_account()
        # Sends the account's own webhooks back: a write that changes nothing.
        return _sample(api.call("updateAccount", {"accountId": account["publicId"]},
                                json_body=bodies.account_update(account.get("webhooks", []))))


@pytest.fixture(scope="session")
def sample_createWallet(resources: Resources) -> Exchange:
    return _sample(resources.create_wallet(bodies.wallet(resources.run_id)))


@pytest.fixture(scope="session")
def sample_listWallets(api: ApiClient, sample_wallet: dict[str, Any]) -> Exchange:
    return _sample(api.call("listWallets"))


@pytest.fixture(scope="session")
def sample_getWallet(api: ApiClient, sample_wallet: dict[str, Any]) -> Exchange:
    return _sample(api.call("getWallet", {"walletId": sample_wallet["publicId"]}))


@pytest.fixture(scope="session")
def sample_closeWallet(resources: Resources) -> Exchange:
    return _sample(resources.close_wallet(resources.wallet()["publicId"]))


@pytest.fixture(scope="session")
def sample_createCollectionAccount(api: ApiClient, resources: Resources, sample_wallet: dict[str, Any]) -> Exchange:
    body = bodies.collection_account(resources.run_id, sample_wallet["publicId"])
    return _sample(api.call("createCollectionAccount", json_body=body))


@pytest.fixture(scope="session")
def sample_validateAccount(api: ApiClient, resources: Resources) -> Exchange:
    number, code = resources.external_account()
    return _sample(api.call("validateAccount", json_body=bodies.validation(number, code)))


@pytest.fixture(scope="session")
def sample_transfer(api: ApiClient, resources: Resources) -> Exchange:
    amount = contract.minimum_amount("transfer")
    # Room for a fee: whether wallet transfers cost one is not shown (actualAmount = amount + fee).
    source = resources.funded_wallet(money.funding("transfer"))
    destination = resources.wallet()
    return _sample(api.call("transfer", json_body=bodies.transfer(source["publicId"], destination["publicId"],
                                                                  amount)))


@pytest.fixture(scope="session")
def sample_bankTransfer(api: ApiClient, resources: Resources) -> Exchange:
    amount = contract.minimum_amount("bankTransfer")
    number, code = resources.external_account()
    source = resources.funded_wallet(money.funding("bankTransfer"))  # room for the fee, which may be high
    return _sample(api.call("bankTransfer", json_body=bodies.bank_transfer(source["publicId"], number, code, amount)))


@pytest.fixture(scope="session")
def sample_listTransactions(request: pytest.FixtureRequest, api: ApiClient, resources: Resources) -> Exchange:
    if resources.can_fund:
        request.getfixturevalue("sample_transfer")  # so the list holds a debit and an inbound credit to look at
    return _sample(api.call("listTransactions"))


@pytest.fixture(scope="session")
def sample_verifyTransaction(request: pytest.FixtureRequest, api: ApiClient, resources: Resources) -> Exchange:
    reference = None
    if resources.can_fund:
        reference = request.getfixturevalue("sample_transfer").data.get("reference")
    else:
        listed = request.getfixturevalue("sample_listTransactions").data
        if isinstance(listed, list) and listed and isinstance(listed[0], dict):
            reference = listed[0].get("reference")
    if not isinstance(reference, str):
        raise CannotJudge("no transaction to verify: give --funding-url or --funded-wallet")
    return _sample(api.call("verifyTransaction", {"reference": reference}))


@pytest.fixture(scope="session")
def sample_listBanks(api: ApiClient) -> Exchange:
    return _sample(api.call("listBanks"))


class Samples:
    """The test's view of the samples: `samples("listBanks")` is the session fixture `sample_listBanks`."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request

    def __call__(self, operation_id: str) -> Exchange:
        return self._request.getfixturevalue(f"sample_{operation_id}")

    def accepted(self, operation_id: str) -> Exchange:
        """The sample, where a refusal of this very operation is a failure of the test's own requirement."""
        try:
            return self(operation_id)
        except TargetError as error:
            if error.exchange is not None and error.exchange.operation_id == operation_id:
                checks.accepted(error.exchange, f"a valid {operation_id} request")
            raise

    def wallet(self) -> dict[str, Any]:
        return self._request.getfixturevalue("sample_wallet")


@pytest.fixture
def samples(request: pytest.FixtureRequest) -> Samples:
    """One successful exchange per operation, made the first time a test asks and shared by the run."""
    return Samples(request)


# ------------------------------------------------------------------ invalid requests, each sent once per run


def _fixture_name(prefix: str, *parts: str) -> str:
    return "_".join((prefix, *parts)).replace("-", "_")


def _invalid_fixture(case: str) -> Any:
    @pytest.fixture(scope="session", name=_fixture_name("invalid", case))
    def made(request: pytest.FixtureRequest) -> Exchange:
        return bad_requests.ALL_CASES[case](request.getfixturevalue)

    return made


for _case in bad_requests.ALL_CASES:
    globals()[_fixture_name("invalid", _case)] = _invalid_fixture(_case)


@pytest.fixture
def invalid(request: pytest.FixtureRequest) -> Callable[[str], Exchange]:
    """`invalid(case)`: the exchange of one invalid request of ALL_CASES, sent once per run."""
    return lambda case: request.getfixturevalue(_fixture_name("invalid", case))


# ------------------------------------------------------------------ requests without the right key

def _unauthenticated_fixture(operation_id: str, kind: str) -> Any:
    @pytest.fixture(scope="session", name=_fixture_name("unauthenticated", operation_id, kind))
    def made(request: pytest.FixtureRequest, api: ApiClient, resources: Resources, run_id: str) -> Exchange:
        key = None if kind == bad_requests.MISSING else f"conformance-wrong-key-{run_id}"
        if operation_id == "updateAccount":
            # The account's own webhooks sent back: a write that changes nothing, even if it were accepted.
            with resources.account_wide():
                account = resources.own_account()
                return api.call("updateAccount", {"accountId": account["publicId"]},
                                json_body=bodies.account_update(account.get("webhooks", [])), key=key)
        path_params, body = bad_requests.valid_request(request.getfixturevalue, operation_id)
        exchange = api.call(operation_id, path_params, json_body=body, key=key)
        resources.track(exchange)  # a wallet a broken server created or closed is still swept
        return exchange

    return made


for _operation in contract.operations():
    for _kind in bad_requests.KINDS:
        globals()[_fixture_name("unauthenticated", _operation, _kind)] = _unauthenticated_fixture(_operation, _kind)


@pytest.fixture
def unauthenticated(request: pytest.FixtureRequest) -> Callable[[str, str], Exchange]:
    """`unauthenticated(operationId, kind)`: a valid request sent without the key or with a wrong one, once per run.

    Each is a request the target would accept with the right key; AUTH-01..03 look at the same exchange.
    """
    return lambda operation_id, kind: request.getfixturevalue(_fixture_name("unauthenticated", operation_id, kind))


# ------------------------------------------------------------------ what a test makes for itself


@pytest.fixture
def wallet(resources: Resources) -> dict[str, Any]:
    """A new open secondary wallet of this test's own."""
    return resources.wallet()


@pytest.fixture
def funded_wallet(resources: Resources) -> Callable[[int], dict[str, Any]]:
    """Makes a new wallet holding the given kobo (skips when the run cannot fund wallets)."""
    return resources.funded_wallet
