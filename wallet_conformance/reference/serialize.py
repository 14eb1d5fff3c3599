"""Records of the store as the JSON the document shows: its field names, forms and types."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from wallet_conformance.reference.banks import Bank
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.records import (
    CURRENCY,
    PROCESSOR,
    SUCCESS,
    Account,
    BankAccount,
    CollectionAccount,
    ExternalSource,
    Transaction,
    Wallet,
)

Json = dict[str, Any]
WalletForm = Literal["create", "read", "list"]
Stamp = Callable[[datetime], str]
STAMPED = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")  # what `timestamp` writes


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with milliseconds: 2026-11-21T14:05:09.123Z."""
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def with_utc_offset(stamp: str) -> str:
    """The same instant written with the offset +00:00 instead of Z (another ISO 8601 spelling of UTC)."""
    return stamp[:-1] + "+00:00" if STAMPED.fullmatch(stamp) else stamp


def _timestamp_to_the_second(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%S}Z"


# ------------------------------------------------------------------------------ accounts, wallets


def _copy(webhooks: list[str] | str) -> list[str] | str:
    return webhooks if isinstance(webhooks, str) else list(webhooks)


def account(record: Account, faults: FaultSet) -> Json:
    body: Json = {
        "_id": record.id,
        "id": f"acct_{record.id}" if faults.on(Fault.ACCOUNT_ID_DIFFERS) else record.id,
        "publicId": record.public_id,
        "name": record.name,
        "webhooks": ",".join(record.webhooks) if faults.on(Fault.WEBHOOKS_AS_STRING) else _copy(record.webhooks),
        "isDefault": record.is_default,
        "pubKey": {"live": record.pub_key_live, "test": record.pub_key_test},
        "business": record.business,
        "createdAt": timestamp(record.created_at),
        "updatedAt": timestamp(record.updated_at),
        "__v": record.revision,
    }
    if faults.on(Fault.ACCOUNT_WITHOUT_BUSINESS):
        del body["business"]
    if faults.on(Fault.PUBKEY_TEST_MISSING):
        del body["pubKey"]["test"]
    return body


def wallet(record: Wallet, form: WalletForm, faults: FaultSet) -> Json:
    """A wallet in one of its three documented forms.

    create: the integer sequence `id`, no `_id`; read (GET one): `_id` and a string `id` equal to it;
    list: `_id` and the integer `id`.
    """
    identity: Json
    if form == "create":
        identity = {"id": record.number}
        if faults.on(Fault.CREATE_WALLET_WITH_ID):
            identity = {"_id": record.id, "id": record.number}
        if faults.on(Fault.WALLET_CREATE_ID_NULL):
            identity["id"] = None
        if faults.on(Fault.WALLET_CREATE_ID_STRING):
            identity["id"] = str(record.number)
    elif form == "read":
        identity = {"_id": record.id, "id": record.id}
        if faults.on(Fault.WALLET_READ_ID_INTEGER):
            identity["id"] = record.number
        if faults.on(Fault.WALLET_READ_WITHOUT_ID):
            del identity["_id"]
    else:
        identity = {"_id": record.id, "id": record.number}
        if faults.on(Fault.WALLET_LIST_ID_STRING):
            identity["id"] = str(record.number)
    body: Json = {
        **identity,
        "publicId": record.public_id,
        "auth": record.auth,
        "account": record.account.id,
        "accountName": record.account_name,
        "accountNumber": record.account_number,
        "bankName": record.bank.name,
        "bankCode": record.bank.code,
        "live": record.live,
        "isFavourite": record.is_favourite,
        "processor": PROCESSOR,
        "category": record.category,
        "balance": record.balance,
        "currency": CURRENCY,
        "createdAt": timestamp(record.created_at),
        "updatedAt": timestamp(record.updated_at),
        "lastUpdated": timestamp(record.last_updated),
    }
    if form == "read" and faults.on(Fault.WALLET_READ_WITHOUT_PROCESSOR):
        del body["processor"]
    if form == "list" and faults.on(Fault.BALANCE_IN_NAIRA_ON_WALLET_LIST):
        body["balance"] = record.balance / 100
    if form == "list" and faults.on(Fault.WALLET_CATEGORY_UPPERCASE_ON_LIST):
        body["category"] = record.category.upper()
    return body


def closed_wallet(record: Wallet) -> Json:
    return {"publicId": record.public_id, "accountNumber": record.account_number}


