"""The Engage commander as it stood before issue 17, frozen as the baseline the new Engage is
measured against (bench/bench_commanders.py). Not offered to users and not a campaign order:
only the benchmark and the tests name it. Do not improve it; improve Engage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tactical.battle import (
    TORPEDOES,
    BattleContext,
    BattleState,
    ShipInPlay,
    asteroids_now,
    velocity,
)
from tactical.commanders.scoring import (
    NOVA_AIM_SLACK_MU,
    Commander,
    Forecast,
    dice_on,
    distance_moved,
    enemies_of,
    focused_fire,
    guns_of,
    has_nova,
    nova_count,
    nova_path,
    order_text,
    posture_flight,
    reach_of,
    within_reach,
)
from tactical.commanders.steering import (
    DEAD_ASTERN,
    VECTOR_EDGE_WEIGHT,
    angle_to,
    astern_side,
    edge_risk,
    end_of,
    lifted,
    ram_course,
    steer_to,
    vector_candidates,
    with_asteroids,
    with_ecm,
    with_fighters,
    with_mines,
    with_scramble,
    with_sensors,
    with_torpedo_settings,
)
from tactical.fire import BEAM_STRENGTH, NOVA_STAGES, bearing, range_between
from tactical.movement import MoveResult, Order, angle_vector
from tactical.ramming import RAM_RANGE_MU

ENGAGE_CLOSE_MU = 6.0  # an Engage ship slows to hold about this range


def _desperate_ram(
    ctx: BattleContext, ship: ShipInPlay, enemies: Sequence[ShipInPlay]
) -> Order | None:
    """Return a ram for a warship whose guns are all gone, on the nearest enemy it can end its
    move within 2" of, flown straight on (001 L981), or ``None``: ramming is a suicide attack,
    "rarely attempted" (001 L977), so Engage keeps it for a ship with nothing else to fight
    with."""
    sheet = ctx.sheets[ship.id]
    armed = any(spec.kind in BEAM_STRENGTH or spec.kind in TORPEDOES for spec in sheet.systems)
    if not armed or reach_of(ctx, ship) > 0:
        return None
    for enemy in sorted(enemies, key=lambda e: (range_between(ship.x, ship.y, e.x, e.y), e.id)):
        order = ram_course(ctx, ship, enemy)
        end = end_of(ctx, ship, order)
        dx, dy = velocity(enemy)
        ex, ey = enemy.x + dx, enemy.y + dy
        if range_between(end.x, end.y, ex, ey) <= RAM_RANGE_MU:
            return order
    return None


def _arm_nova(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether an Engage ship arms its nova cannon: an enemy is forecast on the line of fire
    after the straight move arming forces on it, and no friend is (001 L908-925)."""
    if not has_nova(ctx, ship):
        return False
    path = nova_path(ship.x, ship.y, ship.course, ship.speed)
    width = NOVA_STAGES[0][0] + 2 * NOVA_AIM_SLACK_MU
    enemies, friends = nova_count(state, ship, path, width, forecast=True)
    return enemies > 0 and friends == 0


def baseline_engage_commander() -> Commander:
    """Return the Engage commander of before issue 17: close on the nearest enemy and fight.

    A ship with a nova cannon arms it when an enemy is forecast on its bow's line.
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = enemies_of(state, side)
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not enemies:
                continue
            if _arm_nova(ctx, state, ship):
                written[ship.id] = Order(nova=True)
                continue
            ram = _desperate_ram(ctx, ship, enemies)
            if ram is not None:
                written[ship.id] = ram
                continue
            target = min(enemies, key=lambda e: (range_between(ship.x, ship.y, e.x, e.y), e.id))
            distance = range_between(ship.x, ship.y, target.x, target.y)
            # Keep up with the target's motion away from the ship (none if it comes on) and
            # close half the gap beyond a short range each turn. Matching its whole speed would
            # double the closing rate of two Engage ships meeting head on, and after each
            # pass their speeds would climb without end.
            speed = max(2.0, _receding(ship, target) + (distance - ENGAGE_CLOSE_MU) / 2)
            angle = angle_to(ship, target.x, target.y)
            if bearing(ship.x, ship.y, ship.course, target.x, target.y) == DEAD_ASTERN:
                # Just short of dead astern, on the side astern_side picks, for steer_to.
                side_sign = astern_side(ctx, state, ship, target)
                angle = ship.course % 12 * 30 + side_sign * (DEAD_ASTERN - 1.0)
            if ship.vector is not None:
                written[ship.id] = _vector_engage(ctx, state, ship, target)
                continue
            written[ship.id] = steer_to(ctx, ship, angle, speed)
        return written

    return Commander(
        with_torpedo_settings(
            with_ecm(
                with_scramble(
                    with_asteroids(with_mines(with_fighters(with_sensors(orders), "attack")))
                )
            )
        ),
        focused_fire,
        flight=posture_flight("attack"),
    )


def _receding(ship: ShipInPlay, target: ShipInPlay) -> float:
    """How fast the target draws away from the ship along the line between them, in MU a
    turn: its drift's share along that line, never less than nothing."""
    vx, vy = velocity(target)
    gx, gy = target.x - ship.x, target.y - ship.y
    gap = math.hypot(gx, gy)
    return max(0.0, (vx * gx + vy * gy) / gap) if gap else 0.0


