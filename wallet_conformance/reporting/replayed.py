"""`wallet-conformance replay REPORT --test NODEID | --requirement ID`: a failure's replay, taken from a report of any
format (conformance.json, conformance.md, conformance.html, junit.xml, or a saved terminal log), run against a target
as a person would run it (bash), and whether the failure shows again: each answer that showed it in the run is
answered alike again (the same status; the same JSON but for the values a target assigns: identifiers, account
numbers, references, timestamps, of which only the form is compared: `vba-9` for `vba-00000011`)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wallet_conformance.client.replay import (
    ANSWERS_VARIABLE,
    BASE_VARIABLE,
    END,
    FUNDING_VARIABLE,
    TITLE,
    assigned,
    recorded_answers,
)

_SCRIPT = re.compile(
    "#!/usr/bin/env bash\n" + re.escape(TITLE) + r"(?P<test>.+?), which failed (?P<failed>[^\n]*)\n"
    r".*?" + re.escape(END) + "\n",
    re.S,
)
HEX = "<hex>"  # a hexadecimal identifier (a uuid, a database id), in a compared answer: no two runs agree on its digits
_HEX = re.compile(r"[0-9a-fA-F-]{12,}")
_NUMBER = re.compile(r"\d+")


class ReplayError(Exception):
    """The replay cannot be made: no such failure in the report, no bash or curl, a target that cannot be reached."""


@dataclass(frozen=True)
class Replay:
    """One failure's replay found in a report."""

    test: str
    failed: tuple[str, ...]
    script: str


@dataclass
class Outcome:
    """What a replay found: per step that showed the failure, how its answer differs now (empty: alike)."""

    replay: Replay
    output: str
    differences: dict[int, list[str]]
    unanswered: list[int]  # steps that showed the failure in the run and were not reached this time
    compared: int  # the steps whose answer's body was compared, not its status alone (a list's, a long one's)

    @property
    def shows_again(self) -> bool:
        """Whether every answer that showed the failure in the run was answered alike, a body among them."""
        return self.compared > 0 and not self.unanswered and not any(self.differences.values())

    @property
    def cannot_tell(self) -> bool:
        """Whether the answers were alike but none could be compared whole (a list, a long answer)."""
        return self.compared == 0 and not self.unanswered and not any(self.differences.values())


