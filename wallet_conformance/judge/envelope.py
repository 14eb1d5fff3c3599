"""Where the envelope is checked: every response is `{meta, data}` (the document's general conventions).

The shapes come from schemas/envelope.json, one JSON pointer per fact; code keeps only what a schema cannot
say: that meta.statusCode equals the HTTP status, which operations carry a message or pagination (the
catalogue), and that the body is JSON at all. Checks follow the convention of checks.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.checks import conforms, fail
from wallet_conformance.judge.failures import CannotJudge, check
from wallet_conformance.judge.refusals import has_meta, of_an_operation
from wallet_conformance.judge.rule import rule
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.catalogue import catalogue

SCHEMA = "envelope.json"
LIST_DATA = "SVC-20"  # data is an array on list responses
META = "#/$defs/meta/properties"
PAGINATION_FIELDS = ("totalCount", "perPage", "current")


# ------------------------------------------------------------------ what a success's body surely keeps (rule.py)


def in_meta(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The schema of a body that is an object whose meta is an object holding `required`, its fields as `properties`
    give them."""
    meta = {"type": "object", "required": list(required), "properties": properties}
    return {"type": "object", "required": ["meta"], "properties": {"meta": meta}}


def _whole_envelope(operation_id: str, requirement: str) -> dict[str, Any]:
    """envelope.json's root, whole: json_envelope reads its problems at the root and meta's type alone."""
    return {"$ref": SCHEMA}


def _status_repeated(operation_id: str, requirement: str) -> dict[str, Any]:
    """meta.statusCode of meta_status_code's schema, and equal to the documented success status (the answer's)."""
    code = {"$ref": f"{SCHEMA}{META}/statusCode", "const": contract.operations()[operation_id].success_status}
    return in_meta({"statusCode": code}, ("statusCode",))


def _success_boolean(operation_id: str, requirement: str) -> dict[str, Any]:
    """meta.success present, of meta_success_is_boolean's schema."""
    return in_meta({"success": {"$ref": f"{SCHEMA}{META}/success"}}, ("success",))


def _success_true(operation_id: str, requirement: str) -> dict[str, Any]:
    """meta.success present and true: JSON Schema's const true holds no other value (not 1)."""
    return in_meta({"success": {"const": True}}, ("success",))


def _message_string(operation_id: str, requirement: str) -> dict[str, Any]:
    """meta.message, where present, of message_is_string's schema."""
    return in_meta({"message": {"$ref": f"{SCHEMA}{META}/message"}})


def _message_presence(operation_id: str, requirement: str) -> dict[str, Any]:
    """meta present, holding message where the operation's answers carry one and not where they do not."""
    shown = contract.message_rule(operation_id)
    if shown == "absent":
        return {**in_meta({}), "properties": {"meta": {"type": "object", "not": {"required": ["message"]}}}}
    return in_meta({}, ("message",) if shown == "present" else ())


def _message_words(operation_id: str, requirement: str) -> dict[str, Any] | None:
    """meta.message, where present, the operation's documented message (None: the operation has none)."""
    expected = contract.success_message(operation_id)
    return None if expected is None else in_meta({"message": {"const": expected}})


def _pagination_presence(operation_id: str, requirement: str) -> dict[str, Any]:
    """meta present, holding pagination on the paged lists and no pagination object elsewhere (none, or null)."""
    if contract.is_paginated(operation_id):
        return in_meta({}, ("pagination",))
    return in_meta({"pagination": {"type": "null"}})


def _pagination_fields(operation_id: str, requirement: str) -> dict[str, Any]:
    """meta.pagination, where present, an object holding the three fields, each of pagination_shape's schema."""
    fields = {name: {"$ref": f"{SCHEMA}#/$defs/pagination/properties/{name}"} for name in PAGINATION_FIELDS}
    return in_meta({"pagination": {"type": "object", "required": list(fields), "properties": fields}})


def _data_array(operation_id: str, requirement: str) -> dict[str, Any]:
    """data, where present, an array."""
    return {"type": "object", "properties": {"data": {"type": "array"}}}


