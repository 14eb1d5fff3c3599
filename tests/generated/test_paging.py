"""Paging discovered, not guessed: the parameters a target honours, then whole lists read page by page."""

from __future__ import annotations

import math
from contextlib import nullcontext
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient
from wallet_conformance.judge.failures import ConformanceFailure
from wallet_conformance.world import lists
from wallet_conformance.world.resources import Resources

LISTS = ("listAccounts", "listWallets", "listTransactions")
# The most walks of a list in search of one that can be judged (lists.judgeable).
ATTEMPTS = 4
FUNDING = 10_000  # kobo per inbound payment made to lengthen the transaction list


def lengthen(operation_id: str, resources: Resources, needed: int, created: list[str]) -> None:
    """Make `needed` more entries of a list the run can add to (wallets; transactions by inbound payments)."""
    if operation_id == "listWallets":
        created.extend(resources.wallet()["publicId"] for _ in range(needed))
    elif operation_id == "listTransactions" and resources.can_fund:
        wallet = resources.wallet()
        created.append(wallet["publicId"])
        for _ in range(needed):
            resources.fund(wallet["publicId"], FUNDING)


def problems(walk: lists.Listing, size: int | None, complete: bool, created: list[str]) -> list[tuple[str, Any, Any]]:
    """What is wrong with a walk: (what, expected, received). `created`: wallets of the run the list must hold."""
    wrong: list[tuple[str, Any, Any]] = []
    ids = walk.ids
    repeated = sorted({str(item) for item in ids if ids.count(item) > 1})
    if repeated:
        wrong.append(("pages do not overlap", "every entry on one page only", f"on two pages: {repeated[:5]}"))
    totals = walk.totals()
    if len(totals) > 1:
        wrong.append(("totalCount is the same on every page of one list", "one total", sorted(totals, key=str)))
    if complete and len(totals) == 1 and len(ids) != next(iter(totals)):
        wrong.append(("the pages together hold totalCount entries", next(iter(totals)), len(ids)))
    missing = sorted(set(created) - set(ids)) if complete else []
    if missing:
        wrong.append(("the pages hold every wallet the run created", "all listed", f"missing: {missing[:5]}"))
    for index, page in enumerate(walk.exchanges):
        pagination = page.meta.get("pagination") if isinstance(page.meta.get("pagination"), dict) else {}
        data = page.data if isinstance(page.data, list) else []
        if size is not None and isinstance(pagination.get("perPage"), int) and pagination["perPage"] > size:
            wrong.append((f"perPage of page {index + 1} is at most the requested size", size,
                          pagination.get("perPage")))
        if (index < len(walk.exchanges) - 1 and isinstance(pagination.get("perPage"), int)
                and len(data) != pagination["perPage"]):
            wrong.append((f"page {index + 1}, not the last, is full (perPage entries)", pagination["perPage"],
                          len(data)))
        if isinstance(pagination.get("perPage"), int) and len(data) > pagination["perPage"]:
            wrong.append((f"page {index + 1} holds at most perPage entries", pagination["perPage"], len(data)))
        if walk.scheme and walk.scheme.position == "page" and pagination.get("current") != index + 1:
            wrong.append((f"current of page {index + 1} is the page number", index + 1, pagination.get("current")))
    return wrong


@pytest.mark.requirement("END-39", "LIM-21")
@pytest.mark.parametrize("operation_id", LISTS)
def test_pages_hold_every_entry_once(operation_id: str, api: ApiClient, resources: Resources, generation: Any,
                                     observe: Any) -> None:
    """Under the paging parameters the target honours, pages do not overlap, hold every entry, and say so."""
    created: list[str] = []
    listed = lists.pagination(api.call(operation_id)).get("totalCount")
    if isinstance(listed, int) and listed <= lists.SMALL_PAGE:
        # Discovery needs a second page of small pages.
        lengthen(operation_id, resources, lists.SMALL_PAGE + 1 - listed, created)
    found = lists.discover(api, operation_id)
    observe("END-39", operation=operation_id, honoured=str(found or "none"), tried=lists.notes(api, operation_id))
    if found is None:
        pytest.skip(f"{operation_id}: the target honours none of the paging parameters tried (observed, END-39)")
    page_one = api.call(operation_id)
    first = resources.require(page_one, f"list {operation_id}")
    total = lists.pagination(page_one).get("totalCount", len(first))
    size = lists.SMALL_PAGE if found.size else None
    page_size = size or lists.pagination(page_one).get("perPage") or len(first) or 1
    if isinstance(total, int) and total <= page_size * 2:
        lengthen(operation_id, resources, page_size * 2 + 1 - total + generation.profile.paging_extra, created)
        total = lists.pagination(api.call(operation_id)).get("totalCount", total)
    if isinstance(total, int) and found.size and total > lists.SMALL_PAGE * 20:
        size = lists.fitting(page_one, min(lists.LARGE_PAGE, math.ceil(total / 20)))  # pages under the body cap
    complete = isinstance(total, int) and total <= (size or page_size) * lists.MAX_PAGES
    walks: list[lists.Listing] = []

    def read() -> list[Any]:
        walks.append(lists.walk(api, operation_id, found, size))
        return walks[-1].exchanges

    def clean(_: list[Any]) -> bool:
        return not problems(walks[-1], size, complete, created if operation_id == "listWallets" else [])

    with resources.wallet_list_still() if operation_id == "listWallets" else nullcontext():
        judged = lists.judgeable(read, ATTEMPTS, clean)
    if judged is None:
        observe("LIM-21", operation=operation_id, note=f"the list kept changing over {ATTEMPTS} walks")
        pytest.skip(f"{operation_id} kept changing while it was read ({ATTEMPTS} walks; other clients of the "
                    "account may be changing it): not judged")
    walk = walks[-1]
    wrong = problems(walk, size, complete, created if operation_id == "listWallets" else [])
    observe("END-39", operation=operation_id, pages=len(walk.exchanges), entries=len(walk.ids), created=len(created))
    for what, expected, received in wrong:
        fail("LIM-21", f"{operation_id} under {found}: {what}", expected, received, walk.exchanges[-1])


def fail(requirement: str, title: str, expected: Any, received: Any, exchange: Any = None) -> None:
    raise ConformanceFailure(requirement, title, expected, received, exchange)
