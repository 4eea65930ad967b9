"""Collisions with asteroids as pure functions: which asteroids a ship's move crosses, in the
order it meets them, and the D6 it needs to avoid each (FT2 001 L1092-1110; Project Continuum
000 17.6, L18059-18153).

A move is a path of points (:data:`tactical.mines.Path`): under cinematic movement the start,
the mid-move turn and the end, so both legs count ("any part of the ship's movement", 001
L1092); under vector movement the straight line from start to end (000 L13828-13850). The path
crosses an asteroid when it passes strictly inside its base, the same geometry as a blocked
line of fire (:func:`tactical.fire.line_blocked`): the ship is a point (000 L18095-18101), and a
path that only touches the rim grazes it. The battle (:mod:`tactical.battle`) rolls the dice
and destroys the ship; this module holds the numbers.

The worked example (001 L1096, L1104; 000 L18128-18137): a cruiser with thrust 4 at velocity 9
needs a 5 or 6.

>>> avoid_need(velocity=9, thrust=4), evades(face=4, need=5), evades(face=5, need=5)
(5, False, True)
>>> asteroids_crossed(((0.0, 0.0), (0.0, 5.0), (6.0, 5.0)), [(4.0, 5.5), (0.5, 2.0), (9.0, 9.0)])
[1, 0]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from tactical.fire import ASTEROID_RADIUS_MU, line_blocked
from tactical.mines import Path, first_contact

__all__ = [
    "AVOID_ALWAYS",
    "AVOID_DIE",
    "asteroids_crossed",
    "avoid_need",
    "drift_legs",
    "ends_inside",
    "evades",
    "needs_die",
]

AVOID_DIE = 6  # "the roll of one D6" (001 L1092; 000 L18122)
AVOID_ALWAYS = 1
# "If the needed number for avoidance is 1 or less, then the ship is automatically able to
# evade a collision; if the number is greater than 6, then a crash is inevitable" (001 L1106;
# 000 L18141-18147).


def avoid_need(*, velocity: float, thrust: int) -> int:
    """Return the D6 face a ship needs to avoid an asteroid: its current velocity less its total
    available thrust, "EQUALLED OR EXCEEDED" by the die (001 L1092; 000 L18116-18124). A
    fractional velocity (vector movement kept to 0.001 MU) needs the next whole face.

    >>> avoid_need(velocity=9, thrust=4), avoid_need(velocity=2, thrust=4)
    (5, -2)
    >>> avoid_need(velocity=9.2, thrust=4)
    6
    """
    return math.ceil(round(velocity - thrust, 3))


def needs_die(need: int) -> bool:
    """Return whether the die is rolled at all: not when the ship avoids the asteroid
    automatically (``need`` 1 or less) nor when the crash is inevitable (more than 6; 001
    L1106).

    >>> needs_die(1), needs_die(2), needs_die(6), needs_die(7)
    (False, True, True, False)
    """
    return AVOID_ALWAYS < need <= AVOID_DIE


def evades(*, face: int | None, need: int) -> bool:
    """Return whether the ship avoids the asteroid: automatically at ``need`` 1 or less, never
    above 6, else when the D6 ``face`` equals or exceeds ``need`` (001 L1092, L1106).

    >>> evades(face=None, need=1), evades(face=None, need=7), evades(face=6, need=6)
    (True, False, True)
    """
    if need <= AVOID_ALWAYS:
        return True
    if need > AVOID_DIE or face is None:
        return False
    return face >= need


def asteroids_crossed(
    path: Path, asteroids: Sequence[tuple[float, float]], radius: float = ASTEROID_RADIUS_MU
) -> list[int]:
    """Return the indices of the asteroids whose base the path passes strictly inside, in the
    order the ship meets them (by how far along its move it first reaches the base; the index
    settles ties). A ship that does not move crosses the base it sits on.

    >>> asteroids_crossed(((0.0, 0.0), (0.0, 10.0)), [(1.0, 5.0), (0.999, 5.0)])  # rim, inside
    [1]
    >>> asteroids_crossed(((0.0, 0.0), (0.0, 0.0)), [(0.5, 0.0)])  # sitting on the base
    [0]
    """
    legs = list(itertools.pairwise(path)) or [(path[0], path[0])]
    met: list[tuple[float, int]] = []
    for index, (x, y) in enumerate(asteroids):
        if any(line_blocked(start, end, [(x, y)], radius) for start, end in legs):
            when = first_contact(path, x, y, radius)
            met.append((0.0 if when is None else when, index))
    return [index for _when, index in sorted(met)]


def ends_inside(
    end: tuple[float, float],
    asteroids: Sequence[tuple[float, float]],
    radius: float = ASTEROID_RADIUS_MU,
) -> list[int]:
    """Return the indices of the asteroids a ship's final position is strictly inside: with
    moving asteroids the only risk of its own move, "the final position of a ship after making
    its move is inside the asteroid" (000 L18087-18089).

    >>> ends_inside((0.0, 0.0), [(0.5, 0.5), (1.0, 0.0), (3.0, 3.0)])
    [0]
    """
    return asteroids_crossed((end, end), asteroids, radius)


def drift_legs(
    start: tuple[float, float],
    drift: tuple[float, float],
    field: tuple[float, float, float, float],
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Return the straight legs an asteroid sweeps drifting ``drift`` from ``start`` in a field
    that wraps: leaving one side it comes back on the opposite (004 L180-181), so a drift
    across an edge is two legs (three across a corner), each inside the field.

    >>> drift_legs((5.0, 5.0), (3.0, 0.0), (0.0, 0.0, 10.0, 10.0))
    [((5.0, 5.0), (8.0, 5.0))]
    >>> drift_legs((9.0, 5.0), (3.0, 0.0), (0.0, 0.0, 10.0, 10.0))
    [((9.0, 5.0), (10.0, 5.0)), ((0.0, 5.0), (2.0, 5.0))]
    """
    x_min, y_min, x_max, y_max = field
    lows, sizes = (x_min, y_min), (x_max - x_min, y_max - y_min)
    cuts = {0.0, 1.0}
    for axis in (0, 1):
        if drift[axis] == 0:
            continue
        first = math.floor((start[axis] - lows[axis]) / sizes[axis])
        last = math.floor((start[axis] + drift[axis] - lows[axis]) / sizes[axis])
        for cell in range(min(first, last) + 1, max(first, last) + 1):
            cuts.add((lows[axis] + cell * sizes[axis] - start[axis]) / drift[axis])
    times = sorted(t for t in cuts if 0.0 <= t <= 1.0)
    legs = []
    for t0, t1 in itertools.pairwise(times):
        mid = (t0 + t1) / 2
        shift = [
            math.floor((start[axis] + mid * drift[axis] - lows[axis]) / sizes[axis]) * sizes[axis]
            for axis in (0, 1)
        ]
        a, b = (
            tuple(start[axis] + t * drift[axis] - shift[axis] for axis in (0, 1)) for t in (t0, t1)
        )
        legs.append(((a[0], a[1]), (b[0], b[1])))
    return legs
