"""Facts of the contract, read from where they live: openapi.yaml, schemas/ and the catalogue.

The suite and the reference server ask here for a prefix, a message, a limit or an
operation, so that each fact is written once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.documents import openapi, schema, schema_files
from wallet_conformance.spec.files import DOCUMENT

HTTP_METHODS = ("get", "put", "post", "patch", "delete")

# Requirements whose `value` is the success message of their operations (the document's message table).
MESSAGE_REQUIREMENTS = ("SVC-10", "SVC-11", "SVC-12", "SVC-13", "SVC-14", "SVC-15")
MESSAGE_PRESENT = "SVC-08"
MESSAGE_ABSENT = "SVC-09"
PAGINATED = "SVC-16"
SINGLE_RECORD = "SVC-19"  # its operations answer one record as data; the others a list
PENDING_STATE = "STA-03"  # the state of an accepted transfer
SUCCESS_STATE = "STA-05"  # the state of a completed transaction (the only other one the document shows)
PRIMARY_WALLET_LIMIT = "LIM-01"
DEFAULT_PAGE_SIZE = "LIM-20"
VERSION = "VER-01"  # the base address ends with the version segment
MONEY_INTEGERS = "SVC-21"  # every money amount is an integer of kobo
WRITE_OPERATIONS = "SVC-02"  # the operations that take a JSON request body
CONSERVED = "SVC-31"  # money moves only with a movement that explains it: a refusal moves none
ANSWERED = "ERR-09"  # every request of an operation is answered, with a success or a refusal
KEY_ACCEPTED = "AUTH-04"  # the account's secret key is accepted
# The requirement a documented request of each operation exercises when a test makes it as a setup step:
# a refusal there is a failure of that requirement (TargetError(requirement=...)), not of the test's own.
ACCEPTANCE = {
    "listAccounts": "END-05",
    "updateAccount": "END-01",
    "createWallet": "END-10",
    "listWallets": "END-14",
    "getWallet": "END-16",
    "closeWallet": "END-18",
    "createCollectionAccount": "END-20",
    "validateAccount": "END-25",
    "listTransactions": "END-27",
    "verifyTransaction": "END-28",
    "listBanks": "END-37",
    "transfer": "END-40",
    "bankTransfer": "END-41",
}
# The requirement that a transfer of exactly the minimum amount is accepted, by operation.
MINIMUM_ACCEPTED = {"transfer": "LIM-11", "bankTransfer": "LIM-13"}

# The `$defs` of schemas/common.json that hold an identifier prefix as `pattern: ^<prefix>`.
PREFIXES = (
    "walletId",
    "bankAccountId",
    "transactionId",
    "externalSourceId",
    "bankId",
    "feeReference",
)


# The requirements that hold a resource's whole table (every field, its type and the values its table gives it), each
# with the schema of schemas/ that is that table; the close answer's two fields are END-18's.
RESOURCE_TABLES = {
    "RES-10": "account.json",
    "RES-20": "wallet.json",
    "RES-30": "collection-account.json",
    "RES-40": "bank-account.json",
    "RES-50": "bank.json",
    "RES-60": "transaction.json",
    "END-18": "closed-wallet.json",
}

# The identifier requirements, each with the `$defs` of schemas/common.json that holds its form.
IDENTIFIERS = {
    "RES-01": "walletId",
    "RES-02": "bankAccountId",
    "RES-03": "transactionId",
    "RES-04": "externalSourceId",
    "RES-05": "bankId",
    "RES-06": "feeReference",
    "RES-07": "accountPublicId",
}


@dataclass(frozen=True)
class Operation:
    id: str
    method: str
    path: str
    success_status: int


@cache
def operations() -> dict[str, Operation]:
    """Every operation of openapi.yaml, by operationId."""
    found: dict[str, Operation] = {}
    for path, item in openapi()["paths"].items():
        for method in HTTP_METHODS:
            if method not in item:
                continue
            definition = item[method]
            statuses = [int(code) for code in definition["responses"] if str(code).startswith("2")]
            if len(statuses) != 1:
                raise ValueError(f"{definition['operationId']}: expected one success status, got {statuses}")
            found[definition["operationId"]] = Operation(
                id=definition["operationId"], method=method.upper(), path=path, success_status=statuses[0]
            )
    return found


@cache
def path_methods() -> dict[str, tuple[str, ...]]:
    """Every path of openapi.yaml and the methods its operations are served at (`/accounts` -> ("GET",))."""
    found: dict[str, tuple[str, ...]] = {}
    for operation in operations().values():
        found[operation.path] = (*found.get(operation.path, ()), operation.method)
    return found


def query_parameters(operation_id: str) -> dict[str, str]:
    """The query parameters openapi.yaml gives an operation, each with its JSON type (`isDefault` -> `boolean`)."""
    operation = operations()[operation_id]
    definition = openapi()["paths"][operation.path][operation.method.lower()]
    found = (_resolve(parameter) for parameter in definition.get("parameters", ()))
    return {
        parameter["name"]: _resolve(parameter["schema"])["type"]
        for parameter in found
        if parameter.get("in") == "query"
    }


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `#/components/...` reference of openapi.yaml."""
    while "$ref" in node and node["$ref"].startswith("#/"):
        target: Any = openapi()
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def request_schema(operation_id: str) -> dict[str, Any]:
    """The JSON schema of an operation's request body."""
    operation = operations()[operation_id]
    definition = openapi()["paths"][operation.path][operation.method.lower()]
    body = _resolve(definition["requestBody"])
    return _resolve(body["content"]["application/json"]["schema"])


