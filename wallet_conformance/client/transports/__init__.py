"""The client's policies as httpx transports, each wrapping the next, around httpx's own (`layered` builds them):

    KeepTransport           keep.py        the exchange a request ends with, handed to the client (its log, its judge)
    RateLimitWaitTransport  rate_limit.py  a 429 waited out and the request sent again, or RateLimited
    SilenceTransport        silence.py     a copy left unanswered sent again, then a cheap read: Unanswered
    CaptureTransport        capture.py     each answered copy made an Exchange (client/har/exchange.exchange_from)
    CircuitBreakerTransport breaker.py     nothing sent to a target down or failing; failures and 5xx counted
    DeadlineTransport       deadline.py    the run's time bound: each copy's timeout
    ReadTransport           reading.py     the body read, capped, within the timeout, and timed
    ClientTransport         wire.py        httpx's own transport, as a plain httpx.Client chooses it

A request carries what the layers need of it in its extensions (client/call.py: the Call, the wait of a copy), and an
answer what they made of it (its Body, its Exchange). A layer that sends again builds a fresh copy (Call.copy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from wallet_conformance.client.bound import Bound
from wallet_conformance.client.exchange import Silence
from wallet_conformance.client.transports.breaker import Breaker, CircuitBreakerTransport
from wallet_conformance.client.transports.capture import CaptureTransport
from wallet_conformance.client.transports.deadline import DeadlineTransport
from wallet_conformance.client.transports.keep import Keep, KeepTransport
from wallet_conformance.client.transports.rate_limit import RateLimits, RateLimitWaitTransport
from wallet_conformance.client.transports.reading import ReadTransport
from wallet_conformance.client.transports.silence import CheapRead, SilenceTransport


@dataclass
class Policies:
    """What the layers of one client share, whichever of its connections a request goes by: its timeout, the run's
    bound, the breaker's count, the 429 budget, the requests found silent, and what it does with an exchange."""

    timeout: float
    bound: Bound
    breaker: Breaker
    rate_limits: RateLimits
    unanswered: dict[tuple[Any, ...], Silence]
    keep: Keep
    cheap_read: CheapRead


@dataclass(frozen=True)
class Layers:
    """The layers around one wire: `outer`, the transport a client sends through; `copy`, where one copy of a request
    is sent as it is (captured, not kept, neither waited on again nor past a 429: a cheap read); `wire` itself."""

    outer: httpx.BaseTransport
    copy: httpx.BaseTransport
    wire: httpx.BaseTransport


def layered(wire: httpx.BaseTransport, policies: Policies) -> Layers:
    copy = CaptureTransport(
        CircuitBreakerTransport(
            DeadlineTransport(ReadTransport(wire), policies.timeout, policies.bound), policies.breaker
        )
    )
    silence = SilenceTransport(copy, policies.timeout, policies.breaker, policies.unanswered, policies.cheap_read)
    outer = KeepTransport(RateLimitWaitTransport(silence, policies.rate_limits, policies.bound), policies.keep)
    return Layers(outer, copy, wire)
