"""Which account is the run's key's own: the `account` its wallets name, and that account as GET /accounts lists
it."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.api import TargetError
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import lists
from wallet_conformance.world.wallets import Wallets


def is_account(account: Any, owner: str) -> bool:
    """Whether a listed account is the one with record id `owner` (its `_id`, or its `id`, which equals it)."""
    return isinstance(account, dict) and owner in (account.get("_id"), account.get("id"))


def own_account_among(accounts: Any, owner: str) -> dict[str, Any]:
    """The account of the run's key among `accounts` (entries of GET /accounts): the one whose `_id` or `id` is
    `owner`, the `account` the key's wallets name (`OwnAccount.own_account_id`). Never a list's first entry nor the
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


class OwnAccount(Wallets):
    """The run's wallets, with the account they belong to, found once per process."""

    _owner: str | None = None  # the record id of the key's account (own_account_id)

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
        return own_account_among(listing.entries, owner)
