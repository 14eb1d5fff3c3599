"""What every handler works with: the service, the call, the envelope, authentication and errors as answers.

The handlers live in routes/, one module per resource; each is marked `@operation("operationId")`,
reads its request (fields.py), asks the store (store.py) or the ledger (ledger.py) and answers the
document's envelope: `{"meta": {"statusCode", "success", "message"?, "pagination"?}, "data": ...}`,
with the success status and message of its operation read from the contract. app.py serves them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from wallet_conformance.reference.errors import ApiError, Refusal, error_body
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.ledger import Ledger
from wallet_conformance.reference.records import Credential, Transaction
from wallet_conformance.reference.store import Store
from wallet_conformance.reference.variants import Variant, VariantSet
from wallet_conformance.reference.webhooks import Webhooks
from wallet_conformance.spec import contract

KEY_HEADER = "x-service-key"
# Where a fault looks for the key when the request has no x-service-key header: these query parameters.
QUERY_KEY_NAMES = ("key", "apiKey", "api_key", "secretKey", KEY_HEADER)
DOCUMENTED = object()  # "the operation's documented message"
# Under the slow-settlement variant, transfers settle this many settle delays later than configured, and this many
# seconds later at most (a long settle delay stays within the suite's --settle-timeout, as without the variant).
SLOW_SETTLEMENT_DELAYS = 3
SLOW_SETTLEMENT_EXTRA_SECONDS = 0.6


@dataclass
class Service:
    """What every handler works with."""

    store: Store
    faults: FaultSet
    webhooks: Webhooks
    # Seconds from acceptance to settlement of a transfer; None: only POST /sandbox/settle settles.
    settle_delay: float | None
    variants: VariantSet

    def reset(self) -> None:
        """Forgets every record: a fresh store with the same keys (both businesses'), faults and variants."""
        self.store = Store(self.faults, self.store.keys, self.variants)
        self.webhooks = Webhooks(self.store, self.faults)

    def settlement(self) -> tuple[float | None, bool]:
        """Seconds from acceptance to settlement (None: never by itself), and whether the sandbox may settle."""
        if self.variants.on(Variant.SLOW_SETTLEMENT):
            delay = None
            if self.settle_delay is not None:
                later = min(SLOW_SETTLEMENT_DELAYS * self.settle_delay, SLOW_SETTLEMENT_EXTRA_SECONDS)
                delay = self.settle_delay + later
            return delay, False
        return self.settle_delay, True

    def schedule_settlement(self, transaction: Transaction) -> None:
        delay, _ = self.settlement()
        if delay is not None:
            self.store.later(delay, self.store.ledger.settle, transaction)


@dataclass
class Call:
    """One authenticated request: the service and the key's credential (account and mode)."""

    service: Service
    caller: Credential

    @property
    def store(self) -> Store:
        return self.service.store

    @property
    def ledger(self) -> Ledger:
        return self.service.store.ledger

    @property
    def faults(self) -> FaultSet:
        return self.service.faults

    @property
    def variants(self) -> VariantSet:
        return self.service.variants

    @property
    def numeric_strings(self) -> bool:
        """Whether a number sent as a JSON string is read as that number (a variant; refused otherwise)."""
        return self.variants.on(Variant.NUMERIC_STRINGS_PARSED)


Handler = Callable[[Request, Call], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]


class OperationEndpoint(Protocol):
    """An endpoint marked with the operation it serves (`operation`)."""

    operation_id: str

    def __call__(self, request: Request) -> Awaitable[Response]: ...


# ------------------------------------------------------------------------------- envelopes

# The wrong-message faults, by operation: the message each one answers instead of the documented one.
WRONG_MESSAGES: dict[str, tuple[Fault, str]] = {
    "updateAccount": (Fault.WRONG_UPDATE_MESSAGE, "account successfully updated"),
    "createWallet": (Fault.WRONG_CREATE_WALLET_MESSAGE, "Virtual account successfully created"),
    "closeWallet": (Fault.WRONG_CLOSE_MESSAGE, "VirtualAccount successfully closed"),
    "createCollectionAccount": (Fault.WRONG_COLLECTION_MESSAGE, "Collection account successfully created"),
    "validateAccount": (Fault.WRONG_VALIDATE_MESSAGE, "BankAccount successfully validated"),
    "listBanks": (Fault.WRONG_BANK_LIST_MESSAGE, "success"),
}


def envelope(
    call: Call,
    operation_id: str,
    data: Any,
    *,
    message: Any = DOCUMENTED,
    pagination: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], int]:
    """The success body of an operation, and its HTTP status."""
    status = contract.operations()[operation_id].success_status
    meta: dict[str, Any] = {"statusCode": status, "success": True}
    if message is DOCUMENTED:
        message = contract.success_message(operation_id)
        wrong = WRONG_MESSAGES.get(operation_id)
        if wrong is not None and call.faults.on(wrong[0]):
            message = wrong[1]
    if message is not None:
        meta["message"] = message
    if pagination is not None:
        meta["pagination"] = pagination
        if pagination.get("current", 1) > 1 and call.faults.on(Fault.SUCCESS_AS_STRING_PAST_FIRST_PAGE):
            meta["success"] = "true"
    if status == HTTPStatus.CREATED and call.faults.on(Fault.STATUS_CODE_200_IN_META_ON_CREATE):
        meta["statusCode"] = HTTPStatus.OK
    return {"meta": meta, "data": data}, status


