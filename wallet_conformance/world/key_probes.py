"""Key handling probed on every operation: a valid request, one the target accepts with the secret key (the same
records, bodies and funding as the samples), sent with the key in another form.

Refused (no 2xx, and a transfer moves no money):
- AUTH-02: a near-copy of the key in `x-service-key` (client/near_copies.py: its letters in the other case, all
  but its last character, its last character changed, a character more) and an empty value;
- AUTH-01: the key only where the document does not put it: in query parameters under the names a server might
  read (QUERY_NAMES), or as `Authorization: Bearer <key>`, with no `x-service-key`.

Accepted (a 2xx): AUTH-07 the header's name in another letter case; AUTH-08 whitespace around the value (a space
before it, a tab after it; sent through client/plain_transport.py, as httpx will not write it: straight to the
target, so that where the environment names a proxy for it the test cannot judge). Such a form refused is judged
against the same request sent with the key as it is (AS_SENT): an operation that refuses that too refused the
request, not the key's form, and the test cannot judge.

AUTH-06 (INFO) observes what the account's public keys get in place of the secret key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wallet_conformance.client.api import KEY_HEADER
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.near_copies import NEAR_COPIES, near_copy
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world import accounts, bad_requests, controls, money
from wallet_conformance.world.bad_requests import Fixtures
from wallet_conformance.world.resources import Resources

# Query parameter names a server might read a key from; the probe sends the key under all of them at once.
QUERY_NAMES = ("key", "apiKey", "api_key", "secretKey", KEY_HEADER)
EMPTY = "empty"
IN_QUERY = "query-only"
AS_BEARER = "bearer-only"
HEADER_NAME_CASE = "header-name-case"
WHITESPACE = "whitespace-around"
AS_SENT = "as-sent"


@dataclass(frozen=True)
class Sent:
    """How a request carries the key: `key` is x-service-key's value (None: no such header), `headers` and
    `params` what else is sent; `words` says it for messages."""

    words: str
    key: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)


def _near_copy(kind: str) -> Callable[[str], Sent]:
    def sent(key: str) -> Sent:
        copy = near_copy(key, kind)
        if copy is None:
            raise CannotJudge(f"the secret key has no {kind} near-copy (it has no letters to write in another case)")
        return Sent(f"x-service-key holding the key's {kind} near-copy", key=copy)

    return sent


def _whitespace_around(key: str) -> Sent:
    return Sent("x-service-key with whitespace around the key", key=f" {key}\t")


# The forms of the key a conforming target refuses (AUTH-02: not the account's secret key).
WRONG_KEYS: dict[str, Callable[[str], Sent]] = {
    **{kind: _near_copy(kind) for kind in NEAR_COPIES},
    EMPTY: lambda key: Sent("an empty x-service-key", key=""),
}
# The key sent where the document does not put it, with no x-service-key (AUTH-01: the header is required).
ELSEWHERE: dict[str, Callable[[str], Sent]] = {
    IN_QUERY: lambda key: Sent(
        f"the key only in the query parameters {', '.join(QUERY_NAMES)}", params=dict.fromkeys(QUERY_NAMES, key)
    ),
    AS_BEARER: lambda key: Sent("the key only as Authorization: Bearer", headers={"Authorization": f"Bearer {key}"}),
}
# The key in x-service-key written another way that HTTP says is the same (AUTH-07, AUTH-08), and as it is (the
# control a refusal of those is judged against).
SAME_KEY: dict[str, Callable[[str], Sent]] = {
    HEADER_NAME_CASE: lambda key: Sent(f"the header named {KEY_HEADER.title()}", headers={KEY_HEADER.title(): key}),
    WHITESPACE: _whitespace_around,
    AS_SENT: lambda key: Sent("x-service-key holding the key as it is", key=key),
}


@dataclass(frozen=True)
class Probe:
    """A valid request sent with the key in one form: the exchange, and the wallets' balances just before it (a
    transfer's) that a refused request must leave as they were."""

    sent: Sent
    exchange: Exchange
    watched: dict[str, int]


def secret_key(get: Fixtures) -> str:
    """The run's secret key (the probes send it in other forms)."""
    return get("target").secret_key


