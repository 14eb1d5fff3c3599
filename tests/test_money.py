"""Money: funding, settled transfers, refused overdrafts, concurrency and credit legs (SVC-24..SVC-29).

Every test makes its own wallets and funds them through `resources.fund` (which keeps to --max-amount).
Settlement is waited for with `resources.wait_settled`; the document does not show how long it takes.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from wallet_conformance import bodies, checks, contract
from wallet_conformance.client import ApiClient, Exchange, TargetError
from wallet_conformance.resources import Resources, poll

pytestmark = pytest.mark.money

# How long balances must stay put after a refused transfer: a few polls of resources.poll, not a sleep.
QUIET_WINDOW = 0.4
# Concurrent transfers: that many transfers of the minimum, fired at once from a wallet holding FUNDED_SHARES of it.
THREADS = 6
FUNDED_SHARES = 3
# The most transaction-list pages read when looking for a credit leg.
MAX_PAGES = 10
# The one completed transaction status the document shows (States: `pending` and `success` are observed).
COMPLETED = contract.success_state()


# ------------------------------------------------------------------ helpers


def _int_balance(resources: Resources, public_id: str) -> int:
    balance = resources.balance(public_id)
    if type(balance) is not int:
        raise TargetError(f"wallet {public_id} reads with balance {balance!r}, not an integer: cannot compare money")
    return balance


def _money(data: Any, name: str, exchange: Exchange) -> int:
    value = data.get(name) if isinstance(data, dict) else None
    if type(value) is not int:
        raise TargetError(f"the {exchange.operation_id} response has {name} {value!r}, not an integer of kobo "
                          f"(see SVC-21): cannot follow the money\n{exchange.describe()}")
    return value


def _accepted_transfer(exchange: Exchange, what: str) -> dict[str, Any]:
    if not exchange.ok or not isinstance(exchange.data, dict) or not isinstance(exchange.data.get("reference"), str):
        raise TargetError(f"could not {what}: the target answered {exchange.status} without a transaction "
                          f"reference\n{exchange.describe()}")
    return exchange.data


def _settled(resources: Resources, reference: str) -> dict[str, Any]:
    settled = resources.wait_settled(reference)
    if settled is None:
        pytest.skip(f"transaction {reference} was still pending after --settle-timeout "
                    f"({resources.settings.settle_timeout:g} s); the document does not show when a transfer leaves "
                    f"pending, so its money cannot be checked here")
    if settled.get("status") != COMPLETED:
        pytest.skip(f"transaction {reference} left pending with status {settled.get('status')!r}, not the observed "
                    f"{COMPLETED!r}; the document shows no other status, so its money is not checked here")
    return settled


def _balance_after_change(resources: Resources, public_id: str, before: int) -> int:
    """The wallet's balance once it differs from `before` (or `before` if it stays so past --settle-timeout)."""
    changed = poll(lambda: [balance] if (balance := _int_balance(resources, public_id)) != before else None,
                   resources.settings.settle_timeout)
    return changed[0] if changed else before


def _balances_moved(resources: Resources, before: dict[str, int]) -> dict[str, Any]:
    """The wallets whose balance left its `before` value during a short window ({} when none did)."""

    def moved() -> dict[str, Any]:
        now = {public_id: resources.balance(public_id) for public_id in before}
        return {public_id: value for public_id, value in now.items() if value != before[public_id]}

    return poll(moved, QUIET_WINDOW) or {}


# ------------------------------------------------------------------ SVC-24 funding


@pytest.mark.requirement("SVC-24")
def test_funding_raises_the_balance_by_the_amount(api, resources, wallet):
    """An inbound payment into a wallet raises its balance by exactly the paid amount."""
    amount = contract.minimum_amount("transfer")
    public_id = wallet["publicId"]
    before = _int_balance(resources, public_id)
    start = len(api.exchanges)
    try:
        resources.fund(public_id, amount)
    except TargetError as error:
        unfunded = error
    else:
        unfunded = None
    if unfunded is not None:
        payments = [exchange for exchange in api.exchanges[start:] if exchange.method == "POST"]
        if not payments or not payments[-1].ok:
            raise unfunded  # the payment itself was not taken: the run cannot fund wallets
        # The payment was taken (2xx) but the balance never rose by its amount.
        checks.fail("SVC-24", "an accepted inbound payment raises the wallet balance by its amount",
                    before + amount, resources.balance(public_id), payments[-1], detail=str(unfunded).splitlines()[0])
    checks.equals(_int_balance(resources, public_id), before + amount, "SVC-24",
                  f"the balance after a payment of {amount} kobo is the balance before plus {amount}")


