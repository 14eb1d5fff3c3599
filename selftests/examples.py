"""Valid instances of every resource form, built from the document's tables (one place, reused by self-tests).

Each constant is a valid instance; use `fresh()` to get a copy that a test may change.
"""

from __future__ import annotations

import json
from typing import Any

T0 = "2024-05-06T09:30:12.345Z"
T1 = "2024-05-06T09:40:12.345Z"

ACCOUNT: dict[str, Any] = {
    "_id": "663895a4c1b2d3e4f5a6b7c8",
    "id": "663895a4c1b2d3e4f5a6b7c8",
    "publicId": "3f2b6a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b",
    "name": "Main business",
    "webhooks": ["https://merchant.example/hooks/wallet"],
    "isDefault": True,
    "pubKey": {"live": "live_pub_4f9c2e1a7b", "test": "test_pub_8d3b5f0c2e"},
    "business": "663895a4c1b2d3e4f5a6b700",
    "createdAt": T0,
    "updatedAt": T1,
    "__v": 0,
}

_WALLET: dict[str, Any] = {
    "publicId": "vba-9f8e7d6c5b4a",
    "auth": "663895a4c1b2d3e4f5a6b701",
    "account": "663895a4c1b2d3e4f5a6b7c8",
    "accountName": "Ada Stores",
    "accountNumber": "9012345678",
    "bankName": "Wema Bank",
    "bankCode": "035",
    "live": False,
    "isFavourite": True,
    "processor": "wema",
    "category": "primary",
    "balance": 250000,
    "currency": "NGN",
    "createdAt": T0,
    "updatedAt": T0,
    "lastUpdated": T0,
}
WALLET_CREATED: dict[str, Any] = {**_WALLET, "id": 1042}
WALLET_READ: dict[str, Any] = {**_WALLET, "_id": "66389601c1b2d3e4f5a6b7d0", "id": "66389601c1b2d3e4f5a6b7d0"}
WALLET_LIST_ENTRY: dict[str, Any] = {**_WALLET, "_id": "66389601c1b2d3e4f5a6b7d0", "id": 1042}

CLOSED_WALLET: dict[str, Any] = {"publicId": "vba-9f8e7d6c5b4a", "accountNumber": "9012345678"}

COLLECTION_ACCOUNT: dict[str, Any] = {
    "publicId": "vba-1a2b3c4d5e6f",
    "account": "663895a4c1b2d3e4f5a6b7c8",
    "reference": "order-10001",
    "parentAccountNumber": "9012345678",
    "accountName": "Chidi Okafor",
    "accountNumber": "9087654321",
    "amount": 500000,
    "bankName": "Wema Bank",
    "bankCode": "035",
    "live": False,
    "processor": "wema",
    "expiration": "2024-05-06T09:45:12.345Z",
    "id": 311,
    "createdAt": T0,
    "updatedAt": T0,
    "currency": "NGN",
    "active": True,
    "status": "pending",
}

BANK_ACCOUNT: dict[str, Any] = {
    "publicId": "bka-5e6f7a8b9c0d",
    "auth": "663895a4c1b2d3e4f5a6b701",
    "account": "663895a4c1b2d3e4f5a6b7c8",
    "accountName": "EMEKA NWOSU",
    "accountNumber": "0123456789",
    "bankName": "Guaranty Trust Bank",
    "bankCode": "058",
    "reference": "d4c3b2a1-validate",
    "live": False,
    "processor": "nibss",
    "id": 77,
    "createdAt": T0,
    "updatedAt": T0,
    "lastUpdated": T0,
    "currency": "NGN",
    "version": 1,
    "beneficiaryType": "personal",
    "clientIds": {},
}

BANK: dict[str, Any] = {
    "id": 12,
    "publicId": "bnk-058gtb",
    "createdAt": T0,
    "updatedAt": T0,
    "deletedAt": None,
    "bankName": "Guaranty Trust Bank",
    "bankCode": "058",
    "nibssBankCode": "000013",
    "country": "nigeria",
    "slug": "guaranty-trust-bank",
    "type": "nuban",
    "currency": "NGN",
    "active": True,
    "processor": "nibss",
    "meta": {"bankCode": "058", "name": "Guaranty Trust Bank", "nibssBankCode": "000013"},
}

