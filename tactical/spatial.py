"""Spatial movement (003 1.1-1.8): facing apart from course, both in clock points.

A ship's ``course`` field is its facing, the way its bow points and its arcs look (003
L74-79); its motion is ``vector``, the course in degrees (a multiple of 30: clock point ``c``
is ``30 * c``, 12 is 0) and the velocity in MU, written ``6@11`` (L91-94); ``speed`` is the
velocity too. All thrust comes from the main drive (L40-47). An order is manoeuvres carried
out in their written sequence, each taking effect at once (L279-280):

- pivots ``F<n>``, ``FF``, ``FA``, ``FP``, ``FS``: any number, 1 thrust each with a standard
  drive, none with an advanced one, none at all with no working drive (L98-118); a ``Roll``
  costs as a pivot (L238-240) and changes nothing on the flat table (docs/rulings.md);
- a velocity change ``+V`` / ``-V``, once a turn, a standard drive facing along the course to
  accelerate or against it to decelerate, an advanced drive in any facing; below zero the
  course flips (L122-148); a halted ship's course is its facing (L158-160);
- a course change ``T<n>``: with the thrust at least the velocity it turns 2 points, at
  least half 1, at least a quarter 1 at the end of the move (L174-207, fractions kept exact as
  the worked example needs, docs/rulings.md); to the side the ship faces, which a standard
  drive needs 2 to 4 points off the course (L162-168), or to the side written, ``T<n>P``,
  ``T<n>S``, from any facing with an advanced drive (L172-173); one a turn (docs/rulings.md);
- a push ``PushP`` / ``PushS``: 1 MU sideways off the course, 2 thrust (1 advanced), once a
  turn (L222-235);
- ``Spin<rate>``: the turn's only manoeuvre, at most twice the thrust, none with no working
  drive; the facing turns by the rate every turn until ``Spin0`` (L244-264).

The ship moves its velocity along its course after the immediate changes, plus the push; a
delayed course change takes effect at the end of the move (L187-190, L203-205).

>>> from tactical.movement import parse_order
>>> start = MoveStart(x=0.0, y=0.0, course=12, speed=2, vector=(0.0, 2.0))
>>> spatial_problem(parse_order("FP.T3"), start, thrust=4, advanced=False) is None
True
>>> end = spatial_move(start, parse_order("FP.T3"))
>>> end.course, motion(end), end.x, end.y  # 003 L192-197: velocity 1-3 turns two points
(9, (10, 2), -1.732, 1.0)
"""

from __future__ import annotations

import math
from typing import Literal

from msgspec import Struct

from tactical.movement import (
    COURSES,
    DEGREES_PER_COURSE,
    Manoeuvre,
    MoveResult,
    MoveStart,
    Order,
    course_after,
    format_mu,
    heading_vector,
    round_mu,
    spatial_steps,
)

__all__ = [
    "DEATH_BLOSSOM_RATE",
    "SpatialMotion",
    "TurnRounding",
    "carry_out",
    "clock_of",
    "fighter_flight",
    "format_motion",
    "motion",
    "motion_vector",
    "offset",
    "spatial_move",
    "spatial_problem",
]

DEATH_BLOSSOM_RATE = 12  # 003 L266-269: spinning at rate 12 or above fires in any arc
FULL_TURN_POINTS = 2  # 003 L179-181
AGAINST = COURSES // 2  # facing directly opposite the course (003 L124-125)
PUSH_COST = {False: 2, True: 1}  # 003 L224-225: standard drive 2, advanced 1
SIDEWAYS = COURSES // 4  # FP / FS face 3 points off the course (003 L102-104)
STANDARD_TURN_OFFSETS = range(2, 5)  # 003 L162-168: course 1 turns port facing 9-11


class SpatialMotion(Struct, frozen=True, kw_only=True, gc=False):
    """A spatial order carried out, before the ship moves: its facing, course and velocity
    after the immediate changes, the delayed course change (points), the push (MU, x and y),
    the spin rate and the thrust spent."""

    facing: int
    course: int
    velocity: int
    delayed: int = 0
    push: tuple[float, float] = (0.0, 0.0)
    spin: int = 0
    spent: int = 0


