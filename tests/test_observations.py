"""Observations of what the document leaves 'not shown' across every operation (INFO: recorded, never judged)."""

from __future__ import annotations

import pytest

from wallet_conformance.spec import contract

# Headers that announce a rate limit: X-RateLimit-*, RateLimit-* and RateLimit-Policy (IETF draft), Retry-After.
OPERATIONS = tuple(contract.operations())
RATE_LIMIT_WORDS = ("ratelimit", "rate-limit", "retry-after")


@pytest.mark.requirement("LIM-23")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_rate_limit_headers_are_observed(samples, observe, operation_id):
    """The rate-limit headers on a successful response of each operation are recorded."""
    exchange = samples(operation_id)
    headers = {name.lower(): value for name, value in exchange.response_headers
               if any(word in name.lower() for word in RATE_LIMIT_WORDS)}
    observe("LIM-23", operation=operation_id, status=exchange.status, rate_limit_headers=headers)
