"""Authentication: every operation requires `x-service-key` holding the account's secret key.

A refusal is proven on a request that would otherwise succeed: real path parameters (a wallet of the
run, a real transaction reference, the own account), valid bodies and, for transfers, a funded source.
A server that skipped the key check would answer those with a 2xx.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import OPERATIONS, Samples, own_account
from wallet_conformance import bodies, checks, contract
from wallet_conformance.client import DEFAULT, ApiClient, Exchange, TargetError
from wallet_conformance.resources import Resources

MISSING = "missing"
WRONG = "wrong"
KINDS = {MISSING: "no-key", WRONG: "wrong-key"}
REFUSED_STATUS = 401  # RFC 9110 section 15.5.2, the status AUTH-03 rests on
KEY_REFUSALS = (401, 403)


class Unauthenticated:
    """One request per operation and kind of bad key, made the first time a test asks and shared by the run.

    Each request is one the target would accept with the right key: the tests of AUTH-01, AUTH-02 and
    AUTH-03 look at the same exchange, so no operation is called twice for one kind of key.
    """

    def __init__(self, api: ApiClient, resources: Resources, samples: Samples, run_id: str) -> None:
        self.api = api
        self.resources = resources
        self.samples = samples
        self.wrong_key = f"conformance-wrong-key-{run_id}"
        self._made: dict[tuple[str, str], Exchange | BaseException] = {}

    def __call__(self, operation_id: str, kind: str) -> Exchange:
        if (operation_id, kind) not in self._made:
            try:
                self._made[operation_id, kind] = self._send(operation_id, None if kind == MISSING else self.wrong_key)
            except (TargetError, pytest.skip.Exception) as error:
                self._made[operation_id, kind] = error
        made = self._made[operation_id, kind]
        if isinstance(made, BaseException):
            raise made
        return made

    def _send(self, operation_id: str, key: str | None) -> Exchange:
        if operation_id == "updateAccount":
            # The account's own webhooks sent back: a write that changes nothing, even if it were accepted.
            with self.resources.account_settings():
                account = own_account(self.resources.require(self.api.call("listAccounts"), "list accounts"))
                return self.api.call("updateAccount", {"accountId": account["publicId"]},
                                     json_body={"webhooks": account.get("webhooks", [])}, key=key)
        path_params, body = getattr(self, f"_{operation_id}")()
        exchange = self.api.call(operation_id, path_params, json_body=body, key=key)
        self.resources.track(exchange)  # a wallet a broken server created or closed is still swept
        return exchange

    # Each returns (path parameters, body) of a request the target accepts with the right key.

    def _listAccounts(self) -> tuple[dict[str, str], Any]:
        return {}, DEFAULT

    def _createWallet(self) -> tuple[dict[str, str], Any]:
        return {}, bodies.wallet(self.resources.run_id)

    def _listWallets(self) -> tuple[dict[str, str], Any]:
        return {}, DEFAULT

    def _getWallet(self) -> tuple[dict[str, str], Any]:
        return {"walletId": self.samples.wallet()["publicId"]}, DEFAULT

    def _closeWallet(self) -> tuple[dict[str, str], Any]:
        # A wallet of this request's own: if a broken server closes it, no other test loses its wallet.
        return {"walletId": self.resources.wallet()["publicId"]}, DEFAULT

    def _createCollectionAccount(self) -> tuple[dict[str, str], Any]:
        return {}, bodies.collection_account(self.resources.run_id, self.samples.wallet()["publicId"])

    def _validateAccount(self) -> tuple[dict[str, str], Any]:
        number, code = self.resources.external_account()
        return {}, {"accountNumber": number, "bankCode": code}

    def _listTransactions(self) -> tuple[dict[str, str], Any]:
        return {}, DEFAULT

    def _verifyTransaction(self) -> tuple[dict[str, str], Any]:
        reference = self.samples("verifyTransaction").data.get("reference")
        return {"reference": reference}, DEFAULT

    def _source(self, amount: int) -> str:
        """A wallet of this request's own holding `amount` (when the run can fund wallets)."""
        wallet = self.resources.funded_wallet(amount) if self.resources.can_fund else self.resources.wallet()
        return wallet["publicId"]

    def _transfer(self) -> tuple[dict[str, str], Any]:
        amount = contract.minimum_amount("transfer")
        return {}, bodies.transfer(self._source(amount), self.samples.wallet()["publicId"], amount)

    def _bankTransfer(self) -> tuple[dict[str, str], Any]:
        amount = contract.minimum_amount("bankTransfer")
        number, code = self.resources.external_account()
        # Twice the amount: room for the fee, which the document does not give.
        return {}, bodies.bank_transfer(self._source(amount * 2), number, code, amount)

    def _listBanks(self) -> tuple[dict[str, str], Any]:
        return {}, DEFAULT