def collection_account(record: CollectionAccount, faults: FaultSet) -> Json:
    body: Json = {
        "publicId": record.public_id,
        "account": record.account.business if faults.on(Fault.COLLECTION_ACCOUNT_IS_BUSINESS) else record.account.id,
        "reference": record.reference,
        "parentAccountNumber": (
            record.account_number if faults.on(Fault.COLLECTION_PARENT_IS_OWN_NUMBER) else record.parent_account_number
        ),
        "accountName": record.account_name,
        "accountNumber": (
            record.parent_account_number if faults.on(Fault.COLLECTION_NUMBER_IS_PARENT) else record.account_number
        ),
        "amount": _collection_amount(record.amount, faults),
        "bankName": record.bank.name,
        "bankCode": record.bank.code,
        "live": record.live,
        "processor": PROCESSOR,
        "expiration": timestamp(record.expiration),
        "id": record.number,
        "createdAt": timestamp(record.created_at),
        "updatedAt": timestamp(record.updated_at),
        "currency": CURRENCY.lower() if faults.on(Fault.CURRENCY_LOWERCASE_ON_COLLECTION) else CURRENCY,
        "active": record.active,
        "status": record.status,
    }
    if faults.on(Fault.COLLECTION_WITHOUT_BANK_NAME):
        del body["bankName"]
    return body


def bank_account(record: BankAccount, faults: FaultSet) -> Json:
    body: Json = {
        "publicId": record.public_id,
        "auth": record.auth,
        "account": record.account.id,
        "accountName": record.account_name,
        "accountNumber": record.account_number,
        "bankName": record.bank.name,
        "bankCode": record.bank.nibss_code if faults.on(Fault.BANK_ACCOUNT_CODE_IS_NIBSS) else record.bank.code,
        "reference": record.reference,
        "live": record.live,
        "processor": PROCESSOR,
        "id": record.number,
        "createdAt": timestamp(record.created_at),
        "updatedAt": timestamp(record.updated_at),
        "lastUpdated": timestamp(record.updated_at),
        "currency": CURRENCY,
        "version": record.version,
        "beneficiaryType": record.beneficiary_type,
        "clientIds": {},
    }
    if faults.on(Fault.BANK_ACCOUNT_WITHOUT_VERSION):
        del body["version"]
    return body


def bank(record: Bank, faults: FaultSet) -> Json:
    body: Json = {
        "id": record.id,
        "publicId": record.public_id,
        "createdAt": timestamp(record.created_at),
        "updatedAt": timestamp(record.created_at),
        "deletedAt": (
            "" if faults.on(Fault.BANK_DELETED_AT_EMPTY) else record.deleted_at and timestamp(record.deleted_at)
        ),
        "bankName": record.name,
        "bankCode": record.code,
        "nibssBankCode": record.nibss_code,
        "country": record.country.upper() if faults.on(Fault.BANK_COUNTRY_UPPERCASE) else record.country,
        "slug": record.slug,
        "type": record.type,
        "currency": record.currency,
        "active": record.active,
        "processor": record.processor,
        "meta": {"bankCode": record.code, "name": record.name, "nibssBankCode": record.nibss_code},
    }
    if faults.on(Fault.BANK_WITHOUT_SLUG):
        del body["slug"]
    if faults.on(Fault.BANK_META_WITHOUT_NIBSS):
        del body["meta"]["nibssBankCode"]
    return body


# ----------------------------------------------------------------------------------- transactions


def _actual_amount(record: Transaction, wallet_to_wallet: bool, faults: FaultSet) -> int | float:
    """A transaction's actualAmount as shown: amount plus fee. Under a fault, a wallet transfer's is worked out through
    its amount in naira held as a 32-bit float: exact for whole naira, fractional for most amounts with kobo."""
    if record.entry == "debit" and wallet_to_wallet and faults.on(Fault.TRANSFER_ACTUAL_AMOUNT_VIA_NAIRA_FLOAT):
        naira = struct.unpack("f", struct.pack("f", record.amount / 100))[0]
        actual = naira * 100 + record.fee
        return int(actual) if actual.is_integer() else actual  # written as JSON numbers are: 12300, not 12300.0
    return record.actual_amount


