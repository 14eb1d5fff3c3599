"""A `curl` command line that reproduces one request, with secrets replaced."""

from __future__ import annotations

import json
import shlex
from typing import Any

from wallet_conformance.client.redaction import redact, redact_headers

# Headers httpx adds by itself; curl sends its own.
NOISE = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length", "accept"})


def curl_command(method: str, url: str, headers: list[tuple[str, str]], body: Any = None, padding: int = 0) -> str:
    """The curl line; a body followed by `padding` spaces is written by printf and piped in, not spelled out."""
    parts = ["curl", "-sS", "-X", method.upper(), redact(url)]
    for name, value in redact_headers(headers):
        if name.lower() not in NOISE:
            parts += ["-H", f"{name}: {value}"]
    if body is None:
        return shlex.join(parts)
    text = redact(body if isinstance(body, str) else json.dumps(body, separators=(",", ":")))
    if padding:  # `%Ns` of an empty argument prints N spaces; curl reads the body from standard input
        return f"{shlex.join(['printf', f'%s%{padding}s', text, ''])} | {shlex.join([*parts, '--data-binary', '@-'])}"
    return shlex.join([*parts, "--data-raw", text])
