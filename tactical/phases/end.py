"""The end of the turn: the deferred threshold checks (000 L3194-3397, L1385-1390), wrecks
removed, a campaign battle's table and jumps (004 L133-135, L142-143, L164-165), withdrawals
(000 L13214-13273; 004 L336-337, L341-342), and the battle over or not.

``CHANCE`` (phase ``end``): :func:`end_turn`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import msgspec
from msgspec import Struct

from tactical.dice import DiceSource, Roll
from tactical.fire import range_between
from tactical.movement import round_mu
from tactical.phases.boarding import BoardingFight, boarder_losses, settle_boarders
from tactical.phases.damage import check_threshold, colours_struck
from tactical.phases.fire import ejected
from tactical.phases.ftl import awaiting_dropout
from tactical.phases.repair import after_repairs, sides_to_repair
from tactical.ship import hull_remaining
from tactical.state import (
    IN_PLAY,
    LOST,
    BattleContext,
    BattleState,
    ShipInPlay,
    ShipStatus,
    Theatre,
    Threshold,
    in_well,
)


class TurnEnded(Struct, frozen=True, kw_only=True, tag="turn_ended", gc=False):
    """The turn ended: end-of-phase thresholds, wrecks removed, and whether the battle is over."""

    turn: int
    thresholds: tuple[Threshold, ...] = ()
    removed: tuple[str, ...] = ()
    over: bool = False
    winner: str | None = None
    reason: str = ""
    ready: tuple[str, ...] = ()
    """Campaign ships that rolled their 6 and may power up for a jump (004 L142-143)."""
    fell: tuple[str, ...] = ()
    """Ships the gas giant's gravity drew off the table for good (004 L167-168)."""
    table: tuple[float, float, float, float] | None = None
    """A campaign battle's table after this turn: fixed, or ``None`` floating (004 L133-135)."""
    withdrew: tuple[str, ...] = ()
    """Sides that lost their morale's share of their mass and withdrew (000 L13214-13273)."""
    boarding: tuple[BoardingFight, ...] = ()
    """Boarding actions fought out aboard ships that left the battle, or at its end (000
    L13134-13140); their threshold checks are in ``thresholds``."""
    rolls: tuple[Roll, ...] = ()


def withdraw_at(ctx: BattleContext, side: str) -> int | None:
    """Return the percentage of its mass a side may lose before it withdraws, or ``None``
    without fleet morale: the set-up's figure, moved by a campaign admiral (004 L336-337,
    L341-342), kept within 1-100.

    >>> from tactical.setup import context
    >>> from tactical.state import BattleSetup
    >>> setup = BattleSetup(sides=("red", "blue"), ships=(), morale=50)
    >>> withdraw_at(context(setup), "red")
    50
    """
    if ctx.rules.morale is None:
        return None
    mods = dict(ctx.setup.theatre.morale_mods) if ctx.setup.theatre is not None else {}
    return max(1, min(100, ctx.rules.morale + mods.get(side, 0)))


def withdraw(ctx: BattleContext, state: BattleState) -> tuple[BattleState, tuple[str, ...]]:
    """Fleet morale at the end of a turn (000 L13214-13273): each side still in the battle
    that has lost at least its :func:`withdraw_at` share of its starting mass, in ships
    destroyed, struck or abandoned, withdraws; its ships still in play leave the battle
    (``left``: the campaign's disengaged). Exactly the share is enough. When a side has
    nothing left in play the battle is over anyway, and nobody withdraws. When every side
    reaches its share in the same turn, the rules' ``morale_ties`` says who goes: all of
    them (``both``), or only the :func:`worse_off` (``worse``)."""
    if not all(
        any(s.side == side and s.status in IN_PLAY for s in state.ships) for side in ctx.setup.sides
    ):
        return state, ()
    withdrew = [side for side in ctx.setup.sides if reached_share(ctx, state, side)]
    if len(withdrew) > 1 and ctx.rules.morale_ties == "worse":
        withdrew = worse_off(ctx, state, withdrew)
    if not withdrew:
        return state, ()
    after = tuple(
        msgspec.structs.replace(s, status="left", returns=None, jump="none")
        if s.side in withdrew and s.status in IN_PLAY
        else s
        for s in state.ships
    )
    return msgspec.structs.replace(state, ships=after), tuple(withdrew)


def _fleet(ctx: BattleContext, state: BattleState, side: str) -> list[ShipInPlay]:
    """The side's ships fleet morale weighs: all it started with, but a ship yet to drop out of
    FTL, which is not yet in the battle (001 L1053)."""
    return [s for s in state.ships if s.side == side and not awaiting_dropout(ctx, s)]


