"""The rules one answer can break, each tied to the requirement it holds: the one registry of what the exchange
judge (judge/exchanges.py) holds on every exchange of the run, and from which the generated tests' requirement lists
are derived.

A rule says which answers it judges (`when`), which requirements it may stand for (the first whose catalogue
`operations` take in the exchange's operation), and its check. All are the suite's own checks (judge/checks.py,
judge/envelope.py, the resource tables of schemas/ and the refusal schema of openapi.yaml through
spec/validation.py): Schemathesis generates and sends the generated tests' cases, and its own checks would judge
those alone. Schemathesis checks with no rule here, and why:
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
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Literal

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import answer_forms, checks, envelope, parties, refusals, request_rules
from wallet_conformance.judge.failures import DECLARED, CannotJudge, ConformanceFailure
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.catalogue import catalogue

When = Literal["success", "client-error", "not-success"]
# The places of the answer being judged that show another account's wallet, whose name, number and balance may be
# withheld there (exchanges.judge's `withheld`): set while `broken` runs the rules on one exchange.
WITHHELD: ContextVar[frozenset[str]] = ContextVar("wallet_conformance_withheld", default=frozenset())
_REQUIRED = re.compile(r"""^['"](?P<name>[^'"]+)['"] is a required property""")


@dataclass(frozen=True)
class Rule:
    """One rule an answer can break: its name, which answers it judges, the requirements it may stand for, and
    its check, called as `check(exchange, requirement)`."""

    name: str
    when: When
    requirements: tuple[str, ...]
    check: Callable[[Exchange, str], Any]
    why: str = ""

    def requirement_for(self, operation_id: str) -> str | None:
        """The requirement this rule holds on `operation_id`: the first of its requirements whose catalogue scope
        (`operations`) takes the operation in, or None where none does."""
        for requirement_id in self.requirements:
            scope = catalogue()[requirement_id].operations
            if "all" in scope or operation_id in scope:
                return requirement_id
        return None

    def judges(self, exchange: Exchange) -> bool:
        if self.when == "success":
            return exchange.ok
        if self.when == "client-error":
            return 400 <= exchange.status < 500
        return not exchange.ok


# ------------------------------------------------------------------ the resource tables and the refusal schema


def _response_schema(why: str) -> Callable[[Exchange, str], None]:
    """The answer holds the schema openapi.yaml gives its operation and status; its failure names the requirement."""

    def run(exchange: Exchange, requirement: str) -> None:
        if not exchange.is_json:
            checks.fail("the answer is a JSON envelope", "a JSON body", "a body that is not JSON", exchange,
                        detail=why, requirement=requirement)
        found = validation.response_problems(exchange.operation_id, exchange.status, exchange.json) or []
        if found:
            first = found[0]
            listing = "; ".join(f"{problem.path or 'body'}: {problem.message}" for problem in found[:8])
            checks.fail(f"the answer matches the schema of {exchange.operation_id} (HTTP {exchange.status})",
                        f"{first.keyword}: {first.expected}", f"{first.path or 'body'}: {first.message}", exchange,
                        detail=f"{why}. {listing}", requirement=requirement)

    return run


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
        shown = [(f"data[{index}]", entry) for index, entry in enumerate(data if isinstance(data, list) else [])
                 if isinstance(entry, dict)]
    found = [replace(problem, path=f"{where}.{problem.path}" if problem.path else where)
             for where, record in shown for problem in checks.schema_problems(record, schema_file)]
    withheld = WITHHELD.get()
    found = [problem for problem in found if not (withheld and _withheld(problem, exchange.json, withheld))]
    if found:
        first = found[0]
        listing = "; ".join(f"{problem.path}: {problem.message}" for problem in found[:8])
        checks.fail(f"the records of {exchange.operation_id} hold the table of {schema_file}",
                    f"{first.keyword}: {first.expected}", f"{first.path}: {first.message}", exchange,
                    detail=f"every field of the table, with its type and the values the table gives it. {listing}",
                    requirement=requirement)


def _of_error_meta(check: Callable[[Exchange, str], Any]) -> Callable[[Exchange, str], None]:
    """A check of what an error's meta says, judged where the error carries a meta object: one that carries none
    breaks the envelope (ERR-06), not what its meta would have said."""

    def run(exchange: Exchange, requirement: str) -> None:
        if refusals.has_meta(exchange):
            check(exchange, requirement)

    return run


def _withheld(problem: validation.Problem, body: Any, withheld: frozenset[str]) -> bool:
    """Whether a schema problem is only another account's field withheld: absent, null or masked (a string) at one
    of the `withheld` places."""
    required = _REQUIRED.match(problem.message) if problem.keyword == "required" else None
    if required is not None:
        return f"{problem.path}.{required['name']}" in withheld
    if problem.path not in withheld:
        return False
    value = validation.value_at(body, problem.path)
    return value is None or isinstance(value, str)


def _where_meta_holds(name: str | None, check: Callable[[Exchange, str], Any]) -> Callable[[Exchange, str], None]:
    """A check of what a success's meta says, judged where the answer's meta can be read and, given a `name`, holds
    it: a body without meta is the envelope's failure (SVC-03), and one without the field its presence
    requirement's (SVC-08, SVC-16), not what the field would have said."""

    def run(exchange: Exchange, requirement: str) -> None:
        if envelope.shows_meta(exchange) and (name is None or name in exchange.meta):
            check(exchange, requirement)

    return run


