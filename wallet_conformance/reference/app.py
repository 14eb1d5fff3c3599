"""The HTTP face of the reference: the app, authentication, errors and the envelope.

The handlers live in routes/, one module per resource; each reads its request (fields.py), asks the
store (store.py) or the ledger (ledger.py) and answers the document's envelope:
`{"meta": {"statusCode", "success", "message"?, "pagination"?}, "data": ...}`, with the success
status and message of its operation read from the contract.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from wallet_conformance.reference import sandbox, serialize
from wallet_conformance.reference.errors import ApiError, Refusal, error_body
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.ledger import Ledger
from wallet_conformance.reference.records import Credential, Transaction, now
from wallet_conformance.reference.store import Store
from wallet_conformance.reference.variants import Variant, VariantSet
from wallet_conformance.reference.webhooks import Webhooks
from wallet_conformance.spec import contract

KEY_HEADER = "x-service-key"
DOCUMENTED = object()  # "the operation's documented message"
# Under the slow-settlement variant: how much later than configured transfers settle.
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
        """Forgets every record: a fresh store with the same keys, faults and variants."""
        keys = self.store.test_credential().secret_key, self.store.live_credential().secret_key
        self.store = Store(self.faults, *keys, self.variants)
        self.webhooks = Webhooks(self.store, self.faults)

    def settlement(self) -> tuple[float | None, bool]:
        """Seconds from acceptance to settlement (None: never by itself), and whether the sandbox may settle."""
        if self.variants.on(Variant.SLOW_SETTLEMENT):
            delay = None if self.settle_delay is None else self.settle_delay + SLOW_SETTLEMENT_EXTRA_SECONDS
            return delay, False
        return self.settle_delay, True

    def schedule_settlement(self, transaction: Transaction) -> None:
        delay, _ = self.settlement()
        if delay is not None:
            asyncio.get_running_loop().call_later(delay, self.store.ledger.settle, transaction)


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


Handler = Callable[[Request, Call], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]


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
    conflicts = (Refusal.DUPLICATE_REFERENCE, Refusal.PRIMARY_LIMIT, Refusal.CUSTOMER_EXISTS,
                 Refusal.WALLET_HOLDS_MONEY)
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


def authenticate(request: Request, service: Service, operation_id: str) -> Credential:
    """The credential of the request's `x-service-key`: required on every operation."""
    store, faults = service.store, service.faults
    key = request.headers.get(KEY_HEADER, "")
    if not key and operation_id == "listBanks" and faults.on(Fault.NO_AUTH_ON_BANK_LIST):
        return store.test_credential()
    if not key and operation_id == "closeWallet" and faults.on(Fault.NO_AUTH_ON_CLOSE):
        return store.test_credential()
    credential = store.credential_for_key(key) if key else None
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


def operation(operation_id: str) -> Callable[[Handler], Endpoint]:
    """Marks a handler as one operation of the document: authenticated, then handled."""

    def decorate(handler: Handler) -> Endpoint:
        async def endpoint(request: Request) -> Response:
            service: Service = request.app.state.service
            caller = authenticate(request, service, operation_id)
            return await handler(request, Call(service, caller))

        endpoint.operation_id = operation_id  # type: ignore[attr-defined]
        return endpoint

    return decorate


# ------------------------------------------------------------------ what every answer carries

# The kind of record each path answers, named in the extra `object` field (a variant).
OBJECT_KINDS = (
    ("/v1/accounts", "account"),
    ("/v1/virtual-accounts", "virtual_account"),
    ("/v1/collection-accounts", "collection_account"),
    ("/v1/transactions/validate-account", "bank_account"),
    ("/v1/transactions/banks", "bank"),
    ("/v1/transactions", "transaction"),
)


