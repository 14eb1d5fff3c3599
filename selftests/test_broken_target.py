"""A target that stops answering does not hang the suite: the client fails fast and the run stops."""

from __future__ import annotations

import socket
import time

import pytest

from selftests.suite_runs import run_sample as run
from wallet_conformance.client.api import MAX_TRANSPORT_FAILURES, ApiClient, TargetError
from wallet_conformance.exit_status import ExitStatus


@pytest.fixture
def silent_port():
    """A port that accepts connections but never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def test_client_stops_waiting_once_the_target_is_down(silent_port):
    """After MAX_TRANSPORT_FAILURES unanswered sends in a row (a retry and the cheap read that asks whether the target
    is alive count as sends), further requests fail at once without being sent."""
    client = ApiClient(f"http://127.0.0.1:{silent_port}/v1", "k-selftest", timeout=0.2)
    calls = 0
    while not client.target_down:
        calls += 1
        assert calls <= MAX_TRANSPORT_FAILURES, "the client kept waiting on a target that answers nothing"
        with pytest.raises(TargetError, match=r"ReadTimeout|stopped answering"):
            client.call("listBanks")
    started = time.perf_counter()
    with pytest.raises(TargetError, match="stopped answering"):
        client.call("listBanks")
    assert time.perf_counter() - started < 0.05 and client.target_down
    client.close()


DOWN = '''
import socket
with socket.socket() as _probe:
    _probe.bind(("127.0.0.1", 0))
    CLOSED = _probe.getsockname()[1]  # bound, never listening: connections are refused


@pytest.mark.requirement("SVC-03")
@pytest.mark.parametrize("n", range(12))
def test_call(api, n):
    """Each call finds nobody."""
    api.request("GET", f"http://127.0.0.1:{CLOSED}/v1/transactions/banks", absolute=True)
'''


def test_run_stops_when_the_target_stops_answering(pytester):
    """Once the target is taken as down, the run stops after the current test instead of trying every test."""
    result, report = run(pytester, DOWN, "-rs")
    output = result.stdout.str()
    assert "the target stopped answering" in output
    # A target that gives no answer judges nothing: the tests could not judge (skipped, never FAILED), their
    # requirement is blocked (never a pass); the run stopped early, and says so and why everywhere.
    result.assert_outcomes(skipped=MAX_TRANSPORT_FAILURES)
    assert report is not None and report["outcome"]["must_failed"] == []
    verdict = next(entry["verdict"] for entry in report["requirements"] if entry["id"] == "SVC-03")
    assert verdict == "blocked" and result.ret == ExitStatus.TARGET_FAILING
    assert report["outcome"]["verdict"] == "stopped-early" and report["outcome"]["exit_status"] == result.ret
    assert "stopped answering" in report["stopped"]["reason"]
    # pytest's own settings (--tb, -r) stay the user's: -rs lists each test blocked before the stop by its first line.
    result.stdout.fnmatch_lines(["*short test summary info*", "SKIPPED *blocked: a setup step failed*"])
    assert result.stdout.lines[-1] == "wallet-conformance: STOPPED EARLY: no verdict on the target; exit status 9"
