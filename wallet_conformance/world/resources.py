"""What the tests create on the target: made on demand, remembered, and closed at the end of the run.

Tests get wallets, money and settled transfers from here; they never depend on the target's
pre-existing data, except an optional funded wallet given with --funded-wallet.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.target import Target
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.settings import Settings
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.bank_accounts import BankAccounts
from wallet_conformance.world.locks import AccountWideLock, WalletList
from wallet_conformance.world.polling import poll
from wallet_conformance.world.safety import Guard
from wallet_conformance.world.wallets import Wallets

FUNDING_REQUIREMENT = "SVC-24"  # an inbound payment raises the balance by its amount (less its fee)


def is_account(account: Any, owner: str) -> bool:
    """Whether a listed account is the one with record id `owner` (its `_id`, or its `id`, which equals it)."""
    return isinstance(account, dict) and owner in (account.get("_id"), account.get("id"))


def own_account(accounts: Any, owner: str) -> dict[str, Any]:
    """The account of the run's key among `accounts` (entries of GET /accounts): the one whose `_id` or `id` is
    `owner`, the `account` the key's wallets name (`Resources.own_account_id`). Never a list's first entry nor the
    default one: the key may be another account's than the business's default."""
    if not isinstance(accounts, list) or not accounts or not all(isinstance(a, dict) for a in accounts):
        raise TargetError("GET /accounts listed no account to work with")
    found = next((account for account in accounts if is_account(account, owner)), None)
    if found is None:
        raise TargetError(
            f"none of the {len(accounts)} accounts GET /accounts lists has _id or id {owner!r}, the "
            "account the key's wallets name: which listed account is the key's own cannot be told"
        )
    return found


@dataclass(frozen=True)
class Funding:
    """What one funding of a wallet did (`Resources.send_funding`): the payment sent (through --funding-url, or a
    transfer from --funded-wallet), the balance before it, and the balance `after` when the wait for it ended (at
    its first rise when `credited`; as it stayed when it did not rise within --settle-timeout, or when the payment
    was not taken). `note` says why a funding that was not credited was not."""

    public_id: str
    amount: int
    payment: Exchange
    before: int
    after: int
    credited: bool
    note: str = ""

    @property
    def taken(self) -> bool:
        """Whether the target took the payment (a 2xx)."""
        return self.payment.ok

    @property
    def rise(self) -> int:
        """What the balance rose by."""
        return self.after - self.before


class Resources(Wallets, BankAccounts):
    """The run's records on the target."""

    def __init__(
        self,
        api: ApiClient,
        settings: Settings,
        target: Target,
        run_id: str,
        guard: Guard,
        wallet_list: WalletList | None = None,
        kept: set[str] | None = None,
    ) -> None:
        super().__init__(api, settings, target, run_id, guard, kept)
        self.wallet_list = wallet_list or WalletList(settings.work_dir)
        self._owner: str | None = None  # the record id of the key's account (own_account_id)
        self._account_wide = AccountWideLock(settings.work_dir)

    # ------------------------------------------------------------ money

    @property
    def can_fund(self) -> bool:
        return bool(self.target.funding_url or self.settings.funded_wallet)

    def skip_without_inbound_payments(self) -> None:
        """Skip a test about inbound payments when the run cannot make one: only the funding hook (--funding-url)
        pays into a wallet from outside; --funded-wallet funds by wallet-to-wallet transfers."""
        if not self.target.funding_url:
            raise CannotJudge("the run has no way to make an inbound payment (give --funding-url)")

    def send_funding(self, public_id: str, amount: int, before: int | None = None) -> Funding:
        """Put `amount` kobo into a wallet through the funding hook or from the funded wallet, wait for its balance
        to rise, and say what the funding did without judging it (`fund` is the setup step that requires it).

        Whether an inbound payment costs a fee is not shown, so the wait ends at the first rise. A payment the
        target did not take is not waited for. A balance that does not rise within --settle-timeout is remembered:
        later fundings stop at once with that evidence. `before` is the balance the wallet is known to hold (a
        wallet just created); else it is read first.
        """
        self.guard.require_money_movement()
        if not self.can_fund:
            raise CannotJudge("no way to put money in a wallet: give --funding-url or --funded-wallet")
        if "funding-hook" in self.gave_up:
            raise CannotJudge(self.gave_up["funding-hook"])
        if "funding" in self.gave_up:
            raise TargetError(f"not waited again: {self.gave_up['funding']}")
        self.guard.spend(amount)
        if before is None:
            before = self.balance(public_id)
        if self.target.funding_url:
            exchange = self.pay_in(public_id, amount)
            if exchange.status in (404, 405, 501):  # no such hook there: a configuration mistake, not the API's
                self.gave_up["funding-hook"] = (
                    f"the funding hook answered {exchange.status}: check --funding-url "
                    f"({exchange.method} {exchange.url}); the tests that need money skip"
                )
                raise CannotJudge(self.gave_up["funding-hook"])
        else:
            assert self.settings.funded_wallet is not None  # can_fund, without a hook
            body = bodies.transfer(self.settings.funded_wallet, public_id, amount, narration=f"{self.run_id} funding")
            exchange = self.api.call("transfer", json_body=body)
        if not exchange.ok:
            return Funding(
                public_id,
                amount,
                exchange,
                before,
                before,
                credited=False,
                note=f"the payment was answered {exchange.status}",
            )
        # One read per poll: round trips are what a remote target charges for.
        risen = poll(
            lambda: [balance] if (balance := self.balance(public_id)) > before else None, self.settings.settle_timeout
        )
        if risen:
            return Funding(public_id, amount, exchange, before, risen[0], credited=True)
        after = self.balance(public_id)
        self.gave_up["funding"] = (
            f"funding {public_id} with {amount} kobo did not show in its balance within "
            f"{self.settings.settle_timeout:g} s (it stayed {after})"
        )
        return Funding(public_id, amount, exchange, before, after, credited=False, note=self.gave_up["funding"])

    def pay_in(self, public_id: str, amount: int) -> Exchange:
        """Send one inbound payment of `amount` kobo into a wallet through the funding hook, and wait for nothing: the
        caller has checked that the run has a hook and may move money, and spent the amount from the budget."""
        assert self.target.funding_url is not None  # the caller checked
        return self.api.request(
            "POST", self.target.funding_url, absolute=True, json_body={"walletId": public_id, "amount": amount}
        )

    def pay_into_collection_account(self, collection: dict[str, Any], wallet_id: str, amount: int) -> Funding:
        """Pay `amount` kobo into a collection account through the funding hook (its publicId as walletId, and its
        accountNumber, for a hook that pays account numbers) and wait for the balance of `wallet_id`, the wallet it
        collects into, to rise. The test cannot judge without a funding hook, nor where the hook does not take a
        collection account (it pays wallets only)."""
        self.skip_without_inbound_payments()
        self.guard.require_money_movement()
        self.guard.spend(amount)
        before = self.balance(wallet_id)
        assert self.target.funding_url is not None  # skip_without_inbound_payments
        payment = self.api.request(
            "POST",
            self.target.funding_url,
            absolute=True,
            json_body={
                "walletId": collection.get("publicId"),
                "accountNumber": collection.get("accountNumber"),
                "amount": amount,
            },
        )
        if not payment.ok:
            raise CannotJudge(
                f"the funding hook did not take a payment into a collection account (HTTP "
                f"{payment.status}): it pays wallets only, so what a collection account collects "
                "cannot be seen"
            )
        risen = poll(
            lambda: [balance] if (balance := self.balance(wallet_id)) > before else None, self.settings.settle_timeout
        )
        after = risen[0] if risen else self.balance(wallet_id)
        return Funding(
            wallet_id,
            amount,
            payment,
            before,
            after,
            credited=bool(risen),
            note=""
            if risen
            else f"the balance of {wallet_id} stayed {after} for {self.settings.settle_timeout:g} s (--settle-timeout)",
        )

    def require_taken(self, funding: Funding) -> Funding:
        """The funding, once the target took its payment; a payment it refused is a setup error (the run cannot
        fund wallets), naming the requirement of the transfer when the money came from --funded-wallet."""
        if not funding.taken:
            self.require(
                funding.payment,
                "fund a wallet through --funding-url"
                if self.target.funding_url
                else "fund a wallet from --funded-wallet",
                envelope=False,
            )
        return funding

    def fund(self, public_id: str, amount: int, before: int | None = None) -> int:
        """Put `amount` kobo into a wallet (`send_funding`), and return what the balance rose by: `amount`, or less
        by the fee the inbound credit records (SVC-24 judges which).

        A payment the target refuses, or one that does not show in the balance within --settle-timeout, is a setup
        error: through the funding hook the step is an inbound payment, so a balance that did not rise is SVC-24's
        failure.
        """
        funding = self.require_taken(self.send_funding(public_id, amount, before))
        if not funding.credited:
            raise TargetError(funding.note, requirement=FUNDING_REQUIREMENT if self.target.funding_url else None)
        return funding.rise

    def funded_wallet(self, amount: int) -> dict[str, Any]:
        wallet = self.wallet()
        # A wallet whose creation showed a balance of 0 needs no read before funding: one round trip fewer.
        self.fund(wallet["publicId"], amount, before=0 if wallet.get("balance") == 0 else None)
        return wallet

    def verify(self, reference: str) -> Exchange:
        return self.api.call("verifyTransaction", {"reference": reference})

    # ------------------------------------------------------------ the account

    def own_account_id(self) -> str:
        """The record id of the key's own account: the `account` that the wallets this process made name (one made
        for it when there is none), or, in a run that may not write, that the wallets the key's wallet list shows
        name; with no wallet at all, the one account GET /accounts lists, if it lists one. Found once per process."""
        if self._owner is None:
            owners = self._accounts_of_wallets() or self._only_listed_account()
            if len(owners) != 1:
                raise CannotJudge(
                    f"which account is the key's own cannot be told: the key's wallets name "
                    f"{len(owners)} accounts ({', '.join(sorted(owners)) or 'none'}) as theirs"
                )
            self._owner = owners.pop()
        return self._owner

    def _accounts_of_wallets(self) -> set[str]:
        """The `account` every wallet of the key names: those this process made, else (a run that may not write)
        those the wallet list shows."""
        wallets = list(self.open_wallets.values())
        if not wallets and self.settings.writes_allowed:
            wallets = [self.wallet()]
        if wallets and not any(isinstance(wallet.get("account"), str) for wallet in wallets):
            wallets = [self.read_wallet(wallets[0]["publicId"])]  # the create response shows no account
        if not wallets:
            listed = self.require(self.api.call("listWallets"), "list wallets")
            wallets = [wallet for wallet in listed if isinstance(wallet, dict)] if isinstance(listed, list) else []
        return {
            wallet["account"]
            for wallet in wallets
            if isinstance(wallet, dict) and isinstance(wallet.get("account"), str)
        }

    def _only_listed_account(self) -> set[str]:
        """The record id of the one account GET /accounts lists, when it lists exactly one (it can be no other's)."""
        exchange = self.api.call("listAccounts")
        listed = self.require(exchange, "list accounts")
        total = lists.pagination(exchange).get("totalCount")
        if not (isinstance(listed, list) and len(listed) == 1 and isinstance(listed[0], dict) and total in (None, 1)):
            return set()
        found = listed[0].get("_id") or listed[0].get("id")
        return {found} if isinstance(found, str) else set()

    def own_account(self) -> dict[str, Any]:
        """The key's own account (`own_account_id`), as GET /accounts lists it now (read past page 1 until found)."""
        owner = self.own_account_id()
        listing = lists.read(
            self.api, "listAccounts", until=lambda entries: any(is_account(entry, owner) for entry in entries)
        )
        self.require(listing.first, "list accounts")
        return own_account(listing.entries, owner)

    def account_wide(self) -> AbstractContextManager[None]:
        """Hold the run's one lock on what the account shares (AccountWideLock.held): xdist workers take turns."""
        return self._account_wide.held()

    def wallet_list_still(self) -> AbstractContextManager[None]:
        """Hold the account's wallet list still while a test reads its pages (WalletList.still)."""
        return self.wallet_list.still()
