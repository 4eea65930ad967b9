"""The cheap geometry behind Engage's search (issue 17): every candidate move's end worked out
by arithmetic from offsets cached per starting facing and drive, and the beam dice at a point
read from a table per ship, arc and range band, instead of moving, bearing and arcing anew for
each of some hundreds of candidates.

Nothing here decides; :mod:`tactical.commanders.engage` does. The figures are the commander's
estimate only: the engine moves and fires by its own rules, so a rounding this module skips
(the engine keeps positions to 0.001 MU) can change no outcome, only a choice.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from tactical.battle import BattleContext, ShipInPlay, order_limits, velocity
from tactical.commanders.spatial import spatial_rows
from tactical.commanders.steering import _all_orders, vector_candidates, vector_orders
from tactical.fire import BAND_MU, BEAM_STRENGTH, is_beam
from tactical.movement import (
    COURSES,
    DEGREES_PER_COURSE,
    PUSH_ANGLE,
    Order,
    course_after,
)
from tactical.ship import Ship, read_off

AFT_ARC = "A"  # no offensive fire through the aft arc (001 L404; 000 L2483-2679)


class Candidate(NamedTuple):
    """A move a ship may make: its order, where it ends and its facing there, and the
    velocity it leaves with (per turn, x and y)."""

    order: Order
    x: float
    y: float
    facing: int
    vx: float
    vy: float


class GunTable(NamedTuple):
    """A ship's working beams as dice: ``dice[arc][band - 1]`` for each arc index (clockwise
    from the bow, the rules' ring of arcs), the longest reach, and the most dice any one arc
    gives in each band (what it rolls at a ship it has turned to face)."""

    dice: tuple[tuple[int, ...], ...]
    reach: float
    best: tuple[int, ...]


def gun_table(ctx: BattleContext, ship: ShipInPlay) -> GunTable:
    """The ship's :class:`GunTable` from its working beams (tactical.fire.beam_dice: a beam-N
    rolls N dice in the first band, one fewer a band on; none aft)."""
    sheet = ctx.sheets[ship.id]
    arcs = ctx.rules.arcs
    systems = ship.record.systems
    working = tuple(
        (strength, on)
        for index, strength, on in read_off(sheet, _beams)
        if systems[index].status == "ok"
    )
    return _gun_table(arcs, working)


def _beams(sheet: Ship) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """The sheet's beams: place in its systems, strength and arcs."""
    return tuple(
        (index, BEAM_STRENGTH[spec.kind], spec.arcs)
        for index, spec in enumerate(sheet.systems)
        if is_beam(spec.kind)
    )


@functools.lru_cache(maxsize=4096)
def _gun_table(arcs: tuple[str, ...], beams: tuple[tuple[int, tuple[str, ...]], ...]) -> GunTable:
    """:func:`gun_table` of working beams ``(strength, arcs)`` under the rules' arcs: worked
    out once for each, since an Engage side asks for every ship's table each turn."""
    bands = max((strength for strength, _ in beams), default=0)
    dice = tuple(
        tuple(
            0
            if arc == AFT_ARC
            else sum(
                strength - band + 1 for strength, on in beams if arc in on and strength >= band
            )
            for band in range(1, bands + 1)
        )
        for arc in arcs
    )
    best = tuple(max(row[band] for row in dice) for band in range(bands))
    return GunTable(dice, bands * BAND_MU if bands else -1.0, best)


