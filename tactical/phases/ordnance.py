"""The salvo missiles in flight (000 L5741-5828; 000 L1053-1472 phases 7-10): they home on
their targets, meet point and area defence, and strike before the firing.

``CHANCE`` (phase ``missiles``): :func:`resolve_missiles`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import msgspec
from msgspec import Struct

from tactical.dice import DiceSource, Roll
from tactical.fighters import (
    DEFENDING_BEAM,
    FIGHTER_RANGE_MU,
    GRAPESHOT,
    GRAPESHOT_DICE,
    SCATTERGUN,
    KillRoll,
    defence_roll,
)
from tactical.fire import range_between
from tactical.missiles import (
    ATTACK_RADIUS_MU,
    HEAVY_DICE,
    HEAVY_KILL_ON,
    VECTOR_ATTACK_RADIUS_MU,
    Salvo,
    hits_through,
    homing_target,
)
from tactical.phases.boarding import boarder_losses
from tactical.phases.damage import check_threshold, colours_struck, take_damage
from tactical.phases.fire import to_fire_phase
from tactical.state import (
    BattleContext,
    BattleState,
    Hit,
    ShipInPlay,
    ShipStatus,
    Threshold,
    defending_beams,
    lock_on_range,
    replace_ship,
    spend_one_shots,
    targetable,
    working_defence,
)


class PointDefenceDie(Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One point defence system's die against one salvo (000 L5851-5862)."""

    ship: str
    system: str
    salvo: str
    roll: KillRoll
    backlash: Hit | None = None
    """A scattergun covering an ally that rolled a 1: the point of damage it did the ally
    (000 L7528-7534)."""


class SalvoAttack(Struct, frozen=True, kw_only=True, gc=False):
    """One salvo after the ships moved: the ship it homed on (``None``: none within its radius,
    wasted, 000 L5794-5798), the on-target die, the kills, the hits and their damage dice."""

    salvo: str
    target: str | None = None
    on_target: int | None = None
    lost: int = 0
    """A missile fighters' salvo: taken off the on-target die (000 L9843-9849)."""
    kills: int = 0
    hits: int = 0
    faces: tuple[int, ...] = ()
    hit: Hit | None = None


