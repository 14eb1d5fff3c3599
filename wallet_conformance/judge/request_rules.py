"""Whether a request, as sent, keeps openapi.yaml: its problems, and the requirement an accepted invalid request
breaks. The generated tests judge their cases with it (generation/cases.py), and the exchange judge holds every
accepted request of the run to the documented limits (judge/rules.py).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import unquote, urlsplit

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from wallet_conformance.client.api import DEFAULT
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks, urls
from wallet_conformance.judge.expiration import expires_expire_in_after_creation, parse_timestamp
from wallet_conformance.judge.failures import CannotJudge, check
from wallet_conformance.judge.rule import rule
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.documents import openapi

COLLECTION = "createCollectionAccount"  # the request that names a wallet (its destination) and makes another record


@cache
def _request_validator(operation_id: str) -> Draft202012Validator:
    document = validation.shared_openapi_document()
    registry = Registry().with_resource("urn:openapi", DRAFT202012.create_resource(document))
    op = contract.operations()[operation_id]
    definition = document["paths"][op.path][op.method.lower()]
    body = definition["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return Draft202012Validator(
        {"$ref": "urn:openapi" + body}, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


@dataclass(frozen=True)
class RequestViolation:
    """One way a request breaks openapi.yaml: where (`body.amount`, `query.live`, `path.walletId`) and the keyword.
    `lenient`: a value written in another JSON type that spells a valid value of its own (`reading`); accepting it
    breaks no requirement, as long as it is taken as that value (END-44 observes which)."""

    where: str
    keyword: str
    message: str
    lenient: bool = False


def _without_nulls(body: Any) -> Any:
    """The body with every null-valued property and every null item of an array left out: a target may read
    `"mobile": null` as no mobile at all, and `[url, null]` as `[url]` (the document does not say), so a null is
    judged as the value's absence, never as a wrong type."""
    if isinstance(body, dict):
        return {name: _without_nulls(value) for name, value in body.items() if value is not None}
    if isinstance(body, list):
        return [_without_nulls(item) for item in body if item is not None]
    return body


# A JSON number, as RFC 8259 writes one: a string holding exactly this spells a number.
JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
NO_READING = object()


def reading(value: Any, expected: Any) -> Any:
    """What `value`, written in another JSON type than the JSON Schema type `expected`, spells in that type: a numeric
    string a number, a number its JSON text, a lone item a list of it; NO_READING when it spells nothing (a boolean,
    an object, a string that is no number)."""
    if expected in ("number", "integer") and isinstance(value, str) and JSON_NUMBER.fullmatch(value):
        return json.loads(value)
    if expected == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    if expected == "array" and isinstance(value, str | int | float | dict) and not isinstance(value, bool):
        return [value]
    return NO_READING


def _replaced(body: Any, path: Iterable[Any], value: Any) -> Any:
    """`body` with the value at `path` replaced (a copy of each container on the way)."""
    parts = list(path)
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(body, list):
        return [_replaced(item, rest, value) if index == head else item for index, item in enumerate(body)]
    return {name: _replaced(item, rest, value) if name == head else item for name, item in body.items()}


def read_leniently(operation_id: str, body: Any) -> tuple[Any, list[RequestViolation]]:
    """The body with every value written in another JSON type replaced by what it spells in its own (`reading`), and
    a lenient RequestViolation for each; values that spell nothing stay as sent. Read again until nothing changes: a
    lone number for an array of strings is a list of its text."""
    lenient: list[RequestViolation] = []
    for _ in range(3):
        readable = []
        for error in _request_validator(operation_id).iter_errors(body):
            read = reading(error.instance, error.validator_value) if error.validator == "type" else NO_READING
            if read is not NO_READING:
                readable.append((error, read))
        if not readable:
            break
        for error, read in readable:
            where = ".".join(["body", *(str(part) for part in error.absolute_path)])
            lenient.append(RequestViolation(where, "type", f"{error.message}; read as {read!r}", lenient=True))
            body = _replaced(body, error.absolute_path, read)
    return body, lenient


