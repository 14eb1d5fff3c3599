"""Boundary properties: around every documented limit, accepted on one side and refused (no 2xx) on the other.

Each property draws its values with Hypothesis (strategies in wallet_conformance/generation/strategies.py); the
minimal failing example is printed with the exchange that broke the rule and its curl line.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, example, given, note
from hypothesis import strategies as st

from wallet_conformance.generation import strategies
from wallet_conformance.judge import answer_forms, balances, checks, request_rules
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.scenarios import amount_range, balance_edge, reference_race
from wallet_conformance.scenarios.amount_range import AmountRange
from wallet_conformance.scenarios.balance_edge import BalanceEdge
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, controls, money

MINIMUM = contract.minimum_amount("transfer")
BANK_MINIMUM = contract.minimum_amount("bankTransfer")
RANGE_FUNDS = 600_000  # kobo bounced between two wallets by the range property (funded once)
RANGE_TOP = 550_000


@pytest.mark.requirement("LIM-10", "LIM-11")
def test_transfer_amount_around_the_minimum(api, resources, generation, request):
    """A wallet-to-wallet transfer below the minimum is refused (no 2xx); one at or above it is accepted."""
    purse, destination = money.Purse(resources, "transfer"), resources.wallet()["publicId"]

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
    """A bank transfer below the minimum is refused (no 2xx); one at or above it is accepted."""
    purse = money.Purse(resources, "bankTransfer")
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


@pytest.mark.requirement("SVC-27", "SVC-25", "END-40", "LIM-11")
def test_transfer_at_the_edge_of_the_balance(api, resources, generation, request, observe):
    """The whole balance moves; one kobo more never takes it below zero, refused at once or failed later."""
    edge = BalanceEdge(api, resources)

    @given(balance=st.integers(MINIMUM + 1, MINIMUM * 3), offset=st.sampled_from([-1, 0, 1]))
    @example(balance=MINIMUM * 2, offset=1)
    @example(balance=MINIMUM * 2, offset=0)
    def property_(balance, offset):
        source, balance = edge.funded_source(balance)
        assume(balance + offset >= MINIMUM)  # an inbound fee took the payment's margin over the minimum transfer
        moved = edge.transfer(source, balance, balance + offset)
        note(moved.story)
        if moved.overdraws:
            balance_edge.moved_nothing(moved, requirement="SVC-27")
        elif not moved.exchange.ok:
            # A refused transfer of exactly the minimum breaks LIM-11 (the minimum is accepted), any other END-40.
            balance_edge.refusal_explained_by_fee(
                moved, observe, requirement=contract.acceptance_requirement("transfer", moved.exchange.request_body)
            )
        else:
            balance_edge.moved_actual_and_amount(moved, requirement="SVC-25")
        balances.not_below_zero(moved.after, "no balance goes below zero", moved.exchange, requirement="SVC-27")

    generation.run(request, property_, generation.profile.settlements, shrink=False)


@pytest.mark.requirement("RES-65", "RES-87", "SVC-25", "END-28", "END-14")
def test_amounts_across_the_range(api, resources, generation, request):
    """Across the range of amounts, actualAmount is amount plus fee, and settlement moves exactly those sums."""
    walk = AmountRange(api, resources, RANGE_FUNDS)

    @given(
        wanted=st.one_of(
            st.integers(MINIMUM, RANGE_TOP), st.sampled_from([MINIMUM, MINIMUM + 1, RANGE_TOP // 2, RANGE_TOP])
        )
    )
    @example(wanted=RANGE_TOP)
    def property_(wanted):
        step = walk.step(wanted)
        assume(step.amount >= MINIMUM)  # the wallet holding more holds too little for a minimum transfer
        sent = walk.send(step)
        amount_range.actual_is_amount_plus_fee(sent)
        settled = walk.settle(sent)
        amount_range.verify_repeats_the_transfer(settled, requirement="END-28")
        amount_range.moved_actual_and_amount(settled, requirement="SVC-25")
        amount_range.list_shows_each_balance(walk, requirement="END-14")

    generation.run(request, property_, generation.profile.settlements, shrink=False)


@pytest.mark.requirement("SVC-26", "RES-65", "RES-87", "END-34")
def test_bank_transfer_fees_across_amounts(api, resources, generation, request, observe):
    """A bank transfer's fee is a whole kobo amount of 0 or more; the source is debited by amount plus fee."""
    purse = money.Purse(resources, "bankTransfer")
    number, code = resources.external_account()
    fees: dict[int, Any] = {}

    @given(amount=st.one_of(st.integers(BANK_MINIMUM, BANK_MINIMUM * 4), st.just(BANK_MINIMUM)))
    def property_(amount):
        source = purse.holding(amount)
        before = resources.balance(source)
        read_before = resources.last_read(source)
        exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source, number, code, amount))
        transaction = resources.require(exchange, f"a bank transfer of {amount} kobo")
        fees[amount] = transaction.get("fee")
        fee = answer_forms.fee(transaction, exchange, requirement="END-34")
        actual = transaction.get("actualAmount")
        checks.equals(
            actual,
            amount + fee,
            requirement=checks.actual_amount_requirement(fee),
            exchange=exchange,
            title=f"actualAmount of a {amount} kobo bank transfer is amount plus fee",
        )
        final = money.settled_or_none(resources, exchange)
        if final is None:
            pytest.skip("the bank transfer stayed pending past --settle-timeout")
        after = money.balance_or_last(resources, source, moved_from=before, after=final)
        money.skip_unless_completed(final, after != before, fee_kept=money.only_the_fee(before - after, actual, amount))
        checks.equals(
            after,
            before - actual,
            requirement="SVC-26",
            exchange=resources.last_read(source),
            also=(*filter(None, [read_before]), exchange),
            title="a settled bank transfer debits the source by actualAmount (amount plus fee)",
        )

    generation.run(request, property_, generation.profile.settlements, shrink=False)
    observe("END-34", bank_transfer_fees=dict(sorted(fees.items())))


