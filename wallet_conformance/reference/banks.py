"""The supported banks (data/banks.json: real Nigerian banks with their public bank and NIBSS codes)
and the sandbox's name enquiry for accounts held at them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

DATA = Path(__file__).parent / "data" / "banks.json"

# The bank list is static; its records carry this creation time.
LISTED_AT = datetime(2024, 1, 1, tzinfo=UTC)

# The one account number that exists at no bank: name enquiry on it finds nothing.
UNKNOWN_ACCOUNT_NUMBER = "0000000000"

# Holders of external accounts, chosen by account number (the sandbox's name enquiry).
HOLDER_NAMES = (
    "ADEBAYO OLUWASEUN ADEYEMI",
    "CHIOMA NGOZI OKAFOR",
    "IBRAHIM MUSA ABUBAKAR",
    "FUNMILAYO ADEOLA BANKOLE",
    "EMEKA CHUKWUEMEKA NWOSU",
    "AISHA HALIMA BELLO",
    "OLUWATOBI DAMILOLA ADEWALE",
    "NNEKA ADAEZE EZE",
    "YUSUF ABDULLAHI SANI",
    "TEMITOPE OLUWAFEMI OGUNLEYE",
)


@dataclass(frozen=True)
class Bank:
    id: int
    public_id: str
    name: str
    code: str
    nibss_code: str
    slug: str
    country: str
    type: str
    currency: str
    active: bool
    processor: str
    created_at: datetime = LISTED_AT
    # Set on a bank the list still shows although it was removed (a variant's bank).
    deleted_at: datetime | None = None


def load_banks(public_id_prefix: str) -> tuple[Bank, ...]:
    """The bank list, numbered from 1 in file order, with publicIds `<prefix><slug>`."""
    entries = json.loads(DATA.read_text(encoding="utf-8"))
    return tuple(
        Bank(
            id=number,
            public_id=f"{public_id_prefix}{entry['slug']}",
            name=entry["name"],
            code=entry["bankCode"],
            nibss_code=entry["nibssBankCode"],
            slug=entry["slug"],
            country=entry["country"],
            type=entry["type"],
            currency=entry["currency"],
            active=entry["active"],
            processor=entry["processor"],
        )
        for number, entry in enumerate(entries, start=1)
    )


def holder_name(account_number: str) -> str | None:
    """The name on an external account, or None when the account does not exist."""
    if account_number == UNKNOWN_ACCOUNT_NUMBER:
        return None
    return HOLDER_NAMES[int(account_number) % len(HOLDER_NAMES)]