# ------------------------------------------------------------------ the registry

RESOURCE_SCHEMAS = tuple(contract.RESOURCE_TABLES)
MESSAGE_VALUES = contract.MESSAGE_REQUIREMENTS

RULES: tuple[Rule, ...] = (
    # Success answers: the envelope, its meta, the documented status and message, and the values of data.
    Rule("json envelope", "success", ("SVC-03",), lambda ex, rid: envelope.json_envelope(ex, requirement=rid)),
    Rule("meta.statusCode", "success", ("SVC-05",), lambda ex, rid: envelope.meta_status_code(ex, requirement=rid)),
    Rule("meta.success boolean", "success", ("SVC-06",),
         lambda ex, rid: envelope.meta_success_is_boolean(ex, requirement=rid)),
    Rule("meta.success true", "success", ("ERR-03",),
         lambda ex, rid: envelope.meta_success_is(ex, True, requirement=rid)),
    Rule("meta.message string", "success", ("SVC-07",),
         lambda ex, rid: envelope.message_is_string(ex, requirement=rid)),
    Rule("meta.message presence", "success", (contract.MESSAGE_PRESENT, contract.MESSAGE_ABSENT),
         _where_meta_holds(None, lambda ex, rid: envelope.message_presence(ex, requirement=rid))),
    Rule("meta.message words", "success", MESSAGE_VALUES,
         _where_meta_holds("message", lambda ex, rid: envelope.message_value(ex, requirement=rid))),
    Rule("meta.pagination presence", "success", (contract.PAGINATED, "END-38"),
         _where_meta_holds(None, lambda ex, rid: envelope.pagination_presence(ex, requirement=rid))),
    Rule("meta.pagination fields", "success", ("SVC-17",),
         _where_meta_holds("pagination", lambda ex, rid: envelope.pagination_shape(ex, requirement=rid))),
    Rule("success status", "success", ("ERR-01", "ERR-02"), lambda ex, rid: checks.success_status(ex, requirement=rid)),
    Rule("money in kobo", "success", (contract.MONEY_INTEGERS,),
         lambda ex, rid: checks.money_is_integer_kobo(ex, requirement=rid)),
    Rule("currency NGN", "success", ("SVC-22",), lambda ex, rid: checks.currencies_are_ngn(ex, requirement=rid)),
    Rule("timestamps", "success", ("SVC-23",), lambda ex, rid: checks.timestamps_are_utc_ms(ex, requirement=rid)),
    # Refusals: an envelope repeating its status with success false.
    Rule("error envelope", "client-error", ("ERR-06",), lambda ex, rid: envelope.json_envelope(ex, requirement=rid)),
    Rule("error meta.statusCode", "client-error", ("ERR-07",),
         _of_error_meta(lambda ex, rid: envelope.meta_status_code(ex, requirement=rid))),
    Rule("error meta.success false", "client-error", ("ERR-08",),
         _of_error_meta(lambda ex, rid: envelope.meta_success_is(ex, False, requirement=rid))),
    # What was sent: an accepted request keeps the documented limits, and its answer carries what was sent.
    *(Rule("accepted request within the limits", "success", (limit,),
           lambda ex, rid: request_rules.accepted_within_limits(ex, rid, requirement=rid))
      for limit in dict.fromkeys(requirement for *_, requirement in request_rules.INVALID_INPUT_REQUIREMENTS)),
    *(Rule("what was sent comes back", "success", (echoed,),
           lambda ex, rid: request_rules.sent_comes_back(ex, requirement=rid))
      for echoed in dict.fromkeys(requirement for _, requirement, *_ in request_rules.ECHOED)),
    *(Rule("the operation's stated form", "success", (form,),
           lambda ex, rid: answer_forms.FORMS[rid](ex, requirement=rid))
      for form in answer_forms.FORMS),
    Rule("inbound credit leg", "success", ("RES-81",),
         lambda ex, rid: parties.inbound_legs_hold_their_fields(ex, requirement=rid)),
    *(Rule("the parties repeated alike", "success", (repeated,),
           lambda ex, rid: parties.parties_named_alike(ex, requirement=rid))
      for repeated in dict.fromkeys(requirement for requirement, *_ in parties.REPEATED)),
    Rule("verify answers the path's reference", "success", ("END-28",),
         lambda ex, rid: request_rules.verified_reference(ex, requirement=rid)),
    Rule("expiration after expireIn", "success", ("STA-07",),
         lambda ex, rid: request_rules.expiration_follows_expire_in(ex, requirement=rid)),
    # Any answer: no 5xx (SHOULD); success bodies labelled JSON (SHOULD); the schemas of openapi.yaml.
    Rule("no server error", "not-success", ("ERR-05",), lambda ex, rid: checks.no_server_error(ex, requirement=rid)),
    Rule("content type", "success", ("SVC-04",), lambda ex, rid: envelope.content_type_json(ex, requirement=rid)),
    Rule("resource table", "success", RESOURCE_SCHEMAS, _table),
    Rule("response schema", "not-success", ("ERR-06",), _response_schema("a refusal is an envelope (SHOULD)")),
)