# ------------------------------------------------------------------ SVC-25 wallet-to-wallet


@pytest.mark.requirement("SVC-25")
def test_settled_transfer_moves_the_money(api, resources):
    """A settled wallet-to-wallet transfer takes actualAmount from the source and gives amount to the destination."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(amount * 3)["publicId"]
    destination = resources.wallet()["publicId"]
    source_before = _int_balance(resources, source)
    destination_before = _int_balance(resources, destination)
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    data = _accepted_transfer(exchange, "make a wallet-to-wallet transfer")
    actual = _money(data, "actualAmount", exchange)
    _settled(resources, data["reference"])
    checks.equals(_balance_after_change(resources, destination, destination_before), destination_before + amount,
                  "SVC-25", f"after settlement the destination holds its balance before plus amount ({amount})",
                  exchange)
    checks.equals(_balance_after_change(resources, source, source_before), source_before - actual, "SVC-25",
                  f"after settlement the source holds its balance before minus actualAmount ({actual})", exchange)


# ------------------------------------------------------------------ SVC-26 bank transfer


@pytest.mark.requirement("SVC-26")
def test_settled_bank_transfer_debits_amount_plus_fee(api, resources):
    """A settled bank transfer takes actualAmount, which is amount plus a fee of 0 or more, from the source."""
    amount = contract.minimum_amount("bankTransfer")
    number, code = resources.external_account()
    resources.require(api.call("validateAccount", json_body={"accountNumber": number, "bankCode": code}),
                      "validate the external account")
    source = resources.funded_wallet(amount * 3)["publicId"]
    before = _int_balance(resources, source)
    exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source, number, code, amount))
    data = _accepted_transfer(exchange, "make a bank transfer")
    fee = data.get("fee")
    if type(fee) is not int or fee < 0:
        checks.fail("SVC-26", "a bank transfer's fee is an integer of 0 or more", "an integer >= 0", fee, exchange)
    checks.equals(data.get("actualAmount"), amount + fee, "SVC-26",
                  f"actualAmount is amount ({amount}) plus fee ({fee})", exchange)
    _settled(resources, data["reference"])
    checks.equals(_balance_after_change(resources, source, before), before - (amount + fee), "SVC-26",
                  f"after settlement the source holds its balance before minus actualAmount ({amount + fee})",
                  exchange)


# ------------------------------------------------------------------ SVC-27 overdraft


@pytest.mark.requirement("SVC-27")
@pytest.mark.parametrize("operation_id", ["transfer", "bankTransfer"])
def test_transfer_above_the_balance_is_refused(api, resources, operation_id):
    """A transfer of more than the source holds is refused and changes no balance."""
    minimum = contract.minimum_amount(operation_id)
    source = resources.funded_wallet(minimum * 2)["publicId"]
    balance = _int_balance(resources, source)
    amount = balance + minimum
    before = {source: balance}
    if operation_id == "transfer":
        destination = resources.wallet()["publicId"]
        before[destination] = _int_balance(resources, destination)
        body = bodies.transfer(source, destination, amount)
    else:
        number, code = resources.external_account()
        body = bodies.bank_transfer(source, number, code, amount)
    exchange = api.call(operation_id, json_body=body)
    checks.refused(exchange, "SVC-27", f"{operation_id} of {amount} kobo from a wallet holding {balance}")
    moved = _balances_moved(resources, before)
    if moved:
        checks.fail("SVC-27", "a refused transfer changes no balance", before, moved, exchange)


# ------------------------------------------------------------------ SVC-28 concurrency


@pytest.mark.requirement("SVC-28")
def test_concurrent_transfers_never_overdraw(api: ApiClient, resources, run_id):
    """Transfers fired at once that together exceed the balance never take it below zero."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(amount * FUNDED_SHARES)["publicId"]
    destination = resources.wallet()["publicId"]
    funded = _int_balance(resources, source)
    start = threading.Barrier(THREADS)
    wait = resources.settings.request_timeout + 5

    def send(number: int) -> Exchange:
        start.wait(timeout=wait)
        body = bodies.transfer(source, destination, amount, narration=f"{run_id} concurrent {number}")
        return api.call("transfer", json_body=body)

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        futures = [pool.submit(send, number) for number in range(THREADS)]
        results = [future.result(timeout=wait * 2) for future in futures]
    accepted = [exchange for exchange in results if exchange.ok]
    for exchange in accepted:
        data = _accepted_transfer(exchange, "read an accepted concurrent transfer")
        balance = data.get("balance")
        if type(balance) is int and balance < 0:
            checks.fail("SVC-28", "the balance shown after an accepted debit is never below zero", ">= 0", balance,
                        exchange, detail=f"{len(accepted)} of {THREADS} concurrent transfers of {amount} kobo were "
                                         f"accepted from a wallet holding {funded}")
    spent = sum(_money(exchange.data, "actualAmount", exchange) for exchange in accepted)
    for exchange in accepted:
        _settled(resources, exchange.data["reference"])
    expected = funded - spent
    reached = poll(lambda: [balance] if (balance := _int_balance(resources, source)) == expected else None,
                   resources.settings.settle_timeout)
    final = reached[0] if reached else _int_balance(resources, source)
    shown = accepted[-1] if accepted else None
    detail = (f"{len(accepted)} of {THREADS} concurrent transfers of {amount} kobo were accepted from a wallet "
              f"holding {funded}, for {spent} kobo of actualAmount")
    if final < 0:
        checks.fail("SVC-28", "the source balance never goes below zero", ">= 0", final, shown, detail=detail)
    if spent > funded:
        checks.fail("SVC-28", "the accepted concurrent transfers together take no more than the balance held",
                    f"at most {funded}", spent, shown, detail=detail)
    checks.equals(final, expected, "SVC-28", f"after settlement the source holds {funded} minus the actualAmount of "
                                             f"the accepted transfers ({detail})")


