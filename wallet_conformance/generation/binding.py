"""Real records for generated requests: generated ids never name a real record, so a generated request is bound
to real ones (a wallet of the run, a funded wallet, a transfer's reference, the external account), which is what
reaches the success branch of reads, closes, transfers and collection accounts.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import string
from contextlib import nullcontext
from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as st

from wallet_conformance.client.api import DEFAULT, ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.generation.cases import Request
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies
from wallet_conformance.world.resources import Resources

PRINTABLE = re.compile(r"[ -~]*")
PLAIN_REFERENCE = re.compile(r"[A-Za-z0-9_-]+")
FUNDS = 300_000  # kobo in the funded source of generated transfers (the run's money budget is shared)
# The most a drawn complete transfer sends: half of the least its source holds (`funded` renews it below a third of
# FUNDS), so any fee still fits; a bound independent of the balance keeps a case reproducible by the seed.
AFFORDABLE = FUNDS // 3 // 2
# The collection amounts a valid request must be accepted with: the document bounds none, so a target may hold
# collections to the minimum transfer, or cap them; between the two, any amount goes.
COLLECTION_AMOUNTS = range(contract.minimum_amount("transfer"), 100_000_000 + 1)
# Text a target must take in a name or a narration: printable ASCII, not blank.
PLAIN_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=40).filter(str.strip)
# References of PLAIN_REFERENCE's characters, at least as long as the document's minimum.
PLAIN_REFERENCES = st.text(
    st.sampled_from(string.ascii_letters + string.digits + "_-"), min_size=contract.reference_min_length(), max_size=20
)


def must_accept(operation_id: str, body: Any = None) -> str | None:
    """The requirement a valid request of this operation (with `body`) breaks when refused, once bound to real
    records: its acceptance requirement (for a transfer of exactly the minimum, that the minimum is accepted); none for
    a wallet, whose required fields and their shapes are not shown (END-13)."""
    return None if operation_id == "createWallet" else contract.acceptance_requirement(operation_id, body)


def group_marks(operation_id: str) -> list[pytest.MarkDecorator]:
    """The marks a generated test of this operation runs under: generated wallets may be primary (a target may
    default a wallet to primary), so those tests run in the account-wide group with the primary-limit tests, whose
    count then knows every primary the run closed (a list may keep closed wallets)."""
    return [pytest.mark.account_wide] if operation_id == "createWallet" else []


class Binder:
    """Real records for generated requests, made once per operation test."""

    def __init__(self, api: ApiClient, resources: Resources, fixture: Any) -> None:
        self.api = api
        self.resources = resources
        self.fixture = fixture  # the run's session fixtures, made when first asked: sample_wallet
        self.nonce = secrets.token_hex(3)
        self.references = itertools.count()  # Hypothesis draws one reference many times: each sent once
        self._funded: dict[str, Any] | None = None
        self._reference: str | None = None
        self.sent = 0  # kobo sent from the funded wallet since it was last funded (maybe not yet debited)

    def funded(self) -> dict[str, Any]:
        """The source of generated transfers, a new one when the last runs low (topping that one up would wait on
        a balance its transfers still pending may move, where a target debits at settlement)."""
        if self._funded is None or self.available() < FUNDS // 3:
            self._funded = self.resources.funded_wallet(FUNDS)
            self.sent = 0
        return self._funded

    def available(self) -> int:
        """What the funded wallet can surely still send: its balance, less what was sent since the last funding
        (a target may debit only at settlement; where it debits at once, this counts twice and is only safer)."""
        return (self.resources.balance(self._funded["publicId"]) or 0) - self.sent if self._funded else 0

    def reference(self) -> str:
        """The reference of a transfer of the run's own (from the funded wallet, so any fee is covered)."""
        if self._reference is None:
            body = bodies.transfer(self.funded()["publicId"], self.fixture("sample_wallet")["publicId"])
            exchange = self.api.call("transfer", json_body=body)
            self.spent(exchange)
            self._reference = self.resources.require(exchange, "make a transfer to verify")["reference"]
        return self._reference

    def spent(self, exchange: Any) -> None:
        """Count money an accepted transfer takes from the funded wallet."""
        data = exchange.data if exchange.ok and isinstance(exchange.data, dict) else {}
        if (
            exchange.operation_id in contract.money_operations()
            and self._funded is not None
            and data.get("source") == self._funded["publicId"]
            and isinstance(data.get("actualAmount"), int)
        ):
            self.sent += data["actualAmount"]

    @staticmethod
    def drawn_whole(data: Any) -> bool:
        """Whether the fields that decide if a case must succeed are drawn here rather than kept as Schemathesis drew
        them: mostly. Asked as "keep them as generated?", since over a run Hypothesis draws False more often than
        True (and shrinks towards it)."""
        return not data.draw(st.booleans(), label="fields as generated")

    def bind(self, request: Request, data: Any = None) -> str | None:
        """Put real records into the request; the requirement that makes it a must-succeed, if it is one.

        `data` (Hypothesis' draws, for a valid case only): most transfers and collection accounts are then made
        complete, the fields that decide whether one must succeed drawn rather than left to Schemathesis, which draws
        the document's `number` amounts and expireIn as floats, so that almost none of its cases was one the
        document says must succeed. The others keep what Schemathesis drew (floats, edge values), judged as before."""
        op, body = request.operation_id, request.body
        if isinstance(body, dict):
            # Only the documented fields: whether a target ignores or refuses others is not shown.
            documented = contract.request_schema(op).get("properties", {})
            for name in [name for name in body if name not in documented]:
                del body[name]
        if "walletId" in request.path:  # a read, or a close: of a wallet of its own, which no other test loses
            wallet = (
                self.resources.wallet()
                if contract.operations()[op].method == "DELETE"
                else (self.fixture("sample_wallet"))
            )
            request.path["walletId"] = wallet["publicId"]
            return must_accept(op)
        if op == "verifyTransaction":
            request.path["reference"] = self.reference()
            return must_accept(op)
        if not isinstance(body, dict):
            # A list filter of odd text (a NUL byte, say) may be refused: how filters are read is not shown.
            plain = all(PRINTABLE.fullmatch(str(value)) for value in request.query.values())
            return must_accept(op) if op.startswith("list") and plain else None
        if op == "createWallet":
            if body.get("category") == "primary":
                # The five primary places are account-wide: the boundary tests take them, one at a time.
                body["category"] = "secondary"
            return None  # which fields a wallet needs, and their shapes, are not shown (END-13)
        if op == "validateAccount":
            body["accountNumber"], body["bankCode"] = self.resources.external_account()
            return must_accept(op)
        if op == "createCollectionAccount":
            body["destination"] = self.fixture("sample_wallet")["publicId"]
            request.issued.add("destination")
            if data is not None and self.drawn_whole(data):
                plain_text(data, body, "accountName")
                body["amount"] = data.draw(st.integers(COLLECTION_AMOUNTS[0], COLLECTION_AMOUNTS[-1]), label="amount")
                body["expireIn"] = data.draw(st.integers(*contract.expire_in_bounds()), label="expireIn")
                body.pop("reference", None)
                reference = data.draw(st.none() | PLAIN_REFERENCES, label="reference")
                if reference is not None:
                    body["reference"] = reference
            reference = body.get("reference")
            if isinstance(reference, str):  # unique on a target that holds earlier runs, and within this one
                body["reference"] = f"{self.nonce}{next(self.references)}{reference}"
            plain = bool(
                isinstance(body.get("accountName"), str)
                and body["accountName"].strip()
                and PRINTABLE.fullmatch(body["accountName"])
                and type(body.get("amount")) is int
                and body["amount"] in COLLECTION_AMOUNTS
                and type(body.get("expireIn")) is int
                and ("reference" not in body or PLAIN_REFERENCE.fullmatch(str(body["reference"])))
            )
            return must_accept(op) if plain else None
        if op in contract.money_operations():
            source = self.funded()
            body["source"] = source["publicId"]
            request.issued.add("source")
            if op == "transfer":
                body["destination"] = self.fixture("sample_wallet")["publicId"]
                request.issued.add("destination")
            else:
                body["accountNumber"], body["bankCode"] = self.resources.external_account()
            if data is not None and self.drawn_whole(data):
                plain_text(data, body, "narration")
                minimum = contract.minimum_amount(op)  # often exactly the minimum: it is accepted (LIM-11, LIM-13)
                body["amount"] = data.draw(st.just(minimum) | st.integers(minimum + 1, AFFORDABLE), label="amount")
                for name, value in documented_body(op, body).items():
                    body.setdefault(name, value)
            fields = contract.request_schema(op)["properties"]
            amount = body.get("amount")
            # Clearly affordable: at most half the balance, so any fee the target charges still fits.
            affordable = type(amount) is int and amount <= self.available() // 2
            narration = body.get("narration")
            complete = (
                all(name in body for name in fields)
                and isinstance(narration, str)
                and narration.strip()
                and PRINTABLE.fullmatch(narration)
            )
            return must_accept(op, body) if affordable and complete else None
        return must_accept(op)


