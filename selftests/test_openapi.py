"""openapi.yaml is valid OpenAPI 3.1 and states what the document states, no more."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from selftests.documents import references
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.files import OPENAPI

# The document's Endpoints part.
DOCUMENT_OPERATIONS = {
    "updateAccount": ("PATCH", "/accounts/{accountId}"),
    "listAccounts": ("GET", "/accounts"),
    "createWallet": ("POST", "/virtual-accounts"),
    "listWallets": ("GET", "/virtual-accounts"),
    "getWallet": ("GET", "/virtual-accounts/{walletId}"),
    "closeWallet": ("DELETE", "/virtual-accounts/{walletId}"),
    "createCollectionAccount": ("POST", "/collection-accounts"),
    "validateAccount": ("POST", "/transactions/validate-account"),
    "listTransactions": ("GET", "/transactions"),
    "verifyTransaction": ("GET", "/transactions/{reference}/verify"),
    "transfer": ("POST", "/transactions/transfer"),
    "bankTransfer": ("POST", "/transactions/bank-transfer"),
    "listBanks": ("GET", "/transactions/banks"),
}

# The document's Errors part: 201 for the three creations, 200 for everything else.
CREATED = {"createWallet", "createCollectionAccount", "validateAccount"}

# Body fields of the document's tables, and the ones it marks required.
REQUEST_FIELDS = {
    "updateAccount": ({"webhooks"}, set()),
    "createWallet": ({"accountName", "category", "currency", "emailAddress", "mobile"}, set()),
    "createCollectionAccount": (
        {"destination", "accountName", "amount", "expireIn", "reference"},
        {"destination", "accountName", "amount", "expireIn"},
    ),
    "validateAccount": ({"accountNumber", "bankCode"}, {"accountNumber", "bankCode"}),
    "transfer": (
        {"source", "sourceType", "destination", "destinationType", "amount", "currency", "narration"},
        set(),
    ),
    "bankTransfer": ({"source", "accountNumber", "bankCode", "amount", "currency", "narration"}, set()),
}

# The `data` of each success response (schemas/ file and form).
RESPONSE_DATA = {
    "updateAccount": "./schemas/account.json",
    "listAccounts": "./schemas/account.json",
    "createWallet": "./schemas/wallet.json#/$defs/created",
    "listWallets": "./schemas/wallet.json#/$defs/list-entry",
    "getWallet": "./schemas/wallet.json#/$defs/read",
    "closeWallet": "./schemas/closed-wallet.json",
    "createCollectionAccount": "./schemas/collection-account.json#/$defs/created",
    "validateAccount": "./schemas/bank-account.json",
    "listTransactions": "./schemas/transaction.json",
    "verifyTransaction": "./schemas/transaction.json#/$defs/verified",
    "transfer": "./schemas/transaction.json#/$defs/transfer-accepted",
    "bankTransfer": "./schemas/transaction.json#/$defs/bank-transfer-accepted",
    "listBanks": "./schemas/bank.json",
}
LISTS = {"listAccounts", "listWallets", "listTransactions", "listBanks"}
ENVELOPE = "./schemas/envelope.json#/$defs/"


def raw() -> dict[str, Any]:
    """openapi.yaml as read by contract.py (cached; not to be changed)."""
    return contract.openapi()


def definition(operation_id: str) -> dict[str, Any]:
    operation = contract.operations()[operation_id]
    return raw()["paths"][operation.path][operation.method.lower()]


def resolve_local(document: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and str(node.get("$ref", "")).startswith("#/"):
        target: Any = document
        for part in node["$ref"][2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def success_schema(operation_id: str) -> dict[str, Any]:
    document = raw()
    status = str(contract.operations()[operation_id].success_status)
    response = definition(operation_id)["responses"][status]
    return resolve_local(document, response["content"]["application/json"]["schema"])


def test_valid_openapi_31() -> None:
    """openapi.yaml is OpenAPI 3.1.0 and passes openapi-spec-validator, its schemas/ references included."""
    document = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    assert document["openapi"] == "3.1.0"
    validate(document, base_uri=OPENAPI.as_uri())  # base_uri: `./schemas/...` resolves beside openapi.yaml


def test_every_reference_resolves() -> None:
    """Every $ref of openapi.yaml resolves: local ones in the file, `./schemas/...` ones in schemas/."""
    document = raw()
    resolver = validation.registry().resolver()
    for reference in references(document):
        if reference.startswith("#/"):
            assert resolve_local(document, {"$ref": reference}) is not None, reference
        else:
            assert reference.startswith("./schemas/"), reference
            resolver.lookup(reference.removeprefix("./schemas/"))


def test_operations_are_the_documents() -> None:
    """The 13 operations of the document, with their operationIds, methods and paths, and nothing else."""
    found = {op.id: (op.method, op.path) for op in contract.operations().values()}
    assert found == DOCUMENT_OPERATIONS


@pytest.mark.parametrize("operation_id", sorted(DOCUMENT_OPERATIONS))
def test_operation_has_tag_and_summary(operation_id: str) -> None:
    """Every operation has a tag declared at the top level, and a summary."""
    declared = {tag["name"] for tag in raw()["tags"]}
    operation = definition(operation_id)
    assert operation["summary"]
    assert operation["tags"] and set(operation["tags"]) <= declared


@pytest.mark.parametrize("operation_id", sorted(DOCUMENT_OPERATIONS))
def test_success_status(operation_id: str) -> None:
    """Each operation has one 2xx: 201 for the three creations, 200 for the rest (Errors part)."""
    assert contract.operations()[operation_id].success_status == (201 if operation_id in CREATED else 200)


@pytest.mark.parametrize("operation_id", sorted(DOCUMENT_OPERATIONS))
def test_error_responses_are_envelopes(operation_id: str) -> None:
    """Each operation answers 4XX and default with the envelope; the error shape is marked not shown."""
    document = raw()
    for status in ("4XX", "default"):
        response = resolve_local(document, definition(operation_id)["responses"][status])
        assert response["content"]["application/json"]["schema"] == {"$ref": "./schemas/envelope.json"}
        assert "x-not-shown" in response


def test_api_key_on_every_operation() -> None:
    """The apiKey scheme `x-service-key` (header) is required globally and no operation lifts it."""
    document = raw()
    schemes = document["components"]["securitySchemes"]
    assert len(schemes) == 1
    ((name, scheme),) = schemes.items()
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "x-service-key")
    assert document["security"] == [{name: []}]
    for operation_id in DOCUMENT_OPERATIONS:
        assert definition(operation_id).get("security", document["security"]) == [{name: []}], operation_id


def test_servers_end_in_v1() -> None:
    """Staging and production servers are `{base_url}`, whose description says it ends in /v1."""
    servers = raw()["servers"]
    assert sorted(server["description"] for server in servers) == ["Production", "Staging"]
    for server in servers:
        assert server["url"] == "{base_url}"
        variable = server["variables"]["base_url"]
        assert "/v1" in variable["description"]
        assert variable["default"].endswith("/v1")


def test_list_accounts_filters() -> None:
    """GET /accounts takes the optional query filters name (string), isDefault and live (booleans)."""
    parameters = {p["name"]: p for p in definition("listAccounts")["parameters"]}
    assert {name: (p["in"], p["required"], p["schema"]["type"]) for name, p in parameters.items()} == {
        "name": ("query", False, "string"),
        "isDefault": ("query", False, "boolean"),
        "live": ("query", False, "boolean"),
    }


@pytest.mark.parametrize("operation_id", ["listAccounts", "listWallets", "listTransactions"])
def test_paging_parameters_not_declared(operation_id: str) -> None:
    """Paging parameters are not shown: no list declares them, and each says so in x-not-shown."""
    operation = definition(operation_id)
    query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
    assert query <= {"name", "isDefault", "live"}
    assert "paging" in operation["x-not-shown"]


@pytest.mark.parametrize("operation_id", ["getWallet", "closeWallet", "updateAccount", "verifyTransaction"])
def test_path_parameters(operation_id: str) -> None:
    """Every `{name}` of a path is a required path parameter."""
    operation = contract.operations()[operation_id]
    item = raw()["paths"][operation.path]
    declared_here = item.get("parameters", []) + definition(operation_id).get("parameters", [])
    parameters = [resolve_local(raw(), parameter) for parameter in declared_here]
    declared = {p["name"] for p in parameters if p["in"] == "path" and p["required"]}
    assert declared == {part[1:-1] for part in operation.path.split("/") if part.startswith("{")}


@pytest.mark.parametrize("operation_id", sorted(REQUEST_FIELDS))
def test_request_fields_and_required(operation_id: str) -> None:
    """Request bodies hold the document's fields, and require exactly the ones it marks required."""
    fields, required = REQUEST_FIELDS[operation_id]
    schema = contract.request_schema(operation_id)
    assert set(schema["properties"]) == fields
    assert set(schema.get("required", [])) == required
    ref = definition(operation_id)["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.startswith("#/components/schemas/")


@pytest.mark.parametrize("operation_id", ["createWallet", "transfer", "bankTransfer", "updateAccount"])
def test_open_requirements_marked_not_shown(operation_id: str) -> None:
    """Bodies whose required fields the document leaves open say so in x-not-shown."""
    assert contract.request_schema(operation_id)["x-not-shown"]


def test_request_rules() -> None:
    """Enums, email format and the mobile object of the request bodies are as documented."""
    wallet = contract.request_schema("createWallet")["properties"]
    assert wallet["category"]["enum"] == ["primary", "secondary"]
    assert wallet["currency"]["enum"] == ["NGN"]
    assert wallet["emailAddress"]["format"] == "email"
    assert wallet["mobile"]["type"] == "object"
    assert {name: field["type"] for name, field in wallet["mobile"]["properties"].items()} == {
        "phoneNumber": "string",
        "isoCode": "string",
    }
    transfer = contract.request_schema("transfer")["properties"]
    assert transfer["sourceType"]["enum"] == ["VirtualAccount"]
    assert transfer["destinationType"]["enum"] == ["VirtualAccount"]
    for operation_id in ("transfer", "bankTransfer"):
        assert contract.request_field(operation_id, "currency")["enum"] == ["NGN"]


def test_secondary_wallet_needs_email_and_mobile() -> None:
    """A secondary wallet request without emailAddress or mobile is invalid; a primary one is not."""
    checker = Draft202012Validator(
        contract.request_schema("createWallet"), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    mobile = {"phoneNumber": "08012345678", "isoCode": "NG"}
    assert checker.is_valid({"category": "primary"})
    assert checker.is_valid({"category": "secondary", "emailAddress": "ada@example.com", "mobile": mobile})
    assert not checker.is_valid({"category": "secondary", "mobile": mobile})
    assert not checker.is_valid({"category": "secondary", "emailAddress": "ada@example.com"})
    assert not checker.is_valid({"category": "secondary", "emailAddress": "not-an-email", "mobile": mobile})
    assert not checker.is_valid({"category": "tertiary"})


@pytest.mark.parametrize("operation_id", ["transfer", "bankTransfer"])
def test_transfer_minimum(operation_id: str) -> None:
    """Both transfers take a number amount of at least 10000 kobo (100 naira)."""
    assert contract.request_field(operation_id, "amount")["type"] == "number"
    assert contract.minimum_amount(operation_id) == 10000


def test_collection_account_limits() -> None:
    """expireIn is 600 to 1800 seconds and reference at least 5 characters."""
    assert contract.expire_in_bounds() == (600, 1800)
    assert contract.reference_min_length() == 5
    assert contract.request_field("createCollectionAccount", "amount")["type"] == "number"


@pytest.mark.parametrize("operation_id", sorted(DOCUMENT_OPERATIONS))
def test_success_response_shape(operation_id: str) -> None:
    """Each success response is the envelope with success true, the documented data, pagination and message."""
    schema = success_schema(operation_id)
    forms = {ref["$ref"] for ref in schema["allOf"]}
    assert ENVELOPE + "success" in forms
    if contract.is_paginated(operation_id):
        assert ENVELOPE + "paged" in forms
    elif operation_id == "listBanks":
        assert ENVELOPE + "unpaged-list" in forms
    else:
        assert ENVELOPE + "single" in forms
    rule = contract.message_rule(operation_id)
    assert (ENVELOPE + "with-message" in forms) == (rule == "present")
    assert (ENVELOPE + "without-message" in forms) == (rule == "absent")
    data = schema["properties"]["data"]
    assert (data["items"] if operation_id in LISTS else data) == {"$ref": RESPONSE_DATA[operation_id]}


def links() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for operation_id in DOCUMENT_OPERATIONS:
        for status, response in definition(operation_id)["responses"].items():
            for name, link in response.get("links", {}).items():
                yield f"{operation_id} {status} {name}", operation_id, link


def test_links_point_at_operations() -> None:
    """Every link names an existing operationId, and its parameters exist on the target."""
    for label, _, link in links():
        target = link["operationId"]
        assert target in DOCUMENT_OPERATIONS, label
        operation = contract.operations()[target]
        names = {part[1:-1] for part in operation.path.split("/") if part.startswith("{")}
        assert set(link.get("parameters", {})) <= names, label
        if "requestBody" in link:
            assert set(link["requestBody"]) <= set(contract.request_schema(target)["properties"]), label


def test_stateful_links() -> None:
    """A created wallet links to read, close, transfer and collection; a transfer links to verify."""
    found = {
        (source, link["operationId"], frozenset({**link.get("parameters", {}), **link.get("requestBody", {})}.items()))
        for _, source, link in links()
    }
    public_id = "$response.body#/data/publicId"
    expected = {
        ("createWallet", "getWallet", frozenset({("walletId", public_id)})),
        ("createWallet", "closeWallet", frozenset({("walletId", public_id)})),
        ("createWallet", "transfer", frozenset({("source", public_id)})),
        ("createWallet", "transfer", frozenset({("destination", public_id)})),
        ("createWallet", "createCollectionAccount", frozenset({("destination", public_id)})),
        ("transfer", "verifyTransaction", frozenset({("reference", "$response.body#/data/reference")})),
    }
    assert expected <= found


def test_bundled_document() -> None:
    """openapi_document() has no external reference left, every local one resolves, and it is valid OpenAPI."""
    document = validation.openapi_document()
    for reference in references(document):
        assert reference.startswith("#/"), reference
        assert resolve_local(document, {"$ref": reference}) is not None, reference
    validate(document)
    assert validation.openapi_document() is not document  # each call is a fresh copy


def test_schemathesis_builds_the_state_machine() -> None:
    """Schemathesis loads the bundled document and builds its state machine (it checks link targets)."""
    schema = schemathesis.openapi.from_dict(validation.openapi_document())
    assert len(list(schema.get_all_operations())) == len(DOCUMENT_OPERATIONS)
    schema.as_state_machine()
