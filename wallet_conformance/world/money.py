"""Following the money: a transfer's end, what it did to each balance, and that a refused one moved nothing.

resources.py makes and funds the wallets; this module follows what happens to their money. One word for each
question a test asks, and when to use which:

- What does a wallet hold? `Resources.balance`: the one balance read, an integer of kobo (else the test stops
  on SVC-21).
- How much to fund a wallet for one transfer? `funding`: the amount and room for a fee the document does not
  bound.
- What did the target accept? `accepted_transfer` (the transaction of an accepted transfer made as a setup
  step), `amount_of` (a money field that must be an integer to be followed), `fee`.
- When has a transfer ended? `wait_settled` waits until it leaves `pending` and says None if it never does
  within --settle-timeout; `settled` is the same wait for a test whose verdict needs the end (it cannot judge
  otherwise).
- What did a settled transfer do to a wallet? `balance_after_settlement`. A transfer that ended another way and
  moved nothing is not judged by its money: `did_not_complete`.
- Has a balance moved yet? `balance_after_change` (the balance once it moved, within a time), `balances_moved`
  (which of several left their value within --quiet-window), `balance_held_still` (read until it stops moving).
- Did a transfer that must not happen move money? `refused_without_debit` (refused with a 4xx, and nothing
  moved after), `never_completes` (refused at once, or accepted and failed later: either way nothing moved).
- Where did money go? `pays_into`, `pays_from`: whether a listed transaction pays into or out of a wallet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wallet_conformance.client.api import Exchange, TargetError
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge
from wallet_conformance.spec import contract
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources

SETTLEMENT = "settlement"  # Resources.gave_up: a transfer that had to settle stayed pending
SETTLING_READS = 3  # times a balance may still move (a debit, then a refund) before it is taken as still


def funding(operation_id: str, amount: int | None = None) -> int:
    """Enough kobo for one accepted transfer of `amount` (default: the minimum) and its fee.

    The document bounds no fee ("a `fee` that may be greater than 0"; whether wallet transfers cost one is not
    shown): the room left covers a flat fee of up to twice the minimum transfer (200 naira) or a tenth of the
    amount, whichever is more.
    """
    minimum = contract.minimum_amount(operation_id)
    amount = amount or minimum
    return amount + max(2 * minimum, amount // 10)


# ------------------------------------------------------------------ what the target accepted


def accepted_transfer(exchange: Exchange, what: str) -> dict[str, Any]:
    """The transaction of an accepted transfer made as a setup step (a refusal fails its acceptance requirement)."""
    if not exchange.ok or not isinstance(exchange.data, dict) or not isinstance(exchange.data.get("reference"), str):
        raise TargetError(f"could not {what}: the target answered {exchange.status} without a transaction "
                          f"reference\n{exchange.describe()}", exchange,
                          requirement=contract.acceptance_requirement(exchange.operation_id))
    return exchange.data


def amount_of(data: Any, name: str, exchange: Exchange) -> int:
    """A money field of a response, which must be an integer of kobo to follow the money."""
    value = data.get(name) if isinstance(data, dict) else None
    if type(value) is not int:
        raise TargetError(f"the {exchange.operation_id} response has {name} {value!r}, not an integer of kobo "
                          f"(see SVC-21): cannot follow the money\n{exchange.describe()}", exchange,
                          requirement=contract.MONEY_INTEGERS)
    return value


def fee(data: dict[str, Any], exchange: Exchange, where: str = "data", *, requirement: str | None = None) -> int:
    """A transfer's fee: an integer of 0 or more."""
    value = data.get("fee")
    if type(value) is not int or value < 0:
        checks.fail(f"{where}.fee is an integer of 0 or more", "an integer >= 0", value, exchange,
                    requirement=requirement)
    return value


# ------------------------------------------------------------------ a transfer's end


def wait_settled(resources: Resources, reference: str, *, must_settle: bool = True) -> dict[str, Any] | None:
    """The transaction once its status is no longer `pending`, or None if it stays pending past --settle-timeout.

    A transfer that must settle and does not is remembered: later waits fail at once with its evidence. One that
    need not (an overdraft or a transfer touching a closed wallet, accepted: whether it ever leaves `pending` is
    not shown) leaves no such mark, and is not waited for once a transfer that should have settled did not.
    """

    def left_pending() -> dict[str, Any] | None:
        exchange = resources.verify(reference)
        data = exchange.data if exchange.ok else None
        if isinstance(data, dict) and data.get("status") not in (None, contract.pending_state()):
            return data
        return None

    if SETTLEMENT in resources.gave_up:
        if not must_settle:
            return None
        raise TargetError(f"not waited again: {resources.gave_up[SETTLEMENT]}")
    found = poll(left_pending, resources.settings.settle_timeout)
    if found is None and must_settle:
        resources.gave_up[SETTLEMENT] = (f"transaction {reference} stayed pending for "
                                         f"{resources.settings.settle_timeout:g} s (--settle-timeout)")
    return found


def settled(resources: Resources, reference: str) -> dict[str, Any]:
    """The transaction once it left `pending`, whatever status word it then shows; the test cannot judge its money
    while it is pending.

    The status words after settlement are not shown (`success` is the one observed): callers judge a transaction
    by its money, and one that ended another way and moved nothing with `did_not_complete`.
    """
    done = wait_settled(resources, reference)
    if done is None:
        raise CannotJudge(f"transaction {reference} was still pending after --settle-timeout "
                          f"({resources.settings.settle_timeout:g} s); the document does not show when a transfer "
                          "leaves pending, so its money cannot be checked here")
    return done


