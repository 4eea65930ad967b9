"""The orders a computer commander weighs under spatial movement (003, :mod:`tactical.spatial`).

A modest set, built once for each facing, motion, spin and drive: no order; a velocity change
of 1, half or all the thrust, pivoting into line first where a standard drive must; a course
change to either side with the least thrust that turns two points, one, or one at the end of
the move, pivoting to face that side first where a standard drive must, alone or after a
velocity change; then the bow turned to face any clock point (after a velocity change or
none) or fore, aft, port or starboard of the course (after a turn). Only the legal ones, and
of orders that end alike the first (the cheapest, as they are built). A halted ship also
pivots to any facing and accelerates. A spinning ship weighs going on and stopping.

>>> from tactical.movement import format_order
>>> orders = spatial_orders(12, 12, 6, 0, 4, False)
>>> [format_order(o) for o in orders[:4]]
['=', 'FA', 'FP', 'FS']
>>> "FP.T3" in {format_order(o) for o in orders}
True
"""

from __future__ import annotations

import functools
import math

from tactical.battle import BattleContext, ShipInPlay, move_start, order_limits
from tactical.movement import (
    COURSES,
    NO_ORDER,
    Manoeuvre,
    MoveStart,
    Order,
    heading_vector,
    spatial_order,
)
from tactical.spatial import TurnRounding, carry_out, motion, motion_vector, spatial_move

__all__ = ["spatial_candidates", "spatial_orders", "spatial_rows"]

FACE_ALONG: dict[int, Manoeuvre] = {1: Manoeuvre("FF"), -1: Manoeuvre("FA")}
FACE_SIDE: dict[str, Manoeuvre] = {"P": Manoeuvre("FP"), "S": Manoeuvre("FS")}
FINAL_FACINGS = (Manoeuvre("FF"), Manoeuvre("FA"), Manoeuvre("FP"), Manoeuvre("FS"))


