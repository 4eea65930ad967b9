"""Mines and minesweeping as pure functions: the mine counter, its trigger radius along a path,
and the sweep die (FT2 001 L868-898; Project Continuum 000 6.9-6.10, 12.5).

A mine is a counter of its own on the table (:class:`Mine`): laid by a minelayer somewhere along
its move, or placed in the set-up, it lies still until it detonates or is swept, and it is
active from the turn after the one it was laid in (001 L888). Any enemy ship whose move comes
within :data:`MINE_RADIUS_MU` of it, at any point of that move (001 L872), is attacked with beam
dice; an active minesweeper rolls :func:`sweep_result` instead (001 L896). The battle
(:mod:`tactical.battle`) decides when; this module holds the tables and the geometry.

A move is a path of points (the start, the turn at mid-move, the end, 001 L346-358), and a
point along it is a fraction of its length: the ship flies it at an even pace, so the fraction
is also the time within the move, which orders the mine attacks of ships that move at once.

>>> path = ((0.0, 0.0), (0.0, 5.0), (0.0, 10.0))
>>> round(first_contact(path, 0.0, 9.0, MINE_RADIUS_MU), 6)  # 3" from (0, 9) first at (0, 6)
0.6
>>> point_along(path, 0.25)
(0.0, 2.5)
>>> [sweep_result(face) for face in (1, 2, 3, 6)]  # 001 L896
['detonated', 'held', 'cleared', 'cleared']
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Literal

from msgspec import Struct

__all__ = [
    "FT2_MINES_PER_LAYER",
    "MINELAYER",
    "MINESWEEPER",
    "MINE_RADIUS_MU",
    "MINE_TENTHS",
    "SWEEP_CLEARS",
    "SWEEP_DETONATES",
    "Mine",
    "Path",
    "SweepResult",
    "first_contact",
    "mine_id",
    "point_along",
    "sweep_result",
]

MINELAYER = "minelayer"
MINESWEEPER = "minesweeper"
MINE_RADIUS_MU = 3.0
# A mine detects and fires on an enemy ship that comes within 3" at any point of its move, not
# just at its end (001 L872; 000 L6729-6737); the upper limit is included, as for every range.
FT2_MINES_PER_LAYER = 3  # each FT2 minelayer carries three mines (001 L886, L1344)
MINE_TENTHS = 10
# Where along its move a layer drops a mine, in tenths of the move: 0 at its start, 10 at its
# end ("anywhere along the ship's course during that movement", 001 L884).
SWEEP_DETONATES = 1  # on a 1 the mine attacks the sweeper (001 L896; 000 L12898-12902)
SWEEP_CLEARS = 3  # on 3 to 6 the mine is disabled and removed; on a 2 it stays (001 L896)
CONTACT_TOLERANCE = 1e-9  # MU: a ship this close to the edge of the radius is within it

SweepResult = Literal["detonated", "held", "cleared"]
Path = Sequence[tuple[float, float]]
"""A ship's move as the points it flies through, in order."""


class Mine(Struct, frozen=True, kw_only=True, gc=False):
    """One mine counter on the table: whose it is, where, and the turn it was laid.

    A mine laid in turn ``laid`` is active from turn ``laid + 1`` (001 L888); a mine placed in
    the set-up has ``laid`` 0 and is active from the first turn.
    """

    id: str
    side: str
    x: float
    y: float
    laid: int = 0

    def active(self, turn: int) -> bool:
        """Whether the mine can attack or be swept during ``turn``.

        >>> Mine(id="m", side="red", x=0, y=0, laid=3).active(3)
        False
        """
        return self.laid < turn


def mine_id(ship_id: str, layer_id: str, turn: int) -> str:
    """Name the mine a layer drops in a turn: one a layer a turn (001 L884) keeps it unique.

    >>> mine_id("r1", "minelayer-2", 4)
    'r1.minelayer-2.t4'
    """
    return f"{ship_id}.{layer_id}.t{turn}"


def sweep_result(face: int) -> SweepResult:
    """Read the sweep die: 1 the mine attacks the sweeper, 2 it stays, 3-6 it is removed
    (001 L896; 000 L12898-12910)."""
    if face <= SWEEP_DETONATES:
        return "detonated"
    if face < SWEEP_CLEARS:
        return "held"
    return "cleared"


def _segment_entry(
    start: tuple[float, float], end: tuple[float, float], x: float, y: float, radius: float
) -> float | None:
    """Return the fraction of the segment at which it first comes within ``radius`` of
    ``(x, y)``, or ``None`` if it never does."""
    (sx, sy), (ex, ey) = start, end
    dx, dy = ex - sx, ey - sy
    fx, fy = sx - x, sy - y
    reach = radius + CONTACT_TOLERANCE
    c = fx * fx + fy * fy - reach * reach
    if c <= 0:
        return 0.0  # it starts within the radius
    a = dx * dx + dy * dy
    if a == 0:
        return None
    b = 2 * (fx * dx + fy * dy)
    disc = b * b - 4 * a * c
    if disc < 0:
        return None
    entry = (-b - math.sqrt(disc)) / (2 * a)
    return entry if 0 <= entry <= 1 else None


def _lengths(path: Path) -> list[float]:
    return [math.dist(a, b) for a, b in itertools.pairwise(path)]


def first_contact(path: Path, x: float, y: float, radius: float) -> float | None:
    """Return how far through its move (0 to 1, by distance flown) a ship flying ``path``
    first comes within ``radius`` of ``(x, y)``; ``None`` if it never does.

    A ship that does not move is within it or not for the whole move (fraction 0).

    >>> first_contact(((0.0, 0.0), (0.0, 0.0)), 0.0, 3.0, 3.0)
    0.0
    >>> first_contact(((0.0, 0.0), (10.0, 0.0)), 5.0, 3.001, 3.0) is None
    True
    """
    lengths = _lengths(path)
    total = sum(lengths)
    if total == 0:
        return 0.0 if _segment_entry(path[0], path[0], x, y, radius) is not None else None
    done = 0.0
    for (start, end), length in zip(itertools.pairwise(path), lengths, strict=True):
        entry = _segment_entry(start, end, x, y, radius)
        if entry is not None:
            return (done + entry * length) / total
        done += length
    return None


def point_along(path: Path, fraction: float) -> tuple[float, float]:
    """Return the point ``fraction`` (0 to 1) of the way along a path, by distance."""
    lengths = _lengths(path)
    left = fraction * sum(lengths)
    for (start, end), length in zip(itertools.pairwise(path), lengths, strict=True):
        if left <= length and length > 0:
            share = left / length
            return (start[0] + (end[0] - start[0]) * share, start[1] + (end[1] - start[1]) * share)
        left -= length
    return path[-1]
