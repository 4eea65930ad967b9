"""Boarding actions (000 12.7, phase 12): the assault and repel steps.

``SIMULTANEOUS`` (phase ``assault``): each side with boarders aboard an enemy ship that has
marines says which engage them (:func:`write_assault`). ``SIMULTANEOUS`` (phase ``repel``):
each side puts its DCPs and marines on the boarders aboard its ships and the boarding combat
is rolled (:func:`repel`, 000 L13043-13093). Boarders lost with their ship, and boarders left
alone aboard, are settled here for every phase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec
from msgspec import Struct

from tactical.boarding import (
    MAX_ROUNDS,
    Assault,
    BoarderLosses,
    Boarders,
    Guard,
    Melee,
    assault_doctrine,
    assault_problem,
    defending_marines,
    format_assaults,
    format_repel,
    guard_doctrine,
    guard_problem,
    melee,
    parse_assaults,
    with_losses,
)
from tactical.dice import DiceSource, RecordingDice, Roll
from tactical.fire import threshold_need
from tactical.phases.damage import check_threshold, colours_struck
from tactical.phases.repair import free_parties
from tactical.repair import damage_control_parties
from tactical.ship import ShipState, apply_damage, with_system_status
from tactical.state import (
    BattleContext,
    BattleState,
    Hit,
    IllegalActionError,
    ShipInPlay,
    ShipStatus,
    SideOrders,
    Threshold,
    named_ship,
    replace_ship,
    targetable,
)


class BoardingFight(Struct, frozen=True, kw_only=True, gc=False):
    """One round of boarding combat aboard ``ship`` against ``side``'s boarders (000
    L13043-13093): the boarders aboard, the two allocations, the dice (``melee``), the
    defending marines killed, the hull damage and whether the ship was captured. ``round`` is
    0 in phase 12, else the round of a boarding action fought out after the ship left the
    battle (see docs/rulings.md)."""

    ship: str
    side: str
    marines: int
    parties: int
    assault: Assault
    guards: tuple[Guard, ...]
    melee: Melee
    marines_lost: tuple[str, ...] = ()
    hit: Hit | None = None
    captured: bool = False
    round: int = 0


class AssaultOrdered(Struct, frozen=True, kw_only=True, tag="assault_ordered", gc=False):
    """A side said which of its boarders aboard enemy ships engage the defending marines,
    ``ship:M<marines>P<parties>`` each; the rest go for the hull (000 L13049-13053)."""

    turn: int
    side: str
    orders: str


class BoardingFought(Struct, frozen=True, kw_only=True, tag="boarding_fought", gc=False):
    """A side put its DCPs and marines on the boarders aboard its ships (``orders``, in the
    notation of :func:`tactical.boarding.format_repel`) and the boarding combat was rolled
    (000 L13043-13093), with FT2's immediate threshold checks."""

    turn: int
    side: str
    orders: str
    fights: tuple[BoardingFight, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    rolls: tuple[Roll, ...] = ()


def board(
    state: BattleState, ship_id: str, side: str, *, marines: int = 0, parties: int = 0
) -> BattleState:
    """Put ``side``'s marines and boarding parties aboard the enemy ship ``ship_id`` this turn
    (000 12.7): every way of delivering boarders lands them with this, boarding torpedoes
    (000 L5122-5128) and assault shuttles (000 L10020-10032). Boarders of the same side
    landed in the same turn join one landing.

    Raises:
        ValueError: the ship is the boarders' own, or the numbers are negative.
    """
    ship = state.ship(ship_id)
    if ship.side == side:
        raise ValueError(f"{side} cannot board its own ship {ship_id!r}")
    if marines < 0 or parties < 0:
        raise ValueError(f"boarders must be >= 0, got {marines} marines and {parties} parties")
    if not marines and not parties:
        return state
    landings = list(ship.boarders)
    last = landings[-1] if landings else None
    if last is not None and last.side == side and last.landed == state.turn:
        landings[-1] = msgspec.structs.replace(
            last, marines=last.marines + marines, parties=last.parties + parties
        )
    else:
        landings.append(Boarders(side=side, landed=state.turn, marines=marines, parties=parties))
    return replace_ship(state, msgspec.structs.replace(ship, boarders=tuple(landings)))


def boarders_aboard(ship: ShipInPlay) -> tuple[int, int]:
    """Return the enemy marines and boarding parties aboard a ship, every landing together."""
    return sum(b.marines for b in ship.boarders), sum(b.parties for b in ship.boarders)


def _boarded(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """A ship in play with hull left and enemy boarders aboard fights them in phase 12."""
    return bool(ship.boarders) and targetable(ctx, ship)


def after_fire(ctx: BattleContext, state: BattleState) -> BattleState:
    """Go on from the firing to the boarding actions (000 L1378-1381, phase 12): the assault
    step if boarders aboard a ship face its marines, else the repel step if any ship in play
    has boarders aboard, else the end of the turn."""
    state = msgspec.structs.replace(state, to_fire=None)
    for phase, sides in (("assault", sides_to_assault), ("repel", sides_to_repel)):
        trial = msgspec.structs.replace(state, phase=phase)
        if sides(ctx, trial):
            return trial
    return msgspec.structs.replace(state, phase="end")


def sides_to_assault(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have to say which of their boarders engage the defending
    marines this turn: those with boarders aboard an enemy ship that has marines."""
    if state.phase != "assault":
        return ()
    done = {w.side for w in state.written}
    facing = {
        landing.side
        for ship in state.ships
        if _boarded(ctx, ship) and defending_marines(ctx.sheets[ship.id], ship.record)
        for landing in ship.boarders
    }
    return tuple(side for side in ctx.setup.sides if side in facing and side not in done)


def write_assault(
    ctx: BattleContext, state: BattleState, side: str, assaults: Mapping[str, Assault]
) -> AssaultOrdered:
    """Record which of one side's boarders engage the defending marines aboard each enemy
    ship, the rest going for the hull (000 L13049-13053). A ship left out: all go for the hull.

    Raises:
        IllegalActionError: not the assault step, the side has written already, or an
            allocation is for a ship without its boarders or more than are aboard.
    """
    where = f"assault {format_assaults(assaults)!r} for {side} on turn {state.turn}"
    if state.phase != "assault":
        raise IllegalActionError(f"{where}: it is the {state.phase} step")
    if side not in sides_to_assault(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no boarders to allot now")
    for ship_id, assault in assaults.items():
        ship = named_ship(state, ship_id, where)
        if not _boarded(ctx, ship) or ship.side == side:
            raise IllegalActionError(f"{where}: {side} has no boarders aboard {ship_id!r}")
        marines, parties = boarders_aboard(ship)
        defenders = len(defending_marines(ctx.sheets[ship_id], ship.record))
        problem = assault_problem(assault, marines, parties, defenders)
        if problem is not None:
            raise IllegalActionError(f"{where}: {ship_id}: {problem}")
    return AssaultOrdered(turn=state.turn, side=side, orders=format_assaults(assaults))


def apply_assault(ctx: BattleContext, state: BattleState, event: AssaultOrdered) -> BattleState:
    written = (*state.written, SideOrders(event.side, event.orders))
    state = msgspec.structs.replace(state, written=written)
    if not sides_to_assault(ctx, state):
        state = msgspec.structs.replace(state, phase="repel")
    return state


def assault_on(state: BattleState, ship: ShipInPlay) -> Assault:
    """Return the boarders' allocation aboard a ship from this turn's assault step, open to
    the defender in the repel step: all on the hull if their side wrote none for it."""
    for written in state.written:
        if written.side != ship.side:
            return parse_assaults(written.orders).get(ship.id, Assault())
    return Assault()


def sides_to_repel(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have to fight the boarders aboard their ships this turn."""
    if state.phase != "repel":
        return ()
    boarded = {s.side for s in state.ships if _boarded(ctx, s)}
    return tuple(side for side in ctx.setup.sides if side in boarded and side not in state.fought)


def check_repel(
    ctx: BattleContext, state: BattleState, side: str, guards: Mapping[str, Sequence[Guard]]
) -> None:
    where = f"repel {format_repel(guards)!r} for {side} on turn {state.turn}"
    if side not in sides_to_repel(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no boarders to fight now")
    for ship_id, ship_guards in guards.items():
        ship = named_ship(state, ship_id, where)
        if ship.side != side or not _boarded(ctx, ship):
            raise IllegalActionError(f"{where}: {ship_id!r} is not {side}'s ship with boarders")
        marines, parties = boarders_aboard(ship)
        problem = guard_problem(
            ship_guards,
            marines,
            parties,
            assault_on(state, ship),
            free_parties(ctx, ship),
            len(defending_marines(ctx.sheets[ship_id], ship.record)),
        )
        if problem is not None:
            raise IllegalActionError(f"{where}: {ship_id}: {problem}")


def repel(
    ctx: BattleContext,
    state: BattleState,
    side: str,
    guards: Mapping[str, Sequence[Guard]],
    dice: DiceSource,
) -> BoardingFought:
    """Fight the boarders aboard one side's ships (000 L13043-13093): ``guards`` maps ship id
    to the DCPs and marines it puts on which boarders; a ship left out puts none, and its
    boarders still fight. The DCPs used make no repairs this turn.

    Raises:
        IllegalActionError: not this side's repel step, or an allocation breaks the rules
            (:func:`tactical.boarding.guard_problem`).
    """
    check_repel(ctx, state, side, guards)
    recording = RecordingDice(dice)
    _state, event = fight_boarders(ctx, state, side, guards, recording)
    return msgspec.structs.replace(event, rolls=tuple(recording.rolls))


def fight_boarders(
    ctx: BattleContext,
    state: BattleState,
    side: str,
    guards: Mapping[str, Sequence[Guard]],
    dice: DiceSource,
) -> tuple[BattleState, BoardingFought]:
    """Fight a round aboard each of the side's boarded ships, in battle order."""
    fights: list[BoardingFight] = []
    thresholds: list[Threshold] = []
    for ship in state.ships:
        if ship.side != side or not _boarded(ctx, ship):
            continue
        state, fight = _fight_round(
            ctx,
            state,
            ship.id,
            assault_on(state, ship),
            tuple(guards.get(ship.id, ())),
            dice,
            0,
            thresholds,
        )
        fights.append(fight)
    state = msgspec.structs.replace(state, fought=(*state.fought, side))
    if not sides_to_repel(ctx, state):
        state = msgspec.structs.replace(state, phase="end", written=(), fought=())
    return state, BoardingFought(
        turn=state.turn,
        side=side,
        orders=format_repel({k: tuple(v) for k, v in guards.items()}),
        fights=tuple(fights),
        thresholds=tuple(thresholds),
    )


def _fight_round(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    assault: Assault,
    guards: tuple[Guard, ...],
    dice: DiceSource,
    round_number: int,
    thresholds: list[Threshold],
) -> tuple[BattleState, BoardingFight]:
    """Roll one round of boarding combat aboard a ship and apply it: boarders and defending
    marines killed (dead marines are destroyed, not damaged: 000 L15100-15108), a point of
    hull damage past armour for each boarder on the hull still alive (000 L13085-13093), and
    a ship whose last box goes is captured (000 L13113-13121).

    The rows the damage completes are checked at the end of the turn with the fire's under
    Continuum (phase 13), at once under FT2's timing and in a round fought out after the ship
    left (``round_number`` > 0), by :func:`_boarding_checks`.
    """
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    key = f"t{state.turn}/boarding/{ship_id}" + (f"/r{round_number}" if round_number else "")
    marines, parties = boarders_aboard(ship)
    defenders = defending_marines(sheet, ship.record)
    side = ship.boarders[0].side
    fought = melee(
        dice,
        key,
        (marines, parties),
        assault,
        guards,
        len(defenders),
        ctx.rules.party_attack_on,
    )
    record = ship.record
    for system_id in defenders[: fought.hits]:
        record = with_system_status(record, system_id, "destroyed")
    boarders = with_losses(ship.boarders, fought.marines_killed, fought.parties_killed)
    hit: Hit | None = None
    status: ShipStatus = ship.status
    board_rows = ship.board_rows
    if fought.hull:
        result = apply_damage(sheet, record, fought.hull, armour_first=False)
        record = result.state
        hit = Hit(
            target=ship_id,
            damage=fought.hull,
            to_armour=0,
            to_hull=result.to_hull,
            rows=result.rows_completed,
            destroyed=result.destroyed,
        )
    captured = hit is not None and hit.destroyed
    if captured:
        status, boarders, board_rows = "captured", (), ()
    elif hit is not None and hit.rows:
        if round_number or ctx.rules.threshold_timing == "immediate":
            record, status = _boarding_checks(ctx, ship, record, hit.rows, dice, key, thresholds)
        else:
            board_rows = board_rows + hit.rows
    used = sum(g.dcps for g in guards) if not round_number else 0
    state = replace_ship(
        state,
        msgspec.structs.replace(
            ship,
            record=record,
            status=status,
            boarders=boarders,
            board_rows=board_rows,
            rows=() if captured else ship.rows,
            repelled=ship.repelled + used,
        ),
    )
    fight = BoardingFight(
        ship=ship_id,
        side=side,
        marines=marines,
        parties=parties,
        assault=assault,
        guards=guards,
        melee=fought,
        marines_lost=defenders[: fought.hits],
        hit=hit,
        captured=captured,
        round=round_number,
    )
    return state, fight


def _boarding_checks(
    ctx: BattleContext,
    ship: ShipInPlay,
    record: ShipState,
    rows: tuple[int, ...],
    dice: DiceSource,
    key: str,
    thresholds: list[Threshold],
) -> tuple[ShipState, ShipStatus]:
    """Check at once the rows boarding damage completed, sparing marines, DCPs and boarders
    (000 L13097-13099): one check per row under FT2's timing, else one at the last row, +1
    per extra row (000 L3194-3397)."""
    if ctx.rules.threshold_timing == "immediate":
        checks = [(row, 0, f"/row{row}") for row in rows]
    else:
        checks = [(max(rows), len(rows) - 1, "")]
    status: ShipStatus = ship.status
    for row, modifier, suffix in checks:
        record, check = check_threshold(
            ctx, ship, record, dice, f"{key}/threshold{suffix}", row, modifier, boarding=True
        )
        thresholds.append(check)
        status = colours_struck(status, ship.id, thresholds)
    return record, status


def boarder_losses(
    ctx: BattleContext,
    state: BattleState,
    thresholds: list[Threshold],
    start: int,
    dice: DiceSource,
    step: str,
) -> BattleState:
    """Kill boarders at the threshold checks from ``start`` on that weapons fire caused (000
    L13099-13109): at each check not caused by boarding alone, every boarder aboard that did
    not land this turn rolls a D6, ``t<turn>/<step>/<check>/boarders/<ship>/<landing>/<n>``,
    marines first, and dies on the systems' target. The check in ``thresholds`` records it."""
    for index in range(start, len(thresholds)):
        check = thresholds[index]
        ship = state.ship(check.ship)
        if check.boarding or not any(b.landed < state.turn for b in ship.boarders):
            continue
        need = threshold_need(check.row, check.modifier)
        losses: list[BoarderLosses] = []
        kept: list[Boarders] = []
        for number, landing in enumerate(ship.boarders):
            if landing.landed >= state.turn:
                kept.append(landing)
                continue
            key = f"t{state.turn}/{step}/{index}/boarders/{ship.id}/{number}"
            faces = tuple(dice.roll(f"{key}/{n}", 6) for n in range(landing.count))
            marines = sum(1 for face in faces[: landing.marines] if face >= need)
            parties = sum(1 for face in faces[landing.marines :] if face >= need)
            losses.append(
                BoarderLosses(
                    side=landing.side,
                    landed=landing.landed,
                    faces=faces,
                    marines=marines,
                    parties=parties,
                )
            )
            kept.extend(with_losses((landing,), marines, parties))
        thresholds[index] = msgspec.structs.replace(check, boarders=tuple(losses))
        state = replace_ship(state, msgspec.structs.replace(ship, boarders=tuple(kept)))
    return state


GONE_WITH_BOARDERS: tuple[ShipStatus, ...] = ("destroyed", "struck", "abandoned", "captured")
"""Ships whose boarding action is over: wrecked, surrendered, abandoned or taken."""


def settle_boarders(
    ctx: BattleContext,
    state: BattleState,
    dice: DiceSource,
    over: bool,
    fights: list[BoardingFight],
    thresholds: list[Threshold],
) -> BattleState:
    """At the end of a turn: boarders aboard a ship destroyed, struck, abandoned or captured
    are gone; aboard a ship that left the battle (jumped, off the table, withdrawn), or any
    ship when the battle is over, the boarding action goes on until it is resolved (000
    L13134-13140): :func:`_fight_out`."""
    for ship in state.ships:
        if not ship.boarders:
            continue
        if ship.status in GONE_WITH_BOARDERS:
            state = replace_ship(state, msgspec.structs.replace(ship, boarders=()))
        elif ship.status != "active" or over:
            state = _fight_out(ctx, state, ship.id, dice, fights, thresholds)
    return state


def _fight_out(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    dice: DiceSource,
    fights: list[BoardingFight],
    thresholds: list[Threshold],
) -> BattleState:
    """Fight a boarding action to its end: rounds keyed ``t<turn>/boarding/<ship>/r<n>``,
    each side allotting by the default doctrine (:func:`tactical.boarding.assault_doctrine`,
    :func:`tactical.boarding.guard_doctrine`) with all the ship's DCPs, thresholds checked at
    once, until the boarders are dead or the ship is captured; after :data:`MAX_ROUNDS` the
    boarders left are lost (see docs/rulings.md)."""
    for round_number in range(1, MAX_ROUNDS + 1):
        ship = state.ship(ship_id)
        if not ship.boarders or ship.status in GONE_WITH_BOARDERS:
            break
        sheet = ctx.sheets[ship_id]
        marines, parties = boarders_aboard(ship)
        defenders = len(defending_marines(sheet, ship.record))
        assault = assault_doctrine(marines, parties, defenders)
        dcps = damage_control_parties(sheet, ship.record, ctx.rules.damage_control)
        guards = guard_doctrine(marines, parties, assault, dcps, defenders)
        state, fight = _fight_round(
            ctx, state, ship_id, assault, guards, dice, round_number, thresholds
        )
        fights.append(fight)
    ship = state.ship(ship_id)
    return replace_ship(state, msgspec.structs.replace(ship, boarders=()))
