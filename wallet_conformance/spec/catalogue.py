"""The requirement catalogue (requirements.yaml): one record per checkable statement of the document."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from wallet_conformance.spec.documents import load_yaml
from wallet_conformance.spec.files import CATALOGUE

Level = Literal["MUST", "SHOULD", "INFO"]
LEVELS: tuple[Level, ...] = ("MUST", "SHOULD", "INFO")


@dataclass(frozen=True)
class Requirement:
    """One checkable statement of the document."""

    id: str
    section: str
    level: Level
    title: str
    quote: str
    operations: tuple[str, ...]
    rests_on: str | None = None
    not_shown: str | None = None
    value: Any = None


@dataclass(frozen=True)
class Catalogue:
    sections: dict[str, str]
    requirements: dict[str, Requirement]

    def __getitem__(self, requirement_id: str) -> Requirement:
        return self.requirements[requirement_id]

    def __contains__(self, requirement_id: object) -> bool:
        return requirement_id in self.requirements

    def __iter__(self):
        return iter(self.requirements.values())

    def __len__(self) -> int:
        return len(self.requirements)

    def value(self, requirement_id: str) -> Any:
        """The fact a requirement carries (a message, a limit)."""
        value = self.requirements[requirement_id].value
        if value is None:
            raise KeyError(f"{requirement_id} carries no value")
        return value


def load(path: Path = CATALOGUE) -> Catalogue:
    """Read and shape-check a catalogue file."""
    raw = load_yaml(path.read_text(encoding="utf-8"))
    sections = dict(raw["sections"])
    requirements: dict[str, Requirement] = {}
    for entry in raw["requirements"]:
        entry = dict(entry)
        entry["operations"] = tuple(entry.get("operations", ()))
        requirement = Requirement(**entry)
        if requirement.id in requirements:
            raise ValueError(f"duplicate requirement id {requirement.id}")
        if requirement.section not in sections:
            raise ValueError(f"{requirement.id}: unknown section {requirement.section!r}")
        if requirement.level not in LEVELS:
            raise ValueError(f"{requirement.id}: unknown level {requirement.level!r}")
        requirements[requirement.id] = requirement
    return Catalogue(sections=sections, requirements=requirements)


@cache
def catalogue() -> Catalogue:
    """The project's catalogue, read once."""
    return load()
