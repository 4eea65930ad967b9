"""A seeded generator of Stellar Conquest-style star maps.

Same seed and options, same map, on every Python version: all randomness comes from one
``random.Random(seed)`` and only through ``Random.random()``, the one method Python promises to
keep stable. The tables below are our ruling, documented in docs/rulings.md ("Maps").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from maps.hexes import Hex, from_offset
from maps.model import Entry, Feature, Planet, PlanetType, StarColour, StarSystem
from maps.stable_random import below, percent, shuffled, weighted
from maps.starmap import StarMap

__all__ = [
    "COLOUR_WEIGHTS",
    "DEFAULT_STARS",
    "PLANET_TABLE",
    "ColourOdds",
    "default_stars",
    "generate",
]


# Star colours by frequency (ruling; Stellar Conquest's board is mostly yellow, orange and red).
COLOUR_WEIGHTS: tuple[tuple[StarColour, int], ...] = (
    (StarColour.YELLOW, 26),
    (StarColour.ORANGE, 22),
    (StarColour.RED, 24),
    (StarColour.WHITE, 14),
    (StarColour.BLUE, 14),
)


@dataclass(frozen=True, slots=True)
class ColourOdds:
    """What a star of one colour holds, in percent per planet unless said otherwise."""

    # Weights for 0, 1, 2, 3 planets.
    planet_count: tuple[int, int, int, int]
    terran: int
    sub_terran: int
    minimal_terran: int
    barren: int
    mineral_rich: int
    # Percent per system.
    gas_giant: int
    asteroid_field: int


# The ruling (issue 3): best terran odds at yellow stars, best mineral-rich odds at blue stars.
PLANET_TABLE: dict[StarColour, ColourOdds] = {
    StarColour.BLUE: ColourOdds((35, 40, 20, 5), 5, 15, 30, 50, 45, 20, 50),
    StarColour.WHITE: ColourOdds((25, 40, 25, 10), 15, 25, 30, 30, 25, 30, 35),
    StarColour.YELLOW: ColourOdds((10, 35, 35, 20), 45, 30, 15, 10, 10, 40, 25),
    StarColour.ORANGE: ColourOdds((15, 40, 30, 15), 25, 35, 25, 15, 10, 40, 25),
    StarColour.RED: ColourOdds((30, 45, 20, 5), 5, 20, 35, 40, 15, 30, 30),
}

# Population capacity in millions by planet type (004 section 5.7.1 caps growth at capacity).
# A barren planet's capacity applies once Controlled Environment Technology lets it be settled
# "as if minimal terran" (004 section 5.7.7).
CAPACITY: dict[PlanetType, tuple[int, ...]] = {
    PlanetType.TERRAN: (60, 80, 100),
    PlanetType.SUB_TERRAN: (20, 30, 40),
    PlanetType.MINIMAL_TERRAN: (5, 10, 15),
    PlanetType.BARREN: (5, 10),
}

# Percent chance that a terran or sub-terran planet is a dense (high-gravity) world.
DENSE_WORLD = 30

# Stars per player when --stars is not given; 4 players make the classic 54 (issue 3). Seven
# and eight players (the most the umpire takes) go on by the same 12 stars a player (issue 19).
DEFAULT_STARS: dict[int, int] = {2: 30, 3: 42, 4: 54, 5: 66, 6: 78, 7: 90, 8: 102}

# Map cells per star: about Stellar Conquest's density.
CELLS_PER_STAR = 13

STAR_NAMES: tuple[str, ...] = (
    "Achernar", "Acrux", "Adhara", "Albireo", "Alcor", "Aldebaran", "Algol", "Alhena",
    "Alioth", "Alkaid", "Almach", "Alnair", "Alnilam", "Alphard", "Alphecca", "Alpheratz",
    "Altair", "Ankaa", "Antares", "Arcturus", "Arneb", "Atria", "Avior", "Bellatrix",
    "Betelgeuse", "Canopus", "Capella", "Caph", "Castor", "Deneb", "Denebola", "Diphda",
    "Dubhe", "Elnath", "Eltanin", "Enif", "Fomalhaut", "Gacrux", "Gienah", "Hadar", "Hamal",
    "Izar", "Kochab", "Markab", "Menkar", "Menkent", "Merak", "Miaplacidus", "Mimosa",
    "Mintaka", "Mirach", "Mirfak", "Mizar", "Nunki", "Peacock", "Phecda", "Polaris",
    "Pollux", "Procyon", "Rasalhague", "Regulus", "Rigel", "Sabik", "Sadr", "Saiph",
    "Scheat", "Schedar", "Shaula", "Sirius", "Spica", "Suhail", "Tarazed", "Thuban",
    "Unukalhai", "Vega", "Wezen", "Zaurak", "Zosma",
)  # fmt: skip


def default_stars(players: int) -> int:
    """Return the default number of stars for a player count.

    Raises:
        ValueError: if ``players`` is not 2..8.
    """
    if players not in DEFAULT_STARS:
        raise ValueError(f"players must be 2..8, got {players}")
    return DEFAULT_STARS[players]


def _size(stars: int) -> tuple[int, int]:
    """Return (width, height) for a star count: about 5:4 and CELLS_PER_STAR cells a star."""
    cells = max(stars * CELLS_PER_STAR, 120)
    height = max(10, round(math.sqrt(cells * 4 / 5)))
    width = max(12, math.ceil(cells / height))
    return width, height


def _entry_hexes(width: int, height: int, players: int) -> list[Hex]:
    """Return one edge hex per player, spread evenly around the map's rim.

    Players sit at equal angles around the centre, starting from the top-left corner (two
    players face each other across opposite corners, four take the four corners).
    """
    cx, cy = (width - 1) / 2, (height - 1) / 2
    rim = [
        (c, r)
        for c in range(width)
        for r in range(height)
        if c in (0, width - 1) or r in (0, height - 1)
    ]
    start = math.atan2(-1.0, -1.0)
    out: list[Hex] = []
    for k in range(players):
        angle = start + 2 * math.pi * k / players

        # The rim cell whose direction from the centre is closest to the player's angle.
        def gap(cell: tuple[int, int], angle: float = angle) -> tuple[float, tuple[int, int]]:
            # Angles on the map squashed to a square, so four players get the four corners.
            a = math.atan2((cell[1] - cy) / max(cy, 1), (cell[0] - cx) / max(cx, 1))
            return (abs(math.remainder(a - angle, 2 * math.pi)), cell)

        col, row = min(rim, key=gap)
        out.append(from_offset(col, row))
    return out


def _system(rng: random.Random, name: str, cell: Hex) -> StarSystem:
    colour = weighted(rng, COLOUR_WEIGHTS)
    odds = PLANET_TABLE[colour]
    count = weighted(rng, list(enumerate(odds.planet_count)))
    orbits = sorted(shuffled(rng, range(1, 9))[:count])
    planets: list[Planet] = []
    dense = False
    for orbit in orbits:
        kind = weighted(
            rng,
            (
                (PlanetType.TERRAN, odds.terran),
                (PlanetType.SUB_TERRAN, odds.sub_terran),
                (PlanetType.MINIMAL_TERRAN, odds.minimal_terran),
                (PlanetType.BARREN, odds.barren),
            ),
        )
        sizes = CAPACITY[kind]
        capacity = sizes[below(rng, len(sizes))]
        planets.append(Planet(orbit, kind, capacity, percent(rng, odds.mineral_rich)))
        if kind in (PlanetType.TERRAN, PlanetType.SUB_TERRAN) and percent(rng, DENSE_WORLD):
            dense = True
    features: list[Feature] = []
    if dense:
        features.append(Feature.DENSE_WORLD)
    if percent(rng, odds.gas_giant):
        features.append(Feature.GAS_GIANT)
    if percent(rng, odds.asteroid_field):
        features.append(Feature.ASTEROID_FIELD)
    return StarSystem(name, cell, colour, tuple(planets), tuple(features))


def _names(rng: random.Random, count: int) -> list[str]:
    names = shuffled(rng, STAR_NAMES)[:count]
    # Past the named stars, catalogue numbers like the Lafayette sector's "HR-1306".
    serial = 100 + below(rng, 800)
    while len(names) < count:
        names.append(f"HR-{serial}")
        serial += 1 + below(rng, 40)
    return names


def generate(
    seed: int,
    *,
    players: int = 4,
    stars: int | None = None,
    name: str | None = None,
) -> StarMap:
    """Return a Stellar Conquest-style map; the same arguments always give the same map.

    Stars keep one empty hex between each other and two from entry hexes; clouds avoid stars
    and entry hexes. Entry placement is fair by construction (even angles around the rim) and
    star placement is redrawn (deterministically, up to 40 times) until every player has the
    same number of stars within 6 hexes of their entry, give or take one; failing that, the
    fairest draw is kept.

    Raises:
        ValueError: if ``players`` is not 2..8 or ``stars`` is not 1..600.
    """
    if players not in DEFAULT_STARS:
        raise ValueError(f"players must be 2..8, got {players}")
    if stars is None:
        stars = DEFAULT_STARS[players]
    if not 1 <= stars <= 600:
        raise ValueError(f"stars must be 1..600, got {stars}")
    rng = random.Random(seed)
    width, height = _size(stars)
    entries = _entry_hexes(width, height, players)
    cells = [from_offset(c, r) for c in range(width) for r in range(height)]

    best: tuple[int, list[Hex]] | None = None
    for _attempt in range(40):
        placed = _place_stars(rng, cells, entries, stars)
        near = [sum(1 for s in placed if s.distance(e) <= 6) for e in entries]
        spread = max(near) - min(near)
        if best is None or spread < best[0]:
            best = (spread, placed)
        if spread <= 1:
            break
    assert best is not None
    placed = sorted(best[1])
    names = _names(rng, len(placed))
    systems = [_system(rng, n, cell) for n, cell in zip(names, placed, strict=True)]
    clouds = _clouds(rng, cells, width, height, set(placed), entries)
    return StarMap(
        name=name or f"generated-{seed}",
        title=f"Generated map, seed {seed}, {players} players, {len(systems)} stars",
        provenance=f"umpire map generate --seed {seed} --players {players} --stars {stars}",
        width=width,
        height=height,
        systems=systems,
        clouds=clouds,
        entries=[Entry(str(i + 1), cell) for i, cell in enumerate(entries)],
    )


def _place_stars(rng: random.Random, cells: list[Hex], entries: list[Hex], stars: int) -> list[Hex]:
    blocked: set[Hex] = set()
    for e in entries:
        blocked.update((e, *e.neighbours()))
    placed: list[Hex] = []
    for cell in shuffled(rng, cells):
        if len(placed) == stars:
            break
        if cell in blocked:
            continue
        placed.append(cell)
        # One empty hex between stars.
        blocked.add(cell)
        blocked.update(cell.neighbours())
    if len(placed) < stars:
        raise ValueError(f"cannot fit {stars} stars on the map")
    return placed


def _clouds(
    rng: random.Random,
    cells: list[Hex],
    width: int,
    height: int,
    stars: set[Hex],
    entries: list[Hex],
) -> list[Hex]:
    """Grow a few cloud blobs of 3-8 hexes, about one per 100 cells."""
    on_map = set(cells)
    forbidden = set(stars)
    for e in entries:
        forbidden.add(e)
        forbidden.update(e.neighbours())
    clouds: set[Hex] = set()
    for _ in range(max(1, len(cells) // 100)):
        col, row = below(rng, width), below(rng, height)
        seed_cell = from_offset(col, row)
        if seed_cell in forbidden or seed_cell in clouds:
            continue
        blob = [seed_cell]
        target = 3 + below(rng, 6)
        while len(blob) < target:
            base = blob[below(rng, len(blob))]
            options = [
                n for n in base.neighbours() if n in on_map and n not in forbidden and n not in blob
            ]
            if not options:
                break
            blob.append(options[below(rng, len(options))])
        clouds.update(blob)
    return sorted(clouds)
