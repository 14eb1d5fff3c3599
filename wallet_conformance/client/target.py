"""The implementation under test, as the transport sees it: where requests go and with which keys. It is a deployed
implementation, or the bundled reference the plugin starts for the run (plugin/run.py); whether it speaks the
protocol at all is the preflight's to say (plugin/preflight.py)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from wallet_conformance.settings import Settings


@dataclass(frozen=True)
class Target:
    """Where the run sends its requests, with which keys: the account's secret key, and (for the isolation tests)
    the secret key of an account of another business on the same target, when there is one."""

    base_url: str
    secret_key: str = field(repr=False)
    funding_url: str | None
    embedded: bool
    second_secret_key: str | None = field(default=None, repr=False)
    # The bundled reference's GET /sandbox/due: how many changes it has yet to make after its answers. A wait for a
    # balance may end as soon as there are none (world/money.py); a deployed target has no such address.
    due_url: str | None = None

    def public(self) -> dict[str, Any]:
        """What a report may show of the target: never a key."""
        return {"base_url": self.base_url, "funding_url": self.funding_url, "embedded_reference": self.embedded}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def configured(settings: Settings) -> Target:
    """The deployed implementation the options name."""
    assert settings.base_url and settings.secret_key
    return Target(
        base_url=settings.base_url,
        secret_key=settings.secret_key,
        funding_url=settings.funding_url,
        embedded=False,
        second_secret_key=settings.second_secret_key,
    )
