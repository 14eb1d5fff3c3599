"""Keeps secret keys out of everything the suite prints or writes.

Redaction happens on the data (exchanges, messages) before any formatter sees it,
so a new report or log line cannot leak a key it never received.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, unquote, urlsplit

from wallet_conformance.client.near_copies import every_near_copy
from wallet_conformance.client.personal import Masking
from wallet_conformance.settings import MIN_KEY_LENGTH, Settings

PLACEHOLDER = "<SECRET_KEY>"
# What a key carried by traffic (not given to the run) must look like to be learnt: long enough, and of the characters
# keys and tokens are made of, so that no client-chosen value (`http`, `data`, `": "`) can make redaction rewrite the
# words or the structure of a report or a HAR; and how many such keys a run learns (the others are counted).
LEARNABLE = re.compile(r"[A-Za-z0-9._~+/=-]{16,}")
LEARNT_AT_MOST = 1_000
# The names of a URL's query parameters whose value is a credential (a funding hook's `?token=`, `?api_key=`, `?sig=`).
CREDENTIAL_NAMES = re.compile(r"token|key|secret|sig|pass|auth|credential|session", re.IGNORECASE)
# What httpx leaves as it is in a URL's path and in a query given whole (the WHATWG percent-encode sets; "%" stays, as
# httpx keeps an escape already there); a query parameter's value it writes as quote_plus does.
_PATH_SAFE = "".join(char for char in map(chr, range(0x21, 0x7F)) if char not in '"#<>?`{}')
_QUERY_SAFE = "".join(char for char in map(chr, range(0x21, 0x7F)) if char not in '"#<>')
_HEX_ESCAPE = re.compile("%[0-9A-F]{2}")
SECRET_HEADERS = frozenset(
    {"x-service-key", "authorization", "proxy-authorization", "cookie", "set-cookie", "x-wallet-signature"}
)


def written_forms(value: str) -> set[str]:
    """Every way the suite's outputs can write `value`: as it is; percent-encoded as a whole (`quote`), as a query
    parameter (`quote_plus`), in a URL's path or query as httpx writes them, each with upper- and lower-case hex; and
    each of those escaped in a JSON string (ASCII only or not), in HTML and in XML."""
    percent = {
        quote(value, safe=""),
        quote_plus(value, safe=""),
        quote(value, safe=_PATH_SAFE),
        quote(value, safe=_QUERY_SAFE),
    }
    plain = {value, *percent, *(_HEX_ESCAPE.sub(lambda match: match.group().lower(), form) for form in percent)}
    escaped = (escape(form) for form in plain for escape in (_json_ascii, _json, _json_slash, html.escape, _xml))
    return {*plain, *escaped}


def _json_ascii(text: str) -> str:
    return json.dumps(text)[1:-1]


def _json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _json_slash(text: str) -> str:
    """Escaped in a JSON string with `/` written `\\/`, as PHP's json_encode writes it."""
    return json.dumps(text)[1:-1].replace("/", "\\/")


def _xml(text: str) -> str:
    return html.escape(text, quote=False)


