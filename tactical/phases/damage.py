"""Damage applied to a ship in play, and the threshold checks and struck colours it causes.

Every phase that deals damage (fire, fighters, salvos, mines, rams, FTL, boarding, a core's
breach) applies it here: hull and armour boxes (digest A11; 000 L3078-3167), the threshold check of
a completed row at once or at the end of the phase (000 L3194-3397), and a captain striking
his colours (000 L13275-13343).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from tactical.boarding import CREW_KINDS
from tactical.dice import DiceSource
from tactical.fire import SENSORS, StrikeRoll, ThresholdOutcome, threshold_check
from tactical.phases.admirals import strike_modifier
from tactical.repair import PERMANENT_LOSSES
from tactical.ship import Ship, ShipState, apply_damage, is_destroyed
from tactical.state import (
    BattleContext,
    BattleState,
    Hit,
    ShipInPlay,
    ShipStatus,
    Threshold,
    replace_ship,
)


def crash(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    points: int,
    cause: str,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, Hit]:
    """Cross off ``points`` of unscreened damage during the move, armour first, with its
    threshold checks at once and a wreck removed at once, as for a mine (001 L476)."""
    turn = state.turn
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    record, hit = take_damage(sheet, ship.record, ship_id, points, (), 0)
    if not hit.destroyed:
        for row in hit.rows:
            record, check = check_threshold(
                ctx,
                ship,
                record,
                dice,
                f"t{turn}/threshold/{ship_id}/{cause}/row{row}",
                row,
            )
            thresholds.append(check)
    hurt = msgspec.structs.replace(
        ship,
        record=record,
        status="destroyed" if hit.destroyed else colours_struck(ship.status, ship.id, thresholds),
        returns=None if hit.destroyed else ship.returns,
    )
    return replace_ship(state, hurt), hit


def apply_hit(
    ctx: BattleContext,
    state: BattleState,
    target: ShipInPlay,
    record: ShipState,
    hit: Hit,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> BattleState:
    """Put a damaged record on its ship: a wreck is removed at once (001 L476) and each row
    crossed is checked now or at the end of the phase, as the rules say."""
    status: ShipStatus = target.status
    pending = target.rows
    if hit.destroyed:
        if not ctx.rules.destroyed_fire:
            status = "destroyed"  # removed at once (001 L476)
    elif ctx.rules.threshold_timing == "immediate":
        for row in hit.rows:  # one check per row crossed, in order (002 L57; digest B10)
            record, check = check_threshold(
                ctx,
                target,
                record,
                dice,
                f"t{state.turn}/threshold/{target.id}/row{row}",
                row,
            )
            thresholds.append(check)
            status = colours_struck(status, target.id, thresholds)
    else:
        pending = pending + hit.rows
    return replace_ship(
        state, msgspec.structs.replace(target, record=record, status=status, rows=pending)
    )


def take_damage(
    sheet: Ship,
    record: ShipState,
    target_id: str,
    screened: int,
    torpedoes: Sequence[int],
    rerolled: int,
    piercing: Sequence[int] = (),
) -> tuple[ShipState, Hit]:
    """Cross off one firer's damage to one target (digest A11).

    Beam damage goes armour first; each torpedo hit is semi-armour-piercing, half (rounded up)
    to armour (000 L3078-3167; FT2 ships have no armour, so it is all hull); each armour
    piercing hit in ``piercing`` (an overloaded torpedo's, 000 L4669, or a variable one's at
    short range, L4778-4780) puts its first point on armour and the rest on the hull (000
    L3078-3167, index 4.9); re-roll damage ignores armour (000 L2864-2968, L3033-3077).
    """
    parts = [(screened, True)]
    for points in torpedoes:
        parts += [((points + 1) // 2, True), (points // 2, False)]
    for points in piercing:
        parts += [(min(points, 1), True), (points - min(points, 1), False)]
    parts.append((rerolled, False))
    rows: tuple[int, ...] = ()
    to_armour = to_hull = 0
    for points, armour_first in parts:
        if points == 0:
            continue  # no points cross nothing off: the record stays as it is
        result = apply_damage(sheet, record, points, armour_first=armour_first)
        record = result.state
        rows += result.rows_completed
        to_armour += result.to_armour
        to_hull += result.to_hull
    destroyed = is_destroyed(sheet, record)  # as apply_damage reads the record it leaves
    hit = Hit(
        target=target_id,
        damage=screened + rerolled + sum(torpedoes) + sum(piercing),
        to_armour=to_armour,
        to_hull=to_hull,
        rows=rows,
        destroyed=destroyed,
    )
    return record, hit


def _strike(ctx: BattleContext, ship: ShipInPlay) -> StrikeRoll | None:
    """The strike-the-colours die a ship rolls at its threshold checks, if the option is on
    (000 L13275-13343), with its captain's modifier (004 L331, L335), or the admiral's level's
    on the ship he has chosen (004 L338, L343)."""
    if not ctx.rules.strike_colours:
        return None
    return StrikeRoll(captain=strike_modifier(ctx, ship), as_core=ctx.rules.strike_as_core)


def colours_struck(status: ShipStatus, ship_id: str, thresholds: Sequence[Threshold]) -> ShipStatus:
    """A ship still active whose captain struck at one of these checks is out of the battle
    at once: it moves and fires no more and cannot be fired on (000 L13275-13343)."""
    if status == "active" and any(t.ship == ship_id and t.struck for t in thresholds):
        return "struck"
    return status


def check_threshold(
    ctx: BattleContext,
    ship: ShipInPlay,
    record: ShipState,
    dice: DiceSource,
    key: str,
    row: int,
    modifier: int = 0,
    core: bool | None = None,
    boarding: bool = False,
) -> tuple[ShipState, Threshold]:
    """Make one threshold check of a ship under the battle's rules (its lost status, FTL
    check, permanent losses, core systems unless ``core`` says otherwise, and the
    strike-the-colours die); return its new record and the check as the journal keeps it.
    A check caused by ``boarding`` combat alone spares the marines and DCPs (000
    L13097-13099)."""
    ship_id = ship.id
    record, result = threshold_check(
        ctx.sheets[ship_id],
        record,
        dice,
        key,
        row=row,
        modifier=modifier,
        lost_status=ctx.rules.lost_status,
        ftl=ctx.rules.ftl_threshold,
        permanent=PERMANENT_LOSSES,
        core=ctx.rules.core_systems if core is None else core,
        strike=_strike(ctx, ship),
        spared=CREW_KINDS if boarding else frozenset(),
        fragile=SENSORS if ctx.rules.sensors_ecm else frozenset(),
    )
    check = _threshold(ship_id, row, modifier, result)
    return record, msgspec.structs.replace(check, boarding=True) if boarding else check


def _threshold(ship_id: str, row: int, modifier: int, result: ThresholdOutcome) -> Threshold:
    return Threshold(
        ship=ship_id,
        row=row,
        modifier=modifier,
        lost=tuple(result.lost),
        drive=result.drive,
        ftl=result.ftl,
        bridge=result.bridge,
        power_core=result.power_core,
        life_support=result.life_support,
        colours=result.colours,
        struck=result.struck,
    )
