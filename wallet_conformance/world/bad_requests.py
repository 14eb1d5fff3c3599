"""The requests the conformance tests send that are not a plain success: invalid input, and valid requests
sent without the right key. Each builder takes `get`, the test run's fixture getter (pytest's
`request.getfixturevalue`), so the fixtures of tests/conftest.py make each request once per run.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

from wallet_conformance.client.api import DEFAULT, Exchange, Unanswered
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world import accounts, bodies, money
from wallet_conformance.world.resources import Resources

Fixtures = Callable[[str], Any]
Request = Callable[[Fixtures], Exchange]

MALFORMED_JSON = '{"accountName": "unterminated'
# A path under the base address that no operation has.
UNKNOWN_PATH = "/conformance-probe/no-such-operation"
# For a path, the first of these methods it does not declare, with the body it is sent with: a read, else an update
# that names no field. A server that took either by mistake for something it serves would change nothing.
HARMLESS_METHODS = (("GET", DEFAULT), ("PATCH", {}))
# Spaces sent after a valid wallet body: over a mebibyte of JSON that parses as a small valid request.
LARGE_BODY_PADDING = 1024 * 1024


def unknown_wallet_id(run_id: str) -> str:
    """A wallet publicId, with the documented prefix, that names no wallet."""
    return f"{contract.prefix('walletId')}{run_id}-unknown"


def _malformed(operation_id: str) -> Request:
    def send(get: Fixtures) -> Exchange:
        api, resources = get("api"), get("resources")
        path_params = {}
        if operation_id == "updateAccount":
            path_params = {"accountId": resources.own_account()["publicId"]}
        exchange = api.call(operation_id, path_params, content=MALFORMED_JSON)
        resources.track(exchange)
        return exchange

    return send


def _collection(**overrides: Any) -> Request:
    def send(get: Fixtures) -> Exchange:
        run_id = get("run_id")
        changes = dict(overrides)
        destination = changes.pop("destination", None) or get("sample_wallet")["publicId"]
        body = bodies.collection_account(run_id, destination)
        body.update(changes)
        body = {name: value for name, value in body.items() if value is not None}
        return get("api").call("createCollectionAccount", json_body=body)

    return send


def _validate_without_number(get: Fixtures) -> Exchange:
    _, code = get("resources").external_account()
    return get("api").call("validateAccount", json_body={"bankCode": code})


def _transfer_from_unknown(get: Fixtures) -> Exchange:
    body = bodies.transfer(unknown_wallet_id(get("run_id")), get("sample_wallet")["publicId"])
    return get("api").call("transfer", json_body=body)


def _transfer_below_minimum(get: Fixtures) -> Exchange:
    amount = contract.minimum_amount("transfer") - 1
    body = bodies.transfer(get("sample_wallet")["publicId"], get("resources").wallet()["publicId"], amount)
    return get("api").call("transfer", json_body=body)


def _update_unknown_account(get: Fixtures) -> Exchange:
    # The own account's webhooks, sent to an account id that does not exist: a server that ignored
    # the id would still change nothing.
    resources = get("resources")
    with resources.account_wide():
        account = resources.own_account()
        unknown = uuid.uuid5(uuid.NAMESPACE_URL, f"{resources.run_id}-unknown-account")
        return resources.api.call(
            "updateAccount", {"accountId": str(unknown)}, json_body=bodies.account_update(account.get("webhooks", []))
        )


def _call(operation_id: str, path: Callable[[str], dict[str, str]] | None = None, **options: Any) -> Request:
    def send(get: Fixtures) -> Exchange:
        run_id = get("run_id")
        key = options.get("key", DEFAULT)
        if key is not DEFAULT and key is not None:
            key = key.format(run_id=run_id)
        exchange = get("api").call(
            operation_id, path(run_id) if path else None, key=key, json_body=options.get("json_body", DEFAULT)
        )
        get("resources").track(exchange)
        return exchange

    return send


def _wallet_body(**overrides: Any) -> Request:
    def send(get: Fixtures) -> Exchange:
        resources = get("resources")
        return resources.create_wallet(bodies.wallet(resources.run_id, **overrides))

    return send


# Invalid input: a request the document's rules make invalid, sent with the right key.
INPUT_CASES: dict[str, Request] = {
    **{f"malformed-json-{operation_id}": _malformed(operation_id) for operation_id in contract.write_operations()},
    "body-not-an-object-createWallet": lambda get: get("resources").create_wallet([bodies.wallet(get("run_id"))]),
    "missing-amount-createCollectionAccount": _collection(amount=None),
    "missing-accountNumber-validateAccount": _validate_without_number,
    "string-amount-createCollectionAccount": _collection(amount="one hundred naira"),
    "string-mobile-createWallet": _wallet_body(mobile="08030000000"),
    "unknown-wallet-getWallet": _call("getWallet", lambda run_id: {"walletId": unknown_wallet_id(run_id)}),
    "unknown-wallet-closeWallet": _call("closeWallet", lambda run_id: {"walletId": unknown_wallet_id(run_id)}),
    "unknown-destination-createCollectionAccount": lambda get: _collection(
        destination=unknown_wallet_id(get("run_id"))
    )(get),
    "unknown-source-transfer": _transfer_from_unknown,
    "unknown-reference-verifyTransaction": _call(
        "verifyTransaction", lambda run_id: {"reference": f"{run_id}-unknown-reference"}
    ),
    "unknown-account-updateAccount": _update_unknown_account,
    # Input outside a stated limit: a 5xx there is the server failing, never a refusal (ERR-05 as well as the limit).
    "invalid-email-createWallet": _wallet_body(emailAddress="not-an-email"),
    "amount-below-minimum-transfer": _transfer_below_minimum,
    "expire-in-below-range-createCollectionAccount": _collection(expireIn=contract.expire_in_bounds()[0] - 1),
    "short-reference-createCollectionAccount": _collection(reference="r" * (contract.reference_min_length() - 1)),
}


def _probe(method: str, path: str, body: Any) -> Request:
    """`method` sent to `path` (its parameters filled with values that name no record) where no operation answers."""

    def send(get: Fixtures) -> Exchange:
        run_id = get("run_id")
        filled = re.sub(r"\{(\w+)\}", lambda parameter: f"{run_id}-unknown-{parameter[1]}", path)
        exchange = get("api").probe(method, filled, json_body=body)
        # A server that took a probe of the wallet list's path for a creation made a wallet: the sweep closes it.
        get("resources").track(exchange, creation=path == contract.operations()["createWallet"].path)
        return exchange

    return send


def _wrong_methods() -> dict[str, Request]:
    """For each documented path, a harmless method (HARMLESS_METHODS) that none of its operations is served at."""
    found = {}
    for path, declared in contract.path_methods().items():
        method, body = next((method, body) for method, body in HARMLESS_METHODS if method not in declared)
        slug = re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-")
        found[f"wrong-method-{method}-{slug}"] = _probe(method, path, body)
    return found


def _large_wallet_body(get: Fixtures) -> Exchange:
    resources = get("resources")
    exchange = get("api").call("createWallet", json_body=bodies.wallet(resources.run_id), padding=LARGE_BODY_PADDING)
    resources.track(exchange)
    return exchange


# Typical refusals of the key, for the shape of error responses.
KEY_CASES: dict[str, Request] = {
    "missing-key-listBanks": _call("listBanks", key=None),
    "wrong-key-listWallets": _call("listWallets", key="conformance-wrong-key-{run_id}"),
}
# Requests a server's routing and body limits answer rather than its operations: a path no operation has, a method a
# path does not declare, a body over a mebibyte (the document sets no size; a refusal or an acceptance both conform).
# They are not invalid input of an operation (no ERR-05: an unknown method may well be 501), but what answers them is
# still an envelope (ERR-06..08), and an answer (ERR-09).
PROBE_CASES: dict[str, Request] = {
    "unknown-path-GET": _probe("GET", UNKNOWN_PATH, DEFAULT),
    "unknown-path-POST": _probe("POST", UNKNOWN_PATH, {}),
    **_wrong_methods(),
    "large-body-createWallet": _large_wallet_body,
}
ALL_CASES = {**INPUT_CASES, **KEY_CASES, **PROBE_CASES}


def answer(get: Fixtures, case: str) -> Exchange:
    """The exchange of one request of ALL_CASES, or, where the target left it without an answer, that silence as an
    exchange of status 0 (`Exchange.unanswered`): the answer the requirement that every request is answered judges."""
    try:
        return ALL_CASES[case](get)
    except Unanswered as unanswered:
        return Exchange.unanswered(unanswered.silence)


class Invalid:
    """The test's view of the requests of ALL_CASES, each made once per run (`get(case)`: its session fixture):
    `invalid(case)` is its answer, which a test of what an answer says needs (a request left unanswered: it cannot
    judge); `invalid.answer(case)`, whatever came back, for the test of whether an answer came at all."""

    def __init__(self, get: Fixtures) -> None:
        self._get = get

    def answer(self, case: str) -> Exchange:
        return self._get(case)

    def __call__(self, case: str) -> Exchange:
        exchange = self.answer(case)
        if not exchange.answered:
            raise CannotJudge(
                f"{case} got no answer ({'; '.join(exchange.retries)}): nothing to judge here; the "
                "requirement that every request is answered judges it"
            )
        return exchange


MISSING = "missing"
WRONG = "wrong"
KINDS = {MISSING: "no-key", WRONG: "wrong-key"}


def valid_request(get: Fixtures, operation_id: str) -> tuple[dict[str, str], Any]:
    """Path parameters and body of a request of `operation_id` that the target accepts with the right key."""
    resources: Resources = get("resources")

    def source(amount: int) -> str:  # a wallet of this request's own holding `amount`, when the run can fund
        return (resources.funded_wallet(amount) if resources.can_fund else resources.wallet())["publicId"]

    def sample_wallet() -> str:
        return get("sample_wallet")["publicId"]

    if operation_id == "getWallet":
        return {"walletId": sample_wallet()}, DEFAULT
    if operation_id == "closeWallet":  # a wallet of its own: if a broken server closes it, no test loses one
        return {"walletId": resources.wallet()["publicId"]}, DEFAULT
    if operation_id == "createWallet":
        return {}, bodies.wallet(resources.run_id)
    if operation_id == "createCollectionAccount":
        return {}, bodies.collection_account(resources.run_id, sample_wallet())
    if operation_id == "validateAccount":
        return {}, bodies.validation(*resources.external_account())
    if operation_id == "verifyTransaction":
        return {"reference": get("sample_verifyTransaction").data.get("reference")}, DEFAULT
    if operation_id == "transfer":
        # Room for a fee, which the document does not show on wallet transfers.
        amount = contract.minimum_amount("transfer")
        return {}, bodies.transfer(source(money.funding("transfer")), sample_wallet(), amount)
    if operation_id == "bankTransfer":
        amount = contract.minimum_amount("bankTransfer")
        number, code = resources.external_account()
        # Room for the fee, which the document does not bound.
        return {}, bodies.bank_transfer(source(money.funding("bankTransfer")), number, code, amount)
    return {}, DEFAULT  # the reads without parameters


def unauthenticated(get: Fixtures, operation_id: str, kind: str) -> Exchange:
    """A valid request of `operation_id`, one the target would accept with the right key, sent without the key
    (MISSING) or with a wrong one (WRONG). A wallet a broken server created or closed that way is still swept."""
    api, resources = get("api"), get("resources")
    key = None if kind == MISSING else f"conformance-wrong-key-{get('run_id')}"
    if operation_id == "updateAccount":
        # The account's own webhooks sent back: a write that changes nothing, even if it were accepted.
        return accounts.own_webhooks_sent_back(api, resources, key=key)
    path_params, body = valid_request(get, operation_id)
    exchange = api.call(operation_id, path_params, json_body=body, key=key)
    resources.track(exchange)
    return exchange
