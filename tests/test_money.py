"""Money: funding, settled transfers, refused overdrafts, concurrency and credit legs (SVC-24..SVC-29).

Every test makes its own wallets and funds them through `resources.fund` (which keeps to --max-amount).
Settlement is waited for with `resources.wait_settled`; the document does not show how long it takes.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient, Exchange, TargetError
from wallet_conformance.judge import checks
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.polling import poll

pytestmark = pytest.mark.money

# Concurrent transfers: that many transfers of the minimum, fired at once from a wallet holding FUNDED_SHARES of it.
THREADS = 6
FUNDED_SHARES = 3


# ------------------------------------------------------------------ SVC-24 funding


@pytest.mark.requirement("SVC-24")
def test_funding_raises_the_balance_by_the_amount(api, resources, wallet):
    """An inbound payment raises the wallet balance by the paid amount, less any fee or levy its transactions record."""
    resources.skip_without_inbound_payments()
    amount = contract.minimum_amount("transfer")
    public_id = wallet["publicId"]
    before = resources.balance(public_id)
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
        # The payment was taken (2xx) but the balance never rose.
        checks.fail("an accepted inbound payment raises the wallet balance by its amount", before + amount,
                    resources.balance(public_id), payments[-1], detail=str(unfunded).splitlines()[0])
    after = resources.balance(public_id)
    if after == before + amount:
        return
    # Whether an inbound payment costs a fee is not shown: a rise short of the amount conforms when the transactions
    # say why, by a fee on the credit (a collection fee) or by debits out of the wallet, which sent nothing (a levy).
    rise = after - before

    def explained(entries: list[Any]) -> bool:
        listed = [entry for entry in entries if isinstance(entry, dict)]
        fees = [entry.get("fee") for entry in listed if money.pays_into(entry, wallet)]
        charged = [entry.get("actualAmount", entry.get("amount")) for entry in listed if pays_from(entry, wallet)]
        charges = sum(charge for charge in charged if type(charge) is int)
        return any(0 < fee + charges < amount and rise == amount - fee - charges
                   for fee in [fee for fee in fees if type(fee) is int and fee >= 0] or [0])

    read = lists.read(api, "listTransactions", until=explained)
    if not explained(read.entries) and not read.complete:
        pytest.skip(f"the balance rose by {rise} for a payment of {amount}, and the transactions that would say why "
                    f"were not among those read ({read.note}): not judged")
    if not explained(read.entries):
        checks.fail(f"a payment of {amount} kobo raises the balance by {amount}, or by {amount} less the fee or the "
                    f"charges the transactions record", before + amount, after, api.exchanges[-1],
                    detail=f"the balance rose by {rise}; no fee on the credit nor debit out of the wallet explains "
                           f"it ({read.note})")


def pays_from(entry: dict[str, Any], wallet: dict[str, Any]) -> bool:
    """Whether a listed transaction pays out of `wallet` (by publicId)."""
    source = entry.get("sourceData") if isinstance(entry.get("sourceData"), dict) else {}
    return wallet.get("publicId") in (entry.get("source"), source.get("publicId"))


# ------------------------------------------------------------------ SVC-25 wallet-to-wallet


@pytest.mark.requirement("SVC-25")
def test_settled_transfer_moves_the_money(api, resources):
    """A settled wallet-to-wallet transfer takes actualAmount from the source and gives amount to the destination."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    destination = resources.wallet()["publicId"]
    source_before = resources.balance(source)
    destination_before = resources.balance(destination)
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    data = money.accepted_transfer(exchange, "make a wallet-to-wallet transfer")
    actual = money.amount_of(data, "actualAmount", exchange)
    done = money.settled(resources, data["reference"])
    destination_after = money.balance_after_settlement(resources, destination, destination_before, done)
    source_after = money.balance_after_settlement(resources, source, source_before, done)
    money.did_not_complete(done, (destination_after, source_after) != (destination_before, source_before))
    checks.equals(destination_after, destination_before + amount,
                  f"after settlement the destination holds its balance before plus amount ({amount})", exchange)
    checks.equals(source_after, source_before - actual,
                  f"after settlement the source holds its balance before minus actualAmount ({actual})", exchange)


# ------------------------------------------------------------------ SVC-26 bank transfer


@pytest.mark.requirement("SVC-26")
def test_settled_bank_transfer_debits_amount_plus_fee(api, resources):
    """A settled bank transfer takes actualAmount, which is amount plus a fee of 0 or more, from the source."""
    amount = contract.minimum_amount("bankTransfer")
    number, code = resources.validated_account()
    source = resources.funded_wallet(money.funding("bankTransfer"))["publicId"]
    before = resources.balance(source)
    exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source, number, code, amount))
    data = money.accepted_transfer(exchange, "make a bank transfer")
    fee = money.fee(data, exchange)
    checks.equals(data.get("actualAmount"), amount + fee, f"actualAmount is amount ({amount}) plus fee ({fee})",
                  exchange)
    done = money.settled(resources, data["reference"])
    after = money.balance_after_settlement(resources, source, before, done)
    money.did_not_complete(done, after != before)
    checks.equals(after, before - (amount + fee),
                  f"after settlement the source holds its balance before minus actualAmount ({amount + fee})", exchange)


# ------------------------------------------------------------------ SVC-27 overdraft


