"""FTL drives on the table (FT2, 001 L1015-1070): the rule's numbers and its dice, pure.

A ship leaving the table writes the jump order (``J``) in its movement orders: no thrust and
no offensive fire that turn (L1027); on the following turn it moves half its velocity on its
course after every other ship and disappears (L1029). With any other ship or object within
6" of that point its D6 decides (L1037-1047): 1 the drive fails, 2-4 it jumps and everything
within 6" takes 1D6, 5-6 it explodes and every other ship within 6" takes its original
damage points. A ship entering by FTL dropout scatters a D12 clock direction and a D6
distance from its intended point (L1058-1064), and every ship or object within 6" of where
it appears, itself included, takes a D6, a 6 making it a second D6 times 6 (L1066-1070).
:func:`tactical.battle.resolve` carries them out; the choices are in docs/rulings.md,
"Tactical: FTL on the table (FT2)".

The worked example (001 L1047): a 10 damage point ship that explodes does 10 to every ship
within 6".

>>> departure(5), departure(6), explosion_damage(10)
('explodes', 'explodes', 10)
"""

from __future__ import annotations

import math
from typing import Literal

from tactical.movement import heading_vector, round_mu

__all__ = [
    "ARRIVAL_TIMES_ON",
    "EXTREME_ON",
    "FTL_RADIUS_MU",
    "Departure",
    "arrival_damage",
    "departure",
    "explosion_damage",
    "scatter",
    "scatter_distance",
    "within_radius",
]

FTL_RADIUS_MU = 6.0  # 001 L1037, L1066: the danger radius, 6" round the point
EXTREME_ON = 6  # 001 L1064 OPTION: a 6 for distance rolls a second D6 and multiplies
ARRIVAL_TIMES_ON = 6  # 001 L1070: a 6 for damage rolls a second D6 and multiplies

Departure = Literal["fails", "jumps", "explodes"]


def within_radius(x: float, y: float, other_x: float, other_y: float) -> bool:
    """Return whether a point lies within 6" of the FTL point, the bound included as for every
    range (digest R).

    >>> within_radius(0, 0, 6, 0), within_radius(0, 0, 6.01, 0)
    (True, False)
    """
    return math.hypot(other_x - x, other_y - y) <= FTL_RADIUS_MU


def departure(face: int) -> Departure:
    """Return what the jumping ship's D6 does (001 L1039-1045): 1 the drive fails to engage,
    2-4 a safe jump that hurts everything near, 5-6 the ship explodes.

    >>> [departure(face) for face in range(1, 7)]
    ['fails', 'jumps', 'jumps', 'jumps', 'explodes', 'explodes']
    """
    if face == 1:
        return "fails"
    return "jumps" if face <= 4 else "explodes"


def explosion_damage(original_points: int) -> int:
    """Return the damage an exploding ship does to every other ship within 6": its total
    original damage points (001 L1045-1047)."""
    return original_points


def scatter_distance(first: int, second: int | None) -> int:
    """Return the dropout's scatter in MU: the distance D6, or under the OPTION a 6 times the
    second D6 (001 L1064).

    >>> scatter_distance(4, None), scatter_distance(6, 5)
    (4, 30)
    """
    return first if second is None else first * second


def scatter(x: float, y: float, direction: int, distance: float) -> tuple[float, float]:
    """Return where the marker lands: ``distance`` MU from ``(x, y)`` towards the clock point
    ``direction`` of the course gauge (001 L1058; 12 is +y, 3 is +x, as ``course``).

    >>> scatter(10, 10, 3, 4), scatter(10, 10, 12, 5)
    ((14.0, 10.0), (10.0, 15.0))
    """
    dx, dy = heading_vector(direction)
    return round_mu(x + distance * dx), round_mu(y + distance * dy)


def arrival_damage(face: int, second: int | None) -> int:
    """Return the damage a ship or object within 6" of a dropout takes: its D6, or a 6 times a
    second D6 (001 L1068-1070).

    >>> arrival_damage(3, None), arrival_damage(6, 4)
    (3, 24)
    """
    return face if second is None else face * second
