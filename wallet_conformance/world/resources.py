"""What the tests create on the target, in one account: made on demand, remembered, and closed at the end of the run.

`Resources` is the run's records in the account of one key, made of one part per idea, each in its own module:
the setup steps they share (setup_steps), the wallets (wallets), the money put into them (funding), the banks and
the external account (bank_accounts), the key's own account (own_account); and the locks on what the run's processes
share of the account (locks). Tests get wallets, money and settled transfers from here; they never depend on the
target's pre-existing data, except an optional funded wallet given with --funded-wallet.
"""

from __future__ import annotations

import http.client
import json
import urllib.request
from contextlib import AbstractContextManager

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.target import Target
from wallet_conformance.settings import Settings
from wallet_conformance.world.bank_accounts import BankAccounts
from wallet_conformance.world.funding import WalletFunding
from wallet_conformance.world.locks import AccountWideLock, WalletList
from wallet_conformance.world.own_account import OwnAccount
from wallet_conformance.world.safety import Guard

# The bundled reference's sandbox on loopback, reached directly whatever proxy the environment names.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Resources(WalletFunding, OwnAccount, BankAccounts):
    """The run's records on the target, in the account of one key."""

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
        self._account_wide = AccountWideLock(settings.work_dir)

    def account_wide(self) -> AbstractContextManager[None]:
        """Hold the run's one lock on what the account shares (AccountWideLock.held): xdist workers take turns."""
        return self._account_wide.held()

    def wallet_list_still(self) -> AbstractContextManager[None]:
        """Hold the account's wallet list still while a test reads its pages (WalletList.still)."""
        return self.wallet_list.still()

    def nothing_due(self) -> bool:
        """Whether the target says it has no change left to make after its answers (the bundled reference's GET
        /sandbox/due, Target.due_url): no balance moves until another request. False where it cannot say
        (a deployed target has no such address) or did not. Asked outside the run's client: it is the bundled
        reference's instrument, not a request of a test, and no exchange, replay or HAR shows it."""
        if not self.target.due_url:
            return False
        try:
            with _DIRECT.open(self.target.due_url, timeout=self.settings.request_timeout) as answer:
                body = json.load(answer)
        # URLError and HTTPError are OSErrors; HTTPException: a broken answer; ValueError: not JSON
        except (OSError, http.client.HTTPException, ValueError):
            return False
        data = body.get("data") if isinstance(body, dict) else None
        return isinstance(data, dict) and data.get("due") == 0

    def verify(self, reference: str) -> Exchange:
        """Verify the transaction `reference` names (verifyTransaction), without judging the answer."""
        return self.api.call("verifyTransaction", {"reference": reference})