def transaction(record: Transaction, faults: FaultSet, *, verify: bool = False) -> Json:
    """A transaction; `verify` adds what the verify operation shows (requestSrc and meta.verify)."""
    stamp: Stamp = (
        _timestamp_to_the_second if faults.on(Fault.TIMESTAMPS_WITHOUT_MILLISECONDS_ON_TRANSACTIONS) else timestamp
    )
    destination = record.destination.public_id
    if (
        record.entry == "debit"
        and isinstance(record.destination, Wallet)
        and faults.on(Fault.TRANSFER_DESTINATION_IS_ACCOUNT_NUMBER)
    ):
        destination = record.destination.account_number
    inbound = isinstance(record.source, ExternalSource)
    described = record.destination  # what destinationData describes
    wallet_to_wallet = isinstance(record.source, Wallet) and isinstance(record.destination, Wallet)
    if wallet_to_wallet and faults.on(Fault.DESTINATION_DATA_IS_SOURCE):
        described = record.source
    body: Json = {
        "_id": record.id,
        "publicId": record.public_id,
        "auth": record.auth,
        "account": record.account.id,
        "deletedAt": "" if faults.on(Fault.TRANSACTION_DELETED_AT_EMPTY) else None,
    }
    if verify and not faults.on(Fault.VERIFY_WITHOUT_REQUEST_SRC):
        body["requestSrc"] = "api"
    body |= {
        "tags": [],
        "currency": CURRENCY,
        "entry": "CR" if inbound and faults.on(Fault.INBOUND_ENTRY_CR) else record.entry,
        "live": record.live,
        "source": record.source.public_id,
        "sourceType": "external" if inbound and faults.on(Fault.INBOUND_SOURCE_TYPE_LOWERCASE) else record.source_type,
        "sourceData": _party(record.source, record, stamp, faults),
        "destination": destination,
        "destinationType": record.destination_type,
        "destinationData": _party(described, record, stamp, faults),
        "amount": record.amount,
        "balance": record.balance,
        "clientTransaction": {
            "fee": 0 if faults.on(Fault.CLIENT_TRANSACTION_FEE_ZERO) else record.fee,
            "actualAmount": _actual_amount(record, wallet_to_wallet, faults),
        },
        "fee": record.fee,
        "feeReference": record.fee_reference,
        "actualAmount": _actual_amount(record, wallet_to_wallet, faults),
        "narration": record.narration,
        "reference": record.reference,
        "debitReference": record.debit_reference,
        "tRef": record.t_ref,
        "linkRef": record.link_ref,
        "status": record.status,
        "processor": PROCESSOR,
        "meta": _meta(record, stamp, faults, verify=verify),
        "currencyPair": _currency_pair(faults),
        "batchId": None,
        "metadata": {},
        "createdAt": stamp(record.created_at),
        "updatedAt": stamp(record.updated_at),
    }
    if faults.on(Fault.CLIENT_TRANSACTION_MISSING):
        del body["clientTransaction"]
    if faults.on(Fault.TRANSACTION_WITHOUT_TREF):
        del body["tRef"]
    return body


def _currency_pair(faults: FaultSet) -> str:
    if faults.on(Fault.CURRENCY_PAIR_DASH):
        return f"{CURRENCY}-{CURRENCY}"
    return f"USD/{CURRENCY}" if faults.on(Fault.CURRENCY_PAIR_FOREIGN_SOURCE) else f"{CURRENCY}/{CURRENCY}"


def _party(party: Wallet | BankAccount | ExternalSource, record: Transaction, stamp: Stamp, faults: FaultSet) -> Json:
    """sourceData / destinationData: a wallet, a bank account or an external source."""
    if isinstance(party, ExternalSource):
        data: Json = {
            "id": party.number,
            "processor": party.bank.processor,
            "type": party.type,
            "publicId": party.public_id,
            "createdAt": stamp(party.created_at),
            "updatedAt": stamp(party.created_at),
            "channel": party.channel,
            "reference": party.reference,
            "sessionId": party.session_id,
            "bankName": party.bank.name,
            "bankCode": party.bank.code,
            "nibssBankCode": party.bank.nibss_code,
            "accountName": party.account_name,
            "accountNumber": party.account_number,
            "currency": CURRENCY,
            "live": party.live,
        }
        if faults.on(Fault.EXTERNAL_SOURCE_WITHOUT_SESSION):
            del data["sessionId"]
        return data
    data = {
        "id": party.number,
        "publicId": party.public_id,
        "bankName": party.bank.name,
        "bankCode": party.bank.code,
        "accountName": party.account_name,
        "accountNumber": party.account_number,
        "processor": PROCESSOR,
    }
    if isinstance(party, BankAccount):
        data |= {"clientIds": {}, "nameEnquiryRef": record.name_enquiry_ref}
    else:
        data |= {"currency": CURRENCY, "reference": None}
        if party is record.destination and faults.on(Fault.OWN_WALLET_NUMBER_MASKED):
            data["accountNumber"] = "*" * 6 + party.account_number[-4:]
    if party is record.destination and faults.on(Fault.DESTINATION_DATA_ID_STRING):
        data["id"] = str(party.number)
    return data


