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
from tactical.movement import MoveStart, Order, move

STAND_OFF_MARGIN_MU = 4.0  # how far outside the enemy's reach a Stand Off ship keeps


STAND_OFF_THREAT = 1.5  # how much a Stand Off ship weighs the enemy's dice against its own


STAND_OFF_RANGE_MU = BAND_MU
"""A Stand Off ship pays a die for each this many MU the nearest enemy lies off the range it
keeps."""


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


def _weigh(
    ctx: BattleContext,
    ship: ShipInPlay,
    start: MoveStart,
    order: Order,
    ahead: Forecast,
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
        dice_on(ctx, ship, at, ex, ey, asteroids, guns.get(ship.id)) for _, (ex, ey, _c) in ahead
    )
    threat = sum(
        dice_on(ctx, enemy, where, end.x, end.y, asteroids, guns.get(enemy.id))
        for enemy, where in ahead
    )
    nearest = min(range_between(end.x, end.y, ex, ey) for _, (ex, ey, _c) in ahead)
    value = hits - STAND_OFF_THREAT * threat - abs(nearest - keep) / STAND_OFF_RANGE_MU
    theatre = ctx.setup.theatre
    if theatre is not None and theatre.gravity and theatre.well_edge is not None:
        # Keep well clear of the gas giant edge after the drift (004 L164-168).
        margin = end.x - theatre.gravity - theatre.well_edge
        value -= max(0.0, 3 * theatre.gravity - margin)
    return value, order_text(order)


def stand_off_commander() -> Commander:
    """Return the Stand Off commander: keep the range, fire what bears (004 L109-110).

    Each ship weighs its legal orders one move ahead, the enemy assumed to fly straight on:
    the dice its guns would roll at the best target, less one and a half times the dice the
    enemy's guns would roll at it, then nearness to the range it wants to keep (outside the
    enemy's longest band if its own guns reach further, else just outside the enemy's reach).
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
        guns = {ship.id: guns_of(ctx, ship) for ship in state.ships if ship.status == "active"}
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not enemies:
                continue
            ours = reach_of(ctx, ship)
            keep = (
                (their_reach + ours) / 2
                if ours > their_reach + STAND_OFF_MARGIN_MU
                else their_reach + STAND_OFF_MARGIN_MU
            )
            start = move_start(ship)
            written[ship.id] = max(
                _candidate_orders(ctx, ship),
                key=lambda order: _weigh(ctx, ship, start, order, ahead, keep, asteroids, guns),
            )
        return written

    return Commander(
        with_torpedo_settings(
            with_ecm(with_scramble(with_fighters(with_sensors(orders), "defend")))
        ),
        focused_fire,
        flight=posture_flight("defend"),
    )
