"""The record of judgement: what a run judged, as JSON Lines (`judgement.jsonl`), the one source of every report.

Every mode writes it: the active run, `--har`, the proxy (line by line as it judges, so that a log collector can
read it live) and `merge`. Each line is one object with a `kind` (schemas/judgement-line.json describes them):

- `run`: the first line of a run: its id, the mode, the suite's version, what it was judged against, its target, its
  settings (redacted), its gate;
- `phase`: one phase (setup, call, teardown) of a test: the requirements it declares, how it ended, the checks that
  held, what it observed, and how its error counts (failed checks with their evidence, a refused setup step, a
  suite error);
- `exchange`: one exchange judged: its operation, request line and status, the requirements it was held to and
  those it broke, or the error the judge could not judge it for;
- `finding`: a requirement one operation's exchanges broke, as a judge counted it, with the first such exchange as
  evidence;
- `ending`: how the run ended: its duration, why it stopped when it did not complete, the selection it made, the
  429 answers it met.

A merged record is the records of several runs one after the other, each with its own `run` line. The lines are
plain data, redacted and with personal data masked as the reports are; the bodies they carry (evidence) are capped
where the evidence is made.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from wallet_conformance.client.redaction import Secrets, conceal
from wallet_conformance.judge.classification import Classified

FORMAT = "wallet-conformance-judgement/1"
FILE_NAME = "judgement.jsonl"
KINDS = ("run", "phase", "exchange", "finding", "ending")


class JudgementError(Exception):
    """A file that is not a record of judgement of this format; the message names it."""


def new_run_id() -> str:
    return uuid.uuid4().hex


class Judgement:
    """A record being written: each line kept, and written to `path` as it comes when one is given (flushed, so a
    reader sees every whole line), and handed to each of `listeners` as a reader of the file will read it (the report
    folds them: reporting/from_record.py). Lines are kept in memory only with `keep`: a proxy that judges for days
    folds its lines as they come and keeps none. Each line is redacted and masked with `secrets` (None: the process's
    active ones, at each line)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        keep: bool = True,
        secrets: Secrets | None = None,
        listeners: Iterable[Callable[[dict[str, Any]], None]] = (),
    ) -> None:
        self.path = path
        self.lines: list[dict[str, Any]] = []
        self._keep = keep
        self._secrets = secrets
        self._listeners = list(listeners)
        self._file: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("w", encoding="utf-8")

    def add(self, line: dict[str, Any], *, plain: bool = False) -> dict[str, Any]:
        """Add one line (its `kind` among KINDS); the line as a reader of the file will read it. `plain`: the line
        holds only JSON's own types (dicts with string keys, lists, strings, numbers, booleans, None), so where
        redacting and masking leave its text as it is, a reader reads the line itself and it is not read back."""
        assert line.get("kind") in KINDS, line.get("kind")
        encoded = json.dumps(line, sort_keys=False)
        text = conceal(encoded) if self._secrets is None else self._secrets.conceal(encoded)
        written: dict[str, Any] = line if plain and text == encoded else json.loads(text)
        if self._keep:
            self.lines.append(written)
        if self._file is not None:
            self._file.write(text + "\n")
            self._file.flush()
        for listener in self._listeners:
            listener(written)
        return written

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def phase_line(
    nodeid: str,
    when: str,
    requirements: Iterable[str],
    *,
    outcome: str,
    duration: float,
    message: str | None,
    error: Classified | None,
    observations: list[dict[str, Any]],
    held: Mapping[str, int],
    rate_limited: list[dict[str, Any]],
) -> dict[str, Any]:
    """One phase of a test as the record keeps it: `outcome` is pytest's for the phase (passed, failed, skipped)."""
    return {
        "kind": "phase",
        "nodeid": nodeid,
        "when": when,
        "requirements": list(requirements),
        "outcome": outcome,
        "duration": duration,
        "message": message,
        "error": None if error is None else dataclasses.asdict(error),
        "observations": observations,
        "held": dict(held),
        "rate_limited": rate_limited,
    }


def read(path: Path) -> list[dict[str, Any]]:
    """The lines of a record file, checked to be of this format (its first line a `run` of FORMAT). A last line cut
    short (a run killed while writing it) is left out; any other line that is not one of a record is an error."""
    try:
        texts = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise JudgementError(f"{path}: cannot be read ({getattr(error, 'strerror', None) or error})") from None
    lines: list[dict[str, Any]] = []
    for number, text in enumerate(texts, 1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except ValueError:
            if number == len(texts) and lines:  # the last line, cut short: the file ends without its newline
                break
            line = None
        if not lines and not (isinstance(line, dict) and line.get("kind") == "run" and line.get("format") == FORMAT):
            raise JudgementError(f"{path}: not a record of judgement ({FORMAT}): its first line is no `run` line of it")
        if not isinstance(line, dict) or line.get("kind") not in KINDS:
            raise JudgementError(f"{path}: line {number} is no line of a record of judgement ({FORMAT})")
        lines.append(line)
    if not lines:
        raise JudgementError(f"{path}: not a record of judgement ({FORMAT}): it is empty")
    return lines


def runs(lines: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The lines of each run of a record (one for a run's own record, several for a merged one)."""
    found: list[list[dict[str, Any]]] = []
    for line in lines:
        if line["kind"] == "run" or not found:
            found.append([])
        found[-1].append(line)
    return found
