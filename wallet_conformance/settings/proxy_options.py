"""The proxy's options (`wallet-conformance proxy`, wallet_conformance/proxy/command.py): its own, declared as the
suite's are, the suite's it takes too, and the checks that span several of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wallet_conformance.settings.checks import (
    base_url,
    host_and_port,
    positive_count,
    positive_megabytes,
    positive_seconds,
)
from wallet_conformance.settings.option import ConfigError, Option

LOOPBACK = ("127.0.0.1", "::1", "localhost")
NOT_LOOPBACK = (
    "--listen {host}:{port} is not a loopback address: the proxy would forward anyone's requests to the "
    "target; add --listen-anywhere to mean it"
)
NO_UPSTREAM = "--upstream (or WALLET_API_UPSTREAM) is required: the target's base URL, ending in /v1"
HAR_FILES_KEPT = 5  # --har-max-size: the rotated files kept besides the current one
# The options of the suite the proxy takes too: the keys (redacted wherever they appear), the target's TLS and time
# bound, where the reports and the recording go, the gate.
PROXY_SHARED = (
    "--secret-key",
    "--second-secret-key",
    "--environment",
    "--ca-bundle",
    "--request-timeout",
    "--report-dir",
    "--record-har",
    "--waivers",
    "--baseline",
    "--require-complete",
    "--keep-personal-data",
)
# The proxy's own options (`wallet-conformance proxy`, wallet_conformance/proxy/command.py), with PROXY_SHARED.
PROXY_OPTIONS: tuple[Option, ...] = (
    Option(
        "--upstream",
        "the target's base URL, ending in /v1: every request is forwarded there",
        env="WALLET_API_UPSTREAM",
        check=base_url,
        metavar="URL",
        group="proxy",
        setting="base_url",
    ),
    Option(
        "--listen",
        "where the proxy listens (default {default}); clients use http://HOST:PORT/v1 as their base URL",
        default="127.0.0.1:8080",
        check=host_and_port,
        metavar="HOST:PORT",
        group="proxy",
    ),
    Option(
        "--listen-anywhere",
        "allow a --listen address that is not loopback (the proxy forwards whatever reaches "
        "it to the target, with the caller's key)",
        action="store_true",
        group="proxy",
    ),
    Option(
        "--report-every",
        "write the reports every SECONDS while running, not only when stopped (SIGINT, SIGTERM)",
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="proxy",
    ),
    Option(
        "--tally-every",
        "print a tally of what was judged every SECONDS (default {default:g})",
        default=5.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="proxy",
    ),
    Option(
        "--annotate",
        "add a response header, x-conformance-broken, listing the requirements each answer broke: "
        "changes the traffic, and judges each exchange before its answer is sent",
        action="store_true",
        group="proxy",
    ),
    Option(
        "--har-max-size",
        "with --record-har: rotate the file when it passes this many megabytes (default "
        f"{{default:g}}; the last {HAR_FILES_KEPT} files are kept besides the current one)",
        default=100.0,
        convert=float,
        check=positive_megabytes,
        metavar="MB",
        group="proxy",
    ),
    Option(
        "--max-records",
        "the registry of records' bound per table: past it, the records learnt longest ago are "
        "forgotten, and counted in the report (default {default}: about 100 MB once full)",
        default=50_000,
        convert=int,
        check=positive_count,
        metavar="N",
        group="proxy",
    ),
    Option(
        "--client-timeout",
        "seconds a client has for a request's head (from its connection or its last answer: "
        "idle keep-alive connections too), for its body, and to take a part of its answer the proxy waits to "
        "write; past them 408 (an answer not taken: the connection aborted), and the connection closes (default "
        "{default:g})",
        default=30.0,
        convert=float,
        check=positive_seconds,
        metavar="SECONDS",
        group="proxy",
    ),
    Option(
        "--max-header-size",
        "bytes a request's head may take, however they arrive; more is answered 431 (default {default})",
        default=32_768,
        convert=int,
        check=positive_count,
        metavar="BYTES",
        group="proxy",
    ),
    Option(
        "--max-connections",
        "client connections open at once; one more is answered 503 and closed, so "
        "descriptors never run out (default {default})",
        default=512,
        convert=int,
        check=positive_count,
        metavar="N",
        group="proxy",
    ),
)


def across(given: Mapping[str, Any]) -> None:
    """The proxy's checks that span several options (by flag, as held): a target to forward to, and an address off
    loopback only when --listen-anywhere says so; a ConfigError naming the options."""
    if not given["--upstream"]:
        raise ConfigError(NO_UPSTREAM)
    host, port = given["--listen"]
    if host not in LOOPBACK and not given["--listen-anywhere"]:
        raise ConfigError(NOT_LOOPBACK.format(host=host, port=port))