WALLET_PARTY: dict[str, Any] = {
    "id": 1042,
    "publicId": "vba-9f8e7d6c5b4a",
    "bankName": "Wema Bank",
    "bankCode": "035",
    "accountName": "Ada Stores",
    "accountNumber": "9012345678",
    "processor": "wema",
    "currency": "NGN",
    "reference": None,
}
OTHER_WALLET_PARTY: dict[str, Any] = {
    **WALLET_PARTY,
    "id": 1043,
    "publicId": "vba-0a1b2c3d4e5f",
    "accountName": "Ada Stores Savings",
    "accountNumber": "9012345679",
    "reference": "vba-ref-1043",
}
BANK_ACCOUNT_PARTY: dict[str, Any] = {
    "id": 77,
    "publicId": "bka-5e6f7a8b9c0d",
    "bankName": "Guaranty Trust Bank",
    "bankCode": "058",
    "accountName": "EMEKA NWOSU",
    "accountNumber": "0123456789",
    "processor": "nibss",
    "clientIds": {},
    "nameEnquiryRef": "NE-000013-240506",
}
EXTERNAL_SOURCE: dict[str, Any] = {
    "id": 9001,
    "processor": "wema",
    "type": "bank",
    "publicId": "src-7c8d9e0f1a2b",
    "createdAt": T0,
    "updatedAt": T0,
    "channel": "dedicated_nuban",
    "reference": "inbound-55501",
    "sessionId": "000013240506093012345678901234",
    "bankName": "Guaranty Trust Bank",
    "bankCode": "058",
    "nibssBankCode": "000013",
    "accountName": "TUNDE BAKARE",
    "accountNumber": "0234567891",
    "currency": "NGN",
    "live": False,
}

RATE: dict[str, Any] = {
    "rateId": 1,
    "rate": 1.0,
    "sourceCurrency": "NGN",
    "destinationCurrency": "NGN",
    "convertedAmount": 10000,
}
CREDIT: dict[str, Any] = {
    "source": "vba-9f8e7d6c5b4a",
    "sourceType": "VirtualAccount",
    "sourceData": WALLET_PARTY,
    "destination": "vba-0a1b2c3d4e5f",
    "destinationType": "VirtualAccount",
    "destinationData": OTHER_WALLET_PARTY,
    "amount": 10000,
    "currency": "NGN",
    "actualAmount": 10000,
    "fee": 0,
    "narration": "rent share",
    "balance": 10000,
}
VERIFY: dict[str, Any] = {
    "status": "success",
    "data": {
        "status": "success",
        "message": "Transaction found",
        "data": {
            "narration": "rent share",
            "amount": 10000,
            "date": T1,
            "beneficiary": {
                "accountNumber": "9012345679",
                "bankCode": "035",
                "bankName": "Wema Bank",
                "accountName": "Ada Stores Savings",
            },
            "transactionStatus": "successful",
            "sessionId": "000035240506094012345678901234",
            "type": "debit",
        },
    },
}
CLIENT_RESPONSE: dict[str, Any] = {
    "message": "Approved",
    "amount": 500000,
    "tranDateTime": T0,
    "currency": "NGN",
    "processor": "wema",
    "narration": "payment for order 10001",
    "reference": "inbound-55501",
    "type": "credit",
    "status": "successful",
    "authorization": {
        "channel": "dedicated_nuban",
        "reference": "inbound-55501",
        "sessionId": "000013240506093012345678901234",
        "bankName": "Guaranty Trust Bank",
        "bankCode": "058",
        "nibssBankCode": "000013",
        "accountName": "TUNDE BAKARE",
        "accountNumber": "0234567891",
    },
}