def arc_index(relative: float, count: int) -> int:
    """The index of the arc a bearing (degrees off the bow, positive to starboard) lies in,
    for ``count`` equal arcs centred on the bow (a line goes either way: an estimate)."""
    width = 360.0 / count
    return int(((relative + width / 2) % 360.0) // width) % count


def dice_at(
    table: GunTable, arcs: int, x: float, y: float, facing: int, tx: float, ty: float
) -> int:
    """The beam dice a ship at (x, y) facing ``facing`` would roll at a point."""
    dx, dy = tx - x, ty - y
    distance = math.hypot(dx, dy)
    if distance > table.reach:
        return 0
    band = max(1, math.ceil(distance / BAND_MU))
    if band > len(table.best) or not table.best[band - 1]:
        return 0
    relative = math.degrees(math.atan2(dx, dy)) - facing % COURSES * DEGREES_PER_COURSE
    return table.dice[arc_index(relative, arcs)][band - 1]


def best_dice_at(table: GunTable, distance: float) -> int:
    """The most beam dice the ship could roll at this range, facing its best arc that way."""
    if distance > table.reach:
        return 0
    band = max(1, math.ceil(distance / BAND_MU))
    return table.best[band - 1] if band <= len(table.best) else 0


@functools.cache
def _unit(degrees: float) -> tuple[float, float]:
    angle = math.radians(degrees)
    return math.sin(angle), math.cos(angle)


@functools.cache
def _vector_offsets(
    facing: int, thrust: int, points: int
) -> tuple[tuple[Order, float, float, int], ...]:
    """Each vector order of a drive (:func:`vector_orders`)'s displacement over the drift,
    and the facing it ends with (tactical.movement.vector_move without its rounding). Keyed
    by three numbers: hashing the orders would cost more than the search they feed."""
    found = []
    for order in vector_orders(thrust, points):
        x = y = 0.0
        face = facing
        for burn in order.vector:
            if burn.kind == "TP":
                face = course_after(face, -burn.amount)
            elif burn.kind == "TS":
                face = course_after(face, burn.amount)
            else:
                angle = face % COURSES * DEGREES_PER_COURSE + PUSH_ANGLE.get(burn.kind, 0.0)
                ux, uy = _unit(angle)
                x, y = x + ux * burn.amount, y + uy * burn.amount
        found.append((order, x, y, face))
    return tuple(found)


@functools.cache
def _cinematic_offsets(
    course: int, speed: int, thrust: int, limit: int, halves: bool
) -> tuple[tuple[Order, float, float, int, int], ...]:
    """Each legal cinematic order's displacement, final course and speed
    (tactical.movement.move without its rounding)."""
    found = []
    for turn in range(-limit, limit + 1):
        room = thrust - abs(turn)
        for accel in range(-room, room + 1):
            new = speed + accel
            if new < 0:
                continue
            sign = -1 if turn < 0 else 1
            first = course_after(course, sign * (abs(turn) // 2))
            final = course_after(course, turn)
            first_leg = new / 2 if halves else float(new // 2)
            ax, ay = _unit(first % COURSES * DEGREES_PER_COURSE)
            bx, by = _unit(final % COURSES * DEGREES_PER_COURSE)
            dx = ax * first_leg + bx * (new - first_leg)
            dy = ay * first_leg + by * (new - first_leg)
            found.append((Order(turn=turn, accel=accel), dx, dy, final, new))
    return tuple(found)


if TYPE_CHECKING:
    # numpy is imported by the functions that use it, when a battle is fought: importing it
    # here would add a fifth of a second to every CLI command that imports the commanders.
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int64]


class Offsets(NamedTuple):
    """Every vector order of a drive from one facing, as arrays for a batched search: the
    displacement each adds to the drift (x and y) and the facing each ends with."""

    orders: tuple[Order, ...]
    dx: FloatArray
    dy: FloatArray
    facing: IntArray
    rank: IntArray
    """Once the orders are sorted by facing (a stable sort), each one's place among those of
    its facing: the same whatever order they came in, for the facings are the same."""


@functools.cache
def vector_offset_arrays(facing: int, thrust: int, points: int) -> Offsets:
    """:func:`_vector_offsets` as :class:`Offsets`, built once a facing and drive."""
    import numpy as np

    found = _vector_offsets(facing, thrust, points)
    facings = np.array([f for _o, _x, _y, f in found], dtype=np.int64)
    ordered = np.sort(facings)
    first = np.searchsorted(ordered, ordered)  # where each one's facing starts
    return Offsets(
        tuple(order for order, _x, _y, _f in found),
        np.array([x for _o, x, _y, _f in found], dtype=np.float64),
        np.array([y for _o, _x, y, _f in found], dtype=np.float64),
        facings,
        np.arange(len(found)) - first,
    )


@functools.lru_cache(maxsize=1024)
def dice_array(table: GunTable, bands: int) -> tuple[IntArray, IntArray]:
    """A :class:`GunTable`'s dice as arrays padded with none to ``bands`` range bands:
    ``dice[arc, band]`` and ``best[band]``."""
    import numpy as np

    dice = np.zeros((len(table.dice), bands), dtype=np.int64)
    best = np.zeros(bands, dtype=np.int64)
    width = len(table.best)
    if width:
        dice[:, :width] = np.array(table.dice, dtype=np.int64)
        best[:width] = np.array(table.best, dtype=np.int64)
    return dice, best


Row = tuple[Order, float, float, int, float, float]
"""A :class:`Candidate`'s fields as a plain tuple: cheaper to build by the hundred, for a
search that makes a Candidate only of the few it weighs in full."""


def candidate_rows(ctx: BattleContext, ship: ShipInPlay) -> list[Row]:
    """Every move the ship may make this turn (the vector candidates, or every cinematic turn
    and speed change), with where it ends, as :data:`Row` s in :func:`candidates`' order."""
    if ctx.rules.movement == "spatial":
        return spatial_rows(ctx, ship)  # 003: tactical.commanders.spatial
    thrust, limit = order_limits(ctx, ship)
    if ship.vector is not None:
        vx, vy = velocity(ship)
        sx, sy = ship.x + vx, ship.y + vy
        return [
            (order, sx + dx, sy + dy, face, vx + dx, vy + dy)
            for order, dx, dy, face in _vector_offsets(ship.course, thrust, limit)
        ]
    halves = ctx.rules.split_velocity == "halves"
    found: list[Row] = []
    for order, dx, dy, final, new in _cinematic_offsets(
        ship.course, ship.speed, thrust, limit, halves
    ):
        ux, uy = _unit(final % COURSES * DEGREES_PER_COURSE)
        found.append((order, ship.x + dx, ship.y + dy, final, ux * new, uy * new))
    return found


def candidates(ctx: BattleContext, ship: ShipInPlay) -> list[Candidate]:
    """Every move the ship may make this turn (the vector candidates, or every cinematic turn
    and speed change), with where it ends."""
    return [Candidate(*row) for row in candidate_rows(ctx, ship)]


def same_orders(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """Whether :func:`candidates` offers exactly the orders the other doctrines weigh (a
    check for the tests)."""
    mine = [c.order for c in candidates(ctx, ship)]
    theirs = vector_candidates(ctx, ship) if ship.vector is not None else _all_orders(ctx, ship)
    return mine == theirs


def nearest(ships: Sequence[ShipInPlay], x: float, y: float) -> ShipInPlay:
    """The ship nearest a point, the id breaking ties."""
    return min(ships, key=lambda s: (math.hypot(s.x - x, s.y - y), s.id))
