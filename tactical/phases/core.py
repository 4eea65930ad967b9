"""Core systems (000 10.3, phase 15): damaged power cores roll to explode, with reactor
breaches under that option; failed life support and lost control count down.

``CHANCE`` (phase ``core``): :func:`resolve_core`.
"""

from __future__ import annotations

import msgspec
from msgspec import Struct

from tactical.dice import DiceSource, Roll
from tactical.fire import range_between
from tactical.phases.boarding import BoardingFight, boarder_losses, settle_boarders
from tactical.phases.damage import check_threshold, colours_struck, take_damage
from tactical.phases.end import ending, withdraw
from tactical.phases.orders import next_turn
from tactical.ship import GIVEN_OUT
from tactical.state import (
    IN_PLAY,
    BattleContext,
    BattleState,
    Hit,
    ShipInPlay,
    ShipStatus,
    Threshold,
    replace_ship,
    targetable,
)


class CoreRoll(Struct, frozen=True, kw_only=True, gc=False):
    """A damaged power core's D6 at the end of the turn: on 5-6 it explodes and destroys the
    ship (000 L11207-11211)."""

    ship: str
    face: int
    exploded: bool


class Breach(Struct, frozen=True, kw_only=True, gc=False):
    """An exploding power core's blast on one ship within 3 MU: 1D6 per 25 mass of the ship
    that exploded, at face value, semi-armour-piercing and past screens (000 L11217-11254)."""

    ship: str
    """The ship whose power core exploded."""
    faces: tuple[int, ...]
    hit: Hit