def request_field(operation_id: str, field: str) -> dict[str, Any]:
    return _resolve(request_schema(operation_id)["properties"][field])


def minimum_amount(operation_id: str) -> int:
    """The smallest accepted `amount` of a transfer, in kobo."""
    return int(request_field(operation_id, "amount")["minimum"])


def expire_in_bounds() -> tuple[int, int]:
    """The accepted range of a collection account's `expireIn`, in seconds, both ends included."""
    field = request_field("createCollectionAccount", "expireIn")
    return int(field["minimum"]), int(field["maximum"])


def reference_min_length() -> int:
    return int(request_field("createCollectionAccount", "reference")["minLength"])


def currency() -> str:
    """The only currency the document shows (`NGN`), from schemas/common.json."""
    return str(schema("common.json")["$defs"]["currency"]["const"])


def prefix(definition: str) -> str:
    """An identifier prefix from schemas/common.json (`walletId` -> `vba-`)."""
    pattern = schema("common.json")["$defs"][definition]["pattern"]
    if not pattern.startswith("^"):
        raise ValueError(f"{definition}: pattern {pattern!r} is not a prefix")
    return pattern[1:]


@cache
def nullable_timestamps() -> frozenset[str]:
    """The fields schemas/ type `timestamp or null` (common.json's nullableTimestamp): deletedAt."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name, field in (node.get("properties") or {}).items():
                if isinstance(field, dict) and str(field.get("$ref", "")).endswith("/$defs/nullableTimestamp"):
                    found.add(name)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema_files())
    return frozenset(found)


def success_message(operation_id: str) -> str | None:
    """The documented meta.message of an operation's success response, if the document gives one."""
    for requirement_id in MESSAGE_REQUIREMENTS:
        requirement = catalogue()[requirement_id]
        if operation_id in requirement.operations:
            return str(requirement.value)
    return None


def message_rule(operation_id: str) -> Literal["present", "absent"] | None:
    """Whether meta.message is present or absent on an operation's success response (None: not said)."""
    if operation_id in catalogue()[MESSAGE_PRESENT].operations:
        return "present"
    if operation_id in catalogue()[MESSAGE_ABSENT].operations:
        return "absent"
    return None


def is_paginated(operation_id: str) -> bool:
    """Whether an operation's success response carries meta.pagination."""
    return operation_id in catalogue()[PAGINATED].operations


def write_operations() -> tuple[str, ...]:
    """The operations that take a JSON request body (SVC-02), in the catalogue's order."""
    return tuple(catalogue()[WRITE_OPERATIONS].operations)


def paginated_operations() -> tuple[str, ...]:
    """The operations whose success response carries meta.pagination (SVC-16)."""
    return tuple(catalogue()[PAGINATED].operations)


def acceptance_requirement(operation_id: str | None, body: Any = None) -> str | None:
    """The requirement that a documented request of this operation is accepted (None for no operation). A transfer of
    exactly the minimum amount (its `body`'s) exercises that the minimum is accepted: a refusal of it is that
    requirement's failure (LIM-11, LIM-13), whatever else the transfer was made for."""
    if (
        operation_id in MINIMUM_ACCEPTED
        and isinstance(body, dict)
        and type(body.get("amount")) is int
        and body["amount"] == minimum_amount(operation_id)
    ):
        return MINIMUM_ACCEPTED[operation_id]
    return ACCEPTANCE.get(operation_id) if operation_id else None


def refusal_requirement(operation_id: str | None, body: Any = None, status: int | None = None) -> str | None:
    """The requirement a documented request's refusal breaks when the suite makes it as a setup step with the run's
    own key: a 401 refused the key itself (KEY_ACCEPTED), any other refusal the request (`acceptance_requirement`)."""
    if status == 401 and operation_id in ACCEPTANCE:
        return KEY_ACCEPTED
    return acceptance_requirement(operation_id, body)


@cache
def money_operations() -> frozenset[str]:
    """The operations that move money: those whose request body names a `source` wallet and an `amount`."""
    found = set()
    for operation_id in operations():
        try:
            fields = request_schema(operation_id).get("properties", {})
        except KeyError:
            continue
        if {"source", "amount"} <= set(fields):
            found.add(operation_id)
    return frozenset(found)


@cache
def wallet_list_changes() -> frozenset[str]:
    """The operations that change which wallets the wallet list holds: the writes (POST, DELETE) under its path."""
    listed = operations()["listWallets"].path
    return frozenset(
        operation_id
        for operation_id, operation in operations().items()
        if operation.method in ("POST", "DELETE") and operation.path.startswith(listed)
    )


