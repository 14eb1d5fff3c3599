"""Reading a list past its first page, when the target says how.

The document shows `meta.pagination` {totalCount, perPage, current} on the account, wallet and
transaction lists, but not the request parameters that select a page or a page size ("Request
parameters for paging (page number, page size) on list endpoints: not shown."). So the suite never
assumes one: it tries the common schemes in turn and keeps the first the target honours (page 2
asked for is answered with `current` 2, and the page size asked for with that `perPage`). A target
that honours none is read on its first page only, and the tests say so instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.client import ApiClient, Exchange

# The most pages read when walking a list (a guard against a target whose pages never end).
MAX_PAGES = 50
# The page size asked for when finding the scheme: small, so a list of a few entries has a page 2.
PROBE_SIZE = 2


@dataclass(frozen=True)
class Scheme:
    """One way of asking for a page: `page` numbered from 1 or `offset` counted in entries, and a size name."""

    position: str
    size: str | None

    def params(self, page: int, size: int | None) -> dict[str, int]:
        if self.position == "offset":
            return {"offset": (page - 1) * (size or 0), **({self.size: size} if self.size and size else {})}
        return {"page": page, **({self.size: size} if self.size and size else {})}

    def __str__(self) -> str:
        return "/".join(name for name in (self.position, self.size) if name)


SCHEMES = (
    Scheme("page", "perPage"), Scheme("page", "limit"), Scheme("page", "pageSize"), Scheme("page", "per_page"),
    Scheme("page", "size"), Scheme("offset", "limit"), Scheme("page", None),
)
_found: dict[tuple[int, str], Scheme | None] = {}


def pagination(exchange: Exchange) -> dict[str, Any]:
    """meta.pagination of an exchange, or {}."""
    value = exchange.meta.get("pagination") if isinstance(exchange.meta, dict) else None
    return value if isinstance(value, dict) else {}


def honours(exchange: Exchange, scheme: Scheme, page: int, size: int | None) -> bool:
    """Whether the answer is the page asked for: a list, `current` the page number, `perPage` the size asked."""
    shown = pagination(exchange)
    return (exchange.ok and isinstance(exchange.data, list) and shown.get("current") == page
            and (scheme.size is None or size is None or shown.get("perPage") == size))


def discover(api: ApiClient, operation_id: str) -> Scheme | None:
    """The first scheme of SCHEMES the target honours on this list (asked once per run and list), else None."""
    key = (id(api), operation_id)
    if key not in _found:
        _found[key] = next((scheme for scheme in SCHEMES
                            if honours(api.call(operation_id, params=scheme.params(2, PROBE_SIZE)), scheme, 2,
                                       PROBE_SIZE if scheme.size else None)), None)
    return _found[key]


def tried() -> str:
    return ", ".join(str(scheme) for scheme in SCHEMES)


@dataclass
class Listing:
    """What was read of a list: its entries in order, the exchanges, and whether the whole list was seen."""

    operation_id: str
    exchanges: list[Exchange] = field(default_factory=list)
    entries: list[Any] = field(default_factory=list)
    total: int | None = None
    scheme: Scheme | None = None
    complete: bool = False
    note: str = ""

    @property
    def first(self) -> Exchange:
        return self.exchanges[0]


def read(api: ApiClient, operation_id: str, until: Callable[[list[Any]], bool] | None = None,
         params: dict[str, Any] | None = None) -> Listing:
    """Read a list page after page (under the scheme the target honours) until it is whole or `until` holds."""
    first = api.call(operation_id, params=params)
    listing = Listing(operation_id, [first])
    if not first.ok or not isinstance(first.data, list):
        listing.note = f"{operation_id} answered {first.status} without a list"
        return listing
    listing.entries = list(first.data)
    shown = pagination(first)
    total, per_page = shown.get("totalCount"), shown.get("perPage")
    listing.total = total if type(total) is int else None
    pages = 1

    def done() -> bool:
        return (until is not None and until(listing.entries)) or (
            listing.total is not None and len(listing.entries) >= listing.total)

    if done() or listing.total is None or not listing.entries:
        listing.complete = listing.total is not None and len(listing.entries) >= listing.total
        listing.note = f"page 1 of {operation_id} ({len(listing.entries)} of totalCount {total!r})"
        return listing
    listing.scheme = discover(api, operation_id)
    if listing.scheme is None:
        listing.note = (f"page 1 of {operation_id} only ({len(listing.entries)} of totalCount {total}): no paging "
                        f"parameter the suite tried ({tried()}) selected page 2, and the document shows none")
        return listing
    size = per_page if type(per_page) is int and per_page > 0 else len(first.data)
    while not done() and pages < MAX_PAGES:
        page = pages + 1
        exchange = api.call(operation_id, params={**(params or {}), **listing.scheme.params(page, size)})
        listing.exchanges.append(exchange)
        if not honours(exchange, listing.scheme, page, size if listing.scheme.size else None) or not exchange.data:
            break
        pages = page
        listing.entries.extend(exchange.data)
    listing.complete = listing.total is not None and len(listing.entries) >= listing.total
    listing.note = (f"pages 1 to {pages} of {operation_id} under {listing.scheme} ({len(listing.entries)} entries of "
                    f"totalCount {total})")
    return listing
