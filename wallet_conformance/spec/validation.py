"""JSON Schema validation against schemas/, and openapi.yaml with those schemas bundled in.

Money must be integers: the validators here use a strict type checker in which
`integer` accepts only a Python `int` (not `True`, not `1000.0`).

Every instance is first tried on a compiled validator (jsonschema-rs, about a hundred times faster): when it is
valid there and holds no whole float, it is valid here. jsonschema-rs reads `1000.0` as an integer, so an instance
holding a float with no fraction, and every instance it refuses, goes to jsonschema, whose problems are the ones
reported.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote

import jsonschema
import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from wallet_conformance.spec.documents import openapi, schema_files
from wallet_conformance.spec.files import SCHEMAS

__all__ = [
    "SchemaViolation",
    "compiled_all_of",
    "field_name",
    "openapi_document",
    "problems",
    "registry",
    "response_problems",
    "response_schema",
    "valid_compiled",
    "valid_with",
    "validator",
    "value_at",
]

OPENAPI_ID = "openapi.json"  # the bundled openapi.yaml among the registry's resources


@dataclass(frozen=True)
class SchemaViolation:
    """One way an instance fails a schema."""

    path: str  # where in the instance, e.g. `data.balance` or `[0].meta.rate` (`` for the root)
    message: str
    keyword: str  # the failing schema keyword, e.g. `type`, `required`, `pattern`
    expected: Any = None  # that keyword's value in the schema, e.g. `integer`


def _is_strict_integer(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


StrictValidator = jsonschema.validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_strict_integer),
)


@cache
def registry() -> Registry:
    """Every schema of schemas/ as a Draft 2020-12 resource, keyed by its `$id` (its file name).

    `$schema` is left out of the registered contents: jsonschema picks the validator class of a referenced
    schema from its `$schema`, which would replace the strict type checker by the default one."""
    resources = []
    for schema_file, contents in schema_files().items():
        contents = {key: value for key, value in contents.items() if key != "$schema"}
        uri = contents.setdefault("$id", schema_file)
        resources.append((uri, DRAFT202012.create_resource(contents)))
    resources.append((OPENAPI_ID, DRAFT202012.create_resource(_bundled())))
    return Registry().with_resources(resources).crawl()


@cache
def validator(schema_file: str, pointer: str = "") -> Validator:
    """A cached Draft 2020-12 validator, with format checks and strict integers, for a schema file
    (`wallet.json`) or a part of it (`pointer`, e.g. `/$defs/created`; a leading `#` is allowed)."""
    return StrictValidator(
        {"$ref": _reference(schema_file, pointer)},
        registry=registry(),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def _reference(schema_file: str, pointer: str) -> str:
    if schema_file not in schema_files() and schema_file != OPENAPI_ID:
        raise KeyError(f"no schema file {schema_file!r} in {SCHEMAS}")
    return f"{schema_file}#{pointer.removeprefix('#')}"


# jsonschema-rs resolves references against absolute URIs only: the same resources under one made-up base.
_COMPILED_BASE = "https://schemas.wallet-conformance.invalid/"


@cache
def _compiled_registry() -> jsonschema_rs.Registry:
    resources = [(OPENAPI_ID, _bundled())]
    for schema_file, contents in schema_files().items():
        resources.append((schema_file, {key: value for key, value in contents.items() if key != "$schema"}))
    return jsonschema_rs.Registry(
        [(_COMPILED_BASE + uri, {**contents, "$id": _COMPILED_BASE + uri}) for uri, contents in resources]
    )


@cache
def _compiled(schema_file: str, pointer: str) -> Any:
    # A URI fragment takes no braces (openapi.yaml's path templates): percent-encoded, as RFC 6901 says.
    reference = quote(_reference(schema_file, pointer), safe="/#~$:")
    return jsonschema_rs.validator_for(
        {"$ref": _COMPILED_BASE + reference}, registry=_compiled_registry(), validate_formats=True
    )


# Whether a container holds a whole float, by identity, for every container seen lately (each held, so no other
# object takes its id): an answer's body and its parts are validated many times over. Instances are parsed answers,
# never changed once parsed.
_WHOLE_FLOATS: dict[int, tuple[Any, bool]] = {}
_REMEMBERED = 4096
_NO_FLOAT = frozenset({str, int, bool, type(None)})  # the types of JSON values that neither are nor hold a float


def _holds_whole_float(instance: Any) -> bool:
    """Whether a float without a fraction (`1000.0`, which jsonschema-rs takes for an integer) or a non-finite one
    is anywhere in `instance`."""
    if isinstance(instance, float):
        return instance.is_integer() or instance != instance or instance in (float("inf"), float("-inf"))
    if not isinstance(instance, (dict, list)):
        return False
    held = _WHOLE_FLOATS.get(id(instance))
    if held is not None and held[0] is instance:
        return held[1]
    found = False
    for value in instance.values() if isinstance(instance, dict) else instance:
        if type(value) in _NO_FLOAT:  # most values: a call each would be most of the walk's time
            continue
        found = _holds_whole_float(value) or found  # every part is looked at, and remembered
    if len(_WHOLE_FLOATS) >= _REMEMBERED:
        _WHOLE_FLOATS.clear()
    _WHOLE_FLOATS[id(instance)] = (instance, found)
    return found


def valid_compiled(schema_file: str, pointer: str, instance: Any) -> bool:
    """Whether the compiled validator finds `instance` valid, where its answer is also jsonschema's (no float)."""
    return valid_with(_compiled(schema_file, pointer), instance)


