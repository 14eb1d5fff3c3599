"""The implementation under test: a deployed one, or the bundled reference started for the run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from wallet_conformance.client.api import ApiClient, Exchange, TargetError, Unanswered
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.settings import Settings
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue


@dataclass(frozen=True)
class Target:
    """Where the run sends its requests, with which keys: the account's secret key, and (for the isolation tests)
    the secret key of an account of another business on the same target, when there is one."""

    base_url: str
    secret_key: str = field(repr=False)
    funding_url: str | None
    embedded: bool
    second_secret_key: str | None = field(default=None, repr=False)

    def public(self) -> dict[str, Any]:
        """What a report may show of the target: never a key."""
        return {"base_url": self.base_url, "funding_url": self.funding_url, "embedded_reference": self.embedded}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def start_reference(settings: Settings) -> tuple[Target, Any]:
    """Start the bundled reference server on a free loopback port; returns the target and the server."""
    from wallet_conformance.reference import (
        ReferenceServer,  # imported late: only runs that need it pay for it
    )

    server = ReferenceServer(faults=settings.reference_faults, settle_delay=settings.reference_settle_delay,
                             variants=settings.reference_variants, latency=settings.reference_latency)
    server.start()
    # The reference seeds a second business with its own key (ReferenceServer.second_secret_key) where it has one.
    target = Target(base_url=server.base_url, secret_key=server.secret_key, funding_url=server.funding_url,
                    embedded=True, second_secret_key=getattr(server, "second_secret_key", None))
    return target, server


def configured(settings: Settings) -> Target:
    assert settings.base_url and settings.secret_key
    return Target(base_url=settings.base_url, secret_key=settings.secret_key, funding_url=settings.funding_url,
                  embedded=False, second_secret_key=settings.second_secret_key)


WALLET_LIST = "END-14"  # GET /virtual-accounts returns an array of Wallet with meta.pagination


def preflight_reads() -> tuple[str, ...]:
    """The reads of the preflight: the one unpaged read without a path parameter (the bank list) and the wallet
    list. Safe anywhere (no write), answered 200 with an envelope by every conforming target."""
    unpaged = [operation.id for operation in contract.operations().values()
               if operation.method == "GET" and "{" not in operation.path and not contract.is_paginated(operation.id)]
    return (*unpaged, *catalogue()[WALLET_LIST].operations)


@dataclass(frozen=True)
class Stop:
    """Why the run cannot go on, and its exit status."""

    message: str
    status: int


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
                return Stop(f"the target at {target.base_url} cannot be reached: {error}", ExitStatus.CANNOT_RUN)
            stop = _judge(exchange, target.base_url)
            if stop is not None and stop.status == ExitStatus.CANNOT_RUN:
                return stop
            stops.append(stop)
    finally:
        client.close()
    # Only when every read is off: one operation answering wrongly is a finding of the tests, not a wrong target.
    return stops[0] if stops and all(stops) else None


def _judge(exchange: Exchange, base_url: str) -> Stop | None:
    what = f"{exchange.method} {exchange.url}"
    if exchange.status in (401, 403):
        return Stop(f"the target refused the secret key ({what} answered {exchange.status}): check --secret-key. "
                    "If the key is right, the target breaks AUTH-04.", ExitStatus.CANNOT_RUN)
    if exchange.status >= 500:
        return Stop(f"the target is failing: {what} answered {exchange.status}. Nothing can be tested until it "
                    f"answers its read operations.\n{_excerpt(exchange)}", ExitStatus.TARGET_FAILING)
    content_type = exchange.header("content-type") or "no content type"
    envelope = exchange.json if isinstance(exchange.json, dict) else {}
    problem = None
    if not 200 <= exchange.status < 300:
        location = exchange.header("location")
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
    return Stop(f"the target does not answer JSON envelopes: {what} {problem}. Is --base-url right (it must be "
                f"the API's base address, ending in /v1: {base_url})? No test was run.\n{_excerpt(exchange)}",
                ExitStatus.NOT_THE_PROTOCOL)


def _excerpt(exchange: Exchange) -> str:
    text = " ".join(exchange.text.split())
    return f"  body: {text[:200]}{'...' if len(text) > 200 else ''}" if text else "  body: (empty)"
