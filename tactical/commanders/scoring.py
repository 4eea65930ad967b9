"""What every commander shares: the :class:`Commander` it is, :func:`play`, and the scoring
of targets and shots: who is in reach, what each gun would roll on whom (:class:`Forecast`),
focused fire on the targets nearest to destruction, salvos, boarding torpedoes and the nova
cannon's line; the doctrine for repairs and boarding actions (000 12.7, 5.18), and the
fighters' posture (:func:`posture_flight`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import msgspec

from tactical.battle import (
    AFT,
    DRIVE,
    NEEDLE,
    NEEDLES,
    NOVA,
    NOVA_LINE,
    SUBMUNITION,
    TORPEDOES,
    Battle,
    BattleContext,
    BattleState,
    ShipInPlay,
    Shot,
    StepKind,
    assault_on,
    boarders_aboard,
    fire_controls,
    fire_options,
    firecons_taken,
    flight_options,
    flight_targets,
    free_parties,
    group_reach,
    group_type,
    launch_options,
    launch_problem,
    launchable_bays,
    needle_aims,
    needle_focus_problem,
    repair_jobs,
    salvo_targets,
    ships_to_fire,
    side_view,
    sides_to_assault,
    sides_to_fly,
    sides_to_repair,
    sides_to_repel,
    sides_to_write,
)
from tactical.boarding import (
    BOARDING_TORPEDO,
    DCP_MOST,
    Assault,
    Guard,
    assault_doctrine,
    defending_marines,
    guard_doctrine,
    torpedo_feeds,
)
from tactical.dice import DiceSource
from tactical.fighters import (
    FIGHTER_RANGE_MU,
    HOLD,
    MISSILE_FIGHTER_RANGE_MU,
    MISSILE_KILL_ON,
    SCATTERGUN,
    SECONDARY_MOVE_MU,
    FighterGroup,
    FighterType,
    FlightOrder,
)
from tactical.fire import (
    BAND_MU,
    BEAM_STRENGTH,
    NOVA_ARMING_MU,
    NOVA_STAGES,
    OVERLOAD,
    TORPEDO_BANDS_MU,
    TORPEDO_SETTINGS,
    arc_of,
    bearing,
    is_beam,
    line_blocked,
    nova_touches,
    range_between,
)
from tactical.missiles import (
    RACKS,
    SALVO_AIM,
    STAGE_MAX_MU,
    STAGE_MIN_MU,
    feeds,
    first_stage_aim,
    flight_aim,
    format_aim,
    launch_range,
    multi_stage,
    parse_aim,
)
from tactical.movement import MoveResult, Order, format_order, heading_vector
from tactical.repair import MAX_PARTIES_PER_JOB
from tactical.ship import hull_remaining

Jobs = dict[str, dict[str, int]]
"""Damage-control jobs: ship id to {system id or ``"drive"``: parties}."""


Assaults = dict[str, Assault]
"""A side's boarders' allocation: boarded ship id to the boarders that engage its marines."""


Guards = dict[str, tuple[Guard, ...]]
"""A side's defence against boarders: its boarded ship id to the guards it puts on them."""


Flight = dict[str, FlightOrder]
"""Flight orders: group id to its order."""


Posture = str
"""What a commander does with fighters: ``attack``, ``defend`` or ``recover``."""


LAUNCH_RANGE_MU = 48.0  # launch once an enemy is this close: two fighter moves and a bit


HOME_FIGHTERS = 2  # a group down to this many fighters comes home


REPAIR_FIRST: dict[str, int] = {"power_core": 0, "life_support": 1, "bridge": 2, DRIVE: 3}
"""Damage control's order: a damaged power core may blow the ship up at the end of this turn
(000 L11207-11211), a failed life support loses it in a few (L11189-11193), the bridge gives
back control (L11161-11171); then the drive, then systems in record-sheet order."""


def greedy_repairs(ctx: BattleContext, state: BattleState, side: str) -> Jobs:
    """Put parties on the core systems out (:data:`REPAIR_FIRST`), then the drive, then on
    systems in record-sheet order, three a job."""
    jobs: Jobs = {}
    for ship in state.ships:
        if ship.side != side or not repairable(ctx, ship):
            continue
        left = free_parties(ctx, ship)
        work: dict[str, int] = {}
        targets = repair_jobs(ctx, ship)
        for target in sorted(targets, key=lambda t: REPAIR_FIRST.get(t, len(REPAIR_FIRST))):
            if left <= 0:
                break
            work[target] = min(MAX_PARTIES_PER_JOB, left)
            left -= work[target]
        jobs[ship.id] = work
    return jobs


def repairable(ctx: BattleContext, ship: ShipInPlay) -> bool:
    return ship.status == "active" and bool(repair_jobs(ctx, ship)) and free_parties(ctx, ship) > 0


