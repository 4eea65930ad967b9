"""Damage control: how many parties a ship has and whether a repair roll succeeds.

Continuum (000 10.4-10.5): a ship has one damage control party (DCP) per surviving crew factor,
plus any extra DCPs bought; up to three parties work on one damaged system and make one D6
roll, succeeding on a roll no higher than their number. FT Lite (002 L59-65) rolls a D6 + 1 per
extra party and succeeds on 6 or more; its ship sheets mark a party with a star in a hull box
(002 L23), which for a ship built to FT2's rules, with no crew factor, this project reads as
the Fleet Book's one party per 20 mass or part (000 L11326-11329; docs/rulings.md). FT2 has no
repair in battle (digest B4).

>>> crew_markers(27, 5)  # 000 L11459-11479: the mass-90 example
(6, 12, 18, 24, 27)
>>> lite_crew_factor(26)  # 000 L11326-11329: "a mass 21-40 ship 2 CFs and 2 DCPs"
2
>>> repair_succeeds(3, 3, "continuum"), repair_succeeds(3, 2, "continuum")  # 000 L11380-11396
(True, False)
"""

from __future__ import annotations

import math
from typing import Literal

from tactical.ship import Ship, ShipState

__all__ = [
    "MAX_PARTIES_PER_JOB",
    "PERMANENT_LOSSES",
    "RepairRule",
    "crew_markers",
    "damage_control_parties",
    "lite_crew_factor",
    "repair_succeeds",
]

RepairRule = Literal["continuum", "lite"]

MAX_PARTIES_PER_JOB = 3  # 000 L11368; 002 L63: "up to three DCPs ... on the same system"
LITE_SUCCESS = 6  # 002 L63: "succeeds on a modified score of 6 or above"
CREW_MASS = 20  # 000 L11326-11329: "one crew factor (CF) for every 20 mass or part thereof"
PERMANENT_LOSSES = frozenset(
    {
        "magazine",
        "magazine_er",
        "magazine_ms",
        "smr",
        "smr_er",
        "smr_ms",
        "heavy_missile",
        "heavy_missile_er",
        "heavy_missile_ms",
        "minelayer",
        "dcp",
        "marines",
    }
)
# 000 L10909-10999 (index 10.1): magazines and missile racks that fail a threshold are lost for
# good; DCPs cannot bring them back. So are the mines in a mine layer's magazine (000
# L10985-10988), and the extra DCPs and marines a threshold kills: "killed and injured
# personnel take longer to repair than damaged machinery" (000 L15100-15108, L15148-15156).


def crew_markers(hull_boxes: int, crew_factor: int) -> tuple[int, ...]:
    """Return the damage-track boxes (1-based, in damage order) that carry crew-factor dots.

    Divide the boxes by the crew factors, round up, and put a dot every that many boxes; the
    last dot always goes in the last box (000 L11437-11455).
    """
    if crew_factor <= 0 or hull_boxes <= 0:
        return ()
    step = math.ceil(hull_boxes / crew_factor)
    marks = [min(step * n, hull_boxes) for n in range(1, crew_factor)]
    return (*marks, hull_boxes)


def lite_crew_factor(mass: int) -> int:
    """Return the DCP stars FT Lite's hull boxes carry for a ship of this mass built with no
    crew factor (FT2's rules): one per 20 mass or part (000 L11326-11329; docs/rulings.md)."""
    return math.ceil(mass / CREW_MASS)


def damage_control_parties(ship: Ship, state: ShipState, rule: str = "continuum") -> int:
    """Return the DCPs a ship has now: crew-factor dots in boxes not yet crossed off, plus each
    working extra DCP system (000 L11415-11425, L15112-15122). Under the ``lite`` rule a ship
    with no crew factor has :func:`lite_crew_factor` stars in its boxes, placed as the dots
    are and lost as they are (002 L23, L33: "Ships with surviving DCP").

    >>> from tactical.setup import sheet_for
    >>> from tactical.ship import fresh_state
    >>> frigate = sheet_for("frigate", "ft2")  # FT2's frigate: mass 10, 5 hull boxes
    >>> state = fresh_state(frigate)
    >>> damage_control_parties(frigate, state), damage_control_parties(frigate, state, "lite")
    (0, 1)
    """
    damage = sum(state.hull_lost)
    factor = ship.crew_factor
    if rule == "lite" and factor == 0:
        factor = lite_crew_factor(ship.mass)
    crew = sum(1 for mark in crew_markers(ship.hull_boxes, factor) if mark > damage)
    extra = sum(
        1
        for spec, sys_state in zip(ship.systems, state.systems, strict=True)
        if spec.kind == "dcp" and sys_state.status == "ok"
    )
    return crew + extra


def repair_succeeds(face: int, parties: int, rule: RepairRule) -> bool:
    """Return whether one repair roll by ``parties`` DCPs on one job succeeds.

    >>> [repair_succeeds(f, 2, "lite") for f in (3, 4, 5)]  # 002 L65: 2 DCPs roll a 3, no
    [False, False, True]
    """
    if rule == "continuum":
        return face <= parties  # 000 L11364-11368
    return face + parties - 1 >= LITE_SUCCESS  # 002 L63
