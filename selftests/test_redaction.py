"""The secret keys never reach output: not the terminal, not conformance.json, not JUnit XML, not a curl line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import httpx
import pytest

from selftests.suite_runs import run_suite, tail
from selftests.tenants import reference_with_second_key
from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.curl import curl_command
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.entry import entry
from wallet_conformance.client.near_copies import every_near_copy
from wallet_conformance.client.redaction import (
    LEARNT_AT_MOST,
    PLACEHOLDER,
    Secrets,
    activate,
    deactivate,
    redact,
    redact_headers,
    register_secret,
)
from wallet_conformance.client.replay import script, steps_of
from wallet_conformance.judge.judgement import Judgement
from wallet_conformance.judge.session import exchange_line
from wallet_conformance.reference import ReferenceServer

KEY = "sk_test_selftest_do_not_leak_5f3a9c"
SECOND_KEY = "sk_test_selftest_second_do_not_leak_8e2d47"
# A base64-style key: URL-encoding changes its `+`, `/` and `=`.
ENCODED_KEY = "sk_test_b64+Key/do_not_leak+5f3a=="
FUNDING_TOKEN = "fund_token_do_not_leak_7c1e"


def encoded_leaks(text: str, key: str = ENCODED_KEY) -> list[str]:
    """The URL encodings of all of `key` but its last character (so of the key and of every near-copy of it) that
    `text` holds, with upper- or lower-case hex."""
    forms = {quote(key[:-1], safe=""), quote_plus(key[:-1], safe="")}
    return [form for form in {*forms, *(form.lower() for form in forms)} if form in text or form in text.lower()]


def test_registered_secret_is_replaced_everywhere_in_text():
    """A registered key is replaced by the placeholder wherever it appears."""
    register_secret(KEY)
    assert redact(f"key={KEY}; again {KEY}") == f"key={PLACEHOLDER}; again {PLACEHOLDER}"


def test_keys_learnt_from_traffic_are_bounded_and_counted():
    """10,000 distinct keys a client sends: the first LEARNT_AT_MOST are learnt and redacted wherever they appear,
    the rest counted and never learnt, so redacting costs the same after them; words that have no key's form (`http`,
    `": "`) are counted and never replace anything."""
    secrets = Secrets()
    for index in range(10_000):
        secrets.learn(f"sk_live_{index:020d}")
    for word in ("http", '": "', "data"):
        secrets.learn(word)
    assert (secrets.learnt, secrets.not_learnt) == (LEARNT_AT_MOST, 10_000 - LEARNT_AT_MOST + 3)
    first, past = f"sk_live_{0:020d}", f"sk_live_{9_999:020d}"
    assert secrets.redact(f"http://x {first} {past}") == f"http://x {PLACEHOLDER} {past}"


def test_key_header_and_curl_line_never_show_the_key():
    """The x-service-key header is masked, whatever its value, and so is the curl line built from it."""
    headers = redact_headers([("x-service-key", "any-value-at-all"), ("accept", "application/json")])
    assert headers == [("x-service-key", PLACEHOLDER), ("accept", "application/json")]
    line = curl_command("GET", "http://127.0.0.1:1/v1/transactions/banks", headers)
    assert "any-value-at-all" not in line and PLACEHOLDER in line


@pytest.fixture
def run_keys() -> Iterator[Secrets]:
    """The secrets of a run whose key is KEY, active for the test."""
    secrets = Secrets()
    secrets.add_key(KEY)
    activate(secrets)
    yield secrets
    deactivate(secrets)


def _sent_with(key: str | None, headers: dict[str, str] | None = None) -> Exchange:
    client = ApiClient("http://target/v1", KEY, transport=httpx.MockTransport(lambda _: httpx.Response(401, json={})))
    try:
        return client.call("listBanks", key=key, headers=headers)
    finally:
        client.close()


@pytest.mark.usefixtures("run_keys")
def test_a_key_header_s_curl_line_shows_what_was_sent_but_the_key() -> None:
    """A key probe's curl line shows its x-service-key or Authorization as sent (a wrong key, an empty value as curl
    sends one, the Bearer word, the whitespace around the key), the key alone concealed."""
    lines = {
        "wrong": _sent_with("conformance-wrong-key-cf12345").curl(),
        "empty": _sent_with("").curl(),
        "bearer": _sent_with(None, {"Authorization": f"Bearer {KEY}"}).curl(),
        "whitespace": _sent_with(f" {KEY}\t").curl(),
    }
    assert lines["wrong"].endswith("-H 'x-service-key: conformance-wrong-key-cf12345'")
    assert lines["empty"].endswith("-H 'x-service-key;'")
    assert lines["bearer"].endswith(f"-H 'Authorization: Bearer {PLACEHOLDER}'")
    assert lines["whitespace"].endswith(f"-H 'x-service-key:  {PLACEHOLDER}\t'")


@pytest.mark.usefixtures("run_keys")
def test_the_key_and_its_near_copies_stay_concealed_in_a_key_header() -> None:
    """The key and each of its near-copies sent as x-service-key show as the placeholder alone in the exchange, its
    curl line, its description and its HAR entry."""
    for sent in [KEY, *every_near_copy(KEY)]:
        exchange = _sent_with(sent)
        shown = [repr(exchange.request_headers), exchange.curl(), exchange.describe(), repr(entry(exchange))]
        assert ("x-service-key", PLACEHOLDER) in exchange.request_headers, sent
        assert all(KEY[:-1] not in text and KEY.swapcase() not in text for text in shown), sent


def test_recorded_traffic_s_key_header_is_concealed_whatever_it_holds() -> None:
    """In traffic the suite did not send (a HAR, the proxy's), a key header's value is concealed whole: the run does
    not know every key another client sends."""
    assert redact_headers([("Authorization", "Bearer short")]) == [("Authorization", PLACEHOLDER)]
    assert redact_headers([("Cookie", "s=1")], own=True) == [("Cookie", PLACEHOLDER)]


def test_exchange_description_holds_no_key():
    """An exchange's description (request, response excerpt, curl) is built from redacted data."""
    register_secret(KEY)
    exchange = Exchange(
        "listBanks",
        "GET",
        "http://h/v1/transactions/banks",
        [("x-service-key", PLACEHOLDER)],
        None,
        401,
        [],
        redact(f'{{"echo": "{KEY}"}}'),
        0.01,
    )
    assert KEY not in exchange.describe()


def test_failing_run_against_a_target_leaks_no_key(tmp_path):
    """A run with failures, --showlocals, JUnit XML and a HAR recording against a target given by URL and key writes
    neither the key nor a near-copy of it anywhere, though its key probes' curl lines show what they sent."""
    with ReferenceServer(secret_key=KEY, faults=["wrong-close-message", "any-key-accepted-on-reads"]) as server:
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--funding-url",
            server.funding_url,
            "--requirement",
            "SVC-12",
            "--requirement",
            "AUTH-02",
            "--requirement",
            "SVC-03",
            "--showlocals",
            "--junitxml",
            str(tmp_path / "junit.xml"),
            "-rA",
            "--record-har",
            str(tmp_path / "run.har"),
            paths=("tests/test_service.py", "tests/test_authentication.py"),
        )
    assert report is not None and report["outcome"]["must_failed"], tail(process)
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert {"junit.xml", "conformance.json", "judgement.jsonl", "run.har"} <= {path.name for path in written}
    # All of the key but its last character, and the key in the other case: the key and every near-copy of it.
    forms = [KEY[:-1], KEY.swapcase()]
    leaks = [path.name for path in written for form in forms if form.encode() in path.read_bytes()]
    assert leaks == [] and not any(form in process.stdout + process.stderr for form in forms)
    assert PLACEHOLDER in process.stdout  # the curl lines are there, with the placeholder
    assert "-H 'x-service-key: conformance-wrong-key-" in process.stdout  # a wrong key's probe, as sent