def boarded(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """A ship that fights the boarders aboard it this turn: in play with hull left."""
    return (
        bool(ship.boarders)
        and ship.status == "active"
        and hull_remaining(ctx.sheets[ship.id], ship.record) > 0
    )


def doctrine_assaults(ctx: BattleContext, state: BattleState, side: str) -> Assaults:
    """Allot the side's boarders aboard each enemy ship with marines by the worked example's
    doctrine (:func:`tactical.boarding.assault_doctrine`, 000 L13178-13182)."""
    assaults: Assaults = {}
    for ship in state.ships:
        if ship.side == side or not boarded(ctx, ship):
            continue
        defenders = len(defending_marines(ctx.sheets[ship.id], ship.record))
        if defenders:
            assaults[ship.id] = assault_doctrine(*boarders_aboard(ship), defenders)
    return assaults


def doctrine_repel(ctx: BattleContext, state: BattleState, side: str) -> Guards:
    """Defend each of the side's boarded ships by the worked example's doctrine
    (:func:`tactical.boarding.guard_doctrine`, 000 L13184-13190) with every DCP it has free:
    boarders left aboard take the ship, so they come before repairs."""
    guards: Guards = {}
    for ship in state.ships:
        if ship.side != side or not boarded(ctx, ship):
            continue
        marines, parties = boarders_aboard(ship)
        defenders = len(defending_marines(ctx.sheets[ship.id], ship.record))
        assault = assault_on(state, ship)
        guards[ship.id] = guard_doctrine(
            marines, parties, assault, free_parties(ctx, ship), defenders
        )
    return guards


def wants_home(ctx: BattleContext, group: FighterGroup, posture: Posture) -> bool:
    if posture == "recover":
        return True
    armed = group.torpedoes or group.mkps or group.salvo or _kind(ctx, group).shuttles
    if armed and (group.endurance is None or group.endurance > 0):
        return False  # one-shot weapons aboard and the endurance to fire them (000 8.15)
    spent = group.endurance is not None and group.endurance <= 1
    return spent or group.fighters <= HOME_FIGHTERS


def posture_flight(posture: Posture) -> Callable[[BattleContext, BattleState, str], Flight]:
    """Return flight orders for a posture: ``attack`` flies at the nearest enemy ship,
    ``defend`` dogfights enemy groups in reach, sends a missile group with its salvo aboard at
    the nearest enemy ship it can launch at, and otherwise covers the nearest friend,
    ``recover`` calls every group home; any group low on fighters or endurance comes home,
    unless it still carries one-shot weapons it can fire."""

    def flight(ctx: BattleContext, state: BattleState, side: str) -> Flight:
        orders = plan(ctx, state, side)
        if not ctx.rules.fighter_secondary_move:
            return orders
        groups = {g.id: g for g in state.fighters}
        return {g: _with_secondary(ctx, state, groups[g], o) for g, o in orders.items()}

    def plan(ctx: BattleContext, state: BattleState, side: str) -> Flight:
        orders: Flight = {}
        interceptors = {} if posture == "recover" else _interceptors(ctx, state, side)
        for group in state.fighters:
            if group.side != side:
                continue
            reach = group_reach(ctx, group)  # fast fighters fly further (000 L9525-9527)
            targets = flight_targets(ctx, state, group)
            carrier = state.ship(group.carrier)
            if wants_home(ctx, group, posture) and carrier.status == "active":
                orders[group.id] = FlightOrder(kind="recover")
                continue
            if group.id in interceptors:
                orders[group.id] = FlightOrder(kind="intercept", target=interceptors[group.id])
                continue

            def near(x: float, y: float, g: FighterGroup = group) -> float:
                return range_between(g.x, g.y, x, y)

            ships = {s.id: s for s in state.ships}
            groups = {g.id: g for g in state.fighters}
            raiders = [t for t in targets.dogfight if near(groups[t].x, groups[t].y) <= reach]
            # A missile group launches from 12 MU off (000 L9810-9817), so it strikes from
            # defence too at a ship it can close on this turn.
            salvo_reach = reach + MISSILE_FIGHTER_RANGE_MU
            standoff = [t for t in targets.attack if near(ships[t].x, ships[t].y) <= salvo_reach]
            if posture == "defend" and raiders:
                pick = min(raiders, key=lambda t: (near(groups[t].x, groups[t].y), t))
                orders[group.id] = FlightOrder(kind="dogfight", target=pick)
            elif posture == "defend" and group.salvo and standoff:
                pick = min(standoff, key=lambda t: (near(ships[t].x, ships[t].y), t))
                orders[group.id] = FlightOrder(kind="attack", target=pick)
            elif posture == "attack" and targets.attack:
                pick = min(targets.attack, key=lambda t: (near(ships[t].x, ships[t].y), t))
                if _kind(ctx, group).shuttles:
                    pick = _shuttle_target(ctx, state, group, targets.attack) or pick
                orders[group.id] = FlightOrder(kind="attack", target=pick)
            elif targets.cover:
                pick = min(targets.cover, key=lambda t: (near(ships[t].x, ships[t].y), t))
                orders[group.id] = FlightOrder(kind="cover", target=pick)
            else:
                orders[group.id] = HOLD
        return orders

    return flight


def _shuttle_target(
    ctx: BattleContext, state: BattleState, group: FighterGroup, targets: Sequence[str]
) -> str | None:
    """Pick the enemy ship an assault shuttle group lands on (000 L9997-10032): of those it can
    reach this turn (with a secondary move if the rules have them and it has the endurance),
    the one with fewest defenders, working marines and free DCPs, then the nearest; ``None``
    if it reaches none, and it flies at the nearest."""
    reach = group_reach(ctx, group)
    if ctx.rules.fighter_secondary_move and (group.endurance is None or group.endurance >= 2):
        reach += SECONDARY_MOVE_MU

    def rank(target_id: str) -> tuple[int, float, str]:
        target = state.ship(target_id)
        marines = len(defending_marines(ctx.sheets[target_id], target.record))
        distance = range_between(group.x, group.y, target.x, target.y)
        return (marines + free_parties(ctx, target), distance, target_id)

    ranked = sorted(targets, key=rank)
    reachable = [t for t in ranked if range_between(group.x, group.y, *_xy(state, t)) <= reach]
    return reachable[0] if reachable else None


def _with_secondary(
    ctx: BattleContext, state: BattleState, group: FighterGroup, order: FlightOrder
) -> FlightOrder:
    """Add a secondary move (``+``, 1 CEF, 000 L8760-8774) to an order whose objective lies
    beyond the group's move but within 12 MU more, when the group keeps the endurance to do
    what it goes for: 1 left after the move to attack, dogfight or intercept, none to land.
    Covering a friend is never worth it."""
    aims: dict[str, tuple[float, float, float]] = {}
    ships = {s.id: s for s in state.ships}
    if order.kind == "attack" and order.target in ships:
        stand_off = MISSILE_FIGHTER_RANGE_MU if group.salvo else FIGHTER_RANGE_MU
        if _kind(ctx, group).shuttles:
            stand_off = 0.0  # assault shuttles must reach the ship (000 L10004-10010)
        aims["attack"] = (ships[order.target].x, ships[order.target].y, stand_off)
    elif order.kind == "recover" and group.carrier in ships:
        aims["recover"] = (ships[group.carrier].x, ships[group.carrier].y, 0.0)
    elif order.kind == "dogfight":
        other = next((g for g in state.fighters if g.id == order.target), None)
        if other is not None:
            aims["dogfight"] = (other.x, other.y, 0.0)
    elif order.kind == "intercept":
        salvo = next((m for m in state.salvos if m.id == order.target), None)
        if salvo is not None:
            aims["intercept"] = (salvo.x, salvo.y, FIGHTER_RANGE_MU)
    if order.kind not in aims:
        return order
    x, y, stand_off = aims[order.kind]
    needed = range_between(group.x, group.y, x, y) - stand_off
    reach = group_reach(ctx, group)
    keep = 1 if order.kind == "recover" else 2
    endurance_ok = group.endurance is None or group.endurance >= keep
    if not (reach < needed <= reach + SECONDARY_MOVE_MU and endurance_ok):
        return order
    before = {ship: (bx, by) for ship, bx, by in state.before}
    blind = before.get(order.target or group.carrier) if _kind(ctx, group).robot else None
    if blind is not None:
        # A robot's secondary move goes first, towards where the ship stood before it moved
        # (000 L10070-10078): worth it only if its move then reaches.
        gap = range_between(group.x, group.y, *blind)
        step = min(SECONDARY_MOVE_MU, gap) / gap if gap else 0.0
        sx, sy = group.x + (blind[0] - group.x) * step, group.y + (blind[1] - group.y) * step
        if range_between(sx, sy, x, y) - stand_off > reach:
            return order
    return msgspec.structs.replace(order, secondary=True)


def _kind(ctx: BattleContext, group: FighterGroup) -> FighterType:
    """The fighter type a group plays (000 8.15)."""
    return group_type(ctx, group.carrier, group.bay)


def _interceptors(ctx: BattleContext, state: BattleState, side: str) -> dict[str, str]:
    """Pick a group to intercept each enemy salvo that will home on one of the side's ships
    (000 L9295-9315): the nearest that can reach it, may intercept, has endurance and can kill
    a missile at all (a -2 type's dice never reach the 5 it needs, 000 L5859-5861)."""
    chosen: dict[str, str] = {}
    threats = salvo_targets(ctx, state)
    for salvo in sorted(state.salvos, key=lambda s: s.id):
        if salvo.side == side or threats.get(salvo.id) is None:
            continue
        able = [
            g
            for g in state.fighters
            if g.side == side
            and g.id not in chosen
            and not wants_home(ctx, g, "defend")
            and salvo.id in flight_targets(ctx, state, g).intercept
            and _kind(ctx, g).fighter_drm + 6 >= MISSILE_KILL_ON
            and range_between(g.x, g.y, salvo.x, salvo.y) <= group_reach(ctx, g) + FIGHTER_RANGE_MU
        ]
        if able:
            pick = min(able, key=lambda g: (range_between(g.x, g.y, salvo.x, salvo.y), g.id))
            chosen[pick.id] = salvo.id
    return chosen


WriteOrders = Callable[[BattleContext, BattleState, str], dict[str, Order]]
"""A commander's movement orders for one side: (context, its view, side) -> ship id -> order."""


class Commander:
    """A side's choices: the orders it writes, the firing turns it takes, its repairs, the
    flight orders of its fighter groups, and its boarding allocations: its boarders' assaults
    and its guards against enemy boarders (the worked example's doctrine unless given).

    Whatever ``orders`` writes, a ship out of control (core systems) is left out: it keeps its
    course and speed whatever it is told (000 L11151-11157), so no order is written for it.
    """

    def __init__(
        self,
        orders: WriteOrders,
        fire: Callable[[BattleContext, BattleState, str], tuple[str, list[Shot]]],
        repairs: Callable[[BattleContext, BattleState, str], Jobs] = greedy_repairs,
        flight: Callable[[BattleContext, BattleState, str], Flight] | None = None,
        assaults: Callable[[BattleContext, BattleState, str], Assaults] = doctrine_assaults,
        repel: Callable[[BattleContext, BattleState, str], Guards] = doctrine_repel,
    ) -> None:
        self.orders = _in_control(orders)
        self.fire = fire
        self.repairs = repairs
        self.flight = flight or posture_flight("attack")
        self.assaults = assaults
        self.repel = repel


def _in_control(
    orders: WriteOrders,
) -> WriteOrders:
    """Leave out the orders for the side's ships out of control (000 L11151-11157)."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        adrift = {ship.id for ship in state.ships if ship.record.out_of_control}
        if not adrift:
            return written
        return {ship_id: order for ship_id, order in written.items() if ship_id not in adrift}

    return wrapped


def fed_launches(
    ctx: BattleContext, state: BattleState, ship_id: str, launches: list[Shot]
) -> list[Shot]:
    """Keep the launches, in order, whose magazines hold a load for each (000 L6056-6058)."""
    return _within_loads(state, ship_id, launches, feeds(ctx.sheets[ship_id]))


def _within_loads(
    state: BattleState, ship_id: str, shots: list[Shot], fed: Mapping[str, str]
) -> list[Shot]:
    """Keep the shots, in order, but those of a launcher ``fed`` by a magazine empty by then:
    each shot spends a load."""
    if not fed:
        return list(shots)  # no launcher fed by a magazine: every shot kept
    loads = {s.id: s.ammo or 0 for s in state.ship(ship_id).record.systems}
    kept: list[Shot] = []
    for shot in shots:
        magazine = fed.get(shot.weapon)
        if magazine is not None:
            if loads[magazine] <= 0:
                continue
            loads[magazine] -= 1
        kept.append(shot)
    return kept


RACK_CLOSE_MU = 24.0  # a one-shot rack waits for a target forecast this close (half ER range)


def torpedoes_fed(
    ctx: BattleContext, state: BattleState, ship_id: str, shots: list[Shot]
) -> list[Shot]:
    """Keep the shots, in order, but the boarding torpedoes whose magazine is empty by then:
    each shot spends a torpedo (000 L5090-5100)."""
    return _within_loads(state, ship_id, shots, torpedo_feeds(ctx.sheets[ship_id]))


def salvo_shots(ctx: BattleContext, state: BattleState, ship_id: str) -> list[Shot]:
    """Launch every ready salvo at one aim point: where the enemy it can reach with the least
    hull left will be after flying straight on next turn, since the salvo homes after the
    ships move (000 L5778-5786); one FireCon directs them all (000 L5769-5773).

    A one-shot rack waits for a target within :data:`RACK_CLOSE_MU`, less likely to fly out
    of the salvo's radius. Multi-stage missiles launch 16-24 MU toward an enemy within two
    stages' reach when no other launcher has a target, and the markers waiting for their
    second stage fly on (:func:`flight_shots`).
    """
    return flight_shots(state, ship_id) + _salvo_launches(ctx, state, ship_id)


def flight_shots(state: BattleState, ship_id: str) -> list[Shot]:
    """Fly each multi-stage marker the ship launched that waits for its second stage at the
    enemy nearest it, where that enemy will be after flying straight on next turn, as near as
    16 to 24 MU within its front arc allows (000 L6267-6285); none in the ship's sight, on
    along its facing."""
    shots: list[Shot] = []
    ship = state.ship(ship_id)
    for marker_id in flight_options(state, ship_id):
        salvo = next(s for s in state.salvos if s.id == marker_id)
        forecasts = []
        for enemy in enemies_of(state, ship.side):
            dx, dy = heading_vector(enemy.course)
            x, y = enemy.x + dx * enemy.speed, enemy.y + dy * enemy.speed
            forecasts.append((range_between(salvo.x, salvo.y, x, y), enemy.id, x, y))
        if forecasts:
            _distance, _enemy, x, y = min(forecasts)
        else:
            dx, dy = heading_vector(salvo.course)
            x, y = salvo.x + dx * 24, salvo.y + dy * 24
        shots.append(Shot(marker_id, SALVO_AIM, format_aim(*flight_aim(salvo, x, y))))
    return shots


def _salvo_launches(ctx: BattleContext, state: BattleState, ship_id: str) -> list[Shot]:
    """:func:`salvo_shots`' launches."""
    launchers = launch_options(ctx, state, ship_id)
    ship = state.ship(ship_id)
    if not launchers or fire_controls(ctx, ship) < 1:
        return []
    sheet = ctx.sheets[ship_id]
    single = [w for w in launchers if not multi_stage(sheet, w)]
    # The furthest any of them may aim (launch_problem refuses an aim point beyond a
    # launcher's reach first), and whether any multi-stage missile is left for
    # _staged_launches to weigh: enemies out of reach are passed over without asking.
    reach = max((launch_range(sheet, w)[0] for w in single), default=-1.0)
    staging = len(single) < len(launchers)
    enemies = sorted(
        enemies_of(state, ship.side),
        key=lambda e: (hull_remaining(ctx.sheets[e.id], e.record), e.id),
    )
    for enemy in enemies:
        dx, dy = heading_vector(enemy.course)
        x, y = enemy.x + dx * enemy.speed, enemy.y + dy * enemy.speed
        aim = format_aim(x, y)
        distance = range_between(ship.x, ship.y, enemy.x, enemy.y)
        near = distance <= RACK_CLOSE_MU
        point = parse_aim(aim)
        ready = (
            [
                w
                for w in single
                if launch_problem(ctx, state, ship_id, w, aim) is None
                and (near or sheet.system(w).kind not in RACKS)
            ]
            if point is not None and range_between(ship.x, ship.y, *point) <= reach
            else []
        )
        if ready:
            return fed_launches(ctx, state, ship_id, [Shot(w, SALVO_AIM, aim) for w in ready])
        staged = _staged_launches(ctx, state, ship_id, launchers, enemy) if staging else []
        if staged:
            return fed_launches(ctx, state, ship_id, staged)
    return []


def _staged_launches(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    launchers: Sequence[str],
    enemy: ShipInPlay,
) -> list[Shot]:
    """Launch the multi-stage missiles at an enemy: at its place next turn if that lies 16-24
    MU off, else, if its place in two turns lies within both stages' 48 MU (000 L6247-6249),
    16-24 MU toward it, about 20 MU short, for the second stage to fly on (000 L6253-6277)."""
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    staged = [w for w in launchers if multi_stage(sheet, w)]
    if not staged:
        return []
    dx, dy = heading_vector(enemy.course)
    aim = format_aim(enemy.x + dx * enemy.speed, enemy.y + dy * enemy.speed)
    direct = [w for w in staged if launch_problem(ctx, state, ship_id, w, aim) is None]
    if direct:
        return [Shot(w, SALVO_AIM, aim) for w in direct]
    x, y = enemy.x + 2 * dx * enemy.speed, enemy.y + 2 * dy * enemy.speed
    distance = range_between(ship.x, ship.y, x, y)
    if not STAGE_MIN_MU < distance <= 2 * STAGE_MAX_MU:
        return []
    short = max(distance - (STAGE_MIN_MU + STAGE_MAX_MU) / 2, STAGE_MIN_MU) / distance
    point = (ship.x + (x - ship.x) * short, ship.y + (y - ship.y) * short)
    first = format_aim(*first_stage_aim(ship.x, ship.y, *point))
    return [
        Shot(w, SALVO_AIM, first)
        for w in staged
        if launch_problem(ctx, state, ship_id, w, first) is None
    ]


def enemies_in(state: BattleState, options: Mapping[str, Sequence[str]]) -> set[str]:
    """The targets the options reach, captured ships left out: the campaign gains nothing
    from a prize (docs/rulings.md, "Tactical: boarding")."""
    reached = {t for targets in options.values() for t in targets}  # each looked up once
    return {t for t in reached if state.ship(t).status != "captured"}


def within_firecons(
    ctx: BattleContext, state: BattleState, ship_id: str, shots: list[Shot]
) -> list[Shot]:
    """Keep the shots, in order, that the ship's FireCons can direct (001 L380, L829), and
    that keep its class-N needles beyond 12 MU on one system (000 L4525-4529).

    Torpedoes need a FireCon of their own, so a caller lists them first where they matter
    most: at 6" a torpedo averages 2.3 damage against any screens, a C battery 0.7 at best.
    """
    limit = fire_controls(ctx, state.ship(ship_id))
    sheet = ctx.sheets[ship_id]
    kinds = {shot.weapon: sheet.system(shot.weapon).kind for shot in shots}  # read once
    kept: list[Shot] = []
    for shot in shots:
        more = [*kept, shot]
        if firecons_taken(kinds, more) <= limit and (
            needle_focus_problem(ctx, state, ship_id, more) is None
        ):
            kept.append(shot)
    return kept


def aimed(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    options: dict[str, tuple[str, ...]],
    chosen: Sequence[str],
) -> list[Shot]:
    """Aim every weapon at the first chosen target it reaches, torpedoes first, within the
    ship's FireCons. An overloaded torpedo reaching no chosen target aims at the nearest it
    reaches, and comes first of all: held, it is ejected (000 L4718-4724)."""
    sheet = ctx.sheets[ship_id]
    here = state.ship(ship_id)
    overloaded = {weapon for weapon, setting in here.settings if setting == OVERLOAD}
    shots: list[Shot] = []
    keep_scatterguns: bool | None = None  # ordnance_threat, worked out for a scattergun
    for weapon, reach in options.items():
        targets = reach
        kind = sheet.system(weapon).kind
        if kind == SCATTERGUN and keep_scatterguns is None:
            keep_scatterguns = ordnance_threat(ctx, state, here.side)
        if kind == SCATTERGUN and keep_scatterguns:
            continue
        if kind == SUBMUNITION:  # one shot: keep it for all 3 dice
            targets = tuple(
                t for t in reach if range_between(here.x, here.y, *_xy(state, t)) <= PACK_CLOSE
            )
        near = [t for t in chosen if t in targets]
        if kind == BOARDING_TORPEDO:  # a torpedo a shot: keep them for the close targets
            near = _boarding_targets(ctx, state, here, near)
        target = near[0] if near else None
        if target is None and weapon in overloaded:
            target = min(targets, key=lambda t: (range_between(here.x, here.y, *_xy(state, t)), t))
        if target is None:
            continue
        needle = sheet.system(weapon).kind in NEEDLES
        aim = _needle_aim(ctx, state, target) if needle else None
        if not needle or aim is not None:
            shots.append(Shot(weapon, target, aim))
    # Torpedoes first, needles last: a needle's 1 in 6 is worth less than a beam's dice. A
    # class-N needle's dice score like a beam's past screens (000 L4558-4580): with the beams.
    rank = {**dict.fromkeys(TORPEDOES, 0), NEEDLE: 2}
    shots.sort(
        key=lambda shot: (
            -1 if shot.weapon in overloaded else rank.get(sheet.system(shot.weapon).kind, 1)
        )
    )
    return torpedoes_fed(ctx, state, ship_id, within_firecons(ctx, state, ship_id, shots))


def ordnance_threat(ctx: BattleContext, state: BattleState, side: str) -> bool:
    """Whether the enemy still has fighters or missiles to stop: a group or a salvo in flight,
    a launcher ready or a group aboard ready to launch. A one-shot scattergun kills a D6 of
    them (000 L7518-7524) but does one BD* to a ship (L7536-7540): Engage keeps it for them
    while any are left."""
    if any(g.side != side for g in state.fighters) or any(s.side != side for s in state.salvos):
        return True
    return any(
        launch_options(ctx, state, enemy.id) or launchable_bays(ctx, state, enemy)
        for enemy in enemies_of(state, side)
    )


def overload_ready(ctx: BattleContext, state: BattleState, ship_id: str) -> bool:
    """Whether the ship has an overloaded torpedo with a target in reach: it fires before its
    friends, who might destroy that target, since a torpedo held is ejected (000 L4718-4724)."""
    ship = state.ship(ship_id)
    if not any(setting == OVERLOAD for _, setting in ship.settings):
        return False
    options = fire_options(ctx, state, ship_id)
    return any(setting == OVERLOAD and weapon in options for weapon, setting in ship.settings)


PACK_CLOSE = 6.0  # a submunition pack rolls 3 dice to 6" (001 L860); Engage saves it for that


BOARDING_CLOSE_MU = 12.0
"""A boarding torpedo hits on 3+ to 12 MU (the projectile table, 000 L5118-5122, L20332-20362):
Engage fires its magazine's torpedoes no further."""


def _boarding_targets(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, targets: Sequence[str]
) -> list[str]:
    """Order the targets within :data:`BOARDING_CLOSE_MU` by how well boarders may take
    them: ships the side's boarders are already aboard first (the more the better), then the
    least hull left and defenders to get through, each defending marine counted twice and
    three DCPs as a marine (000 L12997-13035), the id breaking ties."""

    def rank(target_id: str) -> tuple[int, float, str]:
        target = state.ship(target_id)
        ours = sum(b.count for b in target.boarders if b.side == ship.side)
        sheet = ctx.sheets[target_id]
        marines = len(defending_marines(sheet, target.record))
        defence = 2 * marines + 2 * free_parties(ctx, target) / DCP_MOST
        return (-ours, hull_remaining(sheet, target.record) + defence, target_id)

    near = [
        t for t in targets if range_between(ship.x, ship.y, *_xy(state, t)) <= BOARDING_CLOSE_MU
    ]
    return sorted(near, key=rank)


def _xy(state: BattleState, ship_id: str) -> tuple[float, float]:
    ship = state.ship(ship_id)
    return ship.x, ship.y


def _needle_aim(ctx: BattleContext, state: BattleState, target_id: str) -> str | None:
    """Aim a needle where a kill silences the most: a lone FireCon (001 L380), else the
    heaviest working gun, else the drive."""
    aims = needle_aims(ctx, state, target_id)
    sheet = ctx.sheets[target_id]
    kinds = {spec.id: spec.kind for spec in sheet.systems}
    firecons = [a for a in aims if kinds.get(a) == "firecon"]
    if len(firecons) == 1:
        return firecons[0]
    guns = [a for a in aims if kinds.get(a) in BEAM_STRENGTH or kinds.get(a) in TORPEDOES]
    if guns:
        # A torpedo (1D6 a hit) ranks with an A battery (3 dice close in).
        return max(guns, key=lambda a: (BEAM_STRENGTH.get(kinds[a], 3), a))
    if DRIVE in aims:
        return DRIVE
    return aims[0] if aims else None


def play(battle: Battle, commanders: dict[str, Commander], dice: DiceSource) -> Battle:
    """Play a battle to its end with one commander per side and the given dice. Each
    commander decides from its side's view only, context and state (:func:`side_view`): the
    other side's orders stay secret, unidentified ships are contacts, and enemy record sheets
    are what its side knows of them."""
    while True:
        step = battle.step()
        if step.kind == StepKind.TERMINAL:
            return battle
        if step.kind == StepKind.SIMULTANEOUS and step.phase == "repair":
            for side in sides_to_repair(battle.ctx, battle.state):
                jobs = commanders[side].repairs(*side_view(battle.ctx, battle.state, side), side)
                battle.repair(side, jobs, dice)
        elif step.kind == StepKind.SIMULTANEOUS and step.phase == "assault":
            for side in sides_to_assault(battle.ctx, battle.state):
                seen = side_view(battle.ctx, battle.state, side)
                battle.assault(side, commanders[side].assaults(*seen, side))
        elif step.kind == StepKind.SIMULTANEOUS and step.phase == "repel":
            for side in sides_to_repel(battle.ctx, battle.state):
                seen = side_view(battle.ctx, battle.state, side)  # the assaults are open now
                battle.repel(side, commanders[side].repel(*seen, side), dice)
        elif step.kind == StepKind.SIMULTANEOUS and step.phase == "flight":
            for side in sides_to_fly(battle.ctx, battle.state):
                seen = side_view(battle.ctx, battle.state, side)
                battle.fly(side, commanders[side].flight(*seen, side))
        elif step.kind == StepKind.SIMULTANEOUS:
            for side in sides_to_write(battle.ctx, battle.state):
                seen = side_view(battle.ctx, battle.state, side)  # the enemy's orders stay secret
                battle.write_orders(side, commanders[side].orders(*seen, side))
        elif step.kind == StepKind.CHANCE:
            battle.resolve(dice)
        else:
            assert step.side is not None
            seen = side_view(battle.ctx, battle.state, step.side)  # only identified ships
            ship_id, shots = commanders[step.side].fire(*seen, step.side)
            battle.fire(ship_id, shots, dice)


def enemies_of(state: BattleState, side: str) -> list[ShipInPlay]:
    return [s for s in state.ships if s.side != side and s.status == "active"]


def reach_of(ctx: BattleContext, ship: ShipInPlay) -> float:
    """The longest range at which the ship's working beams or torpedoes roll a die (a
    variable torpedo's in its long range mode, 000 L4752-4755)."""
    sheet = ctx.sheets[ship.id]
    bands = len(ctx.rules.torpedo_to_hit)
    return max(
        (
            BEAM_STRENGTH[spec.kind] * BAND_MU
            if spec.kind in BEAM_STRENGTH
            else bands
            * max([TORPEDO_BANDS_MU[spec.kind], *TORPEDO_SETTINGS.get(spec.kind, {}).values()])
            for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
            if (spec.kind in BEAM_STRENGTH or spec.kind in TORPEDOES) and now.status == "ok"
        ),
        default=0.0,
    )


def focused_fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
    """Fire the ship with the most guns bearing, at the targets with least hull left.

    A ship with its nova cannon armed fires first, and only if more enemies than friends lie
    in the corridor its three templates will sweep; it holds fire otherwise (its arming is
    lost either way, 001 L919).
    """
    ready = ships_to_fire(ctx, state, side)
    armed = [s for s in ready if state.ship(s).nova]
    if armed:
        ship = state.ship(armed[0])
        dx, dy = heading_vector(ship.course)
        reach = NOVA_ARMING_MU + sum(flight for _d, flight, _n in NOVA_STAGES)
        corridor = (
            (ship.x + dx * NOVA_ARMING_MU, ship.y + dy * NOVA_ARMING_MU),
            (ship.x + dx * reach, ship.y + dy * reach),
        )
        widest = max(diameter for diameter, _f, _n in NOVA_STAGES)
        enemies, friends = nova_count(state, ship, corridor, widest)
        shots = nova_shots(ctx, state, ship.id) if enemies > friends else []
        return ship.id, shots
    ship_id = max(
        ready,
        key=lambda s: (overload_ready(ctx, state, s), len(fire_options(ctx, state, s)), s),
    )
    ship = state.ship(ship_id)
    options = fire_options(ctx, state, ship_id)
    salvos = salvo_shots(ctx, state, ship_id)
    reachable = sorted(
        enemies_in(state, options),
        key=lambda t: (
            hull_remaining(ctx.sheets[t], state.ship(t).record),
            range_between(ship.x, ship.y, state.ship(t).x, state.ship(t).y),
            t,
        ),
    )
    chosen = reachable[: fire_controls(ctx, ship)]
    return ship_id, salvos + aimed(ctx, state, ship_id, options, chosen)


NOVA_AIM_SLACK_MU = 3.0
"""How far off the nova's line an Engage ship still counts an enemy (forecast flying straight
on) as caught: the enemy may turn, but the later 4" and 6" templates sweep wider."""


def has_nova(ctx: BattleContext, ship: ShipInPlay) -> bool:
    sheet = ctx.sheets[ship.id]
    return any(
        spec.kind == NOVA and now.status == "ok"
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
    )


def nova_shots(ctx: BattleContext, state: BattleState, ship_id: str) -> list[Shot]:
    """The armed nova cannon's shot along the bow, if it can fire (001 L906)."""
    return [Shot(weapon, NOVA_LINE) for weapon in fire_options(ctx, state, ship_id)]


def nova_path(
    x: float, y: float, course: int, advance: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The first template's sweep from a ship ``advance`` MU further on (001 L921-923)."""
    dx, dy = heading_vector(course)
    near, far = advance + NOVA_ARMING_MU, advance + NOVA_ARMING_MU + NOVA_STAGES[0][1]
    return (x + dx * near, y + dy * near), (x + dx * far, y + dy * far)


def nova_count(
    state: BattleState,
    ship: ShipInPlay,
    path: tuple[tuple[float, float], tuple[float, float]],
    diameter: float,
    *,
    forecast: bool = False,
) -> tuple[int, int]:
    """Count the enemies and the friends the first template would touch; with ``forecast``,
    other ships are taken where they will be after flying straight on."""
    enemies = friends = 0
    for other in state.ships:
        if other.id == ship.id or other.status != "active":
            continue
        x, y = other.x, other.y
        if forecast:
            dx, dy = heading_vector(other.course)
            x, y = x + dx * other.speed, y + dy * other.speed
        if nova_touches(path[0], path[1], diameter, x, y):
            if other.side == ship.side:
                friends += 1
            else:
                enemies += 1
    return enemies, friends


@functools.cache
def order_text(order: Order) -> str:
    """An order's notation, the commanders' tie-break: the same few hundred candidate orders
    are scored for every ship every turn, so each is written out once."""
    return format_order(order)


def distance_moved(ship: ShipInPlay, end: MoveResult) -> float:
    return math.hypot(end.x - ship.x, end.y - ship.y)


REACH_MARGIN_MU = 1.0
"""Slack on :func:`within_reach`'s bound, far above any rounding, so that it only ever leaves
out enemies that could not count."""


def within_reach(
    ship: ShipInPlay, ahead: Forecast, guns: Mapping[str, Guns], moved: float
) -> tuple[Forecast, Forecast]:
    """Return the enemies whose guns could reach a ship that moves at most ``moved`` MU this
    turn, and those its own guns could reach, at their forecast places."""
    shooters: Forecast = []
    targets: Forecast = []
    for enemy, where in ahead:
        gap = math.hypot(where[0] - ship.x, where[1] - ship.y) - moved - REACH_MARGIN_MU
        if gap <= guns[enemy.id].reach:
            shooters.append((enemy, where))
        if gap <= guns[ship.id].reach:
            targets.append((enemy, where))
    return shooters, targets


class Guns(NamedTuple):
    """A ship's working beams (kind and arcs), the longest range any of them reaches, and the
    beam dice it rolls at a target in each arc, by range band (``dice[arc][band - 1]``)."""

    beams: tuple[tuple[str, tuple[str, ...]], ...]
    reach: float
    dice: dict[str, tuple[int, ...]]


def guns_of(ctx: BattleContext, shooter: ShipInPlay) -> Guns:
    sheet = ctx.sheets[shooter.id]
    beams = tuple(
        (spec.kind, tuple(spec.arcs))
        for spec, now in zip(sheet.systems, shooter.record.systems, strict=True)
        if is_beam(spec.kind) and now.status == "ok"
    )
    # A beam-N rolls no die beyond N bands (tactical.fire.beam_dice).
    reach = max((BEAM_STRENGTH[kind] * BAND_MU for kind, _ in beams), default=-1.0)
    # tactical.fire.beam_dice: a beam-N rolls N dice in the first band, one fewer a band on.
    strengths: dict[str, list[int]] = {}
    for kind, arcs in beams:
        for arc in arcs:
            strengths.setdefault(arc, []).append(BEAM_STRENGTH[kind])
    dice = {
        arc: tuple(
            sum(max(strength - band, -1) + 1 for strength in found)
            for band in range(1, max(found) + 1)
        )
        for arc, found in strengths.items()
    }
    return Guns(beams, reach, dice)


def dice_on(
    ctx: BattleContext,
    shooter: ShipInPlay,
    at: tuple[float, float, int],
    tx: float,
    ty: float,
    asteroids: Sequence[tuple[float, float]] = (),
    guns: Guns | None = None,
) -> int:
    """The beam dice ``shooter`` would roll at a point from ``at`` (x, y, course); none
    through an asteroid (001 L1088). ``guns`` is :func:`guns_of` of the shooter, worked out
    once by a caller that asks many times."""
    x, y, course = at
    guns = guns or guns_of(ctx, shooter)
    distance = range_between(x, y, tx, ty)
    if distance > guns.reach:
        return 0
    arc = arc_of(bearing(x, y, course, tx, ty), ctx.rules.arcs)
    if arc == AFT or (asteroids and line_blocked((x, y), (tx, ty), asteroids)):
        return 0
    by_band = guns.dice.get(arc, ())
    band = max(1, math.ceil(distance / BAND_MU))
    return by_band[band - 1] if band <= len(by_band) else 0


Forecast = list[tuple[ShipInPlay, tuple[float, float, int]]]
"""Enemy ships and where each will be after flying straight on: (x, y, course)."""
