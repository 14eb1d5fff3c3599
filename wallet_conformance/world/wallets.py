"""The wallets the run makes on the target: created on demand, remembered, read, and closed at the end of the run.

Tests get their wallets from here; they never depend on the target's pre-existing data, except an optional funded
wallet given with --funded-wallet.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.target import Target
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.safety import Guard, NotAllowed
from wallet_conformance.world.setup_steps import SetupSteps

ENVELOPE = "SVC-03"  # every response is a JSON envelope with meta and data
# Closes in flight at once in the end-of-run sweep: a run leaves tens of wallets per process, each one round trip,
# which against a remote target would add seconds of waiting at the very end.
SWEEP_CONCURRENCY = 8


def shown_closed(entry: dict[str, Any]) -> bool:
    """Whether a listed wallet marks itself closed in a field of its own (the document shows none): deletedAt set,
    active false or status closed."""
    return entry.get("deletedAt") is not None or entry.get("active") is False or entry.get("status") == "closed"


class Wallets(SetupSteps):
    """The run's wallets in one account: those it made and holds open, those it closed, and the latest read of each."""

    def __init__(
        self,
        api: ApiClient,
        settings: Settings,
        target: Target,
        run_id: str,
        guard: Guard,
        kept: set[str] | None = None,
    ) -> None:
        super().__init__(api, settings, target, run_id, guard)
        self.kept = kept if kept is not None else set()  # wallets the sweep leaves open (--keep-failing-records)
        self.open_wallets: dict[str, dict[str, Any]] = {}
        # The wallets this process closed: a list that keeps closed wallets (not shown either way) still shows them.
        self.closed_wallets: set[str] = set()
        self.closed_primaries: set[str] = set()  # those of them created as primary wallets
        # Whether the wallet list shows a wallet this process closed with nothing marking it closed: then any listed
        # wallet may be closed for all the list says (STA-10). None: not told yet.
        self.closed_listed: bool | None = None
        self.read_closed: set[str] = set()  # listed wallets the run did not make whose read answered no open wallet
        self._others_at_first_look: frozenset[str] | None = None  # another run's primaries first listed
        self._reads: dict[str, Exchange] = {}  # the latest read of each wallet (`last_read`)

    def track(self, exchange: Exchange, creation: bool = False) -> None:
        """Remember a wallet a create call made (or a request that is no create call, when a broken server may have
        taken it for one: `creation`), so the end-of-run sweep closes it."""
        data = exchange.data
        if exchange.ok and isinstance(data, dict) and isinstance(data.get("publicId"), str):
            if exchange.operation_id == "createWallet" or creation:
                self.open_wallets[data["publicId"]] = data
            elif exchange.operation_id == "closeWallet":
                made = self.open_wallets.pop(data["publicId"], None) or {}
                self.closed_wallets.add(data["publicId"])
                if made.get("category") == "primary":
                    self.closed_primaries.add(data["publicId"])

    def create_wallet(self, body: dict[str, Any]) -> Exchange:
        primary = isinstance(body, dict) and body.get("category") == "primary"
        if primary:
            self.skip_if_another_run_holds_primaries()
        exchange = self.api.call("createWallet", json_body=body)
        self.track(exchange)
        if primary and 400 <= exchange.status < 500:
            self.skip_if_another_run_holds_primaries()
        return exchange

    def skip_if_another_run_holds_primaries(self) -> None:
        """While another run of the suite holds primary places (two CI jobs on one account), what a primary
        wallet creation gets proves nothing about the limit: the test skips with that reason, never fails.
        Checked before each primary creation, after a refused one, and when the account is found full.

        A primary that may be closed holds no place: one marked closed, closed by this process or read as no open
        wallet. Where the list shows closed wallets as it shows open ones (`lists_closed_wallets`), an earlier run's
        closed primaries look like another run's open ones: those listed at this process's first look may be
        closed, and only another run's primaries listed since (another run at work) are taken to hold places."""
        # Large pages under the paging the target honours: this runs before every primary creation.
        listed = lists.walk(self.api, "listWallets", lists.discover(self.api, "listWallets"), lists.LARGE_PAGE)
        others = self._other_runs_primaries(listed)
        if others and self.lists_closed_wallets(listed):
            if self._others_at_first_look is None:
                self._others_at_first_look = frozenset(others)
            others = {key: name for key, name in others.items() if key not in self._others_at_first_look}
        if others:
            raise CannotJudge(
                f"another run of the suite holds {len(others)} of the account's primary wallet places "
                f"({', '.join(sorted(others.values())[:3])}): the primary-wallet limit cannot be tested while it "
                "runs; run again when it is done"
            )

    def _other_runs_primaries(self, listed: lists.Listing) -> dict[str, str]:
        """The primaries another run of the suite made that the list shows and that may be open, by publicId."""
        return {
            entry["publicId"]: str(entry.get("accountName"))
            for entry in listed.entries
            if isinstance(entry, dict)
            and isinstance(entry.get("publicId"), str)
            and entry.get("category") == "primary"
            and bodies.is_test_record(entry.get("accountName"))
            and not bodies.same_run(entry.get("accountName"), self.run_id)
            and not shown_closed(entry)
            and entry["publicId"] not in self.not_open
        }

    @property
    def not_open(self) -> set[str]:
        """The wallets known not to be open: closed by this process, or read as no open wallet."""
        return self.closed_wallets | self.read_closed

    def lists_closed_wallets(self, listed: lists.Listing) -> bool:
        """Whether the wallet list shows closed wallets as it shows open ones, with nothing marking them closed
        (whether it keeps them, and how one shows, is not shown: STA-10): then a wallet it lists may be closed.
        Told by the wallets this process closed: one listed unmarked says yes, for good; a whole list without
        them, or marking them, says no. Untold (this process closed none), it closes a new secondary wallet (no
        limit holds it) and reads the list again; untold still, no."""
        if self.closed_listed is None:
            self.closed_listed = self._closed_listed(listed)
        if self.closed_listed is None and not self.closed_wallets and self.settings.writes_allowed:
            made = self.api.call("createWallet", json_body=bodies.wallet(self.run_id))
            self.track(made)
            public_id = made.data.get("publicId") if made.ok and isinstance(made.data, dict) else None
            if isinstance(public_id, str):
                self.close_wallet(public_id)
            again = lists.walk(self.api, "listWallets", lists.discover(self.api, "listWallets"), lists.LARGE_PAGE)
            self.closed_listed = self._closed_listed(again)
        return bool(self.closed_listed)

    def _closed_listed(self, listed: lists.Listing) -> bool | None:
        """What one walk of the wallet list tells of `lists_closed_wallets` (None: nothing)."""
        shown = {
            entry["publicId"]: entry
            for entry in listed.entries
            if isinstance(entry, dict) and isinstance(entry.get("publicId"), str)
        }
        mine = [shown[public_id] for public_id in self.closed_wallets if public_id in shown]
        if any(not shown_closed(entry) for entry in mine):
            return True
        return False if self.closed_wallets and (mine or listed.complete) else None

    def read_as_closed(self, public_ids: set[str]) -> set[str]:
        """Of listed wallets the run did not make, those a read answers with a 4xx (an open wallet of the account
        reads 200), SWEEP_CONCURRENCY at a time; remembered in `read_closed`. A read that answers 200 tells
        nothing: a closed wallet may read so too (not shown)."""

        def closed(public_id: str) -> bool:
            return 400 <= self.api.call("getWallet", {"walletId": public_id}).status < 500

        ordered = sorted(public_ids - self.read_closed)
        with ThreadPoolExecutor(max_workers=SWEEP_CONCURRENCY, thread_name_prefix="read") as pool:
            found = {public_id for public_id, gone in zip(ordered, pool.map(closed, ordered), strict=True) if gone}
        self.read_closed |= found
        return public_ids & self.read_closed

    def wallet(self, category: str = "secondary", **overrides: Any) -> dict[str, Any]:
        """A new open wallet (secondary by default: those have no limit, so tests never compete for them)."""
        exchange = self.create_wallet(bodies.wallet(self.run_id, category, **overrides))
        return self.require(exchange, "create a wallet")

    def close_wallet(self, public_id: str) -> Exchange:
        exchange = self.api.call("closeWallet", {"walletId": public_id})
        self.track(exchange)
        return exchange

    def read_wallet(self, public_id: str) -> dict[str, Any]:
        return self.require(self._read(public_id), "read a wallet")

    def _read(self, public_id: str) -> Exchange:
        exchange = self._reads[public_id] = self.api.call("getWallet", {"walletId": public_id})
        return exchange

    def last_read(self, public_id: str) -> Exchange | None:
        """The latest read of a wallet: the exchange that shows the balance a check compares, as its evidence."""
        return self._reads.get(public_id)

    def balance(self, public_id: str) -> int:
        """A wallet's balance, the one way the suite reads one: an integer of kobo from a read that shows that very
        wallet. Anything else stops the test on a setup error naming the requirement the read broke: a body without
        data (SVC-03) or with data no object (SVC-19), another wallet than the one asked (END-16), a balance that is
        no integer (SVC-21: money cannot be followed in anything else)."""
        exchange = self._read(public_id)
        read = self.require(exchange, "read a wallet")
        if not isinstance(read, dict):
            body = exchange.json if exchange.is_json else None
            enveloped = isinstance(body, dict) and "data" in body
            raise TargetError(
                f"wallet {public_id} reads with no wallet object to take a balance from",
                exchange,
                requirement=contract.SINGLE_RECORD if enveloped else ENVELOPE,
            )
        shown = read.get("publicId")
        if isinstance(shown, str) and shown != public_id:
            raise TargetError(
                f"a read of wallet {public_id} shows wallet {shown}: its balance is not that wallet's",
                exchange,
                requirement=contract.acceptance_requirement("getWallet"),
            )
        balance = read.get("balance")
        if type(balance) is not int:
            raise TargetError(
                f"wallet {public_id} reads with balance {balance!r}, not an integer: cannot compare money",
                exchange,
                requirement=contract.MONEY_INTEGERS,
            )
        return balance

    def sweep(self) -> list[str]:
        """Close every wallet the run still holds but those it keeps (--keep-failing-records), SWEEP_CONCURRENCY at a
        time; keeps going past errors and says what stayed open."""
        self.api.forget_server_errors()

        def close(public_id: str) -> str | None:
            try:
                exchange = self.close_wallet(public_id)
            except (TargetError, NotAllowed) as error:
                return f"{public_id}: {error}"
            if not exchange.ok:
                self.open_wallets.pop(public_id, None)
                return f"{public_id}: close answered {exchange.status}"
            return None

        with ThreadPoolExecutor(max_workers=SWEEP_CONCURRENCY, thread_name_prefix="sweep") as pool:
            return [
                problem
                for problem in pool.map(close, [wallet for wallet in self.open_wallets if wallet not in self.kept])
                if problem
            ]

    def wallet_to_read(self) -> dict[str, Any]:
        """An open wallet of the account for a probe that only reads it: one this process made and holds open, else
        (a run that may not write) one the wallet list shows, else a new one."""
        if self.open_wallets:
            return next(iter(self.open_wallets.values()))
        if self.settings.writes_allowed:
            return self.wallet()
        listed = self.require(self.api.call("listWallets"), "list wallets")
        entries = listed if isinstance(listed, list) else []
        found = next(
            (entry for entry in entries if isinstance(entry, dict) and isinstance(entry.get("publicId"), str)), None
        )
        if found is None:
            raise CannotJudge(
                "the wallet list shows no wallet to probe, and the run may not create one (production "
                "without --allow-writes)"
            )
        return found
