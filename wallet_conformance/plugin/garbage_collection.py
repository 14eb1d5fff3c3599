"""How a run's processes collect their garbage: what collection built (modules, the catalogue, the schemas, a thousand
test items) is frozen once collected, out of the cyclic collector's walks, and young objects are collected less
often. Measured (docs/performance.md): the collector's full walks over that heap were a tenth of a default run's CPU,
because every test's exchanges, Hypothesis' draws and the judge's records keep promoting objects to the oldest
generation, each of whose collections walked the whole heap again.

A run inside another process (the self-tests' in-process runs) hands the process back as it found it: unfrozen, its
thresholds restored. A process that exits after its run freezes everything first, sparing the interpreter a last walk
of every object the run made (xdist's workers all exit at once; on two cores that walk cost most of a second)."""

from __future__ import annotations

import atexit
import functools
import gc

import pytest

from wallet_conformance.settings.program import GC_THRESHOLDS


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # Cleanups run last-registered first: this one, registered before any other plugin's, runs after pytest's own
    # (its unraisable-exception check collects garbage once more, over a heap still frozen).
    config.add_cleanup(functools.partial(_hand_back, gc.get_threshold()))
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    gc.freeze()  # the modules and the configuration: all an xdist controller, which collects no test, builds


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    # pytest's unraisable-exception check collects garbage twice more (in its unconfigure and its cleanup): over what
    # was made since this freeze, not every record and exchange of the run again (0.14 s in a run in one process).
    gc.freeze()


def _hand_back(thresholds: tuple[int, ...]) -> None:
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    atexit.register(gc.freeze)
