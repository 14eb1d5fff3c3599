"""The run's samples: one successful exchange per operation, each made once by a session fixture of
tests/conftest.py (`sample_<operationId>`), and `Samples`, the view tests reach them through.

Each takes `get` (`Fixtures`), the test run's fixture getter (pytest's `request.getfixturevalue`), as bad_requests.py
does.
"""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import Exchange, TargetError
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world.bad_requests import Fixtures
from wallet_conformance.world.resources import Resources


def accepted_sample(exchange: Exchange) -> Exchange:
    """A sample, which must be a success: a refusal is a failure of the operation's acceptance requirement (of the
    key's, a 401: `contract.refusal_requirement`)."""
    if not exchange.ok:
        raise TargetError(
            f"a valid {exchange.operation_id} request was not accepted (HTTP {exchange.status})\n{exchange.describe()}",
            exchange,
            requirement=contract.refusal_requirement(exchange.operation_id, exchange.request_body, exchange.status),
        )
    return exchange


def reference_to_verify(get: Fixtures, resources: Resources) -> str:
    """The reference of a transaction to verify: the sample transfer's when the run can fund one, else that of the
    first transaction listed; the test cannot judge without one."""
    if resources.can_fund:
        made = get("sample_transfer").data
        reference = made.get("reference") if isinstance(made, dict) else None
        if not isinstance(reference, str):
            raise CannotJudge("no transaction to verify: the sample transfer carries no reference (see RES-60)")
        return reference
    listed = get("sample_listTransactions").data
    first = listed[0] if isinstance(listed, list) and listed else None
    reference = first.get("reference") if isinstance(first, dict) else None
    if not isinstance(reference, str):
        raise CannotJudge("no transaction to verify: give --funding-url or --funded-wallet")
    return reference


class Samples:
    """The test's view of the samples: `samples("listBanks")` is the session fixture `sample_listBanks`."""

    def __init__(self, get: Fixtures) -> None:
        self._get = get

    def __call__(self, operation_id: str) -> Exchange:
        return self._get(f"sample_{operation_id}")

    def accepted(self, operation_id: str) -> Exchange:
        """The sample, where a refusal of this very operation is a failure of the test's own requirement."""
        try:
            return self(operation_id)
        except TargetError as error:
            if error.exchange is not None and error.exchange.operation_id == operation_id:
                checks.accepted(error.exchange, f"a valid {operation_id} request")
            raise

    def wallet(self) -> dict[str, Any]:
        """The wallet the createWallet sample made."""
        return self._get("sample_wallet")
