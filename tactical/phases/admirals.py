"""Campaign officers on the table: captains' and admirals' command levels (004 L320-345).

A Level 1 captain turns one course point more and a Level 3 one less (004 L329-335); a
Level 1 or Level 3 admiral makes one ship under his command act as if its captain were of
his level, "which may be changed from turn to turn" (004 L338, L343), but never a ship whose
captain already is (L338, L343). The set-up's :class:`~tactical.state.Theatre` holds the
captains' modifiers (``turn_mods``, ``strike_mods``) and each admiral's level (``admirals``);
the chosen ship is marked ``inspired`` in the state, chosen by ``/admiral`` in its side's
orders and kept until the side chooses another or the ship leaves the battle. Set-ups stored
before ``admirals`` was recorded folded the admiral's ship into ``turn_mods`` for the whole
battle, and replay so.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from tactical.movement import Order
from tactical.state import BattleContext, BattleState, ShipInPlay, moves_this_turn

LEVEL_EFFECT = {1: 1, 2: 0, 3: -1}
"""A command level's course-change modifier: Level 1 +1, Level 2 none, Level 3 -1 (004
L329-335). A strike-the-colours die takes its opposite (L331, L335)."""


def admiral_level(ctx: BattleContext, side: str) -> int | None:
    """Return the level of a side's admiral if he is Level 1 or Level 3, else ``None``."""
    theatre = ctx.setup.theatre
    return dict(theatre.admirals).get(side) if theatre is not None else None


def captain_modifier(ctx: BattleContext, ship_id: str) -> int:
    """Return a ship's own captain's course-change modifier (004 L329-335)."""
    theatre = ctx.setup.theatre
    return dict(theatre.turn_mods).get(ship_id, 0) if theatre is not None else 0


def command_modifier(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return the course-change modifier a ship moves with: its admiral's level's if it is his
    chosen ship, else its captain's."""
    level = admiral_level(ctx, ship.side) if ship.inspired else None
    return LEVEL_EFFECT[level] if level is not None else captain_modifier(ctx, ship.id)


def strike_modifier(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return what a ship adds to its strike-the-colours die: +1 under a Level 3 captain, -1
    under a Level 1 (004 L331, L335), the admiral's chosen ship as if its captain were of his
    level."""
    level = admiral_level(ctx, ship.side) if ship.inspired else None
    if level is not None:
        return -LEVEL_EFFECT[level]
    theatre = ctx.setup.theatre
    return dict(theatre.strike_mods).get(ship.id, 0) if theatre is not None else 0


def inspire_problem(ctx: BattleContext, ship: ShipInPlay) -> str | None:
    """Return why a side's admiral may not choose this ship, or ``None``."""
    level = admiral_level(ctx, ship.side)
    if level is None:
        return f"{ship.side} has no Level 1 or Level 3 admiral to choose a ship (004 L336-344)"
    if captain_modifier(ctx, ship.id) == LEVEL_EFFECT[level]:
        line = "L338" if level == 3 else "L343"
        return f"its captain is already Level {level} (004 {line})"
    return None


def _eligible(ctx: BattleContext, ship: ShipInPlay, turn: int) -> bool:
    return moves_this_turn(ship, turn) and inspire_problem(ctx, ship) is None


def first_choice(ctx: BattleContext, state: BattleState, side: str) -> str | None:
    """Return the ship a side's admiral chooses when its orders name none and his last
    choice has left the battle: the first of the side's ships in the set-up (the flagship
    first) that may be chosen and moves this turn."""
    return next(
        (ship.id for ship in state.ships if ship.side == side and _eligible(ctx, ship, state.turn)),
        None,
    )


def choose_ships(
    ctx: BattleContext, state: BattleState, orders: Mapping[str, Order]
) -> BattleState:
    """Mark each admiral's chosen ship for this turn's move: the ship whose order says
    ``/admiral``, else his last choice while it moves, else :func:`first_choice`."""
    if ctx.setup.theatre is None or not ctx.setup.theatre.admirals:
        return state
    chosen: dict[str, str | None] = {}
    for side, _level in ctx.setup.theatre.admirals:
        named = next(
            (
                ship.id
                for ship in state.ships
                if ship.side == side
                and orders.get(ship.id, Order()).admiral
                and _eligible(ctx, ship, state.turn)
            ),
            None,
        )
        kept = next(
            (
                ship.id
                for ship in state.ships
                if ship.side == side and ship.inspired and _eligible(ctx, ship, state.turn)
            ),
            None,
        )
        chosen[side] = named or kept or first_choice(ctx, state, side)
    ships = tuple(
        msgspec.structs.replace(ship, inspired=chosen[ship.side] == ship.id)
        if ship.side in chosen and ship.inspired != (chosen[ship.side] == ship.id)
        else ship
        for ship in state.ships
    )
    return msgspec.structs.replace(state, ships=ships)