@pytest.mark.requirement("LIM-14", "LIM-15", "LIM-16", "END-20")
def test_expire_in_around_its_range(api, resources, generation, request):
    """expireIn within the documented range (10 to 30 minutes, both ends included) is accepted; outside it, refused."""
    low, high = contract.expire_in_bounds()
    destination = resources.wallet()["publicId"]
    within = (low + high) // 2
    controls.plain_accepted(
        api.call(
            "createCollectionAccount",
            json_body=bodies.collection_account(resources.run_id, destination, expireIn=within),
        ),
        f"a collection account with expireIn {within}",
    )

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
            checks.accepted(
                exchange,
                requirement="LIM-15" if expire_in in (low, high) else "END-20",
                why=f"expireIn {expire_in}, within {low}..{high}",
            )

    generation.run(request, property_, generation.profile.boundaries)


@pytest.mark.requirement("LIM-17", "LIM-18", "END-20")
def test_reference_length_around_the_minimum(api, resources, generation, request):
    """A collection reference shorter than 5 characters is refused; one of 5 or more (and new) is accepted."""
    shortest = contract.reference_min_length()
    destination = resources.wallet()["publicId"]
    longer = bodies.collection_reference(2 * shortest)
    controls.plain_accepted(
        api.call(
            "createCollectionAccount",
            json_body=bodies.collection_account(resources.run_id, destination, reference=longer),
        ),
        f"a collection account with a new reference {longer!r}",
    )

    @given(length=strategies.reference_lengths())
    @example(length=shortest - 1)
    @example(length=shortest)
    def property_(length):
        reference = bodies.collection_reference(length)
        body = bodies.collection_account(resources.run_id, destination, reference=reference)
        exchange = api.call("createCollectionAccount", json_body=body)
        if length < shortest:
            checks.refused(exchange, requirement="LIM-17", why=f"a reference of {length} characters")
        else:
            checks.accepted(
                exchange,
                requirement="LIM-18" if length == shortest else "END-20",
                why=f"a new reference of {length} characters",
            )

    generation.run(request, property_, generation.profile.boundaries)


@pytest.mark.requirement("LIM-19")
def test_reference_is_unique_across_wallets(api, resources, generation, request):
    """A collection reference already used opens no second account, on the same wallet or another of the account."""
    wallets = [resources.wallet()["publicId"], resources.wallet()["publicId"]]

    # Longer than the minimum: whether one of exactly the minimum is accepted is LIM-18's matter.
    @given(length=st.integers(contract.reference_min_length() + 1, 24), same_wallet=st.booleans())
    @example(length=12, same_wallet=False)
    def property_(length, same_wallet):
        reference = bodies.collection_reference(length)
        first = api.call(
            "createCollectionAccount",
            json_body=bodies.collection_account(resources.run_id, wallets[0], reference=reference),
        )
        resources.require(first, "create a collection account")
        if not request_rules.takes_the_reference(first):
            raise CannotJudge(
                f"the collection account made with reference {reference!r} shows another (see RES-32): "
                "the target holds no such reference to refuse again"
            )
        again = bodies.collection_account(resources.run_id, wallets[0 if same_wallet else 1], reference=reference)
        exchange = api.call("createCollectionAccount", json_body=again)
        if exchange.ok and reference_race.account_of(exchange) == reference_race.account_of(first):
            return  # the account the reference opened, answered again: no second account holds it
        where = "the same wallet" if same_wallet else "another wallet"
        checks.refused(exchange, requirement="LIM-19", why=f"a reference already used, on {where}")

    generation.run(request, property_, generation.profile.boundaries)


# What a secondary wallet's contact details get, by the e-mail drawn and whether the mobile is sent: the requirement
# that states it, and whether it is accepted.
CONTACT_EXPECTATIONS = {
    ("missing", True): ("LIM-05", False),
    ("missing", False): ("LIM-05", False),
    ("invalid", True): ("LIM-06", False),
    ("invalid", False): ("LIM-06", False),
    ("valid", False): ("LIM-07", False),
    ("valid", True): ("LIM-04", True),
}


@pytest.mark.requirement("LIM-04", "LIM-05", "LIM-06", "LIM-07")
def test_secondary_wallet_contact_shapes(api, resources, generation, request):
    """A secondary wallet needs a valid e-mail address and a mobile object; without either it is refused."""
    email_kinds = st.one_of(
        st.tuples(st.just("valid"), strategies.valid_emails),
        st.tuples(st.just("invalid"), strategies.invalid_emails),
        st.tuples(st.just("missing"), st.none()),
    )

    @given(email=email_kinds, with_mobile=st.booleans())
    def property_(email, with_mobile):
        kind, address = email
        body = bodies.secondary_wallet_with(resources.run_id, address, with_mobile, own_address=kind == "valid")
        exchange = resources.create_wallet(body)  # the end-of-run sweep closes it, if it was made
        requirement, accepted = CONTACT_EXPECTATIONS[kind, with_mobile]
        judged = checks.accepted if accepted else checks.refused
        judged(
            exchange,
            requirement=requirement,
            why=f"a secondary wallet with e-mail {body.get('emailAddress')!r}{'' if with_mobile else ' and no mobile'}",
        )

    # Not shrunk: each replay creates a wallet, and a target answering an invalid address 5xx would, replayed a dozen
    # times, pass for a failing one and stop the run before the failure is reported.
    generation.run(request, property_, generation.profile.boundaries, shrink=False)
