"""The command line a new user meets first: every mistake answered with one line and exit 4 (no traceback, no
message twice), help that starts with the suite's own options, the listings the messages point to, and subcommands
that behave like subcommands (each its own help; a word that is none of them never a run)."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance import cli
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.reference.faults import FAULTS
from wallet_conformance.reference.variants import VARIANTS
from wallet_conformance.settings import (
    BY_FLAG,
    GROUPS,
    OPTIONS,
    RUN,
    SUBCOMMANDS,
    ConfigError,
    Option,
    Subcommand,
    read,
    suite_options,
)
from wallet_conformance.spec.files import ROOT

UNREACHABLE = ("--base-url", "http://127.0.0.1:9/v1", "--secret-key", "sk-wrong-values")
# A wrong value for each option of the catalogue of options (settings.OPTIONS), and the words its message must hold.
# A flag takes no value: `--flag=yes` is its wrong form.
WRONG = {
    "--base-url": (["--base-url", "ftp://staging.example.com/v1"], "--base-url must be an http(s) URL"),
    "--secret-key": (["--base-url", "http://127.0.0.1:9/v1", "--secret-key", "ab"], "--secret-key"),
    "--second-secret-key": ([*UNREACHABLE, "--second-secret-key", "ab"], "--second-secret-key"),
    "--environment": (["--environment", "prod"], "--environment"),
    "--funding-url": (["--funding-url", "sandbox/fund"], "--funding-url must be an http(s) URL"),
    "--funded-wallet": (["--funded-wallet", ""], "--funded-wallet is given an empty value"),
    "--bank-account": (
        ["--bank-account", "123"],
        "--bank-account (or WALLET_API_BANK_ACCOUNT) must be NUMBER or "
        "NUMBER:BANKCODE, NUMBER a NUBAN account number of 10 digits",
    ),
    "--settle-timeout": (["--settle-timeout", "soon"], "--settle-timeout"),
    "--quiet-window": (["--quiet-window", "0"], "--quiet-window must be a number of seconds above 0"),
    "--request-timeout": (["--request-timeout", "-1"], "--request-timeout must be a number of seconds above 0"),
    "--test-timeout": (["--test-timeout", "0"], "--test-timeout must be a number of seconds above 0"),
    "--run-budget": (["--run-budget", "1h"], "--run-budget"),
    "--rate-limit-wait": (["--rate-limit-wait", "-5"], "--rate-limit-wait must be a number of seconds 0 or more"),
    "--report-dir": (["--report-dir", "a-file"], "--report-dir a-file: a file is there"),
    "--work-dir": (["--work-dir", "a-file"], "--work-dir a-file: a file is there"),
    "--waivers": (["--waivers", "no-such-waivers.yaml"], "--waivers no-such-waivers.yaml: cannot read it"),
    "--baseline": (["--baseline", "no-such-baseline.json"], "--baseline no-such-baseline.json: cannot read it"),
    "--require-complete": (["--require-complete=yes"], "--require-complete"),
    "--seed": (["--seed", "seven"], "--seed"),
    "--profile": (["--profile", "fast"], "--profile"),
    "--requirement": (["--requirement", "NOPE-01"], "--requirement NOPE-01: no such requirement"),
    "--part": (["--part", "money"], "--part money: no such part of the document; the parts are service"),
    "--level": (["--level", "MAY"], "--level MAY: no such level; the levels are MUST, SHOULD, INFO"),
    "--allow-writes": (["--allow-writes=yes"], "--allow-writes"),
    "--allow-money-movement": (["--allow-money-movement=yes"], "--allow-money-movement"),
    "--max-amount": (["--max-amount", "-100"], "--max-amount must be a number of kobo above 0"),
    "--ca-bundle": ([*UNREACHABLE, "--ca-bundle", "no-such-ca.pem"], "--ca-bundle"),
    "--webhook-listen": (["--webhook-listen", "8080"], "--webhook-listen must be HOST:PORT"),
    "--webhook-public-url": (["--webhook-public-url", "hooks.example.com"], "must be an absolute URL (scheme"),
    "--har": (["--har", "no-such.har"], "--har no-such.har: no such file or folder"),
    "--record-har": (["--record-har", "."], "--record-har .: a folder is there"),
    "--keep-personal-data": (["--keep-personal-data=yes"], "--keep-personal-data"),
    "--mask-personal-data": (["--mask-personal-data=yes"], "--mask-personal-data"),
    "--cleanup": (["--cleanup=yes"], "--cleanup"),
    "--keep-failing-records": (["--keep-failing-records"], "--keep-failing-records works on a deployed target"),
    "--reference-fault": (["--reference-fault", "no-such-fault"], "wallet-conformance --list-faults"),
    "--reference-variant": (["--reference-variant", "no-such-variant"], "wallet-conformance --list-variants"),
    "--reference-settle-delay": (["--reference-settle-delay", "-0.1"], "--reference-settle-delay must be"),
    "--reference-latency": (["--reference-latency", "-1"], "--reference-latency must be a number of seconds 0"),
}
ELSEWHERE = {
    "a waiver's date": (["--waivers", "waivers.yaml"], "waiver 1 (SVC-12): expires must be a date (YYYY-MM-DD)"),
    "a waiver file that is not YAML": (
        ["--waivers", "broken.yaml"],
        "--waivers broken.yaml, line 4, column 11: not YAML: mapping values are not allowed here",
    ),
    "a waiver file of a character YAML refuses": (
        ["--waivers", "control.yaml"],
        "--waivers control.yaml, line 2, column 12: not YAML: unacceptable character #x0007",
    ),
    "an unknown option": (["--base-urll", "http://127.0.0.1:9/v1"], "unrecognized arguments: --base-urll"),
    "an environment variable": ([], "WALLET_API_SETTLE_TIMEOUT (for --settle-timeout) must be a float"),
    "the catalogue's part": (["--list-requirements", "--part", "money"], "--part money: no such part"),
    "parts and levels that choose nothing": (
        ["--part", "versioning", "--level", "SHOULD"],
        "--part and --level together choose no requirement",
    ),
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    """`wallet-conformance ARGS` in this process: its exit status and the lines it printed (stdout and stderr)."""
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, [line for line in (captured.out + captured.err).splitlines() if line.strip()]


def assert_one_message(status: int, lines: list[str], words: str) -> None:
    errors = [line for line in lines if line.startswith("ERROR:")]
    assert status == ExitStatus.CANNOT_RUN, lines
    assert len(errors) == 1 and words in errors[0], lines
    assert not any(marker in line for line in lines for marker in ("INTERNALERROR", "Exit:", "Traceback")), lines


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder, with a file where a folder would go, a waiver of an impossible date and waiver files
    YAML cannot read."""
    monkeypatch.chdir(tmp_path)
    for name in [name for name in os.environ if name.startswith("WALLET_API_")]:
        monkeypatch.delenv(name)
    (tmp_path / "a-file").write_text("not a folder\n")
    (tmp_path / "waivers.yaml").write_text("- id: SVC-12\n  reason: r\n  owner: o\n  expires: 2026-13-45\n")
    (tmp_path / "broken.yaml").write_text("- id: SVC-12\n  reason: r\n  owner: o\n   expires: 2026-01-01\n")
    (tmp_path / "control.yaml").write_text("- id: SVC-12\n  reason: a\x07bell\n")
    return tmp_path


