"""The record of judgement (judge/judgement.py): every mode writes judgement.jsonl, and the reports are made from it
alone, so that a run's reports and those rebuilt from its record are the same files, and a record read live (the
proxy's) is whole line by line."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from selftests.proxy_traffic import caught_up, proxied, tour
from selftests.record_lines import opening
from selftests.suite_runs import QUICK_SETTLEMENT, run_suite
from wallet_conformance.client.har.httpx_response import from_httpx
from wallet_conformance.client.redaction import PLACEHOLDER, Secrets
from wallet_conformance.judge.judgement import FILE_NAME, FORMAT, Judgement, JudgementError, read, runs
from wallet_conformance.judge.session import JudgingSession
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reporting.from_record import build_report, write_record
from wallet_conformance.reporting.gating import Gate
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.reporting.writers import write_all
from wallet_conformance.spec import validation

REPORTS = ("conformance.json", "conformance.md", "conformance.html", "junit.xml")


def rebuilt(folder: Path, into: Path) -> dict:
    """The reports of `folder`'s record, written into `into`; conformance.json's content."""
    report = build_report(read(folder / FILE_NAME))
    write_all(report, into)
    return report


def test_a_runs_reports_are_made_again_byte_for_byte_from_its_record(tmp_path):
    """A run on workers with a fault (failures with evidence and replays, the exchange judge's findings, skips): the
    four reports rebuilt from its judgement.jsonl are its reports, byte for byte; and every line meets the schema."""
    process, report, _ = run_suite(
        tmp_path / "run",
        "-n",
        "2",
        "--reference-fault",
        Fault.WRONG_CLOSE_MESSAGE.cli_name,
        "--reference-fault",
        Fault.PAGINATION_TOTAL_AS_STRING.cli_name,
        *QUICK_SETTLEMENT,
        paths=("tests/test_service.py", "tests/test_resources.py"),
    )
    assert report is not None and report["outcome"]["verdict"] == Outcome.DOES_NOT_CONFORM, process.stdout[-3000:]
    lines = read(tmp_path / "run" / FILE_NAME)
    kinds = {line["kind"] for line in lines}
    assert kinds == {"run", "phase", "exchange", "finding", "ending"}, kinds
    rebuilt(tmp_path / "run", tmp_path / "again")
    for name in REPORTS:
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "run" / name).read_bytes(), name
    for line in lines:
        assert validation.problems("judgement-line.json", line) == [], line["kind"]
    made = sum(1 for line in lines if line["kind"] == "exchange" and line.get("taken") and not line.get("error"))
    assert report["run"]["exchanges"]["made"] == made > 0
    assert f"Reports in {tmp_path / 'run'}: " in process.stdout and FILE_NAME in process.stdout


def test_recorded_traffic_and_a_stopped_run_leave_a_record_their_reports_are_made_of(tmp_path):
    """--har's record rebuilds its report; a run stopped at its preflight (no target) leaves a two-line record
    whose report is the same stop; neither holds the key."""
    key = "sk_test_record_key_0123456789"
    recording = tmp_path / "traffic.har"
    with ReferenceServer(secret_key=key, faults=[Fault.WRONG_CLOSE_MESSAGE], settle_delay=0.05) as reference:
        process, recorded, _ = run_suite(
            tmp_path / "active",
            "--base-url",
            reference.base_url,
            "--secret-key",
            key,
            "--funding-url",
            reference.funding_url,
            "--record-har",
            str(recording),
            *QUICK_SETTLEMENT,
            "-k",
            "close",
            paths=("tests/test_service.py",),
        )
    assert recorded is not None, process.stdout[-3000:]
    process, passive, _ = run_suite(
        tmp_path / "har", "--har", str(recording), "--base-url", reference.base_url, "--secret-key", key
    )
    assert passive is not None and passive["traffic"]["entries"] > 0, process.stdout[-3000:]
    assert rebuilt(tmp_path / "har", tmp_path / "har-again") == passive
    again, first = (tmp_path / "har-again" / "conformance.md"), (tmp_path / "har" / "conformance.md")
    assert again.read_bytes() == first.read_bytes()
    process, stopped, _ = run_suite(tmp_path / "stopped", "--base-url", "http://127.0.0.1:9/v1", "--secret-key", key)
    assert stopped is not None and stopped["outcome"]["verdict"] == Outcome.STOPPED_AT_PREFLIGHT, process.stdout[-2000:]
    lines = read(tmp_path / "stopped" / FILE_NAME)
    assert [line["kind"] for line in lines] == ["run", "ending"] and build_report(lines) == stopped
    for folder in ("active", "har", "stopped"):
        assert key not in (tmp_path / folder / FILE_NAME).read_text()


def test_the_proxys_record_is_read_live_and_makes_its_final_report(tmp_path):
    """The proxy writes its record as it judges: while it runs, a reader sees whole lines (the run's first, the
    exchanges judged, the findings) and a report made from them says the run has not finished; once stopped, the
    record has its ending, and makes the proxy's own final report."""
    with proxied([Fault.WRONG_CLOSE_MESSAGE.cli_name], report_dir=tmp_path) as (reference, proxy):
        tour(proxy.base_url, reference.secret_key, "cf0live")
        caught_up(proxy)
        live = read(tmp_path / FILE_NAME)
        assert live[0]["mode"] == "proxy" and any(line["kind"] == "finding" for line in live)
        assert all(line["kind"] != "ending" for line in live)
        assert build_report(live)["outcome"]["verdict"] == Outcome.UNFINISHED
    final = proxy.report()
    lines = read(tmp_path / FILE_NAME)
    assert lines[-1]["kind"] == "ending" and lines[-1]["run"]["proxy"]["forwarded"] > 0
    assert build_report(lines) == final and final["outcome"]["verdict"] == Outcome.DOES_NOT_CONFORM
    assert build_report(lines)["traffic"]["notes"] == final["traffic"]["notes"]


def test_a_record_is_refused_when_it_is_no_record_and_read_when_its_last_line_was_cut(tmp_path):
    """read() refuses a file whose first line is no run line of this format (naming it), and a line in the middle that
    is not JSON; a last line cut short (a run killed while writing) is left out."""
    good = tmp_path / "good" / FILE_NAME
    write_record(
        [opening()],
        good.parent,
    )
    good.write_text(good.read_text() + '{"kind": "phase", "nodeid": "cut sho')
    assert [line["kind"] for line in read(good)] == ["run"]
    assert len(runs(read(good))) == 1
    bad = tmp_path / "bad.jsonl"
    for text in (
        '{"hello": 1}\n',
        f'{{"kind": "run", "format": "{FORMAT}x"}}\n',
        good.read_text().split("\n")[0] + "\nnot json\n{}\n",
    ):
        bad.write_text(text)
        try:
            read(bad)
        except JudgementError as error:
            assert str(bad) in str(error)
        else:
            raise AssertionError(f"read {text!r}")


def test_a_line_is_written_as_a_reader_reads_it_and_keys_are_not_written(tmp_path):
    """Judgement.add gives the line as the file holds it (JSON types, redacted), written and flushed at once."""
    from wallet_conformance.client.redaction import Secrets, activate, deactivate

    secrets = Secrets()
    activate(secrets)
    try:
        secrets.add_key("sk_live_do_not_write_0123456789")
        judgement = Judgement(tmp_path / FILE_NAME)
        written = judgement.add(
            {"kind": "exchange", "url": "https://x/v1?k=sk_live_do_not_write_0123456789", "held": ("SVC-01",)}
        )
        on_disk = json.loads((tmp_path / FILE_NAME).read_text())
        judgement.close()
    finally:
        deactivate(secrets)
    assert written == on_disk and written["held"] == ["SVC-01"]
    assert "sk_live_do_not_write" not in (tmp_path / FILE_NAME).read_text()


def test_a_sessions_listeners_read_each_line_as_its_file_holds_it(tmp_path):
    """The lines a JudgingSession hands its listeners (an exchange held, one broken, one of no operation, one outside
    the target, a finding) are those its record file holds, of the same JSON types, though most are not read back."""
    base = "http://127.0.0.1:9/v1"
    heard: list[dict] = []
    session = JudgingSession(
        base, opening("har", base, Gate(traffic=True)), record=tmp_path / FILE_NAME, listeners=[heard.append]
    )
    answers = [
        ("GET", f"{base}/transactions/banks", {"meta": {"statusCode": 200, "success": True}, "data": []}),
        ("GET", f"{base}/transactions/banks", {"data": "no envelope"}),
        ("GET", f"{base}/no-such-operation", {}),
    ]
    for method, url, body in answers:
        response = httpx.Response(200, json=body, request=httpx.Request(method, url))
        session.judge(from_httpx(response, base), {"file": "traffic.har", "entry": len(heard)})
    session.judge(None, {"file": "traffic.har", "entry": 99})
    session.finish({"kind": "ending"})
    kinds = [line["kind"] for line in heard]
    assert kinds.count("exchange") == 4 and "finding" in kinds
    assert heard == read(tmp_path / FILE_NAME)


def test_two_judging_sessions_of_one_process_keep_their_secrets_apart():
    """Two JudgingSessions in one process, each given its own Secrets: each record, its evidence and its judge's
    errors included, hides its own key; the process's active secrets hold neither."""
    base = "http://127.0.0.1:9/v1"
    keys = ("first-session-" + "a" * 24, "second-session-" + "b" * 24)
    sessions = []
    for key in keys:
        secrets = Secrets()
        secrets.add(key)
        sessions.append(JudgingSession(base, opening("har", base, Gate(traffic=True)), secrets=secrets))
    echoed = json.dumps({"echo": list(keys)})  # an answer breaking the envelope, showing both keys
    for session in sessions:
        response = httpx.Response(200, text=echoed, request=httpx.Request("GET", f"{base}/transactions/banks"))
        result = session.judge(from_httpx(response, base))
        session.failed_on(f"a capture naming {keys[0]} and {keys[1]}", RuntimeError("unreadable"))
        assert result.first_findings and result.broke
    first, second = (json.dumps(session.lines) for session in sessions)
    assert keys[0] not in first and keys[1] in first and first.count(PLACEHOLDER) >= 2
    assert keys[1] not in second and keys[0] in second and second.count(PLACEHOLDER) >= 2
