"""The HTTP face of the reference: the routes under /v1, authentication, request checks and envelopes.

Each handler reads its request (fields.py), asks the store (store.py) and answers the document's
envelope: `{"meta": {"statusCode", "success", "message"?, "pagination"?}, "data": ...}`, with the
success status and message of its operation read from the contract.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from wallet_conformance import contract
from wallet_conformance.reference import fields, sandbox, serialize
from wallet_conformance.reference.banks import Bank
from wallet_conformance.reference.errors import ApiError, Refusal, error_body, invalid
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.paging import paginate
from wallet_conformance.reference.store import CURRENCY, SUCCESS, Credential, Store, Transaction, Wallet
from wallet_conformance.reference.webhooks import Webhooks

KEY_HEADER = "x-service-key"
DOCUMENTED = object()  # "the operation's documented message"


@dataclass
class Service:
    """What every handler works with."""

    store: Store
    faults: FaultSet
    webhooks: Webhooks
    # Seconds from acceptance to settlement of a transfer; None: only POST /sandbox/settle settles.
    settle_delay: float | None

    def reset(self) -> None:
        """Forgets every record: a fresh store with the same keys and faults."""
        keys = self.store.test_credential().secret_key, self.store.live_credential().secret_key
        self.store = Store(self.faults, *keys)
        self.webhooks = Webhooks(self.store, self.faults)

    def schedule_settlement(self, transaction: Transaction) -> None:
        if self.settle_delay is not None:
            asyncio.get_running_loop().call_later(self.settle_delay, self.store.settle, transaction)


@dataclass
class Call:
    """One authenticated request: the service and the key's credential (account and mode)."""

    service: Service
    caller: Credential

    @property
    def store(self) -> Store:
        return self.service.store

    @property
    def faults(self) -> FaultSet:
        return self.service.faults


Handler = Callable[[Request, Call], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]


# ------------------------------------------------------------------------------- envelopes


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
    if message is not None:
        meta["message"] = message
    if pagination is not None:
        meta["pagination"] = pagination
    if status == HTTPStatus.CREATED and call.faults.on(Fault.STATUS_CODE_200_IN_META_ON_CREATE):
        meta["statusCode"] = HTTPStatus.OK
    return {"meta": meta, "data": data}, status


def reply(body: dict[str, Any], status: int, **options: Any) -> Response:
    return JSONResponse(body, status_code=status, **options)


def error_response(error: ApiError, faults: FaultSet) -> Response:
    body: dict[str, Any] = error_body(error.status, error.message)
    if faults.on(Fault.ERROR_STATUS_CODE_200_IN_META):
        body["meta"]["statusCode"] = HTTPStatus.OK
    if faults.on(Fault.ERROR_SUCCESS_TRUE):
        body["meta"]["success"] = True
    if faults.on(Fault.PLAIN_ERROR_BODY):
        body = {"error": error.message}
    return JSONResponse(body, status_code=error.status, headers=error.headers)


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
    raise refusal


def operation(operation_id: str) -> Callable[[Handler], Endpoint]:
    """Marks a handler as one operation of the document: authenticated, then handled."""

    def decorate(handler: Handler) -> Endpoint:
        async def endpoint(request: Request) -> Response:
            service: Service = request.app.state.service
            caller = authenticate(request, service, operation_id)
            return await handler(request, Call(service, caller))

        return endpoint

    return decorate


# -------------------------------------------------------------------------------- accounts


