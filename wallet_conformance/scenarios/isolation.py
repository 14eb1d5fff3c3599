"""Isolation between accounts: what one account's key reaches of another account's records.

Two keys on one target: the run's (`api`, `resources`) and the second key's, the secret key of an account of
another business (`second_api`, `second_resources`, --second-secret-key). Each account is a `Tenant`: its key's
client and `Resources`, and the records the other key's requests are about, made once on first use (a run that may
not write probes what the account already holds). A probe runs in a `Direction`: the intruder's key asks about the
owner's records; every probe runs both ways.

A transaction of the owner's counts as shown to the intruder only where its publicId or `_id` is: its reference, the
key of verify, names it within its account only (RES-79 asks no more), so the intruder's own transaction may carry
the same reference, and a verify or a list showing it is no leak.

A record reached wrongly is read back with its owner's key: a wallet still open, a balance unmoved, webhooks as
they were. Which status refuses another account's record (403 or 404) is not shown: AUTH-19 observes it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.judge.parties import credit_leg
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.accounts import account_id
from wallet_conformance.world.own_account import is_account
from wallet_conformance.world.resources import Resources

# What names a transaction alone, whoever reads it: a reference is unique within its account only.
TRANSACTION_IDENTIFIERS = ("publicId", "_id")
SECOND_ON_FIRST = "second-key-on-first-account"
FIRST_ON_SECOND = "first-key-on-second-account"
DIRECTIONS = (SECOND_ON_FIRST, FIRST_ON_SECOND)


@dataclass
class Tenant:
    """One account as its own key reaches it: the key's client and Resources, and what the run made there (or, in a
    run that may not write, found there) for the other key's requests, each made once on first use."""

    name: str
    api: ApiClient
    resources: Resources
    _made: dict[str, Any] = field(default_factory=dict)

    def _once(self, what: str, make: Callable[[], Any]) -> Any:
        if what not in self._made:
            self._made[what] = make()
        return self._made[what]

    def account(self) -> dict[str, Any]:
        """The account as its key lists it now."""
        return self.resources.own_account()

    def wallet(self) -> dict[str, Any]:
        """A wallet of the account: a new one the run made, or one its wallet list shows (a run that may not write)."""
        writes = self.resources.settings.writes_allowed
        return self._once("wallet", self.resources.wallet if writes else self.resources.wallet_to_read)

    def funded_wallet(self) -> dict[str, Any]:
        """A wallet of the account holding enough for any one transfer and its fee; no other probe moves its money."""
        amount = max(money.funding(operation_id) for operation_id in contract.money_operations())
        return self._once("funded wallet", lambda: self.resources.funded_wallet(amount))

    def transaction(self) -> dict[str, Any]:
        """A transaction of the account with a reference and a publicId or _id, as its key showed it: a transfer it
        made between two of its wallets (when the run can move money), else the first its transaction list shows."""
        return self._once("transaction", self._transfer if self._can_transfer() else self._listed_transaction)

    def reference(self) -> str:
        """The reference of the account's transaction (`transaction`)."""
        reference: str = self.transaction()["reference"]
        return reference

    def transaction_identifiers(self) -> dict[str, str]:
        """What names the account's transaction alone, by name: its publicId and _id (its reference may be another
        account's transaction's too)."""
        return identifiers(self.transaction(), TRANSACTION_IDENTIFIERS)

    def _can_transfer(self) -> bool:
        return self.resources.settings.money_allowed and self.resources.can_fund

    def _transfer(self) -> dict[str, Any]:
        source = self.resources.funded_wallet(money.funding("transfer"))["publicId"]
        body = bodies.transfer(source, self.wallet()["publicId"], contract.minimum_amount("transfer"))
        made = money.accepted_transfer(self.api.call("transfer", json_body=body), f"make a transfer in {self.name}")
        if not identifiers(made, TRANSACTION_IDENTIFIERS):
            raise CannotJudge(
                f"the transfer made in {self.name} shows no publicId or _id: its reference alone may name "
                "another account's transaction too"
            )
        return made

    def _listed_transaction(self) -> dict[str, Any]:
        listed = self.resources.require(self.api.call("listTransactions"), "list transactions")
        entries = listed if isinstance(listed, list) else []
        found = next(
            (
                entry
                for entry in entries
                if isinstance(entry, dict)
                and isinstance(entry.get("reference"), str)
                and identifiers(entry, TRANSACTION_IDENTIFIERS)
            ),
            None,
        )
        if found is None:
            raise CannotJudge(
                f"{self.name} shows no transaction with a reference and a publicId or _id, and the run cannot make "
                "one (give --funding-url; in production also --allow-writes --allow-money-movement)"
            )
        return found


