"""The records in memory: two businesses and their accounts and keys, wallets, collection accounts and
validated bank accounts, and the lookups of transactions. How money moves is ledger.py's job.

Every record belongs to one account and one mode: a key (its account's, test or live) sees and makes
only its own account's records of its mode; the test key `live: false` ones, the live key `live: true`
ones. The second business is there to be kept apart from the first: nothing of one is found, listed or
changed with the other's keys (only transfers may pay into any wallet). Identifiers come from counters,
so a fresh store always numbers the same way.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from hashlib import sha256
from itertools import count
from typing import Any, TypeVar

from wallet_conformance.reference.banks import Bank, holder_name, load_banks
from wallet_conformance.reference.errors import Refusal
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.ledger import Ledger
from wallet_conformance.reference.records import (
    COLLECTION_NUMBERS,
    ISSUING_BANK_CODE,
    WALLET_NUMBERS,
    Account,
    BankAccount,
    Category,
    CollectionAccount,
    Credential,
    Listener,
    Transaction,
    Wallet,
    now,
    prefixes,
)
from wallet_conformance.reference.variants import Variant, VariantSet
from wallet_conformance.spec import contract

# The business's accounts; the first is the default one, which owns the secret keys.
ACCOUNT_NAMES = ("Main account", "Payouts", "Collections")
# The second business's one account (its default), which owns that business's secret keys.
SECOND_BUSINESS_ACCOUNT_NAME = "Second business"
# More accounts of the business (a variant): more than a page, some names containing others.
MORE_ACCOUNT_NAMES = tuple(f"{name} {number}" for number in range(2, 6) for name in ACCOUNT_NAMES)
# What an account already holds before a run (a variant): wallets and credits the run did not make.
PREEXISTING_PRIMARY, PREEXISTING_SECONDARY, PREEXISTING_CREDITS = 2, 12, 12
# Where the levies on inbound payments go, under the variant that debits them as transactions of their own.
LEVY_BANK_CODE, LEVY_ACCOUNT_NUMBER, LEVY_COLLECTOR_NAME = "044", "3000000001", "Federal Inland Revenue Service"

# A record an account owns and a path names: a wallet or a transaction.
Owned = TypeVar("Owned", Wallet, Transaction)


@dataclass(frozen=True)
class SecretKeys:
    """The secret keys of both businesses: each default account has a test-mode and a live-mode key."""

    test: str
    live: str
    second_test: str
    second_live: str


class Store:
    def __init__(self, faults: FaultSet, keys: SecretKeys, variants: VariantSet | None = None) -> None:
        self.keys = keys
        self.faults = faults
        self.variants = variants or VariantSet()
        self.prefixes = prefixes(faults)
        self._banks = load_banks(self.prefixes.bank)
        self._closed = self._closed_bank()
        self.listeners: list[Listener] = []
        self._object_ids = count(1)
        self._wallet_numbers = count(1)
        self._collection_numbers = count(1)
        self._bank_account_numbers = count(1)
        self.wallets: list[Wallet] = []
        self.collection_accounts: list[CollectionAccount] = []
        self.bank_accounts: list[BankAccount] = []
        self.levy_collectors: list[BankAccount] = []
        self.transactions: list[Transaction] = []
        self.verified: dict[str, dict[str, Any]] = {}  # verify's first answers, under VERIFY_CACHED_PER_REFERENCE
        self.due = 0  # the changes `later` has yet to make
        self.ledger = Ledger(self)

        business = self.object_id()
        names: tuple[str, ...] = ACCOUNT_NAMES
        if self.variants.on(Variant.MORE_ACCOUNTS):
            names = (*ACCOUNT_NAMES, *MORE_ACCOUNT_NAMES)
        self.accounts = [self._new_account(name, business, is_default=index == 0) for index, name in enumerate(names)]
        self.credentials: dict[str, Credential] = {}
        self._add_keys(self.accounts[0], keys.test, keys.live)
        # The second business: one account and its own keys, made after the first's (whose ids stay as they were).
        second = self._new_account(SECOND_BUSINESS_ACCOUNT_NAME, self.object_id(), is_default=True)
        self.accounts.append(second)
        self._add_keys(second, keys.second_test, keys.second_live)
        if self.variants.on(Variant.PREEXISTING_RECORDS):
            for credential in self.credentials.values():
                self._preexisting(credential)

    # -- identifiers

    def later(self, delay: float, change: Callable[..., object], *args: object) -> None:
        """Make `change(*args)` `delay` seconds from now, on the server's loop: every change the reference makes after
        its answer (a settlement, a balance posted later, a delayed funding credit) is made here, and counted in `due`
        until it is made (GET /sandbox/due)."""
        self.due += 1

        def make() -> None:
            try:
                change(*args)
            finally:
                self.due -= 1

        loop = asyncio.get_running_loop()
        if delay > 0:
            loop.call_later(delay, make)
        else:
            loop.call_soon(make)  # the next turn of the loop, after what is ready now

    def object_id(self) -> str:
        """A 24-hex record id, as the document's `_id` values look."""
        return f"65a1f0c0{next(self._object_ids):016x}"

    def _add_keys(self, account: Account, test_key: str, live_key: str) -> None:
        for key, live in ((test_key, False), (live_key, True)):
            self.credentials[key] = Credential(self.object_id(), account, live=live, secret_key=key)

    def _new_account(self, name: str, business: str, *, is_default: bool) -> Account:
        created = now()
        object_id = self.object_id()
        public_id = f"{self.prefixes.account}{uuid.uuid5(uuid.NAMESPACE_URL, f'account:{object_id}')}"
        public_key = sha256(object_id.encode()).hexdigest()[:32]
        return Account(
            id=object_id,
            public_id=public_id,
            name=name,
            business=business,
            is_default=is_default,
            pub_key_live=f"{self.prefixes.live_pub_key}{public_key}",
            pub_key_test=f"{self.prefixes.test_pub_key}{public_key}",
            created_at=created,
            updated_at=created,
        )

    @property
    def banks(self) -> tuple[Bank, ...]:
        """The banks, in the list's order. The variant's switch is read here, where banks are used, so that
        only what lists or names a bank can see the closed one."""
        if self.variants.on(Variant.INACTIVE_BANK_FIRST):
            return (self._closed, *self._banks)
        return self._banks

    def _closed_bank(self) -> Bank:
        """A bank the list still shows, marked inactive and deleted: payments to it are refused."""
        first = self._banks[0]
        return replace(
            first,
            id=0,
            public_id=f"{self.prefixes.bank}closed-bank",
            name="Closed Bank",
            code="999",
            nibss_code="999999",
            slug="closed-bank",
            active=False,
            deleted_at=first.created_at,
        )

    def _preexisting(self, caller: Credential) -> None:
        """Wallets and inbound credits the account held before anyone ran a test against it."""
        for index in range(PREEXISTING_PRIMARY + PREEXISTING_SECONDARY):
            category: Category = "primary" if index < PREEXISTING_PRIMARY else "secondary"
            mobile = {"phoneNumber": f"0803000{index:04d}", "isoCode": "NG"}
            self.create_wallet(
                caller,
                category=category,
                account_name=f"Existing wallet {index + 1}",
                email_address=f"customer{index + 1}@example.com",
                mobile=mobile,
            )
        funded = self.wallets_of(caller, include_closed=True)
        for index in range(PREEXISTING_CREDITS):
            self.ledger.fund(funded[index % len(funded)], 100 * (index + 1), "Payment received earlier")

    # -- keys and accounts

    def credential_for_key(self, key: str) -> Credential | None:
        """The credential whose secret key is exactly `key`: same characters, same letter case, same length."""
        return self.credentials.get(key)

    def test_credential(self) -> Credential:
        """The first business's test-mode credential."""
        return self.credentials[self.keys.test]

    def credential_of(self, account: Account, live: bool) -> Credential | None:
        for credential in self.credentials.values():
            if credential.account is account and credential.live == live:
                return credential
        return None

    def listed_accounts(self, caller: Credential) -> list[Account]:
        """The accounts of the caller's business (its own only, under a variant), never another business's; oldest
        first (newest first under a variant)."""
        if self.variants.on(Variant.ACCOUNTS_OWN_ONLY):
            listed = [caller.account]
        else:
            listed = [account for account in self.accounts if account.business == caller.account.business]
        if self.variants.on(Variant.ACCOUNTS_NEWEST_FIRST):
            listed.reverse()
        return listed

    def account_to_update(
        self, caller: Credential, public_id: str, *, sibling: bool = False, other_business: bool = False
    ) -> Account:
        """The account the caller's key may change: its own (faults widen it: another account of its business,
        `sibling`; another business's, `other_business`). Another account of the caller's business is refused 403 (not
        found, under a variant); another business's is not found."""
        for account in self.accounts:
            if account.public_id != public_id:
                continue
            same_business = account.business == caller.account.business
            if account is caller.account or (sibling if same_business else other_business):
                return account
            if same_business and not self.variants.on(Variant.OTHER_ACCOUNT_UPDATE_404):
                raise Refusal.FORBIDDEN.error(what="Account", key=public_id)
            break
        raise Refusal.NOT_FOUND.error(what="Account", key=public_id)

    def set_webhooks(self, account: Account, webhooks: list[str] | str) -> None:
        account.webhooks = webhooks if isinstance(webhooks, str) else list(webhooks)
        account.updated_at = now()
        if not self.variants.on(Variant.REVISION_KEPT_ON_UPDATE):
            account.revision += 1

    def _owned(
        self,
        caller: Credential,
        records: list[Owned],
        identifier: Callable[[Owned], str],
        wanted: str,
        what: str,
        *,
        any_account: bool,
        by_prefix: bool,
        any_case: bool = False,
    ) -> Owned:
        """The record of `records` (all of the caller's mode) whose identifier is exactly `wanted`, if the caller's
        account owns it (whichever account does, `any_account`). `any_case`: failing an exact match, one whose
        identifier is `wanted` in another letter case. `by_prefix`: failing those, the first in
        list order whose identifier starts with `wanted`. Another account's record is not found, as an unknown one is
        (refused 403 under a variant)."""
        named = [record for record in records if identifier(record) == wanted]
        if not named and any_case:
            named = [record for record in records if identifier(record).casefold() == wanted.casefold()]
        if not named and by_prefix:
            named = self.newest_first(
                [record for record in records if identifier(record).startswith(wanted)],
                key=lambda record: record.number,
            )
        for record in named:
            if record.account is caller.account or any_account:
                return record
        if named and self.variants.on(Variant.OTHERS_RECORDS_403):
            raise Refusal.FORBIDDEN.error(what=what, key=wanted)
        raise Refusal.NOT_FOUND.error(what=what, key=wanted)

    # -- lists

    def newest_first(self, records: list, key) -> list:
        """A list in the order the API shows it: newest first (oldest first under a variant)."""
        return sorted(records, key=key, reverse=not self.variants.on(Variant.LISTS_OLDEST_FIRST))

    # -- wallets

    def bank(self, code: str) -> Bank | None:
        for bank in self.banks:
            if bank.code == code:
                return bank
        return None

    def wallets_of(self, caller: Credential, *, include_closed: bool = False) -> list[Wallet]:
        """The caller's open wallets (and closed ones when asked), newest first."""
        mine = [
            w
            for w in self.wallets
            if w.account is caller.account and w.live == caller.live and (w.open or include_closed)
        ]
        return self.newest_first(mine, key=lambda wallet: wallet.number)

    def last_transfer_credit(self, wallet: Wallet) -> int:
        """The amount of the last wallet-to-wallet transfer credited to the wallet (0 if none)."""
        for transaction in reversed(self.transactions):
            if (
                transaction.entry == "credit"
                and transaction.destination is wallet
                and isinstance(transaction.source, Wallet)
            ):
                return transaction.amount
        return 0

    def find_wallet(
        self,
        caller: Credential,
        public_id: str,
        *,
        include_closed: bool = False,
        any_account: bool = False,
        by_prefix: bool = False,
    ) -> Wallet:
        """One of the caller's wallets, by its exact publicId; a closed one only when asked for. Faults widen the
        lookup: any account's wallet of the caller's mode (`any_account`), a publicId's prefix (`by_prefix`)."""
        usable = [w for w in self.wallets if w.live == caller.live and (w.open or include_closed)]
        return self._owned(
            caller,
            usable,
            lambda wallet: wallet.public_id,
            public_id,
            "VirtualAccount",
            any_account=any_account,
            by_prefix=by_prefix,
        )

    def find_destination_wallet(self, caller: Credential, public_id: str, *, include_closed: bool = False) -> Wallet:
        """Any open wallet of the service in the caller's mode (a closed one only when asked for): transfers may pay
        other accounts' wallets, of any business (of the caller's business only, under a variant)."""
        within = self.variants.on(Variant.TRANSFERS_WITHIN_BUSINESS)
        for wallet in self.wallets:
            if (
                wallet.public_id == public_id
                and wallet.live == caller.live
                and (wallet.open or include_closed)
                and (not within or wallet.account.business == caller.account.business)
            ):
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

    def collecting_wallet(self, *, public_id: str | None = None, account_number: str | None = None) -> Wallet | None:
        """The open wallet a collection account (named by its publicId or its accountNumber) collects into; None
        when no collection account is so named."""
        for collection in self.collection_accounts:
            if public_id in (None, collection.public_id) and account_number in (None, collection.account_number):
                wallet = collection.collects_into
                if wallet is None or not wallet.open:
                    raise Refusal.NOT_FOUND.error(what="VirtualAccount", key=collection.parent_account_number)
                return wallet
        return None

    def primary_limit(self) -> int:
        limit = contract.primary_wallet_limit()
        if self.faults.on(Fault.SIXTH_PRIMARY_ACCEPTED):
            return limit + 1
        if self.faults.on(Fault.FIFTH_PRIMARY_REFUSED):
            return limit - 1
        return limit

    def require_primary_place(self, caller: Credential) -> None:
        """Refuses a primary wallet when the account (in the caller's mode) holds the limit of open ones."""
        held = [w for w in self.wallets if w.account is caller.account and w.live == caller.live]
        counted = held if self.faults.on(Fault.CLOSED_PRIMARY_STILL_COUNTED) else [w for w in held if w.open]
        limit = self.primary_limit()
        if sum(w.category == "primary" for w in counted) >= limit:
            raise Refusal.PRIMARY_LIMIT.error(limit=limit)

    def create_wallet(
        self,
        caller: Credential,
        *,
        category: Category,
        account_name: str,
        email_address: str | None,
        mobile: dict[str, str] | None,
        limit_checked: bool = False,
    ) -> Wallet:
        """Opens a wallet. At most `primary_limit()` primary wallets are open at any time per account
        and mode; closing one frees its place. Secondary wallets have no limit. The check and the opening
        are one step (nothing awaited between them) unless the caller checked already (`limit_checked`)."""
        held = [w for w in self.wallets if w.account is caller.account and w.live == caller.live]
        if category == "primary" and not limit_checked:
            self.require_primary_place(caller)
        if category == "secondary" and self.variants.on(Variant.CUSTOMERS_UNIQUE):
            # One secondary wallet per customer, ever: a closed wallet's customer stays taken.
            phone = (mobile or {}).get("phoneNumber")
            for earlier in (w for w in held if w.category == "secondary"):
                if email_address is not None and earlier.email_address == email_address:
                    raise Refusal.CUSTOMER_EXISTS.error(field="emailAddress", value=email_address)
                if phone is not None and (earlier.mobile or {}).get("phoneNumber") == phone:
                    raise Refusal.CUSTOMER_EXISTS.error(field="mobile.phoneNumber", value=phone)
        if category == "secondary" and self.faults.on(Fault.SECONDARY_LIMITED_TO_FIVE):
            limit = contract.primary_wallet_limit()
            if sum(w.category == "secondary" and w.open for w in held) >= limit:
                raise Refusal.SECONDARY_LIMIT.error(limit=limit)

        number = next(self._wallet_numbers)
        created = now()
        wallet = Wallet(
            id=self.object_id(),
            number=number,
            public_id=f"{self.prefixes.wallet}{number:08d}",
            auth=caller.id,
            account=caller.account,
            account_name=account_name,
            account_number=str(WALLET_NUMBERS + number),
            bank=self.issuing_bank(),
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

    def issuing_bank(self) -> Bank:
        bank = self.bank(ISSUING_BANK_CODE)
        assert bank is not None, "the issuing bank is in data/banks.json"
        return bank

    # -- collection accounts

    def create_collection_account(
        self,
        caller: Credential,
        *,
        destination: Wallet | None,
        account_name: str,
        amount: int | float | str,
        expire_in: float,
        reference: str | None,
        reference_checked: bool = False,
    ) -> CollectionAccount:
        """A temporary account number collecting `amount` into `destination` until it expires.
        A reference is unique per account and mode; one is generated when none is given. The check and the insert
        are one step (nothing awaited between them) unless the caller checked already (`reference_checked`)."""
        taken = self._references_taken(caller, destination)
        if reference is not None and self.variants.on(Variant.COLLECTION_REFERENCE_IDEMPOTENT):
            for existing in self.collection_accounts:
                if (
                    existing.account is caller.account
                    and existing.live == caller.live
                    and existing.reference == reference
                    and existing.collects_into is destination
                    and existing.amount == amount
                    and existing.account_name == account_name
                ):
                    return existing  # a replay: the account it opened, not a second one
        if not reference_checked:
            self.require_unused_reference(caller, reference, destination)
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
            bank=self.issuing_bank(),
            live=caller.live,
            expiration=created + expire_in * unit,
            created_at=created,
            updated_at=created,
            active=not self.faults.on(Fault.COLLECTION_INACTIVE),
            collects_into=destination,
        )
        if destination is not None and self.faults.on(Fault.COLLECTION_COLLECTS_INTO_OLDEST_WALLET):
            collection.collects_into = next(
                (
                    wallet
                    for wallet in self.wallets
                    if wallet.account is caller.account and wallet.live == caller.live and wallet.open
                ),
                destination,
            )
        self.collection_accounts.append(collection)
        return collection

    def _references_taken(self, caller: Credential, destination: Wallet | None) -> set[str | None]:
        """The collection references the caller's account (in its mode) has used."""
        per_wallet = self.faults.on(Fault.REFERENCE_UNIQUE_PER_WALLET)
        return {
            c.reference
            for c in self.collection_accounts
            if c.account is caller.account
            and c.live == caller.live
            and (not per_wallet or destination is None or c.parent_account_number == destination.account_number)
        }

    def require_unused_reference(self, caller: Credential, reference: str | None, destination: Wallet | None) -> None:
        """Refuses a collection reference the caller's account (in its mode) has used already."""
        if reference is None or self.faults.on(Fault.DUPLICATE_REFERENCE_ACCEPTED):
            return
        if reference in self._references_taken(caller, destination):
            raise Refusal.DUPLICATE_REFERENCE.error(reference=reference)

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
        beneficiary = self._new_bank_account(caller.id, caller.account, caller.live, name, account_number, bank, "ben")
        self.bank_accounts.append(beneficiary)
        return beneficiary

    def _new_bank_account(
        self, auth: str, account: Account, live: bool, name: str, account_number: str, bank: Bank, reference_prefix: str
    ) -> BankAccount:
        number = next(self._bank_account_numbers)
        created = now()
        return BankAccount(
            number=number,
            public_id=f"{self.prefixes.bank_account}{number:08d}",
            auth=auth,
            account=account,
            account_name=name,
            account_number=account_number,
            bank=bank,
            reference=f"{reference_prefix}-{number:08d}",
            live=live,
            created_at=created,
            updated_at=created,
        )

    def levy_collector(self, wallet: Wallet) -> BankAccount:
        """The bank account the levies on a wallet's inbound payments are paid to (a variant): one per account and
        mode, made on first use; not one of the caller's beneficiaries."""
        for known in self.levy_collectors:
            if known.account is wallet.account and known.live == wallet.live:
                return known
        bank = self.bank(LEVY_BANK_CODE)
        assert bank is not None, "the levy collector's bank is in data/banks.json"
        collector = self._new_bank_account(
            wallet.auth, wallet.account, wallet.live, LEVY_COLLECTOR_NAME, LEVY_ACCOUNT_NUMBER, bank, "levy"
        )
        self.levy_collectors.append(collector)
        return collector

    # -- transactions

    def transactions_of(self, caller: Credential, *, every_account: bool = False) -> list[Transaction]:
        """The caller's transactions (every account's of the caller's mode, under a fault), newest first."""
        listed = [
            t for t in self.transactions if t.live == caller.live and (t.account is caller.account or every_account)
        ]
        return self.newest_first(listed, key=lambda transaction: transaction.number)

    def find_transaction(
        self,
        caller: Credential,
        wanted: str,
        *,
        by_public_id: bool = False,
        any_account: bool = False,
        by_prefix: bool = False,
        any_case: bool = False,
    ) -> Transaction:
        """One of the caller's transactions, by its exact reference (by its publicId, `by_public_id`, under a fault).
        Faults widen the lookup: any account's transaction of the caller's mode, a reference's prefix; a variant
        matches the reference in any letter case (`any_case`)."""
        in_mode = [t for t in self.transactions if t.live == caller.live]
        identifier: Callable[[Transaction], str] = (lambda t: t.public_id) if by_public_id else (lambda t: t.reference)
        return self._owned(
            caller,
            in_mode,
            identifier,
            wanted,
            "Transaction",
            any_account=any_account,
            by_prefix=by_prefix,
            any_case=any_case,
        )
