"""Sandbox controls, outside /v1 and without a key: what a test needs that the API cannot do.

    POST /sandbox/fund        {"walletId": <wallet publicId>, "amount": 50000}  (or "accountNumber" instead of
                              "walletId"; optional "narration") records an inbound payment from an
                              external bank: a `success` credit with sourceType External. 200, data: the credit.
                              A collection account's publicId or accountNumber pays the wallet it collects into.
    POST /sandbox/settle      settles every pending transfer now; {"reference": "..."} settles one.
                              200, data: the transfers settled by this call.
    POST /sandbox/reset       forgets every record (same keys, same faults): a fresh, deterministic start.
    GET  /sandbox/deliveries  the webhook delivery attempts so far (url, event, reference, status, ...).
    GET  /sandbox/due         data: {"due": n}, the changes the server has yet to make after answering (pending
                              settlements, balances posted later, delayed funding credits); 0 when no balance
                              will change until another request.
    GET  /sandbox/health      200 when the server answers.

Faults never apply here: the sandbox is the tests' instrument, not part of the API under test. Two
variants do (a delayed funding credit, no settle hook): a real sandbox may well behave so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from wallet_conformance.reference import fields, serialize
from wallet_conformance.reference.errors import ApiError, Refusal, error_body
from wallet_conformance.reference.faults import FaultSet
from wallet_conformance.reference.service import Service
from wallet_conformance.reference.variants import Variant

NO_FAULTS = FaultSet()
# Under a variant, an inbound payment is credited one settle delay after the funding hook answered, and this long
# after at most (also where transfers settle only when told, with no settle delay).
FUNDING_DELAY_SECONDS = 0.25


class Accepted(Exception):
    """The sandbox took a request that completes later: answered 202 with `data`."""

    def __init__(self, data: Any) -> None:
        super().__init__("accepted")
        self.data = data


SandboxHandler = Callable[[Request, Service], Awaitable[Any]]


def _ok(data: Any, message: str) -> Response:
    return JSONResponse({"meta": {"statusCode": 200, "success": True, "message": message}, "data": data})


def _sandbox(handler: SandboxHandler, message: str) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return _ok(await handler(request, request.app.state.service), message)
        except Accepted as accepted:
            meta = {"statusCode": HTTPStatus.ACCEPTED, "success": True, "message": message}
            body = {"meta": meta, "data": accepted.data}
            return JSONResponse(body, status_code=HTTPStatus.ACCEPTED)
        except ApiError as error:
            return JSONResponse(error_body(error.status, error.message), status_code=error.status)

    return endpoint


async def fund(request: Request, service: Service) -> Any:
    body = await fields.json_body(request, NO_FAULTS)
    amount = fields.kobo(body, "amount", minimum=1)
    narration = fields.text(body, "narration", required=False, default="Sandbox inbound payment") or ""
    store = service.store
    if fields.present(body, "walletId"):
        public_id = fields.required_text(body, "walletId")
        wallet = store.collecting_wallet(public_id=public_id) or store.find_wallet_anywhere(public_id)
    elif fields.present(body, "accountNumber"):
        number = fields.account_number(body)
        wallet = store.collecting_wallet(account_number=number) or store.find_wallet_by_number(number)
    else:
        raise Refusal.INVALID_FIELD.error(field="walletId", problem="walletId or accountNumber is required")
    if service.variants.on(Variant.FUNDING_DELAYED):
        # The payment is announced now and credited later, as a bank's notification would arrive.
        ledger = service.store.ledger
        delay = (
            FUNDING_DELAY_SECONDS if service.settle_delay is None else min(service.settle_delay, FUNDING_DELAY_SECONDS)
        )
        service.store.later(delay, ledger.fund, wallet, amount, narration)
        raise Accepted({"walletId": wallet.public_id, "amount": amount, "status": "pending"})
    credit = service.store.ledger.fund(wallet, amount, narration)
    return serialize.transaction(credit, NO_FAULTS)


async def settle(request: Request, service: Service) -> Any:
    reference = None
    if await request.body():
        reference = fields.text(await fields.json_body(request, NO_FAULTS), "reference", required=False)
    _, hook_open = service.settlement()
    if not hook_open:
        raise Refusal.NO_ROUTE.error(method=request.method, path=request.url.path)
    pending = service.store.ledger.pending_transfers()
    if reference is not None:
        pending = [transaction for transaction in pending if transaction.reference == reference]
        if not pending:
            raise Refusal.NOT_FOUND.error(what="Pending transfer", key=reference)
    for transaction in pending:
        service.store.ledger.settle(transaction)
    return [serialize.transaction(transaction, NO_FAULTS) for transaction in pending]


async def reset(request: Request, service: Service) -> Any:
    service.reset()
    return None


async def deliveries(request: Request, service: Service) -> Any:
    return service.webhooks.listing()


async def due(request: Request, service: Service) -> Any:
    return {"due": service.store.due}


async def health(request: Request, service: Service) -> Any:
    return {"status": "ok"}


FUND_PATH = "/sandbox/fund"  # the funding hook the suite's --funding-url points at
DUE_PATH = "/sandbox/due"  # what the suite asks before it ends a wait early (Target.due_url)


def routes() -> list[Route]:
    return [
        Route(FUND_PATH, _sandbox(fund, "Inbound payment recorded"), methods=["POST"]),
        Route("/sandbox/settle", _sandbox(settle, "Pending transfers settled"), methods=["POST"]),
        Route("/sandbox/reset", _sandbox(reset, "Sandbox reset"), methods=["POST"]),
        Route("/sandbox/deliveries", _sandbox(deliveries, "Webhook deliveries"), methods=["GET"]),
        Route(DUE_PATH, _sandbox(due, "Changes still due"), methods=["GET"]),
        Route("/sandbox/health", _sandbox(health, "ok"), methods=["GET"]),
    ]
