"""Hypothesis strategies of the generated tests: values on both sides of every documented limit.

Limits come from the contract (openapi.yaml, the catalogue), never from literals here.
"""

from __future__ import annotations

from hypothesis import strategies as st

from wallet_conformance.spec import contract


def around(bound: int, spread: int = 2) -> st.SearchStrategy[int]:
    """Integers within `spread` of `bound`: the values an off-by-one gets wrong."""
    return st.integers(bound - spread, bound + spread)


def amounts(minimum: int | None = None, ceiling: int | None = None) -> st.SearchStrategy[int]:
    """Transfer amounts in kobo: mostly at the minimum's edge, also well below and above it."""
    low = minimum or contract.minimum_amount("transfer")
    high = ceiling or low * 3
    return st.one_of(around(low), st.integers(1, low - 1), st.integers(low, max(low, high)))


def expire_ins() -> st.SearchStrategy[int]:
    """expireIn seconds at both ends of the documented range, and anywhere from 0 to twice the top."""
    low, high = contract.expire_in_bounds()
    return st.one_of(around(low), around(high), st.integers(0, high * 2))


def reference_lengths() -> st.SearchStrategy[int]:
    """Lengths of a collection reference around the documented minimum."""
    shortest = contract.reference_min_length()
    return st.one_of(around(shortest, 2).filter(lambda n: n > 0), st.integers(1, shortest * 4))


# E-mail addresses every reading of "a valid e-mail address" accepts, and ones none does.
_LOCAL = st.from_regex(r"\A[a-z][a-z0-9]{0,7}(\.[a-z0-9]{1,5})?\Z")
_DOMAIN = st.from_regex(r"\A[a-z][a-z0-9]{1,7}\.(com|ng|org|net)\Z")
valid_emails = st.builds(lambda local, domain: f"{local}@{domain}", _LOCAL, _DOMAIN)
invalid_emails = st.one_of(
    _LOCAL,  # no @
    st.builds(lambda local, domain: f"{local}@@{domain}", _LOCAL, _DOMAIN),
    st.builds(lambda domain: f"@{domain}", _DOMAIN),
    st.builds(lambda local: f"{local}@", _LOCAL),
    st.builds(lambda local, domain: f"{local} @{domain}", _LOCAL, _DOMAIN),
)
