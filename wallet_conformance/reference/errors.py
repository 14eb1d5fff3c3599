"""The reference's answers where the document says 'not shown': failure statuses and messages.

The document fixes the success responses only ("Error response shape, failure status codes and
error codes: not shown"). This table is the reference's choice, kept in one place; every refusal
is raised as `Refusal.X.error(...)` and answered by `error_body`. Only faults answer a `Page` instead.
"""

from __future__ import annotations

from enum import Enum
from http import HTTPStatus
from typing import Any


class Refusal(Enum):
    """Each refusal: its HTTP status and its message (a template filled by `.error(**values)`)."""

    MALFORMED_JSON = (400, "The request body is not valid JSON.")
    BODY_NOT_OBJECT = (400, "The request body must be a JSON object.")
    INVALID_FIELD = (400, "{field}: {problem}")
    INVALID_QUERY = (400, "Query parameter {field}: {problem}")
    INSUFFICIENT_BALANCE = (400, "Insufficient balance in wallet {wallet}.")
    SAME_WALLET = (400, "source and destination must be different wallets.")
    MISSING_KEY = (401, "The x-service-key header is required.")
    WRONG_KEY = (401, "The x-service-key is not valid.")
    FORBIDDEN = (403, "The x-service-key's account may not use {what} {key}.")
    NOT_FOUND = (404, "{what} {key} not found.")
    NO_ROUTE = (404, "No operation at {method} {path}.")
    METHOD_NOT_ALLOWED = (405, "{method} is not allowed on {path}.")
    DUPLICATE_REFERENCE = (409, "A collection account with reference {reference} already exists.")
    PRIMARY_LIMIT = (409, "At most {limit} primary wallets may be open at a time.")
    SECONDARY_LIMIT = (409, "At most {limit} secondary wallets may be open at a time.")
    CUSTOMER_EXISTS = (409, "A secondary wallet with {field} {value} already exists.")
    WALLET_HOLDS_MONEY = (409, "VirtualAccount {wallet} holds {balance} kobo; it cannot be closed until it is empty.")

    def __init__(self, status: int, template: str) -> None:
        self.status = status
        self.template = template

    def error(self, **values: Any) -> ApiError:
        return ApiError(self.status, self.template.format(**values), refusal=self)


class ApiError(Exception):
    """A refusal on its way to the client."""

    def __init__(
        self, status: int, message: str, headers: dict[str, str] | None = None, *, refusal: Refusal | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.refusal = refusal  # which entry of the table, when it came from one


def crash() -> ApiError:
    """A server error (only faults answer one)."""
    return ApiError(500, "Internal server error")


def invalid(field: str, problem: str) -> ApiError:
    """A 400 naming the request field at fault."""
    return Refusal.INVALID_FIELD.error(field=field, problem=problem)


def error_body(status: int, message: str) -> dict[str, Any]:
    """The error envelope: the document's envelope, with success false and data null."""
    return {"meta": {"statusCode": status, "success": False, "message": message}, "data": None}


class Page(Exception):
    """An answer that is no envelope: the HTML or plain-text error page a web framework gives by default (only faults
    answer one)."""

    def __init__(self, status: int, media_type: str, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.media_type = media_type
        self.text = text


def html_page(status: int) -> Page:
    phrase = HTTPStatus(status).phrase
    return Page(
        status,
        "text/html",
        f"<!DOCTYPE html>\n<html><head><title>{status} {phrase}</title></head><body><h1>{phrase}</h1></body></html>\n",
    )


def text_page(status: int) -> Page:
    return Page(status, "text/plain", HTTPStatus(status).phrase)
