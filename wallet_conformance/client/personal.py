"""Personal data in what the proxy and `--har` keep: the values of the fields that hold a person's data (names,
account numbers, e-mail addresses, phone numbers, BVN-like numbers, addresses) masked in every output they write or
print, so a payments team can keep their reports as CI artifacts.

A mask keeps a value's type, length and format: a digit stays a digit, a letter a letter of its case, anything else
(`@`, `.`, a space) as it is, so an account number stays ten digits and an e-mail address reads as one. The same value
gets the same mask throughout a run (a report still shows two answers naming one account), and no mask can be turned
back without the run's salt, which is random and never written. The judges see the values as they are: only outputs
are masked (redaction.conceal).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from dataclasses import dataclass, field

# The fields of the document's records (and of the requests that make them) that hold a person's data. Not `name`:
# a business account's name, a bank's, and the name of every header and query parameter of a HAR.
FIELDS = (
    "accountName",
    "emailAddress",
    "email",
    "phoneNumber",
    "accountNumber",
    "parentAccountNumber",
    "bvn",
    "address",
    "firstName",
    "lastName",
    "customerName",
    "beneficiaryName",
)
SHORTEST = 5  # a value seen in a personal field is masked wherever else it appears (a check's expected, received) too
REMEMBERED = 10_000  # values remembered so, at most
MASKS_KEPT = 100_000  # masks kept, made once and known again (a text masked twice keeps them), at most
# A field's name and value in JSON text, also inside a JSON string (a body an evidence quotes: every quote then comes
# after as many backslashes as the name's quotes do): a string value, or a number.
_VALUE = re.compile(
    r'(?P<q>\\*)"(?P<field>' + "|".join(FIELDS) + r')(?P=q)"(?P<colon>\s*:\s*)'
    r'(?:(?P=q)"(?P<text>(?:[^"\\]|\\+u[0-9a-fA-F]{4})*)(?P=q)"|(?P<number>-?\d+))'
)
_KIND = {
    character: kind for kind in (string.digits, string.ascii_lowercase, string.ascii_uppercase) for character in kind
}  # what a character is replaced by one of


_TOKEN = re.compile(r"[^\W_]+")  # a run of letters and digits: how a remembered value is looked for


@dataclass(frozen=True)
class Masking:
    """The masks of one run: a random salt, carried to the run's other processes with its secrets."""

    salt: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    # The values remembered from personal fields, by their first run of letters and digits, then by where that run
    # starts in the value and the value's length: a text is searched for them in one walk over its runs, each run
    # looked up by its few shapes, in time that grows with the text and not with the number of values remembered.
    remembered: dict[str, dict[tuple[int, int], set[str]]] = field(default_factory=dict, repr=False, compare=False)
    values: set[str] = field(default_factory=set, repr=False, compare=False)  # the same values, to count them
    masks: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # each value's, once made
    # The masks made: a text masked twice (a line of a report that is masked again when written) keeps its masks.
    made: set[str] = field(default_factory=set, repr=False, compare=False)

    def mask(self, text: str) -> str:
        """`text` (JSON, a JSON document quoted in another, a curl line...) with each personal field's value masked,
        and every value of SHORTEST characters or more seen in such a field (here or before) wherever it appears: a
        check's expected and received value quote the field without its name."""
        if any(name in text for name in FIELDS):
            for found in _VALUE.finditer(text):
                self._remember(found["text"] if found["text"] is not None else found["number"])
            text = _VALUE.sub(self._masked, text)
        if not self.values or not self.remembered.keys() & set(_TOKEN.findall(text)):
            return text
        pieces, done = [], 0
        for run in _TOKEN.finditer(text):
            shapes = self.remembered.get(run[0], {})
            for (offset, length), values in sorted(shapes.items(), key=lambda shape: -shape[0][1]):
                start, end = run.start() - offset, run.start() - offset + length
                whole = not (text[end - 1 : end + 1].isalnum() and end < len(text))  # not the start of a longer run
                if start >= done and whole and text[start:end] in values:
                    pieces += [text[done:start], self.value(text[start:end])]
                    done = end
                    break
        return "".join(pieces) + text[done:]

    def _remember(self, value: str) -> None:
        first = _TOKEN.search(value)
        if (
            len(value) >= SHORTEST
            and first
            and value not in self.values
            and value not in self.made
            and len(self.values) < REMEMBERED
        ):
            self.values.add(value)
            self.remembered.setdefault(first[0], {}).setdefault((first.start(), len(value)), set()).add(value)

    def value(self, value: str) -> str:
        """One value's mask: each digit, lower- and upper-case letter replaced by one of its kind, the same for the
        same value; every other character kept."""
        masked = self.masks.get(value)
        if masked is None:
            if value in self.made:
                return value
            stream = hmac.new(self.salt, value.encode(), hashlib.sha256).digest()
            while len(stream) < len(value):
                stream += hashlib.sha256(stream).digest()
            masked = "".join(
                _KIND[character][byte % len(_KIND[character])] if character in _KIND else character
                for character, byte in zip(value, stream, strict=False)
            )
            if len(self.masks) < MASKS_KEPT:
                self.masks[value] = masked
                self.made.add(masked)
        return masked

    def _masked(self, found: re.Match[str]) -> str:
        quote = found["q"] + '"'
        name = f"{quote}{found['field']}{quote}{found['colon']}"
        if found["number"] is not None:
            return name + self.value(found["number"])
        text = re.sub(r"\\+u[0-9a-fA-F]{4}", "x", found["text"])  # a character written escaped: one letter
        return f"{name}{quote}{self.value(text)}{quote}"
