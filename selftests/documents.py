"""Walking the contract's JSON documents (openapi.yaml, schemas/)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def references(node: Any) -> Iterator[str]:
    """Every `$ref` value in a JSON document, depth first."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from references(value)
    elif isinstance(node, list):
        for item in node:
            yield from references(item)