def reached_share(ctx: BattleContext, state: BattleState, side: str) -> bool:
    """Whether the side has lost at least its :func:`withdraw_at` share of its starting mass
    in ships destroyed, struck, abandoned or captured (000 L13214-13273); never without fleet
    morale."""
    share = withdraw_at(ctx, side)
    if share is None:
        return False
    ships = _fleet(ctx, state, side)
    total = sum(ctx.sheets[s.id].mass for s in ships)
    lost = sum(ctx.sheets[s.id].mass for s in ships if s.status in LOST)
    return lost * 100 >= share * total


def morale_losses(
    ctx: BattleContext, state: BattleState, side: str
) -> tuple[Fraction, Fraction, Fraction]:
    """How far the side has gone towards breaking, for the ``worse`` tie-break, in three
    measures, each finer than the last:

    1. the mass of its ships lost (000 L13214-13273's own measure);
    2. its strength lost: each ship's mass times the share of its hull boxes crossed off, a lost
       ship all of it (surviving ships included);
    3. the punishment it took: the same, but a ship that struck, was abandoned or captured
       counts the hull boxes it lost, as it lies (a destroyed ship all of them).

    Each is over the mass at which the side withdraws (its share of its starting mass), so an
    admiral's nerve (004 L336-337, L341-342) counts as it does for the share itself.

    >>> from tactical.setup import context
    >>> from tactical.state import BattleSetup, ShipSetup
    >>> from tactical.battle import initial_state
    >>> setup = BattleSetup(sides=("red", "blue"), morale=50, ships=(
    ...     ShipSetup(id="r1", side="red", design="frigate", x=0, y=0, course=12, speed=0),))
    >>> ctx = context(setup)
    >>> morale_losses(ctx, initial_state(ctx), "red")
    (Fraction(0, 1), Fraction(0, 1), Fraction(0, 1))
    """
    share = withdraw_at(ctx, side) or 100
    ships = _fleet(ctx, state, side)
    breaking = Fraction(share * sum(ctx.sheets[s.id].mass for s in ships), 100)
    if not breaking:
        return Fraction(0), Fraction(0), Fraction(0)
    lost = sum(ctx.sheets[s.id].mass for s in ships if s.status in LOST)
    strength = sum((_hull_mass_lost(ctx, s, LOST) for s in ships), Fraction(0))
    punishment = sum((_hull_mass_lost(ctx, s, ("destroyed",)) for s in ships), Fraction(0))
    return lost / breaking, strength / breaking, punishment / breaking


def _hull_mass_lost(
    ctx: BattleContext, ship: ShipInPlay, whole: tuple[ShipStatus, ...]
) -> Fraction:
    """The ship's mass times the share of its hull boxes gone: all of it when its status is
    one of ``whole``."""
    sheet = ctx.sheets[ship.id]
    if ship.status in whole:
        return Fraction(sheet.mass)
    gone = min(sheet.hull_boxes, sheet.hull_boxes - hull_remaining(sheet, ship.record))
    return Fraction(sheet.mass * gone, sheet.hull_boxes)


def worse_off(ctx: BattleContext, state: BattleState, sides: Sequence[str]) -> list[str]:
    """Of the sides that reached their share in the same turn, the one worse off by
    :func:`morale_losses`, which breaks first and withdraws while the other holds the field;
    every one of them when they are exactly even (docs/rulings.md, "Tactical: fleet morale
    and striking the colours")."""
    losses = {side: morale_losses(ctx, state, side) for side in sides}
    worst = max(losses.values())
    return [side for side in sides if losses[side] == worst]


def ending(
    ctx: BattleContext, state: BattleState, withdrew: Sequence[str]
) -> tuple[bool, str | None, str]:
    """Whether the battle is over after this turn, the winner and why: a side with nothing
    left in play, or the turn limit. A winner that had reached its own share when the other
    side broke first (``morale_ties = "worse"``) is said to hold the field with less lost."""
    present = [
        side
        for side in ctx.setup.sides
        if any(s.side == side and s.status in IN_PLAY for s in state.ships)
    ]
    if len(present) < len(ctx.setup.sides):
        winner = present[0] if present else None
        if withdrew:
            reason = f"{' and '.join(withdrew)} withdrew (fleet morale)"
            if winner is not None and reached_share(ctx, state, winner):
                reason += f", {winner} having reached its share too with less lost"
            return True, winner, reason
        return True, winner, f"{winner} alone remains" if winner else "no ship remains"
    if state.turn >= ctx.setup.turn_limit:
        return True, None, f"turn limit {ctx.setup.turn_limit} reached"
    return False, None, ""


