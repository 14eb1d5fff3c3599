"""The domain, in memory: the business and its accounts, wallets, collection accounts, validated
bank accounts and transactions, and the rules by which money moves.

How money moves (read this first):

* An inbound payment (the sandbox's `fund`) is a `credit` with sourceType `External`, recorded
  `success`, and raises the wallet balance by its amount at once.
* A wallet-to-wallet transfer costs no fee. On acceptance the source balance is checked and
  debited by actualAmount (= amount) in one step, and a `debit` is recorded `pending`. Settlement
  (after the server's settle delay, or the sandbox's `settle`) marks it `success`, credits the
  destination by amount and records the destination's `credit` leg.
* A bank transfer costs a fee from `BANK_TRANSFER_FEES`. On acceptance the source is checked and
  debited by actualAmount (= amount + fee) in one step; the `debit` is recorded `pending`.
  Settlement marks it `success`; the money has left the service, so there is no credit leg.
* A refused transfer changes nothing. The store's methods never await, so when the server's event
  loop runs one of them, the check and the debit cannot interleave with another request.

Every record belongs to one mode: the test key sees and makes `live: false` records, the live key
`live: true` ones. Identifiers come from counters, so a fresh store always numbers the same way.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from hashlib import sha256
from itertools import count
from typing import Literal

from wallet_conformance import contract
from wallet_conformance.reference.banks import Bank, holder_name, load_banks
from wallet_conformance.reference.errors import Refusal
from wallet_conformance.reference.faults import Fault, FaultSet

CURRENCY = "NGN"
# Transaction statuses: an accepted transfer is pending; settlement and inbound payments make it success.
PENDING = contract.pending_state()
SUCCESS = contract.success_state()
# The party that processes the service's own wallets and transfers.
PROCESSOR = "sandbox"
# The bank that issues wallet and collection account numbers (Wema Bank).
ISSUING_BANK_CODE = "035"
# Account numbers are ten digits: wallets count up from 9100000001, collection accounts from 9200000001.
WALLET_NUMBERS = 9_100_000_000
COLLECTION_NUMBERS = 9_200_000_000
# The sender of every sandbox inbound payment (GTBank).
SANDBOX_SENDER_BANK_CODE = "058"
SANDBOX_SENDER_ACCOUNT_NUMBER = "0123456789"

# The fee of a bank transfer, by amount (kobo): the first row whose ceiling holds the amount.
BANK_TRANSFER_FEES: tuple[tuple[int | None, int], ...] = (
    (500_000, 1_075),  # up to 5,000 naira: 10.75 naira
    (5_000_000, 2_688),  # up to 50,000 naira: 26.88 naira
    (None, 5_375),  # above: 53.75 naira
)

# The business's accounts; the first is the default one, which owns the secret keys.
ACCOUNT_NAMES = ("Main account", "Payouts", "Collections")

Category = Literal["primary", "secondary"]
Entry = Literal["debit", "credit"]


def now() -> datetime:
    """The current time in UTC, to the millisecond (the precision of the API's timestamps)."""
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def bank_transfer_fee(amount: int) -> int:
    for ceiling, fee in BANK_TRANSFER_FEES:
        if ceiling is None or amount <= ceiling:
            return fee
    raise AssertionError("the fee table ends with an open row")


@dataclass(frozen=True)
class Prefixes:
    """The publicId prefixes of each kind of record (schemas/common.json)."""

    wallet: str
    collection_account: str
    bank_account: str
    transaction: str
    external_source: str
    bank: str
    fee: str
    account: str
    live_pub_key: str
    test_pub_key: str


def prefixes(faults: FaultSet) -> Prefixes:
    public_keys = (contract.prefix("livePublicKey"), contract.prefix("testPublicKey"))
    if faults.on(Fault.PUBKEY_PREFIX):
        public_keys = ("pk_live_", "pk_test_")
    return Prefixes(
        wallet="va-" if faults.on(Fault.WALLET_PREFIX_VA) else contract.prefix("walletId"),
        collection_account="col-" if faults.on(Fault.COLLECTION_PREFIX) else contract.prefix("walletId"),
        bank_account="bacc-" if faults.on(Fault.BANK_ACCOUNT_PREFIX) else contract.prefix("bankAccountId"),
        transaction="txn-" if faults.on(Fault.TRANSACTION_PREFIX) else contract.prefix("transactionId"),
        external_source="ext-" if faults.on(Fault.EXTERNAL_SOURCE_PREFIX) else contract.prefix("externalSourceId"),
        bank="bank-" if faults.on(Fault.BANK_PREFIX) else contract.prefix("bankId"),
        fee="fe_" if faults.on(Fault.FEE_REFERENCE_PREFIX) else contract.prefix("feeReference"),
        # The document: a business account publicId is a UUID without prefix.
        account="acc-" if faults.on(Fault.ACCOUNT_PUBLICID_PREFIXED) else "",
        live_pub_key=public_keys[0],
        test_pub_key=public_keys[1],
    )


# ---------------------------------------------------------------------------------------- records


@dataclass
class Account:
    id: str
    public_id: str
    name: str
    business: str
    is_default: bool
    pub_key_live: str
    pub_key_test: str
    created_at: datetime
    updated_at: datetime
    webhooks: list[str] = field(default_factory=list)
    revision: int = 0


@dataclass(frozen=True)
class Credential:
    """A secret key of an account, and the mode (test or live) its records belong to."""

    id: str
    account: Account
    live: bool
    secret_key: str


@dataclass
class Wallet:
    id: str
    number: int
    public_id: str
    auth: str
    account: Account
    account_name: str
    account_number: str
    bank: Bank
    live: bool
    category: Category
    is_favourite: bool
    email_address: str | None
    mobile: dict[str, str] | None
    created_at: datetime
    updated_at: datetime
    last_updated: datetime
    balance: int = 0
    closed_at: datetime | None = None

    @property
    def open(self) -> bool:
        return self.closed_at is None


@dataclass
class CollectionAccount:
    number: int
    public_id: str
    account: Account
    reference: str | None
    parent_account_number: str
    account_name: str
    account_number: str
    amount: int
    bank: Bank
    live: bool
    expiration: datetime
    created_at: datetime
    updated_at: datetime
    active: bool
    status: str = PENDING


@dataclass
class BankAccount:
    """A validated beneficiary: an external account whose holder name was resolved."""

    number: int
    public_id: str
    auth: str
    account: Account
    account_name: str
    account_number: str
    bank: Bank
    reference: str
    live: bool
    created_at: datetime
    updated_at: datetime
    version: int = 1
    beneficiary_type: str = "personal"


@dataclass
class ExternalSource:
    """The paying side of an inbound payment."""

    number: int
    public_id: str
    bank: Bank
    account_name: str
    account_number: str
    reference: str
    session_id: str
    live: bool
    created_at: datetime
    channel: str = "dedicated_nuban"
    type: str = "bank_transfer"


@dataclass
class Transaction:
    id: str
    number: int
    public_id: str
    auth: str
    account: Account
    live: bool
    entry: Entry
    source: Wallet | ExternalSource
    destination: Wallet | BankAccount
    amount: int
    fee: int
    fee_reference: str | None
    balance: int
    narration: str
    reference: str
    debit_reference: str | None
    t_ref: str
    link_ref: str
    session_id: str
    status: str
    created_at: datetime
    updated_at: datetime
    is_third_party: bool
    name_enquiry_ref: str | None = None
    # The destination's credit leg, once a wallet-to-wallet transfer has settled.
    credit: Transaction | None = None

    @property
    def actual_amount(self) -> int:
        return self.amount + self.fee

    @property
    def source_type(self) -> str:
        return "External" if isinstance(self.source, ExternalSource) else "VirtualAccount"

    @property
    def destination_type(self) -> str:
        return "BankAccount" if isinstance(self.destination, BankAccount) else "VirtualAccount"


# Called after money moved without a request of the account: ("transaction.credit" | "transfer.settled", record).
Listener = Callable[[str, Transaction], None]


# ------------------------------------------------------------------------------------------ store


class Store:
    def __init__(self, faults: FaultSet, secret_key: str, live_secret_key: str) -> None:
        self.faults = faults
        self.prefixes = prefixes(faults)
        self.banks = load_banks(self.prefixes.bank)
        self.listeners: list[Listener] = []
        self._object_ids = count(1)
        self._wallet_numbers = count(1)
        self._collection_numbers = count(1)
        self._bank_account_numbers = count(1)
        self._source_numbers = count(1)
        self._transaction_numbers = count(1)
        self.wallets: list[Wallet] = []
        self.collection_accounts: list[CollectionAccount] = []
        self.bank_accounts: list[BankAccount] = []
        self.transactions: list[Transaction] = []

        self.business = self._object_id()
        self.accounts = [self._new_account(name, is_default=index == 0) for index, name in enumerate(ACCOUNT_NAMES)]
        default = self.accounts[0]
        self.credentials = {
            secret_key: Credential(self._object_id(), default, live=False, secret_key=secret_key),
            live_secret_key: Credential(self._object_id(), default, live=True, secret_key=live_secret_key),
        }

    # -- identifiers

    def _object_id(self) -> str:
        """A 24-hex record id, as the document's `_id` values look."""
        return f"65a1f0c0{next(self._object_ids):016x}"

    def _new_account(self, name: str, *, is_default: bool) -> Account:
        created = now()
        object_id = self._object_id()
        public_id = f"{self.prefixes.account}{uuid.uuid5(uuid.NAMESPACE_URL, f'account:{object_id}')}"
        public_key = sha256(object_id.encode()).hexdigest()[:32]
        return Account(
            id=object_id,
            public_id=public_id,
            name=name,
            business=self.business,
            is_default=is_default,
            pub_key_live=f"{self.prefixes.live_pub_key}{public_key}",
            pub_key_test=f"{self.prefixes.test_pub_key}{public_key}",
            created_at=created,
            updated_at=created,
        )

    def _session_id(self, bank: Bank, moment: datetime, number: int) -> str:
        """A NIBSS-style 30-digit session id: the bank's NIBSS code, the time, a sequence number."""
        return f"{bank.nibss_code}{moment:%y%m%d%H%M%S}{number:012d}"

    # -- keys and accounts

    def credential_for_key(self, key: str) -> Credential | None:
        return self.credentials.get(key)

    def test_credential(self) -> Credential:
        return next(credential for credential in self.credentials.values() if not credential.live)

    def live_credential(self) -> Credential:
        return next(credential for credential in self.credentials.values() if credential.live)

    def credential_of(self, account: Account, live: bool) -> Credential | None:
        for credential in self.credentials.values():
            if credential.account is account and credential.live == live:
                return credential
        return None

    def find_account(self, public_id: str) -> Account:
        for account in self.accounts:
            if account.public_id == public_id:
                return account
        raise Refusal.NOT_FOUND.error(what="Account", key=public_id)

    def set_webhooks(self, account: Account, webhooks: list[str]) -> None:
        account.webhooks = list(webhooks)
        account.updated_at = now()
        account.revision += 1

    # -- wallets

    def bank(self, code: str) -> Bank | None:
        for bank in self.banks:
            if bank.code == code:
                return bank
        return None

    def wallets_of(self, caller: Credential) -> list[Wallet]:
        """The caller's open wallets, newest first."""
        mine = [w for w in self.wallets if w.account is caller.account and w.live == caller.live and w.open]
        return sorted(mine, key=lambda wallet: wallet.number, reverse=True)

    def find_wallet(self, caller: Credential, public_id: str, *, include_closed: bool = False) -> Wallet:
        """One of the caller's wallets; a closed one only when asked for."""
        for wallet in self.wallets:
            if (
                wallet.public_id == public_id
                and wallet.account is caller.account
                and wallet.live == caller.live
                and (wallet.open or include_closed)
            ):
                return wallet
        raise Refusal.NOT_FOUND.error(what="VirtualAccount", key=public_id)

    def find_destination_wallet(self, live: bool, public_id: str) -> Wallet:
        """Any open wallet of the service in that mode: transfers may pay other accounts' wallets."""
        for wallet in self.wallets:
            if wallet.public_id == public_id and wallet.live == live and wallet.open:
                return wallet
        raise Refusal.NOT_FOUND.error(what="VirtualAccount", key=public_id)

    def find_wallet_by_number(self, account_number: str) -> Wallet:
        for wallet in self.wallets:
            if wallet.account_number == account_number and wallet.open:
                return wallet
        raise Refusal.NOT_FOUND.error(what="VirtualAccount with accountNumber", key=account_number)

    def find_wallet_anywhere(self, public_id: str) -> Wallet:
        for wallet in self.wallets:
            if wallet.public_id == public_id and wallet.open:
                return wallet
        raise Refusal.NOT_FOUND.error(what="VirtualAccount", key=public_id)

    def primary_limit(self) -> int:
        limit = contract.primary_wallet_limit()
        if self.faults.on(Fault.SIXTH_PRIMARY_ACCEPTED):
            return limit + 1
        if self.faults.on(Fault.FIFTH_PRIMARY_REFUSED):
            return limit - 1
        return limit

    def create_wallet(
        self,
        caller: Credential,
        *,
        category: Category,
        account_name: str,
        email_address: str | None,
        mobile: dict[str, str] | None,
    ) -> Wallet:
        """Opens a wallet. At most `primary_limit()` primary wallets are open at any time per account
        and mode; closing one frees its place. Secondary wallets have no limit."""
        held = [w for w in self.wallets if w.account is caller.account and w.live == caller.live]
        counted = held if self.faults.on(Fault.CLOSED_PRIMARY_STILL_COUNTED) else [w for w in held if w.open]
        if category == "primary":
            limit = self.primary_limit()
            if sum(w.category == "primary" for w in counted) >= limit:
                raise Refusal.PRIMARY_LIMIT.error(limit=limit)
        if category == "secondary" and self.faults.on(Fault.SECONDARY_LIMITED_TO_FIVE):
            limit = contract.primary_wallet_limit()
            if sum(w.category == "secondary" for w in counted) >= limit:
                raise Refusal.SECONDARY_LIMIT.error(limit=limit)

        number = next(self._wallet_numbers)
        created = now()
        wallet = Wallet(
            id=self._object_id(),
            number=number,
            public_id=f"{self.prefixes.wallet}{number:08d}",
            auth=caller.id,
            account=caller.account,
            account_name=account_name,
            account_number=str(WALLET_NUMBERS + number),
            bank=self._issuing_bank(),
            live=caller.live,
            category=category,
            # The account's first primary wallet (in this mode) is its favourite.
            is_favourite=category == "primary" and not any(w.category == "primary" for w in held),
            email_address=email_address,
            mobile=mobile,
            created_at=created,
            updated_at=created,
            last_updated=created,
        )
        self.wallets.append(wallet)
        return wallet

    def close_wallet(self, wallet: Wallet) -> None:
        wallet.closed_at = now()
        wallet.updated_at = wallet.closed_at

    def _issuing_bank(self) -> Bank:
        bank = self.bank(ISSUING_BANK_CODE)
        assert bank is not None, "the issuing bank is in data/banks.json"
        return bank

    def _move(self, wallet: Wallet, kobo: int) -> None:
        wallet.balance += kobo
        wallet.last_updated = now()

    # -- collection accounts

    def create_collection_account(
        self,
        caller: Credential,
        *,
        destination: Wallet | None,
        account_name: str,
        amount: int,
        expire_in: float,
        reference: str | None,
    ) -> CollectionAccount:
        """A temporary account number collecting `amount` into `destination` until it expires.
        A reference is unique per account and mode; one is generated when none is given."""
        taken = {c.reference for c in self.collection_accounts if c.account is caller.account and c.live == caller.live}
        if reference is not None and reference in taken and not self.faults.on(Fault.DUPLICATE_REFERENCE_ACCEPTED):
            raise Refusal.DUPLICATE_REFERENCE.error(reference=reference)
        number = next(self._collection_numbers)
        if self.faults.on(Fault.COLLECTION_REFERENCE_IGNORED):
            reference = None
        if reference is None and not self.faults.on(Fault.COLLECTION_REFERENCE_NOT_GENERATED):
            reference = self._free_reference(number, taken)
        created = now()
        unit = timedelta(minutes=1) if self.faults.on(Fault.COLLECTION_EXPIRATION_IN_MINUTES) else timedelta(seconds=1)
        collection = CollectionAccount(
            number=number,
            public_id=f"{self.prefixes.collection_account}c{number:07d}",
            account=caller.account,
            reference=reference,
            # No destination only under a fault (COLLECTION_ACCEPTS_UNKNOWN_DESTINATION).
            parent_account_number=destination.account_number if destination else "0000000000",
            account_name=account_name,
            account_number=str(COLLECTION_NUMBERS + number),
            amount=amount,
            bank=self._issuing_bank(),
            live=caller.live,
            expiration=created + expire_in * unit,
            created_at=created,
            updated_at=created,
            active=not self.faults.on(Fault.COLLECTION_INACTIVE),
        )
        self.collection_accounts.append(collection)
        return collection

    @staticmethod
    def _free_reference(number: int, taken: set[str | None]) -> str:
        candidate, attempt = f"col-{number:08d}", 0
        while candidate in taken:
            attempt += 1
            candidate = f"col-{number:08d}-{attempt}"
        return candidate

    # -- bank accounts

    def resolve_bank_account(self, caller: Credential, account_number: str, bank: Bank) -> BankAccount:
        """Name enquiry: the caller's beneficiary record for that account, made on first use."""
        for known in self.bank_accounts:
            if (
                known.account is caller.account
                and known.live == caller.live
                and known.bank is bank
                and known.account_number == account_number
            ):
                return known
        name = holder_name(account_number)
        if name is None:
            raise Refusal.NOT_FOUND.error(what=f"Account at {bank.name} numbered", key=account_number)
        number = next(self._bank_account_numbers)
        created = now()
        beneficiary = BankAccount(
            number=number,
            public_id=f"{self.prefixes.bank_account}{number:08d}",
            auth=caller.id,
            account=caller.account,
            account_name=name,
            account_number=account_number,
            bank=bank,
            reference=f"ben-{number:08d}",
            live=caller.live,
            created_at=created,
            updated_at=created,
        )
        self.bank_accounts.append(beneficiary)
        return beneficiary

    # -- transactions

    def transactions_of(self, caller: Credential) -> list[Transaction]:
        """The caller's transactions, newest first."""
        mine = [t for t in self.transactions if t.account is caller.account and t.live == caller.live]
        return sorted(mine, key=lambda transaction: transaction.number, reverse=True)

    def find_transaction(
        self, caller: Credential, *, reference: str | None = None, public_id: str | None = None
    ) -> Transaction:
        for transaction in self.transactions_of(caller):
            if reference is not None and transaction.reference == reference:
                return transaction
            if public_id is not None and transaction.public_id == public_id:
                return transaction
        raise Refusal.NOT_FOUND.error(what="Transaction", key=reference or public_id)

    def pending_transfers(self) -> list[Transaction]:
        return [t for t in self.transactions if t.entry == "debit" and t.status == PENDING]

    def require_funds(self, wallet: Wallet, kobo: int) -> None:
        if wallet.balance < kobo:
            raise Refusal.INSUFFICIENT_BALANCE.error(wallet=wallet.public_id)

    def _record(self, number: int, **fields) -> Transaction:
        created = now()
        transaction = Transaction(
            id=self._object_id(),
            number=number,
            public_id=f"{self.prefixes.transaction}{number:010d}",
            t_ref=f"t{number:012d}",
            created_at=created,
            updated_at=created,
            **fields,
        )
        self.transactions.append(transaction)
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
    ) -> Transaction:
        """Accepts a wallet-to-wallet transfer: debits the source now, credits the destination at settlement."""
        if source is destination:
            raise Refusal.SAME_WALLET.error()
        fee = 0
        if check_funds:
            self.require_funds(source, amount + fee)
        self._move(source, -(amount + fee))
        number = self._next_transaction_number()
        moment = now()
        return self._record(
            number,
            auth=caller.id,
            account=source.account,
            live=source.live,
            entry="debit",
            source=source,
            destination=destination,
            amount=amount,
            fee=fee,
            fee_reference=None,
            balance=source.balance,
            narration=narration,
            reference=f"wt-{number:010d}",
            debit_reference=None,
            link_ref=f"lnk-{number:010d}",
            session_id=self._session_id(source.bank, moment, number),
            status=PENDING,
            is_third_party=False,
        )

    def bank_transfer(
        self, caller: Credential, *, source: Wallet, beneficiary: BankAccount, amount: int, narration: str
    ) -> Transaction:
        """Accepts a payout to an external account: debits amount + fee now; settlement completes it."""
        fee = bank_transfer_fee(amount)
        if self.faults.on(Fault.BANK_TRANSFER_NEGATIVE_FEE):
            fee = -fee
        self.require_funds(source, amount + fee)
        debited = amount if self.faults.on(Fault.BANK_TRANSFER_FEE_NOT_DEBITED) else amount + fee
        self._move(source, -debited)
        number = self._next_transaction_number()
        moment = now()
        return self._record(
            number,
            auth=caller.id,
            account=source.account,
            live=source.live,
            entry="debit",
            source=source,
            destination=beneficiary,
            amount=amount,
            fee=fee,
            fee_reference=f"{self.prefixes.fee}{number:010d}",
            balance=source.balance,
            narration=narration,
            reference=f"bt-{number:010d}",
            debit_reference=None,
            link_ref=f"lnk-{number:010d}",
            session_id=self._session_id(beneficiary.bank, moment, number),
            name_enquiry_ref=f"ne-{number:010d}",
            status=PENDING,
            # The money leaves the service for a third party's bank.
            is_third_party=True,
        )

    def settle(self, transaction: Transaction) -> None:
        """Completes a pending transfer (a no-op when it is no longer pending)."""
        if transaction.status != PENDING:
            return
        transaction.status = SUCCESS
        transaction.updated_at = now()
        destination = transaction.destination
        if isinstance(destination, Wallet):
            credited = transaction.amount * 2 if self.faults.on(Fault.SETTLEMENT_CREDITS_TWICE) else transaction.amount
            self._move(destination, credited)
            if not self.faults.on(Fault.NO_CREDIT_LEG):
                transaction.credit = self._credit_leg(transaction, destination)
                self._tell("transaction.credit", transaction.credit)
        self._tell("transfer.settled", transaction)

    def _credit_leg(self, debit: Transaction, destination: Wallet) -> Transaction:
        number = self._next_transaction_number()
        return self._record(
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
            reference=f"cr-{number:010d}",
            debit_reference=debit.reference,
            link_ref=debit.link_ref,
            session_id=debit.session_id,
            status=SUCCESS,
            is_third_party=False,
        )

    def fund(self, wallet: Wallet, amount: int, narration: str) -> Transaction:
        """An external payment into a wallet (sandbox): recorded `success`, credited at once."""
        sender_bank = self.bank(SANDBOX_SENDER_BANK_CODE)
        assert sender_bank is not None, "the sandbox sender's bank is in data/banks.json"
        number = self._next_transaction_number()
        moment = now()
        source_number = next(self._source_numbers)
        session_id = self._session_id(sender_bank, moment, number)
        source = ExternalSource(
            number=source_number,
            public_id=f"{self.prefixes.external_source}{source_number:08d}",
            bank=sender_bank,
            account_name=holder_name(SANDBOX_SENDER_ACCOUNT_NUMBER) or "",
            account_number=SANDBOX_SENDER_ACCOUNT_NUMBER,
            reference=f"in-{number:010d}",
            session_id=session_id,
            live=wallet.live,
            created_at=moment,
        )
        if not self.faults.on(Fault.FUNDING_NOT_CREDITED):
            self._move(wallet, amount)
        credit = self._record(
            number,
            auth=wallet.auth,
            account=wallet.account,
            live=wallet.live,
            entry="credit",
            source=source,
            destination=wallet,
            amount=amount,
            fee=0,
            fee_reference=None,
            balance=wallet.balance,
            narration=narration,
            reference=source.reference,
            debit_reference=None,
            link_ref=f"lnk-{number:010d}",
            session_id=session_id,
            status=PENDING if self.faults.on(Fault.INBOUND_CREDIT_PENDING) else SUCCESS,
            is_third_party=True,
        )
        self._tell("transaction.credit", credit)
        return credit

    def _next_transaction_number(self) -> int:
        return next(self._transaction_numbers)

    def _tell(self, event: str, transaction: Transaction) -> None:
        for listener in self.listeners:
            listener(event, transaction)
