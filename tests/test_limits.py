"""Limits: primary and secondary wallets, the minimum transfer, collection accounts and page size (whole kobo, and the
other values a body field may not take: tests/test_wrong_values.py)."""

from __future__ import annotations

from typing import Any

import pytest

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.judge import checks, request_rules
from wallet_conformance.judge.failures import SuiteError
from wallet_conformance.scenarios import long_lists, primary_limit
from wallet_conformance.scenarios.reference_race import ReferenceRace, account_of
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import bodies, controls, lists, money, page_checks
from wallet_conformance.world.concurrency import RACERS, ROUNDS
from wallet_conformance.world.resources import Resources

PAGED = catalogue()[contract.DEFAULT_PAGE_SIZE].operations
INVALID_EMAILS = ("not-an-email", "a@", "@b.com", "a b@c.com")


# ------------------------------------------------------------------ primary wallets (account-wide)


@pytest.fixture(scope="module")
def primary_run(api: ApiClient, resources: Resources, run_id: str) -> primary_limit.PrimaryLimitRun:
    """The primary-wallet limit scenario, run once: the places filled, one more tried, freed places taken again."""
    return primary_limit.primary_limit_run(api, resources, run_id)


@pytest.mark.account_wide
@pytest.mark.requirement("LIM-02")
def test_primary_wallets_up_to_the_limit_are_accepted(primary_run):
    """Primary wallets are accepted until the account holds the limit of them."""
    for number, exchange in primary_run.numbered_fills():
        if not exchange.ok and not primary_run.counted:
            # Primary wallets beyond what the list let the suite read may exist: the refusal may be the limit.
            pytest.skip(
                f"primary wallet number {number} by the suite's count was refused (HTTP {exchange.status}), "
                f"but the account's primary wallets could not all be counted ({primary_run.context()})"
            )
        if not exchange.ok and primary_run.closed_counted:
            pytest.skip(
                f"primary wallet number {number} by the suite's count was refused (HTTP {exchange.status}): "
                f"primary wallets the run closed still hold places (see LIM-03; {primary_run.context()})"
            )
        checks.holds(
            exchange.ok,
            f"primary wallet number {number} of at most {primary_run.limit} is accepted",
            "a 2xx status",
            exchange.status,
            exchange,
            detail=primary_run.context(),
        )


@pytest.mark.account_wide
@pytest.mark.requirement("LIM-01")
def test_primary_wallet_beyond_the_limit_is_refused(primary_run):
    """With the account at the primary-wallet limit, one more primary wallet is refused."""
    if not primary_run.filled or primary_run.extra is None:
        pytest.skip("not reached: the account could not be filled up to the primary-wallet limit (see LIM-02)")
    if primary_run.full_by_refusal:
        pytest.skip(
            f"the target refused a primary wallet (HTTP {primary_run.extra.status}) with primary wallets listed "
            "that the run did not make and cannot tell open from closed: whether that was number "
            f"{primary_run.limit + 1} is not known, so it is not judged here; the race for freed places is "
            f"({primary_run.context()})"
        )
    if primary_run.extra.ok:
        listed = primary_run.listed_with_extra
        if listed is not None and listed.count <= primary_run.limit:
            pytest.skip(
                f"primary wallet number {primary_run.limit + 1} by the suite's count was accepted, but the "
                f"wallet list then showed {listed.count} open primary wallets ({listed.note}): another "
                "client of the account, another run of the suite perhaps, closed some meanwhile"
            )
    checks.holds(
        not primary_run.extra.ok,
        f"primary wallet number {primary_run.limit + 1} is refused",
        "a status outside 2xx",
        primary_run.extra.status,
        primary_run.extra,
        detail=primary_run.context(),
    )


