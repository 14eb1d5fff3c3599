"""The primary-wallet limit scenario (LIM-01, LIM-02, LIM-03, LIM-08): a primary wallet made without emailAddress and
mobile, the account's other primary places filled, one more tried, one freed and taken again, then every place the
run held freed and raced for by tens of requests at once (ROUNDS times).

Every primary but the first is sent with emailAddress and mobile, which a primary wallet may carry: the count is
then all that can refuse them, whatever the target makes of a primary without them (LIM-08's matter). A primary
refused with places left, after the run closed primary wallets that would fill them were they still counted, is
told apart by closing one of the scenario's own and asking again: closed primaries still holding places is LIM-03's
matter, not LIM-02's.

Whether the wallet list keeps closed wallets, and how a closed one shows, is not shown (STA-10). Where it shows the
wallets the run closed with nothing marking them closed, a listed primary the run did not make may be closed too: it
is counted only when a read of it answers no open wallet (then as closed); the others are `unsure`. The run then
counts only what it made: it fills places until its own reach the limit or the target refuses one, and a refusal that
the unsure ones could explain is the target's count of them (`count_by_the_refusal`), not judged as the sixth.

The limit is account-wide: the scenario runs under `Resources.account_wide`, the run's one lock on what the
account shares, and closes every primary wallet it made. It records what each step did in a `PrimaryLimitRun`;
the tests judge that record. A step runs only when the one before it did what the next needs (the places filled,
the extra one refused, the freed place taken again); a step not reached leaves its fields None.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.concurrency import RACERS, ROUNDS, release
from wallet_conformance.world.resources import Resources
from wallet_conformance.world.wallets import shown_closed

BURST = RACERS  # primary wallets asked for at once with the run's places freed: at most those places may open
CONTACT = ("emailAddress", "mobile")  # what a secondary wallet needs and a primary one may carry


@dataclass(frozen=True)
class PrimaryCount:
    """The open primary wallets the wallet list shows, whether the whole list was seen, how it was read, and the
    walk."""

    public_ids: frozenset[str]
    complete: bool
    note: str
    listing: lists.Listing

    @property
    def count(self) -> int:
        return len(self.public_ids)


def primary_body(run_id: str, *, contact: bool = True) -> dict[str, Any]:
    """A primary wallet's body, with emailAddress and mobile, or without them (which a primary wallet does not need:
    LIM-08)."""
    body = bodies.wallet(run_id, "primary")
    if contact:  # a secondary wallet's, which carries them
        secondary = bodies.wallet(run_id)
        body.update({name: secondary[name] for name in CONTACT})
    return body


def open_primaries(api: ApiClient, closed: set[str]) -> PrimaryCount:
    """The open primary wallets the wallet list shows, less those of `closed` (the wallets known not open: whether a
    list keeps closed wallets is not shown) and those the list itself marks closed. A list the target refuses stops
    the test as a setup error of listWallets."""
    listing = lists.walk(api, "listWallets", lists.discover(api, "listWallets"), lists.LARGE_PAGE)
    if not listing.first.ok or not isinstance(listing.first.data, list):
        raise TargetError(
            f"could not list the wallets to count the primary ones\n{listing.first.describe()}",
            listing.first,
            requirement=contract.acceptance_requirement("listWallets"),
        )
    entries = {
        entry["publicId"]: entry
        for entry in listing.entries
        if isinstance(entry, dict) and isinstance(entry.get("publicId"), str)
    }
    primaries = frozenset(
        public_id
        for public_id, entry in entries.items()
        if entry.get("category") == "primary" and not shown_closed(entry) and public_id not in closed
    )
    return PrimaryCount(primaries, listing.complete, f"counted on {listing.note}: {len(entries)} wallets seen", listing)


def opened_wallet(exchange: Exchange) -> str:
    """The publicId of the wallet an accepted create made; a wallet accepted without one stops the test as a setup
    error of createWallet."""
    public_id = exchange.data.get("publicId") if isinstance(exchange.data, dict) else None
    if not isinstance(public_id, str):
        raise TargetError(
            f"a created primary wallet has no publicId\n{exchange.describe()}",
            exchange,
            requirement=contract.acceptance_requirement("createWallet"),
        )
    return public_id


@dataclass
class PrimaryLimitRun:
    """What one pass at the primary-wallet limit did (made once per worker, read by the tests)."""

    limit: int
    existing: int  # by the wallet list; where that cannot tell (`unsure`), by the target's refusal, else 0
    counted: bool  # whether the whole wallet list was seen, so `existing` is the account's number
    note: str
    # Primaries listed that the run did not make, open or closed for all the list shows (it lists the run's closed
    # wallets unmarked) and not read as closed; and whether a refusal was then taken as the target's count of them.
    unsure: int = 0
    full_by_refusal: bool = False
    closed_before: int = 0  # primary wallets the run closed before the scenario
    bare: Exchange | None = None  # the first primary, without emailAddress and mobile
    fills: list[Exchange] = field(default_factory=list)  # then those with them, until the limit or a refusal
    # A fill refused with places left after the run closed primaries: one of the scenario's own closed and another
    # asked for (None: not needed, or nothing of its own to close), and whether closed primaries still hold places
    # (None: not needed, or cannot be told).
    recheck: tuple[Exchange, Exchange] | None = None
    closed_counted: bool | None = None
    extra: Exchange | None = None
    listed_with_extra: PrimaryCount | None = None  # open primaries listed once an extra one was accepted
    freed: Exchange | None = None  # the close of one of the run's primaries, with the account at the limit
    refilled: Exchange | None = None  # the primary created after that close
    burst: list[Exchange] | None = None  # the last race: BURST primaries asked for at once with `free` places left
    free: int = 0  # the places left under the limit when that race was released
    races: int = 0  # races run: up to ROUNDS, stopping at the first that opened more than `free`
    listed_after_burst: PrimaryCount | None = None  # open primaries then listed: read whenever more than `free` opened

    @property
    def bare_opened(self) -> bool:
        return self.bare is not None and self.bare.ok

    @property
    def filled(self) -> bool:
        """Whether the run's creations with emailAddress and mobile, all accepted, brought the account to the limit."""
        return all(fill.ok for fill in self.fills) and self.existing + self.bare_opened + len(self.fills) == self.limit

    def numbered_fills(self) -> list[tuple[int, Exchange]]:
        """Each creation with emailAddress and mobile, with the number its wallet would have among the account's open
        primaries."""
        first = self.existing + self.bare_opened + 1
        return list(enumerate(self.fills, start=first))

    @property
    def opened_at_once(self) -> list[Exchange]:
        """The creations of the burst the target accepted."""
        return [exchange for exchange in self.burst or [] if exchange.ok]

    def context(self) -> str:
        """What the account held and what the run made, for failure messages."""
        made = self.bare_opened + sum(fill.ok for fill in self.fills)
        held = f"the account held {self.existing} open primary wallet(s) before ({self.note})"
        if self.unsure:
            held = (
                f"the wallet list showed {self.unsure} primary wallet(s) the run did not make, open or closed for all "
                f"it shows (it lists wallets the run closed with nothing marking them closed; {self.note})"
            )
            if self.full_by_refusal:
                held += f", {self.existing} of them open by the target's refusal"
        return f"{held}; the run created {made}, having closed {self.closed_before} primary wallet(s) before"


