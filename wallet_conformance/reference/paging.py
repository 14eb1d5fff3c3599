"""Paging of the account, wallet and transaction lists.

The document shows `meta.pagination` {totalCount, perPage, current} but not the request side; our
choice: query `page` (from 1, default 1) and `perPage` (1 to MAX_PER_PAGE, default the observed
page size). Anything else is refused with 400.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from starlette.requests import Request

from wallet_conformance import contract
from wallet_conformance.reference.errors import Refusal
from wallet_conformance.reference.faults import Fault, FaultSet

MAX_PER_PAGE = 100
T = TypeVar("T")


def _positive(request: Request, name: str, default: int, maximum: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
        raise Refusal.INVALID_QUERY.error(field=name, problem="must be a whole number from 1")
    if maximum is not None and int(raw) > maximum:
        raise Refusal.INVALID_QUERY.error(field=name, problem=f"must be at most {maximum}")
    return int(raw)


def paginate(request: Request, items: Sequence[T], faults: FaultSet) -> tuple[list[T], dict[str, Any]]:
    """The requested page of `items` and its meta.pagination."""
    default_size = 20 if faults.on(Fault.PAGE_SIZE_20) else contract.default_page_size()
    page = _positive(request, "page", 1)
    per_page = _positive(request, "perPage", default_size, MAX_PER_PAGE)
    start = (page - 1) * per_page
    entries = list(items) if faults.on(Fault.PAGE_OVERFLOWS_PER_PAGE) else list(items[start : start + per_page])
    current = page - 1 if faults.on(Fault.PAGINATION_ZERO_BASED) else page
    return entries, {"totalCount": len(items), "perPage": per_page, "current": current}