@pytest.mark.account_wide
@pytest.mark.requirement("LIM-01")
def test_primary_wallets_asked_for_at_once_stay_within_the_limit(primary_run):
    """With places left under the limit, primary wallets asked for at once never take the account past it."""
    if primary_run.burst is None:
        pytest.skip(
            "not reached: the account was not filled to the primary-wallet limit and freed again (see LIM-01, "
            "LIM-02 and LIM-03)"
        )
    opened, listed, free = primary_run.opened_at_once, primary_run.listed_after_burst, primary_run.free
    # More than the free places opened (the scenario then counts the wallet list): the limit was passed, unless another
    # client of the account freed places meanwhile.
    if len(opened) > free and listed.count <= primary_run.limit:
        pytest.skip(
            f"{len(opened)} of {primary_limit.BURST} primary wallets asked for at once with {free} place(s) "
            f"left were opened, but the wallet list then showed {listed.count} open primary wallets "
            f"({listed.note}): another client of the account, another run of the suite perhaps, closed some "
            "meanwhile"
        )
    shown = f"; the wallet list then showed {listed.count} open primary wallets ({listed.note})" if listed else ""
    checks.holds(
        len(opened) <= free,
        f"of {primary_limit.BURST} primary wallets asked for at once with {free} "
        f"place(s) left under the limit, at most {free} are opened",
        f"at most {free}",
        len(opened),
        opened[-1] if opened else None,
        detail=f"in race {primary_run.races}{shown}",
    )


@pytest.mark.account_wide
@pytest.mark.requirement("LIM-03")
def test_closing_a_primary_wallet_frees_its_place(primary_run):
    """With the account at the limit, closing one primary wallet lets another be created."""
    if primary_run.closed_counted:
        refused = primary_run.recheck[1] if primary_run.recheck else primary_run.fills[-1]
        checks.fail(
            "a primary wallet is accepted while the account's open ones are fewer than the limit, whatever "
            "primary wallets were closed before",
            "a 2xx status",
            refused.status,
            refused,
            detail=f"primary wallets the run closed still hold places: {primary_run.context()}",
        )
    if not primary_run.filled or primary_run.extra is None:
        pytest.skip("not reached: the account could not be filled up to the primary-wallet limit (see LIM-02)")
    if primary_run.extra.ok:
        pytest.skip(
            "not reached: the primary-wallet limit is not enforced (see LIM-01), so a freed place proves nothing"
        )
    if primary_run.freed is None or not primary_run.freed.ok or primary_run.refilled is None:
        raise TargetError(
            f"could not close a primary wallet to free its place\n"
            f"{primary_run.freed.describe() if primary_run.freed else ''}",
            primary_run.freed,
            requirement=contract.acceptance_requirement("closeWallet"),
        )
    checks.holds(
        primary_run.refilled.ok,
        "a primary wallet is accepted after one of the limit was closed",
        "a 2xx status",
        primary_run.refilled.status,
        primary_run.refilled,
        detail=primary_run.context(),
    )


@pytest.mark.account_wide
@pytest.mark.requirement("LIM-08")
def test_primary_wallet_needs_no_email_or_mobile(primary_run):
    """A primary wallet sent without emailAddress and mobile is accepted."""
    exchange = primary_run.bare
    sent = exchange.request_body if isinstance(exchange.request_body, dict) else {}
    if set(primary_limit.CONTACT) & set(sent):  # the suite's own body, not evidence from the target
        raise SuiteError(f"the primary-wallet body carries {sorted(set(primary_limit.CONTACT) & set(sent))}")
    # Refused, it is judged against the primary sent with them right after: refused too, no place was left for it.
    control = primary_run.fills[0] if primary_run.fills else None
    if not exchange.ok and (control is None or not control.ok):
        pytest.skip(
            f"the primary wallet without emailAddress and mobile was refused (HTTP {exchange.status}), and so "
            f"was the one with them sent next: no place to judge it by ({primary_run.context()})"
        )
    checks.holds(
        exchange.ok,
        "a primary wallet without emailAddress and mobile is accepted",
        "a 2xx status",
        exchange.status,
        exchange,
        detail=primary_run.context(),
    )


