"""A test's exchanges as a shell script that sends them again, in order, against any target: each identifier the
target assigned is read from its answer and sent where the test sent it, each key from the environment.

The script needs bash, curl and python3 (to read a value out of a JSON answer). It reads the base URL, the keys and the
funding hook from the variables the suite's options read them from, prints each step's status and answer, and, where
REPLAY_ANSWERS names a folder, keeps them there (`wallet-conformance replay` compares them with the recorded ones).
The answers that showed the failure are written into the script as comments (`# recorded answer of step N: ...`).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import KEY_VARIABLE
from wallet_conformance.client.curl import NOISE, header_option
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.near_copies import KEY_MARK
from wallet_conformance.client.redaction import redact
from wallet_conformance.settings import variable_of

BASE_VARIABLE = variable_of("--base-url")
FUNDING_VARIABLE = variable_of("--funding-url")
TITLE = "# Replay of "  # the script's second line: TITLE, the test, ", which failed ", the requirements
END = "# end of the replay"  # the script's last line: a report in any format holds each script whole between these
RECORDED = "# recorded answer of step "  # a line of the script: the step, its status and its answer as recorded
ANSWERS_VARIABLE = "REPLAY_ANSWERS"
POLL_GAP = 0.2  # seconds between two steps below which the script does not wait
RECORDED_AT_MOST = 20_000  # characters of a recorded answer written into the script; a longer one: its status only
_MIN_ASSIGNED = 4
COOKIE = "cookie"  # a request header the run's client adds from its jar: a replay has no such jar


def assigned(value: str) -> bool:
    """Whether a string of an answer may be one the target assigned: an identifier, an account number, a reference or
    a timestamp (at least _MIN_ASSIGNED characters, a digit, no space); not a word, such as a processor's name, that a
    URL may hold by chance, nor a name."""
    return len(value) >= _MIN_ASSIGNED and any(map(str.isdigit, value)) and not any(map(str.isspace, value))


@dataclass(frozen=True)
class Step:
    """One request of the replay: the exchange, whether it showed the failure, and whether it made a record an
    earlier test left to this one (`given`)."""

    exchange: Exchange
    failing: bool = False
    given: bool = False


def steps_of(exchanges: Sequence[Exchange], failing: Collection[int] = (), given: int = 0) -> list[Step]:
    """The steps of a replay: `exchanges` in order, the first `given` of them made records of earlier tests, those at
    the indices `failing` showed the failure. A read sent again and again with the same request (a poll) is one step:
    its last."""
    kept: list[Step] = []
    for index, exchange in enumerate(exchanges):
        step = Step(exchange, failing=index in failing, given=index < given)
        if kept and exchange.method == "GET" and not kept[-1].failing and _same_request(kept[-1].exchange, exchange):
            kept[-1] = step
        else:
            kept.append(step)
    return kept


def _same_request(one: Exchange, other: Exchange) -> bool:
    return (one.method, one.url, one.request_headers, one.request_body) == (
        other.method,
        other.url,
        other.request_headers,
        other.request_body,
    )


def script(
    steps: Sequence[Step],
    *,
    test: str,
    failed: Sequence[str],
    base_url: str,
    funding_url: str | None = None,
    note: str | None = None,
) -> str:
    """The replay of `steps` as a bash script: of `test`, which failed the requirements `failed`; `note`, a line more
    on where it was seen."""
    chained = _chained(steps)
    funding_url = redact(funding_url) if funding_url else None  # as the exchanges' URLs hold it: its token redacted
    used_keys = sorted({step.exchange.key_variable or KEY_VARIABLE for step in steps if step.exchange.keyed})
    forms = {
        form
        for step in steps
        for text in step.exchange.keyed.values()
        for form in re.findall(f"{KEY_MARK}([^{KEY_MARK}]*){KEY_MARK}", text)
        if form
    }
    funded = funding_url is not None and any(step.exchange.url.startswith(funding_url) for step in steps)
    lines = [
        "#!/usr/bin/env bash",
        f"{TITLE}{test}, which failed {', '.join(failed)}",
        *([f"# {note}"] if note else []),
        "# Sends the test's requests again, in order; each identifier the target assigned is read from its answer.",
        f"# Needs bash, curl and python3. {ANSWERS_VARIABLE}=FOLDER keeps each step's status and answer there.",
        "set -euo pipefail",
        f': "${{{BASE_VARIABLE}:?set {BASE_VARIABLE} to the base URL, ending in /v1}}"',
        *(f': "${{{variable}:?set {variable} to the secret key}}"' for variable in used_keys),
        *([f': "${{{FUNDING_VARIABLE}:?set {FUNDING_VARIABLE} to the funding hook}}"'] if funded else []),
        *_SEND,
        *(_FIELD if chained else []),
        *(_NEAR if forms else []),
    ]
    previous: Exchange | None = None
    names = {value: name for value, (name, _, _) in chained.items()}
    for number, step in enumerate(steps, start=1):
        exchange = step.exchange
        gap = None if step.given or number == 1 or steps[number - 2].given else _gap(previous, exchange)
        lines.append("")
        if step.given:
            lines.append(f"# step {number} made a record an earlier test of the run gave this one")
        if step.failing:
            lines.append(f"# step {number} showed the failure")
        if gap is not None:
            lines.append(f"sleep {gap:.1f}")
        if any(name.lower() == COOKIE for name, _ in exchange.request_headers):
            lines.append(
                f"# step {number} was sent with the cookies the target set earlier in the run; this sends none"
            )
        lines.append(_send(number, exchange, names, base_url, funding_url if funded else None))
        for value, (name, step_number, path) in chained.items():
            if step_number == number:
                lines.append(f"{name}=$(field {shlex.join(str(key) for key in path)})  # {value} in the run")
        if step.failing:
            lines.append(_recorded(number, exchange))
        previous = exchange
    shown = ", ".join(str(number) for number, step in enumerate(steps, start=1) if step.failing) or "none"
    lines += [
        "",
        f"echo '# {len(steps)} steps sent again; the answers of step(s) {shown} showed the failure: compare "
        "them with the recorded ones'",
        END,
    ]
    return "\n".join(lines) + "\n"


def recorded_answers(text: str) -> dict[int, tuple[int, str | None]]:
    """The recorded answers a script holds (`RECORDED` lines): by step, its status and its body (None where only the
    status was kept)."""
    answers: dict[int, tuple[int, str | None]] = {}
    for line in text.splitlines():
        if line.startswith(RECORDED):
            step, status, *body = line[len(RECORDED) :].split(" ", 2)
            answers[int(step.rstrip(":"))] = (int(status), body[0] if body and not body[0].startswith("(") else None)
    return answers


def _recorded(number: int, exchange: Exchange) -> str:
    text = exchange.text
    if exchange.is_json:
        text = json.dumps(exchange.json, separators=(",", ":"), ensure_ascii=False)
    if "\n" in text or len(text) > RECORDED_AT_MOST or exchange.truncated:
        text = "(too long to compare)"
    return f"{RECORDED}{number}: {exchange.status} {text}"


def _gap(previous: Exchange | None, exchange: Exchange) -> float | None:
    """How long the test waited between the end of one step and the start of the next (a settlement, say)."""
    if previous is None or previous.started is None or exchange.started is None:
        return None
    gap = exchange.started - (previous.started + previous.elapsed)
    return gap if gap >= POLL_GAP else None


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _leaves(inner, (*path, index))
    else:
        yield path, value


def request_text(exchange: Exchange) -> str:
    """The request's URL, header values and body, as one text to look for a value in."""
    body = exchange.request_body
    body_text = "" if body is None else body if isinstance(body, str) else json.dumps(body)
    return "\n".join([exchange.url, *(value for _, value in exchange.request_headers), body_text])


