"""Personal data masked in what the proxy and `--har` keep (client/personal.py): each value in its format, the same
mask for the same value, found wherever it appears again, and a text's structure never changed."""

from __future__ import annotations

import json
import re

from wallet_conformance.client.personal import REMEMBERED, Masking

WALLET = {"accountName": "Adaeze Okonkwo", "accountNumber": "0123456789", "emailAddress": "ada.ok@example.com",
          "mobile": {"phoneNumber": "+2348031234567"}, "bankName": "Providus", "balance": 150000}


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
    assert number in masking.mask("curl -d '{\"accountNumber\": \"0123456789\"}'")
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
