"""What the target delivers to a webhook: a listener of the run's own is registered as one of the account's
webhooks, a wallet is funded and a transfer made, and the deliveries that came meanwhile are described.

Event kinds, payloads, delivery rules and signing are not shown: the deliveries are recorded, never judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.scenarios import account_changes
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, money, webhook_listener
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources


@dataclass
class Deliveries:
    """The webhook URL registered, the update that registered it, whether the transfer settled, and each delivery
    the listener received, described (`webhook_listener.describe`)."""

    url: str
    update: Exchange
    settled: bool = False
    described: list[dict[str, Any]] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        """Whether the target refused the URL as a webhook (which URLs it takes is not shown)."""
        return not self.update.ok

    @property
    def url_scheme(self) -> str:
        return self.url.split(":", 1)[0]

    @property
    def about_this_test(self) -> int:
        """How many deliveries name the transfer or one of its wallets."""
        return sum(1 for item in self.described if item["about_this_test"])

    def one_per_kind(self) -> dict[str, dict[str, Any]]:
        """The first delivery of each kind of event, by kind."""
        examples: dict[str, dict[str, Any]] = {}
        for item in self.described:
            examples.setdefault(str(item["kind"]), item)
        return examples


def around_a_transfer(
    api: ApiClient, resources: Resources, settings: Settings, secret_key: str, run_id: str
) -> Deliveries:
    """Listens on --webhook-listen, adds the listener (or --webhook-public-url) to the account's webhooks, funds a
    wallet and transfers the smallest amount from it, then waits up to --settle-timeout for a delivery about the
    transfer; the account's webhooks are put back. A refused URL ends the scenario there (`refused`)."""
    if settings.webhook_listen is None:
        raise ValueError("around_a_transfer needs --webhook-listen")
    host, port = settings.webhook_listen
    amount = contract.minimum_amount("transfer")
    lifetime = settings.settle_timeout + webhook_listener.LISTENER_GRACE
    with webhook_listener.Listener(host, port, lifetime=lifetime) as listener:
        url = settings.webhook_public_url or listener.url(run_id)
        with account_changes.webhooks_added(api, resources, [url]) as change:
            seen = Deliveries(url, change.update)
            if seen.refused:
                return seen
            source = resources.funded_wallet(money.funding("transfer"))  # room for a fee
            destination = resources.wallet()
            sent = api.call("transfer", json_body=bodies.transfer(source["publicId"], destination["publicId"], amount))
            transaction = resources.require(sent, "transfer between two wallets of the run")
            reference = transaction.get("reference") if isinstance(transaction, dict) else None
            references = {value for value in (reference, source["publicId"], destination["publicId"]) if value}
            if isinstance(reference, str):
                seen.settled = money.settled_or_none(resources, reference) is not None

            def about_the_transfer() -> bool:
                return any(
                    reference and reference in item["raw"].decode(errors="replace") for item in listener.deliveries()
                )

            poll(about_the_transfer, settings.settle_timeout)
            received = listener.deliveries()
    seen.described = [webhook_listener.describe(item, references, secret_key) for item in received]
    return seen
