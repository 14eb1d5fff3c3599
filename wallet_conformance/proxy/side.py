"""Judging on the side: the exchanges the proxy forwarded, judged by the exchange judge and held to the registry of
records (judge/session.py's JudgingSession, as `--har` judges them) in a process of its own. A thread of the proxy
hands them over through a pipe, every exchange that waited while the judge was busy in one message (BATCH at most),
so that under load the judge's time goes to judging rather than to reading the pipe; what waits is bounded (QUEUE
exchanges, QUEUE_BYTES of bodies). Its record of judgement is written as it judges and folded as it is written
(reporting/judging.py's ReportingSession): the reports and the live tally are read from those lines, never from the
session's state.

The judging process yields the CPU to everything else on the machine (Linux's SCHED_IDLE policy; elsewhere the
lowest nice value), so that under load it is the judge that falls behind, never the traffic: past the bound of what
waits, the proxy drops the exchange and counts it. With --annotate the judge is in the path of every answer, and runs
at the usual priority.

Everything the judging process prints or writes is redacted there, with the proxy's keys and those it learns from
the traffic (the session's secrets, also the process's active ones: the keys the traffic teaches are learnt there);
the keys reach it through the pipe that starts it, never a file or a command line."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from wallet_conformance.client.har.url_matching import in_target
from wallet_conformance.client.redaction import Secrets, activate, active, redact
from wallet_conformance.proxy import live
from wallet_conformance.proxy.captured import Captured
from wallet_conformance.proxy.recording import RotatingHar
from wallet_conformance.proxy.report_notes import notes, nothing_judged
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.judging import ReportingSession
from wallet_conformance.settings.program import GC_THRESHOLDS

QUEUE = 10_000  # exchanges waiting for the judge, at most; beyond, they are dropped (counted)
QUEUE_BYTES = 64 * 1024 * 1024  # and their bodies' bytes at most (a body is kept up to 256 KiB each way)
BATCH = 64  # exchanges handed to the judge in one message, at most
SOURCE = "live traffic"  # how a finding's first_seen_in names the proxy's traffic: "live traffic entry 41"
ENDING = 30.0  # seconds the judging process may take to finish, or to end, once told to
ANNOTATING = 10.0  # seconds --annotate waits for one exchange's verdict; past them the judge is ended (it is stuck)
LOOKING = 0.5  # seconds between two looks at whether the judging process is alive, while it has not answered


class JudgeGone(RuntimeError):
    """The judging process ended before it was told to."""


@dataclass(frozen=True)
class Opening:
    """What the record's run line says of the proxy: its gate, environment and inputs (reporting/from_record.py)."""

    gate: gating.Gate
    environment: str
    run: dict[str, Any]


