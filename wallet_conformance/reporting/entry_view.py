"""One requirement's entry as every human report shows it: its waiver, the document's words, its evidence, its tests
and their replays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from wallet_conformance.reporting.verdicts import Verdict

EVIDENCE_SHOWN = 3
REPLAYS_SHOWN = 3  # the replays a requirement's entry shows (conformance.json keeps every failing test's)


def waiver_words(entry: dict[str, Any]) -> str | None:
    waiver = entry.get("waiver")
    if not waiver:
        return None
    state = "EXPIRED waiver" if waiver["expired"] else "waived"
    return f"{state} until {waiver['expires']} by {waiver['owner']}: {waiver['reason']}"


@dataclass(frozen=True)
class EntryView:
    """One requirement's entry as every human report shows it: what the Markdown and the HTML both render."""

    waived: str | None  # the waiver's words, when one holds the requirement
    quote: str  # the document's words, on one line
    reason: str | None  # why it was not judged (a failure's reason is its evidence)
    observations: list[str]  # each observation's facts, as JSON
    evidence: list[tuple[dict[str, Any], list[tuple[dict[str, Any], bool]]]]  # item, [(exchange, compared with)]
    tests: list[str]  # the first tests that cover it
    more_tests: bool  # more tests than those shown
    replays: list[tuple[str, str]]  # (test, script): the replay of each test that failed it (client/replay.py)
    kept: list[list[str]]  # the wallets each failing test left open (--keep-failing-records)


def entry_view(entry: dict[str, Any]) -> EntryView:
    """What the human reports show of one requirement's entry."""
    evidence = []
    for item in entry["evidence"][:EVIDENCE_SHOWN]:
        shown = [exchange for exchange in [item.get("exchange"), *item.get("compared_with", ())] if exchange]
        evidence.append((item, [(exchange, exchange is not item.get("exchange")) for exchange in shown]))
    tests = [test["nodeid"] for test in entry["tests"]]
    return EntryView(
        waived=waiver_words(entry),
        quote=" ".join(entry["quote"].split()),
        reason=entry["reason"] if entry["reason"] and entry["verdict"] != Verdict.FAIL else None,
        observations=[
            json.dumps(
                {key: value for key, value in observation.items() if key != "requirement"}, sort_keys=True, default=str
            )
            for observation in entry["observations"]
        ],
        evidence=evidence,
        tests=tests[:5],
        more_tests=len(tests) > 5,
        replays=[(test["nodeid"], test["replay"]) for test in entry["tests"] if test.get("replay")][:REPLAYS_SHOWN],
        kept=[test["kept"] for test in entry["tests"] if test.get("kept")],
    )


def kept_words(kept: list[str]) -> str:
    """What --keep-failing-records left open for a failing test, and how it is closed later."""
    return (
        f"kept open for inspection (--keep-failing-records): {', '.join(kept)}; `wallet-conformance --cleanup` "
        "closes them"
    )
