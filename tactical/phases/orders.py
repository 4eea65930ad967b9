"""The orders step (001 L248): every side secretly writes its movement orders.

``SIMULTANEOUS``: :func:`write_orders` checks one side's orders (torpedo settings included,
000 L4669-4800) and records them; once every side present has written, the movement
follows. :func:`next_turn` starts a turn here.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from msgspec import Struct

from tactical.fire import OVERLOAD, TORPEDO_SETTINGS
from tactical.movement import Order, format_orders
from tactical.phases.admirals import choose_ships, inspire_problem
from tactical.state import (
    BattleContext,
    BattleState,
    IllegalActionError,
    ShipInPlay,
    SideOrders,
    moves_this_turn,
    named_ship,
)


def sides_to_write(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have to write orders this turn."""
    done = {w.side for w in state.written}
    present = {s.side for s in state.ships if moves_this_turn(s, state.turn)}
    return tuple(side for side in ctx.setup.sides if side in present and side not in done)


class OrdersWritten(Struct, frozen=True, kw_only=True, tag="orders_written", gc=False):
    """A side wrote its movement orders for the turn (secret until movement)."""

    turn: int
    side: str
    orders: str


def write_orders(
    ctx: BattleContext, state: BattleState, side: str, orders: Mapping[str, Order]
) -> OrdersWritten:
    """Record one side's secret movement orders for this turn.

    Ships left out go straight ahead at the same speed. An order the ship cannot carry out is
    recorded as written and treated as no order when ships move (001 L364).

    Raises:
        IllegalActionError: not the orders step, the side has written already, or an order is
            for a ship that is not this side's or not in play.
    """
    text = format_orders(orders)
    where = f"orders {text!r} for {side} on turn {state.turn}"
    if state.phase != "orders":
        raise IllegalActionError(f"{where}: it is the {state.phase} step")
    if side not in sides_to_write(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no orders to write now")
    for ship_id, order in orders.items():
        dummy = next((d for d in state.dummies if d.id == ship_id), None)
        if dummy is not None:
            if dummy.side != side:
                raise IllegalActionError(f"{where}: {ship_id!r} is not {side}'s dummy")
            if order.torpedoes:
                raise IllegalActionError(f"{where}: the dummy {ship_id!r} has no torpedoes")
            continue
        ship = named_ship(state, ship_id, where)
        if ship.side != side or not moves_this_turn(ship, state.turn):
            raise IllegalActionError(f"{where}: {ship_id!r} is not {side}'s ship in play")
        if order.admiral:
            problem = inspire_problem(ctx, ship)
            if problem is not None:
                raise IllegalActionError(f"{where}: {ship_id} /admiral: {problem}")
        for weapon, setting in order.torpedoes:
            problem = setting_problem(ctx, state, ship, weapon, setting)
            if problem is not None:
                raise IllegalActionError(f"{where}: {ship_id} {weapon}={setting}: {problem}")
    chosen = sorted(ship_id for ship_id, order in orders.items() if order.admiral)
    if len(chosen) > 1:
        raise IllegalActionError(
            f"{where}: /admiral on {', '.join(chosen)}: the admiral chooses one ship "
            "(004 L338, L343)"
        )
    return OrdersWritten(turn=state.turn, side=side, orders=text)


def setting_problem(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, weapon: str, setting: str
) -> str | None:
    """Return why a torpedo of this ship may not take this setting in this turn's orders, or
    ``None``.

    Overloading (``O``) is for overload-upgraded standard and long range torpedoes, never short
    range ones (000 L4701-4703, L4728-4732), and not for a tube that fired, or was ejected, in
    the previous turn (L4681-4685, L4718-4720). ``S`` and ``L`` are a variable torpedo's
    modes (L4786-4794). The torpedo must be working.
    """
    sheet = ctx.sheets[ship.id]
    spec = next((s for s in sheet.systems if s.id == weapon), None)
    if spec is None:
        return "the ship has no such weapon"
    allowed = TORPEDO_SETTINGS.get(spec.kind, {})
    if setting not in allowed:
        takes = ", ".join(allowed) or "no setting"
        return f"a {spec.label} takes {takes} (000 L4669-4800)"
    now = next(s for s in ship.record.systems if s.id == weapon)
    if now.status != "ok":
        return f"the torpedo is {now.status}"
    if setting == OVERLOAD and dict(ship.tubes).get(weapon) == state.turn - 1:
        return "it fired in the previous turn and may not be overloaded (000 L4681-4685)"
    return None


def apply_orders(ctx: BattleContext, state: BattleState, event: OrdersWritten) -> BattleState:
    written = (*state.written, SideOrders(event.side, event.orders))
    state = msgspec.structs.replace(state, written=written)
    if not sides_to_write(ctx, state):
        state = msgspec.structs.replace(state, phase="movement")
    return state


def next_turn(ctx: BattleContext, state: BattleState) -> BattleState:
    """Start the next turn: its orders step, or straight to movement when no ship is on the
    table to write orders for (every ship away, off the table until a later turn, 001 L538).
    An admiral whose chosen ship is gone turns to his first choice (``tactical.phases.admirals``).
    """
    state = msgspec.structs.replace(
        state,
        phase="orders",
        turn=state.turn + 1,
        ships=tuple(
            msgspec.structs.replace(s, repelled=0) if s.repelled else s for s in state.ships
        ),
    )
    # An admiral whose chosen ship has left the battle has chosen anew before orders are
    # written, so that every side writes knowing its ships' limits (004 L338, L343).
    state = choose_ships(ctx, state, {})
    if sides_to_write(ctx, state):
        return state
    return msgspec.structs.replace(state, phase="movement")