# A wallet-to-wallet transfer as POST /transactions/transfer returns it.
TRANSFER: dict[str, Any] = {
    "_id": "66389702c1b2d3e4f5a6b7e1",
    "publicId": "trx-3c4d5e6f7a8b",
    "auth": "663895a4c1b2d3e4f5a6b701",
    "account": "663895a4c1b2d3e4f5a6b7c8",
    "deletedAt": None,
    "tags": [],
    "currency": "NGN",
    "entry": "debit",
    "live": False,
    "source": "vba-9f8e7d6c5b4a",
    "sourceType": "VirtualAccount",
    "sourceData": WALLET_PARTY,
    "destination": "vba-0a1b2c3d4e5f",
    "destinationType": "VirtualAccount",
    "destinationData": OTHER_WALLET_PARTY,
    "amount": 10000,
    "balance": 240000,
    "clientTransaction": {"fee": 0, "actualAmount": 10000},
    "fee": 0,
    "feeReference": None,
    "actualAmount": 10000,
    "narration": "rent share",
    "reference": "trf-20240506-0001",
    "debitReference": None,
    "tRef": "t-3c4d5e6f",
    "linkRef": "l-3c4d5e6f",
    "status": "pending",
    "processor": "wema",
    "meta": {"isThirdParty": False, "rate": RATE, "credit": CREDIT},
    "currencyPair": "NGN/NGN",
    "batchId": None,
    "metadata": {},
    "createdAt": T1,
    "updatedAt": T1,
}

# A wallet-to-bank-account transfer as POST /transactions/bank-transfer returns it, with a fee.
BANK_TRANSFER: dict[str, Any] = {
    **TRANSFER,
    "_id": "66389702c1b2d3e4f5a6b7e2",
    "publicId": "trx-4d5e6f7a8b9c",
    "destination": "bka-5e6f7a8b9c0d",
    "destinationType": "BankAccount",
    "destinationData": BANK_ACCOUNT_PARTY,
    "amount": 20000,
    "fee": 5000,
    "actualAmount": 25000,
    "clientTransaction": {"fee": 5000, "actualAmount": 25000},
    "feeReference": "fee-4d5e6f7a8b9c",
    "debitReference": "dr-4d5e6f7a8b9c",
    "balance": 225000,
    "reference": "btr-20240506-0002",
    "meta": {"isThirdParty": True},
}

# An external payment into a wallet, as the transaction list shows it.
INBOUND_CREDIT: dict[str, Any] = {
    **TRANSFER,
    "_id": "66389702c1b2d3e4f5a6b7e3",
    "publicId": "trx-5e6f7a8b9c0d",
    "entry": "credit",
    "source": "src-7c8d9e0f1a2b",
    "sourceType": "External",
    "sourceData": EXTERNAL_SOURCE,
    "destination": "vba-9f8e7d6c5b4a",
    "destinationData": WALLET_PARTY,
    "amount": 500000,
    "actualAmount": 500000,
    "clientTransaction": {"fee": 0, "actualAmount": 500000},
    "balance": 750000,
    "reference": "inbound-55501",
    "status": "success",
    "meta": {
        "rate": RATE,
        "clientResponse": CLIENT_RESPONSE,
        "credit": {
            **CREDIT,
            "source": "src-7c8d9e0f1a2b",
            "sourceType": "External",
            "sourceData": EXTERNAL_SOURCE,
            "destination": "vba-9f8e7d6c5b4a",
            "destinationData": WALLET_PARTY,
            "amount": 500000,
            "actualAmount": 500000,
            "auth": "663895a4c1b2d3e4f5a6b701",
            "account": "663895a4c1b2d3e4f5a6b7c8",
            "linkRef": "l-5e6f7a8b",
        },
    },
}

# The transfer as GET /transactions/{reference}/verify returns it.
VERIFIED: dict[str, Any] = {
    **TRANSFER,
    "requestSrc": "api",
    "status": "success",
    "meta": {**TRANSFER["meta"], "verify": VERIFY},
}

PAGINATION: dict[str, Any] = {"totalCount": 1, "perPage": 10, "current": 1}


def envelope(data: Any, status: int = 200, message: str | None = None, pagination: dict | None = None) -> dict:
    """A success envelope around `data`."""
    meta: dict[str, Any] = {"statusCode": status, "success": True}
    if message is not None:
        meta["message"] = message
    if pagination is not None:
        meta["pagination"] = pagination
    return {"meta": meta, "data": data}


def fresh(instance: Any) -> Any:
    """A copy a test may change, sharing no object with the constants or within itself."""
    return json.loads(json.dumps(instance))
