"""Events: an account holds webhooks set by update; deliveries are observed when a listener is given.

The tests change the account's webhooks only while holding the run's account-settings lock, add to the
webhooks the account already has (never remove the owner's), and put the original list back.
"""

from __future__ import annotations

import pytest

from wallet_conformance.judge import checks, urls
from wallet_conformance.scenarios import account_changes, webhook_deliveries
from wallet_conformance.world import accounts, bodies

# ------------------------------------------------------------------ EVT-01


@pytest.mark.requirement("EVT-01")
def test_webhooks_set_by_update_are_read_back(api, resources, run_id):
    """Webhooks set with PATCH /accounts/{accountId} are the account's webhooks in a later GET /accounts."""
    public_url = resources.settings.webhook_public_url
    added = [bodies.webhook_url(run_id, path, public_url) for path in ("hook", "hook/second")]
    with account_changes.webhooks_added(api, resources, added) as change:
        checks.accepted(account_changes.taken(change.update), "PATCH /accounts/{accountId} with webhooks")
        public_id = accounts.account_id(change.account)
        read, exchange = accounts.listed_account(api, resources, public_id)
        if read is None:
            checks.fail("GET /accounts lists the updated account", public_id, "not listed", exchange)
        held = read.get("webhooks")
        if not isinstance(held, list):
            pytest.skip(
                f"the account shows its webhooks as {held!r}, no array: what it holds cannot be compared with "
                "the list set (see RES-13)"
            )
        if not urls.same_urls(held, change.sent):  # in any order, each as RFC 3986 normalises it
            checks.fail("the account holds the webhooks set by the update", sorted(change.sent), held, exchange)


# ------------------------------------------------------------------ EVT-02: a listener for deliveries


@pytest.mark.requirement("EVT-02")
def test_webhook_deliveries_are_observed(api, resources, settings, target, run_id, observe):
    """What the target delivers to a registered webhook around a funding and a transfer (recorded, not judged)."""
    if not settings.webhook_listen:
        pytest.skip(
            "deliveries are observed only with --webhook-listen HOST:PORT (and --webhook-public-url when "
            "the target reaches the listener at another address)"
        )
    watched = webhook_deliveries.around_a_transfer(api, resources, settings, target.secret_key, run_id)
    if watched.refused:
        # Which URLs a target takes as webhooks is not shown (many refuse plain http or private hosts): a refusal is
        # recorded and skips, never judged against the update operation.
        observe("EVT-02", webhook_refused=watched.update.status, url_scheme=watched.url_scheme)
        pytest.skip(
            f"the target refused the listener's URL as a webhook (HTTP {watched.update.status}): give "
            "--webhook-public-url with an address it accepts to observe deliveries"
        )
    examples = watched.one_per_kind()
    observe(
        "EVT-02",
        webhook="--webhook-public-url" if settings.webhook_public_url else "the listener's own address",
        transfer_settled=watched.settled,
        deliveries=len(watched.described),
        about_this_test=watched.about_this_test,
        kinds=sorted(examples),
        waited_seconds_at_most=settings.settle_timeout,
        examples=list(examples.values()),
    )