# ------------------------------------------------------------------ secondary wallets


@pytest.mark.requirement("LIM-04")
def test_secondary_wallets_beyond_the_primary_limit_are_accepted(resources, run_id):
    """More secondary wallets than the primary-wallet limit are all accepted."""
    count = contract.primary_wallet_limit() + 1
    for number in range(1, count + 1):
        exchange = resources.create_wallet(bodies.wallet(run_id))
        checks.accepted(exchange, f"secondary wallet {number} of {count} made by this test")


@pytest.mark.requirement("LIM-05")
def test_secondary_wallet_without_email_is_refused(resources, run_id):
    """A secondary wallet without emailAddress is refused."""
    body = bodies.wallet(run_id)
    del body["emailAddress"]
    checks.refused(resources.create_wallet(body), "a secondary wallet without emailAddress")


@pytest.mark.requirement("LIM-06")
@pytest.mark.parametrize("email", INVALID_EMAILS)
def test_secondary_wallet_with_invalid_email_is_refused(resources, run_id, email):
    """A secondary wallet whose emailAddress is not an e-mail address is refused."""
    exchange = resources.create_wallet(bodies.wallet(run_id, emailAddress=email))
    checks.refused(exchange, f"a secondary wallet with emailAddress {email!r}")


@pytest.mark.requirement("LIM-07")
@pytest.mark.parametrize("mobile", ["absent", None], ids=["absent", "null"])
def test_secondary_wallet_without_mobile_is_refused(resources, run_id, mobile):
    """A secondary wallet without a mobile (absent or null) is refused."""
    body = bodies.wallet(run_id)
    if mobile == "absent":
        del body["mobile"]
    else:
        body["mobile"] = mobile
    checks.refused(resources.create_wallet(body), f"a secondary wallet with mobile {mobile!r}")


@pytest.mark.requirement("LIM-09")
def test_unknown_wallet_category_is_refused(resources, run_id):
    """A wallet whose category is neither primary nor secondary is refused."""
    body = bodies.wallet(run_id)  # a valid secondary body (emailAddress, mobile), with only the category changed
    body["category"] = "tertiary"
    exchange = resources.create_wallet(body)
    checks.refused(exchange, "a wallet with category 'tertiary'")


# ------------------------------------------------------------------ minimum transfer


@pytest.fixture(scope="module")
def destination(resources) -> dict[str, Any]:
    """One receiving wallet for this module's transfers (its balance is never checked)."""
    return resources.wallet()


@pytest.mark.requirement("LIM-10", contract.CONSERVED)
def test_transfer_below_minimum_is_refused(api, resources, destination):
    """A wallet-to-wallet transfer of one kobo less than the minimum is refused and debits nothing."""
    amount = contract.minimum_amount("transfer") - 1
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    before = money.balance_or_last(resources, source, still=True)  # a fee or levy may post after the funding
    exchange = api.call("transfer", json_body=bodies.transfer(source, destination["publicId"], amount))
    money.refused_without_debit(
        resources,
        exchange,
        {source: before},
        f"a transfer of {amount} kobo",
        requirement="LIM-10",
        unmoved=contract.CONSERVED,
    )


@pytest.mark.requirement("LIM-11")
def test_transfer_of_exactly_the_minimum_is_accepted(api, resources, destination):
    """A wallet-to-wallet transfer of exactly the minimum is accepted."""
    amount = contract.minimum_amount("transfer")
    source = resources.funded_wallet(money.funding("transfer"))["publicId"]
    body = bodies.transfer(source, destination["publicId"], amount)
    exchange = money.sent_with_room(resources, source, "transfer", lambda: api.call("transfer", json_body=body))
    checks.accepted(exchange, f"a transfer of exactly {amount} kobo from a wallet holding enough")


