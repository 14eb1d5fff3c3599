"""Events: an account holds webhooks set by update; deliveries are observed when a listener is given.

The tests change the account's webhooks only while holding the run's account-settings lock, add to the
webhooks the account already has (never remove the owner's), and put the original list back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge import checks
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, money, webhook_listener
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources, own_account


def account_webhooks(api: ApiClient, resources: Resources, public_id: str | None = None) -> tuple[dict, Exchange]:
    """The own account (or the one with `public_id`) as GET /accounts lists it now, and the exchange."""
    exchange = api.call("listAccounts")
    accounts = resources.require(exchange, "list accounts")
    if public_id is None:
        return own_account(accounts), exchange
    for account in accounts if isinstance(accounts, list) else []:
        if isinstance(account, dict) and account.get("publicId") == public_id:
            return account, exchange
    return {}, exchange


@contextmanager
def webhooks_added(api: ApiClient, resources: Resources,
                   added: list[str]) -> Iterator[tuple[dict[str, Any], Exchange, list[str]]]:
    """Adds `added` to the own account's webhooks for the block (lock held), then puts the original list back.

    Yields the account as it was, the update's exchange and the list the update sent.
    """
    with resources.account_wide():
        account, _ = account_webhooks(api, resources)
        original = list(account.get("webhooks") or [])
        wanted = [url for url in original if url not in added] + added
        update = api.call("updateAccount", {"accountId": account["publicId"]}, json_body=bodies.account_update(wanted))
        try:
            yield account, update, wanted
        finally:
            restored = api.call("updateAccount", {"accountId": account["publicId"]},
                                json_body=bodies.account_update(original))
            if not restored.ok:
                print(f"\nwallet-conformance: could not restore the account's webhooks "
                      f"(HTTP {restored.status}); they were {original}")


# ------------------------------------------------------------------ EVT-01


@pytest.mark.requirement("EVT-01")
def test_webhooks_set_by_update_are_read_back(api, resources, run_id):
    """Webhooks set with PATCH /accounts/{accountId} are the account's webhooks in a later GET /accounts."""
    added = [f"https://{run_id}.conformance.invalid/hook", f"https://{run_id}.conformance.invalid/hook/second"]
    with webhooks_added(api, resources, added) as (account, update, wanted):
        checks.accepted(update, "PATCH /accounts/{accountId} with webhooks")
        read, exchange = account_webhooks(api, resources, account["publicId"])
        if not read:
            checks.fail("GET /accounts lists the updated account", account["publicId"], "not listed", exchange)
        held = read.get("webhooks")
        checks.equals(sorted(held) if isinstance(held, list) else held, sorted(wanted),
                      "the account holds the webhooks set by the update", exchange)


# ------------------------------------------------------------------ EVT-02: a listener for deliveries


@pytest.mark.requirement("EVT-02")
def test_webhook_deliveries_are_observed(api, resources, settings, target, run_id, observe):
    """What the target delivers to a registered webhook around a funding and a transfer (recorded, not judged)."""
    if not settings.webhook_listen:
        pytest.skip("deliveries are observed only with --webhook-listen HOST:PORT (and --webhook-public-url when "
                    "the target reaches the listener at another address)")
    host, port = settings.webhook_listen
    amount = contract.minimum_amount("transfer")
    lifetime = settings.settle_timeout + webhook_listener.LISTENER_GRACE
    with webhook_listener.Listener(host, port, lifetime=lifetime) as listener:
        url = settings.webhook_public_url or listener.url(run_id)
        with webhooks_added(api, resources, [url]) as (_, update, _):
            if not update.ok:
                # Which URLs a target takes as webhooks is not shown (many refuse plain http or private hosts):
                # a refusal is recorded and skips, never judged against the update operation.
                observe("EVT-02", webhook_refused=update.status, url_scheme=url.split(":", 1)[0])
                pytest.skip(f"the target refused the listener's URL as a webhook (HTTP {update.status}): give "
                            "--webhook-public-url with an address it accepts to observe deliveries")
            source = resources.funded_wallet(money.funding("transfer"))  # room for a fee
            destination = resources.wallet()
            sent = api.call("transfer", json_body=bodies.transfer(source["publicId"], destination["publicId"], amount))
            transaction = resources.require(sent, "transfer between two wallets of the run")
            reference = transaction.get("reference") if isinstance(transaction, dict) else None
            references = {value for value in (reference, source["publicId"], destination["publicId"]) if value}
            settled = money.wait_settled(resources, reference) if isinstance(reference, str) else None

            def about_the_transfer() -> bool:
                return any(reference and reference in item["raw"].decode(errors="replace")
                           for item in listener.deliveries())

            poll(about_the_transfer, settings.settle_timeout)
            received = listener.deliveries()
    described = [webhook_listener.describe(item, references, target.secret_key) for item in received]
    examples: dict[str, dict[str, Any]] = {}
    for item in described:  # one example per kind of event
        examples.setdefault(str(item["kind"]), item)
    observe(
        "EVT-02",
        webhook="--webhook-public-url" if settings.webhook_public_url else "the listener's own address",
        transfer_settled=settled is not None,
        deliveries=len(described),
        about_this_test=sum(1 for item in described if item["about_this_test"]),
        kinds=sorted(examples),
        waited_seconds_at_most=settings.settle_timeout,
        examples=list(examples.values()),
    )
