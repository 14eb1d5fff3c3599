"""Which switches of the bundled reference (variants, faults) each test of the conformance suite makes it read.

A pytest plugin for one faithful run of the suite (`-p selftests.switch_reach --variant-reach FILE --fault-reach
FILE`): it writes, for every switch the reference read, the node ids of the tests during which it was read, in the
test or in any fixture the test uses (a session's samples are read once, for every test that uses them). A switch
read when the reference is built (in the run's own thread, before the first test: the records it starts with, say)
is listed under AT_START; the run's preflight, whose requests the reference serves from its own thread, is made in
every run.

With one switch on, a test during which it is never read gets the answers of the faithful reference: only the tests
that read it can see it. selftests/test_variants.py runs those for each variant, and every test for a switch read at
start, which may shape what every later answer shows; scripts/precision.py does the same for each fault, to find every
requirement a fault fails. What a run does after its last test (the sweep) it does in every run, whichever tests it
selects.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from wallet_conformance.reference.faults import FaultSet
from wallet_conformance.reference.variants import VariantSet

AT_START = "read at start"
# The switch sets whose reads are followed, each with the option naming the file its reach is written to.
FOLLOWED = {"--variant-reach": VariantSet, "--fault-reach": FaultSet}


class Reach:
    """The switches of one kind read since the last look, from any thread of the process (the reference serves from
    its own)."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.built: set[str] = set()  # read in the run's own thread before the first test: building the reference
        self.by_fixture: dict[str, set[str]] = {}
        self.by_test: dict[str, set[str]] = {}

    def take(self) -> set[str]:
        taken, self.read = self.read, set()
        return taken


REACHES = pytest.StashKey[dict[str, Reach]]()
STARTED = pytest.StashKey[list[bool]]()
USED = pytest.StashKey[list[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--variant-reach", metavar="FILE", help="write which tests read which variant switch")
    parser.addoption("--fault-reach", metavar="FILE", help="write which tests read which fault switch")


def pytest_configure(config: pytest.Config) -> None:
    reaches = config.stash[REACHES] = {option: Reach() for option in FOLLOWED}
    started = config.stash[STARTED] = [False]
    monkeypatch = pytest.MonkeyPatch()
    for option, switches in FOLLOWED.items():
        reach, original = reaches[option], switches.on

        def on(self, switch, reach=reach, original=original) -> bool:
            reach.read.add(switch.cli_name)
            if not started[0] and threading.current_thread() is threading.main_thread():
                reach.built.add(switch.cli_name)
            return original(self, switch)

        monkeypatch.setattr(switches, "on", on)
    config.add_cleanup(monkeypatch.undo)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest) -> Iterator[None]:
    reaches = request.config.stash[REACHES].values()
    before = [reach.take() for reach in reaches]
    try:
        return (yield)
    finally:
        for reach, earlier in zip(reaches, before, strict=True):
            reach.by_fixture.setdefault(fixturedef.argname, set()).update(reach.read)
            reach.read |= earlier


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    reaches = item.config.stash[REACHES].values()
    for reach in reaches:
        reach.take()
    item.config.stash[STARTED][0] = True
    try:
        return (yield)
    finally:
        used = item.stash.get(USED, getattr(item, "fixturenames", ()))
        for reach in reaches:
            read = reach.take()
            for name in used:
                read |= reach.by_fixture.get(name, set())
            reach.by_test[item.nodeid] = read


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Every fixture the test used, those it asked for by name while it ran too (the samples: `samples("transfer")` is
    the session fixture sample_transfer, made by the first test that asks and taken from the cache after); read
    before the teardown, which drops the test's fixture request."""
    request = getattr(item, "_request", None)
    if request:
        item.stash[USED] = list(request.fixturenames)


def pytest_sessionfinish(session: pytest.Session) -> None:
    for option, reach in session.config.stash[REACHES].items():
        path = session.config.getoption(option)
        if not path:
            continue
        tests: dict[str, list[str]] = {}
        for nodeid, read in reach.by_test.items():
            for name in read:
                tests.setdefault(name, []).append(nodeid)
        found = {name: sorted(nodeids) for name, nodeids in sorted(tests.items())}
        found[AT_START] = sorted(reach.built)
        Path(path).write_text(json.dumps(found, indent=1) + "\n")
