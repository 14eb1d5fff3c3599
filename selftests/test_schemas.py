"""schemas/ holds valid JSON Schema 2020-12 that accepts the document's resources and refuses what it excludes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from selftests import examples as ex
from selftests.documents import references
from wallet_conformance.spec import contract, validation
from wallet_conformance.spec.files import SCHEMAS
from wallet_conformance.spec.validation import Problem, problems

SCHEMA_FILES = sorted(path.name for path in SCHEMAS.glob("*.json"))

# Each resource form: (schema file, pointer, a valid instance from the document's tables).
FORMS = {
    "account": ("account.json", "", ex.ACCOUNT),
    "wallet created": ("wallet.json", "/$defs/created", ex.WALLET_CREATED),
    "wallet read": ("wallet.json", "/$defs/read", ex.WALLET_READ),
    "wallet list entry": ("wallet.json", "/$defs/list-entry", ex.WALLET_LIST_ENTRY),
    "closed wallet": ("closed-wallet.json", "", ex.CLOSED_WALLET),
    "collection account": ("collection-account.json", "/$defs/created", ex.COLLECTION_ACCOUNT),
    "bank account": ("bank-account.json", "", ex.BANK_ACCOUNT),
    "bank": ("bank.json", "", ex.BANK),
    "transfer": ("transaction.json", "/$defs/transfer-accepted", ex.TRANSFER),
    "bank transfer": ("transaction.json", "/$defs/bank-transfer-accepted", ex.BANK_TRANSFER),
    "inbound credit": ("transaction.json", "", ex.INBOUND_CREDIT),
    "verified": ("transaction.json", "/$defs/verified", ex.VERIFIED),
}

# Sub-objects validated on their own (a failure is attributed to one requirement).
PARTS = {
    "wallet party": ("transaction.json", "/$defs/wallet-party", ex.WALLET_PARTY),
    "bank account party": ("transaction.json", "/$defs/bank-account-party", ex.BANK_ACCOUNT_PARTY),
    "external source": ("transaction.json", "/$defs/external-source", ex.EXTERNAL_SOURCE),
    "rate": ("transaction.json", "/$defs/rate", ex.RATE),
    "credit": ("transaction.json", "/$defs/credit", ex.CREDIT),
    "verify": ("transaction.json", "/$defs/verify", ex.VERIFY),
    "client response": ("transaction.json", "/$defs/clientResponse", ex.CLIENT_RESPONSE),
    "bank meta": ("bank.json", "/$defs/meta", ex.BANK["meta"]),
    "pubKey": ("account.json", "/$defs/pubKey", ex.ACCOUNT["pubKey"]),
    "pagination": ("envelope.json", "/$defs/pagination", ex.PAGINATION),
}

# The document's identifier prefixes, by their common.json definition.
PREFIXES = {
    "walletId": "vba-",
    "bankAccountId": "bka-",
    "transactionId": "trx-",
    "externalSourceId": "src-",
    "bankId": "bnk-",
    "feeReference": "fee-",
}

DELETE = object()


def changed(instance: Any, path: str, value: Any) -> Any:
    """A fresh copy of `instance` with the field at dotted `path` set to `value` (or deleted: DELETE)."""
    copy = ex.fresh(instance)
    *parents, last = path.split(".")
    node = copy
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return copy


# ------------------------------------------------------------------ the files


@pytest.mark.parametrize("schema_file", SCHEMA_FILES)
def test_schema_file_is_valid_2020_12(schema_file: str) -> None:
    """Each file is a valid 2020-12 schema whose `$id` is its file name."""
    contents = json.loads((SCHEMAS / schema_file).read_text(encoding="utf-8"))
    assert contents["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert contents["$id"] == schema_file
    Draft202012Validator.check_schema(contents)


@pytest.mark.parametrize("schema_file", SCHEMA_FILES)
def test_every_reference_resolves(schema_file: str) -> None:
    """Every $ref of each file resolves in the registry of schemas/."""
    contents = contract.schema(schema_file)
    resolver = validation.registry().resolver(base_uri=schema_file)
    for reference in references(contents):
        resolver.lookup(reference)


def test_registry_holds_every_file() -> None:
    """registry() holds every file of schemas/ under its `$id`."""
    for schema_file in SCHEMA_FILES:
        assert validation.registry().contents(schema_file)["$id"] == schema_file


@pytest.mark.parametrize(("definition", "prefix"), sorted(PREFIXES.items()))
def test_prefixes_live_in_common(definition: str, prefix: str) -> None:
    """The six identifier prefixes are patterns `^<prefix>` in common.json, read by contract.prefix()."""
    assert contract.schema("common.json")["$defs"][definition]["pattern"] == "^" + prefix
    assert contract.prefix(definition) == prefix


# ------------------------------------------------------------------ valid instances


@pytest.mark.parametrize("name", sorted(FORMS) + sorted(PARTS))
def test_document_instance_is_valid(name: str) -> None:
    """An instance built from the document's tables passes its schema."""
    schema_file, pointer, instance = (FORMS | PARTS)[name]
    assert problems(schema_file, instance, pointer) == []