@pytest.mark.requirement("LIM-12", contract.CONSERVED)
def test_bank_transfer_below_minimum_is_refused(api, resources):
    """A bank transfer of one kobo less than the minimum is refused and debits nothing."""
    amount = contract.minimum_amount("bankTransfer") - 1
    number, code = resources.external_account()
    source = resources.funded_wallet(money.funding("bankTransfer"))["publicId"]
    before = money.balance_or_last(resources, source, still=True)  # a fee or levy may post after the funding
    exchange = api.call("bankTransfer", json_body=bodies.bank_transfer(source, number, code, amount))
    money.refused_without_debit(
        resources,
        exchange,
        {source: before},
        f"a bank transfer of {amount} kobo",
        requirement="LIM-12",
        unmoved=contract.CONSERVED,
    )


@pytest.mark.requirement("LIM-13")
def test_bank_transfer_of_exactly_the_minimum_is_accepted(api, resources):
    """A bank transfer of exactly the minimum is accepted."""
    amount = contract.minimum_amount("bankTransfer")
    number, code = resources.external_account()
    source = resources.funded_wallet(money.funding("bankTransfer"))["publicId"]
    body = bodies.bank_transfer(source, number, code, amount)
    exchange = money.sent_with_room(resources, source, "bankTransfer", lambda: api.call("bankTransfer", json_body=body))
    checks.accepted(exchange, f"a bank transfer of exactly {amount} kobo from a wallet holding enough")


# ------------------------------------------------------------------ collection accounts


@pytest.mark.requirement("LIM-14")
def test_expire_in_below_the_lower_bound_is_refused(api, run_id, destination):
    """A collection account with expireIn one second below the lower bound is refused."""
    low, _ = contract.expire_in_bounds()
    body = bodies.collection_account(run_id, destination["publicId"], expireIn=low - 1)
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.refused(exchange, f"expireIn {low - 1} seconds")


@pytest.mark.requirement("LIM-15")
@pytest.mark.parametrize("end", ["lower", "upper"])
def test_expire_in_at_either_bound_is_accepted(api, run_id, destination, end):
    """A collection account with expireIn exactly at the lower or the upper bound is accepted."""
    low, high = contract.expire_in_bounds()
    seconds = low if end == "lower" else high
    body = bodies.collection_account(run_id, destination["publicId"], expireIn=seconds)
    exchange = api.call("createCollectionAccount", json_body=body)
    within = (low + high) // 2
    controls.accepted(
        exchange,
        f"expireIn {seconds} seconds (the {end} bound)",
        lambda: api.call("createCollectionAccount", json_body={**body, "expireIn": within}),
        f"expireIn {within}, inside the range",
    )


@pytest.mark.requirement("LIM-16")
def test_expire_in_above_the_upper_bound_is_refused(api, run_id, destination):
    """A collection account with expireIn one second above the upper bound is refused."""
    _, high = contract.expire_in_bounds()
    body = bodies.collection_account(run_id, destination["publicId"], expireIn=high + 1)
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.refused(exchange, f"expireIn {high + 1} seconds")


@pytest.mark.requirement("LIM-17")
def test_reference_shorter_than_the_minimum_is_refused(api, run_id, destination):
    """A collection account whose reference is one character shorter than the minimum is refused."""
    reference = bodies.collection_reference(contract.reference_min_length() - 1)
    body = bodies.collection_account(run_id, destination["publicId"], reference=reference)
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.refused(exchange, f"reference {reference!r} ({len(reference)} characters)")


@pytest.mark.requirement("LIM-17")
@pytest.mark.parametrize("alphabet", list(bodies.MULTI_BYTE))
def test_reference_of_multi_byte_characters_shorter_than_the_minimum_is_refused(api, run_id, destination, alphabet):
    """A reference one character short of the minimum, of characters UTF-8 writes in several bytes, is refused."""
    reference = bodies.multi_byte_reference(contract.reference_min_length() - 1, alphabet)
    body = bodies.collection_account(run_id, destination["publicId"], reference=reference)
    exchange = api.call("createCollectionAccount", json_body=body)
    checks.refused(
        exchange,
        f"reference {reference!r} ({len(reference)} characters, {len(reference.encode())} bytes "
        f"in UTF-8, {len(reference.encode('utf-16-le')) // 2} UTF-16 code units)",
    )


