"""POST /collection-accounts: temporary accounts that collect a payment into a wallet."""

from __future__ import annotations

import asyncio
import re
from http import HTTPStatus

from starlette.requests import Request
from starlette.responses import Response

from wallet_conformance.reference import fields, serialize
from wallet_conformance.reference.errors import ApiError, crash, invalid
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reference.latency import held_until_abandoned
from wallet_conformance.reference.records import Wallet
from wallet_conformance.reference.service import Call, envelope, operation, reply
from wallet_conformance.reference.variants import Variant
from wallet_conformance.reference.withholding import withheld
from wallet_conformance.spec import contract

# The body's fields, by their names in lower case.
BODY_FIELDS = {name.lower(): name for name in ("destination", "accountName", "amount", "expireIn", "reference")}
# An amount written with an exponent in the raw body (`"amount": 1e4`), its digits before the `e`.
EXPONENT_AMOUNT = re.compile(r'"amount"\s*:\s*(?P<digits>[0-9]+)[eE]')


@operation("createCollectionAccount")
async def create_collection_account(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults = call.faults
    if faults.on(Fault.NAMES_MATCHED_IGNORING_CASE):
        body = {BODY_FIELDS.get(name.lower(), name): value for name, value in body.items()}
    destination_id = fields.required_text(body, "destination")
    name_required = not faults.on(Fault.COLLECTION_ACCEPTS_MISSING_ACCOUNT_NAME)
    account_name = fields.text(body, "accountName", required=name_required)
    amount: int | float | str
    sent = body.get("amount")
    mantissa = EXPONENT_AMOUNT.search((await request.body()).decode(errors="replace"))
    if isinstance(sent, str) and faults.on(Fault.AMOUNT_STRING_ACCEPTED_AND_ECHOED):
        amount = sent  # kept as the string it was sent as
    elif isinstance(sent, float) and sent.is_integer() and faults.on(Fault.COLLECTION_FLOAT_AMOUNT_KEPT):
        amount = sent  # kept as the float it was sent as
    elif mantissa is not None and faults.on(Fault.EXPONENT_AMOUNT_READ_AS_MANTISSA):
        amount = int(mantissa["digits"])  # read as a parser that stops at the `e` reads it
    else:
        amount = fields.kobo(
            body,
            "amount",
            minimum=1,
            numeric_strings=call.numeric_strings,
            round_fractions_down=faults.on(Fault.COLLECTION_FRACTIONAL_AMOUNT_ACCEPTED),
        )
    expire_in = fields.seconds(body, "expireIn", numeric_strings=call.numeric_strings)
    lower, upper = contract.expire_in_bounds()
    if faults.on(Fault.EXPIRE_IN_LOWER_BOUND_OFF):
        lower -= 1
    too_long = expire_in > upper
    if faults.on(Fault.EXPIRE_IN_UPPER_BOUND_EXCLUSIVE):
        too_long = expire_in >= upper
    if faults.on(Fault.EXPIRE_IN_NO_UPPER_BOUND):
        too_long = False
    if expire_in < lower or too_long:
        if expire_in < lower and faults.on(Fault.EXPIRE_IN_OUT_OF_RANGE_500):
            raise crash()
        raise invalid("expireIn", f"must be from {lower} to {upper} seconds")
    reference = fields.text(body, "reference", required=faults.on(Fault.COLLECTION_REQUIRES_REFERENCE))
    shortest = contract.reference_min_length()
    if faults.on(Fault.REFERENCE_MIN_LENGTH_4):
        shortest -= 1
    if faults.on(Fault.REFERENCE_MIN_LENGTH_6):
        shortest += 1
    length = len(reference or "")
    if reference is not None and faults.on(Fault.REFERENCE_LENGTH_IN_BYTES):
        length = len(reference.encode())
    if reference is not None and faults.on(Fault.REFERENCE_LENGTH_IN_UTF16_UNITS):
        length = len(reference.encode("utf-16-le")) // 2
    if reference is not None and length < shortest:
        if faults.on(Fault.SHORT_REFERENCE_500):
            raise crash()
        raise invalid("reference", f"must be at least {shortest} characters")

    destination: Wallet | None
    try:
        # The caller's own wallet (any account's, under a variant).
        anyone = call.variants.on(Variant.COLLECTIONS_INTO_ANY_WALLET)
        closed_too = faults.on(Fault.COLLECTION_INTO_CLOSED_WALLET_ACCEPTED)
        destination = call.store.find_wallet(call.caller, destination_id, any_account=anyone, include_closed=closed_too)
    except ApiError:
        if faults.on(Fault.UNKNOWN_DESTINATION_UNANSWERED):
            await held_until_abandoned(request)
        if not faults.on(Fault.COLLECTION_ACCEPTS_UNKNOWN_DESTINATION):
            raise
        destination = None
    # The reference's uniqueness check and the account's insert are one step; nothing may be awaited between them.
    racing = reference is not None and faults.on(Fault.REFERENCE_CHECKED_THEN_STORED)
    if racing:
        call.store.require_unused_reference(call.caller, reference, destination)
        await asyncio.sleep(0)  # one turn of the event loop
    collection = call.store.create_collection_account(
        call.caller,
        destination=destination,
        account_name=account_name
        if account_name is not None
        else (destination.account_name if destination else call.caller.account.name),
        amount=amount,
        expire_in=expire_in,
        reference=reference,
        reference_checked=racing,
    )
    data = serialize.collection_account(collection, faults)
    if faults.on(Fault.COLLECTION_CREATE_RETURNS_WALLET) and destination is not None:
        data = serialize.wallet(destination, "read", faults)
    body, status = envelope(call, "createCollectionAccount", withheld(call, data))
    if faults.on(Fault.COLLECTION_CREATED_200):
        status = body["meta"]["statusCode"] = HTTPStatus.OK
    return reply(body, status)
