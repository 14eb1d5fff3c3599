"""Errors: the documented success statuses, meta.success, and how refusals look.

The document fixes success responses only: 200 or 201 per operation, with meta.success true. Error
statuses, bodies and codes are 'not shown': the suite asks a 4xx of invalid input and an envelope of
every error (SHOULD, from HTTP and the general conventions) and records everything else (INFO).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import OPERATIONS, Samples, own_account
from wallet_conformance import bodies, checks, contract
from wallet_conformance.catalogue import catalogue
from wallet_conformance.client import ApiClient, Exchange, TargetError
from wallet_conformance.resources import Resources

CREATED = catalogue()["ERR-02"].operations
SUCCESS_STATUSES = [
    pytest.param(operation_id, "ERR-02" if operation_id in CREATED else "ERR-01",
                 marks=pytest.mark.requirement("ERR-02" if operation_id in CREATED else "ERR-01"),
                 id=operation_id)
    for operation_id in OPERATIONS
]
# Operations with a request body, each sent a body that is not JSON.
WRITE_OPERATIONS = ("updateAccount", "createWallet", "createCollectionAccount", "validateAccount", "transfer",
                    "bankTransfer")
MALFORMED_JSON = '{"accountName": "unterminated'
# Names a body or meta field may give an error code under (ERR-04 records what it finds).
ERROR_CODE_FIELDS = ("code", "errorCode", "error_code", "error", "errors", "type", "reason", "details")
# Invalid input: a request the document's rules make invalid, sent with the right key.
INPUT_CASES = (
    *(f"malformed-json-{operation_id}" for operation_id in WRITE_OPERATIONS),
    "body-not-an-object-createWallet",
    "missing-amount-createCollectionAccount",
    "missing-accountNumber-validateAccount",
    "string-amount-createCollectionAccount",
    "string-mobile-createWallet",
    "unknown-wallet-getWallet",
    "unknown-wallet-closeWallet",
    "unknown-destination-createCollectionAccount",
    "unknown-source-transfer",
    "unknown-reference-verifyTransaction",
    "unknown-account-updateAccount",
)
# Typical refusals of the key, for the shape of error responses.
KEY_CASES = ("missing-key-listBanks", "wrong-key-listWallets")
ALL_CASES = INPUT_CASES + KEY_CASES


class Invalid:
    """Requests the document's rules make invalid, each sent once per run and shared by the tests."""

    def __init__(self, api: ApiClient, resources: Resources, samples: Samples, run_id: str) -> None:
        self.api = api
        self.resources = resources
        self.samples = samples
        self.run_id = run_id
        self._made: dict[str, Exchange | BaseException] = {}
        self.cases: dict[str, Callable[[], Exchange]] = {
            **{f"malformed-json-{operation_id}": self._malformed(operation_id) for operation_id in WRITE_OPERATIONS},
            "body-not-an-object-createWallet": lambda: self.resources.create_wallet([bodies.wallet(self.run_id)]),
            "missing-amount-createCollectionAccount": lambda: self._collection(amount=None),
            "missing-accountNumber-validateAccount": self._validate_without_number,
            "string-amount-createCollectionAccount": lambda: self._collection(amount="one hundred naira"),
            "string-mobile-createWallet": lambda: self.resources.create_wallet(
                bodies.wallet(self.run_id, mobile="08030000000")),
            "unknown-wallet-getWallet": lambda: self.api.call("getWallet", {"walletId": self.unknown_wallet}),
            "unknown-wallet-closeWallet": lambda: self.resources.close_wallet(self.unknown_wallet),
            "unknown-destination-createCollectionAccount": lambda: self._collection(destination=self.unknown_wallet),
            "unknown-source-transfer": self._transfer_from_unknown,
            "unknown-reference-verifyTransaction": lambda: self.api.call(
                "verifyTransaction", {"reference": f"{self.run_id}-unknown-reference"}),
            "unknown-account-updateAccount": self._update_unknown_account,
            "missing-key-listBanks": lambda: self.api.call("listBanks", key=None),
            "wrong-key-listWallets": lambda: self.api.call("listWallets", key=f"conformance-wrong-key-{self.run_id}"),
        }
        assert tuple(self.cases) == ALL_CASES, "every case named in ALL_CASES has exactly one request"

    def __call__(self, case: str) -> Exchange:
        if case not in self._made:
            try:
                self._made[case] = self.cases[case]()
            except (TargetError, pytest.skip.Exception) as error:
                self._made[case] = error
        made = self._made[case]
        if isinstance(made, BaseException):
            raise made
        return made

    @property
    def unknown_wallet(self) -> str:
        return f"{contract.prefix('walletId')}{self.run_id}-unknown"

    def _malformed(self, operation_id: str) -> Callable[[], Exchange]:
        def send() -> Exchange:
            path_params = {}
            if operation_id == "updateAccount":
                path_params = {"accountId": own_account(self.samples("listAccounts").data)["publicId"]}
            exchange = self.api.call(operation_id, path_params, content=MALFORMED_JSON)
            self.resources.track(exchange)
            return exchange

        return send

    def _collection(self, **overrides: Any) -> Exchange:
        body = bodies.collection_account(self.run_id, self.samples.wallet()["publicId"])
        body.update(overrides)
        body = {name: value for name, value in body.items() if value is not None}
        return self.api.call("createCollectionAccount", json_body=body)

    def _validate_without_number(self) -> Exchange:
        _, code = self.resources.external_account()
        return self.api.call("validateAccount", json_body={"bankCode": code})

    def _transfer_from_unknown(self) -> Exchange:
        body = bodies.transfer(self.unknown_wallet, self.samples.wallet()["publicId"])
        return self.api.call("transfer", json_body=body)

    def _update_unknown_account(self) -> Exchange:
        # The own account's webhooks, sent to an account id that does not exist: a server that ignored
        # the id would still change nothing.
        with self.resources.account_settings():
            account = own_account(self.resources.require(self.api.call("listAccounts"), "list accounts"))
            unknown = uuid.uuid5(uuid.NAMESPACE_URL, f"{self.run_id}-unknown-account")
            return self.api.call("updateAccount", {"accountId": str(unknown)},
                                 json_body={"webhooks": account.get("webhooks", [])})


