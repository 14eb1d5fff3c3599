"""The installed command: its name, the names of the subcommands the options speak of, and where each writes its
reports. The table of subcommands is subcommands.py."""

from __future__ import annotations

PROGRAM = "wallet-conformance"  # the installed command (wallet_conformance/cli.py); the command reproducing a run
RUN = "run"  # the subcommand of the bare command: the suite run (SUBCOMMANDS)
PROXY = "proxy"  # the validating proxy (wallet_conformance/proxy/command.py)
# Where each subcommand that is not a run writes its reports, inside --report-dir's default (reports/har/...), so that
# they never replace an active run's; a --har run's are the har subcommand's. --report-dir given: there.
REPORT_FOLDERS = {"har": "har", PROXY: "proxy", "merge": "merged"}
NOT_A_RUN = ("har", PROXY, "merge")  # the subcommands that run no test: where an option's help says so
