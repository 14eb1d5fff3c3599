"""The records of the reference, in memory: the business's accounts and keys, wallets, collection
accounts, validated bank accounts, external sources and transactions, and the facts they are made of
(currency, statuses, identifier prefixes). What they do lives in store.py (records) and ledger.py (money).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from wallet_conformance.reference.banks import Bank
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.spec import contract

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

Category = Literal["primary", "secondary"]
Entry = Literal["debit", "credit"]


# How long after its creation a list shows a record, under the faults that list records late.
LISTED_LATE = timedelta(minutes=1)


def now() -> datetime:
    """The current time in UTC, to the millisecond (the precision of the API's timestamps)."""
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


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
    webhooks: list[str] | str = field(default_factory=list)  # a string only under a fault
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
    amount: int | float | str  # a string or a float only under a fault
    bank: Bank
    live: bool
    expiration: datetime
    created_at: datetime
    updated_at: datetime
    active: bool
    status: str = PENDING
    collects_into: Wallet | None = None  # the wallet a payment into it credits


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
    # Whether a wallet-to-wallet transfer has credited its destination, and the credit leg it recorded (none under a
    # variant).
    credited: bool = False
    credit: Transaction | None = None
    # Accepted without moving money yet: the source is debited at settlement (a variant).
    held: bool = False
    # Accepted although the balance cannot cover it: it fails at settlement, moving nothing (a variant).
    doomed: bool = False
    # An inbound credit whose fee is taken out of its amount: actualAmount is what is left (a variant).
    fee_taken_out: bool = False

    @property
    def actual_amount(self) -> int:
        return self.amount - self.fee if self.fee_taken_out else self.amount + self.fee

    @property
    def source_type(self) -> str:
        return "External" if isinstance(self.source, ExternalSource) else "VirtualAccount"

    @property
    def destination_type(self) -> str:
        return "BankAccount" if isinstance(self.destination, BankAccount) else "VirtualAccount"


# Called after money moved without a request of the account: ("transaction.credit" | "transfer.settled", record).
Listener = Callable[[str, Transaction], None]
