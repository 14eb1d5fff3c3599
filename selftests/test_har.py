"""Recorded traffic: an active run written as HAR 1.2 (--record-har), and HAR files judged without sending a request
(--har) by the same exchange judge and registry of records; each mode proves the other."""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from selftests.suite_runs import HAND_WRITTEN, QUICK_SETTLEMENT, run_in_process, run_suite, tail
from wallet_conformance import cli
from wallet_conformance.client.har import recorded_files, stream
from wallet_conformance.client.har.httpx_response import from_httpx
from wallet_conformance.client.redaction import PLACEHOLDER
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.judge.traffic import NEEDS_AN_ACTIVE_RUN, judged_from_traffic
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reporting.judging import ReportingSession
from wallet_conformance.settings import OPTIONS, har_files, read
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import ROOT
from wallet_conformance.world import bodies

HAR_SCHEMA = json.loads((Path(__file__).parent / "har-1.2.schema.json").read_text())
REFERENCE_KEY = re.compile(r"(?:test|live)_sk_[0-9a-f]{6}")  # the bundled reference's keys (reference/server.py)
SUBSET = ("tests/test_endpoints.py",)  # an active run of every operation, short
RECOGNISABLE_KEY = "sk_live_RECOGNISABLE_0123456789abcdef"
MITMDUMP_START = 60  # seconds mitmdump may take to listen (it imports much of its own on two busy cores)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def recorded_run(
    pytester: pytest.Pytester, folder: Path, *args: str, paths: tuple[str, ...] = SUBSET
) -> tuple[Path, dict[str, Any]]:
    """An active run against the bundled reference, recorded; the HAR and the run's report."""
    path = folder / "run.har"
    process, report, _ = run_in_process(
        pytester, folder / "active", "--record-har", str(path), *QUICK_SETTLEMENT, "--tb=line", *args, paths=paths
    )
    assert report is not None and path.exists(), tail(process)
    return path, report


def judged(pytester: pytest.Pytester, folder: Path, *args: str) -> tuple[Any, dict[str, Any] | None]:
    """A passive run (--har ...): the process and its report."""
    process, report, _ = run_in_process(pytester, folder, *args, paths=("tests",))
    return process, report


def verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["verdict"] for entry in report["requirements"]}


def failed(report: dict[str, Any], levels: tuple[str, ...] = ("MUST", "SHOULD")) -> set[str]:
    return {entry["id"] for entry in report["requirements"] if entry["verdict"] == "fail" and entry["level"] in levels}


def har_file(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text(
        json.dumps({"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": entries}})
    )
    return path


def har_entry(
    method: str, url: str, status: int, body: Any, headers: list[tuple[str, str]] = (), sent: Any = None
) -> dict[str, Any]:
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": [{"name": name, "value": value} for name, value in headers],
        "queryString": [],
        "headersSize": -1,
        "bodySize": 0,
    }
    if sent is not None:
        request["postData"] = {"mimeType": "application/json", "text": json.dumps(sent)}
    text = json.dumps(body)
    return {
        "startedDateTime": "2026-11-26T00:00:00.000Z",
        "time": 5,
        "request": request,
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [{"name": "content-type", "value": "application/json"}],
            "content": {"size": len(text), "mimeType": "application/json", "text": text},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(text),
        },
        "cache": {},
        "timings": {"send": 0, "wait": 5, "receive": 0},
    }


@pytest.fixture(scope="module")
def faithful(tmp_path_factory) -> Path:
    """A HAR of an active run against the faithful reference, on two xdist workers (their parts joined in one file)."""
    folder = tmp_path_factory.mktemp("faithful")
    path = folder / "run.har"
    process, report, _ = run_suite(
        folder / "active", "--record-har", str(path), "-n", "2", *QUICK_SETTLEMENT, paths=SUBSET
    )
    assert report is not None and path.exists(), tail(process)
    return path


# ------------------------------------------------------------------ --record-har


