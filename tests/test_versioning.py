"""Versioning: the version is the final path segment `/v1` of the base address."""

from __future__ import annotations

from typing import Any

import pytest

from wallet_conformance.client.api import Exchange
from wallet_conformance.judge import envelope
from wallet_conformance.spec import contract

# Response headers that may announce a version or a deprecation (RFC 8594 Sunset, RFC 9745 Deprecation).
VERSION_HEADER_WORDS = ("version", "deprecat", "sunset")


def version_headers(exchange: Exchange) -> dict[str, str]:
    found = {name.lower(): value for name, value in exchange.response_headers
             if any(word in name.lower() for word in VERSION_HEADER_WORDS)}
    link = exchange.header("link")
    if link is not None:
        found["link"] = link
    return found


def summary(exchange: Exchange, root: str) -> dict[str, Any]:
    return {
        "path": exchange.url.removeprefix(root),
        "status": exchange.status,
        "content_type": exchange.header("content-type"),
        "envelope": isinstance(exchange.json, dict) and "meta" in exchange.json,
        "message": exchange.meta.get("message"),
        "same_banks_as_v1": None,
        "location": exchange.header("location"),
        "version_headers": version_headers(exchange),
    }


@pytest.mark.requirement("VER-01")
def test_operations_answer_under_v1(samples, target):
    """GET /transactions/banks at the base address ending in /v1 answers a 2xx JSON envelope listing banks."""
    # The base address is the suite's configuration, not evidence: the evidence is what the target answers there.
    segment = contract.version_segment()
    if not target.base_url.rstrip("/").endswith(segment):
        pytest.skip(f"the base address given does not end with {segment}: nothing shows the target serves the version "
                    "there")
    exchange = samples.accepted("listBanks")
    envelope.json_envelope(exchange)
    envelope.data_is_array(exchange)


@pytest.mark.requirement("VER-02")
def test_other_version_segments_are_observed(api, samples, target, observe):
    """What GET /transactions/banks answers under /v2 and without a version segment (recorded, not judged)."""
    v1 = samples("listBanks")
    root = target.base_url.rstrip("/").removesuffix(contract.version_segment())
    path = contract.operations()["listBanks"].path
    observed = {contract.version_segment(): summary(v1, root)}
    for segment in ("/v2", ""):
        exchange = api.request("GET", f"{root}{segment}{path}", absolute=True)
        seen = summary(exchange, root)
        if exchange.ok and isinstance(exchange.data, list) and isinstance(v1.data, list):
            seen["same_banks_as_v1"] = exchange.data == v1.data
        observed[segment or "(no version segment)"] = seen
    observe("VER-02", operation="listBanks", responses=observed)
