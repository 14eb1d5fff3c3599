"""What a test's error says about its requirements, and the evidence it or an exchange carries, as plain redacted
data: the classification every mode's record keeps (a phase's `error`, a finding's `evidence`).

Runs where the error is raised (an xdist worker too): everything it returns travels to the controlling process with
the test's report, so it holds only strings, numbers, lists and dicts. The evidence is redacted with the `secrets`
given (a judging session's own, judge/session.py), else with the process's active ones (client/redaction.py). An
error is told by its class (isinstance): a check's ConformanceFailure, an operation's silence judged as ERR-09's
UnansweredFailure, a refused setup step's TargetError, the suite's SuiteError; any other exception is one no check
raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

from wallet_conformance.client.api import TargetError
from wallet_conformance.client.redaction import Secrets, active
from wallet_conformance.judge.failures import ConformanceFailure, SuiteError, UnansweredFailure, shown

SHOWN = 600  # characters of a value or a response body kept as evidence


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _is_check_failure(error: BaseException) -> TypeGuard[ConformanceFailure]:
    return isinstance(error, ConformanceFailure) and isinstance(error.requirement, str)


def _is_silence(error: BaseException) -> TypeGuard[UnansweredFailure]:
    """The silence of one operation while the target answered others, judged as the failure of the requirement that
    every request is answered (judge/failures.py); the client's own Unanswered is a refused step."""
    return isinstance(error, UnansweredFailure)


@dataclass
class Classified:
    """How a test's error counts: which requirements it failed, or why it judged none."""

    failed_requirements: tuple[str, ...] = ()
    setup_error: bool = False
    setup_requirement: str | None = None
    suite_error: str | None = None  # why the error is the suite's own, not the target's
    evidence: list[dict[str, Any]] = field(default_factory=list)
    replay: str | None = None  # a failure's replay script (client/replay.py)
    kept: list[str] = field(default_factory=list)  # --keep-failing-records: the wallets left open for it

    @property
    def blocked(self) -> bool:
        """Whether the error judged nothing: a refused setup step that exercises no requirement kept the test from
        judging (never a failure of the test, in any report)."""
        return (
            self.setup_error
            and not self.failed_requirements
            and self.setup_requirement is None
            and self.suite_error is None
        )


def classify(error: BaseException, declared: tuple[str, ...]) -> Classified:
    """What a test's error says of the test's requirements (`declared`).

    - every failed check names its requirement: those requirements fail;
    - a request an operation left without an answer while the target answered others (UnansweredFailure) fails the
      requirement that every request is answered, wherever it is met: a test that does not declare it has its own
      requirements blocked, as by a refused setup step;
    - a setup step the target refused (TargetError) names at most the one requirement that step exercises;
    - anything else is the suite's own error and judges none of them: a SuiteError, a check naming a requirement
      the test does not declare, or an exception no check raised (a KeyError or a TypeError in the suite's own
      code, an `assert` the suite makes about itself).
    """
    leaves = _leaves(error)
    checks: list[ConformanceFailure | UnansweredFailure] = [leaf for leaf in leaves if _is_check_failure(leaf)]
    refused = [leaf for leaf in leaves if isinstance(leaf, TargetError)]
    suite = next((leaf for leaf in leaves if isinstance(leaf, SuiteError)), None)
    if suite is not None:
        return Classified(suite_error=str(suite), evidence=[error_evidence(suite)])
    stray = next((leaf.requirement for leaf in checks if leaf.requirement not in declared), None)
    if stray is not None:
        return Classified(
            suite_error=f"SUITE ERROR: a failure names requirement {stray!r}, which the test does not "
            f"declare ({', '.join(declared)})",
            evidence=[error_evidence(checks[0])],
        )
    unexpected = next((leaf for leaf in leaves if leaf not in checks and leaf not in refused), None)
    if unexpected is not None:
        message = (
            f"SUITE ERROR (a bug of the conformance suite, not of the target): the test stopped on "
            f"{type(unexpected).__name__}: {_first(unexpected)}, which no check raised; none of its "
            "requirements is judged"
        )
        return Classified(suite_error=message, evidence=[{**error_evidence(unexpected), "title": message[:300]}])
    silences: list[ConformanceFailure | UnansweredFailure] = [leaf for leaf in refused if _is_silence(leaf)]
    if checks or silences:
        found = tuple(dict.fromkeys(leaf.requirement for leaf in checks + silences))
        undeclared = next((leaf.requirement for leaf in silences if leaf.requirement not in declared), None)
        return Classified(
            failed_requirements=found,
            setup_error=undeclared is not None,
            setup_requirement=undeclared,
            evidence=[error_evidence(leaf) for leaf in checks + silences],
        )
    requirement = getattr(refused[0], "requirement", None)
    return Classified(
        setup_error=True,
        setup_requirement=requirement if isinstance(requirement, str) else None,
        evidence=[error_evidence(refused[0])],
    )


