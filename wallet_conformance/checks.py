"""Checks: plain functions that look at one exchange or one resource and raise one ConformanceFailure.

Each check names the requirement it holds; hand-written tests call them, and the
generated tests will register the same functions with Schemathesis.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from wallet_conformance import contract, validation
from wallet_conformance.client import Exchange
from wallet_conformance.failures import ConformanceFailure

MONEY_FIELDS = frozenset({"amount", "balance", "fee", "actualAmount", "convertedAmount"})
CURRENCY_FIELDS = frozenset({"currency", "sourceCurrency", "destinationCurrency"})
TIMESTAMP_FIELDS = frozenset({"createdAt", "updatedAt", "lastUpdated", "expiration", "deletedAt", "date"})
# ISO 8601 in UTC with milliseconds, as the document states; read from schemas/common.json.
TIMESTAMP = re.compile(contract.schema("common.json")["$defs"]["timestamp"]["pattern"])


def fail(requirement: str, title: str, expected: Any, received: Any, exchange: Exchange | None = None,
         detail: str | None = None) -> None:
    raise ConformanceFailure(requirement, title, expected, received, exchange, detail)


# ------------------------------------------------------------------ status and envelope


def status(exchange: Exchange, expected: int, requirement: str) -> None:
    if exchange.status != expected:
        fail(requirement, f"{exchange.method} answers HTTP {expected}", expected, exchange.status, exchange)


def success_status(exchange: Exchange, requirement: str) -> None:
    """The documented success status of the exchange's operation (ERR-01 / ERR-02)."""
    expected = contract.operations()[exchange.operation_id].success_status
    status(exchange, expected, requirement)


def refused(exchange: Exchange, requirement: str, why: str) -> None:
    """The target did not accept the request (any non-2xx)."""
    if exchange.ok:
        fail(requirement, f"refused: {why}", "a status outside 2xx", exchange.status, exchange)


def accepted(exchange: Exchange, requirement: str, why: str) -> None:
    """The target accepted the request (2xx)."""
    if not exchange.ok:
        fail(requirement, f"accepted: {why}", "a 2xx status", exchange.status, exchange)


def client_error(exchange: Exchange, requirement: str, why: str) -> None:
    """A refusal of the client's input is a 4xx."""
    if not 400 <= exchange.status < 500:
        fail(requirement, f"refused with a 4xx: {why}", "a status in 400..499", exchange.status, exchange)


def json_envelope(exchange: Exchange, requirement: str) -> dict[str, Any]:
    """The body is a JSON object holding `meta` (an object) and `data`."""
    if not exchange.is_json:
        fail(requirement, "the body is a JSON envelope", "a JSON object with meta and data", "a body that is not JSON",
             exchange)
    body = exchange.json
    missing = [name for name in ("meta", "data") if not isinstance(body, dict) or name not in body]
    if missing or not isinstance(body.get("meta"), dict):
        received = sorted(body) if isinstance(body, dict) else type(body).__name__
        fail(requirement, "the body is a JSON envelope with meta and data", ["data", "meta"], received, exchange)
    return body


def content_type_json(exchange: Exchange, requirement: str) -> None:
    content_type = (exchange.header("content-type") or "").split(";")[0].strip().lower()
    if content_type != "application/json":
        fail(requirement, "the response is labelled application/json", "application/json", content_type or None,
             exchange)


def meta_status_code(exchange: Exchange, requirement: str) -> None:
    code = exchange.meta.get("statusCode")
    if type(code) is not int or code != exchange.status:
        fail(requirement, "meta.statusCode is an integer repeating the HTTP status", exchange.status, code, exchange)


def meta_success_is_boolean(exchange: Exchange, requirement: str) -> None:
    if not isinstance(exchange.meta.get("success"), bool):
        fail(requirement, "meta.success is a boolean", "true or false", exchange.meta.get("success"), exchange)


def meta_success_is(exchange: Exchange, expected: bool, requirement: str) -> None:
    if exchange.meta.get("success") is not expected:
        fail(requirement, f"meta.success is {str(expected).lower()}", expected, exchange.meta.get("success"),
             exchange)


def message_is_string(exchange: Exchange, requirement: str) -> None:
    if "message" in exchange.meta and not isinstance(exchange.meta["message"], str):
        fail(requirement, "meta.message is a string", "a string", exchange.meta["message"], exchange)


def message_presence(exchange: Exchange, requirement: str) -> None:
    """meta.message is present or absent as the document says for this operation."""
    rule = contract.message_rule(exchange.operation_id)
    present = "message" in exchange.meta
    if rule == "present" and not present:
        fail(requirement, f"meta.message is present on {exchange.operation_id}", "a message", "no message", exchange)
    if rule == "absent" and present:
        fail(requirement, f"meta.message is absent from {exchange.operation_id}", "no message",
             exchange.meta["message"], exchange)


