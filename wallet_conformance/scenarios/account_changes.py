"""Changes the tests make to the run's account (its webhooks, its name), each made under `Resources.account_wide`
(the run's one lock on what the account shares) and undone when the test is done: a real account keeps its
deliveries and its name through a run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.accounts import account_id, listed_accounts, webhooks_of
from wallet_conformance.world.resources import Resources, own_account


@dataclass(frozen=True)
class WebhooksAdded:
    """The own account as it was before the change, the update that added the webhooks, and the list it sent."""

    account: dict[str, Any]
    update: Exchange
    sent: list[str]


@contextmanager
def webhooks_added(api: ApiClient, resources: Resources, added: list[str]) -> Iterator[WebhooksAdded]:
    """Adds `added` to the own account's webhooks for the block (the lock held throughout), then puts the original
    list back; a failed restore is reported, not raised (the block's own outcome stands)."""
    with resources.account_wide():
        account = resources.own_account()
        public_id = account_id(account)
        original = webhooks_of(account)
        wanted = [url for url in original if url not in added] + added
        update = api.call("updateAccount", {"accountId": public_id}, json_body=bodies.account_update(wanted))
        try:
            yield WebhooksAdded(account, update, wanted)
        finally:
            restored = api.call("updateAccount", {"accountId": public_id}, json_body=bodies.account_update(original))
            if not restored.ok:
                print(f"\nwallet-conformance: could not restore the account's webhooks "
                      f"(HTTP {restored.status}); they were {original}")


@dataclass(frozen=True)
class WebhooksUpdate:
    """An update that sent `sent` as the account's webhooks, and the update that put the original ones back."""

    update: Exchange
    sent: list[Any]
    restored: Exchange


def webhooks_updated_then_restored(api: ApiClient, resources: Resources, added: list[str]) -> WebhooksUpdate:
    """Sends the own account's webhooks with `added` after them, then (whatever happened) the original ones again.
    The account's own webhooks stay in the list: a real account keeps its deliveries during the run."""
    with resources.account_wide():
        account = own_account(listed_accounts(api, resources))
        public_id = account_id(account)
        original = account.get("webhooks", [])
        sent = [*original, *added] if isinstance(original, list) else added
        try:
            update = api.call("updateAccount", {"accountId": public_id}, json_body=bodies.account_update(sent))
        finally:
            restored = api.call("updateAccount", {"accountId": public_id},
                                json_body=bodies.account_update(original))
    return WebhooksUpdate(update, sent, restored)


@dataclass(frozen=True)
class NameUpdate:
    """An update that asked for a new account name, and the account as listed right after it."""

    asked: str
    update: Exchange
    listed_after: dict[str, Any]

    @property
    def response_shows_new_name(self) -> bool:
        shown = self.update.data if isinstance(self.update.data, dict) else {}
        return shown.get("name") == self.asked

    @property
    def listed_name_changed(self) -> bool:
        return self.listed_after.get("name") == self.asked


def name_updated_then_restored(api: ApiClient, resources: Resources, run_id: str) -> NameUpdate:
    """Asks an update to rename the own account (its webhooks sent back unchanged), reads the list, then puts the
    original name back if the name changed (a failed restore is a setup error)."""

    def now_listed(public_id: str) -> dict[str, Any]:
        return next((entry for entry in listed_accounts(api, resources) if entry.get("publicId") == public_id), {})

    with resources.account_wide():
        account = own_account(listed_accounts(api, resources))
        original, public_id = account.get("name"), account_id(account)
        webhooks = account.get("webhooks", [])
        asked = f"{original} {run_id}"
        try:
            update = api.call("updateAccount", {"accountId": public_id},
                              json_body=bodies.account_update(webhooks, name=asked))
            after = now_listed(public_id)
        finally:
            if now_listed(public_id).get("name") != original:
                resources.require(api.call("updateAccount", {"accountId": public_id},
                                           json_body=bodies.account_update(webhooks, name=original)),
                                  "restore the account's name")
    return NameUpdate(asked, update, after)


@dataclass(frozen=True)
class NameFiltered:
    """GET /accounts filtered by the name of one listed account (`chosen`), read until that account shows."""

    name: str
    chosen: dict[str, Any]
    listing: lists.Listing


def filtered_by_a_distinct_name(api: ApiClient, resources: Resources) -> NameFiltered:
    """GET /accounts?name= with the name of a listed account that no other listed account's name contains (so an
    ignored filter shows), read page after page until that account is among the entries or the list ends.

    Whether the filter matches exactly, by substring or ignoring case is not shown: the choice suits every such
    rule. A list without a named account cannot be judged.
    """
    with resources.account_wide():
        named = [account for account in listed_accounts(api, resources) if isinstance(account.get("name"), str)]
        if not named:
            raise CannotJudge("GET /accounts shows no account with a name to filter on")
        chosen = min(named, key=lambda account: sum(account["name"].casefold() in other["name"].casefold()
                                                    for other in named))
        listing = lists.read(api, "listAccounts", params={"name": chosen["name"]},
                             until=lambda entries: any(isinstance(entry, dict)
                                                       and entry.get("publicId") == chosen.get("publicId")
                                                       for entry in entries))
    return NameFiltered(chosen["name"], chosen, listing)
