"""Valid request bodies of the write operations, built from the contract; tests vary one field at a time.

Every name the suite gives a record starts with the run id, so a sweep can find what a run left behind.
"""

from __future__ import annotations

from typing import Any

from wallet_conformance import contract


def wallet(run_id: str, category: str = "secondary", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"accountName": f"{run_id} wallet", "category": category, "currency": "NGN"}
    if category == "secondary":
        body["emailAddress"] = f"{run_id}@example.com"
        body["mobile"] = {"phoneNumber": "08030000000", "isoCode": "NG"}
    body.update(overrides)
    return body


def collection_account(run_id: str, destination: str, **overrides: Any) -> dict[str, Any]:
    low, _ = contract.expire_in_bounds()
    body: dict[str, Any] = {"destination": destination, "accountName": f"{run_id} collection",
                            "amount": contract.minimum_amount("transfer"), "expireIn": low}
    body.update(overrides)
    return body


def transfer(source: str, destination: str, amount: int | None = None, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "source": source, "sourceType": "VirtualAccount", "destination": destination,
        "destinationType": "VirtualAccount", "amount": amount or contract.minimum_amount("transfer"),
        "currency": "NGN", "narration": "conformance transfer",
    }
    body.update(overrides)
    return body


def bank_transfer(source: str, account_number: str, bank_code: str, amount: int | None = None,
                  **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "source": source, "accountNumber": account_number, "bankCode": bank_code,
        "amount": amount or contract.minimum_amount("bankTransfer"), "currency": "NGN",
        "narration": "conformance bank transfer",
    }
    body.update(overrides)
    return body


def validation(account_number: str, bank_code: str, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"accountNumber": account_number, "bankCode": bank_code}
    body.update(overrides)
    return body


def account_update(webhooks: list[str], **overrides: Any) -> dict[str, Any]:
    """The body of PATCH /accounts/{accountId}: the webhooks (the field the document shows an update set)."""
    body: dict[str, Any] = {"webhooks": webhooks}
    body.update(overrides)
    return body
