"""Reading a request: its JSON body, its fields and its query parameters, refusing what is malformed."""

from __future__ import annotations

import json
import math
import re
from http import HTTPStatus
from typing import Any

from starlette.requests import Request

from wallet_conformance.reference.errors import Refusal, crash, html_page, invalid
from wallet_conformance.reference.faults import Fault, FaultSet

Body = dict[str, Any]

# A practical e-mail check: something@domain.tld, no spaces.
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
ACCOUNT_NUMBER = re.compile(r"[0-9]{10}")
# A JSON number as RFC 8259 writes it; under a variant a string holding exactly this is read as that number.
JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# A URL: a scheme, `://` and the rest without whitespace.
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
# The body size past which a fault answers an HTML page (the default limit of Express's JSON body parser, 100 KiB).
LARGE_BODY = 100 * 1024


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def json_body(request: Request, faults: FaultSet) -> Body:
    """The request body as a JSON object (NaN and Infinity are not JSON)."""
    raw = await request.body()
    if len(raw) > LARGE_BODY and faults.on(Fault.LARGE_BODY_HTML_PAGE):
        raise html_page(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
    try:
        body = json.loads(raw, parse_constant=_no_constants)
    except (ValueError, RecursionError) as error:  # ValueError includes UnicodeDecodeError
        if faults.on(Fault.MALFORMED_JSON_500):
            raise crash() from error
        raise Refusal.MALFORMED_JSON.error() from error
    if not isinstance(body, dict):
        raise Refusal.BODY_NOT_OBJECT.error()
    return body


def present(body: Body, name: str) -> bool:
    """Whether a field was sent (null counts as not sent)."""
    return body.get(name) is not None


def text(body: Body, name: str, *, required: bool = True, default: str | None = None) -> str | None:
    """A string field; a required one must not be empty."""
    if not present(body, name):
        if required:
            raise invalid(name, "is required")
        return default
    value = body[name]
    if not isinstance(value, str):
        raise invalid(name, "must be a string")
    if required and not value.strip():
        raise invalid(name, "must not be empty")
    return value


def required_text(body: Body, name: str) -> str:
    value = text(body, name, required=True)
    assert value is not None
    return value


def one_of(body: Body, name: str, allowed: tuple[str, ...], *, required: bool = True) -> str | None:
    value = text(body, name, required=required)
    if value is not None and value not in allowed:
        raise invalid(name, f"must be one of {', '.join(allowed)}")
    return value


def _number(value: Any, numeric_strings: bool) -> Any:
    """The value, or the number a numeric string spells when `numeric_strings`."""
    if numeric_strings and isinstance(value, str) and JSON_NUMBER.fullmatch(value):
        return json.loads(value)
    return value


def kobo(
    body: Body, name: str, *, minimum: int, round_fractions_down: bool = False, numeric_strings: bool = False
) -> int:
    """A money amount: an integer number of kobo, at least `minimum` (`numeric_strings`: "2500" reads as 2500)."""
    if not present(body, name):
        raise invalid(name, "is required")
    value = _number(body[name], numeric_strings)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise invalid(name, "must be a number of kobo")
    if isinstance(value, float) and not value.is_integer():
        if not round_fractions_down:
            raise invalid(name, "must be a whole number of kobo")
        value = math.floor(value)
    value = int(value)
    if value < minimum:
        raise invalid(name, f"must be at least {minimum} kobo")
    return value


def seconds(body: Body, name: str, *, numeric_strings: bool = False) -> float:
    if not present(body, name):
        raise invalid(name, "is required")
    value = _number(body[name], numeric_strings)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise invalid(name, "must be a number of seconds")
    return value


def email(value: str, name: str) -> str:
    if not EMAIL.fullmatch(value):
        raise invalid(name, "must be a valid e-mail address")
    return value


def account_number(body: Body, name: str = "accountNumber") -> str:
    value = required_text(body, name)
    if not ACCOUNT_NUMBER.fullmatch(value):
        raise invalid(name, "must be 10 digits")
    return value


def mobile(body: Body, name: str = "mobile", *, iso_code_required: bool = True) -> dict[str, str]:
    """An object of phoneNumber and isoCode strings (isoCode may be left out unless `iso_code_required`)."""
    value = body[name]
    parts = ("phoneNumber", "isoCode")
    needed = parts if iso_code_required else parts[:1]
    if not isinstance(value, dict) or not all(isinstance(value.get(part), str) and value[part] for part in needed):
        raise invalid(name, "must be an object with phoneNumber and isoCode strings")
    return {part: value[part] for part in parts if part in value}


def boolean_query(request: Request, name: str) -> bool | None:
    """A boolean query parameter, written true or false."""
    value = request.query_params.get(name)
    if value is None:
        return None
    if value not in ("true", "false"):
        raise Refusal.INVALID_QUERY.error(field=name, problem="must be true or false")
    return value == "true"


def webhooks(body: Body, *, urls_checked: bool = True) -> list[str]:
    """An array of URLs (of strings, without `urls_checked`)."""
    value = body.get("webhooks")
    if not isinstance(value, list) or not all(isinstance(url, str) for url in value):
        raise invalid("webhooks", "must be an array of strings")
    if urls_checked and not all(URL.fullmatch(url) for url in value):
        raise invalid("webhooks", "must hold URLs (a scheme, ://, no whitespace)")
    return value
