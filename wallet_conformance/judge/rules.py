"""The rules one answer can break, each tied to the requirement it holds: the one registry of what the exchange
judge (judge/exchanges.py) holds on every exchange of the run, and from which the generated tests' requirement lists
are derived.

Each rule is declared on its check, where the check is defined (`@rule`, judge/rule.py): it says which answers it
judges (`when`), which requirements it may stand for (the first whose catalogue `operations` take in the exchange's
operation), and its name. This module gathers them in the order they are held (ORDER). All are the suite's own checks
(judge/checks.py, judge/envelope.py, judge/request_rules.py, judge/answer_forms.py, judge/parties.py, and here the
resource tables of schemas/ and the refusal schema of openapi.yaml through spec/validation.py): Schemathesis
generates and sends the generated tests' cases, and its own checks would judge those alone. Schemathesis checks with
no rule here, and why:
- status_code_conformance: openapi.yaml declares `4XX` and `default` (failure codes are not shown, ERR-04), so it
  cannot fail; the documented success status is the suite's own rule (ERR-01 / ERR-02).
- positive_data_acceptance / negative_data_rejection: they read Schemathesis' own idea of valid; the generated
  tests decide on what was sent, with the business-rule refusals the document allows (generation/cases.py).
- ignored_auth, missing_required_header: they resend outside the suite's client; the generated tests send
  requests without the key themselves.
- unsupported_method (TRACE...), use_after_free, ensure_resource_availability: the document does not say (VER-02,
  STA-10 are INFO) what an undeclared method or a closed wallet answers. (That a refusal of an undeclared method is
  an envelope, ERR-06, the probes of world/bad_requests.py judge.)
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import replace
from functools import cache
from typing import Any

from wallet_conformance.client.exchange import Exchange

# The modules that declare rules, imported for their declarations (the ones of this module follow).
from wallet_conformance.judge import answer_forms, checks, envelope, parties, refusals, request_rules  # noqa: F401
from wallet_conformance.judge.failures import CannotJudge, ConformanceFailure, rules_running
from wallet_conformance.judge.rule import Rule, When, declared_rules, rule
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.catalogue import catalogue

# The places of the answer being judged that show another account's wallet, whose name, number and balance may be
# withheld there (exchanges.findings_of's `withheld`): set while `broken` runs the rules on one exchange.
WITHHELD: ContextVar[frozenset[str]] = ContextVar("wallet_conformance_withheld", default=frozenset())
_REQUIRED = re.compile(r"""^['"](?P<name>[^'"]+)['"] is a required property""")


# ------------------------------------------------------------------ the resource tables and the refusal schema


@rule("ERR-06", when="not-success", name="response schema", where=refusals.of_an_operation)
def _response_schema(exchange: Exchange, requirement: str) -> None:
    """The answer holds the schema openapi.yaml gives its operation and status: a refusal is an envelope."""
    why = "a refusal is an envelope"
    if not exchange.is_json:
        checks.fail(
            "the answer is a JSON envelope",
            "a JSON body",
            "a body that is not JSON",
            exchange,
            detail=why,
            requirement=requirement,
        )
    assert exchange.operation_id is not None  # where=of_an_operation
    found = validation.response_problems(exchange.operation_id, exchange.status, exchange.json) or []
    found = [problem for problem in found if envelope.is_shape_problem(problem)]  # a refusal's schema: openapi's Error
    if found:
        first = found[0]
        listing = "; ".join(f"{problem.path or 'body'}: {problem.message}" for problem in found[:8])
        checks.fail(
            f"the answer matches the schema of {exchange.operation_id} (HTTP {exchange.status})",
            f"{first.keyword}: {first.expected}",
            f"{first.path or 'body'}: {first.message}",
            exchange,
            detail=f"{why}. {listing}",
            requirement=requirement,
        )


def _table_whole(operation_id: str, requirement: str) -> dict[str, Any]:
    """data, on an operation answering one record, and each entry of data, on one answering a list, holding the
    table `requirement` holds, whole: `_table` reads no problem of a record that holds it."""
    table = {"$ref": contract.RESOURCE_TABLES[requirement]}
    single = operation_id in catalogue()[contract.SINGLE_RECORD].operations
    return {"type": "object", "properties": {"data": table if single else {"items": table}}}


@rule(*contract.RESOURCE_TABLES, when="success", name="resource table", sufficient=_table_whole)
def _table(exchange: Exchange, requirement: str) -> None:
    """The records of a success's data hold the table `requirement` holds (contract.RESOURCE_TABLES), in schemas/:
    data when it is an object, each entry that is an object when it is an array. The shape of data is SVC-19's and
    SVC-20's, whether an entry is a record at all its list's END requirement's, and the forms an operation's answer
    takes beyond the table (the create answer without `_id`, a transfer `pending`...) their own requirements'."""
    schema_file = contract.RESOURCE_TABLES[requirement]
    data = exchange.data if exchange.is_json and isinstance(exchange.json, dict) else None
    if exchange.operation_id in catalogue()[contract.SINGLE_RECORD].operations:
        shown = [("data", data)] if isinstance(data, dict) else []
    else:
        shown = [
            (f"data[{index}]", entry)
            for index, entry in enumerate(data if isinstance(data, list) else [])
            if isinstance(entry, dict)
        ]
    found = [
        replace(problem, path=f"{where}.{problem.path}" if problem.path else where)
        for where, record in shown
        for problem in checks.schema_problems(record, schema_file)
    ]
    withheld = WITHHELD.get()
    found = [problem for problem in found if not (withheld and _withheld(problem, exchange.json, withheld))]
    if found:
        first = found[0]
        listing = "; ".join(f"{problem.path}: {problem.message}" for problem in found[:8])
        checks.fail(
            f"the records of {exchange.operation_id} hold the table of {schema_file}",
            f"{first.keyword}: {first.expected}",
            f"{first.path}: {first.message}",
            exchange,
            detail=f"every field of the table, with its type and the values the table gives it. {listing}",
            requirement=requirement,
        )