def test_recorded_run_is_har_1_2_without_a_key(faithful):
    """The recording of a run on two workers is one HAR 1.2 file, every exchange an entry in the order sent, every
    key header redacted and no key of the reference anywhere in it."""
    text = faithful.read_text()
    document = json.loads(text)
    errors = sorted(
        Draft202012Validator(HAR_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER).iter_errors(document),
        key=lambda error: list(error.absolute_path),
    )
    assert not errors, [f"{list(error.absolute_path)}: {error.message}" for error in errors[:5]]
    entries = document["log"]["entries"]
    assert document["log"]["version"] == "1.2" and len(entries) > 50
    started = [entry["startedDateTime"] for entry in entries]
    assert started == sorted(started)
    keys = {
        header["value"]
        for entry in entries
        for header in entry["request"]["headers"]
        if header["name"].lower() == "x-service-key"
    }
    assert keys == {"<SECRET_KEY>"}, keys
    assert not REFERENCE_KEY.search(text)
    assert not list(faithful.parent.glob("*.parts"))


# ------------------------------------------------------------------ the two modes prove each other


def test_faithful_recording_conforms_to_what_the_traffic_showed(pytester, faithful):
    """Judged passively, the faithful run's recording breaks nothing: the outcome is "conforms to what the traffic
    showed", every operation has exchanges, requirements the judges stand for pass, the others need an active run."""
    process, report = judged(pytester, pytester.path / "passive", "--har", str(faithful))
    assert report is not None, tail(process)
    assert process.returncode == 0, tail(process)
    assert report["outcome"]["verdict"] == "conforms-to-what-the-traffic-showed"
    assert not failed(report, ("MUST", "SHOULD", "INFO"))
    traffic = report["traffic"]
    assert len(traffic["operations"]) == 13 and traffic["entries"] > 50, traffic
    assert traffic["base_url"].endswith("/v1")
    found = verdicts(report)
    assert {"SVC-03", "SVC-05", "RES-80", "END-28"} <= {rid for rid, verdict in found.items() if verdict == "pass"}
    entries = {entry["id"]: entry for entry in report["requirements"]}
    untested = [rid for rid in catalogue().requirements if rid not in judged_from_traffic()]
    assert all(
        entries[rid]["verdict"] == "untested" and entries[rid]["reason"] == NEEDS_AN_ACTIVE_RUN for rid in untested
    )
    assert report["run"]["exchanges"]["judged"] > 50


@pytest.mark.parametrize(
    "fault",
    [
        Fault.WRONG_CLOSE_MESSAGE,
        Fault.CURRENCY_LOWERCASE_ON_COLLECTION,
        Fault.PAGINATION_TOTAL_AS_STRING,
        Fault.TRANSFER_IMMEDIATELY_SUCCESSFUL,
        Fault.VERIFY_WITHOUT_REQUEST_SRC,
        Fault.CREATE_WALLET_WITH_ID,
    ],
)
def test_a_fault_one_exchange_shows_fails_the_same_requirement_passively(pytester, fault):
    """A fault one answer shows fails its requirement in the active run and in the recording judged passively;
    the passive evidence names the HAR file and the entry, and its curl line reproduces the request."""
    requirement = fault.requirement_id
    path, active = recorded_run(
        pytester,
        pytester.path,
        "--reference-fault",
        fault.cli_name,
        "--requirement",
        requirement,
        *HAND_WRITTEN,
        paths=("tests",),
    )
    assert verdicts(active)[requirement] == "fail"
    process, report = judged(pytester, pytester.path / "passive", "--har", str(path))
    assert report is not None, tail(process)
    assert verdicts(report)[requirement] == "fail", tail(process)
    assert process.returncode == ExitStatus.DOES_NOT_CONFORM
    entry = next(entry for entry in report["requirements"] if entry["id"] == requirement)
    evidence = entry["evidence"][0]
    assert re.fullmatch(rf"{re.escape(str(path))} entry \d+", evidence["first_seen_in"]), evidence
    assert evidence["exchange"]["curl"].startswith("curl ") and "<SECRET_KEY>" in evidence["exchange"]["curl"]


def test_every_variant_recorded_breaks_no_must_or_should_passively(pytester):
    """An active run against every variant of the reference (every legitimate reading of an open point) at once,
    recorded and judged passively, fails no MUST or SHOULD requirement."""
    path, _ = recorded_run(pytester, pytester.path, "--reference-variant", "all")
    process, report = judged(pytester, pytester.path / "passive", "--har", str(path))
    assert report is not None, tail(process)
    assert not failed(report), [entry["evidence"][:1] for entry in report["requirements"] if entry["verdict"] == "fail"]


