"""Reading a list past its first page, under whichever paging parameters the target honours.

The document shows `meta.pagination` {totalCount, perPage, current} on the account, wallet and
transaction lists, but not the request parameters that select a page or a page size ("Request
parameters for paging (page number, page size) on list endpoints: not shown.", END-39). So the suite
assumes none: `discover` tries the common schemes in turn and keeps the first the target honours, and learns
where a page number counts from (page=1 the first page, or page=0 as Spring Data's; `current` is judged
against the page answered, the first being 1, either way).
`read` reads a list until a condition holds or the list is whole (hand-written tests); `walk` reads
every page (generated tests). A target that honours no scheme is read on its first page only, and the
tests say so instead of failing.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from wallet_conformance.client.api import MAX_BODY, ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.world.polling import poll

# The most pages read of one list: a guard against a target whose pages never end.
MAX_PAGES = 50
# The page size discovery asks for: small, so a list of a few entries has a page 2.
SMALL_PAGE = 2
# How many pages past the last one a page past a list's end is asked for: entries other clients add meanwhile (a
# few) cannot reach it.
PAST_THE_END = 10
# The page size asked for when a whole list is wanted in few requests (a target may clamp it, or refuse it: then
# the walk asks for half as many, down to the target's own page size).
LARGE_PAGE = 100
# Statuses that refuse the request as a whole, not a query parameter of it: a walk does not back off on them.
NOT_ABOUT_THE_SIZE = (401, 403, 404, 429)
# The numbers a page parameter may give the first page: 1, or 0 (Spring Data's `page`); 1 is tried first.
FIRST_PAGE_NUMBERS = (1, 0)
# How often discovery reads the first page three ways (without a page number, page=1, page=0) in search of one
# the plain read matches: another client adding an entry between two reads shifts them all.
FIRST_PAGE_READS = 3


@dataclass(frozen=True)
class Scheme:
    """One way of asking for a page: by `page` number (the first page numbered `first`, 1 or 0) or by `offset` in
    entries, sized by the parameter `size` names (None: the target's own page size)."""

    position: str
    size: str | None
    first: int = 1

    def params(self, page: int, size: int | None, stride: int | None = None) -> dict[str, int]:
        """Query parameters of the `page`th page (counted from 1, whatever number the target gives it) asked at
        `size` entries; an offset moves `stride` entries a page (default `size`)."""
        at = page - 1 + self.first if self.position == "page" else (page - 1) * (stride or size or 0)
        return {self.position: at, **({self.size: size} if self.size and size else {})}

    def __str__(self) -> str:
        position = self.position if self.first == 1 else f"{self.position} from {self.first}"
        return f"{position}/{self.size}" if self.size else f"{position} (the target's page size)"


SCHEMES = (
    Scheme("page", "perPage"),
    Scheme("page", "limit"),
    Scheme("page", "pageSize"),
    Scheme("page", "per_page"),
    Scheme("page", "size"),
    Scheme("offset", "limit"),
    Scheme("page", None),
    Scheme("offset", None),
)
# Per client and list: the scheme found (or None) and what each try showed.
_found: weakref.WeakKeyDictionary[ApiClient, dict[str, tuple[Scheme | None, list[str]]]] = weakref.WeakKeyDictionary()


@dataclass
class _Refusals:
    """The page sizes a client's walks of one list asked for and the target refused (with its answers, in order),
    and the largest size it then accepted, which later walks ask for at most."""

    seen: dict[str, None] = field(default_factory=dict)
    largest: int | None = None


# Per client and list: the page sizes its walks asked for and the target refused.
_refusals: weakref.WeakKeyDictionary[ApiClient, dict[str, _Refusals]] = weakref.WeakKeyDictionary()


def pagination(exchange: Exchange) -> dict[str, Any]:
    """meta.pagination of an exchange, or {}."""
    value = exchange.meta.get("pagination")
    return value if isinstance(value, dict) else {}


def has_pagination(exchange: Exchange) -> bool:
    """Whether an exchange carries a meta.pagination object (an empty one included)."""
    return isinstance(exchange.meta.get("pagination"), dict)


def identity(item: Any) -> Any:
    """What tells two list entries apart: publicId, else _id, id or reference, else the entry itself."""
    if isinstance(item, dict):
        for key in ("publicId", "_id", "id", "reference"):
            if key in item:
                return item[key]
    return repr(item)


def _listed(exchange: Exchange) -> list[Any]:
    """The entries of a list answer, or [] when it is not one."""
    return exchange.data if exchange.ok and isinstance(exchange.data, list) else []


def held(exchange: Exchange, size: int | None) -> int:
    """How many entries a full page holds: the perPage the target reports, else the size asked, else what it holds."""
    per_page = pagination(exchange).get("perPage")
    return per_page if type(per_page) is int and per_page > 0 else (size or len(_listed(exchange)))


def fitting(exchange: Exchange, wanted: int) -> int:
    """`wanted` entries a page, or fewer where pages that large would pass half the client's cap on a body
    (MAX_BODY), judged by the bytes an entry takes on `exchange`, a page of the same list."""
    entries = len(_listed(exchange))
    if not entries:
        return wanted
    per_entry = (exchange.size or len(exchange.text)) / entries
    return max(1, min(wanted, int(MAX_BODY / 2 / per_entry)))


def tried() -> str:
    """The schemes discovery tries, for messages."""
    return ", ".join(str(scheme) for scheme in SCHEMES)


def _ids(exchange: Exchange) -> list[Any] | None:
    """The identities of a list answer's entries in order, or None when it is no list."""
    return [identity(item) for item in exchange.data] if exchange.ok and isinstance(exchange.data, list) else None


def numbered(api: ApiClient, operation_id: str, scheme: Scheme, first: Exchange, notes: list[str]) -> Scheme:
    """`scheme` with the number its page parameter gives the first page: the first of FIRST_PAGE_NUMBERS whose page
    holds the entries the first page asked without a page number holds (at the same size); 1 when none does (a
    parameter the target ignores or refuses, or a list changing under every read). What the reads showed goes to
    `notes`.

    The document shows no page parameter: a target may count `page` from 0 (Spring Data does) and still say
    `current` 1 on its first page. `current` is not read here: it is what the paging tests judge.
    """
    if scheme.position != "page":
        return scheme
    size = SMALL_PAGE if scheme.size else None
    for attempt in range(FIRST_PAGE_READS):
        sized = {scheme.size: size} if scheme.size and size else None
        wanted = _ids(first if sized is None and not attempt else api.call(operation_id, params=sized))
        if not wanted:
            return scheme
        for number in FIRST_PAGE_NUMBERS:
            if _ids(api.call(operation_id, params=replace(scheme, first=number).params(1, size))) == wanted:
                if number != scheme.first:
                    notes.append(f"{scheme}: {scheme.position}={number} is the first page")
                return replace(scheme, first=number)
    notes.append(
        f"{scheme}: no {scheme.position} number gave the first page in {FIRST_PAGE_READS} reads; counted from 1"
    )
    return scheme


def _honours(api: ApiClient, operation_id: str, scheme: Scheme, first: Exchange, notes: list[str]) -> bool:
    """Whether page 2 under `scheme` is an ok list that says current 2 (and perPage the size asked), or holds entries
    none of which page 1 holds at that size; what the try showed goes to `notes`.

    Entries page 1 and page 2 share are no proof either way: another client adding an entry between the two reads
    shifts a list whose paging parameter is ignored, and one removing an entry shifts real pages. Such a pair is
    read once more.
    """
    size = SMALL_PAGE if scheme.size else None
    for attempt in range(2):
        second = api.call(operation_id, params=scheme.params(2, size, size or held(first, None)))
        shown = pagination(second)
        if not second.ok or not isinstance(second.data, list):
            notes.append(f"{scheme}: page 2 answered HTTP {second.status} without a list")
            return False
        if shown.get("current") == 2 and (size is None or shown.get("perPage") == size):
            notes.append(f"{scheme}: honoured, page 2 says current 2" + (f" and perPage {size}" if size else ""))
            return True
        one = api.call(operation_id, params=scheme.params(1, size)) if size or attempt else first
        ones, twos = [identity(item) for item in _listed(one)], [identity(item) for item in _listed(second)]
        shared = set(map(str, ones)) & set(map(str, twos))
        # A size parameter the target ignores leaves its own (larger) page: page 1 must hold just the size asked.
        honoured = bool(twos) and not shared and (size is None or len(ones) == size)
        overlap = "the same" if twos == ones else f"{len(shared)} shared" if shared else "none shared"
        notes.append(
            f"{scheme}: {'honoured' if honoured else 'ignored'} (page 2 says current "
            f"{shown.get('current')!r}, perPage {shown.get('perPage')!r}; page 1 holds {len(ones)} entries, "
            f"page 2 {len(twos)}, {overlap})"
        )
        if honoured or not shared or twos == ones:
            return honoured
    return False


def _discovery(api: ApiClient, operation_id: str) -> tuple[Scheme | None, list[str]]:
    known = _found.setdefault(api, {})
    if operation_id in known:
        return known[operation_id]
    first = api.call(operation_id)
    notes: list[str] = []
    schemes = (numbered(api, operation_id, scheme, first, notes) for scheme in SCHEMES)
    found = next((scheme for scheme in schemes if _honours(api, operation_id, scheme, first, notes)), None)
    total = pagination(first).get("totalCount")
    # A list too short for a second small page cannot tell: asked again later, when a test may have lengthened it.
    if found is not None or not (type(total) is int and total <= SMALL_PAGE):
        known[operation_id] = (found, notes)
    return found, notes


def discover(api: ApiClient, operation_id: str) -> Scheme | None:
    """The first scheme of SCHEMES the target honours on this list, numbered from where its page parameter starts
    (`numbered`), else None (asked once per client and list, and again while the list is too short to tell)."""
    return _discovery(api, operation_id)[0]


def notes(api: ApiClient, operation_id: str) -> list[str]:
    """What each scheme discovery tried on this list showed."""
    return _discovery(api, operation_id)[1]


@dataclass
class Listing:
    """What was read of a list: the exchanges, the entries in order, and whether the whole list was seen."""

    operation_id: str
    scheme: Scheme | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    entries: list[Any] = field(default_factory=list)
    total: int | None = None
    complete: bool = False
    note: str = ""
    refused: list[str] = field(default_factory=list)  # page sizes the target refused, each with its answer

    @property
    def first(self) -> Exchange:
        return self.exchanges[0]

    @property
    def ids(self) -> list[Any]:
        return [identity(entry) for entry in self.entries]

    @property
    def ended(self) -> bool:
        """Whether the pages read reach the list's end: totalCount entries were read, or the last page read is a list
        that is empty or holds fewer entries than a full page (perPage where page 1 says it, else what page 1 held)."""
        last = self.exchanges[-1] if self.exchanges else None
        if self.complete or last is None or not last.ok or not isinstance(last.data, list):
            return self.complete
        return not last.data or len(last.data) < held(self.first, len(_listed(self.first)) or None)

    def totals(self) -> set[Any]:
        """The totalCount of every page that carries meta.pagination."""
        return {pagination(page).get("totalCount") for page in self.exchanges if has_pagination(page)}

    def add(self, exchange: Exchange) -> list[Any]:
        """Take one more page; its entries."""
        if not self.exchanges:
            total = pagination(exchange).get("totalCount")
            self.total = total if type(total) is int else None
        self.exchanges.append(exchange)
        self.entries.extend(_listed(exchange))
        self.complete = self.total is not None and len(self.entries) >= self.total
        return _listed(exchange)


def listed_within(
    api: ApiClient, operation_id: str, shows: Callable[[Any], bool], timeout: float
) -> tuple[Any, Listing]:
    """The first entry of the list that `shows` holds for, read page after page (`read`) and read again until it
    appears or `timeout` seconds pass (a list may lag behind a creation: how soon it shows one is not stated); the
    entry is None when it did not appear. Returns it with the last read."""
    reads: list[Listing] = []

    def found() -> Any:
        reads.append(read(api, operation_id, until=lambda entries: any(map(shows, entries))))
        return next(filter(shows, reads[-1].entries), None)

    return poll(found, timeout), reads[-1]


def read(
    api: ApiClient,
    operation_id: str,
    until: Callable[[list[Any]], bool] | None = None,
    params: dict[str, Any] | None = None,
) -> Listing:
    """Read a list page after page (under the scheme the target honours) until it is whole or `until` holds."""
    listing = Listing(operation_id)
    first = api.call(operation_id, params=params)
    if not first.ok or not isinstance(first.data, list):
        listing.exchanges.append(first)
        listing.note = f"{operation_id} answered {first.status} without a list"
        return listing
    listing.add(first)

    def done() -> bool:
        return listing.complete or (until is not None and until(listing.entries))

    if done() or listing.total is None or not listing.entries:
        listing.note = f"page 1 of {operation_id} ({len(listing.entries)} of totalCount {listing.total!r})"
        return listing
    listing.scheme = discover(api, operation_id)
    if listing.scheme is None:
        listing.note = (
            f"page 1 of {operation_id} only ({len(listing.entries)} of totalCount {listing.total}): no "
            f"paging parameter the suite tried ({tried()}) selected page 2, and the document shows none"
        )
        return listing
    size = held(first, None)
    page = 1
    while not done() and page < MAX_PAGES:
        if not listing.add(api.call(operation_id, params={**(params or {}), **listing.scheme.params(page + 1, size)})):
            break
        page += 1
    listing.note = (
        f"pages 1 to {page} of {operation_id} under {listing.scheme} ({len(listing.entries)} entries of "
        f"totalCount {listing.total})"
    )
    if (
        until is not None
        and not done()
        and page >= MAX_PAGES
        and params is None
        and listing.scheme.size
        and size < fitting(first, LARGE_PAGE)
    ):
        # What is sought lies past MAX_PAGES pages of the target's size (a list in oldest-first order holds the
        # newest entries at its end): the list is read again, whole, in large pages.
        whole = walk(api, operation_id, listing.scheme, fitting(first, LARGE_PAGE))
        whole.note = f"{listing.note}, then {whole.note}"
        return whole
    return listing


def first_pages(api: ApiClient, operation_id: str, scheme: Scheme, count: int) -> list[Exchange]:
    """Pages 1 to `count` of a list under `scheme`, asked at SMALL_PAGE entries where the scheme has a size parameter
    (else the target's own size); an offset moves by what page 1 holds."""
    size = SMALL_PAGE if scheme.size else None
    first = api.call(operation_id, params=scheme.params(1, size))
    stride = held(first, size)
    return [first, *(api.call(operation_id, params=scheme.params(page, size, stride)) for page in range(2, count + 1))]


def empty_page(api: ApiClient, operation_id: str) -> Exchange | str:
    """A page of a list that should hold no entry: its first page when that holds none, else a page past its end
    under the paging the target honours (`past_the_end`); or why none can be asked for."""
    first = api.call(operation_id)
    if not first.ok or not (isinstance(first.data, list) and first.data):
        return first
    scheme = discover(api, operation_id)
    if scheme is None:
        return (
            f"no paging parameters the suite tried ({tried()}) selected page 2 of {operation_id}; the document "
            "does not show which do, so no page past its end can be asked for"
        )
    return past_the_end(api, operation_id, scheme)


def past_the_end(api: ApiClient, operation_id: str, scheme: Scheme) -> Exchange | str:
    """A page of a list under `scheme` well past its end (PAST_THE_END pages beyond the last page its first page's
    totalCount and perPage give, at the target's own page size), or why none can be asked for (a first page without
    integer totalCount and perPage, or refused)."""
    first = api.call(operation_id, params=scheme.params(1, None))
    total, per_page = pagination(first).get("totalCount"), pagination(first).get("perPage")
    if not first.ok or type(total) is not int or type(per_page) is not int or per_page < 1:
        return (
            f"page 1 of {operation_id} under {scheme} answered HTTP {first.status} with totalCount {total!r} and "
            f"perPage {per_page!r}: where its end lies cannot be told"
        )
    return api.call(operation_id, params=scheme.params(total // per_page + PAST_THE_END, None, per_page))


def pages_seen(pages: list[Exchange]) -> list[tuple[Any, ...]]:
    """What a read of pages showed: each page's status, totalCount and entries (or body)."""
    return [
        (
            page.status,
            pagination(page).get("totalCount"),
            [identity(entry) for entry in page.data] if isinstance(page.data, list) else page.text,
        )
        for page in pages
    ]


def judgeable(
    read: Callable[[], list[Exchange]], attempts: int, clean: Callable[[list[Exchange]], bool] = lambda pages: False
) -> list[Exchange] | None:
    """Pages of a list, read (`read`) until they can be judged; None when they cannot.

    Another client of the account (another run, a user) may add or close entries between two page reads, which
    shifts entries across pages. So pages are judged when a read is `clean`, or when two reads in a row show the
    same entries and totals (a paging fault reads the same every time). After `attempts` reads none alike, the
    last read is judged only if every page of every read showed one and the same totalCount: the list's size
    held still while its pages kept shifting, which is the target's ordering, not another client. Else None.
    """
    reads: list[list[Exchange]] = []
    for _ in range(attempts):
        pages = read()
        if clean(pages) or (reads and pages_seen(reads[-1]) == pages_seen(pages)):
            return pages
        reads.append(pages)
    totals = {pagination(page).get("totalCount") for pages in reads for page in pages}
    return reads[-1] if len(totals) == 1 and None not in totals else None


def walk(api: ApiClient, operation_id: str, scheme: Scheme | None, size: int | None = None) -> Listing:
    """Every page of a list under `scheme`, asked at `size` entries where the scheme has a size parameter (else the
    target's own size), until a short or empty page or MAX_PAGES; page 1 alone when `scheme` is None.

    The size parameter is the suite's guess (the document shows none, END-39): a target may refuse a size it finds
    too large. Then the walk asks for half as many, down to SMALL_PAGE, then for the target's own size, and keeps
    the refusals in `refused` (observed, never judged)."""
    listing = Listing(operation_id, scheme)
    size = size if scheme is not None and scheme.size else None
    refusals = _refusals.setdefault(api, {}).setdefault(operation_id, _Refusals())
    if size is not None and refusals.largest is not None:
        size = min(size, refusals.largest)
    first = api.call(operation_id, params=scheme.params(1, size) if scheme else None)
    while size is not None and _refuses_size(first):
        assert scheme is not None  # a size is only asked under a scheme
        smaller = size // 2 if size // 2 >= SMALL_PAGE else None
        listing.refused.append(
            f"{scheme.size}={size} answered HTTP {first.status} ({_message(first)}); asked "
            f"{f'{scheme.size}={smaller}' if smaller else 'with no page size'} instead"
        )
        size = smaller
        first = api.call(operation_id, params=scheme.params(1, size))
    if listing.refused:
        refusals.largest = size if size is not None and first.ok else refusals.largest
        refusals.seen.update(dict.fromkeys(listing.refused))
    stride = size
    exchange = first
    for page in range(1, MAX_PAGES + 1 if scheme else 2):
        if page > 1:
            exchange = api.call(operation_id, params=scheme.params(page, size, stride) if scheme else None)
        got = listing.add(exchange)
        # A target may clamp the size asked (and say so in perPage): the walk goes on with what a page holds.
        stride = held(exchange, size)
        if not got or len(got) < stride:
            break
    listing.note = (
        f"pages 1 to {len(listing.exchanges)} of {operation_id} under {scheme or 'no scheme'} "
        f"({len(listing.entries)} entries of totalCount {listing.total})"
        + (f"; {'; '.join(listing.refused)}" if listing.refused else "")
    )
    return listing


def _refuses_size(exchange: Exchange) -> bool:
    """Whether an answer refuses the request's query (a client error that is not about the key, the path or the
    rate), which a walk takes to be its page size."""
    return 400 <= exchange.status < 500 and exchange.status not in NOT_ABOUT_THE_SIZE


def _message(exchange: Exchange) -> str:
    message = exchange.meta.get("message")
    return repr(message) if isinstance(message, str) else "no message"


def refused_sizes(api: ApiClient, operation_id: str) -> list[str]:
    """The page sizes this client's walks of a list asked for and the target refused, with its answers."""
    return list(_refusals[api][operation_id].seen) if operation_id in _refusals.get(api, {}) else []
