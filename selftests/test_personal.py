"""Personal data masked in what the proxy and `--har` keep (client/personal.py): each value in its format, the same
mask for the same value, found wherever it appears again, and a text's structure never changed."""

from __future__ import annotations

import json
import re

import pytest

from selftests.suite_runs import run_suite, tail
from wallet_conformance.client.personal import REMEMBERED, SHORTEST, Masking
from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.faults import Fault

WALLET = {
    "accountName": "Adaeze Okonkwo",
    "accountNumber": "0123456789",
    "emailAddress": "ada.ok@example.com",
    "mobile": {"phoneNumber": "+2348031234567"},
    "bankName": "Providus",
    "balance": 150000,
}


def test_a_mask_keeps_each_values_format_and_every_other_field():
    """Digits stay digits, letters letters of their case, `@`, `.`, `+` and spaces stay; the bank's name and the
    balance are not a person's data and stay as they were; the JSON is JSON still."""
    masked = json.loads(Masking().mask(json.dumps(WALLET)))
    assert re.fullmatch(r"\d{10}", masked["accountNumber"]) and masked["accountNumber"] != WALLET["accountNumber"]
    assert re.fullmatch(r"[A-Z][a-z]{5} [A-Z][a-z]{6}", masked["accountName"]), masked["accountName"]
    assert re.fullmatch(r"[a-z]{3}\.[a-z]{2}@[a-z]{7}\.[a-z]{3}", masked["emailAddress"]), masked["emailAddress"]
    assert re.fullmatch(r"\+\d{13}", masked["mobile"]["phoneNumber"]), masked["mobile"]
    assert (masked["bankName"], masked["balance"]) == ("Providus", 150000)


def test_one_value_one_mask_and_found_again_where_no_field_names_it():
    """A value seen in a personal field is masked alike in a later text that quotes it without its field (a check's
    expected and received), in a JSON document quoted inside another, and in a curl line; a run of digits that only
    contains it is another value, left alone."""
    masking = Masking()
    first = json.loads(masking.mask(json.dumps(WALLET)))
    number = first["accountNumber"]
    later = masking.mask(f"expected '0123456789', received '{WALLET['accountName']}'; ref 990123456789")
    assert later == f"expected '{number}', received '{first['accountName']}'; ref 990123456789", later
    quoted = masking.mask(json.dumps({"evidence": json.dumps(WALLET)}))
    assert json.loads(json.loads(quoted)["evidence"])["accountNumber"] == number
    assert number in masking.mask('curl -d \'{"accountNumber": "0123456789"}\'')
    assert Masking().value("0123456789") != number  # another run's salt, another mask


def test_how_many_values_are_remembered_is_bounded_and_each_is_still_found():
    """Past REMEMBERED values nothing more is remembered; with every one remembered, names that share their first
    words are each found and masked in a long text, which keeps its length."""
    masking = Masking()
    for index in range(REMEMBERED + 100):
        masking.mask(json.dumps({"accountName": f"Ada Obi {index}", "accountNumber": str(1_000_000_000 + index)}))
    assert len(masking.values) == REMEMBERED
    text = " ".join(f"Ada Obi {index % 500} Bank {index}" for index in range(12_000))
    masked = masking.mask(text)
    assert "Ada Obi 7 " not in masked and "Ada Obi 499 " not in masked and len(masked) == len(text)
    assert masking.mask(f"Ada Obi {REMEMBERED + 50} ") == f"Ada Obi {REMEMBERED + 50} "  # past the bound


def test_a_text_masked_twice_is_masked_once():
    """A line masked when it is made and again when the report that holds it is written keeps its masks: masking is
    idempotent, so one value has one mask wherever it ends up."""
    masking = Masking()
    once = masking.mask(json.dumps(WALLET) + " expected '0123456789'")
    assert masking.mask(once) == once
    assert masking.mask(json.dumps({"evidence": once})) == json.dumps({"evidence": once})


@pytest.mark.parametrize("asked", [True, False], ids=["masked-when-asked", "kept-by-default"])
def test_an_active_run_masks_personal_data_only_when_asked(tmp_path, asked):
    """A run on two workers against a reference whose close answer breaks SVC-12 (its evidence quotes the wallet):
    with --mask-personal-data no wallet's name or account number is in the terminal, the reports, the HAR or the
    Allure results, and the report and the HAR (written by other processes) show the same mask of a number; without
    it, the run keeps them, as its records are the suite's own."""
    with ReferenceServer(faults=[Fault.WRONG_CLOSE_MESSAGE]) as reference:
        process, report, _ = run_suite(
            tmp_path / "reports",
            "--base-url",
            reference.base_url,
            "--secret-key",
            reference.secret_key,
            "--requirement",
            "SVC-12",
            "-n",
            "2",
            "--record-har",
            str(tmp_path / "run.har"),
            "--alluredir",
            str(tmp_path / "allure"),
            *(["--mask-personal-data"] if asked else []),
        )
        wallets = list(reference.service.store.wallets)
    assert report is not None and report["outcome"]["exit_status"] == 1, tail(process)
    kept = [
        process.stdout + process.stderr,
        (tmp_path / "run.har").read_text(),
        *(path.read_text() for path in (tmp_path / "reports").glob("*.*")),
        *(path.read_text() for path in (tmp_path / "allure").iterdir()),
    ]
    personal = {value for wallet in wallets for value in (wallet.account_name, wallet.account_number)}
    assert wallets and all(len(value) >= SHORTEST for value in personal)
    assert {value for value in personal if any(value in text for text in kept)} == (set() if asked else personal)
    evidence = next(entry for entry in report["requirements"] if entry["id"] == "SVC-12")["evidence"][0]
    shown = re.search(r'\\"accountNumber\\": ?\\"(\d{10})\\"', json.dumps(evidence["exchange"]["response"]))
    assert shown and shown[1] in kept[1], evidence  # the HAR's mask of the number is the report's