# ------------------------------------------------------------------ SVC-29 credit leg


def _listed_credit(api: ApiClient, destination: str, amount: int) -> tuple[dict[str, Any] | None, str]:
    """A credit transaction to `destination` of `amount` in GET /transactions, and how much of the list was read."""
    page, note = 1, "page 1"
    exchange = api.call("listTransactions")
    while True:
        if not exchange.ok or not isinstance(exchange.data, list):
            return None, f"{note} (GET /transactions answered {exchange.status})"
        for entry in exchange.data:
            if (isinstance(entry, dict) and entry.get("entry") == "credit" and entry.get("destination") == destination
                    and entry.get("amount") == amount):
                return entry, note
        pagination = exchange.meta.get("pagination") if isinstance(exchange.meta.get("pagination"), dict) else {}
        total, per_page = pagination.get("totalCount"), pagination.get("perPage")
        if type(total) is not int or type(per_page) is not int or page * per_page >= total or page >= MAX_PAGES:
            return None, note
        page += 1
        exchange = api.call("listTransactions", params={"page": page})
        if (exchange.meta.get("pagination") or {}).get("current") != page:
            return None, f"{note} (the query parameter `page={page}` did not select page {page})"
        note = f"pages 1 to {page}"


@pytest.mark.requirement("SVC-29")
def test_settled_transfer_leaves_a_credit_leg(api, resources):
    """After settlement a wallet-to-wallet transfer shows the destination's credit leg."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(amount * 3)["publicId"]
    destination = resources.wallet()["publicId"]
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    data = _accepted_transfer(exchange, "make a wallet-to-wallet transfer")
    settled = _settled(resources, data["reference"])
    meta = settled.get("meta") if isinstance(settled.get("meta"), dict) else {}
    credit = meta.get("credit")
    if isinstance(credit, dict) and credit.get("destination") == destination and credit.get("amount") == amount:
        return
    listed, searched = _listed_credit(api, destination, amount)
    if listed is None:
        checks.fail("SVC-29", "a settled transfer leaves a credit leg for the destination",
                    f"meta.credit on the verified debit, or a credit to {destination} of {amount} in GET /transactions",
                    f"meta.credit {credit!r}; no such credit in {searched} of GET /transactions",
                    resources.verify(data["reference"]))