def test_failing_run_leaks_no_second_key(tmp_path):
    """A failing run with a second key writes neither it nor a near-copy of it anywhere: terminal, conformance.json,
    Markdown, HTML, JUnit, Allure results and curl lines."""
    with reference_with_second_key(KEY, SECOND_KEY, faults=["any-key-accepted-on-reads"]) as server:
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            KEY,
            "--second-secret-key",
            SECOND_KEY,
            "--funding-url",
            server.funding_url,
            "--requirement",
            "AUTH-02",
            "--requirement",
            "AUTH-10",
            "--requirement",
            "AUTH-16",
            "--showlocals",
            "--junitxml",
            str(tmp_path / "junit.xml"),
            "-rA",
            "--alluredir",
            str(tmp_path / "allure-results"),
            paths=("tests/test_authentication.py", "tests/test_isolation.py"),
        )
    assert report is not None and report["outcome"]["must_failed"], tail(process)
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(path.parent.name == "allure-results" for path in written) and (tmp_path / "junit.xml") in written
    # All of the key but its last character, and the key in the other case: the key and every near-copy of it.
    forms = [SECOND_KEY[:-1], SECOND_KEY.swapcase()]
    leaks = [path.name for path in written for form in forms if form.encode() in path.read_bytes()]
    assert leaks == [] and not any(form in process.stdout + process.stderr for form in forms)
    assert PLACEHOLDER in process.stdout


