"""Hostile targets end quickly with one message, in bounded time and memory.

Each case runs the suite as a user would (`pytest tests`, a fresh process) against a small misbehaving server
of selftests/hostile.py on loopback, and checks: the exit status, at most MAX_SECONDS, at most a screenful of
output, the process's peak memory under MAX_RSS_MB.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from selftests.hostile import HANG, RESET, Answer, Hostile, Request, envelope, preflight_reads
from selftests.suite_runs import HAND_WRITTEN, QUICK_SETTLEMENT, run_in_process, work_dir
from wallet_conformance.client.api import (
    IDLE_REUSE,
    ApiClient,
    Bound,
    Exchange,
    ExchangeLog,
    RateLimited,
    TargetError,
    Unanswered,
)
from wallet_conformance.client.target import Target
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.failures import judged_silences
from wallet_conformance.plugin.preflight import preflight
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.banks import UNKNOWN_ACCOUNT_NUMBER
from wallet_conformance.spec import contract
from wallet_conformance.spec.files import ROOT
from wallet_conformance.world import bodies
from wallet_conformance.world.bad_requests import LARGE_BODY_PADDING

KEY = "sk_test_hostile_selftest_5c1d"
MAX_SECONDS = 120
MAX_RSS_MB = 400
# Lines: the suite's summary, and, after an early stop, pytest's own listing of the tests that failed before it (a
# header and the first line of each, and each in the short summary: the evidence is in the report).
SCREENFUL = 80
TWENTY_MB = 20 * 1024 * 1024


@dataclass
class Run:
    status: int
    output: str
    seconds: float
    rss_mb: float
    report: dict[str, Any] | None

    def check_bounded(self, *statuses: int) -> None:
        """Ends non-zero with one of `statuses`, within the time, output and memory bounds."""
        shown = "\n".join(self.output.splitlines()[-40:])
        assert self.status in statuses and self.status != 0, f"exit {self.status}\n{shown}"
        assert self.seconds < MAX_SECONDS, f"{self.seconds:.0f} s\n{shown}"
        assert len(self.output.splitlines()) <= SCREENFUL, f"{len(self.output.splitlines())} lines\n{shown}"
        assert self.rss_mb < MAX_RSS_MB, f"{self.rss_mb:.0f} MB"

    def no_must_passed(self) -> None:
        """Nothing from a target that does not speak the protocol passes a MUST requirement."""
        if self.report is not None:
            passed = [e["id"] for e in self.report["requirements"] if e["level"] == "MUST" and e["verdict"] == "pass"]
            assert not passed, passed


def suite(report_dir: Path, *args: str, timeout: float = MAX_SECONDS + 30, paths: tuple[str, ...] = ("tests",)) -> Run:
    """`pytest tests` in a fresh process; its exit status, output, seconds and peak resident memory."""
    env = dict(os.environ)
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "WALLET_API_BASE_URL", "WALLET_API_SECRET_KEY"):
        env.pop(name, None)
    with tempfile.TemporaryFile("w+") as output:
        started = time.perf_counter()
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pytest",
                *paths,
                "-q",
                "-p",
                "no:cacheprovider",
                "--report-dir",
                str(report_dir),
                "--work-dir",
                str(work_dir(report_dir)),
                *QUICK_SETTLEMENT,
                *args,
            ],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
        )
        while True:  # os.wait4 gives this child's own peak memory
            pid, wait_status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout:
                process.kill()
                pid, wait_status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(wait_status)
        seconds = time.perf_counter() - started
        output.seek(0)
        text = output.read()
    path = report_dir / "conformance.json"
    run = Run(
        process.returncode,
        text,
        seconds,
        usage.ru_maxrss / 1024,
        json.loads(path.read_text()) if path.exists() else None,
    )
    _measured(run)
    return run


def _measured(run: Run) -> None:
    """What each case cost, for the README and reviews: reports/hostile/<test>.json (reports/ is not committed)."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "unknown").split(" ")[0].split("::")[-1]
    folder = ROOT / "reports" / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    name = "".join(c if c.isalnum() or c in "-_[]" else "_" for c in test)
    (folder / f"{name}.json").write_text(
        json.dumps(
            {
                "test": test,
                "exit": run.status,
                "seconds": round(run.seconds, 1),
                "peak_rss_mb": round(run.rss_mb),
                "output_lines": len(run.output.splitlines()),
            }
        )
        + "\n"
    )


def in_process(pytester: pytest.Pytester, report_dir: Path, *args: str) -> Run:
    """The suite inside this process (no interpreter start): for runs that stop before any test.

    Peak memory is not measured here (it is this process's); the cases that need it run in a subprocess.
    """
    process, report, seconds = run_in_process(pytester, report_dir, *QUICK_SETTLEMENT, *args, paths=("tests",))
    run = Run(process.returncode, process.stdout + process.stderr, seconds, 0.0, report)
    _measured(run)
    return run


def against(
    hostile: Hostile,
    report_dir: Path,
    *args: str,
    pytester: pytest.Pytester | None = None,
    paths: tuple[str, ...] = ("tests",),
) -> Run:
    target = ("--base-url", hostile.base_url, "--secret-key", KEY)
    if pytester:
        return in_process(pytester, report_dir, *target, *args)
    return suite(report_dir, *target, *args, paths=paths)


@pytest.fixture
def reference():
    with ReferenceServer(secret_key=KEY, settle_delay=0.05) as server:
        yield server


# ------------------------------------------------------------------ 1. not the protocol