def test_the_page_on_recorded_traffic_lists_what_it_judges():
    """docs/har.md names every requirement recorded traffic judges, and no other: its list follows the judges."""
    text = (ROOT / "docs" / "har.md").read_text()
    listed = text[text.index("### What recorded traffic can judge") : text.index("Such a requirement passes")]
    named = set(re.findall(r"\b[A-Z]{3}-\d\d\b", listed))
    for first, last in re.findall(r"\b([A-Z]{3}-\d\d) to ([A-Z]{3}-\d\d)\b", listed):
        prefix, low, high = first[:4], int(first[4:]), int(last[4:])
        named.update(f"{prefix}{number:02d}" for number in range(low, high + 1))
    assert named == set(judged_from_traffic())
    assert f"{len(judged_from_traffic())} of the {len(catalogue())} requirements" in " ".join(listed.split())


# ------------------------------------------------------------------ --har on hand-made files


def test_a_key_in_a_har_appears_in_no_report(pytester, tmp_path):
    """A HAR carrying a key in x-service-key, in an Authorization header and in a cookie, echoed in an answer and in
    a URL, is judged (the echoing answer fails) and no report holds any of them."""
    bearer, cookie = "bearer-token-RECOGNISABLE-42", "session-RECOGNISABLE-cookie"
    headers = [("x-service-key", RECOGNISABLE_KEY), ("Authorization", f"Bearer {bearer}"), ("Cookie", f"sid={cookie}")]
    base = "https://wallets.example/v1"
    echo = {"meta": {"statusCode": 200, "success": "yes", "message": RECOGNISABLE_KEY}, "data": [{"key": bearer}]}
    entries = [
        har_entry("GET", f"{base}/transactions/banks?k={cookie}", 200, echo, headers),
        har_entry("GET", f"{base}/unknown/path", 404, {"meta": {}}, headers),
    ]
    path = har_file(tmp_path / "keys.har", entries)
    process, report = judged(pytester, pytester.path / "out", "--har", str(path))
    assert report is not None, tail(process)
    assert "SVC-06" in failed(report)
    written = [file.read_text() for file in (pytester.path / "out").rglob("*") if file.is_file()]
    assert written
    for text in [*written, process.stdout, process.stderr]:
        for secret in (RECOGNISABLE_KEY, bearer, cookie):
            assert secret not in text
    assert report["traffic"]["unmatched"]["count"] == 1
    assert report["traffic"]["unmatched"]["shown"][0]["request"] == f"GET {base}/unknown/path"


@pytest.mark.parametrize(
    "content",
    [
        '{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "https://a/v1/transactions/banks"}',
        "this is not JSON at all",
        '{"log": {"version": "1.2"}}',
        '{"log": {"entries": [{"request": {"method": "GET"}, "response": {"status": 200}}]}}',
        "[1, 2, 3]",
    ],
    ids=["truncated", "not-json", "no-entries", "entry-without-url", "not-an-object"],
)
def test_a_file_that_is_not_a_har_ends_with_one_message(pytester, tmp_path, content):
    """A truncated, malformed or non-HAR file stops the run with exit 4 and one message naming it, no traceback; the
    reports say that stop (a usage error), never a verdict."""
    path = tmp_path / "bad.har"
    path.write_text(content)
    process, report = judged(pytester, pytester.path / "out", "--har", str(path))
    assert process.returncode == ExitStatus.CANNOT_RUN, tail(process)
    assert report is not None and report["outcome"]["verdict"] == "usage-error" and not report["outcome"]["conforms"]
    output = process.stdout + process.stderr
    assert output.count(f"{path}: ") == 1 and "Traceback" not in output and "Exit:" not in output, output
    assert f"ERROR: {path}: " in process.stderr, output