def clock_of(degrees: float) -> int:
    """Return the clock point of a course in degrees (30 a point, 0 is 12).

    >>> clock_of(0.0), clock_of(330.0), clock_of(90.0)
    (12, 11, 3)
    """
    point = round(degrees / DEGREES_PER_COURSE) % COURSES
    return point or COURSES


def motion_vector(course: int, velocity: int) -> tuple[float, float]:
    """Return the ``vector`` field of a ship moving ``velocity`` MU along clock ``course``."""
    return (course % COURSES * float(DEGREES_PER_COURSE), float(velocity))


def format_motion(vector: tuple[float, float]) -> str:
    """Write a spatial ship's motion from its ``vector`` as its order sheet does,
    velocity@course in clock points (L91-94).

    >>> format_motion((330.0, 6.0)), format_motion((0.0, 0.0))
    ('6@11', '0@12')
    """
    return f"{format_mu(vector[1])}@{clock_of(vector[0])}"


def motion(moved: MoveStart | MoveResult) -> tuple[int, int]:
    """Return a spatial ship's course (clock point) and velocity, ``6@11`` as ``(11, 6)``."""
    if moved.vector is None:
        return moved.course, moved.speed
    return clock_of(moved.vector[0]), moved.speed


def offset(facing: int, course: int) -> int:
    """Return how far the facing is off the course, in points: -5 to -1 to port, 1 to 5 to
    starboard, 0 along it, 6 against it.

    >>> offset(10, 1), offset(4, 1), offset(7, 1), offset(1, 1)  # 003 L166-168
    (-3, 3, 6, 0)
    """
    points = (facing - course) % COURSES
    return points - COURSES if points > AGAINST else points


def _pivot(step: Manoeuvre, course: int) -> int:
    """The facing a pivot leaves: ``F<n>``, or fore, aft, port or starboard of the course."""
    if step.kind == "F":
        return step.amount
    return course_after(
        course, {"FF": 0, "FA": AGAINST, "FP": -SIDEWAYS, "FS": SIDEWAYS}[step.kind]
    )


TurnRounding = Literal["exact", "down"]


def _turn_points(thrust: int, velocity: int, rounding: TurnRounding) -> tuple[int, int] | None:
    """The course change ``T<thrust>`` makes at this velocity: (points now, points at the end
    of the move), or ``None`` if it makes none (003 L179-190, L196-207). ``exact`` compares
    the thrust with half and a quarter of the velocity as they are, as the worked example
    needs; ``down`` with them rounded down, as the rule's words say (docs/rulings.md).

    >>> _turn_points(3, 7, "exact"), _turn_points(3, 7, "down")  # L203 against L183-185
    ((0, 1), (1, 0))
    >>> _turn_points(3, 13, "exact"), _turn_points(3, 13, "down")  # L205-207 against L187-190
    (None, (0, 1))
    """
    half: float = velocity / 2 if rounding == "exact" else velocity // 2
    quarter: float = velocity / 4 if rounding == "exact" else velocity // 4
    if thrust >= velocity:
        return FULL_TURN_POINTS, 0
    if thrust >= half:
        return 1, 0
    if thrust >= quarter:
        return 0, 1
    return None


