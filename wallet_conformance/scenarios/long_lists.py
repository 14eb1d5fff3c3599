"""Lists made long enough to page through, then read: the paging scenarios.

- `lengthen` adds entries to a list the run can add to (wallets; transactions by inbound payments).
- `wallets_past_one_page` makes one more wallet than a page of the wallet list holds (SVC-30).
- `first_page` reads a list's first page, the wallet list made longer than one page first (LIM-21).
- `ListPaging` is the whole-list scenario (END-39, LIM-21): lengthen the list to at least two small pages,
  discover the paging scheme the target honours, lengthen it past two pages of that scheme, and walk every page
  until a walk can be judged.

page_checks.py says what is wrong with what these read.
"""

from __future__ import annotations

import math
from contextlib import nullcontext

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge.failures import CannotJudge, SuiteError
from wallet_conformance.spec import contract
from wallet_conformance.world import lists, page_checks
from wallet_conformance.world.resources import Resources

# The largest perPage for which the suite makes the wallet list one entry longer than a page.
LONG_LIST_MOST = 100
# A walk in more pages than this, at the small size discovery asks for, is asked at a larger size instead.
WALK_PAGES = 20


def lengthen(operation_id: str, resources: Resources, needed: int, created: list[str]) -> None:
    """Make `needed` more entries of a list the run can add to: wallets, or transactions by inbound payments of the
    minimum transfer into one new wallet (when the run can fund one). What it makes goes to `created`."""
    if operation_id == "listWallets":
        created.extend(resources.wallet()["publicId"] for _ in range(needed))
    elif operation_id == "listTransactions" and resources.can_fund:
        wallet = resources.wallet()
        created.append(wallet["publicId"])
        for _ in range(needed):
            resources.fund(wallet["publicId"], contract.minimum_amount("transfer"))


def wallets_past_one_page(api: ApiClient, resources: Resources) -> list[str]:
    """New wallets, one more than a page of the wallet list holds: the wallet list is then longer than one page.
    CannotJudge when the list shows no perPage between 1 and LONG_LIST_MOST to go by."""
    first = api.call("listWallets")
    per_page = lists.pagination(first).get("perPage")
    if not first.ok or type(per_page) is not int or not 0 < per_page <= LONG_LIST_MOST:
        raise CannotJudge(
            f"the wallet list shows no usable perPage ({per_page!r}, HTTP {first.status}; see SVC-17), "
            "so the suite cannot make it longer than one page"
        )
    return [resources.wallet()["publicId"] for _ in range(per_page + 1)]


def first_page(api: ApiClient, resources: Resources, operation_id: str) -> Exchange:
    """The first page of a list asked for without paging parameters (a refusal stops the test as a setup error).

    A wallet list that fits in one page is first made longer (by up to one more wallet than the default page size),
    so a page that ignores perPage shows it; the other lists are read as they are."""
    exchange = api.call(operation_id)
    if operation_id == "listWallets" and exchange.ok and lists.has_pagination(exchange):
        per_page, total = lists.pagination(exchange).get("perPage"), lists.pagination(exchange).get("totalCount")
        if type(per_page) is int and type(total) is int and total <= per_page:
            for _ in range(min(per_page + 1 - total, contract.default_page_size() + 1)):
                resources.wallet()
            exchange = api.call(operation_id)
    resources.require(exchange, f"call {operation_id}")
    return exchange


class ListPaging:
    """The paging scenario of one list, step by step; what each step made and saw stays on the object.

    1. `lengthen_to_two_small_pages`: discovery needs a second page of SMALL_PAGE entries.
    2. `discover`: the paging scheme the target honours (None: it honours none the suite tries).
    3. `lengthen_past_two_pages`: the list made longer than two pages of the walk's size, and that size chosen.
    4. `walk_until_judgeable`: every page walked, again while the walks keep changing, until one can be judged.
    """

    def __init__(self, api: ApiClient, resources: Resources, operation_id: str) -> None:
        self.api = api
        self.resources = resources
        self.operation_id = operation_id
        self.created: list[str] = []  # the records the scenario made to lengthen the list
        self.scheme: lists.Scheme | None = None
        self.tried: list[str] = []  # what each scheme discovery tried showed
        self.size: int | None = None  # entries asked a page; None: the target's own page size
        self.whole = False  # whether totalCount fits in the pages a walk reads, so a walk must see every entry
        self.walks: list[lists.Listing] = []

    @property
    def wallets_made(self) -> list[str]:
        """The wallets the scenario made that its list must hold: those it made on the wallet list, none on another
        (the wallet it funds to lengthen the transaction list is no entry of that list)."""
        return self.created if self.operation_id == "listWallets" else []

    def lengthen_to_two_small_pages(self) -> None:
        """A list of SMALL_PAGE entries or fewer is lengthened to one more, so discovery can see its page 2."""
        listed = lists.pagination(self.api.call(self.operation_id)).get("totalCount")
        if isinstance(listed, int) and listed <= lists.SMALL_PAGE:
            lengthen(self.operation_id, self.resources, lists.SMALL_PAGE + 1 - listed, self.created)

    def discover(self) -> lists.Scheme | None:
        """The paging scheme the target honours on this list, and what each one tried showed (`tried`)."""
        self.scheme = lists.discover(self.api, self.operation_id)
        self.tried = lists.notes(self.api, self.operation_id)
        return self.scheme

    def lengthen_past_two_pages(self, extra: int) -> None:
        """Make the list longer than two pages of the walk's size, by `extra` more entries than that, and choose the
        size: SMALL_PAGE under a scheme with a size parameter (larger for a list of more than WALK_PAGES such pages,
        yet under the client's cap on a body), else the target's own page size."""
        if self.scheme is None:
            raise SuiteError(f"{self.operation_id}: the list is lengthened for a walk before a paging scheme was found")
        page_one = self.api.call(self.operation_id)
        self.resources.require(page_one, f"list {self.operation_id}")
        held = len(page_one.data) if isinstance(page_one.data, list) else 0
        total = lists.pagination(page_one).get("totalCount", held)
        size = lists.SMALL_PAGE if self.scheme.size else None
        page_size = size or lists.held(page_one, None) or 1
        if isinstance(total, int) and total <= page_size * 2:
            lengthen(self.operation_id, self.resources, page_size * 2 + 1 - total + extra, self.created)
            total = lists.pagination(self.api.call(self.operation_id)).get("totalCount", total)
        if isinstance(total, int) and self.scheme.size and total > lists.SMALL_PAGE * WALK_PAGES:
            size = lists.fitting(page_one, min(lists.LARGE_PAGE, math.ceil(total / WALK_PAGES)))
        self.size = size
        self.whole = isinstance(total, int) and total <= (size or page_size) * lists.MAX_PAGES

    def walk_until_judgeable(self, attempts: int) -> lists.Listing | None:
        """Every page of the list walked, up to `attempts` times, until a walk can be judged (lists.judgeable: one
        with no problem, or two alike); the walk judged, or None when none could be. The run's own workers hold
        the wallet list still meanwhile."""

        def read() -> list[Exchange]:
            self.walks.append(lists.walk(self.api, self.operation_id, self.scheme, self.size))
            return self.walks[-1].exchanges

        def clean(_: list[Exchange]) -> bool:
            return not page_checks.walk_problems(self.walks[-1], self.size, self.whole, self.wallets_made)

        with self.resources.wallet_list_still() if self.operation_id == "listWallets" else nullcontext():
            judged = lists.judgeable(read, attempts, clean)
        return None if judged is None else self.walks[-1]
