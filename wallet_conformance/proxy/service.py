"""The proxy as one object: the forwarding app served by uvicorn, the side judge (a process of its own, which also
keeps --record-har), the live lines and the reports. `serve()` runs it in the calling (main) thread until SIGINT or
SIGTERM; `start()` in a thread of its own (the self-tests, the benchmark)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import uvicorn

from wallet_conformance.client.redaction import redact
from wallet_conformance.client.tls import tls_verification
from wallet_conformance.judge.judgement import FILE_NAME
from wallet_conformance.proxy import live
from wallet_conformance.proxy.captured import Captured
from wallet_conformance.proxy.forwarding import AnswerCut, Forwarder
from wallet_conformance.proxy.serving import Bounds, bounded
from wallet_conformance.proxy.side import QUEUE, JudgeGone, Opening, SideJudge
from wallet_conformance.proxy.upstream import Upstream
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.settings import Settings, default

START_TIMEOUT = 10.0  # seconds the server may take to listen
DRAIN = 5.0  # seconds the judge may take, when the proxy stops, for the exchanges still waiting
UPSTREAM_LOOK = 5.0  # seconds the upstream has, at start, to answer the proxy's one look (at most --request-timeout)
MEGABYTE = 1_000_000  # --har-max-size's unit


@dataclass
class ProxyConfig:
    """What a proxy needs: where it forwards and listens, its time bound and TLS, what it prints and writes."""

    upstream: str
    listen: tuple[str, int] = ("127.0.0.1", 8080)
    request_timeout: float = default("--request-timeout")
    ca_bundle: str | None = None
    annotate: bool = False
    max_records: int = default("--max-records")
    client_timeout: float = default("--client-timeout")
    max_header_size: int = default("--max-header-size")
    max_connections: int = default("--max-connections")
    tally_every: float | None = None  # None: no tally printed
    report_every: float | None = None
    report_dir: Path | None = None  # None: reports only when asked (`report()`)
    record_har: Path | None = None
    har_max_bytes: int = int(default("--har-max-size") * MEGABYTE)
    gate: gating.Gate = field(default_factory=lambda: gating.Gate(traffic=True))
    environment: str = default("--environment")
    run: dict[str, Any] = field(default_factory=dict)  # the run's inputs (reproduce, files) for the report
    say: Callable[[str], None] | None = None  # where live lines go (None: nowhere)
    queue_size: int = QUEUE  # exchanges waiting for the judge, at most

    @classmethod
    def of(cls, settings: Settings, gate: gating.Gate, run: dict[str, Any]) -> ProxyConfig:
        """The configuration of `wallet-conformance proxy` from its Settings: each field they hold by its name,
        --upstream (their base_url) and --har-max-size in bytes; the gate and the report's inputs besides."""
        if settings.base_url is None or settings.listen is None:
            raise ValueError("not a proxy's Settings: read(..., command=PROXY) gives them --upstream and --listen")
        held = {each.name for each in fields(Settings)}
        same = {each.name: getattr(settings, each.name) for each in fields(cls) if each.name in held}
        return cls(
            **same, upstream=settings.base_url, har_max_bytes=int(settings.har_max_size * MEGABYTE), gate=gate, run=run
        )


