"""--har: conformance from recorded traffic. No target is started, no preflight made, no test collected: pytest's
session is not even begun. The recorded exchanges are judged in a ReportingSession (reporting/recorded.py, the run the
installed command makes of the same options): the same exchange judge and registry of records an active run feeds
(judge/session.py), whose findings become the same records (`exchange-judge::REQ[operation]`,
`records::REQ[operation]`), each failure's evidence naming the file and the entry.

A requirement the judges stand for (judge/traffic.py) passes when some recorded exchange was held to it and none
broke it; one they do not stand for is untested: it needs an active run.
"""

from __future__ import annotations

import os

import pytest

from wallet_conformance.plugin.options import settings
from wallet_conformance.reporting.conformance import gate_for
from wallet_conformance.reporting.gating import GateError
from wallet_conformance.reporting.recorded import judge_recorded
from wallet_conformance.settings import BY_FLAG, value_of

HAR = BY_FLAG["--har"]


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """--har: the recorded traffic judged and reported in place of pytest's session; its exit status is the run's."""
    if not value_of(HAR, config.getoption(HAR.dest, default=None), os.environ):
        return None
    found = settings(config)
    try:
        gate = gate_for(found)
    except GateError as error:
        raise pytest.UsageError(str(error)) from None
    return judge_recorded(found, gate)