def plain_text(data: Any, body: dict[str, Any], name: str) -> None:
    """Keep the text field `name` of `body` if a target must take it (printable, not blank), else draw one."""
    value = body.get(name)
    if not (isinstance(value, str) and value.strip() and PRINTABLE.fullmatch(value)):
        body[name] = data.draw(PLAIN_TEXT, label=name)


def documented_body(operation_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """A documented body of this money operation with the records bound into `body`: the fields it lacks."""
    if operation_id == "transfer":
        return bodies.transfer(body["source"], body["destination"])
    return bodies.bank_transfer(body["source"], body["accountNumber"], body["bankCode"])


def send(api: ApiClient, resources: Resources, sent: Request, key: Any = DEFAULT) -> Exchange:
    """Send a generated request; a wallet it creates is closed at once (and by the sweep if that fails).

    A wallet that may be primary (the body does not say secondary: a target may default to primary) takes one of
    the account's primary places while it is open: it is made and closed under the run's account-wide lock, so
    the primary-limit tests of another worker never count it.
    """
    may_be_primary = sent.operation_id == "createWallet" and not (
        isinstance(sent.body, dict) and sent.body.get("category") == "secondary"
    )
    with resources.account_wide() if may_be_primary else nullcontext():
        exchange = api.call(
            sent.operation_id,
            {name: str(value) for name, value in sent.path.items()},
            json_body=sent.body,
            params=sent.query or None,
            key=key,
        )
        if exchange.operation_id == "createWallet" and exchange.ok:
            resources.track(exchange)
            public_id = exchange.data.get("publicId") if isinstance(exchange.data, dict) else None
            if isinstance(public_id, str):
                resources.close_wallet(public_id)
        elif exchange.operation_id == "closeWallet":
            resources.track(exchange)
    if hypothesis.control.currently_in_test_context():  # a failing example shows it as sent, records bound
        body = "" if exchange.request_body is None else f" {json.dumps(exchange.request_body)}"
        hypothesis.note(f"sent: {exchange.method} {exchange.url}{body}")
    return exchange
