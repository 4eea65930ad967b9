"""What a star map holds: star systems, planets, clouds and entry hexes.

These are plain frozen values; `maps.starmap.StarMap` puts them on a graph and answers
movement questions, `maps.mapfile` reads and writes them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from maps.hexes import Hex

__all__ = [
    "Entry",
    "Facility",
    "Feature",
    "Planet",
    "PlanetType",
    "StarColour",
    "StarSystem",
]


class StarColour(enum.StrEnum):
    """Star colour, as printed on Stellar Conquest's board.

    Stellar Conquest's white and green stars form one class here, ``white``.
    """

    BLUE = "blue"
    WHITE = "white"
    YELLOW = "yellow"
    ORANGE = "orange"
    RED = "red"


class PlanetType(enum.StrEnum):
    """Planet class; it sets population growth (004 section 5.7.1) and who may settle it."""

    TERRAN = "terran"
    SUB_TERRAN = "sub-terran"
    MINIMAL_TERRAN = "minimal-terran"
    # 004 section 5.5: barren planets need Controlled Environment Technology.
    BARREN = "barren"


class Feature(enum.StrEnum):
    """Where in a system a battle may be fought, besides free space (004 section 5.3)."""

    DENSE_WORLD = "dense-world"
    GAS_GIANT = "gas-giant"
    ASTEROID_FIELD = "asteroid-field"


class Facility(enum.StrEnum):
    """Naval facilities at a system (001 L1530-1534: repair and replenishment)."""

    REPAIR = "repair"
    REPLENISH = "replenish"


@dataclass(frozen=True, slots=True)
class Planet:
    """One planet of a star system.

    ``capacity`` is the population limit in millions (004 section 5.7.1); ``mineral_rich``
    doubles a colony's industrial output (004 section 5.7.2).
    """

    orbit: int
    type: PlanetType
    capacity: int
    mineral_rich: bool = False


@dataclass(frozen=True, slots=True)
class StarSystem:
    """A named star in one hex, with its planets and battle features.

    ``settled`` marks a settlement that exists when the scenario starts (Lafayette's colonies);
    ``facilities`` and ``repair_mass_limit`` describe naval bases (001 L1606-1614).
    """

    name: str
    hex: Hex
    colour: StarColour
    planets: tuple[Planet, ...] = ()
    features: tuple[Feature, ...] = ()
    settled: bool = False
    facilities: tuple[Facility, ...] = ()
    repair_mass_limit: int | None = None
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Entry:
    """A player's entry hex on the map edge (004 section 5.1, "First Turn Entry").

    ``name`` is the player slot, e.g. ``"1"`` or ``"ESU"``.
    """

    name: str
    hex: Hex
