"""What conformance.html carries inline so that it needs no other file: its style and its filtering script.

The script shows the search box and the filters (by part, level and verdict), hides the requirements they leave
out and the groups left empty, and opens a folded group where a filter finds something. Without it the page shows
every requirement and no filter. It reaches for nothing outside the page.
"""

from __future__ import annotations

from enum import StrEnum
from string import Template

from wallet_conformance.reporting.verdicts import ENDED_EARLY, Outcome, Verdict


def _rules(selector: str, *rules: tuple[tuple[StrEnum, ...], str]) -> str:
    """CSS rules for the classes named after verdicts or outcomes: `selector` holds `{}` for each member's value."""
    return "".join(
        ",".join(selector.format(member) for member in members) + "{" + declarations + "}"
        for members, declarations in rules
    )


STYLE = Template("""
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:1.5em;
color:#1d1d1f;background:#fff}
[hidden]{display:none!important}
h1{font-size:1.6em;margin:.2em 0 .6em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.3em .6em;text-align:left;
vertical-align:top}th{background:#f5f5f7}
.verdict{font-size:1.2em;font-weight:700;padding:.4em .8em;border-radius:6px;display:inline-block}
$conforming
$failing
.b{display:inline-block;border-radius:4px;padding:0 .4em;margin:0 .15em .15em 0;font-size:.9em;white-space:nowrap}
$badges
$not_tested
.req{border:1px solid #ddd;border-left:6px solid #bbb;border-radius:4px;padding:.6em 1em;margin:.8em 0}
$entries
$observed.req h3{margin:.1em 0 .4em;font-size:1.05em}
blockquote{margin:.4em 0;padding:.2em .8em;border-left:3px solid #ccc;color:#444;background:#fafafa}
.quote{color:#444;font-size:.92em;margin-top:.2em}
pre{background:#f5f5f7;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:.3em 0}
.waiver{background:#e8e0ff;padding:.2em .5em;border-radius:4px}.muted{color:#666}.part{color:#555;margin:0 0 .3em}
ul.tests{margin:.3em 0;padding-left:1.2em}
#filters{position:sticky;top:0;z-index:1;background:#fff;border-bottom:1px solid #ddd;padding:.6em 0;margin-top:1em;
display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:center}
#filters input{min-width:18em}#filters label{white-space:nowrap}
""").substitute(
    conforming=_rules(
        ".v-{}",
        ((Outcome.CONFORMS,), "background:#d8f5d8"),
        (
            (
                Outcome.CONFORMS_ON_THE_SELECTION,
                Outcome.CONFORMS_TO_WHAT_WAS_TESTED,
                Outcome.CONFORMS_TO_WHAT_THE_TRAFFIC_SHOWED,
            ),
            "background:#fff3c4",
        ),
    ),
    failing=_rules(
        ".v-{}",
        ((Outcome.DOES_NOT_CONFORM, Outcome.SUITE_ERROR, Outcome.NOTHING_JUDGED, *ENDED_EARLY), "background:#ffd6d6"),
        ((Outcome.INCOMPLETE,), "background:#ffe2b8"),
    ),
    badges=_rules(
        ".b-{}",
        ((Verdict.PASS, Verdict.OBSERVED), "background:#d8f5d8"),
        ((Verdict.FAIL, Verdict.SUITE_ERROR), "background:#ffb3b3;font-weight:700"),
    ),
    not_tested=_rules(
        ".b-{}",
        ((Verdict.BLOCKED, Verdict.SKIP), "background:#fff0b3"),
        ((Verdict.UNTESTED, Verdict.NOT_SELECTED), "background:#eee"),
    ),
    entries=_rules(
        ".req.{}",
        ((Verdict.FAIL, Verdict.SUITE_ERROR), "border-left-color:#d33"),
        ((Verdict.BLOCKED, Verdict.SKIP, Verdict.UNTESTED), "border-left-color:#e6b800"),
    ),
    observed=_rules(".req.{}", ((Verdict.OBSERVED,), "border-left-color:#4a90d9")),
)

# Each requirement is an element with data-part, data-level and data-verdict; each <select> of #filters is named
# after the one it compares. A search matches an element holding every word typed, in any case.
SCRIPT = """
(function () {
  var bar = document.getElementById("filters"), search = document.getElementById("search");
  var selects = Array.prototype.slice.call(bar.querySelectorAll("select"));
  var entries = Array.prototype.slice.call(document.querySelectorAll("[data-verdict]"));
  var groups = Array.prototype.slice.call(document.querySelectorAll("section.group"));
  var shown = document.getElementById("shown");
  function apply() {
    var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var chosen = selects.filter(function (select) { return select.value; });
    var active = words.length > 0 || chosen.length > 0, count = 0;
    entries.forEach(function (entry) {
      var text = entry.textContent.toLowerCase();
      var show = words.every(function (word) { return text.indexOf(word) >= 0; }) &&
        chosen.every(function (select) { return entry.getAttribute("data-" + select.name) === select.value; });
      entry.hidden = !show;
      if (show) count += 1;
    });
    groups.forEach(function (group) {
      var any = group.querySelector("[data-verdict]:not([hidden])") !== null;
      group.hidden = !any;
      var folded = group.querySelector("details");
      if (!folded) return;
      if (active && any && !folded.open) { folded.open = true; folded.setAttribute("data-opened", ""); }
      if (!active && folded.hasAttribute("data-opened")) { folded.open = false; folded.removeAttribute("data-opened"); }
    });
    shown.textContent = count + " of " + entries.length + " requirements shown";
  }
  bar.hidden = false;
  bar.addEventListener("input", apply);
  bar.addEventListener("change", apply);
  apply();
})();
"""
