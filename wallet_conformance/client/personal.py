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
FIELDS = ("accountName", "emailAddress", "email", "phoneNumber", "accountNumber", "parentAccountNumber",
          "bvn", "address", "firstName", "lastName", "customerName", "beneficiaryName")
SHORTEST = 5  # a value seen in a personal field is masked wherever else it appears (a check's expected, received) too
REMEMBERED = 10_000  # values remembered so, at most
# A field's name and value in JSON text, also inside a JSON string (a body an evidence quotes: every quote then comes
# after as many backslashes as the name's quotes do): a string value, or a number.
_VALUE = re.compile(
    r'(?P<q>\\*)"(?P<field>' + "|".join(FIELDS) + r')(?P=q)"(?P<colon>\s*:\s*)'
    r'(?:(?P=q)"(?P<text>(?:[^"\\]|\\+u[0-9a-fA-F]{4})*)(?P=q)"|(?P<number>-?\d+))')
_CLASSES = (string.digits, string.ascii_lowercase, string.ascii_uppercase)


@dataclass(frozen=True)
class Masking:
    """The masks of one run: a random salt, carried to the run's other processes with its secrets."""

    salt: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    seen: set[str] = field(default_factory=set, repr=False, compare=False)

    def mask(self, text: str) -> str:
        """`text` (JSON, a JSON document quoted in another, a curl line...) with each personal field's value masked,
        and every value of SHORTEST characters or more seen in such a field (here or before) wherever it appears: a
        check's expected and received value quote the field without its name."""
        for found in _VALUE.finditer(text):
            value = found["text"] if found["text"] is not None else found["number"]
            if len(value) >= SHORTEST and len(self.seen) < REMEMBERED:
                self.seen.add(value)
        text = _VALUE.sub(self._masked, text)
        present = [value for value in self.seen if value in text]
        if not present:
            return text
        anywhere = re.compile("|".join(re.escape(value) for value in sorted(present, key=len, reverse=True)))
        return anywhere.sub(lambda found: self.value(found[0]), text)

    def value(self, value: str) -> str:
        """One value's mask: each digit, lower- and upper-case letter replaced by one of its kind, the same for the
        same value; every other character kept."""
        stream = hmac.new(self.salt, value.encode(), hashlib.sha256).digest()
        while len(stream) < len(value):
            stream += hashlib.sha256(stream).digest()
        masked = []
        for character, byte in zip(value, stream, strict=False):
            kind = next((kind for kind in _CLASSES if character in kind), None)
            masked.append(kind[byte % len(kind)] if kind else character)
        return "".join(masked)

    def _masked(self, found: re.Match[str]) -> str:
        quote = found["q"] + '"'
        name = f'{quote}{found["field"]}{quote}{found["colon"]}'
        if found["number"] is not None:
            return name + self.value(found["number"])
        text = re.sub(r"\\+u[0-9a-fA-F]{4}", "x", found["text"])  # a character written escaped: one letter
        return f"{name}{quote}{self.value(text)}{quote}"
