"""Money: funding, settled transfers, refused overdrafts, concurrency and credit legs (SVC-24..SVC-29), and both
transfers at every order of magnitude up to the top fee tier the target shows.

Every test makes its own wallets and funds them through `resources.fund` (which keeps to --max-amount).
Settlement is waited for with `money.settled_or_skip`; the document does not show how long it takes.
"""

from __future__ import annotations

import pytest

from wallet_conformance.judge import balances, checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.scenarios import amount_range, large_balance
from wallet_conformance.scenarios.amount_range import Magnitudes, MagnitudeWalk
from wallet_conformance.scenarios.credit_race import CreditTarget
from wallet_conformance.scenarios.transfer_race import Alone, TransferRace
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import bodies, money
from wallet_conformance.world.concurrency import RACERS, ROUNDS
from wallet_conformance.world.funding import Funding

pytestmark = pytest.mark.money

# Concurrent transfers: RACERS transfers of the minimum released at once, ROUNDS times, each time from a new wallet
# holding FUNDED_SHARES of it (the money a race spends: FUNDED_SHARES minimum transfers).
FUNDED_SHARES = 3


# ------------------------------------------------------------------ SVC-24 funding


@pytest.mark.requirement("SVC-24")
def test_funding_raises_the_balance_by_the_amount(api, resources, wallet):
    """An inbound payment raises the wallet balance by the paid amount, less any fee or levy its transactions record."""
    amount = contract.minimum_amount("transfer")
    paid = money.inbound_payment(resources, wallet["publicId"], amount)
    checks.holds(
        paid.credited,
        "an accepted inbound payment raises the wallet balance by its amount",
        paid.before + amount,
        paid.after,
        paid.payment,
        detail=paid.note,
    )
    # Whether an inbound payment costs a fee is not shown: a rise short of the amount conforms when the
    # transactions say why.
    if paid.rise != amount:
        money.shortfall_accounted_for(api, wallet, paid)


@pytest.mark.requirement("SVC-24")
def test_payments_at_once_are_all_credited(resources):
    """Inbound payments made at once into one wallet each raise its balance as one alone does: none is lost."""
    target = CreditTarget.paid_once(resources)
    for _ in range(ROUNDS):
        race = target.race(RACERS)
        checks.holds(
            race.final == race.expected,
            "each inbound payment made at once with others raises the balance as one payment alone does",
            race.expected,
            race.final,
            resources.last_read(target.public_id),
            also=(*race.before_read, *race.accepted[-1:]),
            detail=race.summary,
        )


@pytest.mark.requirement("SVC-24")
def test_payment_past_32_bits_is_credited_whole(api, resources):
    """A payment past 2^31 kobo raises the balance by its amount, and its credit shows it and that balance whole."""
    paid = large_balance.pay_past_32_bits(resources)
    public_id = paid.wallet["publicId"]
    if paid.after != paid.before + paid.amount:
        # Whether an inbound payment costs a fee is not shown: a rise short of the amount conforms when the
        # transactions say why; a balance that wrapped below zero, or any other, does not.
        money.shortfall_accounted_for(
            api,
            paid.wallet,
            Funding(public_id, paid.amount, paid.payment, paid.before, paid.after, credited=paid.after > paid.before),
        )
    credit = paid.credit
    if credit is None:
        raise CannotJudge(
            f"no credit into {public_id} was found in GET /transactions ({paid.listing.note}): its "
            "amount and balance were not read back"
        )
    amount, fee, balance = credit.get("amount"), credit.get("fee"), credit.get("balance")
    whole = type(amount) is int and (amount == paid.amount or (type(fee) is int and amount + fee == paid.amount))
    credited = paid.amount - (fee if type(fee) is int else 0)  # what the wallet got, whichever sum amount shows
    checks.holds(
        whole and type(balance) is int and balance >= credited,
        f"the credit of a {paid.amount} kobo payment shows its amount (or that less any fee it records) and a "
        "balance of at least what was credited, as integers of kobo",
        f"amount {paid.amount} (or less by its fee), balance at least {credited}",
        f"amount {amount!r}, fee {fee!r}, balance {balance!r}",
        paid.listing.exchanges[-1],
        also=(paid.payment,),
    )


