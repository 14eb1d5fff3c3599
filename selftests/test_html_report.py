"""conformance.html: one file that travels (no link to another file, nothing fetched), each requirement with its part
of the document and the document's words, a failing test's replay under it, and, in a real browser with the network
off, the search and the filters by part, level and verdict."""

from __future__ import annotations

import html
from html.parser import HTMLParser
from typing import Any, ClassVar

import pytest

from selftests.browser import FLAGS, NO_BROWSER, chromium
from selftests.test_reports import sample_report
from wallet_conformance.reporting.writers import HTML, REPLAY_LABEL, html_page, mask, part_names, write_all

FAILING_TEST = "tests/test_a.py::test_close"  # sample_report's failing test of SVC-12
# A replay as a report may carry one: a port, quotes, `<`, `&` and `$`, all kept as written.
REPLAY = (
    "#!/usr/bin/env bash\nset -euo pipefail\nbase='http://127.0.0.1:41234/v1'\n"
    'curl -sS -X DELETE "$base/virtual-accounts/vba-1" |\n'
    "  python3 -c 'import sys; print(\"<&>\" in sys.stdin.read())'\n"
)
URL_ATTRIBUTES = {
    "href",
    "src",
    "srcset",
    "action",
    "formaction",
    "poster",
    "data",
    "background",
    "ping",
    "manifest",
    "cite",
    "xlink:href",
}
FETCHING_TAGS = {"link", "img", "iframe", "object", "embed", "base", "video", "audio", "source", "track", "frame"}


class Elements(HTMLParser):
    """Every tag of a page with its attributes, the text of <style> and <script>, and the text of each element with
    a given attribute (its descendants' text included)."""

    VOID: ClassVar[set[str]] = {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }

    def __init__(self, marked: str) -> None:
        super().__init__(convert_charrefs=True)
        self.marked = marked
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[tuple[dict[str, str | None], list[str]]] = []
        self.open: list[tuple[int, list[str]]] = []  # (depth, text) of each marked element still open
        self.inline: dict[str, list[str]] = {"style": [], "script": []}
        self.depth = 0
        self.inside: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.tags.append((tag, named))
        self.inside = tag if tag in self.inline else None
        if tag in self.VOID:
            return
        self.depth += 1
        if self.marked in named:
            self.texts.append((named, []))
            self.open.append((self.depth, self.texts[-1][1]))

    def handle_endtag(self, tag: str) -> None:
        self.inside = None
        if self.open and self.open[-1][0] == self.depth:
            self.open.pop()
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.inline[self.inside].append(data)
        for _, text in self.open:
            text.append(data)


def parsed(page: str, marked: str) -> Elements:
    elements = Elements(marked)
    elements.feed(page)
    elements.close()
    return elements


def replayed_report() -> dict[str, Any]:
    """sample_report (SVC-12 failing, SVC-03 passing, ERR-04 observed, SVC-05 skipped, the rest not selected) with a
    replay on the failing test of SVC-12."""
    report = sample_report()
    entry = next(e for e in report["requirements"] if e["id"] == "SVC-12")
    test = next(t for t in entry["tests"] if t["nodeid"] == FAILING_TEST)
    assert test["failed"]
    test["replay"] = REPLAY
    return report


def test_the_html_report_fetches_nothing_and_links_to_no_file(tmp_path):
    """Written by write_all, conformance.html has no link, source or import of any other file or address: its style
    and script are inline, and no style reaches for a URL."""
    write_all(replayed_report(), tmp_path)
    elements = parsed((tmp_path / HTML).read_text(encoding="utf-8"), "data-verdict")
    links = [
        (tag, name, value)
        for tag, attrs in elements.tags
        for name, value in attrs.items()
        if name in URL_ATTRIBUTES or tag in FETCHING_TAGS
    ]
    assert links == []
    style, script = "".join(elements.inline["style"]), "".join(elements.inline["script"])
    assert style and "url(" not in style and "@import" not in style
    assert script and not [
        word
        for word in ("http", "fetch", "XMLHttpRequest", "import", "src", "location", "WebSocket", "sendBeacon")
        if word in script
    ]


def test_each_requirement_shows_its_part_and_the_documents_words():
    """Every requirement's element, whatever its verdict, holds its part of the document (numbered) and the
    sentence of the document it rests on, where a link to docs/requirements.md used to be."""
    report = replayed_report()
    named = part_names(report)
    assert named["service"] == "§1 What the service does" and named["errors"].startswith("§7 ")
    shown = {attrs["id"]: "".join(text) for attrs, text in parsed(html_page(report), "data-verdict").texts}
    assert set(shown) == {entry["id"] for entry in report["requirements"]}
    for entry in report["requirements"]:
        text = shown[entry["id"]]
        assert named[entry["section"]] in text and mask(" ".join(entry["quote"].split())) in text, entry["id"]