@pytest.mark.parametrize("name", sorted(FORMS))
def test_extra_properties_allowed(name: str) -> None:
    """Implementations may add fields: an unknown property passes."""
    schema_file, pointer, instance = FORMS[name]
    assert problems(schema_file, changed(instance, "vendorExtra", {"any": ["thing"]}), pointer) == []


@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_documented_field_is_required(name: str) -> None:
    """Removing any documented top-level field of a resource fails `required`."""
    schema_file, pointer, instance = FORMS[name]
    for field in instance:
        found = problems(schema_file, changed(instance, field, DELETE), pointer)
        assert {(p.path, p.keyword) for p in found} == {("", "required")}, field


# Currency fields whose table row gives no value: any string is theirs (SVC-33 observes which).
OPEN_CURRENCIES = [
    ("bank", "currency", "566"),
    ("bank account", "currency", "ngn"),
    ("inbound credit", "sourceData.currency", "USD"),
    ("inbound credit", "meta.rate.sourceCurrency", "USD"),
    ("inbound credit", "meta.clientResponse.currency", "566"),
]


@pytest.mark.parametrize(("name", "path", "value"), OPEN_CURRENCIES, ids=lambda item: str(item))
def test_a_currency_the_document_gives_no_value_may_hold_any_string(name: str, path: str, value: str) -> None:
    """A Bank's, a Bank account's, an external source's and meta.rate's currency pass with any string."""
    schema_file, pointer, instance = FORMS[name]
    assert problems(schema_file, changed(instance, path, value), pointer) == []


# ------------------------------------------------------------------ invalid variants

