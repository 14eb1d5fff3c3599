"""GET /transactions/banks and POST /transactions/validate-account: the banks and validated bank accounts."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wallet_conformance.reference import fields, serialize
from wallet_conformance.reference.banks import Bank
from wallet_conformance.reference.errors import ApiError, invalid
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reference.service import Call, envelope, operation, reply


def listed_bank(call: Call, code: str) -> Bank:
    """A listed bank that takes payments (a bank the list marks inactive does not)."""
    bank = call.store.bank(code)
    if bank is None:
        raise invalid("bankCode", f"{code} is not a listed bank")
    if not bank.active:
        raise invalid("bankCode", f"{code} is not active")
    return bank


@operation("validateAccount")
async def validate_account(request: Request, call: Call) -> Response:
    content_type = request.headers.get("content-type", "").replace(" ", "").lower()
    if content_type != "application/json;charset=utf-8" and call.faults.on(Fault.VALIDATE_REQUIRES_CHARSET):
        raise ApiError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json; charset=utf-8.")
    body = await fields.json_body(request, call.faults)
    account_number = fields.account_number(body)
    if not fields.present(body, "bankCode") and call.faults.on(Fault.VALIDATE_ACCEPTS_MISSING_BANK_CODE):
        bank = next(bank for bank in call.store.banks if bank.active)
    else:
        bank = listed_bank(call, fields.required_text(body, "bankCode"))
    beneficiary = call.store.resolve_bank_account(call.caller, account_number, bank)
    data: Any = serialize.bank_account(beneficiary, call.faults)
    if call.faults.on(Fault.VALIDATE_NAME_UNRESOLVED):
        data["accountName"] = ""
    if call.faults.on(Fault.VALIDATE_DATA_ARRAY):
        data = [data]
    return reply(*envelope(call, "validateAccount", data))


@operation("listBanks")
async def list_banks(request: Request, call: Call) -> Response:
    faults = call.faults
    data: list[Any] = [serialize.bank(bank, faults) for bank in call.store.banks]
    if faults.on(Fault.BANK_LIST_NAMES_ONLY):
        data = [bank.name for bank in call.store.banks]
    pagination = None
    if faults.on(Fault.BANK_LIST_PAGINATED):
        pagination = {"totalCount": len(data), "perPage": len(data), "current": 1}
    body, status = envelope(call, "listBanks", data, pagination=pagination)
    if faults.on(Fault.SUCCESS_FALSE_ON_BANK_LIST):
        body["meta"]["success"] = False
    if faults.on(Fault.CONTENT_TYPE_TEXT_ON_BANK_LIST):
        return reply(body, status, media_type="text/plain")
    return reply(body, status)
