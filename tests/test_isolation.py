"""Authentication, between accounts: a key reaches its own account's records and nothing of another account's.

Two keys on one target: the run's, and the secret key of an account of another business (--second-secret-key;
without it these tests skip). Every probe runs both ways: the second key on records the run made with the first,
and the first key on records the run made with the second. A record a key reached wrongly is read back with its
owner's key. The first key alone also tries to update every other account its own GET /accounts lists.
"""

from __future__ import annotations

import pytest

from wallet_conformance.judge import checks
from wallet_conformance.scenarios import isolation
from wallet_conformance.spec.catalogue import catalogue

# The tests share the two accounts' records (module fixtures): one xdist worker makes them once.
pytestmark = pytest.mark.xdist_group("isolation")
LISTS = catalogue()["AUTH-15"].operations
WALLET_IDENTIFIERS = ("publicId", "accountNumber", "_id")  # what names a wallet alone


@pytest.fixture(scope="module")
def first_tenant(api, resources):
    return isolation.Tenant("the first key's account", api, resources)


@pytest.fixture(scope="module")
def second_tenant(second_api, second_resources):
    return isolation.Tenant("the second key's account", second_api, second_resources)


@pytest.fixture(params=isolation.DIRECTIONS)
def sides(request, first_tenant, second_tenant):
    """Whose key asks about whose records (both ways)."""
    return isolation.direction(request.param, first_tenant, second_tenant)


@pytest.mark.requirement("AUTH-10", "AUTH-19")
def test_other_accounts_wallet_is_not_read(sides, observe):
    """GET /virtual-accounts/{walletId} of another account's wallet is refused, or shows nothing of that wallet."""
    wallet = sides.owner.wallet()
    exchange = sides.intruder.api.call("getWallet", {"walletId": wallet["publicId"]})
    observe("AUTH-19", **isolation.refusal_seen(sides, exchange))
    isolation.not_disclosed(
        exchange,
        isolation.identifiers(wallet, WALLET_IDENTIFIERS),
        f"a wallet read with {sides.words}",
        requirement="AUTH-10",
    )


@pytest.mark.requirement("AUTH-11", "AUTH-19")
def test_other_accounts_wallet_is_not_closed(sides, observe):
    """DELETE /virtual-accounts/{walletId} of another account's wallet is refused, and its owner still reads it."""
    attempt = isolation.close_attempt(sides)
    observe("AUTH-19", **isolation.refusal_seen(sides, attempt.exchange))
    checks.refused(attempt.exchange, f"a wallet close with {sides.words}", requirement="AUTH-11")
    checks.accepted_by_the_api(
        attempt.after, "its owner still reads a wallet another key tried to close", requirement="AUTH-11"
    )


@pytest.mark.requirement("AUTH-12", "AUTH-19")
def test_other_accounts_wallet_is_not_a_transfer_source(sides, observe):
    """A transfer out of another account's funded wallet is refused, and its balance does not move."""
    debit = isolation.debit_attempt(sides, "transfer")
    observe("AUTH-19", **isolation.refusal_seen(sides, debit.exchange))
    isolation.refused_without_debit(sides, debit, requirement="AUTH-12")


@pytest.mark.requirement("AUTH-13", "AUTH-19")
def test_other_accounts_wallet_is_not_a_bank_transfer_source(sides, observe):
    """A bank transfer out of another account's funded wallet is refused, and its balance does not move."""
    debit = isolation.debit_attempt(sides, "bankTransfer")
    observe("AUTH-19", **isolation.refusal_seen(sides, debit.exchange))
    isolation.refused_without_debit(sides, debit, requirement="AUTH-13")


@pytest.mark.requirement("AUTH-14", "AUTH-19")
def test_other_accounts_transaction_is_not_verified(sides, observe):
    """GET /transactions/{reference}/verify of another account's transaction is refused, or shows nothing of it."""
    exchange = sides.intruder.api.call("verifyTransaction", {"reference": sides.owner.reference()})
    observe("AUTH-19", **isolation.refusal_seen(sides, exchange))
    isolation.not_disclosed(
        exchange, sides.owner.transaction_identifiers(), f"a verify with {sides.words}", requirement="AUTH-14"
    )


@pytest.mark.requirement("AUTH-15")
@pytest.mark.parametrize("listed", LISTS)  # not `operation_id`: the module's tests share one xdist group
def test_other_business_records_are_not_listed(sides, listed):
    """A key's wallet, transaction and account lists hold none of another business's records."""
    sighting = isolation.owner_records_listed(sides, listed)
    isolation.none_listed(sighting, f"{listed} with the key of {sides.intruder.name}", requirement="AUTH-15")


@pytest.mark.requirement("AUTH-15")
@pytest.mark.parametrize("listed", LISTS)
def test_other_business_records_are_not_listed_under_a_filter(sides, listed):
    """A key's lists, under each filter given the values of another business's record, hold none of its records."""
    for sighting in isolation.owner_records_filtered(sides, listed):
        isolation.none_listed(
            sighting,
            f"{listed} under {sighting.sought['filter']} with the key of {sides.intruder.name}",
            requirement="AUTH-15",
        )


@pytest.mark.requirement("AUTH-15")
def test_payers_debit_is_not_listed_to_the_payee(sides):
    """A transfer another business made into the key's wallet is not listed to the key as that business's debit."""
    sighting = isolation.payer_debit_listed(sides)
    isolation.none_listed(
        sighting,
        f"listTransactions with the key of {sides.intruder.name}, after {sides.owner.name} paid into its wallet",
        requirement="AUTH-15",
    )


@pytest.mark.requirement("AUTH-16", "AUTH-19")
def test_other_account_is_not_updated(sides, observe):
    """PATCH /accounts/{accountId} of another business's account is refused, and its webhooks stay as they were."""
    update = isolation.update_attempt(sides)
    observe("AUTH-19", **isolation.refusal_seen(sides, update.exchange))
    isolation.update_refused_and_unchanged(update, requirement="AUTH-16")


@pytest.mark.requirement("AUTH-21", "AUTH-19")
def test_other_accounts_of_the_list_are_not_updated(api, resources, observe):
    """PATCH of every other account the key's GET /accounts lists is refused, and their webhooks stay as they were."""
    updates = isolation.other_accounts_updated(api, resources)
    observe(
        "AUTH-19",
        operation="updateAccount",
        of="the other accounts the key's list shows",
        statuses=sorted({update.exchange.status for update in updates}),
    )
    for update in updates:
        isolation.update_refused_and_unchanged(update, requirement="AUTH-21")


@pytest.mark.requirement("AUTH-17")
def test_transfer_into_other_accounts_wallet_is_observed(sides, observe):
    """Whether a transfer may pay into another account's wallet, and what its answer shows of it (recorded)."""
    exchange = isolation.transfer_into(sides)
    observe(
        "AUTH-17",
        direction=sides.words,
        **isolation.payment_seen(exchange),
        **isolation.settled_payment_seen(sides, exchange),
    )


@pytest.mark.requirement("AUTH-18")
def test_collection_account_for_other_accounts_wallet_is_observed(sides, observe):
    """Whether a collection account may be made for another account's wallet (recorded)."""
    observe("AUTH-18", direction=sides.words, **isolation.payment_seen(isolation.collection_account_for(sides)))