def valid_with(compiled: Any, instance: Any, *, whole_floats: bool | None = None) -> bool:
    """Whether a compiled validator (`_compiled`, `compiled_all_of`) finds `instance` valid, where its answer is also
    jsonschema's: False for an instance holding a whole float, or an integer it cannot read. `whole_floats`: whether
    it holds one, where the caller knows (an answer's body: Exchange.holds_whole_float); else it is looked for."""
    if _holds_whole_float(instance) if whole_floats is None else whole_floats:
        return False
    try:
        return bool(compiled.is_valid(instance))
    except (ValueError, OverflowError):  # an integer beyond 64 bits, say: jsonschema decides
        return False


def compiled_all_of(schemas: list[dict[str, Any]]) -> Any:
    """A compiled validator of every one of `schemas` at once. Each is a resource of its own beside the files of
    schemas/, so its `$ref`s name those files as they name each other (`envelope.json#/$defs/meta`) and its own
    `#/$defs/...` are its own."""
    return jsonschema_rs.validator_for(
        {"allOf": [{**schema, "$id": f"{_COMPILED_BASE}all-of-{index}.json"} for index, schema in enumerate(schemas)]},
        registry=_compiled_registry(),
        validate_formats=True,
    )


def _readable_path(parts: Any) -> str:
    """`deque(['data', 0, 'meta'])` -> `data[0].meta`."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _cause(error: ValidationError) -> ValidationError:
    """An `anyOf`/`oneOf` failure, reported by its most telling branch: a timestamp-or-null given a
    timestamp without milliseconds fails `pattern`, not `type: null`."""
    while error.context:
        telling = [cause for cause in error.context if cause.validator != "type"] or list(error.context)
        error = best_match(telling)
    return error


def _parts(path: str) -> list[str]:
    return re.findall(r"[^.\[\]]+|\[\d+\]", path)


def value_at(instance: Any, path: str) -> Any:
    """The value at a problem's path (`data[0].meta.credit.balance`), None where there is none."""
    node = instance
    for part in _parts(path):
        if part.startswith("["):
            index = int(part[1:-1])
            node = node[index] if isinstance(node, list) and index < len(node) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
    return node


def field_name(path: str) -> str | None:
    """The name of the field a problem's path ends at (`balance` for `data[0].balance`); None at the root or an
    array's item."""
    parts = _parts(path)
    return parts[-1] if parts and not parts[-1].startswith("[") else None


def problems(schema_file: str, instance: Any, pointer: str = "") -> list[SchemaViolation]:
    """Every way `instance` fails the schema (empty when it is valid), sorted by path, keyword, message."""
    if valid_compiled(schema_file, pointer, instance):
        return []
    found = set()
    for error in validator(schema_file, pointer).iter_errors(instance):
        cause = _cause(error)
        found.add(
            SchemaViolation(
                path=_readable_path(cause.absolute_path),
                message=cause.message,
                keyword=str(cause.validator),
                expected=_hashable(cause.validator_value),
            )
        )
    return sorted(found, key=lambda problem: (problem.path, problem.keyword, problem.message))


