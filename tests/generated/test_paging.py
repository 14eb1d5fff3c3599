"""Paging discovered, not guessed: the parameters a target honours, then whole lists read page by page."""

from __future__ import annotations

from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient
from wallet_conformance.judge import checks
from wallet_conformance.scenarios.long_lists import ListPaging
from wallet_conformance.spec import contract
from wallet_conformance.world import lists, page_checks
from wallet_conformance.world.resources import Resources

# The most walks of a list in search of one that can be judged (lists.judgeable).
ATTEMPTS = 4


@pytest.mark.requirement("END-39", "LIM-21", "SVC-30", "SVC-32", "END-56")
@pytest.mark.parametrize("operation_id", contract.paginated_operations())
def test_pages_hold_every_entry_once(
    operation_id: str, api: ApiClient, resources: Resources, generation: Any, observe: Any
) -> None:
    """Under the paging parameters the target honours, pages do not overlap, hold every entry, and say so."""
    paging = ListPaging(api, resources, operation_id)
    paging.lengthen_to_two_small_pages()
    scheme = paging.discover()
    observe("END-39", operation=operation_id, honoured=str(scheme or "none"), tried=paging.tried)
    if scheme is None:
        pytest.skip(f"{operation_id}: the target honours none of the paging parameters tried (observed, END-39)")
    paging.lengthen_past_two_pages(generation.profile.paging_extra)
    walk = paging.walk_until_judgeable(ATTEMPTS)
    if walk is None:
        observe("LIM-21", operation=operation_id, note=f"the list kept changing over {ATTEMPTS} walks")
        pytest.skip(
            f"{operation_id} kept changing while it was read ({ATTEMPTS} walks; other clients of the "
            "account may be changing it): not judged"
        )
    observe(
        "END-39",
        operation=operation_id,
        pages=len(walk.exchanges),
        entries=len(walk.ids),
        created=len(paging.created),
        refused_page_sizes=lists.refused_sizes(api, operation_id),
    )
    problems = page_checks.walk_problems(walk, paging.size, paging.whole, paging.wallets_made)
    for judged in page_checks.WALK_REQUIREMENTS:
        checks.no_problem([problem for requirement, problem in problems if requirement == judged], requirement=judged)
