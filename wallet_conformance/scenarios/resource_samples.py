"""The records of each resource the resource tests judge, found in the samples (tests/conftest.py): accounts,
wallets, the collection account and banks, each with where it was found; and one record of every resource, for
the observations of their fields."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import envelope, fields, records, request_rules
from wallet_conformance.judge.failures import CannotJudge, shown
from wallet_conformance.judge.records import Found
from wallet_conformance.scenarios.transaction_samples import INBOUND_CREDIT, SETTLED_TRANSFER, NotReached
from wallet_conformance.spec import contract
from wallet_conformance.world.samples import Fixtures, Samples
from wallet_conformance.world.setup_steps import UNAVAILABLE

WALLET = "wallet.json"
TRANSACTION = "transaction.json"


def label(operation_id: str) -> str:
    """Where a sample's records are: `GET /virtual-accounts data`, the operation's method, path and `data`."""
    operation = contract.operations()[operation_id]
    return f"{operation.method} {operation.path} data"


def _shaped(exchange: Exchange, operation_id: str) -> Exchange:
    """The sample, when its data has the shape its operation answers (an array for a paged list, else an object);
    an accepted answer of another shape is SVC-19's or SVC-20's failure, and the records it holds cannot be read."""
    paged = contract.is_paginated(operation_id)
    if exchange.ok and exchange.is_json and not isinstance(exchange.data, list if paged else dict):
        shape = "an array" if paged else "an object"
        raise CannotJudge(
            f"{operation_id}'s sample answered data as {type(exchange.data).__name__}, not {shape} "
            f"({'SVC-20' if paged else contract.SINGLE_RECORD}'s matter): its records cannot be read"
        )
    return exchange


def wallet_places(samples: Samples, operation_ids: tuple[str, ...]) -> list[tuple[str, Any, Exchange]]:
    """Every place the samples of `operation_ids` show a wallet's publicId (each entry of the list, the data of the
    others), with the data that should hold it."""
    places = []
    for operation_id in operation_ids:
        exchange = _shaped(samples(operation_id), operation_id)
        if contract.is_paginated(operation_id):
            places += [
                (f"{label(operation_id)}[{index}].publicId", entry, exchange)
                for index, entry in enumerate(envelope.data_is_array(exchange))
            ]
        else:
            places.append((f"{label(operation_id)}.publicId", exchange.data, exchange))
    return places


def sample_records(samples: Samples, operation_id: str) -> list[Found]:
    """The records of an operation's sample: each entry of a paged list, else its one record."""
    exchange = _shaped(samples(operation_id), operation_id)
    if contract.is_paginated(operation_id):
        return records.listed_records(exchange, label(operation_id))
    return records.one_record(exchange, label(operation_id))


def records_of(samples: Samples, operation_ids: tuple[str, ...]) -> Iterator[Found]:
    """The records of each operation's sample in turn, each sample made only once those before were checked."""
    for operation_id in operation_ids:
        yield from sample_records(samples, operation_id)


def is_favourite_by_category(samples: Samples, operation_ids: tuple[str, ...]) -> dict[str, int]:
    """How many wallets of each operation's sample show each category and isFavourite, by
    `<operationId>: <category> isFavourite=<value>`, sorted."""
    seen: Counter[str] = Counter()
    for operation_id in operation_ids:
        data = samples(operation_id).data
        for wallet in data if isinstance(data, list) else [data]:
            if isinstance(wallet, dict):
                seen[f"{operation_id}: {wallet.get('category')!s} isFavourite={wallet.get('isFavourite')!s}"] += 1
    return dict(sorted(seen.items()))


def collection_account(samples: Samples) -> tuple[dict[str, Any], Exchange]:
    """The collection account the sample created, and its exchange; the test cannot judge an answer that shows no
    collection account of its own (`request_rules.collection_account_shown`)."""
    exchange = samples("createCollectionAccount")
    return request_rules.collection_account_shown(exchange), exchange