def test_every_option_has_a_wrong_value_here():
    """The table below covers the whole catalogue of options: a new option gets its wrong value too."""
    assert set(WRONG) == {option.flag for option in OPTIONS}


@pytest.mark.parametrize("flag", sorted(WRONG))
def test_a_wrong_value_of_any_option_is_one_line_and_exit_4(folder, capsys, flag):
    """Each option given a wrong value: exit 4, one ERROR line naming it (and what would be valid), no traceback, no
    INTERNALERROR, no `Exit:` echo."""
    args, words = WRONG[flag]
    status, lines = run(capsys, *args, "-p", "no:randomly")
    assert_one_message(status, lines, words)


@pytest.mark.parametrize("mistake", sorted(ELSEWHERE))
def test_other_mistakes_are_one_line_and_exit_4(folder, capsys, monkeypatch, mistake):
    """A waiver dated 2026-13-45, a misspelt option, a bad environment variable, an unknown part of the catalogue:
    the same one line and exit 4."""
    args, words = ELSEWHERE[mistake]
    if mistake == "an environment variable":
        monkeypatch.setenv("WALLET_API_SETTLE_TIMEOUT", "soon")
    status, lines = run(capsys, *args, *(["-p", "no:randomly"] if args[:1] != ["--list-requirements"] else []))
    assert_one_message(status, lines, words)
    if mistake == "an unknown option":
        assert "wallet-conformance --help" in lines[0] and "inifile" not in " ".join(lines), lines


