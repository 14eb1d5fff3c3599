"""GET /transactions, GET /transactions/{reference}/verify, and the two transfers."""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wallet_conformance.reference import fields, serialize
from wallet_conformance.reference.errors import ApiError, crash
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.ledger import TOP_FEE_TIER_FLOOR
from wallet_conformance.reference.paging import paginate
from wallet_conformance.reference.records import CURRENCY, LISTED_LATE, PENDING, SUCCESS, Transaction, Wallet, now
from wallet_conformance.reference.routes.banks import listed_bank
from wallet_conformance.reference.service import Call, envelope, operation, reply
from wallet_conformance.reference.variants import Variant
from wallet_conformance.reference.withholding import withheld
from wallet_conformance.spec import contract

RACE_PAUSE = 0.05  # seconds awaited between a transfer's balance check and its debit, under CONCURRENT_OVERDRAFT


@operation("listTransactions")
async def list_transactions(request: Request, call: Call) -> Response:
    everyone = call.faults.on(Fault.OTHER_BUSINESS_TRANSACTIONS_LISTED)
    listed = call.store.transactions_of(call.caller, every_account=everyone)
    if call.faults.on(Fault.TRANSACTION_LISTED_A_MINUTE_LATE):
        listed = [transaction for transaction in listed if now() - transaction.created_at >= LISTED_LATE]
    if call.faults.on(Fault.PAYERS_DEBIT_LISTED_TO_PAYEE):
        # Another account's debits into the caller's wallets, beside their credit legs, as one query over both parties.
        paid_in = [
            t
            for t in call.store.transactions
            if t.entry == "debit"
            and t.live == call.caller.live
            and isinstance(t.destination, Wallet)
            and t.destination.account is call.caller.account
            and t.account is not call.caller.account
        ]
        listed = call.store.newest_first([*listed, *paid_in], key=lambda transaction: transaction.number)
    page, pagination = paginate(request, listed, call)
    data: list[Any] = [serialize.transaction(transaction, call.faults) for transaction in page]
    if call.faults.on(Fault.LISTED_BANK_DESTINATION_TYPE):
        for entry in data:
            if entry["destinationType"] == "BankAccount":
                entry["destinationType"] = "bank_account"
    if call.faults.on(Fault.LISTED_DESTINATION_IS_ACCOUNT_NUMBER):
        for entry in data:
            if entry["destinationType"] == "VirtualAccount":
                entry["destination"] = entry["destinationData"].get("accountNumber")
    if call.faults.on(Fault.TRANSACTIONS_LIST_OF_REFERENCES):
        data = [transaction.reference for transaction in page]
    if call.faults.on(Fault.PAGINATION_MISSING_ON_TRANSACTIONS):
        pagination = None
    if not page and call.faults.on(Fault.EMPTY_TRANSACTION_LIST_WITHOUT_PAGINATION):
        pagination = None
    return reply(*envelope(call, "listTransactions", withheld(call, data), pagination=pagination))


@operation("verifyTransaction")
async def verify_transaction(request: Request, call: Call) -> Response:
    faults = call.faults
    try:
        transaction = call.store.find_transaction(
            call.caller,
            request.path_params["reference"],
            by_public_id=faults.on(Fault.VERIFY_BY_PUBLIC_ID),
            any_account=faults.on(Fault.OTHER_ACCOUNT_TRANSACTION_VERIFIABLE),
            by_prefix=faults.on(Fault.VERIFY_BY_PREFIX),
            any_case=call.variants.on(Variant.VERIFY_ANY_CASE),
        )
    except ApiError:
        if not call.faults.on(Fault.UNKNOWN_REFERENCE_200):
            raise
        return reply(*envelope(call, "verifyTransaction", None))
    data = serialize.transaction(transaction, call.faults, verify=True)
    if call.faults.on(Fault.VERIFY_STATUS_FROZEN):
        data["status"] = PENDING
    if call.faults.on(Fault.VERIFY_CACHED_PER_REFERENCE):
        data = call.store.verified.setdefault(transaction.public_id, data)
    return reply(*envelope(call, "verifyTransaction", withheld(call, data)))


