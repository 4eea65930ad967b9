"""Damage control (000 10.4, phase 14; 002 L33, L61-65): each side assigns its parties and
rolls, by the rules' ``damage_control`` roll.

``SIMULTANEOUS`` (phase ``repair``): :func:`repair`.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from msgspec import Struct

from tactical.dice import DiceSource, RecordingDice, Roll
from tactical.fire import CORE_SYSTEMS
from tactical.phases.orders import next_turn
from tactical.repair import (
    MAX_PARTIES_PER_JOB,
    RepairRule,
    damage_control_parties,
    repair_succeeds,
)
from tactical.ship import DriveState, ShipState, core_damaged, with_system_status
from tactical.state import (
    IN_PLAY,
    BattleContext,
    BattleState,
    IllegalActionError,
    ShipInPlay,
    named_ship,
    replace_ship,
    targetable,
)


class Repair(Struct, frozen=True, kw_only=True, gc=False):
    """One damage-control job: the parties on it, the die and whether it worked."""

    ship: str
    target: str
    parties: int
    face: int
    success: bool


class RepairsMade(Struct, frozen=True, kw_only=True, tag="repairs_made", gc=False):
    """A side's damage control parties tried to mend damaged systems (000 10.4)."""

    turn: int
    side: str
    repairs: tuple[Repair, ...] = ()
    rolls: tuple[Roll, ...] = ()


def after_repairs(ctx: BattleContext, state: BattleState) -> BattleState:
    """After damage control: the core systems' step if a ship in play has one out, else the
    next turn (000 L1053-1472, phases 14-15)."""
    if ctx.rules.core_systems and any(
        ship.status in IN_PLAY and core_damaged(ship.record) for ship in state.ships
    ):
        return msgspec.structs.replace(state, phase="core")
    return next_turn(ctx, state)


DRIVE = "drive"  # the repair job that mends the main drive one step


def repair_jobs(ctx: BattleContext, ship: ShipInPlay) -> tuple[str, ...]:
    """Return what damage control could mend on this ship: damaged systems, then the drive,
    then the core systems out: ``bridge`` (restores control, 000 L11161-11171),
    ``power_core`` (stabilises it, L11258-11270) and ``life_support`` (L11185-11189).

    Destroyed systems stay lost (001 L516; 000 L10909-10999); so does a lost FTL drive
    (see docs/rulings.md).
    """
    sheet = ctx.sheets[ship.id]
    record = ship.record
    jobs = [
        spec.id
        for spec, sys_state in zip(sheet.systems, record.systems, strict=True)
        if sys_state.status == "damaged"
    ]
    if record.drive != "ok" and sheet.thrust > 0:
        jobs.append(DRIVE)
    out = (record.out_of_control != 0, record.power_core != "ok", record.life_support > 0)
    jobs.extend(name for name, hit in zip(CORE_SYSTEMS, out, strict=True) if hit)
    return tuple(jobs)


