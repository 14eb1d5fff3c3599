"""Near-copies of a value the target must match exactly (a secret key, a transaction's reference, a wallet's
publicId): the same value but for one detail. A target that compares by prefix, ignores letter case, or reads
only so many characters takes a near-copy for the value; one that compares exactly refuses every one.

The key probes (world/key_probes.py) send them as keys, the identifier tests as identifiers; redaction.py keeps
a key's near-copies out of the output as it keeps the key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

OTHER_CASE = "other-case"
PREFIX = "prefix"
LAST_CHANGED = "last-changed"
APPENDED = "appended"


def other_case(value: str) -> str | None:
    """The value with every letter in the other case; None when it has no letter (no other spelling exists)."""
    swapped = value.swapcase()
    return swapped if swapped != value else None


def prefix(value: str) -> str:
    """All of the value but its last character: the longest prefix that is not the value."""
    return value[:-1]


def last_changed(value: str) -> str:
    """The value with its last character replaced by another one of the same kind (a digit by a digit, a letter by
    a letter, anything else by a letter)."""
    last = value[-1]
    if last.isdigit():
        other = "1" if last == "0" else "0"
    else:
        other = "b" if last.lower() == "a" else "a"
        other = other.upper() if last.isupper() else other
    return value[:-1] + other


def appended(value: str) -> str:
    """The value with one character more at its end."""
    return value + "0"


# Each near-copy by name; None where the value has no such copy.
NEAR_COPIES: dict[str, Callable[[str], str | None]] = {
    OTHER_CASE: other_case,
    PREFIX: prefix,
    LAST_CHANGED: last_changed,
    APPENDED: appended,
}


def near_copy(value: str, kind: str) -> str | None:
    """The near-copy `kind` of `value` (one of NEAR_COPIES), or None where the value has none."""
    return NEAR_COPIES[kind](value)


def every_near_copy(value: str) -> list[str]:
    """Every near-copy the value has."""
    return [copy for kind in NEAR_COPIES if (copy := near_copy(value, kind)) is not None]


KEY_MARK = "\x00"  # a key's place in a replay's template: KEY_MARK + the form's name ("" for the key) + KEY_MARK


def key_template(text: str, key: str) -> str | None:
    """`text` with each appearance of `key` or one of its near-copies replaced by a mark naming its form (the longest
    form first where one holds another); None when none appears. A replay sends the form of its own key there."""
    if prefix(key) not in text and (other_case(key) or key) not in text:
        return None  # every form holds the prefix or is the other case: the common case costs two searches
    pattern, names = _forms(key)
    return pattern.sub(lambda match: KEY_MARK + names[match.group()] + KEY_MARK, text)


@cache
def _forms(key: str) -> tuple[re.Pattern[str], dict[str, str]]:
    forms = sorted(
        [("", key), *((kind, copy) for kind in NEAR_COPIES if (copy := near_copy(key, kind)))],
        key=lambda pair: len(pair[1]),
        reverse=True,
    )
    return re.compile("|".join(re.escape(value) for _, value in forms)), {value: kind for kind, value in forms}
