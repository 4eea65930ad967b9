"""What each side knows of each enemy ship when record sheets are closed (the
``enemy_sheets = "sensed"`` option with ``bogeys``): the fold of its advanced scans, and the
estimate of an enemy ship it knows only in part.

"Players do not have access to enemy SSDs when using the optional Sensors and ECM rules" (000
L1462-1466). Identifying a bogey replaces it with the ship (000 L12569-12573), which shows
its class (L12517-12521), place and motion; an active scan with enhanced or superior sensors
discloses more, by its score (000 L12648-12660, :data:`~tactical.sensors.LEARNED`), and the
side remembers it (L12664-12672): :func:`remember` keeps the best level each side reached of
each enemy ship in ``BattleState.known``, so knowledge is a fold of the journal's recorded
scans. :func:`known_level` reads it; :func:`estimate` gives the record sheet a side assumes
for a ship whose systems it does not know: the catalogue's typical design of its class, the
nearest in mass, drive and screens to what the side knows, with those values put in.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import msgspec

from tactical.designs import builtin_ids, load_builtin
from tactical.points import build
from tactical.sensors import (
    DAMAGE_KNOWN,
    DRIVE_KNOWN,
    MASS_KNOWN,
    Sensed,
    Sighting,
)
from tactical.ship import PRESETS, Ship
from tactical.state import BattleContext, BattleState, ShipInPlay

__all__ = ["estimate", "known_level", "remember", "sheets_closed", "sighting_of"]


def sheets_closed(ctx: BattleContext) -> bool:
    """Whether enemy record sheets are closed: Continuum's sensor rules in play (000
    L1462-1466), FT2's and every battle without bogeys open-book (000 L1442-1458; 001 L945)."""
    return ctx.rules.bogeys and ctx.rules.enemy_sheets == "sensed"


def remember(state: BattleState, sensed: Iterable[Sensed]) -> BattleState:
    """Fold a movement step's scans into what each side knows: the best level each side's
    advanced scans reached of each enemy ship (000 L12664-12672); a worse scan later forgets
    nothing."""
    best = {(side, ship): level for side, ship, level in state.known}
    for scan in sensed:
        if scan.learned is None or scan.by is None or scan.learned <= 0:
            continue
        key = (state.ship(scan.by).side, scan.counter)
        best[key] = max(best.get(key, 0), scan.learned)
    known = tuple(sorted((side, ship, level) for (side, ship), level in best.items()))
    if known == state.known:
        return state
    return msgspec.structs.replace(state, known=known)


def known_level(ctx: BattleContext, state: BattleState, side: str, ship: ShipInPlay) -> int:
    """Return how much ``side`` knows of a ship, an index in
    :data:`~tactical.sensors.LEARNED`: everything of its own ships and under open books, else
    the best its advanced scans learned, "no information" beyond what identification shows."""
    if ship.side == side or not sheets_closed(ctx):
        return DAMAGE_KNOWN
    return max((level for s, i, level in state.known if s == side and i == ship.id), default=0)


def sighting_of(sheet: Ship, level: int) -> Sighting:
    """Return what a side knowing a ship to ``level`` (below everything) knows of its record
    sheet: its class always, its mass from "mass only", its drive and screens from "mass,
    drive and screens", original values (000 L12648-12656)."""
    return Sighting(
        level=level,
        shows=sheet.hull_class,
        mass=sheet.mass if level >= MASS_KNOWN else None,
        thrust=sheet.thrust if level >= DRIVE_KNOWN else None,
        screens=sheet.screens if level >= DRIVE_KNOWN else None,
    )


@cache
def _catalogue(preset_name: str) -> tuple[tuple[str, Ship], ...]:
    preset = PRESETS[preset_name]
    return tuple(
        (design_id, build(load_builtin(design_id, family), preset, ship_id=design_id))
        for family, design_id in builtin_ids(preset.rules)
        if family == preset.rules
    )


@cache
def estimate(preset_name: str, seen: Sighting) -> tuple[str, Ship]:
    """Return the design a side assumes for a ship it knows only as ``seen``, and its record
    sheet: among the catalogue's designs of the ship's class (all of them if none is), the
    nearest to its known mass, then screens, then drive; with nothing known, the class's
    middle design by mass; ties by name. The known mass, drive and screens are written into
    the sheet. A function of ``seen`` alone, so it discloses nothing more.

    >>> estimate("continuum", Sighting(level=0, shows="escort"))[0]
    'frigate'
    >>> name, sheet = estimate("continuum", Sighting(level=1, shows="capital", mass=120))
    >>> name, sheet.mass
    ('battleship', 120)
    """
    designs = _catalogue(preset_name)
    same = [d for d in designs if d[1].hull_class == seen.shows] or list(designs)
    masses = sorted(sheet.mass for _, sheet in same)
    target = seen.mass if seen.mass is not None else masses[(len(masses) - 1) // 2]

    def distance(design: tuple[str, Ship]) -> tuple[int, int, int, str]:
        name, sheet = design
        return (
            abs(sheet.mass - target),
            abs(sheet.screens - seen.screens) if seen.screens is not None else 0,
            abs(sheet.thrust - seen.thrust) if seen.thrust is not None else 0,
            name,
        )

    name, sheet = min(same, key=distance)
    return name, msgspec.structs.replace(
        sheet,
        hull_class=seen.shows,
        mass=sheet.mass if seen.mass is None else seen.mass,
        thrust=sheet.thrust if seen.thrust is None else seen.thrust,
        screens=sheet.screens if seen.screens is None else seen.screens,
    )