def test_help_starts_with_the_suite(capsys):
    """`--help` shows the suite's own options, grouped as docs/options.md groups them, in two screens at most; pytest's
    options are behind --help-pytest."""
    status, lines = run(capsys, "--help")
    text = "\n".join(lines)
    assert status == 0 and len(lines) <= 120, len(lines)
    titles = [f"{title}:" for title in GROUPS.values()]
    assert [line for line in lines if line in titles] == titles
    assert all(option.flag in text for option in OPTIONS) and "--help-pytest" in text
    assert "--capture" not in text and "--rootdir" not in text  # pytest's own are not listed


def test_the_listings_the_messages_point_to(capsys):
    """`--list-faults` and `--list-variants`, which the messages about unknown names point to, list every name."""
    status, faults = run(capsys, "--list-faults")
    assert status == 0 and {line.split()[0] for line in faults} == set(FAULTS)
    status, variants = run(capsys, "--list-variants")
    assert status == 0 and set(VARIANTS) <= {line.split()[0] for line in variants}


def test_a_target_that_cannot_be_reached_is_one_message(folder, capsys):
    """An unreachable port (here with two xdist workers asked for): exit 4 and its message once, with no `Exit:` echo
    and no worker started."""
    status, lines = run(capsys, *UNREACHABLE, "-n", "2", "-p", "no:randomly")
    text = "\n".join(lines)
    assert status == ExitStatus.CANNOT_RUN and text.count("cannot be reached") == 1, text
    assert "Exit:" not in text and "INTERNALERROR" not in text and "created:" not in text, text


def test_an_environment_variable_gives_a_repeatable_option_its_values_comma_separated():
    """WALLET_API_REFERENCE_VARIANTS=a,b gives the two variants, as `--reference-variant a --reference-variant b`
    does; none of them is taken for an empty value."""
    option = BY_FLAG["--reference-variant"]
    given = option.from_environment({option.env: "lists-oldest-first, per-page-capped"})
    values = {each.dest: each.default for each in OPTIONS} | {option.dest: given}
    assert read(values).reference_variants == ("lists-oldest-first", "per-page-capped")


def a_value(option: Option) -> Any:
    """A value `option` takes as given: on for a flag, one value of a repeatable option, a number where it converts
    one, else its default or some text."""
    if option.action == "store_true":
        return True
    if option.action == "append":
        return ["given"]
    return option.default or (1 if option.convert else "given")


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.flag)
def test_each_option_is_held_to_the_check_it_declares(monkeypatch, option):
    """read() checks each option's value with the `check` its declaration carries, and needs no line of its own for
    it: any option (one declared without a check too) given another check is refused by that check's words."""

    def refuses(given: Option, value: Any) -> Any:
        raise ConfigError(f"{given.flag} {value!r}: refused by the check it declares")

    declared = tuple(replace(each, check=refuses) if each is option else each for each in OPTIONS)
    monkeypatch.setattr(suite_options, "OPTIONS", declared)
    values = {each.dest: each.default for each in declared} | {option.dest: a_value(option)}
    with pytest.raises(ConfigError, match=rf"^{re.escape(option.flag)} .*: refused by the check it declares$"):
        read(values)


@pytest.mark.parametrize(
    ("given", "held"),
    [
        ("0123456789", ("0123456789", None)),
        ("0123456789:044", ("0123456789", "044")),
        ("123", None),
        (":035", None),
        ("0123456789:", None),
        ("01234567890:044", None),
        ("012345678a:044", None),
        ("0123456789:0 44", None),
    ],
)
def test_a_bank_account_is_a_nuban_and_a_bank_code(given, held):
    """--bank-account takes a ten-digit NUBAN, alone or with a bank code after a colon, and refuses any other form at
    start, naming the option and the form, rather than leaving every test of an external account to skip."""
    option = BY_FLAG["--bank-account"]
    if held is not None:
        assert option.held(given) == held
    else:
        with pytest.raises(
            ConfigError,
            match=r"^--bank-account \(or WALLET_API_BANK_ACCOUNT\) must be NUMBER or "
            r"NUMBER:BANKCODE, NUMBER a NUBAN account number of 10 digits",
        ):
            option.held(given)