NOT_THE_PROTOCOL = {
    "html": lambda request: Answer(200, "<!doctype html><html><body><h1>Welcome</h1></body></html>", "text/html"),
    "invalid-json": lambda request: Answer(200, '{"meta": {"statusCode": 200, '),
    "empty-body": lambda request: Answer(200, b""),
    "wrong-content-type": lambda request: Answer(200, envelope([]).body, "text/html; charset=utf-8"),
    "html-404-from-a-proxy": lambda request: Answer(404, "<html><body>Not Found</body></html>", "text/html"),
    "twenty-megabytes": lambda request: Answer(200, b'{"data": "' + b"x" * TWENTY_MB + b'"}'),
}


@pytest.mark.parametrize("kind", sorted(NOT_THE_PROTOCOL))
# In-process, a connection the stopped run leaves to the garbage collector may be reported here.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_target_that_does_not_speak_the_protocol_stops_the_run(kind, tmp_path, pytester):
    """HTML, invalid JSON, empty bodies, a wrong content type or a huge body: one message, exit 8, no MUST pass."""
    with Hostile(NOT_THE_PROTOCOL[kind]) as hostile:
        run = against(hostile, tmp_path, pytester=None if kind == "twenty-megabytes" else pytester)
    run.check_bounded(ExitStatus.NOT_THE_PROTOCOL)
    assert "does not answer JSON envelopes" in run.output and "--base-url" in run.output, run.output
    assert run.output.count("does not answer JSON envelopes") == 1 and "Exit:" not in run.output, run.output
    run.no_must_passed()


def test_a_json_error_at_the_base_url_says_its_path_is_likely_wrong():
    """Reads answered 404 in the document's envelope (a server of JSON, but no such operation at the base URL's path):
    the preflight stops the run, exit 8, quoting the status and saying the base URL likely has the wrong path, never
    that the target does not answer JSON."""
    with Hostile(lambda request: envelope(None, 404, message="Route not found")) as hostile:
        base_url = f"{hostile.origin}/api{contract.version_segment()}"
        stop = preflight(Target(base_url, KEY, None, embedded=False), timeout=5)
    assert stop is not None and stop.status == ExitStatus.NOT_THE_PROTOCOL, stop
    assert stop.reason.startswith(
        f"GET {base_url}/transactions/banks answered 404 (in JSON): the base URL likely has "
        "the wrong path (--base-url must be"
    ), stop.reason
    assert "not JSON" not in stop.reason and "does not answer JSON" not in stop.reason, stop.reason


# ------------------------------------------------------------------ 2. hangs, slow answers, resets


def test_a_target_that_hangs_from_the_start_stops_the_run(tmp_path):
    """Connections accepted, never answered: the preflight's read times out (--request-timeout), exit 4."""
    with Hostile(lambda request: HANG) as hostile:
        run = against(hostile, tmp_path, "--request-timeout", "1")
    run.check_bounded(ExitStatus.CANNOT_RUN)
    assert "cannot be reached" in run.output, run.output


def test_a_target_that_resets_connections_stops_the_run(tmp_path):
    """Every connection reset: exit 4 with one message (a fresh process: httpx maps httpcore's errors there)."""
    with Hostile(lambda request: RESET) as hostile:
        run = against(hostile, tmp_path)
    run.check_bounded(ExitStatus.CANNOT_RUN)
    assert "cannot be reached" in run.output, run.output


@pytest.mark.parametrize("how", [HANG, RESET], ids=["hangs", "resets"])
def test_a_target_that_stops_answering_mid_run_ends_the_run(how, reference, tmp_path):
    """A target that answers, then hangs or resets every connection: the run stops with one message, exit 9."""
    with Hostile(lambda request: how if request.number > 60 else None, upstream=reference) as hostile:
        run = against(hostile, tmp_path, "--funding-url", hostile.funding_url, "--request-timeout", "1")
    run.check_bounded(ExitStatus.TARGET_FAILING)
    assert "the target stopped answering" in run.output, run.output


@dataclass
class SilentOn:
    """Holds requests to `method path` without an answer (only the first one when `first_only`) and counts them;
    answers every other request with an empty list."""

    method: str
    path: str
    first_only: bool = False
    held: list[int] = field(default_factory=list)

    def __call__(self, request: Request) -> Any:
        held = request.method == self.method and request.path.startswith(self.path)
        if held and not (self.first_only and self.held):
            self.held.append(request.number)
            return HANG
        return envelope([])


def test_a_request_answered_when_sent_again_is_an_answer():
    """One slow answer is a hiccup: the same request is sent again, and its answer stands, noted in the evidence."""
    behave = SilentOn("GET", "/v1/virtual-accounts", first_only=True)
    with Hostile(behave) as hostile:
        client = ApiClient(hostile.base_url, "k-hiccup", timeout=0.5)
        exchange = client.call("listWallets")
        client.close()
    assert exchange.status == 200 and len(behave.held) == 1 and hostile.count == 2, hostile.count
    assert "sent again, the same request" in exchange.describe() and client.transport_failures == 0


def test_a_silent_operation_fails_err_09_once_and_is_not_waited_on_again():
    """A read silent twice while the bank list answers: Unanswered, which the judge makes a failure of ERR-09 naming
    the request; the same request then fails at once, and the target is not taken as down."""
    behave = SilentOn("GET", "/v1/virtual-accounts")
    with Hostile(behave) as hostile:
        client = ApiClient(hostile.base_url, "k-silent", timeout=0.5)
        with pytest.raises(Unanswered) as first:
            client.call("listWallets")
        started = time.perf_counter()
        with pytest.raises(Unanswered, match="not waited on again"):
            client.call("listWallets")
        again = time.perf_counter() - started
        client.close()
    failure = judged_silences(first.value)
    assert first.value.requirement is None and "ERR-09" not in str(first.value)  # the transport names no requirement
    assert failure.requirement == "ERR-09" and failure.received == "no answer within 0.5 s (twice)"
    assert "/v1/transactions/banks answered 200" in failure.detail and "curl -sS -X GET" in str(failure)
    assert len(behave.held) == 2 and again < 0.1 and not client.target_down


