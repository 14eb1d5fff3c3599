"""How money moves: inbound payments, wallet and bank transfers, their settlement and credit legs.

How money moves (read this first):

* An inbound payment (the sandbox's `fund`) is a `credit` with sourceType `External`, recorded
  `success`, and raises the wallet balance by its amount at once (less a fee under a variant).
* A wallet-to-wallet transfer costs no fee. On acceptance the source balance is checked and
  debited by actualAmount (= amount) in one step, and a `debit` is recorded `pending`. Settlement
  (after the server's settle delay, or the sandbox's `settle`) marks it `success`, credits the
  destination by amount and records the destination's `credit` leg.
* A bank transfer costs a fee from `BANK_TRANSFER_FEES`. On acceptance the source is checked and
  debited by actualAmount (= amount + fee) in one step; the `debit` is recorded `pending`.
  Settlement marks it `success`; the money has left the service, so there is no credit leg.
* A refused transfer changes nothing. The ledger's methods never await, so when the server's event
  loop runs one of them, the check and the debit cannot interleave with another request.

Variants (variants.py) read other points the document leaves open: a fee on wallet transfers, no fee
on bank transfers, the debit at settlement (the amount held until then: what can be spent is the
balance less what is held), the credit at acceptance, an overdraft accepted `pending` that fails at
settlement moving nothing, another final status word, and references numbered per account (two
accounts' transactions may share one). Under every one of them no balance goes below zero and money
is conserved once transfers have settled.
"""

from __future__ import annotations

from collections.abc import Iterator
from http import HTTPStatus
from itertools import count
from typing import TYPE_CHECKING

from wallet_conformance.reference.banks import holder_name
from wallet_conformance.reference.errors import Refusal
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reference.records import (
    PENDING,
    SANDBOX_SENDER_ACCOUNT_NUMBER,
    SANDBOX_SENDER_BANK_CODE,
    SUCCESS,
    Account,
    BankAccount,
    Credential,
    ExternalSource,
    Transaction,
    Wallet,
    now,
)
from wallet_conformance.reference.variants import Variant

if TYPE_CHECKING:
    from wallet_conformance.reference.banks import Bank
    from wallet_conformance.reference.store import Store

# The fee of a bank transfer, by amount (kobo): the first row whose ceiling holds the amount.
BANK_TRANSFER_FEES: tuple[tuple[int | None, int], ...] = (
    (500_000, 1_075),  # up to 5,000 naira: 10.75 naira
    (5_000_000, 2_688),  # up to 50,000 naira: 26.88 naira
    (None, 5_375),  # above: 53.75 naira
)
# Above this amount a bank transfer is in the top fee tier: the ceiling of the last bounded row.
TOP_FEE_TIER_FLOOR = max(ceiling for ceiling, _ in BANK_TRANSFER_FEES if ceiling is not None)
# The flat fee of a bank transfer under the variant that charges more than the minimum transfer (150 naira).
FLAT_BANK_TRANSFER_FEE = 15_000
# Under the variants that charge inbound payments: the fee (or the levy) is the paid amount divided by this (1%).
INBOUND_FEE_DIVISOR = 100
LEVY_NARRATION = "Electronic money transfer levy"
# Under the variant whose payouts fail above a limit: the largest bank transfer (kobo) that completes.
PAYOUT_LIMIT = 30_000
# Seconds after a transfer's status changes that its settlement shows in the balances, under the variant.
POSTING_DELAY = 0.3
# The fee of a wallet-to-wallet transfer under the variant that charges one (10 naira).
WALLET_TRANSFER_FEE = 1_000
# The status of a transfer that could not be covered (a variant), and the settled one's other word.
FAILED = "failed"
SUCCESSFUL = "successful"


# Above this amount (kobo), the hidden-fee fault debits a wallet transfer 1% more than it reports.
HIDDEN_FEE_TIER = 100_000


