"""Authentication: every operation requires `x-service-key` holding the account's secret key.

A refusal is proven on a request that would otherwise succeed: real path parameters (a wallet of the
run, a real transaction reference, the own account), valid bodies and, for transfers, a funded source.
A server that skipped the key check would answer those with a 2xx.
"""

from __future__ import annotations

import pytest

from wallet_conformance.client.api import TargetError
from wallet_conformance.judge import checks, public_keys
from wallet_conformance.scenarios import account_changes
from wallet_conformance.spec import contract
from wallet_conformance.world import key_probes
from wallet_conformance.world.bad_requests import KINDS, MISSING, WRONG

OPERATIONS = tuple(contract.operations())
REFUSED_STATUS = 401  # RFC 9110 section 15.5.2, the status AUTH-03 rests on
KEY_REFUSALS = (401, 403)


@pytest.mark.requirement("AUTH-01")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_request_without_key_is_refused(unauthenticated, operation_id):
    """A valid request sent without x-service-key is not answered with a 2xx."""
    exchange = unauthenticated(operation_id, MISSING)
    checks.refused(exchange, f"{operation_id} without x-service-key")


@pytest.mark.requirement("AUTH-02")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_request_with_wrong_key_is_refused(unauthenticated, operation_id):
    """A valid request whose x-service-key is not the account's secret key is not answered with a 2xx."""
    exchange = unauthenticated(operation_id, WRONG)
    checks.refused(exchange, f"{operation_id} with a key that is not the secret key")


@pytest.mark.requirement("AUTH-01")
@pytest.mark.parametrize("form", list(key_probes.ELSEWHERE))
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_key_outside_its_header_is_refused(key_probe, resources, operation_id, form):
    """A valid request with the key only in query parameters, or only as a Bearer token, is refused; no money moves."""
    key_probes.refused_moving_nothing(resources, key_probe(operation_id, form))


@pytest.mark.requirement("AUTH-02")
@pytest.mark.parametrize("form", list(key_probes.WRONG_KEYS))
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_near_copy_of_key_is_refused(key_probe, resources, operation_id, form):
    """A valid request whose x-service-key is a near-copy of the secret key, or empty, is refused; no money moves."""
    key_probes.refused_moving_nothing(resources, key_probe(operation_id, form))


@pytest.mark.requirement("AUTH-03")
@pytest.mark.parametrize("kind", list(KINDS), ids=list(KINDS.values()))
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_key_refusal_is_401(unauthenticated, operation_id, kind):
    """A request without x-service-key is answered 401; one with a wrong key 401 or 403."""
    exchange = unauthenticated(operation_id, kind)
    what = "no x-service-key" if kind == MISSING else "a wrong x-service-key"
    if exchange.ok:
        pytest.skip(
            f"{operation_id} with {what} was accepted (HTTP {exchange.status}): no refusal to look at "
            f"(see {'AUTH-01' if kind == MISSING else 'AUTH-02'})"
        )
    # Credentials that were sent and refused may get 403 as well (RFC 9110 section 15.5.4); none sent is a 401.
    allowed = (REFUSED_STATUS,) if kind == MISSING else KEY_REFUSALS
    expected = " or ".join(map(str, allowed))
    checks.holds(
        exchange.status in allowed,
        f"{operation_id} with {what} is answered {expected}",
        expected,
        exchange.status,
        exchange,
    )


@pytest.mark.requirement("AUTH-04")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_secret_key_is_accepted(samples, operation_id):
    """A valid request carrying the account's secret key in x-service-key is answered with a 2xx."""
    try:
        exchange = samples(operation_id)
    except TargetError as error:
        # The sample was refused: a refusal of the key itself is this requirement's failure; any other
        # refusal means the suite could not set the request up, and stays an error.
        refused = error.exchange
        if refused is not None and refused.operation_id == operation_id and refused.status in KEY_REFUSALS:
            checks.fail(f"{operation_id} with the secret key is accepted", "a 2xx status", refused.status, refused)
        raise
    checks.accepted_by_the_api(exchange, f"{operation_id} with the secret key")


@pytest.mark.requirement("AUTH-05")
def test_accounts_return_both_public_keys(samples):
    """Every listed account holds pubKey with a non-empty live and test public key."""
    public_keys.every_account_holds_both(samples("listAccounts"))


@pytest.mark.requirement("AUTH-06")
@pytest.mark.parametrize("mode", ["test", "live"])
def test_public_key_as_service_key_is_observed(resources, api, observe, mode):
    """What GET /virtual-accounts answers when x-service-key holds a public key (recorded, not judged)."""
    try:
        account = resources.own_account()
    except TargetError as error:
        pytest.skip(f"no account to read a public key from: {error}")
    pub_key = account.get("pubKey")
    key = pub_key.get(mode) if isinstance(pub_key, dict) else None
    if not isinstance(key, str) or not key:
        pytest.skip(f"the account shows no pubKey.{mode} (see AUTH-05)")
    exchange = api.call("listWallets", key=key)
    listed = len(exchange.data) if isinstance(exchange.data, list) else None
    observe(
        "AUTH-06",
        key=f"pubKey.{mode}",
        operation="listWallets",
        status=exchange.status,
        accepted=exchange.ok,
        message=exchange.meta.get("message"),
        listed=listed,
    )


@pytest.mark.requirement("AUTH-06")
@pytest.mark.parametrize("mode", public_keys.MODES)
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_public_key_on_every_operation_is_observed(public_key_probe, observe, operation_id, mode):
    """What each operation answers when x-service-key holds a public key (recorded, not judged; moved money flagged)."""
    observe("AUTH-06", **key_probes.public_key_observation(public_key_probe(operation_id, mode), mode))


@pytest.mark.requirement("AUTH-07")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_key_header_name_in_another_case_is_accepted(key_probe, operation_id):
    """A valid request whose key header is named in another letter case (X-Service-Key) is accepted."""
    key_probes.accepted_as_the_key(
        key_probe(operation_id, key_probes.HEADER_NAME_CASE), lambda: key_probe(operation_id, key_probes.AS_SENT)
    )


@pytest.mark.requirement("AUTH-08")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_whitespace_around_key_is_accepted(key_probe, operation_id):
    """A valid request whose x-service-key holds the key with whitespace around it is accepted."""
    key_probes.accepted_as_the_key(
        key_probe(operation_id, key_probes.WHITESPACE), lambda: key_probe(operation_id, key_probes.AS_SENT)
    )


@pytest.mark.requirement("AUTH-20")
def test_update_changes_no_server_owned_field(api, resources):
    """An update carrying other values of the account's server-owned fields (_id, publicId, pubKey, ...) sets none."""
    update = account_changes.server_owned_fields_sent(api, resources)
    checks.equals(update.changed(), {}, "an update changes none of the account's server-owned fields", update.update)