def _contact_of_a_wallet_not_secondary(operation_id: str, body: Any, where: str) -> bool:
    """Whether a problem sits in emailAddress or mobile of a wallet that is not secondary: the document states their
    rules ("valid e-mail address", the mobile's parts) for secondary wallets, which alone require them; a target
    may ignore them on a primary wallet."""
    secondary = isinstance(body, dict) and body.get("category") == "secondary"
    return operation_id == "createWallet" and not secondary and where.startswith(("body.emailAddress", "body.mobile"))


# The keyword of a required field missing while the body carries its name in another letter case (`AMOUNT`): JSON
# compares names code unit by code unit (RFC 8259, section 8.3), so the field is missing, but some frameworks (ASP.NET
# Core's web defaults) match names ignoring case and the document does not say they are case-sensitive: ERR-05
# (SHOULD), not the MUST of a field left out.
NAME_CASE = "required-name-in-another-case"


def _named_in_another_case(instance: Any, missing: list[str]) -> bool:
    names = {name.lower() for name in instance} if isinstance(instance, dict) else set()
    return any(name.lower() in names for name in missing)


@cache
def _body_schema(operation_id: str) -> str:
    """Where the operation's request body schema is in the bundled openapi.yaml (a JSON pointer)."""
    op = contract.operations()[operation_id]
    definition = validation.shared_openapi_document()["paths"][op.path][op.method.lower()]
    return str(definition["requestBody"]["content"]["application/json"]["schema"]["$ref"]).removeprefix("#")


def body_problems(operation_id: str, body: Any) -> tuple[Any, list[RequestViolation]]:
    """The body read leniently (`read_leniently`), and every way the body sent breaks its schema. A body the compiled
    validator finds valid has neither (most bodies: the slower walk below is for the others)."""
    without_nulls = _without_nulls(body)
    if validation.valid_compiled(validation.OPENAPI_ID, _body_schema(operation_id), without_nulls):
        return without_nulls, []
    read, found = read_leniently(operation_id, without_nulls)
    for error in _request_validator(operation_id).iter_errors(read):
        where = ".".join(["body", *(str(part) for part in error.absolute_path)])
        if _contact_of_a_wallet_not_secondary(operation_id, read, where):
            continue
        keyword = str(error.validator)
        if error.validator == "required":
            missing = re.findall(r"'([^']+)' is a required property", error.message)
            where = ".".join([where, *missing])
            if _named_in_another_case(error.instance, missing):
                keyword = NAME_CASE
        found.append(RequestViolation(where, keyword, error.message))
    return read, found


def problems(
    operation_id: str, body: Any = DEFAULT, *, query: dict[str, Any] | None = None, path: dict[str, Any] | None = None
) -> list[RequestViolation]:
    """Every way a request of `operation_id`, as sent (`body`: DEFAULT when none was sent), breaks openapi.yaml
    (empty: the request is valid). A value in another JSON type that spells one of its own is one lenient problem, and
    is then judged as that value (`read_leniently`)."""
    found: list[RequestViolation] = []
    op = contract.operations()[operation_id]
    if body is not DEFAULT:
        found = body_problems(operation_id, body)[1]
    elif op.method in ("POST", "PATCH"):
        found.append(RequestViolation("body", "required", "no request body"))
    for name, value in (query or {}).items():
        if name in ("isDefault", "live") and str(value).lower() not in ("true", "false"):
            found.append(RequestViolation(f"query.{name}", "type", f"{value!r} is not a boolean"))
    for name, value in (path or {}).items():
        if name == "walletId" and not str(value).startswith(contract.prefix("walletId")):
            found.append(RequestViolation(f"path.{name}", "pattern", f"{value!r} is not a wallet publicId"))
    return found


