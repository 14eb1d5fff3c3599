"""The installed command's table: its subcommands (what each takes, and the function that runs it) and its own
options, which answer without a run; each option found by its flag whichever subcommand declares it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wallet_conformance.settings import suite_options
from wallet_conformance.settings.option import Option
from wallet_conformance.settings.program import PROGRAM, PROXY, RUN
from wallet_conformance.settings.proxy_options import PROXY_OPTIONS, PROXY_SHARED
from wallet_conformance.settings.suite_options import BY_FLAG, OPTIONS

# The installed command's own options: they answer without running the suite (wallet_conformance/cli.py).
COMMAND_OPTIONS: tuple[Option, ...] = (
    Option(
        "--version",
        "the suite's version and the sha256 of the files it judges by",
        action="store_true",
        group="command",
    ),
    Option(
        "--list-requirements",
        "the catalogue, one line per requirement: id, level, title",
        metavar="[--part P] [--level L]",
        action="store_true",
        group="command",
    ),
    Option(
        "--list-faults", "the bundled reference's faults, for --reference-fault", action="store_true", group="command"
    ),
    Option(
        "--list-variants",
        "the bundled reference's variants, for --reference-variant",
        action="store_true",
        group="command",
    ),
    Option(
        "--help-pytest", "pytest's own options (-n, -k, --junitxml...), taken too", action="store_true", group="command"
    ),
)
# The replay's own options (`wallet-conformance replay`, reporting/replayed.py), with the target's.
REPLAY_OPTIONS: tuple[Option, ...] = (
    Option(
        "--test",
        "the test whose failure is replayed: its node id as the report writes it, or the start of one",
        metavar="NODEID",
        group="run",
    ),
)
BY_ANY_FLAG = {option.flag: option for option in (*OPTIONS, *PROXY_OPTIONS, *REPLAY_OPTIONS)}


def default(flag: str) -> Any:
    """An option's default, as declared."""
    return BY_ANY_FLAG[flag].default


@dataclass(frozen=True)
class Subcommand:
    """A subcommand of the installed command (`wallet-conformance NAME ...`): what it does, what it takes, and the
    function that runs it, named as "module:function" (imported only when it is asked for; called with the words
    after the subcommand's name, it returns the exit status)."""

    name: str
    summary: str  # what it does, in a line of the command's help
    runner: str
    flags: tuple[str, ...] | None = None  # its options, in the order its help lists them; None: every one of OPTIONS
    positional: str | None = None  # the words that are not options (FILE, REPORT), as its usage names them
    dest: str | None = None  # the value those words give (by dest)
    usage: str = "[options]"  # after its name and its positional words
    details: str = ""  # what its own help says besides the summary
    # The options the command reproducing its report gives, when given (a run's: reproduction.py says which)
    reproduced: tuple[str, ...] = ()

    @property
    def options(self) -> tuple[Option, ...]:
        """Its options, as its command line declares them."""
        if self.flags is None:
            return suite_options.OPTIONS  # read when asked: a self-test declares them otherwise
        return tuple(BY_ANY_FLAG[flag] for flag in self.flags)

    @property
    def values_of(self) -> tuple[Option, ...]:
        """The options whose values it reads: its own, and the one its positional words give (har: --har's)."""
        given = [option for option in suite_options.OPTIONS if self.flags is not None and option.dest == self.dest]
        return (*self.options, *given)

    @property
    def usage_line(self) -> str:
        words = [PROGRAM, self.name, f"{self.positional}..." if self.positional else "", self.usage]
        return " ".join(word for word in words if word)


# The subcommands, in the order the command's help lists them: `wallet-conformance NAME` runs NAME's runner; the bare
# command, and one starting with an option or a test path, is `run`. One more subcommand is one more entry here.
SUBCOMMANDS = {
    subcommand.name: subcommand
    for subcommand in (
        Subcommand(
            RUN,
            "run the suite (as the bare command, and ./conformance, do)",
            "wallet_conformance.cli:run_suite",
            usage="[options] [test paths]",
        ),
        Subcommand(
            "har",
            "judge recorded traffic, sending nothing (as --har FILE does)",
            "wallet_conformance.cli:judge_har",
            (
                "--base-url",
                "--secret-key",
                "--second-secret-key",
                "--environment",
                "--requirement",
                "--keep-personal-data",
                "--report-dir",
                "--waivers",
                "--baseline",
                "--require-complete",
            ),
            positional="FILE",
            dest=BY_FLAG["--har"].dest,
            details="A FILE that is a folder stands for every *.har in it. docs/har.md says more.",
        ),
        Subcommand(
            PROXY,
            "a validating proxy in front of the target (docs/proxy.md)",
            "wallet_conformance.proxy.command:main",
            (*(option.flag for option in PROXY_OPTIONS), *PROXY_SHARED),
            usage="--upstream URL [options]",
            reproduced=("--upstream", "--waivers", "--baseline", "--require-complete"),
            details="Clients use http://HOST:PORT/v1 as their base URL; every exchange is forwarded unchanged and "
            "judged on the side. Stop it with Ctrl-C (SIGINT) or SIGTERM: the reports are written then.",
        ),
        Subcommand(
            "replay",
            "replay a failure from a report; say whether it shows again",
            "wallet_conformance.cli:replay",
            (
                "--test",
                "--requirement",
                "--base-url",
                "--secret-key",
                "--second-secret-key",
                "--funding-url",
                "--test-timeout",
            ),
            positional="REPORT",
            dest="reports",
            details="REPORT is a conformance.json, conformance.md, conformance.html or junit.xml; the replay is "
            "the script the report shows for the failing test, run with bash (curl and python3 needed) "
            "against --base-url, or, without one, a bundled reference with the faults and variants the "
            "report's run had. Exit 1: the failure shows again; 0: it does not; 11: the answers cannot "
            "tell (only a list's status could be compared). docs/reports.md says more.",
        ),
        Subcommand(
            "merge",
            "one report of several runs' records (proxies, --har runs)",
            "wallet_conformance.cli:merged",
            ("--report-dir", "--waivers", "--baseline", "--require-complete"),
            positional="REPORT",
            dest="reports",
            details="Each REPORT a run's judgement.jsonl, its report folder, or the conformance.json beside one, "
            "of this catalogue, each run given once; every requirement is judged again on what they all judged "
            '(docs/proxy.md, "Several proxies, one verdict").',
        ),
    )
}
