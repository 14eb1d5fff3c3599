"""The words a run judges with, each defined here and nowhere else: a requirement's verdict and the run's outcome.

Their values are the strings every report writes (conformance.json, schemas/conformance-report.json lists them); a
member is a `str`, so it serialises, compares and formats as its value. A self-test (selftests/test_layers.py) finds
any of these values spelled as a string literal elsewhere in the package.
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """What the run says of one requirement (README, "Reading a run"); in the order the reports count them."""

    PASS = "pass"
    FAIL = "fail"
    BLOCKED = "blocked"  # a setup step the target refused kept its test from judging it: never a pass or a failure
    SKIP = "skip"  # with its reason
    OBSERVED = "observed"  # INFO: what the target did was recorded
    UNTESTED = "untested"  # no test ran for it, or nothing held it (with the reason)
    NOT_SELECTED = "not-selected"  # the run was a selection that left it out
    SUITE_ERROR = "suite-error"  # the suite itself is wrong: never a pass, never a skip


class Outcome(StrEnum):
    """How the run ended and what it says of the target, decided in one place (reporting/gating.py `apply`): a run
    that did not complete ends as its stop (the last five), whatever its verdicts; a complete one as its verdicts and
    the gate say."""

    CONFORMS = "conforms"
    CONFORMS_ON_THE_SELECTION = "conforms-on-the-selection"
    CONFORMS_TO_WHAT_WAS_TESTED = "conforms-to-what-was-tested"
    CONFORMS_TO_WHAT_THE_TRAFFIC_SHOWED = "conforms-to-what-the-traffic-showed"
    DOES_NOT_CONFORM = "does-not-conform"
    INCOMPLETE = "incomplete"
    SUITE_ERROR = "suite-error"
    NOTHING_JUDGED = "nothing-judged"
    INTERRUPTED = "interrupted"  # SIGINT, SIGTERM: the run did not finish
    STOPPED_EARLY = "stopped-early"  # the suite stopped it: the target stopped answering, failed, or the budget ran out
    STOPPED_AT_PREFLIGHT = "stopped-at-preflight"  # unreachable, a refused key, not the protocol: nothing was sent
    USAGE_ERROR = "usage-error"  # an option or a file given is wrong: nothing started
    UNFINISHED = "unfinished"  # written when the run starts, replaced when it ends: a run killed or crashed


NOT_TESTED = (Verdict.SKIP, Verdict.BLOCKED, Verdict.UNTESTED)  # a MUST requirement with one of these was not tested
JUDGED = (Verdict.PASS, Verdict.FAIL)  # a MUST requirement with one of these was judged
# The outcomes of a run that did not complete: none of them says the target conforms, in any form.
ENDED_EARLY = (
    Outcome.INTERRUPTED,
    Outcome.STOPPED_EARLY,
    Outcome.STOPPED_AT_PREFLIGHT,
    Outcome.USAGE_ERROR,
    Outcome.UNFINISHED,
)