@cache
def _applying(operation_id: str) -> tuple[tuple[Rule, str], ...]:
    return tuple((rule, requirement) for rule in RULES
                 if (requirement := rule.requirement_for(operation_id)) is not None)


def applying(operation_id: str, when: tuple[When, ...] = ("success", "client-error", "not-success")
             ) -> Iterator[tuple[Rule, str]]:
    """The rules that hold on an operation's answers of the kinds `when`, each with its requirement there."""
    for rule, requirement in _applying(operation_id):
        if rule.when in when:
            yield rule, requirement


def requirements(operation_id: str, when: tuple[When, ...] = ("success", "client-error", "not-success")
                 ) -> list[str]:
    """The requirements the rules hold on an operation's answers of the kinds `when`, in the registry's order."""
    return list(dict.fromkeys(requirement for _, requirement in applying(operation_id, when)))


# What `broken` found of the exchanges it judged last, per thread (the newest last): the exchange judge judges each
# exchange as the client logs it, and a generated test asks again of its answer right after. Held by identity (an
# Exchange is mutable, so not hashable) with the exchange itself, so that no other exchange can take its id while it
# is held; one asked of again after it left is judged again, to the same findings.
REMEMBERED = 16
_remembered = threading.local()


def _judged_before(exchange: Exchange) -> list[tuple[Rule, str, ConformanceFailure]] | None:
    for held, found in getattr(_remembered, "found", ()):
        if held is exchange:
            return found
    return None


def _remember(exchange: Exchange, found: list[tuple[Rule, str, ConformanceFailure]]) -> None:
    if not hasattr(_remembered, "found"):
        _remembered.found = deque(maxlen=REMEMBERED)
    _remembered.found.append((exchange, found))


def broken(exchange: Exchange, withheld: frozenset[str] = frozenset()) -> list[tuple[Rule, str, ConformanceFailure]]:
    """Every rule of the registry that judges this answer and that it breaks, with the requirement it holds and
    the failure, in the registry's order; `withheld`, the places where another account's wallet's name, number and
    balance may be withheld. Worked out once per exchange (the exchange judge and the generated tests both ask)
    where nothing is withheld."""
    if not withheld:
        before = _judged_before(exchange)
        if before is not None:
            return before
    found = []
    declared, shown = DECLARED.set(None), WITHHELD.set(withheld)  # each rule holds its own requirement
    try:
        for rule, requirement in applying(exchange.operation_id):
            if rule.judges(exchange):
                try:
                    rule.check(exchange, requirement)
                except ConformanceFailure as failure:
                    found.append((rule, requirement, failure))
                except CannotJudge:
                    pass  # the answer breaks another rule's statement first (data of another shape, say)
    finally:
        DECLARED.reset(declared)
        WITHHELD.reset(shown)
    if not withheld:
        _remember(exchange, found)
    return found


def judge_answer(exchange: Exchange, when: tuple[When, ...] = ("success", "client-error", "not-success")) -> None:
    """Every rule of the registry that judges this answer (of the kinds `when`), in order; the first broken one
    raises its ConformanceFailure."""
    for rule, _, failure in broken(exchange):
        if rule.when in when:
            raise failure
