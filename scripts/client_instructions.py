"""The client's work per request as a count of machine instructions: a request through ApiClient (its layers, httpx's
client and wire, the capture) with the run's exchange judge, and without it (--no-judge). A count does not drift with
the machine's load, where time does by a third between minutes (docs/performance.md).

Valgrind's cachegrind (scripts/judge_instructions.py's `counted`) counts a process that sends ROUNDS of the mix below
to the bundled reference, served from a process of its own on loopback (not counted), once with WARM rounds and once
with WARM + ROUNDS; the difference over the requests of ROUNDS is the count per request. Each count meets a fresh
reference. The mix: the banks, a page of wallets, the transactions, and a wallet that does not exist (a 404 refusal):
reads, so every round finds the target as the last left it. What the kernel does (the socket) is not counted.

    .venv/bin/python scripts/client_instructions.py [--rounds 250] [--no-judge] [--compare-with DIR ...]

--compare-with counts the code of another checkout (its folder, e.g. a `git worktree`) with this script's mix.
Needs valgrind (Debian: `apt-get install valgrind`). Not a test: it prints its figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judge_instructions import ROOT, counted, require_valgrind

sys.path.insert(0, str(ROOT))

from wallet_conformance.reference.process import ReferenceProcess

WARM = 20  # rounds sent before counting starts: the connection made, the validators compiled, the caches filled
MIX = 4  # requests per round

# What the counted process runs: the code of the folder first on its path.
SENDING = """
import sys
from wallet_conformance.client.api import ApiClient
from wallet_conformance.judge.session import ExchangeJudge

base, key, rounds, judged = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "judged"
client = ApiClient(base, key, observer=ExchangeJudge().take if judged else None)
for _ in range(rounds):
    client.call("listBanks")
    client.call("listWallets")
    client.call("listTransactions")
    client.call("getWallet", {"walletId": "wal_does_not_exist"})
client.close()
"""


def instructions(code: Path, rounds: int, judged: bool) -> int:
    """Instructions of the process sending `rounds` rounds of the mix with the code of `code`, to a fresh reference."""
    server = ReferenceProcess().start()
    try:
        arguments = [server.base_url, server.secret_key, str(rounds), "judged" if judged else "alone"]
        return counted(SENDING, arguments, code)
    finally:
        server.stop()


def per_request(code: Path, rounds: int, judged: bool) -> float:
    return (instructions(code, WARM + rounds, judged) - instructions(code, WARM, judged)) / (rounds * MIX)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=250, help="rounds of the mix counted, after the first WARM")
    parser.add_argument("--no-judge", action="store_true", help="the client alone, without the exchange judge")
    parser.add_argument("--compare-with", type=Path, action="append", default=[], help="another checkout's folder")
    arguments = parser.parse_args()
    require_valgrind()
    what = "the client alone" if arguments.no_judge else "the client and the exchange judge"
    for code in [*arguments.compare_with, ROOT]:
        count = per_request(code.resolve(), arguments.rounds, not arguments.no_judge)
        print(f"{count:,.0f} instructions per request, {what} ({code})")


if __name__ == "__main__":
    main()