# ------------------------------------------------------------------ SVC-25 wallet-to-wallet


@pytest.mark.requirement("SVC-25")
def test_settled_transfer_moves_the_money(api, resources):
    """A settled wallet-to-wallet transfer takes actualAmount from the source and gives amount to the destination."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    destination = resources.wallet()["publicId"]
    source_before = resources.balance(source)
    destination_before = resources.balance(destination)
    before = (resources.last_read(source), resources.last_read(destination))
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    data = money.accepted_transfer(exchange, "make a wallet-to-wallet transfer")
    charged = money.charged(data, amount, exchange)
    done = money.settled_or_skip(resources, data["reference"])
    destination_after = money.balance_or_last(resources, destination, moved_from=destination_before, after=done)
    source_after = money.balance_or_last(resources, source, moved_from=source_before, after=done)
    money.skip_unless_completed(done, (destination_after, source_after) != (destination_before, source_before))
    checks.equals(
        destination_after,
        destination_before + amount,
        f"after settlement the destination holds its balance before plus amount ({amount})",
        resources.last_read(destination),
        also=(before[1], exchange),
    )
    checks.equals(
        source_after,
        source_before - charged,
        f"after settlement the source holds its balance before minus actualAmount, amount plus fee ({charged})",
        resources.last_read(source),
        also=(before[0], exchange),
    )


@pytest.mark.requirement("SVC-25")
def test_two_transfers_into_one_wallet_are_both_credited(api, resources):
    """Two transfers sent one after the other into one wallet give it both amounts once both have settled."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(2 * money.funding("transfer"))["publicId"]
    destination = resources.wallet()["publicId"]
    before = resources.balance(destination)
    read_before = resources.last_read(destination)
    exchanges = [api.call("transfer", json_body=bodies.transfer(source, destination, amount)) for _ in range(2)]
    sent = [money.accepted_transfer(exchange, "make a wallet-to-wallet transfer") for exchange in exchanges]
    done = [money.settled_or_skip(resources, data["reference"]) for data in sent]
    after = money.balance_or_last(resources, destination, reaching=before + 2 * amount)
    if after != before + 2 * amount:
        money.skip_unless_all_completed(done)
    checks.equals(
        after,
        before + 2 * amount,
        f"after both settled the destination holds its balance before plus both amounts ({amount} each)",
        resources.last_read(destination),
        also=(read_before, *exchanges),
    )


# ------------------------------------------------------------------ SVC-26 bank transfer


@pytest.mark.requirement("SVC-26")
def test_settled_bank_transfer_debits_amount_plus_fee(api, resources):
    """A settled bank transfer takes actualAmount, amount plus the fee it shows, from the source."""
    amount = contract.minimum_amount("bankTransfer")
    number, code = resources.validated_account()
    source = resources.funded_wallet(money.funding("bankTransfer"))["publicId"]
    before = resources.balance(source)
    read_before = resources.last_read(source)
    exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source, number, code, amount))
    data = money.accepted_transfer(exchange, "make a bank transfer")
    charged = money.charged(data, amount, exchange)
    done = money.settled_or_skip(resources, data["reference"])
    after = money.balance_or_last(resources, source, moved_from=before, after=done)
    money.skip_unless_completed(done, after != before, fee_kept=money.only_the_fee(before - after, charged, amount))
    checks.equals(
        after,
        before - charged,
        f"after settlement the source holds its balance before minus actualAmount, amount plus fee ({charged})",
        resources.last_read(source),
        also=(read_before, exchange),
    )


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
    money.never_completes(
        resources,
        exchange,
        before,
        "a transfer the balance cannot cover",
        why,
        seen=lambda **reading: observe("SVC-27", operation=operation_id, **reading),
    )


# ------------------------------------------------------------------ SVC-28 concurrency


