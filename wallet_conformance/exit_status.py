"""The exit statuses of a run, in one place: the gate, the preflight, the early stop and --cleanup read them here."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What the run's exit status says (README, "Exit status"). 2, 3 and 5 are pytest's own."""

    GATE_PASSES = 0  # no gated requirement failed, or every such failure is waived or already in the baseline
    DOES_NOT_CONFORM = 1  # a gated requirement failed
    INTERRUPTED = 2
    INTERNAL_ERROR = 3
    CANNOT_RUN = 4  # bad configuration, an unreachable target, a refused key, a bad waiver or baseline file, a non-HAR
    NO_TESTS_COLLECTED = 5
    SUITE_ERROR = 6  # the suite itself is wrong: its results cannot be trusted (takes precedence over 1)
    INCOMPLETE = 7  # with --require-complete, a MUST requirement was not tested (and nothing failed)
    NOT_THE_PROTOCOL = 8  # the target does not answer JSON envelopes: wrong URL, or not this API
    TARGET_FAILING = 9  # the target answers 5xx, stopped answering mid-run, or the run used up --run-budget
    CLEANUP_LEFT_OVER = 10  # --cleanup could not close or restore something
    NOTHING_JUDGED = 11  # no MUST requirement passed or failed: every test deselected or skipped, no exchange judged
    REPORTS_NOT_WRITTEN = 12  # the run ended, but its reports could not be written (a full or read-only disk)