def _context() -> multiprocessing.context.ForkServerContext | multiprocessing.context.SpawnContext:
    """Forkserver where the platform has it: each judging process is forked from a server that imported the judge
    once, and never from the proxy's own threads. Elsewhere, spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        return context
    return multiprocessing.get_context("spawn")


class SideJudge:
    """The proxy's end of one judging process. `offer` hands it an exchange without waiting; `on_first_breaks`
    receives the live lines of each requirement and operation the first time an exchange breaks it; with
    `record_har`, the judged exchanges are written there (rotated past `har_max_bytes`)."""

    def __init__(
        self,
        upstream: str,
        max_records: int,
        record: Path,
        opening: Opening,
        on_first_breaks: Callable[[list[str]], None] | None = None,
        record_har: Path | None = None,
        har_max_bytes: int = 0,
        size: int = QUEUE,
        in_the_path: bool = False,
    ) -> None:
        context = _context()
        self.record = record  # the record of judgement, written by the judging process as it judges
        self.dropped = 0  # exchanges not judged: too many waited, or the proxy stopped before their turn
        self.offered = 0  # exchanges taken to be judged
        self._offered_bytes = 0
        self._size = size
        self._waiting: deque[Captured | None] = deque()  # offered, not yet handed over (None: the end)
        self._handing = threading.Condition()  # guards the counts above and the list; wakes the feeding thread
        self._ending = False  # the end was put on the list: nothing more is taken
        their_exchanges, self._exchanges = context.Pipe(duplex=False)
        self._taken = context.Value("q", 0, lock=False)  # bytes of the bodies the judge took off the pipe
        self._done = context.Value("q", 0, lock=False)  # exchanges the judge has finished with
        self._control, their_control = context.Pipe()
        lines, their_lines = context.Pipe(duplex=False)
        self._asking = threading.Lock()  # one request and its answer at a time on the control pipe
        self._final: dict[str, Any] | None = None  # the judge's facts once it has finished
        self._gone: str | None = None  # why the judge no longer answers
        self._process = context.Process(
            target=_judging,
            name="proxy-judge",
            daemon=True,
            args=(
                their_exchanges,
                self._taken,
                self._done,
                their_control,
                their_lines,
                upstream,
                max_records,
                active(),
                record,
                opening,
                record_har,
                har_max_bytes,
                not in_the_path,
            ),
        )
        self._process.start()
        their_exchanges.close()
        their_control.close()
        their_lines.close()
        self._feeder = threading.Thread(target=self._feed, name="proxy-judge-feed", daemon=True)
        self._feeder.start()
        self._listener = threading.Thread(
            target=_listen, args=(lines, on_first_breaks), name="proxy-judge-lines", daemon=True
        )
        self._listener.start()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    @property
    def done(self) -> int:
        """Exchanges the judge has finished with."""
        return self._done.value

    def waiting(self) -> int:
        """Exchanges offered and not yet judged."""
        return 0 if self._final is not None else self.offered - self.done

    def offer(self, captured: Captured) -> None:
        """Hand one exchange over without waiting: dropped (counted) when the judge is that far behind (`size`
        exchanges, or QUEUE_BYTES of bodies, offered and not yet judged)."""
        size = len(captured.request_body) + len(captured.response_body)
        with self._handing:
            if (
                self._ending
                or self.offered - self.done >= self._size
                or self._offered_bytes - self._taken.value + size > QUEUE_BYTES
            ):
                self.dropped += 1
                return
            self._waiting.append(captured)
            self.offered += 1
            self._offered_bytes += size
            self._handing.notify()

    def _feed(self) -> None:
        """The proxy's thread that hands the waiting exchanges to the judge, all that waited at once (BATCH at most),
        until the end is handed over or the judge is gone."""
        while True:
            with self._handing:
                while not self._waiting:
                    self._handing.wait()
                batch = [self._waiting.popleft() for _ in range(min(BATCH, len(self._waiting)))]
            try:
                self._exchanges.send(batch)
            except (OSError, ValueError):  # the judge ended, or the pipe was closed as the proxy stops
                return
            if batch[-1] is None:
                return

    def broken_by(self, captured: Captured) -> list[str]:
        """Judge one exchange now (--annotate); the requirements it broke, in id order. A judge that does not answer
        within ANNOTATING seconds is ended (JudgeGone): every answer waits on it."""
        return self._ask("broken_by", captured, within=ANNOTATING)

    def report(self, facts: dict[str, Any]) -> dict[str, Any]:
        """conformance.json's content for what was judged so far, with the proxy's `facts`."""
        return self._ask("report", facts)

    def conclude(self, facts: dict[str, Any]) -> dict[str, Any]:
        """After `finish`: the record's ending written, with the proxy's `facts`; the report of all it judged."""
        return self._ask("conclude", facts, within=ENDING)

    def facts(self) -> dict[str, Any]:
        """The registry's bound and what it forgot, what was dropped, and the HAR's rotations (for the report)."""
        found = self._final if self._final is not None else self._ask("facts")
        return {"dropped": self.dropped, **found}

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Judging paused while the block runs (exchanges wait, and past the bound of what waits are dropped)."""
        self._ask("hold")
        try:
            yield
        finally:
            self._ask("release")

    def finish(self, wait: float) -> None:
        """Stop taking exchanges; judge those waiting for up to `wait` seconds (the rest are counted dropped), and
        close the HAR. The judge still answers `report` until `close`."""
        if self._final is not None:
            return
        if self._process.pid is not None:  # the traffic has stopped: the judge's turn, where the platform allows it
            with contextlib.suppress(AttributeError, OSError):
                os.sched_setscheduler(self._process.pid, os.SCHED_OTHER, os.sched_param(0))
        deadline = time.monotonic() + wait
        with self._handing:
            if not self._ending:
                self._ending = True
                self._waiting.append(None)
                self._handing.notify()
        while self.done < self.offered and time.monotonic() < deadline and self._process.is_alive():
            time.sleep(0.01)
        self._final = self._ask("finish", within=ENDING)
        with self._handing:
            self.dropped += self.offered - self.done

    def close(self) -> None:
        """End the judging process (after `finish`, which this calls if it was not)."""
        with contextlib.suppress(JudgeGone):
            self.finish(0)
            self._ask("close", within=ENDING)
        self._process.join(timeout=ENDING)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._control.close()
        self._feeder.join(timeout=1)  # it ends on handing the end over, or on the pipe the judge no longer reads
        self._exchanges.close()  # what the judge never took is dropped (counted by `finish`)
        self._listener.join(timeout=1)

    def _ask(self, request: str, *arguments: Any, within: float | None = None) -> Any:
        """The judge's answer to one request. It may take what the spare CPU allows (the judge's priority is idle);
        given `within` seconds and not answered by then, the judge is ended (an answer given up on would otherwise be
        read as the next request's)."""
        with self._asking:
            deadline = None if within is None else time.monotonic() + within  # from the asking, not the queueing
            if self._gone is not None:
                raise JudgeGone(self._gone)
            try:
                self._control.send((request, arguments))
                while not self._control.poll(LOOKING):
                    if not self._process.is_alive():
                        raise EOFError
                    if deadline is not None and time.monotonic() > deadline:
                        self._process.kill()
                        self._gone = (
                            f"the proxy's judging process did not answer {request!r} within {within:g} s, and was ended"
                        )
                        raise JudgeGone(self._gone)
                answer, failure = self._control.recv()
            except (EOFError, OSError):
                self._gone = f"the proxy's judging process ended (exit code {self._process.exitcode})"
                raise JudgeGone(self._gone) from None
        if failure is not None:
            raise JudgeGone(f"the proxy's judging process failed on {request!r}: {failure}")
        return answer


