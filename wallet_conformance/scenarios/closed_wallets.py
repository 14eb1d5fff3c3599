"""Closed wallets: closing one as a setup step, closing one that still holds money, how a closed wallet shows
afterwards (read, listed, closed again), which the document does not show, and the wallet list read whole after a
close."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import lists
from wallet_conformance.world.resources import Resources

# Fields a listed closed wallet may show its state in (none is documented).
STATE_FIELDS = ("status", "active", "closedAt", "deletedAt")


def closed(resources: Resources, public_id: str) -> Exchange:
    """Closes a wallet as a setup step (a refusal fails the close operation's acceptance requirement)."""
    exchange = resources.close_wallet(public_id)
    resources.require(exchange, f"close the wallet {public_id}")
    return exchange


def closed_holding(resources: Resources, public_id: str, held: int) -> Exchange:
    """Closes a wallet that holds `held` kobo. Whether a wallet that holds money may be closed is not shown: a
    refusal (4xx) leaves nothing to judge about what a closed wallet sends."""
    closing = resources.close_wallet(public_id)
    if 400 <= closing.status < 500:
        raise CannotJudge(
            f"the target refused to close a wallet holding {held} kobo ({closing.status}): whether a "
            "wallet that holds money may be closed is not shown, so what a closed wallet sends is not "
            "judged here (closing an empty wallet is END-18)"
        )
    resources.require(closing, f"close the wallet {public_id}")
    return closing


@dataclass(frozen=True)
class ClosedAfterwards:
    """A closed wallet read again, its entry on the first page of the wallet list (None when not there), and a
    second close."""

    read: Exchange
    listed: dict[str, Any] | None
    again: Exchange

    def listed_state(self) -> dict[str, Any] | None:
        """What the listed entry shows of the wallet's state, when it is listed."""
        if self.listed is None:
            return None
        return {name: self.listed.get(name) for name in STATE_FIELDS if name in self.listed}


def closed_then_revisited(api: ApiClient, resources: Resources, public_id: str) -> ClosedAfterwards:
    """Closes a wallet, then reads it, lists the wallets (first page) and closes it again."""
    closed(resources, public_id)
    read = api.call("getWallet", {"walletId": public_id})
    listed = api.call("listWallets")
    entries = listed.data if isinstance(listed.data, list) else []
    entry = next((entry for entry in entries if isinstance(entry, dict) and entry.get("publicId") == public_id), None)
    again = api.call("closeWallet", {"walletId": public_id})
    return ClosedAfterwards(read, entry, again)


@dataclass(frozen=True)
class ListedAfterClose:
    """A wallet just closed, and the whole wallet list read after its close (None: the list kept changing)."""

    public_id: str
    walk: lists.Listing | None

    @property
    def listed(self) -> bool:
        """Whether the list read shows the closed wallet (what it does with one is not shown)."""
        return self.walk is not None and self.public_id in self.walk.ids


def wallet_list_after_a_close(api: ApiClient, resources: Resources, attempts: int) -> ListedAfterClose:
    """Closes a new wallet, then reads the wallet list to its end: in large pages under the paging the target honours
    (page 1 alone when it honours none), the run's workers holding the list still, read again while two reads differ
    and neither holds totalCount entries (lists.judgeable: other clients may be adding wallets)."""
    public_id = resources.wallet()["publicId"]
    closed(resources, public_id)
    scheme = lists.discover(api, "listWallets")
    size = lists.fitting(api.call("listWallets"), lists.LARGE_PAGE) if scheme is not None and scheme.size else None
    walks: list[lists.Listing] = []

    def read() -> list[Exchange]:
        walks.append(lists.walk(api, "listWallets", scheme, size))
        return walks[-1].exchanges

    def clean(_: list[Exchange]) -> bool:
        return walks[-1].ended and len(walks[-1].entries) == walks[-1].total

    with resources.wallet_list_still():
        judged = lists.judgeable(read, attempts, clean)
    return ListedAfterClose(public_id, None if judged is None else walks[-1])