def is_shape_problem(problem: validation.SchemaViolation) -> bool:
    """Whether a problem of envelope.json's root is the envelope's own shape (meta and data, meta an object): what
    meta holds (statusCode, success) is other requirements', SHOULD on a refusal, whose shape is not shown."""
    return problem.path == "" or (problem.path == "meta" and problem.keyword == "type")


@rule("ERR-06", when="client-error", name="error envelope", where=of_an_operation)
@rule("SVC-03", when="success", name="json envelope", sufficient=_whole_envelope)
@check
def json_envelope(exchange: Exchange, *, requirement: str | None = None) -> dict[str, Any]:
    """The body is a JSON object holding `meta` (an object) and `data` (envelope.json, its root and meta's type)."""
    if not exchange.is_json:
        fail(
            "the body is a JSON envelope with meta and data",
            "a JSON object with meta and data",
            "a body that is not JSON",
            exchange,
            requirement=requirement,
        )
    body = exchange.json
    shape = [problem for problem in validation.problems(SCHEMA, body) if is_shape_problem(problem)]
    if shape:
        received = sorted(body) if isinstance(body, dict) else type(body).__name__
        fail(
            "the body is a JSON envelope with meta and data",
            ["data", "meta"],
            received,
            exchange,
            detail="; ".join(f"{problem.path or 'body'}: {problem.message}" for problem in shape),
            requirement=requirement,
        )
    return cast(dict[str, Any], body)  # the root of envelope.json, just validated: an object


@rule("SVC-04", when="success", name="content type")
@check
def content_type_json(exchange: Exchange, *, requirement: str | None = None) -> str:
    content_type = (exchange.header("content-type") or "").split(";")[0].strip().lower()
    if content_type != "application/json":
        fail(
            "the response is labelled application/json",
            "application/json",
            content_type or None,
            exchange,
            requirement=requirement,
        )
    return content_type


@rule("ERR-07", when="client-error", name="error meta.statusCode", where=has_meta)
@rule("SVC-05", when="success", name="meta.statusCode", sufficient=_status_repeated)
@check
def meta_status_code(exchange: Exchange, *, requirement: str | None = None) -> int:
    """meta.statusCode is an integer (envelope.json) equal to the HTTP status (code: a schema cannot say it)."""
    code = exchange.meta.get("statusCode")
    conforms(code, SCHEMA, exchange, pointer=f"{META}/statusCode", where="meta.statusCode", requirement=requirement)
    if code != exchange.status:
        fail(
            "meta.statusCode is an integer repeating the HTTP status",
            exchange.status,
            code,
            exchange,
            requirement=requirement,
        )
    return cast(int, code)  # an integer (envelope.json) equal to the HTTP status: both checked above


@rule("SVC-06", when="success", name="meta.success boolean", sufficient=_success_boolean)
@check
def meta_success_is_boolean(exchange: Exchange, *, requirement: str | None = None) -> bool:
    value = exchange.meta.get("success")
    if "success" not in exchange.meta:
        fail("meta.success is a boolean", "true or false", None, exchange, requirement=requirement)
    # conforms returns the value it validated: here against a boolean's schema.
    return cast(
        bool,
        conforms(value, SCHEMA, exchange, pointer=f"{META}/success", where="meta.success", requirement=requirement),
    )


@rule("ERR-08", when="client-error", name="error meta.success false", args=(False,), where=has_meta)
@rule("ERR-03", when="success", name="meta.success true", args=(True,), sufficient=_success_true)
@check
def meta_success_is(exchange: Exchange, expected: bool, *, requirement: str | None = None) -> bool:
    """meta.success is true on a success (envelope.json#/$defs/success), false on an error (#/$defs/failure)."""
    success: object = exchange.meta.get("success")  # typed, so that `is` leaves `expected` a bool
    if success is not expected:
        fail(f"meta.success is {str(expected).lower()}", expected, success, exchange, requirement=requirement)
    return expected


@rule("SVC-07", when="success", name="meta.message string", sufficient=_message_string)
@check
def message_is_string(exchange: Exchange, *, requirement: str | None = None) -> None:
    if "message" in exchange.meta:
        conforms(
            exchange.meta["message"],
            SCHEMA,
            exchange,
            pointer=f"{META}/message",
            where="meta.message",
            requirement=requirement,
        )


