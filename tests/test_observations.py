"""Observations of what the document leaves 'not shown' across every operation (INFO: recorded, never judged)."""

from __future__ import annotations

import pytest

from wallet_conformance.judge.observations import rate_limit_headers
from wallet_conformance.spec import contract

OPERATIONS = tuple(contract.operations())


@pytest.mark.requirement("LIM-23")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_rate_limit_headers_are_observed(samples, observe, operation_id):
    """The rate-limit headers on a successful response of each operation are recorded."""
    exchange = samples(operation_id)
    observe("LIM-23", operation=operation_id, status=exchange.status, rate_limit_headers=rate_limit_headers(exchange))
