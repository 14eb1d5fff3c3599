"""Named switches: what the catalogues of faults (faults.py) and variants (variants.py) share.

A catalogue is an Enum of `Switch`es, each read at exactly one place, written `faults.on(Fault.NAME)`; on the command
line a switch is named in kebab case (`SIXTH_PRIMARY_ACCEPTED` is `sixth-primary-accepted`). A `SwitchSet` holds the
switches of one catalogue that one server runs with.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import Enum
from typing import ClassVar, Generic, Self, TypeVar, cast


class Switch(Enum):
    """A member of a catalogue of named switches; the catalogue's name (Fault, Variant) names its kind in messages."""

    @property
    def cli_name(self) -> str:
        """The name used on the command line: `LISTS_OLDEST_FIRST` -> `lists-oldest-first`."""
        return self.name.lower().replace("_", "-")

    @classmethod
    def parse(cls, name: str | Self) -> Self:
        """A switch from its CLI name, its member name or itself; a ValueError pointing to the listing otherwise."""
        if isinstance(name, cls):
            return name
        for switch in cls:
            if name in (switch.cli_name, switch.name):
                return switch
        kind = cls.__name__.lower()
        raise ValueError(f"unknown {kind} {name!r}; see --list-{kind}s")

    @classmethod
    def by_cli_name(cls) -> dict[str, Self]:
        """Every switch of the catalogue by its command-line name."""
        return {switch.cli_name: switch for switch in cls}


S = TypeVar("S", bound=Switch)


class SwitchSet(Generic[S]):
    """The switches of one catalogue (`kind`) switched on in one server; `every`, when the catalogue has one, is the
    name that stands for all of them."""

    kind: ClassVar[type[Switch]]
    every: ClassVar[str | None] = None

    def __init__(self, names: Iterable[str | S] = ()) -> None:
        self._on = frozenset(self.expand(names))

    @classmethod
    def expand(cls, names: Iterable[str | S]) -> list[S]:
        """Switches from names (or switches), each once, in the order first named; `every` stands for all."""
        chosen: list[S] = []
        for name in names:
            for switch in list(cls.kind) if cls.every is not None and name == cls.every else [cls.kind.parse(name)]:
                if switch not in chosen:
                    chosen.append(cast(S, switch))  # `kind` is the set's own S: each subclass names it
        return chosen

    def on(self, switch: S) -> bool:
        return switch in self._on

    def __iter__(self) -> Iterator[S]:
        return iter(sorted(self._on, key=lambda switch: switch.name))

    def __len__(self) -> int:
        return len(self._on)
