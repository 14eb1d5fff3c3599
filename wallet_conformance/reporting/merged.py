"""`merge`: the records of judgement of several runs (proxies beside each instance, --har runs, active runs) as one
report. The records are concatenated, each run once, and folded as any run's record is (reporting/from_record.py):
a requirement broken in one run fails; one held to in some and broken in none passes; the judges' counts (the
exchanges that broke a rule, those held to it, the traffic table) add up exchange by exchange. Runs that each chose
part of the suite merge into a selection (what none chose is not selected); runs of different targets (base URLs, or
the bundled reference with other faults or variants) never conform together.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wallet_conformance.judge.judgement import FILE_NAME, JudgementError, read, runs
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.conformance import FILE_NAME as REPORT_FILE_NAME
from wallet_conformance.reporting.conformance import judged_against
from wallet_conformance.reporting.from_record import NOT_CLAIMED, build_report

__all__ = ["NOT_CLAIMED", "MergeError", "lines_of", "load", "merge"]


class MergeError(Exception):
    """A file that cannot be merged: no record of judgement, of another catalogue or another version of the suite than
    the others, or given twice; one message naming it."""


def record_path(given: Path) -> Path:
    """Where the record of a REPORT argument is: the file itself, a report folder's, or the one beside a
    conformance.json."""
    if given.is_dir():
        return given / FILE_NAME
    if given.name == REPORT_FILE_NAME:
        return given.with_name(FILE_NAME)
    return given


def load(paths: Iterable[Path]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each run of the records the paths name, with its name in the merged report (the path given; with the run's
    number when a record holds several), each run given once: the same file twice, or the same run in two files,
    would count every exchange and test twice."""
    loaded: list[tuple[str, list[dict[str, Any]]]] = []
    files: dict[Path, Path] = {}
    run_ids: dict[str, Path] = {}
    catalogue_hash = judged_against()["requirements.yaml"]
    judged_by: tuple[str, Any, Path] | None = None  # the first run's suite version and files judged against
    for given in paths:
        path = record_path(given)
        if not path.is_file():
            where = f" (no {FILE_NAME} beside it)" if path != given else ""
            raise MergeError(
                f"{given}: not a record of judgement{where}; give each run's {FILE_NAME}, its report "
                "folder or its conformance.json (written beside it since suite 0.3.0)"
            )
        if path.resolve() in files:
            raise MergeError(
                f"{given} is the same file as {files[path.resolve()]}: a run merged twice counts twice; give each once"
            )
        files[path.resolve()] = given
        try:
            found = runs(read(path))
        except JudgementError as error:
            raise MergeError(str(error)) from None
        for number, lines in enumerate(found, 1):
            first = lines[0]
            if first["judged_against"].get("requirements.yaml") != catalogue_hash:
                raise MergeError(f"{given}: judged against another requirements.yaml; merge runs of one catalogue")
            if judged_by is None:
                judged_by = (first["suite_version"], first["judged_against"], given)
            elif (first["suite_version"], first["judged_against"]) != judged_by[:2]:
                raise MergeError(
                    f"{given} was judged by suite {first['suite_version']}, {judged_by[2]} by suite {judged_by[0]} "
                    "(or against other files): their verdicts cannot be added up; merge runs of one version"
                )
            if first["run_id"] in run_ids:
                raise MergeError(
                    f"{given} is the same run as {run_ids[first['run_id']]} (run id {first['run_id']}): a "
                    "run merged twice counts twice; give each once"
                )
            run_ids[first["run_id"]] = given
            loaded.append((str(given) if len(found) == 1 else f"{given} (run {number})", lines))
    return loaded


def merge(loaded: list[tuple[str, list[dict[str, Any]]]], gate: gating.Gate | None = None) -> dict[str, Any]:
    """One report of the runs `load` gave, judged again under `gate`."""
    return build_report(lines_of(loaded), gate, [name for name, _ in loaded])


def lines_of(loaded: list[tuple[str, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """The merged record: the runs' lines one after the other."""
    return [line for _, lines in loaded for line in lines]
