"""The implementation under test: a deployed one, or the bundled reference started for the run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from wallet_conformance.client import ApiClient, TargetError
from wallet_conformance.options import Settings


@dataclass(frozen=True)
class Target:
    base_url: str
    secret_key: str = field(repr=False)
    funding_url: str | None
    settle_url: str | None  # the reference's sandbox settle hook: lets money tests skip the settle delay
    embedded: bool

    def public(self) -> dict[str, Any]:
        """What a report may show of the target: never the key."""
        return {"base_url": self.base_url, "funding_url": self.funding_url, "embedded_reference": self.embedded}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def start_reference(settings: Settings) -> tuple[Target, Any]:
    """Start the bundled reference server on a free loopback port; returns the target and the server."""
    from wallet_conformance.reference import (
        ReferenceServer,  # imported late: only runs that need it pay for it
    )

    server = ReferenceServer(faults=settings.reference_faults, settle_delay=settings.reference_settle_delay,
                             variants=settings.reference_variants)
    server.start()
    target = Target(base_url=server.base_url, secret_key=server.secret_key, funding_url=server.funding_url,
                    settle_url=server.settle_url, embedded=True)
    return target, server


def configured(settings: Settings) -> Target:
    assert settings.base_url and settings.secret_key
    return Target(base_url=settings.base_url, secret_key=settings.secret_key, funding_url=settings.funding_url,
                  settle_url=None, embedded=False)


def probe(target: Target, timeout: float) -> str | None:
    """One read with the key: None when the target answers and accepts the key, else why the run cannot go on."""
    client = ApiClient(target.base_url, target.secret_key, timeout=timeout)
    try:
        exchange = client.call("listBanks")
    except TargetError as error:
        return f"the target at {target.base_url} cannot be reached: {error}"
    finally:
        client.close()
    if exchange.status in (401, 403):
        return (f"the target refused the secret key (GET /transactions/banks answered {exchange.status}): "
                "check --secret-key. If the key is right, the target breaks AUTH-04.")
    return None
