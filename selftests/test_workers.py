"""The default worker count against the bundled reference (plugin/session.py) and the reference served from a
process of its own (reference/process.py)."""

from __future__ import annotations

import httpx
import pytest

from wallet_conformance.plugin.session import reference_workers
from wallet_conformance.reference.process import ReferenceProcess


def test_the_bundled_reference_gets_two_workers_per_core_at_most_four():
    """With no -n, a run against the bundled reference uses two workers per core, at most four; a deployed target
    gets no count of ours (xdist's own for `-n auto`; with no -n, one process)."""
    assert [reference_workers(True, cores) for cores in (1, 2, 8, None)] == [2, 4, 4, 2]
    assert reference_workers(False, 8) is None


def test_the_reference_process_serves_and_ends_when_stopped():
    """The reference started as its own process answers with the key it printed, and is gone once stopped."""
    server = ReferenceProcess(settle_delay=0.1).start()
    try:
        answer = httpx.get(f"{server.base_url}/transactions/banks", headers={"x-service-key": server.secret_key})
        assert answer.status_code == 200
        assert server.second_secret_key and server.funding_url.startswith(server.base_url.removesuffix("/v1"))
        process = server._process
    finally:
        server.stop()
    assert process is not None and process.returncode is not None
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{server.base_url}/transactions/banks", headers={"x-service-key": server.secret_key})