@dataclass(frozen=True)
class Direction:
    """Who asks about whose records: the intruder's key, the owner's records."""

    owner: Tenant
    intruder: Tenant

    @property
    def words(self) -> str:
        return f"the key of {self.intruder.name} on a record of {self.owner.name}"

    def other_business(self) -> None:
        """The test cannot judge what a list may hold of another business when both accounts show one business (a
        second key of the same business was given)."""
        owner, intruder = self.owner.account().get("business"), self.intruder.account().get("business")
        if owner is not None and owner == intruder:
            raise CannotJudge(
                f"both keys' accounts belong to business {owner!r}: give as --second-secret-key the "
                "key of an account of another business"
            )


def direction(name: str, first: Tenant, second: Tenant) -> Direction:
    """The direction `name` (one of DIRECTIONS) between the run's two accounts. The test cannot judge when both keys
    open one account (their wallets name the same account): the second key is then no other account's."""
    chosen = Direction(owner=first, intruder=second) if name == SECOND_ON_FIRST else Direction(second, first)
    owners = [_account_id_if_known(tenant) for tenant in (first, second)]
    if None not in owners and owners[0] == owners[1]:
        raise CannotJudge(
            "the second key opens the first key's own account (the wallets of both name the same "
            "account): give as --second-secret-key the key of an account of another business"
        )
    return chosen


def _account_id_if_known(tenant: Tenant) -> str | None:
    """The record id of the tenant's account, or None where it cannot be told (a run that may not write, in an
    account whose wallet list is empty): the probes that need it say so themselves."""
    try:
        return tenant.resources.own_account_id()
    except CannotJudge:
        return None


def refusal_seen(sides: Direction, exchange: Exchange) -> dict[str, Any]:
    """What AUTH-19 records of a request about another account's record: who asked, the operation, its status."""
    return {
        "direction": sides.words,
        "operation": exchange.operation_id,
        "status": exchange.status,
        "refused": not exchange.ok,
    }


