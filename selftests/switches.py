"""Where the reference reads its switches (faults and variants): each must be read at exactly one place."""

from __future__ import annotations

import re
from functools import cache

from wallet_conformance.spec.files import ROOT

REFERENCE = ROOT / "wallet_conformance" / "reference"


@cache
def reference_sources(leaving_out: str) -> dict[str, str]:
    """The reference's modules (routes/ included) by path, but the one that declares the switches."""
    return {
        str(path.relative_to(REFERENCE)): path.read_text()
        for path in REFERENCE.rglob("*.py")
        if path.name != leaving_out
    }


def places(kind: str, name: str, declared_in: str) -> tuple[list[str], list[str]]:
    """Where the switch `kind.name` (`Fault.WRONG_CLOSE_MESSAGE`) is named, and where it is read as `.on(...)`: the
    module of each occurrence."""
    sources = reference_sources(declared_in)
    uses = [module for module, text in sources.items() for _ in re.finditer(rf"\b{kind}\.{name}\b", text)]
    reads = [module for module, text in sources.items() for _ in re.finditer(rf"\.on\({kind}\.{name}\)", text)]
    return uses, reads
