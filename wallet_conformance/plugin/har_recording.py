"""--record-har: every exchange the run's clients make, written as one HAR 1.2 file.

Each process that runs tests (the only one, or each xdist worker) appends its clients' exchanges to a part file of
its own as they are made (plugin/run.py opens it; client/har/parts.py: redacted, bodies as the client cut them);
when the run ends, the controlling process, whose session ends after every worker's, merges the parts into the file
in the order the requests started.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.har.parts import join
from wallet_conformance.plugin.run import is_worker, state
from wallet_conformance.reporting.conformance import suite_version

WRITTEN = pytest.StashKey[tuple[Path, int]]()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    run = state(config)
    if run.recorder is not None:
        run.recorder.close()
    folder, target = run.har_parts, run.settings.record_har
    if folder is None or target is None or is_worker(config):
        return
    parts = sorted(folder.glob("*.part")) if folder.is_dir() else []
    count = join(parts, target, {"name": "wallet-conformance", "version": suite_version()})
    shutil.rmtree(folder, ignore_errors=True)
    config.stash[WRITTEN] = (target, count)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    written = terminalreporter.config.stash.get(WRITTEN, None)
    if written is not None:
        terminalreporter.write_line(f"HAR: {written[1]} exchange(s) recorded in {written[0]}")
