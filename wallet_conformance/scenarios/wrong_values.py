"""Every body field sent wrong (world/wrong_values.py), each in an otherwise valid request: what the target answered,
and, when it accepted, the record as a later read shows it. An operation's cases are sent together and share their
setup: the funded wallets of the transfers (new ones after an acceptance, whose money may still be moving), and for
the account update one hold of the account lock, its webhooks put back at the end.

- What a case was answered, and shows: `Outcome` (`shown`: the record in the answer and in the later read).
- Whether a record shows the wrong value as it was sent: `shows_as_sent`.
- A primary wallet's contact fields sent null (the primary places are account-wide): `primary_with_null`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange, Unanswered
from wallet_conformance.judge.request_rules import SHOWN, at
from wallet_conformance.spec import contract
from wallet_conformance.world import accounts, bodies
from wallet_conformance.world.bad_requests import Fixtures
from wallet_conformance.world.resources import Resources
from wallet_conformance.world.wrong_values import (
    EXPONENT_FOR_INTEGER,
    FLOAT_FOR_INTEGER,
    LAST,
    NAME_IN_OTHER_CASE,
    NULL,
    PLACEHOLDERS,
    STRING_FOR_NUMBER,
    Ids,
    WrongValue,
    as_parsed,
    cases,
    names_an_external_account,
    spelled_text,
)

# The kinds of case a conforming target may well accept (the value's absence, or the value itself in another
# spelling): sent after the others.
OFTEN_ACCEPTED = frozenset({NULL, NAME_IN_OTHER_CASE, FLOAT_FOR_INTEGER, EXPONENT_FOR_INTEGER, STRING_FOR_NUMBER})


@dataclass(frozen=True)
class Outcome:
    """A case as sent (`value`: the wrong value), the target's answer, and the later read of an accepted request's
    record (`read`, and the record it shows: the read's data, or the account as GET /accounts lists it)."""

    case: WrongValue
    value: Any
    answer: Exchange
    read: Exchange | None = None
    record: Any = None

    def shown(self) -> Iterator[tuple[Exchange, Any]]:
        """Each answer that shows the record of an accepted request, with the record."""
        if self.answer.ok:
            yield self.answer, self.answer.data
        if self.read is not None and self.read.ok:
            yield self.read, self.record


def shows_as_sent(outcome: Outcome, record: Any) -> Any:
    """The value where `record` shows the case's field when it is the wrong value as sent (same JSON type, same
    value; in a list, among its items), else None; a field the record does not show is never shown as sent."""
    shown = SHOWN.get((outcome.case.operation_id, outcome.case.field))
    if shown is None:
        return None
    held, sent = at(record, shown.where), outcome.value
    if outcome.case.path[LAST] == LAST:  # an item of a list
        return sent if isinstance(held, list) and any(_same(item, sent) for item in held) else None
    if outcome.case.path[LAST] != outcome.case.field:  # a part of an object the record does not show
        return None
    return held if _same(held, sent) else None


def _same(held: Any, sent: Any) -> bool:
    return type(held) is type(sent) and held == sent


# ------------------------------------------------------------------ sending an operation's cases


def sent(get: Fixtures, operation_id: str) -> dict[str, Outcome]:
    """Every case of `operation_id`, sent, by name."""
    own = [case for case in cases().values() if case.operation_id == operation_id]
    # The kinds a conforming target may well accept go last: a transfer accepted makes the next case fund a new pair
    # of wallets (its money may still be moving), which those sent after it then share.
    own.sort(key=lambda case: case.kind in OFTEN_ACCEPTED)
    if operation_id == "updateAccount":
        return _account_updates(get, own)
    send = _sender(get, operation_id)
    return {case.name: send(case) for case in own}


def _sender(get: Fixtures, operation_id: str) -> Callable[[WrongValue], Outcome]:
    api, resources = get("api"), get("resources")
    ids = _ids(get, operation_id)

    def send(case: WrongValue) -> Outcome:
        purse = get("refused_transfer_wallets") if operation_id in contract.money_operations() else None
        if purse is not None:
            source, destination = purse.pair(operation_id)
            made = Ids(ids.run_id, source, destination or ids.destination, ids.external_account)
        else:
            made = ids
        body = case.body(made)
        spelled = spelled_text(body)  # a number in a spelling of its own (1e4), sent as that text
        answer = _answer(
            operation_id,
            lambda: (
                resources.create_wallet(body)
                if operation_id == "createWallet"
                else api.call(operation_id, content=spelled)
                if spelled is not None
                else api.call(operation_id, json_body=body)
            ),
        )
        if purse is not None:
            purse.after(answer)
        read = _read_back(api, answer)
        return Outcome(
            case, _at_path(as_parsed(body), case.sent_path), answer, read, read.data if read is not None else None
        )

    return send


def _answer(operation_id: str, send: Callable[[], Exchange]) -> Exchange:
    """The answer to a request of `operation_id`, or, when the target left it without one, an exchange of status 0
    (`Exchange.unanswered`), which the requirement that every request is answered judges (one case's silence is
    not the others')."""
    try:
        return send()
    except Unanswered as unanswered:
        exchange = Exchange.unanswered(unanswered.silence)
        exchange.operation_id = operation_id
        return exchange


def primary_with_null(resources: Resources, field: str) -> Exchange:
    """The answer to a primary wallet's creation whose `field` (emailAddress or mobile, which only a secondary wallet
    requires) is null; a wallet it makes is closed at once. Called under the account lock (primary places)."""
    answer = _answer(
        "createWallet", partial(resources.create_wallet, bodies.wallet(resources.run_id, "primary", **{field: None}))
    )
    made = answer.data if answer.ok else None
    if isinstance(made, dict) and isinstance(made.get("publicId"), str):
        resources.close_wallet(made["publicId"])
    return answer


def _ids(get: Fixtures, operation_id: str) -> Ids:
    """The records the valid bodies of `operation_id` name (placeholders where its body names none)."""
    resources: Resources = get("resources")
    external = (
        resources.external_account() if names_an_external_account(operation_id) else PLACEHOLDERS.external_account
    )
    destination = (
        get("sample_wallet")["publicId"] if operation_id == "createCollectionAccount" else PLACEHOLDERS.destination
    )
    return Ids(resources.run_id, PLACEHOLDERS.source, destination, external)


def _read_back(api: ApiClient, answer: Exchange) -> Exchange | None:
    """The read openapi.yaml links an accepted answer to (GET the new wallet, verify the transfer), or None."""
    link = contract.read_back(answer.operation_id) if answer.ok else None
    if link is None:
        return None
    parameters = {name: _pointed(answer.json, pointer) for name, pointer in link.parameters.items()}
    if not all(isinstance(value, str) for value in parameters.values()):
        return None  # the answer names no record to read (the resource's requirements judge the answer)
    return api.call(link.operation_id, parameters)


def _pointed(document: Any, pointer: str) -> Any:
    for part in pointer.strip("/").split("/"):
        document = document.get(part) if isinstance(document, dict) else None
    return document


def _at_path(body: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        body = body[part]
    return body


def _account_updates(get: Fixtures, own: list[WrongValue]) -> dict[str, Outcome]:
    """The update cases, sent under the account lock to the own account, each accepted one read back from
    GET /accounts; the account's webhooks are put back at the end (a failed restore is reported, not raised)."""
    api, resources = get("api"), get("resources")
    found: dict[str, Outcome] = {}
    with resources.account_wide():
        account = resources.own_account()
        public_id, original = accounts.account_id(account), accounts.webhooks_of(account)
        ids = Ids(
            resources.run_id,
            PLACEHOLDERS.source,
            PLACEHOLDERS.destination,
            PLACEHOLDERS.external_account,
            tuple(original),
        )
        try:
            for case in own:
                body = case.body(ids)
                answer = _answer(
                    "updateAccount", partial(api.call, "updateAccount", {"accountId": public_id}, json_body=body)
                )
                record, read = accounts.listed_account(api, resources, public_id) if answer.ok else (None, None)
                found[case.name] = Outcome(case, _at_path(body, case.sent_path), answer, read, record)
        finally:
            if any(outcome.answer.ok for outcome in found.values()):
                restored = api.call(
                    "updateAccount", {"accountId": public_id}, json_body=bodies.account_update(original)
                )
                if not restored.ok:
                    print(
                        f"\nwallet-conformance: could not restore the account's webhooks (HTTP {restored.status}); "
                        f"they were {original}"
                    )
    return found