def test_a_path_no_operation_has_left_unanswered_fails_err_09():
    """A probe (a path no operation has) silent twice while the bank list answers is Unanswered, as an operation is."""
    behave = SilentOn("GET", "/v1/no-such-operation")
    with Hostile(behave) as hostile:
        client = ApiClient(hostile.base_url, "k-probe", timeout=0.5)
        with pytest.raises(Unanswered) as silent:
            client.probe("GET", "/no-such-operation")
        client.close()
    assert judged_silences(silent.value).requirement == "ERR-09" and len(behave.held) == 2 and not client.target_down


def test_a_connection_closed_on_the_large_body_fails_err_09_and_blocks_no_test(reference, tmp_path, pytester):
    """A target that closes the connection on the mebibyte body probe and answers the rest (a plain Node.js server
    refusing the body so): the closed connection is the probe's answer, ERR-09 fails with it as evidence; the probe's
    envelope tests cannot judge it and skip; no test fails on a setup step, and the run does not conform."""

    def behave(request: Request) -> Any:
        large = request.method == "POST" and len(request.body) > LARGE_BODY_PADDING
        return RESET if large and request.path.startswith("/v1/virtual-accounts") else None

    with Hostile(behave, upstream=reference) as hostile:
        process, report, _ = run_in_process(
            pytester,
            tmp_path / "report",
            *QUICK_SETTLEMENT,
            "--base-url",
            hostile.base_url,
            "--secret-key",
            KEY,
            "--funding-url",
            hostile.funding_url,
            "-k",
            "large",
            "-rfs",
            paths=("tests/test_errors.py",),
        )
    assert report is not None and process.returncode == ExitStatus.DOES_NOT_CONFORM, process.stdout[-3000:]
    entries = {entry["id"]: entry for entry in report["requirements"]}
    assert entries["ERR-09"]["verdict"] == "fail", entries["ERR-09"]
    assert "the connection was closed without an answer" in entries["ERR-09"]["evidence"][0]["received"]
    assert report["outcome"]["must_failed"] == ["ERR-09"]
    for requirement in ("ERR-10", "ERR-07", "ERR-08"):  # SHOULD: no answer to judge, never blocked by ERR-09
        assert entries[requirement]["verdict"] == "skip" and "got no answer" in entries[requirement]["reason"]
    failed = [line for line in process.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and "test_an_invalid_request_is_answered" in failed[0], failed
    assert "a setup step failed" not in process.stdout


def test_a_transfer_left_unanswered_is_never_sent_twice():
    """A transfer could move money twice: it is sent once and waited on twice as long, then judged."""
    behave = SilentOn("POST", "/v1/transactions/transfer")
    with Hostile(behave) as hostile:
        client = ApiClient(hostile.base_url, "k-transfer", timeout=0.5)
        started = time.perf_counter()
        with pytest.raises(Unanswered, match="sent once and waited on twice as long"):
            client.call("transfer", json_body=bodies.transfer("vba-00000001", "vba-00000002"))
        took = time.perf_counter() - started
        client.close()
    assert len(behave.held) == 1 and 1.0 <= took < 2.0, (behave.held, took)


def test_a_connection_a_server_would_close_for_idleness_carries_no_transfer():
    """A server closing connections idle for 1.5 s (gunicorn closes at 2 s) loses a request written on one as it
    closes it: a transfer sent after such a pause goes on a new connection and is answered, never lost to ERR-09."""
    idle_timeout = 1.5
    assert IDLE_REUSE < idle_timeout

    def behave(request: Request) -> Any:
        closing = request.idle is not None and request.idle >= idle_timeout
        return RESET if closing else envelope({"status": "pending"})

    with Hostile(behave) as hostile:
        client = ApiClient(hostile.base_url, "k-idle", timeout=0.5)
        client.call("listBanks")
        time.sleep(idle_timeout + 0.1)
        exchange = client.call("transfer", json_body=bodies.transfer("vba-00000001", "vba-00000002"))
        client.close()
    assert exchange.status == 200 and hostile.count == 2, hostile.count


def test_a_target_silent_to_everything_is_down_not_one_operation_silent():
    """When the cheap read gets no answer either, the request fails as any unanswered one, never as ERR-09."""
    with Hostile(lambda request: HANG) as hostile:
        client = ApiClient(hostile.base_url, "k-down", timeout=0.5)
        with pytest.raises(TargetError, match="a cheap read got no answer either") as failed:
            client.call("listWallets")
        client.close()
    assert not isinstance(failed.value, Unanswered) and client.transport_failures == 3


def _collection_accounts_unanswered(request: Request) -> object | None:
    """Every POST /collection-accounts is held without an answer; every other request is forwarded."""
    return HANG if request.method == "POST" and request.path.startswith("/v1/collection-accounts") else None


def test_a_target_silent_on_one_operation_fails_err_09_and_runs_on(reference, tmp_path):
    """Every create-collection-account request hangs while the rest answers: ERR-09 fails with the request, its curl
    line and `no answer within 1 s (twice)`, the collection account's own requirement is blocked, and the run goes on
    to exit 1 (not 9) within bounds."""
    with Hostile(_collection_accounts_unanswered, upstream=reference) as hostile:
        # Every test that meets the silence fails, as against any target that does not conform, each with its
        # evidence; the report holds it. --tb=no and --force-short-summary (pytest prints whole messages when it sees
        # a CI environment) keep the output a screenful wherever the self-tests run.
        # The null probes of every body field (ERR-09 too) would each wait for the silence twice: the operation's own
        # tests show it.
        run = against(
            hostile,
            tmp_path,
            "--funding-url",
            hostile.funding_url,
            "--request-timeout",
            "1",
            "--requirement",
            "ERR-09",
            "--requirement",
            "END-20",
            "-k",
            "collection and not null",
            "--tb=no",
            "--force-short-summary",
        )
    run.check_bounded(ExitStatus.DOES_NOT_CONFORM)
    assert run.report is not None and "stopped" not in run.report, run.output
    verdicts = {entry["id"]: entry for entry in run.report["requirements"]}
    silent = verdicts["ERR-09"]
    assert silent["verdict"] == "fail" and "/collection-accounts got no answer" in silent["reason"], silent
    evidence = silent["evidence"][0]
    assert evidence["received"].startswith("no answer within 1 s (twice)"), evidence
    assert "the target is up: GET" in evidence["detail"], evidence
    curl = evidence["exchange"]["curl"]
    assert curl.startswith("curl -sS -X POST") and "/collection-accounts" in curl and "<SECRET_KEY>" in curl, curl
    assert verdicts["END-20"]["verdict"] == "blocked" and "ERR-09" in verdicts["END-20"]["reason"], verdicts["END-20"]
    assert KEY not in json.dumps(run.report) and KEY not in run.output


@pytest.mark.long
def test_a_slow_target_is_bounded_by_the_run_budget(reference, tmp_path):
    """Answers after 0.3 s each: the run stops at --run-budget with one message, exit 9."""

    def slow(request: Request) -> None:
        time.sleep(0.3)

    with Hostile(slow, upstream=reference) as hostile:
        run = against(
            hostile, tmp_path, "--funding-url", hostile.funding_url, "--test-timeout", "2", "--run-budget", "8"
        )
    run.check_bounded(ExitStatus.TARGET_FAILING)
    assert "the run used up its budget (--run-budget 8 s)" in run.output, run.output


def test_a_test_is_bounded_by_its_time_bound():
    """With the test's deadline 1 s away, a slow target's requests stop there, and the target is not 'down'."""
    with Hostile(lambda request: time.sleep(0.3) or envelope([])) as hostile:
        client = ApiClient(
            hostile.base_url, "k-slow", timeout=5, bound=Bound(time.monotonic() + 1, "the test used up its time bound")
        )
        started = time.perf_counter()
        with pytest.raises(TargetError, match="the test used up its time bound"):
            for _ in range(20):
                client.call("listBanks")
        took = time.perf_counter() - started
        # Unbounded, the 20 reads would take 6 s; bounded, about 1.3 s (more on a loaded machine).
        assert took < 3, f"{took:.1f} s"
        assert not client.target_down and client.transport_failures == 0, client.transport_failures
        client.close()


# ------------------------------------------------------------------ 3. a 5xx storm


def test_a_target_answering_500_to_everything_stops_the_run(tmp_path, pytester):
    """500 to every request: the preflight says the target is failing, exit 9, in seconds."""
    with Hostile(lambda request: envelope(None, 500, message="Internal Server Error")) as hostile:
        run = against(hostile, tmp_path, pytester=pytester)
    run.check_bounded(ExitStatus.TARGET_FAILING)
    assert "the target is failing" in run.output, run.output
    run.no_must_passed()


@pytest.mark.long
def test_a_5xx_storm_mid_run_ends_the_run(tmp_path):
    """The preflight's reads answer, everything else 500: the run stops after a few tests, exit 9."""
    with Hostile(lambda request: preflight_reads(request) or envelope(None, 503, message="down")) as hostile:
        run = against(hostile, tmp_path)
    run.check_bounded(ExitStatus.TARGET_FAILING)
    assert "the target is failing" in run.output and "answers were 5xx" in run.output, run.output
    run.no_must_passed()


def test_a_failing_target_gets_no_request_until_the_sweep_gives_it_another_chance():
    """After 16 answers of 5xx the client sends nothing more; the end-of-run sweep's reset lets it try again."""
    with Hostile(lambda request: envelope(None, 503, message="down")) as hostile:
        client = ApiClient(hostile.base_url, "k-failing", timeout=5)
        for _ in range(16):
            client.call("listBanks")
        with pytest.raises(TargetError, match="not sent: the target is failing"):
            client.call("listBanks")
        sent = hostile.count
        client.forget_server_errors()
        assert client.call("listBanks").status == 503 and hostile.count == sent + 1
        client.close()


# ------------------------------------------------------------------ 4. waits that can never succeed


def _balances_in_naira(request: Request, answer: Answer) -> Answer:
    """Wallet reads show the balance in naira: funding never shows as the kobo the suite sent."""
    return _wallet_balance(request, answer, lambda balance: balance // 100)


def _balances_frozen(request: Request, answer: Answer) -> Answer:
    """Wallet reads always show a balance of 0: no payment ever shows."""
    return _wallet_balance(request, answer, lambda balance: 0)


def _wallet_balance(request: Request, answer: Answer, shown: Callable[[int], int]) -> Answer:
    if request.method == "GET" and request.path.startswith("/v1/virtual-accounts/") and answer.status == 200:
        body = json.loads(answer.body)
        if isinstance(body.get("data"), dict) and isinstance(body["data"].get("balance"), int):
            body["data"]["balance"] = shown(body["data"]["balance"])
            return Answer(200, json.dumps(body), answer.content_type)
    return answer


NEVER_MATCH_TIMEOUT = 5


@pytest.mark.parametrize(
    ("rewrite", "waits"), [(_balances_in_naira, False), (_balances_frozen, True)], ids=["naira", "frozen"]
)
def test_balances_that_never_match_are_waited_for_once(rewrite, waits, reference, tmp_path):
    """Balances in naira, or that never move: the run ends in bounded time and fails SVC-24; a wait that cannot
    succeed (funding that never shows) is waited once, not again by every money test."""
    with Hostile(lambda request: None, upstream=reference, rewrite=rewrite) as hostile:
        run = against(
            hostile,
            tmp_path,
            "-m",
            "money",
            "--funding-url",
            hostile.funding_url,
            "--settle-timeout",
            str(NEVER_MATCH_TIMEOUT),
        )
    assert run.status == 1 and run.rss_mb < MAX_RSS_MB, run.output[-3000:]
    assert run.report is not None
    verdicts = {entry["id"]: entry["verdict"] for entry in run.report["requirements"]}
    assert verdicts["SVC-24"] == "fail", verdicts["SVC-24"]
    money_tests = {t["nodeid"] for e in run.report["requirements"] for t in e["tests"]}
    assert len(money_tests) > 12, "too few money tests ran to show the difference"
    # Had each waited the settle timeout, the run would take len(money_tests) * NEVER_MATCH_TIMEOUT seconds.
    bound = len(money_tests) * NEVER_MATCH_TIMEOUT / 2
    assert run.seconds < bound, f"{run.seconds:.0f} s for {len(money_tests)} money tests (bound {bound:.0f} s)"
    if waits:
        assert "not waited again" in run.output + json.dumps(run.report)


# ------------------------------------------------------------------ 5. memory


def test_a_twenty_megabyte_body_costs_megabytes(tmp_path):
    """30 answers of 20 MB through the client: each body is capped when read, the process stays small."""
    script = f"""
import resource, sys
sys.path.insert(0, {str(ROOT)!r})
from wallet_conformance.client.api import ApiClient, MAX_BODY
client = ApiClient(sys.argv[1], "k-memory")
client.call("listBanks")
first = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
for _ in range(30):
    exchange = client.call("listBanks")
    assert len(exchange.text) == MAX_BODY and exchange.size > 20_000_000 and exchange.truncated
    assert "20971" in exchange.describe()
print(first, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""
    with Hostile(lambda request: Answer(200, b'{"data": "' + b"x" * TWENTY_MB + b'"}')) as hostile:
        process = subprocess.run(
            [sys.executable, "-c", script, hostile.base_url],
            capture_output=True,
            text=True,
            timeout=MAX_SECONDS,
            check=False,
        )
    assert process.returncode == 0, process.stderr[-2000:]
    first, last = (int(word) for word in process.stdout.split())
    # Kept whole, 31 bodies of 20 MB would be over 600 MB (bytes and text): here they cost a few MB.
    assert last - first < 50 and last < MAX_RSS_MB, f"{first} MB after one body, {last} MB after 31"


def test_the_exchange_log_keeps_only_the_newest_but_counts_all():
    """Indexes stay those of the whole run; only the newest exchanges are held."""
    log = ExchangeLog(kept=3)
    made = [Exchange(None, "GET", f"http://x/v1/banks?n={number}", [], None, 200, [], "", 0.0) for number in range(10)]
    for exchange in made:
        log.append(exchange)
    assert len(log) == 10 and list(log) == made[7:] and log[8:] == made[8:] and log[-1] is made[9]
    assert log[0:] == made[7:]
    with pytest.raises(IndexError):
        log[2]


# ------------------------------------------------------------------ 6. rate limiting


def test_rate_limiting_is_waited_out_within_bounds():
    """429 with Retry-After is retried after the asked wait, shown in the evidence; beyond the cap the request is
    RateLimited: a throttled answer is not judged."""
    asked: dict[str, int] = {}

    def throttle(request: Request) -> Answer:
        asked[request.path] = asked.get(request.path, 0) + 1
        if request.path.endswith("/banks") and asked[request.path] <= 2:
            return Answer(429, '{"meta": {"statusCode": 429}}', headers={"retry-after": "0.2"})
        if request.path.endswith("/virtual-accounts"):
            return Answer(429, '{"meta": {"statusCode": 429}}', headers={"retry-after": "30"})
        return envelope([])

    with Hostile(throttle) as hostile:
        client = ApiClient(hostile.base_url, "k-throttle", rate_limit_wait=5)
        started = time.perf_counter()
        exchange = client.call("listBanks")
        assert exchange.status == 200 and len(exchange.retries) == 2 and time.perf_counter() - started >= 0.4
        assert "answered 429" in exchange.describe()
        started = time.perf_counter()
        with pytest.raises(RateLimited) as throttled:  # asks 30 s, more than one wait may take: no wait, no verdict
            client.call("listWallets")
        assert throttled.value.exchange.status == 429 and not throttled.value.exchange.retries
        assert time.perf_counter() - started < 1
        assert client.rate_limited[-1]["gave_up"] and client.rate_limit_wait == pytest.approx(4.6, abs=0.01)
        client.close()


@pytest.mark.long
def test_a_throttling_target_is_still_tested_and_the_throttling_observed(reference, tmp_path):
    """Every 7th request answered 429 (Retry-After 0.05), once: the run passes, LIM-23 records the throttling."""
    throttled: set[tuple[str, str, bytes]] = set()

    def every_seventh(request: Request) -> Answer | None:
        # A request sent again after its 429 is answered: among concurrent requests, the 7th of a count could fall on
        # the same request three times in a row, which a run rightly gives up on (--rate-limit-wait's retries).
        asked = (request.method, request.path, request.body)
        if request.number % 7 == 0 and asked not in throttled:
            throttled.add(asked)
            return Answer(
                429, '{"meta": {"statusCode": 429, "success": false}, "data": null}', headers={"retry-after": "0.05"}
            )
        return None

    with Hostile(every_seventh, upstream=reference) as hostile:
        # Hand-written modules that read, write, move money and observe LIM-23: a few hundred requests, so dozens
        # of 429s land in setup steps, checks and sweeps alike.
        run = against(
            hostile,
            tmp_path,
            "--funding-url",
            hostile.funding_url,
            paths=("tests/test_endpoints.py", "tests/test_money.py", "tests/test_observations.py"),
        )
    assert run.status == 0 and run.seconds < MAX_SECONDS, run.output[-3000:]
    observed = next(e for e in run.report["requirements"] if e["id"] == "LIM-23")
    assert "429" in json.dumps(observed), observed


# ------------------------------------------------------------------ 7. TLS


def _certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A private CA and a certificate for 127.0.0.1 signed by it (openssl)."""
    ca_key, ca, key, request, cert = (
        folder / name for name in ("ca.key", "ca.pem", "leaf.key", "leaf.csr", "leaf.pem")
    )
    extensions = folder / "leaf.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
    commands = [
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            ca_key,
            "-out",
            ca,
            "-days",
            "2",
            "-subj",
            "/CN=wallet-conformance selftest CA",
        ],
        ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
        [
            "openssl",
            "x509",
            "-req",
            "-in",
            request,
            "-CA",
            ca,
            "-CAkey",
            ca_key,
            "-CAcreateserial",
            "-out",
            cert,
            "-days",
            "2",
            "-extfile",
            extensions,
        ],
    ]
    for command in commands:
        subprocess.run([str(part) for part in command], check=True, capture_output=True, timeout=60)
    return ca, cert, key


def test_a_private_ca_is_trusted_only_when_given(reference, tmp_path):
    """An https target signed by a private CA: refused with a message naming --ca-bundle, accepted with it."""
    import ssl

    ca, cert, key = _certificates(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    with Hostile(lambda request: None, upstream=reference, tls=context) as hostile:
        refused = against(hostile, tmp_path / "refused", "--requirement", "SVC-01")
        trusted = against(hostile, tmp_path / "trusted", "--requirement", "SVC-01", "--ca-bundle", str(ca))
    refused.check_bounded(ExitStatus.CANNOT_RUN)
    assert "--ca-bundle" in refused.output and "CERTIFICATE_VERIFY_FAILED" in refused.output, refused.output
    assert trusted.status == 0, trusted.output[-3000:]


# ------------------------------------------------------------------ 8. cleanup after a crash


def _open_wallets(server: ReferenceServer) -> list[dict[str, Any]]:
    response = httpx.get(
        f"{server.base_url}/virtual-accounts", params={"perPage": 100}, headers={"x-service-key": KEY}, trust_env=False
    )
    return response.json()["data"]


def test_cleanup_closes_what_a_killed_run_left(reference, tmp_path):
    """A run killed with SIGKILL leaves wallets open; --cleanup closes the suite's (only those) and says so."""
    own = httpx.post(
        f"{reference.base_url}/virtual-accounts",
        headers={"x-service-key": KEY},
        trust_env=False,
        json={"accountName": "Ada Stores", "category": "primary", "currency": "NGN"},
    ).json()["data"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests",
            "-q",
            "-p",
            "no:cacheprovider",
            "--report-dir",
            str(tmp_path),
            "--work-dir",
            str(work_dir(tmp_path)),
            "--base-url",
            reference.base_url,
            "--secret-key",
            KEY,
            "--funding-url",
            reference.funding_url,
            "-n",
            "0",
        ],  # one process: the one SIGKILL reaches
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_open_wallets(reference)) < 6:
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    left = [w for w in _open_wallets(reference) if w["publicId"] != own["publicId"]]
    assert left, "the killed run left nothing open: the case is not exercised"
    assert list((work_dir(tmp_path) / "cleanup").glob("*.json")), "the killed run left no journal"
    run = suite(tmp_path, "--base-url", reference.base_url, "--secret-key", KEY, "--cleanup")
    assert run.status == 0 and run.seconds < MAX_SECONDS, run.output
    assert f"closed {len(left)} wallet(s)" in run.output and "money left in the suite's test wallets" in run.output
    assert [w["publicId"] for w in _open_wallets(reference)] == [own["publicId"]]  # never touched
    assert not list((work_dir(tmp_path) / "cleanup").glob("*.json")), run.output


def test_cleanup_reads_every_page_under_the_paging_the_target_honours(tmp_path):
    """Wallets of a run left on three pages of a list paged by offset and limit (paging parameters are not shown):
    --cleanup finds and closes every one of them, with no journal to go by."""
    with ReferenceServer(secret_key=KEY, settle_delay=0.05, variants=["PAGING_OFFSET_LIMIT"]) as server:
        made = [
            httpx.post(
                f"{server.base_url}/virtual-accounts",
                headers={"x-service-key": KEY},
                trust_env=False,
                json=bodies.wallet(f"cf0badc0degw{number}"),
            ).json()["data"]["publicId"]
            for number in range(25)
        ]
        run = suite(tmp_path, "--base-url", server.base_url, "--secret-key", KEY, "--cleanup")
        still = httpx.get(
            f"{server.base_url}/virtual-accounts",
            params={"limit": 100},
            headers={"x-service-key": KEY},
            trust_env=False,
        ).json()["data"]
    assert run.status == 0, run.output
    assert f"closed {len(made)} wallet(s)" in run.output, run.output
    assert not {wallet["publicId"] for wallet in still} & set(made), run.output


def test_cleanup_restores_webhooks_a_run_changed(reference, tmp_path):
    """A journaled account whose webhooks still carry the suite's mark gets its webhooks back; others are left."""
    headers = {"x-service-key": KEY}
    account = httpx.get(f"{reference.base_url}/accounts", headers=headers, trust_env=False).json()["data"][0]
    original = account.get("webhooks") or []
    changed = [*original, "https://cf0badc0de.conformance.invalid/webhooks/a"]
    httpx.patch(
        f"{reference.base_url}/accounts/{account['publicId']}",
        headers=headers,
        trust_env=False,
        json={"webhooks": changed},
    ).raise_for_status()
    journal = work_dir(tmp_path) / "cleanup" / "cf0badc0de.json"
    journal.parent.mkdir(parents=True)
    journal.write_text(
        json.dumps(
            {
                "run_id": "cf0badc0de",
                "base_url": reference.base_url,
                "wallets": [],
                "accounts": {account["publicId"]: {"webhooks": original, "name": account.get("name")}},
            }
        )
    )
    run = suite(tmp_path, "--base-url", reference.base_url, "--secret-key", KEY, "--cleanup")
    assert run.status == 0 and "webhooks restored" in run.output, run.output
    after = httpx.get(f"{reference.base_url}/accounts", headers=headers, trust_env=False).json()["data"][0]
    assert (after.get("webhooks") or []) == original


# ------------------------------------------------------------------ 9. latency of the reference


def test_the_reference_latency_option_delays_each_answer_without_serialising():
    """ReferenceServer(latency=0.5): each answer takes at least 0.5 s; eight at once take about 0.5 s, not 4."""
    from concurrent.futures import ThreadPoolExecutor

    with ReferenceServer(secret_key=KEY, latency=0.5) as server:
        url, headers = f"{server.base_url}/transactions/banks", {"x-service-key": KEY}
        with httpx.Client(trust_env=False, limits=httpx.Limits(max_connections=8)) as http:
            started = time.perf_counter()
            assert http.get(url, headers=headers).status_code == 200
            assert time.perf_counter() - started >= 0.5
            started = time.perf_counter()
            with ThreadPoolExecutor(8) as pool:
                statuses = list(pool.map(lambda _: http.get(url, headers=headers).status_code, range(8)))
            # One after the other they would take 4 s.
            assert statuses == [200] * 8 and time.perf_counter() - started < 2.5


# ------------------------------------------------------------------ 11. configuration mistakes


CONFIGURATION_MISTAKES = {
    "short key": (["--base-url", "http://127.0.0.1:9/v1", "--secret-key", "abc"], {}, "--secret-key"),
    "key but no url": (["--secret-key", "sk_test_1234"], {}, "no --base-url"),
    "url without /v1": (["--base-url", "http://127.0.0.1:9/api", "--secret-key", KEY], {}, "--base-url"),
    "unknown environment": ([], {"WALLET_API_ENVIRONMENT": "prod"}, "--environment"),
    "unknown environment flag": (["--environment", "prod"], {}, "--environment"),
    "malformed funding url": (["--funding-url", "localhost:8080/fund"], {}, "--funding-url"),
    "timeout that is not a number": ([], {"WALLET_API_REQUEST_TIMEOUT": "ten"}, "--request-timeout"),
    "missing ca bundle": (["--ca-bundle", "/nonexistent/ca.pem"], {}, "--ca-bundle"),
    "cleanup without a target": (["--cleanup"], {}, "--cleanup"),
    "latency for a deployed target": (
        ["--base-url", "http://127.0.0.1:9/v1", "--secret-key", KEY, "--reference-latency", "0.05"],
        {},
        "--reference-latency",
    ),
}


@pytest.mark.parametrize("mistake", sorted(CONFIGURATION_MISTAKES))
def test_a_configuration_mistake_stops_with_one_message_naming_the_option(mistake, tmp_path, monkeypatch, pytester):
    """Each mistake: exit 4, a short message naming the option to fix, never a traceback."""
    args, env, option = CONFIGURATION_MISTAKES[mistake]
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    run = in_process(pytester, tmp_path, *args)
    run.check_bounded(ExitStatus.CANNOT_RUN)
    assert option in run.output and "Traceback" not in run.output and "INTERNALERROR" not in run.output, run.output
    assert len(run.output.splitlines()) <= 5, run.output


FUNDING_MODULES = tuple(
    f"tests/{module}.py"
    for module in (
        "test_money",
        "test_limits",
        "test_states",
        "test_resources",
        "test_events",
        "generated/test_boundaries",
        "generated/test_stateful",
    )
)


@pytest.mark.long
def test_a_funding_hook_that_answers_404_skips_the_money_tests_naming_the_option(reference, tmp_path):
    """--funding-url pointing at nothing: the tests that need money skip with that reason; the others run (the
    modules that fund wallets, hand-written and generated: the boundaries and the money model)."""
    run = suite(
        tmp_path,
        "--base-url",
        reference.base_url,
        "--secret-key",
        KEY,
        "--funding-url",
        f"{reference.origin}/sandbox/no-such-hook",
        paths=FUNDING_MODULES,
    )
    assert run.report is not None and run.seconds < MAX_SECONDS, run.output[-3000:]
    reasons = [e["reason"] or "" for e in run.report["requirements"] if e["verdict"] == "skip"]
    assert any("check --funding-url" in reason for reason in reasons), reasons
    errors = [e for e in run.report["requirements"] if "funding" in (e["reason"] or "") and e["verdict"] == "fail"]
    assert not errors, errors
    assert "Traceback" not in run.output and run.status == 0, run.output[-3000:]


def test_a_bank_account_the_target_cannot_resolve_skips_the_tests_that_need_it(tmp_path, pytester):
    """--bank-account the target answers 404 for: the tests needing an external account skip naming the option,
    nothing fails, the rest runs."""
    run = in_process(
        pytester, tmp_path, "--bank-account", UNKNOWN_ACCOUNT_NUMBER, "-k", "bank or validate", *HAND_WRITTEN
    )
    assert run.status == 0 and run.report is not None, run.output[-3000:]
    verdicts = {entry["id"]: entry for entry in run.report["requirements"]}
    for rid in ("END-25", "SVC-26", "END-33"):  # validation, a bank transfer's money, its body
        assert verdicts[rid]["verdict"] == "skip" and "--bank-account" in verdicts[rid]["reason"], verdicts[rid]
    assert not [entry["id"] for entry in run.report["requirements"] if entry["verdict"] == "fail"]
    assert verdicts["END-37"]["verdict"] == "pass"  # the bank list needs no external account


def test_a_funded_wallet_instead_of_a_funding_hook_judges_no_inbound_payment(tmp_path, pytester):
    """--funded-wallet without --funding-url: money comes by wallet transfers, so SVC-24 (an inbound payment)
    skips naming --funding-url while the transfers' own money is still judged."""
    with (
        ReferenceServer(secret_key=KEY, settle_delay=0.05) as server,
        httpx.Client(headers={"x-service-key": KEY}, trust_env=False) as http,
    ):
        made = http.post(f"{server.base_url}/virtual-accounts", json=bodies.wallet("treasury", "secondary"))
        treasury = made.json()["data"]["publicId"]
        assert http.post(server.funding_url, json={"walletId": treasury, "amount": 5_000_000}).is_success
        run = in_process(
            pytester,
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--funded-wallet",
            treasury,
            "-k",
            "funding_raises or settled_transfer_moves",
        )
    assert run.report is not None and run.status == 0, run.output[-3000:]
    verdicts = {entry["id"]: entry for entry in run.report["requirements"]}
    assert verdicts["SVC-24"]["verdict"] == "skip" and "--funding-url" in verdicts["SVC-24"]["reason"], verdicts
    assert verdicts["SVC-25"]["verdict"] == "pass", verdicts["SVC-25"]


# ------------------------------------------------------------------ 10. two runs at once


SHARED_ACCOUNT_MODULES = tuple(
    f"tests/{module}.py"
    for module in (
        "test_limits",
        "test_service",
        "test_endpoints",
        "test_resources",
        "test_money",
        "test_states",
        "test_isolation",
    )
)


@pytest.mark.long
def test_two_runs_at_once_against_one_account_never_fail_falsely(tmp_path):
    """Two CI jobs on one account (separate report dirs, no shared lock): no MUST failure in either; the
    primary-wallet limit tests pass, or skip naming the other run. The hand-written modules that create, list and
    move money (the primary limit, the lists, the balances, the sweep); the key probes, the wrong values and the
    generated tests would add cases each run makes alone."""
    with ReferenceServer(secret_key=KEY, settle_delay=0.05) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
        processes = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    *SHARED_ACCOUNT_MODULES,
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "--report-dir",
                    str(tmp_path / name),
                    "--base-url",
                    server.base_url,
                    "--secret-key",
                    KEY,
                    "--funding-url",
                    server.funding_url,
                    *QUICK_SETTLEMENT,
                    "-n",
                    "0",
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for name in ("first", "second")
        ]
        outputs = [process.communicate(timeout=MAX_SECONDS * 2)[0] for process in processes]
    for name, process, output in zip(("first", "second"), processes, outputs, strict=True):
        report = json.loads((tmp_path / name / "conformance.json").read_text())
        verdicts = {entry["id"]: entry for entry in report["requirements"]}
        assert process.returncode == 0 and not report["outcome"]["must_failed"], output[-3000:]
        for rid in ("LIM-01", "LIM-02", "LIM-03"):
            entry = verdicts[rid]
            assert entry["verdict"] == "pass" or "another run of the suite" in (entry["reason"] or ""), entry


@pytest.mark.parametrize(
    ("name", "same"),
    [
        ("cf01348d73 wallet", True),  # this process's own name
        ("cf01348d73gw2 wallet", True),  # another worker of this run
        ("cf01348d74gw0 wallet", False),  # another run (another seed)
        ("Shop float", False),  # not the suite's
        (None, False),
    ],
)
def test_a_run_tells_its_own_workers_records_from_another_runs(name, same):
    """The primary-limit tests skip only for another run's primaries, never for their own run's other workers."""
    assert bodies.same_run(name, bodies.run_id(0x01348D73)) is same
    assert bodies.same_run(name, "cf01348d73gw1") is same
