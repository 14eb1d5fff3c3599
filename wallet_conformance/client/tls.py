"""How the client verifies the target's certificate, and what it says when it cannot."""

from __future__ import annotations

import os
import ssl
from functools import cache

import httpx


def tls_verification(ca_bundle: str | None) -> ssl.SSLContext:
    """What httpx verifies certificates with: the given CA bundle, else the system's (SSL_CERT_FILE and
    SSL_CERT_DIR honoured, as httpx does).

    There is deliberately no way to turn verification off.
    """
    return _ssl_context(ca_bundle, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@cache
def _ssl_context(ca_bundle: str | None, cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """Made once per process and setting: loading a CA bundle takes tens of milliseconds, and a run makes a
    client for its preflight, one for its tests and one per cleanup (the self-tests hundreds of runs)."""
    if ca_bundle:
        return ssl.create_default_context(cafile=ca_bundle)
    return httpx.create_ssl_context()


def tls_hint(error: httpx.HTTPError) -> str:
    if "CERTIFICATE_VERIFY_FAILED" in str(error) or isinstance(error.__cause__, ssl.SSLCertVerificationError):
        return (
            " (the target's TLS certificate is not trusted: give the CA with --ca-bundle FILE or "
            "WALLET_API_CA_BUNDLE; the suite never turns verification off)"
        )
    return ""