class _Sequence:
    """The running state of a spatial order carried out manoeuvre by manoeuvre."""

    def __init__(
        self, start: MoveStart, *, thrust: int | None, advanced: bool, rounding: TurnRounding
    ) -> None:
        self.facing = start.course
        self.course, self.velocity = motion(start)
        self.thrust = thrust
        self.advanced = advanced
        self.rounding = rounding
        self.spent = 0
        self.delayed = 0
        self.push = (0.0, 0.0)
        self.done: set[str] = set()

    def pivot(self, step: Manoeuvre) -> str | None:
        if self.thrust == 0:
            return "a ship with no working main drive cannot pivot or roll (003 L117-118)"
        self.spent += 0 if self.advanced else 1  # 003 L109-113, L238-240
        if step.kind == "Roll":
            return None
        facing = _pivot(step, self.course)
        if facing == self.facing:
            return f"{step.kind}: the ship already faces {facing}"
        self.facing = facing
        return None

    def change_velocity(self, change: int) -> str | None:
        if "V" in self.done:
            return "a ship changes velocity once a turn (003 L141)"
        self.done.add("V")
        if self.velocity == 0:
            self.course = self.facing  # 003 L158-160: pivot into line, then accelerate
        elif not self.advanced:
            need = 0 if change > 0 else AGAINST
            if offset(self.facing, self.course) != need:
                way = "along" if change > 0 else "against"
                return (
                    f"a standard drive must face {way} the course {self.course} to "
                    f"{'accelerate' if change > 0 else 'decelerate'}, and it faces "
                    f"{self.facing} (003 L122-128)"
                )
        self.spent += abs(change)
        self.velocity += change
        if self.velocity < 0:  # 003 L138-140: the course flips by six points
            self.course, self.velocity = course_after(self.course, AGAINST), -self.velocity
        return None

    def turn(self, step: Manoeuvre) -> str | None:
        if "T" in self.done:
            return "one course change a turn (see docs/rulings.md)"
        self.done.add("T")
        if self.velocity == 0:
            return "a halted ship changes course by pivoting and accelerating (003 L158-160)"
        off = offset(self.facing, self.course)
        side = {"TP": -1, "TS": 1}.get(step.kind, 0)
        if side == 0 and off in (0, AGAINST):
            return "facing along or against the course: write T<n>P or T<n>S (003 L172-173)"
        side = side or (1 if off > 0 else -1)
        if not self.advanced and (off * side < 0 or abs(off) not in STANDARD_TURN_OFFSETS):
            return (
                f"a standard drive turns to the side it faces 2 to 4 points off the course, "
                f"and it faces {self.facing} on course {self.course} (003 L162-168)"
            )
        points = _turn_points(step.amount, self.velocity, self.rounding)
        if points is None:
            return (
                f"T{step.amount} is less than a quarter of velocity {self.velocity}: no course "
                "change (003 L187-190, L205-207)"
            )
        self.spent += step.amount
        now, later = points
        self.course = course_after(self.course, side * now)
        self.delayed = side * later
        return None

    def push_aside(self, step: Manoeuvre) -> str | None:
        if "Push" in self.done:
            return "one push a turn (003 L234-235)"
        self.done.add("Push")
        self.spent += PUSH_COST[self.advanced]
        side = -SIDEWAYS if step.kind == "PushP" else SIDEWAYS
        self.push = heading_vector(course_after(self.course, side))  # 1 MU (003 L225-227)
        return None

    def carry_out(self, step: Manoeuvre) -> str | None:
        if step.kind in ("F", "FF", "FA", "FP", "FS", "Roll"):
            return self.pivot(step)
        if step.kind == "V":
            return self.change_velocity(step.amount)
        if step.kind in ("T", "TP", "TS"):
            return self.turn(step)
        return self.push_aside(step)


def carry_out(
    order: Order,
    start: MoveStart,
    *,
    thrust: int | None,
    advanced: bool,
    rounding: TurnRounding = "exact",
) -> SpatialMotion | str:
    """Carry out a spatial order's manoeuvres in sequence (003 L279-280), or return why the
    ship cannot. ``thrust`` is what the main drive gives now (``None``: no limit, for an
    order already judged legal); ``advanced`` whether it is an advanced drive."""
    steps = spatial_steps(order)
    if steps is None:
        return "a cinematic turn or pivot or a vector order, and these rules move spatially (003)"
    spins = [step for step in steps if step.kind == "Spin"]
    if spins:
        return _spin(steps, start, thrust)
    if start.spin and steps:
        return "a spinning ship may only write a new spin order (003 L261-264)"
    sequence = _Sequence(start, thrust=thrust, advanced=advanced, rounding=rounding)
    for step in steps:
        problem = sequence.carry_out(step)
        if problem is not None:
            return problem
    if thrust is not None and sequence.spent > thrust:
        return f"needs {sequence.spent} thrust and the main drive gives {thrust} (003 L40-41)"
    return SpatialMotion(
        facing=course_after(sequence.facing, start.spin),
        course=sequence.course,
        velocity=sequence.velocity,
        delayed=sequence.delayed,
        push=sequence.push,
        spin=start.spin,
        spent=sequence.spent,
    )