def shows_meta(exchange: Exchange) -> bool:
    """Whether the body is a JSON object holding a `meta` object: what meta says can be read (whether the body is a
    whole envelope, `data` too, is SVC-03's matter)."""
    body = exchange.json if exchange.is_json else None
    return isinstance(body, dict) and isinstance(body.get("meta"), dict)


def meta_holds(name: str | None = None) -> Callable[[Exchange], bool]:
    """Where a rule of what a success's meta says judges: an answer whose meta can be read and, given a `name`, holds
    it. A body without meta is the envelope's failure (SVC-03), and one without the field its presence requirement's
    (SVC-08, SVC-16), not what the field would have said; so an error's meta is judged where the error carries one
    (refusals.has_meta), one that carries none breaking the envelope (ERR-06)."""
    return lambda exchange: shows_meta(exchange) and (name is None or name in exchange.meta)


def _meta(exchange: Exchange) -> dict[str, Any]:
    """The answer's meta object; CannotJudge when the body holds none (the envelope's requirement judges that)."""
    if not shows_meta(exchange):
        raise CannotJudge(
            f"the {exchange.operation_id} answer is no JSON object with a meta object: what its meta "
            "says cannot be read (see SVC-03)"
        )
    return exchange.meta


@rule(
    contract.MESSAGE_PRESENT,
    contract.MESSAGE_ABSENT,
    when="success",
    name="meta.message presence",
    where=meta_holds(),
    sufficient=_message_presence,
)
@check
def message_presence(exchange: Exchange, *, requirement: str | None = None) -> None:
    """meta.message is present or absent as the document says for this operation (with-/without-message), on an
    answer whose meta can be read."""
    assert exchange.operation_id is not None  # a rule held on named operations only (Rule.requirement_for)
    rule = contract.message_rule(exchange.operation_id)
    present = "message" in _meta(exchange)
    if rule == "present" and not present:
        fail(
            f"meta.message is present on {exchange.operation_id}",
            "a message",
            "no message",
            exchange,
            requirement=requirement,
        )
    if rule == "absent" and present:
        fail(
            f"meta.message is absent from {exchange.operation_id}",
            "no message",
            exchange.meta["message"],
            exchange,
            requirement=requirement,
        )


@rule(
    *contract.MESSAGE_REQUIREMENTS,
    when="success",
    name="meta.message words",
    where=meta_holds("message"),
    sufficient=_message_words,
)
@check
def message_value(exchange: Exchange, *, requirement: str | None = None) -> str | None:
    """meta.message, where present, is the document's message for the operation; an answer without one cannot be
    judged here (whether it must carry one is SVC-08's matter)."""
    if "message" not in _meta(exchange):
        raise CannotJudge(f"the {exchange.operation_id} answer carries no meta.message (see SVC-08)")
    assert exchange.operation_id is not None  # a rule held on named operations only (Rule.requirement_for)
    expected = contract.success_message(exchange.operation_id)
    if exchange.meta.get("message") != expected:
        fail(
            f"meta.message of {exchange.operation_id} is the documented message",
            expected,
            exchange.meta.get("message"),
            exchange,
            requirement=requirement,
        )
    return expected


@rule(
    contract.PAGINATED,
    "END-38",
    when="success",
    name="meta.pagination presence",
    where=meta_holds(),
    sufficient=_pagination_presence,
)
@check
def pagination_presence(exchange: Exchange, *, requirement: str | None = None) -> None:
    """meta.pagination is present on the paged lists, and elsewhere no pagination object (a null one is none: a
    serialiser may write every field of meta), on an answer whose meta can be read."""
    assert exchange.operation_id is not None  # a rule held on named operations only (Rule.requirement_for)
    paginated = contract.is_paginated(exchange.operation_id)
    present = "pagination" in _meta(exchange)
    if paginated and not present:
        fail(
            f"meta.pagination is present on {exchange.operation_id}",
            "meta.pagination",
            sorted(exchange.meta),
            exchange,
            requirement=requirement,
        )
    if not paginated and exchange.meta.get("pagination") is not None:
        fail(
            f"no pagination object on {exchange.operation_id}",
            "no meta.pagination",
            exchange.meta["pagination"],
            exchange,
            requirement=requirement,
        )