def banks(samples: Samples) -> list[Found]:
    """The banks of the bank list."""
    return records.listed_records(samples("listBanks"), label("listBanks"))


@dataclass
class ResourceRecords:
    """One record of each resource the run could sample, by name, with the schema file of its table; and why the
    others were not sampled."""

    records: dict[str, tuple[dict[str, Any], str]] = field(default_factory=dict)
    not_sampled: dict[str, str] = field(default_factory=dict)

    def internal_fields(self) -> dict[str, dict[str, Any]]:
        """Per resource, the internal fields it carries, each with its type and a short example."""
        return {name: fields.internal_fields(record) for name, (record, _) in self.records.items()}

    def undocumented_fields(self) -> dict[str, list[str]]:
        """Per resource, the fields it carries that its table does not list."""
        return {
            name: fields.undocumented_fields(record, schema_file)
            for name, (record, schema_file) in self.records.items()
        }

    def gaps(self) -> dict[str, Any]:
        """`not_sampled` for an observation, when a resource could not be sampled."""
        return {"not_sampled": self.not_sampled} if self.not_sampled else {}


# How a resource is sampled: the data that holds it, whether that data is a list (the resource is its first entry),
# and the schema file of its table.
Sampling = tuple[Callable[[], Any], bool, str]


def one_of_each_resource(samples: Samples, get: Fixtures) -> ResourceRecords:
    """A record of each resource: the own account, a wallet as created, read and listed, a collection account, a
    bank account, a bank, a closed wallet, and transactions (transfer, bank transfer, verify, inbound credit).

    A resource the run cannot make is left out, and so is one whose data holds no object (a list without entries):
    each with the reason, in `not_sampled`. A source made that did not come to what is needed (NotReached) stops the
    test, and so does having no record at all to observe.
    """
    sampling: dict[str, Sampling] = {
        "account (GET /accounts)": (lambda: get("resources").own_account(), False, "account.json"),
        "wallet (POST /virtual-accounts)": (lambda: samples("createWallet").data, False, WALLET),
        "wallet (GET /virtual-accounts/{walletId})": (lambda: samples("getWallet").data, False, WALLET),
        "wallet (GET /virtual-accounts entry)": (lambda: samples("listWallets").data, True, WALLET),
        "collection account": (lambda: samples("createCollectionAccount").data, False, "collection-account.json"),
        "bank account": (lambda: samples("validateAccount").data, False, "bank-account.json"),
        "bank": (lambda: samples("listBanks").data, True, "bank.json"),
        "closed wallet": (lambda: samples("closeWallet").data, False, "closed-wallet.json"),
        "transaction (transfer)": (lambda: samples("transfer").data, False, TRANSACTION),
        "transaction (bank transfer)": (lambda: samples("bankTransfer").data, False, TRANSACTION),
        "transaction (verify)": (lambda: get(SETTLED_TRANSFER).data, False, TRANSACTION),
        "transaction (inbound credit)": (lambda: get(INBOUND_CREDIT).verified.data, False, TRANSACTION),
    }
    found = ResourceRecords()
    for name, (data_of, listed, schema_file) in sampling.items():
        try:
            data = data_of()
        except NotReached:
            raise
        except UNAVAILABLE as reason:
            found.not_sampled[name] = f"the run could not make it: {str(reason).splitlines()[0]}"
            continue
        record = _first_entry(data) if listed else data
        if isinstance(record, dict):
            found.records[name] = (record, schema_file)
        else:
            found.not_sampled[name] = f"no object in its data: {shown(data, limit=80)}"
    if not found.records:
        raise CannotJudge(f"no resource could be sampled: {shown(found.not_sampled)}")
    return found


def _first_entry(data: Any) -> Any:
    """The first entry of a list's data, or None when the data is no list or an empty one."""
    return data[0] if isinstance(data, list) and data else None
