"""A `curl` command line that reproduces one request, with secrets replaced."""

from __future__ import annotations

import json
import shlex
from typing import Any

from wallet_conformance.client.redaction import redact, redact_headers

# Headers httpx adds by itself; curl sends its own.
_NOISE = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length", "accept"})


def curl_command(method: str, url: str, headers: list[tuple[str, str]], body: Any = None) -> str:
    parts = ["curl", "-sS", "-X", method.upper(), redact(url)]
    for name, value in redact_headers(headers):
        if name.lower() not in _NOISE:
            parts += ["-H", f"{name}: {value}"]
    if body is not None:
        text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
        parts += ["--data-raw", redact(text)]
    return " ".join(shlex.quote(part) for part in parts)