class PrimaryLimit:
    """The scenario's steps, each recording what it did on `run`; `created` holds the run's open primaries."""

    def __init__(self, api: ApiClient, resources: Resources, run_id: str) -> None:
        self.api = api
        self.resources = resources
        self.run_id = run_id
        self.created: list[str] = []
        self.run = PrimaryLimitRun(limit=contract.primary_wallet_limit(), existing=0, counted=False, note="")

    def count_open_primaries(self) -> None:
        """Count the account's open primary wallets; CannotJudge when no place is left (another run of the suite
        holding them is named). Where the list shows closed wallets unmarked, the listed primaries a read does not
        show closed are `unsure`, and the run counts from none (`fill_the_places`)."""
        listed = open_primaries(self.api, self.resources.not_open)
        held = set(listed.public_ids)
        maybe_closed = bool(held) and self.resources.lists_closed_wallets(listed.listing)
        if maybe_closed:
            held -= self.resources.read_as_closed(held)
        self.run.unsure = len(held) if maybe_closed else 0
        self.run.existing = 0 if maybe_closed else len(held)
        self.run.counted, self.run.note = listed.complete, listed.note
        self.run.closed_before = len(self.resources.closed_primaries)
        if self.run.existing >= self.run.limit:
            self.resources.skip_if_another_run_holds_primaries()  # the places are another run's: say so
            raise CannotJudge(
                f"the account already holds {self.run.existing} open primary wallets ({listed.note}); "
                f"the limit is {self.run.limit}: close some to test the primary-wallet limit"
            )

    def open_the_first(self) -> None:
        """Create a primary wallet without emailAddress and mobile; opened, it takes a place. (Refused, the first of
        the fills, sent with them right after, is its control: a place may be what was missing.)"""
        self.run.bare = self.resources.create_wallet(primary_body(self.run_id, contact=False))
        if self.run.bare.ok:
            self.created.append(opened_wallet(self.run.bare))

    def fill_the_places(self) -> bool:
        """Create primary wallets with emailAddress and mobile until the account holds the limit, stopping at the
        first refused; whether all were accepted. A refusal with places left after the run closed primaries is told
        apart (`tell_apart`)."""
        while self.run.existing + len(self.created) < self.run.limit:
            exchange = self.resources.create_wallet(primary_body(self.run_id))
            self.run.fills.append(exchange)
            if not exchange.ok:
                self.tell_apart()
                self.count_by_the_refusal()
                break
            self.created.append(opened_wallet(exchange))
        return self.run.filled

    def tell_apart(self) -> None:
        """A primary refused with places left, after the run closed primary wallets that would fill them were they
        still counted: close one of the scenario's own and ask for another. Opened, closing frees a place (the refusal
        was the limit's count); refused, closed primaries still hold places. With none of its own to close, the
        closed ones are taken to hold the places."""
        held = self.run.existing + len(self.created)
        if not self.run.closed_before or held + self.run.closed_before < self.run.limit:
            return
        if not self.created:
            # By the list's exact count; where it cannot tell (`unsure`), the account may be full.
            self.run.closed_counted = True if not self.run.unsure else None
            return
        freed = self.resources.close_wallet(self.created[-1])
        if not freed.ok:
            return
        self.created.pop()
        again = self.resources.create_wallet(primary_body(self.run_id))
        self.run.recheck = (freed, again)
        self.run.closed_counted = not again.ok
        if again.ok:
            self.created.append(opened_wallet(again))

    def count_by_the_refusal(self) -> None:
        """Where the list cannot tell open primaries from closed ones (`unsure`), a refusal that the unsure ones
        could explain is the target's count: they held the places the run's own did not (on a conforming target,
        the run's last accepted one came with a place free and the refused one with none). The account then held
        the limit and the refusal is the extra one tried. Places left whatever the unsure ones are, it stays a
        fill (LIM-02's matter); with none of the run's own open, the account is full: CannotJudge."""
        refused = self.run.fills[-1]
        if not self.run.unsure or refused.ok or self.run.closed_counted:
            return
        if self.run.unsure + len(self.created) < self.run.limit:
            return
        if not self.created:
            raise CannotJudge(
                f"the target refused the run's first primary wallet (HTTP {refused.status}), with {self.run.unsure} "
                "primary wallets listed that the run did not make, open or closed for all the list shows: the "
                "account may be full; close some to test the primary-wallet limit"
            )
        self.run.existing = self.run.limit - len(self.created)
        self.run.extra = self.run.fills.pop()
        self.run.full_by_refusal = True

    def try_one_more(self) -> bool:
        """With the account at the limit, ask for one more primary wallet (unless a refusal was taken as the
        account's count already: `count_by_the_refusal`); whether the scenario goes on: no wallet was opened (no 2xx
        with a wallet object). An opened one is counted on the wallet list, then closed."""
        if self.run.extra is None:
            self.run.extra = self.resources.create_wallet(primary_body(self.run_id))
        if not (self.run.extra.ok and isinstance(self.run.extra.data, dict)):
            return True
        self.run.listed_with_extra = open_primaries(self.api, self.resources.not_open)
        public_id = self.run.extra.data.get("publicId")
        if isinstance(public_id, str):
            self.resources.close_wallet(public_id)
        return False

    def free_one_and_take_it_again(self) -> bool:
        """Close one of the run's primaries and create another; whether the freed place was taken again."""
        self.run.freed = self.resources.close_wallet(self.created[0])
        if not self.run.freed.ok:
            return False
        self.created.pop(0)
        self.run.refilled = self.resources.create_wallet(primary_body(self.run_id))
        if not (self.run.refilled.ok and isinstance(self.run.refilled.data, dict)):
            return False
        self.created.append(opened_wallet(self.run.refilled))
        return True

    def race_for_freed_places(self) -> None:
        """Up to ROUNDS times: close every primary the run holds, then ask for BURST primaries at once
        (world.concurrency.release), of which at most the places so freed may open. Stops at a race that opened more
        (the wallet list is then read to count what the account holds), or when a close fails."""
        for _ in range(ROUNDS):
            if not self.close_its_own():
                return
            self.run.free = self.run.limit - self.run.existing
            self.run.burst = release(self.api, self._create_straight, BURST)
            self.run.races += 1
            self.created.extend(
                exchange.data["publicId"]
                for exchange in self.run.opened_at_once
                if isinstance(exchange.data, dict) and isinstance(exchange.data.get("publicId"), str)
            )
            if len(self.run.opened_at_once) > self.run.free:
                self.run.listed_after_burst = open_primaries(self.api, self.resources.not_open)
                return

    def close_its_own(self) -> bool:
        """Close every primary wallet the scenario holds open; whether all of them closed."""
        for public_id in list(self.created):
            if self.resources.close_wallet(public_id).ok:
                self.created.remove(public_id)
        return not self.created

    def _create_straight(self, _: int) -> Exchange:
        """One primary creation straight to the API: the other-run checks of `Resources.create_wallet` would skip
        from a thread, and the verdict reads the wallet list itself."""
        exchange = self.api.call("createWallet", json_body=primary_body(self.run_id))
        self.resources.track(exchange)
        return exchange

    def close_what_it_made(self) -> None:
        """Close every primary wallet the scenario still holds open; a close that fails is left to the run's sweep,
        which tries again and reports it."""
        for public_id in self.created:
            with suppress(TargetError):
                self.resources.close_wallet(public_id)


def primary_limit_run(api: ApiClient, resources: Resources, run_id: str) -> PrimaryLimitRun:
    """Fill the account's primary places, try one more, free one and take it again, free the run's places and race
    for them (ROUNDS times); close all it made. Holds the account-wide lock throughout."""
    with resources.account_wide():
        scenario = PrimaryLimit(api, resources, run_id)
        scenario.count_open_primaries()
        try:
            scenario.open_the_first()
            if scenario.fill_the_places() and scenario.try_one_more() and scenario.free_one_and_take_it_again():
                scenario.race_for_freed_places()
        finally:
            scenario.close_what_it_made()
    return scenario.run
