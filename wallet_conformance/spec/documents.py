"""The one loader of the contract's documents: openapi.yaml and the schema files of schemas/."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import yaml

from wallet_conformance.spec.files import OPENAPI, SCHEMAS

# libyaml's loader when PyYAML was built with it: the same safe subset, ten times faster on openapi.yaml and
# requirements.yaml, which every process of the suite (and every xdist worker) reads at start-up.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """A YAML document of the project, read with the safe loader."""
    return yaml.load(text, Loader=_SAFE_LOADER)


@cache
def openapi() -> dict[str, Any]:
    """openapi.yaml as loaded (shared: callers must not change it)."""
    return load_yaml(OPENAPI.read_text(encoding="utf-8"))


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
