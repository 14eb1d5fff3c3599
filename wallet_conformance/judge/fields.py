"""Which fields a record carries, against the document's tables: the fields a table documents, those a record
carries beyond them, and the internal fields whose meaning the document does not show (observed, never judged)."""

from __future__ import annotations

import re
from typing import Any

from wallet_conformance.judge.observations import type_and_example
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue

INTERNAL_MEANING = "RES-77"  # "Meaning of the internal fields `auth`, `account`, ...: not shown."
# The internal fields, as the catalogue quotes the document (each between backticks).
INTERNAL_FIELDS = tuple(re.findall(r"`([^`]+)`", catalogue()[INTERNAL_MEANING].quote))


def documented_fields(schema_file: str) -> set[str]:
    """The field names a schema file's table documents."""
    return set(contract.schema(schema_file)["properties"])


def undocumented_fields(record: dict[str, Any], schema_file: str) -> list[str]:
    """The fields of `record` that the table of `schema_file` does not list, sorted."""
    return sorted(set(record) - documented_fields(schema_file))


def internal_fields(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The internal fields `record` carries, each with its type and a short example."""
    return {field: type_and_example(record[field]) for field in INTERNAL_FIELDS if field in record}