INVALID = [
    # wrong prefix (or, for an account, not a UUID)
    ("account", "publicId", "acc-3f2b6a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b", "pattern"),
    ("account", "pubKey.live", "pub_4f9c2e1a7b", "pattern"),
    ("account", "pubKey.test", "live_pub_8d3b5f0c2e", "pattern"),
    ("wallet created", "publicId", "bka-9f8e7d6c5b4a", "pattern"),
    ("closed wallet", "publicId", "9f8e7d6c5b4a", "pattern"),
    ("collection account", "publicId", "col-1a2b3c4d5e6f", "pattern"),
    ("bank account", "publicId", "vba-5e6f7a8b9c0d", "pattern"),
    ("bank", "publicId", "bank-058", "pattern"),
    ("transfer", "publicId", "txn-3c4d5e6f7a8b", "pattern"),
    ("transfer", "sourceData.publicId", "bka-9f8e7d6c5b4a", "pattern"),
    ("bank transfer", "destinationData.publicId", "vba-5e6f7a8b9c0d", "pattern"),
    ("bank transfer", "feeReference", "charge-4d5e6f7a8b9c", "pattern"),
    ("inbound credit", "sourceData.publicId", "ext-7c8d9e0f1a2b", "pattern"),
    # money that is not an integer
    ("wallet read", "balance", 1000.5, "type"),
    ("wallet read", "balance", 1000.0, "type"),
    ("wallet read", "balance", True, "type"),
    ("collection account", "amount", 1000.5, "type"),
    ("collection account", "amount", 1000.0, "type"),
    ("transfer", "amount", 1000.5, "type"),
    ("transfer", "amount", 10000.0, "type"),
    ("transfer", "fee", 0.0, "type"),
    ("transfer", "actualAmount", 10000.0, "type"),
    ("transfer", "balance", "240000", "type"),
    ("transfer", "clientTransaction.fee", 0.5, "type"),
    ("transfer", "meta.rate.convertedAmount", 10000.0, "type"),
    ("transfer", "meta.credit.amount", 10000.0, "type"),
    ("verified", "meta.verify.data.data.amount", 10000.0, "type"),
    ("inbound credit", "meta.clientResponse.amount", 5000.0, "type"),
    # timestamps without milliseconds, not in UTC, or not a date
    ("account", "createdAt", "2024-05-06T09:30:12Z", "pattern"),
    ("account", "updatedAt", "2024-05-06T10:30:12.345+01:00", "pattern"),
    ("wallet created", "lastUpdated", "2024-05-06T09:30:12.345", "pattern"),
    ("collection account", "expiration", "2024-05-06T09:45:12Z", "pattern"),
    ("bank account", "lastUpdated", "2024-05-06 09:30:12.345Z", "pattern"),
    ("bank", "deletedAt", "2024-05-06T09:30:12Z", "pattern"),
    ("bank", "createdAt", "2024-13-40T09:30:12.345Z", "format"),
    ("transfer", "deletedAt", "2024-05-06T10:30:12.345+01:00", "pattern"),
    ("inbound credit", "sourceData.createdAt", "2024-05-06T09:30:12Z", "pattern"),
    ("verified", "meta.verify.data.data.date", "2024-05-06T09:40:12Z", "pattern"),
    # currency other than NGN where the table gives NGN; a string where the table gives no value
    ("wallet created", "currency", "ngn", "const"),
    ("collection account", "currency", "ngn", "const"),
    ("transfer", "currency", "ngn", "const"),
    ("transfer", "sourceData.currency", "ngn", "const"),
    ("transfer", "meta.credit.currency", "USD", "const"),
    ("bank account", "currency", 566, "type"),
    ("bank", "currency", None, "type"),
    ("inbound credit", "sourceData.currency", 566, "type"),
    # values outside an enum or a documented form
    ("wallet read", "category", "tertiary", "enum"),
    ("transfer", "entry", "refund", "enum"),
    ("inbound credit", "entry", "Credit", "enum"),
    ("inbound credit", "sourceType", "BankAccount", "enum"),
    ("bank transfer", "destinationType", "External", "enum"),
    ("transfer", "currencyPair", "NGN-NGN", "pattern"),
    ("transfer", "currencyPair", "ngn/ngn", "pattern"),
    ("transfer", "status", "success", "const"),
    ("transfer", "entry", "credit", "const"),
    ("bank transfer", "destinationType", "VirtualAccount", "const"),
    ("collection account", "status", "expired", "const"),
    ("collection account", "active", False, "const"),
    # wrong types and nullability
    ("account", "id", 17, "type"),
    ("account", "webhooks", "https://merchant.example/hooks", "type"),
    ("account", "isDefault", "true", "type"),
    ("account", "__v", "0", "type"),
    ("wallet created", "id", 1042.0, "type"),
    ("wallet created", "id", True, "type"),
    ("wallet read", "_id", 17, "type"),
    ("closed wallet", "accountNumber", 9012345678, "type"),
    ("collection account", "id", "311", "type"),
    ("bank account", "version", "1", "type"),
    ("bank account", "clientIds", [], "type"),
    ("bank", "meta.name", None, "type"),
    ("bank", "active", "yes", "type"),
    ("transfer", "feeReference", 17, "type"),
    ("transfer", "sourceData.id", "1042", "type"),
    ("transfer", "meta.isThirdParty", "no", "type"),
    ("transfer", "meta.rate.rate", "1.0", "type"),
    ("transfer", "tags", {}, "type"),
    ("transfer", "narration", None, "type"),
    ("bank transfer", "debitReference", 17, "type"),
    ("transfer", "batchId", 17, "type"),
    # a field missing from a sub-object
    ("account", "pubKey.test", DELETE, "required"),
    ("bank", "meta.nibssBankCode", DELETE, "required"),
    ("transfer", "clientTransaction.actualAmount", DELETE, "required"),
    ("transfer", "sourceData.currency", DELETE, "required"),
    ("transfer", "destinationData.reference", DELETE, "required"),
    ("transfer", "meta.rate.rateId", DELETE, "required"),
    ("transfer", "meta.credit.balance", DELETE, "required"),
    ("bank transfer", "destinationData.nameEnquiryRef", DELETE, "required"),
    ("inbound credit", "sourceData.sessionId", DELETE, "required"),
    ("inbound credit", "meta.clientResponse.authorization.nibssBankCode", DELETE, "required"),
    ("inbound credit", "meta.credit.auth", DELETE, "required"),
    ("inbound credit", "meta.credit.linkRef", DELETE, "required"),
    ("verified", "meta.verify.data.data.beneficiary.bankCode", DELETE, "required"),
    # the forms
    ("wallet created", "_id", "66389601c1b2d3e4f5a6b7d0", "not"),
    ("wallet read", "_id", DELETE, "required"),
    ("wallet list entry", "_id", DELETE, "required"),
    ("verified", "requestSrc", DELETE, "required"),
    ("verified", "meta.verify", DELETE, "required"),
]


