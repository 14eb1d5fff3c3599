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
from wallet_conformance.reporting.judging import JudgingSession
from wallet_conformance.settings import Settings


def _base_url(settings: Settings) -> str | None:
    """The target's base address: --base-url, else the one `/v1` origin of the entries (None when they have none:
    nothing is judged; refused when they have several)."""
    found = har.bases(settings.har)
    if settings.base_url:
        return settings.base_url
    if len(found) <= 1:
        return next(iter(found), None)
    listing = ", ".join(f"{base} ({count} entries)" for base, count in sorted(found.items()))
    raise har.HarError(f"the recorded entries are under more than one base address: {listing}; choose the "
                       "target's with --base-url")


def judge_traffic(settings: Settings) -> JudgingSession:
    """The recorded exchanges judged in one JudgingSession (reporting/judging.py). Every file is read through once
    before any is judged: a file that is not a HAR stops the run before anything is reported."""
    session = JudgingSession(_base_url(settings), [str(path) for path in settings.har])
    for recorded in har.recorded(settings.har, session.base_url):
        session.judge(recorded.exchange, {"file": str(recorded.file), "entry": recorded.index,
                                          "request": recorded.request})
    return session


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
        session = judge_traffic(run.settings)
    except har.HarError as error:
        run.not_run = NotRun(redact(str(error)), ExitStatus.CANNOT_RUN)
        return True
    run.judging = session  # the reports take its records, counts and traffic (plugin/recording.py)
    return True