def _listen(lines: Connection, on_first_breaks: Callable[[list[str]], None] | None) -> None:
    """The proxy's thread that prints the judge's live lines as they come."""
    while True:
        try:
            got = lines.recv()
        except (EOFError, OSError):
            return
        if on_first_breaks is not None:
            on_first_breaks(got)


# ------------------------------------------------------------------ the judging process


def _yield_the_cpu() -> None:
    """Run only when nothing else on the machine wants the CPU (as far as the platform allows)."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        with contextlib.suppress(AttributeError, OSError):
            os.nice(19)


def _judging(
    exchanges: Connection,
    taken: Any,
    done: Any,
    control: Connection,
    lines: Connection,
    upstream: str,
    max_records: int,
    secrets: Secrets,
    record: Path,
    opening: Opening,
    record_har: Path | None,
    har_max_bytes: int,
    yields: bool,
) -> None:
    """The judging process: exchanges off the pipe, judged in order in its main thread; the proxy's requests
    answered in another, between two exchanges."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the proxy, which then finishes this judge
    if yields:
        _yield_the_cpu()
    activate(secrets)
    judging = _Judging(
        upstream,
        max_records,
        lines,
        RotatingHar(record_har, har_max_bytes) if record_har else None,
        record,
        opening,
        secrets,
    )
    gc.freeze()  # the judge's modules and its session: out of the collector's walks, as in a run's processes
    gc.set_threshold(*GC_THRESHOLDS)
    answering = threading.Thread(target=judging.answer, args=(control,), name="proxy-judge-control", daemon=True)
    answering.start()
    try:
        _judge_all(exchanges, taken, done, judging)
    except Exception:  # the suite's own bug: the proxy reports the judge gone (exit 6), never a verdict
        print(redact(traceback.format_exc()), file=sys.stderr, flush=True)
        os._exit(1)
    answering.join()  # the process ends when the proxy says close (or goes away)


def _judge_all(exchanges: Connection, taken: Any, done: Any, judging: _Judging) -> None:
    """Judge the exchanges the proxy hands over, in order, until it hands over the end, says finish, or goes away."""
    while not judging.finished.is_set():
        try:
            batch = exchanges.recv()
        except EOFError:  # the proxy went away: its control pipe ends the process
            return
        for captured in batch:
            if captured is None:
                return
            taken.value += len(captured.request_body) + len(captured.response_body)
            with judging.lock:
                if judging.finished.is_set():
                    return
                judging.take(captured)
                done.value += 1


