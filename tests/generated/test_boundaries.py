"""Boundary properties: around every documented limit, accepted on one side and refused with a 4xx on the other.

Each property draws its values with Hypothesis (strategies in wallet_conformance/strategies.py); the
minimal failing example is printed with the exchange that broke the rule and its curl line.
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
from typing import Any

import pytest
from hypothesis import assume, example, given, note
from hypothesis import strategies as st

from wallet_conformance.client.api import ApiClient, Exchange
from wallet_conformance.generation import strategies
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import ConformanceFailure
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists, money
from wallet_conformance.world.resources import Resources

MINIMUM = contract.minimum_amount("transfer")
BANK_MINIMUM = contract.minimum_amount("bankTransfer")
RANGE_FUNDS = 600_000  # kobo bounced between two wallets by the range property (funded once)
RANGE_TOP = 550_000
_counter = itertools.count()
_nonce = secrets.token_hex(4)


class Purse:
    """Sources of one test's transfers: a new wallet funded with what each step needs, its fee included (so a
    transfer still pending, or debited only at settlement, never leaves the next step short)."""

    def __init__(self, resources: Resources, operation_id: str) -> None:
        self.resources = resources
        self.operation_id = operation_id

    def holding(self, amount: int) -> str:
        return self.resources.funded_wallet(money.funding(self.operation_id, amount))["publicId"]


def unique_reference(length: int) -> str:
    """A reference of exactly `length` characters that no earlier run or example used (when long enough)."""
    digest = hashlib.sha256(f"{_nonce}:{next(_counter)}".encode()).hexdigest()
    return digest[:length]


def settled(resources: Resources, exchange: Exchange, *, must_settle: bool = True) -> dict[str, Any] | None:
    """The transfer once the target settled it (any status but pending), or None if it stayed pending.
    `must_settle=False` for one that need never leave pending (an overdraft accepted)."""
    reference = exchange.data.get("reference") if isinstance(exchange.data, dict) else None
    return money.wait_settled(resources, reference, must_settle=must_settle) if isinstance(reference, str) else None


def wallet_transfer_fee(api: ApiClient, resources: Resources) -> int:
    """The fee the target charges on a minimum wallet-to-wallet transfer (0 in the reference)."""
    source = resources.funded_wallet(money.funding("transfer"))
    exchange = api.call("transfer", json_body=bodies.transfer(source["publicId"], resources.wallet()["publicId"]))
    fee = exchange.data.get("fee") if exchange.ok and isinstance(exchange.data, dict) else None
    return fee if isinstance(fee, int) else 0


@pytest.mark.requirement("LIM-10", "LIM-11")
def test_transfer_amount_around_the_minimum(api, resources, generation, request):
    """A wallet-to-wallet transfer below the minimum is refused with a 4xx; one at or above it is accepted."""
    purse, destination = Purse(resources, "transfer"), resources.wallet()["publicId"]

    @given(amount=strategies.amounts(MINIMUM))
    @example(amount=MINIMUM - 1)
    @example(amount=MINIMUM)
    def property_(amount):
        body = bodies.transfer(purse.holding(amount), destination, amount)
        exchange = api.call("transfer", json_body=body)
        if amount < MINIMUM:
            checks.refused(exchange, requirement="LIM-10", why=f"a transfer of {amount} kobo, below {MINIMUM}")
        else:
            checks.accepted(exchange, requirement="LIM-11", why=f"a transfer of {amount} kobo, at least {MINIMUM}")

    generation.run(request, property_, generation.profile.boundaries)


@pytest.mark.requirement("LIM-12", "LIM-13")
def test_bank_transfer_amount_around_the_minimum(api, resources, generation, request):
    """A bank transfer below the minimum is refused with a 4xx; one at or above it is accepted."""
    purse = Purse(resources, "bankTransfer")
    number, code = resources.external_account()

    @given(amount=strategies.amounts(BANK_MINIMUM))
    @example(amount=BANK_MINIMUM - 1)
    @example(amount=BANK_MINIMUM)
    def property_(amount):
        body = bodies.bank_transfer(purse.holding(amount), number, code, amount)
        exchange = api.call("bankTransfer", json_body=body)
        if amount < BANK_MINIMUM:
            checks.refused(exchange, requirement="LIM-12", why=f"a bank transfer of {amount} kobo")
        else:
            checks.accepted(exchange, requirement="LIM-13", why=f"a bank transfer of {amount} kobo")

    generation.run(request, property_, generation.profile.boundaries)


@pytest.mark.requirement("SVC-27", "SVC-25", "END-40")
def test_transfer_at_the_edge_of_the_balance(api, resources, generation, request, observe):
    """The whole balance moves; one kobo more never takes it below zero, refused at once or failed later."""
    destination = resources.wallet()["publicId"]
    fee = wallet_transfer_fee(api, resources)

    @given(balance=st.integers(MINIMUM + 1, MINIMUM * 3), offset=st.sampled_from([-1, 0, 1]))
    @example(balance=MINIMUM * 2, offset=1)
    @example(balance=MINIMUM * 2, offset=0)
    def property_(balance, offset):
        source = resources.funded_wallet(balance)["publicId"]
        balance = resources.balance(source)  # less than paid if the target charges inbound payments
        amount = balance + offset
        assume(amount >= MINIMUM)  # an inbound fee took the payment's margin over the minimum transfer
        credited_before = resources.balance(destination)
        exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
        note(f"balance {balance}, transfer of {amount}: HTTP {exchange.status}")
        if exchange.ok:
            final = settled(resources, exchange, must_settle=amount + fee <= balance)
            note(f"settled as {final and final.get('status')!r}")
        after, credited = resources.balance(source), resources.balance(destination) - credited_before
        if amount + fee > balance:
            checks.equals(after, balance, requirement="SVC-27", exchange=exchange,
                          title=f"a transfer of {amount} kobo from a balance of {balance} changes no balance")
            checks.equals(credited, 0, requirement="SVC-27", exchange=exchange,
                          title="an overdraft credits nothing to the destination")
        elif not exchange.ok:
            if fee == 0:
                checks.accepted(exchange, requirement="END-40", why=f"a transfer of {amount} from a balance of "
                                f"{balance} (the target charged no fee on a wallet transfer)")
            observe("END-40", note=f"a transfer of {amount} from {balance} refused; wallet transfer fee {fee}")
        else:
            if final is None:
                pytest.skip(f"the transfer stayed pending past --settle-timeout ({resources.settings.settle_timeout:g}"
                            " s): when it leaves pending is not shown, so its money cannot be checked here")
            # When balances show a settled transfer is not shown either: one that has not moved yet is read again.
            if after == balance:
                after = money.balance_after_settlement(resources, source, balance, final)
            if credited == 0:
                credited = money.balance_after_settlement(resources, destination, credited_before, final) - \
                    credited_before
            money.did_not_complete(final, (after, credited) != (balance, 0))
            actual = exchange.data.get("actualAmount")
            checks.equals(after, balance - actual, requirement="SVC-25", exchange=exchange,
                          title="a settled transfer debits the source by actualAmount")
            checks.equals(credited, amount, requirement="SVC-25", exchange=exchange,
                          title="a settled transfer credits the destination by amount")
        if isinstance(after, int) and after < 0:
            fail("SVC-27", "no balance goes below zero", ">= 0", after, exchange)

    generation.run(request, property_, generation.profile.settlements, shrink=False)


@pytest.mark.requirement("RES-65", "SVC-25", "END-28", "END-14")
def test_amounts_across_the_range(api, resources, generation, request):
    """Across the range of amounts, actualAmount is amount plus fee, and settlement moves exactly those sums."""
    pair = [resources.funded_wallet(RANGE_FUNDS)["publicId"], resources.wallet()["publicId"]]
    found = lists.discover(api, "listWallets")

    @given(wanted=st.one_of(st.integers(MINIMUM, RANGE_TOP),
                            st.sampled_from([MINIMUM, MINIMUM + 1, RANGE_TOP // 2, RANGE_TOP])))
    @example(wanted=RANGE_TOP)
    def property_(wanted):
        balances = [resources.balance(wallet) for wallet in pair]
        source, destination = (pair[0], pair[1]) if balances[0] >= balances[1] else (pair[1], pair[0])
        before = {pair[0]: balances[0], pair[1]: balances[1]}
        amount = min(wanted, before[source] * 9 // 10)
        if amount < MINIMUM:
            return
        exchange = api.call("transfer", json_body=bodies.transfer(source, destination, amount))
        transaction = resources.require(exchange, "transfer between two wallets of the run")
        fee, actual = transaction.get("fee"), transaction.get("actualAmount")
        checks.equals(actual, amount + (fee if isinstance(fee, int) else 0), requirement="RES-65", exchange=exchange,
                      title=f"actualAmount of a {amount} kobo transfer is amount plus fee ({fee})")
        final = settled(resources, exchange)
        if final is None:
            pytest.skip(f"the transfer stayed pending past --settle-timeout ({resources.settings.settle_timeout:g} s)")
        for name in ("amount", "fee", "actualAmount"):
            checks.equals(final.get(name), transaction.get(name), requirement="END-28", exchange=api.exchanges[-1],
                          title=f"verify returns the transfer's {name}")
        # When balances show a settled transfer is not shown: one that has not moved yet is read again; and the
        # status words after settlement are not shown: one that ended otherwise and moved nothing is not judged.
        after = {wallet: money.balance_after_settlement(resources, wallet, before[wallet], final) for wallet in pair}
        money.did_not_complete(final, after != before)
        checks.equals(after[source], before[source] - actual, requirement="SVC-25", exchange=exchange,
                      title=f"a settled {amount} kobo transfer debits the source by actualAmount")
        checks.equals(after[destination], before[destination] + amount, requirement="SVC-25",
                      exchange=exchange, title=f"a settled {amount} kobo transfer credits the destination by amount")
        walk = lists.walk(api, "listWallets", found, lists.LARGE_PAGE)
        listed = {lists.identity(item): item for item in walk.entries}
        for wallet in pair:
            entry = listed.get(wallet)
            if isinstance(entry, dict):
                checks.equals(entry.get("balance"), resources.balance(wallet), requirement="END-14",
                              exchange=walk.exchanges[-1],
                              title=f"the wallet list shows {wallet} with its single read's balance after a settled "
                                    "transfer")

    generation.run(request, property_, generation.profile.settlements, shrink=False)


@pytest.mark.requirement("SVC-26", "RES-65", "END-34")
def test_bank_transfer_fees_across_amounts(api, resources, generation, request, observe):
    """A bank transfer's fee is a whole kobo amount of 0 or more; the source is debited by amount plus fee."""
    purse = Purse(resources, "bankTransfer")
    number, code = resources.external_account()
    fees: dict[int, Any] = {}

    @given(amount=st.one_of(st.integers(BANK_MINIMUM, BANK_MINIMUM * 4), st.just(BANK_MINIMUM)))
    def property_(amount):
        source = purse.holding(amount)
        before = resources.balance(source)
        exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source, number, code, amount))
        transaction = resources.require(exchange, f"a bank transfer of {amount} kobo")
        fee, actual = transaction.get("fee"), transaction.get("actualAmount")
        fees[amount] = fee
        if type(fee) is not int or fee < 0:
            fail("END-34", "a bank transfer's fee is an integer of 0 or more", ">= 0", fee, exchange)
        checks.equals(actual, amount + fee, requirement="RES-65", exchange=exchange,
                      title=f"actualAmount of a {amount} kobo bank transfer is amount plus fee")
        final = settled(resources, exchange)
        if final is None:
            pytest.skip("the bank transfer stayed pending past --settle-timeout")
        after = money.balance_after_settlement(resources, source, before, final)
        money.did_not_complete(final, after != before)
        checks.equals(after, before - actual, requirement="SVC-26", exchange=exchange,
                      title="a settled bank transfer debits the source by actualAmount (amount plus fee)")

    generation.run(request, property_, generation.profile.settlements, shrink=False)
    observe("END-34", bank_transfer_fees=dict(sorted(fees.items())))


