"""Fixtures of the conformance tests. The machinery (client, target, cleanup, money) lives in wallet_conformance/.

What a run makes once and shares is a session-scoped fixture: pytest caches its value, and re-raises its
error or skip to every test that asks again. Tests reach the per-operation ones through three small views:
`samples(operationId)`, `invalid(case)` and `unauthenticated(operationId, kind)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.scenarios import wrong_values
from wallet_conformance.spec import contract
from wallet_conformance.world import accounts, bad_requests, bodies, key_probes, money
from wallet_conformance.world.resources import Resources
from wallet_conformance.world.samples import Samples, accepted_sample, reference_to_verify

# ------------------------------------------------------------------ samples: one success per operation


@pytest.fixture(scope="session")
def sample_wallet(resources: Resources, sample_createWallet: Exchange) -> dict[str, Any]:
    """The wallet the createWallet sample made (read by the other samples)."""
    return resources.require(sample_createWallet, "create a wallet")


@pytest.fixture(scope="session")
def sample_listAccounts(api: ApiClient) -> Exchange:
    return accepted_sample(api.call("listAccounts"))


@pytest.fixture(scope="session")
def sample_updateAccount(api: ApiClient, resources: Resources) -> Exchange:
    return accepted_sample(accounts.own_webhooks_sent_back(api, resources))


@pytest.fixture(scope="session")
def sample_createWallet(resources: Resources) -> Exchange:
    return accepted_sample(resources.create_wallet(bodies.wallet(resources.run_id)))


@pytest.fixture(scope="session")
def sample_listWallets(api: ApiClient, sample_wallet: dict[str, Any]) -> Exchange:
    return accepted_sample(api.call("listWallets"))


@pytest.fixture(scope="session")
def sample_getWallet(api: ApiClient, sample_wallet: dict[str, Any]) -> Exchange:
    return accepted_sample(api.call("getWallet", {"walletId": sample_wallet["publicId"]}))


@pytest.fixture(scope="session")
def sample_closeWallet(resources: Resources) -> Exchange:
    return accepted_sample(resources.close_wallet(resources.wallet()["publicId"]))


@pytest.fixture(scope="session")
def sample_createCollectionAccount(api: ApiClient, resources: Resources, sample_wallet: dict[str, Any]) -> Exchange:
    body = bodies.collection_account(resources.run_id, sample_wallet["publicId"])
    return accepted_sample(api.call("createCollectionAccount", json_body=body))


@pytest.fixture(scope="session")
def sample_validateAccount(api: ApiClient, resources: Resources) -> Exchange:
    number, code = resources.external_account()
    return accepted_sample(api.call("validateAccount", json_body=bodies.validation(number, code)))


@pytest.fixture(scope="session")
def sample_transfer(api: ApiClient, resources: Resources) -> Exchange:
    amount = contract.minimum_amount("transfer")
    # Room for a fee: whether wallet transfers cost one is not shown (actualAmount = amount + fee).
    source = resources.funded_wallet(money.funding("transfer"))
    destination = resources.wallet()
    body = bodies.transfer(source["publicId"], destination["publicId"], amount)
    return accepted_sample(api.call("transfer", json_body=body))


@pytest.fixture(scope="session")
def sample_bankTransfer(api: ApiClient, resources: Resources) -> Exchange:
    amount = contract.minimum_amount("bankTransfer")
    number, code = resources.external_account()
    source = resources.funded_wallet(money.funding("bankTransfer"))  # room for the fee, which may be high
    body = bodies.bank_transfer(source["publicId"], number, code, amount)
    return accepted_sample(api.call("bankTransfer", json_body=body))


@pytest.fixture(scope="session")
def sample_listTransactions(request: pytest.FixtureRequest, api: ApiClient, resources: Resources) -> Exchange:
    if resources.can_fund:
        request.getfixturevalue("sample_transfer")  # so the list holds a debit and an inbound credit to look at
    return accepted_sample(api.call("listTransactions"))


@pytest.fixture(scope="session")
def sample_verifyTransaction(request: pytest.FixtureRequest, api: ApiClient, resources: Resources) -> Exchange:
    reference = reference_to_verify(request.getfixturevalue, resources)
    return accepted_sample(api.call("verifyTransaction", {"reference": reference}))


@pytest.fixture(scope="session")
def sample_listBanks(api: ApiClient) -> Exchange:
    return accepted_sample(api.call("listBanks"))


@pytest.fixture
def samples(request: pytest.FixtureRequest) -> Samples:
    """One successful exchange per operation, made the first time a test asks and shared by the run."""
    return Samples(request.getfixturevalue)


# ------------------------------------------------------------------ invalid requests, each sent once per run


def _fixture_name(prefix: str, *parts: str) -> str:
    """The name of a generated fixture: `invalid_<case>`, `unauthenticated_<operationId>_<kind>` (a valid name)."""
    return "_".join((prefix, *parts)).replace("-", "_")


def _invalid_fixture(case: str) -> Any:
    @pytest.fixture(scope="session", name=_fixture_name("invalid", case))
    def made(request: pytest.FixtureRequest) -> Exchange:
        return bad_requests.answer(request.getfixturevalue, case)

    return made


for _case in bad_requests.ALL_CASES:
    globals()[_fixture_name("invalid", _case)] = _invalid_fixture(_case)


@pytest.fixture
def invalid(request: pytest.FixtureRequest) -> bad_requests.Invalid:
    """`invalid(case)`: the answer to one request of ALL_CASES, sent once per run; `invalid.answer(case)`, whether or
    not it got one."""
    return bad_requests.Invalid(lambda case: request.getfixturevalue(_fixture_name("invalid", case)))


# ------------------------------------------------------------------ body fields sent wrong, once per run


def _wrong_values_fixture(operation_id: str) -> Any:
    @pytest.fixture(scope="session", name=_fixture_name("wrong_values", operation_id))
    def made(request: pytest.FixtureRequest) -> dict[str, wrong_values.Outcome]:
        return wrong_values.sent(request.getfixturevalue, operation_id)

    return made


for _operation in contract.write_operations():
    globals()[_fixture_name("wrong_values", _operation)] = _wrong_values_fixture(_operation)


@pytest.fixture
def sent_wrong(request: pytest.FixtureRequest) -> Callable[[str], dict[str, wrong_values.Outcome]]:
    """`sent_wrong(operationId)`: every body field of the operation sent wrong (scenarios/wrong_values.py), by case,
    sent once per run."""
    return lambda operation_id: request.getfixturevalue(_fixture_name("wrong_values", operation_id))


# ------------------------------------------------------------------ requests without the right key


def _unauthenticated_fixture(operation_id: str, kind: str) -> Any:
    @pytest.fixture(scope="session", name=_fixture_name("unauthenticated", operation_id, kind))
    def made(request: pytest.FixtureRequest) -> Exchange:
        return bad_requests.unauthenticated(request.getfixturevalue, operation_id, kind)

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


# ------------------------------------------------------------------ the key in other forms


@pytest.fixture(scope="session")
def refused_transfer_wallets(resources: Resources) -> money.SharedPurse:
    """The funded wallets the transfers that should be refused draw on (the key probes, the wrong values): shared, as a
    refused transfer moves nothing."""
    return money.SharedPurse(resources)


@pytest.fixture
def key_probe(request: pytest.FixtureRequest) -> Callable[[str, str], key_probes.Probe]:
    """`key_probe(operationId, form)`: a valid request sent with the key in one form of key_probes (a near-copy, the
    key outside its header, the header written another way)."""
    return lambda operation_id, form: key_probes.probe(request.getfixturevalue, operation_id, form)


@pytest.fixture
def public_key_probe(request: pytest.FixtureRequest) -> Callable[[str, str], key_probes.Probe]:
    """`public_key_probe(operationId, mode)`: a valid request sent with the own account's pubKey.<mode> as the key."""
    return lambda operation_id, mode: key_probes.with_public_key(request.getfixturevalue, operation_id, mode)


# ------------------------------------------------------------------ what a test makes for itself


@pytest.fixture
def wallet(resources: Resources) -> dict[str, Any]:
    """A new open secondary wallet of this test's own."""
    return resources.wallet()


@pytest.fixture
def funded_wallet(resources: Resources) -> Callable[[int], dict[str, Any]]:
    """Makes a new wallet holding the given kobo (skips when the run cannot fund wallets)."""
    return resources.funded_wallet