def _transfer_reply(call: Call, operation_id: str, data: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The envelope shared by both transfers."""
    body, status = envelope(call, operation_id, withheld(call, data))
    if call.faults.on(Fault.SUCCESS_AS_STRING_ON_TRANSFER):
        body["meta"]["success"] = "true"
    return body, status


def _narration(call: Call, body: fields.Body) -> str:
    """Free text; optional (default "") unless a variant requires it."""
    required = call.variants.on(Variant.NARRATION_REQUIRED)
    return fields.text(body, "narration", required=required, default="") or ""


def _check_to_debit(faults: FaultSet) -> float | None:
    """Seconds awaited between a transfer's balance check and its debit under a fault (0: one turn of the event loop,
    the narrowest window an await opens); None when they are one step, as they must be."""
    if faults.on(Fault.CONCURRENT_OVERDRAFT):
        return RACE_PAUSE
    if faults.on(Fault.BALANCE_CHECKED_THEN_DEBITED):
        return 0
    return None


async def _balance_read_before(call: Call, source: Wallet) -> int | None:
    """Under SOURCE_BALANCE_WRITTEN_BACK_STALE, the source's balance read RACE_PAUSE before its debit (which then
    writes that read back less its own debit, as an ORM's read-then-save does); None otherwise."""
    if not call.faults.on(Fault.SOURCE_BALANCE_WRITTEN_BACK_STALE):
        return None
    read = source.balance
    await asyncio.sleep(RACE_PAUSE)
    return read


def _written_back(call: Call, read: int | None, accepted: Transaction) -> None:
    """The stale read of `_balance_read_before`, less this transfer's debit, written over the source's balance."""
    if read is not None:
        call.ledger.write_balance(accepted.source, read - accepted.actual_amount)  # type: ignore[arg-type]


