"""Records as the resource checks see them: each with where it was found and the exchange that carried it.

A single-record response gives one record (its `data`, which must be an object); a list response gives one per
entry (each must be an object; an empty list is a skip, as `envelope.entries` says). Checks follow the convention
of checks.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import checks, envelope
from wallet_conformance.judge.failures import check


class Found(NamedTuple):
    """A record of the target's, where it was found (`data`, `GET /transactions data[2]`...) and its exchange."""

    where: str
    record: dict[str, Any]
    exchange: Exchange


@check
def one_record(exchange: Exchange, label: str, *, requirement: str | None = None) -> list[Found]:
    """The record of a single-record response: its data, an object."""
    return [Found(label, envelope.data_is_object(exchange, requirement=requirement), exchange)]


@check
def listed_records(exchange: Exchange, label: str, *, requirement: str | None = None) -> list[Found]:
    """The records of a list response, one per entry, each an object (an empty list cannot be judged)."""
    return [Found(where, entry, exchange)
            for where, entry in envelope.entries(exchange, label, requirement=requirement)]


@check
def paged_list_of(exchange: Exchange, schema_file: str, pointer: str = "", *,
                  requirement: str | None = None) -> list[Found]:
    """A list operation asked without parameters answers an array of the schema's resource, with meta.pagination
    beside it (whose fields SVC-17 judges)."""
    checks.accepted(exchange, f"{exchange.operation_id} without parameters", requirement=requirement)
    envelope.pagination_presence(exchange, requirement=requirement)
    found = listed_records(exchange, "data", requirement=requirement)
    for where, entry, _ in found:
        checks.conforms(entry, schema_file, exchange, pointer=pointer, where=where, requirement=requirement)
    return found