# The requirement a refused-invalid-request verdict names, by (where, keyword); first match wins.
# Everything else invalid in a body falls under ERR-05 (SHOULD: invalid input is refused with a 4xx).
INVALID_INPUT_REQUIREMENTS: tuple[tuple[str, str, str, str], ...] = (
    # operation, where (prefix), keyword, requirement
    ("transfer", "body.amount", "minimum", "LIM-10"),
    ("bankTransfer", "body.amount", "minimum", "LIM-12"),
    ("transfer", "body.amount", "multipleOf", "LIM-22"),
    ("bankTransfer", "body.amount", "multipleOf", "LIM-22"),
    ("createCollectionAccount", "body.amount", "multipleOf", "LIM-22"),
    ("createCollectionAccount", "body.expireIn", "minimum", "LIM-14"),
    ("createCollectionAccount", "body.expireIn", "maximum", "LIM-16"),
    ("createCollectionAccount", "body.reference", "minLength", "LIM-17"),
    ("createCollectionAccount", "body.", "required", "END-21"),
    ("createCollectionAccount", "body.destination", "pattern", "END-22"),
    ("validateAccount", "body.", "required", "END-26"),
    ("createWallet", "body.category", "enum", "LIM-09"),
    ("createWallet", "body.emailAddress", "required", "LIM-05"),
    ("createWallet", "body.emailAddress", "format", "LIM-06"),
    ("createWallet", "body.mobile.", "required", "END-53"),
    ("createWallet", "body.mobile", "required", "LIM-07"),
    ("createWallet", "body.currency", "enum", "LIM-24"),
    ("transfer", "body.currency", "enum", "LIM-24"),
    ("bankTransfer", "body.currency", "enum", "LIM-24"),
    ("transfer", "body.sourceType", "enum", "LIM-25"),
    ("transfer", "body.destinationType", "enum", "LIM-25"),
    ("updateAccount", "body.webhooks", "pattern", "EVT-03"),
)


def invalid_input_requirement(operation_id: str, problems: Iterable[RequestViolation]) -> str | None:
    """The requirement a 2xx to this invalid request breaks; None when the document says nothing of it.

    Query filters with an odd value and the headers are not judged: their handling is not shown; nor is a value
    written in another JSON type that spells a valid one (a lenient problem: its reading is judged instead).
    """
    body_problems = [problem for problem in problems if problem.where.startswith("body") and not problem.lenient]
    if not body_problems:
        return None
    for op, where, keyword, requirement in INVALID_INPUT_REQUIREMENTS:
        for problem in body_problems:
            if op == operation_id and problem.where.startswith(where) and problem.keyword == keyword:
                return requirement
    return "ERR-05"


# ------------------------------------------------------------------ an exchange's request, judged with its answer


def sent_body(exchange: Exchange) -> Any:
    """The body the exchange sent, parsed (DEFAULT when none was sent; NOT_JSON when it was not JSON)."""
    body = exchange.request_body
    if body is None:
        return DEFAULT
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError:
            return NOT_JSON
    return body


NOT_JSON = object()

# The request problems and the leniently read body of the exchange last looked at, per thread: several rules ask
# about one exchange.
_last = threading.local()


def _judged(exchange: Exchange) -> tuple[list[RequestViolation], Any]:
    held = getattr(_last, "held", None)
    if held is None or held[0] is not exchange:
        body = sent_body(exchange)
        read: Any = body
        found: list[RequestViolation] = []
        operation_id = exchange.operation_id or ""  # "" takes no body: no operation has that name
        if body is not NOT_JSON and _takes_a_body(operation_id):
            read, found = (
                body_problems(operation_id, body)
                if body is not DEFAULT
                else (body, [problem for problem in problems(operation_id) if problem.where.startswith("body")])
            )
        held = _last.held = (exchange, found, read)
    return held[1], held[2]


def exchange_problems(exchange: Exchange) -> list[RequestViolation]:
    """Every way the exchange's request body breaks openapi.yaml ([] when it keeps it, or sent none or no JSON)."""
    return _judged(exchange)[0]