def end_turn(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, TurnEnded]:
    """End the turn: deferred threshold checks, wrecks removed, the battle over or not."""
    turn = state.turn
    thresholds: list[Threshold] = []
    removed: list[str] = []
    ships: list[ShipInPlay] = []
    for ship in state.ships:
        sheet = ctx.sheets[ship.id]
        record = ship.record
        status = ship.status
        if status == "active" and hull_remaining(sheet, record) <= 0:
            status = "destroyed"
            removed.append(ship.id)
        elif status == "active" and (ship.rows or ship.board_rows):
            # One check at the last row's level, +1 per extra row (000 L3194-3397), for the
            # damage of phases 11 and 12 (000 L1385-1390).
            rows = ship.rows + ship.board_rows
            row, modifier = max(rows), len(rows) - 1
            record, check = check_threshold(
                ctx,
                ship,
                record,
                dice,
                f"t{turn}/threshold/{ship.id}",
                row,
                modifier,
                boarding=not ship.rows,
            )
            thresholds.append(check)
            status = colours_struck(status, ship.id, thresholds)
        ships.append(
            # An armed nova cannon not fired this turn loses its arming (001 L919).
            msgspec.structs.replace(
                ship,
                record=record,
                status=status,
                fired=False,
                rows=(),
                board_rows=(),
                nova=False,
                sweeping=False,
                settings=(),
                tubes=ejected(ship, turn),
            )
        )
    state = msgspec.structs.replace(state, ships=tuple(ships))
    state = boarder_losses(ctx, state, thresholds, 0, dice, "end")
    ready: tuple[str, ...] = ()
    fell: tuple[str, ...] = ()
    if ctx.setup.theatre is not None:
        state, ready, fell = _theatre_end(ctx, ctx.setup.theatre, state, dice)
    state, withdrew = withdraw(ctx, state)
    over, winner, reason = ending(ctx, state, withdrew)
    fights: list[BoardingFight] = []
    state = settle_boarders(ctx, state, dice, over, fights, thresholds)
    state = msgspec.structs.replace(state, first=None, to_fire=None, winner=winner, held=())
    if over:
        state = msgspec.structs.replace(state, phase="over")
    elif sides_to_repair(ctx, msgspec.structs.replace(state, phase="repair")):
        state = msgspec.structs.replace(state, phase="repair")
    else:
        state = after_repairs(ctx, state)
    return state, TurnEnded(
        turn=turn,
        thresholds=tuple(thresholds),
        removed=tuple(removed),
        over=over,
        winner=winner,
        reason=reason,
        ready=ready,
        fell=fell,
        table=state.table,
        withdrew=withdrew,
        boarding=tuple(fights),
    )


def _theatre_end(
    ctx: BattleContext, theatre: Theatre, state: BattleState, dice: DiceSource
) -> tuple[BattleState, tuple[str, ...], tuple[str, ...]]:
    """A campaign battle's end of turn: jump rolls, gravity, and the table fixed or floating.

    Returns the new state, the ships that rolled their 6 and the ships gravity took off.
    """
    ready: list[str] = []
    fell: list[str] = []
    ships: list[ShipInPlay] = []
    for ship in state.ships:
        if ship.status != "active":
            ships.append(ship)
            continue
        jump = ship.jump
        # Every ship under FTL Move orders prepares; a 6 readies it (004 L142-143).
        preparing = ship.side in theatre.ftl_sides and ship.record.ftl == "ok" and jump == "none"
        if preparing and dice.roll(f"t{state.turn}/jump/{ship.id}", 6) == 6:
            jump = "ready"
            ready.append(ship.id)
        x = round_mu(ship.x - theatre.gravity)  # towards the gas giant edge (004 L164-165)
        status: ShipStatus = "active"
        if in_well(ctx, x):
            status = "left"
            fell.append(ship.id)
        ships.append(msgspec.structs.replace(ship, x=x, jump=jump, status=status))
    state = msgspec.structs.replace(state, ships=tuple(ships))
    return (
        msgspec.structs.replace(state, table=_table_after(theatre, state)),
        tuple(ready),
        tuple(fell),
    )


def _table_after(theatre: Theatre, state: BattleState) -> tuple[float, float, float, float] | None:
    """Fix the table once two opposing ships are more than 150 MU apart, where the ships are;
    let it float again once every opposing pair is closer than that (004 L133-135)."""
    active = [s for s in state.ships if s.status == "active"]
    widest = max(
        (
            range_between(a.x, a.y, b.x, b.y)
            for i, a in enumerate(active)
            for b in active[i + 1 :]
            if a.side != b.side
        ),
        default=0.0,
    )
    if widest < theatre.float_limit:
        return None
    if widest == theatre.float_limit or state.table is not None:
        return state.table
    margin = theatre.table_margin
    return (
        round_mu(min(s.x for s in active) - margin),
        round_mu(min(s.y for s in active) - margin),
        round_mu(max(s.x for s in active) + margin),
        round_mu(max(s.y for s in active) + margin),
    )