@pytest.mark.parametrize(
    ("content", "found"),
    [
        ("notes from the call\n", "text where a JSON object should begin"),
        ("", "the file is empty"),
        ("[1, 2, 3]", "a JSON array where a JSON object should begin"),
        ("<html><body>Not Found</body></html>", "markup (HTML or XML) where a JSON object should begin"),
    ],
    ids=["text", "empty", "array", "html"],
)
def test_a_file_that_is_not_a_har_is_one_error_line(tmp_path, capsys, monkeypatch, content, found):
    """`--har notes.har` of a file that is not a HAR prints one ERROR line naming the file and what it begins with,
    nothing before it, and exits 4 as any usage error; its reports say that stop."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "notes.har"
    path.write_text(content)
    status = cli.main(["--har", str(path), "--report-dir", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert status == ExitStatus.CANNOT_RUN
    assert (captured.out, captured.err) == ("", f"ERROR: {path}: not a HAR file: {found}\n"), captured
    report = json.loads((tmp_path / "out" / "conformance.json").read_text())
    assert report["outcome"]["verdict"] == "usage-error" and found in report["stopped"]["reason"]


def test_a_folder_given_to_har_takes_any_case_of_the_extension_and_names_itself_when_it_holds_none(
    tmp_path, capsys, monkeypatch
):
    """A folder without a HAR file is named on the run's first line (which ends nothing-judged, exit 11); a folder's
    `x.HAR` is one of its HAR files, as its `y.har` is."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "hars"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a recording\n")
    status = cli.main(["--har", str(folder), "--report-dir", str(tmp_path / "out")])
    lines = capsys.readouterr().out.splitlines()
    assert status == ExitStatus.NOTHING_JUDGED
    assert lines[0] == f"wallet-conformance: --har {folder}: no HAR file in this folder: nothing in it is judged"
    refusal = {"meta": {"statusCode": 404, "success": False, "message": "no"}, "data": None}
    entries = [har_entry("GET", "https://one.example/v1/virtual-accounts/vba-1", 404, refusal)]
    upper, lower = har_file(folder / "upper.HAR", entries), har_file(folder / "lower.har", entries)
    assert har_files([str(folder)]) == (lower, upper)
    cli.main(["--har", str(folder), "--report-dir", str(tmp_path / "out")])
    assert "no HAR file" not in capsys.readouterr().out
    report = json.loads((tmp_path / "out" / "conformance.json").read_text())
    assert report["traffic"]["files"] == [str(lower), str(upper)] and report["traffic"]["entries"] == 2


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("outside-the-base-url", "none of the 1 recorded entries is under https://staging.example.com/v1"),
        ("empty-har", "the recorded file(s) hold no entry"),
        ("folder-without-har", "no HAR file was found"),
        ("no-must-rule", "1 recorded exchange(s) were judged, but none by a rule of a MUST requirement"),
    ],
)
def test_recorded_traffic_of_which_nothing_is_judged_is_no_verdict(pytester, tmp_path, case, reason):
    """Entries all outside --base-url, a HAR with no entry, a folder with no *.har, exchanges that only SHOULD rules
    judge: the run ends nothing-judged (exit 11) with the reason, its reports say so, none says the target conforms."""
    folder = tmp_path / "hars"
    folder.mkdir()
    refusal = {"meta": {"statusCode": 404, "success": False, "message": "no"}, "data": None}
    entries = [har_entry("GET", "https://one.example/v1/virtual-accounts/vba-1", 404, refusal)]
    if case == "outside-the-base-url":
        given = [str(har_file(folder / "one.har", entries)), "--base-url", "https://staging.example.com/v1"]
    elif case == "no-must-rule":
        # A body too large for the service, refused 413 before any operation reads it: only the SHOULD rules of what
        # answers a probe judge it (ERR-10, ERR-07, ERR-08).
        too_large = {"meta": {"statusCode": 413, "success": False, "message": "too large"}, "data": None}
        probe = [har_entry("POST", "https://one.example/v1/virtual-accounts", 413, too_large, sent={})]
        given = [str(har_file(folder / "one.har", probe))]
    elif case == "empty-har":
        given = [str(har_file(folder / "empty.har", []))]
    else:
        given = [str(folder)]
    process, report = judged(pytester, pytester.path / "out", "--har", *given)
    assert process.returncode == ExitStatus.NOTHING_JUDGED and report is not None, tail(process)
    assert report["outcome"]["verdict"] == "nothing-judged" and not report["outcome"]["conforms"]
    assert report["outcome"]["reason"].startswith(reason), report["outcome"]["reason"]
    assert "NOTHING WAS JUDGED" in process.stdout and "CONFORMS" not in process.stdout.upper(), tail(process)
    assert "NOTHING WAS JUDGED" in (pytester.path / "out" / "conformance.md").read_text()


