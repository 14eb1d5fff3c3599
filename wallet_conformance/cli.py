"""`wallet-conformance`: the installed command. It runs the conformance suite from any folder, with every option
of `./conformance` (they are pytest's and the plugin's), writing its reports to `./reports` of that folder; with
no target it starts the bundled reference. Two options of its own: `--version` (the suite's version and the
hashes of what it judges against) and `--list-requirements [--part P] [--level L]` (the catalogue, browsable).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from wallet_conformance.reporting.conformance import judged_against, suite_version
from wallet_conformance.spec.catalogue import LEVELS, catalogue
from wallet_conformance.spec.files import PYTEST_CONFIG, ROOT, TESTS

PROGRAM = "wallet-conformance"


def version() -> str:
    """The suite's version and the sha256 of each file it judges against (the document first)."""
    lines = [f"{PROGRAM} {suite_version()}"]
    lines += [f"  {name}: {digest}" for name, digest in judged_against().items()]
    return "\n".join(lines)


def requirements(part: str | None, level: str | None) -> str:
    """The catalogue's requirements, one line each: id, level, title (of one part, or one level, when asked)."""
    known = catalogue()
    if part is not None and part not in known.sections:
        raise SystemExit(f"{PROGRAM}: no part {part!r}; the parts are {', '.join(known.sections)}")
    chosen = [requirement for requirement in known
              if (part is None or requirement.section == part) and (level is None or requirement.level == level)]
    return "\n".join(f"{requirement.id:<8} {requirement.level:<6} {requirement.title}" for requirement in chosen)


def pytest_arguments(arguments: list[str], cwd: Path) -> list[str]:
    """pytest's command line for the suite: its tests and settings wherever it is installed, its cache with the
    reports of the working folder."""
    return [str(TESTS), "-c", str(PYTEST_CONFIG), "--rootdir", str(ROOT),
            "-o", f"cache_dir={cwd / 'reports' / '.pytest_cache'}", *arguments]


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    own = argparse.ArgumentParser(prog=PROGRAM, add_help=False)
    own.add_argument("--version", action="store_true")
    own.add_argument("--list-requirements", action="store_true")
    own.add_argument("--part")
    own.add_argument("--level", choices=LEVELS)
    asked, rest = own.parse_known_args(arguments)
    if asked.version:
        print(version())
        return 0
    if asked.list_requirements:
        print(requirements(asked.part, asked.level))
        return 0
    import pytest  # imported here: --version and --list-requirements answer without it

    cwd = Path.cwd()
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(cwd / "reports" / ".hypothesis"))
    return int(pytest.main(pytest_arguments(rest, cwd)))


if __name__ == "__main__":
    sys.exit(main())