@pytest.mark.requirement("SVC-28")
@pytest.mark.parametrize("operation_id", catalogue()["SVC-28"].operations)
def test_concurrent_transfers_never_overdraw(resources, operation_id):
    """Transfers at once beyond the balance never overdraw it, and each that completed moved what one alone moves."""
    alone = Alone.measured(resources, operation_id)
    races = []
    for _ in range(ROUNDS):
        race = TransferRace.fire(resources, RACERS, FUNDED_SHARES, operation_id)
        balances.none_below_zero(
            race.shown_balances(), "the balance shown after an accepted debit is never below zero", detail=race.summary
        )
        races.append(race)
    # Read once every race was run, so that their settlements are waited for together.
    for race in races:
        end = race.ended(alone)
        # An accepted transfer may complete, or fail later moving nothing (when an overdraft is refused is not shown;
        # the status words after settlement are not shown either): the money must add up either way, each completed
        # transfer moving what one moves alone.
        balances.movements_conserved(
            end.taken, end.given, end.movements, end.reads[0], also=end.reads[1:], detail=race.summary
        )
        balances.funding_less_some_debits(
            end.source,
            race.funded,
            [movement.actual for movement in end.movements],
            race.accepted[-1],
            detail=race.summary,
        )


# ------------------------------------------------------------------ SVC-29 credit leg


@pytest.mark.requirement("SVC-29")
def test_a_settled_transfers_credit_leg_is_observed(api, resources, observe):
    """Where a settled wallet transfer shows the destination's credit leg (meta.credit, a listed credit) is recorded."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    destination = resources.wallet()["publicId"]
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
    data = money.accepted_transfer(exchange, "make a wallet-to-wallet transfer")
    observe("SVC-29", **money.credit_leg_shown(api, resources, data["reference"], destination, amount))


# ------------------------------------------------------------------ every order of magnitude, up to the top fee tier


@pytest.fixture(scope="module")
def bank_magnitudes(api, resources) -> Magnitudes:
    """Bank transfers from the minimum up, a decade past the last change of the fee; each followed to its end."""
    return MagnitudeWalk(api, resources, "bankTransfer").walk()


@pytest.fixture(scope="module")
def wallet_magnitudes(api, resources, bank_magnitudes) -> Magnitudes:
    """Wallet transfers from the minimum up, as far as the bank transfers went at least; each followed to its end."""
    return MagnitudeWalk(api, resources, "transfer", reach=bank_magnitudes.top).walk()


@pytest.mark.xdist_group("magnitudes")
@pytest.mark.requirement("END-34")
def test_bank_transfer_fee_at_every_magnitude(bank_magnitudes, observe):
    """A bank transfer of every order of magnitude, up to the top fee tier, has an integer fee of 0 or more."""
    observe("END-34", **bank_magnitudes.observation())
    amount_range.fee_of_every_point(bank_magnitudes)


@pytest.mark.xdist_group("magnitudes")
@pytest.mark.requirement("RES-65", "RES-87")
def test_actual_amount_at_every_magnitude(bank_magnitudes, wallet_magnitudes):
    """At every order of magnitude, up to the top fee tier, both transfers answer actualAmount as amount plus fee."""
    for walk in (bank_magnitudes, wallet_magnitudes):
        amount_range.actual_of_every_point(walk)


@pytest.mark.xdist_group("magnitudes")
@pytest.mark.requirement("SVC-21")
def test_amounts_with_kobo_come_back_whole(bank_magnitudes, wallet_magnitudes):
    """Both transfers of an amount with kobo, at every order of magnitude, show every amount as an integer of kobo."""
    for walk in (bank_magnitudes, wallet_magnitudes):
        amount_range.kobo_points_whole(walk)


@pytest.mark.xdist_group("magnitudes")
@pytest.mark.requirement("SVC-26")
def test_bank_transfers_debit_actual_amount_at_every_magnitude(bank_magnitudes):
    """A settled bank transfer of every order of magnitude debits its source by actualAmount."""
    amount_range.settled_sums_of_every_point(bank_magnitudes)


@pytest.mark.xdist_group("magnitudes")
@pytest.mark.requirement("SVC-25")
def test_wallet_transfers_move_the_money_at_every_magnitude(wallet_magnitudes, observe):
    """A settled wallet transfer of every order of magnitude moves actualAmount out and amount in."""
    observe("SVC-25", **wallet_magnitudes.observation())
    amount_range.settled_sums_of_every_point(wallet_magnitudes)
