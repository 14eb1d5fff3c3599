"""The preflight: a couple of reads with the key, made once by the controlling process before any test or --cleanup
(session.py), say whether the target speaks the protocol, and when it does not, why the run stops and with which
exit status. No hooks here."""

from __future__ import annotations

from wallet_conformance.client.api import ApiClient, TargetError, Unanswered
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.target import Target
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reporting.endings import Stop
from wallet_conformance.reporting.verdicts import Outcome
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue

WALLET_LIST = "END-14"  # GET /virtual-accounts returns an array of Wallet with meta.pagination


def preflight_reads() -> tuple[str, ...]:
    """The reads of the preflight: the one unpaged read without a path parameter (the bank list) and the wallet
    list. Safe anywhere (no write), answered 200 with an envelope by every conforming target."""
    unpaged = [
        operation.id
        for operation in contract.operations().values()
        if operation.method == "GET" and "{" not in operation.path and not contract.is_paginated(operation.id)
    ]
    return (*unpaged, *catalogue()[WALLET_LIST].operations)


def _stop(message: str, status: ExitStatus) -> Stop:
    """Why the run cannot go on, and its exit status."""
    return Stop(Outcome.STOPPED_AT_PREFLIGHT, message, int(status))


def preflight(target: Target, timeout: float, ca_bundle: str | None = None) -> Stop | None:
    """A couple of reads with the key: None when the target speaks the protocol, else why the run stops.

    Catches in seconds what would otherwise be hundreds of failures: a wrong URL, an HTML error page
    from a proxy, a server answering 5xx to everything (every preflight read off), a refused key.
    """
    client = ApiClient(target.base_url, target.secret_key, timeout=timeout, ca_bundle=ca_bundle, rate_limit_wait=10)
    stops = []
    try:
        for operation_id in preflight_reads():
            try:
                exchange = client.call(operation_id)
            except Unanswered:  # one read silent while the target answers others: a finding of the tests (ERR-09)
                continue
            except TargetError as error:
                return _stop(f"the target at {target.base_url} cannot be reached: {error}", ExitStatus.CANNOT_RUN)
            stop = _stop_shown_by(exchange, target.base_url)
            if stop is not None and stop.status == ExitStatus.CANNOT_RUN:
                return stop
            stops.append(stop)
    finally:
        client.close()
    # Only when every read is off: one operation answering wrongly is a finding of the tests, not a wrong target.
    return stops[0] if stops and all(stops) else None


def _stop_shown_by(exchange: Exchange, base_url: str) -> Stop | None:
    """The stop one read of the preflight shows (a refused key, a failing target, not the protocol), or None."""
    what = f"{exchange.method} {exchange.url}"
    if exchange.status in (401, 403):
        return _stop(
            f"the target refused the secret key ({what} answered {exchange.status}): check --secret-key. "
            "If the key is right, the target breaks AUTH-04.",
            ExitStatus.CANNOT_RUN,
        )
    if exchange.status >= 500:
        return _stop(
            f"the target is failing: {what} answered {exchange.status}. Nothing can be tested until it "
            f"answers its read operations.\n{_excerpt(exchange)}",
            ExitStatus.TARGET_FAILING,
        )
    base_url_words = f"--base-url must be the API's base address, ending in {contract.version_segment()}: {base_url}"
    location = exchange.header("location")
    if not 200 <= exchange.status < 300 and exchange.is_json and not location:
        # A JSON answer refusing a documented read: a server speaking JSON, with no such operation at that path.
        return _stop(
            f"{what} answered {exchange.status} (in JSON): the base URL likely has the wrong path "
            f"({base_url_words}). No test was run.\n{_excerpt(exchange)}",
            ExitStatus.NOT_THE_PROTOCOL,
        )
    content_type = exchange.header("content-type") or "no content type"
    envelope = exchange.json if isinstance(exchange.json, dict) else {}
    problem = None
    if not 200 <= exchange.status < 300:
        problem = f"answered {exchange.status}" + (f" (redirect to {location})" if location else "")
    elif exchange.truncated:
        problem = f"answered a body of {exchange.size} bytes, more than the suite reads ({len(exchange.text)})"
    elif not exchange.text.strip():
        problem = "answered an empty body"
    elif not exchange.is_json:
        problem = f"answered a body that is not JSON ({content_type})"
    elif not ({"data", "meta"} & set(envelope)):
        problem = "answered JSON that is not the document's envelope (no `data`, no `meta`)"
    elif "json" not in content_type.lower():
        problem = f"answered JSON labelled {content_type!r}, not application/json"
    if problem is None:
        return None
    return _stop(
        f"the target does not answer JSON envelopes: {what} {problem}. Is --base-url right ("
        f"{base_url_words})? No test was run.\n{_excerpt(exchange)}",
        ExitStatus.NOT_THE_PROTOCOL,
    )


def _excerpt(exchange: Exchange) -> str:
    text = " ".join(exchange.text.split())
    return f"  body: {text[:200]}{'...' if len(text) > 200 else ''}" if text else "  body: (empty)"
