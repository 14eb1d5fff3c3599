"""Money put into the run's wallets: a funding through the funding hook (--funding-url) or from --funded-wallet,
what it did (`Funding`), and the inbound payments the hook makes into a wallet or a collection account."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import bodies
from wallet_conformance.world.polling import poll
from wallet_conformance.world.wallets import Wallets

FUNDING_REQUIREMENT = "SVC-24"  # an inbound payment raises the balance by its amount (less its fee)


@dataclass(frozen=True)
class Funding:
    """What one funding of a wallet did (`WalletFunding.send_funding`): the payment sent (through --funding-url, or a
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


class WalletFunding(Wallets):
    """The run's wallets, with the money put into them."""

    @property
    def can_fund(self) -> bool:
        """Whether the run has a way to put money into a wallet: the funding hook, or the funded wallet."""
        return bool(self.target.funding_url or self.settings.funded_wallet)

    def skip_without_inbound_payments(self) -> None:
        """Skip a test about inbound payments when the run cannot make one: only the funding hook (--funding-url)
        pays into a wallet from outside; --funded-wallet funds by wallet-to-wallet transfers."""
        if not self.target.funding_url:
            raise CannotJudge("the run has no way to make an inbound payment (give --funding-url)")

    def send_funding(self, public_id: str, amount: int, before: int | None = None) -> Funding:
        """Put `amount` kobo into a wallet through the funding hook or from the funded wallet, wait for its balance
        to rise, and say what the funding did without judging it (`fund` is the setup step that requires it).

        Whether an inbound payment costs a fee is not shown, so the wait ends at the first rise: a fee or levy may
        still post after it, and a test that compares a later balance with this one first waits for it to hold still
        (`money.balance_or_last` with `still`). A payment the target did not take is not waited for. A balance
        that does not rise within --settle-timeout is remembered: later fundings stop at once with that evidence.
        `before` is the balance the wallet is known to hold (a wallet just created); else it is read first.
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
        """A new open wallet holding `amount` kobo, or less by the fee of its funding (`fund`)."""
        wallet = self.wallet()
        # A wallet whose creation showed a balance of 0 needs no read before funding: one round trip fewer.
        self.fund(wallet["publicId"], amount, before=0 if wallet.get("balance") == 0 else None)
        return wallet