def test_entries_of_two_targets_need_a_base_url(pytester, tmp_path):
    """Entries under two base addresses are refused without --base-url (exit 4, naming both); with it, only the
    chosen target's entries are judged and the rest counted outside."""
    refusal = {"meta": {"statusCode": 404, "success": False, "message": "no"}, "data": None}
    entries = [
        har_entry("GET", "https://one.example/v1/virtual-accounts/vba-1", 404, refusal),
        har_entry("GET", "https://two.example/api/v1/virtual-accounts/vba-1", 404, refusal),
    ]
    folder = tmp_path / "hars"
    folder.mkdir()
    har_file(folder / "both.har", entries)
    process, report = judged(pytester, pytester.path / "out", "--har", str(folder))
    assert process.returncode == ExitStatus.CANNOT_RUN and report["outcome"]["verdict"] == "usage-error"
    assert "https://one.example/v1" in process.stdout + process.stderr
    process, report = judged(
        pytester, pytester.path / "out", "--har", str(folder), "--base-url", "https://two.example/api/v1"
    )
    assert report is not None, tail(process)
    assert report["traffic"]["outside"] == 1 and report["traffic"]["operations"]["getWallet"]["exchanges"] == 1


def test_an_entry_says_when_its_request_was_sent(tmp_path):
    """A HAR entry's startedDateTime is its exchange's start (what orders a transfer against a wallet's close,
    STA-09); the epoch, which a recording writes for a start it did not know, and no timestamp are no start."""
    entries = [har_entry("GET", "https://a.example/v1/virtual-accounts", 200, {"data": []}) for _ in range(3)]
    entries[1]["startedDateTime"] = "1970-01-01T00:00:00.000Z"
    entries[2]["startedDateTime"] = "yesterday"
    read = list(recorded_files.recorded([har_file(tmp_path / "t.har", entries)], "https://a.example/v1"))
    assert [entry.exchange.started for entry in read if entry.exchange is not None] == [
        datetime(2026, 11, 26, tzinfo=UTC).timestamp(),
        None,
        None,
    ]


def test_entries_stream_across_reads(tmp_path, monkeypatch):
    """Entries are read one at a time however the file is cut into reads, and a body over the client's cap is kept
    cut, as the client keeps it (and so not judged)."""
    big = {"meta": {"statusCode": 200, "success": True}, "data": ["x" * 100] * 4000}
    entries = [
        har_entry("GET", f"https://a.example/v1/transactions/{index}/verify", 200, {"data": index})
        for index in range(30)
    ] + [har_entry("GET", "https://a.example/v1/transactions/banks", 200, big)]
    path = har_file(tmp_path / "many.har", entries)
    monkeypatch.setattr(stream, "CHUNK", 7)
    read = list(recorded_files.recorded([path], "https://a.example/v1"))
    assert [item.index for item in read] == list(range(31))
    assert read[3].exchange is not None and read[3].exchange.operation_id == "verifyTransaction"
    assert read[-1].exchange is not None and read[-1].exchange.truncated


# ------------------------------------------------------------------ live capture with mitmproxy (optional)


