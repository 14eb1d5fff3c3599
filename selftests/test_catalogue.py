"""The requirement catalogue (requirements.yaml) is well formed and carries the document's facts."""

from __future__ import annotations

import re
import tomllib

import pytest
import yaml

from wallet_conformance.reporting.conformance import judged_against, suite_version
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import CATALOGUE, DOCUMENT, ROOT

# The nine parts of the document and the id prefix of each.
SECTION_PREFIXES = {
    "service": "SVC",
    "resources": "RES",
    "states": "STA",
    "endpoints": "END",
    "authentication": "AUTH",
    "events": "EVT",
    "errors": "ERR",
    "limits": "LIM",
    "versioning": "VER",
}

# The document's table of success messages ("Success messages in meta.message").
SUCCESS_MESSAGES = {
    "SVC-10": ("accounts successfully updated", {"updateAccount"}),
    "SVC-11": ("VirtualAccount successfully created", {"createWallet"}),
    "SVC-12": ("VirtualAccount successfully deleted", {"closeWallet"}),
    "SVC-13": ("CollectionAccount successfully created", {"createCollectionAccount"}),
    "SVC-14": ("BankAccount successfully created", {"validateAccount"}),
    "SVC-15": ("successful", {"transfer", "bankTransfer", "listBanks"}),
}

# Ids never change: renumbering, removing or adding a requirement shows up here.
PINNED_IDS = [
    "AUTH-01",
    "AUTH-02",
    "AUTH-03",
    "AUTH-04",
    "AUTH-05",
    "AUTH-06",
    "AUTH-07",
    "AUTH-08",
    "AUTH-10",
    "AUTH-11",
    "AUTH-12",
    "AUTH-13",
    "AUTH-14",
    "AUTH-15",
    "AUTH-16",
    "AUTH-17",
    "AUTH-18",
    "AUTH-19",
    "AUTH-20",
    "AUTH-21",
    "END-01",
    "END-02",
    "END-03",
    "END-04",
    "END-05",
    "END-06",
    "END-07",
    "END-08",
    "END-10",
    "END-11",
    "END-12",
    "END-13",
    "END-14",
    "END-15",
    "END-16",
    "END-17",
    "END-18",
    "END-20",
    "END-21",
    "END-22",
    "END-23",
    "END-25",
    "END-26",
    "END-27",
    "END-28",
    "END-29",
    "END-30",
    "END-31",
    "END-32",
    "END-33",
    "END-34",
    "END-35",
    "END-36",
    "END-37",
    "END-38",
    "END-39",
    "END-40",
    "END-41",
    "END-42",
    "END-43",
    "END-44",
    "END-45",
    "END-53",
    "END-54",
    "END-55",
    "END-56",
    "END-57",
    "END-58",
    "END-70",
    "END-71",
    "ERR-01",
    "ERR-02",
    "ERR-03",
    "ERR-04",
    "ERR-05",
    "ERR-06",
    "ERR-07",
    "ERR-08",
    "ERR-09",
    "ERR-10",
    "EVT-01",
    "EVT-02",
    "EVT-03",
    "LIM-01",
    "LIM-02",
    "LIM-03",
    "LIM-04",
    "LIM-05",
    "LIM-06",
    "LIM-07",
    "LIM-08",
    "LIM-09",
    "LIM-10",
    "LIM-11",
    "LIM-12",
    "LIM-13",
    "LIM-14",
    "LIM-15",
    "LIM-16",
    "LIM-17",
    "LIM-18",
    "LIM-19",
    "LIM-20",
    "LIM-21",
    "LIM-22",
    "LIM-23",
    "LIM-24",
    "LIM-25",
    "RES-01",
    "RES-02",
    "RES-03",
    "RES-04",
    "RES-05",
    "RES-06",
    "RES-07",
    "RES-10",
    "RES-11",
    "RES-12",
    "RES-13",
    "RES-20",
    "RES-21",
    "RES-22",
    "RES-23",
    "RES-24",
    "RES-25",
    "RES-26",
    "RES-27",
    "RES-30",
    "RES-31",
    "RES-32",
    "RES-33",
    "RES-34",
    "RES-35",
    "RES-36",
    "RES-40",
    "RES-41",
    "RES-42",
    "RES-50",
    "RES-51",
    "RES-52",
    "RES-53",
    "RES-54",
    "RES-60",
    "RES-61",
    "RES-62",
    "RES-63",
    "RES-64",
    "RES-65",
    "RES-66",
    "RES-67",
    "RES-68",
    "RES-69",
    "RES-70",
    "RES-71",
    "RES-72",
    "RES-73",
    "RES-74",
    "RES-75",
    "RES-76",
    "RES-77",
    "RES-78",
    "RES-79",
    "RES-80",
    "RES-81",
    "RES-82",
    "RES-83",
    "RES-84",
    "RES-85",
    "RES-86",
    "RES-87",
    "STA-01",
    "STA-02",
    "STA-03",
    "STA-04",
    "STA-05",
    "STA-06",
    "STA-07",
    "STA-08",
    "STA-09",
    "STA-10",
    "STA-11",
    "STA-12",
    "SVC-01",
    "SVC-02",
    "SVC-03",
    "SVC-04",
    "SVC-05",
    "SVC-06",
    "SVC-07",
    "SVC-08",
    "SVC-09",
    "SVC-10",
    "SVC-11",
    "SVC-12",
    "SVC-13",
    "SVC-14",
    "SVC-15",
    "SVC-16",
    "SVC-17",
    "SVC-18",
    "SVC-19",
    "SVC-20",
    "SVC-21",
    "SVC-22",
    "SVC-23",
    "SVC-24",
    "SVC-25",
    "SVC-26",
    "SVC-27",
    "SVC-28",
    "SVC-29",
    "SVC-30",
    "SVC-31",
    "SVC-32",
    "SVC-33",
    "VER-01",
    "VER-02",
]


