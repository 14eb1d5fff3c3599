"""The entries of HAR files as exchanges of one target (--har), and the base addresses the files' entries are under."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.har.exchange import exchange_of
from wallet_conformance.client.har.secret_learning import learn_secrets
from wallet_conformance.client.har.stream import raw_entries
from wallet_conformance.client.har.url_matching import base_of, in_target
from wallet_conformance.client.redaction import redact


@dataclass(frozen=True)
class Recorded:
    """One entry of a HAR file: where it is (the file, its index from 0) and its exchange (None: outside the
    target's base URL)."""

    file: Path
    index: int
    exchange: Exchange | None
    request: str  # method and URL, redacted: how a listing names it


def recorded(paths: Iterable[Path], base_url: str | None) -> Iterator[Recorded]:
    """Every entry of the files, in order, as an exchange of the target at `base_url` (or as outside it; with no base
    address every entry is outside)."""
    for path in paths:
        for index, found in enumerate(raw_entries(path)):
            request = found["request"]
            made = exchange_of(found, base_url) if base_url and in_target(request["url"], base_url) else None
            if made is None:
                learn_secrets(found)
            yield Recorded(path, index, made, redact(f"{request['method'].upper()} {request['url']}"))


def bases(paths: Iterable[Path]) -> dict[str, int]:
    """The base addresses the files' entries are under, with how many entries each (a pass over every entry: a
    file that is not a HAR is found here, before anything is judged)."""
    found: dict[str, int] = {}
    for path in paths:
        for raw in raw_entries(path):
            base = base_of(raw["request"]["url"])
            if base is not None:
                found[base] = found.get(base, 0) + 1
    return found
