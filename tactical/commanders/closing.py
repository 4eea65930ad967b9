"""The closing commander (the demo): closes on the nearest enemy, fires everything that bears."""

from __future__ import annotations

import math

from tactical.battle import (
    BattleContext,
    BattleState,
    Shot,
    fire_controls,
    fire_options,
    order_limits,
    ships_to_fire,
)
from tactical.commanders.scoring import (
    Commander,
    aimed,
    enemies_in,
    nova_shots,
    overload_ready,
    salvo_shots,
)
from tactical.commanders.steering import (
    DEAD_ASTERN,
    angle_to,
    astern_side,
    vector_steer,
    with_asteroids,
    with_beam_defence,
    with_ecm,
    with_fighters,
    with_mines,
    with_scramble,
    with_sensors,
    with_torpedo_settings,
)
from tactical.fire import bearing, range_between
from tactical.movement import Order


def closing_commander(cruise: int = 8) -> Commander:
    """Return a commander that turns towards the nearest enemy at about ``cruise`` speed and
    fires every gun that bears at the nearest targets its FireCons allow."""

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = [s for s in state.ships if s.side != side and s.status == "active"]
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not enemies:
                continue
            nearest = min(enemies, key=lambda e: range_between(ship.x, ship.y, e.x, e.y))
            if ship.vector is not None:
                angle = angle_to(ship, nearest.x, nearest.y)
                written[ship.id] = vector_steer(ctx, ship, angle, cruise)
                continue
            thrust, limit = order_limits(ctx, ship)
            off = bearing(ship.x, ship.y, ship.course, nearest.x, nearest.y)
            if off == DEAD_ASTERN:
                off *= astern_side(ctx, state, ship, nearest)
            turn = max(-limit, min(limit, round(off / 30)))
            room = thrust - abs(turn)
            accel = max(-room, -ship.speed, min(room, cruise - ship.speed))
            written[ship.id] = Order(turn=turn, accel=accel)
        return written

    def fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        ready = ships_to_fire(ctx, state, side)
        ship_id = next((s for s in ready if overload_ready(ctx, state, s)), ready[0])
        ship = state.ship(ship_id)
        if ship.nova:
            return ship_id, nova_shots(ctx, state, ship_id)
        options = fire_options(ctx, state, ship_id)
        salvos = salvo_shots(ctx, state, ship_id)
        reachable = sorted(
            enemies_in(state, options),
            key=lambda t: (
                math.floor(range_between(ship.x, ship.y, state.ship(t).x, state.ship(t).y)),
                t,
            ),
        )
        chosen = reachable[: fire_controls(ctx, ship)]
        return ship_id, salvos + aimed(ctx, state, ship_id, options, chosen)

    return Commander(
        with_torpedo_settings(
            with_ecm(
                with_beam_defence(
                    with_scramble(
                        with_asteroids(with_mines(with_fighters(with_sensors(orders), "attack")))
                    )
                )
            )
        ),
        fire,
    )
