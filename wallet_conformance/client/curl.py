"""A `curl` command line that reproduces one request, with secrets replaced: its headers as the exchange shows them
(each secret-bearing header already concealed where the exchange was made), every secret of the run replaced again."""

from __future__ import annotations

import json
import shlex
from typing import Any

from wallet_conformance.client.redaction import redact

# Headers httpx adds by itself; curl sends its own.
NOISE = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length", "accept"})


def header_option(name: str, value: str) -> str:
    """curl's -H argument sending this header: `name;` for an empty value, as `name:` alone removes the header."""
    return f"{name}: {value}" if value.strip() else f"{name};"


def curl_command(method: str, url: str, headers: list[tuple[str, str]], body: Any = None, padding: int = 0) -> str:
    """The curl line; a body followed by `padding` spaces is written by printf and piped in, not spelled out."""
    parts = ["curl", "-sS", "-X", method.upper(), redact(url)]
    for name, value in headers:
        if name.lower() not in NOISE:
            parts += ["-H", header_option(name, redact(value))]
    if body is None:
        return shlex.join(parts)
    text = redact(body if isinstance(body, str) else json.dumps(body, separators=(",", ":")))
    if padding:  # `%Ns` of an empty argument prints N spaces; curl reads the body from standard input
        return f"{shlex.join(['printf', f'%s%{padding}s', text, ''])} | {shlex.join([*parts, '--data-binary', '@-'])}"
    return shlex.join([*parts, "--data-raw", text])
