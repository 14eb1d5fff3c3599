"""While a conformance test runs: its declared requirement ids are the default requirement of every check, its
time on the target is bounded, a run that may not do something (NotAllowed) or a test that cannot judge
(CannotJudge) is skipped here and nowhere else, and what stopped the test is classified into its report (a request
the client found unanswered made the failure of the requirement that every request is answered): a failure of the
target is shown by its evidence, a suite error by its traceback too.

Every exchange of the run is judged as it is made, whatever made it (a test, a fixture, a setup read, a paging walk,
the cleanup at the end of the run): each process's clients feed its ExchangeJudge (judge/session.py, built by
plugin/run.py; an xdist worker's registry of records compares the answers its own tests saw). What it found during
each phase of a test rides on that phase's record (plugin/phase_record.py) to the controlling process, whose record
of judgement keeps its lines (plugin/recording.py): one record per requirement and operation broken
(`exchange-judge::REQ[operation]`, `records::REQ[operation]`), with the count, the test during which it was first
seen and that exchange as evidence. A test's teardown report is made after the fixtures it ends, the last test's
after the run's cleanup, so no exchange goes unreported."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Generator
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.redaction import redact
from wallet_conformance.judge import classification
from wallet_conformance.judge.failures import CannotJudge, declared, holding, judged_silences
from wallet_conformance.plugin import allure_labels, phase_record, replays
from wallet_conformance.plugin.collection import is_conformance_item, plain_nodeid, requirement_ids
from wallet_conformance.plugin.run import Run, state
from wallet_conformance.reporting.endings import stopped_early
from wallet_conformance.reporting.from_record import NODEID
from wallet_conformance.world.safety import NotAllowed

EXCHANGES_SHOWN = 3  # a failure's report section shows the test's last exchanges
EXCHANGES_SECTION = "exchanges (last of this test)"
TEST_START = pytest.StashKey[int]()
RATE_LIMITS_START = pytest.StashKey[int]()
HELD = pytest.StashKey[Counter[str]]()  # the checks of the test that held, by requirement


def _run_declared(item: pytest.Item) -> Generator[None, Any, Any]:
    """Runs one phase of a conformance test with its declared ids as the checks' default requirement, counting the
    checks that hold; the guard's NotAllowed and a check's CannotJudge become a skip with their reason, here and
    nowhere else."""
    if not is_conformance_item(item):
        return (yield)
    with declared(requirement_ids(item)), holding(item.stash.setdefault(HELD, Counter())):
        try:
            return (yield)
        except (NotAllowed, CannotJudge) as reason:
            pytest.skip(str(reason))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, Any, Any]:
    run = state(item.config)
    client = run.clients.first if run.clients else None
    item.stash[TEST_START] = len(client.exchanges) if client else 0
    item.stash[RATE_LIMITS_START] = len(client.rate_limited) if client else 0
    run.exchange_judge.current = plain_nodeid(item.nodeid)
    # The test's bound, cut at the end of the run's budget; teardown gets a fresh one (cleanup must happen).
    end_of_budget = run.started + run.settings.run_budget
    _bound(
        run,
        min(time.monotonic() + run.settings.test_timeout, end_of_budget),
        f"the test used up its time bound (--test-timeout {run.settings.test_timeout:g} s)"
        if time.monotonic() + run.settings.test_timeout < end_of_budget
        else f"the run used up its budget (--run-budget {run.settings.run_budget:g} s)",
    )
    if is_conformance_item(item):
        allure_labels.operation_parameter(item)
    return (yield from _run_declared(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _run_declared(item))


def pytest_runtest_teardown(item: pytest.Item) -> None:
    run = state(item.config)
    _bound(
        run,
        time.monotonic() + run.settings.test_timeout,
        f"the test's cleanup used up its time bound (--test-timeout {run.settings.test_timeout:g} s)",
    )


def _bound(run: Run, deadline: float, reason: str) -> None:
    """The run's clients read their time bound from the run (client/bound.py): move it to this test's."""
    run.bound.deadline, run.bound.reason = deadline, reason


def _clients(run: Run) -> list[ApiClient]:
    """The run's clients in this process: the first key's, and the second key's."""
    if run.clients is None:
        return []
    return [client for client in (run.clients.first, run.clients.second) if client is not None]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    if call.excinfo is not None and is_conformance_item(item):
        # A request the client found unanswered is the failure of the requirement that every request is answered,
        # in whichever phase of whichever test met it: the report is made of that failure, with the same traceback.
        judged = judged_silences(call.excinfo.value)
        if judged is not call.excinfo.value:
            call.excinfo = pytest.ExceptionInfo.from_exception(judged)
    report = yield
    if not is_conformance_item(item):
        return report
    run = state(item.config)
    record = phase_record.PhaseRecord(requirements=requirement_ids(item))
    client = run.clients.first if run.clients else None
    made = client.exchanges[item.stash.get(TEST_START, 0) :] if client is not None else []
    recent = made[-EXCHANGES_SHOWN:]
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        classified = classification.classify(call.excinfo.value, requirement_ids(item))
        if classified.suite_error:
            # A suite error judges none of the test's requirements and fails the run; its message and the test's
            # last exchanges lead the report (the record keeps the start of it).
            shown = "\n\n".join(exchange.describe() for exchange in recent) or "(none)"
            report.longrepr = f"{classified.suite_error}\n\nlast exchanges of the test:\n{shown}\n\n{report.longrepr}"
        elif not _traceback_asked(item.config):
            # The target's failure (a failed check, a refused setup step) is told by its evidence, not by the
            # traceback through the suite's own checks.
            report.longrepr = _evidence_text(call.excinfo.value)
        if made:
            for item_evidence in classified.evidence:  # no exchange of its own: the test's last one
                if "compared_with" not in item_evidence:
                    item_evidence.setdefault("exchange", classification.exchange_evidence(made[-1]))
        if client is not None and run.target is not None and classified.failed_requirements:
            start = replays.test_start(client, item.stash.get(TEST_START, 0))
            exchanges = client.exchanges[start:]
            classified.replay = replays.replay(
                run.target,
                client,
                exchanges,
                classified.evidence,
                plain_nodeid(item.nodeid),
                classified.failed_requirements,
                note=replays.unkept_note(client, start),
            )
            if run.settings.keep_failing_records:  # the end-of-run sweep leaves them open
                classified.kept = replays.wallets_used(client, exchanges)
                run.kept.update(classified.kept)
        record.error = classified
        allure_labels.attach_evidence(item.config, classified.evidence)
        if recent:
            report.sections.append((EXCHANGES_SECTION, "\n\n".join(exchange.describe() for exchange in recent)))
        if classified.blocked:
            # A test that could not judge is no failure: pytest shows it skipped, its reason the refused step.
            first = str(call.excinfo.value).strip().splitlines() or [call.excinfo.typename]
            report.outcome = "skipped"
            report.longrepr = (str(item.path), (item.location[1] or 0) + 1, f"blocked: a setup step failed: {first[0]}")
    if call.when == "call":
        allure_labels.attach_exchanges(item.config, made)
    if report.when == "call":
        record.observations = phase_record.observations(item)
        record.held = dict(item.stash.get(HELD, {}))
        if client is not None:
            record.rate_limited = client.rate_limited[item.stash.get(RATE_LIMITS_START, 0) :]
    record.findings, record.exchanges = run.exchange_judge.drain()
    if client is not None and run.target is not None:
        for finding in record.findings:  # the first time a judge tells of a requirement and operation
            if finding.evidence is not None:
                finding.replay = replays.replay(
                    run.target,
                    client,
                    made,
                    [finding.evidence],
                    NODEID.format(by=finding.by, requirement=finding.requirement, operation=finding.operation),
                    [finding.requirement],
                    note="; ".join(
                        filter(
                            None,
                            [
                                f"the exchange judge's rule {finding.rule!r}, during {finding.seen_in}",
                                replays.unkept_note(client, item.stash.get(TEST_START, 0)),
                            ],
                        )
                    ),
                )
    reason = _why_stop(run)
    if reason is not None and not item.session.shouldstop:
        record.stopped = stopped_early(reason)  # the controlling process reads it in the record (plugin/early_stop.py)
        item.session.shouldstop = reason
    phase_record.attach(report, record)
    if report.longrepr is not None:
        text = str(report.longrepr)
        if redact(text) != text:
            report.longrepr = redact(text)
    return report


