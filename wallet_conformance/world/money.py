"""Following the money: a transfer's end, what it did to each balance, and that a refused one moved nothing.

wallets.py makes the wallets and funding.py funds them; this module follows what happens to their money. One word
for each question a test asks, and when to use which:

- What does a wallet hold? `Resources.balance`: the one balance read, an integer of kobo (else the test stops
  on SVC-21).
- How much to fund a wallet for one transfer? `funding`: the amount and room for a fee the document does not
  bound. A transfer that must be accepted though the fee may exceed that room: `sent_with_room` (sent once more
  after a top-up when refused).
- What did the target accept? `accepted_transfer` (the transaction of an accepted transfer made as a setup
  step), `amount_of` (a money field that must be an integer to be followed), `fee`; what a transfer takes from its
  source by its own answer, amount plus fee: `charged`.
- When has a transfer ended? One wait, `settled_or_none`: the transaction once it left `pending` (verify shows it),
  or None if it is still pending after --settle-timeout; given the exchange that answered the transfer, by its
  reference. `settled_or_skip` is the same wait for a test whose verdict needs the end: it skips (CannotJudge)
  while the transfer is pending. What the wait reads can be another look at the transfer: `listed` (the transaction
  list), `verify_answer` (verify's answer, whatever it shows once it stopped saying pending).
- Did a settled transfer complete? A transfer that ended another way and moved nothing, or only its fee
  (`only_the_fee`), is not judged by its money: `skip_unless_completed` skips it (`skip_unless_all_completed` for
  several).
- What does a balance show once it moved, reached a value, or held still? One wait, `balance_or_last`: read once
  per poll until it moved from a value after a settlement (within --settle-timeout, or --quiet-window when the
  status word is another), reached an expected value, or held still for --quiet-window; it never skips nor fails:
  past its time it gives what it read last.
- Did a transfer that must not happen move money? `refused_without_debit` (refused, no 2xx, and nothing
  moved after), `never_completes` (refused at once, or accepted and failed later: either way nothing moved).
- Where did money go? `pays_into`, `pays_from`: whether a listed transaction pays into or out of a wallet;
  `is_credit_to`, `listed_credit`: a credit to a wallet, and one found in GET /transactions.
- Where does a settled transfer show its credit leg? `credit_leg_shown` (meta.credit, a listed credit, or neither).
- What did an inbound payment do? `inbound_payment` (a `Funding`: the payment, whether it was credited, the
  rise). A rise short of the amount: `shortfall_explained` (a fee on the credit, or debits out of the wallet,
  account for it), `shortfall_accounted_for` (the verdict, reading the transactions until they explain it).
- Where do a test's transfers come from? `Purse`: a new wallet for each, funded for it and its fee. Transfers the
  target should refuse (key probes, wrong values): `SharedPurse`, one funded pair per operation, shared.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge import checks
from wallet_conformance.judge.failures import CannotJudge, check
from wallet_conformance.spec import contract
from wallet_conformance.world import bodies, lists
from wallet_conformance.world.funding import Funding
from wallet_conformance.world.polling import poll
from wallet_conformance.world.resources import Resources

SETTLEMENT = "settlement"  # Resources.gave_up: a transfer that had to settle stayed pending
SETTLING_READS = 3  # times a balance may still move (a debit, then a refund) before it is taken as still
TOP_UP_MINIMUMS = 50  # `sent_with_room`: a refused transfer is sent again after a top-up of this many minimums


def funding(operation_id: str, amount: int | None = None) -> int:
    """Enough kobo for one accepted transfer of `amount` (default: the minimum) and its fee.

    The document bounds no fee ("a `fee` that may be greater than 0"; whether wallet transfers cost one is not
    shown): the room left covers a flat fee of up to twice the minimum transfer (200 naira) or a tenth of the
    amount, whichever is more.
    """
    minimum = contract.minimum_amount(operation_id)
    amount = amount or minimum
    return amount + max(2 * minimum, amount // 10)


def sent_with_room(resources: Resources, source: str, operation_id: str, send: Callable[[], Exchange]) -> Exchange:
    """The answer to `send`, a transfer of `operation_id` out of `source` (a wallet funded by `funding`) that must be
    accepted; when it is refused, the answer to sending it once more after `source` got TOP_UP_MINIMUMS minimums more.

    No fee is bounded ("a `fee` that may be greater than 0"), so a fee above the room `funding` leaves is
    legitimate, and a refusal for want of balance is not the amount's: only a refusal with ample room is judged.
    The top-up is spent from --max-amount (past it the test skips).
    """
    exchange = send()
    if exchange.ok:
        return exchange
    resources.fund(source, TOP_UP_MINIMUMS * contract.minimum_amount(operation_id))
    return send()


# ------------------------------------------------------------------ what the target accepted


def accepted_transfer(exchange: Exchange, what: str) -> dict[str, Any]:
    """The transaction of an accepted transfer made as a setup step (a refusal fails its acceptance requirement, or
    a 401 the key's: `contract.refusal_requirement`)."""
    if not exchange.ok or not isinstance(exchange.data, dict) or not isinstance(exchange.data.get("reference"), str):
        raise TargetError(
            f"could not {what}: the target answered {exchange.status} without a transaction "
            f"reference\n{exchange.describe()}",
            exchange,
            requirement=contract.refusal_requirement(exchange.operation_id, exchange.request_body, exchange.status),
        )
    return exchange.data


def amount_of(data: Any, name: str, exchange: Exchange) -> int:
    """A money field of a response, which must be an integer of kobo to follow the money."""
    value = data.get(name) if isinstance(data, dict) else None
    if type(value) is not int:
        raise TargetError(
            f"the {exchange.operation_id} response has {name} {value!r}, not an integer of kobo "
            f"(see SVC-21): cannot follow the money\n{exchange.describe()}",
            exchange,
            requirement=contract.MONEY_INTEGERS,
        )
    return value


def charged(data: Any, amount: int, exchange: Exchange) -> int:
    """What a transfer of `amount` kobo takes from its source by its own answer: amount plus its fee, which is what
    the document makes actualAmount. The balances are judged against it; whether the answer's actualAmount says the
    same is RES-65's and RES-87's matter, and whether the fee is 0 or more END-34's. An answer without an integer fee
    is taken at its actualAmount; one with neither cannot be followed (SVC-21)."""
    data = data if isinstance(data, dict) else {}
    if type(data.get("fee")) is int:
        return amount + data["fee"]
    return amount_of(data, "actualAmount", exchange)


# ------------------------------------------------------------------ a transfer's end: the one settlement wait


def verified(resources: Resources, reference: str) -> Callable[[], dict[str, Any] | None]:
    """What the settlement wait reads by default: verify's transaction for `reference` once its status is there and
    is no longer `pending` (None before)."""

    def left_pending() -> dict[str, Any] | None:
        exchange = resources.verify(reference)
        data = exchange.data if exchange.ok else None
        if isinstance(data, dict) and data.get("status") not in (None, contract.pending_state()):
            return data
        return None

    return left_pending


def listed(resources: Resources, transfer: dict[str, Any]) -> Callable[[], tuple[dict[str, Any], Exchange] | None]:
    """The transfer as the transaction list shows it once its status there is no longer `pending`, with the page
    that shows it (None while the list shows it pending, or not at all). Found by reference and, given one,
    publicId."""

    def shows(entry: Any) -> bool:
        return (
            isinstance(entry, dict)
            and entry.get("reference") == transfer.get("reference")
            and entry.get("publicId", transfer.get("publicId")) == transfer.get("publicId")
        )

    def left_pending() -> tuple[dict[str, Any], Exchange] | None:
        listing = lists.read(resources.api, "listTransactions", until=lambda entries: any(map(shows, entries)))
        entry = next(filter(shows, listing.entries), None)
        if entry is None or entry.get("status") in (None, contract.pending_state()):
            return None
        return entry, listing.exchanges[-1]  # the list is read until the page that shows it

    return left_pending


def verify_answer(resources: Resources, reference: str) -> Callable[[], Exchange | None]:
    """Verify's answer for `reference` once it does not say `pending` (one without a readable status included):
    what verify shows, whatever it shows, once it stopped showing the transfer pending."""

    def left_pending() -> Exchange | None:
        exchange = resources.verify(reference)
        data = exchange.data if exchange.ok else None
        return exchange if not isinstance(data, dict) or data.get("status") != contract.pending_state() else None

    return left_pending


def settled_or_none(
    resources: Resources,
    transfer: str | Exchange,
    *,
    must_settle: bool | None = True,
    look: Callable[[], Any] | None = None,
) -> Any:
    """The one wait for a transfer's end: what `look` shows once the transfer left `pending` (by default `verified`:
    its transaction, whatever status word it then shows), read once per poll within --settle-timeout; None when it
    is still pending then. It never skips nor fails: `settled_or_skip` skips. `transfer` is its reference, or the
    exchange that answered it (None at once when that shows no reference to follow it by).

    `must_settle`: True for a transfer the document expects to leave pending (an affordable one): one that does not is
    remembered, and later waits fail at once with its evidence (TargetError) rather than wait again. False for one
    that need never leave it (an overdraft or a transfer touching a closed wallet, accepted: whether it ever leaves
    pending is not shown): not remembered, and not waited for once a transfer that had to settle did not. None for a
    look at how the target shows a transfer (verify beside the transaction list): waited for, not remembered.
    """
    reference = (
        transfer
        if isinstance(transfer, str)
        else (transfer.data.get("reference") if isinstance(transfer.data, dict) else None)
    )
    if not isinstance(reference, str):
        return None
    if must_settle is not None and SETTLEMENT in resources.gave_up:
        if not must_settle:
            return None
        raise TargetError(f"not waited again: {resources.gave_up[SETTLEMENT]}")
    found = poll(look or verified(resources, reference), resources.settings.settle_timeout)
    if found is None and must_settle:
        resources.gave_up[SETTLEMENT] = (
            f"transaction {reference} stayed pending for {resources.settings.settle_timeout:g} s (--settle-timeout)"
        )
    return found


def settled_or_skip(resources: Resources, reference: str) -> dict[str, Any]:
    """`settled_or_none` for a test whose verdict needs the end: the transaction once it left `pending`, whatever
    status word it then shows; a skip (CannotJudge) when it is still pending after --settle-timeout.

    The status words after settlement are not shown (`success` is the one observed): callers judge a transaction
    by its money, and skip one that ended another way and moved nothing with `skip_unless_completed`.
    """
    done = settled_or_none(resources, reference)
    if done is None:
        raise CannotJudge(
            f"transaction {reference} was still pending after --settle-timeout "
            f"({resources.settings.settle_timeout:g} s); the document does not show when a transfer "
            "leaves pending, so its money cannot be checked here"
        )
    return done


def skip_unless_completed(done: dict[str, Any], moved: bool, *, fee_kept: bool = False) -> None:
    """Skips (CannotJudge) judging a settled transaction by its money when it shows a status other than the observed
    completed one and moved nothing, or only its fee (`fee_kept`, see `only_the_fee`): it ended another way (a payout
    failed and refunded, say; what a transfer that did not complete does with its fee is not said). One that moved
    anything else is judged as a completed one: it completed under another status word, or money appeared or
    vanished."""
    if done.get("status") != contract.success_state() and (not moved or fee_kept):
        how = "kept only its fee (its amount given back)" if moved else "moved no money"
        raise CannotJudge(
            f"transaction {done.get('reference')} left pending with status {done.get('status')!r}, "
            f"not the observed {contract.success_state()!r}, and {how}: it did not complete, "
            "so its money is not checked here"
        )


def only_the_fee(taken: int, charged: int, amount: int) -> bool:
    """Whether a transfer that charged `charged` (amount plus fee) for `amount` took only its fee from its source
    (`taken`, kobo): a transfer that did not complete may give its amount back and keep its fee (the document does
    not say what a failed transfer does with its fee)."""
    return charged > amount and taken == charged - amount


def skip_unless_all_completed(done: list[dict[str, Any]]) -> None:
    """Skips (CannotJudge) judging several settled transactions' money together when one shows a status other than
    the observed completed one: it may have ended another way (which money it then moves is not shown)."""
    ended = [each for each in done if each.get("status") != contract.success_state()]
    if ended:
        raise CannotJudge(
            f"transaction {ended[0].get('reference')} left pending with status "
            f"{ended[0].get('status')!r}, not the observed {contract.success_state()!r}: it may not "
            "have completed, so the money of the transfers together is not checked here"
        )


# ------------------------------------------------------------------ balances that move, or must not: the one wait


def _balances(
    resources: Resources,
    wallets: Collection[str],
    until: Callable[[dict[str, int]], bool],
    within: float,
    read: Callable[[str], int] | None = None,
) -> tuple[dict[str, int], bool]:
    """The balances of `wallets`, each read once per poll (polling.poll: its pauses and deadline), until
    `until(balances)` holds or `within` seconds pass (0: read once), or a read made once the target said it has
    nothing left to change (Resources.nothing_due: the bundled reference; what is read then stays until another
    request, so waiting longer would read it again): the balances read last, and whether `until` held."""
    read = read or resources.balance
    seen: dict[str, int] = {}
    held: list[bool] = [False]

    def read_all() -> bool:
        final = within > 0 and resources.nothing_due()  # asked first: the read after it shows every change made
        seen.update({public_id: read(public_id) for public_id in wallets})
        held[0] = bool(until(seen))
        return held[0] or final

    poll(read_all, within)
    return seen, held[0]


def balance_or_last(
    resources: Resources,
    public_id: str,
    *,
    moved_from: int | None = None,
    after: dict[str, Any] | None = None,
    reaching: int | None = None,
    still: bool = False,
    read: Callable[[str], int] | None = None,
) -> int:
    """The one wait for a balance: a wallet's balance, read once per poll, once it shows what is waited for. It never
    skips nor fails: past its time it gives the balance it read last (what a balance that did not come means is the
    caller's verdict to give).

    What is waited for, one of:

    - `moved_from` B, `after` the transaction of a transfer once it left `pending`: once the balance differs from B,
      within --settle-timeout when the transaction shows the observed completed status, within --quiet-window when it
      shows another word, which may name an end that moves nothing (the status words after settlement are not shown,
      nor when balances show a settled transfer); B when it never does.
    - `reaching` E: once it shows E, within --settle-timeout; else once it holds still (credits may post one by one, a
      moment after their transfers' statuses changed).
    - `still`: once it holds still: read until it holds for --quiet-window, at most SETTLING_READS times (a debit,
      then a refund, may post a moment after a status changed).

    `read` reads a balance (default `Resources.balance`; the money model passes its own, which logs every call of its
    program).
    """
    if [moved_from is not None and after is not None, reaching is not None, still].count(True) != 1:
        raise ValueError("balance_or_last waits for one thing: moved_from with after, reaching, or still")
    settings = resources.settings
    if moved_from is not None and after is not None:
        completed = after.get("status") == contract.success_state()
        seen, _ = _balances(
            resources,
            [public_id],
            lambda now: now[public_id] != moved_from,
            settings.settle_timeout if completed else settings.quiet_window,
            read,
        )
        return seen[public_id]
    if reaching is not None:
        seen, reached = _balances(
            resources, [public_id], lambda now: now[public_id] == reaching, settings.settle_timeout, read
        )
        if reached:
            return seen[public_id]
    value = (read or resources.balance)(public_id)
    for _ in range(SETTLING_READS):
        # mypy infers no lambda with a default argument (`held`: this round's value, bound as the lambda is made).
        seen, moved = _balances(
            resources,
            [public_id],
            lambda now, held=value: now[public_id] != held,  # type: ignore[misc]
            settings.quiet_window,
            read,
        )
        if not moved:
            break
        value = seen[public_id]
    return value


def reads(resources: Resources, wallets: dict[str, int]) -> tuple[Exchange, ...]:
    """The latest read of each of `wallets`: the exchanges that show the balances a comparison judges."""
    return tuple(read for wallet in wallets if (read := resources.last_read(wallet)) is not None)


def refused_without_debit(
    resources: Resources,
    exchange: Exchange,
    before: dict[str, int],
    why: str,
    *,
    watch: bool = True,
    requirement: str | None = None,
    unmoved: str | None = None,
) -> None:
    """The transfer was refused, answered with no 2xx (`requirement`), and no balance of `before` moved afterwards
    (`unmoved`, by default the same; within --quiet-window; read once, at once, without `watch`). `before` was read
    just before the transfer: a failure shows those reads and the ones after beside the refusal."""
    shown_before = reads(resources, before)
    checks.refused(exchange, why, requirement=requirement)
    now, _ = _balances(
        resources,
        before,
        lambda now: any(now[wallet] != held for wallet, held in before.items()),
        resources.settings.quiet_window if watch else 0,
    )
    moved = {wallet: value for wallet, value in now.items() if value != before[wallet]}
    checks.holds(
        not moved,
        "a refused transfer changes no balance",
        before,
        moved,
        exchange,
        requirement=unmoved or requirement,
        also=(*shown_before, *reads(resources, moved)),
    )


@check
def never_completes(
    resources: Resources,
    exchange: Exchange,
    before: dict[str, int],
    title: str,
    why: str,
    *,
    seen: Callable[..., None] | None = None,
    requirement: str | None = None,
) -> None:
    """A transfer that must not happen (`title`: "a transfer from a closed wallet") moves no money, whether the
    target refuses it at once or accepts it and fails it later: which of the two is not shown ("Transitions
    between transaction statuses: not shown"), as for a transfer the balance cannot cover.

    Refused: any answer but a 2xx, after which no balance of `before` moves. Accepted: it never reaches the completed
    status, and every balance of `before` is back at its value within --settle-timeout; the test cannot judge its end if
    it is still pending then. Once it shows a status other than the completed one, its source may be short by exactly
    its fee (`only_the_fee`: what a transfer that did not complete does with its fee is not said); every other wallet
    of `before` must be back exactly, so none rises. `seen` gets how the target read it before it is judged (an
    observation).
    """
    record = seen or (lambda **_: None)
    shown_before = reads(resources, before)
    if not exchange.ok:
        record(reading="refused at request time", status=exchange.status)
        refused_without_debit(resources, exchange, before, why, requirement=requirement)
        return
    data = accepted_transfer(exchange, f"read the accepted {why}")
    done = settled_or_none(resources, data["reference"], must_settle=False)
    final = done.get("status") if done else None
    record(
        reading="accepted, then followed",
        status=exchange.status,
        status_on_acceptance=data.get("status"),
        status_after=final or "still pending",
    )
    if final == contract.success_state():
        checks.fail(
            f"{title} never completes",
            f"a refusal, or a status other than {final!r}",
            final,
            resources.verify(data["reference"]),
            detail=why,
            requirement=requirement,
        )

    def unmoved(wallet: str, now: int) -> bool:
        held = before[wallet]
        if now == held:
            return True
        if final in (None, contract.success_state()) or not pays_from(data, {"publicId": wallet}):
            return False
        amount = amount_of(data, "amount", exchange)
        return only_the_fee(held - now, charged(data, amount, exchange), amount)

    _, back = _balances(
        resources,
        before,
        lambda now: all(unmoved(wallet, now[wallet]) for wallet in before),
        resources.settings.settle_timeout,
    )
    if not back:
        now = {wallet: resources.balance(wallet) for wallet in before}
        checks.fail(
            f"{title} moves no money",
            before,
            now,
            exchange,
            requirement=requirement,
            detail=f"{why}; its status {final or 'still pending'}; its balances not back when the wait for them "
            "ended (--settle-timeout, or sooner once the bundled reference had no change left to make)",
            also=(*shown_before, *reads(resources, now)),
        )
    if done is None:
        raise CannotJudge(
            f"the {why} was accepted and still pending after --settle-timeout "
            f"({resources.settings.settle_timeout:g} s): no money moved so far, but its end was not seen"
        )


# ------------------------------------------------------------------ where money went


def pays_into(entry: dict[str, Any], wallet: dict[str, Any]) -> bool:
    """Whether a listed transaction pays into `wallet` (by publicId or account number)."""
    data = entry.get("destinationData")
    destination = data if isinstance(data, dict) else {}
    return wallet.get("publicId") in (entry.get("destination"), destination.get("publicId")) or (
        destination.get("accountNumber") == wallet.get("accountNumber")
    )


def pays_from(entry: dict[str, Any], wallet: dict[str, Any]) -> bool:
    """Whether a listed transaction pays out of `wallet` (by publicId)."""
    data = entry.get("sourceData")
    source = data if isinstance(data, dict) else {}
    return wallet.get("publicId") in (entry.get("source"), source.get("publicId"))


# ------------------------------------------------------------------ an inbound payment, and its fee


def inbound_payment(resources: Resources, public_id: str, amount: int) -> Funding:
    """An inbound payment of `amount` kobo into a wallet through the funding hook, and what it did.

    The test cannot judge one when the run has no funding hook (--funded-wallet pays by wallet transfers); a
    payment the target did not take is a setup error (the run cannot fund wallets). Once the balance rose it is
    read once more, so a debit made with the credit (a levy) shows in `after`.
    """
    resources.skip_without_inbound_payments()
    paid = resources.require_taken(resources.send_funding(public_id, amount))
    return replace(paid, after=resources.balance(public_id)) if paid.credited else paid


def shortfall_explained(entries: list[Any], wallet: dict[str, Any], amount: int, rise: int) -> bool:
    """Whether listed transactions explain an inbound payment of `amount` that raised `wallet`'s balance by only
    `rise`: a fee on a credit into the wallet (a collection fee), debits out of it (a levy: the wallet itself sent
    nothing), or both, which together are more than 0, less than `amount`, and exactly `amount - rise`."""
    listed = [entry for entry in entries if isinstance(entry, dict)]
    fees = [entry.get("fee") for entry in listed if pays_into(entry, wallet)]
    charged = [entry.get("actualAmount", entry.get("amount")) for entry in listed if pays_from(entry, wallet)]
    charges = sum(charge for charge in charged if type(charge) is int)
    return any(
        0 < fee + charges < amount and rise == amount - fee - charges
        for fee in [fee for fee in fees if type(fee) is int and fee >= 0] or [0]
    )


@check
def shortfall_accounted_for(
    api: ApiClient, wallet: dict[str, Any], paid: Funding, *, requirement: str | None = None
) -> None:
    """An inbound payment that raised the balance by less than its amount is explained by the transactions.

    Whether an inbound payment costs a fee is not shown: a rise short of the amount conforms when the transactions
    say why (`shortfall_explained`). GET /transactions is read page after page until they do (list order and
    paging are not shown). Passes when they explain it; cannot judge when they do not and the list was not read
    whole; fails when the whole list was read and nothing in it explains the rise.
    """
    amount, rise = paid.amount, paid.rise

    def explained(entries: list[Any]) -> bool:
        return shortfall_explained(entries, wallet, amount, rise)

    read = lists.read(api, "listTransactions", until=explained)
    if not explained(read.entries) and not read.complete:
        raise CannotJudge(
            f"the balance rose by {rise} for a payment of {amount}, and the transactions that would say "
            f"why were not among those read ({read.note}): not judged"
        )
    if not explained(read.entries):
        checks.fail(
            f"a payment of {amount} kobo raises the balance by {amount}, or by {amount} less the fee or the "
            f"charges the transactions record",
            paid.before + amount,
            paid.after,
            read.exchanges[-1],
            detail=f"the balance rose by {rise}; no fee on the credit nor debit out of the wallet explains "
            f"it ({read.note})",
            requirement=requirement,
        )


# ------------------------------------------------------------------ a transfer's credit leg


def is_credit_to(entry: Any, destination: str, amount: int) -> bool:
    """Whether a listed transaction is a credit of `amount` to the wallet `destination`."""
    return (
        isinstance(entry, dict)
        and entry.get("entry") == "credit"
        and entry.get("destination") == destination
        and entry.get("amount") == amount
    )


def listed_credit(api: ApiClient, destination: str, amount: int) -> tuple[dict[str, Any] | None, lists.Listing]:
    """A credit transaction to `destination` of `amount` in GET /transactions (None when none was read), and what
    was read of the list: list order and paging are not shown, so it is read page after page until it shows."""
    listing = lists.read(
        api,
        "listTransactions",
        until=lambda entries: any(is_credit_to(entry, destination, amount) for entry in entries),
    )
    return next((entry for entry in listing.entries if is_credit_to(entry, destination, amount)), None), listing


def credit_leg_shown(
    api: ApiClient, resources: Resources, reference: str, destination: str, amount: int
) -> dict[str, Any]:
    """Where a wallet-to-wallet transfer of `amount` to `destination`, once settled (`settled_or_skip`), shows the
    destination's credit leg: in the verified debit's meta.credit, as a credit GET /transactions lists, or neither
    (meta "may hold" it: an observation). The test cannot judge a transfer that did not complete."""
    done = settled_or_skip(resources, reference)
    found = done.get("meta")
    meta = found if isinstance(found, dict) else {}
    credit = meta.get("credit")
    in_meta = isinstance(credit, dict) and credit.get("destination") == destination and credit.get("amount") == amount
    if in_meta:
        return {"in_meta_credit": True}
    listed, searched = listed_credit(api, destination, amount)
    if listed is None:
        skip_unless_completed(done, resources.balance(destination) != 0)
    return {"in_meta_credit": False, "listed_credit": listed is not None, "list_read": searched.note}


# ------------------------------------------------------------------ sources of transfers


class Purse:
    """Sources of one test's transfers: a new wallet for each, funded with what the transfer needs and room for its
    fee (`funding`), so a transfer still pending, or debited only at settlement, never leaves the next one short."""

    def __init__(self, resources: Resources, operation_id: str) -> None:
        self.resources = resources
        self.operation_id = operation_id

    def holding(self, amount: int) -> str:
        """The publicId of a new wallet funded for one `operation_id` of `amount` kobo."""
        return self.resources.funded_wallet(funding(self.operation_id, amount))["publicId"]


class SharedPurse:
    """The wallets of transfers the target should refuse (the key probes, the wrong values): per operation a funded
    source and, for a wallet transfer, a destination, shared by them all (a refused transfer moves nothing); new ones
    after a transfer the target accepted, whose money may still be moving."""

    def __init__(self, resources: Resources) -> None:
        self.resources = resources
        self._held: dict[str, tuple[str, str | None]] = {}

    def pair(self, operation_id: str) -> tuple[str, str | None]:
        """The source, funded for one `operation_id` of the minimum and its fee, and the destination (None for a bank
        transfer)."""
        resources = self.resources
        if operation_id not in self._held:
            source = resources.funded_wallet(funding(operation_id))["publicId"]
            destination = resources.wallet()["publicId"] if operation_id == "transfer" else None
            balance_or_last(resources, source, still=True)  # a levy may post a moment after the funding
            self._held[operation_id] = (source, destination)
        return self._held[operation_id]

    def request(self, operation_id: str) -> tuple[dict[str, Any], dict[str, int]]:
        """The body of a valid transfer of `operation_id` (the minimum amount), and the balances it must not move."""
        source, destination = self.pair(operation_id)
        amount = contract.minimum_amount(operation_id)
        if destination is not None:
            body = bodies.transfer(source, destination, amount)
        else:
            body = bodies.bank_transfer(source, *self.resources.external_account(), amount)
        watched = {public_id: self.resources.balance(public_id) for public_id in filter(None, (source, destination))}
        return body, watched

    def after(self, exchange: Exchange) -> None:
        """Forget the wallets of a transfer accepted, or left without an answer: it may still be settling."""
        if (exchange.ok or not exchange.answered) and exchange.operation_id is not None:
            self._held.pop(exchange.operation_id, None)
