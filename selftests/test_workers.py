"""The default worker count against the bundled reference (plugin/session.py) and the reference served from a
process of its own (reference/process.py)."""

from __future__ import annotations

import os

import httpx
import pytest

from wallet_conformance.plugin.collection import ACCOUNT_WIDE_GROUP, OPERATION_GROUP
from wallet_conformance.plugin.session import local_workers, usable_cores
from wallet_conformance.reference.process import ReferenceProcess
from wallet_conformance.settings import Settings
from wallet_conformance.spec.files import ROOT


def test_the_bundled_reference_gets_one_worker_more_than_the_cores_at_most_four():
    """With no -n, a run against the bundled reference uses one worker more than the cores, at most four; a deployed
    target gets no count of ours (xdist's own for `-n auto`; with no -n, one process)."""
    assert [local_workers(True, cores) for cores in (1, 2, 3, 8, None)] == [2, 3, 4, 4, 2]
    assert local_workers(False, 8) is None


def test_the_cores_counted_are_those_the_run_may_use(tmp_path):
    """The worker count reads the cores of the process's affinity, fewer where its control group's CPU quota
    (cgroup v2's cpu.max) allows less, rounded up; no quota, or none readable, leaves the affinity's count."""
    affinity = len(os.sched_getaffinity(0))
    quota = tmp_path / "cpu.max"
    assert usable_cores(tmp_path / "absent") == affinity
    quota.write_text("max 100000\n")
    assert usable_cores(quota) == affinity
    quota.write_text("150000 100000\n")  # a container given 1.5 CPUs
    assert usable_cores(quota) == min(affinity, 2)
    quota.write_text("50000 100000\n")
    assert usable_cores(quota) == 1
    quota.write_text("nonsense\n")
    assert usable_cores(quota) == affinity


@pytest.mark.parametrize(
    ("base_url", "local"),
    [
        (None, True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://127.9.9.9/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://localhost:3000/v1", True),
        ("https://staging.example.com/v1", False),
        ("http://10.0.0.5/v1", False),
        ("http://localhost.example.com/v1", False),
    ],
)
def test_a_target_on_this_machine_is_the_bundled_reference_or_a_loopback_address(base_url, local):
    """The implementer's own server (127.0.0.0/8, ::1, localhost) counts as on this machine, as the bundled reference
    does, and gets the same workers by default; any other address is a deployed target."""
    assert Settings(base_url=base_url).on_this_machine is local


class _Groups:
    """The xdist group each collected test was given (the suite's plugin adds them first)."""

    def __init__(self) -> None:
        self.of: dict[str, str | None] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            mark = item.get_closest_marker("xdist_group")
            self.of[item.nodeid] = mark.args[0] if mark else None


DEPLOYED = ("--base-url", "https://staging.example.com/v1", "--secret-key", "sk-deployed")


@pytest.mark.parametrize("target", [(), DEPLOYED], ids=["here", "away"])
def test_the_generated_tests_share_one_worker_only_on_this_machine(pytester, tmp_path, target):
    """Against a target on this machine the Schemathesis-generated tests share the account-wide xdist group, so one
    worker loads Schemathesis; against a deployed target they spread by operation (createWallet's stay account-wide)."""
    groups = _Groups()
    result = pytester.runpytest_inprocess(
        str(ROOT / "tests" / "generated" / "test_schemathesis.py"),
        *("--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"), "-p", "no:cacheprovider", "--collect-only"),
        *("--report-dir", str(tmp_path / "reports"), "--work-dir", str(tmp_path / "work"), *target),
        plugins=[groups],
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert len(groups.of) > 30
    if not target:
        assert set(groups.of.values()) == {ACCOUNT_WIDE_GROUP}
        return
    for nodeid, group in groups.of.items():
        operation = nodeid.rsplit("[", 1)[1].rstrip("]")
        assert group == (ACCOUNT_WIDE_GROUP if operation == "createWallet" else f"{OPERATION_GROUP}{operation}"), nodeid


def test_the_reference_process_serves_and_ends_when_stopped():
    """The reference started as its own process answers with the key it printed, and is gone once stopped."""
    server = ReferenceProcess(settle_delay=0.1).start()
    try:
        answer = httpx.get(f"{server.base_url}/transactions/banks", headers={"x-service-key": server.secret_key})
        assert answer.status_code == 200
        assert server.second_secret_key and server.funding_url.startswith(server.base_url.removesuffix("/v1"))
        process = server._process
    finally:
        server.stop()
    assert process is not None and process.returncode is not None
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{server.base_url}/transactions/banks", headers={"x-service-key": server.secret_key})