def _appears(value: str, text: str) -> bool:
    return re.search(f"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", text) is not None


def _chained(steps: Sequence[Step]) -> dict[str, tuple[str, int, tuple[Any, ...]]]:
    """The values the target assigned that later requests send: by value, the variable that holds it in the script,
    the step whose answer gives it, and where in that answer. A value a request sent before its answer showed it is
    the client's own, not assigned."""
    requests = [request_text(step.exchange) for step in steps]
    chained: dict[str, tuple[str, int, tuple[Any, ...]]] = {}
    for index, step in enumerate(steps):
        if not step.exchange.is_json:
            continue
        later = "\n".join(requests[index + 1 :])
        earlier = "\n".join(requests[: index + 1])
        for path, value in _leaves(step.exchange.json):
            if (
                not isinstance(value, str)
                or not assigned(value)
                or value in chained
                or not _appears(value, later)
                or _appears(value, earlier)
            ):
                continue
            name = re.sub(r"\W", "_", str(path[-1] if path else "value")).upper().lstrip("_") or "VALUE"
            chained[value] = (f"{name}_{index + 1}", index + 1, path)
    return chained


def _word(text: str, names: dict[str, str], key_variable: str) -> str:
    """`text` as one shell word: its literal parts quoted, a key's marks and the assigned values as variables."""
    marks = f"{KEY_MARK}[^{KEY_MARK}]*{KEY_MARK}"
    values = "|".join(
        f"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])" for value in sorted(names, key=len, reverse=True)
    )
    pattern = re.compile(marks + (f"|{values}" if values else ""))
    parts: list[str] = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() > position:
            parts.append(shlex.quote(text[position : match.start()]))
        found = match.group()
        if found.startswith(KEY_MARK):
            form = found.strip(KEY_MARK)
            parts.append(f'"${{{key_variable}}}"' if not form else f'"$(near {form} "${{{key_variable}}}")"')
        else:
            parts.append(f'"${{{names[found]}}}"')
        position = match.end()
    if position < len(text) or not parts:
        parts.append(shlex.quote(text[position:]))
    return "".join(parts)


