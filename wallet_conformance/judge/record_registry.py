"""The registry of records: every record the run's answers show, and the invariants between those answers.

Fed one exchange at a time (the stream the exchange judge gets, judge/exchanges.py), it keeps per record a small
fingerprint, never a body: the record's kind, the identifiers and fixed values shown so far, and the view (which
part of which answer) that first showed each. An answer that contradicts an earlier one is a finding; its failure
shows the contradicting exchange and names the earlier view it contradicts.

- RES-79: an identifier names one record. No two records share a publicId, an `_id` (of one kind), or, within an
  account and mode, a transaction's reference; no two wallets or collection accounts open at the same time share an
  accountNumber (one namespace: both are virtual accounts, with one prefix). A number shown first by a wallet the
  registry saw closed, or by a collection account whose expiration is before the new record's createdAt, may name a
  record made after (collection accounts are short-lived; their later life is not shown); a wallet the registry saw
  closed, read or listed again, claims its number no more.
- RES-80: a record shows the same identity in every answer that shows it: a wallet, collection account or account
  its accountNumber, `_id` and owner (`account`, `business`); a transaction its reference, `_id`, amount, source and
  destination; a wallet and a bank account, as a transaction of their own account shows them, their accountNumber.
- LIM-19: no two collection accounts of an account (and mode) share a reference ("unique"), generated or supplied.
- STA-09: a transfer accepted after the close of its source or destination never shows `success` (after: its request
  sent once the close's answer had ended, as the exchanges' times say; one whose times are not known is not judged).

Left to the requirement that states them: an identifier shown in another type than the document's (an accountNumber
as a number: the field's type), a value contradicting the record's first one (RES-80, not also an identifier of
whichever record that value names), a collection account showing its wallet's accountNumber as its own (RES-36), what
the answer to a request repeats of what it sent (a bank transfer's destination account: END-35).

Left alone, because the document lets them change or leaves them open: balances, statuses (but the one above),
names, timestamps; `id` (an integer in create and list answers, a string in reads); a transaction's owner and entry
(a transfer may be one record seen from both sides); another account's wallet as a transaction shows it (what an
answer shows of it is AUTH-17's open point); how a closed wallet reads or lists (STA-10, not shown). Records of
other accounts are compared like the key's own: identifiers are the service's, and references are unique within
their account, whichever key read them.

Only whole 2xx JSON answers of an operation of the contract are taken; refusals and cut or non-JSON bodies show no
record. No pytest here: the plugin feeds the run's exchanges (judge/session.py's ExchangeJudge), and the same class can
judge exchanges recorded elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.exchanges import Finding, judgeable
from wallet_conformance.judge.failures import CannotJudge, ConformanceFailure, check
from wallet_conformance.judge.parties import (
    BANK_ACCOUNT,
    SIDES,
    VIRTUAL_ACCOUNT,
    WITHHELD_FIELDS,
    WITHHELD_PARENT,
    credit_leg,
    legs,
)
from wallet_conformance.judge.request_rules import ECHOED
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue

IDENTIFIERS = "RES-79"
IDENTITY = "RES-80"
COLLECTION_REFERENCES = "LIM-19"
CLOSED_WALLETS = "STA-09"
# The invariants between answers, by the requirement each stands for.
INVARIANTS = {
    IDENTIFIERS: "one identifier, one record",
    IDENTITY: "one record, one identity",
    COLLECTION_REFERENCES: "one identifier, one record",
    CLOSED_WALLETS: "closed wallets move no money",
}
FINDER = "records"  # names the registry's findings: their run records are `records::REQ[operation]`
# The most entries each table of the registry holds (records, identifiers, closed wallets, transfers accepted after a
# close): a bound on its memory over a very long recording or a proxy running for days. Past it, the entry first
# learnt longest ago is forgotten for each new one (counted in `forgotten`): a contradiction of a forgotten record is
# not found, every other is.
MAX_RECORDS = 200_000
SUCCESS = contract.success_state()
OWNER = "account"
MODE = "live"
PARENT_NUMBER = "parentAccountNumber"


@dataclass(frozen=True)
class Kind:
    """A kind of record: its name, the family whose publicIds share one namespace, the values that never change
    (compared between views), those of them no other record shows (each with its namespace), and those unique within
    an account and mode (each with the requirement that says so)."""

    name: str
    family: str
    fixed: tuple[str, ...]
    unique: tuple[tuple[str, str], ...] = ()
    per_account: tuple[tuple[str, str], ...] = ()


VIRTUAL_ACCOUNTS = "virtual account"
NUMBERS = "the accountNumber of a virtual account"
WALLET = Kind(
    "wallet",
    VIRTUAL_ACCOUNTS,
    ("accountNumber", "_id", OWNER),
    (("accountNumber", NUMBERS), ("_id", "the _id of a wallet")),
)
COLLECTION_ACCOUNT = Kind(
    "collection account",
    VIRTUAL_ACCOUNTS,
    ("accountNumber", "reference", OWNER),
    (("accountNumber", NUMBERS),),
    (("reference", COLLECTION_REFERENCES),),
)
BANK_ACCOUNT_RECORD = Kind("bank account", "bank account", ("accountNumber",))
TRANSACTION = Kind(
    "transaction",
    "transaction",
    ("reference", "_id", "amount", "source", "destination"),
    (("_id", "the _id of a transaction"),),
    (("reference", IDENTIFIERS),),
)
ACCOUNT = Kind("account", "account", ("_id", "business"), (("_id", "the _id of an account"),))
# The family of a transaction's party, by the party's type (sourceType, destinationType).
PARTY_FAMILIES = {VIRTUAL_ACCOUNT: VIRTUAL_ACCOUNTS, BANK_ACCOUNT: BANK_ACCOUNT_RECORD.family}
# How a check of the registry reports what it found: (rule, requirement, title, expected, received).
Report = Callable[[str, str, str, str, str], None]


@cache
def kinds() -> dict[str, Kind]:
    """The kind of record each operation's answer shows, from the catalogue's requirements on each kind's fields
    (where a wallet's publicId shows: created, listed, read, closed)."""
    shown = {
        "RES-01": WALLET,
        "RES-30": COLLECTION_ACCOUNT,
        "RES-40": BANK_ACCOUNT_RECORD,
        "RES-60": TRANSACTION,
        "RES-10": ACCOUNT,
    }
    return {
        operation_id: kind
        for requirement, kind in shown.items()
        for operation_id in catalogue()[requirement].operations
    }


@cache
def closing() -> frozenset[str]:
    """The operation that closes a wallet (the one whose answer is what closing returns, STA-08)."""
    return frozenset(catalogue()["STA-08"].operations)


def shows_records(exchange: Exchange) -> bool:
    """Whether the registry takes the exchange: a whole 2xx JSON answer of an operation whose answers show records."""
    return exchange.operation_id in kinds() and exchange.ok and judgeable(exchange) and exchange.is_json


@dataclass(frozen=True)
class _Answer:
    """One exchange as the registry remembers it: its operation, its request line and what made it."""

    operation: str
    request: str
    during: str | None


@dataclass(frozen=True)
class Sighting:
    """Where a record was seen: a part of one answer (`data`, `data[3]`, `data[3].meta.credit.sourceData`)."""

    where: str
    answer: _Answer

    def __str__(self) -> str:
        text = f"{self.where} of the {self.answer.operation} answer to {self.answer.request}"
        return f"{text} (during {self.answer.during})" if self.answer.during else text


@dataclass
class _Record:
    """A record's fingerprint: its kind, its owning account, its fixed values as first shown, and the view that first
    showed each."""

    kind: Kind
    owner: str | int | None = None
    values: dict[str, Any] = field(default_factory=dict)
    seen: dict[str, Sighting] = field(default_factory=dict)


AMOUNTS = frozenset({"amount"})  # the fixed values the document types as integers; every other one is a string


def _instant(value: Any) -> datetime | None:
    """A timestamp of an answer as an aware instant; None when it is no ISO 8601 timestamp with its offset."""
    if not isinstance(value, str):
        return None
    try:
        instant = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return instant if instant.tzinfo is not None else None


def _value(value: Any, name: str = "") -> Any:
    """An identifier or amount worth comparing, in the type the document gives the field `name`: an integer for an
    amount, a non-empty string for any other (an accountNumber shown as a number is the field requirements' matter,
    not another identity); None otherwise."""
    if name in AMOUNTS:
        return value if type(value) is int else None
    return value if isinstance(value, str) and value else None


@cache
def _echoed(operation_id: str) -> frozenset[str]:
    """Where in its data the answer to a request of `operation_id` repeats a field the request sent (END-35 a bank
    transfer's destination account): judged against the request (request_rules.ECHOED), not against earlier
    answers."""
    return frozenset(where for operation, _, where, _ in ECHOED if operation == operation_id)


def _its_parents(kind: Kind, record: dict[str, Any], name: str) -> bool:
    """Whether a collection account shows as its own accountNumber the one it names as its wallet's
    (parentAccountNumber): that its number differs from its wallet's is RES-36's statement, not a second record
    sharing an identifier."""
    return kind is COLLECTION_ACCOUNT and name == "accountNumber" and record.get(name) == record.get(PARENT_NUMBER)


def _ended_at(exchange: Exchange) -> float | None:
    """When an exchange's answer ended (seconds since the epoch); None when its request's start is not known."""
    return exchange.started + exchange.elapsed if exchange.started is not None else None


def _scope(record: dict[str, Any]) -> tuple[Any, Any]:
    """The account and mode a record belongs to, as far as it shows them (None for what it does not)."""
    mode = record.get(MODE)
    return _value(record.get(OWNER)), mode if isinstance(mode, bool) else None


def _entries(data: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """The records of an answer's data: the object itself, or each object of a list, with where it is."""
    if isinstance(data, dict):
        yield "data", data
    elif isinstance(data, list):
        for index, entry in enumerate(data):
            if isinstance(entry, dict):
                yield f"data[{index}]", entry


class RecordRegistry:
    """The records one stream of exchanges showed, and the contradictions between its answers.

    `see(exchange)` takes the next exchange and returns what it contradicts, at most one finding per requirement.
    `compared` counts the views held against an earlier view of the same record (a test that compared none has
    judged nothing); `held`, the invariants (by requirement) under which the last exchange was compared with what came
    before it (the first record an exchange shows is held to none). Each table holds at most `limit` entries, ageing
    out the oldest (`forgotten` counts them by table).
    """

    def __init__(self, limit: int = MAX_RECORDS) -> None:
        self.limit = limit
        self.forgotten: dict[str, int] = {
            "records": 0,
            "identifiers": 0,
            "closed wallets": 0,
            "transfers after a close": 0,
            "expirations": 0,
            "scopes": 0,
        }
        self._records: dict[tuple[str, str], _Record] = {}
        # An identifier's namespace (and scope) and value -> the publicId of the record that showed it first, and where.
        self._names: dict[tuple[Any, ...], tuple[str, Sighting]] = {}
        # Wallets an answer showed closed: that answer, and when it ended (seconds since the epoch; None: not known).
        self._closed: dict[str, tuple[Sighting, float | None]] = {}
        self._expires: dict[str, datetime] = {}  # collection accounts, by publicId -> their expiration
        # Transfers accepted after the close of one of their wallets: their publicId -> the wallet, its close, the
        # acceptance.
        self._after_close: dict[str, tuple[str, Sighting, Sighting]] = {}
        self.compared = 0
        self.held: frozenset[str] = frozenset()
        self._held: set[str] = set()
        # The namespaces (and scopes) of identifiers some record showed: a later identifier of one is held against
        # the earlier ones.
        self._scopes: dict[tuple[Any, ...], None] = {}

    def see(self, exchange: Exchange, during: str | None = None) -> list[Finding]:
        """Take one exchange (made `during` a test, when the feeder says which); what it contradicts."""
        self._held, self.held = set(), frozenset()
        if not shows_records(exchange):
            return []
        kind = kinds()[str(exchange.operation_id)]
        answer = _Answer(str(exchange.operation_id), f"{exchange.method} {exchange.url}", during)
        found: dict[str, Finding] = {}

        def report(rule: str, requirement: str, title: str, expected: str, received: str) -> None:
            if requirement not in found:
                failure = ConformanceFailure(
                    requirement, title, expected, received, exchange, detail=f"the registry of records: {rule}"
                )
                found[requirement] = Finding(rule, requirement, answer.operation, failure, FINDER)

        if exchange.operation_id in contract.money_operations():
            self._accepted(exchange, answer)
        for where, record in _entries(exchange.data):
            sighting = Sighting(where, answer)
            self._view(kind, record, sighting, report)
            if kind is TRANSACTION:
                self._parties(record, sighting, report)
                self._completed(record, sighting, report)
        if exchange.operation_id in closing() and isinstance(exchange.data, dict):
            public_id = _value(exchange.data.get("publicId"))
            if isinstance(public_id, str) and public_id not in self._closed:
                self._make_room(self._closed, "closed wallets")
                self._closed[public_id] = (Sighting("data", answer), _ended_at(exchange))
        self.held = frozenset(self._held | found.keys())
        return list(found.values())

    def _make_room(self, table: dict[Any, Any], name: str) -> None:
        """Forget the entry of `table` learnt longest ago when it holds `limit` (dicts keep insertion order)."""
        if len(table) >= self.limit:
            del table[next(iter(table))]
            self.forgotten[name] += 1

    # ------------------------------------------------------------------ what another business may withhold

    def withheld(self, exchange: Exchange) -> frozenset[str]:
        """The places of an answer where it may show a wallet of another account than the record's own, whose name,
        number and balance that account may withhold (`parties.WITHHELD_FIELDS`): in a transaction, the data of a
        party (and the credit leg's balance, the destination's) whose wallet the registry did not see owned by the
        transaction's account; in a collection account, the parent's number when the request named such a wallet. A
        wallet whose owner the registry has not seen may be another's (one client's traffic need never read the
        payee's wallet, and nothing in the answer says whose it is): only one the registry saw owned by the record's
        own account is held to everything."""
        if not shows_records(exchange):
            return frozenset()
        places: set[str]
        kind, places = kinds()[str(exchange.operation_id)], set()
        for where, record in _entries(exchange.data):
            viewer = _value(record.get(OWNER))
            if viewer is None:
                continue
            if kind is TRANSACTION:
                for leg_where, leg in legs(where, record):
                    for side in SIDES:
                        if leg.get(f"{side}Type") == VIRTUAL_ACCOUNT and not self._owned(leg.get(side), viewer):
                            places.update(f"{leg_where}.{side}Data.{name}" for name in WITHHELD_FIELDS)
                            if side == "destination" and leg is credit_leg(record):
                                places.add(f"{leg_where}.balance")
            elif (
                kind is COLLECTION_ACCOUNT
                and isinstance(exchange.request_body, dict)
                and not self._owned(exchange.request_body.get("destination"), viewer)
            ):
                places.add(f"{where}.{WITHHELD_PARENT}")
        return frozenset(places)

    def _owned(self, wallet: Any, viewer: Any) -> bool:
        """Whether `wallet` is a wallet the registry saw owned by the account `viewer`."""
        known = self._records.get((VIRTUAL_ACCOUNTS, wallet)) if isinstance(wallet, str) else None
        return known is not None and known.owner is not None and known.owner == viewer

    # ------------------------------------------------------------------ one record, one identity (RES-80)

    def _view(self, kind: Kind, record: dict[str, Any], sighting: Sighting, report: Report) -> None:
        public_id = _value(record.get("publicId"))
        if not isinstance(public_id, str):
            return
        values = {name: value for name in kind.fixed if (value := _value(record.get(name), name)) is not None}
        known = self._records.get((kind.family, public_id))
        self._against((kind.family,), IDENTIFIERS)
        if known is None:
            self._make_room(self._records, "records")
            known = self._records[(kind.family, public_id)] = _Record(kind)
        else:
            self.compared += 1
            self._held.update((IDENTITY, IDENTIFIERS))  # its identity, and that its publicId names one kind of record
        if known.owner is None:
            known.owner = _scope(record)[0]
        for name, value in values.items():
            before = known.values.get(name)
            if before is None:
                known.values[name], known.seen[name] = value, sighting
            elif before != value:
                self._changed(known, public_id, kind, name, value, sighting, report)
        # Only the identity the record first showed names it: a view contradicting it is RES-80's finding above, and
        # whichever record the contradicting value names besides is no second finding.
        kept = {name: value for name, value in values.items() if known.values.get(name) == value}
        if kind is COLLECTION_ACCOUNT and (expiration := _instant(record.get("expiration"))) is not None:
            self._make_room(self._expires, "expirations")
            self._expires[public_id] = expiration
        for name, namespace in kind.unique:
            if name in kept and not _its_parents(kind, record, name):
                if namespace == NUMBERS and public_id in self._closed:
                    continue  # a closed wallet still reads and lists (STA-10): its number may have passed on since
                if namespace == NUMBERS and self._ended(namespace, kept[name], _instant(record.get("createdAt"))):
                    self._names[(namespace, kept[name])] = (public_id, sighting)  # the number passed to a new record
                    self._held.add(IDENTIFIERS)
                    continue
                self._named((namespace,), kept[name], name, public_id, kind, sighting, IDENTIFIERS, report)
        owner, mode = _scope(record)
        for name, requirement in kind.per_account:
            if name in kept and owner is not None:  # unique within an account: one that shows none is not judged
                scope = (f"the {name} of a {kind.name}", owner, mode)
                self._named(scope, kept[name], name, public_id, kind, sighting, requirement, report)

    def _changed(
        self, known: _Record, public_id: str, kind: Kind, name: str, value: Any, sighting: Sighting, report: Report
    ) -> None:
        """A view of `public_id` shows `name` other than an earlier one: the record changed identity, or (shown as
        another kind of record) the publicId names two records."""
        before = known.values[name]
        if known.kind is kind:
            report(
                "one record, one identity",
                IDENTITY,
                f"{kind.name} {public_id} shows the {name} {value!r}, not the {before!r} shown before",
                f"{name} {before!r}, as first shown in {known.seen[name]}",
                f"{name} {value!r} in {sighting.where} of this answer",
            )
        else:
            report(
                "one identifier, one record",
                IDENTIFIERS,
                f"{public_id} names a {known.kind.name} and a {kind.name}",
                f"{public_id} naming one record: the {known.kind.name} with {name} {before!r}, first shown in "
                f"{known.seen[name]}",
                f"a {kind.name} with {name} {value!r} in {sighting.where} of this answer",
            )

    # ------------------------------------------------------------------ one identifier, one record (RES-79, LIM-19)

    def _ended(self, namespace: str, number: Any, created: datetime | None) -> bool:
        """Whether the record that first showed the accountNumber `number` was no longer open when a record created at
        `created` showed it: a wallet the registry saw closed, or a collection account expired before then."""
        holder = self._names.get((namespace, number))
        if holder is None:
            return False
        first = holder[0]
        if first in self._closed:
            return True
        expiration = self._expires.get(first)
        return expiration is not None and created is not None and expiration <= created

    def _against(self, scope: tuple[Any, ...], requirement: str) -> None:
        """An identifier of `scope` is shown: held under `requirement` against the earlier ones of the scope, when some
        record showed one before."""
        if scope in self._scopes:
            self._held.add(requirement)
        else:
            self._make_room(self._scopes, "scopes")
            self._scopes[scope] = None

    def _named(
        self,
        scope: tuple[Any, ...],
        value: Any,
        name: str,
        public_id: str,
        kind: Kind,
        sighting: Sighting,
        requirement: str,
        report: Report,
    ) -> None:
        key = (*scope, value)
        self._against(scope, requirement)
        holder = self._names.get(key)
        if holder is None:
            self._make_room(self._names, "identifiers")
            self._names[key] = (public_id, sighting)
            return
        first, where = holder
        self._held.add(requirement)
        if first == public_id:
            return
        within = " of one account" if len(scope) > 1 else ""
        report(
            "one identifier, one record",
            requirement,
            f"the {name} {value!r} names two records{within}: {first} and {public_id}",
            f"{name} {value!r} naming only {first}, first shown in {where}",
            f"the {kind.name} {public_id} with {name} {value!r} in {sighting.where} of this answer",
        )

    # ------------------------------------------------------------------ a transaction's parties (RES-80)

    def _parties(self, transaction: dict[str, Any], sighting: Sighting, report: Report) -> None:
        """A wallet or bank account in a transaction's sourceData / destinationData (and its credit leg's) shows the
        accountNumber its own answers show; held only for a record of the transaction's own account (what an answer
        shows of another account's wallet is not shown)."""
        owner = _value(transaction.get(OWNER))
        if owner is None:
            return
        echoed = _echoed(sighting.answer.operation)
        for leg_where, leg in legs(sighting.where, transaction):
            for side in SIDES:
                party_type, party = leg.get(f"{side}Type"), leg.get(f"{side}Data")
                family = PARTY_FAMILIES.get(party_type) if isinstance(party_type, str) else None
                if family is None or not isinstance(party, dict):
                    continue
                leg_path = leg_where.removeprefix(sighting.where).lstrip(".")
                if ".".join(filter(None, (leg_path, f"{side}Data.accountNumber"))) in echoed:
                    continue  # the answer to the request repeats what it sent: the echo's requirement judges that
                public_id = _value(party.get("publicId"))
                known = self._records.get((family, public_id)) if isinstance(public_id, str) else None
                if known is None or known.owner != owner:
                    continue
                self.compared += 1
                self._held.add(IDENTITY)
                number = _value(party.get("accountNumber"), "accountNumber")
                before = known.values.get("accountNumber")
                if number is not None and before is not None and number != before:
                    report(
                        "one record, one identity",
                        IDENTITY,
                        f"{known.kind.name} {public_id} shows the accountNumber {number!r} as a party of a "
                        f"transaction, not the {before!r} shown before",
                        f"accountNumber {before!r}, as first shown in {known.seen['accountNumber']}",
                        f"accountNumber {number!r} in {leg_where}.{side}Data of this answer",
                    )

    # ------------------------------------------------------------------ closed wallets (STA-09)

    def _accepted(self, exchange: Exchange, answer: _Answer) -> None:
        """Remember a transfer accepted after the close of a wallet it names (source or destination): one whose
        request was sent after the close's answer ended. The order exchanges are fed in is not when they happened (the
        proxy feeds them as they end, a folder of recordings file after file): a transfer sent while the close was
        under way, or either of whose times is not known, is not judged as after it."""
        body, data = exchange.request_body, exchange.data
        if not isinstance(body, dict) or not isinstance(data, dict) or not isinstance(data.get("publicId"), str):
            return
        for side in SIDES:
            wallet = body.get(side)
            if not isinstance(wallet, str) or wallet not in self._closed:
                continue
            closed, ended = self._closed[wallet]
            if ended is not None and exchange.started is not None and exchange.started > ended:
                self._make_room(self._after_close, "transfers after a close")
                self._after_close[data["publicId"]] = (wallet, closed, Sighting("data", answer))
                return

    def _completed(self, transaction: dict[str, Any], sighting: Sighting, report: Report) -> None:
        public_id = transaction.get("publicId")
        if not isinstance(public_id, str) or public_id not in self._after_close:
            return
        self._held.add(CLOSED_WALLETS)
        if transaction.get("status") != SUCCESS:
            return
        wallet, closed, accepted = self._after_close.pop(public_id)
        report(
            "closed wallets move no money",
            CLOSED_WALLETS,
            f"the transfer {public_id}, accepted after the wallet {wallet} was closed, completed",
            f"no transfer of {wallet} completing once it is closed (its close: {closed}); {public_id} was "
            f"accepted in {accepted}",
            f"status {SUCCESS!r} in {sighting.where} of this answer",
        )


def contradictions(exchanges: Iterable[Exchange]) -> tuple[list[Finding], int]:
    """What a run of exchanges, read in order by a fresh registry, contradicts; and how many views it compared."""
    registry = RecordRegistry()
    found = [finding for exchange in exchanges for finding in registry.see(exchange)]
    return found, registry.compared


@check
def consistent(exchanges: Iterable[Exchange], what: str, *, requirement: str | None = None) -> int:
    """The exchanges, read in order, contradict each other in nothing `requirement` holds (the registry's first
    finding of it is the failure); returns how many views were held against an earlier one. None at all: `what`
    showed no record twice, and the test cannot judge."""
    found, compared = contradictions(exchanges)
    for finding in found:
        if finding.requirement == requirement:
            raise finding.failure
    if not compared:
        raise CannotJudge(f"{what} showed no record twice: there was nothing to compare")
    return compared