def sent_with(get: Fixtures, operation_id: str, sent: Sent, *, shared_wallets: bool) -> Probe:
    """A valid request of `operation_id` sent as `sent` says. A transfer draws on the shared probe wallets when
    `shared_wallets` (a probe the target should refuse) and on wallets of its own otherwise; a wallet a broken
    server created or closed that way is still swept."""
    api, resources = get("api"), get("resources")
    given = {"key": sent.key, "headers": sent.headers or None, "params": sent.params or None}
    watched: dict[str, int] = {}
    if operation_id == "updateAccount":
        # The account's own webhooks sent back: a write that changes nothing, even if it were accepted.
        exchange = accounts.own_webhooks_sent_back(api, resources, **given)
    else:
        moves_money = operation_id in contract.money_operations()
        if moves_money and not resources.can_fund:
            # An unfunded source would be refused for want of money, whatever the key: no evidence either way.
            raise CannotJudge(
                f"a valid {operation_id} request needs a funded source: give --funding-url or --funded-wallet"
            )
        if shared_wallets and moves_money:
            path_params: dict[str, str] = {}
            body, watched = get("refused_transfer_wallets").request(operation_id)
        else:
            path_params, body = bad_requests.valid_request(get, operation_id)
        exchange = api.call(operation_id, path_params, json_body=body, **given)
        resources.track(exchange)
    probe = Probe(sent, exchange, watched)
    if shared_wallets and watched:
        get("refused_transfer_wallets").after(exchange)
    return probe


def probe(get: Fixtures, operation_id: str, form: str) -> Probe:
    """A valid request of `operation_id` sent with the key in `form` (a name of WRONG_KEYS, ELSEWHERE or SAME_KEY)."""
    forms = {**WRONG_KEYS, **ELSEWHERE, **SAME_KEY}
    sent = forms[form](secret_key(get))
    if form == WHITESPACE and get("api").proxied():
        # Through a forward proxy the whitespace would not reach the target either: the proxy rewrites the field, and
        # drops it (RFC 9110 section 5.5).
        raise CannotJudge(
            f"{sent.words} is sent straight to the target (through http.client, as httpx will not write it), past the "
            "proxy the environment names for it (HTTP_PROXY, HTTPS_PROXY or ALL_PROXY): to judge it, reach the "
            "target without a proxy (NO_PROXY)"
        )
    return sent_with(get, operation_id, sent, shared_wallets=form not in SAME_KEY)


def with_public_key(get: Fixtures, operation_id: str, mode: str) -> Probe:
    """A valid request of `operation_id` sent with the own account's public key `pubKey.<mode>` in x-service-key;
    the test cannot observe it when the account shows no such key (see AUTH-05)."""
    pub_key = get("resources").own_account().get("pubKey")
    key = pub_key.get(mode) if isinstance(pub_key, dict) else None
    if not isinstance(key, str) or not key:
        raise CannotJudge(f"the account shows no pubKey.{mode} (see AUTH-05)")
    return sent_with(get, operation_id, Sent(f"pubKey.{mode} in x-service-key", key=key), shared_wallets=False)


def refused_moving_nothing(resources: Resources, probe: Probe) -> None:
    """The probe was refused (no 2xx) and, a transfer, left every balance it touched as it was when read right
    after the answer.

    Not watched for --quiet-window, as the refused transfers of the money tests are: a target that takes a form of
    the key for the key accepts the request (a 2xx, which fails here at once), and a transfer made although the
    request was refused shows in the balances at once when it debits on acceptance. One that debits only when it
    settles would need its settlement, which a quiet window does not wait for either; fourteen probes each waiting
    the window would add seconds to every run."""
    why = f"{probe.exchange.operation_id} with {probe.sent.words}"
    if probe.watched:
        money.refused_without_debit(resources, probe.exchange, probe.watched, why, watch=False)
    else:
        checks.refused(probe.exchange, why)


def accepted_as_the_key(probe: Probe, as_sent: Callable[[], Probe]) -> None:
    """The probe, which carries the key in a form HTTP makes the same key, was accepted (a 2xx from the API). Where it
    was refused, the same request with the key as it is (`as_sent`, a probe of AS_SENT) is sent: refused too, the
    operation refused the request whatever the key's form (its body, its records, or the right key itself: other
    requirements' matter), and the test cannot judge."""
    controls.accepted(
        probe.exchange,
        f"{probe.exchange.operation_id} with {probe.sent.words}",
        lambda: as_sent().exchange,
        "the key as it is",
        check=checks.accepted_by_the_api,
    )


def public_key_observation(probe: Probe, mode: str) -> dict[str, Any]:
    """What AUTH-06 records of a request made with the public key `pubKey.<mode>`: its answer, and for a transfer
    whether it moved money (`public_key_moved_money`: the reports raise it loudly)."""
    exchange = probe.exchange
    seen: dict[str, Any] = {
        "key": f"pubKey.{mode}",
        "operation": exchange.operation_id,
        "status": exchange.status,
        "accepted": exchange.ok,
        "message": exchange.meta.get("message"),
    }
    if exchange.operation_id in contract.money_operations():
        seen["public_key_moved_money"] = exchange.ok
    return seen