class CoreSystemsRolled(Struct, frozen=True, kw_only=True, tag="core_systems_rolled", gc=False):
    """The core systems at the end of the turn, after damage control (000 phase 15): damaged
    power cores rolled, failed life support counted down, lost control counted down."""

    turn: int
    cores: tuple[CoreRoll, ...] = ()
    breaches: tuple[Breach, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    """The threshold checks the breaches' damage made at once (000 phase 15)."""
    destroyed: tuple[str, ...] = ()
    """Ships destroyed: by their own power core, or by a breach."""
    abandoned: tuple[str, ...] = ()
    """Ships whose life support gave out: their crews abandoned them (000 L11189-11197)."""
    control: tuple[str, ...] = ()
    """Ships back under control, their turns out of control over (000 L11161-11165)."""
    withdrew: tuple[str, ...] = ()
    """Sides that lost their morale's share of their mass and withdrew (000 L13214-13273)."""
    over: bool = False
    winner: str | None = None
    reason: str = ""
    boarding: tuple[BoardingFight, ...] = ()
    """Boarding actions fought out aboard ships that left the battle, or at its end (000
    L13134-13140)."""
    rolls: tuple[Roll, ...] = ()


CORE_EXPLODES = 5  # a damaged power core explodes on a 5 or 6 (000 L11207-11211)


BREACH_RADIUS_MU = 3.0  # a breach reaches every ship within 3 MU (000 L11223-11225)


BREACH_MASS = 25  # 1D6 for every 25 mass of the exploding ship (000 L11225-11227; 130 -> 5D6)


def resolve_core(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, CoreSystemsRolled]:
    """The end of the turn, after damage control (000 phase 15): each power core still
    damaged rolls a D6 and explodes on 5-6, destroying its ship (000 L11207-11211), with a
    breach if the option is on; then each failed life support counts down a turn and, at 0,
    gives out: the crew abandons ship (L11189-11197); then each ship out of control counts
    down a turn, and at 0 is back under control (L11161-11165). Ships in battle order; the
    cores rolled are those damaged when the step begins (a breach's damage rolls next turn).
    """
    turn = state.turn
    cores: list[CoreRoll] = []
    breaches: list[Breach] = []
    thresholds: list[Threshold] = []
    destroyed: list[str] = []
    abandoned: list[str] = []
    control: list[str] = []
    damaged = [s.id for s in state.ships if s.status in IN_PLAY and s.record.power_core != "ok"]
    for ship_id in damaged:
        ship = state.ship(ship_id)
        if ship.status not in IN_PLAY:
            continue  # destroyed by a breach earlier in the step
        face = dice.roll(f"t{turn}/core/{ship_id}/power_core", 6)
        exploded = face >= CORE_EXPLODES
        cores.append(CoreRoll(ship=ship_id, face=face, exploded=exploded))
        if not exploded:
            continue
        destroyed.append(ship_id)
        gone = msgspec.structs.replace(ship, status="destroyed", returns=None)
        state = replace_ship(state, gone)
        if ctx.rules.reactor_breach and ship.status == "active":
            state = _breach(ctx, state, ship, dice, breaches, thresholds, destroyed)
    for ship in state.ships:
        if ship.status not in IN_PLAY:
            continue
        record = ship.record
        status: ShipStatus = ship.status
        if record.life_support > 0:
            left = record.life_support - 1
            record = msgspec.structs.replace(record, life_support=left or GIVEN_OUT)
            if not left:
                status = "abandoned"
                abandoned.append(ship.id)
        if record.out_of_control > 0 and status != "abandoned":
            record = msgspec.structs.replace(record, out_of_control=record.out_of_control - 1)
            if record.out_of_control == 0:
                control.append(ship.id)
        returns = None if status == "abandoned" else ship.returns
        state = replace_ship(
            state, msgspec.structs.replace(ship, record=record, status=status, returns=returns)
        )
    state = boarder_losses(ctx, state, thresholds, 0, dice, "core")
    state, withdrew = withdraw(ctx, state)
    over, winner, reason = ending(ctx, state, withdrew)
    fights: list[BoardingFight] = []
    state = settle_boarders(ctx, state, dice, over, fights, thresholds)
    if over:
        state = msgspec.structs.replace(state, phase="over", winner=winner)
    else:
        state = next_turn(ctx, state)
    return state, CoreSystemsRolled(
        turn=turn,
        cores=tuple(cores),
        breaches=tuple(breaches),
        thresholds=tuple(thresholds),
        destroyed=tuple(destroyed),
        abandoned=tuple(abandoned),
        control=tuple(control),
        withdrew=withdrew,
        over=over,
        winner=winner,
        reason=reason,
        boarding=tuple(fights),
    )


def _breach(
    ctx: BattleContext,
    state: BattleState,
    exploded: ShipInPlay,
    dice: DiceSource,
    breaches: list[Breach],
    thresholds: list[Threshold],
    destroyed: list[str],
) -> BattleState:
    """A reactor breach (000 L11217-11254): every other ship in play within 3 MU of the
    exploding ship takes 1D6 per 25 mass of it, at face value, half (rounded up) to armour
    and the rest to the hull past armour and screens, like a torpedo's semi-armour-piercing
    damage (000 L3078-3167), with threshold checks at once (000 phase 15): one per row under
    immediate thresholds, else one at the last row's level, +1 per extra row."""
    count = ctx.sheets[exploded.id].mass // BREACH_MASS
    if count == 0:
        return state
    turn = state.turn
    for target in state.ships:
        distance = range_between(exploded.x, exploded.y, target.x, target.y)
        if not targetable(ctx, target) or distance > BREACH_RADIUS_MU:
            continue
        key = f"t{turn}/breach/{exploded.id}/{target.id}"
        faces = tuple(dice.roll(f"{key}/{i}", 6) for i in range(count))
        sheet = ctx.sheets[target.id]
        record, hit = take_damage(sheet, target.record, target.id, 0, (sum(faces),), 0)
        breaches.append(Breach(ship=exploded.id, faces=faces, hit=hit))
        status: ShipStatus = target.status
        if hit.destroyed:
            status = "destroyed"
            destroyed.append(target.id)
        elif hit.rows:
            if ctx.rules.threshold_timing == "immediate":
                checks = [(row, 0, f"/row{row}") for row in hit.rows]
            else:
                checks = [(max(hit.rows), len(hit.rows) - 1, "")]
            for row, modifier, suffix in checks:
                record, check = check_threshold(
                    ctx,
                    target,
                    record,
                    dice,
                    f"t{turn}/threshold/{target.id}/breach/{exploded.id}{suffix}",
                    row,
                    modifier,
                    core=True,
                )
                thresholds.append(check)
                status = colours_struck(status, target.id, thresholds)
        state = replace_ship(state, msgspec.structs.replace(target, record=record, status=status))
    return state