def _each_string(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {name: _each_string(item, change) for name, item in value.items()}
    if isinstance(value, list):
        return [_each_string(item, change) for item in value]
    return change(value) if isinstance(value, str) else value


async def dressed(request: Request, response: Response, variants: VariantSet) -> Response:
    """An API answer with what some variants add beyond the document: fields, meta, headers, charset."""
    chunks = [chunk async for chunk in response.body_iterator]  # type: ignore[attr-defined]
    raw = b"".join(chunk if isinstance(chunk, bytes) else chunk.encode() for chunk in chunks)
    headers = {name: value for name, value in response.headers.items() if name != "content-length"}
    media_type = response.media_type or headers.pop("content-type", None)
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("meta"), dict):
        if variants.on(Variant.EXTRA_FIELDS) and response.status_code < HTTPStatus.BAD_REQUEST:
            kind = next((kind for prefix, kind in OBJECT_KINDS if request.url.path.startswith(prefix)), None)
            records = body.get("data") if isinstance(body.get("data"), list) else [body.get("data")]
            for record in records:
                if kind and isinstance(record, dict):
                    record["object"] = kind
        if variants.on(Variant.EXTRA_META):
            body["meta"] |= {"requestId": secrets.token_hex(8), "timestamp": serialize.timestamp(now())}
        if variants.on(Variant.TIMESTAMPS_UTC_OFFSET):
            body["data"] = _each_string(body.get("data"), serialize.with_utc_offset)
        raw = json.dumps(body).encode()
    if variants.on(Variant.EXTRA_HEADERS):
        headers |= {
            "x-request-id": secrets.token_hex(8),
            "ratelimit-limit": "1000",
            "ratelimit-remaining": "999",
            "ratelimit-reset": "60",
            "cache-control": "no-store",
        }
    if variants.on(Variant.CONTENT_TYPE_CHARSET) and (media_type or "").startswith("application/json"):
        headers.pop("content-type", None)
        media_type = "application/json; charset=utf-8"
    headers.pop("content-type", None)
    return Response(raw, status_code=response.status_code, headers=headers, media_type=media_type)


# ---------------------------------------------------------------------------------- the app


def operations() -> dict[str, tuple[str, str, Endpoint]]:
    """The document's operations: operationId -> method, path under /v1, handler (routes/, one module a resource)."""
    from wallet_conformance.reference.routes import ROUTES  # the route modules build on this module

    return {endpoint.operation_id: (method, path, endpoint) for method, path, endpoint in ROUTES}


def routes(faults: FaultSet) -> list[Route]:
    """One Route per path (so that a 405 carries the right Allow header), dispatching on the method."""
    table = operations()
    if faults.on(Fault.VERIFY_UNDER_OTHER_PATH):
        method, _, endpoint = table["verifyTransaction"]
        table["verifyTransaction"] = (method, "/transactions/verify/{reference}", endpoint)
    paths: dict[str, dict[str, Endpoint]] = {}
    for method, path, endpoint in table.values():
        paths.setdefault(path, {})[method] = endpoint
    return [Route(f"/v1{path}", _by_method(handlers), methods=list(handlers)) for path, handlers in paths.items()]


def _by_method(handlers: dict[str, Endpoint]) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    return endpoint


def create_app(service: Service) -> Starlette:
    async def on_api_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)
        return error_response(error, service)

    async def on_http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == HTTPStatus.METHOD_NOT_ALLOWED:
            refused = Refusal.METHOD_NOT_ALLOWED.error(method=request.method, path=request.url.path)
        elif error.status_code == HTTPStatus.NOT_FOUND:
            refused = Refusal.NO_ROUTE.error(method=request.method, path=request.url.path)
        else:
            refused = ApiError(error.status_code, str(error.detail))
        refused.headers.update(error.headers or {})
        return error_response(refused, service)

    app = Starlette(
        routes=[*routes(service.faults), *sandbox.routes()],
        exception_handlers={ApiError: on_api_error, HTTPException: on_http_error},
    )
    if len(service.variants):

        async def dress(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
            response = await call_next(request)
            if not request.url.path.startswith("/v1"):
                return response
            return await dressed(request, response, service.variants)

        app.add_middleware(BaseHTTPMiddleware, dispatch=dress)

    # /v1/accounts/ is no operation: answer it 404 in an envelope rather than redirect.
    app.router.redirect_slashes = False
    app.state.service = service
    return app