class Proxy:
    """A validating reverse proxy: `base_url` is where clients send their traffic."""

    def __init__(self, config: ProxyConfig) -> None:
        self.config = config
        self.socket = _bound(config.listen)
        self.port = self.socket.getsockname()[1]
        upstream = Upstream(config.upstream, tls_verification(config.ca_bundle), config.request_timeout)
        record = config.report_dir / FILE_NAME if config.report_dir else _scratch_record(self)
        opening = Opening(config.gate, config.environment, {"profile": None, **config.run})
        self.side = SideJudge(
            config.upstream,
            config.max_records,
            record,
            opening,
            self._print_first_breaks,
            config.record_har,
            config.har_max_bytes,
            config.queue_size,
            in_the_path=config.annotate,
        )
        self.forwarder = Forwarder(
            config.upstream,
            upstream,
            self.side.offer,
            self._broken_by if config.annotate else None,
            config.client_timeout,
        )
        bounds = Bounds(config.client_timeout, config.max_header_size, config.max_connections)
        # timeout_keep_alive: uvicorn hands it to call_later, which takes a float; its annotation says int.
        self._server = _Server(
            uvicorn.Config(
                self.forwarder,
                log_level="warning",
                access_log=False,
                lifespan="on",
                ws="none",
                http=bounded(bounds, self.forwarder.tally),
                loop="asyncio",
                server_header=False,
                date_header=False,
                timeout_keep_alive=config.client_timeout,  # type: ignore[arg-type]
                h11_max_incomplete_event_size=2 * config.max_header_size,
            )
        )
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._final: dict[str, Any] | None = None  # the report once the proxy has stopped
        self._ticker = threading.Thread(target=self._tick, name="proxy-tally", daemon=True)
        self._tally = live.TallyLineNews()

    @property
    def base_url(self) -> str:
        host = self.config.listen[0]
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/v1"

    # ------------------------------------------------------------------ running

    def serve(self) -> None:
        """Serve in this thread until SIGINT or SIGTERM, then stop judging (a second signal ends the requests under
        way at once)."""

        def stop(_signal: int, _frame: object) -> None:
            self._server.force_exit = self._server.should_exit
            self._server.should_exit = True

        before = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
        self._ticker.start()
        try:
            self._server.run(sockets=[self.socket])
        finally:
            for number, handler in before.items():
                signal.signal(number, handler)
            self._end()

    def start(self) -> Proxy:
        """Serve in a daemon thread; returns once it listens."""
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self.socket]}, name=f"proxy-{self.port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the proxy did not start listening")
            time.sleep(0.005)
        self._ticker.start()
        return self

    def stop(self) -> None:
        """Stop serving (the requests under way end first), then stop judging."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=START_TIMEOUT)
        self._end()

    def __enter__(self) -> Proxy:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def _end(self) -> None:
        """Stop judging (the exchanges waiting get DRAIN seconds), take the final report, end the judge."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        try:
            self.side.finish(DRAIN)
            self._final = self.side.conclude(self.facts())
        except JudgeGone:  # the traffic went on without it; `report()` raises it again, for the caller to say
            pass
        finally:
            self.side.close()

    # ------------------------------------------------------------------ what it tells

    def facts(self) -> dict[str, Any]:
        """What the proxy counted: forwarded, not relayed (502, 504, disconnects), dropped; the registry's bound and
        what it forgot."""
        tally = self.forwarder.tally
        return {
            "forwarded": tally.forwarded,
            "unreachable": tally.unreachable,
            "timed_out": tally.timed_out,
            "client_disconnects": tally.client_disconnects,
            "cut_upstream": tally.cut_upstream,
            "refused": tally.refused,
            "client_timeouts": tally.client_timeouts,
            "stopped_not_sent": tally.stopped_not_sent,
            "stopped_sent": tally.stopped_sent,
            "not_annotated": tally.not_annotated,
            "client_stalls": tally.client_stalls,
            **self.side.facts(),
            "waiting": self.side.waiting(),
        }

    def report(self) -> dict[str, Any]:
        """conformance.json's content for what was judged so far (once the proxy has stopped, for all it judged)."""
        if self._final is not None:
            return self._final
        return self.side.report(self.facts())

    def write(self, directory: Path) -> tuple[dict[str, Any], list[Path]]:
        """Every report, and the record of judgement (once the proxy has stopped, the whole of it), into
        `directory`."""
        report = self.report()
        written = write_all(report, directory)
        record = directory / FILE_NAME
        if self.side.record != record:
            shutil.copyfile(self.side.record, record)
        return report, [*written, record]

    def upstream_line(self) -> str:
        """One GET of the upstream's base URL (no key, before any client's request), in one line: whether it
        answered."""
        timeout = min(UPSTREAM_LOOK, self.config.request_timeout)
        try:
            with httpx.Client(verify=tls_verification(self.config.ca_bundle), timeout=timeout) as client:
                status = client.get(self.config.upstream).status_code
        except httpx.HTTPError as error:
            return live.upstream_line(self.config.upstream, None, f"{type(error).__name__}: {error}")
        return live.upstream_line(self.config.upstream, status)

    def _print_first_breaks(self, lines: list[str]) -> None:
        """The judge's live lines (already redacted there), printed as they come."""
        if self.config.say is not None:
            for line in lines:
                self.config.say(line)

    async def _broken_by(self, captured: Captured) -> list[str]:
        return await asyncio.to_thread(self.side.broken_by, captured)

    def _tick(self) -> None:
        """Every tally period, the tally line when it has changed; every report period, the reports."""
        config = self.config
        periods = [period for period in (config.tally_every, config.report_every) if period]
        if not periods:
            return
        step = min(periods)
        last_tally = last_report = time.monotonic()
        while not self._stopping.wait(step):
            now = time.monotonic()
            try:
                if config.report_every and config.report_dir and now - last_report >= config.report_every - 0.01:
                    report, _ = self.write(config.report_dir)
                    last_report = now
                else:
                    report = self.report()
                if config.tally_every and config.say and now - last_tally >= config.tally_every - 0.01:
                    line = self._tally.news(report, self.facts())
                    if line is not None:
                        config.say(line)
                    last_tally = now
            except Exception as error:  # a report that cannot be written must not stop the proxy
                print(redact(f"{live.PREFIX} {type(error).__name__}: {error}"), file=sys.stderr)


class _Server(uvicorn.Server):
    """uvicorn's server without its own signal handling, which raises the signal again once it has stopped: the
    proxy has its reports to write after that (`Proxy.serve` sets the handlers)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _not_a_cut(record: logging.LogRecord) -> bool:
    """uvicorn's log without the answers the upstream cut, which the proxy counts (forwarding.AnswerCut)."""
    return not (record.exc_info and isinstance(record.exc_info[1], AnswerCut))


logging.getLogger("uvicorn.error").addFilter(_not_a_cut)


def _scratch_record(proxy: Proxy) -> Path:
    """Where a proxy with no report folder writes its record (`write` copies it where the reports go): a file of its
    own, removed when the proxy object is."""
    descriptor, name = tempfile.mkstemp(prefix="wallet-conformance-proxy-", suffix=".jsonl")
    os.close(descriptor)
    weakref.finalize(proxy, Path(name).unlink, missing_ok=True)
    return Path(name)


def _bound(listen: tuple[str, int]) -> socket.socket:
    """The listening socket, bound now: the port is known (port 0 chooses one) before serving starts."""
    host, port = listen
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP (reference/server.py).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:  # taken, or not this machine's: the caller says so
        sock.close()
        raise
    return sock
