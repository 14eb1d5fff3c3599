"""The reference implementation of the Wallet, Collection Account and Transfer Service API.

An in-memory, deterministic model of the document, served over HTTP with sandbox controls, and a
catalogue of faults that each break one requirement, and of variants that each take another legitimate
reading of a point the document leaves open (for testing the conformance suite itself, both ways).

    from wallet_conformance.reference import ReferenceServer
    with ReferenceServer() as server:
        ...  # server.base_url, server.secret_key, server.funding_url

Where the document is silent, the reference's choices are listed in README.md beside this file.
"""

from wallet_conformance.reference.faults import FAULTS, Fault
from wallet_conformance.reference.server import ReferenceServer
from wallet_conformance.reference.variants import VARIANTS, Variant

__all__ = ["FAULTS", "VARIANTS", "Fault", "ReferenceServer", "Variant"]
