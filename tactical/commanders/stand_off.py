"""Stand Off (004 L105-112): keep the range outside the enemy's longest beam band when its
own guns reach further, else just outside the enemy's reach, and fire whatever bears.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tactical.battle import (
    BattleContext,
    BattleState,
    ShipInPlay,
    asteroids_now,
    order_limits,
    velocity,
)
from tactical.commanders.scoring import (
    Commander,
    Forecast,
    Guns,
    dice_on,
    enemies_of,
    focused_fire,
    guns_of,
    order_text,
    posture_flight,
    reach_of,
)
from tactical.commanders.steering import (
    move_start,
    vector_candidates,
    with_ecm,
    with_fighters,
    with_scramble,
    with_sensors,
    with_torpedo_settings,
)
from tactical.fire import BAND_MU, range_between
from tactical.movement import MoveResult, MoveStart, Order, angle_vector, heading_vector, move

STAND_OFF_MARGIN_MU = 4.0  # how far outside the enemy's reach a Stand Off ship keeps


STAND_OFF_THREAT = 1.5  # how much a Stand Off ship weighs the enemy's dice against its own


STAND_OFF_INSIDE_MU = 1.0
"""A Stand Off ship pays a die for each this many MU the nearest enemy lies inside the range it
keeps, after this move or the next one."""

STAND_OFF_CHASE_MU = 6.0
"""How much nearer than its straight flight an enemy is taken to come a move later: it may burn
its drive at the Stand Off ship (a typical warship's thrust)."""

STAND_OFF_OUTSIDE_MU = BAND_MU
"""... and a die for each this many MU it lies beyond it (its own guns fall silent)."""


def _candidate_orders(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """Legal orders worth weighing: every turn, with five speed changes each (under vector
    movement, :func:`vector_candidates`)."""
    if ship.vector is not None:
        return vector_candidates(ctx, ship)
    thrust, limit = order_limits(ctx, ship)
    candidates: list[Order] = []
    for turn in range(-limit, limit + 1):
        room = thrust - abs(turn)
        for accel in sorted({-room, -room // 2, 0, room // 2, room}):
            if ship.speed + accel >= 0:
                candidates.append(Order(turn=turn, accel=accel))
    return candidates


Drift = tuple[float, float, float, float]
"""Where an enemy (or a bogey) will be after this move, flying straight on, and how far it
drifts a move: x, y, dx, dy."""


def _drifts(ahead: Forecast) -> list[Drift]:
    return [(x, y, x - enemy.x, y - enemy.y) for enemy, (x, y, _c) in ahead]


def _weigh(
    ctx: BattleContext,
    ship: ShipInPlay,
    start: MoveStart,
    order: Order,
    ahead: Forecast,
    drifts: Sequence[Drift],
    keep: float,
    asteroids: Sequence[tuple[float, float]] = (),
    guns: Mapping[str, Guns] | None = None,
) -> tuple[float, str]:
    """Score one Stand Off order; the order's text breaks ties, so the choice is stable.
    Dice count only along lines no asteroid of this turn blocks."""
    end = move(start, order, ctx.rules.split_velocity, whole=ctx.rules.vector_rounding)
    at = (end.x, end.y, end.course)
    guns = guns or {}
    hits = max(
        (dice_on(ctx, ship, at, ex, ey, asteroids, guns.get(ship.id)) for _, (ex, ey, _c) in ahead),
        default=0,
    )
    threat = sum(
        dice_on(ctx, enemy, where, end.x, end.y, asteroids, guns.get(enemy.id))
        for enemy, where in ahead
    )
    value = hits - STAND_OFF_THREAT * threat - _off_range(end, drifts, keep)
    theatre = ctx.setup.theatre
    if theatre is not None and theatre.gravity and theatre.well_edge is not None:
        # Keep well clear of the gas giant edge after the drift (004 L164-168).
        margin = end.x - theatre.gravity - theatre.well_edge
        value -= max(0.0, 3 * theatre.gravity - margin)
    return value, order_text(order)


def _off_range(end: MoveResult, drifts: Sequence[Drift], keep: float) -> float:
    """The dice a Stand Off ship pays for the nearest enemy's range against the one it keeps,
    where its move ends and where it will drift to a move later, both flying straight on:
    dearly inside it (the enemy closes), mildly beyond it. The second look is what makes a
    ship turn away in time: a velocity towards the enemy costs a turn of thrust to undo."""
    if end.vector is not None:
        dx, dy = angle_vector(end.vector[0])
        vx, vy = dx * end.vector[1], dy * end.vector[1]
    else:
        dx, dy = heading_vector(end.course)
        vx, vy = dx * end.speed, dy * end.speed
    paid = 0.0
    for step in (0, 1):
        x, y = end.x + step * vx, end.y + step * vy
        nearest = min(
            range_between(x, y, ex + step * edx, ey + step * edy) - step * STAND_OFF_CHASE_MU
            for ex, ey, edx, edy in drifts
        )
        paid += max(0.0, keep - nearest) / STAND_OFF_INSIDE_MU
        paid += max(0.0, nearest - keep) / STAND_OFF_OUTSIDE_MU
    return paid


def stand_off_commander() -> Commander:
    """Return the Stand Off commander: keep the range, fire what bears (004 L109-110).

    Each ship weighs its legal orders one move ahead, the enemy assumed to fly straight on:
    the dice its guns would roll at the best target, less one and a half times the dice the
    enemy's guns would roll at it, less the range it would lie inside or beyond the one it
    wants to keep (outside the enemy's longest band if its own guns reach further, else just
    outside the enemy's reach), after this move and after the next if both flew straight on.
    While no enemy is identified it keeps at least the range it has to the nearest bogey
    (001 L933-951), so it does not close on what it cannot yet see.
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = enemies_of(state, side)
        their_reach = max((reach_of(ctx, e) for e in enemies), default=0.0)
        asteroids = asteroids_now(ctx, state)  # they drift at the end of the turn
        ahead: Forecast = []
        for enemy in enemies:
            dx, dy = velocity(enemy)
            ahead.append((enemy, (enemy.x + dx, enemy.y + dy, enemy.course)))
        drifts = _drifts(ahead)
        contacts = [b for b in state.bogeys if b.side != side] if not enemies else []
        for bogey in contacts:
            dx, dy = heading_vector(bogey.course)
            drifts.append(
                (
                    bogey.x + dx * bogey.speed,
                    bogey.y + dy * bogey.speed,
                    dx * bogey.speed,
                    dy * bogey.speed,
                )
            )
        guns = {ship.id: guns_of(ctx, ship) for ship in state.ships if ship.status == "active"}
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not drifts:
                continue
            ours = reach_of(ctx, ship)
            if contacts:
                keep = min(range_between(ship.x, ship.y, b.x, b.y) for b in contacts)
            else:
                keep = (
                    (their_reach + ours) / 2
                    if ours > their_reach + STAND_OFF_MARGIN_MU
                    else their_reach + STAND_OFF_MARGIN_MU
                )
            start = move_start(ship)
            written[ship.id] = max(
                _candidate_orders(ctx, ship),
                key=lambda order: _weigh(
                    ctx, ship, start, order, ahead, drifts, keep, asteroids, guns
                ),
            )
        return written

    return Commander(
        with_torpedo_settings(
            with_ecm(with_scramble(with_fighters(with_sensors(orders), "defend")))
        ),
        focused_fire,
        flight=posture_flight("defend"),
    )
