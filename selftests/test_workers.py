"""The default worker count (plugin/workers.py) and the reference served from a process of its own
(reference/process.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from wallet_conformance.plugin.workers import choose_workers
from wallet_conformance.reference.process import ReferenceProcess
from wallet_conformance.settings import Settings


class Config:
    """What choose_workers reads of pytest's config: the options given, xdist's count of cores, its plugins."""

    def __init__(self, cores: int = 2, xdist: bool = True, **given: Any) -> None:
        self.option = SimpleNamespace(**{"dist": "loadgroup", "tx": [], "numprocesses": None, "usepdb": False,
                                         **given})
        self.hook = SimpleNamespace(pytest_xdist_auto_num_workers=lambda config: cores)
        self.pluginmanager = SimpleNamespace(hasplugin=lambda name: xdist and name == "xdist")

    def getoption(self, name: str, default: Any = None) -> Any:
        return getattr(self.option, name, default)


@pytest.fixture(autouse=True)
def _no_override(monkeypatch):
    """The self-tests' conftest keeps their runs in one process through this variable; these tests set their own."""
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)


def test_the_bundled_reference_gets_two_workers_per_core_at_most_four():
    """With no -n, a run against the bundled reference uses two workers per core, at most four."""
    for cores, workers in ((1, 2), (2, 4), (8, 4)):
        config = Config(cores=cores)
        choose_workers(config, Settings(), sends_requests=True)
        assert config.option.tx == ["popen"] * workers


def test_a_deployed_target_or_a_chosen_count_keeps_what_it_has():
    """A deployed target stays one process; -n, --pdb, no xdist, or a run that sends nothing change nothing."""
    cases = [(Config(), Settings(base_url="https://example.com/v1"), True), (Config(numprocesses=0), Settings(), True),
             (Config(usepdb=True), Settings(), True), (Config(xdist=False), Settings(), True),
             (Config(), Settings(), False)]
    for config, settings, sends in cases:
        choose_workers(config, settings, sends_requests=sends)
        assert config.option.tx == []


def test_the_environment_says_how_many(monkeypatch):
    """PYTEST_XDIST_AUTO_NUM_WORKERS gives the count itself; 0 keeps the run in one process."""
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    config = Config(cores=3)
    choose_workers(config, Settings(), sends_requests=True)
    assert config.option.tx == ["popen"] * 3
    config = Config(cores=0)
    choose_workers(config, Settings(), sends_requests=True)
    assert config.option.tx == []


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