def _withheld(problem: validation.SchemaViolation, body: Any, withheld: frozenset[str]) -> bool:
    """Whether a schema problem is only another account's field withheld: absent, null or masked (a string) at one
    of the `withheld` places."""
    required = _REQUIRED.match(problem.message) if problem.keyword == "required" else None
    if required is not None:
        return f"{problem.path}.{required['name']}" in withheld
    if problem.path not in withheld:
        return False
    value = validation.value_at(body, problem.path)
    return value is None or isinstance(value, str)


# ------------------------------------------------------------------ the registry

# The order the rules are held in, by name (the rules of one name in the order they are declared): the first broken
# one is the failure a generated test reports (judge_answer), and a requirement's rules are listed in it.
ORDER = (
    # Success answers: the envelope, its meta, the documented status and message, and the values of data.
    "json envelope",
    "meta.statusCode",
    "meta.success boolean",
    "meta.success true",
    "meta.message string",
    "meta.message presence",
    "meta.message words",
    "meta.pagination presence",
    "meta.pagination fields",
    "list data array",
    "success status",
    "money in kobo",
    "actualAmount is amount where no fee",
    "a debit's actualAmount is amount plus fee",
    "currency NGN",
    "timestamps",
    # Refusals: an envelope repeating its status with success false.
    "error envelope",
    "error meta.statusCode",
    "error meta.success false",
    # What was sent: an accepted request keeps the documented limits, and its answer carries what was sent.
    "accepted request within the limits",
    "what was sent comes back",
    "the operation's stated form",
    "inbound credit leg",
    "parties named by publicId",
    "currency pair of the parties",
    "the parties repeated alike",
    "verify answers the path's reference",
    "expiration after expireIn",
    # Any answer: no 5xx (SHOULD); success bodies labelled JSON (SHOULD); the schemas of openapi.yaml.
    "no server error",
    "content type",
    "resource table",
    "response schema",
)


def _registry() -> tuple[Rule, ...]:
    """Every declared rule, in ORDER; a rule declared without a place there, or a place no rule takes, is an error of
    the suite, found on import."""
    rules = declared_rules()
    names = {declared_rule.name for declared_rule in rules}
    if names != set(ORDER) or len(ORDER) != len(set(ORDER)):
        raise LookupError(
            f"rules declared without a place in ORDER: {sorted(names - set(ORDER))}; places in ORDER "
            f"no rule takes: {sorted(set(ORDER) - names)}"
        )
    return tuple(sorted(rules, key=lambda declared_rule: ORDER.index(declared_rule.name)))


RULES: tuple[Rule, ...] = _registry()


@cache
def _applying(operation_id: str | None) -> tuple[tuple[Rule, str], ...]:
    return tuple(
        (held, requirement) for held in RULES if (requirement := held.requirement_for(operation_id)) is not None
    )


def applying(
    operation_id: str | None, when: tuple[When, ...] = ("success", "client-error", "not-success")
) -> Iterator[tuple[Rule, str]]:
    """The rules that hold on an operation's answers of the kinds `when`, each with its requirement there."""
    for held, requirement in _applying(operation_id):
        if held.when in when:
            yield held, requirement


def _kinds(status: int) -> tuple[When, ...]:
    """The kinds of answer (Rule.when) an answer with `status` is."""
    if 200 <= status < 300:
        return ("success",)
    return ("client-error", "not-success") if 400 <= status < 500 else ("not-success",)


@cache
def _applying_to(operation_id: str | None, kinds: tuple[When, ...]) -> tuple[tuple[Rule, str], ...]:
    """The rules that hold on an operation's answers of these kinds, each with its requirement there: those an
    answer's status alone lets judge it (`where` may still leave it out)."""
    return tuple((held, requirement) for held, requirement in applying(operation_id) if held.when in kinds)