def test_a_failing_tests_replay_is_shown_under_it_as_the_script_itself():
    """A test's replay (conformance.json: its `replay`) is a <pre class="replay"> under that test, labelled, whose text
    is the script exactly: escaped, never masked. A report without replays shows none."""
    page = html_page(replayed_report())
    replays = parsed(page, "data-test").texts
    assert [(attrs["class"], attrs["data-test"]) for attrs, _ in replays] == [("replay", FAILING_TEST)]
    assert "".join(replays[0][1]).removeprefix("\n") == REPLAY  # the newline after <pre> is one a browser drops
    entry = page.split('id="SVC-12" ')[1].split('class="req ')[0]
    assert (
        entry.index(f"<code>{FAILING_TEST}</code>")
        < entry.index(html.escape(REPLAY_LABEL))
        < entry.index('<pre class="replay"')
    )
    assert 'class="replay"' not in html_page(sample_report())


# ------------------------------------------------------------------ in a browser

SHOWN = """() => Array.from(document.querySelectorAll('[data-verdict]'))
                 .filter((element) => element.checkVisibility()).map((element) => element.id).sort()"""


def test_the_search_and_the_filters_show_the_requirements_they_choose_in_a_browser(tmp_path):
    """In headless Chromium with the network off (every request that is not the page aborted, and none made): the
    search and each filter (part, level, verdict, and the three at once) show exactly the requirements they choose,
    opening a folded group where they find some; cleared, the page is as it opened; the replay's text is the script;
    with scripts off every requirement shows and no filter does."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra)")
    executable = chromium()
    if executable is None:
        pytest.skip(NO_BROWSER)
    report = replayed_report()
    write_all(report, tmp_path)
    address = (tmp_path / HTML).as_uri()
    entries = report["requirements"]

    def chosen(**wanted: str) -> list[str]:
        return sorted(e["id"] for e in entries if all(e[key] == value for key, value in wanted.items()))

    unfolded = sorted(e["id"] for e in entries if e["verdict"] in ("fail", "skip", "observed"))
    requested: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=list(FLAGS))
        try:
            context = browser.new_context()
            context.set_offline(True)
            context.route("**/*", lambda route: route.continue_() if route.request.url == address else route.abort())
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.on("request", lambda request: requested.append(request.url))
            page.goto(address)

            def shown() -> list[str]:
                return page.evaluate(SHOWN)

            assert page.locator("#filters").is_visible()
            assert shown() == unfolded
            assert page.text_content("#shown") == f"{len(entries)} of {len(entries)} requirements shown"
            page.locator("#search").press_sequentially("successfully CLOSED")  # the failure's received value
            assert shown() == ["SVC-12"] and page.text_content("#shown") == f"1 of {len(entries)} requirements shown"
            assert not page.locator("#passes").is_visible()  # a group with nothing chosen is hidden
            page.fill("#search", "")
            assert shown() == unfolded
            for name, value, wanted in (
                ("part", "errors", {"section": "errors"}),
                ("level", "INFO", {"level": "INFO"}),
                ("verdict", "pass", {"verdict": "pass"}),
                ("verdict", "skip", {"verdict": "skip"}),
            ):
                page.select_option(f"#filter-{name}", value)
                assert shown() == chosen(**wanted), (name, value)
                page.select_option(f"#filter-{name}", "")
            page.select_option("#filter-part", "service")
            page.select_option("#filter-level", "SHOULD")
            page.select_option("#filter-verdict", "not-selected")
            assert shown() == chosen(section="service", level="SHOULD", verdict="not-selected") != []
            for name in ("part", "level", "verdict"):
                page.select_option(f"#filter-{name}", "")
            assert shown() == unfolded  # the groups the filters opened are folded again
            assert page.text_content(f'pre.replay[data-test="{FAILING_TEST}"]') == REPLAY
            context.close()

            plain = browser.new_context(java_script_enabled=False)
            plain.set_offline(True)
            page = plain.new_page()
            page.goto(address)
            assert not page.locator("#filters").is_visible() and shown() == unfolded
            assert page.locator("[data-verdict]:not([hidden])").count() == len(entries)  # the folded ones too
        finally:
            browser.close()
    assert requested == [address], "the page asked for something besides itself"
