"""The fighter steps (001 L256-258; 000 L1053-1472 phases 4-10): flight orders, then the
fighters and point defence.

``SIMULTANEOUS`` (phase ``flight``): each side with groups in flight writes their orders
(:func:`write_flight`). ``CHANCE`` (phase ``fighters``): groups move, scramble (000 8.3),
dogfight, intercept salvos, meet point and area defence and make their attack runs, land and
rearm (000 8.16).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

import msgspec
from msgspec import Struct

from tactical.dice import DiceSource, Roll
from tactical.fighters import (
    FIGHTER_RANGE_MU,
    HOLD,
    INTERCEPT_LOSS_ON,
    MISSILE_FIGHTER_RANGE_MU,
    NEVER_RELAUNCH,
    SCATTERGUN,
    SECONDARY_MOVE_MU,
    SHUTTLE_LANDS_ON,
    TORPEDO_HITS_ON,
    FighterGroup,
    FighterType,
    FlightOrder,
    KillRoll,
    bays,
    defence_roll,
    fighter_type,
    format_flight,
    format_flight_order,
    group_id,
    launch_limit,
    parse_flight,
    relaunch_turn,
    roll_kills,
    roll_missile_kills,
)
from tactical.fire import (
    MKP_DAMAGE,
    line_blocked,
    mkp_hits,
    range_between,
    roll_beams,
    score_beam_die,
    score_plasma_die,
)
from tactical.missiles import STANDARD_RANGE_MU, Salvo, salvo_id
from tactical.movement import MU_DECIMALS, Order, round_mu
from tactical.phases.boarding import board, boarder_losses
from tactical.phases.damage import check_threshold, colours_struck, take_damage
from tactical.phases.fire import NovaHit, advance_novas, to_fire_phase
from tactical.phases.ordnance import (
    PointDefenceDie,
    SalvoAttack,
    area_defenders,
    backlash,
    salvo_attacks,
    salvo_targets,
)
from tactical.ship import Ship, ShipState, read_off, with_system_status
from tactical.spatial import fighter_flight
from tactical.state import (
    BattleContext,
    BattleState,
    Hit,
    IllegalActionError,
    ShipInPlay,
    ShipStatus,
    SideOrders,
    Threshold,
    asteroids_now,
    enemy_in_sight,
    lock_on_range,
    replace_ship,
    spend_one_shots,
    targetable,
    velocity,
    working_screen,
)

SCRAMBLE_MISHAP = 1  # a scramble's 1: a bay and its fighters out of action (000 L8597-8605)


SCRAMBLE_LATE = 4  # a 4: one group gets away too late to stop the attack (000 L8615-8621)


class FlightWritten(Struct, frozen=True, kw_only=True, tag="flight_written", gc=False):
    """A side wrote the flight orders of its fighter groups in flight (secret until they fly)."""

    turn: int
    side: str
    orders: str


class GroupMoved(Struct, frozen=True, kw_only=True, gc=False):
    """Where one fighter group flew, and why its order was not carried out if it was not."""

    group: str
    order: str
    x: float
    y: float
    void: str | None = None
    recovered: bool = False
    secondary: bool = False
    """It made a secondary move, for 1 CEF (000 L8760-8774)."""


class Dogfight(Struct, frozen=True, kw_only=True, gc=False):
    """One round of a dogfight: both groups' dice, rolled simultaneously (001 L810)."""

    attacker: str
    defender: str
    attacker_roll: KillRoll
    defender_roll: KillRoll
    exhausted: bool = False
    """The defender had no endurance left: its dice kill only on 6s (000 L9346-9350)."""
    late: bool = False
    """A group scrambled too late fights the attacker after its attack run (000 L8659-8671)."""


class Scramble(Struct, frozen=True, kw_only=True, gc=False):
    """A carrier's scramble die (000 8.3): the bay a mishap put out of action, or the groups
    that launched, ``late`` if too late to stop the attack."""

    ship: str
    face: int
    mishap: str | None = None
    groups: tuple[str, ...] = ()
    late: bool = False


