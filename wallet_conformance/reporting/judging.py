"""Reports of the judging core (judge/session.py), without pytest: a JudgingSession whose record of judgement is
folded, line by line as it is written, into conformance.json's content (reporting/from_record.Fold), then written in
every format.

    from wallet_conformance.client.har.httpx_response import from_httpx
    from wallet_conformance.reporting.judging import ReportingSession
    from wallet_conformance.reporting.verdicts import Verdict

    session = ReportingSession("https://staging.example.com/v1")
    for response in responses:                                   # httpx.Response objects, read
        session.judge(from_httpx(response, session.base_url))
    report = session.report()                                    # conformance.json's content
    print(report["outcome"]["verdict"], [e["id"] for e in report["requirements"] if e["verdict"] == Verdict.FAIL])
    session.write(Path("reports"))                               # conformance.json, .md, .html, junit.xml

`--har` is a ReportingSession over the recorded entries (reporting/recorded.py, plugin/passive.py); the proxy's
judging process is one over its live exchanges (proxy/side.py).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har import recorded_files
from wallet_conformance.client.har.stream import HarError
from wallet_conformance.client.redaction import Secrets, active
from wallet_conformance.judge.judgement import FILE_NAME
from wallet_conformance.judge.session import ExchangeResult, JudgingSession
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.conformance import run_inputs
from wallet_conformance.reporting.from_record import Fold, ending_line, run_line, write_record
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import Settings


class ReportingSession:
    """A JudgingSession (judge/session.py) of one target, its record opened with the run line of a session (mode,
    target, gate) and folded as it is written: the report of what was judged may be asked at any moment.

    A requirement a rule or an invariant stands for passes when some exchange was held to it and none broke it, and
    fails with the first exchange that broke it as evidence; the others are untested (they need an active run).
    `mode`, `gate`, `environment`, `seed`, `selected` and `run` are the run line's (reporting/from_record.py);
    `record`, `keep_lines`, `max_records` and `secrets` the JudgingSession's (`keep_lines=False` keeps no line in
    memory: a proxy judging for days folds them as they come)."""

    def __init__(
        self,
        base_url: str | None,
        files: list[str] | None = None,
        *,
        mode: str = "har",
        gate: gating.Gate | None = None,
        environment: str = "staging",
        seed: int = 0,
        selected: tuple[str, ...] = (),
        run: Mapping[str, Any] | None = None,
        record: Path | None = None,
        keep_lines: bool = True,
        max_records: int | None = None,
        secrets: Secrets | None = None,
    ) -> None:
        secrets = secrets if secrets is not None else active()
        self.started = time.time()
        self.fold = Fold()  # the reader of the session's record: every report is made from it
        shown = secrets.redact(base_url) if base_url else None
        opening = run_line(
            mode=mode,
            target={"base_url": shown},
            environment=environment,
            seed=seed,
            strict=(gate or gating.Gate()).strict,
            selected=selected,
            gate=gate or gating.Gate(traffic=True),
            run=run or {},
            traffic_files=files,
            traffic_base=shown,
            started=self.started,
        )
        self.judging = JudgingSession(
            base_url,
            opening,
            record=record,
            keep_lines=keep_lines,
            max_records=max_records,
            secrets=secrets,
            listeners=[self.fold.take],
        )

    @property
    def base_url(self) -> str | None:
        return self.judging.base_url

    def judge(self, exchange: Exchange | None, where: Mapping[str, Any] | None = None) -> ExchangeResult:
        """Judge one exchange (JudgingSession.judge)."""
        return self.judging.judge(exchange, where)

    def traffic(self) -> dict[str, Any]:
        """The report's `traffic` section so far: the exchanges seen and judged, by operation."""
        return self.fold.traffic.report()

    def report(
        self, *, run: Mapping[str, Any] | None = None, notes: list[str] | None = None, nothing_judged: str | None = None
    ) -> dict[str, Any]:
        """conformance.json's content for what was judged so far: every requirement's verdict, the outcome, the gate
        (`run`, `notes`, `nothing_judged`: the ending's, as `finish` would write it)."""
        return self.fold.report(ending=self._ending(run, notes, nothing_judged))

    def finish(
        self, *, run: Mapping[str, Any] | None = None, notes: list[str] | None = None, nothing_judged: str | None = None
    ) -> dict[str, Any]:
        """The record's last line written, and the report of the whole."""
        self.judging.finish(self._ending(run, notes, nothing_judged))
        return self.fold.report()

    def write(self, directory: Path, report: dict[str, Any] | None = None) -> list[Path]:
        """Write every report of the session (or of `report`) into `directory`, and the record of judgement kept in
        memory when the session writes none of its own."""
        written = write_all(report or self.report(), directory)
        if self.judging.judgement.path is None:
            written.append(write_record(self.judging.lines, directory))
        return written

    def _ending(
        self, run: Mapping[str, Any] | None, notes: list[str] | None, nothing_judged: str | None
    ) -> dict[str, Any]:
        return ending_line(time.time() - self.started, run=run, notes=notes, nothing_judged=nothing_judged)


def recorded_base_url(settings: Settings) -> str | None:
    """The target's base address in recorded traffic: --base-url, else the one `/v1` origin of the entries (None when
    they have none: nothing is judged); a HarError when they have several (and when a file is not a HAR)."""
    found = recorded_files.bases(settings.har)
    if settings.base_url:
        return settings.base_url
    if len(found) <= 1:
        return next(iter(found), None)
    listing = ", ".join(f"{base} ({count} entries)" for base, count in sorted(found.items()))
    raise HarError(
        f"the recorded entries are under more than one base address: {listing}; choose the target's with --base-url"
    )


def recorded_session(
    settings: Settings, gate: gating.Gate, base_url: str | None = None, record: Path | None = None
) -> ReportingSession:
    """The recorded exchanges of --har judged in one session, as the target at `base_url` (`recorded_base_url`'s,
    found here when not given), its record written to `record` when given. Every file is read through once before
    any is judged: a file that is not a HAR stops the run (HarError) before anything is reported."""
    base_url = base_url or recorded_base_url(settings)
    session = ReportingSession(
        base_url,
        [str(path) for path in settings.har],
        gate=gate,
        environment=settings.environment,
        seed=settings.seed,
        selected=settings.requirements,
        run={"profile": settings.profile, **run_inputs(settings)},
        record=record,
    )
    for recorded in recorded_files.recorded(settings.har, session.base_url):
        session.judge(
            recorded.exchange, {"file": str(recorded.file), "entry": recorded.index, "request": recorded.request}
        )
    return session


def recorded_report(settings: Settings, gate: gating.Gate, base_url: str | None = None) -> dict[str, Any]:
    """--har's report, as the plugin writes it for the same files and options (`base_url`: as `recorded_session`)."""
    return recorded_session(settings, gate, base_url, settings.report_dir / FILE_NAME).finish()