def read_body(exchange: Exchange) -> Any:
    """The body the exchange sent, each value written in another JSON type read as what it spells (`reading`)."""
    return _judged(exchange)[1]


@cache
def _takes_a_body(operation_id: str) -> bool:
    operation = contract.operations().get(operation_id)
    return operation is not None and "requestBody" in openapi()["paths"][operation.path][operation.method.lower()]


@rule(
    *(requirement for *_, requirement in INVALID_INPUT_REQUIREMENTS),
    when="success",
    name="accepted request within the limits",
    each=True,
)
@check
def accepted_within_limits(exchange: Exchange, *, requirement: str | None = None) -> None:
    """A request the target accepted keeps the documented limit `requirement` (one of INVALID_INPUT_REQUIREMENTS): a
    2xx to a request that breaks it breaks that requirement."""
    found = exchange_problems(exchange)
    assert exchange.operation_id is not None  # a rule held on named operations only (Rule.requirement_for)
    if exchange.ok and found and invalid_input_requirement(exchange.operation_id, found) == requirement:
        listing = "; ".join(f"{problem.where}: {problem.message}" for problem in found[:4])
        checks.fail(
            "an invalid request is not accepted",
            checks.NOT_ACCEPTED,
            exchange.status,
            exchange,
            detail=f"accepted although invalid: {listing}",
            requirement=requirement,
        )


@dataclass(frozen=True)
class Shown:
    """Where the answer to an accepted request, and later reads of its record, show a body field; the requirement
    that gives the shown field its type and values (`typed_by`), the one that makes it the value sent (`echoed_by`,
    None where the document does not say), and the one that rules its values when not `typed_by` (`valued_by`)."""

    where: str
    typed_by: str
    echoed_by: str | None = None
    valued_by: str | None = None


# The body fields a record shows, by (operation, field). Webhooks come back as the same URLs in any order (EVT-01
# leaves the order open).
SHOWN: dict[tuple[str, str], Shown] = {
    ("createWallet", "category"): Shown("category", "RES-26", "END-11"),
    ("createWallet", "accountName"): Shown("accountName", "RES-20", "END-12"),
    ("createWallet", "currency"): Shown("currency", "SVC-22"),
    ("createCollectionAccount", "reference"): Shown("reference", "RES-30", "RES-32"),
    ("createCollectionAccount", "amount"): Shown("amount", contract.MONEY_INTEGERS, "RES-35"),
    ("createCollectionAccount", "accountName"): Shown("accountName", "RES-30", "RES-36"),
    ("validateAccount", "accountNumber"): Shown("accountNumber", "RES-40", "RES-41"),
    ("validateAccount", "bankCode"): Shown("bankCode", "RES-40", "RES-41"),
    ("bankTransfer", "accountNumber"): Shown("destinationData.accountNumber", "RES-69", "END-35"),
    ("bankTransfer", "bankCode"): Shown("destinationData.bankCode", "RES-69", "END-35"),
    ("bankTransfer", "source"): Shown("source", "RES-68", "RES-68"),
    ("bankTransfer", "amount"): Shown("amount", contract.MONEY_INTEGERS),
    ("bankTransfer", "currency"): Shown("currency", "SVC-22"),
    ("bankTransfer", "narration"): Shown("narration", "RES-60", "END-70"),
    ("transfer", "source"): Shown("source", "RES-68", "RES-68"),
    ("transfer", "destination"): Shown("destination", "RES-68", "RES-68"),
    ("transfer", "sourceType"): Shown("sourceType", "LIM-25"),
    ("transfer", "destinationType"): Shown("destinationType", "END-32"),
    ("transfer", "amount"): Shown("amount", contract.MONEY_INTEGERS),
    ("transfer", "currency"): Shown("currency", "SVC-22"),
    ("transfer", "narration"): Shown("narration", "RES-60", "END-70"),
    ("updateAccount", "webhooks"): Shown("webhooks", "RES-13", "END-02", valued_by="EVT-03"),
}
# Where the answer to a transfer repeats the wallets it named beyond `source` and `destination`: the parties' data
# (RES-82) and the credit leg's destination (RES-83) and source (RES-84), as (operation, requirement, where in data,
# body field). A place the answer does not show (no credit leg while the transfer is pending, data withheld) is not
# judged here: whether it must be there is the schema's matter. A bank transfer's leg, if any, is not judged (the
# document shows none).
PARTIES_REPEATED: tuple[tuple[str, str, str, str], ...] = (
    ("transfer", "RES-82", "sourceData.publicId", "source"),
    ("transfer", "RES-82", "destinationData.publicId", "destination"),
    ("transfer", "RES-83", "meta.credit.destination", "destination"),
    ("transfer", "RES-83", "meta.credit.destinationData.publicId", "destination"),
    ("transfer", "RES-84", "meta.credit.source", "source"),
    ("transfer", "RES-84", "meta.credit.sourceData.publicId", "source"),
    ("bankTransfer", "RES-82", "sourceData.publicId", "source"),
)
# What the answer to an accepted request carries of what was sent: (operation, requirement, where in data, body
# field).
ECHOED: tuple[tuple[str, str, str, str], ...] = (
    tuple(
        (operation_id, shown.echoed_by, shown.where, name)
        for (operation_id, name), shown in SHOWN.items()
        if shown.echoed_by
    )
    + PARTIES_REPEATED
)


