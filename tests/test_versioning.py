"""Versioning: the version is the final path segment `/v1` of the base address."""

from __future__ import annotations

import pytest

from wallet_conformance.judge import envelope
from wallet_conformance.judge.observations import version_answer
from wallet_conformance.spec import contract


@pytest.mark.requirement("VER-01")
def test_operations_answer_under_v1(samples, target):
    """GET /transactions/banks at the base address ending in /v1 answers a 2xx JSON envelope listing banks."""
    # The base address is the suite's configuration, not evidence: the evidence is what the target answers there.
    segment = contract.version_segment()
    if not target.base_url.rstrip("/").endswith(segment):
        pytest.skip(
            f"the base address given does not end with {segment}: nothing shows the target serves the version there"
        )
    exchange = samples.accepted("listBanks")
    envelope.json_envelope(exchange)
    envelope.data_is_array(exchange)


@pytest.mark.requirement("VER-02")
def test_other_version_segments_are_observed(api, samples, target, observe):
    """What GET /transactions/banks answers under /v2 and without a version segment (recorded, not judged)."""
    v1 = samples("listBanks")
    root = target.base_url.rstrip("/").removesuffix(contract.version_segment())
    path = contract.operations()["listBanks"].path
    observed = {contract.version_segment(): version_answer(v1, root)}
    for segment in ("/v2", ""):
        exchange = api.request("GET", f"{root}{segment}{path}", absolute=True)
        observed[segment or "(no version segment)"] = version_answer(exchange, root, v1)
    observe("VER-02", operation="listBanks", responses=observed)
