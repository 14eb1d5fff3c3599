"""What the list operations do with query parameters the document does not show: filters on the wallet and
transaction lists (END-15), and the common paging parameters (END-39). Recorded, never judged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.world import lists
from wallet_conformance.world.resources import Resources
from wallet_conformance.world.samples import Samples
from wallet_conformance.world.setup_steps import UNAVAILABLE

WALLET_FILTERS = ("category", "accountNumber", "publicId", "accountName")
TRANSACTION_FILTERS = ("status", "entry", "reference", "source", "sourceType", "destination")
PAGING_CANDIDATES = (
    {"page": 2},
    {"perPage": 1},
    {"per_page": 1},
    {"limit": 1},
    {"pageSize": 1},
    {"size": 1},
    {"offset": 1},
    {"skip": 1},
)


@dataclass(frozen=True)
class FilterTrial:
    """Filters to try on one list: each a field name and the value a record the list holds has there."""

    operation_id: str
    filters: list[tuple[str, Any]]


def filter_trials(samples: Samples) -> list[FilterTrial]:
    """Filters on the wallet list by the sample wallet's fields, and on the transaction list by those of its first
    listed transaction (none when the run cannot list one)."""
    wallet = samples.wallet()
    try:
        listed = samples("listTransactions").data
    except UNAVAILABLE:
        listed = None
    first = listed[0] if isinstance(listed, list) and listed and isinstance(listed[0], dict) else {}
    return [
        FilterTrial("listWallets", [(name, wallet.get(name)) for name in WALLET_FILTERS]),
        FilterTrial("listTransactions", [(name, first.get(name)) for name in TRANSACTION_FILTERS]),
    ]


def _listed(exchange: Exchange) -> list[Any]:
    return exchange.data if isinstance(exchange.data, list) else []


def _filter_tried(api: ApiClient, operation_id: str, name: str, value: Any, unfiltered: int) -> dict[str, Any]:
    """What the list answers filtered by `name` = `value`: honoured when every entry matches and fewer are listed
    than `unfiltered`."""
    exchange = api.call(operation_id, params={name: value})
    entries = _listed(exchange)
    matching = all(isinstance(entry, dict) and entry.get(name) == value for entry in entries)
    return {
        "status": exchange.status,
        "totalCount": lists.pagination(exchange).get("totalCount"),
        "entries": len(entries),
        "all_entries_match": matching,
        "honoured": bool(exchange.ok and matching and len(entries) < unfiltered),
    }


def filters_tried(api: ApiClient, trials: list[FilterTrial]) -> dict[str, dict[str, Any]]:
    """Per list, its unfiltered totalCount and what each filter with a value answered, by filter name."""
    seen: dict[str, dict[str, Any]] = {}
    for trial in trials:
        base = api.call(trial.operation_id)
        seen[trial.operation_id] = {"unfiltered_totalCount": lists.pagination(base).get("totalCount")}
        for name, value in trial.filters:
            if value is not None:
                seen[trial.operation_id][name] = _filter_tried(api, trial.operation_id, name, value, len(_listed(base)))
    return seen


def _first_public_id(entries: list[Any]) -> Any:
    return entries[0].get("publicId") if entries and isinstance(entries[0], dict) else None


def paging_parameters_tried(api: ApiClient, resources: Resources, operation_id: str) -> dict[str, Any]:
    """The list asked without parameters, then with each common paging parameter: status, meta.pagination, entries,
    and whether the parameter changed the page (pagination, entry count or first entry) on a success. The wallet
    list gets two wallets more first, so that it holds more than one entry."""
    if operation_id == "listWallets":
        resources.wallet()
        resources.wallet()
    base = api.call(operation_id)
    base_data = _listed(base)
    seen: dict[str, Any] = {
        "unpaged": {"status": base.status, "pagination": base.meta.get("pagination"), "entries": len(base_data)}
    }
    for params in PAGING_CANDIDATES:
        exchange = api.call(operation_id, params=params)
        data = _listed(exchange)
        seen["&".join(f"{name}={value}" for name, value in params.items())] = {
            "status": exchange.status,
            "pagination": exchange.meta.get("pagination"),
            "entries": len(data),
            "changed_the_page": exchange.ok
            and (
                exchange.meta.get("pagination") != base.meta.get("pagination")
                or len(data) != len(base_data)
                or _first_public_id(data) != _first_public_id(base_data)
            ),
        }
    return seen
