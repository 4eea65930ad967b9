"""The decoys' doctrine: dummy bogeys fly in step with the fleet (001 L955-959).

A dummy bogey is a drone "equipped to output the signature of an actual ship and thereby
confuse the enemy as to the actual strength and disposition of the fleet" (001 L957). A dummy
that drifts on while the fleet turns gives itself away to any enemy who watches the contacts;
so each dummy copies the course and speed change of the nearest real ship of its side, when
a scoutship could fly it (001 L957), and otherwise flies straight on.
"""

from __future__ import annotations

import math

from tactical.commanders.scoring import WriteOrders
from tactical.movement import NO_ORDER, Order
from tactical.phases.movement import course_and_speed, dummy_order_problem
from tactical.sensors import Dummy
from tactical.state import BattleContext, BattleState, ShipInPlay


def _nearest(dummy: Dummy, ships: list[ShipInPlay]) -> ShipInPlay | None:
    return min(
        ships,
        key=lambda s: (math.hypot(s.x - dummy.x, s.y - dummy.y), s.id),
        default=None,
    )


def decoy_order(ctx: BattleContext, dummy: Dummy, leader_order: Order) -> Order:
    """Return the leader's course and speed change if a dummy can fly it, else no order."""
    order = course_and_speed(leader_order)
    return NO_ORDER if dummy_order_problem(ctx, dummy, order) is not None else order


def with_decoys(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders with the decoys' doctrine: each of the side's dummy
    bogeys copies the move of the nearest real ship of its side."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        ours = [d for d in state.dummies if d.side == side]
        if not ours:
            return written
        fleet = [s for s in state.ships if s.side == side and s.status == "active"]
        for dummy in ours:
            leader = _nearest(dummy, fleet)
            if leader is None:
                continue
            order = decoy_order(ctx, dummy, written.get(leader.id, NO_ORDER))
            if order != NO_ORDER:
                written[dummy.id] = order
        return written

    return wrapped