@cache
def _sufficient(operation_id: str) -> tuple[Any, frozenset[int]] | None:
    """The schemas of the rules an operation's successes are held to that have one (Rule.sufficient), compiled as one
    validation, with the places of those rules in `_applying_to(operation_id, ("success",))`; None where none has."""
    schemas, places = [], []
    for place, (held, requirement) in enumerate(_applying_to(operation_id, ("success",))):
        schema = held.sufficient(operation_id, requirement) if held.sufficient is not None else None
        if schema is not None:
            schemas.append(schema)
            places.append(place)
    return (validation.compiled_all_of(schemas), frozenset(places)) if schemas else None


def _kept(exchange: Exchange) -> frozenset[int]:
    """The places (in `_applying_to`) of the rules this answer surely keeps without running their checks: on a JSON
    answer with its operation's documented success status whose body holds their schemas together, those with one;
    else none."""
    operation = contract.operations().get(exchange.operation_id or "")
    if operation is None or exchange.status != operation.success_status or not exchange.is_json:
        return frozenset()
    sufficient = _sufficient(operation.id)
    if sufficient is None or not validation.valid_with(
        sufficient[0], exchange.json, whole_floats=exchange.holds_whole_float
    ):
        return frozenset()
    return sufficient[1]


def requirements(operation_id: str, when: tuple[When, ...] = ("success", "client-error", "not-success")) -> list[str]:
    """The requirements the rules hold on an operation's answers of the kinds `when`, in the registry's order."""
    return list(dict.fromkeys(requirement for _, requirement in applying(operation_id, when)))


# What `held_and_broken` found of the exchanges it judged last, per thread (the newest last): the exchange judge judges
# each exchange as the client logs it, and a generated test asks again of its answer right after. Held by identity (an
# Exchange is mutable, so not hashable) with the exchange itself, so that no other exchange can take its id while it
# is held; one asked of again after it left is judged again, to the same findings.
REMEMBERED = 16
_remembered = threading.local()
Held = list[tuple[Rule, str]]
Broken = list[tuple[Rule, str, ConformanceFailure]]


def _judged_before(exchange: Exchange) -> tuple[Held, Broken] | None:
    remembered: Iterable[tuple[Exchange, tuple[Held, Broken]]] = getattr(_remembered, "found", ())
    for kept, found in remembered:
        if kept is exchange:
            return found
    return None


def _remember(exchange: Exchange, found: tuple[Held, Broken]) -> None:
    if not hasattr(_remembered, "found"):
        _remembered.found = deque(maxlen=REMEMBERED)
    _remembered.found.append((exchange, found))


def held_and_broken(exchange: Exchange, withheld: frozenset[str] = frozenset()) -> tuple[Held, Broken]:
    """Every rule of the registry that judges this answer, in the registry's order, each with the requirement it
    holds: those the answer kept, and those it broke with their failure (a rule whose check could not judge the answer,
    CannotJudge, is in neither); `withheld`, the places where another account's wallet's name, number and balance may
    be withheld. Worked out once per exchange (the exchange judge and the generated tests both ask) where nothing is
    withheld."""
    if not withheld:
        before = _judged_before(exchange)
        if before is not None:
            return before
    held: Held = []
    broken: Broken = []
    # Each rule holds its own requirement, and what it holds is counted here, not as the running test's checks.
    kept = _kept(exchange)  # a rule kept there is held without its check: its schema says the check passes
    shown = WITHHELD.set(withheld)
    try:
        with rules_running():
            for place, (rule_held, requirement) in enumerate(
                _applying_to(exchange.operation_id, _kinds(exchange.status))
            ):
                if rule_held.where is None or rule_held.where(exchange):
                    if place in kept:
                        held.append((rule_held, requirement))
                        continue
                    try:
                        rule_held.check(exchange, *rule_held.args, requirement=requirement)
                    except ConformanceFailure as failure:
                        broken.append((rule_held, requirement, failure))
                    except CannotJudge:
                        pass  # the answer breaks another rule's statement first (data of another shape, say)
                    else:
                        held.append((rule_held, requirement))
    finally:
        WITHHELD.reset(shown)
    if not withheld:
        _remember(exchange, (held, broken))
    return held, broken


def broken(exchange: Exchange, withheld: frozenset[str] = frozenset()) -> Broken:
    """Every rule of the registry that judges this answer and that it breaks, with the requirement it holds and
    the failure, in the registry's order (`held_and_broken`)."""
    return held_and_broken(exchange, withheld)[1]


def judge_answer(exchange: Exchange, when: tuple[When, ...] = ("success", "client-error", "not-success")) -> None:
    """Every rule of the registry that judges this answer (of the kinds `when`), in order; the first broken one
    raises its ConformanceFailure."""
    for held, _, failure in broken(exchange):
        if held.when in when:
            raise failure
