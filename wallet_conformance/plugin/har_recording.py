"""--record-har: every exchange the run's clients make, written as one HAR 1.2 file.

Each process (the only one, or each xdist worker) appends its clients' exchanges to a part file of its own as they
are made (client/har.py: redacted, bodies as the client cut them); when the run ends, the controlling process, whose
session ends after every worker's, merges the parts into the file in the order the requests started.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client import har
from wallet_conformance.plugin.state import is_worker, state
from wallet_conformance.reporting.conformance import suite_version

WORKER_PARTS = "wallet_conformance_har_parts"
PART = pytest.StashKey[har.PartWriter]()
WRITTEN = pytest.StashKey[tuple[Path, int]]()


def _parts(config: pytest.Config) -> Path | None:
    """The folder of the run's part files; None when the run records nothing."""
    if is_worker(config):
        folder = config.workerinput.get(WORKER_PARTS)
        return Path(folder) if folder else None
    target = state(config).settings.record_har
    return target.with_name(target.name + ".parts") if target is not None else None


def part(config: pytest.Config) -> har.PartWriter | None:
    """This process's part file, opened on first use; None when the run records nothing."""
    folder = _parts(config)
    if folder is None:
        return None
    if PART not in config.stash:
        name = config.workerinput.get("workerid", "worker") if is_worker(config) else "main"
        config.stash[PART] = har.PartWriter(folder / f"{name}.part")
    return config.stash[PART]


def pytest_configure(config: pytest.Config) -> None:
    folder = _parts(config)
    if folder is not None and not is_worker(config):
        shutil.rmtree(folder, ignore_errors=True)  # the parts of an earlier run that did not end


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: every worker writes its part beside the others."""
    folder = _parts(node.config)
    if folder is not None:
        node.workerinput[WORKER_PARTS] = str(folder)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    writer = config.stash.get(PART, None)
    if writer is not None:
        writer.close()
    folder = _parts(config)
    if folder is None or is_worker(config):
        return
    target = state(config).settings.record_har
    assert target is not None
    parts = sorted(folder.glob("*.part")) if folder.is_dir() else []
    count = har.join(parts, target, {"name": "wallet-conformance", "version": suite_version()})
    shutil.rmtree(folder, ignore_errors=True)
    config.stash[WRITTEN] = (target, count)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    written = terminalreporter.config.stash.get(WRITTEN, None)
    if written is not None:
        terminalreporter.write_line(f"HAR: {written[1]} exchange(s) recorded in {written[0]}")