@pytest.mark.parametrize(
    ("name", "path", "value", "keyword"),
    INVALID,
    ids=[f"{name}:{path}={'<deleted>' if value is DELETE else repr(value)}" for name, path, value, _ in INVALID],
)
def test_invalid_variant_fails(name: str, path: str, value: Any, keyword: str) -> None:
    """A documented instance changed in one field against the document fails, on that field's keyword."""
    schema_file, pointer, instance = FORMS[name]
    found = problems(schema_file, changed(instance, path, value), pointer)
    assert found, "expected a problem"
    parent = path.rpartition(".")[0]
    expected_path = parent if keyword == "required" else "" if keyword == "not" else path
    assert (expected_path, keyword) in {(p.path, p.keyword) for p in found}, found


def test_nullable_fields_accept_null() -> None:
    """deletedAt, feeReference, debitReference, batchId and a wallet party's reference may be null."""
    for name, path in [
        ("bank", "deletedAt"),
        ("transfer", "deletedAt"),
        ("transfer", "feeReference"),
        ("transfer", "debitReference"),
        ("transfer", "batchId"),
        ("transfer", "sourceData.reference"),
    ]:
        schema_file, pointer, instance = FORMS[name]
        assert problems(schema_file, changed(instance, path, None), pointer) == [], (name, path)


def test_wallet_id_integer_or_string() -> None:
    """A wallet's id may be an integer or a string, in every form."""
    for name in ("wallet created", "wallet read", "wallet list entry"):
        schema_file, pointer, instance = FORMS[name]
        for value in (7, "66389601c1b2d3e4f5a6b7d0"):
            assert problems(schema_file, changed(instance, "id", value), pointer) == [], (name, value)


def test_party_follows_its_type() -> None:
    """sourceData and destinationData take the form their type names: an External source needs its fields."""
    schema_file, pointer, instance = FORMS["inbound credit"]
    external_as_wallet = changed(instance, "sourceData", ex.WALLET_PARTY)
    found = {(p.path, p.keyword) for p in problems(schema_file, external_as_wallet, pointer)}
    assert {("sourceData", "required"), ("sourceData.publicId", "pattern")} <= found
    schema_file, pointer, instance = FORMS["bank transfer"]
    bank_as_wallet = changed(instance, "destinationData", ex.WALLET_PARTY)
    found = {(p.path, p.keyword) for p in problems(schema_file, bank_as_wallet, pointer)}
    assert {("destinationData", "required"), ("destinationData.publicId", "pattern")} <= found


# ------------------------------------------------------------------ envelope


def test_envelope_valid_forms() -> None:
    """Documented envelopes pass: a single record, a paged list and the bank list."""
    assert problems("envelope.json", ex.envelope(ex.WALLET_READ), "/$defs/single") == []
    assert problems("envelope.json", ex.envelope([], pagination=ex.PAGINATION), "/$defs/paged") == []
    assert problems("envelope.json", ex.envelope([ex.BANK], message="successful"), "/$defs/unpaged-list") == []
    assert problems("envelope.json", ex.envelope(ex.BANK, message="successful"), "/$defs/with-message") == []
    assert problems("envelope.json", ex.envelope(ex.WALLET_READ), "/$defs/without-message") == []
    assert problems("envelope.json", ex.envelope(ex.WALLET_READ), "/$defs/success") == []