@operation("updateAccount")
async def update_account(request: Request, call: Call) -> Response:
    try:
        account = call.store.find_account(request.path_params["accountId"])
    except ApiError:
        if not call.faults.on(Fault.UPDATE_UNKNOWN_ACCOUNT_ACCEPTED):
            raise
        account = call.caller.account
    body = await fields.json_body(request, call.faults)
    # webhooks is the one updatable field; an update without it changes nothing.
    webhooks = fields.webhooks(body) if fields.present(body, "webhooks") else list(account.webhooks)
    before = serialize.account(account, call.faults)
    if call.faults.on(Fault.WEBHOOKS_NOT_PERSISTED):
        shown = before | {"webhooks": webhooks}
    else:
        if webhooks != account.webhooks:
            call.store.set_webhooks(account, webhooks)
        shown = serialize.account(account, call.faults)
    if call.faults.on(Fault.UPDATE_RETURNS_OLD_WEBHOOKS):
        shown["webhooks"] = before["webhooks"]
    if call.faults.on(Fault.UPDATE_RETURNS_WEBHOOKS_ONLY):
        shown = {"webhooks": shown["webhooks"]}
    message = DOCUMENTED
    if call.faults.on(Fault.WRONG_UPDATE_MESSAGE):
        message = "account successfully updated"
    return reply(*envelope(call, "updateAccount", shown, message=message))


@operation("listAccounts")
async def list_accounts(request: Request, call: Call) -> Response:
    name = request.query_params.get("name")
    is_default = fields.boolean_query(request, "isDefault")
    live = fields.boolean_query(request, "live")
    if live is not None and call.faults.on(Fault.ACCOUNTS_LIVE_FILTER_REJECTED):
        raise Refusal.INVALID_QUERY.error(field="live", problem="is not supported")
    accounts = call.store.accounts
    if name is not None and not call.faults.on(Fault.ACCOUNTS_NAME_FILTER_IGNORED):
        accounts = [account for account in accounts if account.name == name]
    if is_default is not None and not call.faults.on(Fault.ACCOUNTS_ISDEFAULT_FILTER_IGNORED):
        accounts = [account for account in accounts if account.is_default == is_default]
    # Accounts serve both modes and carry no live field: the live filter is accepted and keeps them all.
    page, pagination = paginate(request, accounts, call.faults)
    data: list[Any] = [serialize.account(account, call.faults) for account in page]
    if call.faults.on(Fault.ACCOUNTS_LIST_WRAPPED):
        data = [{"account": entry} for entry in data]
    message: Any = DOCUMENTED
    if call.faults.on(Fault.MESSAGE_NOT_STRING_ON_ACCOUNT_LIST):
        message = 0
    return reply(*envelope(call, "listAccounts", data, message=message, pagination=pagination))


# --------------------------------------------------------------------------------- wallets

CATEGORIES = ("primary", "secondary")