def _plain(value: Any) -> bool:
    """Whether a sent value is one the answer must carry as it is: a number, or a string without surrounding
    whitespace or control characters (whether a target trims or cleans those is not shown), or a list of those."""
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    if isinstance(value, str):
        return value == value.strip() and value.isprintable()
    return isinstance(value, int | float) and not isinstance(value, bool)


def at(data: Any, path: str) -> Any:
    """The value at a dotted path of `data` (None where it holds none)."""
    for name in path.split("."):
        data = data.get(name) if isinstance(data, dict) else None
    return data


def answers_the_destination(exchange: Exchange) -> bool:
    """Whether the answer to a collection-account request shows the wallet it collects into (its publicId is the
    destination sent) rather than a collection account of its own: that answer is no collection account (END-20's
    matter), and what a collection account keeps of its request cannot be read from it."""
    body, data = sent_body(exchange), exchange.data
    return (
        exchange.operation_id == COLLECTION
        and isinstance(body, dict)
        and isinstance(data, dict)
        and isinstance(body.get("destination"), str)
        and data.get("publicId") == body["destination"]
    )


def collection_account_shown(exchange: Exchange) -> dict[str, Any]:
    """The collection account an accepted collection-account request made, as its answer shows it; CannotJudge when
    the answer is no object or shows the destination wallet instead (END-20, SVC-19 judge that)."""
    if not isinstance(exchange.data, dict) or answers_the_destination(exchange):
        raise CannotJudge(
            "the answer to the collection-account request shows no collection account of its own (data "
            "is no object, or the destination wallet itself; see END-20)"
        )
    return exchange.data


def takes_the_reference(exchange: Exchange) -> bool:
    """Whether an accepted collection-account request took the reference it sent: its answer shows that reference,
    or shows none to tell by. One that shows another reference did not take the one sent (RES-32's matter): a later
    request with it is no reuse of a reference the target holds."""
    sent, data = sent_body(exchange), exchange.data
    shown = data.get("reference") if isinstance(data, dict) else None
    return not isinstance(shown, str) or not isinstance(sent, dict) or shown == sent.get("reference")