class Secrets:
    """The secret values of one run (its keys, their near-copies, the keys recorded traffic carries, the tokens of its
    funding hook's URL), each in every form an output can write it (`written_forms`), longest first, so that a key is
    replaced whole before any shorter secret inside it."""

    def __init__(self, masking: Masking | None = None) -> None:
        self._values: set[str] = set()
        self._forms: set[str] = set()
        self._longest_first: tuple[str, ...] = ()
        self._without_escapes: tuple[str, ...] = ()  # those holding no "%": all a text without one can hold
        self.masking = masking  # personal data masked in outputs (the proxy, --har), or kept (None)
        self.learnt = 0  # keys learnt from traffic
        self.not_learnt = 0  # keys of the traffic past LEARNT_AT_MOST, or not of a key's form

    def learn(self, value: str) -> None:
        """A key the traffic carries (a key header's value, a token, a cookie): remembered when it has a key's form
        (LEARNABLE) and the run has learnt fewer than LEARNT_AT_MOST; else counted. Its header is redacted by name
        whatever it holds."""
        if value in self._values:
            return
        if not LEARNABLE.fullmatch(value) or self.learnt >= LEARNT_AT_MOST:
            self.not_learnt += 1
            return
        self.learnt += 1
        self.add(value)

    def add(self, value: str | None) -> None:
        """Remember a value that must never appear in output (shorter than MIN_KEY_LENGTH: refused)."""
        if value and value not in self._values:
            if len(value) < MIN_KEY_LENGTH:
                raise ValueError(f"a secret key shorter than {MIN_KEY_LENGTH} characters cannot be redacted reliably")
            self._values.add(value)
            self._forms |= written_forms(value)
            self._longest_first = tuple(sorted(self._forms, key=len, reverse=True))
            self._without_escapes = tuple(form for form in self._longest_first if "%" not in form)

    def add_key(self, value: str | None) -> None:
        """Remember a secret key, and its near-copies (near_copies.py) that the key probes send: a target that echoes
        a refused key back would otherwise show all of the key but one character. A near-copy shorter than
        MIN_KEY_LENGTH is left out (it would mask unrelated text)."""
        if value:
            self.add(value)
            for copy in every_near_copy(value):
                if len(copy) >= MIN_KEY_LENGTH:
                    self.add(copy)

    def add_url(self, url: str | None) -> None:
        """Remember the secrets a URL given to the run carries (a funding hook's `?token=`): its password, and the value
        of each query parameter a credential's name gives (CREDENTIAL_NAMES: `token`, `api_key`, `sig`...), as written
        and decoded. Any other value (`env=sandbox`, `account=<a UUID>`) is left as it is: the judges read exchanges
        redacted, and it may be any word, number or id of theirs."""
        if not url:
            return
        parts = urlsplit(url)
        if parts.password and len(unquote(parts.password)) >= MIN_KEY_LENGTH:
            self.add(parts.password)
            self.add(unquote(parts.password))
        for pair in parts.query.split("&"):
            name, _, written = pair.partition("=")
            if not CREDENTIAL_NAMES.search(unquote(name)):
                continue
            for value in {unquote(written), unquote(written.replace("+", " "))}:
                if len(value) >= MIN_KEY_LENGTH:
                    self.add(written)
                    self.add(value)

    def add_given(self, settings: Settings) -> None:
        """Remember the secrets the options give: the keys (add_key) and the tokens of the funding hook's URL
        (add_url)."""
        self.add_key(settings.secret_key)
        self.add_key(settings.second_secret_key)
        self.add_url(settings.funding_url)

    def redact(self, text: str, more: Iterable[str] = ()) -> str:
        """`text` with each of these secrets (and of `more`) replaced by the placeholder."""
        # Most texts hold no percent escape: the escaped forms need no search there (redaction runs on every exchange).
        secrets = self._longest_first if "%" in text else self._without_escapes
        if more:
            secrets = tuple(sorted({*secrets, *filter(None, more)}, key=len, reverse=True))
        for secret in secrets:
            text = text.replace(secret, PLACEHOLDER)
        return text

    def conceal(self, text: str) -> str:
        """What an output shows of `text`: redacted, and its personal data masked where these secrets mask it."""
        text = self.redact(text)
        return self.masking.mask(text) if self.masking is not None else text


# The secrets of the run going on in this process, on top (a run inside another, as the self-tests make, pushes its
# own and pops them when it ends): everything the process prints or writes is redacted with them, from code that
# knows no run (an exception's message, an exchange's description).
_RUNS: list[Secrets] = [Secrets()]


def activate(secrets: Secrets) -> None:
    """A run starts: its secrets are the ones output is redacted with until it ends (`deactivate`)."""
    _RUNS.append(secrets)


def deactivate(secrets: Secrets) -> None:
    """The run ended: its secrets are dropped, the enclosing run's are used again."""
    if secrets in _RUNS[1:]:
        _RUNS.remove(secrets)


def active() -> Secrets:
    """The secrets output is redacted with now (to hand to a process of the run's own)."""
    return _RUNS[-1]


def register_secret(value: str | None) -> None:
    """Remember, for the current run, a value that must never appear in output."""
    _RUNS[-1].add(value)


def register_key(value: str | None) -> None:
    """Remember, for the current run, a secret key and its near-copies (Secrets.add_key)."""
    _RUNS[-1].add_key(value)


def learn(value: str) -> None:
    """Remember, for the current run, a key the traffic carries, where it has a key's form (Secrets.learn)."""
    _RUNS[-1].learn(value)


def conceal(text: str) -> str:
    """What the run writes or prints of `text`: redacted, and its personal data masked where the run masks it
    (personal.py). Only outputs: the judges see what was sent and answered."""
    return _RUNS[-1].conceal(text)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every secret of the current run (and every one of `secrets`) replaced by a placeholder."""
    return _RUNS[-1].redact(text, secrets)


# Secret-bearing headers whose value is a key: in a request the suite made, a value it chose.
KEY_HEADERS = frozenset({"x-service-key", "authorization", "proxy-authorization"})


def redact_headers(headers: Iterable[tuple[str, str]], own: bool = False) -> list[tuple[str, str]]:
    """Headers with the value of every secret-bearing header replaced. In the suite's `own` request a key header keeps
    every character but the secrets the run knows, so that a wrong, empty or padded key shows as sent: the run knows
    every key it sends, not the keys of traffic it records, nor the cookies a target sets."""
    whole = SECRET_HEADERS - KEY_HEADERS if own else SECRET_HEADERS
    return [(name, PLACEHOLDER if name.lower() in whole else redact(value)) for name, value in headers]