def message_value(exchange: Exchange, requirement: str) -> None:
    expected = contract.success_message(exchange.operation_id)
    if exchange.meta.get("message") != expected:
        fail(requirement, f"meta.message of {exchange.operation_id} is the documented message", expected,
             exchange.meta.get("message"), exchange)


def pagination_presence(exchange: Exchange, requirement: str) -> None:
    paginated = contract.is_paginated(exchange.operation_id)
    present = "pagination" in exchange.meta
    if paginated and not present:
        fail(requirement, f"meta.pagination is present on {exchange.operation_id}", "meta.pagination",
             sorted(exchange.meta), exchange)
    if not paginated and present:
        fail(requirement, f"no pagination object on {exchange.operation_id}", "no meta.pagination",
             exchange.meta["pagination"], exchange)


def pagination_shape(exchange: Exchange, requirement: str) -> dict[str, int]:
    pagination = exchange.meta.get("pagination")
    for name in ("totalCount", "perPage", "current"):
        value = pagination.get(name) if isinstance(pagination, dict) else None
        if type(value) is not int:
            fail(requirement, f"meta.pagination.{name} is an integer", "an integer", value, exchange)
    return pagination


def data_is_object(exchange: Exchange, requirement: str) -> dict[str, Any]:
    if not isinstance(exchange.data, dict):
        fail(requirement, "data is an object on a single-record response", "an object",
             type(exchange.data).__name__, exchange)
    return exchange.data


def data_is_array(exchange: Exchange, requirement: str) -> list[Any]:
    if not isinstance(exchange.data, list):
        fail(requirement, "data is an array on a list response", "an array", type(exchange.data).__name__, exchange)
    return exchange.data


# ------------------------------------------------------------------ resources


def conforms(instance: Any, schema_file: str, requirement: str, exchange: Exchange | None = None,
             pointer: str = "", where: str = "data") -> None:
    """`instance` validates against a schema of schemas/ (all problems listed, the first as `received`)."""
    problems = validation.problems(schema_file, instance, pointer)
    if problems:
        first = problems[0]
        listing = "; ".join(f"{where}{_join(problem.path)}: {problem.message}" for problem in problems[:8])
        more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
        fail(requirement, f"{where} matches {schema_file}{pointer}", f"{first.keyword}: {first.expected}",
             f"{where}{_join(first.path)}: {first.message}", exchange, detail=listing + more)


def _join(path: str) -> str:
    if not path:
        return ""
    return path if path.startswith("[") else "." + path


def has_prefix(value: Any, definition: str, requirement: str, exchange: Exchange | None, field: str) -> None:
    expected = contract.prefix(definition)
    if not isinstance(value, str) or not value.startswith(expected):
        fail(requirement, f"{field} starts with {expected!r}", f"{expected}...", value, exchange)


def equals(received: Any, expected: Any, requirement: str, title: str, exchange: Exchange | None = None) -> None:
    if received != expected:
        fail(requirement, title, expected, received, exchange)


def _walk(node: Any, path: str = "data") -> Iterator[tuple[str, str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key, value
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}[{index}]")


def money_is_integer_kobo(exchange: Exchange, requirement: str) -> None:
    for path, key, value in _walk(exchange.data):
        if key in MONEY_FIELDS and value is not None and type(value) is not int:
            fail(requirement, "money amounts are integers in kobo", "an integer", f"{path}.{key} = {value!r}",
                 exchange)


def currencies_are_ngn(exchange: Exchange, requirement: str) -> None:
    for path, key, value in _walk(exchange.data):
        if key in CURRENCY_FIELDS and value != "NGN":
            fail(requirement, "every currency is NGN", "NGN", f"{path}.{key} = {value!r}", exchange)


def timestamps_are_utc_ms(exchange: Exchange, requirement: str) -> None:
    for path, key, value in _walk(exchange.data):
        if key in TIMESTAMP_FIELDS and value is not None and not (isinstance(value, str) and TIMESTAMP.match(value)):
            fail(requirement, "timestamps are ISO 8601 UTC strings with milliseconds", "YYYY-MM-DDThh:mm:ss.sssZ",
                 f"{path}.{key} = {value!r}", exchange)


def error_envelope(exchange: Exchange) -> None:
    """An error response is an envelope (ERR-06) repeating its status (ERR-07) with success false (ERR-08)."""
    json_envelope(exchange, "ERR-06")
    meta_status_code(exchange, "ERR-07")
    meta_success_is(exchange, False, "ERR-08")