def bank_transfer_fee(amount: int) -> int:
    for ceiling, fee in BANK_TRANSFER_FEES:
        if ceiling is None or amount <= ceiling:
            return fee
    raise AssertionError("the fee table ends with an open row")


class Ledger:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.faults = store.faults
        self.variants = store.variants
        self._source_numbers = count(1)
        self._transaction_numbers = count(1)
        # Under a variant: each account's own count of the references its transactions carry.
        self._reference_numbers: dict[str, Iterator[int]] = {}
        # Under a fault: each accepted wallet transfer's destination balance as it was at acceptance.
        self._balances_seen: dict[str, int] = {}

    # -- balances

    def _move(self, wallet: Wallet, kobo: int, *, settling: bool = False) -> None:
        if settling and self.variants.on(Variant.BALANCES_POSTED_LATER):
            self.store.later(POSTING_DELAY, self._move, wallet, kobo)
            return
        wallet.balance += kobo
        if self.faults.on(Fault.BALANCE_WRAPS_AT_32_BITS):
            wallet.balance = (wallet.balance + 2**31) % 2**32 - 2**31  # as a signed 32-bit integer holds it
        wallet.last_updated = now()

    def held(self, wallet: Wallet) -> int:
        """What accepted transfers hold of the wallet's balance until they settle (the debit-at-settlement variant)."""
        return sum(t.actual_amount for t in self.store.transactions if t.held and t.source is wallet)

    def covers(self, wallet: Wallet, kobo: int) -> bool:
        slack = 1 if self.faults.on(Fault.OVERDRAFT_BY_ONE_KOBO) else 0
        return wallet.balance - self.held(wallet) + slack >= kobo

    def require_funds(self, wallet: Wallet, kobo: int) -> None:
        if self.covers(wallet, kobo):
            return
        refusal = Refusal.INSUFFICIENT_BALANCE.error(wallet=wallet.public_id)
        if self.variants.on(Variant.INSUFFICIENT_BALANCE_402):
            refusal.status = HTTPStatus.PAYMENT_REQUIRED
        raise refusal

    def pending_transfers(self) -> list[Transaction]:
        return [t for t in self.store.transactions if t.entry == "debit" and t.status == PENDING]

    # -- records

    def _next_transaction_number(self) -> int:
        return next(self._transaction_numbers)

    def _reference(self, prefix: str, number: int, account: Account) -> str:
        """The reference of a new transaction of `account`: `prefix`, a dash and its transaction number (unique in
        the service), or under a variant the account's own count (unique within the account only)."""
        if self.variants.on(Variant.REFERENCES_PER_ACCOUNT):
            number = next(self._reference_numbers.setdefault(account.id, count(1)))
        return f"{prefix}-{number:010d}"

    def _record(self, number: int, **fields) -> Transaction:
        transaction = self._new(number, **fields)
        self.store.transactions.append(transaction)
        return transaction

    def _session_id(self, bank: Bank, moment, number: int) -> str:
        """A NIBSS-style 30-digit session id: the bank's NIBSS code, the time, a sequence number."""
        return f"{bank.nibss_code}{moment:%y%m%d%H%M%S}{number:012d}"

    def _tell(self, event: str, transaction: Transaction) -> None:
        for listener in self.store.listeners:
            listener(event, transaction)

    # -- transfers

    def _accept(
        self, transaction: Transaction, *, check_funds: bool, debited: int, doomed: bool = False
    ) -> Transaction:
        """Moves the money of an accepted transfer: the source now (or at settlement), and nothing if it is doomed
        (it fails at settlement)."""
        assert isinstance(transaction.source, Wallet)  # a transfer's source: only an inbound payment's is external
        covered = self.covers(transaction.source, transaction.actual_amount)
        if check_funds and not covered and not doomed:
            if not self.variants.on(Variant.OVERDRAFT_FAILS_LATER):
                self.require_funds(transaction.source, transaction.actual_amount)
            doomed = True
        if doomed:
            transaction.doomed = True
        elif isinstance(transaction.destination, Wallet) and self.variants.on(Variant.CREDIT_AT_ACCEPTANCE):
            # Money moves on both sides at once; settlement only changes the status.
            self._move(transaction.source, -debited)
            self._credit(transaction, transaction.destination)
        elif self.variants.on(Variant.DEBIT_AT_SETTLEMENT):
            transaction.held = True
        else:
            self._move(transaction.source, -debited)
        transaction.balance = transaction.source.balance
        self.store.transactions.append(transaction)
        if self.variants.on(Variant.WEBHOOK_ON_ACCEPTANCE):
            self._tell("transfer.created", transaction)
        return transaction

    def transfer(
        self,
        caller: Credential,
        *,
        source: Wallet,
        destination: Wallet,
        amount: int,
        narration: str,
        check_funds: bool = True,
        doomed: bool = False,
    ) -> Transaction:
        """Accepts a wallet-to-wallet transfer: debits the source now, credits the destination at settlement
        (`doomed`: moves nothing and fails at settlement)."""
        if source is destination:
            raise Refusal.SAME_WALLET.error()
        fee = WALLET_TRANSFER_FEE if self.variants.on(Variant.WALLET_TRANSFER_FEE) else 0
        transaction = self._outbound(
            caller, source, destination, amount=amount, fee=fee, narration=narration, bank=source.bank
        )
        hidden = amount // 100 if self.faults.on(Fault.HIDDEN_FEE_ABOVE_TIER) and amount > HIDDEN_FEE_TIER else 0
        if self.faults.on(Fault.CREDIT_FROM_BALANCE_AT_ACCEPTANCE):
            self._balances_seen[transaction.public_id] = destination.balance
        return self._accept(transaction, check_funds=check_funds, debited=amount + fee + hidden, doomed=doomed)

    def bank_transfer(
        self, caller: Credential, *, source: Wallet, beneficiary: BankAccount, amount: int, narration: str
    ) -> Transaction:
        """Accepts a payout to an external account: debits amount + fee now; settlement completes it."""
        fee = 0 if self.variants.on(Variant.BANK_TRANSFER_FREE) else bank_transfer_fee(amount)
        if self.variants.on(Variant.BANK_TRANSFER_FEE_ABOVE_MINIMUM):
            fee = FLAT_BANK_TRANSFER_FEE
        if self.faults.on(Fault.BANK_TRANSFER_NEGATIVE_FEE):
            fee = -fee
        debited = amount if self.faults.on(Fault.BANK_TRANSFER_FEE_NOT_DEBITED) else amount + fee
        transaction = self._outbound(
            caller,
            source,
            beneficiary,
            amount=amount,
            fee=fee,
            narration=narration,
            bank=beneficiary.bank,
            to_bank=True,
        )
        return self._accept(transaction, check_funds=True, debited=debited)

    def _outbound(
        self,
        caller: Credential,
        source: Wallet,
        destination: Wallet | BankAccount,
        *,
        amount: int,
        fee: int,
        narration: str,
        bank: Bank,
        to_bank: bool = False,
    ) -> Transaction:
        """A pending transfer out of `source`, not yet recorded: to a wallet (`wt-` references), or `to_bank`, an
        external account (`bt-`), where the money leaves the service for a third party's bank."""
        number = self._next_transaction_number()
        moment = now()
        bank_fields = {"name_enquiry_ref": f"ne-{number:010d}"} if to_bank else {}
        reference = self._reference("bt" if to_bank else "wt", number, source.account)
        if self.faults.on(Fault.TRANSFER_REFERENCE_REPEATS):
            earlier = [t for t in self.store.transactions if t.source is source and t.entry == "debit"]
            if len(earlier) % 3 == 2:
                reference = earlier[-1].reference
        return self._new(
            number,
            auth=caller.id,
            account=source.account,
            live=source.live,
            entry="debit",
            source=source,
            destination=destination,
            amount=amount,
            fee=fee,
            fee_reference=f"{self.store.prefixes.fee}{number:010d}" if fee else None,
            balance=source.balance,
            narration=narration,
            reference=reference,
            debit_reference=None,
            link_ref=f"lnk-{number:010d}",
            session_id=self._session_id(bank, moment, number),
            status=PENDING,
            is_third_party=to_bank,
            **bank_fields,
        )

    def _new(self, number: int, **fields) -> Transaction:
        """A transaction not yet recorded (`_accept` records it once its money has moved)."""
        created = now()
        return Transaction(
            id=self.store.object_id(),
            number=number,
            public_id=f"{self.store.prefixes.transaction}{number:010d}",
            t_ref=f"t{number:012d}",
            created_at=created,
            updated_at=created,
            **fields,
        )

    def settle(self, transaction: Transaction) -> None:
        """Completes a pending transfer (a no-op when it is no longer pending)."""
        if transaction.status != PENDING:
            return
        transaction.updated_at = now()
        if transaction.doomed:
            transaction.status = FAILED
            self._tell("transfer.failed", transaction)
            return
        keeps_fee = self.variants.on(Variant.FAILED_PAYOUT_KEEPS_FEE)
        if (
            isinstance(transaction.destination, BankAccount)
            and transaction.amount > PAYOUT_LIMIT
            and (self.variants.on(Variant.PAYOUTS_ABOVE_LIMIT_FAIL) or keeps_fee)
        ):
            transaction.status = FAILED  # the beneficiary's bank refused it: the debit comes back (or all but the fee)
            kept = transaction.fee if keeps_fee else 0
            assert isinstance(transaction.source, Wallet)  # a payout: a transfer, from a wallet
            if transaction.held:
                transaction.held = False
                if kept:
                    self._move(transaction.source, -kept)
            else:
                self._move(transaction.source, transaction.actual_amount - kept)
            self._tell("transfer.failed", transaction)
            return
        transaction.status = SUCCESSFUL if self.variants.on(Variant.SETTLED_STATUS_SUCCESSFUL) else SUCCESS
        if transaction.held:
            transaction.held = False
            assert isinstance(transaction.source, Wallet)  # only `_accept` holds: a transfer, from a wallet
            self._move(transaction.source, -transaction.actual_amount, settling=True)
        destination = transaction.destination
        if isinstance(destination, Wallet) and not transaction.credited:
            self._credit(transaction, destination, settling=True)
        self._tell("transfer.settled", transaction)

    def _credit(self, debit: Transaction, destination: Wallet, *, settling: bool = False) -> None:
        """Credits the destination wallet by the amount and records its credit leg."""
        credited = debit.amount * 2 if self.faults.on(Fault.SETTLEMENT_CREDITS_TWICE) else debit.amount
        seen = self._balances_seen.pop(debit.public_id, None)
        if settling and seen is not None:
            self.write_balance(destination, seen + credited)  # a balance read at acceptance, written back now
        else:
            self._move(destination, credited, settling=settling)
        debit.credited = True
        if self.variants.on(Variant.NO_CREDIT_LEG):
            return
        number = self._next_transaction_number()
        debit.credit = self._record(
            number,
            auth=destination.auth,
            account=destination.account,
            live=destination.live,
            entry="credit",
            source=debit.source,
            destination=destination,
            amount=debit.amount,
            fee=0,
            fee_reference=None,
            balance=destination.balance,
            narration=debit.narration,
            reference=self._reference("cr", number, destination.account),
            debit_reference=debit.reference,
            link_ref=debit.link_ref,
            session_id=debit.session_id,
            status=SUCCESS,
            is_third_party=False,
        )
        self._tell("transaction.credit", debit.credit)

    # -- inbound payments

    def fund(self, wallet: Wallet, amount: int, narration: str) -> Transaction:
        """An external payment into a wallet (sandbox): recorded `success`, credited at once."""
        sender_bank = self.store.bank(SANDBOX_SENDER_BANK_CODE)
        assert sender_bank is not None, "the sandbox sender's bank is in data/banks.json"
        number = self._next_transaction_number()
        moment = now()
        source_number = next(self._source_numbers)
        session_id = self._session_id(sender_bank, moment, number)
        source = ExternalSource(
            number=source_number,
            public_id=f"{self.store.prefixes.external_source}{source_number:08d}",
            bank=sender_bank,
            account_name=holder_name(SANDBOX_SENDER_ACCOUNT_NUMBER) or "",
            account_number=SANDBOX_SENDER_ACCOUNT_NUMBER,
            reference=self._reference("in", number, wallet.account),
            session_id=session_id,
            live=wallet.live,
            created_at=moment,
        )
        fee_taken_out = self.variants.on(Variant.INBOUND_PAYMENT_FEE_NET)
        charged = fee_taken_out or self.variants.on(Variant.INBOUND_PAYMENT_FEE)
        fee = amount // INBOUND_FEE_DIVISOR if charged else 0
        credited = amount - fee
        balance = wallet.balance
        if not self.faults.on(Fault.FUNDING_NOT_CREDITED):
            short = amount // INBOUND_FEE_DIVISOR if self.faults.on(Fault.FUNDING_CREDITED_SHORT) else 0
            balance = self._pay_in(wallet, credited - short)
        credit = self._record(
            number,
            auth=wallet.auth,
            account=wallet.account,
            live=wallet.live,
            entry="credit",
            source=source,
            destination=wallet,
            amount=amount if fee_taken_out else credited,
            fee=fee,
            fee_taken_out=fee_taken_out,
            fee_reference=f"{self.store.prefixes.fee}{number:010d}" if fee else None,
            balance=balance,
            narration=narration,
            reference=source.reference,
            debit_reference=None,
            link_ref=f"lnk-{number:010d}",
            session_id=session_id,
            status=PENDING if self.faults.on(Fault.INBOUND_CREDIT_PENDING) else SUCCESS,
            is_third_party=True,
        )
        self._tell("transaction.credit", credit)
        if self.variants.on(Variant.INBOUND_LEVY_DEBITED):
            self._levy(credit, wallet, amount // INBOUND_FEE_DIVISOR)
        return credit

    def _pay_in(self, wallet: Wallet, kobo: int) -> int:
        """Credits an inbound payment to the wallet at once; returns the balance it leaves."""
        if not self.faults.on(Fault.CREDIT_READ_THEN_WRITTEN):
            self._move(wallet, kobo)
            return wallet.balance
        # Read now, written one turn of the event loop later, as a two-statement update would be: a payment handled
        # in the same turn reads the same balance, and the later of the two writes loses the other's credit.
        written = wallet.balance + kobo
        self.store.later(0, self.write_balance, wallet, written)
        return written

    @staticmethod
    def write_balance(wallet: Wallet, balance: int) -> None:
        """A balance written whole, as a read-then-write update does (only faults do: the ledger moves deltas)."""
        wallet.balance = balance
        wallet.last_updated = now()

    def _levy(self, credit: Transaction, wallet: Wallet, levy: int) -> None:
        """A levy on an inbound payment, debited at once from the wallet it paid into, to the levy's collector."""
        number = self._next_transaction_number()
        collector = self.store.levy_collector(wallet)
        self._move(wallet, -levy)
        self._record(
            number,
            auth=wallet.auth,
            account=wallet.account,
            live=wallet.live,
            entry="debit",
            source=wallet,
            destination=collector,
            amount=levy,
            fee=0,
            fee_reference=None,
            balance=wallet.balance,
            narration=LEVY_NARRATION,
            reference=self._reference("levy", number, wallet.account),
            debit_reference=credit.reference,
            link_ref=credit.link_ref,
            session_id=self._session_id(collector.bank, now(), number),
            status=SUCCESS,
            is_third_party=True,
            name_enquiry_ref=f"ne-{number:010d}",
        )