def did_not_complete(done: dict[str, Any], moved: bool) -> None:
    """Cannot judge a settled transaction by its money when it shows a status other than the observed completed one
    and moved nothing: it ended another way (a payout failed and refunded, say)."""
    if done.get("status") != contract.success_state() and not moved:
        raise CannotJudge(f"transaction {done.get('reference')} left pending with status {done.get('status')!r}, "
                          f"not the observed {contract.success_state()!r}, and moved no money: it did not complete, "
                          "so its money is not checked here")


# ------------------------------------------------------------------ balances that move, or must not


def balance_after_change(resources: Resources, public_id: str, before: int, timeout: float | None = None) -> int:
    """The wallet's balance once it differs from `before` (or `before` if it stays so past `timeout`, by default
    --settle-timeout)."""
    changed = poll(lambda: [balance] if (balance := resources.balance(public_id)) != before else None,
                   resources.settings.settle_timeout if timeout is None else timeout)
    return changed[0] if changed else before


def balance_after_settlement(resources: Resources, public_id: str, before: int, done: dict[str, Any]) -> int:
    """A wallet's balance once the transaction `done` left `pending`: a balance still at `before` is read again
    until it moves, since when balances show a settled transfer is not shown. Within --settle-timeout when `done`
    shows the observed completed status; within --quiet-window when it shows another word, which may name an end
    that moves nothing (the status words after settlement are not shown either)."""
    completed = done.get("status") == contract.success_state()
    return balance_after_change(resources, public_id, before,
                                None if completed else resources.settings.quiet_window)


def balance_held_still(resources: Resources, public_id: str, read: Callable[[str], int] | None = None) -> int:
    """A wallet's balance once it stops moving: read until it holds for --quiet-window, at most SETTLING_READS
    times (a debit, then a refund, may post a moment after a status changed). `read` reads a balance (default
    `Resources.balance`; the money model passes its own, which logs every call of its program)."""
    read = read or resources.balance
    value = read(public_id)
    for _ in range(SETTLING_READS):
        moved = poll(lambda seen=value: [now] if (now := read(public_id)) != seen else None,
                     resources.settings.quiet_window)
        if not moved:
            break
        value = moved[0]
    return value


def balances_moved(resources: Resources, before: dict[str, int]) -> dict[str, int]:
    """The wallets whose balance left its `before` value within --quiet-window ({} when none did)."""

    def moved() -> dict[str, int]:
        now = {public_id: resources.balance(public_id) for public_id in before}
        return {public_id: value for public_id, value in now.items() if value != before[public_id]}

    return poll(moved, resources.settings.quiet_window) or {}


def refused_without_debit(resources: Resources, exchange: Exchange, before: dict[str, int], why: str, *,
                          requirement: str | None = None) -> None:
    """The transfer was refused with a 4xx, and no balance of `before` moved afterwards."""
    checks.refused(exchange, why, requirement=requirement)
    moved = balances_moved(resources, before)
    if moved:
        checks.fail("a refused transfer changes no balance", before, moved, exchange, requirement=requirement)


def never_completes(resources: Resources, exchange: Exchange, before: dict[str, int], title: str, why: str, *,
                    seen: Callable[..., None] | None = None, requirement: str | None = None) -> None:
    """A transfer that must not happen (`title`: "a transfer from a closed wallet") moves no money, whether the
    target refuses it at once or accepts it and fails it later: which of the two is not shown ("Transitions
    between transaction statuses: not shown"), as for a transfer the balance cannot cover.

    Refused: a 4xx, after which no balance of `before` moves. Accepted: it never reaches the completed status,
    and every balance of `before` is back at its value within --settle-timeout; the test cannot judge its end if
    it is still pending then. `seen` gets how the target read it before it is judged (an observation).
    """
    record = seen or (lambda **_: None)
    if not exchange.ok:
        record(reading="refused at request time", status=exchange.status)
        refused_without_debit(resources, exchange, before, why, requirement=requirement)
        return
    data = accepted_transfer(exchange, f"read the accepted {why}")
    done = wait_settled(resources, data["reference"], must_settle=False)
    final = done.get("status") if done else None
    record(reading="accepted, then followed", status=exchange.status, status_on_acceptance=data.get("status"),
           status_after=final or "still pending")
    if final == contract.success_state():
        checks.fail(f"{title} never completes", f"a refusal, or a status other than {final!r}", final,
                    resources.verify(data["reference"]), detail=why, requirement=requirement)
    back = poll(lambda: all(resources.balance(wallet) == held for wallet, held in before.items()),
                resources.settings.settle_timeout)
    if not back:
        now = {wallet: resources.balance(wallet) for wallet in before}
        checks.fail(f"{title} moves no money", before, now, exchange, requirement=requirement,
                    detail=f"{why}; its status {final or 'still pending'} after --settle-timeout")
    if done is None:
        raise CannotJudge(f"the {why} was accepted and still pending after --settle-timeout "
                          f"({resources.settings.settle_timeout:g} s): no money moved so far, but its end was not seen")


# ------------------------------------------------------------------ where money went


def pays_into(entry: dict[str, Any], wallet: dict[str, Any]) -> bool:
    """Whether a listed transaction pays into `wallet` (by publicId or account number)."""
    destination = entry.get("destinationData") if isinstance(entry.get("destinationData"), dict) else {}
    return wallet.get("publicId") in (entry.get("destination"), destination.get("publicId")) or (
        destination.get("accountNumber") == wallet.get("accountNumber"))


def pays_from(entry: dict[str, Any], wallet: dict[str, Any]) -> bool:
    """Whether a listed transaction pays out of `wallet` (by publicId)."""
    source = entry.get("sourceData") if isinstance(entry.get("sourceData"), dict) else {}
    return wallet.get("publicId") in (entry.get("source"), source.get("publicId"))
