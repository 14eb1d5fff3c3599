"""What an answer shows of another business's wallet, under the variant OTHER_BUSINESS_WITHHELD, wherever a transaction
or a collection account repeats it: its name masked, its number left out (a collection account's parent number
masked), and a credit leg's balance (its destination's) null: the three ways of withholding. The caller's own wallets,
and its business's, are shown whole."""

from __future__ import annotations

import copy
from typing import Any

from wallet_conformance.reference.records import Wallet
from wallet_conformance.reference.service import Call
from wallet_conformance.reference.variants import Variant

SIDES = ("source", "destination")
SHOWN_DIGITS = 4  # the last digits of a masked account number


def withheld(call: Call, data: Any) -> Any:
    """`data` (a transaction, a collection account, or a list of transactions) as the caller may see it: unchanged
    unless the variant is on."""
    if not call.variants.on(Variant.OTHER_BUSINESS_WITHHELD):
        return data
    if isinstance(data, list):
        return [_record(call, entry) for entry in data]
    return _record(call, data)


def _record(call: Call, record: Any) -> Any:
    if not isinstance(record, dict):
        return record
    shown = copy.deepcopy(record)
    if isinstance(shown.get("parentAccountNumber"), str) and _foreign(call, number=shown["parentAccountNumber"]):
        shown["parentAccountNumber"] = _masked_number(shown["parentAccountNumber"])
    meta = shown.get("meta")
    credit = meta.get("credit") if isinstance(meta, dict) else None
    for leg in filter(lambda leg: isinstance(leg, dict), (shown, credit)):
        for side in SIDES:
            party = leg.get(f"{side}Data")
            if isinstance(party, dict) and _foreign(call, public_id=leg.get(side)):
                party["accountName"] = _masked_name(party.get("accountName"))
                party.pop("accountNumber", None)
                if leg is credit and side == "destination":
                    leg["balance"] = None
    return shown


def _foreign(call: Call, *, public_id: Any = None, number: Any = None) -> bool:
    """Whether a wallet (by publicId or account number) belongs to another business than the caller's."""
    wallet: Wallet | None = next(
        (wallet for wallet in call.store.wallets if wallet.public_id == public_id or wallet.account_number == number),
        None,
    )
    return wallet is not None and wallet.account.business != call.caller.account.business


def _masked_name(name: Any) -> Any:
    return f"{name[0]}***" if isinstance(name, str) and name else name


def _masked_number(number: Any) -> Any:
    return "*" * (len(number) - SHOWN_DIGITS) + number[-SHOWN_DIGITS:] if isinstance(number, str) else number
