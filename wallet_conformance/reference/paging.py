"""Paging of the account, wallet and transaction lists.

The document shows `meta.pagination` {totalCount, perPage, current} but not the request side; our
choice: query `page` (from 1, default 1) and `perPage` (1 to MAX_PER_PAGE, default the observed
page size). Anything else is refused with 400. Variants take other readings: `page` and `limit`,
`offset` and `limit`, `page` counted from 0 and `size` (as Spring Data pages), a page size clamped
to CAPPED_PER_PAGE or refused above LIMITED_PER_PAGE, unknown query parameters refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from starlette.requests import Request

from wallet_conformance.reference.errors import Refusal
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reference.service import Call
from wallet_conformance.reference.variants import Variant
from wallet_conformance.spec import contract

MAX_PER_PAGE = 100
# The largest page under the variant that clamps page sizes, and under the one that refuses larger ones.
CAPPED_PER_PAGE = 20
LIMITED_PER_PAGE = 50
T = TypeVar("T")


def _whole(request: Request, name: str, default: int, *, least: int = 1, maximum: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or int(raw) < least:
        raise Refusal.INVALID_QUERY.error(field=name, problem=f"must be a whole number from {least}")
    if maximum is not None and int(raw) > maximum:
        raise Refusal.INVALID_QUERY.error(field=name, problem=f"must be at most {maximum}")
    return int(raw)


def paginate(
    request: Request, items: Sequence[T], call: Call, *, filters: tuple[str, ...] = ()
) -> tuple[list[T], dict[str, Any]]:
    """The requested page of `items` and its meta.pagination; `filters` are the list's other query parameters."""
    faults, variants = call.faults, call.variants
    page_name: str | None = "page"
    # The number of the first page: 1, or 0 where `page` counts from 0 (current still says 1 on the first page).
    first = 0 if variants.on(Variant.PAGING_ZERO_BASED) else 1
    size_name, offset_name = "perPage" if first else "size", None
    by_page_and_limit = variants.on(Variant.PAGING_PAGE_LIMIT)
    if by_page_and_limit:
        size_name = "limit"
    if variants.on(Variant.PAGING_OFFSET_LIMIT):
        size_name, offset_name = "limit", "offset"
        page_name = "page" if by_page_and_limit else None
    known = {name for name in (page_name, size_name, offset_name) if name} | set(filters)
    unknown = sorted(set(request.query_params) - known)
    if unknown and variants.on(Variant.STRICT_QUERY):
        raise Refusal.INVALID_QUERY.error(field=unknown[0], problem="is not a parameter of this list")

    default_size = 20 if variants.on(Variant.PAGE_SIZE_20) else contract.default_page_size()
    capped = variants.on(Variant.PER_PAGE_CAPPED)
    maximum = LIMITED_PER_PAGE if variants.on(Variant.PER_PAGE_LIMITED) else MAX_PER_PAGE
    per_page = _whole(request, size_name, default_size, maximum=None if capped else maximum)
    if capped:
        per_page = min(per_page, CAPPED_PER_PAGE)
    # What a page holds: per_page entries, unless a fault serves fewer than it says.
    size = max(1, per_page // 2) if faults.on(Fault.PER_PAGE_NOT_PAGE_SIZE) else per_page
    if offset_name and offset_name in request.query_params:
        start = _whole(request, offset_name, 0, least=0)
        page = start // size + 1
    else:
        page = _whole(request, page_name, first, least=first) - first + 1 if page_name else 1
        start = (page - 1) * size
    if start and faults.on(Fault.PAGES_OVERLAP):
        start -= 1  # each page repeats the last entry of the one before
    if start and size < default_size and faults.on(Fault.SMALL_PAGES_OVERLAP):
        start -= 1
    entries = list(items) if faults.on(Fault.PAGE_OVERFLOWS_PER_PAGE) else list(items[start : start + size])
    current = page - 1 if faults.on(Fault.PAGINATION_ZERO_BASED) else page
    if faults.on(Fault.CURRENT_ALWAYS_ONE):
        current = 1
    total = len(entries) if faults.on(Fault.TOTAL_COUNT_IS_PAGE_SIZE) else len(items)
    if faults.on(Fault.TOTAL_SHRINKS_PAST_FIRST_PAGE):
        total -= start
    return entries, {"totalCount": total, "perPage": per_page, "current": current}