@operation("createWallet")
async def create_wallet(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults = call.faults
    category = fields.required_text(body, "category")
    if category not in CATEGORIES:
        if not faults.on(Fault.UNKNOWN_CATEGORY_ACCEPTED):
            raise invalid("category", f"must be one of {', '.join(CATEGORIES)}")
        category = "secondary"
    account_name = fields.text(body, "accountName", required=False, default=call.caller.account.name)
    if faults.on(Fault.WALLET_NAME_FROM_ACCOUNT):
        account_name = call.caller.account.name
    fields.one_of(body, "currency", (CURRENCY,), required=False)

    # emailAddress and mobile: required only for secondary wallets; checked whenever sent.
    email_required = category == "secondary" and not faults.on(Fault.SECONDARY_WITHOUT_EMAIL_ACCEPTED)
    if category == "primary" and faults.on(Fault.PRIMARY_REQUIRES_EMAIL):
        email_required = True
    email = fields.text(body, "emailAddress", required=email_required)
    if email is not None and not faults.on(Fault.EMAIL_NOT_VALIDATED):
        fields.email(email, "emailAddress")
    mobile_required = category == "secondary" and not faults.on(Fault.SECONDARY_WITHOUT_MOBILE_ACCEPTED)
    if mobile_required and not fields.present(body, "mobile"):
        raise invalid("mobile", "is required for secondary wallets")
    mobile = fields.mobile(body) if fields.present(body, "mobile") else None

    wallet = call.store.create_wallet(
        call.caller, category=category, account_name=account_name or "", email_address=email, mobile=mobile
    )
    data = serialize.wallet(wallet, "create", faults)
    if faults.on(Fault.CREATE_WALLET_CATEGORY_ALWAYS_PRIMARY):
        data["category"] = "primary"
    message = DOCUMENTED
    if faults.on(Fault.WRONG_CREATE_WALLET_MESSAGE):
        message = "Virtual account successfully created"
    return reply(*envelope(call, "createWallet", data, message=message))


@operation("listWallets")
async def list_wallets(request: Request, call: Call) -> Response:
    page, pagination = paginate(request, call.store.wallets_of(call.caller), call.faults)
    if call.faults.on(Fault.PAGINATION_TOTAL_AS_STRING):
        pagination["totalCount"] = str(pagination["totalCount"])
    data: Any = [serialize.wallet(wallet, "list", call.faults) for wallet in page]
    if call.faults.on(Fault.WALLET_LIST_OF_IDS):
        data = [entry["publicId"] for entry in data]
    if call.faults.on(Fault.DATA_OBJECT_ON_WALLET_LIST):
        data = {"items": data}
    return reply(*envelope(call, "listWallets", data, pagination=pagination))


@operation("getWallet")
async def get_wallet(request: Request, call: Call) -> Response:
    wallet_id = request.path_params["walletId"]
    faults = call.faults
    wallet: Wallet | None
    if faults.on(Fault.GET_WALLET_RETURNS_FIRST) and call.store.wallets_of(call.caller):
        wallet = call.store.wallets_of(call.caller)[-1]  # the oldest open wallet, whatever was asked
    else:
        try:
            wallet = call.store.find_wallet(call.caller, wallet_id)
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
    wallet = call.store.find_wallet(call.caller, request.path_params["walletId"])
    call.store.close_wallet(wallet)
    data = serialize.closed_wallet(wallet)
    if call.faults.on(Fault.CLOSE_WITHOUT_ACCOUNT_NUMBER):
        del data["accountNumber"]
    if call.faults.on(Fault.CLOSE_ACCOUNT_NUMBER_INTEGER):
        data["accountNumber"] = int(wallet.account_number)
    message: Any = DOCUMENTED
    if call.faults.on(Fault.WRONG_CLOSE_MESSAGE):
        message = "VirtualAccount successfully closed"
    if call.faults.on(Fault.MESSAGE_MISSING_ON_CLOSE):
        message = None
    return reply(*envelope(call, "closeWallet", data, message=message))


# ---------------------------------------------------------------------- collection accounts


@operation("createCollectionAccount")
async def create_collection_account(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults = call.faults
    destination_id = fields.required_text(body, "destination")
    name_required = not faults.on(Fault.COLLECTION_ACCEPTS_MISSING_ACCOUNT_NAME)
    account_name = fields.text(body, "accountName", required=name_required)
    amount = fields.kobo(body, "amount", minimum=1)
    expire_in = fields.seconds(body, "expireIn")
    lower, upper = contract.expire_in_bounds()
    if faults.on(Fault.EXPIRE_IN_LOWER_BOUND_OFF):
        lower -= 1
    too_long = expire_in > upper
    if faults.on(Fault.EXPIRE_IN_UPPER_BOUND_EXCLUSIVE):
        too_long = expire_in >= upper
    if faults.on(Fault.EXPIRE_IN_NO_UPPER_BOUND):
        too_long = False
    if expire_in < lower or too_long:
        raise invalid("expireIn", f"must be from {lower} to {upper} seconds")
    reference = fields.text(body, "reference", required=faults.on(Fault.COLLECTION_REQUIRES_REFERENCE))
    shortest = contract.reference_min_length()
    if faults.on(Fault.REFERENCE_MIN_LENGTH_4):
        shortest -= 1
    if faults.on(Fault.REFERENCE_MIN_LENGTH_6):
        shortest += 1
    if reference is not None and len(reference) < shortest:
        raise invalid("reference", f"must be at least {shortest} characters")

    destination: Wallet | None
    try:
        destination = call.store.find_wallet(call.caller, destination_id)
    except ApiError:
        if not faults.on(Fault.COLLECTION_ACCEPTS_UNKNOWN_DESTINATION):
            raise
        destination = None
    collection = call.store.create_collection_account(
        call.caller,
        destination=destination,
        account_name=account_name or (destination.account_name if destination else call.caller.account.name),
        amount=amount,
        expire_in=expire_in,
        reference=reference,
    )
    message = DOCUMENTED
    if faults.on(Fault.WRONG_COLLECTION_MESSAGE):
        message = "Collection account successfully created"
    data = serialize.collection_account(collection, faults)
    if faults.on(Fault.COLLECTION_CREATE_RETURNS_WALLET) and destination is not None:
        data = serialize.wallet(destination, "read", faults)
    body, status = envelope(call, "createCollectionAccount", data, message=message)
    if faults.on(Fault.COLLECTION_CREATED_200):
        status = body["meta"]["statusCode"] = HTTPStatus.OK
    return reply(body, status)


# ---------------------------------------------------------------------------- bank accounts


def _bank(call: Call, code: str) -> Bank:
    bank = call.store.bank(code)
    if bank is None:
        raise invalid("bankCode", f"{code} is not a listed bank")
    return bank


@operation("validateAccount")
async def validate_account(request: Request, call: Call) -> Response:
    content_type = request.headers.get("content-type", "").replace(" ", "").lower()
    if content_type != "application/json;charset=utf-8" and call.faults.on(Fault.VALIDATE_REQUIRES_CHARSET):
        raise ApiError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json; charset=utf-8.")
    body = await fields.json_body(request, call.faults)
    account_number = fields.account_number(body)
    if not fields.present(body, "bankCode") and call.faults.on(Fault.VALIDATE_ACCEPTS_MISSING_BANK_CODE):
        bank = call.store.banks[0]
    else:
        bank = _bank(call, fields.required_text(body, "bankCode"))
    beneficiary = call.store.resolve_bank_account(call.caller, account_number, bank)
    data: Any = serialize.bank_account(beneficiary, call.faults)
    if call.faults.on(Fault.VALIDATE_NAME_UNRESOLVED):
        data["accountName"] = ""
    if call.faults.on(Fault.VALIDATE_DATA_ARRAY):
        data = [data]
    message = DOCUMENTED
    if call.faults.on(Fault.WRONG_VALIDATE_MESSAGE):
        message = "BankAccount successfully validated"
    return reply(*envelope(call, "validateAccount", data, message=message))


@operation("listBanks")
async def list_banks(request: Request, call: Call) -> Response:
    faults = call.faults
    data: list[Any] = [serialize.bank(bank, faults) for bank in call.store.banks]
    if faults.on(Fault.BANK_LIST_NAMES_ONLY):
        data = [bank.name for bank in call.store.banks]
    message = DOCUMENTED
    if faults.on(Fault.WRONG_BANK_LIST_MESSAGE):
        message = "success"
    pagination = None
    if faults.on(Fault.BANK_LIST_PAGINATED):
        pagination = {"totalCount": len(data), "perPage": len(data), "current": 1}
    body, status = envelope(call, "listBanks", data, message=message, pagination=pagination)
    if faults.on(Fault.SUCCESS_FALSE_ON_BANK_LIST):
        body["meta"]["success"] = False
    if faults.on(Fault.CONTENT_TYPE_TEXT_ON_BANK_LIST):
        return reply(body, status, media_type="text/plain")
    return reply(body, status)


# ----------------------------------------------------------------------------- transactions


@operation("listTransactions")
async def list_transactions(request: Request, call: Call) -> Response:
    page, pagination = paginate(request, call.store.transactions_of(call.caller), call.faults)
    data: list[Any] = [serialize.transaction(transaction, call.faults) for transaction in page]
    if call.faults.on(Fault.LISTED_BANK_DESTINATION_TYPE):
        for entry in data:
            if entry["destinationType"] == "BankAccount":
                entry["destinationType"] = "bank_account"
    if call.faults.on(Fault.TRANSACTIONS_LIST_OF_REFERENCES):
        data = [transaction.reference for transaction in page]
    if call.faults.on(Fault.PAGINATION_MISSING_ON_TRANSACTIONS):
        pagination = None
    return reply(*envelope(call, "listTransactions", data, pagination=pagination))


@operation("verifyTransaction")
async def verify_transaction(request: Request, call: Call) -> Response:
    key = request.path_params["reference"]
    try:
        if call.faults.on(Fault.VERIFY_BY_PUBLIC_ID):
            transaction = call.store.find_transaction(call.caller, public_id=key)
        else:
            transaction = call.store.find_transaction(call.caller, reference=key)
    except ApiError:
        if not call.faults.on(Fault.UNKNOWN_REFERENCE_200):
            raise
        return reply(*envelope(call, "verifyTransaction", None))
    data = serialize.transaction(transaction, call.faults, verify=True)
    return reply(*envelope(call, "verifyTransaction", data))


def _transfer_reply(call: Call, operation_id: str, data: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The envelope shared by both transfers."""
    body, status = envelope(call, operation_id, data)
    if call.faults.on(Fault.SUCCESS_AS_STRING_ON_TRANSFER):
        body["meta"]["success"] = "true"
    return body, status


def _narration(body: fields.Body) -> str:
    return fields.text(body, "narration", required=False, default="") or ""


@operation("transfer")
async def transfer(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults, store = call.faults, call.store
    source_id = fields.required_text(body, "source")
    fields.one_of(body, "sourceType", ("VirtualAccount",), required=False)
    destination_id = fields.required_text(body, "destination")
    fields.one_of(body, "destinationType", ("VirtualAccount",), required=False)
    minimum = contract.minimum_amount("transfer")
    if faults.on(Fault.TRANSFER_MINIMUM_OFF_BY_ONE):
        minimum -= 1
    if faults.on(Fault.TRANSFER_MINIMUM_EXCLUSIVE):
        minimum += 1
    amount = fields.kobo(
        body, "amount", minimum=minimum, round_fractions_down=faults.on(Fault.FRACTIONAL_AMOUNT_ACCEPTED)
    )
    fields.one_of(body, "currency", (CURRENCY,), required=False)
    narration = _narration(body)

    source = store.find_wallet(call.caller, source_id, include_closed=faults.on(Fault.CLOSED_WALLET_STILL_TRANSFERS))
    destination = store.find_destination_wallet(call.caller.live, destination_id)
    # The store checks and debits in one step; nothing may be awaited between the two.
    if faults.on(Fault.CONCURRENT_OVERDRAFT):
        store.require_funds(source, amount)
        await asyncio.sleep(0.05)
        check_funds = False
    else:
        check_funds = not faults.on(Fault.OVERDRAFT_ALLOWED)
    accepted = store.transfer(
        call.caller, source=source, destination=destination, amount=amount, narration=narration, check_funds=check_funds
    )
    call.service.schedule_settlement(accepted)

    data = serialize.transaction(accepted, faults)
    if faults.on(Fault.TRANSFER_IMMEDIATELY_SUCCESSFUL):
        data["status"] = SUCCESS
    if faults.on(Fault.TRANSFER_ENTRY_CREDIT):
        data["entry"] = "credit"
    if faults.on(Fault.TRANSFER_DESTINATION_TYPE_WALLET):
        data["destinationType"] = "Wallet"
    body, status = _transfer_reply(call, "transfer", data)
    if faults.on(Fault.TRANSFER_201):
        status = body["meta"]["statusCode"] = HTTPStatus.CREATED
    return reply(body, status)


@operation("bankTransfer")
async def bank_transfer(request: Request, call: Call) -> Response:
    body = await fields.json_body(request, call.faults)
    faults, store = call.faults, call.store
    source_id = fields.required_text(body, "source")
    account_number = fields.account_number(body)
    bank = _bank(call, fields.required_text(body, "bankCode"))
    minimum = contract.minimum_amount("bankTransfer")
    if faults.on(Fault.BANK_TRANSFER_MINIMUM_MISSING):
        minimum = 1
    if faults.on(Fault.BANK_TRANSFER_MINIMUM_EXCLUSIVE):
        minimum += 1
    amount = fields.kobo(body, "amount", minimum=minimum)
    fields.one_of(body, "currency", (CURRENCY,), required=False)
    narration = _narration(body)

    source = store.find_wallet(call.caller, source_id)
    beneficiary = store.resolve_bank_account(call.caller, account_number, bank)
    accepted = store.bank_transfer(
        call.caller, source=source, beneficiary=beneficiary, amount=amount, narration=narration
    )
    call.service.schedule_settlement(accepted)

    data = serialize.transaction(accepted, faults)
    if faults.on(Fault.ACTUAL_AMOUNT_EXCLUDES_FEE):
        data["actualAmount"] = data["clientTransaction"]["actualAmount"] = accepted.amount
    if faults.on(Fault.BANK_TRANSFER_STATUS_PROCESSING):
        data["status"] = "processing"
    if faults.on(Fault.BANK_TRANSFER_DESTINATION_VIRTUAL):
        data["destinationType"] = "VirtualAccount"
    if faults.on(Fault.BANK_TRANSFER_DESTINATION_NUMBER_REVERSED):
        data["destinationData"]["accountNumber"] = account_number[::-1]
    return reply(*_transfer_reply(call, "bankTransfer", data))


# ---------------------------------------------------------------------------------- the app


# The document's operations: operationId -> method, path under /v1, handler.
OPERATIONS: dict[str, tuple[str, str, Endpoint]] = {
    "updateAccount": ("PATCH", "/accounts/{accountId}", update_account),
    "listAccounts": ("GET", "/accounts", list_accounts),
    "createWallet": ("POST", "/virtual-accounts", create_wallet),
    "listWallets": ("GET", "/virtual-accounts", list_wallets),
    "getWallet": ("GET", "/virtual-accounts/{walletId}", get_wallet),
    "closeWallet": ("DELETE", "/virtual-accounts/{walletId}", close_wallet),
    "createCollectionAccount": ("POST", "/collection-accounts", create_collection_account),
    "validateAccount": ("POST", "/transactions/validate-account", validate_account),
    "listTransactions": ("GET", "/transactions", list_transactions),
    "verifyTransaction": ("GET", "/transactions/{reference}/verify", verify_transaction),
    "transfer": ("POST", "/transactions/transfer", transfer),
    "bankTransfer": ("POST", "/transactions/bank-transfer", bank_transfer),
    "listBanks": ("GET", "/transactions/banks", list_banks),
}


def routes(faults: FaultSet) -> list[Route]:
    """One Route per path (so that a 405 carries the right Allow header), dispatching on the method."""
    operations = dict(OPERATIONS)
    if faults.on(Fault.VERIFY_UNDER_OTHER_PATH):
        method, _, endpoint = operations["verifyTransaction"]
        operations["verifyTransaction"] = (method, "/transactions/verify/{reference}", endpoint)
    paths: dict[str, dict[str, Endpoint]] = {}
    for method, path, endpoint in operations.values():
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
        return error_response(error, service.faults)

    async def on_http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == HTTPStatus.METHOD_NOT_ALLOWED:
            refused = Refusal.METHOD_NOT_ALLOWED.error(method=request.method, path=request.url.path)
        elif error.status_code == HTTPStatus.NOT_FOUND:
            refused = Refusal.NO_ROUTE.error(method=request.method, path=request.url.path)
        else:
            refused = ApiError(error.status_code, str(error.detail))
        refused.headers.update(error.headers or {})
        return error_response(refused, service.faults)

    app = Starlette(
        routes=[*routes(service.faults), *sandbox.routes()],
        exception_handlers={ApiError: on_api_error, HTTPException: on_http_error},
    )
    # /v1/accounts/ is no operation: answer it 404 in an envelope rather than redirect.
    app.router.redirect_slashes = False
    app.state.service = service
    return app