def test_a_key_that_url_encoding_changes_is_written_in_no_encoding(tmp_path):
    """A key holding `+`, `/` and `=` sent in the query (the AUTH-01 probe) is in no encoding in the exchange's
    URL, its description and curl line, its HAR entry, its replay, or its line of the record; the placeholder is."""
    secrets = Secrets()
    activate(secrets)
    try:
        secrets.add_key(ENCODED_KEY)
        answer = httpx.MockTransport(lambda request: httpx.Response(200, json={"data": [], "meta": {}}))
        client = ApiClient("http://target/v1", ENCODED_KEY, transport=answer)
        exchange = client.call("listBanks", key=None, params={"key": ENCODED_KEY, "apiKey": ENCODED_KEY.swapcase()})
        judgement = Judgement(tmp_path / "judgement.jsonl")
        judgement.add(exchange_line(exchange, (), taken=True))
        judgement.close()
        replay = script(steps_of([exchange], failing={0}), test="t", failed=["AUTH-01"], base_url="http://target/v1")
    finally:
        deactivate(secrets)
    written = {
        "url": exchange.url,
        "description": exchange.describe(),
        "HAR entry": json.dumps(entry(exchange)),
        "replay": replay,
        "record": (tmp_path / "judgement.jsonl").read_text(),
    }
    assert {name: encoded_leaks(text) for name, text in written.items() if encoded_leaks(text)} == {}
    assert PLACEHOLDER in exchange.url and PLACEHOLDER in exchange.curl()


def test_a_funding_urls_token_and_an_encoded_key_are_written_nowhere(tmp_path):
    """A run whose key URL-encoding changes, sent in the query of a bank list that answers it, with a funding URL
    carrying a token, writes neither the key (in any encoding) nor the token: terminal, every report, the HAR."""
    with ReferenceServer(secret_key=ENCODED_KEY, faults=["no-auth-on-bank-list"]) as server:
        process, report, _ = run_suite(
            tmp_path,
            "--base-url",
            server.base_url,
            "--secret-key",
            ENCODED_KEY,
            "--funding-url",
            f"{server.funding_url}?token={FUNDING_TOKEN}",
            "--record-har",
            str(tmp_path / "run.har"),
            "--junitxml",
            str(tmp_path / "junit.xml"),
            "-k",
            "test_key_outside_its_header_is_refused and listBanks",
            paths=("tests/test_authentication.py",),
        )
    assert report is not None and report["outcome"]["must_failed"], tail(process)
    written = {path.name: path.read_text() for path in Path(tmp_path).iterdir() if path.is_file()}
    written["terminal"] = process.stdout + process.stderr
    assert {"run.har", "junit.xml", "conformance.md", "conformance.html", "judgement.jsonl"} <= set(written)
    leaks = {name: encoded_leaks(text) for name, text in written.items() if encoded_leaks(text)}
    leaks |= {name: [FUNDING_TOKEN] for name, text in written.items() if FUNDING_TOKEN in text}
    assert leaks == {}
    assert f"?token={PLACEHOLDER}" in written["conformance.md"]


def test_a_funding_urls_password_and_tokens_are_secrets_and_its_words_are_not():
    """A funding URL's password and the value of each credential-named query parameter are redacted, as written and
    decoded; any other value (`env=sandbox`, an account's UUID) is not, as an exchange may hold it as data."""
    account = "40501187-6958-58aa-bf6a-cb1fc5b43f8c"
    secrets = Secrets()
    secrets.add_url(f"https://hook:pass%2Bword@h/sandbox/fund?env=sandbox&account={account}&token={FUNDING_TOKEN}%2B1")
    text = f"pass%2Bword pass+word env=sandbox {account} {FUNDING_TOKEN}%2B1 {FUNDING_TOKEN}+1"
    assert secrets.redact(text) == f"{PLACEHOLDER} {PLACEHOLDER} env=sandbox {account} {PLACEHOLDER} {PLACEHOLDER}"


def test_a_key_echoed_with_its_slashes_escaped_is_redacted():
    """A key holding `/`, echoed in JSON as PHP writes it (`\\/`), is redacted too."""
    secrets = Secrets()
    secrets.add_key("sk_live_Ab12/Cd34+Ef56=")
    assert "Ab12" not in secrets.redact('{"message":"unknown key sk_live_Ab12\\/Cd34+Ef56="}')