def _first(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return active().redact(lines[0] if lines else repr(error))[:300]


def _show(value: Any, secrets: Secrets) -> str:
    return secrets.redact(shown(value, limit=SHOWN))


def _title(error: BaseException, secrets: Secrets) -> str:
    title = getattr(error, "title", None)
    if not isinstance(title, str) or not title:
        lines = str(error).strip().splitlines()
        title = lines[0] if lines else type(error).__name__
    return secrets.redact(title)[:300]


def error_evidence(error: BaseException, secrets: Secrets | None = None) -> dict[str, Any]:
    """One failed check (or refused setup step, or suite error): title, expected/received, the exchange; redacted
    with `secrets` (None: the process's active ones)."""
    secrets = secrets if secrets is not None else active()
    if _is_silence(error):
        return _silence_evidence(error, secrets)
    requirement = getattr(error, "requirement", None)
    item: dict[str, Any] = {
        "requirement": requirement if isinstance(requirement, str) else None,
        "kind": "check"
        if _is_check_failure(error)
        else "setup"
        if isinstance(error, TargetError)
        else "suite"
        if isinstance(error, SuiteError)
        else "error",
        "title": _title(error, secrets),
    }
    if _is_check_failure(error):
        item["expected"] = _show(getattr(error, "expected", None), secrets)
        item["received"] = _show(getattr(error, "received", None), secrets)
        if getattr(error, "detail", None):
            item["detail"] = _show(error.detail, secrets)
    exchange = getattr(error, "exchange", None)
    if exchange is not None:
        item["exchange"] = exchange_evidence(exchange, secrets)
    also = getattr(error, "also", ())
    if also:
        item["compared_with"] = [exchange_evidence(other, secrets) for other in also]
    return item


def _silence_evidence(error: UnansweredFailure, secrets: Secrets) -> dict[str, Any]:
    """A request left without an answer, as a check's evidence: expected and received, the request and its curl line;
    its status is 0, as HAR writes a request that got no response."""
    silence = error.silence
    body = silence.request_body
    return {
        "requirement": error.requirement,
        "kind": "check",
        "title": _title(error, secrets),
        "expected": _show(error.expected, secrets),
        "received": _show(error.received, secrets),
        "detail": _show(error.detail, secrets),
        "exchange": {
            "request": secrets.redact(f"{silence.method} {silence.url}"),
            "request_body": None if body is None else _body_shown(body, silence.padding, secrets),
            "status": 0,
            "content_type": None,
            "response": "(no answer)",
            "curl": secrets.redact(silence.curl()),
        },
    }


def _body_shown(body: Any, padding: int, secrets: Secrets) -> str:
    """A request body as evidence, saying how many spaces followed it when some did (client/exchange.py, Exchange)."""
    return _show(body, secrets) + (f" followed by {padding} spaces" if padding else "")


def exchange_evidence(exchange: Any, secrets: Secrets | None = None) -> dict[str, Any]:
    """An exchange as evidence: the request, the status, a response excerpt and the curl line, redacted with
    `secrets` (None: the process's active ones)."""
    secrets = secrets if secrets is not None else active()
    body = exchange.request_body
    text = exchange.text or ""
    return {
        "request": secrets.redact(f"{exchange.method} {exchange.url}"),
        "request_body": None if body is None else _body_shown(body, exchange.padding, secrets),
        "status": exchange.status,
        "content_type": exchange.header("content-type"),
        "response": secrets.redact(text if len(text) <= SHOWN else text[:SHOWN] + f"... ({len(text)} chars)"),
        "curl": secrets.redact(exchange.curl()),
    }