def _spin(
    steps: tuple[Manoeuvre, ...], start: MoveStart, thrust: int | None
) -> SpatialMotion | str:
    """A spin order: the turn's only manoeuvre, the rate at most twice the drive (003
    L244-256); the facing turns by the new rate this turn and every turn after (L257-261)."""
    if len(steps) > 1:
        return "a spin order is the turn's only manoeuvre (003 L245-246, L277-278)"
    rate = steps[0].amount
    if thrust == 0:
        return "no spin order with the main drive destroyed (003 L246-247)"
    if thrust is not None and abs(rate) > 2 * thrust:
        return f"spin rate {rate}: at most twice the drive, {2 * thrust} (003 L252-253)"
    course, velocity = motion(start)
    return SpatialMotion(
        facing=course_after(start.course, rate), course=course, velocity=velocity, spin=rate
    )


def spatial_problem(
    order: Order,
    start: MoveStart,
    *,
    thrust: int,
    advanced: bool,
    rounding: TurnRounding = "exact",
) -> str | None:
    """Return why a ship cannot carry out this spatial order, or ``None`` (003 1.3-1.7)."""
    done = carry_out(order, start, thrust=thrust, advanced=advanced, rounding=rounding)
    return done if isinstance(done, str) else None


def spatial_move(start: MoveStart, order: Order, rounding: TurnRounding = "exact") -> MoveResult:
    """Carry out a legal spatial order: the ship moves its velocity along its course after
    the immediate changes, pushed aside if it pushed, then a delayed course change takes
    effect (003 L152-154, L187-190, L225-228). ``mid_x``, ``mid_y`` lie half way along. An
    order no drive could carry out moves the ship as no order would (001 L364).

    >>> start = MoveStart(x=0.0, y=0.0, course=12, speed=4, vector=(0.0, 4.0))
    >>> spatial_move(start, Order(spatial=(Manoeuvre("FF"),))).y  # it already faces 12
    4.0
    """
    done = carry_out(order, start, thrust=None, advanced=True, rounding=rounding)
    if isinstance(done, str):
        done = carry_out(Order(), start, thrust=None, advanced=True, rounding=rounding)
        assert not isinstance(done, str), done  # no order is always possible
    dx, dy = heading_vector(done.course)
    shift_x = done.push[0] + dx * done.velocity
    shift_y = done.push[1] + dy * done.velocity
    course = course_after(done.course, done.delayed)
    return MoveResult(
        x=round_mu(start.x + shift_x),
        y=round_mu(start.y + shift_y),
        course=done.facing,
        speed=done.velocity,
        mid_x=round_mu(start.x + shift_x / 2),
        mid_y=round_mu(start.y + shift_y / 2),
        vector=motion_vector(course, done.velocity),
        spin=done.spin,
    )


FIGHTER_SHARES = (1.0, 1.0, 2 / 3, 1 / 3)
"""003 L293-302: the share of its move a fighter group flies when its course changes by 0
or 1, 2 or 3 clock points (24, 16 and 8 MU for a 24 MU group, Figure 7); by more, it pivots
on the spot (L318-323). The angle off the course decides: up to 30, 60, 90 degrees."""


def fighter_flight(course: int, dx: float, dy: float, reach: float) -> tuple[float, int]:
    """Return how far a spatial fighter group on ``course`` may fly towards the displacement
    ``(dx, dy)`` this turn, and its course after (the clock point nearest its way, L302-304),
    as it sets out: more than 90 degrees off its course, it only pivots to face that way.

    >>> fighter_flight(12, 0.0, 30.0, 24.0), fighter_flight(12, 10.0, 10.0, 24.0)
    ((24.0, 12), (16.0, 2))
    >>> fighter_flight(12, 10.0, 0.0, 24.0), fighter_flight(12, 0.0, -5.0, 24.0)  # L318-323
    ((8.0, 3), (0.0, 6))
    """
    if dx == 0 and dy == 0:
        return reach, course
    angle = math.degrees(math.atan2(dx, dy)) % 360.0
    way = clock_of(angle)
    off = abs((angle - course % COURSES * DEGREES_PER_COURSE + 180.0) % 360.0 - 180.0)
    points = math.ceil(round(off, 6) / DEGREES_PER_COURSE)
    if points >= len(FIGHTER_SHARES):
        return 0.0, way
    return reach * FIGHTER_SHARES[points], way
