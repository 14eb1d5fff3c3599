"""Command line: `python -m wallet_conformance.reference --port 8080 [--fault NAME ...] [--variant NAME ...]`."""

from __future__ import annotations

import argparse
import sys
import time

from wallet_conformance.reference.faults import FAULTS, list_faults
from wallet_conformance.reference.server import ReferenceServer
from wallet_conformance.reference.variants import ALL, VARIANTS, list_variants


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m wallet_conformance.reference",
        description="Serve the reference implementation of the Wallet Service API (in memory).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on; 0 picks a free one (default 8080)")
    parser.add_argument("--secret-key", help="the test-mode secret key (default: a random one)")
    parser.add_argument(
        "--second-secret-key", help="the second business's test-mode secret key (default: a random one)"
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        choices=sorted(FAULTS),
        metavar="NAME",
        help="switch a fault on (repeatable); see --list-faults",
    )
    parser.add_argument(
        "--settle-delay", type=float, default=0.2, help="seconds from acceptance to settlement (default 0.2)"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        choices=[ALL, *sorted(VARIANTS)],
        metavar="NAME",
        help=f"take another legitimate reading of an open point (repeatable; {ALL!r}: every one); see --list-variants",
    )
    parser.add_argument(
        "--latency", type=float, default=0.0, help="seconds slept before each answer, like a remote target (default 0)"
    )
    parser.add_argument(
        "--until-stdin-closes",
        action="store_true",
        help="serve until standard input closes (a parent's pipe: the server ends with the process that started it)",
    )
    parser.add_argument("--list-faults", action="store_true", help="list the faults and exit")
    parser.add_argument("--list-variants", action="store_true", help="list the variants and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    if arguments.list_faults:
        print(list_faults())
        return 0
    if arguments.list_variants:
        print(list_variants())
        return 0
    server = ReferenceServer(
        secret_key=arguments.secret_key,
        faults=arguments.fault,
        settle_delay=arguments.settle_delay,
        host=arguments.host,
        port=arguments.port,
        variants=arguments.variant,
        latency=arguments.latency,
        second_secret_key=arguments.second_secret_key,
    ).start()
    printed = {
        "base URL": server.base_url,
        "test secret key": server.secret_key,
        "live secret key": server.live_secret_key,
        "second test secret key": server.second_secret_key,  # the second business's keys
        "second live secret key": server.second_live_secret_key,
        "funding URL": server.funding_url,
        "due URL": server.due_url,
        "settle URL": server.settle_url,
    }
    if arguments.fault:
        printed["faults"] = ", ".join(arguments.fault)
    if server.variants:
        printed["variants"] = ", ".join(variant.cli_name for variant in server.variants)
    width = max(len(label) for label in printed) + 2
    for label, value in printed.items():
        print(f"{label + ':':<{width}}{value}")
    sys.stdout.flush()
    try:
        if arguments.until_stdin_closes:
            sys.stdin.read()
        else:
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
