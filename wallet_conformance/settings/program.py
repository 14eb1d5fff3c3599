"""The installed command: its name, the names of the subcommands the options speak of, where each writes its
reports, and how its processes collect garbage. The table of subcommands is subcommands.py."""

from __future__ import annotations

PROGRAM = "wallet-conformance"  # the installed command (wallet_conformance/cli.py); the command reproducing a run
RUN = "run"  # the subcommand of the bare command: the suite run (SUBCOMMANDS)
PROXY = "proxy"  # the validating proxy (wallet_conformance/proxy/command.py)
# Where each subcommand that is not a run writes its reports, inside --report-dir's default (reports/har/...), so that
# they never replace an active run's; a --har run's are the har subcommand's. --report-dir given: there.
REPORT_FOLDERS = {"har": "har", PROXY: "proxy", "merge": "merged"}
NOT_A_RUN = ("har", PROXY, "merge")  # the subcommands that run no test: where an option's help says so
# gc.set_threshold's for a run's processes and the proxy's judging process: allocations (less deallocations) of
# container objects between two collections of the youngest generation, and collections of each generation between
# two of the next (Python's defaults: 700, 10, 10). Each keeps many objects alive (test items, records), which the
# defaults' frequent collections walked again and again (docs/performance.md).
GC_THRESHOLDS = (10_000, 20, 20)