def replays_in(path: Path) -> list[Replay]:
    """Every replay a report holds, in the order it shows them (one per test, the first of its copies)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        scripts = [
            test["replay"]
            for entry in json.loads(text).get("requirements", ())
            for test in entry.get("tests", ())
            if test.get("replay")
        ]
    else:
        scripts = [match.group() for match in _SCRIPT.finditer(html.unescape(text))]
    found: dict[str, Replay] = {}
    for script in scripts:
        match = _SCRIPT.match(script)
        if match is not None and match.group("test") not in found:
            failed = tuple(word.strip() for word in match.group("failed").split(","))
            found[match.group("test")] = Replay(match.group("test"), failed, script)
    return list(found.values())


def reference_of(path: Path) -> dict[str, Any]:
    """The bundled reference a report's run had (faults, variants, settle delay): a conformance.json's `run`, else the
    one beside the report, else the faults and variants its reproduce command names; empty for another target."""
    beside = path if path.suffix.lower() == ".json" else path.with_name("conformance.json")
    if beside.is_file():
        return (json.loads(beside.read_text(encoding="utf-8")).get("run") or {}).get("reference") or {}
    text = html.unescape(path.read_text(encoding="utf-8"))
    return {
        "faults": list(dict.fromkeys(re.findall(r"--reference-fault[ =]([a-z0-9-]+)", text))),
        "variants": list(dict.fromkeys(re.findall(r"--reference-variant[ =]([a-z0-9-]+)", text))),
    }


def chosen(replays: list[Replay], test: str | None, requirement: str | None) -> Replay:
    """The replay of `test` (its node id, or its start), else the first of a test that failed `requirement`."""
    for replay in replays:
        if (test is not None and (replay.test == test or replay.test.startswith(test))) or (
            test is None and requirement is not None and requirement.upper() in replay.failed
        ):
            return replay
    asked = f"test {test}" if test is not None else f"requirement {requirement}"
    held = ", ".join(sorted({replay.test for replay in replays})[:5]) or "none"
    raise ReplayError(f"the report holds no replay of a failure of {asked} (its replays: {held})")


def run(replay: Replay, *, base_url: str, keys: dict[str, str], funding_url: str | None, timeout: float) -> Outcome:
    """Run the replay with bash against `base_url` (`keys`: each key's variable and value) and compare the answers of
    the steps that showed the failure with the recorded ones."""
    for tool in ("bash", "curl", "python3"):
        if shutil.which(tool) is None:
            raise ReplayError(f"a replay runs with bash, curl and python3: {tool} is not installed")
    with tempfile.TemporaryDirectory(prefix="replay-") as folder:
        env: dict[str, str] = {**os.environ, BASE_VARIABLE: base_url.rstrip("/"), **keys, ANSWERS_VARIABLE: folder}
        if funding_url:
            env[FUNDING_VARIABLE] = funding_url
        try:
            done = subprocess.run(
                ["bash", "-s"],
                input=replay.script,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ReplayError(f"the replay did not end within {timeout:g} s") from None
        answers = {
            int(path.stem): (
                path.read_text(encoding="utf-8"),
                (Path(folder) / f"{path.stem}.body").read_text(encoding="utf-8"),
            )
            for path in Path(folder).glob("*.status")
        }
    output = done.stdout + (f"\n{done.stderr}" if done.stderr else "")
    if not answers and done.returncode != 0:
        raise ReplayError(f"the replay stopped before its first answer: {done.stderr.strip()[-300:]}")
    differences: dict[int, list[str]] = {}
    unanswered = []
    recorded = recorded_answers(replay.script)
    compared = 0
    for step, (status, body) in recorded.items():
        if step not in answers:
            unanswered.append(step)
            continue
        now_status, now_body = answers[step]
        if body is not None and not comparable(body, now_body):
            body = None  # a list of another length: the account holds other records than in the run
        differences[step] = compare(status, body, int(now_status or 0), now_body)
        compared += body is not None
    return Outcome(replay, output, differences, unanswered, compared)


def comparable(body: str, now_body: str) -> bool:
    """Whether two answers can be compared entry by entry: not two lists of different lengths (or totals), which
    says the target holds other records than the run's account did (a list of wallets, of transactions), not that
    it answers otherwise."""
    try:
        then, now = json.loads(body), json.loads(now_body)
    except ValueError:
        return True
    if not (isinstance(then, dict) and isinstance(now, dict) and isinstance(then.get("data"), list)):
        return True
    total = [
        ((answer.get("meta") or {}).get("pagination") or {}).get("totalCount")
        if isinstance(answer.get("meta"), dict)
        else None
        for answer in (then, now)
    ]
    return isinstance(now.get("data"), list) and len(then["data"]) == len(now["data"]) and total[0] == total[1]


def compare(status: int, body: str | None, now_status: int, now_body: str) -> list[str]:
    """How an answer differs from the recorded one, but for the values a target assigns (`_assigned_masked`)."""
    if status != now_status:
        return [f"status {now_status}, where the run had {status}"]
    if body is None:
        return []
    try:
        recorded, now = json.loads(body), json.loads(now_body)
    except ValueError:
        return [] if body.strip() == now_body.strip() else ["the body differs"]
    then_leaves, now_leaves = dict(_leaves(_assigned_masked(recorded))), dict(_leaves(_assigned_masked(now)))
    differences = [
        f"{path}: {now_leaves.get(path, '(absent)')!r}, where the run had {value!r}"
        for path, value in then_leaves.items()
        if now_leaves.get(path, _ABSENT) != value
    ]
    differences += [
        f"{path}: {value!r}, absent in the run" for path, value in now_leaves.items() if path not in then_leaves
    ]
    return differences


_ABSENT = object()


def _assigned_masked(value: Any, key: str = "") -> Any:
    """A JSON value with each value a target assigns replaced by its form: a string that may be one (replay.assigned:
    an identifier, an account number, a reference, a timestamp) with each run of digits one 9, or HEX; a number named
    as an identifier (`id`, `_id`, `...Id`) by 9."""
    if isinstance(value, dict):
        return {name: _assigned_masked(inner, name) for name, inner in value.items()}
    if isinstance(value, list):
        return [_assigned_masked(inner, key) for inner in value]
    if isinstance(value, str) and assigned(value):
        return HEX if _HEX.fullmatch(value) else _NUMBER.sub("9", value)
    if isinstance(value, int) and not isinstance(value, bool) and _IDENTIFIER.search(key):
        return 9
    return value


_IDENTIFIER = re.compile(r"(?:^|_)id$|Id$")


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{index}]")
    else:
        yield path, value


def verdict_line(outcome: Outcome) -> str:
    """What a replay found, in one line (and the differences that say why, one per line)."""
    replay = outcome.replay
    what = f"{replay.test} ({', '.join(replay.failed)})"
    if outcome.shows_again:
        return (
            f"replay: the failure of {what} shows again: every answer that showed it in the run was answered "
            "alike (but for the values a target assigns)"
        )
    if outcome.cannot_tell:
        return (
            f"replay: cannot tell whether the failure of {what} shows again: its answers were alike, but only "
            "their status could be compared (a list, or an answer too long to keep)"
        )
    lines = [f"replay: the failure of {what} does not show again:"]
    lines += [f"  step {step}: not reached (the replay stopped before it)" for step in outcome.unanswered]
    lines += [
        f"  step {step}: {difference}"
        for step, differences in sorted(outcome.differences.items())
        for difference in differences[:5]
    ]
    return "\n".join(lines)