class DefenceFire(Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One point-defence system's die at a fighter group."""

    ship: str
    system: str
    group: str
    roll: KillRoll
    backlash: Hit | None = None
    """A scattergun covering an ally that rolled a 1: the point of damage it did the ally
    (000 L7528-7534)."""


FighterWeapon = Literal["beams", "graser", "plasma", "torpedoes", "mkps", "shuttles"]
"""What a fighter group fires at a ship (000 8.15): BD* beams (a specialised type's secondary
weapons among them), a graser or plasma cannon, or its one-shot pulse torpedoes or MKPs; or
``shuttles``, assault shuttles landing boarding parties (000 L10020-10026)."""


class FighterAttack(Struct, frozen=True, kw_only=True, gc=False):
    """A group's attack run on a ship: one die per fighter (001 L779; 000 L9160-9166)."""

    group: str
    target: str
    faces: tuple[int, ...]
    rerolls: tuple[int, ...] = ()
    hit: Hit
    torpedoes: bool = False
    """Torpedo fighters' pulse torpedoes, not their beams (000 L9659-9680)."""
    weapon: FighterWeapon = "beams"
    """What the run fired (``torpedoes`` with ``torpedoes`` set)."""
    damage: tuple[int, ...] = ()
    """A graser run's 1d3 per hit (000 L9702-9706): the screened hits', then the re-rolls'."""
    landed: int = 0
    """Assault shuttles (``shuttles``): the boarding parties landed, one a die of 3+ (000
    L10020-10026); ``faces`` are the shuttles' dice, ``hit`` no damage."""


class SalvoLaunch(Struct, frozen=True, kw_only=True, gc=False):
    """A missile fighter group launched its salvo at an aim point, against the enemy ship it
    closed on (000 L9810-9849); ``lost`` is the fighters it had lost, off the on-target die."""

    group: str
    target: str
    salvo: str
    x: float
    y: float
    lost: int = 0


class Rearm(Struct, frozen=True, kw_only=True, gc=False):
    """A group recovered under the re-arming rule: its die and the turn from which it may
    launch again, ``None`` never in this battle (000 8.16, L10104-10121)."""

    group: str
    face: int
    ready: int | None


class Interception(Struct, frozen=True, kw_only=True, gc=False):
    """A group intercepted a salvo (000 L9295-9315): its dice at the missiles, a D6 for each
    missile killed (``losses``), and the fighters those 6s cost it."""

    group: str
    salvo: str
    roll: KillRoll
    losses: tuple[int, ...] = ()
    lost: int = 0


class FightersResolved(Struct, frozen=True, kw_only=True, tag="fighters_resolved", gc=False):
    """The fighter groups flew, dogfought, met point defence and made their attack runs."""

    turn: int
    moves: tuple[GroupMoved, ...] = ()
    dogfights: tuple[Dogfight, ...] = ()
    defence: tuple[DefenceFire, ...] = ()
    attacks: tuple[FighterAttack, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    lost: tuple[str, ...] = ()
    """Groups wiped out."""
    launches: tuple[SalvoLaunch, ...] = ()
    """Missile fighters' salvos launched, after the attack runs (000 L9821-9833)."""
    rearms: tuple[Rearm, ...] = ()
    """The re-arming dice of the groups that landed (000 8.16)."""
    interceptions: tuple[Interception, ...] = ()
    """Groups' interceptions of salvos, their kills counted with the point defence's."""
    scrambles: tuple[Scramble, ...] = ()
    """Carriers' scramble dice at the groups attacking them (000 8.3)."""
    nova: tuple[NovaHit, ...] = ()
    """Nova templates moved on at the start of the firing, after the fighters (001 L925)."""
    salvo_defence: tuple[PointDefenceDie, ...] = ()
    """Point defence at the salvos in flight, after the fighters' (000 L1053-1472 phase 9)."""
    salvos: tuple[SalvoAttack, ...] = ()
    """The salvos in flight, resolved in this step when fighters fly (phases 7-10)."""
    rolls: tuple[Roll, ...] = ()


HEAVY_KILLED_BY_FIGHTER = 6  # "Each Beam-1 or fighter rolls a D6 and kills the missile on a
# roll of 6" (000 L5901-5903)
HANGAR_BAY = "hangar_bay"  # launches and recovers only through a launch tube (000 L14838-14844)
LAUNCH_TUBE = "launch_tube"  # one group a turn each (000 L8536-8538, L14846-14858)


def working_tubes(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return the ship's working launch tubes: a damaged one launches and recovers nothing
    (000 L10967-10979)."""
    return sum(
        1
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
        if spec.kind == LAUNCH_TUBE and now.status == "ok"
    )


def launch_bays(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> list[str]:
    """Return the bays whose groups may launch this turn, in the order they go: under the
    ``launch_tubes`` rule one hangar bay per working launch tube (000 L8536-8538) and every
    combined bay (000 L14935-14936: "may launch all their available fighter groups in one
    turn"); otherwise the first of those ready, two for a carrier, one for any other ship
    (001 L759)."""
    ready = launchable_bays(ctx, state, ship)
    sheet = ctx.sheets[ship.id]
    if not ctx.rules.launch_tubes:
        return ready[: launch_limit(sheet, ctx.rules.carrier_bays)]
    tubes = working_tubes(ctx, ship)
    chosen: list[str] = []
    for bay in ready:
        if sheet.system(bay).kind == HANGAR_BAY:
            if not tubes:
                continue
            tubes -= 1
        chosen.append(bay)
    return chosen


def launch_capacity(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> int:
    """Return how many groups a ``launch`` order may name this turn: the preset's carrier
    limit (001 L759), or under launch tubes as many as :func:`launch_bays` gives."""
    if not ctx.rules.launch_tubes:
        return launch_limit(ctx.sheets[ship.id], ctx.rules.carrier_bays)
    return len(launch_bays(ctx, state, ship))


def recovery_limit(ctx: BattleContext, ship: ShipInPlay, bay: str) -> int:
    """Return how many groups the ship may recover this turn into bays like this one: one
    (001 L761); under launch tubes one per working tube into hangar bays (000 L8536-8538),
    and half its working combined bays, rounded up, into those (000 L14935-14940)."""
    if not ctx.rules.launch_tubes:
        return 1
    sheet = ctx.sheets[ship.id]
    if sheet.system(bay).kind == HANGAR_BAY:
        return working_tubes(ctx, ship)
    combined = sum(
        1
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
        if spec.bay_capacity and spec.kind != HANGAR_BAY and now.status == "ok"
    )
    return (combined + 1) // 2


def launchable_bays(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> list[str]:
    """Return the bays whose group is aboard and may launch: working, with fighters, re-armed
    (000 8.16), in record-sheet order."""
    return [bay for bay in _bays_aboard(ctx, state, ship) if rearmed(state, ship, bay)]


def _bays_aboard(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> list[str]:
    """Return the working bays with their group aboard, ready or re-arming, in record-sheet
    order."""
    bays = read_off(ctx.sheets[ship.id], _fighter_bays)
    if not bays:
        return []
    flying = {g.id for g in state.fighters}
    systems = ship.record.systems
    return [
        bay
        for index, bay in bays
        if systems[index].status == "ok"
        and (systems[index].fighters or 0) > 0
        and group_id(ship.id, bay) not in flying
    ]


def _fighter_bays(sheet: Ship) -> tuple[tuple[int, str], ...]:
    """The sheet's bays that carry fighters, by place in its systems and id, in its order."""
    return tuple(
        (index, spec.id)
        for index, spec in enumerate(sheet.systems)
        if spec.bay_capacity and spec.fighters
    )


def rearmed(state: BattleState, ship: ShipInPlay, bay: str) -> bool:
    """Whether the group in this bay has re-armed and may launch this turn: it never landed
    under the re-arming rule, or its relaunch turn has come (000 8.16, L10104-10121)."""
    ready = dict(ship.rearming).get(bay)
    return ready is None or (ready != NEVER_RELAUNCH and ready <= state.turn)


def _rearming_text(ship: ShipInPlay, bay: str) -> str:
    """Say when a re-arming bay's group may launch again."""
    ready = dict(ship.rearming)[bay]
    if ready == NEVER_RELAUNCH:
        return f"{bay} may not relaunch this battle (000 L10110-10114)"
    return f"{bay} is re-arming until turn {ready} (000 L10114-10121)"


def bay_launch_problem(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, groups: int
) -> str | None:
    """Return why a ship may not launch this many groups, or ``None``."""
    if not launchable_bays(ctx, state, ship):
        aboard = _bays_aboard(ctx, state, ship)
        if aboard:
            return "no fighter group ready to launch: " + "; ".join(
                _rearming_text(ship, bay) for bay in aboard
            )
        return "no fighter group aboard to launch (001 L753-759)"
    if ctx.rules.launch_tubes:
        limit = launch_capacity(ctx, state, ship)
        if limit == 0:
            return "no working launch tube to launch from its hangar bays (000 L10967-10979)"
        if groups > limit:
            return (
                f"launches at most {limit} group{'s' if limit > 1 else ''} this turn: one per "
                "working launch tube, and every combined bay's (000 L8536-8538, L14935-14936)"
            )
        return None
    limit = launch_limit(ctx.sheets[ship.id], ctx.rules.carrier_bays)
    if groups > limit:
        return f"launches at most {limit} group{'s' if limit > 1 else ''} a turn (001 L759)"
    return None


def scramble_problem(ctx: BattleContext, ship: ShipInPlay, order: Order) -> str | None:
    """Return why a ship may not stand ready to scramble fighters this turn, or ``None``."""
    if not ctx.rules.fighter_scramble:
        return "scrambling fighters is not in these rules (000 8.3: rule fighter_scramble)"
    if not bays(ctx.sheets[ship.id]):
        return "no fighter bays to scramble from (000 L8574-8580)"
    if order.turn or order.accel or order.pivot is not None or order.vector:
        return "a ship may not scramble fighters if it applied thrust (000 L8647-8649)"
    return None


def launch_groups(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, groups: int
) -> tuple[ShipInPlay, list[FighterGroup]]:
    """Launch groups from the first bays with fighters, at the halfway point of the carrier's
    move (001 L757): the bays empty, the groups take to the table."""
    dx, dy = velocity(ship)  # a launch holds course and speed: the move is the drift
    x = round_mu(ship.x + dx / 2)
    y = round_mu(ship.y + dy / 2)
    launched: list[FighterGroup] = []
    for bay in launch_bays(ctx, state, ship)[:groups]:
        ship, group = take_off(ctx, ship, bay, x, y)
        launched.append(group)
    return ship, launched


def take_off(
    ctx: BattleContext, ship: ShipInPlay, bay: str, x: float, y: float
) -> tuple[ShipInPlay, FighterGroup]:
    """Take a bay's group off the ship at (x, y): the bay empties, the group flies with its
    type's endurance (long range 9, light 4; 000 L9557-9563, L9923-9927)."""
    aboard = next(s.fighters or 0 for s in ship.record.systems if s.id == bay)
    kind = group_type(ctx, ship.id, bay)
    endurance = ctx.rules.fighter_endurance
    if endurance is not None:
        endurance = kind.endurance or endurance
    group = FighterGroup(
        side=ship.side,
        carrier=ship.id,
        bay=bay,
        x=x,
        y=y,
        fighters=aboard,
        endurance=endurance,
        # One-shot weapons are rearmed on every launch (000 L9643-9647).
        torpedoes=kind.torpedoes,
        mkps=kind.mkps,
        salvo=kind.salvo,
        launching=ctx.rules.launch_half_move,
        # 003 L288-289: a group's facing is its course; it sets out the way its carrier faces.
        course=ship.course if ctx.rules.movement == "spatial" else None,
    )
    systems = tuple(
        msgspec.structs.replace(s, fighters=0) if s.id == bay else s for s in ship.record.systems
    )
    record = msgspec.structs.replace(ship.record, systems=systems)
    rearming = tuple(entry for entry in ship.rearming if entry[0] != bay)
    return msgspec.structs.replace(ship, record=record, rearming=rearming), group


def sides_to_fly(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have flight orders to write this turn."""
    if state.phase != "flight":
        return ()
    done = {w.side for w in state.written}
    present = {g.side for g in state.fighters}
    return tuple(side for side in ctx.setup.sides if side in present and side not in done)


def flight_targets(ctx: BattleContext, state: BattleState, group: FighterGroup) -> FlightTargets:
    """Return what a group may be ordered at: enemy ships to attack, enemy groups to
    dogfight, enemy salvos in flight to intercept (not by attack or torpedo fighters, 000
    L9309-9312), friendly ships to cover."""
    enemy_ships = tuple(s.id for s in state.ships if enemy_in_sight(ctx, group.side, s))
    friends = tuple(s.id for s in state.ships if s.side == group.side and targetable(ctx, s))
    enemy_groups = tuple(g.id for g in state.fighters if g.side != group.side)
    salvos = tuple(
        s.id
        for s in state.salvos
        if s.side != group.side and group_type(ctx, group.carrier, group.bay).intercepts
    )
    return FlightTargets(attack=enemy_ships, dogfight=enemy_groups, cover=friends, intercept=salvos)


class FlightTargets(NamedTuple):
    """The targets open to one fighter group's flight order."""

    attack: tuple[str, ...]
    dogfight: tuple[str, ...]
    cover: tuple[str, ...]
    intercept: tuple[str, ...] = ()


def group_type(ctx: BattleContext, carrier: str, bay: str) -> FighterType:
    """Return the fighter type a carrier's bay holds (000 8.15): its ``SystemSpec.fighters``,
    standard for FT2 bays and types the engine does not model (see docs/rulings.md).

    In a side's view an enemy carrier known below "every system" has its estimated sheet
    (``tactical.phases.knowledge``), which may hold no such bay: the side takes that carrier's
    groups for standard fighters (docs/rulings.md, "Tactical: what a side knows of enemy
    ships")."""
    spec = next((s for s in ctx.sheets[carrier].systems if s.id == bay), None)
    return fighter_type(spec.fighters if spec is not None else None)


def group_reach(ctx: BattleContext, group: FighterGroup) -> float:
    """Return how far a group flies in a turn: the rules' 12" or 24 MU, fast fighters 36 MU
    (000 L9525-9527); half that on the turn it launches, under the ``launch_half_move`` rule
    (000 L8526-8528: "Move distance on the launch turn is only half normal")."""
    reach = float(group_type(ctx, group.carrier, group.bay).move or ctx.rules.fighter_move)
    return reach / 2 if group.launching else reach


def _group(state: BattleState, group: str) -> FighterGroup:
    for g in state.fighters:
        if g.id == group:
            return g
    raise KeyError(group)


def write_flight(
    ctx: BattleContext, state: BattleState, side: str, orders: Mapping[str, FlightOrder]
) -> FlightWritten:
    """Record one side's flight orders for its groups in flight; groups left out hold.

    Raises:
        IllegalActionError: not the flight step, the side has written already, or an order
            is for a group that is not this side's or at a target it may not take.
    """
    where = f"flight {format_flight(orders)!r} for {side} on turn {state.turn}"
    if state.phase != "flight":
        raise IllegalActionError(f"{where}: it is the {state.phase} step")
    if side not in sides_to_fly(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no flight orders to write now")
    for group_name, order in orders.items():
        try:
            group = _group(state, group_name)
        except KeyError:
            raise IllegalActionError(f"{where}: there is no group {group_name!r}") from None
        if group.side != side:
            raise IllegalActionError(f"{where}: {group_name!r} is not {side}'s group")
        targets = flight_targets(ctx, state, group)
        allowed = {
            "attack": targets.attack,
            "dogfight": targets.dogfight,
            "intercept": targets.intercept,
            "cover": targets.cover,
        }.get(order.kind)
        if allowed is not None and order.target not in allowed:
            raise IllegalActionError(f"{where}: {group_name} cannot {order.kind} {order.target!r}")
        if order.secondary and not ctx.rules.fighter_secondary_move:
            raise IllegalActionError(
                f"{where}: {group_name} may make no secondary move under these rules (001 L763)"
            )
    return FlightWritten(turn=state.turn, side=side, orders=format_flight(orders))


def apply_flight(ctx: BattleContext, state: BattleState, event: FlightWritten) -> BattleState:
    written = (*state.written, SideOrders(event.side, event.orders))
    state = msgspec.structs.replace(state, written=written)
    if not sides_to_fly(ctx, state):
        state = msgspec.structs.replace(state, phase="fighters")
    return state


def _towards(x: float, y: float, tx: float, ty: float, reach: float) -> tuple[float, float, bool]:
    """Fly from (x, y) towards (tx, ty) up to ``reach``; return where and whether it got there."""
    distance = range_between(x, y, tx, ty)
    if distance <= reach:
        return tx, ty, True
    return (
        round_mu(x + (tx - x) * reach / distance),
        round_mu(y + (ty - y) * reach / distance),
        False,
    )


MU_GRAIN = 10.0**-MU_DECIMALS
"""The table's grain: a group that closes to a range stops on the nearest 0.001 MU, so a range
check after the move allows this much."""


def _close_on(
    x: float, y: float, tx: float, ty: float, reach: float, stand_off: float
) -> tuple[float, float]:
    """Fly from (x, y) towards (tx, ty) up to ``reach``, stopping ``stand_off`` short of it;
    a group already that close stays put."""
    if stand_off <= 0:
        return _towards(x, y, tx, ty, reach)[:2]
    distance = range_between(x, y, tx, ty)
    if distance <= stand_off:
        return x, y
    scale = (distance - stand_off) / distance
    sx, sy = round_mu(x + (tx - x) * scale), round_mu(y + (ty - y) * scale)
    return _towards(x, y, sx, sy, reach)[:2]


def _flown(
    start: tuple[float, float],
    aim: tuple[float, float],
    reach: float,
    stand_off: float,
    *,
    secondary: bool,
    blind: tuple[float, float] | None = None,
) -> tuple[float, float, bool]:
    """Fly a group from ``start`` at ``aim`` by its move (``reach``), stopping ``stand_off``
    short; with a ``secondary`` move, up to 12 MU further (000 L8760-8770), or, for a robot,
    12 MU towards ``blind`` first (000 L10070-10078). Return where it ends and whether it made
    the secondary move: flew beyond its move, or (a robot) flew its blind leg at all.

    >>> _flown((0.0, 0.0), (0.0, 30.0), 24, 0, secondary=True)
    (0.0, 30.0, True)
    >>> _flown((0.0, 0.0), (0.0, 20.0), 24, 0, secondary=True)
    (0.0, 20.0, False)
    >>> _flown((0.0, 0.0), (0.0, 40.0), 24, 0, secondary=True, blind=(0.0, -20.0))
    (0.0, 12.0, True)
    """
    x, y = start
    if not secondary:
        return (*_close_on(x, y, *aim, reach, stand_off), False)
    if blind is not None:
        bx, by = _close_on(x, y, *blind, SECONDARY_MOVE_MU, stand_off)
        ex, ey = _close_on(bx, by, *aim, reach, stand_off)
        return ex, ey, (bx, by) != (x, y)
    ex, ey = _close_on(x, y, *aim, reach + SECONDARY_MOVE_MU, stand_off)
    return ex, ey, range_between(x, y, ex, ey) > reach + MU_GRAIN


def _spend(group: FighterGroup, cost: int = 1) -> FighterGroup:
    """Spend combat endurance: 1 a combat, 2 to fire a graser or plasma cannon (000 L9714-9716,
    L9754-9756); a group with less left spends what it has."""
    if group.endurance is None:
        return group
    return msgspec.structs.replace(group, endurance=max(group.endurance - cost, 0))


def resolve_fighters(  # noqa: PLR0915 - one rules step, kept in the rulebook's order
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, FightersResolved]:
    """Resolve the fighter step: groups fly by their orders, dogfights, point defence, then
    attack runs with damage and threshold checks at once (000 L1053-1472 phases 4-10; see
    docs/rulings.md for FT2's timing)."""
    turn = state.turn
    orders: dict[str, FlightOrder] = {}
    for side_orders in state.written:
        orders.update(parse_flight(side_orders.orders))
    groups = {g.id: g for g in state.fighters}
    kinds = {g.id: group_type(ctx, g.carrier, g.bay) for g in state.fighters}
    reaches = {g.id: group_reach(ctx, g) for g in state.fighters}
    start = dict(groups)
    engaged: dict[str, str] = {}  # group -> the group it dogfights
    pairs: list[tuple[str, str]] = []  # (the group that made contact, the group it caught)
    attacking: dict[str, str] = {}  # group -> the ship it attacks
    launching: dict[str, str] = {}  # missile fighter group -> the ship it launches its salvo at
    intercepting: dict[str, str] = {}  # group -> the enemy salvo it intercepts
    recovered: set[str] = set()
    landed_on: dict[tuple[str, bool], int] = {}  # (carrier, into a hangar bay) -> groups
    moves: list[GroupMoved] = []

    def spent(group: FighterGroup) -> bool:
        return group.endurance is not None and group.endurance <= 0

    before = {ship_id: (x, y) for ship_id, x, y in state.before}

    def fly(
        group: FighterGroup, order: FlightOrder, aim: tuple[float, float], stand_off: float = 0
    ) -> tuple[FighterGroup, bool]:
        """Fly a group at its objective, its secondary move too if ordered and allowed; a
        robot's comes first, towards where a ship objective stood before the ships moved."""
        name = group.id
        secondary = order.secondary and not spent(group)
        reach = reaches[name]
        if group.course is not None:  # spatial movement's turning limits (003 L293-323)
            reach, way = fighter_flight(group.course, aim[0] - group.x, aim[1] - group.y, reach)
            if reach == 0:
                return msgspec.structs.replace(group, course=way), False
        blind = None
        if secondary and kinds[name].robot:
            blind = before.get(order.target or group.carrier, aim)  # groups, salvos stay
        x, y, made = _flown(
            (group.x, group.y), aim, reach, stand_off, secondary=secondary, blind=blind
        )
        if group.course is not None:  # the clock point nearest its way (003 L302-304)
            course = fighter_flight(group.course, x - group.x, y - group.y, reach)[1]
            group = msgspec.structs.replace(group, course=course)
        group = msgspec.structs.replace(group, x=x, y=y)
        return (_spend(group) if made else group), made  # 1 CEF (000 L8770-8774)

    # Dogfights first: contact is measured to where the other group starts (see rulings).
    for name in sorted(groups):
        order = orders.get(name, HOLD)
        group = groups[name]
        if order.kind != "dogfight" or name in engaged:
            continue
        assert order.target is not None
        other = start[order.target]
        void = None
        moved, made = fly(group, order, (other.x, other.y))
        if spent(moved):
            void = "no combat endurance left (000 L8482-8484)"
        elif order.target in engaged:
            void = f"{order.target} is already in a dogfight"
        elif (moved.x, moved.y) != (other.x, other.y):
            void = f"{order.target} is out of reach"
        if void is None:
            engaged[name], engaged[order.target] = order.target, name
            pairs.append((name, order.target))
        groups[name] = moved
        moves.append(
            GroupMoved(
                group=name,
                order=format_flight_order(order),
                x=moved.x,
                y=moved.y,
                void=void,
                secondary=made,
            )
        )
    for name in sorted(groups):
        group = groups[name]
        order = orders.get(name, HOLD)
        if order.kind == "dogfight":
            continue
        text = format_flight_order(order)
        if name in engaged:
            moves.append(
                GroupMoved(
                    group=name,
                    order=text,
                    x=group.x,
                    y=group.y,
                    void=f"caught in a dogfight by {engaged[name]} (001 L812)",
                )
            )
            continue
        void = None
        made = False
        landed = False
        if order.kind in ("attack", "cover"):
            assert order.target is not None
            target = state.ship(order.target)
            # A missile group with its salvo aboard closes only to launch range (see rulings).
            stand_off = MISSILE_FIGHTER_RANGE_MU if order.kind == "attack" and group.salvo else 0
            group, made = fly(group, order, (target.x, target.y), stand_off)
            distance = range_between(group.x, group.y, target.x, target.y)
            if order.kind == "attack":
                contact = (group.x, group.y) == (target.x, target.y)
                if spent(group):
                    void = "no combat endurance left (000 L8482-8484)"
                elif kinds[name].shuttles and not contact:
                    # Assault shuttles must end in contact with the ship (000 L10004-10010).
                    void = f"{order.target} is out of reach (shuttles must reach its position)"
                elif group.salvo and distance <= MISSILE_FIGHTER_RANGE_MU + MU_GRAIN:
                    launching[name] = order.target
                elif group.salvo or distance > lock_on_range(ctx, state, target, FIGHTER_RANGE_MU):
                    # Its ECM keeps fighters further off (000 L7717-7721).
                    void = f"{order.target} is out of reach"
                else:
                    attacking[name] = order.target
        elif order.kind == "intercept":
            # Move up to the marker; it engages a salvo within 6 MU (000 L9297-9307), the
            # group facing it (see docs/rulings.md).
            assert order.target is not None
            salvo = next(m for m in state.salvos if m.id == order.target)
            group, made = fly(group, order, (salvo.x, salvo.y))
            if spent(group):
                void = "no combat endurance left (000 L9311-9315)"
            elif range_between(group.x, group.y, salvo.x, salvo.y) > FIGHTER_RANGE_MU:
                void = f"{order.target} is out of reach"
            else:
                intercepting[name] = order.target
        elif order.kind == "recover":
            carrier = state.ship(group.carrier)
            group, made = fly(group, order, (carrier.x, carrier.y))
            met = (group.x, group.y) == (carrier.x, carrier.y)
            bay_ok = any(s.id == group.bay and s.status == "ok" for s in carrier.record.systems)
            if carrier.status != "active":
                void = "its carrier is not in play"
            elif not bay_ok:
                void = "its bay is knocked out (001 L532-534)"
            elif not met:
                void = "the carrier is out of reach"
            elif carrier.id not in state.held:
                void = "the carrier changed course or speed (001 L761)"
            elif landed_on.get(
                into := (carrier.id, ctx.sheets[carrier.id].system(group.bay).kind == HANGAR_BAY),
                0,
            ) >= recovery_limit(ctx, carrier, group.bay):
                void = (
                    "the carrier has recovered as many groups this turn as its launch tubes "
                    "allow (000 L8536-8538)"
                    if ctx.rules.launch_tubes
                    else "the carrier has recovered a group this turn (001 L761)"
                )
            else:
                landed = True
                landed_on[into] = landed_on.get(into, 0) + 1
                recovered.add(name)
        groups[name] = group
        moves.append(
            GroupMoved(
                group=name,
                order=text,
                x=group.x,
                y=group.y,
                void=void,
                recovered=landed,
                secondary=made,
            )
        )

    # Carriers standing ready to scramble roll when enemy groups have moved in to attack them
    # (000 8.3, L8572-8685): groups in time catch an attacker before it attacks; a group
    # launched late fights one after the attack runs.
    scrambles: list[Scramble] = []
    late: list[str] = []
    for carrier_id in sorted(set(attacking.values())):
        carrier = state.ship(carrier_id)
        if not carrier.scramble or carrier.status != "active":
            continue
        carrier, scramble, launched = _scramble(ctx, state, dice, carrier)
        if scramble is None:
            continue
        scrambles.append(scramble)
        state = msgspec.structs.replace(
            replace_ship(state, carrier), fighters=state.fighters + tuple(launched)
        )
        for group in launched:
            groups[group.id] = group
            kinds[group.id] = group_type(ctx, group.carrier, group.bay)
            if scramble.late:
                late.append(group.id)
                continue
            raiders = [g for g in attacking if attacking[g] == carrier_id and g not in engaged]
            if not raiders:
                continue
            # It catches the attacker with most fighters (see docs/rulings.md).
            prey = min(raiders, key=lambda g: (-groups[g].fighters, g))
            del attacking[prey]
            engaged[group.id], engaged[prey] = prey, group.id
            pairs.append((group.id, prey))
            groups[group.id] = msgspec.structs.replace(group, x=groups[prey].x, y=groups[prey].y)
            index = next(i for i, m in enumerate(moves) if m.group == prey)
            void = f"caught by {group.id}, scrambled from {carrier_id} (000 L8653-8659)"
            moves[index] = msgspec.structs.replace(moves[index], void=void)

    # Dogfight rounds, simultaneous (001 L810, L818). Each die takes the shooter's type's
    # modifier against fighters (000 L9593-9597, L9625-9627) and -1 at heavy fighters
    # (000 L9489-9491).
    dogfights = [
        _dogfight(ctx, dice, turn, groups, kinds, name, partner) for name, partner in pairs
    ]
    reroll = ctx.rules.fighter_reroll

    # Point defence: each attacked ship's own PD, then area cover from friends within 6.
    defence: list[DefenceFire] = []
    used: set[tuple[str, str]] = set()
    one_shots: list[tuple[str, str]] = []  # scatterguns and grapeshot fired (000 7.14-7.15)
    hurt: list[tuple[int, str]] = []  # (defence die, ally) a scattergun's 1 damages
    thresholds: list[Threshold] = []
    attacked = [s for s in state.ships if s.id in attacking.values()]

    def allocate(ship: ShipInPlay, systems: list[str], victim: ShipInPlay) -> None:
        raiders = sorted(g for g, t in attacking.items() if t == victim.id)
        planned: dict[str, int] = dict.fromkeys(raiders, 0)
        plan: list[tuple[str, str]] = []
        for system in systems:
            if (ship.id, system) in used:
                continue
            alive = [g for g in raiders if groups[g].fighters > 0]
            if not alive:
                return
            # Announce every target before any die (000 L9071-9073): spread the systems so
            # each group is met by dice in proportion to its fighters.
            pick = max(alive, key=lambda g: (groups[g].fighters - 0.67 * planned[g], g))
            planned[pick] += 1
            plan.append((system, pick))
            used.add((ship.id, system))
        for system, pick in plan:
            # Point defence at heavy fighters is at -1 (000 L9489-9491).
            drm = kinds[pick].hit_drm
            spec = ctx.sheets[ship.id].system(system)
            key = f"t{turn}/pd/{ship.id}/{system}"
            roll = defence_roll(dice, key, spec.kind, reroll=reroll, drm=drm, heavy=drm < 0)
            if spec.ammo is not None:
                one_shots.append((ship.id, system))
            if spec.kind == SCATTERGUN and ship.id != victim.id and roll.faces[0] == 1:
                hurt.append((len(defence), victim.id))  # 000 L7528-7534
            defence.append(DefenceFire(ship=ship.id, system=system, group=pick, roll=roll))
            g = groups[pick]
            groups[pick] = msgspec.structs.replace(g, fighters=max(g.fighters - roll.kills, 0))

    # Carriers that launched or are recovering a group this turn cannot use their ADFC (000
    # L8721-8723).
    busy = {g.carrier for g in state.fighters if g.launching} | {
        groups[name].carrier for name in recovered
    }
    for shooter, guns, victim in area_defenders(ctx, state, attacked, busy):
        allocate(shooter, guns, victim)
    state = spend_one_shots(state, one_shots)
    for index, ally in hurt:
        key = f"t{turn}/threshold/{ally}/scattergun/{defence[index].ship}"
        state, hit = backlash(ctx, state, dice, ally, key, thresholds)
        defence[index] = msgspec.structs.replace(defence[index], backlash=hit)

    # Attack runs: one die per fighter, beam damage with screens (001 L779; 000 L9160-9166),
    # each die at the type's modifier against ships (000 L9593-9595, L9619-9625), or the
    # type's own weapon (000 8.15, :func:`_attack_run`).
    attacks: list[FighterAttack] = []
    boarded: set[str] = set()  # assault shuttle groups that made their one landing run
    for name in sorted(attacking):
        group = groups[name]
        target = state.ship(attacking[name])
        if group.fighters <= 0 or not targetable(ctx, target):
            continue
        if kinds[name].shuttles:
            # The survivors of point defence land their boarding parties, and the one-use
            # shuttles are gone (000 L9997, L10016-10032).
            attack = _landing(dice, turn, group, target)
            attacks.append(attack)
            state = board(state, target.id, group.side, parties=attack.landed)
            boarded.add(name)
            continue
        record, attack, group = _attack_run(ctx, dice, turn, group, kinds[name], target)
        hit = attack.hit
        status: ShipStatus = "destroyed" if hit.destroyed else target.status
        if not hit.destroyed:
            # Fighter damage is checked on the spot (001 L264; 000 L1053-1472 phase 10).
            for row in hit.rows:
                record, check = check_threshold(
                    ctx,
                    target,
                    record,
                    dice,
                    f"t{turn}/threshold/{target.id}/fighters/{name}/row{row}",
                    row,
                )
                thresholds.append(check)
                status = colours_struck(status, target.id, thresholds)
        attacks.append(attack)
        # A graser or plasma run costs 2 endurance (000 L9714-9716, L9754-9756), others 1.
        groups[name] = _spend(group, kinds[name].ship_cef)
        state = replace_ship(state, msgspec.structs.replace(target, record=record, status=status))

    # A group scrambled too late fights an attacker of its carrier once the attack runs are
    # over, though the attacker has fired (000 L8659-8671): one round, as ever.
    for name in late:
        carrier_id = groups[name].carrier
        raiders = [
            g
            for g in attacking
            if attacking[g] == carrier_id
            and groups[g].fighters > 0
            and g not in engaged
            and g not in boarded
        ]
        if not raiders:
            continue
        prey = min(raiders, key=lambda g: (-groups[g].fighters, g))
        engaged[name], engaged[prey] = prey, name
        groups[name] = msgspec.structs.replace(groups[name], x=groups[prey].x, y=groups[prey].y)
        dogfights.append(_dogfight(ctx, dice, turn, groups, kinds, name, prey, late=True))

    # Missile fighters launch their salvos, for 1 endurance (000 L9821-9833). The rules launch
    # in the next turn's phase 3, from where the group and the ships now stand; the salvo
    # homes after the next move, as a ship's (see docs/rulings.md).
    launches: list[SalvoLaunch] = []
    for name in sorted(launching):
        group = groups[name]
        target = state.ship(launching[name])
        aim = _fighter_salvo_aim(group, target)
        void = None
        if not targetable(ctx, target):
            void = f"{target.id} was destroyed before the launch"
        elif line_blocked((group.x, group.y), aim, asteroids_now(ctx, state)):
            void = "an asteroid lies across the line to the aim point (000 L5757-5759)"
        if void is not None:
            index = next(i for i, m in enumerate(moves) if m.group == name)
            moves[index] = msgspec.structs.replace(moves[index], void=void)
            continue
        full = ctx.sheets[group.carrier].system(group.bay).bay_capacity or group.fighters
        salvo = Salvo(
            id=salvo_id(group.carrier, group.bay, turn),
            side=group.side,
            x=aim[0],
            y=aim[1],
            launched=turn,
            lost=max(full - group.fighters, 0),  # 000 L9841-9849
        )
        state = msgspec.structs.replace(state, salvos=(*state.salvos, salvo))
        groups[name] = _spend(msgspec.structs.replace(group, salvo=False))
        launches.append(
            SalvoLaunch(
                group=name,
                target=target.id,
                salvo=salvo.id,
                x=salvo.x,
                y=salvo.y,
                lost=salvo.lost,
            )
        )

    # Groups intercept the salvos they reached, once the salvos have homed (000 L1053-1472
    # phases 7-8, L9295-9315): the kills come off the salvo with the point defence's.
    interceptions: list[Interception] = []
    intercepted: dict[str, int] = {}
    homes = salvo_targets(ctx, state)
    for name in sorted(intercepting):
        marker = intercepting[name]
        if homes.get(marker) is None:
            index = next(i for i, m in enumerate(moves) if m.group == name)
            void = f"{marker} found no ship to home on and was wasted (000 L5794-5798)"
            moves[index] = msgspec.structs.replace(moves[index], void=void)
            continue
        heavy = any(s.heavy for s in state.salvos if s.id == marker)
        group, interception = _intercept(dice, turn, groups[name], kinds[name], marker, heavy=heavy)
        groups[name] = group
        interceptions.append(interception)
        intercepted[marker] = intercepted.get(marker, 0) + interception.roll.kills

    # Recovered groups land in their bays, and under the re-arming rule roll for when they
    # may launch again (000 8.16, L10102-10121); wiped-out groups leave the table.
    rearms: list[Rearm] = []
    for name in sorted(recovered):
        group = groups[name]
        carrier = state.ship(group.carrier)
        systems = tuple(
            msgspec.structs.replace(s, fighters=(s.fighters or 0) + group.fighters)
            if s.id == group.bay
            else s
            for s in carrier.record.systems
        )
        record = msgspec.structs.replace(carrier.record, systems=systems)
        rearming = carrier.rearming
        if ctx.rules.fighter_rearming:
            face = dice.roll(f"t{turn}/rearm/{name}", 6)
            ready = relaunch_turn(face, turn)
            rearming = (*(e for e in rearming if e[0] != group.bay), (group.bay, ready))
            rearms.append(
                Rearm(group=name, face=face, ready=None if ready == NEVER_RELAUNCH else ready)
            )
        carrier = msgspec.structs.replace(carrier, record=record, rearming=rearming)
        state = replace_ship(state, carrier)
    lost = tuple(g.id for g in state.fighters if groups[g.id].fighters <= 0)
    flying = tuple(
        msgspec.structs.replace(groups[g.id], launching=False)
        for g in state.fighters
        if groups[g.id].fighters > 0 and g.id not in recovered and g.id not in boarded
    )
    state = msgspec.structs.replace(state, fighters=flying, written=(), before=())
    state, salvo_defence, salvos = salvo_attacks(
        ctx, state, dice, used, thresholds, intercepted, busy
    )
    nova: list[NovaHit] = []
    state = advance_novas(ctx, state, dice, nova, thresholds)
    state = boarder_losses(ctx, state, thresholds, 0, dice, "fighters")
    state = to_fire_phase(ctx, state, state.first)
    return state, FightersResolved(
        turn=turn,
        moves=tuple(moves),
        dogfights=tuple(dogfights),
        defence=tuple(defence),
        attacks=tuple(attacks),
        thresholds=tuple(thresholds),
        lost=lost,
        launches=tuple(launches),
        rearms=tuple(rearms),
        interceptions=tuple(interceptions),
        scrambles=tuple(scrambles),
        nova=tuple(nova),
        salvo_defence=tuple(salvo_defence),
        salvos=tuple(salvos),
    )


def _dogfight(
    ctx: BattleContext,
    dice: DiceSource,
    turn: int,
    groups: dict[str, FighterGroup],
    kinds: Mapping[str, FighterType],
    name: str,
    partner: str,
    *,
    late: bool = False,
) -> Dogfight:
    """Roll one dogfight round between the group that made contact and the group it caught,
    simultaneous (001 L810, L818), and take off the losses and the endurance in ``groups``.
    A ``late`` round follows the caught group's attack run this turn, whose endurance already
    paid for its combat (000 L8659-8671, L9319-9323)."""
    a, b = groups[name], groups[partner]
    reroll = ctx.rules.fighter_reroll
    a_drm = kinds[name].fighter_drm + kinds[partner].hit_drm
    b_drm = kinds[partner].fighter_drm + kinds[name].hit_drm
    a_roll = roll_kills(dice, f"t{turn}/dogfight/{name}", a.fighters, reroll=reroll, drm=a_drm)
    # A group caught with no endurance left kills only on 6s (000 L9346-9350).
    exhausted = b.endurance is not None and b.endurance <= 0
    b_roll = roll_kills(
        dice,
        f"t{turn}/dogfight/{partner}",
        b.fighters,
        reroll=reroll,
        drm=b_drm,
        exhausted=exhausted,
    )
    # A plasma fighter's cannon costs 2 endurance at fighters too (000 L9746-9756).
    groups[name] = _spend(
        msgspec.structs.replace(a, fighters=max(a.fighters - b_roll.kills, 0)),
        kinds[name].fighter_cef,
    )
    caught = msgspec.structs.replace(b, fighters=max(b.fighters - a_roll.kills, 0))
    groups[partner] = caught if late else _spend(caught, kinds[partner].fighter_cef)
    return Dogfight(
        attacker=name,
        defender=partner,
        attacker_roll=a_roll,
        defender_roll=b_roll,
        exhausted=exhausted,
        late=late,
    )


def _scramble_pair(ctx: BattleContext, carrier: ShipInPlay) -> int:
    """Return how many groups a scramble's 6 launches: two "if the carrier is capable of
    launching two or more groups per turn" (000 L8633-8639), else one."""
    if not ctx.rules.launch_tubes:
        return launch_limit(ctx.sheets[carrier.id], ctx.rules.carrier_bays)
    sheet = ctx.sheets[carrier.id]
    combined = sum(
        1
        for spec, now in zip(sheet.systems, carrier.record.systems, strict=True)
        if spec.bay_capacity and spec.kind != HANGAR_BAY and now.status == "ok"
    )
    return 2 if working_tubes(ctx, carrier) + combined >= 2 else 1


def scramble_bays(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> list[str]:
    """Return the bays a ship could scramble from, in the order they would go: those whose
    group is ready, then those re-arming, in record-sheet order; never a group whose re-arming
    die showed a 1 (000 L8675-8685, L10110-10114)."""
    ready = launchable_bays(ctx, state, ship)
    rearming = [
        bay
        for bay in _bays_aboard(ctx, state, ship)
        if bay not in ready and dict(ship.rearming).get(bay) != NEVER_RELAUNCH
    ]
    return ready + rearming


def _scramble(
    ctx: BattleContext, state: BattleState, dice: DiceSource, carrier: ShipInPlay
) -> tuple[ShipInPlay, Scramble | None, list[FighterGroup]]:
    """Roll a carrier's scramble at the groups attacking it (000 L8595-8649): 1 a mishap, its
    first bay that could launch damaged with its fighters; 2-3 nothing; 4 one group, late; 5
    one in time; 6 two in time if it launches two a turn. Groups ready launch first, then
    groups re-arming, with half their endurance and no one-shot weapons (L8675-8685); a group
    that may not relaunch this battle stays aboard. No group aboard: no roll."""
    candidates = scramble_bays(ctx, state, carrier)
    if not candidates:
        return carrier, None, []
    face = dice.roll(f"t{state.turn}/scramble/{carrier.id}", 6)
    if face <= SCRAMBLE_MISHAP:
        record = with_system_status(carrier.record, candidates[0], "damaged")
        carrier = msgspec.structs.replace(carrier, record=record)
        return carrier, Scramble(ship=carrier.id, face=face, mishap=candidates[0]), []
    count = {4: 1, 5: 1, 6: _scramble_pair(ctx, carrier)}
    launched: list[FighterGroup] = []
    for bay in candidates[: count.get(face, 0)]:
        rearming = not rearmed(state, carrier, bay)
        carrier, group = take_off(ctx, carrier, bay, carrier.x, carrier.y)
        if rearming:
            half = None if group.endurance is None else group.endurance // 2
            group = msgspec.structs.replace(
                group, endurance=half, torpedoes=False, mkps=False, salvo=False
            )
        launched.append(group)
    scramble = Scramble(
        ship=carrier.id,
        face=face,
        groups=tuple(g.id for g in launched),
        late=face == SCRAMBLE_LATE,
    )
    return carrier, scramble, launched


def _attack_run(
    ctx: BattleContext,
    dice: DiceSource,
    turn: int,
    group: FighterGroup,
    kind: FighterType,
    target: ShipInPlay,
) -> tuple[ShipState, FighterAttack, FighterGroup]:
    """Roll one group's attack run at a ship and cross off its damage, thresholds apart: its
    one-shot torpedoes or MKPs while aboard, else its type's ship weapon (000 8.15). Return
    the target's record, the run, and the group with any one-shot spent."""
    name = group.id
    sheet = ctx.sheets[target.id]
    screen = working_screen(ctx, target)
    reroll = ctx.rules.fighter_reroll
    faces: tuple[int, ...] = ()
    rerolls: tuple[int, ...] = ()
    damage: tuple[int, ...] = ()
    weapon: FighterWeapon = kind.ship_weapon
    if group.torpedoes:
        # Torpedo fighters fire all their pulse torpedoes at the first ship they attack, and
        # not their beams that turn (000 L9659-9680; see docs/rulings.md): one per fighter,
        # 4+ hits for its face in damage, past screens, semi-armour-piercing.
        weapon = "torpedoes"
        faces = tuple(dice.roll(f"t{turn}/torpedoes/{name}/{i}", 6) for i in range(group.fighters))
        hits = [face for face in faces if face >= TORPEDO_HITS_ON]
        record, hit = take_damage(sheet, target.record, target.id, 0, hits, 0)
        group = msgspec.structs.replace(group, torpedoes=False)
    elif group.mkps:
        # MKP fighters likewise fire all their MKPs at once, and not their secondary weapons
        # that turn (000 L9768-9794): one per fighter, 4+ one hit, 6 two, 4 points each,
        # armour piercing, past screens, no re-roll (000 L5056-5066).
        weapon = "mkps"
        faces = tuple(dice.roll(f"t{turn}/mkps/{name}/{i}", 6) for i in range(group.fighters))
        piercing = [MKP_DAMAGE] * sum(mkp_hits(face) for face in faces)
        record, hit = take_damage(sheet, target.record, target.id, 0, (), 0, piercing)
        group = msgspec.structs.replace(group, mkps=False)
    elif weapon == "graser":
        # "6 BD* hits with the Graser ... each hit inflicting 1d3 damage, semi-AP" (000
        # L9700-9706): by default each fighter rolls a Graser-1's BD* die against the screens
        # and each point it scores is a hit of 1d3 SAP; re-rolled hits ignore armour like any
        # beam re-roll (000 L3966-3994; see docs/rulings.md, and the ``graser_fighters`` rule).
        key = f"t{turn}/graser/{name}"
        if ctx.rules.graser_fighters == "one_hit_each":
            hits_first, hits_rerolled = group.fighters, 0
        else:
            outcome = roll_beams(
                dice, key, group.fighters, screen, reroll=reroll, drm=kind.ship_drm
            )
            faces, rerolls = tuple(outcome.faces), tuple(outcome.rerolls)
            hits_first, hits_rerolled = outcome.screened_damage, outcome.reroll_damage
        damage = tuple(dice.roll(f"{key}/damage/{i}", 3) for i in range(hits_first + hits_rerolled))
        first, rerolled = damage[:hits_first], sum(damage[hits_first:])
        record, hit = take_damage(sheet, target.record, target.id, 0, first, rerolled)
    else:
        # BD* beams, or plasma dice: the face less 2 and the screens in hits of 1, a natural
        # 6 re-rolling and penetrating (000 L9730-9734, L3924-3932).
        plasma = weapon == "plasma"
        outcome = roll_beams(
            dice,
            f"t{turn}/{'plasma' if plasma else 'fighters'}/{name}",
            group.fighters,
            screen,
            reroll=reroll,
            drm=kind.ship_drm,
            score=score_plasma_die if plasma else score_beam_die,
        )
        faces, rerolls = tuple(outcome.faces), tuple(outcome.rerolls)
        record, hit = take_damage(
            sheet, target.record, target.id, outcome.screened_damage, (), outcome.reroll_damage
        )
    attack = FighterAttack(
        group=name,
        target=target.id,
        faces=faces,
        rerolls=rerolls,
        hit=hit,
        torpedoes=weapon == "torpedoes",
        weapon=weapon,
        damage=damage,
    )
    return record, attack, group


def _landing(dice: DiceSource, turn: int, group: FighterGroup, target: ShipInPlay) -> FighterAttack:
    """Roll an assault shuttle group's landing on a ship (000 L10016-10026): a D6 for each
    shuttle left after point defence, each 3+ landing one boarding party from the carrier's
    crew, each failure a casualty. Screens do not stop them; the engine has no advanced screens,
    which would (see docs/rulings.md). Keys ``t<turn>/shuttles/<group>/<i>``."""
    faces = tuple(dice.roll(f"t{turn}/shuttles/{group.id}/{i}", 6) for i in range(group.fighters))
    return FighterAttack(
        group=group.id,
        target=target.id,
        faces=faces,
        hit=Hit(target=target.id, damage=0, to_armour=0, to_hull=0),
        weapon="shuttles",
        landed=sum(1 for face in faces if face >= SHUTTLE_LANDS_ON),
    )


def _fighter_salvo_aim(group: FighterGroup, target: ShipInPlay) -> tuple[float, float]:
    """Return where a missile fighter group aims its salvo: where its target will be after one
    more move on its course and speed, since the salvo homes after the ships move (000
    L5778-5786), brought in to 24 MU of the group if it lies further (000 L5749-5751)."""
    dx, dy = velocity(target)
    lead_x, lead_y = round_mu(target.x + dx), round_mu(target.y + dy)
    x, y, _ = _towards(group.x, group.y, lead_x, lead_y, STANDARD_RANGE_MU)
    return x, y


def _intercept(
    dice: DiceSource,
    turn: int,
    group: FighterGroup,
    kind: FighterType,
    salvo: str,
    *,
    heavy: bool = False,
) -> tuple[FighterGroup, Interception]:
    """Roll a group's interception of a salvo (000 L9295-9315, L5859-5861, L5913-5917): a die
    per fighter at its type's modifier against missiles, then a D6 for each missile killed,
    each 6 losing a fighter; 1 endurance spent (000 L9319-9323). At a ``heavy`` missile each
    fighter's die kills it on a 6 (000 L5901-5903), once."""
    key = f"t{turn}/intercept/{group.id}"
    if heavy:
        faces = tuple(dice.roll(f"{key}/{i}", 6) for i in range(group.fighters))
        killed = any(face + kind.fighter_drm >= HEAVY_KILLED_BY_FIGHTER for face in faces)
        roll = KillRoll(faces=faces, kills=int(killed))
    else:
        roll = roll_missile_kills(dice, key, group.fighters, drm=kind.fighter_drm)
    losses = tuple(dice.roll(f"{key}/loss/{i}", 6) for i in range(roll.kills))
    lost = min(sum(1 for face in losses if face >= INTERCEPT_LOSS_ON), group.fighters)
    group = _spend(msgspec.structs.replace(group, fighters=group.fighters - lost))
    return group, Interception(group=group.id, salvo=salvo, roll=roll, losses=losses, lost=lost)