@rule(
    "SVC-17",
    when="success",
    name="meta.pagination fields",
    where=meta_holds("pagination"),
    sufficient=_pagination_fields,
)
@check
def pagination_shape(exchange: Exchange, *, requirement: str | None = None) -> dict[str, int]:
    """meta.pagination holds integer totalCount, perPage and current (envelope.json#/$defs/pagination); an answer
    without meta.pagination cannot be judged here (whether it must carry one is SVC-16's matter), one that carries
    it null or in another type can."""
    if "pagination" not in _meta(exchange):
        raise CannotJudge(f"the {exchange.operation_id} answer carries no meta.pagination (see SVC-16)")
    pagination = exchange.meta.get("pagination")
    for name in PAGINATION_FIELDS:
        value = pagination.get(name) if isinstance(pagination, dict) else None
        conforms(
            value,
            SCHEMA,
            exchange,
            pointer=f"#/$defs/pagination/properties/{name}",
            where=f"meta.pagination.{name}",
            requirement=requirement,
        )
    return cast(dict[str, int], pagination)  # an object: anything else gave None above, which no integer conforms to


@check
def data_is_object(exchange: Exchange, *, requirement: str | None = None) -> dict[str, Any]:
    """data is an object on a single-record response (envelope.json#/$defs/single)."""
    if not isinstance(exchange.data, dict):
        _shape_broken(exchange, contract.SINGLE_RECORD, "an object", requirement)
        fail(
            "data is an object on a single-record response",
            "an object",
            type(exchange.data).__name__,
            exchange,
            requirement=requirement,
        )
    return exchange.data


def holds_data(exchange: Exchange) -> bool:
    """Whether the body is a JSON object holding `data` (null included): what data is can be read (a body without
    it is the envelope's failure, SVC-03)."""
    body = exchange.json if exchange.is_json else None
    return isinstance(body, dict) and "data" in body


@rule(LIST_DATA, when="success", name="list data array", where=holds_data, sufficient=_data_array)
@check
def data_is_array(exchange: Exchange, *, requirement: str | None = None) -> list[Any]:
    """data is an array on a list response (envelope.json#/$defs/paged and unpaged-list)."""
    if not isinstance(exchange.data, list):
        _shape_broken(exchange, LIST_DATA, "an array", requirement)
        fail(
            "data is an array on a list response",
            "an array",
            type(exchange.data).__name__,
            exchange,
            requirement=requirement,
        )
    return exchange.data


def _shape_broken(exchange: Exchange, shape: str, expected: str, requirement: str | None) -> None:
    """An accepted JSON answer of an operation `shape` (SVC-19, SVC-20) gives the shape of data, with data of another
    shape, is that requirement's failure: a check of another requirement cannot read what it judges from it."""
    if (
        requirement != shape
        and exchange.ok
        and exchange.is_json
        and exchange.operation_id in catalogue()[shape].operations
    ):
        raise CannotJudge(
            f"{exchange.operation_id} answered data as {type(exchange.data).__name__}, not {expected} "
            f"({shape}'s failure): what {requirement} says of it cannot be read"
        )


@check
def entries(
    exchange: Exchange, label: str = "data", *, requirement: str | None = None, allow_empty: bool = False
) -> list[tuple[str, dict[str, Any]]]:
    """The entries of a list response, each an object, with where they are (`data[0]`, ...).

    An empty list proves nothing about its entries: the test skips with the reason, unless `allow_empty`.
    """
    found = []
    for index, entry in enumerate(data_is_array(exchange, requirement=requirement)):
        if not isinstance(entry, dict):
            fail("each list entry is an object", "an object", type(entry).__name__, exchange, requirement=requirement)
        found.append((f"{label}[{index}]", entry))
    if not found and not allow_empty:
        raise CannotJudge(
            f"{exchange.method} {exchange.operation_id} listed no entry: nothing to check its entries on "
            f"(a check over an empty list proves nothing)"
        )
    return found