def test_ids_are_unique() -> None:
    """Every id of requirements.yaml occurs once."""
    raw_ids = [entry["id"] for entry in yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))["requirements"]]
    assert len(raw_ids) == len(set(raw_ids))
    assert len(catalogue()) == len(raw_ids)


def test_ids_are_pinned() -> None:
    """The full sorted id list is the pinned one (no id renumbered, removed or added unnoticed)."""
    assert sorted(requirement.id for requirement in catalogue()) == PINNED_IDS


def test_ids_name_their_section() -> None:
    """Every id is `<PREFIX>-<nn>` with the prefix of its section."""
    for requirement in catalogue():
        match = re.fullmatch(r"([A-Z]+)-([0-9]{2})", requirement.id)
        assert match, requirement.id
        assert match.group(1) == SECTION_PREFIXES[requirement.section], requirement.id


def test_nine_sections_all_have_requirements() -> None:
    """The catalogue has the document's nine sections, and each holds requirements."""
    assert set(catalogue().sections) == set(SECTION_PREFIXES)
    used = {requirement.section for requirement in catalogue()}
    assert used == set(SECTION_PREFIXES)


def test_levels_carry_their_reason() -> None:
    """Every INFO requirement says what is not shown; every SHOULD says what it rests on."""
    for requirement in catalogue():
        assert requirement.title and requirement.quote, requirement.id
        if requirement.level == "INFO":
            assert requirement.not_shown, requirement.id
        if requirement.level == "SHOULD":
            assert requirement.rests_on, requirement.id


def test_operations_exist() -> None:
    """Every `operations` entry is an operationId of openapi.yaml, or `all` alone."""
    known = set(contract.operations())
    for requirement in catalogue():
        assert requirement.operations, requirement.id
        if "all" in requirement.operations:
            assert requirement.operations == ("all",), requirement.id
        else:
            assert set(requirement.operations) <= known, requirement.id


@pytest.mark.parametrize("requirement_id", sorted(SUCCESS_MESSAGES))
def test_success_messages(requirement_id: str) -> None:
    """The six success messages of the document are SVC-10..SVC-15, each on its operations."""
    message, operations = SUCCESS_MESSAGES[requirement_id]
    assert catalogue().value(requirement_id) == message
    assert set(catalogue()[requirement_id].operations) == operations
    for operation_id in operations:
        assert contract.success_message(operation_id) == message


