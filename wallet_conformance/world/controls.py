"""Acceptance judged against a control request: a request a test expects accepted, once refused, is sent again with
what the test varies (an expireIn at a bound, the key written another way...) set to a plain value. A refused
control shows the operation refusing the request whatever the test varies (the key itself, a field the run's
requests carry, a rule another requirement states), and the test cannot judge what it varies.
"""

from __future__ import annotations

from collections.abc import Callable

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge


def accepted(
    exchange: Exchange,
    why: str,
    control: Callable[[], Exchange],
    plain: str,
    *,
    check: Callable[..., None] = checks.accepted,
) -> None:
    """`exchange` was accepted (`check`: checks.accepted, or checks.accepted_by_the_api); where it was refused, the
    `control` request (the same with `plain`, in words) is sent, and refused too, the test cannot judge."""
    if not exchange.ok:
        seen = control()
        if not seen.ok:
            raise CannotJudge(
                f"{why} was refused (HTTP {exchange.status}), and so was the same request with {plain} "
                f"(HTTP {seen.status}): the operation refused the request, not what this test varies"
            )
    check(exchange, why)


def plain_accepted(exchange: Exchange, words: str) -> None:
    """`exchange`, a plain valid request of the operation whose requests a test varies in one field, was accepted;
    refused, the operation refuses those requests whatever that field, and the test cannot judge it."""
    if not exchange.ok:
        raise CannotJudge(
            f"{words} was refused (HTTP {exchange.status}): the operation refuses the requests this test "
            "sends whatever it varies in them"
        )
