"""The replay of a failure (client/replay.py), made in the process that ran the test, from the exchanges it kept: the
test's requests (of a property test, those of the example it failed on last: the shrunk one), preceded by the making
of the records it was given by earlier tests (their creation and their funding), ending with the answers that showed
the failure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from wallet_conformance.client.api import ApiClient
from wallet_conformance.client.exchange import KEPT_EXCHANGES, Exchange
from wallet_conformance.client.redaction import redact
from wallet_conformance.client.replay import request_text, script, steps_of
from wallet_conformance.client.target import Target
from wallet_conformance.judge.classification import exchange_evidence

_WORD = re.compile(r"[A-Za-z0-9_.@-]{4,}")  # an identifier a request may carry


def test_start(client: ApiClient, started: int) -> int:
    """Where a failure of the test that began at `started` replays from: there, or where its last example began."""
    return max(started, client.exchanges.example_start)


def unkept_note(client: ApiClient, start: int) -> str | None:
    """What a replay from `start` lacks when the client no longer holds the test's first exchanges."""
    unkept = client.exchanges.oldest_kept - start
    if unkept <= 0:
        return None
    return (
        f"the test's first {unkept} request(s) are no longer kept (a client keeps its last {KEPT_EXCHANGES}): "
        "the replay starts after them, and may not show the failure"
    )


def replay(
    target: Target,
    client: ApiClient,
    exchanges: Sequence[Exchange],
    evidence: Sequence[dict[str, Any]],
    test: str,
    failed: Sequence[str],
    note: str | None = None,
) -> str | None:
    """The replay script of a failure shown by `evidence` among `exchanges` (None when there is none to replay); a
    failure shown by an exchange judge's finding replays up to that exchange. An exchange of the evidence made
    before the test (by a fixture the test shares) is replayed with the records given to it, in the order sent.
    Made while pytest makes the test's report: a bug of its own is told in the report's place of the script, never
    raised into the run."""
    try:
        return _replay(target, client, exchanges, evidence, test, failed, note)
    except Exception as error:
        return redact(f"# no replay of {test}: the suite could not make one ({type(error).__name__}: {error})"[:500])


def _replay(
    target: Target,
    client: ApiClient,
    exchanges: Sequence[Exchange],
    evidence: Sequence[dict[str, Any]],
    test: str,
    failed: Sequence[str],
    note: str | None,
) -> str | None:
    shown = [item for entry in evidence for item in (entry.get("exchange"), *entry.get("compared_with", ())) if item]
    requests = {(item["request"], item["status"]) for item in shown}

    def showed(exchange: Exchange) -> bool:
        """Whether the evidence shows it: its request line and status first, where most exchanges differ."""
        return (f"{exchange.method} {exchange.url}", exchange.status) in requests and exchange_evidence(
            exchange
        ) in shown

    inside = {id(exchange) for exchange in exchanges}
    earlier = {
        id(exchange): exchange
        for exchange in [*client.exchanges, *client.exchanges.made.values()]
        if id(exchange) not in inside and showed(exchange)
    }
    given = sorted(
        {
            id(exchange): exchange for exchange in [*_given(client, [*earlier.values(), *exchanges]), *earlier.values()]
        }.values(),
        key=lambda exchange: exchange.started or 0.0,
    )
    sent = [*given, *exchanges]
    if not sent:
        return None
    failing = {index for index, exchange in enumerate(sent) if showed(exchange)}
    if failing:
        sent = sent[: max(failing) + 1]
    steps = steps_of(sent, failing=failing, given=len(given))
    return script(steps, test=test, failed=failed, base_url=target.base_url, funding_url=target.funding_url, note=note)


def wallets_used(client: ApiClient, exchanges: Sequence[Exchange]) -> list[str]:
    """The wallets the run made that `exchanges` sent requests about, or the records given to them (their
    publicIds), in the order first used."""
    shown = [*_given(client, exchanges), *exchanges]
    used = dict.fromkeys(word for exchange in shown for word in _WORD.findall(request_text(exchange)))
    made = client.exchanges.made
    return [
        word
        for word in used
        if word in made and made[word].operation_id == "createWallet" and made[word].data.get("publicId") == word
    ]


def _given(client: ApiClient, exchanges: Sequence[Exchange]) -> list[Exchange]:
    """The exchanges that made the records `exchanges` use but did not make (earlier tests made them), and that paid
    into them, in the order they were sent; the records those needed too."""
    inside = {id(exchange) for exchange in exchanges}
    log = client.exchanges
    given: dict[int, Exchange] = {}
    pending = list(exchanges)
    while pending:
        exchange = pending.pop()
        for word in set(_WORD.findall(request_text(exchange))):
            for earlier in [*([log.made[word]] if word in log.made else []), *log.payments.get(word, ())]:
                if id(earlier) not in inside and id(earlier) not in given and _before(earlier, exchanges[0]):
                    given[id(earlier)] = earlier
                    pending.append(earlier)
    return sorted(given.values(), key=lambda exchange: exchange.started or 0.0)


def _before(earlier: Exchange, first: Exchange) -> bool:
    return earlier.started is None or first.started is None or earlier.started <= first.started
