"""What one phase (setup, call, teardown) of a conformance test tells the controlling process, as one typed record.

The process that runs the test (the only one, or an xdist worker) makes the record with the phase's report
(plugin/running.py) and attaches it to the report. In one process the controlling hooks read it from there; under
xdist it travels with the report through pytest's own report serialisation hooks, which xdist calls to send a
worker's report (`pytest_report_to_serializable`) and to make it again on the controller
(`pytest_report_from_serializable`): the record is written as plain data beside the report's own fields and read back
into the same types. The controller (plugin/recording.py, plugin/early_stop.py) reads nothing else of what a test
found; the report's `user_properties` keep only the test's requirement ids, for pytest's own --junitxml.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import pytest

from wallet_conformance.judge.classification import Classified
from wallet_conformance.judge.failures import SuiteError
from wallet_conformance.judge.session import FindingTally
from wallet_conformance.plugin.collection import requirement_ids
from wallet_conformance.reporting.endings import Stop

ATTRIBUTE = "wallet_conformance"  # the report's attribute holding the record, and its key in the serialised report
OBSERVATIONS = pytest.StashKey[list[dict[str, Any]]]()


@dataclass
class PhaseRecord:
    """What one phase of a conformance test found: the test's requirements, how its error counts, what it observed,
    the checks that held, the 429s it met, what the exchange judge found meanwhile, and whether the run stops after
    it."""

    requirements: tuple[str, ...]  # the ids the test declares
    error: Classified | None = None  # how the phase's error counts (failed checks, a refused step, a suite error)
    observations: list[dict[str, Any]] = field(default_factory=list)  # the call phase's: the test's observations
    held: dict[str, int] = field(default_factory=dict)  # the call phase's: the test's checks that held, by requirement
    rate_limited: list[dict[str, Any]] = field(default_factory=list)  # the call phase's: its 429 answers
    findings: list[FindingTally] = field(default_factory=list)  # the exchange judge's, since the last report
    # The record's lines of the exchanges judged since the last report (judge/session.py `exchange_line`).
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    stopped: Stop | None = None  # the run stops after this phase, and why

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data (dicts, lists, tuples, strings, numbers), as xdist sends it. The exchanges' lines,
        most of a record, go as one JSON text: execnet writes nested data item by item in Python, and json in C."""
        data = asdict(replace(self, exchanges=[]))
        data["exchanges"] = json.dumps(self.exchanges)
        data["stopped"] = None if self.stopped is None else self.stopped.to_dict()  # its outcome as a plain string
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PhaseRecord:
        """The record `to_dict` wrote, in its types again."""
        error = data.get("error")
        return cls(
            requirements=tuple(data["requirements"]),
            error=None
            if error is None
            else Classified(**{**error, "failed_requirements": tuple(error["failed_requirements"])}),
            observations=list(data.get("observations", ())),
            held=dict(data.get("held", {})),
            rate_limited=list(data.get("rate_limited", ())),
            findings=[FindingTally(**finding) for finding in data.get("findings", ())],
            exchanges=json.loads(data["exchanges"]),
            stopped=None if data.get("stopped") is None else Stop.from_dict(data["stopped"]),
        )


def attach(report: pytest.TestReport, record: PhaseRecord) -> None:
    setattr(report, ATTRIBUTE, record)


def of(report: pytest.TestReport) -> PhaseRecord | None:
    """The record a phase's report carries; None for a report of anything but a conformance test."""
    record = getattr(report, ATTRIBUTE, None)
    return record if isinstance(record, PhaseRecord) else None


def observe(item: pytest.Item, requirement: str, facts: dict[str, Any]) -> None:
    """Keep an observation of a requirement the test declares for the test's record (its call phase carries them);
    one of another requirement is the suite's error, as a check naming it would be."""
    declared = requirement_ids(item)
    if requirement not in declared:
        raise SuiteError(
            f"an observation names requirement {requirement!r}, which the test does not declare (it "
            f"declares {', '.join(declared) or 'none'})"
        )
    item.stash.setdefault(OBSERVATIONS, []).append({"requirement": requirement, **facts})


def observations(item: pytest.Item) -> list[dict[str, Any]]:
    """The observations the test made so far."""
    made: list[dict[str, Any]] = item.stash.get(OBSERVATIONS, [])
    return list(made)


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(report: Any) -> Generator[None, Any, Any]:
    """A worker's report as data: the record as plain data beside the report's own fields."""
    data = yield
    record = of(report) if isinstance(report, pytest.TestReport) else None
    if data is not None and record is not None:
        data[ATTRIBUTE] = record.to_dict()
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(data: dict[str, Any]) -> Generator[None, Any, Any]:
    """A worker's report on the controller: its record read back into its types."""
    report = yield
    written = data.get(ATTRIBUTE)
    if report is not None and isinstance(written, dict):
        setattr(report, ATTRIBUTE, PhaseRecord.from_dict(written))
    return report