@pytest.fixture(scope="session")
def invalid(api: ApiClient, resources: Resources, samples: Samples, run_id: str) -> Invalid:
    return Invalid(api, resources, samples, run_id)


def refusal(invalid: Invalid, case: str) -> Exchange:
    """The exchange of an error case; cases the target accepted are not error responses (see ERR-05)."""
    exchange = invalid(case)
    if exchange.ok:
        pytest.skip(f"the target accepted {case} (HTTP {exchange.status}): no error response to look at")
    return exchange


def shown(value: Any, limit: int = 300) -> Any:
    """A value small enough to record as it is, else its JSON excerpt."""
    text = json.dumps(value, default=str)
    return value if len(text) <= limit else text[:limit] + "..."


def has_envelope(exchange: Exchange) -> bool:
    body = exchange.json
    return isinstance(body, dict) and isinstance(body.get("meta"), dict)


# ------------------------------------------------------------------ success responses


@pytest.mark.parametrize(("operation_id", "requirement_id"), SUCCESS_STATUSES)
def test_success_uses_the_documented_status(samples, operation_id, requirement_id):
    """A successful call answers the operation's documented status: 201 for the three creates, else 200."""
    checks.success_status(samples(operation_id), requirement_id)


@pytest.mark.requirement("ERR-03")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_success_carries_meta_success_true(samples, operation_id):
    """meta.success is true on every successful response."""
    checks.meta_success_is(samples(operation_id), True, "ERR-03")


# ------------------------------------------------------------------ refusals


@pytest.mark.requirement("ERR-05")
@pytest.mark.parametrize("case", INPUT_CASES)
def test_invalid_input_is_a_client_error(invalid, case):
    """An invalid request (malformed JSON, a missing or mistyped field, an unknown id) is answered with a 4xx."""
    checks.client_error(invalid(case), "ERR-05", case)


@pytest.mark.requirement("ERR-06")
@pytest.mark.parametrize("case", ALL_CASES)
def test_error_is_an_envelope(invalid, case):
    """An error response is a JSON object holding meta and data."""
    checks.json_envelope(refusal(invalid, case), "ERR-06")


@pytest.mark.requirement("ERR-07")
@pytest.mark.parametrize("case", ALL_CASES)
def test_error_meta_status_code_repeats_http_status(invalid, case):
    """An error envelope's meta.statusCode is an integer equal to the HTTP status."""
    exchange = refusal(invalid, case)
    if not has_envelope(exchange):
        pytest.skip("the error body is not an envelope with meta (see ERR-06)")
    checks.meta_status_code(exchange, "ERR-07")


@pytest.mark.requirement("ERR-08")
@pytest.mark.parametrize("case", ALL_CASES)
def test_error_meta_success_is_false(invalid, case):
    """An error envelope's meta.success is false."""
    exchange = refusal(invalid, case)
    if not has_envelope(exchange):
        pytest.skip("the error body is not an envelope with meta (see ERR-06)")
    checks.meta_success_is(exchange, False, "ERR-08")


@pytest.mark.requirement("ERR-04")
@pytest.mark.parametrize("case", ALL_CASES)
def test_error_response_is_observed(invalid, observe, case):
    """The status, body shape, message and any error code of a refusal are recorded."""
    exchange = invalid(case)
    body = exchange.json
    meta = exchange.meta
    codes = {f"meta.{name}": meta[name] for name in ERROR_CODE_FIELDS if name in meta}
    if isinstance(body, dict):
        codes.update({name: body[name] for name in ERROR_CODE_FIELDS if name in body})
    observe(
        "ERR-04",
        case=case,
        status=exchange.status,
        content_type=exchange.header("content-type"),
        json=exchange.is_json,
        body_keys=sorted(body) if isinstance(body, dict) else type(body).__name__,
        meta_keys=sorted(meta),
        message=meta.get("message"),
        data=shown(exchange.data) if not exchange.ok else "(a success response)",
        error_codes=codes,
        excerpt=None if exchange.is_json else exchange.text[:200],
    )