def test_parts_and_levels_take_any_letter_case(capsys):
    """`--level must` and `--part LIMITS` choose what `--level MUST` and `--part limits` choose, in a run's options and
    in `--list-requirements` alike."""
    values = {option.dest: option.default for option in OPTIONS} | {"part": ["LIMITS"], "level": ["must"]}
    chosen = read(values)
    assert (chosen.parts, chosen.levels) == (("limits",), ("MUST",)) and chosen.chosen
    status, lines = run(capsys, "--list-requirements", "--part", "LIMITS", "--level", "must")
    assert status == 0 and lines == run(capsys, "--list-requirements", "--part", "limits", "--level", "MUST")[1]
    assert lines and all(line.split()[1] == "MUST" and line.startswith("LIM-") for line in lines), lines


# ------------------------------------------------------------------ subcommands


@pytest.mark.parametrize(
    "words",
    [["help"], ["merg", "a.json", "b.json"], ["run", "bogus"], ["--seed", "1", "-p", "no:randomly", "bogus"]],
    ids=" ".join,
)
def test_a_word_that_is_no_subcommand_nor_test_path_is_one_line_and_no_run(folder, capsys, words):
    """A first word that is no subcommand (`help`, `merg`), or a word among a run's arguments that is no test path:
    exit 4, one line naming the word and the subcommands; nothing starts, no report is written."""
    status, lines = run(capsys, *words)
    word = "merg" if "merg" in words else words[-1]
    assert_one_message(status, lines, f"{word!r} is neither a subcommand nor a test path")
    assert ", ".join(SUBCOMMANDS) in lines[0] and len(lines) == 1, lines
    assert not (folder / "reports").exists()


@pytest.mark.parametrize("words", [["--help"], ["-h"], ["REPORT.json", "--help"]], ids=" ".join)
@pytest.mark.parametrize("name", [name for name in SUBCOMMANDS if name != RUN])
def test_each_subcommand_has_its_own_help(folder, capsys, name, words):
    """`SUBCOMMAND --help`, `-h`, or `--help` after its arguments: exit 0, its own usage, every option it takes with
    the help it has there, and no option of a run it does not take."""
    status, lines = run(capsys, name, *words)
    text = "\n".join(lines)
    subcommand = SUBCOMMANDS[name]
    assert status == 0 and lines[0] == f"usage: {subcommand.usage_line}", lines
    assert all(option.flag in text for option in subcommand.options)
    assert all(f"  {option.flag} " not in text for option in OPTIONS if option not in subcommand.options), text
    assert not (folder / "reports").exists()


def test_a_test_path_or_node_id_first_is_a_run(monkeypatch):
    """The bare command, one starting with an option, a test path or a node id: `run`, given every word."""
    monkeypatch.chdir(ROOT)
    for words in ([], ["-n", "2"], ["tests/test_versioning.py"], ["tests/test_versioning.py::test_x"]):
        assert cli.subcommand(words) == (SUBCOMMANDS[RUN], words)
    assert cli.subcommand(["merge", "a.json"]) == (SUBCOMMANDS["merge"], ["a.json"])


def echoed(arguments: list[str]) -> int:
    """A subcommand's runner for the test below: its arguments printed, exit 3."""
    print("echoed", *arguments)
    return 3


def test_one_more_subcommand_is_one_entry_of_the_table(monkeypatch, capsys):
    """A subcommand added to settings.SUBCOMMANDS is dispatched, has its help, and is named where a word is none."""
    monkeypatch.setitem(
        SUBCOMMANDS,
        "echo",
        Subcommand("echo", "print its words", f"{__name__}:echoed", ("--report-dir",), positional="WORD", dest="words"),
    )
    assert run(capsys, "echo", "a", "b") == (3, ["echoed a b"])
    status, lines = run(capsys, "echo", "--help")
    assert status == 0 and lines[0] == "usage: wallet-conformance echo WORD... [options]"
    assert any(line.startswith("  --report-dir DIR") for line in lines), lines
    assert "merge, echo" in run(capsys, "ech")[1][0]