def _values(node: Any) -> set[Any]:
    """Every string of a JSON value, at any depth."""
    if isinstance(node, dict):
        return set().union(*map(_values, node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*map(_values, node)) if node else set()
    return {node} if isinstance(node, str) else set()


def not_disclosed(exchange: Exchange, record: dict[str, Any], words: str, *, requirement: str) -> None:
    """The intruder's read of the owner's `record` (its identifiers, by name) showed nothing of it: refused (no
    2xx), or answered with a 2xx whose data shows none of its identifiers (another record, or none: what a read of a
    record the key cannot reach should answer is not this requirement's matter, END-16, END-17, END-30). A 5xx is
    ERR-05's failure as well."""
    if exchange.ok:
        shown = sorted(value for value in _values(exchange.data) if value in set(record.values()))
        checks.holds(
            not shown,
            f"{words}: another account's record is not shown",
            "a refusal, or nothing of that record",
            f"HTTP {exchange.status} showing {shown}",
            exchange,
            requirement=requirement,
        )
        return
    checks.refused(exchange, words, requirement=requirement)


def identifiers(record: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """The identifiers of a record that name it alone (non-empty strings), by name."""
    return {name: record[name] for name in names if isinstance(record.get(name), str) and record[name]}


# ------------------------------------------------------------------ the owner's wallets


@dataclass(frozen=True)
class Attempt:
    """The intruder's request about one of the owner's records, and the record as its owner reads it afterwards."""

    exchange: Exchange
    after: Exchange


def close_attempt(sides: Direction) -> Attempt:
    """The intruder closes a new wallet of the owner's (one of its own: a broken server closing it takes no other
    probe's wallet); the owner reads it afterwards."""
    wallet = sides.owner.resources.wallet()["publicId"]
    exchange = sides.intruder.api.call("closeWallet", {"walletId": wallet})
    sides.owner.resources.track(exchange)  # closed wrongly: the owner's sweep need not close it again
    return Attempt(exchange, sides.owner.api.call("getWallet", {"walletId": wallet}))


@dataclass(frozen=True)
class Debit:
    """The intruder's transfer out of the owner's funded wallet, and that wallet's balance just before it."""

    exchange: Exchange
    before: dict[str, int]


def debit_attempt(sides: Direction, operation_id: str) -> Debit:
    """The intruder sends a transfer (`transfer`: into a wallet of its own; `bankTransfer`: to the external account)
    of the minimum amount out of the owner's funded wallet, which holds enough for it: a refusal is not for want of
    money."""
    source = sides.owner.funded_wallet()["publicId"]
    before = {source: money.balance_or_last(sides.owner.resources, source, still=True)}
    amount = contract.minimum_amount(operation_id)
    if operation_id == "transfer":
        body = bodies.transfer(source, sides.intruder.wallet()["publicId"], amount)
    else:
        body = bodies.bank_transfer(source, *sides.intruder.resources.external_account(), amount)
    return Debit(sides.intruder.api.call(operation_id, json_body=body), before)


def refused_without_debit(sides: Direction, debit: Debit, *, requirement: str) -> None:
    """The intruder's transfer was refused (no 2xx), and the owner's wallet kept its balance (read by its owner)."""
    money.refused_without_debit(
        sides.owner.resources,
        debit.exchange,
        debit.before,
        f"{debit.exchange.operation_id} by {sides.words}",
        requirement=requirement,
    )


# ------------------------------------------------------------------ the owner's records in the intruder's lists


@dataclass(frozen=True)
class Sighting:
    """The intruder's list read for the owner's records: what was looked for, the listing, and what of it showed."""

    sought: dict[str, Any]
    listing: lists.Listing
    found: list[Any]


def _sought(sides: Direction, operation_id: str) -> dict[str, Any]:
    """What of the owner's a list of `operation_id` must not show: its wallet, its transaction (by publicId or _id, not
    by a reference the intruder's own transaction may share), or the account."""
    if operation_id == "listWallets":
        return {"publicId": sides.owner.wallet()["publicId"]}
    if operation_id == "listTransactions":
        return sides.owner.transaction_identifiers()
    account = sides.owner.account()
    return {name: account[name] for name in ("publicId", "_id") if isinstance(account.get(name), str)}


def owner_records_listed(sides: Direction, operation_id: str) -> Sighting:
    """The intruder's list `operation_id` read page after page (as far as the target's paging allows) for the owner's
    record; the test cannot judge between businesses it cannot tell apart."""
    sides.other_business()
    sought = _sought(sides, operation_id)

    def shows(entry: Any) -> bool:
        return isinstance(entry, dict) and any(entry.get(name) == value for name, value in sought.items())

    # The run's other workers keep adding wallets to the intruder's list: held still while its pages are read.
    held = sides.intruder.resources.wallet_list_still() if operation_id == "listWallets" else nullcontext()
    with held:
        listing = lists.read(sides.intruder.api, operation_id, until=lambda entries: any(map(shows, entries)))
    sides.intruder.resources.require(listing.first, f"list with {sides.intruder.name}'s key")
    return Sighting(sought, listing, [entry for entry in listing.entries if shows(entry)])


def none_listed(sighting: Sighting, words: str, *, requirement: str) -> None:
    """The list showed none of the owner's records; a list read only in part that showed none cannot be judged."""
    if not sighting.found and not sighting.listing.complete:
        raise CannotJudge(
            f"the list was read only in part ({sighting.listing.note}): another business's record may lie further"
        )
    checks.holds(
        not sighting.found,
        f"{words}: the list holds none of another business's records",
        f"no entry with {sighting.sought}",
        sighting.found[:1],
        sighting.listing.exchanges[-1],
        requirement=requirement,
    )


# ------------------------------------------------------------------ accounts updated with another account's key


@dataclass(frozen=True)
class AccountUpdate:
    """An update of an account (`whose`, in words; `public_id`, the one in the path) sent with a key that is not its
    own, carrying the account's own webhooks so that even a wrong acceptance changes nothing, and its webhooks before
    and after, read back."""

    whose: str
    exchange: Exchange
    before: Any
    after: Any
    public_id: Any = None

    def reached_another(self) -> bool:
        """Whether the update was answered with another account than the one in its path: a 2xx whose data is an
        account with another publicId (the key's own, where a target takes an id it cannot reach for its own)."""
        data = self.exchange.data if self.exchange.ok else None
        shown = data.get("publicId") if isinstance(data, dict) else None
        return isinstance(shown, str) and shown != self.public_id


def update_attempt(sides: Direction) -> AccountUpdate:
    """The intruder updates the owner's account with the owner's current webhooks; both accounts are read back, and
    the intruder's own webhooks put back if the target applied the update to the intruder's account instead."""
    with sides.owner.resources.account_wide():
        account = sides.owner.account()
        intruders = sides.intruder.account()
        exchange = sides.intruder.api.call(
            "updateAccount",
            {"accountId": account_id(account)},
            json_body=bodies.account_update(account.get("webhooks", [])),
        )
        after = sides.owner.account()
        _restore_webhooks(sides.intruder.api, sides.intruder.resources, intruders)
    whose = f"{sides.owner.name} ({account.get('publicId')}) with the key of {sides.intruder.name}"
    return AccountUpdate(whose, exchange, account.get("webhooks"), after.get("webhooks"), account.get("publicId"))


def other_accounts_updated(api: ApiClient, resources: Resources) -> list[AccountUpdate]:
    """Every account GET /accounts lists besides the key's own, updated with the key (each with its own webhooks sent
    back) and read back; the key's own webhooks put back if an update landed on them. The test cannot judge a list
    that shows no other account."""
    with resources.account_wide():
        own = resources.own_account()
        owner = resources.own_account_id()
        listing = lists.read(api, "listAccounts")
        resources.require(listing.first, "list accounts")
        others = [
            entry
            for entry in listing.entries
            if isinstance(entry, dict) and not is_account(entry, owner) and isinstance(entry.get("publicId"), str)
        ]
        if not others:
            raise CannotJudge("GET /accounts lists no account besides the key's own: no other account to update")
        sent = [
            (
                entry,
                api.call(
                    "updateAccount",
                    {"accountId": entry["publicId"]},
                    json_body=bodies.account_update(entry.get("webhooks", [])),
                ),
            )
            for entry in others
        ]
        now = {
            entry.get("publicId"): entry for entry in lists.read(api, "listAccounts").entries if isinstance(entry, dict)
        }
        _restore_webhooks(api, resources, own)
    return [
        AccountUpdate(
            f"account {entry['publicId']}, listed by the key's GET /accounts but not its own",
            exchange,
            entry.get("webhooks"),
            now.get(entry["publicId"], {}).get("webhooks"),
            entry["publicId"],
        )
        for entry, exchange in sent
    ]


def _restore_webhooks(api: ApiClient, resources: Resources, before: dict[str, Any]) -> None:
    """Put the key's own account's webhooks back as `before` shows them, if an update landed on them; a failed restore
    is reported, not raised (the probe's own outcome stands)."""
    if resources.own_account().get("webhooks") == before.get("webhooks"):
        return
    restored = api.call(
        "updateAccount", {"accountId": account_id(before)}, json_body=bodies.account_update(before.get("webhooks", []))
    )
    if not restored.ok:
        print(
            f"\nwallet-conformance: could not restore the webhooks of account {before.get('publicId')} "
            f"(HTTP {restored.status}); they were {before.get('webhooks')}"
        )


def update_refused_and_unchanged(update: AccountUpdate, *, requirement: str) -> None:
    """The update was refused (no 2xx), or answered with another account than the one in its path (it reached an
    account of the key's own: what an update of an account it cannot reach should answer is END-04's matter), and the
    account's webhooks read back as they were."""
    if not update.reached_another():
        checks.refused(update.exchange, f"an update of {update.whose}", requirement=requirement)
    checks.equals(
        update.after,
        update.before,
        f"the webhooks of {update.whose} stay as they were",
        update.exchange,
        requirement=requirement,
    )


# ------------------------------------------------------------------ payments towards the owner's wallet (INFO)


def transfer_into(sides: Direction) -> Exchange:
    """The intruder pays the minimum amount from a funded wallet of its own into the owner's wallet."""
    source = sides.intruder.resources.funded_wallet(money.funding("transfer"))["publicId"]
    body = bodies.transfer(source, sides.owner.wallet()["publicId"], contract.minimum_amount("transfer"))
    return sides.intruder.api.call("transfer", json_body=body)


def collection_account_for(sides: Direction) -> Exchange:
    """The intruder asks for a collection account paying into the owner's wallet."""
    body = bodies.collection_account(sides.intruder.resources.run_id, sides.owner.wallet()["publicId"])
    return sides.intruder.api.call("createCollectionAccount", json_body=body)


def payment_seen(exchange: Exchange) -> dict[str, Any]:
    """What AUTH-17 and AUTH-18 record of a request paying into another account's wallet: whether it was accepted,
    and which fields its answer shows of the destination."""
    data = exchange.data if exchange.ok and isinstance(exchange.data, dict) else {}
    shown = data.get("destinationData")
    return {
        "operation": exchange.operation_id,
        "status": exchange.status,
        "accepted": exchange.ok,
        "destination_fields_shown": sorted(shown) if isinstance(shown, dict) else None,
    }


def settled_payment_seen(sides: Direction, exchange: Exchange) -> dict[str, Any]:
    """What AUTH-17 records of an accepted transfer into another account's wallet once it left pending, as verify
    shows it to the payer: which fields its credit leg shows, and whether it shows the destination's balance (the
    exchange judge holds that answer to the document, letting the other account's name, number and balance be
    withheld)."""
    done = money.settled_or_none(sides.intruder.resources, exchange, must_settle=False) if exchange.ok else None
    leg = credit_leg(done) if isinstance(done, dict) else None
    if leg is None:
        return {"credit_leg_shown": False if isinstance(done, dict) else "not settled"}
    return {"credit_leg_shown": sorted(leg), "credit_balance_shown": type(leg.get("balance")) is int}


# ------------------------------------------------------------------ the owner's records in filtered lists

# Fields of the wallet and transaction records a target may well filter its lists on, though the document shows no
# filter of those lists (END-15).
WALLET_FILTERS = ("category", "live", "accountNumber", "publicId")
TRANSACTION_FILTERS = ("entry", "status", "reference", "source", "destination")


def list_filters(operation_id: str) -> tuple[str, ...]:
    """The filters tried on a list, each given the value the owner's record holds, so that a filter looking past the
    key's own records finds it: the documented ones of GET /accounts (openapi.yaml), else the fields above. A target
    that ignores a filter answers the unfiltered list, which is judged alike; one that refuses it shows nothing."""
    if operation_id == "listWallets":
        return WALLET_FILTERS
    if operation_id == "listTransactions":
        return TRANSACTION_FILTERS
    return tuple(contract.query_parameters(operation_id))


def _owner_record(sides: Direction, operation_id: str) -> dict[str, Any]:
    """The owner's record a list of `operation_id` must not show, as its owner reads it: its wallet, its transaction
    (verified), or its account."""
    if operation_id == "listWallets":
        return sides.owner.wallet()
    if operation_id == "listTransactions":
        reference = sides.owner.reference()
        return sides.owner.resources.require(
            sides.owner.resources.verify(reference), f"verify {reference} in {sides.owner.name}"
        )
    return sides.owner.account()


def owner_records_filtered(sides: Direction, operation_id: str) -> list[Sighting]:
    """The intruder's list `operation_id` under each filter of `list_filters` given the owner's record's value, each
    read page after page for that record; the filters the target refused are left out, and the test cannot judge when
    it refused them all or the record holds none of their fields."""
    sides.other_business()
    sought, record = _sought(sides, operation_id), _owner_record(sides, operation_id)

    def shows(entry: Any) -> bool:
        return isinstance(entry, dict) and any(entry.get(name) == value for name, value in sought.items())

    tried = list_filters(operation_id)
    filters = {name: record[name] for name in tried if isinstance(record.get(name), str | bool)}
    if not filters:
        raise CannotJudge(
            f"the record of {sides.owner.name} holds none of the fields tried as filters ({', '.join(tried)})"
        )
    sightings = []
    for name, value in filters.items():
        held = sides.intruder.resources.wallet_list_still() if operation_id == "listWallets" else nullcontext()
        with held:
            listing = lists.read(
                sides.intruder.api, operation_id, params={name: value}, until=lambda entries: any(map(shows, entries))
            )
        if listing.first.ok:
            sightings.append(
                Sighting(
                    {**sought, "filter": f"{name}={value}"},
                    listing,
                    [entry for entry in listing.entries if shows(entry)],
                )
            )
    if not sightings:
        raise CannotJudge(f"the target refused every filter tried on {operation_id} ({', '.join(filters)})")
    return sightings


def payer_debit_listed(sides: Direction) -> Sighting:
    """The owner pays the minimum from a funded wallet of its own into the intruder's wallet; once it left pending (or
    --settle-timeout passed), the intruder's transaction list is read for the owner's record of it: an entry with the
    debit's publicId that is no credit, or any entry but a credit out of the owner's wallet. The intruder's record of
    the payment is its credit leg, if any. The test cannot judge a target that refuses the payment (AUTH-17 leaves it
    open)."""
    sides.other_business()
    source = sides.owner.resources.funded_wallet(money.funding("transfer"))["publicId"]
    body = bodies.transfer(source, sides.intruder.wallet()["publicId"], contract.minimum_amount("transfer"))
    exchange = sides.owner.api.call("transfer", json_body=body)
    if not exchange.ok or not isinstance(exchange.data, dict):
        raise CannotJudge(
            f"the target refused a transfer into another business's wallet (HTTP {exchange.status}): "
            "whether it may is not shown (AUTH-17)"
        )
    debit = exchange.data.get("publicId")
    money.settled_or_none(sides.owner.resources, exchange, must_settle=False)

    def shows(entry: Any) -> bool:
        return (
            isinstance(entry, dict)
            and entry.get("entry") != "credit"
            and (entry.get("publicId") == debit or entry.get("source") == source)
        )

    listing = lists.read(sides.intruder.api, "listTransactions", until=lambda entries: any(map(shows, entries)))
    sides.intruder.resources.require(listing.first, f"list transactions with {sides.intruder.name}'s key")
    return Sighting(
        {"publicId": debit, "source": source, "entry": "not credit"},
        listing,
        [entry for entry in listing.entries if shows(entry)],
    )
