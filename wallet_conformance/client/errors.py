"""What the client raises when a request gets no usable answer: the target unreachable or refusing a setup step
(TargetError), a request not sent because the run is stopping (NotSent), the silence of one operation (Unanswered), a
429 it could not wait out (RateLimited), a request it will not send past the environment's proxy (ProxyBypassed); and,
inside the client's transports, a copy left without an answer (NoAnswer, Closed)."""

from __future__ import annotations

import unittest

import httpx

from wallet_conformance.client.exchange import Exchange, Silence
from wallet_conformance.client.redaction import redact


class TargetError(Exception):
    """The target could not be reached or did not let the suite set up what a test needs.

    `exchange` is the refused exchange, when there was one. `requirement`, when set, is the requirement the
    setup step itself exercises (that a documented create-wallet request is accepted, say): the report counts
    the error as a failure of that requirement only, and the test's other requirements as blocked.
    """

    def __init__(self, message: str, exchange: Exchange | None = None, requirement: str | None = None) -> None:
        super().__init__(message)
        self.exchange = exchange
        self.requirement = requirement


class NotSent(TargetError, unittest.SkipTest):
    """A request the client would not send because the run is stopping (the target is down or failing).

    The test is not judged (a skip that says why; the run's stop reason is in the report), and a property test
    stops at once: Hypothesis re-raises a skip, where a failure would have it replay examples, each refused
    again, for seconds of CPU.
    """


class Unanswered(TargetError):
    """The silence of one operation: a request the target left without an answer, sent again once (or waited on twice
    as long), while it answered a cheap read at once; `again` when the same request went unanswered earlier in the run
    and was not waited on this time. A fact of the transport: what it means for the target's conformance is decided
    above the client."""

    def __init__(self, silence: Silence, again: bool = False) -> None:
        self.silence = silence
        self.again = again
        super().__init__(
            redact(
                f"{silence.method} {silence.url}: {silence.summary}"
                + ("; not waited on again: the same request went unanswered earlier in the run" if again else "")
                + f"; meanwhile {silence.alive}"
            )
        )


class RateLimited(TargetError):
    """A 429 the client could not wait out (--rate-limit-wait, Retry-After beyond its bounds): the test cannot judge
    a throttled answer, and the run stops after it (plugin/running.py)."""


class ProxyBypassed(TargetError):
    """A request the client will not send plain (a header value with whitespace around it, which only http.client
    writes): the environment names a proxy for the target, and http.client would go past it, to the target's host as
    this machine resolves and reaches it, not as the run's other requests do."""


class NoAnswer(TargetError):
    """No full answer within the request's wait (a timeout of the target's own, not the test's bound)."""


class Closed(NoAnswer):
    """The connection was closed or reset after the request was sent, without an answer (or with bytes that are no
    HTTP answer): no answer, as a silence is, only sooner."""


# The transport errors of a request sent on an open connection that got no answer; a connection that could not be
# opened (httpx.ConnectError) is a target that cannot be reached, not one operation left unanswered.
CLOSED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)