def test_mitmproxy_recording_is_judged(pytester, tmp_path, reference_server):
    """Calls made through mitmproxy in reverse-proxy mode in front of the reference, recorded with hardump, are
    judged passively: nothing fails, and the key mitmproxy wrote in clear is in no report."""
    mitmdump = shutil.which("mitmdump")
    if mitmdump is None:
        pytest.skip("mitmproxy is not installed (pip install mitmproxy): the recipe is optional")
    path, port = tmp_path / "live.har", free_port()
    proxy = subprocess.Popen(
        [
            mitmdump,
            "--mode",
            f"reverse:{reference_server.origin}",
            "--listen-host",
            "127.0.0.1",
            "--listen-port",
            str(port),
            "--set",
            f"hardump={path}",
            "-q",
        ]
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        with httpx.Client(headers={"x-service-key": reference_server.secret_key}, timeout=10) as client:
            deadline = time.monotonic() + MITMDUMP_START
            while True:  # mitmdump takes seconds to import and listen
                try:
                    client.get(f"{base}/transactions/banks")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline and proxy.poll() is None, "mitmdump did not start listening"
                    time.sleep(0.2)
            wallet = client.post(
                f"{base}/virtual-accounts", json={"category": "primary", "accountName": "Ada", "currency": "NGN"}
            ).json()["data"]
            client.get(f"{base}/virtual-accounts/{wallet['publicId']}")
            client.get(f"{base}/virtual-accounts")
            client.delete(f"{base}/virtual-accounts/{wallet['publicId']}")
    finally:
        proxy.send_signal(signal.SIGINT)
        proxy.wait(timeout=20)
    assert reference_server.secret_key in path.read_text()  # mitmproxy writes the key in clear
    process, report = judged(pytester, pytester.path / "out", "--har", str(path))
    assert report is not None and process.returncode == 0, tail(process)
    assert not failed(report) and report["traffic"]["operations"]["createWallet"]["exchanges"] == 1
    for file in (pytester.path / "out").rglob("*"):
        if file.is_file():
            assert reference_server.secret_key not in file.read_text(errors="replace")


def test_a_har_run_writes_its_reports_in_a_folder_of_its_own(tmp_path):
    """Without --report-dir a --har run reports into reports/har/, never over the active run's reports/; with it,
    where it says."""
    recorded = har_file(tmp_path / "run.har", [])
    values = {option.dest: option.default for option in OPTIONS} | {"har": [str(recorded)]}
    assert read(values).report_dir == Path("reports") / "har"
    assert read(values | {"report_dir": str(tmp_path / "elsewhere")}).report_dir == tmp_path / "elsewhere"
    assert read({option.dest: option.default for option in OPTIONS}).report_dir == Path("reports")


def test_the_judging_core_gives_the_verdicts_of_har_without_a_pytest_session(pytester, tmp_path):
    """A recording of a faulty reference judged through the public API (reporting/judging.ReportingSession, fed entry
    by entry) gives every requirement the verdict `--har` gives the same file."""
    path, _ = recorded_run(pytester, tmp_path, "--reference-fault", Fault.WRONG_CLOSE_MESSAGE.cli_name)
    _, passive = judged(pytester, tmp_path / "passive", "--har", str(path))
    assert passive is not None
    base = next(iter(recorded_files.bases([path])))
    session = ReportingSession(base, [str(path)])
    for recorded in recorded_files.recorded([path], base):
        session.judge(
            recorded.exchange, {"file": str(recorded.file), "entry": recorded.index, "request": recorded.request}
        )
    report = session.report()
    assert verdicts(report) == verdicts(passive)
    assert verdicts(report)["SVC-12"] == "fail" and report["outcome"]["verdict"] == "does-not-conform"
    written = session.write(tmp_path / "api-reports")
    assert [p.name for p in written] == [
        "conformance.json",
        "conformance.md",
        "conformance.html",
        "junit.xml",
        "judgement.jsonl",
    ]


def test_the_judging_core_judges_httpx_traffic():
    """Traffic the suite did not send, made with plain httpx, judged through the public API: a wallet closed with the
    wrong message fails SVC-12 with that exchange as evidence; what was held to passes."""
    with (
        ReferenceServer(faults=[Fault.WRONG_CLOSE_MESSAGE]) as server,
        httpx.Client(headers={"x-service-key": server.secret_key}, trust_env=False) as client,
    ):
        base, key = server.base_url, server.secret_key
        session = ReportingSession(base)
        made = client.post(f"{base}/virtual-accounts", json=bodies.wallet("cf0judging"))
        wallet = made.json()["data"]["publicId"]
        for response in (
            made,
            client.get(f"{base}/virtual-accounts/{wallet}"),
            client.delete(f"{base}/virtual-accounts/{wallet}"),
        ):
            session.judge(from_httpx(response, base))
    report = session.report()
    entries = {entry["id"]: entry for entry in report["requirements"]}
    assert entries["SVC-12"]["verdict"] == "fail", entries["SVC-12"]
    assert "closeWallet" in entries["SVC-12"]["evidence"][0]["title"] and key not in json.dumps(report)
    assert entries["SVC-03"]["verdict"] == "pass", entries["SVC-03"]


def test_the_command_judges_recorded_traffic_without_a_pytest_session(pytester, tmp_path, capsys, monkeypatch):
    """`wallet-conformance --har FILE` and plain `pytest --har FILE` judge without a pytest session (no session header,
    no collection) and give every requirement the same verdict; a file that is not a HAR still ends with its one
    message and exit 4."""
    path, _ = recorded_run(pytester, tmp_path, "--reference-fault", Fault.WRONG_CLOSE_MESSAGE.cli_name)
    plugin_run, plugin_report = judged(pytester, tmp_path / "plugin", "--har", str(path))
    assert "test session starts" not in plugin_run.stdout and "collected" not in plugin_run.stdout, plugin_run.stdout
    assert plugin_run.stdout.lstrip().startswith("wallet-conformance: judging recorded traffic"), plugin_run.stdout
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()  # what the runs above printed
    status = cli.main(["--har", str(path), "--report-dir", str(tmp_path / "command")])
    output = capsys.readouterr().out
    report = json.loads((tmp_path / "command" / "conformance.json").read_text())
    assert status == ExitStatus.DOES_NOT_CONFORM and "test session starts" not in output, output
    assert output.startswith("wallet-conformance: judging recorded traffic") and "reproduce with:" in output
    assert plugin_report is not None and verdicts(report) == verdicts(plugin_report)
    (tmp_path / "bad.har").write_text("not a HAR")
    assert cli.main(["--har", str(tmp_path / "bad.har"), "--report-dir", str(tmp_path / "bad")]) == 4
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("bad.har: not a HAR file") == 1
    assert json.loads((tmp_path / "bad" / "conformance.json").read_text())["outcome"]["exit_status"] == 4


def test_a_key_given_to_the_command_never_reaches_its_har_reports(tmp_path, capsys, monkeypatch):
    """`wallet-conformance --har` without pytest, given the target's key (as a CI gives WALLET_API_SECRET_KEY): an
    answer that echoes the key in its body shows it nowhere, neither in the terminal nor in any report."""
    key = "sk_live_ECHOED_0123456789abcdef"
    # success true on a 404 breaks a rule: the answer, key and all, becomes the failure's evidence
    echoed = {"meta": {"statusCode": 404, "success": True, "message": f"no wallet for {key}"}, "data": None}
    path = har_file(
        tmp_path / "echo.har", [har_entry("GET", "https://one.example/v1/virtual-accounts/vba-1", 404, echoed)]
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WALLET_API_SECRET_KEY", key)
    cli.main(["--har", str(path), "--base-url", "https://one.example/v1", "--report-dir", str(tmp_path / "out")])
    written = [file.read_text() for file in (tmp_path / "out").iterdir()]
    assert len(written) == 5 and all(key not in text for text in written) and key not in capsys.readouterr().out
    assert any(PLACEHOLDER in text for text in written)


@pytest.mark.parametrize("keep", [False, True], ids=["masked", "kept"])
def test_recorded_personal_data_is_masked_in_the_reports_unless_kept(tmp_path, capsys, keep):
    """A recorded wallet read whose answer breaks a rule (meta.success a string), its evidence quoting the answer: the
    reports and the terminal hold the holder's name and account number masked (ten digits stay ten digits), unless
    --keep-personal-data."""
    wallet = {"publicId": "vba-00000001", "accountName": "Chiamaka Eze", "accountNumber": "9100000123"}
    path = har_file(
        tmp_path / "read.har",
        [
            har_entry(
                "GET",
                "https://api.example/v1/virtual-accounts/vba-00000001",
                200,
                {"meta": {"statusCode": 200, "success": "true"}, "data": wallet},
            )
        ],
    )
    status = cli.main(
        ["--har", str(path), "--report-dir", str(tmp_path / "out"), *(["--keep-personal-data"] if keep else [])]
    )
    kept = [capsys.readouterr().out, *(item.read_text() for item in (tmp_path / "out").iterdir())]
    assert status == ExitStatus.DOES_NOT_CONFORM
    for value in (wallet["accountName"], wallet["accountNumber"]):
        assert any(value in text for text in kept) == keep, value
    report = json.loads((tmp_path / "out" / "conformance.json").read_text())
    quoted = next(entry for entry in report["requirements"] if entry["id"] == "SVC-06")["evidence"][0]
    assert re.search(r'\\"accountNumber\\": \\"\d{10}\\"', json.dumps(quoted["exchange"]["response"])), quoted
