"""The run's account as GET /accounts lists it: the listed accounts, one found by its publicId, the id the update
operation names it by, and the write that sends its own webhooks back (changing nothing)."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import DEFAULT, ApiClient, Exchange, TargetError
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.resources import Resources

ACCOUNT_FIELDS = "RES-10"  # an Account has every documented field, publicId among them
WEBHOOKS_ARRAY = "RES-13"  # an Account's webhooks is an array of strings


def listed_accounts(api: ApiClient, resources: Resources) -> list[dict[str, Any]]:
    """The accounts GET /accounts lists now, each an object; a test cannot work without such a list."""
    listed = resources.require(api.call("listAccounts"), "list accounts")
    if not isinstance(listed, list) or not all(isinstance(account, dict) for account in listed):
        raise CannotJudge("GET /accounts gives no list of accounts to work with")
    return listed


def account_id(account: dict[str, Any]) -> str:
    """The publicId that names an account in the update operation's path; an account without one cannot be
    updated (a setup step the target did not let happen, under the requirement of the Account's fields)."""
    public_id = account.get("publicId")
    if not isinstance(public_id, str):
        raise TargetError(
            f"the account carries no publicId string to update it by (publicId {public_id!r})",
            requirement=ACCOUNT_FIELDS,
        )
    return public_id


def listed_account(api: ApiClient, resources: Resources, public_id: str) -> tuple[dict[str, Any] | None, Exchange]:
    """The account with `public_id` as GET /accounts lists it now, read page after page until it shows (None when
    not listed), and the exchange of the last page read."""

    def shows(account: Any) -> bool:
        return isinstance(account, dict) and account.get("publicId") == public_id

    listing = lists.read(api, "listAccounts", until=lambda accounts: any(map(shows, accounts)))
    resources.require(listing.first, "list accounts")
    return next(filter(shows, listing.entries), None), listing.exchanges[-1]


def own_webhooks_sent_back(
    api: ApiClient,
    resources: Resources,
    *,
    key: Any = DEFAULT,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
) -> Exchange:
    """PATCH /accounts/{accountId} of the own account with its own webhooks sent back (with `key`, default the
    run's, and any `headers` and query `params`): a write that changes nothing, even where it should have been
    refused. An account that shows its webhooks as no array has none to send back as the update takes them: a setup
    step the target did not let happen, under the requirement of their type."""
    with resources.account_wide():
        account = resources.own_account()
        webhooks = account.get("webhooks", [])
        if not isinstance(webhooks, list):
            raise TargetError(
                f"the account shows webhooks {webhooks!r}, no array: they cannot be sent back as an update's webhooks",
                requirement=WEBHOOKS_ARRAY,
            )
        return api.call(
            "updateAccount",
            {"accountId": account_id(account)},
            json_body=bodies.account_update(webhooks),
            key=key,
            headers=headers,
            params=params,
        )


def webhooks_of(account: dict[str, Any]) -> list[Any]:
    """The account's webhooks as a list ([] when it shows none, or not as a list)."""
    webhooks = account.get("webhooks")
    return list(webhooks) if isinstance(webhooks, list) else []
