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
    UNTESTED = "untested"  # no test ran for it
    SUITE_ERROR = "suite-error"  # the suite itself is wrong: never a pass, never a skip


class Outcome(StrEnum):
    """What the run says of the target, from its requirements' verdicts and the gate (reporting/gating.py)."""

    CONFORMS = "conforms"
    CONFORMS_TO_WHAT_WAS_TESTED = "conforms-to-what-was-tested"
    CONFORMS_TO_WHAT_THE_TRAFFIC_SHOWED = "conforms-to-what-the-traffic-showed"
    DOES_NOT_CONFORM = "does-not-conform"
    INCOMPLETE = "incomplete"
    SUITE_ERROR = "suite-error"
    NOTHING_JUDGED = "nothing-judged"


NOT_TESTED = (Verdict.SKIP, Verdict.BLOCKED, Verdict.UNTESTED)  # a MUST requirement with one of these was not tested
JUDGED = (Verdict.PASS, Verdict.FAIL)  # a MUST requirement with one of these was judged