def _send(number: int, exchange: Exchange, names: dict[str, str], base_url: str, funding_url: str | None) -> str:
    key_variable = exchange.key_variable or KEY_VARIABLE
    url = exchange.keyed.get("url", exchange.url)
    base = base_url.rstrip("/")
    if funding_url and url.startswith(funding_url):
        url_word = f'"${{{FUNDING_VARIABLE}}}"' + (
            _word(url[len(funding_url) :], names, key_variable) if url != funding_url else ""
        )
    elif url.startswith(base):
        url_word = f'"${{{BASE_VARIABLE}}}"' + (_word(url[len(base) :], names, key_variable) if url != base else "")
    else:
        url_word = _word(url, names, key_variable)
    words = ["send", str(number), exchange.method, url_word]
    for name, value in exchange.request_headers:
        if name.lower() == COOKIE:
            continue  # the target's cookies, concealed: the script says the step went with them
        if name.lower() not in NOISE or name.lower() == "accept":
            header = exchange.keyed.get(f"header:{name}", value)
            words += ["-H", _word(header_option(name, header), names, key_variable)]
    body = exchange.request_body
    if body is not None or "body" in exchange.keyed:
        text = exchange.keyed.get("body") or (body if isinstance(body, str) else json.dumps(body))
        spaces = f"\"$(printf '%{exchange.padding}s' '')\"" if exchange.padding else ""
        words += ["--data-binary", _word(text, names, key_variable) + spaces]
    return " ".join(words)


_SEND = r"""
send() {  # send STEP METHOD URL [curl options...]: one request; its status and answer printed, kept in STATUS, ANSWER
  local step=$1 method=$2 url=$3 out
  shift 3
  if [ "$method" = HEAD ]; then  # -I: curl waits for no body
    out=$(curl -sS --max-time 60 -I "$url" "$@" -o /dev/null -w $'\n%{http_code}')
  else
    out=$(curl -sS --max-time 60 -X "$method" "$url" "$@" -w $'\n%{http_code}')
  fi
  STATUS=${out##*$'\n'}
  ANSWER=${out%$'\n'*}
  local shown=${url%%\?*}  # the query may carry a key (a key probe): not printed
  [ "$shown" = "$url" ] || shown="$shown?..."
  printf '# step %s: %s %s -> %s\n%s\n' "$step" "$method" "$shown" "$STATUS" "$ANSWER"
  if [ -n "${REPLAY_ANSWERS:-}" ]; then
    printf '%s' "$STATUS" >"$REPLAY_ANSWERS/$step.status"
    printf '%s' "$ANSWER" >"$REPLAY_ANSWERS/$step.body"
  fi
}""".splitlines()

_FIELD = r"""
field() {  # field KEY...: a value of the last answer (KEY: an object's key or a list's index)
  printf '%s' "$ANSWER" | python3 -c 'import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1:]:
    value = value[int(key)] if isinstance(value, list) else value[key]
print(value)' "$@"
}""".splitlines()

_NEAR = r"""
near() {  # near FORM KEY: the key but for one detail, as the suite sent it (other-case, prefix, last-changed, appended)
  python3 -c 'import sys
form, key = sys.argv[1:]
last = key[-1]
other = ("1" if last == "0" else "0") if last.isdigit() else ("b" if last.lower() == "a" else "a")
print({"other-case": key.swapcase(), "prefix": key[:-1], "appended": key + "0",
       "last-changed": key[:-1] + (other.upper() if last.isupper() else other)}[form])' "$1" "$2"
}""".splitlines()
