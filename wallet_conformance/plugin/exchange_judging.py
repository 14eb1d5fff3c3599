"""Every exchange of the run judged (judge/exchanges.py), whatever made it: a test, a fixture, a setup read, a paging
walk, the cleanup at the end of the run; and held, with the exchanges before it, to the invariants between answers
(judge/record_registry.py: one identifier, one record; one record, one identity).

Each process judges its clients' exchanges as they are made (an xdist worker those of its own tests: the registry
of records compares the answers one process saw). What each phase of a test (setup, call, teardown) found rides on
that phase's record (plugin/phase_record.py) to the controlling process, which keeps one record per requirement and
operation broken (`exchange-judge::REQ[operation]`, and `records::REQ[operation]` for the registry's findings): the
number of exchanges that broke it, the test during which it was first seen, and that exchange as evidence; each
exchange is a line of the run's record of judgement (judge/judgement.py). A test's
teardown report is made after the fixtures it ends, the last test's after the run's cleanup, so no exchange goes
unreported.
"""

from __future__ import annotations

from typing import Any

from wallet_conformance.reporting.judging import Found, Judged

__all__ = ["Found", "Judged", "found"]


def found(judged: Judged) -> tuple[list[Found], list[dict[str, Any]]]:
    """What this process's judge (plugin/run.py builds it) found since the last report, and the record's lines of
    the exchanges it judged meanwhile."""
    return judged.found()
