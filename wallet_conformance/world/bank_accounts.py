"""The bank accounts outside the target that bank transfers pay: the banks it lists, and the external account it
resolves (validated, where the document asks for that before a transfer)."""

from __future__ import annotations

from typing import Any

from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.world import bodies
from wallet_conformance.world.setup_steps import SetupSteps

# What validate-account answers for an account the target does not know (the codes are not shown): a request
# it found wrong, no such account, or one it could not process. 401, 415 and the like are about the request.
NOT_RESOLVED = frozenset({400, 404, 422})


class BankAccounts(SetupSteps):
    """The banks and the external account of the run, each found once per process."""

    _banks: list[dict[str, Any]] | None = None  # the bank list, once read
    _account_tried = False  # whether the external account was validated once

    def banks(self) -> list[dict[str, Any]]:
        if self._banks is None:
            data = self.require(self.api.call("listBanks"), "list the banks")
            self._banks = data if isinstance(data, list) else []
        return self._banks

    def external_account(self) -> tuple[str, str]:
        """An external account the target resolves: --bank-account, or 0123456789 at a bank the list marks usable.

        Which listed bank pays out is not shown; a bank the list itself shows `active` false or with a
        `deletedAt` is passed over, and the first of the others is taken. Which accounts a target resolves is
        not shown either: the first use validates the account once, and when the target answers that it does
        not know it (NOT_RESOLVED), every test that needs an external account skips, naming --bank-account.
        Any other answer decides nothing here: the tests' own checks judge it.
        """
        number, code = self.settings.bank_account
        if code is None:
            usable = [
                bank
                for bank in self.banks()
                if isinstance(bank, dict)
                and "bankCode" in bank
                and bank.get("active") is not False
                and bank.get("deletedAt") is None
            ]
            if not usable:
                raise CannotJudge(
                    "the bank list shows no active bank with a bank code to validate an account with "
                    "(see --bank-account)"
                )
            code = str(usable[0]["bankCode"])
        if "bank-account" in self.gave_up:
            raise CannotJudge(self.gave_up["bank-account"])
        if not self._account_tried:
            self._account_tried = True
            exchange = self.api.call("validateAccount", json_body=bodies.validation(number, code))
            if exchange.status in NOT_RESOLVED:
                self.gave_up["bank-account"] = (
                    f"the target did not resolve the external account {number} at bank {code} (validate-account "
                    f"answered {exchange.status}): give one it resolves with --bank-account NUMBER:BANKCODE; the "
                    "tests that need an external account skip"
                )
                raise CannotJudge(self.gave_up["bank-account"])
        return number, code

    def validated_account(self) -> tuple[str, str]:
        """The external account, validated first as the document asks before a bank transfer (a refusal fails
        the validate-account requirement, END-25, as a setup error)."""
        number, code = self.external_account()
        self.require(
            self.api.call("validateAccount", json_body=bodies.validation(number, code)), "validate the external account"
        )
        return number, code