def reply(body: dict[str, Any], status: int, **options: Any) -> Response:
    return JSONResponse(body, status_code=status, **options)


# ---------------------------------------------------------------------------------- errors


def error_response(error: ApiError, service: Service) -> Response:
    """A refusal as the client sees it: the error envelope (errors.py), as faults and variants shape it."""
    faults, variants = service.faults, service.variants
    status = error.status
    if error.refusal is Refusal.NOT_FOUND and variants.on(Variant.UNKNOWN_RECORD_400):
        status = HTTPStatus.BAD_REQUEST
    conflicts = (
        Refusal.DUPLICATE_REFERENCE,
        Refusal.PRIMARY_LIMIT,
        Refusal.CUSTOMER_EXISTS,
        Refusal.WALLET_HOLDS_MONEY,
    )
    if error.refusal in conflicts and variants.on(Variant.CONFLICTS_400):
        status = HTTPStatus.BAD_REQUEST
    if status == HTTPStatus.BAD_REQUEST and variants.on(Variant.VALIDATION_422):
        status = HTTPStatus.UNPROCESSABLE_ENTITY
    body: dict[str, Any] = error_body(status, error.message)
    if variants.on(Variant.ERROR_DETAILS):
        code = error.refusal.name if error.refusal else HTTPStatus(status).name
        body["meta"]["code"] = code
        body["data"] = {"errors": [{"code": code, "message": error.message}]}
    if faults.on(Fault.ERROR_STATUS_CODE_200_IN_META):
        body["meta"]["statusCode"] = HTTPStatus.OK
    if faults.on(Fault.ERROR_SUCCESS_TRUE):
        body["meta"]["success"] = True
    if faults.on(Fault.PLAIN_ERROR_BODY):
        body = {"error": error.message}
    return JSONResponse(body, status_code=status, headers=error.headers)


# -------------------------------------------------------------------------- authentication


def presented_key(request: Request, faults: FaultSet) -> str | None:
    """The value of the request's `x-service-key` header (None without one). The header's name is matched in any
    letter case (Starlette's headers are), and h11 strips the whitespace around its value (RFC 9110 section 5.5):
    the value is the key as sent. Only faults look for a key anywhere else."""
    sent = request.headers.get(KEY_HEADER)
    if sent is None and faults.on(Fault.KEY_FROM_QUERY_PARAMETER):
        sent = next((request.query_params[name] for name in QUERY_KEY_NAMES if request.query_params.get(name)), None)
    if sent is None and faults.on(Fault.BEARER_KEY_ACCEPTED):
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        sent = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return sent


def credential_for(store: Store, faults: FaultSet, key: str) -> Credential | None:
    """The credential whose secret key is exactly `key`; faults compare more loosely (each alone)."""
    exact = store.credential_for_key(key)
    if exact is not None or not key:
        return exact
    for credential in store.credentials.values():
        secret = credential.secret_key
        if key.casefold() == secret.casefold() and faults.on(Fault.KEY_CASE_INSENSITIVE):
            return credential
        if secret.startswith(key) and faults.on(Fault.KEY_PREFIX_ACCEPTED):
            return credential
        if key.startswith(secret) and faults.on(Fault.KEY_WITH_SUFFIX_ACCEPTED):
            return credential
    return None


def authenticate(request: Request, service: Service, operation_id: str) -> Credential:
    """The credential of the request's `x-service-key`: required on every operation, and compared exactly."""
    store, faults = service.store, service.faults
    sent = presented_key(request, faults)
    key = sent or ""
    if sent is None and operation_id == "listBanks" and faults.on(Fault.NO_AUTH_ON_BANK_LIST):
        return store.test_credential()
    if sent is None and operation_id == "closeWallet" and faults.on(Fault.NO_AUTH_ON_CLOSE):
        return store.test_credential()
    if sent == "" and faults.on(Fault.EMPTY_KEY_ACCEPTED):
        return store.test_credential()
    credential = credential_for(store, faults, key) if key else None
    if credential is None and key and request.method == "GET" and faults.on(Fault.ANY_KEY_ACCEPTED_ON_READS):
        return store.test_credential()
    if operation_id == "createCollectionAccount" and faults.on(Fault.KEY_REFUSED_ON_COLLECTION_ACCOUNTS):
        credential = None  # the right key is refused as if it were wrong
    if credential is not None:
        return credential
    refusal = (Refusal.WRONG_KEY if key else Refusal.MISSING_KEY).error()
    refusal.headers["WWW-Authenticate"] = f'ApiKey header="{KEY_HEADER}"'
    if faults.on(Fault.AUTH_REFUSAL_403):
        refusal.status = HTTPStatus.FORBIDDEN
    if key and service.variants.on(Variant.WRONG_KEY_403):
        refusal.status = HTTPStatus.FORBIDDEN
        del refusal.headers["WWW-Authenticate"]
    raise refusal


def operation(operation_id: str) -> Callable[[Handler], OperationEndpoint]:
    """Marks a handler as one operation of the document: authenticated, then handled."""

    def decorate(handler: Handler) -> OperationEndpoint:
        async def endpoint(request: Request) -> Response:
            service: Service = request.app.state.service
            caller = authenticate(request, service, operation_id)
            return await handler(request, Call(service, caller))

        marked = cast(OperationEndpoint, endpoint)  # an endpoint, given its operation_id on the next line
        marked.operation_id = operation_id
        return marked

    return decorate
