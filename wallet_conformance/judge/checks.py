"""Checks: plain functions that look at one exchange or one value and raise one ConformanceFailure.

The convention, for every check here and in envelope.py:

1. The subject comes first (the exchange, or the value looked at), then what is expected, then a short
   title or reason and the exchange to show: `equals(received, expected, title, exchange)`.
2. The requirement is the keyword `requirement=`, and it defaults to the calling test's own (the one id of
   its `requirement` marker). Naming an id the test does not declare, or none while the test declares
   several, is a SuiteError: a bug of the suite, reported loudly, never a skip or a pass.
3. A check returns the value it validated (the data object, the array, the pagination, the matched value)
   or nothing; never something else.
4. The title states the document's fact, in one wording per fact ("not accepted: ...").
5. A membership is `contains(container, item, title)`, which says what was looked for and where it was not.

Hand-written tests call these; the generated tests register the same functions with Schemathesis.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import Any, NoReturn
from urllib.parse import urlsplit

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.failures import CannotJudge, ConformanceFailure, check, requirement_of
from wallet_conformance.judge.refusals import UNAVAILABLE
from wallet_conformance.judge.rule import rule
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.catalogue import catalogue

MONEY_FIELDS = frozenset({"amount", "balance", "fee", "actualAmount", "convertedAmount"})
CURRENCY_FIELDS = frozenset({"currency", "sourceCurrency", "destinationCurrency"})
TIMESTAMP_FIELDS = frozenset({"createdAt", "updatedAt", "lastUpdated", "expiration", "deletedAt", "date"})
# ISO 8601 in UTC with milliseconds, as the document states; read from schemas/common.json.
TIMESTAMP = re.compile(contract.schema("common.json")["$defs"]["timestamp"]["pattern"])
CURRENCY = contract.currency()
NOT_ACCEPTED = "an answer that is no success (no 2xx)"


def fail(
    title: str,
    expected: Any,
    received: Any,
    exchange: Exchange | None = None,
    *,
    detail: str | None = None,
    requirement: str | None = None,
    also: tuple[Exchange, ...] = (),
) -> NoReturn:
    """Raise the one failure type, attributed to `requirement` (default: the calling test's own); `also`, the other
    exchanges that show it (the earlier state a comparison read)."""
    raise ConformanceFailure(requirement_of(requirement), title, expected, received, exchange, detail, also)


@check
def holds(
    condition: bool,
    title: str,
    expected: Any,
    received: Any,
    exchange: Exchange | None = None,
    *,
    detail: str | None = None,
    also: tuple[Exchange, ...] = (),
    requirement: str | None = None,
) -> None:
    """What the test worked out holds (a balance as the model has it, a list as its pages hold it): the check of a
    comparison no other check makes. Else the failure, as `fail` gives it."""
    if not condition:
        fail(title, expected, received, exchange, detail=detail, requirement=requirement, also=also)


@check
def no_problem(
    problems: Iterable[tuple[str, Any, Any, Exchange | None]],
    *,
    detail: str | None = None,
    requirement: str | None = None,
) -> None:
    """The test found nothing wrong: of what it found (each a title, expected, received and the exchange, as
    world/page_checks.py gives a list's problems), the first is the failure."""
    for title, expected, received, exchange in problems:
        fail(title, expected, received, exchange, detail=detail, requirement=requirement)


# ------------------------------------------------------------------ statuses


@check
def status(exchange: Exchange, expected: int, *, requirement: str | None = None) -> None:
    if exchange.status != expected:
        fail(f"{exchange.method} answers HTTP {expected}", expected, exchange.status, exchange, requirement=requirement)


def _documented_status(operation_id: str, requirement: str) -> dict[str, Any]:
    """Any body: the rules' fast path takes only answers with the documented success status (rules.py, `_kept`)."""
    return {}


@rule("ERR-01", "ERR-02", when="success", name="success status", sufficient=_documented_status)
@check
def success_status(exchange: Exchange, *, requirement: str | None = None) -> None:
    """The documented success status of the exchange's operation (ERR-01 / ERR-02)."""
    assert exchange.operation_id is not None  # a rule held on named operations only (Rule.requirement_for)
    status(exchange, contract.operations()[exchange.operation_id].success_status, requirement=requirement)


@rule("ERR-05", when="not-success", name="no server error")
@check
def no_server_error(exchange: Exchange, *, requirement: str | None = None) -> None:
    if exchange.status >= 500:
        fail("no request gets a 5xx", "a status below 500", exchange.status, exchange, requirement=requirement)


@check
def answered(exchange: Exchange, *, requirement: str | None = None) -> None:
    """The request got an answer, a success or a refusal: an HTTP status from 100 to 599 (RFC 9110 section 15). A
    request the client found left without an answer is an exchange of status 0 (`Exchange.unanswered`), what the
    client saw instead in its notes; met anywhere else, the client's Unanswered fails ERR-09 too
    (failures.UnansweredFailure)."""
    if not 100 <= exchange.status <= 599:
        fail(
            f"{exchange.method} {urlsplit(exchange.url).path} is answered with an HTTP status",
            "a status from 100 to 599",
            "; ".join(exchange.retries) or f"status {exchange.status}",
            exchange,
            requirement=requirement,
        )


@check
def refused(exchange: Exchange, why: str, *, requirement: str | None = None) -> None:
    """The target did not accept the client's input: no 2xx (and an answer). Which status refuses it is not shown
    ("Error response shape, failure status codes and error codes: not shown"), so any answer but a success is a
    refusal here; a 5xx is ERR-05's failure, which the exchange judge holds every answer to, and no other's. A 502,
    503 or 504 (UNAVAILABLE) says the request was not taken up at all: the test cannot judge the input by it."""
    if exchange.status < 300:
        fail(f"not accepted: {why}", NOT_ACCEPTED, exchange.status, exchange, requirement=requirement)
    if exchange.status in UNAVAILABLE:
        raise CannotJudge(
            f"{why}: the target was unavailable (HTTP {exchange.status}), which says nothing of the "
            "input (ERR-05 judges the 5xx)"
        )


@check
def refused_with_4xx(exchange: Exchange, why: str, *, requirement: str | None = None) -> None:
    """ERR-05: invalid input is refused with a 4xx; a 2xx accepted it, a 5xx is the server failing (RFC 9110)."""
    if not 400 <= exchange.status < 500:
        fail(
            f"refused with a 4xx: {why}",
            "a status in 400..499",
            exchange.status,
            exchange,
            detail="a status outside 4xx is no refusal of the input (a 5xx is the server failing)",
            requirement=requirement,
        )


@check
def accepted(exchange: Exchange, why: str, *, requirement: str | None = None) -> None:
    """The target accepted the request: a 2xx answered with a JSON envelope (a 2xx of anything else, an HTML page
    say, is no evidence that the API took the request)."""
    if not exchange.ok:
        fail(f"accepted: {why}", "a 2xx status", exchange.status, exchange, requirement=requirement)
    body = exchange.json if exchange.is_json else None
    if not (isinstance(body, dict) and isinstance(body.get("meta"), dict) and "data" in body):
        fail(
            f"accepted: {why}",
            "a 2xx JSON envelope with meta and data",
            f"HTTP {exchange.status} with a body that is not a JSON envelope",
            exchange,
            requirement=requirement,
        )


@check
def accepted_by_the_api(exchange: Exchange, why: str, *, requirement: str | None = None) -> None:
    """The target's API took the request: a 2xx answered with a JSON object holding a meta object. Whether that
    answer is a whole envelope (`data` too) is SVC-03's matter; a 2xx of anything else, an HTML page say, is no
    evidence that the API took it."""
    if not exchange.ok:
        fail(f"accepted: {why}", "a 2xx status", exchange.status, exchange, requirement=requirement)
    body = exchange.json if exchange.is_json else None
    if not (isinstance(body, dict) and isinstance(body.get("meta"), dict)):
        fail(
            f"accepted: {why}",
            "a 2xx JSON object with a meta object",
            f"HTTP {exchange.status} with a body that is no JSON object with meta",
            exchange,
            requirement=requirement,
        )


# ------------------------------------------------------------------ values and schemas


# The patterns of the identifier prefixes (`^vba-`...), each stated by a requirement of its own (RES-01 .. RES-06).
PREFIX_PATTERNS = frozenset(f"^{contract.prefix(definition)}" for definition in contract.PREFIXES)


def is_prefix_problem(problem: validation.SchemaViolation) -> bool:
    """Whether a schema problem is an identifier without its prefix (a `pattern` of PREFIX_PATTERNS)."""
    return problem.keyword == "pattern" and problem.expected in PREFIX_PATTERNS


@check
def conforms(
    instance: Any,
    schema_file: str,
    exchange: Exchange | None = None,
    *,
    pointer: str = "",
    where: str = "data",
    leave_prefixes: bool = False,
    requirement: str | None = None,
) -> Any:
    """`instance` validates against a schema of schemas/ (all problems listed, the first as `received`), but for what
    the value rules judge (`schema_problems`); with `leave_prefixes`, an identifier without its prefix is left to the
    prefix's own requirement."""
    problems = schema_problems(instance, schema_file, pointer)
    if leave_prefixes:
        problems = [problem for problem in problems if not is_prefix_problem(problem)]
    if problems:
        first = problems[0]
        listing = "; ".join(f"{where}{_join(problem.path)}: {problem.message}" for problem in problems[:8])
        more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
        fail(
            f"{where} matches {schema_file}{pointer}",
            f"{first.keyword}: {first.expected}",
            f"{where}{_join(first.path)}: {first.message}",
            exchange,
            detail=listing + more,
            requirement=requirement,
        )
    return instance


def _join(path: str) -> str:
    if not path:
        return ""
    return path if path.startswith("[") else "." + path


@check
def has_prefix(
    value: Any, definition: str, exchange: Exchange | None, field: str, *, requirement: str | None = None
) -> str:
    """`value` starts with the identifier prefix of `definition` in schemas/common.json."""
    expected = contract.prefix(definition)
    if not isinstance(value, str) or not value.startswith(expected):
        fail(f"{field} starts with {expected!r}", f"{expected}...", value, exchange, requirement=requirement)
    return value


@check
def equals(
    received: Any,
    expected: Any,
    title: str,
    exchange: Exchange | None = None,
    *,
    requirement: str | None = None,
    also: tuple[Exchange, ...] = (),
) -> Any:
    if received != expected:
        fail(title, expected, received, exchange, requirement=requirement, also=also)
    return received


@check
def contains(
    container: Iterable[Any],
    item: Any,
    title: str,
    exchange: Exchange | None = None,
    *,
    where: str = "the response",
    requirement: str | None = None,
) -> Any:
    """`item` is among `container`; the failure says what was looked for and what `where` held instead."""
    held = list(container)
    if item not in held:
        shown = held if len(held) <= 20 else [*held[:20], f"... ({len(held)} in all)"]
        fail(title, f"{item!r} among {where}", f"{where} held {shown!r}", exchange, requirement=requirement)
    return item


WALKED_FIELDS = MONEY_FIELDS | CURRENCY_FIELDS | TIMESTAMP_FIELDS


def _fields(node: Any, path: str, found: list[tuple[str, str, Any]]) -> list[tuple[str, str, Any]]:
    """Every field of `node`, at any depth, named in WALKED_FIELDS: (the path of its object, its name, its value)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in WALKED_FIELDS:
                found.append((path, key, value))
            if isinstance(value, (dict, list)):
                _fields(value, f"{path}.{key}", found)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            if isinstance(value, (dict, list)):
                _fields(value, f"{path}[{index}]", found)
    return found


def everywhere_in_data(fields: dict[str, Any]) -> dict[str, Any]:
    """The schema of a body whose data holds each field named in `fields`, at any depth, as its schema there says:
    what `_fields` walks."""
    node = {"properties": fields, "additionalProperties": {"$ref": "#/$defs/node"}, "items": {"$ref": "#/$defs/node"}}
    return {"type": "object", "properties": {"data": {"$ref": "#/$defs/node"}}, "$defs": {"node": node}}


def _money_everywhere(operation_id: str, requirement: str) -> dict[str, Any]:
    """Every money field of data an integer or null: JSON Schema's integer holds no boolean, and a whole float
    (`1000.0`) never reaches the compiled validator (validation.valid_with)."""
    return everywhere_in_data({name: {"type": ["integer", "null"]} for name in MONEY_FIELDS})


# The fields of the exchange last walked, per thread: three rules in a row walk one exchange's data.
_walked = threading.local()


def _walked_fields(exchange: Exchange) -> list[tuple[str, str, Any]]:
    held = getattr(_walked, "held", None)
    if held is None or held[0] is not exchange:
        held = _walked.held = (exchange, _fields(exchange.data, "data", []))
    return held[1]


def _every_field(
    exchange: Exchange,
    names: frozenset[str],
    holds: Callable[[Any], bool],
    title: str,
    expected: str,
    requirement: str | None,
    *,
    null_allowed: bool,
) -> dict[str, Any]:
    """Every field of data (at any depth) named in `names` holds (`holds(value)`), or is null where that is allowed;
    returns the fields it validated, by path."""
    seen: dict[str, Any] = {}
    for path, key, value in _walked_fields(exchange):
        if key in names and not (null_allowed and value is None):
            if not holds(value):
                fail(title, expected, f"{path}.{key} = {value!r}", exchange, requirement=requirement)
            seen[f"{path}.{key}"] = value
    return seen


@rule(contract.MONEY_INTEGERS, when="success", name="money in kobo", sufficient=_money_everywhere)
@check
def money_is_integer_kobo(exchange: Exchange, *, requirement: str | None = None) -> dict[str, Any]:
    """Every money field of data is an integer (or null); returns the fields it validated, by path."""
    return _every_field(
        exchange,
        MONEY_FIELDS,
        lambda value: type(value) is int,
        "money amounts are integers in kobo",
        "an integer",
        requirement,
        null_allowed=True,
    )


# The operations answering a record whose table gives `currency` the value NGN (the Wallet, the Collection account and
# the Transaction: SVC-22's), and of those the ones answering Transactions (the Transaction's table, RES-60); a Bank's
# and a Bank account's `currency`, and meta.rate's, have no value in the document.
_NGN_OPERATIONS = frozenset(catalogue()["SVC-22"].operations)
_TRANSACTION_OPERATIONS = frozenset(catalogue()["RES-60"].operations)


def _ngn_currencies(exchange: Exchange) -> dict[str, Any]:
    """The currency fields of data whose table row gives NGN, by path: a Wallet's or Collection account's `currency`; a
    Transaction's, its credit leg's, and the copies of a wallet's in sourceData and destinationData (of a party whose
    type is `VirtualAccount`)."""
    operation = exchange.operation_id
    if operation not in _NGN_OPERATIONS:
        return {}
    data = exchange.data
    records = (
        [(f"data[{index}]", record) for index, record in enumerate(data)]
        if isinstance(data, list)
        else [("data", data)]
    )
    found: dict[str, Any] = {}
    for path, record in records:
        if not isinstance(record, dict):
            continue
        legs = [(path, record)]
        meta = record.get("meta")
        if operation in _TRANSACTION_OPERATIONS and isinstance(meta, dict) and isinstance(meta.get("credit"), dict):
            legs.append((f"{path}.meta.credit", meta["credit"]))
        for where, leg in legs:
            if "currency" in leg:
                found[f"{where}.currency"] = leg["currency"]
            for side in ("source", "destination") if operation in _TRANSACTION_OPERATIONS else ():
                party = leg.get(f"{side}Data")
                if leg.get(f"{side}Type") == "VirtualAccount" and isinstance(party, dict) and "currency" in party:
                    found[f"{where}.{side}Data.currency"] = party["currency"]
    return found


def _transactions_and_legs(exchange: Exchange) -> list[tuple[str, dict[str, Any]]]:
    """Every Transaction of a transaction operation's data, and the credit leg of each, by path."""
    if exchange.operation_id not in _TRANSACTION_OPERATIONS:
        return []
    data = exchange.data
    records = (
        [(f"data[{index}]", record) for index, record in enumerate(data)]
        if isinstance(data, list)
        else [("data", data)]
    )
    found = []
    for path, record in records:
        if isinstance(record, dict):
            found.append((path, record))
            meta = record.get("meta")
            if isinstance(meta, dict) and isinstance(meta.get("credit"), dict):
                found.append((f"{path}.meta.credit", meta["credit"]))
    return found


def actual_amount_requirement(fee: object) -> str:
    """The requirement that holds a Transaction's actualAmount to amount plus `fee`: RES-65 (MUST) where the fee is 0
    (or no integer: taken as none), RES-87 (SHOULD) on a debit with a fee, the sum the document shows for the debit it
    observed with one."""
    return "RES-87" if type(fee) is int and fee != 0 else "RES-65"


@rule("RES-65", when="success", name="actualAmount is amount where no fee")
@check
def actual_amount_without_fee(exchange: Exchange, *, requirement: str | None = None) -> dict[str, int]:
    """Every Transaction of data, debit or credit, and every credit leg, whose fee is 0 shows actualAmount equal to
    amount; one whose three fields are not all integers is not judged here (SVC-21 judges types). Returns the
    actualAmounts it validated, by path."""
    return _actual_amounts(exchange, lambda path, leg: leg.get("fee") == 0, requirement)


@rule("RES-87", when="success", name="a debit's actualAmount is amount plus fee")
@check
def debit_actual_amount_is_amount_plus_fee(exchange: Exchange, *, requirement: str | None = None) -> dict[str, int]:
    """Every debit of data (`entry` debit) with a fee shows actualAmount equal to amount plus fee; a credit with a fee,
    and a credit leg, are not judged (not shown). Returns the actualAmounts it validated, by path."""
    return _actual_amounts(
        exchange,
        lambda path, leg: not path.endswith(".meta.credit") and leg.get("entry") == "debit" and leg.get("fee") != 0,
        requirement,
    )


def _actual_amounts(
    exchange: Exchange, judged: Callable[[str, dict[str, Any]], bool], requirement: str | None
) -> dict[str, int]:
    """Every Transaction and credit leg of data that `judged` chooses shows actualAmount equal to amount plus fee."""
    held: dict[str, int] = {}
    for path, leg in _transactions_and_legs(exchange):
        amount, fee, actual = leg.get("amount"), leg.get("fee"), leg.get("actualAmount")
        if not (type(amount) is int and type(fee) is int and type(actual) is int) or not judged(path, leg):
            continue
        if actual != amount + fee:
            fail(
                "actualAmount is amount plus fee" if fee else "actualAmount is amount where the fee is 0",
                amount + fee,
                f"{path}.actualAmount = {actual} (amount {amount}, fee {fee})",
                exchange,
                requirement=requirement,
            )
        held[f"{path}.actualAmount"] = actual
    return held


def _ngn_everywhere(operation_id: str, requirement: str) -> dict[str, Any]:
    """Every `currency` of data, at any depth, NGN: those `_ngn_currencies` reads are all named `currency`."""
    return everywhere_in_data({"currency": {"const": CURRENCY}})


@rule("SVC-22", when="success", name="currency NGN", sufficient=_ngn_everywhere)
@check
def currencies_are_ngn(exchange: Exchange, *, requirement: str | None = None) -> dict[str, Any]:
    """Every currency field whose table row gives NGN is NGN (`_ngn_currencies`); returns those it validated, by path.
    A currency field the document gives no value is observed (`other_currencies`), never judged here."""
    found = _ngn_currencies(exchange)
    for path, value in found.items():
        if value != CURRENCY:
            fail(
                f"the currency the table gives is {CURRENCY}",
                CURRENCY,
                f"{path} = {value!r}",
                exchange,
                requirement=requirement,
            )
    return found


def other_currencies(exchange: Exchange) -> dict[str, Any]:
    """The currency fields of data the document gives no value (a Bank's, a Bank account's, meta.rate's, an external
    source's), by path: what the target shows there, to observe."""
    bound = _ngn_currencies(exchange)
    return {
        f"{path}.{key}": value
        for path, key, value in _walked_fields(exchange)
        if key in CURRENCY_FIELDS and f"{path}.{key}" not in bound
    }


def _is_timestamp(value: Any) -> bool:
    return isinstance(value, str) and TIMESTAMP.match(value) is not None


# The fields typed `timestamp or null` (deletedAt): an empty string there stands for no timestamp at all, as null
# does, and a field that holds neither breaks its resource's requirement (RES-51, RES-76), not the timestamps' format.
NULLABLE_TIMESTAMP_FIELDS = contract.nullable_timestamps()


def _timestamps_everywhere(operation_id: str, requirement: str) -> dict[str, Any]:
    """Every timestamp field of data null or common.json's timestamp, whose pattern is TIMESTAMP (anchored at both
    ends there, where `re.match` also takes a final newline), or, typed `timestamp or null`, an empty string."""
    timestamp: dict[str, Any] = {"anyOf": [{"type": "null"}, {"$ref": "common.json#/$defs/timestamp"}]}
    nullable = {"anyOf": [*timestamp["anyOf"], {"const": ""}]}
    return everywhere_in_data(
        {name: nullable if name in NULLABLE_TIMESTAMP_FIELDS else timestamp for name in TIMESTAMP_FIELDS}
    )


@rule("SVC-23", when="success", name="timestamps", sufficient=_timestamps_everywhere)
@check
def timestamps_are_utc_ms(exchange: Exchange, *, requirement: str | None = None) -> dict[str, Any]:
    """Every timestamp field of data is ISO 8601 UTC with milliseconds (or null, or for a field typed `timestamp or
    null` an empty string); returns those it validated."""
    title, expected = "timestamps are ISO 8601 UTC strings with milliseconds", "YYYY-MM-DDThh:mm:ss.sss and Z or +00:00"
    seen = _every_field(
        exchange,
        TIMESTAMP_FIELDS - NULLABLE_TIMESTAMP_FIELDS,
        _is_timestamp,
        title,
        expected,
        requirement,
        null_allowed=True,
    )
    return seen | _every_field(
        exchange,
        TIMESTAMP_FIELDS & NULLABLE_TIMESTAMP_FIELDS,
        lambda value: value == "" or _is_timestamp(value),
        title,
        expected,
        requirement,
        null_allowed=True,
    )


def value_rule_finds(name: str | None, value: Any) -> bool:
    """Whether a value rule of every answer finds a field `name` holding `value` wrong: a money field not an integer
    (SVC-21), a currency not NGN where the table gives NGN (SVC-22), a timestamp not UTC with milliseconds (SVC-23)."""
    if name in MONEY_FIELDS:
        return value is not None and type(value) is not int
    if name in CURRENCY_FIELDS:
        return bool(value != CURRENCY)  # a field held to NGN (a schema's const); other currency fields are only strings
    if name in TIMESTAMP_FIELDS:
        return value is not None and not _is_timestamp(value)
    return False


def schema_problems(instance: Any, schema_file: str, pointer: str = "") -> list[validation.SchemaViolation]:
    """The ways `instance` fails a schema of schemas/, but for the value of a field that a value rule finds wrong
    (`value_rule_finds`): that rule judges it on every answer, under its own requirement; its absence stays here."""
    return [
        problem
        for problem in validation.problems(schema_file, instance, pointer)
        if problem.keyword == "required"
        or (validation.field_name(problem.path) in CURRENCY_FIELDS and problem.keyword != "const")
        or not value_rule_finds(validation.field_name(problem.path), validation.value_at(instance, problem.path))
    ]
