"""What the proxy's reports say of the proxy itself, besides what it judged: its counts as notes of the traffic
table, and why nothing was judged when that is the outcome. Made in the judging process, from the proxy's facts, into
the record's ending line (reporting/from_record.py `ending_line`)."""

from __future__ import annotations

from typing import Any


def notes(facts: dict[str, Any]) -> list[str]:
    """The lines the reports show of the proxy besides the traffic table."""
    lines = [
        f"live traffic through the proxy: {facts['forwarded']} exchanges forwarded and relayed whole; "
        f"{facts['dropped']} not judged because the judge was behind (dropped)"
    ]
    relayed = [
        f"{facts[name]} {words}"
        for name, words in (
            ("unreachable", "answered 502 (upstream unreachable)"),
            ("timed_out", "answered 504 (upstream timed out)"),
            ("client_disconnects", "left by their client mid-request"),
            ("cut_upstream", "cut off by the upstream"),
            ("refused", "answered 400 by the proxy, not forwarded (not a path of the API, or framed two ways)"),
            ("client_timeouts", "answered 408 (the client's body did not come within --client-timeout)"),
            ("stopped_not_sent", "answered 503, not forwarded: the proxy was stopped at once (a second signal)"),
            (
                "stopped_sent",
                "sent upstream but not relayed whole: the proxy was stopped at once (a second signal); the "
                "upstream may have acted on them",
            ),
            ("not_annotated", "relayed without --annotate's header: the judge was gone or failed on them"),
        )
        if facts[name]
    ]
    if relayed:
        lines.append("not judged, never charged to a requirement: " + "; ".join(relayed))
    if facts.get("client_stalls"):
        lines.append(
            f"client connections aborted because their client took no byte of its answer for --client-timeout: "
            f"{facts['client_stalls']} (a request under way in one is counted as left by its client)"
        )
    if facts.get("keys_not_learnt"):
        lines.append(
            f"keys the traffic carried: {facts['keys_learnt']} learnt (redacted wherever they appear), "
            f"{facts['keys_not_learnt']} not (not of a key's form, or past the bound): their headers are "
            "redacted by name"
        )
    if facts.get("recording_stopped"):
        lines.append(facts["recording_stopped"])
    forgotten = {name: count for name, count in facts["forgotten"].items() if count}
    lines.append(
        f"registry of records: at most {facts['registry_bound']:,} entries per table; forgotten "
        + (", ".join(f"{count:,} {name}" for name, count in forgotten.items()) if forgotten else "none")
    )
    return lines


def nothing_judged(facts: dict[str, Any], traffic: dict[str, Any]) -> str:
    """Why the proxy's traffic gave no MUST verdict, in one sentence."""
    if not facts["forwarded"] and facts.get("stopped_sent"):
        return (
            f"the proxy was stopped at once (a second signal) with {facts['stopped_sent']} request(s) sent "
            "upstream whose answers it had not relayed, and no exchange relayed whole"
        )
    if not facts["forwarded"]:
        return "the proxy forwarded no exchange (no client sent traffic through it, or the upstream never answered)"
    judged = sum(row["judged"] for row in traffic["operations"].values())
    if not judged:
        return f"no exchange forwarded to {traffic['base_url']} was an operation of the document with a whole answer"
    return f"{judged} exchange(s) were judged, but none by a rule of a MUST requirement"