@pytest.mark.requirement("LIM-14", "LIM-15", "LIM-16", "END-20")
def test_expire_in_around_its_range(api, resources, generation, request):
    """expireIn from 600 to 1800 seconds is accepted, both ends included; outside that range it is refused."""
    low, high = contract.expire_in_bounds()
    destination = resources.wallet()["publicId"]

    @given(expire_in=strategies.expire_ins())
    @example(expire_in=low - 1)
    @example(expire_in=low)
    @example(expire_in=high)
    @example(expire_in=high + 1)
    def property_(expire_in):
        body = bodies.collection_account(resources.run_id, destination, expireIn=expire_in)
        exchange = api.call("createCollectionAccount", json_body=body)
        if expire_in < low:
            checks.refused(exchange, requirement="LIM-14", why=f"expireIn {expire_in}, below {low}")
        elif expire_in > high:
            checks.refused(exchange, requirement="LIM-16", why=f"expireIn {expire_in}, above {high}")
        else:
            checks.accepted(exchange, requirement="LIM-15" if expire_in in (low, high) else "END-20",
                            why=f"expireIn {expire_in}, within {low}..{high}")

    generation.run(request, property_, generation.profile.boundaries)


@pytest.mark.requirement("LIM-17", "LIM-18", "END-20")
def test_reference_length_around_the_minimum(api, resources, generation, request):
    """A collection reference shorter than 5 characters is refused; one of 5 or more (and new) is accepted."""
    shortest = contract.reference_min_length()
    destination = resources.wallet()["publicId"]

    @given(length=strategies.reference_lengths())
    @example(length=shortest - 1)
    @example(length=shortest)
    def property_(length):
        reference = unique_reference(length)
        body = bodies.collection_account(resources.run_id, destination, reference=reference)
        exchange = api.call("createCollectionAccount", json_body=body)
        if length < shortest:
            checks.refused(exchange, requirement="LIM-17", why=f"a reference of {length} characters")
        else:
            checks.accepted(exchange, requirement="LIM-18" if length == shortest else "END-20",
                            why=f"a new reference of {length} characters")

    generation.run(request, property_, generation.profile.boundaries)