def spatial_candidates(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """The spatial orders worth weighing for this ship now (see the module)."""
    return list(spatial_orders(*_situation(ctx, ship)))


def _situation(
    ctx: BattleContext, ship: ShipInPlay
) -> tuple[int, int, int, int, int, bool, TurnRounding]:
    """The ship's facing, course, velocity, spin, thrust now, whether its drive is advanced
    and the rules' turn rounding: all its candidates depend on."""
    course, velocity = motion(move_start(ship))
    thrust = order_limits(ctx, ship)[0]
    advanced = ctx.sheets[ship.id].advanced_drive
    return (
        ship.course,
        course,
        velocity,
        ship.spin,
        thrust,
        advanced,
        ctx.rules.spatial_turn_rounding,
    )


def _velocity_changes(thrust: int, velocity: int) -> list[tuple[Manoeuvre, ...]]:
    """Accelerating or decelerating by 1, half or all the thrust, each pivoting into line
    first (kept only where that pivot is needed and legal)."""
    amounts = sorted({1, thrust // 2, thrust} - {0})
    changes: list[tuple[Manoeuvre, ...]] = []
    for sign in (1, -1):
        for amount in amounts:
            if sign < 0 and amount > velocity > 0:
                continue  # no flipping the course by braking through zero
            step = Manoeuvre("V", sign * amount)
            changes += [(step,), (FACE_ALONG[sign], step)]
    if velocity == 0:  # 003 L158-160: a halted ship pivots to its new course and accelerates
        changes += [
            (Manoeuvre("F", facing), Manoeuvre("V", amount))
            for facing in range(1, COURSES + 1)
            for amount in amounts
        ]
    return changes


def _turns(thrust: int, velocity: int, rounding: TurnRounding) -> list[tuple[Manoeuvre, ...]]:
    """Turning to either side with the least thrust for two points, one, or one delayed
    (003 L179-190), facing that side first or not, or naming the side (advanced drives)."""
    if velocity == 0:
        return []
    costs = {velocity, math.ceil(velocity / 2), math.ceil(velocity / 4)}
    if rounding == "down":  # the rule's words: half and a quarter rounded down (L183-190)
        costs |= {velocity // 2, velocity // 4} - {0}
    turns: list[tuple[Manoeuvre, ...]] = []
    for side in ("P", "S"):
        for cost in sorted(costs):
            if cost > thrust:
                continue
            turns += [
                (Manoeuvre("T", cost),),
                (FACE_SIDE[side], Manoeuvre("T", cost)),
                (Manoeuvre(f"T{side}", cost),),  # type: ignore[arg-type]
            ]
    return turns


@functools.cache
def spatial_orders(
    facing: int,
    course: int,
    velocity: int,
    spin: int,
    thrust: int,
    advanced: bool,
    rounding: TurnRounding = "exact",
) -> tuple[Order, ...]:
    """:func:`spatial_candidates` for a ship of this facing, motion, spin and drive under
    this turn rounding, built once: the legal ones, the first of those that end alike."""
    start = MoveStart(
        x=0.0,
        y=0.0,
        course=facing,
        speed=velocity,
        vector=motion_vector(course, velocity),
        spin=spin,
    )
    if spin:  # going on, or stopping if the drive still works (003 L246-247, L261-264)
        stop = spatial_order((Manoeuvre("Spin", 0),))
        stops = not isinstance(carry_out(stop, start, thrust=thrust, advanced=advanced), str)
        return (NO_ORDER, stop) if stops else (NO_ORDER,)
    changes = _velocity_changes(thrust, velocity)
    turns = _turns(thrust, velocity, rounding)
    # Facings named from the course first, so that of two orders that end alike the one kept
    # reads the same in a mirror image (FP, not F9 for one side and F3 for the other).
    facings = FINAL_FACINGS + tuple(Manoeuvre("F", n) for n in range(1, COURSES + 1))
    sequences: list[tuple[Manoeuvre, ...]] = [()]
    sequences += [(pivot,) for pivot in facings]
    for change in changes:
        sequences += [change] + [(*change, pivot) for pivot in facings]
    for turn in turns:
        sequences += [turn] + [(*turn, pivot) for pivot in FINAL_FACINGS]
    for change in changes:
        sequences += [change + turn for turn in turns]
    found: list[Order] = []
    seen: set[tuple[object, ...]] = set()
    for steps in sequences:
        order = spatial_order(steps)
        done = carry_out(order, start, thrust=thrust, advanced=advanced, rounding=rounding)
        if isinstance(done, str):
            continue
        ends = (done.facing, done.course, done.velocity, done.delayed, done.push)
        if ends not in seen:
            seen.add(ends)
            found.append(order)
    return tuple(found)


@functools.cache
def _spatial_offsets(
    facing: int,
    course: int,
    velocity: int,
    spin: int,
    thrust: int,
    advanced: bool,
    rounding: TurnRounding,
) -> tuple[tuple[Order, float, float, int, float, float], ...]:
    """Each candidate's displacement, final facing and new velocity (x and y MU a turn)."""
    start = MoveStart(
        x=0.0,
        y=0.0,
        course=facing,
        speed=velocity,
        vector=motion_vector(course, velocity),
        spin=spin,
    )
    found = []
    for order in spatial_orders(facing, course, velocity, spin, thrust, advanced, rounding):
        end = spatial_move(start, order, rounding)
        vx, vy = heading_vector(motion(end)[0])
        found.append((order, end.x, end.y, end.course, vx * end.speed, vy * end.speed))
    return tuple(found)


def spatial_rows(
    ctx: BattleContext, ship: ShipInPlay
) -> list[tuple[Order, float, float, int, float, float]]:
    """The candidates with where each ends, its facing and its new velocity, in
    :func:`spatial_candidates`' order (the rows of
    :func:`tactical.commanders.tactics.candidate_rows`)."""
    offsets = _spatial_offsets(*_situation(ctx, ship))
    return [
        (order, ship.x + dx, ship.y + dy, face, vx, vy) for order, dx, dy, face, vx, vy in offsets
    ]
