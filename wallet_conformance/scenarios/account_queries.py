"""The queries of GET /accounts: unfiltered, and under each filter openapi.yaml gives it, each list read to its end
(what its totalCount says of those pages is SVC-30's); and a name no account holds (END-06).

The document shows the filters (`name`, `isDefault`, `live`) but not how a name matches: exactly, by prefix or
substring, ignoring case. A name no listed name holds in any letter case, one word with no separator, matches no
account under any of them.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world import lists
from wallet_conformance.world.resources import Resources

LISTED = "listed"  # a text filter given the name of a listed account
UNMATCHED = "unmatched"  # a text filter given a name no account holds


@dataclass(frozen=True)
class Query:
    """One query of the account list: no filter (`name` None), or one filter with a value; a text filter's value is
    LISTED or UNMATCHED, made into a name when the query is sent."""

    name: str | None = None
    value: Any = None

    def __str__(self) -> str:
        if self.name is None:
            return "unfiltered"
        return f"{self.name}={str(self.value).lower() if isinstance(self.value, bool) else self.value}"


def queries() -> list[Query]:
    """No filter, then each filter of GET /accounts with each of its values: true and false for a boolean one; for a
    text one, a listed account's name and a name no account holds."""
    found = [Query()]
    for name, kind in contract.query_parameters("listAccounts").items():
        values = (True, False) if kind == "boolean" else (LISTED, UNMATCHED)
        found.extend(Query(name, value) for value in values)
    return found


def unmatched_name(run_id: str, names: list[str]) -> str:
    """One word that no name of `names` holds in any letter case."""
    word = f"{run_id}noaccount"
    while any(word.casefold() in name.casefold() for name in names):
        word += "x"
    return word


def listed_names(api: ApiClient, resources: Resources) -> list[str]:
    """The names of every account GET /accounts lists, read to its end; CannotJudge when none has a name."""
    listing = lists.read(api, "listAccounts")
    resources.require(listing.first, "list accounts")
    names = [
        entry["name"] for entry in listing.entries if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    ]
    if not names:
        raise CannotJudge("GET /accounts shows no account with a name to filter on")
    return names


def parameters(api: ApiClient, resources: Resources, query: Query) -> dict[str, Any]:
    """The query parameters of `query`, a text filter's name chosen from the names listed now."""
    if query.name is None:
        return {}
    if query.value == LISTED:
        return {query.name: listed_names(api, resources)[0]}
    if query.value == UNMATCHED:
        return {query.name: unmatched_name(resources.run_id, listed_names(api, resources))}
    return {query.name: query.value}


def unmatched() -> Query:
    """The query of the text filter given a name no account holds."""
    return next(query for query in queries() if query.value == UNMATCHED)


def read(api: ApiClient, resources: Resources, query: Query) -> lists.Listing:
    """The account list under `query`, read page after page to its end (lists.read); under a text filter, while no
    test of the run renames an account (`Resources.account_wide`)."""
    named = query.value in (LISTED, UNMATCHED)
    with resources.account_wide() if named else nullcontext():
        return lists.read(api, "listAccounts", params=parameters(api, resources, query) or None)


@dataclass(frozen=True)
class Split:
    """A boolean filter of GET /accounts given true and given false, and the unfiltered list, each read to its end."""

    name: str
    under: dict[bool, lists.Listing]
    unfiltered: lists.Listing


def split(api: ApiClient, resources: Resources, name: str) -> Split:
    """The account list under `name`=true, under `name`=false, and unfiltered, each read to its end; the test cannot
    judge a filter the target refused (END-07 and END-08's acceptance tests judge that) nor a list read only in part."""
    read_now = {value: read(api, resources, Query(name, value)) for value in (True, False)}
    unfiltered = read(api, resources, Query())
    for value, listing in read_now.items():
        if not listing.first.ok:
            raise CannotJudge(f"GET /accounts?{Query(name, value)} was refused (HTTP {listing.first.status})")
    for listing in (*read_now.values(), unfiltered):
        if not listing.complete:
            raise CannotJudge(f"an account list was read only in part ({listing.note})")
    return Split(name, read_now, unfiltered)


def values_apart(split: Split, *, requirement: str) -> None:
    """A boolean filter lists each account under one value at most: every entry listed under a value that carries the
    filter's field holds that value, and no account is listed under both true and false, unless both list every
    account of the unfiltered list (the filter then selects nothing: the accounts carry no such field, as the
    Account's table gives none for `live`). An account listed under both says, by the target's own lists, that it is
    and is not what the filter asks."""
    for value, listing in split.under.items():
        for exchange in listing.exchanges:
            for index, entry in enumerate(exchange.data if isinstance(exchange.data, list) else []):
                if isinstance(entry, dict) and split.name in entry and entry[split.name] != value:
                    checks.fail(
                        f"every account GET /accounts?{split.name}= lists holds the value asked",
                        value,
                        f"data[{index}].{split.name} = {entry[split.name]!r}",
                        exchange,
                        requirement=requirement,
                    )
    listed = {
        value: {str(lists.identity(entry)) for entry in listing.entries} for value, listing in split.under.items()
    }
    every = {str(lists.identity(entry)) for entry in split.unfiltered.entries}
    both = listed[True] & listed[False]
    if both and not listed[True] == listed[False] == every:
        checks.fail(
            f"no account is listed under both {split.name}=true and {split.name}=false, unless both list every "
            "account (the filter is then not applied)",
            "two lists with no account in common",
            f"{len(both)} accounts in both ({sorted(both)[:3]}); {len(listed[True])} under true, "
            f"{len(listed[False])} under false, {len(every)} unfiltered",
            split.under[False].exchanges[0],
            also=(split.under[True].exchanges[0], split.unfiltered.exchanges[0]),
            requirement=requirement,
        )
