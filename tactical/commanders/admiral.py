"""The admiral's doctrine: which ship a Level 1 or Level 3 admiral chooses each turn (004
L338, L343).

A Level 1 admiral's chosen ship turns one course point more; he keeps his choice while it
moves and otherwise gives it to the biggest ship he may choose, where the extra point
counts most. A Level 3 admiral's chosen ship turns one point less; each turn he puts his
meddling on the smallest ship whose written order still holds with a point less, so that it
costs his side as little as it can. Either way no ship's order is spoiled by the change: a
choice is made only where the new ship's order and the old one's both stay legal.
"""

from __future__ import annotations

import msgspec

from tactical.commanders.scoring import WriteOrders
from tactical.movement import NO_ORDER, Order
from tactical.phases.admirals import admiral_level, inspire_problem
from tactical.phases.movement import ship_order_problem
from tactical.state import BattleContext, BattleState, ShipInPlay


def _holds(ctx: BattleContext, ship: ShipInPlay, order: Order, *, inspired: bool) -> bool:
    """Whether a ship's order is one it can carry out with or without the admiral's level."""
    return ship_order_problem(ctx, msgspec.structs.replace(ship, inspired=inspired), order) is None


def admiral_choice(
    ctx: BattleContext, state: BattleState, side: str, written: dict[str, Order]
) -> str | None:
    """Return the ship the side's admiral should choose this turn, or ``None`` to keep his
    choice (or when he has no choice to make)."""
    level = admiral_level(ctx, side)
    if level is None:
        return None
    ships = [
        s
        for s in state.ships
        if s.side == side and s.status == "active" and inspire_problem(ctx, s) is None
    ]
    current = next((s for s in ships if s.inspired), None)

    def allowed(candidate: ShipInPlay) -> bool:
        if not _holds(ctx, candidate, written.get(candidate.id, NO_ORDER), inspired=True):
            return False
        return (
            current is None
            or current.id == candidate.id
            or _holds(ctx, current, written.get(current.id, NO_ORDER), inspired=False)
        )

    choices = [s for s in ships if allowed(s)]
    if not choices:
        return None
    if level == 1:
        if current is not None and current in choices:
            return None
        best = max(choices, key=lambda s: (ctx.sheets[s.id].mass, s.id))
    else:
        best = min(choices, key=lambda s: (ctx.sheets[s.id].mass, s.id))
    return None if current is not None and best.id == current.id else best.id


def with_admiral(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders (outermost) with the admiral's choice of ship:
    ``/admiral`` on the ship he turns to this turn, nothing while he keeps his choice."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        choice = admiral_choice(ctx, state, side, written)
        if choice is not None:
            written[choice] = msgspec.structs.replace(written.get(choice, NO_ORDER), admiral=True)
        return written

    return wrapped
