"""The opening line of a record of judgement, as the self-tests make records by hand."""

from __future__ import annotations

from typing import Any

from wallet_conformance.reporting.from_record import run_line
from wallet_conformance.reporting.gating import Gate


def opening(mode: str = "run", base_url: str | None = None, gate: Gate | None = None) -> dict[str, Any]:
    """A `run` line of `mode` against `base_url`, seed 1 in staging, nothing selected, under `gate`."""
    return run_line(
        mode=mode,
        target={"base_url": base_url},
        environment="staging",
        seed=1,
        strict=False,
        selected=(),
        gate=gate or Gate(),
        run={},
    )