@operation("transfer")
async def transfer(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults, store = call.faults, call.store
    source_id = fields.required_text(body, "source")
    source_type = fields.text(body, "sourceType", required=False)
    if not faults.on(Fault.TRANSFER_OTHER_SOURCE_TYPE_ACCEPTED):
        fields.one_of(body, "sourceType", ("VirtualAccount",), required=False)
    destination_id = fields.required_text(body, "destination")
    fields.one_of(body, "destinationType", ("VirtualAccount",), required=False)
    minimum = contract.minimum_amount("transfer")
    if faults.on(Fault.TRANSFER_MINIMUM_OFF_BY_ONE):
        minimum -= 1
    if faults.on(Fault.TRANSFER_MINIMUM_EXCLUSIVE):
        minimum += 1
    round_down = faults.on(Fault.FRACTIONAL_AMOUNT_ACCEPTED)
    try:
        amount = fields.kobo(
            body, "amount", minimum=minimum, round_fractions_down=round_down, numeric_strings=call.numeric_strings
        )
    except ApiError:
        sent = body.get("amount")
        below = isinstance(sent, int | float) and not isinstance(sent, bool) and sent < minimum
        if below and faults.on(Fault.AMOUNT_BELOW_MINIMUM_500):
            raise crash() from None
        if below and sent > 0 and faults.on(Fault.REFUSED_TRANSFER_STILL_DEBITS):
            taken = store.find_wallet(call.caller, source_id)
            call.ledger.write_balance(taken, taken.balance - int(sent))
        raise
    if not faults.on(Fault.TRANSFER_OTHER_CURRENCY_ACCEPTED):
        fields.one_of(body, "currency", (CURRENCY,), required=False)
    narration = _narration(call, body)

    later = call.variants.on(Variant.CLOSED_WALLET_FAILS_LATER)  # closed wallets: accepted, failed at settlement
    closed_source = later or faults.on(Fault.CLOSED_WALLET_STILL_TRANSFERS)
    anyone = faults.on(Fault.OTHER_ACCOUNT_WALLET_TRANSFERS)
    source = store.find_wallet(call.caller, source_id, include_closed=closed_source, any_account=anyone)
    destination = store.find_destination_wallet(call.caller, destination_id, include_closed=later)
    read = await _balance_read_before(call, source)
    # The ledger checks and debits in one step; nothing may be awaited between the two.
    pause = _check_to_debit(faults)
    if pause is not None:
        call.ledger.require_funds(source, amount)
        await asyncio.sleep(pause)
        check_funds = False
    else:
        check_funds = not faults.on(Fault.OVERDRAFT_ALLOWED)
    accepted = call.ledger.transfer(
        call.caller,
        source=source,
        destination=destination,
        amount=amount,
        narration=narration,
        check_funds=check_funds,
        doomed=later and not (source.open and destination.open),
    )
    _written_back(call, read, accepted)
    call.service.schedule_settlement(accepted)

    data = serialize.transaction(accepted, faults)
    if source_type is not None:
        data["sourceType"] = source_type  # what was sent (one of the documented values, but for a fault)
    if faults.on(Fault.TRANSFER_IMMEDIATELY_SUCCESSFUL):
        data["status"] = SUCCESS
    if faults.on(Fault.TRANSFER_ENTRY_CREDIT):
        data["entry"] = "credit"
    if faults.on(Fault.TRANSFER_DESTINATION_TYPE_WALLET):
        data["destinationType"] = "Wallet"
    body, status = _transfer_reply(call, "transfer", data)
    if faults.on(Fault.TRANSFER_201):
        status = body["meta"]["statusCode"] = HTTPStatus.CREATED
    return reply(body, status)


@operation("bankTransfer")
async def bank_transfer(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults, store = call.faults, call.store
    source_id = fields.required_text(body, "source")
    account_number = fields.account_number(body)
    bank = listed_bank(call, fields.required_text(body, "bankCode"))
    minimum = contract.minimum_amount("bankTransfer")
    if faults.on(Fault.BANK_TRANSFER_MINIMUM_MISSING):
        minimum = 1
    if faults.on(Fault.BANK_TRANSFER_MINIMUM_EXCLUSIVE):
        minimum += 1
    amount = fields.kobo(body, "amount", minimum=minimum, numeric_strings=call.numeric_strings)
    fields.one_of(body, "currency", (CURRENCY,), required=False)
    narration = _narration(call, body)

    source = store.find_wallet(call.caller, source_id, any_account=faults.on(Fault.OTHER_ACCOUNT_WALLET_BANK_TRANSFERS))
    beneficiary = store.resolve_bank_account(call.caller, account_number, bank)
    read = await _balance_read_before(call, source)
    accepted = call.ledger.bank_transfer(
        call.caller, source=source, beneficiary=beneficiary, amount=amount, narration=narration
    )
    _written_back(call, read, accepted)
    call.service.schedule_settlement(accepted)

    data = serialize.transaction(accepted, faults)
    top_tier = accepted.amount > TOP_FEE_TIER_FLOOR and faults.on(Fault.ACTUAL_AMOUNT_WITHOUT_FEE_IN_TOP_TIER)
    if faults.on(Fault.ACTUAL_AMOUNT_EXCLUDES_FEE) or top_tier:
        data["actualAmount"] = data["clientTransaction"]["actualAmount"] = accepted.amount
    if faults.on(Fault.BANK_TRANSFER_STATUS_PROCESSING):
        data["status"] = "processing"
    if faults.on(Fault.BANK_TRANSFER_DESTINATION_VIRTUAL):
        data["destinationType"] = "VirtualAccount"
    if faults.on(Fault.BANK_TRANSFER_DESTINATION_NUMBER_REVERSED):
        data["destinationData"]["accountNumber"] = account_number[::-1]
    if faults.on(Fault.BANK_TRANSFER_ANSWER_DROPS_NARRATION):
        data["narration"] = ""
    return reply(*_transfer_reply(call, "bankTransfer", data))
