"""POST, GET /virtual-accounts and GET, DELETE /virtual-accounts/{walletId}: the wallets."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wallet_conformance.reference import fields, serialize
from wallet_conformance.reference.errors import ApiError, Refusal, crash, invalid
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.latency import held_until_abandoned
from wallet_conformance.reference.paging import paginate
from wallet_conformance.reference.records import CURRENCY, LISTED_LATE, Wallet, now
from wallet_conformance.reference.service import DOCUMENTED, Call, envelope, operation, reply
from wallet_conformance.reference.variants import Variant

CATEGORIES = ("primary", "secondary")
RACE_PAUSE = 0.05  # seconds awaited between the primary limit's check and the opening, under PRIMARY_LIMIT_RACE


def _count_to_opening(faults: FaultSet) -> float | None:
    """Seconds awaited between the primary limit's count and a primary wallet's opening under a fault (0: one turn of
    the event loop); None when they are one step, as they must be."""
    if faults.on(Fault.PRIMARY_LIMIT_RACE):
        return RACE_PAUSE
    if faults.on(Fault.PRIMARY_COUNTED_THEN_OPENED):
        return 0
    return None


@operation("createWallet")
async def create_wallet(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults = call.faults
    category = fields.required_text(body, "category")
    if (
        category == "primary"
        and "mobile" in body
        and body["mobile"] is None
        and faults.on(Fault.NULL_MOBILE_UNANSWERED)
    ):
        await held_until_abandoned(request)
    if category not in CATEGORIES:
        if not faults.on(Fault.UNKNOWN_CATEGORY_ACCEPTED):
            raise invalid("category", f"must be one of {', '.join(CATEGORIES)}")
        category = "secondary"
    # accountName and currency: optional (the account's name, NGN) unless a variant requires them.
    required = call.variants.on(Variant.WALLET_NAME_REQUIRED)
    account_name = fields.text(body, "accountName", required=required, default=call.caller.account.name)
    if faults.on(Fault.WALLET_NAME_FROM_ACCOUNT):
        account_name = call.caller.account.name
    fields.one_of(body, "currency", (CURRENCY,), required=required)

    # emailAddress and mobile: required only for secondary wallets; checked whenever sent.
    email_required = category == "secondary" and not faults.on(Fault.SECONDARY_WITHOUT_EMAIL_ACCEPTED)
    if category == "primary" and faults.on(Fault.PRIMARY_REQUIRES_EMAIL):
        email_required = True
    email = fields.text(body, "emailAddress", required=email_required)
    if email is not None and not faults.on(Fault.EMAIL_NOT_VALIDATED):
        try:
            fields.email(email, "emailAddress")
        except ApiError:
            if faults.on(Fault.INVALID_EMAIL_500):
                raise crash() from None
            raise
    mobile_required = category == "secondary" and not faults.on(Fault.SECONDARY_WITHOUT_MOBILE_ACCEPTED)
    if mobile_required and not fields.present(body, "mobile"):
        raise invalid("mobile", "is required for secondary wallets")
    iso_code_required = not faults.on(Fault.MOBILE_WITHOUT_ISO_CODE_ACCEPTED)
    mobile = fields.mobile(body, iso_code_required=iso_code_required) if fields.present(body, "mobile") else None

    # The limit's check and the wallet's opening are one step; nothing may be awaited between the two.
    pause = _count_to_opening(faults) if category == "primary" else None
    if pause is not None:
        call.store.require_primary_place(call.caller)
        await asyncio.sleep(pause)
    wallet = call.store.create_wallet(
        call.caller,
        category=category,
        account_name=account_name or "",
        email_address=email,
        mobile=mobile,
        limit_checked=pause is not None,
    )
    data = serialize.wallet(wallet, "create", faults)
    if faults.on(Fault.CREATE_WALLET_CATEGORY_ALWAYS_PRIMARY):
        data["category"] = "primary"
    return reply(*envelope(call, "createWallet", data))


@operation("listWallets")
async def list_wallets(request: Request, call: Call) -> Response:
    listed = call.store.wallets_of(call.caller, include_closed=call.variants.on(Variant.CLOSED_WALLET_LISTED))
    if call.faults.on(Fault.WALLET_LISTED_A_MINUTE_LATE):
        listed = [wallet for wallet in listed if now() - wallet.created_at >= LISTED_LATE]
    category = request.query_params.get("category")
    across = category is not None and call.faults.on(Fault.WALLET_CATEGORY_FILTER_ACROSS_BUSINESSES)
    if across:
        listed = [
            wallet
            for wallet in call.store.wallets
            if wallet.live == call.caller.live and wallet.open and wallet.category == category
        ]
    page, pagination = paginate(request, listed, call, filters=("category",) if across else ())
    if call.faults.on(Fault.TOTAL_COUNTS_CLOSED_WALLETS):
        pagination["totalCount"] = len(call.store.wallets_of(call.caller, include_closed=True))
    if call.faults.on(Fault.PAGINATION_TOTAL_AS_STRING):
        pagination["totalCount"] = str(pagination["totalCount"])
    data: Any = [serialize.wallet(wallet, "list", call.faults) for wallet in page]
    if call.faults.on(Fault.WALLET_LIST_BALANCE_STALE):
        for entry, wallet in zip(data, page, strict=True):
            entry["balance"] -= call.store.last_transfer_credit(wallet)
    if call.faults.on(Fault.WALLET_LIST_NUMBER_REVERSED):
        for entry in data:
            entry["accountNumber"] = entry["accountNumber"][::-1]
    if call.faults.on(Fault.WALLET_LIST_OF_IDS):
        data = [entry["publicId"] for entry in data]
    if call.faults.on(Fault.DATA_OBJECT_ON_WALLET_LIST):
        data = {"items": data}
    if not page and call.faults.on(Fault.EMPTY_WALLET_LIST_DATA_NULL):
        data = None
    return reply(*envelope(call, "listWallets", data, pagination=pagination))


@operation("getWallet")
async def get_wallet(request: Request, call: Call) -> Response:
    wallet_id = request.path_params["walletId"]
    faults = call.faults
    wallet: Wallet | None
    if faults.on(Fault.GET_WALLET_RETURNS_FIRST) and call.store.wallets_of(call.caller):
        wallet = min(call.store.wallets_of(call.caller), key=lambda w: w.number)  # the oldest, whatever was asked
    else:
        try:
            closed_too = call.variants.on(Variant.CLOSED_WALLET_READABLE)
            wallet = call.store.find_wallet(
                call.caller,
                wallet_id,
                include_closed=closed_too,
                any_account=faults.on(Fault.OTHER_ACCOUNT_WALLET_READABLE),
                by_prefix=faults.on(Fault.WALLET_READ_BY_PREFIX),
            )
        except ApiError:
            if not faults.on(Fault.UNKNOWN_WALLET_200):
                raise
            wallet = None
    data = serialize.wallet(wallet, "read", faults) if wallet else None
    message = DOCUMENTED
    if faults.on(Fault.MESSAGE_ON_WALLET_READ):
        message = "VirtualAccount successfully retrieved"
    body, status = envelope(call, "getWallet", data, message=message)
    if faults.on(Fault.ENVELOPE_DATA_MISSING_ON_WALLET_READ):
        body["result"] = body.pop("data")
    return reply(body, status)


@operation("closeWallet")
async def close_wallet(request: Request, call: Call) -> Response:
    again = call.variants.on(Variant.CLOSE_IS_IDEMPOTENT)
    anyone = call.faults.on(Fault.OTHER_ACCOUNT_WALLET_CLOSABLE)
    wallet = call.store.find_wallet(
        call.caller, request.path_params["walletId"], include_closed=again, any_account=anyone
    )
    if wallet.open and wallet.balance and call.variants.on(Variant.FUNDED_WALLET_NOT_CLOSABLE):
        raise Refusal.WALLET_HOLDS_MONEY.error(wallet=wallet.public_id, balance=wallet.balance)
    if wallet.open:
        call.store.close_wallet(wallet)
    data = serialize.closed_wallet(wallet)
    if call.faults.on(Fault.CLOSE_WITHOUT_ACCOUNT_NUMBER):
        del data["accountNumber"]
    if call.faults.on(Fault.CLOSE_ACCOUNT_NUMBER_INTEGER):
        data["accountNumber"] = int(wallet.account_number)
    message: Any = DOCUMENTED
    if call.faults.on(Fault.MESSAGE_MISSING_ON_CLOSE):
        message = None
    return reply(*envelope(call, "closeWallet", data, message=message))