def free_parties(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return the DCPs a ship may put to work now: its damage control parties less those that
    fought boarders this turn, which make no repairs (000 L12983-13003)."""
    parties = damage_control_parties(ctx.sheets[ship.id], ship.record, ctx.rules.damage_control)
    return max(parties - ship.repelled, 0)


def _has_repair_jobs(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """Whether :func:`repair_jobs` lists any job, without listing them (every ship is asked
    at each turn's end)."""
    sheet = ctx.sheets[ship.id]
    record = ship.record
    if len(record.systems) != len(sheet.systems):
        return bool(repair_jobs(ctx, ship))  # which refuses the mismatch
    return (
        any(sys_state.status == "damaged" for sys_state in record.systems)
        or (record.drive != "ok" and sheet.thrust > 0)
        or record.out_of_control != 0
        or record.power_core != "ok"
        or record.life_support > 0
    )


def _can_repair(ctx: BattleContext, ship: ShipInPlay) -> bool:
    return (
        ctx.rules.damage_control != "none"
        and targetable(ctx, ship)
        and _has_repair_jobs(ctx, ship)  # the cheaper test first: most ships have none
        and free_parties(ctx, ship) > 0
    )


def sides_to_repair(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have damage-control rolls to make this turn."""
    if state.phase != "repair":
        return ()
    return tuple(
        side
        for side in ctx.setup.sides
        if side not in state.repaired
        and any(s.side == side and _can_repair(ctx, s) for s in state.ships)
    )


def check_repairs(
    ctx: BattleContext, state: BattleState, side: str, jobs: Mapping[str, Mapping[str, int]]
) -> None:
    listed = " ".join(
        f"{ship}:{target}={parties}"
        for ship, work in jobs.items()
        for target, parties in work.items()
    )
    where = f"repairs {listed or 'none'!r} for {side} on turn {state.turn}"
    if side not in sides_to_repair(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no damage control to do now")
    for ship_id, work in jobs.items():
        ship = named_ship(state, ship_id, where)
        if ship.side != side or not _can_repair(ctx, ship):
            raise IllegalActionError(f"{where}: {ship_id!r} is not {side}'s ship with repairs")
        open_jobs = repair_jobs(ctx, ship)
        for target, parties in work.items():
            if target not in open_jobs:
                raise IllegalActionError(f"{where}: {ship_id} has nothing to mend in {target!r}")
            if not 1 <= parties <= MAX_PARTIES_PER_JOB:
                raise IllegalActionError(
                    f"{where}: 1 to {MAX_PARTIES_PER_JOB} parties on one job (000 L11368)"
                )
        available = free_parties(ctx, ship)
        if sum(work.values()) > available:
            raise IllegalActionError(
                f"{where}: {ship_id} has {available} damage control parties free "
                "(000 L11415-11425, L12983-13003)"
            )


def make_repairs(
    ctx: BattleContext,
    state: BattleState,
    side: str,
    jobs: Mapping[str, Mapping[str, int]],
    dice: DiceSource,
) -> tuple[BattleState, RepairsMade]:
    """Roll each job once, ships in battle order and jobs in record-sheet order (000 L11364),
    by the rules' roll: Continuum's or FT Lite's (002 L63)."""
    rule: RepairRule = "lite" if ctx.rules.damage_control == "lite" else "continuum"
    turn = state.turn
    made: list[Repair] = []
    for ship in state.ships:
        work = jobs.get(ship.id)
        if not work:
            continue
        record = ship.record
        for target in repair_jobs(ctx, ship):
            if target not in work:
                continue
            parties = work[target]
            face = dice.roll(f"t{turn}/repair/{ship.id}/{target}", 6)
            success = repair_succeeds(face, parties, rule)
            made.append(
                Repair(ship=ship.id, target=target, parties=parties, face=face, success=success)
            )
            if success and target == DRIVE:
                record = msgspec.structs.replace(record, drive=_DRIVE_MENDED[record.drive])
            elif success and target in CORE_SYSTEMS:
                record = _core_mended(record, target)
            elif success:
                record = with_system_status(record, target, "ok")
        state = replace_ship(state, msgspec.structs.replace(ship, record=record))
    state = msgspec.structs.replace(state, repaired=(*state.repaired, side))
    if not sides_to_repair(ctx, state):
        state = after_repairs(ctx, msgspec.structs.replace(state, repaired=()))
    return state, RepairsMade(turn=turn, side=side, repairs=tuple(made))


_DRIVE_MENDED: dict[DriveState, DriveState] = {"disabled": "half", "half": "ok", "ok": "ok"}


def _core_mended(record: ShipState, target: str) -> ShipState:
    """A successful repair of a core system: control restored (000 L11161-11171), the power
    core stabilised until it is hit again (L11258-11270), the life support mended (L11185)."""
    if target == "bridge":
        return msgspec.structs.replace(record, out_of_control=0)
    if target == "power_core":
        return msgspec.structs.replace(record, power_core="ok")
    return msgspec.structs.replace(record, life_support=0)


def repair(
    ctx: BattleContext,
    state: BattleState,
    side: str,
    jobs: Mapping[str, Mapping[str, int]],
    dice: DiceSource,
) -> RepairsMade:
    """Make one side's damage-control rolls: ``jobs`` maps ship id to {system id or
    ``"drive"``: parties}. An empty mapping makes no rolls.

    Raises:
        IllegalActionError: not this side's repair step, a job that is not damaged, more than
            three parties on a job or more parties than the ship has.
    """
    check_repairs(ctx, state, side, jobs)
    recording = RecordingDice(dice)
    _state, event = make_repairs(ctx, state, side, jobs, recording)
    return msgspec.structs.replace(event, rolls=tuple(recording.rolls))