class MissilesResolved(Struct, frozen=True, kw_only=True, tag="missiles_resolved", gc=False):
    """The salvos in flight homed, met point defence and struck, with thresholds at once
    (000 L1053-1472 phases 7-10)."""

    turn: int
    defence: tuple[PointDefenceDie, ...] = ()
    attacks: tuple[SalvoAttack, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    rolls: tuple[Roll, ...] = ()


def _attack_radius(ctx: BattleContext) -> float:
    """A salvo's attack radius: 6 MU, 3 MU against vector-drive ships (000 L5778-5828); every
    ship of a battle moves one way, so the battle's movement decides."""
    return VECTOR_ATTACK_RADIUS_MU if ctx.rules.movement == "vector" else ATTACK_RADIUS_MU


def resolve_missiles(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, MissilesResolved]:
    """Resolve the salvos in flight when no fighters fly this turn, then go on to the firing."""
    thresholds: list[Threshold] = []
    state, defence, attacks = salvo_attacks(ctx, state, dice, set(), thresholds)
    state = boarder_losses(ctx, state, thresholds, 0, dice, "missiles")
    state = to_fire_phase(ctx, state, state.first)
    return state, MissilesResolved(
        turn=state.turn,
        defence=tuple(defence),
        attacks=tuple(attacks),
        thresholds=tuple(thresholds),
    )


def salvo_targets(ctx: BattleContext, state: BattleState) -> dict[str, str | None]:
    """Return the ship each salvo due this turn homes on, ``None`` if none is within its
    attack radius (000 L5778-5798), 1 MU less a level of the ship's ECM (000 L7717-7721)."""
    targets: dict[str, str | None] = {}
    for salvo in state.salvos:
        if not salvo.due(state.turn):
            continue
        if salvo.waited and not salvo.flown:
            # It "must always be moved at least 16 MU each turn" (000 L6281-6285): a marker
            # not flown on is lost (docs/rulings.md, "Multi-stage missiles").
            targets[salvo.id] = None
            continue
        enemies = [
            (ship.id, ship.x, ship.y, lock_on_range(ctx, state, ship, _attack_radius(ctx)))
            for ship in state.ships
            if ship.side != salvo.side and targetable(ctx, ship)
        ]
        targets[salvo.id] = homing_target(salvo, enemies)
    return targets


def salvo_attacks(  # noqa: PLR0915 - salvos and heavy missiles, phases 7-10 in order
    ctx: BattleContext,
    state: BattleState,
    dice: DiceSource,
    used: set[tuple[str, str]],
    thresholds: list[Threshold],
    intercepted: Mapping[str, int] | None = None,
    busy: Collection[str] = (),
) -> tuple[BattleState, list[PointDefenceDie], list[SalvoAttack]]:
    """Home every salvo due this turn, fire point defence at it and strike (000 L5778-6040).

    Each salvo attacks the closest enemy within its radius of its marker, or is wasted. Each
    attacked ship's PDS and area systems not yet fired this turn (``used``, at fighters) are
    shared among the salvos attacking it, announced before any die; then friends' area systems
    within 6 MU, and with ADFC their PDS (000 L9083-9086). Each rolls one die: 4-5 kills one
    missile, 6 kills two and re-rolls (000 L5855-5857). Then the salvo's on-target die; each
    missile through does 1D6, semi-armour-piercing, past screens (L5943-5950), and the
    thresholds it crosses are checked at once (phase 10).
    """
    turn = state.turn
    due = [s for s in state.salvos if s.due(turn)]
    if not due:
        return state, [], []
    targets = salvo_targets(ctx, state)
    # Fighters that intercepted a salvo defend against it too (000 L5859-5861, L9295-9315).
    kills: dict[str, int] = {s.id: (intercepted or {}).get(s.id, 0) for s in due}
    defended: set[str] = {s.id for s in due if s.id in (intercepted or {})}
    defence: list[PointDefenceDie] = []
    heavy = {s.id: s.heavy for s in due}
    one_shots: list[tuple[str, str]] = []  # scatterguns and grapeshot fired (000 7.14-7.15)
    hurt: list[tuple[int, str]] = []  # (defence die, ally) a scattergun's 1 damages

    def allocate(ship: ShipInPlay, systems: list[str], victim: ShipInPlay) -> None:
        incoming = sorted(name for name, target in targets.items() if target == victim.id)
        if not incoming:
            return
        planned: dict[str, int] = dict.fromkeys(incoming, 0)
        plan: list[tuple[str, str]] = []
        for system in systems:
            if (ship.id, system) in used:
                continue
            # Announced before any die (000 L5837-5843): spread evenly over the salvos.
            pick = min(incoming, key=lambda name: (planned[name], name))
            planned[pick] += 1
            plan.append((system, pick))
            used.add((ship.id, system))
        for system, pick in plan:
            key = f"t{turn}/salvo/{pick}/pd/{ship.id}/{system}"
            spec = ctx.sheets[ship.id].system(system)
            roll = _pd_die(dice, key, spec.kind, heavy=heavy[pick])
            if spec.ammo is not None:
                one_shots.append((ship.id, system))
            if spec.kind == SCATTERGUN and ship.id != victim.id and roll.faces[0] == 1:
                hurt.append((len(defence), victim.id))
            defence.append(PointDefenceDie(ship=ship.id, system=system, salvo=pick, roll=roll))
            kills[pick] += roll.kills
            defended.add(pick)

    attacked = [state.ship(t) for t in sorted({t for t in targets.values() if t is not None})]
    for shooter, systems, victim in area_defenders(ctx, state, attacked, busy):
        allocate(shooter, systems, victim)
    state = spend_one_shots(state, one_shots)
    for index, ally in hurt:
        key = f"t{turn}/threshold/{ally}/scattergun/{defence[index].ship}"
        state, hit = backlash(ctx, state, dice, ally, key, thresholds)
        defence[index] = msgspec.structs.replace(defence[index], backlash=hit)

    attacks: list[SalvoAttack] = []
    staying: list[Salvo] = []
    for salvo in due:
        target_id = targets[salvo.id]
        if target_id is None and salvo.stays(turn):
            # A multi-stage marker with no enemy in reach stays for its second stage (000
            # L6267-6271).
            staying.append(msgspec.structs.replace(salvo, waited=turn))
            continue
        if target_id is None:
            attacks.append(SalvoAttack(salvo=salvo.id))
            continue
        target = state.ship(target_id)
        if salvo.heavy:
            state, attack = _heavy_strike(
                ctx, state, dice, salvo, target, kills[salvo.id], thresholds
            )
            attacks.append(attack)
            continue
        on_target = dice.roll(f"t{turn}/salvo/{salvo.id}/on", 6)
        # A missile fighters' salvo locks on with 1 fewer per fighter lost (000 L9843-9849).
        hits = hits_through(
            max(on_target - salvo.lost, 0), kills=kills[salvo.id], defended=salvo.id in defended
        )
        if not targetable(ctx, target):
            # Destroyed by an earlier salvo: the rest have nothing left to strike.
            attacks.append(
                SalvoAttack(
                    salvo=salvo.id,
                    target=target_id,
                    on_target=on_target,
                    lost=salvo.lost,
                    kills=kills[salvo.id],
                )
            )
            continue
        faces = tuple(dice.roll(f"t{turn}/salvo/{salvo.id}/damage/{i}", 6) for i in range(hits))
        sheet = ctx.sheets[target_id]
        record, hit = take_damage(sheet, target.record, target_id, 0, faces, 0)
        status: ShipStatus = "destroyed" if hit.destroyed else target.status
        if not hit.destroyed:
            # Missile damage is checked on the spot (000 L1053-1472 phase 10).
            for row in hit.rows:
                record, check = check_threshold(
                    ctx,
                    target,
                    record,
                    dice,
                    f"t{turn}/threshold/{target_id}/salvo/{salvo.id}/row{row}",
                    row,
                )
                thresholds.append(check)
                status = colours_struck(status, target_id, thresholds)
        state = replace_ship(state, msgspec.structs.replace(target, record=record, status=status))
        attacks.append(
            SalvoAttack(
                salvo=salvo.id,
                target=target_id,
                on_target=on_target,
                lost=salvo.lost,
                kills=kills[salvo.id],
                hits=hits,
                faces=faces,
                hit=hit,
            )
        )
    gone = {s.id for s in due}
    state = msgspec.structs.replace(
        state, salvos=(*(s for s in state.salvos if s.id not in gone), *staying)
    )
    return state, defence, attacks


def backlash(
    ctx: BattleContext,
    state: BattleState,
    dice: DiceSource,
    ally_id: str,
    key: str,
    thresholds: list[Threshold],
) -> tuple[BattleState, Hit]:
    """Do a scattergun's point of damage to the ally it covered with a roll of 1 ("On a roll
    of '1' the allied ship suffers one point of damage", 000 L7528-7534): armour first, the
    thresholds it completes checked at once (phase 9-10, as missile damage), dice
    ``{key}/row<n>/...``."""
    ally = state.ship(ally_id)
    record, hit = take_damage(ctx.sheets[ally_id], ally.record, ally_id, 1, (), 0)
    status: ShipStatus = "destroyed" if hit.destroyed else ally.status
    if not hit.destroyed:
        for row in hit.rows:
            record, check = check_threshold(ctx, ally, record, dice, f"{key}/row{row}", row)
            thresholds.append(check)
            status = colours_struck(status, ally_id, thresholds)
    return replace_ship(state, msgspec.structs.replace(ally, record=record, status=status)), hit


def _pd_die(dice: DiceSource, key: str, kind: str, *, heavy: bool) -> KillRoll:
    """Roll one point defence system's dice at a salvo (4-5 one kill, 6 two and a re-roll,
    000 L5855-5857; a scattergun's D6 kills, grapeshot's four dice, :func:`defence_roll`) or
    at a heavy missile, which each die kills on a 5 or 6 (000 L5897-5899) and a scattergun's
    D6 of hits always (L7518-7524)."""
    if not heavy:
        return defence_roll(dice, key, kind, reroll=True)
    count = GRAPESHOT_DICE if kind == GRAPESHOT else 1
    faces = tuple(dice.roll(f"{key}/{i}", 6) for i in range(count))
    if kind == SCATTERGUN:
        return KillRoll(faces=faces, kills=faces[0])
    # "Each Beam-1 or fighter rolls a D6 and kills the missile on a roll of 6" (000 L5901-5903).
    need = 6 if kind == DEFENDING_BEAM else HEAVY_KILL_ON
    return KillRoll(faces=faces, kills=sum(1 for face in faces if face >= need))


def _heavy_strike(
    ctx: BattleContext,
    state: BattleState,
    dice: DiceSource,
    salvo: Salvo,
    target: ShipInPlay,
    kills: int,
    thresholds: list[Threshold],
) -> tuple[BattleState, SalvoAttack]:
    """Strike with a heavy missile that got through: 3D6, half rounded up on armour (000
    L5942-5944), thresholds at once; one killed by point defence (any kill, 000 L5895-5899),
    or at a ship already gone, does nothing. It has no on-target die: it is one missile."""
    missed = SalvoAttack(salvo=salvo.id, target=target.id, kills=kills)
    if kills or not targetable(ctx, target):
        return state, missed
    turn = state.turn
    faces = tuple(dice.roll(f"t{turn}/salvo/{salvo.id}/damage/{i}", 6) for i in range(HEAVY_DICE))
    record, hit = take_damage(ctx.sheets[target.id], target.record, target.id, 0, (sum(faces),), 0)
    status: ShipStatus = "destroyed" if hit.destroyed else target.status
    if not hit.destroyed:
        for row in hit.rows:
            record, check = check_threshold(
                ctx,
                target,
                record,
                dice,
                f"t{turn}/threshold/{target.id}/salvo/{salvo.id}/row{row}",
                row,
            )
            thresholds.append(check)
            status = colours_struck(status, target.id, thresholds)
    state = replace_ship(state, msgspec.structs.replace(target, record=record, status=status))
    return state, msgspec.structs.replace(missed, hits=1, faces=faces, hit=hit)


def area_defenders(
    ctx: BattleContext,
    state: BattleState,
    attacked: Sequence[ShipInPlay],
    busy: Collection[str] = (),
) -> list[tuple[ShipInPlay, list[str], ShipInPlay]]:
    """Return who fires point defence for whom, in order, as (ship, systems, ship defended):
    each attacked ship with its own point and area systems, then each friend within
    :data:`FIGHTER_RANGE_MU` of an attacked ship with its area systems, and its PDS too for
    one ally per ADFC (000 L9083-9086), unless it is one of the ``busy`` carriers: "A ship
    that launches or recovers fighters cannot use an ADFC in that turn" (000 L8721-8723).
    Used against fighters and salvo missiles alike."""
    plan: list[tuple[ShipInPlay, list[str], ShipInPlay]] = []
    for victim in attacked:
        own = working_defence(ctx, victim)
        plan.append((victim, [*own.point, *own.area, *defending_beams(ctx, victim)], victim))
    covered: dict[str, int] = {}
    for victim in attacked:
        for friend in state.ships:
            if (
                friend.side != victim.side
                or friend.id == victim.id
                or not targetable(ctx, friend)
                or range_between(friend.x, friend.y, victim.x, victim.y) > FIGHTER_RANGE_MU
            ):
                continue
            spec = working_defence(ctx, friend)
            cover = list(spec.area)
            if friend.id not in busy and covered.get(friend.id, 0) < spec.controls:
                covered[friend.id] = covered.get(friend.id, 0) + 1
                cover += list(spec.point)
            plan.append((friend, cover, victim))
    return plan
