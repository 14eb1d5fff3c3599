"""The one loader of the contract's documents: openapi.yaml and the schema files of schemas/."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import yaml

from wallet_conformance.files import OPENAPI, SCHEMAS


@cache
def openapi() -> dict[str, Any]:
    """openapi.yaml as loaded (shared: callers must not change it)."""
    return yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))


@cache
def schema_files() -> dict[str, dict[str, Any]]:
    """Every schema file of schemas/, by file name (shared: callers must not change them)."""
    return {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(SCHEMAS.glob("*.json"))}


def schema(name: str) -> dict[str, Any]:
    """A schema file of schemas/, by file name (`wallet.json`)."""
    try:
        return schema_files()[name]
    except KeyError:
        raise KeyError(f"no schema file {name!r} in {SCHEMAS}") from None