@cache
def sent_once() -> frozenset[str]:
    """The operations whose request is never sent a second time, even when the first got no answer: a second copy
    could be applied as well as the first. The money movements (the document gives a transfer no caller reference
    by which a target could tell a repeat from a new transfer) and wallet creation (a wallet whose answer was lost
    stays open, unknown to the run's sweep; a primary one holds one of the five places)."""
    created_wallets = {
        operation_id for operation_id in wallet_list_changes() if operations()[operation_id].method == "POST"
    }
    return money_operations() | created_wallets


@cache
def cheap_reads() -> tuple[Operation, ...]:
    """Reads safe anywhere that every conforming target answers at once: the GET operations without a path parameter,
    the unpaged ones (the bank list) first."""
    reads = [
        operation for operation in operations().values() if operation.method == "GET" and "{" not in operation.path
    ]
    return tuple(sorted(reads, key=lambda operation: is_paginated(operation.id)))


def version_segment() -> str:
    """The final path segment of every base address (`/v1`)."""
    return str(catalogue().value(VERSION))


def primary_wallet_limit() -> int:
    return int(catalogue().value(PRIMARY_WALLET_LIMIT))


def default_page_size() -> int:
    return int(catalogue().value(DEFAULT_PAGE_SIZE))


def pending_state() -> str:
    """The transaction status of an accepted transfer (`pending`)."""
    return str(catalogue().value(PENDING_STATE))


def success_state() -> str:
    """The transaction status of a completed transaction (`success`), the only other status the document shows."""
    return str(catalogue().value(SUCCESS_STATE))


@dataclass(frozen=True)
class ReadBack:
    """The read that shows the record an operation's success made: an operation, and for each of its path parameters
    the JSON pointer into the success answer that names the record (`/data/publicId`)."""

    operation_id: str
    parameters: dict[str, str]


@cache
def read_back(operation_id: str) -> ReadBack | None:
    """The GET operation the success response of `operation_id` links to in openapi.yaml (its `links`), if any."""
    operation = operations()[operation_id]
    responses = openapi()["paths"][operation.path][operation.method.lower()]["responses"]
    links = responses.get(str(operation.success_status), {}).get("links", {})
    for link in links.values():
        target = operations().get(link.get("operationId"))
        if target is not None and target.method == "GET" and "parameters" in link:
            pointers = {name: str(value).removeprefix("$response.body#") for name, value in link["parameters"].items()}
            return ReadBack(target.id, pointers)
    return None


def _segments(quote: str) -> list[str]:
    """A catalogue quote's segments around its ellipses, whitespace folded."""
    return [" ".join(segment.split()) for segment in re.split(r"\.\.\.|…", quote) if segment.strip()]


@cache
def _resource_sections() -> dict[str, str]:
    """The text of each resource's own section of the document (from its `###` heading to the next heading), by the
    table requirement whose quote begins with that heading."""
    text = DOCUMENT.read_text(encoding="utf-8")
    sections = {}
    for requirement_id in RESOURCE_TABLES:
        heading = _segments(catalogue()[requirement_id].quote)[0]
        if heading.startswith("#"):
            start = text.index(heading)
            end = text.find("\n#", start + len(heading))
            sections[requirement_id] = " ".join(text[start : end if end >= 0 else None].split())
    return sections


def _holds(node: Any, reference: str) -> bool:
    """Whether a schema refers to `reference` anywhere."""
    if isinstance(node, dict):
        return node.get("$ref") == reference or any(_holds(value, reference) for value in node.values())
    if isinstance(node, list):
        return any(_holds(value, reference) for value in node)
    return False


@cache
def tables_holding(requirement_id: str) -> tuple[str, ...]:
    """The table requirements (RESOURCE_TABLES) whose table includes `requirement_id`'s statement: a requirement
    of the resources part, quoted from a resource's own section of the document and about answers that show that
    resource (its operations), states a row of that resource's table; an identifier
    requirement (IDENTIFIERS) states a row of every table whose schema holds its definition."""
    if requirement_id in RESOURCE_TABLES:
        return ()
    if requirement_id in IDENTIFIERS:
        reference = f"common.json#/$defs/{IDENTIFIERS[requirement_id]}"
        return tuple(table for table, schema_file in RESOURCE_TABLES.items() if _holds(schema(schema_file), reference))
    requirement = catalogue()[requirement_id]
    if requirement.section != "resources":
        return ()
    segments = _segments(requirement.quote)
    return tuple(
        table
        for table, section in _resource_sections().items()
        if all(segment in section for segment in segments)
        and set(requirement.operations) <= set(catalogue()[table].operations)
    )


@cache
def kind_fields(schema_file: str) -> frozenset[str]:
    """The fields that tell a record of a resource table's schema from the other tables' records: those its schema
    requires and no other table's schema does."""
    others = set().union(
        *(schema(other).get("required", ()) for other in RESOURCE_TABLES.values() if other != schema_file)
    )
    return frozenset(schema(schema_file)["required"]) - others
