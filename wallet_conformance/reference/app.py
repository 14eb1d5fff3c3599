"""The Starlette application of the reference: the operations' routes, the sandbox's, and the answers to errors.

The handlers (routes/) and what they work with (service.py) live elsewhere; this module only puts them
together: one Route per path under /v1, the sandbox routes, the exception handlers that answer errors
in the envelope, and, when a variant is on, the middleware that dresses every answer (dressing.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from http import HTTPStatus

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from wallet_conformance.reference import sandbox
from wallet_conformance.reference.dressing import dressed
from wallet_conformance.reference.errors import ApiError, Refusal
from wallet_conformance.reference.faults import Fault, FaultSet
from wallet_conformance.reference.routes import ROUTES
from wallet_conformance.reference.service import Endpoint, Service, error_response


def operations() -> dict[str, tuple[str, str, Endpoint]]:
    """The document's operations: operationId -> method, path under /v1, handler (routes/, one module a resource)."""
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