ENVELOPE_INVALID = [
    ("", ex.envelope({}) | {"meta": {"statusCode": "200", "success": True}}, "meta.statusCode", "type"),
    ("", ex.envelope({}) | {"meta": {"statusCode": 200.0, "success": True}}, "meta.statusCode", "type"),
    ("", ex.envelope({}) | {"meta": {"statusCode": 200, "success": "true"}}, "meta.success", "type"),
    ("", ex.envelope({}) | {"meta": {"statusCode": 200, "success": True, "message": 1}}, "meta.message", "type"),
    ("", {"meta": {"statusCode": 200, "success": True}}, "", "required"),
    ("", {"data": {}}, "", "required"),
    ("/$defs/single", ex.envelope([]), "data", "type"),
    ("/$defs/paged", ex.envelope([]), "meta", "required"),
    ("/$defs/paged", ex.envelope({}, pagination=ex.PAGINATION), "data", "type"),
    (
        "/$defs/paged",
        ex.envelope([], pagination={"totalCount": 1, "perPage": "10", "current": 1}),
        "meta.pagination.perPage",
        "type",
    ),
    ("/$defs/paged", ex.envelope([], pagination={"totalCount": 1, "perPage": 10}), "meta.pagination", "required"),
    ("/$defs/unpaged-list", ex.envelope([ex.BANK], pagination=ex.PAGINATION), "meta", "not"),
    ("/$defs/success", ex.envelope({}) | {"meta": {"statusCode": 200, "success": False}}, "meta.success", "const"),
    ("/$defs/with-message", ex.envelope({}), "meta", "required"),
    ("/$defs/without-message", ex.envelope({}, message="successful"), "meta", "not"),
]


@pytest.mark.parametrize(("pointer", "instance", "path", "keyword"), ENVELOPE_INVALID)
def test_envelope_invalid(pointer: str, instance: Any, path: str, keyword: str) -> None:
    """An envelope against the conventions fails (statusCode as a string, pagination missing or present...)."""
    assert (path, keyword) in {(p.path, p.keyword) for p in problems("envelope.json", instance, pointer)}


# ------------------------------------------------------------------ validation.py


def test_strict_integer() -> None:
    """`integer` accepts only an int: not a bool, not a float such as 1000.0."""
    kobo = validation.validator("common.json", "/$defs/kobo")
    assert kobo.is_valid(1000)
    assert not kobo.is_valid(1000.0)
    assert not kobo.is_valid(True)


def test_compiled_validation_passes_only_what_jsonschema_passes() -> None:
    """The compiled validator, tried first, takes every documented form but those holding a whole float (a rate of
    1.0: jsonschema judges those) and none of their broken variants (among them the whole floats it would read as
    integers): a valid answer there is a valid answer."""
    whole_rate = {"transfer", "inbound credit", "verified"}
    for name, (schema_file, pointer, instance) in FORMS.items():
        assert validation.valid_compiled(schema_file, pointer, instance) == (name not in whole_rate), name
    for name, path, value, _ in INVALID:
        schema_file, pointer, instance = FORMS[name]
        broken = changed(instance, path, value)
        assert not validation.valid_compiled(schema_file, pointer, broken), (name, path, value)
        assert not validation.validator(schema_file, pointer).is_valid(broken), (name, path, value)


def test_validator_is_cached() -> None:
    """validator() returns one validator per schema and pointer (a leading `#` is the same pointer)."""
    assert validation.validator("wallet.json", "/$defs/read") is validation.validator("wallet.json", "/$defs/read")
    assert validation.validator("wallet.json", "#/$defs/read").is_valid(ex.WALLET_READ)


def test_problem_fields() -> None:
    """A problem gives a readable path, the failing keyword and its expected value; problems are sorted."""
    transfer = changed(changed(ex.TRANSFER, "meta.rate.convertedAmount", 1.5), "amount", "10000")
    assert problems("transaction.json", transfer) == [
        Problem("amount", "'10000' is not of type 'integer'", "type", "integer"),
        Problem("meta.rate.convertedAmount", "1.5 is not of type 'integer'", "type", "integer"),
    ]
    account = changed(ex.ACCOUNT, "webhooks", ["https://merchant.example/hooks", 17])
    assert [(p.path, p.keyword, p.expected) for p in problems("account.json", account)] == [
        ("webhooks[1]", "type", "string"),
    ]
    assert problems("transaction.json", ex.TRANSFER["meta"], "/$defs/meta") == []