@rule(*(requirement for _, requirement, *_ in ECHOED), when="success", name="what was sent comes back", each=True)
@check
def sent_comes_back(exchange: Exchange, *, requirement: str | None = None) -> None:
    """The answer to an accepted request carries what was sent as it was sent (ECHOED, for the requirement the rule
    holds here): a field sent with a valid, plain value comes back equal, wherever the answer repeats it; one written
    in another JSON type comes back as the value it spells (`read_body`), or as it was sent (kept in the wrong type:
    the field's type requirement judges that, SHOWN's `typed_by`). An answer showing the destination wallet instead of
    a collection account shows nothing of the request (`answers_the_destination`)."""
    body, data = read_body(exchange), exchange.data
    if not exchange.ok or not isinstance(body, dict) or not isinstance(data, dict) or answers_the_destination(exchange):
        return
    raw = sent_body(exchange)
    invalid = {problem.where for problem in exchange_problems(exchange) if not problem.lenient}
    for echoed in ECHOED:
        operation_id, requirement_id, where, name = echoed
        if operation_id != exchange.operation_id or requirement_id != requirement or name not in body:
            continue
        sent, held = body[name], at(data, where)
        if echoed in PARTIES_REPEATED and not isinstance(held, str):
            continue
        if not _plain(sent) or any(spot == f"body.{name}" or spot.startswith(f"body.{name}.") for spot in invalid):
            continue
        if isinstance(sent, list) and not isinstance(held, list):
            continue  # a list shown as another JSON type: the field's type requirement judges that (`typed_by`)
        # A list (the webhooks): the same URLs, each in its normal form, in any order.
        same = urls.same_urls(held, sent) if isinstance(sent, list) else held == sent and type(held) is not bool
        as_sent = (
            isinstance(raw, dict)
            and raw.get(name) != sent
            and held == raw.get(name)
            and type(held) is type(raw.get(name))
        )
        if not same and not as_sent:
            checks.fail(f"data.{where} is the {name} sent", sent, held, exchange, requirement=requirement)


@rule("END-28", when="success", name="verify answers the path's reference")
@check
def verified_reference(exchange: Exchange, *, requirement: str | None = None) -> None:
    """The transaction a verify answers with has the reference of the path. One whose reference the path's only
    begins is END-42's matter, one it spells in another letter case END-54's: such a text may name no transaction."""
    asked = path_parameters(exchange).get("reference")
    data = exchange.data
    answered = data.get("reference") if isinstance(data, dict) else None
    near_copy = (
        isinstance(answered, str)
        and asked is not None
        and (answered.startswith(asked) or answered.lower() == asked.lower())
    )
    if exchange.ok and asked is not None and isinstance(data, dict) and answered != asked and not near_copy:
        checks.fail(
            "data.reference is the one in the path", asked, data.get("reference"), exchange, requirement=requirement
        )


def path_parameters(exchange: Exchange) -> dict[str, str]:
    """The path parameters of an exchange, read off its URL by its operation's path template."""
    assert exchange.operation_id is not None  # only verify's answers are asked (END-28)
    template = contract.operations()[exchange.operation_id].path
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    found = re.search(pattern + "$", urlsplit(exchange.url).path)
    return {name: unquote(value) for name, value in found.groupdict().items()} if found else {}


@rule("STA-07", when="success", name="expiration after expireIn")
@check
def expiration_follows_expire_in(exchange: Exchange, *, requirement: str | None = None) -> None:
    """A collection account created with a valid expireIn expires about expireIn seconds after its createdAt (when
    that is readable: the suite's own clock is no evidence for a recorded exchange)."""
    body, data = read_body(exchange), exchange.data
    if not exchange.ok or not isinstance(body, dict) or not isinstance(data, dict) or answers_the_destination(exchange):
        return
    expire_in = body.get("expireIn")
    invalid = any(not problem.lenient for problem in exchange_problems(exchange))
    if type(expire_in) is not int or invalid or parse_timestamp(data.get("createdAt")) is None:
        return
    expires_expire_in_after_creation(data, expire_in, datetime.now(UTC), exchange, requirement=requirement)