@cache
def response_schema(operation_id: str, status: int) -> str | None:
    """The pointer, in the bundled openapi.yaml, to the JSON schema of `operation_id`'s answers with `status`: the
    response declared for that code, else for its class (`4XX`), else `default`; None when none has a JSON schema."""
    document = _bundled()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or operation.get("operationId") != operation_id:
                continue
            responses = operation.get("responses", {})
            code = next((code for code in (str(status), f"{str(status)[0]}XX", "default") if code in responses), None)
            if code is None:
                return None
            where = "/" + "/".join(_escape(part) for part in ("paths", path, method, "responses", code))
            response = responses[code]
            if "$ref" in response:
                where = response["$ref"].removeprefix("#")
                response = _resolve(document, where)
            if "application/json" not in response.get("content", {}):
                return None
            return where + "/content/application~1json/schema"
    return None


def _resolve(document: dict[str, Any], pointer: str) -> dict[str, Any]:
    node: Any = document
    for part in pointer.removeprefix("/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def response_problems(operation_id: str, status: int, body: Any) -> list[SchemaViolation] | None:
    """Every way `body` fails the schema openapi.yaml gives `operation_id`'s answers with `status` ([] when it
    holds it); None when openapi.yaml gives those answers no JSON schema."""
    pointer = response_schema(operation_id, status)
    return None if pointer is None else problems(OPENAPI_ID, body, pointer)


def _hashable(value: Any) -> Any:
    """Schema values as hashable, comparable Python values (lists become tuples, objects a JSON string)."""
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


# ---------------------------------------------------------------------------- bundling

_SCHEMAS_PREFIX = "./schemas/"


def _component_name(schema_file: str) -> str:
    """`bank-account.json` -> `bank-account`: the key of a schema file in components/schemas."""
    return schema_file.removesuffix(".json")


def _rewrite_refs(node: Any, schema_file: str | None) -> Any:
    """Point every reference at the bundled copy; `schema_file` is the file `node` comes from (None: openapi)."""
    if isinstance(node, dict):
        rewritten = {key: _rewrite_refs(value, schema_file) for key, value in node.items()}
        reference = node.get("$ref")
        if isinstance(reference, str):
            rewritten["$ref"] = _bundled_ref(reference, schema_file)
        return rewritten
    if isinstance(node, list):
        return [_rewrite_refs(item, schema_file) for item in node]
    return node


def _bundled_ref(reference: str, schema_file: str | None) -> str:
    """`./schemas/wallet.json#/$defs/read` (or `common.json#...`, `#...` inside a schema file) ->
    `#/components/schemas/wallet/$defs/read`."""
    target, _, pointer = reference.partition("#")
    if schema_file is None:
        if not target:
            return reference  # already local to openapi.yaml
        if not target.startswith(_SCHEMAS_PREFIX):
            raise ValueError(f"openapi.yaml: cannot bundle reference {reference!r}")
        target = target.removeprefix(_SCHEMAS_PREFIX)
    elif not target:
        target = schema_file  # a reference inside a schema file to that same file
    return f"#/components/schemas/{_component_name(target)}{pointer}"


@cache
def _bundled() -> dict[str, Any]:
    document = _rewrite_refs(openapi(), None)
    components = document.setdefault("components", {}).setdefault("schemas", {})
    for schema_file, contents in schema_files().items():
        name = _component_name(schema_file)
        if name in components:
            raise ValueError(f"components/schemas/{name} of openapi.yaml clashes with schemas/{schema_file}")
        bundled = _rewrite_refs(contents, schema_file)
        bundled.pop("$id", None)
        bundled.pop("$schema", None)
        components[name] = bundled
    return document


def openapi_document() -> dict[str, Any]:
    """openapi.yaml with every schema file of schemas/ copied into components/schemas (by file stem)
    and every `./schemas/...` reference pointed at the copy, so it loads without files (`from_dict`): a copy of
    its own, which the caller may change (Schemathesis does)."""
    return copy.deepcopy(_bundled())


def shared_openapi_document() -> dict[str, Any]:
    """The same document, not copied: one for every reader of the process that never changes it (a validator's
    registry, a walk over its fields), where a copy each would cost a deep copy of the whole document."""
    return _bundled()
