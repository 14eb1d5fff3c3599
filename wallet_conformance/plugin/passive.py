"""--har: conformance from recorded traffic. No target is started, no preflight made, no test collected: the
recorded exchanges are read one at a time (client/har.py) and judged in a JudgingSession (reporting/judging.py): the
same exchange judge and registry of records an active run feeds (plugin/exchange_judging.py), whose findings become
the same records
(`exchange-judge::REQ[operation]`, `records::REQ[operation]`), each failure's evidence naming the file and the entry.

A requirement the judges stand for (judge/traffic.py) passes when some recorded exchange was held to it and none
broke it; one they do not stand for is untested: it needs an active run.
"""

from __future__ import annotations

import pytest

from wallet_conformance.client import har
from wallet_conformance.client.redaction import redact
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.plugin.state import NotRun, is_worker, state
from wallet_conformance.reporting.judging import recorded_session


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> bool | None:
    """Passive: nothing is collected, no test runs."""
    if not state(session.config).settings.passive:
        return None
    session.items = []
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """Passive: the recorded traffic judged, its records handed to the reports (plugin/recording.py)."""
    run = state(session.config)
    if not run.settings.passive or is_worker(session.config):
        return None
    try:
        judging = recorded_session(run.settings)
    except har.HarError as error:
        run.not_run = NotRun(redact(str(error)), ExitStatus.CANNOT_RUN)
        return True
    run.judging = judging  # the reports take its records, counts and traffic (plugin/recording.py)
    return True