@pytest.fixture(scope="session")
def unauthenticated(api: ApiClient, resources: Resources, samples: Samples, run_id: str) -> Unauthenticated:
    return Unauthenticated(api, resources, samples, run_id)


@pytest.mark.requirement("AUTH-01")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_request_without_key_is_refused(unauthenticated, operation_id):
    """A valid request sent without x-service-key is not answered with a 2xx."""
    exchange = unauthenticated(operation_id, MISSING)
    checks.refused(exchange, "AUTH-01", f"{operation_id} without x-service-key")


@pytest.mark.requirement("AUTH-02")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_request_with_wrong_key_is_refused(unauthenticated, operation_id):
    """A valid request whose x-service-key is not the account's secret key is not answered with a 2xx."""
    exchange = unauthenticated(operation_id, WRONG)
    checks.refused(exchange, "AUTH-02", f"{operation_id} with a key that is not the secret key")


@pytest.mark.requirement("AUTH-03")
@pytest.mark.parametrize("kind", list(KINDS), ids=list(KINDS.values()))
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_key_refusal_is_401(unauthenticated, operation_id, kind):
    """A request without x-service-key, or with a wrong one, is answered 401 Unauthorized."""
    exchange = unauthenticated(operation_id, kind)
    what = "no x-service-key" if kind == MISSING else "a wrong x-service-key"
    if exchange.ok:
        pytest.skip(f"{operation_id} with {what} was accepted (HTTP {exchange.status}): no refusal to look at "
                    f"(see {'AUTH-01' if kind == MISSING else 'AUTH-02'})")
    checks.equals(exchange.status, REFUSED_STATUS, "AUTH-03", f"{operation_id} with {what} is answered 401",
                  exchange)


@pytest.mark.requirement("AUTH-04")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_secret_key_is_accepted(samples, operation_id):
    """A valid request carrying the account's secret key in x-service-key is answered with a 2xx."""
    try:
        exchange = samples(operation_id)
    except TargetError as error:
        # The sample was refused: a refusal of the key itself is this requirement's failure; any other
        # refusal means the suite could not set the request up, and stays an error.
        refused = error.exchange
        if refused is not None and refused.operation_id == operation_id and refused.status in KEY_REFUSALS:
            checks.fail("AUTH-04", f"{operation_id} with the secret key is accepted", "a 2xx status",
                        refused.status, refused)
        raise
    checks.accepted(exchange, "AUTH-04", f"{operation_id} with the secret key")


@pytest.mark.requirement("AUTH-05")
def test_accounts_return_both_public_keys(samples):
    """Every listed account holds pubKey with a non-empty live and test public key."""
    exchange = samples("listAccounts")
    accounts = checks.data_is_array(exchange, "AUTH-05")
    if not accounts:
        checks.fail("AUTH-05", "GET /accounts lists at least one account", "an account", "an empty list", exchange)
    for index, account in enumerate(accounts):
        pub_key = account.get("pubKey") if isinstance(account, dict) else None
        if not isinstance(pub_key, dict):
            checks.fail("AUTH-05", "an account holds pubKey, an object", "an object with live and test",
                        f"data[{index}].pubKey = {pub_key!r}", exchange)
        for mode in ("live", "test"):
            value = pub_key.get(mode)
            if not isinstance(value, str) or not value:
                checks.fail("AUTH-05", f"pubKey.{mode} is a non-empty string", "a public key",
                            f"data[{index}].pubKey.{mode} = {value!r}", exchange)


@pytest.mark.requirement("AUTH-06")
@pytest.mark.parametrize("mode", ["test", "live"])
def test_public_key_as_service_key_is_observed(samples, api, observe, mode):
    """What GET /virtual-accounts answers when x-service-key holds a public key (recorded, not judged)."""
    try:
        account = own_account(samples("listAccounts").data)
    except TargetError as error:
        pytest.skip(f"no account to read a public key from: {error}")
    pub_key = account.get("pubKey")
    key = pub_key.get(mode) if isinstance(pub_key, dict) else None
    if not isinstance(key, str) or not key:
        pytest.skip(f"the account shows no pubKey.{mode} (see AUTH-05)")
    exchange = api.call("listWallets", key=key)
    listed = len(exchange.data) if isinstance(exchange.data, list) else None
    observe("AUTH-06", key=f"pubKey.{mode}", operation="listWallets", status=exchange.status, accepted=exchange.ok,
            message=exchange.meta.get("message"), listed=listed)
