"""Changes the tests make to the run's account (its webhooks, its name), each made under `Resources.account_wide`
(the run's one lock on what the account shares) and undone when the test is done: a real account keeps its
deliveries and its name through a run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.client.near_copies import last_changed
from wallet_conformance.judge.failures import CannotJudge, shown
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.accounts import account_id, listed_account, listed_accounts, webhooks_of
from wallet_conformance.world.resources import Resources


@dataclass(frozen=True)
class WebhooksAdded:
    """The own account as it was before the change, the update that added the webhooks, and the list it sent."""

    account: dict[str, Any]
    update: Exchange
    sent: list[str]


def taken(update: Exchange) -> Exchange:
    """The update of the suite's webhook URLs, which the target took; the test cannot judge one it refused with a 4xx:
    which URLs a target takes as webhooks is not shown (many refuse reserved or private hosts)."""
    if 400 <= update.status < 500:
        raise CannotJudge(
            f"the target refused the suite's webhook URLs (HTTP {update.status}); which URLs it takes is "
            "not shown: give --webhook-public-url with an address it accepts"
        )
    return update


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
                print(
                    f"\nwallet-conformance: could not restore the account's webhooks "
                    f"(HTTP {restored.status}); they were {original}"
                )


@dataclass(frozen=True)
class RevisionsSeen:
    """`__v` of the own account before an update that changed its webhooks, in the update's answer, and as GET /accounts
    listed it after the update; and the update."""

    before: Any
    answered: Any
    listed_after: Any
    update: Exchange


def revisions_across_a_change(api: ApiClient, resources: Resources, added: list[str]) -> RevisionsSeen:
    """Adds `added` to the own account's webhooks (`webhooks_added`), reads the account listed, then puts the webhooks
    back; what `__v` showed before, in the answer and after."""
    with webhooks_added(api, resources, added) as change:
        listed = resources.own_account()
    answered = change.update.data if isinstance(change.update.data, dict) else {}
    return RevisionsSeen(change.account.get(REVISION), answered.get(REVISION), listed.get(REVISION), change.update)


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
        account = resources.own_account()
        public_id = account_id(account)
        original = account.get("webhooks", [])
        sent = [*original, *added] if isinstance(original, list) else added
        try:
            update = api.call("updateAccount", {"accountId": public_id}, json_body=bodies.account_update(sent))
        finally:
            restored = api.call("updateAccount", {"accountId": public_id}, json_body=bodies.account_update(original))
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
        return listed_account(api, resources, public_id)[0] or {}

    with resources.account_wide():
        account = resources.own_account()
        original, public_id = account.get("name"), account_id(account)
        webhooks = account.get("webhooks", [])
        asked = f"{original} {run_id}"
        try:
            update = api.call(
                "updateAccount", {"accountId": public_id}, json_body=bodies.account_update(webhooks, name=asked)
            )
            after = now_listed(public_id)
        finally:
            if now_listed(public_id).get("name") != original:
                resources.require(
                    api.call(
                        "updateAccount",
                        {"accountId": public_id},
                        json_body=bodies.account_update(webhooks, name=original),
                    ),
                    "restore the account's name",
                )
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
        chosen = min(
            named, key=lambda account: sum(account["name"].casefold() in other["name"].casefold() for other in named)
        )
        listing = lists.read(
            api,
            "listAccounts",
            params={"name": chosen["name"]},
            until=lambda entries: any(
                isinstance(entry, dict) and entry.get("publicId") == chosen.get("publicId") for entry in entries
            ),
        )
    return NameFiltered(chosen["name"], chosen, listing)


# The Account fields the server sets (AUTH-20): the record's identity, its owner, its keys, its creation and its
# revision. An update carries other values of them; none may take.
SERVER_OWNED = ("_id", "id", "publicId", "business", "pubKey", "createdAt", "__v")
REVISION = "__v"  # the server may advance its revision on an update, never to the value the client sent
REVISION_STEP = 1000  # how far beyond the current revision the value sent is: no update advances it that far
OTHER_CREATION = "2000-01-01T00:00:00.000Z"  # a creation time, in the document's format, no account of a run has


def other_value(name: str, value: Any) -> Any:
    """A value of field `name` of the same form as `value` (a record id of the same length, a public key with its
    prefix, a timestamp, a revision) that differs from it, so a server that takes it shows a changed field."""
    if name == REVISION:
        return (value if type(value) is int else 0) + REVISION_STEP
    if name == "createdAt":
        return OTHER_CREATION
    if isinstance(value, dict):
        return {key: other_value(key, item) for key, item in value.items()}
    if isinstance(value, str) and value:
        return last_changed(value)
    return f"set-by-the-client-{name}"


@dataclass(frozen=True)
class ServerOwnedUpdate:
    """An update of the own account carrying its webhooks unchanged and other values of its server-owned fields:
    the account before, the body sent, the answer, and the account as listed after (None: no longer listed under
    any identifier it had or was sent)."""

    before: dict[str, Any]
    sent: dict[str, Any]
    update: Exchange
    after: dict[str, Any] | None

    def changed(self) -> dict[str, dict[str, Any]]:
        """The server-owned fields the update changed: each with its value before, the value sent, and after."""
        after = self.after or {}
        found = {}
        for name in SERVER_OWNED:
            now, was = after.get(name), self.before.get(name)
            took = now != was and (name != REVISION or now == self.sent[name])
            if took or self.after is None:
                found[name] = {"before": was, "sent": self.sent[name], "after": now}
        return found


def server_owned_fields_sent(api: ApiClient, resources: Resources) -> ServerOwnedUpdate:
    """PATCH of the own account with its current webhooks and other values of every server-owned field (under the
    account-wide lock), then the account read back; whatever the update changed is put back afterwards (at the
    publicId it then has), and a failed restore is reported, not raised."""
    with resources.account_wide():
        before = resources.own_account()
        sent = {
            "webhooks": before.get("webhooks", []),
            **{name: other_value(name, before.get(name)) for name in SERVER_OWNED},
        }
        update = api.call("updateAccount", {"accountId": account_id(before)}, json_body=sent)
        identifiers = {
            (name, value)
            for name in ("publicId", "_id", "id")
            for value in (before.get(name), sent[name])
            if value is not None
        }
        listing = lists.read(
            api,
            "listAccounts",
            until=lambda entries: any(
                isinstance(entry, dict) and any(entry.get(name) == value for name, value in identifiers)
                for entry in entries
            ),
        )
        after = next(
            (
                entry
                for entry in listing.entries
                if isinstance(entry, dict) and any(entry.get(name) == value for name, value in identifiers)
            ),
            None,
        )
        made = ServerOwnedUpdate(before, sent, update, after)
        if after is not None and (made.changed() or after.get("webhooks") != before.get("webhooks")):
            body = {"webhooks": before.get("webhooks", []), **{name: before.get(name) for name in made.changed()}}
            restored = api.call("updateAccount", {"accountId": account_id(after)}, json_body=body)
            if not restored.ok:
                print(
                    f"\nwallet-conformance: could not restore the account's fields (HTTP {restored.status}); "
                    f"they were {shown({name: before.get(name) for name in made.changed()})}"
                )
    return made