@pytest.mark.requirement("LIM-18")
def test_reference_of_exactly_the_minimum_length_is_accepted(api, run_id, destination):
    """A collection account whose new reference has exactly the minimum length is accepted."""
    reference = bodies.collection_reference(contract.reference_min_length())
    body = bodies.collection_account(run_id, destination["publicId"], reference=reference)
    exchange = api.call("createCollectionAccount", json_body=body)
    longer = bodies.collection_reference(2 * contract.reference_min_length())
    controls.accepted(
        exchange,
        f"reference {reference!r} ({len(reference)} characters, not used before)",
        lambda: api.call("createCollectionAccount", json_body={**body, "reference": longer}),
        f"a new reference of {len(longer)} characters",
    )


@pytest.mark.requirement("LIM-19")
def test_reference_already_used_opens_no_second_collection_account(api, resources, run_id, destination):
    """A reference already used, sent for another amount, is refused or answered with its account: none opens twice."""
    reference = f"{run_id}-{bodies.collection_reference(12)}"
    body = bodies.collection_account(run_id, destination["publicId"], reference=reference)
    first = api.call("createCollectionAccount", json_body=body)
    resources.require(first, "create a collection account with a new reference")
    if not request_rules.takes_the_reference(first):
        pytest.skip(
            f"the collection account made with reference {reference!r} shows another (see RES-32): the "
            "target holds no such reference to refuse again"
        )
    # Another amount: a reuse of the reference, not a replay of the request (which a target may answer with the
    # account it opened, as for an idempotency key).
    exchange = api.call("createCollectionAccount", json_body={**body, "amount": body["amount"] + 1})
    if exchange.ok and account_of(exchange) == account_of(first):
        return
    checks.refused(
        exchange,
        f"reference {reference!r}, used by a collection account just created (for {body['amount']} kobo), sent "
        f"again for {body['amount'] + 1} kobo",
    )


@pytest.mark.requirement("LIM-19")
def test_one_reference_sent_at_once_opens_one_collection_account(api, run_id, destination):
    """A new collection reference sent by several requests at once opens at most one collection account."""
    for _ in range(ROUNDS):
        race = ReferenceRace.fire(api, run_id, destination["publicId"], RACERS)
        for reference, accepted in race.accepted_twice():
            checks.fail(
                f"of the collection accounts asked for at once with reference {reference!r}, at most one is created",
                "at most 1",
                len(accepted),
                accepted[1],
                detail=race.summary,
            )


# ------------------------------------------------------------------ page size


@pytest.mark.requirement("LIM-20")
@pytest.mark.parametrize("operation_id", PAGED)
def test_default_page_size_is_observed(samples, observe, operation_id):
    """The perPage of a list's first page asked for without paging parameters is recorded (10 observed)."""
    exchange = samples(operation_id)
    if not lists.has_pagination(exchange):
        pytest.skip(f"{operation_id} carries no meta.pagination (see SVC-16)")
    per_page = lists.pagination(exchange).get("perPage")
    observe(
        "LIM-20", operation=operation_id, per_page=per_page, the_observed_one=per_page == contract.default_page_size()
    )


@pytest.mark.requirement("LIM-21")
@pytest.mark.parametrize("operation_id", PAGED)
def test_page_holds_no_more_than_per_page(api, resources, operation_id):
    """A list page holds at most perPage entries and totalCount counts at least them."""
    page = page_checks.sized_page(long_lists.first_page(api, resources, operation_id))
    checks.no_problem(page_checks.size_problems(page))