def _closing_vector(ship: ShipInPlay, target: ShipInPlay) -> tuple[float, float]:
    """The velocity (angle, speed) a vector Engage ship wants: the target's own velocity, so
    it keeps up instead of trailing by the target's speed, plus a share of the gap beyond
    :data:`ENGAGE_CLOSE_MU` (:data:`VECTOR_CHASE_SHARE` of it when the target opens the range,
    :data:`VECTOR_CLOSE_SHARE` when it comes on), so that a ship which can change its velocity
    only by its thrust a turn does not run past its target."""
    vx, vy = velocity(target)
    gx, gy = target.x - ship.x, target.y - ship.y
    gap = math.hypot(gx, gy)
    share = VECTOR_CHASE_SHARE if vx * gx + vy * gy > 0 else VECTOR_CLOSE_SHARE
    scale = share * (gap - ENGAGE_CLOSE_MU) / gap if gap else 0.0
    dx, dy = vx + gx * scale, vy + gy * scale
    if dx == dy == 0.0:
        return ship.course % 12 * 30.0, 0.0
    return math.degrees(math.atan2(dx, dy)), math.hypot(dx, dy)


VECTOR_CHASE_SHARE = 0.5
"""The share of the gap beyond :data:`ENGAGE_CLOSE_MU` a vector Engage ship closes a turn on a
target running from it (the cinematic Engage's half)."""


VECTOR_CLOSE_SHARE = 0.25
"""... and on a target coming on or passing: a quarter, so the two do not meet at a speed the
ship cannot shed (Engage beat the random commander in 92.5% of 400 battles with a quarter, 78%
with a half; docs/rulings.md, "Tactical: vector movement")."""


VECTOR_ERROR_MU = 8.0
"""A vector Engage ship's velocity error of e MU costs e * e / 8: a small error is cheap
against a die, a large one (an overshoot, turns lost coming back) dear."""


ENGAGE_DIE_MU = 2.0
"""What a vector Engage ship gives for each beam die it could roll this turn at an enemy's
forecast place (in the units of :data:`VECTOR_ERROR_MU`'s cost)."""


ENGAGE_THREAT_MU = 1.0
"""... what it pays for each beam die the enemies could roll at it from theirs."""


ENGAGE_FACING_MU = 1.0
"""... and for each clock point its bow lies off its target's forecast place."""


def _vector_engage(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, target: ShipInPlay
) -> Order:
    """Return the vector order an Engage ship flies (docs/rulings.md, "Tactical: vector
    movement"): of its candidates (:func:`vector_candidates`), the one with the lowest cost,
    the enemies assumed to fly straight on:

    - the square of its new velocity's error from :func:`_closing_vector` (lifted over a gas
      giant), over :data:`VECTOR_ERROR_MU`;
    - less :data:`ENGAGE_DIE_MU` a beam die it could roll at the best enemy this turn, plus
      :data:`ENGAGE_THREAT_MU` a die the enemies could roll at it, none through an asteroid;
    - plus :data:`ENGAGE_FACING_MU` a clock point its bow lies off the target's forecast
      place, and :data:`VECTOR_EDGE_WEIGHT` an MU of :func:`edge_risk`.

    The order's text breaks ties, so the choice is stable.
    """
    angle, speed = lifted(ctx, ship, *_closing_vector(ship, target))
    wx, wy = angle_vector(angle)
    wx, wy = wx * speed, wy * speed
    asteroids = asteroids_now(ctx, state)
    ahead: Forecast = []
    for enemy in enemies_of(state, ship.side):
        dx, dy = velocity(enemy)
        ahead.append((enemy, (enemy.x + dx, enemy.y + dy, enemy.course)))
    tdx, tdy = velocity(target)
    tx, ty = target.x + tdx, target.y + tdy
    guns = {s.id: guns_of(ctx, s) for s in (ship, *(enemy for enemy, _ in ahead))}
    candidates = [(order, end_of(ctx, ship, order)) for order in vector_candidates(ctx, ship)]
    # Enemies out of every candidate's reach roll and take no dice: leave them out. Many
    # candidates end in the same place: each place's dice are counted once.
    moved = max(distance_moved(ship, end) for _, end in candidates)
    shooters, targets = within_reach(ship, ahead, guns, moved)
    hits_from: dict[tuple[float, float, int], int] = {}
    threat_at: dict[tuple[float, float], int] = {}

    def score(order: Order, end: MoveResult) -> tuple[float, str]:
        assert end.vector is not None
        vx, vy = angle_vector(end.vector[0])
        error = math.hypot(vx * end.vector[1] - wx, vy * end.vector[1] - wy)
        at = (end.x, end.y, end.course)
        hits = hits_from.get(at)
        if hits is None:
            hits = hits_from[at] = max(
                (
                    dice_on(ctx, ship, at, ex, ey, asteroids, guns[ship.id])
                    for _, (ex, ey, _c) in targets
                ),
                default=0,
            )
        threat = threat_at.get(at[:2])
        if threat is None:
            threat = threat_at[at[:2]] = sum(
                dice_on(ctx, enemy, where, end.x, end.y, asteroids, guns[enemy.id])
                for enemy, where in shooters
            )
        off = abs(bearing(end.x, end.y, end.course, tx, ty)) / 30
        value = (
            error * error / VECTOR_ERROR_MU
            - ENGAGE_DIE_MU * hits
            + ENGAGE_THREAT_MU * threat
            + ENGAGE_FACING_MU * off
            + VECTOR_EDGE_WEIGHT * edge_risk(ctx, end)
        )
        return round(value, 6), order_text(order)

    return min(candidates, key=lambda pair: score(*pair))[0]