def _traceback_asked(config: pytest.Config) -> bool:
    """Whether the run asked for pytest's traceback of a failure: -v, a --tb style, or --showlocals."""
    return config.get_verbosity() >= 1 or config.option.tbstyle != "auto" or config.option.showlocals


def _evidence_text(error: BaseException) -> str:
    """What a failure of the target says, error by error: a check's evidence (or the refused step's message) and the
    notes Hypothesis added to it (the example it drew), without the traceback."""
    if isinstance(error, BaseExceptionGroup):
        head = [str(error), *getattr(error, "__notes__", ())]  # Hypothesis: "found 2 distinct failures"
        return "\n\n".join(["\n".join(head), *(_evidence_text(inner) for inner in error.exceptions)])
    refused = "" if classification.error_evidence(error)["kind"] == "check" else "a setup step failed: "
    return "\n".join([refused + str(error).strip(), *getattr(error, "__notes__", ())])


def _why_stop(run: Run) -> str | None:
    """Why the run should stop after this test (the target is down, failing, or the budget is gone), or None."""
    for client in _clients(run):
        if client.target_down:
            return "the target stopped answering: the run stops here rather than wait on every request"
        if client.target_failing:
            return (
                f"the target is failing: {client.server_errors} of its last {len(client.recent_statuses)} "
                "answers were 5xx; the run stops here rather than fail every test on it"
            )
        if any(entry["gave_up"] for entry in client.rate_limited):
            return (
                "the target kept answering 429 (rate limited) past what the run may wait (--rate-limit-wait "
                f"{run.settings.rate_limit_wait:g} s in all): the run stops here rather than judge throttled "
                "answers"
            )
    if time.monotonic() - run.started > run.settings.run_budget:
        return f"the run used up its budget (--run-budget {run.settings.run_budget:g} s): it stops with what it has"
    return None
