"""What the proxy prints while it runs: a line the first time each requirement is broken on an operation, and a tally
every few seconds when it has changed. Everything printed is redacted."""

from __future__ import annotations

from typing import Any

from wallet_conformance.client.redaction import conceal
from wallet_conformance.judge.session import FindingTally
from wallet_conformance.reporting.verdicts import NOT_TESTED, Verdict
from wallet_conformance.spec.catalogue import catalogue

PREFIX = "wallet-conformance proxy:"


def first_break_lines(finding: FindingTally) -> list[str]:
    """The first break of a requirement on an operation: requirement and level, operation, the one-line reason, and
    the curl line that reproduces the request."""
    evidence = finding.evidence or {}
    level = catalogue()[finding.requirement].level if finding.requirement in catalogue().requirements else "?"
    reason = evidence.get("title", finding.rule)
    lines = [f"{PREFIX} BROKEN {finding.requirement} ({level}) on {finding.operation}: {reason}"]
    curl = (evidence.get("exchange") or {}).get("curl")
    if curl:
        lines.append(f"    {curl}")
    return [conceal(line) for line in lines]


def tally_line(report: dict[str, Any], facts: dict[str, Any]) -> str:
    """Exchanges forwarded and judged, requirements passed, failed and untested, what was dropped or not relayed."""
    counts = {verdict: sum(report["counts"][level][verdict] for level in report["counts"]) for verdict in Verdict}
    exchanges = report["run"]["exchanges"]
    line = (
        f"{PREFIX} {facts['forwarded']} forwarded, {exchanges.get('judged', 0)} judged, {facts['dropped']} "
        f"dropped; requirements {counts[Verdict.PASS]} passed, {counts[Verdict.FAIL]} failed, "
        f"{sum(counts[verdict] for verdict in NOT_TESTED)} untested"
    )
    relayed = [
        f"{facts[name]} {words}"
        for name, words in (
            ("unreachable", "unreachable (502)"),
            ("timed_out", "timed out (504)"),
            ("client_disconnects", "client disconnects"),
        )
        if facts.get(name)
    ]
    return line + (f"; {', '.join(relayed)}" if relayed else "")


class TallyLineNews:
    """The tally line, told when it says something new: not before the first exchange, never twice the same."""

    def __init__(self) -> None:
        self._last_line: str | None = None

    def news(self, report: dict[str, Any], facts: dict[str, Any]) -> str | None:
        """The tally line of `report` and `facts`, or None when there is nothing new to tell."""
        line = tally_line(report, facts)
        traffic = any(
            facts.get(name) for name in ("forwarded", "dropped", "unreachable", "timed_out", "client_disconnects")
        )
        if line == self._last_line or not traffic:
            return None
        self._last_line = line
        return line


def upstream_line(upstream: str, status: int | None, error: str | None = None) -> str:
    """The one line of the upstream's check at start: whether it answered (not fatal: clients are answered 502 while
    it does not)."""
    if status is not None:
        return f"{PREFIX} the upstream answered (HTTP {status} to GET {upstream})"
    return (
        f"{PREFIX} the upstream did not answer GET {upstream} ({error}); forwarding anyway: clients are answered "
        "502 while it does not"
    )
