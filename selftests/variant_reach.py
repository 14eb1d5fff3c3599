"""Which variant switches each test of the conformance suite makes the bundled reference read.

A pytest plugin for one faithful run of the suite (`-p selftests.variant_reach --variant-reach FILE`): it writes, for
every variant whose switch the reference read, the node ids of the tests during which it was read, in the test or
in any fixture the test uses (a session's samples are read once, for every test that uses them). A switch read
when the reference is built (in the run's own thread, before the first test: the records it starts with, say) is
listed under AT_START; the run's preflight, whose requests the reference serves from its own thread, is made in
every run.

With a variant alone on, a test during which its switch is never read gets the answers of the faithful reference:
only the tests that read it can see it. selftests/test_variants.py runs those, and every test for a switch read at
start, which may shape what every later answer shows. What a run does after its last test (the sweep) it does in
every run, whichever tests it selects.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from wallet_conformance.reference.variants import Variant, VariantSet

AT_START = "read at start"


class Reach:
    """The switches read since the last look, from any thread of the process (the reference serves from its own)."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.built: set[str] = set()  # read in the run's own thread before the first test: building the reference
        self.started = False
        self.by_fixture: dict[str, set[str]] = {}
        self.by_test: dict[str, set[str]] = {}

    def take(self) -> set[str]:
        taken, self.read = self.read, set()
        return taken


REACH = pytest.StashKey[Reach]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--variant-reach", metavar="FILE", help="write which tests read which variant switch")


def pytest_configure(config: pytest.Config) -> None:
    reach = config.stash[REACH] = Reach()
    original = VariantSet.on

    def on(self: VariantSet, variant: Variant) -> bool:
        reach.read.add(variant.cli_name)
        if not reach.started and threading.current_thread() is threading.main_thread():
            reach.built.add(variant.cli_name)
        return original(self, variant)

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(VariantSet, "on", on)
    config.add_cleanup(monkeypatch.undo)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest) -> Iterator[None]:
    reach = request.config.stash[REACH]
    before = reach.take()
    try:
        return (yield)
    finally:
        reach.by_fixture.setdefault(fixturedef.argname, set()).update(reach.read)
        reach.read |= before


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    reach = item.config.stash[REACH]
    reach.take()
    reach.started = True
    try:
        return (yield)
    finally:
        read = reach.take()
        for name in getattr(item, "fixturenames", ()):
            read |= reach.by_fixture.get(name, set())
        reach.by_test[item.nodeid] = read


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--variant-reach")
    if not path:
        return
    reach = session.config.stash[REACH]
    tests: dict[str, list[str]] = {}
    for nodeid, read in reach.by_test.items():
        for name in read:
            tests.setdefault(name, []).append(nodeid)
    found = {name: sorted(nodeids) for name, nodeids in sorted(tests.items())}
    found[AT_START] = sorted(reach.built)
    Path(path).write_text(json.dumps(found, indent=1) + "\n")