def test_operations_without_a_message() -> None:
    """Operations missing from the message table have no documented message."""
    with_message = set().union(*(operations for _, operations in SUCCESS_MESSAGES.values()))
    for operation_id in set(contract.operations()) - with_message:
        assert contract.success_message(operation_id) is None


def test_message_presence_and_pagination() -> None:
    """meta.message presence/absence and pagination are on the operations the general conventions name."""
    present = {
        "updateAccount",
        "createWallet",
        "closeWallet",
        "createCollectionAccount",
        "validateAccount",
        "transfer",
        "bankTransfer",
        "listBanks",
    }
    absent = {"getWallet", "listTransactions", "verifyTransaction"}
    for operation_id in contract.operations():
        expected = "present" if operation_id in present else "absent" if operation_id in absent else None
        assert contract.message_rule(operation_id) == expected, operation_id
        assert contract.is_paginated(operation_id) == (
            operation_id in {"listAccounts", "listWallets", "listTransactions"}
        ), operation_id


def test_limit_values() -> None:
    """The catalogue carries the primary-wallet limit (5) and the observed page size (10)."""
    assert contract.primary_wallet_limit() == 5
    assert contract.default_page_size() == 10


def _words(text: str) -> str:
    return " ".join(text.split())


def test_every_quote_is_found_in_the_document():
    """Each requirement's quote stands in spec/wallet-service-api.md: verbatim, or as segments around an ellipsis."""
    document = _words(DOCUMENT.read_text(encoding="utf-8"))
    missing = {
        requirement.id: segment
        for requirement in catalogue()
        for segment in re.split(r"\.\.\.|…", requirement.quote)
        if segment.strip() and _words(segment) not in document
    }
    assert not missing, missing


def test_the_generated_pages_are_up_to_date():
    """docs/options.md and docs/requirements.md are what `python -m wallet_conformance.pages` writes from the option
    declarations and the catalogue."""
    from wallet_conformance import pages
    from wallet_conformance.spec.files import REQUIREMENTS_PAGE

    assert (REQUIREMENTS_PAGE.parent / "options.md").read_text(encoding="utf-8") == pages.options_page()
    assert REQUIREMENTS_PAGE.read_text(encoding="utf-8") == pages.requirements_page()


# Words by which the document says a value was only observed, or a point is open.
OPEN_WORDS = re.compile(r"\bobserved\b|\bnot shown\b|\bmay\b", re.IGNORECASE)


def test_no_must_rests_only_on_what_the_document_observes_or_leaves_open() -> None:
    """Every MUST requirement quotes at least one segment of the document that neither calls a value observed, nor
    leaves a point 'not shown', nor says a thing `may` be; one whose quote holds such words anywhere says why it is a
    MUST nonetheless (rests_on)."""
    for requirement in catalogue():
        if requirement.level != "MUST":
            continue
        segments = [segment for segment in re.split(r"\.\.\.|…", requirement.quote) if segment.strip()]
        assert not all(OPEN_WORDS.search(segment) for segment in segments), requirement.id
        if OPEN_WORDS.search(requirement.quote):
            assert requirement.rests_on, requirement.id


def test_the_newest_changelog_entry_is_this_catalogue_s_and_this_version_s():
    """CHANGELOG.md's newest entry names the sha256 of requirements.yaml as it is and the package's version: a change
    to the catalogue (what a run judges) comes with a new version and an entry that says why a gate may change."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = text.split("\n## ", 1)[1].split("\n## ", 1)[0]
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert newest.splitlines()[0].strip() == version, (newest.splitlines()[0], version)
    assert f"requirements.yaml {judged_against()['requirements.yaml']}" in newest, (
        "requirements.yaml changed: give the suite a new version and CHANGELOG.md an entry with its sha256"
    )
    assert suite_version() in (version, "unknown")
