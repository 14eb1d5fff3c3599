"""Whole lists read page by page for the generated tests, with paging parameters discovered from item identities.

The document shows `meta.pagination` {totalCount, perPage, current} but not the request parameters
(END-39, INFO). `discover` tries the usual spellings and keeps the first the target honours:
a page-size parameter is honoured when a small size makes a smaller page that says so in
`perPage`; a page parameter when the second page differs from the first. `walk` then reads a
whole list page by page with what was found.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.client import ApiClient, Exchange

# (page parameter, size parameter, first page): page numbers, or an offset in items when first is 0.
CANDIDATES: tuple[tuple[str, str, int], ...] = (
    ("page", "perPage", 1),
    ("page", "limit", 1),
    ("page", "pageSize", 1),
    ("page", "per_page", 1),
    ("page", "size", 1),
    ("offset", "limit", 0),
)
SMALL_PAGE = 2
MAX_PAGES = 200


@dataclass(frozen=True)
class Paging:
    """The paging parameters a target honours on one list."""

    page: str | None  # None: only the first page can be read
    size: str | None  # None: the target's own page size
    first: int = 1  # the first page's number (1), or 0 for an offset in items

    @property
    def found(self) -> bool:
        return self.page is not None

    def params(self, index: int, size: int | None) -> dict[str, int]:
        """Query parameters of the page at `index` (0-based) for pages of `size` items."""
        params: dict[str, int] = {}
        if self.size is not None and size is not None:
            params[self.size] = size
        if self.page is not None:
            params[self.page] = index * (size or 0) if self.first == 0 else self.first + index
        return params

    def describe(self) -> str:
        if not self.found:
            return "no paging parameter honoured"
        size = self.size or "(target's page size)"
        return f"{self.page}/{size}" + (" (offset in items)" if self.first == 0 else "")


def _ids(exchange: Exchange) -> list[Any]:
    data = exchange.data if exchange.ok and isinstance(exchange.data, list) else []
    return [identity(item) for item in data]


def identity(item: Any) -> Any:
    """What tells two list entries apart: publicId, else _id, else the entry itself."""
    if isinstance(item, dict):
        for key in ("publicId", "_id", "id", "reference"):
            if key in item:
                return item[key]
    return repr(item)


def _per_page(exchange: Exchange) -> Any:
    pagination = exchange.meta.get("pagination")
    return pagination.get("perPage") if isinstance(pagination, dict) else None


def discover(api: ApiClient, operation_id: str) -> tuple[Paging, list[str]]:
    """The parameters the target honours on a list, and what each try showed (for the observation)."""
    notes: list[str] = []
    first = api.call(operation_id)
    base = _ids(first)
    for page, size, start in CANDIDATES:
        small = api.call(operation_id, params={size: SMALL_PAGE})
        if not small.ok:
            notes.append(f"{size}={SMALL_PAGE}: HTTP {small.status}")
            continue
        size_honoured = _per_page(small) == SMALL_PAGE or (len(_ids(small)) == SMALL_PAGE < len(base))
        second = api.call(operation_id, params={size: SMALL_PAGE, page: start + (SMALL_PAGE if start == 0 else 1)})
        page_honoured = (second.ok and size_honoured and len(base) > SMALL_PAGE
                         and bool(_ids(second)) and _ids(second) != _ids(small))
        notes.append(f"{page}/{size}: size {'honoured' if size_honoured else 'ignored'}, "
                     f"page {'honoured' if page_honoured else 'ignored or not tried'} (HTTP {second.status})")
        if size_honoured and page_honoured:
            return Paging(page, size, start), notes
    for page in ("page", "offset"):
        default = _per_page(first)
        start = 0 if page == "offset" else 1
        value = default if page == "offset" else 2
        second = api.call(operation_id, params={page: value})
        if second.ok and base and _ids(second) and _ids(second)[:1] != base[:1]:
            notes.append(f"{page}: honoured with the target's page size")
            return Paging(page, None, start), notes
    return Paging(None, None), notes


@dataclass
class Walk:
    """A list read page by page."""

    pages: list[Exchange] = field(default_factory=list)

    @property
    def items(self) -> list[Any]:
        return [item for page in self.pages for item in (page.data if isinstance(page.data, list) else [])]

    @property
    def ids(self) -> list[Any]:
        return [identity(item) for item in self.items]

    def totals(self) -> set[Any]:
        return {page.meta.get("pagination", {}).get("totalCount") for page in self.pages
                if isinstance(page.meta.get("pagination"), dict)}


def pages(api: ApiClient, operation_id: str, paging: Paging, size: int | None) -> Iterator[Exchange]:
    """Every page of a list, in order, until a short or empty page (at most MAX_PAGES).

    A target may clamp the requested size (and say so in perPage): the walk goes on with the size it
    reports, so an offset moves by what a page really holds."""
    effective = size
    for index in range(MAX_PAGES if paging.found else 1):
        if paging.first == 0 and paging.page is not None:
            params = {**paging.params(0, size), paging.page: index * (effective or 0)}
        else:
            params = paging.params(index, size)
        exchange = api.call(operation_id, params=params or None)
        yield exchange
        data = exchange.data if exchange.ok and isinstance(exchange.data, list) else []
        reported = _per_page(exchange)
        effective = reported if isinstance(reported, int) and reported > 0 else (size or len(data))
        if not data or len(data) < effective:
            return


def walk(api: ApiClient, operation_id: str, paging: Paging, size: int | None = None) -> Walk:
    return Walk(list(pages(api, operation_id, paging, size)))