@pytest.mark.requirement("LIM-19")
def test_reference_is_unique_across_wallets(api, resources, generation, request):
    """A collection reference already used is refused, on the same wallet and on any other wallet of the account."""
    wallets = [resources.wallet()["publicId"], resources.wallet()["publicId"]]

    @given(length=st.integers(contract.reference_min_length(), 24), same_wallet=st.booleans())
    @example(length=12, same_wallet=False)
    def property_(length, same_wallet):
        reference = unique_reference(length)
        first = bodies.collection_account(resources.run_id, wallets[0], reference=reference)
        resources.require(api.call("createCollectionAccount", json_body=first), "create a collection account")
        again = bodies.collection_account(resources.run_id, wallets[0 if same_wallet else 1], reference=reference)
        exchange = api.call("createCollectionAccount", json_body=again)
        where = "the same wallet" if same_wallet else "another wallet"
        checks.refused(exchange, requirement="LIM-19", why=f"a reference already used, on {where}")

    generation.run(request, property_, generation.profile.boundaries)


@pytest.mark.requirement("LIM-04", "LIM-05", "LIM-06", "LIM-07")
def test_secondary_wallet_contact_shapes(api, resources, generation, request):
    """A secondary wallet needs a valid e-mail address and a mobile object; without either it is refused."""
    email_kinds = st.one_of(st.tuples(st.just("valid"), strategies.valid_emails),
                            st.tuples(st.just("invalid"), strategies.invalid_emails),
                            st.tuples(st.just("missing"), st.none()))

    @given(email=email_kinds, with_mobile=st.booleans())
    def property_(email, with_mobile):
        kind, address = email
        body = bodies.wallet(resources.run_id, "secondary")  # a customer (e-mail, phone) of its own
        if kind == "missing":
            del body["emailAddress"]
        elif kind == "valid":
            # A target may keep one wallet per customer: the drawn address, made the run's own by one more part.
            local, domain = address.split("@")
            body["emailAddress"] = address = f"{local}.{body['emailAddress'].split('@')[0]}@{domain}"
        else:
            body["emailAddress"] = address
        if not with_mobile:
            del body["mobile"]
        exchange = resources.create_wallet(body)
        if exchange.ok:
            resources.close_wallet(exchange.data["publicId"])
        if kind == "missing":
            checks.refused(exchange, requirement="LIM-05", why="a secondary wallet without emailAddress")
        elif kind == "invalid":
            checks.refused(exchange, requirement="LIM-06", why=f"a secondary wallet with e-mail {address!r}")
        elif not with_mobile:
            checks.refused(exchange, requirement="LIM-07", why="a secondary wallet without mobile")
        else:
            checks.accepted(exchange, requirement="LIM-04", why=f"a secondary wallet with e-mail {address!r}")

    generation.run(request, property_, generation.profile.boundaries)


def fail(requirement: str, title: str, expected: Any, received: Any, exchange: Any = None) -> None:
    raise ConformanceFailure(requirement, title, expected, received, exchange)
