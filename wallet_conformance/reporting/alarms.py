"""Findings the reports raise above the verdicts, whatever the requirement's level: an observation that records a
public key moving money (AUTH-06, INFO: what public keys do in requests is not shown, so it fails nothing, but a
key the account publishes that moves its money is what a reader must see first)."""

from __future__ import annotations

from typing import Any

PUBLIC_KEY_MOVED_MONEY = "public_key_moved_money"  # the flag key_probes.public_key_observation sets


def alarms(report: dict[str, Any]) -> list[str]:
    """One line per observation of the report flagged as an alarm."""
    lines = []
    for entry in report["requirements"]:
        for observation in entry.get("observations", ()):
            if isinstance(observation, dict) and observation.get(PUBLIC_KEY_MOVED_MONEY) is True:
                lines.append(
                    f"A PUBLIC KEY MOVED MONEY ({entry['id']}): {observation.get('operation')} was accepted "
                    f"with {observation.get('key')} in x-service-key (HTTP {observation.get('status')}); "
                    "public keys are returned to anyone who lists the accounts"
                )
    return lines
