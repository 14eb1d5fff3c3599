"""Valid request bodies of the write operations, built from the contract; tests vary one field at a time.

Every name the suite gives a record starts with the run id, so a sweep can find what a run left behind.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import secrets
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from wallet_conformance.spec import contract

# The run id: `cf`, the run's seed in 8 hex digits, and the xdist worker when there is one.
RUN_ID = re.compile(r"cf(?P<seed>[0-9a-f]{8})(gw\d+)?")
RUN_NAME = re.compile(rf"^{RUN_ID.pattern}\b")  # a name given by some run of the suite


def run_id(seed: int) -> str:
    """This process's run id, which starts every name it gives a record."""
    return f"cf{seed:08x}{os.environ.get('PYTEST_XDIST_WORKER', '')}"


def same_run(name: Any, own_run_id: str) -> bool:
    """Whether a record's name was given by the run `own_run_id` belongs to, by any of its xdist workers."""
    found, own = RUN_NAME.match(name) if isinstance(name, str) else None, RUN_ID.match(own_run_id)
    return found is not None and own is not None and found["seed"] == own["seed"]


def is_test_record(name: Any) -> bool:
    """Whether a record's name was given by a run of the suite (this one or another)."""
    return isinstance(name, str) and RUN_NAME.match(name) is not None


# Customers this process has made up so far: each secondary wallet gets its own.
_customers = itertools.count(1)


def customer(run_id: str) -> tuple[str, str]:
    """An e-mail address and a mobile phone number no other wallet of the run has been given.

    Secondary wallets are assigned to the caller's customers; a target may well keep one wallet per customer,
    refusing an e-mail address or a phone number it has seen (the document says nothing either way). The
    address carries the run id, so it is unique across runs too; the phone number, eleven digits, starts at a
    point drawn from the run id and counts up, so two runs (or workers) would collide only by a rare chance.
    """
    number = next(_customers)
    start = int(hashlib.sha256(run_id.encode()).hexdigest(), 16)
    return f"{run_id}.{number}@example.com", f"080{(start + number) % 10**8:08d}"


def wallet(run_id: str, category: str = "secondary", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"accountName": f"{run_id} wallet", "category": category, "currency": contract.currency()}
    if category == "secondary":
        email, phone = customer(run_id)
        body["emailAddress"] = email
        body["mobile"] = {"phoneNumber": phone, "isoCode": "NG"}
    body.update(overrides)
    return body


def secondary_wallet_with(run_id: str, email: str | None, with_mobile: bool, *, own_address: bool) -> dict[str, Any]:
    """A secondary wallet's body with the e-mail address `email` (None: without one) and with or without its mobile.
    `own_address` makes a valid address the run's own by one more part of its local name: a target may keep one wallet
    per customer."""
    body = wallet(run_id, "secondary")
    if email is None:
        del body["emailAddress"]
    elif own_address:
        local, domain = email.split("@")
        body["emailAddress"] = f"{local}.{body['emailAddress'].split('@')[0]}@{domain}"
    else:
        body["emailAddress"] = email
    if not with_mobile:
        del body["mobile"]
    return body


def collection_account(run_id: str, destination: str, **overrides: Any) -> dict[str, Any]:
    low, _ = contract.expire_in_bounds()
    body: dict[str, Any] = {
        "destination": destination,
        "accountName": f"{run_id} collection",
        "amount": contract.minimum_amount("transfer"),
        "expireIn": low,
    }
    body.update(overrides)
    return body


# Collection references this process has made up so far: each reference gets its own.
_references = itertools.count(1)


def collection_reference(length: int) -> str:
    """A collection account reference of exactly `length` characters (at most 64), new to the target: the tail of a
    digest of a count and random bytes (a reference must be unique, and may be as short as the minimum length)."""
    seed = f"{next(_references)}:{secrets.token_hex(8)}"
    return hashlib.sha256(seed.encode()).hexdigest()[-length:]


# Alphabets of characters UTF-8 writes in two, three and four bytes (Cyrillic letters, CJK ideographs, and CJK
# Extension B ideographs, which lie outside the Basic Multilingual Plane: two UTF-16 code units each). A length counted
# in bytes or in UTF-16 code units, not in characters, takes strings of them for longer ones.
MULTI_BYTE = {"two-byte": (0x0410, 0x044F), "three-byte": (0x4E00, 0x9FFF), "four-byte": (0x20000, 0x2A6DF)}


def multi_byte_reference(length: int, alphabet: str) -> str:
    """A collection account reference of exactly `length` characters of one MULTI_BYTE alphabet, drawn at random (a
    target that wrongly took one holds it as used)."""
    low, high = MULTI_BYTE[alphabet]
    return "".join(chr(low + secrets.randbelow(high - low + 1)) for _ in range(length))


def transfer(source: str, destination: str, amount: int | None = None, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "source": source,
        "sourceType": "VirtualAccount",
        "destination": destination,
        "destinationType": "VirtualAccount",
        "amount": amount or contract.minimum_amount("transfer"),
        "currency": contract.currency(),
        "narration": "conformance transfer",
    }
    body.update(overrides)
    return body


def bank_transfer(
    source: str, account_number: str, bank_code: str, amount: int | None = None, **overrides: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "source": source,
        "accountNumber": account_number,
        "bankCode": bank_code,
        "amount": amount or contract.minimum_amount("bankTransfer"),
        "currency": contract.currency(),
        "narration": "conformance bank transfer",
    }
    body.update(overrides)
    return body


def validation(account_number: str, bank_code: str, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"accountNumber": account_number, "bankCode": bank_code}
    body.update(overrides)
    return body


# The host of the suite's webhook URLs when no --webhook-public-url is given: a reserved name (RFC 2606), which no one
# receives at, under the run's id.
WEBHOOK_HOST = "conformance.invalid"


def webhook_url(run_id: str, path: str, public_url: str | None = None) -> str:
    """A webhook URL the suite sets: under --webhook-public-url when given (an address the target takes), else under
    a reserved host of the run's own."""
    base = public_url.rstrip("/") if public_url else f"https://{run_id}.{WEBHOOK_HOST}"
    return f"{base}/{path}"


def in_capitals(url: str) -> str:
    """The same URL with its scheme and host in capitals, which RFC 3986 reads without regard to case."""
    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    return urlunsplit((parts.scheme.upper(), f"{userinfo}{at}{host.upper()}", parts.path, parts.query, parts.fragment))


def account_update(webhooks: list[str], **overrides: Any) -> dict[str, Any]:
    """The body of PATCH /accounts/{accountId}: the webhooks (the field the document shows an update set)."""
    body: dict[str, Any] = {"webhooks": webhooks}
    body.update(overrides)
    return body
