"""What every part of the run's records on the target stands on: the client, settings, target, name prefix and guard
the run makes them with, the waits it gave up, and `require`, the data of a setup step that succeeded."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.target import Target
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.world.safety import Guard, NotAllowed

# What stops a setup step that a test can do without (a source of samples it may leave out): the target
# could not do it, the run may not do it here (the guard), or the run has no way to (a skip, e.g. no funding).
UNAVAILABLE = (TargetError, NotAllowed, CannotJudge)


class SetupSteps:
    """The run's setup steps on the target in one account (its key's client): what each part of `Resources` sends
    with, and what they share."""

    def __init__(self, api: ApiClient, settings: Settings, target: Target, run_id: str, guard: Guard) -> None:
        self.api = api
        self.settings = settings
        self.target = target
        self.run_id = run_id
        self.guard = guard
        # Waits that came to nothing once (funding, settlement, the external account), and why: later tests do not
        # wait the full timeout again.
        self.gave_up: dict[str, str] = {}

    def require(self, exchange: Exchange, what: str, envelope: bool = True, requirement: str | None = None) -> Any:
        """The data of a successful exchange; a failure here is the target's, reported as a setup error.

        The error names the requirement the step exercises: `requirement`, else the acceptance requirement of
        the exchange's operation (a documented request of it is accepted; a 401, the key is: see
        `contract.refusal_requirement`), else none.
        """
        if not exchange.ok:
            raise TargetError(
                f"could not {what}: the target answered {exchange.status}\n{exchange.describe()}",
                exchange,
                requirement=requirement
                or contract.refusal_requirement(exchange.operation_id, exchange.request_body, exchange.status),
            )
        if not envelope:
            return exchange.json
        return exchange.data
