"""Fixtures of the conformance tests. The machinery (client, target, cleanup) lives in wallet_conformance/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from wallet_conformance import bodies, checks, contract
from wallet_conformance.client import ApiClient, Exchange, TargetError
from wallet_conformance.resources import Resources

OPERATIONS = tuple(contract.operations())
MONEY_OPERATIONS = ("transfer", "bankTransfer", "verifyTransaction")


class Samples:
    """One successful exchange per operation, made the first time a test asks and shared by the run.

    Convention tests (envelope, meta, types) look at these instead of calling the target again.
    """

    def __init__(self, api: ApiClient, resources: Resources) -> None:
        self.api = api
        self.resources = resources
        self._made: dict[str, Exchange | BaseException] = {}
        self._wallet: dict[str, Any] | None = None

    def __call__(self, operation_id: str) -> Exchange:
        if operation_id not in self._made:
            try:
                exchange = getattr(self, f"_{operation_id}")()
                if not exchange.ok:
                    raise TargetError(f"a valid {operation_id} request was not accepted "
                                      f"(HTTP {exchange.status})\n{exchange.describe()}", exchange)
                self._made[operation_id] = exchange
            except (TargetError, pytest.skip.Exception) as error:
                self._made[operation_id] = error
        made = self._made[operation_id]
        if isinstance(made, BaseException):
            raise made
        return made

    def accepted(self, operation_id: str, requirement: str) -> Exchange:
        """The sample, where a refusal of this very operation is a failure of `requirement` (not a setup error)."""
        try:
            return self(operation_id)
        except TargetError as error:
            refused = error.exchange
            if refused is not None and refused.operation_id == operation_id:
                checks.accepted(refused, requirement, f"a valid {operation_id} request")
            raise

    def wallet(self) -> dict[str, Any]:
        if self._wallet is None:
            self._wallet = self.resources.require(self("createWallet"), "create a wallet")
        return self._wallet

    def _listAccounts(self) -> Exchange:
        return self.api.call("listAccounts")

    def _updateAccount(self) -> Exchange:
        with self.resources.account_settings():
            accounts = self.resources.require(self.api.call("listAccounts"), "list accounts")
            account = own_account(accounts)
            # Sends the account's own webhooks back: a write that changes nothing.
            return self.api.call("updateAccount", {"accountId": account["publicId"]},
                                 json_body={"webhooks": account.get("webhooks", [])})

    def _createWallet(self) -> Exchange:
        return self.resources.create_wallet(bodies.wallet(self.resources.run_id))

    def _listWallets(self) -> Exchange:
        self.wallet()
        return self.api.call("listWallets")

    def _getWallet(self) -> Exchange:
        return self.api.call("getWallet", {"walletId": self.wallet()["publicId"]})

    def _closeWallet(self) -> Exchange:
        return self.resources.close_wallet(self.resources.wallet()["publicId"])

    def _createCollectionAccount(self) -> Exchange:
        body = bodies.collection_account(self.resources.run_id, self.wallet()["publicId"])
        return self.api.call("createCollectionAccount", json_body=body)

    def _validateAccount(self) -> Exchange:
        number, code = self.resources.external_account()
        return self.api.call("validateAccount", json_body={"accountNumber": number, "bankCode": code})

    def _listTransactions(self) -> Exchange:
        if self.resources.can_fund:
            self("transfer")  # so the list holds a debit and an inbound credit to look at
        return self.api.call("listTransactions")

    def _listBanks(self) -> Exchange:
        return self.api.call("listBanks")

    def _transfer(self) -> Exchange:
        amount = contract.minimum_amount("transfer")
        source = self.resources.funded_wallet(amount)
        destination = self.resources.wallet()
        body = bodies.transfer(source["publicId"], destination["publicId"], amount)
        return self.api.call("transfer", json_body=body)

    def _bankTransfer(self) -> Exchange:
        amount = contract.minimum_amount("bankTransfer")
        number, code = self.resources.external_account()
        source = self.resources.funded_wallet(amount * 2)
        return self.api.call("bankTransfer", json_body=bodies.bank_transfer(source["publicId"], number, code, amount))

    def _verifyTransaction(self) -> Exchange:
        reference = None
        if self.resources.can_fund:
            reference = self("transfer").data.get("reference")
        else:
            listed = self("listTransactions").data
            if isinstance(listed, list) and listed and isinstance(listed[0], dict):
                reference = listed[0].get("reference")
        if not isinstance(reference, str):
            pytest.skip("no transaction to verify: give --funding-url or --funded-wallet")
        return self.api.call("verifyTransaction", {"reference": reference})


def own_account(accounts: Any) -> dict[str, Any]:
    """The account the tests may touch: the default one, else the first listed."""
    if not isinstance(accounts, list) or not accounts or not all(isinstance(a, dict) for a in accounts):
        raise TargetError("GET /accounts listed no account to work with")
    return next((account for account in accounts if account.get("isDefault") is True), accounts[0])


@pytest.fixture(scope="session")
def samples(api: ApiClient, resources: Resources) -> Samples:
    return Samples(api, resources)


@pytest.fixture
def wallet(resources: Resources) -> dict[str, Any]:
    """A new open secondary wallet of this test's own."""
    return resources.wallet()


@pytest.fixture
def funded_wallet(resources: Resources) -> Callable[[int], dict[str, Any]]:
    """Makes a new wallet holding the given kobo (skips when the run cannot fund wallets)."""
    return resources.funded_wallet
