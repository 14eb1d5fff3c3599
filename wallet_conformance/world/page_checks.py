"""What is wrong with the pages of a list: the checks of a page's size, of numbered pages, and of a whole walk.

Each check returns its problems, one `PageViolation` (title, expected, received, exchange) each, the document's fact
first; an empty list is pages that hold. The tests fail on the first (`checks.no_problem(problems)`), and a read that
shows none is also how `lists.judgeable` knows a read it may judge at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import lists

# Entries named in a problem's received value: enough to find them, not the whole list.
NAMED = 5
# Who owns what of a walk's pages: what the pages and their totals mean (totalCount counts every item, a page before
# the last is full, no item on two pages), that current is the page number, and that a page holds no more than perPage.
PAGES = "SVC-30"
CURRENT = "SVC-32"
PAGE_SIZE = "LIM-21"
LISTED = "END-56"  # the wallet list lists the wallets the key made
WALK_REQUIREMENTS = (PAGES, CURRENT, PAGE_SIZE, LISTED)  # what a walk of a whole list judges (walk_problems)


class PageViolation(NamedTuple):
    """One fact the pages break: its title, what was expected, what was received, and the exchange that shows it."""

    title: str
    expected: Any
    received: Any
    exchange: Exchange | None = None


@dataclass(frozen=True)
class SizedPage:
    """A page that shows its size: its entries, and the integers meta.pagination gives for perPage and
    totalCount."""

    exchange: Exchange
    entries: list[Any]
    per_page: int
    total: int


def sized_page(exchange: Exchange) -> SizedPage:
    """The page `exchange` as one whose size can be judged; CannotJudge when it carries no meta.pagination (SVC-16
    judges that), its data is no array (SVC-20), it holds no entry, or it gives no integer perPage and totalCount
    (SVC-17 judges that)."""
    operation_id = exchange.operation_id
    if not lists.has_pagination(exchange):
        raise CannotJudge(f"{operation_id} carries no meta.pagination (see SVC-16)")
    entries = exchange.data
    if not isinstance(entries, list):
        raise CannotJudge(f"{operation_id}: data is no array (see SVC-20): no entries to count")
    if not entries:
        raise CannotJudge(f"{operation_id} listed no entry: a page size cannot be seen on an empty page")
    per_page, total = lists.pagination(exchange).get("perPage"), lists.pagination(exchange).get("totalCount")
    if type(per_page) is not int or type(total) is not int:
        raise CannotJudge(f"{operation_id}: perPage or totalCount is not an integer (see SVC-17)")
    return SizedPage(exchange, entries, per_page, total)


def size_problems(page: SizedPage) -> list[PageViolation]:
    """A page holds no more entries than perPage, and totalCount counts at least the entries of the page."""
    wrong: list[PageViolation] = []
    if len(page.entries) > page.per_page:
        wrong.append(
            PageViolation(
                "a page holds no more entries than meta.pagination.perPage",
                f"at most {page.per_page}",
                f"{len(page.entries)} entries",
                page.exchange,
            )
        )
    if page.total < len(page.entries):
        wrong.append(
            PageViolation(
                "meta.pagination.totalCount counts at least the entries of the page",
                f"at least {len(page.entries)}",
                page.total,
                page.exchange,
            )
        )
    return wrong


def count_problems(listing: lists.Listing, query: str) -> list[PageViolation]:
    """A list read to its end (lists.read or lists.walk) holds on its pages as many entries as page 1's totalCount
    says; `query` names the list and its query. CannotJudge when page 1 is no list with an integer totalCount (SVC-17
    and the list's own requirement judge that) or the read stops before the list's end (a full page 1 and no paging
    scheme honoured, MAX_PAGES)."""
    first = listing.first
    if not first.ok or not isinstance(first.data, list) or listing.total is None:
        raise CannotJudge(f"{query}: page 1 is no list with an integer totalCount (HTTP {first.status}; see SVC-17)")
    if not listing.ended:
        raise CannotJudge(f"{query}: the pages read do not reach the end of the list ({listing.note})")
    if len(listing.entries) == listing.total:
        return []
    return [
        PageViolation(
            f"meta.pagination.totalCount of {query} is the number of entries its pages hold ({listing.note})",
            len(listing.entries),
            listing.total,
            first,
        )
    ]


def numbering_problems(pages: list[Exchange], scheme: lists.Scheme) -> list[tuple[str, PageViolation]]:
    """What is wrong with pages 1 to n of the wallet list read under `scheme`, each with the requirement it breaks:
    each is a 2xx list, holds perPage entries or what remains of totalCount, and shares no wallet with another
    (PAGES), and says its number in `current`, counted from 1 whatever number `scheme` asks it by (CURRENT). A page
    holding more than perPage is left to the page size's check (LIM-21)."""
    wrong: list[tuple[str, PageViolation]] = []
    seen: dict[str, int] = {}
    for number, exchange in enumerate(pages, start=1):
        if not 200 <= exchange.status < 300 or not isinstance(exchange.data, list):
            wrong.append(
                (
                    PAGES,
                    PageViolation(
                        f"page {number} of the wallet list under {scheme} is a 2xx list",
                        "2xx with a data array",
                        f"HTTP {exchange.status}",
                        exchange,
                    ),
                )
            )
            continue
        shown = lists.pagination(exchange)
        if shown.get("current") != number:
            wrong.append(
                (
                    CURRENT,
                    PageViolation(
                        f"meta.pagination.current is the number of the page answered, the first being 1 ({scheme})",
                        number,
                        shown.get("current"),
                        exchange,
                    ),
                )
            )
        total, per_page = shown.get("totalCount"), shown.get("perPage")
        if type(total) is int and type(per_page) is int and per_page >= 1:
            expected = max(0, min(per_page, total - (number - 1) * per_page))
            if len(exchange.data) != expected and len(exchange.data) <= per_page:
                wrong.append(
                    (
                        PAGES,
                        PageViolation(
                            f"page {number} holds perPage ({per_page}) entries, or what "
                            f"remains of totalCount ({total})",
                            expected,
                            len(exchange.data),
                            exchange,
                        ),
                    )
                )
        for entry in exchange.data:
            public_id = entry.get("publicId") if isinstance(entry, dict) else None
            if public_id in seen:
                wrong.append(
                    (
                        PAGES,
                        PageViolation(
                            "no wallet is listed on two pages",
                            f"{public_id} on page {seen[public_id]} only",
                            f"{public_id} on pages {seen[public_id]} and {number}",
                            exchange,
                        ),
                    )
                )
            if isinstance(public_id, str):
                seen[public_id] = number
    return wrong


def walk_problems(
    walk: lists.Listing, size: int | None, whole: bool, created: list[str]
) -> list[tuple[str, PageViolation]]:
    """What is wrong with a walk of every page of a list, asked at `size` entries a page (None: the target's own
    size), each with the requirement it breaks: pages overlap, totalCount differs between pages, pages not the last
    hold fewer than perPage, perPage is more than the size asked, `current` is not the page number (under a
    page-number scheme), and, when the walk is `whole` (totalCount fits in the pages walked), the pages do not hold
    totalCount entries (PAGES, but current: CURRENT) and every wallet of `created` (LISTED); a page holds more than
    perPage (PAGE_SIZE). Each problem
    names the list and its scheme, and shows the walk's last page."""
    where, last = f"{walk.operation_id} under {walk.scheme}", walk.exchanges[-1]
    wrong: list[tuple[str, str, Any, Any]] = []
    ids = walk.ids
    repeated = sorted({str(item) for item in ids if ids.count(item) > 1})
    if repeated:
        wrong.append(
            (PAGES, "pages do not overlap", "every entry on one page only", f"on two pages: {repeated[:NAMED]}")
        )
    totals = walk.totals()
    if len(totals) > 1:
        wrong.append((PAGES, "totalCount is the same on every page of one list", "one total", sorted(totals, key=str)))
    if whole and len(totals) == 1 and len(ids) != next(iter(totals)):
        wrong.append((PAGES, "the pages together hold totalCount entries", next(iter(totals)), len(ids)))
    missing = sorted(set(created) - set(ids)) if whole else []
    if missing:
        wrong.append(
            (LISTED, "the pages hold every wallet the run created", "all listed", f"missing: {missing[:NAMED]}")
        )
    for index, page in enumerate(walk.exchanges):
        per_page = lists.pagination(page).get("perPage")
        data = page.data if isinstance(page.data, list) else []
        if size is not None and isinstance(per_page, int) and per_page > size:
            wrong.append((PAGES, f"perPage of page {index + 1} is at most the requested size", size, per_page))
        if index < len(walk.exchanges) - 1 and isinstance(per_page, int) and len(data) < per_page:
            wrong.append((PAGES, f"page {index + 1}, not the last, is full (perPage entries)", per_page, len(data)))
        if isinstance(per_page, int) and len(data) > per_page:
            wrong.append((PAGE_SIZE, f"page {index + 1} holds at most perPage entries", per_page, len(data)))
        current = lists.pagination(page).get("current")
        if walk.scheme and walk.scheme.position == "page" and current != index + 1:
            wrong.append((CURRENT, f"current of page {index + 1} is the page number", index + 1, current))
    return [
        (requirement, PageViolation(f"{where}: {what}", expected, received, last))
        for requirement, what, expected, received in wrong
    ]