class _Judging:
    """One session judging the proxy's exchanges, in the judging process."""

    def __init__(
        self,
        upstream: str,
        max_records: int,
        lines: Connection,
        recording: RotatingHar | None,
        record: Path,
        opening: Opening,
        secrets: Secrets | None = None,
    ) -> None:
        self.session = ReportingSession(
            upstream,
            mode="proxy",
            gate=opening.gate,
            environment=opening.environment,
            run=opening.run,
            record=record,
            keep_lines=False,
            max_records=max_records,
            secrets=secrets,
        )
        self.lock = threading.RLock()  # the session's state: one exchange, or one request, at a time
        self.finished = threading.Event()  # no more exchanges are taken
        self.entries = 0  # exchanges taken by the judge
        self._lines = lines
        self._recording = recording
        self.recording_stopped: str | None = None  # why --record-har stopped, when it did

    def answer(self, control: Connection) -> None:
        """Answer the proxy's requests until it says close, or goes away; then end the process (its main thread may
        be waiting on the pipe)."""
        while True:
            try:
                request, arguments = control.recv()
            except (EOFError, OSError):
                os._exit(0)
            try:
                control.send((self._answer(request, arguments), None))
            except Exception as error:  # the proxy raises it as JudgeGone, with this text
                control.send((None, redact(f"{type(error).__name__}: {error}")))
            if request == "close":
                os._exit(0)

    def _answer(self, request: str, arguments: tuple[Any, ...]) -> Any:
        if request == "hold":
            self.lock.acquire()
            return None
        if request == "release":
            self.lock.release()
            return None
        if request == "close":
            return None
        with self.lock:
            if request == "broken_by":
                return self.broken_by(*arguments)
            if request in ("report", "conclude"):
                (facts,) = arguments
                tell = self.session.report if request == "report" else self.session.finish
                return tell(
                    run={"proxy": facts},
                    notes=notes(facts),
                    nothing_judged=nothing_judged(facts, self.session.traffic()),
                )
            if request == "finish":
                self.finished.set()
                if self._recording is not None:
                    self._recording.close()
            if request in ("facts", "finish"):
                return self.facts()
        raise ValueError(f"no such request: {request!r}")

    def facts(self) -> dict[str, Any]:
        secrets = self.session.judging.secrets
        return {
            **self.session.judging.registry_facts(),
            "keys_learnt": secrets.learnt,
            "keys_not_learnt": secrets.not_learnt,
            **({"har_rotations": self._recording.rotations} if self._recording else {}),
            **({"recording_stopped": self.recording_stopped} if self.recording_stopped else {}),
        }

    def broken_by(self, captured: Captured) -> list[str]:
        """Judge one exchange (--annotate); the requirements it broke, in id order."""
        return self.take(captured)

    def take(self, captured: Captured) -> list[str]:
        """Judge one exchange, and record it; the requirements it broke, in id order. Nothing one exchange holds can
        end the judging: an exchange the judge fails on (a body nested deeper than a parser goes, any bug of the
        suite) is counted as one it could not judge, with the first such error, in the report; a recording that
        cannot be written (a full disk) stops, and the report says why."""
        self.entries += 1
        base = self.session.base_url or ""
        try:
            exchange = captured.exchange(base) if in_target(captured.url, base) else None
            if exchange is not None:
                exchange.started = captured.started
            result = self.session.judge(
                exchange,
                {
                    "file": SOURCE,
                    "entry": self.entries,
                    "request": f"{exchange.method} {exchange.url}" if exchange else f"{captured.method} {captured.url}",
                },
            )
        except Exception as error:  # this exchange alone: the judging goes on
            self.session.judging.failed_on(f"{captured.method} {captured.url}", error)
            return []
        if exchange is not None and self._recording is not None:
            try:
                self._recording.add(exchange)
            except OSError as error:
                self.recording_stopped = redact(f"the recording stopped at exchange {self.entries}: {error}")
                with contextlib.suppress(OSError):
                    self._recording.close()
                self._recording = None
        for finding in result.first_findings:
            self._lines.send(live.first_break_lines(finding))
        return sorted(result.broke)
