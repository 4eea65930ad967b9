"""FTL Move (004 L105-112): run from the enemy and from the no-FTL zones, power up as soon as
the ship is ready and clear (004 L142-145), and jump unplanned when hurt, under the enemy's
guns or out of time.
"""

from __future__ import annotations

import math

from tactical.battle import (
    BattleContext,
    BattleState,
    ShipInPlay,
    ftl_blocked,
    order_limits,
    velocity,
)
from tactical.commanders.scoring import (
    Commander,
    enemies_of,
    focused_fire,
    posture_flight,
    reach_of,
)
from tactical.commanders.steering import (
    steer_to,
    with_asteroids,
    with_fighters,
    with_mines,
    with_torpedo_settings,
)
from tactical.fire import BAND_MU, range_between
from tactical.movement import NO_ORDER, Order
from tactical.ship import hull_remaining

UNPLANNED_HULL = 0.99  # an FTL Move ship jumps unplanned once it has lost any of its hull


UNPLANNED_CLOSING_MU = 12.0
"""... or once an enemy could bring its guns to bear on it next turn: its reach and this much
more (a turn's closing). An unplanned jump lands d6 parsecs off (004 L140-141); staying to
prepare a planned one under fire loses the ship (issue 17: 47% of fleeing ships got away
within 12 turns, when they jumped only at a quarter of their hull lost)."""


UNPLANNED_TURNS_LEFT = 2  # ... or when this few turns are left to get away


def _away_angle(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> float:
    """The heading that runs from the enemies (weighted by nearness) and from any no-FTL
    zone the ship is in or near."""
    ax = ay = 0.0
    for enemy in enemies_of(state, ship.side):
        d = max(range_between(ship.x, ship.y, enemy.x, enemy.y), 1.0)
        ax += (ship.x - enemy.x) / d**2
        ay += (ship.y - enemy.y) / d**2
    theatre = ctx.setup.theatre
    for zone in theatre.zones if theatre else ():
        d = max(range_between(ship.x, ship.y, zone.x, zone.y), 1.0)
        if d < zone.radius + BAND_MU:
            ax += 3 * (ship.x - zone.x) / d**2
            ay += 3 * (ship.y - zone.y) / d**2
    if ax == ay == 0.0:
        return ship.course % 12 * 30.0
    return math.degrees(math.atan2(ax, ay))


def _under_guns(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether an enemy could bring its guns to bear on the ship next turn: it lies within
    the enemy's reach and :data:`UNPLANNED_CLOSING_MU` more."""
    return any(
        range_between(ship.x, ship.y, enemy.x, enemy.y)
        <= reach_of(ctx, enemy) + UNPLANNED_CLOSING_MU
        for enemy in enemies_of(state, ship.side)
    )


def _clear_to_jump(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether a power-up now ends in a legal jump: straight on this turn, half a move the
    next, and no no-FTL zone at that point (004 L144-146)."""
    theatre = ctx.setup.theatre
    if theatre is None or ship.record.ftl != "ok" or ship.side not in theatre.ftl_sides:
        return False
    dx, dy = velocity(ship)
    x = ship.x + dx * 1.5
    y = ship.y + dy * 1.5
    return ftl_blocked(theatre, state.turn + 1, x, y) is None


def ftl_move_commander() -> Commander:
    """Return the FTL Move commander: run, and jump as soon as it may (004 L111, L139-145)."""

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        for ship in state.ships:
            if ship.side != side or ship.status != "active":
                continue
            if ship.jump in ("powering", "unplanned"):
                written[ship.id] = NO_ORDER  # entering jump: no order to give
                continue
            sheet = ctx.sheets[ship.id]
            hurt = hull_remaining(sheet, ship.record) <= sheet.hull_boxes * UNPLANNED_HULL
            late = state.turn >= ctx.setup.turn_limit - UNPLANNED_TURNS_LEFT
            wants = ship.jump == "ready" or hurt or late or _under_guns(ctx, state, ship)
            if wants and _clear_to_jump(ctx, state, ship):
                written[ship.id] = Order(jump=True)
                continue
            thrust = order_limits(ctx, ship)[0]
            written[ship.id] = steer_to(
                ctx, ship, _away_angle(ctx, state, ship), 3.0 * max(thrust, 1)
            )
        return written

    return Commander(
        with_torpedo_settings(with_asteroids(with_mines(with_fighters(orders, "recover")))),
        focused_fire,
        flight=posture_flight("recover"),
    )
