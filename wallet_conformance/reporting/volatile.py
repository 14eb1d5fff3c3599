"""Values that change from run to run of the same behaviour (loopback ports, timings, timestamps, run ids, uuids),
masked in the human reports so that two reports of the same behaviour diff cleanly.
"""

from __future__ import annotations

import re

_VOLATILE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+"), r"\1:[port]"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "[timestamp]"),
    (re.compile(r"\b\d+ ms\b"), "[n] ms"),
    (re.compile(r"\bcf[0-9a-f]{8}(?:gw\d+)?(?![0-9a-f])"), "cf[run]"),  # a run id, not the start of a sha256
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "[uuid]"),
]


def mask(text: str) -> str:
    """`text` with the values that change from run to run of the same behaviour replaced."""
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text
