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
from wallet_conformance.spec import contract


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
    return [
        Found(where, entry, exchange) for where, entry in envelope.entries(exchange, label, requirement=requirement)
    ]


@check
def of_kind(
    record: Any, schema_file: str, exchange: Exchange, where: str = "data", *, requirement: str | None = None
) -> dict[str, Any]:
    """`record` is a record of the resource `schema_file` is the table of: an object holding more than half of the
    fields that tell that resource from the others (contract.kind_fields). Whether it holds every field of the table,
    with its type and values, is the table requirement's (contract.RESOURCE_TABLES)."""
    kind = contract.schema(schema_file)["title"]
    fields = contract.kind_fields(schema_file)
    if not isinstance(record, dict):
        checks.fail(f"{where} is a {kind}", "an object", type(record).__name__, exchange, requirement=requirement)
    held = sorted(fields & record.keys())
    if 2 * len(held) <= len(fields):
        checks.fail(
            f"{where} is a {kind}",
            f"an object with most of the fields only a {kind} has: {sorted(fields)}",
            f"{where} holds {held or 'none of them'}",
            exchange,
            requirement=requirement,
        )
    return record


@check
def paged_list_of(exchange: Exchange, schema_file: str, *, requirement: str | None = None) -> list[Found]:
    """A list operation asked without parameters answers an array of the schema's resource (`of_kind`), with
    meta.pagination beside it (whose fields SVC-17 judges)."""
    checks.accepted(exchange, f"{exchange.operation_id} without parameters", requirement=requirement)
    envelope.pagination_presence(exchange, requirement=requirement)
    found = listed_records(exchange, "data", requirement=requirement)
    for where, entry, _ in found:
        of_kind(entry, schema_file, exchange, where, requirement=requirement)
    return found
