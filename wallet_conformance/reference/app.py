"""The Starlette application of the reference: the operations' routes, the sandbox's, and the answers to errors.

The handlers (routes/) and what they work with (service.py) live elsewhere; this module only puts them
together: one Route per path under /v1, the sandbox routes, the exception handlers that answer errors
in the envelope, and, when a variant is on, the middleware that dresses every answer (dressing.py).
"""

from __future__ import annotations

from http import HTTPStatus

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from wallet_conformance.reference import sandbox
from wallet_conformance.reference.dressing import Dressing
from wallet_conformance.reference.errors import ApiError, Page, Refusal, html_page, text_page
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.routes import HANDLERS
from wallet_conformance.reference.service import Endpoint, Service, error_response
from wallet_conformance.spec import contract


def paths(faults: FaultSet) -> dict[str, dict[str, Endpoint]]:
    """Each handler at its operation's method and path in openapi.yaml: path under /v1 -> method -> handler."""
    served: dict[str, dict[str, Endpoint]] = {}
    for endpoint in HANDLERS:
        operation = contract.operations()[endpoint.operation_id]
        path = operation.path
        if operation.id == "verifyTransaction" and faults.on(Fault.VERIFY_UNDER_OTHER_PATH):
            path = "/transactions/verify/{reference}"
        handlers = served.setdefault(path, {})
        if operation.method in handlers:
            raise ValueError(f"two handlers for {operation.method} {path}")
        handlers[operation.method] = endpoint
    return served


def routes(faults: FaultSet) -> list[Route]:
    """One Route per path (so that a 405 carries the right Allow header), dispatching on the method."""
    return [
        Route(f"/v1{path}", _by_method(handlers), methods=list(handlers)) for path, handlers in paths(faults).items()
    ]


def _by_method(handlers: dict[str, Endpoint]) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    endpoint.handlers = handlers  # type: ignore[attr-defined]  # the app's routes say which handler serves what
    return endpoint


def create_app(service: Service) -> Starlette:
    async def on_api_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)
        return error_response(error, service)

    async def on_page(request: Request, error: Exception) -> Response:
        assert isinstance(error, Page)
        return Response(error.text, status_code=error.status, media_type=error.media_type)

    async def on_http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        faults = service.faults
        if error.status_code == HTTPStatus.METHOD_NOT_ALLOWED:
            if faults.on(Fault.WRONG_METHOD_TEXT_PAGE):
                return await on_page(request, text_page(error.status_code))
            refused = Refusal.METHOD_NOT_ALLOWED.error(method=request.method, path=request.url.path)
        elif error.status_code == HTTPStatus.NOT_FOUND:
            if faults.on(Fault.UNKNOWN_PATH_HTML_PAGE) and request.url.path.startswith("/v1/"):
                return await on_page(request, html_page(error.status_code))
            refused = Refusal.NO_ROUTE.error(method=request.method, path=request.url.path)
        else:
            refused = ApiError(error.status_code, str(error.detail))
        refused.headers.update(error.headers or {})
        return error_response(refused, service)

    async def on_client_gone(request: Request, error: Exception) -> Response:
        """A client gone before its request was read whole (a run interrupted): nothing was done, and no one to
        answer (the answer goes nowhere), rather than a traceback in the server's log."""
        return Response(status_code=HTTPStatus.BAD_REQUEST)

    app = Starlette(
        routes=[*routes(service.faults), *sandbox.routes()],
        exception_handlers={
            ApiError: on_api_error,
            HTTPException: on_http_error,
            Page: on_page,
            ClientDisconnect: on_client_gone,
        },
    )
    if len(service.variants):
        app.add_middleware(Dressing, variants=service.variants)

    # /v1/accounts/ is no operation: answer it 404 in an envelope rather than redirect.
    app.router.redirect_slashes = False
    app.state.service = service
    return app
