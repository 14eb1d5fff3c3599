"""--har's files: the files given, and the HAR files of each folder given."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

HAR_SUFFIX = ".har"  # the files of a folder given to --har, in any letter case


def har_in(folder: Path) -> list[Path]:
    """The HAR files of a folder given to --har: its files named *.har, the extension in any letter case (x.HAR),
    sorted."""
    return sorted(path for path in folder.iterdir() if path.suffix.lower() == HAR_SUFFIX and path.is_file())


def har_files(given: Iterable[str]) -> tuple[Path, ...]:
    """--har's files: each file given, and every HAR file of each folder given (`har_in`; a folder without one gives
    none: nothing is judged)."""
    found: list[Path] = []
    for name in given:
        path = Path(name)
        found.extend(har_in(path) if path.is_dir() else [path])
    return tuple(dict.fromkeys(found))


def folders_without_har(given: Iterable[str]) -> list[str]:
    """The folders given to --har that hold no HAR file, as given."""
    return [name for name in given if Path(name).is_dir() and not har_in(Path(name))]