@pytest.mark.requirement("SVC-27")
@pytest.mark.parametrize("operation_id", catalogue()["SVC-27"].operations)
def test_transfer_above_the_balance_is_refused(api, resources, observe, operation_id):
    """A transfer of more than the source holds moves no money, whether refused at once or failed later."""
    minimum = contract.minimum_amount(operation_id)
    source = resources.funded_wallet(minimum * 2)["publicId"]
    balance = resources.balance(source)
    amount = balance + minimum
    before = {source: balance}
    if operation_id == "transfer":
        destination = resources.wallet()["publicId"]
        before[destination] = resources.balance(destination)
        body = bodies.transfer(source, destination, amount)
    else:
        number, code = resources.external_account()
        body = bodies.bank_transfer(source, number, code, amount)
    exchange = api.call(operation_id, json_body=body)
    why = f"{operation_id} of {amount} kobo from a wallet holding {balance}"
    # Whether an overdraft is refused at once or accepted and failed later is not shown: what must hold is that
    # it never completes and no balance moves (or every one moved returns within --settle-timeout).
    money.never_completes(resources, exchange, before, "a transfer the balance cannot cover", why,
                          seen=lambda **reading: observe("SVC-27", operation=operation_id, **reading))


# ------------------------------------------------------------------ SVC-28 concurrency


@pytest.mark.requirement("SVC-28")
def test_concurrent_transfers_never_overdraw(api: ApiClient, resources, run_id):
    """Transfers fired at once that together exceed the balance never take it below zero."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(amount * FUNDED_SHARES)["publicId"]
    destination = resources.wallet()["publicId"]
    funded = resources.balance(source)
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
    if not accepted:
        # Nothing moved, so nothing could overdraw: that proves nothing about concurrent debits.
        pytest.skip(f"none of the {THREADS} concurrent transfers of {amount} kobo was accepted (statuses "
                    f"{sorted({exchange.status for exchange in results})}): no concurrent debit to check")
    for exchange in accepted:
        data = money.accepted_transfer(exchange, "read an accepted concurrent transfer")
        balance = data.get("balance")
        if type(balance) is int and balance < 0:
            checks.fail("the balance shown after an accepted debit is never below zero", ">= 0", balance, exchange,
                        detail=f"{len(accepted)} of {THREADS} concurrent transfers of {amount} kobo were "
                               f"accepted from a wallet holding {funded}")
    actuals = [money.amount_of(exchange.data, "actualAmount", exchange) for exchange in accepted]
    for exchange in accepted:
        # Some may be overdrafts accepted to fail later, which need never leave pending.
        if money.wait_settled(resources, exchange.data["reference"], must_settle=False) is None:
            pytest.skip(f"transaction {exchange.data['reference']} was still pending after --settle-timeout "
                        f"({resources.settings.settle_timeout:g} s): the final balance cannot be read yet")
    # An accepted transfer may complete, or fail later moving nothing (when an overdraft is refused is not shown;
    # the status words after settlement are not shown either): the final balance is the funding minus the
    # actualAmount of some of the accepted transfers, and never below zero.
    reachable = {funded - sum(chosen) for count in range(len(actuals) + 1)
                 for chosen in itertools.combinations(actuals, count)}
    possible = {balance for balance in reachable if balance >= 0}
    reached = poll(lambda: [balance] if (balance := resources.balance(source)) in possible else None,
                   resources.settings.settle_timeout)
    final = reached[0] if reached else resources.balance(source)
    shown = accepted[-1]
    detail = (f"{len(accepted)} of {THREADS} concurrent transfers of {amount} kobo were accepted from a wallet "
              f"holding {funded}, for {sum(actuals)} kobo of actualAmount in all")
    if final < 0:
        checks.fail("the source balance never goes below zero", ">= 0", final, shown, detail=detail)
    if final == funded and funded in possible:
        pytest.skip(f"none of the {len(accepted)} accepted concurrent transfers completed (the balance stayed "
                    f"{funded}): no concurrent debit to check")
    if final not in possible:
        checks.fail("after settlement the source holds its funding minus the actualAmount of the accepted transfers "
                    "that completed, never below zero", f"one of {sorted(possible)}", final, shown, detail=detail)


# ------------------------------------------------------------------ SVC-29 credit leg


def _listed_credit(api: ApiClient, destination: str, amount: int) -> tuple[dict[str, Any] | None, lists.Listing]:
    """A credit transaction to `destination` of `amount` in GET /transactions, and what was read of the list."""

    def credit(entry: Any) -> bool:
        return (isinstance(entry, dict) and entry.get("entry") == "credit" and entry.get("destination") == destination
                and entry.get("amount") == amount)

    # List order and paging parameters are not shown: the list is read page after page until the credit shows.
    listing = lists.read(api, "listTransactions", until=lambda entries: any(map(credit, entries)))
    return next((entry for entry in listing.entries if credit(entry)), None), listing


@pytest.mark.requirement("SVC-29")
def test_settled_transfer_leaves_a_credit_leg(api, resources):
    """After settlement a wallet-to-wallet transfer shows the destination's credit leg."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    destination = resources.wallet()["publicId"]
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    data = money.accepted_transfer(exchange, "make a wallet-to-wallet transfer")
    settled = money.settled(resources, data["reference"])
    meta = settled.get("meta") if isinstance(settled.get("meta"), dict) else {}
    credit = meta.get("credit")
    if isinstance(credit, dict) and credit.get("destination") == destination and credit.get("amount") == amount:
        return
    listed, searched = _listed_credit(api, destination, amount)
    if listed is None:
        money.did_not_complete(settled, resources.balance(destination) != 0)
    if listed is None and not searched.complete:
        pytest.skip(f"meta.credit {credit!r} shows no credit leg, and no credit to {destination} is in what could be "
                    f"read of GET /transactions ({searched.note})")
    if listed is None:
        checks.fail("a settled transfer leaves a credit leg for the destination",
                    f"meta.credit on the verified debit, or a credit to {destination} of {amount} in GET /transactions",
                    f"meta.credit {credit!r}; no such credit in {searched.note}",
                    resources.verify(data["reference"]))