def _meta(record: Transaction, stamp: Stamp, faults: FaultSet, *, verify: bool) -> Json:
    meta: Json = {"isThirdParty": record.is_third_party}
    if faults.on(Fault.THIRD_PARTY_AS_STRING):
        meta["isThirdParty"] = str(record.is_third_party).lower()
    if isinstance(record.source, ExternalSource):
        meta["clientResponse"] = _client_response(record, record.source, stamp, faults)
        meta["rate"] = {
            "rateId": 1,
            "rate": "1.00" if faults.on(Fault.RATE_AS_STRING) else 1,
            "sourceCurrency": CURRENCY,
            "destinationCurrency": CURRENCY,
            "convertedAmount": record.amount,
        }
        # An inbound credit is its own credit leg, which also names its auth, account and linkRef.
        meta["credit"] = _credit_leg(record, stamp, faults)
        if not faults.on(Fault.INBOUND_CREDIT_LEG_WITHOUT_LINK_FIELDS):
            meta["credit"] |= {"auth": record.auth, "account": record.account.id, "linkRef": record.link_ref}
    elif record.credit is not None:
        meta["credit"] = _credit_leg(record.credit, stamp, faults)
    if verify:
        meta["verify"] = _verification(record, stamp, faults)
    return meta


def _credit_leg(credit: Transaction, stamp: Stamp, faults: FaultSet) -> Json:
    source = credit.source
    if isinstance(source, Wallet) and faults.on(Fault.CREDIT_LEG_FROM_ITS_DESTINATION):
        source = credit.destination
    destination = credit.destination.public_id
    if faults.on(Fault.CREDIT_LEG_DESTINATION_INTERNAL_ID):
        destination = credit.destination.id
    leg: Json = {
        "source": source.public_id,
        "sourceType": credit.source_type,
        "sourceData": _party(source, credit, stamp, faults),
        "destination": destination,
        "destinationType": credit.destination_type,
        "destinationData": _party(credit.destination, credit, stamp, faults),
        "amount": credit.amount,
        "currency": CURRENCY,
        "actualAmount": 0 if faults.on(Fault.CREDIT_LEG_ACTUAL_AMOUNT_ZERO) else credit.actual_amount,
        "fee": credit.fee,
        "narration": credit.narration,
        "balance": credit.balance,
    }
    if faults.on(Fault.CREDIT_LEG_WITHOUT_BALANCE):
        del leg["balance"]
    return leg


def _client_response(record: Transaction, source: ExternalSource, stamp: Stamp, faults: FaultSet) -> Json:
    """What the paying bank's processor reported for an inbound payment."""
    response: Json = {
        "message": "Approved by Financial Institution",
        "amount": record.actual_amount,  # what the payer sent: the amount credited plus any inbound fee
        "tranDateTime": stamp(record.created_at),
        "currency": CURRENCY,
        "processor": source.bank.processor,
        "narration": record.narration,
        "reference": source.reference,
        "type": record.entry,
        "status": "success",
        "authorization": {
            "channel": source.channel,
            "reference": source.reference,
            "sessionId": source.session_id,
            "bankName": source.bank.name,
            "bankCode": source.bank.code,
            "nibssBankCode": source.bank.nibss_code,
            "accountName": source.account_name,
            "accountNumber": source.account_number,
        },
    }
    if faults.on(Fault.CLIENT_RESPONSE_WITHOUT_AUTHORIZATION):
        del response["authorization"]
    return response


def _verification(record: Transaction, stamp: Stamp, faults: FaultSet) -> Json:
    """meta.verify: the processor's answer about the transaction's current status."""
    beneficiary = record.destination
    details: Json = {
        "narration": record.narration,
        "amount": record.amount,
        "date": stamp(record.created_at),
        "beneficiary": {
            "accountNumber": beneficiary.account_number,
            "bankCode": beneficiary.bank.code,
            "bankName": beneficiary.bank.name,
            "accountName": beneficiary.account_name,
        },
        "transactionStatus": "successful" if record.status == SUCCESS else record.status,
        "sessionId": record.session_id,
        "type": record.entry,
    }
    if faults.on(Fault.VERIFY_WITHOUT_BENEFICIARY):
        del details["beneficiary"]
    return {
        "status": "success",
        "data": {"status": "success", "message": "Transaction status retrieved", "data": details},
    }


LARGE_COLLECTION = 10_000_000  # kobo: the amount from which a fault shows collection accounts in naira


def _collection_amount(amount: int | str, faults: FaultSet) -> int | str:
    if isinstance(amount, str):
        return amount
    if faults.on(Fault.COLLECTION_AMOUNT_IN_NAIRA):
        return amount // 100
    if faults.on(Fault.COLLECTION_AMOUNT_IN_NAIRA_WHEN_LARGE) and amount >= LARGE_COLLECTION:
        return amount // 100
    return amount
