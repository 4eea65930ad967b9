"""Commanders that play legal actions: random (tests), closing (demo) and the campaign's
order commanders, which play a task force's campaign order (004 L105-112):

- Engage closes on the nearest enemy and fights: every gun that bears, focused on the targets
  nearest to destruction;
- Stand Off keeps the range outside the enemy's longest beam band when its own guns reach
  further, else just outside the enemy's reach, and fires whatever bears;
- FTL Move runs from the enemy and from the no-FTL zones, powers up as soon as its ship is
  ready and clear (004 L142-145), and makes an unplanned jump when badly hurt or out of time.

Fighters: Engage (and the closing commander) launch once an enemy is within
:data:`LAUNCH_RANGE_MU` and send the groups at the nearest enemy ship; Stand Off launches for
defence, dogfighting enemy groups in reach and otherwise covering the nearest friend; FTL
Move keeps its groups aboard and calls any in flight home. A group low on fighters or
endurance comes home, and its carrier holds course and speed so it can land (001 L761); one
still carrying one-shot weapons (torpedoes, MKPs, a salvo) stays out until it has fired them.
Under Stand Off a missile group launches its salvo at the nearest enemy ship in reach.
Point defence fires by itself at the groups attacking (tactical.battle).

Mines (:func:`with_mines`, every commander but the random one): a ship whose move would take it
within 3" of a known enemy mine turns aside if an order that misses every mine ends close to
where it meant to go; a minesweeper sweeps instead when it has no enemy in reach to shoot or
no way round; a minelayer drops its mines where an enemy is forecast to fly the next turn,
when they are active.

Asteroids (:func:`with_asteroids`, every commander but the random one): a ship whose move
would cross an asteroid's base at a velocity its thrust cannot make safe (001 L1092-1106) takes
instead the legal order that crosses none, or none it risks, ending nearest where it meant to
go; a launch, a pivot or a nova shot keeps its order.

Torpedo settings (:func:`with_torpedo_settings`, every commander but the random one,
outermost): once a ship's move is chosen, each overload-upgraded or variable pulse torpedo
takes the setting it may take that expects the most damage from where the move ends, the
enemies flown straight on (000 L4669-4800). An overloaded torpedo fires first, at any target
it reaches, and its ship before its friends: held, it is ejected. The random commander picks
random legal settings.

Boarding (000 12.7, 5.18): every commander allots its boarders and its defenders by the
worked example's doctrine (:func:`doctrine_assaults`, :func:`doctrine_repel`): boarders split
between the defending marines and the hull, DCPs three to a boarder on the hull first,
marines on the boarders that engage them. Engage and the closing commander fire boarding
torpedoes at the enemy within :data:`BOARDING_CLOSE_MU` that its boarders can best take: one
already boarded, else the fewest defenders for its hull left. None of them fires on a
captured ship (the campaign gains nothing from a prize); the random commander may.

Ramming (001 L977-995): the random commander now and then means to ram an enemy near it,
steering for where the enemy will be if it flies straight on (:func:`ram_course`), and
sometimes names a ship it may not ram, to exercise void orders; Engage rams only as a
desperate act, with a warship whose guns are all gone that can end its move within 2" of an
enemy's forecast place. The others never ram.

The random commander's choices come from a ``random.Random`` the caller passes in; the order
commanders are deterministic. The dice stay the battle's.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import msgspec

from tactical.asteroids import AVOID_ALWAYS, asteroids_crossed, avoid_need, drift_legs, ends_inside
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
    asteroids_now,
    boarders_aboard,
    dropout_ids,
    fire_controls,
    fire_options,
    firecons_needed,
    flight_targets,
    free_parties,
    ftl_blocked,
    group_reach,
    launch_options,
    launch_problem,
    launchable_bays,
    mine_layers,
    move_path,
    needle_aims,
    needle_focus_problem,
    order_limits,
    repair_jobs,
    salvo_targets,
    scan_limit,
    scramble_bays,
    setting_problem,
    ships_to_fire,
    sides_to_assault,
    sides_to_fly,
    sides_to_repair,
    sides_to_repel,
    sides_to_write,
    sweeper_working,
    velocity,
    view,
)
from tactical.boarding import (
    BOARDING_TORPEDO,
    DCP_MOST,
    Assault,
    BoarderKind,
    Guard,
    Task,
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
    SECONDARY_MOVE_MU,
    FighterGroup,
    FighterType,
    FlightOrder,
    fighter_type,
    launch_limit,
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
    torpedo_band,
    torpedo_to_hit,
    torpedo_warhead,
)
from tactical.mines import MINE_RADIUS_MU, MINE_TENTHS, Mine, Path, first_contact, point_along
from tactical.missiles import RACKS, SALVO_AIM, feeds, format_aim
from tactical.movement import (
    NO_ORDER,
    PUSHES,
    Burn,
    MoveResult,
    MoveStart,
    Order,
    angle_vector,
    format_order,
    heading_vector,
    move,
)
from tactical.ramming import RAM_RANGE_MU
from tactical.repair import MAX_PARTIES_PER_JOB
from tactical.sensors import ACTIVE_RANGE_MU, PASSIVE_RANGE_MU
from tactical.ship import collision_thrust, hull_remaining

__all__ = [
    "LAUNCH_RANGE_MU",
    "Commander",
    "closing_commander",
    "doctrine_assaults",
    "doctrine_repel",
    "engage_commander",
    "ftl_move_commander",
    "greedy_repairs",
    "order_commander",
    "play",
    "posture_flight",
    "ram_course",
    "random_commander",
    "stand_off_commander",
    "with_asteroids",
    "with_fighters",
    "with_mines",
    "with_scramble",
    "with_sensors",
    "with_torpedo_settings",
]


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
RAM_ODDS = 0.15
"""How often a random commander's ship with an enemy near means to ram it."""
RAM_LOOK_MU = 20.0
"""How near an enemy must be for a random commander's ship to think of ramming it."""
RANDOM_SCAN_ODDS = 0.3
RANDOM_SCRAMBLE_ODDS = 0.3
"""How often a random commander's carrier with a group aboard stands ready to scramble."""
"""How often a random commander's ship with bogeys in sight makes an active scan."""
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
        if ship.side != side or not _repairable(ctx, ship):
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


def _repairable(ctx: BattleContext, ship: ShipInPlay) -> bool:
    return ship.status == "active" and bool(repair_jobs(ctx, ship)) and free_parties(ctx, ship) > 0


def _boarded(ctx: BattleContext, ship: ShipInPlay) -> bool:
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
        if ship.side == side or not _boarded(ctx, ship):
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
        if ship.side != side or not _boarded(ctx, ship):
            continue
        marines, parties = boarders_aboard(ship)
        defenders = len(defending_marines(ctx.sheets[ship.id], ship.record))
        assault = assault_on(state, ship)
        guards[ship.id] = guard_doctrine(
            marines, parties, assault, free_parties(ctx, ship), defenders
        )
    return guards


def _wants_home(ctx: BattleContext, group: FighterGroup, posture: Posture) -> bool:
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
            if _wants_home(ctx, group, posture) and carrier.status == "active":
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
    return fighter_type(ctx.sheets[group.carrier].system(group.bay).fighters)


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
            and not _wants_home(ctx, g, "defend")
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


def _free(state: BattleState, side: str) -> list[ShipInPlay]:
    """The side's ships on the table that are not committed to a jump: those a doctrine
    (fighters, sensors, mines) may still change the orders of."""
    return [s for s in state.ships if s.side == side and s.status == "active" and s.jump == "none"]


def with_fighters(orders: WriteOrders, posture: Posture) -> WriteOrders:
    """Wrap a commander's movement orders with its fighter doctrine: a carrier launches
    (``L1``/``L2``, no course or speed change, 001 L757-759) when an enemy is within
    :data:`LAUNCH_RANGE_MU` and the posture fights, and holds course and speed when one of its
    groups is coming home within reach (001 L761)."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        enemies = _enemies(state, side)
        for ship in _free(state, side):
            homing = [
                g for g in state.fighters if g.carrier == ship.id and _wants_home(ctx, g, posture)
            ]
            dx, dy = velocity(ship)
            ex, ey = ship.x + dx, ship.y + dy
            if any(range_between(g.x, g.y, ex, ey) <= group_reach(ctx, g) for g in homing):
                written[ship.id] = NO_ORDER
                continue
            close = any(range_between(ship.x, ship.y, e.x, e.y) <= LAUNCH_RANGE_MU for e in enemies)
            if posture != "recover" and close and launchable_bays(ctx, state, ship):
                written[ship.id] = Order(
                    launch=launch_limit(ctx.sheets[ship.id], ctx.rules.carrier_bays)
                )
        return written

    return wrapped


def with_scramble(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders (outermost, once every other doctrine has had its
    say): a carrier whose order applies no thrust, with a group aboard it could scramble,
    stands ready to scramble (``/scramble``, 000 8.3) when an enemy group in flight could
    reach it this turn, within its move and 6 MU of where the carrier will be."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        if not ctx.rules.fighter_scramble:
            return written
        raiders = [g for g in state.fighters if g.side != side]
        for ship in _free(state, side):
            order = written.get(ship.id, NO_ORDER)
            thrust = order.turn or order.accel or order.pivot is not None or order.vector
            if thrust or not scramble_bays(ctx, state, ship):
                continue
            dx, dy = velocity(ship)
            ex, ey = ship.x + dx, ship.y + dy
            if any(
                range_between(g.x, g.y, ex, ey) <= group_reach(ctx, g) + FIGHTER_RANGE_MU
                for g in raiders
            ):
                written[ship.id] = msgspec.structs.replace(order, scramble=True)
        return written

    return wrapped


SEEK_SPEED = 8
"""The speed a ship seeking bogeys steers at while no enemy is identified."""


def with_sensors(
    orders: WriteOrders,
) -> WriteOrders:
    """Wrap a commander's movement orders with a doctrine for bogeys (001 L933-951), seen
    only in its view's ``bogeys``: while no enemy ship is identified, a ship steers at the
    nearest bogey; a ship with active sensors scans (``A``) when a bogey lies beyond its
    passive reach but within the scan's 54", giving itself away for it (001 L949-951)."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        contacts = [b for b in state.bogeys if b.side != side]
        if not contacts:
            return written
        seeking = not _enemies(state, side)
        for ship in _free(state, side):
            order = written.get(ship.id, NO_ORDER)
            ranges = [range_between(ship.x, ship.y, b.x, b.y) for b in contacts]
            if seeking and order == NO_ORDER:
                near = contacts[ranges.index(min(ranges))]
                order = _steer(ctx, ship, _angle_to(ship, near.x, near.y), SEEK_SPEED)
            far = any(PASSIVE_RANGE_MU < r <= ACTIVE_RANGE_MU for r in ranges)
            if far and scan_limit(ctx, ship) and not (order.nova or order.jump):
                order = msgspec.structs.replace(order, scan=True)
            if order != NO_ORDER:
                written[ship.id] = order
        return written

    return wrapped


MINE_DETOUR_MU = 6.0
"""How far from where it meant to end its move a ship will end to miss a known enemy mine."""
MINE_LAY_REACH_MU = 6.0
"""How near an enemy's forecast path a minelayer drops a mine: the mine's 3" radius and as
much again for the enemy's turns (001 L872)."""


def _enemy_mines(state: BattleState, side: str) -> list[Mine]:
    """The enemy mines that are active this turn: every marker is on the open table."""
    return [m for m in state.mines if m.side != side and m.active(state.turn)]


def _met(path: Path, mines: Sequence[Mine]) -> list[Mine]:
    """The mines a ship flying ``path`` would come within 3" of (001 L872)."""
    return [m for m in mines if first_contact(path, m.x, m.y, MINE_RADIUS_MU) is not None]


def _gap(x: float, y: float, start: tuple[float, float], end: tuple[float, float]) -> float:
    """The distance from a point to a segment."""
    (sx, sy), (ex, ey) = start, end
    dx, dy = ex - sx, ey - sy
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((x - sx) * dx + (y - sy) * dy) / length2))
    return math.hypot(x - (sx + t * dx), y - (sy + t * dy))


def _enemy_forecasts(
    state: BattleState, side: str, bait: tuple[float, float]
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Where each enemy may fly next turn, when a mine laid now is active (001 L888): on
    straight after flying straight this turn, or a move's length towards ``bait``."""
    forecasts: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for enemy in _enemies(state, side):
        dx, dy = velocity(enemy)
        here = (enemy.x + dx, enemy.y + dy)
        forecasts.append((here, (here[0] + dx, here[1] + dy)))
        gap = range_between(here[0], here[1], bait[0], bait[1])
        share = min(enemy.speed, gap) / gap if gap else 0.0
        chase = (here[0] + (bait[0] - here[0]) * share, here[1] + (bait[1] - here[1]) * share)
        forecasts.append((here, chase))
    return forecasts


def _mine_drops(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, path: Path
) -> tuple[int, ...]:
    """Where along its move a minelayer drops its mines, in tenths: the points nearest an
    enemy's forecast path, within :data:`MINE_LAY_REACH_MU`, a few tenths apart."""
    layers = len(mine_layers(ctx, ship))
    forecasts = _enemy_forecasts(state, ship.side, path[-1]) if layers else []
    if not forecasts:
        return ()
    scored: list[tuple[float, int]] = []
    for tenth in range(MINE_TENTHS + 1):
        x, y = point_along(path, tenth / MINE_TENTHS)
        gap = min(_gap(x, y, start, end) for start, end in forecasts)
        if gap <= MINE_LAY_REACH_MU:
            scored.append((gap, tenth))
    chosen: list[int] = []
    for _gap_mu, tenth in sorted(scored):
        if len(chosen) < layers and all(abs(tenth - c) >= MINE_TENTHS // 3 for c in chosen):
            chosen.append(tenth)
    return tuple(sorted(chosen))


def _detour(
    ctx: BattleContext, ship: ShipInPlay, order: Order, mines: Sequence[Mine]
) -> Order | None:
    """The legal order that misses every mine and ends nearest where ``order`` would, if
    within :data:`MINE_DETOUR_MU`; ties go to the order's text, so the choice is stable."""
    if order.launch or order.pivot is not None:
        return None  # a launch holds course and speed (001 L757); a pivot goes nowhere
    goal = move_path(ctx, ship, order)[-1]
    candidates = _all_orders(ctx, ship)
    best: tuple[tuple[float, str], Order] | None = None
    for candidate in candidates:
        path = move_path(ctx, ship, candidate)
        miss = range_between(path[-1][0], path[-1][1], goal[0], goal[1])
        if miss > MINE_DETOUR_MU or _met(path, mines):
            continue
        key = (miss, format_order(candidate))
        if best is None or key < best[0]:
            best = (key, candidate)
    return None if best is None else best[1]


def _asteroid_risk(
    ctx: BattleContext, ship: ShipInPlay, order: Order, asteroids: Sequence[tuple[float, float]]
) -> bool:
    """Whether the move meets an asteroid at a velocity that may crash the ship: its new
    velocity less its thrust needs more than 1 on the D6 (001 L1092-1106). With asteroids
    that sweep (000 L18082-18101) the move risks the asteroid it ends inside, and the drift
    at the start of next turn sweeping over where it ends; else any its path crosses."""
    end = _end_of(ctx, ship, order)
    speed = end.vector[1] if end.vector is not None else float(end.speed)
    need = avoid_need(velocity=speed, thrust=collision_thrust(ctx.sheets[ship.id], ship.record))
    if need <= AVOID_ALWAYS:
        return False  # it would avoid any asteroid automatically (001 L1106)
    path = move_path(ctx, ship, order)
    theatre = ctx.setup.theatre
    if theatre is None or theatre.asteroid_motion != "sweep" or theatre.field is None:
        return bool(asteroids_crossed(path, asteroids))
    legs = [leg for start in asteroids for leg in drift_legs(start, theatre.drift, theatre.field)]
    return bool(ends_inside(path[-1], asteroids)) or any(
        line_blocked(a, b, [path[-1]]) for a, b in legs
    )


def with_asteroids(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders with a pilot's care for asteroids (001 L1092-1110).

    A ship whose move risks a collision takes the legal order (turn and speed change, or the
    vector candidates) that risks none and ends nearest where the move would have, ties going
    to the order's text; its other instructions (scans, mines, sweeps, a ram) stay. A launch,
    a pivot or a nova shot keeps its order, and so does a ship with no safe order.
    """

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        asteroids = asteroids_now(ctx, state)
        if not asteroids:
            return written
        for ship in _free(state, side):
            order = written.get(ship.id, NO_ORDER)
            if order.launch or order.nova or order.pivot is not None:
                continue
            if not _asteroid_risk(ctx, ship, order, asteroids):
                continue
            goal = move_path(ctx, ship, order)[-1]
            best: tuple[tuple[float, str], Order] | None = None
            for candidate in _all_orders(ctx, ship):
                if _asteroid_risk(ctx, ship, candidate, asteroids):
                    continue
                end = move_path(ctx, ship, candidate)[-1]
                key = (range_between(end[0], end[1], goal[0], goal[1]), format_order(candidate))
                if best is None or key < best[0]:
                    best = (key, candidate)
            if best is not None:
                safe = best[1]
                written[ship.id] = msgspec.structs.replace(
                    order, turn=safe.turn, accel=safe.accel, vector=safe.vector
                )
        return written

    return wrapped


BACKFIRE_TURNS = 3
"""How many turns of its standard shots a commander counts an overloaded tube as risking: a
hit's damage die of 1 and a second 1, 1 in 36, destroys it for good (000 L4708-4714)."""


def _settable(ctx: BattleContext, ship: ShipInPlay) -> list[tuple[str, str]]:
    """The ship's working torpedoes that take a setting in the orders, (id, kind): the
    overload-upgraded and variable ones (000 L4669-4800)."""
    sheet = ctx.sheets[ship.id]
    return [
        (spec.id, spec.kind)
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
        if spec.kind in TORPEDO_SETTINGS and now.status == "ok"
    ]


def _torpedo_worth(
    ctx: BattleContext, kind: str, setting: str | None, distance: float, turns: int = 0
) -> float:
    """The damage a torpedo under this setting is expected to do at this range: its chance to
    hit on the setting's row times its warhead's mean (3.5, 5.5 overloaded or short, 2 long).
    An overload's risk comes off: 1 in 36 of its hits (000 L4708-4714) loses the tube's
    standard shots at this range for ``turns`` turns."""
    need = torpedo_to_hit(ctx.rules.torpedo_to_hit, distance, torpedo_band(kind, setting))
    if need is None:
        return 0.0
    hits = (7 - need) / 6
    warhead = torpedo_warhead(kind, setting)
    worth = hits * ((warhead.sides + 1) / 2 + warhead.plus)
    if warhead.backfire:
        worth -= hits / 36 * _torpedo_worth(ctx, kind, None, distance) * turns
    return worth


def _torpedo_settings(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    order: Order,
    ahead: Forecast,
    asteroids: Sequence[tuple[float, float]],
) -> tuple[tuple[str, str], ...]:
    """The settings a ship writes with ``order`` (docs/rulings.md, "Tactical: advanced
    weapons"): for each torpedo, of standard and the settings it may take this turn
    (:func:`~tactical.battle.setting_problem`), the one that expects the most damage
    (:func:`_torpedo_worth`, an overload's risk over :data:`BACKFIRE_TURNS` turns or the
    turns left) from where the move ends at the best enemy in its arcs and not behind an
    asteroid, the enemies flown straight on. Standard wins ties.

    None for a ship that fires no torpedo this turn: no working FireCon (001 L829), out of
    control, arming its nova cannon, sweeping or powering up for a jump (an overloaded tube not
    fired is ejected, 000 L4718-4724).
    """
    idle = order.nova or order.sweep or order.jump or ship.jump in ("powering", "unplanned")
    if idle or ship.record.out_of_control or not fire_controls(ctx, ship) or not ahead:
        return ()
    sheet = ctx.sheets[ship.id]
    end = _end_of(ctx, ship, order)
    turns = max(0, min(BACKFIRE_TURNS, ctx.setup.turn_limit - state.turn))
    settings: list[tuple[str, str]] = []
    for weapon, kind in _settable(ctx, ship):
        arcs = sheet.system(weapon).arcs
        ranges = [
            range_between(end.x, end.y, x, y)
            for _, (x, y, _c) in ahead
            if (arc := arc_of(bearing(end.x, end.y, end.course, x, y), ctx.rules.arcs)) != AFT
            and arc in arcs
            and not line_blocked((end.x, end.y), (x, y), asteroids)
        ]

        def worth(setting: str | None, kind: str = kind, ranges: list[float] = ranges) -> float:
            return max((_torpedo_worth(ctx, kind, setting, r, turns) for r in ranges), default=0.0)

        choice: str | None = None
        value = worth(None)
        for setting in TORPEDO_SETTINGS[kind]:
            if setting_problem(ctx, state, ship, weapon, setting) is not None:
                continue
            if (better := worth(setting)) > value + WORTH_EPSILON:
                choice, value = setting, better
        if choice is not None:
            settings.append((weapon, choice))
    return tuple(settings)


WORTH_EPSILON = 1e-9  # worths this close are equal: standard keeps the tie


def with_torpedo_settings(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders with the settings of its overload-upgraded and
    variable pulse torpedoes (:func:`_torpedo_settings`), chosen for where each ship's move
    ends; outermost, so that no later layer moves a ship after its settings are chosen.
    Settings already written are replaced."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        ships = [
            s for s in state.ships if s.side == side and s.status == "active" and _settable(ctx, s)
        ]
        if not ships:
            return written
        ahead: Forecast = []
        for enemy in _enemies(state, side):
            dx, dy = velocity(enemy)
            ahead.append((enemy, (enemy.x + dx, enemy.y + dy, enemy.course)))
        asteroids = asteroids_now(ctx, state)
        for ship in ships:
            order = written.get(ship.id, NO_ORDER)
            settings = _torpedo_settings(ctx, state, ship, order, ahead, asteroids)
            if settings != order.torpedoes:
                written[ship.id] = msgspec.structs.replace(order, torpedoes=settings)
        return written

    return wrapped


def _in_reach(ctx: BattleContext, state: BattleState, ship: ShipInPlay, path: Path) -> bool:
    """Whether an enemy lies within the ship's gun reach of where its move ends."""
    reach = _reach(ctx, ship)
    x, y = path[-1]
    return any(range_between(x, y, e.x, e.y) <= reach for e in _enemies(state, ship.side))


def with_mines(
    orders: WriteOrders,
) -> WriteOrders:
    """Wrap a commander's movement orders with its mine doctrine (001 L868-898).

    A ship whose move meets a known enemy mine sweeps it if it has a working minesweeper and
    no enemy in gun reach (sweeping forbids offensive fire, 001 L898); otherwise it turns
    aside (:func:`_detour`), and sweeps after all if it cannot. A carrier holding course for a
    group coming home does not turn aside. Then each minelayer drops its mines where an enemy
    is forecast to fly next turn (:func:`_mine_drops`).
    """

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        mines = _enemy_mines(state, side)
        for ship in _free(state, side):
            order = given = written.get(ship.id, NO_ORDER)
            if order.nova or order.jump:
                continue  # no power for mines (001 L910); entering jump (004 L144-145)
            path = move_path(ctx, ship, order)
            danger = _met(path, mines)
            sweeper = sweeper_working(ctx, ship)
            homing = order == NO_ORDER and any(g.carrier == ship.id for g in state.fighters)
            if danger and sweeper and not _in_reach(ctx, state, ship, path):
                order = msgspec.structs.replace(order, sweep=True)
            elif danger and not homing:
                better = _detour(ctx, ship, order, mines)
                if better is not None:
                    order, path = better, move_path(ctx, ship, better)
                elif sweeper:
                    order = msgspec.structs.replace(order, sweep=True)
            drops = _mine_drops(ctx, state, ship, path)
            if drops:
                order = msgspec.structs.replace(order, mines=drops)
            if order != given:
                written[ship.id] = order
        return written

    return wrapped


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


def _random_order(rng: random.Random, thrust: int, limit: int, speed: int, pivot: bool) -> Order:
    if rng.random() < 0.2:
        return NO_ORDER
    if pivot and speed == 0 and rng.random() < 0.3:
        return Order(pivot=rng.randint(1, 12))
    turn = rng.randint(-limit, limit) if limit else 0
    room = thrust - abs(turn)
    accel = rng.randint(max(-room, -speed), room) if room else 0
    return Order(turn=turn, accel=accel)


def _random_vector_order(rng: random.Random, thrust: int, points: int) -> Order:
    """A random legal vector order: a rotation, a push and a burn in a random sequence, each
    maybe left out (000 L13411-13986)."""
    if rng.random() < 0.2:
        return NO_ORDER
    burns: list[Burn] = []
    if points and rng.random() < 0.5:
        burns.append(Burn(rng.choice(("TP", "TS")), rng.randint(1, 6)))
    left = points - len(burns)
    if left and rng.random() < 0.5:
        burns.append(Burn(rng.choice(PUSHES), rng.randint(1, left)))
    if thrust and rng.random() < 0.7:
        burns.append(Burn("MD", rng.randint(1, thrust)))
    rng.shuffle(burns)
    return Order(vector=tuple(burns))


def _random_shots(
    ctx: BattleContext, state: BattleState, ship_id: str, rng: random.Random
) -> list[Shot]:
    options = fire_options(ctx, state, ship_id)
    launchers = launch_options(ctx, state, ship_id)
    reachable = sorted({t for targets in options.values() for t in targets})
    rng.shuffle(reachable)
    chosen = set(reachable[: fire_controls(ctx, state.ship(ship_id))])
    shots: list[Shot] = []
    if launchers and fire_controls(ctx, state.ship(ship_id)) and rng.random() < 0.5:
        # A random point within 40 MU: where it is out of range or arc, the launch is dropped.
        ship = state.ship(ship_id)
        point = format_aim(ship.x + rng.uniform(-40, 40), ship.y + rng.uniform(-40, 40))
        fired = [
            Shot(w, SALVO_AIM, point)
            for w in launchers
            if launch_problem(ctx, state, ship_id, w, point) is None
        ]
        shots.extend(_fed(ctx, state, ship_id, fired))
    for weapon, targets in options.items():
        allowed = [t for t in targets if t in chosen]
        if allowed and rng.random() < 0.9:
            target = rng.choice(allowed)
            aim = None
            if ctx.sheets[ship_id].system(weapon).kind in NEEDLES:
                aims = needle_aims(ctx, state, target)
                if not aims:
                    continue
                aim = rng.choice(aims)
            shots.append(Shot(weapon, target, aim))
    return _torpedoes_fed(ctx, state, ship_id, _within_firecons(ctx, state, ship_id, shots))


def _fed(ctx: BattleContext, state: BattleState, ship_id: str, launches: list[Shot]) -> list[Shot]:
    """Keep the launches, in order, whose magazines hold a load for each (000 L6051-6053)."""
    return _within_loads(state, ship_id, launches, feeds(ctx.sheets[ship_id]))


def _within_loads(
    state: BattleState, ship_id: str, shots: list[Shot], fed: Mapping[str, str]
) -> list[Shot]:
    """Keep the shots, in order, but those of a launcher ``fed`` by a magazine empty by then:
    each shot spends a load."""
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


def _torpedoes_fed(
    ctx: BattleContext, state: BattleState, ship_id: str, shots: list[Shot]
) -> list[Shot]:
    """Keep the shots, in order, but the boarding torpedoes whose magazine is empty by then:
    each shot spends a torpedo (000 L5090-5100)."""
    return _within_loads(state, ship_id, shots, torpedo_feeds(ctx.sheets[ship_id]))


def _salvo_shots(ctx: BattleContext, state: BattleState, ship_id: str) -> list[Shot]:
    """Launch every ready salvo at one aim point: where the enemy it can reach with the least
    hull left will be after flying straight on next turn, since the salvo homes after the
    ships move (000 L5724-5729); one FireCon directs them all (000 L5713-5715).

    A one-shot rack waits for a target within :data:`RACK_CLOSE_MU`, less likely to fly out
    of the salvo's radius.
    """
    launchers = launch_options(ctx, state, ship_id)
    ship = state.ship(ship_id)
    if not launchers or fire_controls(ctx, ship) < 1:
        return []
    sheet = ctx.sheets[ship_id]
    enemies = sorted(
        _enemies(state, ship.side),
        key=lambda e: (hull_remaining(ctx.sheets[e.id], e.record), e.id),
    )
    for enemy in enemies:
        dx, dy = heading_vector(enemy.course)
        aim = format_aim(enemy.x + dx * enemy.speed, enemy.y + dy * enemy.speed)
        near = range_between(ship.x, ship.y, enemy.x, enemy.y) <= RACK_CLOSE_MU
        ready = [
            w
            for w in launchers
            if launch_problem(ctx, state, ship_id, w, aim) is None
            and (near or sheet.system(w).kind not in RACKS)
        ]
        if ready:
            return _fed(ctx, state, ship_id, [Shot(w, SALVO_AIM, aim) for w in ready])
    return []


def _enemies_in(state: BattleState, options: Mapping[str, Sequence[str]]) -> set[str]:
    """The targets the options reach, captured ships left out: the campaign gains nothing
    from a prize (docs/rulings.md, "Tactical: boarding")."""
    return {
        t for targets in options.values() for t in targets if state.ship(t).status != "captured"
    }


def _within_firecons(
    ctx: BattleContext, state: BattleState, ship_id: str, shots: list[Shot]
) -> list[Shot]:
    """Keep the shots, in order, that the ship's FireCons can direct (001 L380, L829), and
    that keep its class-N needles beyond 12 MU on one system (000 L4525-4529).

    Torpedoes need a FireCon of their own, so a caller lists them first where they matter
    most: at 6" a torpedo averages 2.3 damage against any screens, a C battery 0.7 at best.
    """
    limit = fire_controls(ctx, state.ship(ship_id))
    kept: list[Shot] = []
    for shot in shots:
        more = [*kept, shot]
        if firecons_needed(ctx, ship_id, more) <= limit and (
            needle_focus_problem(ctx, state, ship_id, more) is None
        ):
            kept.append(shot)
    return kept


def _aimed(
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
    for weapon, reach in options.items():
        targets = reach
        kind = sheet.system(weapon).kind
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
    return _torpedoes_fed(ctx, state, ship_id, _within_firecons(ctx, state, ship_id, shots))


def _overload_ready(ctx: BattleContext, state: BattleState, ship_id: str) -> bool:
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


def random_commander(
    rng: random.Random, *, impossible: float = 0.05, ram: float = RAM_ODDS
) -> Commander:
    """Return a commander that writes random orders and fires random legal shots.

    With probability ``impossible`` an order is over the ship's thrust, to exercise the "no
    order" rule (001 L364), and a fifth of that a ram names any ship in sight, friend, foe or
    wreck. With probability ``ram`` a ship with an enemy within :data:`RAM_LOOK_MU` steers to
    ram one of them (:func:`ram_course`).
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        for ship in state.ships:
            if ship.side != side or ship.status != "active":
                continue
            vector = ship.vector is not None
            if rng.random() < impossible:
                over = order_limits(ctx, ship)[0] + 1
                written[ship.id] = (
                    Order(vector=(Burn("TS", 1), Burn("MD", over)))
                    if vector
                    else Order(turn=-1, accel=over)
                )
                continue
            thrust, limit = order_limits(ctx, ship)
            pivot = ctx.rules.pivot_any_course
            written[ship.id] = (
                _random_vector_order(rng, thrust, limit)
                if vector
                else _random_order(rng, thrust, limit, ship.speed, pivot)
            )
            if launchable_bays(ctx, state, ship) and rng.random() < 0.3:
                written[ship.id] = Order(launch=rng.randint(1, 2))  # sometimes one too many
            scrambles = ctx.rules.fighter_scramble and bool(scramble_bays(ctx, state, ship))
            if scrambles and rng.random() < RANDOM_SCRAMBLE_ODDS:  # void if it applies thrust
                written[ship.id] = msgspec.structs.replace(written[ship.id], scramble=True)
            if _has_nova(ctx, ship) and rng.random() < 0.3:
                written[ship.id] = Order(nova=True)
            layers = len(mine_layers(ctx, ship))
            if layers and rng.random() < 0.4:
                count = rng.randint(1, layers + 1)  # sometimes one too many
                mines = tuple(rng.randint(0, MINE_TENTHS) for _ in range(count))
                written[ship.id] = msgspec.structs.replace(written[ship.id], mines=mines)
            if sweeper_working(ctx, ship) and rng.random() < 0.4:
                written[ship.id] = msgspec.structs.replace(written[ship.id], sweep=True)
            written[ship.id] = _random_ram(ctx, state, ship, written[ship.id], rng, ram, impossible)
            if state.bogeys and rng.random() < RANDOM_SCAN_ODDS:
                written[ship.id] = _random_scan(ctx, state, ship, written[ship.id], rng)
            if _settable(ctx, ship):
                written[ship.id] = _random_settings(ctx, state, ship, written[ship.id], rng)
        return written

    def flight(ctx: BattleContext, state: BattleState, side: str) -> Flight:
        orders: Flight = {}
        for group in state.fighters:
            if group.side != side or rng.random() < 0.1:
                continue
            orders[group.id] = _random_flight(ctx, state, group, rng)
        return orders

    def fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        ship_id = rng.choice(ships_to_fire(ctx, state, side))
        return ship_id, _random_shots(ctx, state, ship_id, rng)

    def repairs(ctx: BattleContext, state: BattleState, side: str) -> Jobs:
        jobs: Jobs = {}
        for ship in state.ships:
            if ship.side != side or not _repairable(ctx, ship) or rng.random() < 0.2:
                continue
            left = free_parties(ctx, ship)
            work: dict[str, int] = {}
            for target in rng.sample(repair_jobs(ctx, ship), len(repair_jobs(ctx, ship))):
                if left <= 0:
                    break
                work[target] = rng.randint(1, min(MAX_PARTIES_PER_JOB, left))
                left -= work[target]
            jobs[ship.id] = work
        return jobs

    return Commander(orders, fire, repairs, flight, _random_assaults(rng), _random_repel(rng))


def _random_assaults(rng: random.Random) -> Callable[[BattleContext, BattleState, str], Assaults]:
    """Random legal assaults: any number of the boarders aboard a ship with marines engage
    them, or the side writes nothing for it (all on the hull)."""

    def assaults(ctx: BattleContext, state: BattleState, side: str) -> Assaults:
        allotted: Assaults = {}
        for ship in state.ships:
            if ship.side == side or not _boarded(ctx, ship) or rng.random() < 0.2:
                continue
            if defending_marines(ctx.sheets[ship.id], ship.record):
                marines, parties = boarders_aboard(ship)
                allotted[ship.id] = Assault(
                    marines=rng.randint(0, marines), parties=rng.randint(0, parties)
                )
        return allotted

    return assaults


def _random_repel(rng: random.Random) -> Callable[[BattleContext, BattleState, str], Guards]:
    """Random legal guards (:func:`_random_guards`), or none for a ship now and then."""

    def repel(ctx: BattleContext, state: BattleState, side: str) -> Guards:
        guards: Guards = {}
        for ship in state.ships:
            if ship.side != side or not _boarded(ctx, ship) or rng.random() < 0.1:
                continue
            guards[ship.id] = _random_guards(ctx, state, ship, rng)
        return guards

    return repel


def _random_guards(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, rng: random.Random
) -> tuple[Guard, ...]:
    """Random legal guards: each boarder, in a random order, gets some of the DCPs and
    marines left, or none."""
    marines, parties = boarders_aboard(ship)
    assault = assault_on(state, ship)
    units: list[tuple[BoarderKind, Task]] = [
        *(("marine", "marines") for _ in range(assault.marines)),
        *(("marine", "hull") for _ in range(marines - assault.marines)),
        *(("party", "marines") for _ in range(assault.parties)),
        *(("party", "hull") for _ in range(parties - assault.parties)),
    ]
    rng.shuffle(units)
    dcps = free_parties(ctx, ship)
    defenders = len(defending_marines(ctx.sheets[ship.id], ship.record))
    guards: list[Guard] = []
    for kind, task in units:
        on_it = rng.randint(0, min(DCP_MOST, dcps))
        fighting = rng.randint(0, defenders)
        dcps, defenders = dcps - on_it, defenders - fighting
        if on_it or fighting:
            guards.append(Guard(kind, task, dcps=on_it, marines=fighting))
    return tuple(guards)


def _random_settings(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, order: Order, rng: random.Random
) -> Order:
    """Give each torpedo that takes a setting a random one it may take this turn, or none
    (000 L4669-4800)."""
    settings: list[tuple[str, str]] = []
    for weapon, kind in _settable(ctx, ship):
        allowed = [
            s for s in TORPEDO_SETTINGS[kind] if not setting_problem(ctx, state, ship, weapon, s)
        ]
        choice = rng.choice([None, *allowed])
        if choice is not None:
            settings.append((weapon, choice))
    return msgspec.structs.replace(order, torpedoes=tuple(settings))


def _random_flight(
    ctx: BattleContext, state: BattleState, group: FighterGroup, rng: random.Random
) -> FlightOrder:
    """Any flight order open to the group, now and then with a secondary move."""
    targets = flight_targets(ctx, state, group)
    choices = [
        *(FlightOrder(kind="attack", target=t) for t in targets.attack),
        *(FlightOrder(kind="dogfight", target=t) for t in targets.dogfight),
        *(FlightOrder(kind="intercept", target=t) for t in targets.intercept),
        *(FlightOrder(kind="cover", target=t) for t in targets.cover),
        FlightOrder(kind="recover"),
        HOLD,
    ]
    order = rng.choice(choices)
    if ctx.rules.fighter_secondary_move and order.kind != "hold" and rng.random() < 0.3:
        order = msgspec.structs.replace(order, secondary=True)  # 000 L8760-8774
    return order


def _random_ram(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    order: Order,
    rng: random.Random,
    odds: float,
    impossible: float,
) -> Order:
    """Now and then turn a random order into a ram on an enemy near (keeping its mines and
    sweep), or name any ship in sight to ram, which may be void."""
    near = [
        e
        for e in _enemies(state, ship.side)
        if range_between(ship.x, ship.y, e.x, e.y) <= RAM_LOOK_MU
    ]
    chance = rng.random()
    if near and chance < odds:
        steer = ram_course(ctx, ship, rng.choice(near))
        return msgspec.structs.replace(steer, mines=order.mines, sweep=order.sweep)
    if chance > 1 - impossible / 5:
        victim = rng.choice(state.ships).id  # maybe itself, a friend or a wreck: void
        return msgspec.structs.replace(order, ram=victim)
    return order


def closing_commander(cruise: int = 8) -> Commander:
    """Return a commander that turns towards the nearest enemy at about ``cruise`` speed and
    fires every gun that bears at the nearest targets its FireCons allow."""

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = [s for s in state.ships if s.side != side and s.status == "active"]
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not enemies:
                continue
            nearest = min(enemies, key=lambda e: range_between(ship.x, ship.y, e.x, e.y))
            if ship.vector is not None:
                angle = _angle_to(ship, nearest.x, nearest.y)
                written[ship.id] = _vector_steer(ctx, ship, angle, cruise)
                continue
            thrust, limit = order_limits(ctx, ship)
            off = bearing(ship.x, ship.y, ship.course, nearest.x, nearest.y)
            if off == DEAD_ASTERN:
                off *= _astern_side(ctx, state, ship, nearest)
            turn = max(-limit, min(limit, round(off / 30)))
            room = thrust - abs(turn)
            accel = max(-room, -ship.speed, min(room, cruise - ship.speed))
            written[ship.id] = Order(turn=turn, accel=accel)
        return written

    def fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        ready = ships_to_fire(ctx, state, side)
        ship_id = next((s for s in ready if _overload_ready(ctx, state, s)), ready[0])
        ship = state.ship(ship_id)
        if ship.nova:
            return ship_id, _nova_shots(ctx, state, ship_id)
        options = fire_options(ctx, state, ship_id)
        salvos = _salvo_shots(ctx, state, ship_id)
        reachable = sorted(
            _enemies_in(state, options),
            key=lambda t: (
                math.floor(range_between(ship.x, ship.y, state.ship(t).x, state.ship(t).y)),
                t,
            ),
        )
        chosen = reachable[: fire_controls(ctx, ship)]
        return ship_id, salvos + _aimed(ctx, state, ship_id, options, chosen)

    return Commander(
        with_torpedo_settings(
            with_scramble(with_asteroids(with_mines(with_fighters(with_sensors(orders), "attack"))))
        ),
        fire,
    )


def play(battle: Battle, commanders: dict[str, Commander], dice: DiceSource) -> Battle:
    """Play a battle to its end with one commander per side and the given dice."""
    hidden = dropout_ids(battle.ctx)
    while True:
        step = battle.step()
        if step.kind == StepKind.TERMINAL:
            return battle
        if step.kind == StepKind.SIMULTANEOUS and step.phase == "repair":
            for side in sides_to_repair(battle.ctx, battle.state):
                jobs = commanders[side].repairs(battle.ctx, battle.state, side)
                battle.repair(side, jobs, dice)
        elif step.kind == StepKind.SIMULTANEOUS and step.phase == "assault":
            for side in sides_to_assault(battle.ctx, battle.state):
                seen = view(battle.state, side, hidden)
                battle.assault(side, commanders[side].assaults(battle.ctx, seen, side))
        elif step.kind == StepKind.SIMULTANEOUS and step.phase == "repel":
            for side in sides_to_repel(battle.ctx, battle.state):
                seen = view(battle.state, side, hidden)  # the boarders' assaults are open now
                battle.repel(side, commanders[side].repel(battle.ctx, seen, side), dice)
        elif step.kind == StepKind.SIMULTANEOUS and step.phase == "flight":
            for side in sides_to_fly(battle.ctx, battle.state):
                seen = view(battle.state, side, hidden)
                battle.fly(side, commanders[side].flight(battle.ctx, seen, side))
        elif step.kind == StepKind.SIMULTANEOUS:
            for side in sides_to_write(battle.ctx, battle.state):
                seen = view(battle.state, side, hidden)  # the other side's orders stay secret
                battle.write_orders(side, commanders[side].orders(battle.ctx, seen, side))
        elif step.kind == StepKind.CHANCE:
            battle.resolve(dice)
        else:
            assert step.side is not None
            seen = view(battle.state, step.side, hidden)  # no shot at a ship it has not identified
            ship_id, shots = commanders[step.side].fire(battle.ctx, seen, step.side)
            battle.fire(ship_id, shots, dice)


# ---------------------------------------------------------------- the campaign's order commanders

STAND_OFF_MARGIN_MU = 4.0  # how far outside the enemy's reach a Stand Off ship keeps
STAND_OFF_THREAT = 1.5  # how much a Stand Off ship weighs the enemy's dice against its own
ENGAGE_CLOSE_MU = 6.0  # an Engage ship slows to hold about this range
UNPLANNED_HULL = 0.75  # an FTL Move ship jumps unplanned once it has lost a quarter of its hull
UNPLANNED_TURNS_LEFT = 2  # ... or when this few turns are left to get away


def _enemies(state: BattleState, side: str) -> list[ShipInPlay]:
    return [s for s in state.ships if s.side != side and s.status == "active"]


def _random_scan(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, order: Order, rng: random.Random
) -> Order:
    """Add an active scan to a random order: of the nearest bogeys, or naming up to one more
    of the bogeys in sight than the ship may scan (001 L951), which is void."""
    labels = [b.label for b in state.bogeys if b.side != ship.side]
    count = rng.randint(0, min(len(labels), scan_limit(ctx, ship) + 1))
    return msgspec.structs.replace(order, scan=True, scan_for=tuple(rng.sample(labels, count)))


def ram_course(ctx: BattleContext, ship: ShipInPlay, target: ShipInPlay) -> Order:
    """Return the legal order that ends the ship's move nearest where ``target`` will be if it
    flies straight on, with the ram on it written (001 L979-981); the order's text breaks ties.
    """
    dx, dy = velocity(target)
    tx, ty = target.x + dx, target.y + dy

    def miss(order: Order) -> tuple[float, str]:
        end = _end_of(ctx, ship, order)
        return range_between(end.x, end.y, tx, ty), _order_text(order)

    return msgspec.structs.replace(min(_all_orders(ctx, ship), key=miss), ram=target.id)


def _start(ship: ShipInPlay) -> MoveStart:
    return MoveStart(x=ship.x, y=ship.y, course=ship.course, speed=ship.speed, vector=ship.vector)


def _end_of(ctx: BattleContext, ship: ShipInPlay, order: Order) -> MoveResult:
    """Where the ship ends its move under ``order``, cinematic or vector."""
    return move(_start(ship), order, ctx.rules.split_velocity, whole=ctx.rules.vector_rounding)


def _all_orders(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """Every legal cinematic turn and speed change, or the vector candidates."""
    if ship.vector is not None:
        return _vector_candidates(ctx, ship)
    thrust, limit = order_limits(ctx, ship)
    return [
        Order(turn=turn, accel=accel)
        for turn in range(-limit, limit + 1)
        for accel in range(-(thrust - abs(turn)), thrust - abs(turn) + 1)
        if ship.speed + accel >= 0
    ]


def _vector_candidates(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """A modest set of legal vector orders to weigh (000 L13411-13986): every rotation or none,
    a main drive burn of none, half or all the thrust, before or after the rotation, then no
    push or a push of every manoeuvre point left to port, starboard or astern."""
    thrust, points = order_limits(ctx, ship)
    rotations: list[tuple[Burn, ...]] = [()]
    if points:
        rotations += [(Burn("TP", n),) for n in range(1, 7)]
        rotations += [(Burn("TS", n),) for n in range(1, 6)]
    candidates: list[Order] = []
    for rotation in rotations:
        left = points - len(rotation)
        pushes: list[tuple[Burn, ...]] = [()]
        pushes += [(Burn(kind, left),) for kind in PUSHES] if left else []
        for burn in sorted({0, (thrust + 1) // 2, thrust}):
            drive = (Burn("MD", burn),) if burn else ()
            sequences = [rotation + drive] + ([drive + rotation] if rotation and drive else [])
            candidates.extend(
                Order(vector=sequence + push) for sequence in sequences for push in pushes
            )
    return candidates


VECTOR_FACING_WEIGHT = 2.0
"""How many MU of velocity error a vector ship trades for one clock point of facing off the
way it wants to go (its bow guns, its drive)."""


def _vector_steer(ctx: BattleContext, ship: ShipInPlay, angle: float, speed: float) -> Order:
    """Return the vector candidate whose new velocity comes nearest ``speed`` MU along the
    absolute ``angle`` (degrees clockwise from +y), its facing nearest that way breaking near
    ties; the order's text breaks exact ones, so the choice is stable."""
    wx, wy = angle_vector(angle)
    wx, wy = wx * speed, wy * speed

    def score(order: Order) -> tuple[float, str]:
        end = _end_of(ctx, ship, order)
        assert end.vector is not None
        vx, vy = angle_vector(end.vector[0])
        error = math.hypot(vx * end.vector[1] - wx, vy * end.vector[1] - wy)
        off = abs((angle - end.course % 12 * 30 + 180.0) % 360.0 - 180.0) / 30
        value = error + VECTOR_FACING_WEIGHT * off + VECTOR_EDGE_WEIGHT * _edge_risk(ctx, end)
        return round(value, 6), _order_text(order)

    return min(_vector_candidates(ctx, ship), key=score)


def _edge_risk(ctx: BattleContext, end: MoveResult) -> float:
    """How many MU short of two bands' clearance of the gas giant edge a vector ship would be
    after this turn's drift, or after the next turn's flown straight on: the drift is a
    displacement every turn (004 L164-166), so a ship slower away from the well than the
    band sinks towards the edge."""
    theatre = ctx.setup.theatre
    if theatre is None or not theatre.gravity or theatre.well_edge is None:
        return 0.0
    assert end.vector is not None
    gravity = theatre.gravity
    away = angle_vector(end.vector[0])[0] * end.vector[1]
    now = end.x - gravity - theatre.well_edge
    later = now + away - gravity
    return max(0.0, 2 * gravity - min(now, later))


def _desperate_ram(
    ctx: BattleContext, ship: ShipInPlay, enemies: Sequence[ShipInPlay]
) -> Order | None:
    """Return a ram for a warship whose guns are all gone, on the nearest enemy it can end its
    move within 2" of, flown straight on (001 L981), or ``None``: ramming is a suicide attack,
    "rarely attempted" (001 L977), so Engage keeps it for a ship with nothing else to fight
    with."""
    sheet = ctx.sheets[ship.id]
    armed = any(spec.kind in BEAM_STRENGTH or spec.kind in TORPEDOES for spec in sheet.systems)
    if not armed or _reach(ctx, ship) > 0:
        return None
    for enemy in sorted(enemies, key=lambda e: (range_between(ship.x, ship.y, e.x, e.y), e.id)):
        order = ram_course(ctx, ship, enemy)
        end = _end_of(ctx, ship, order)
        dx, dy = velocity(enemy)
        ex, ey = enemy.x + dx, enemy.y + dy
        if range_between(end.x, end.y, ex, ey) <= RAM_RANGE_MU:
            return order
    return None


def _steer(ctx: BattleContext, ship: ShipInPlay, angle: float, speed: float) -> Order:
    """Return the legal order that turns as far towards the absolute ``angle`` (degrees
    clockwise from +y) as the ship may and brings its speed towards ``speed``.

    Over a gas giant the wanted velocity gains the band's MU away from the well, twice that
    near the edge, so that the end-of-turn drift does not carry the ship off (004 L164-168).
    """
    angle, speed = _lifted(ctx, ship, angle, speed)
    if ship.vector is not None:
        return _vector_steer(ctx, ship, angle, speed)
    thrust, limit = order_limits(ctx, ship)
    off = (angle - ship.course % 12 * 30 + 180.0) % 360.0 - 180.0
    turn = max(-limit, min(limit, round(off / 30)))
    room = thrust - abs(turn)
    accel = max(-room, -ship.speed, min(room, round(speed) - ship.speed))
    return Order(turn=turn, accel=accel)


def _lifted(
    ctx: BattleContext, ship: ShipInPlay, angle: float, speed: float
) -> tuple[float, float]:
    """The velocity (angle, speed) a ship wants with the gas giant's pull allowed for: the
    band's MU more away from the well, twice that near the edge (004 L164-168)."""
    theatre = ctx.setup.theatre
    if theatre is None or not theatre.gravity or theatre.well_edge is None:
        return angle, speed
    rad = math.radians(angle)
    lift = theatre.gravity * (2 if ship.x - theatre.well_edge < 4 * theatre.gravity else 1)
    vx, vy = speed * math.sin(rad) + lift, speed * math.cos(rad)
    return math.degrees(math.atan2(vx, vy)), math.hypot(vx, vy)


def _angle_to(ship: ShipInPlay, x: float, y: float) -> float:
    return math.degrees(math.atan2(x - ship.x, y - ship.y))


DEAD_ASTERN = 180.0  # the bearing fire.bearing gives a target right behind the ship


def _astern_side(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, target: ShipInPlay
) -> float:
    """Which way to come about for a target dead astern: 1.0 starboard, -1.0 port.

    Towards the side where the other ships in play lie (the sum of the sines of their
    bearings, each weighed by its hull boxes left), so that a mirrored position turns the
    mirrored way and neither side of a mirrored battle gains by a fixed starboard turn;
    starboard only when they balance too (docs/rulings.md, "Tactical: mirror-fair
    commanders").
    """
    lean = sum(
        math.sin(math.radians(bearing(ship.x, ship.y, ship.course, other.x, other.y)))
        * hull_remaining(ctx.sheets[other.id], other.record)
        for other in state.ships
        if other.status == "active" and other.id not in (ship.id, target.id)
    )
    return -1.0 if lean < -ASTERN_BALANCE else 1.0


ASTERN_BALANCE = 1e-9  # sums this close to 0 are balanced (floating error of a mirror image)


def _reach(ctx: BattleContext, ship: ShipInPlay) -> float:
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


def _focused_fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
    """Fire the ship with the most guns bearing, at the targets with least hull left.

    A ship with its nova cannon armed fires first, and only if more enemies than friends lie
    in the corridor its three templates will sweep; it holds fire otherwise (its arming is
    lost either way, 001 L911).
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
        enemies, friends = _nova_count(state, ship, corridor, widest)
        shots = _nova_shots(ctx, state, ship.id) if enemies > friends else []
        return ship.id, shots
    ship_id = max(
        ready,
        key=lambda s: (_overload_ready(ctx, state, s), len(fire_options(ctx, state, s)), s),
    )
    ship = state.ship(ship_id)
    options = fire_options(ctx, state, ship_id)
    salvos = _salvo_shots(ctx, state, ship_id)
    reachable = sorted(
        _enemies_in(state, options),
        key=lambda t: (
            hull_remaining(ctx.sheets[t], state.ship(t).record),
            range_between(ship.x, ship.y, state.ship(t).x, state.ship(t).y),
            t,
        ),
    )
    chosen = reachable[: fire_controls(ctx, ship)]
    return ship_id, salvos + _aimed(ctx, state, ship_id, options, chosen)


NOVA_AIM_SLACK_MU = 3.0
"""How far off the nova's line an Engage ship still counts an enemy (forecast flying straight
on) as caught: the enemy may turn, but the later 4" and 6" templates sweep wider."""


def _has_nova(ctx: BattleContext, ship: ShipInPlay) -> bool:
    sheet = ctx.sheets[ship.id]
    return any(
        spec.kind == NOVA and now.status == "ok"
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
    )


def _nova_shots(ctx: BattleContext, state: BattleState, ship_id: str) -> list[Shot]:
    """The armed nova cannon's shot along the bow, if it can fire (001 L906)."""
    return [Shot(weapon, NOVA_LINE) for weapon in fire_options(ctx, state, ship_id)]


def _nova_path(
    x: float, y: float, course: int, advance: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The first template's sweep from a ship ``advance`` MU further on (001 L913-917)."""
    dx, dy = heading_vector(course)
    near, far = advance + NOVA_ARMING_MU, advance + NOVA_ARMING_MU + NOVA_STAGES[0][1]
    return (x + dx * near, y + dy * near), (x + dx * far, y + dy * far)


def _nova_count(
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


def _arm_nova(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether an Engage ship arms its nova cannon: an enemy is forecast on the line of fire
    after the straight move arming forces on it, and no friend is (001 L908-917)."""
    if not _has_nova(ctx, ship):
        return False
    path = _nova_path(ship.x, ship.y, ship.course, ship.speed)
    width = NOVA_STAGES[0][0] + 2 * NOVA_AIM_SLACK_MU
    enemies, friends = _nova_count(state, ship, path, width, forecast=True)
    return enemies > 0 and friends == 0


def engage_commander() -> Commander:
    """Return the Engage commander: close on the nearest enemy and fight (004 L108).

    A ship with a nova cannon arms it when an enemy is forecast on its bow's line.
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = _enemies(state, side)
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not enemies:
                continue
            if _arm_nova(ctx, state, ship):
                written[ship.id] = Order(nova=True)
                continue
            ram = _desperate_ram(ctx, ship, enemies)
            if ram is not None:
                written[ship.id] = ram
                continue
            target = min(enemies, key=lambda e: (range_between(ship.x, ship.y, e.x, e.y), e.id))
            distance = range_between(ship.x, ship.y, target.x, target.y)
            # Keep up with the target's motion away from the ship (none if it comes on) and
            # close half the gap beyond a short range each turn. Matching its whole speed would
            # double the closing rate of two Engage ships meeting head on, and after each
            # pass their speeds would climb without end.
            speed = max(2.0, _receding(ship, target) + (distance - ENGAGE_CLOSE_MU) / 2)
            angle = _angle_to(ship, target.x, target.y)
            if bearing(ship.x, ship.y, ship.course, target.x, target.y) == DEAD_ASTERN:
                # Just short of dead astern, on the side _astern_side picks, for _steer.
                side_sign = _astern_side(ctx, state, ship, target)
                angle = ship.course % 12 * 30 + side_sign * (DEAD_ASTERN - 1.0)
            if ship.vector is not None:
                written[ship.id] = _vector_engage(ctx, state, ship, target)
                continue
            written[ship.id] = _steer(ctx, ship, angle, speed)
        return written

    return Commander(
        with_torpedo_settings(
            with_scramble(with_asteroids(with_mines(with_fighters(with_sensors(orders), "attack"))))
        ),
        _focused_fire,
        flight=posture_flight("attack"),
    )


def _receding(ship: ShipInPlay, target: ShipInPlay) -> float:
    """How fast the target draws away from the ship along the line between them, in MU a
    turn: its drift's share along that line, never less than nothing."""
    vx, vy = velocity(target)
    gx, gy = target.x - ship.x, target.y - ship.y
    gap = math.hypot(gx, gy)
    return max(0.0, (vx * gx + vy * gy) / gap) if gap else 0.0


def _closing_vector(ship: ShipInPlay, target: ShipInPlay) -> tuple[float, float]:
    """The velocity (angle, speed) a vector Engage ship wants: the target's own velocity, so
    it keeps up instead of trailing by the target's speed, plus a share of the gap beyond
    :data:`ENGAGE_CLOSE_MU` (:data:`VECTOR_CHASE_SHARE` of it when the target opens the range,
    :data:`VECTOR_CLOSE_SHARE` when it comes on), so that a ship which can change its velocity
    only by its thrust a turn does not run past its target."""
    vx, vy = velocity(target)
    gx, gy = target.x - ship.x, target.y - ship.y
    gap = math.hypot(gx, gy)
    share = VECTOR_CHASE_SHARE if vx * gx + vy * gy > 0 else VECTOR_CLOSE_SHARE
    scale = share * (gap - ENGAGE_CLOSE_MU) / gap if gap else 0.0
    dx, dy = vx + gx * scale, vy + gy * scale
    if dx == dy == 0.0:
        return ship.course % 12 * 30.0, 0.0
    return math.degrees(math.atan2(dx, dy)), math.hypot(dx, dy)


VECTOR_CHASE_SHARE = 0.5
"""The share of the gap beyond :data:`ENGAGE_CLOSE_MU` a vector Engage ship closes a turn on a
target running from it (the cinematic Engage's half)."""
VECTOR_CLOSE_SHARE = 0.25
"""... and on a target coming on or passing: a quarter, so the two do not meet at a speed the
ship cannot shed (Engage beat the random commander in 92.5% of 400 battles with a quarter, 78%
with a half; docs/rulings.md, "Tactical: vector movement")."""
VECTOR_ERROR_MU = 8.0
"""A vector Engage ship's velocity error of e MU costs e * e / 8: a small error is cheap
against a die, a large one (an overshoot, turns lost coming back) dear."""
ENGAGE_DIE_MU = 2.0
"""What a vector Engage ship gives for each beam die it could roll this turn at an enemy's
forecast place (in the units of :data:`VECTOR_ERROR_MU`'s cost)."""
ENGAGE_THREAT_MU = 1.0
"""... what it pays for each beam die the enemies could roll at it from theirs."""
ENGAGE_FACING_MU = 1.0
"""... and for each clock point its bow lies off its target's forecast place."""
VECTOR_EDGE_WEIGHT = 2.0
"""What a vector ship pays for each MU it would come short of clearing the gas giant edge by
two bands (:func:`_edge_risk`)."""


def _vector_engage(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, target: ShipInPlay
) -> Order:
    """Return the vector order an Engage ship flies (docs/rulings.md, "Tactical: vector
    movement"): of its candidates (:func:`_vector_candidates`), the one with the lowest cost,
    the enemies assumed to fly straight on:

    - the square of its new velocity's error from :func:`_closing_vector` (lifted over a gas
      giant), over :data:`VECTOR_ERROR_MU`;
    - less :data:`ENGAGE_DIE_MU` a beam die it could roll at the best enemy this turn, plus
      :data:`ENGAGE_THREAT_MU` a die the enemies could roll at it, none through an asteroid;
    - plus :data:`ENGAGE_FACING_MU` a clock point its bow lies off the target's forecast
      place, and :data:`VECTOR_EDGE_WEIGHT` an MU of :func:`_edge_risk`.

    The order's text breaks ties, so the choice is stable.
    """
    angle, speed = _lifted(ctx, ship, *_closing_vector(ship, target))
    wx, wy = angle_vector(angle)
    wx, wy = wx * speed, wy * speed
    asteroids = asteroids_now(ctx, state)
    ahead: Forecast = []
    for enemy in _enemies(state, ship.side):
        dx, dy = velocity(enemy)
        ahead.append((enemy, (enemy.x + dx, enemy.y + dy, enemy.course)))
    tdx, tdy = velocity(target)
    tx, ty = target.x + tdx, target.y + tdy
    guns = {s.id: _guns(ctx, s) for s in (ship, *(enemy for enemy, _ in ahead))}
    candidates = [(order, _end_of(ctx, ship, order)) for order in _vector_candidates(ctx, ship)]
    # Enemies out of every candidate's reach roll and take no dice: leave them out. Many
    # candidates end in the same place: each place's dice are counted once.
    moved = max(_moved(ship, end) for _, end in candidates)
    shooters, targets = _within_reach(ship, ahead, guns, moved)
    hits_from: dict[tuple[float, float, int], int] = {}
    threat_at: dict[tuple[float, float], int] = {}

    def score(order: Order, end: MoveResult) -> tuple[float, str]:
        assert end.vector is not None
        vx, vy = angle_vector(end.vector[0])
        error = math.hypot(vx * end.vector[1] - wx, vy * end.vector[1] - wy)
        at = (end.x, end.y, end.course)
        hits = hits_from.get(at)
        if hits is None:
            hits = hits_from[at] = max(
                (
                    _dice_on(ctx, ship, at, ex, ey, asteroids, guns[ship.id])
                    for _, (ex, ey, _c) in targets
                ),
                default=0,
            )
        threat = threat_at.get(at[:2])
        if threat is None:
            threat = threat_at[at[:2]] = sum(
                _dice_on(ctx, enemy, where, end.x, end.y, asteroids, guns[enemy.id])
                for enemy, where in shooters
            )
        off = abs(bearing(end.x, end.y, end.course, tx, ty)) / 30
        value = (
            error * error / VECTOR_ERROR_MU
            - ENGAGE_DIE_MU * hits
            + ENGAGE_THREAT_MU * threat
            + ENGAGE_FACING_MU * off
            + VECTOR_EDGE_WEIGHT * _edge_risk(ctx, end)
        )
        return round(value, 6), _order_text(order)

    return min(candidates, key=lambda pair: score(*pair))[0]


@functools.cache
def _order_text(order: Order) -> str:
    """An order's notation, the commanders' tie-break: the same few hundred candidate orders
    are scored for every ship every turn, so each is written out once."""
    return format_order(order)


def _moved(ship: ShipInPlay, end: MoveResult) -> float:
    return math.hypot(end.x - ship.x, end.y - ship.y)


REACH_MARGIN_MU = 1.0
"""Slack on :func:`_within_reach`'s bound, far above any rounding, so that it only ever leaves
out enemies that could not count."""


def _within_reach(
    ship: ShipInPlay, ahead: Forecast, guns: Mapping[str, _Guns], moved: float
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


class _Guns(NamedTuple):
    """A ship's working beams (kind and arcs), the longest range any of them reaches, and the
    beam dice it rolls at a target in each arc, by range band (``dice[arc][band - 1]``)."""

    beams: tuple[tuple[str, tuple[str, ...]], ...]
    reach: float
    dice: dict[str, tuple[int, ...]]


def _guns(ctx: BattleContext, shooter: ShipInPlay) -> _Guns:
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
    return _Guns(beams, reach, dice)


def _dice_on(
    ctx: BattleContext,
    shooter: ShipInPlay,
    at: tuple[float, float, int],
    tx: float,
    ty: float,
    asteroids: Sequence[tuple[float, float]] = (),
    guns: _Guns | None = None,
) -> int:
    """The beam dice ``shooter`` would roll at a point from ``at`` (x, y, course); none
    through an asteroid (001 L1088). ``guns`` is :func:`_guns` of the shooter, worked out
    once by a caller that asks many times."""
    x, y, course = at
    guns = guns or _guns(ctx, shooter)
    distance = range_between(x, y, tx, ty)
    if distance > guns.reach:
        return 0
    arc = arc_of(bearing(x, y, course, tx, ty), ctx.rules.arcs)
    if arc == AFT or (asteroids and line_blocked((x, y), (tx, ty), asteroids)):
        return 0
    by_band = guns.dice.get(arc, ())
    band = max(1, math.ceil(distance / BAND_MU))
    return by_band[band - 1] if band <= len(by_band) else 0


def _candidate_orders(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """Legal orders worth weighing: every turn, with five speed changes each (under vector
    movement, :func:`_vector_candidates`)."""
    if ship.vector is not None:
        return _vector_candidates(ctx, ship)
    thrust, limit = order_limits(ctx, ship)
    candidates: list[Order] = []
    for turn in range(-limit, limit + 1):
        room = thrust - abs(turn)
        for accel in sorted({-room, -room // 2, 0, room // 2, room}):
            if ship.speed + accel >= 0:
                candidates.append(Order(turn=turn, accel=accel))
    return candidates


Forecast = list[tuple[ShipInPlay, tuple[float, float, int]]]
"""Enemy ships and where each will be after flying straight on: (x, y, course)."""


def _weigh(
    ctx: BattleContext,
    ship: ShipInPlay,
    start: MoveStart,
    order: Order,
    ahead: Forecast,
    keep: float,
    asteroids: Sequence[tuple[float, float]] = (),
    guns: Mapping[str, _Guns] | None = None,
) -> tuple[float, str]:
    """Score one Stand Off order; the order's text breaks ties, so the choice is stable.
    Dice count only along lines no asteroid of this turn blocks."""
    end = move(start, order, ctx.rules.split_velocity, whole=ctx.rules.vector_rounding)
    at = (end.x, end.y, end.course)
    guns = guns or {}
    hits = max(
        _dice_on(ctx, ship, at, ex, ey, asteroids, guns.get(ship.id)) for _, (ex, ey, _c) in ahead
    )
    threat = sum(
        _dice_on(ctx, enemy, where, end.x, end.y, asteroids, guns.get(enemy.id))
        for enemy, where in ahead
    )
    nearest = min(range_between(end.x, end.y, ex, ey) for _, (ex, ey, _c) in ahead)
    value = hits - STAND_OFF_THREAT * threat - abs(nearest - keep) / BAND_MU
    theatre = ctx.setup.theatre
    if theatre is not None and theatre.gravity and theatre.well_edge is not None:
        # Keep well clear of the gas giant edge after the drift (004 L164-168).
        margin = end.x - theatre.gravity - theatre.well_edge
        value -= max(0.0, 3 * theatre.gravity - margin)
    return value, _order_text(order)


def stand_off_commander() -> Commander:
    """Return the Stand Off commander: keep the range, fire what bears (004 L109-110).

    Each ship weighs its legal orders one move ahead, the enemy assumed to fly straight on:
    the dice its guns would roll at the best target, less one and a half times the dice the
    enemy's guns would roll at it, then nearness to the range it wants to keep (outside the
    enemy's longest band if its own guns reach further, else just outside the enemy's reach).
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = _enemies(state, side)
        their_reach = max((_reach(ctx, e) for e in enemies), default=0.0)
        asteroids = asteroids_now(ctx, state)  # they drift at the end of the turn
        ahead: Forecast = []
        for enemy in enemies:
            dx, dy = velocity(enemy)
            ahead.append((enemy, (enemy.x + dx, enemy.y + dy, enemy.course)))
        guns = {ship.id: _guns(ctx, ship) for ship in state.ships if ship.status == "active"}
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not enemies:
                continue
            ours = _reach(ctx, ship)
            keep = (
                (their_reach + ours) / 2
                if ours > their_reach + STAND_OFF_MARGIN_MU
                else their_reach + STAND_OFF_MARGIN_MU
            )
            start = _start(ship)
            written[ship.id] = max(
                _candidate_orders(ctx, ship),
                key=lambda order: _weigh(ctx, ship, start, order, ahead, keep, asteroids, guns),
            )
        return written

    return Commander(
        with_torpedo_settings(with_scramble(with_fighters(with_sensors(orders), "defend"))),
        _focused_fire,
        flight=posture_flight("defend"),
    )


def _away_angle(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> float:
    """The heading that runs from the enemies (weighted by nearness) and from any no-FTL
    zone the ship is in or near."""
    ax = ay = 0.0
    for enemy in _enemies(state, ship.side):
        d = max(range_between(ship.x, ship.y, enemy.x, enemy.y), 1.0)
        ax += (ship.x - enemy.x) / d**2
        ay += (ship.y - enemy.y) / d**2
    theatre = ctx.setup.theatre
    for zone in theatre.zones if theatre else ():
        d = max(range_between(ship.x, ship.y, zone.x, zone.y), 1.0)
        if d < zone.radius + BAND_MU:
            ax += 3 * (ship.x - zone.x) / d**2
            ay += 3 * (ship.y - zone.y) / d**2
    if ax == ay == 0.0:
        return ship.course % 12 * 30.0
    return math.degrees(math.atan2(ax, ay))


def _clear_to_jump(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether a power-up now ends in a legal jump: straight on this turn, half a move the
    next, and no no-FTL zone at that point (004 L144-146)."""
    theatre = ctx.setup.theatre
    if theatre is None or ship.record.ftl != "ok" or ship.side not in theatre.ftl_sides:
        return False
    dx, dy = velocity(ship)
    x = ship.x + dx * 1.5
    y = ship.y + dy * 1.5
    return ftl_blocked(theatre, state.turn + 1, x, y) is None


def ftl_move_commander() -> Commander:
    """Return the FTL Move commander: run, and jump as soon as it may (004 L111, L139-145)."""

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        for ship in state.ships:
            if ship.side != side or ship.status != "active":
                continue
            if ship.jump in ("powering", "unplanned"):
                written[ship.id] = NO_ORDER  # entering jump: no order to give
                continue
            sheet = ctx.sheets[ship.id]
            hurt = hull_remaining(sheet, ship.record) <= sheet.hull_boxes * UNPLANNED_HULL
            late = state.turn >= ctx.setup.turn_limit - UNPLANNED_TURNS_LEFT
            wants = ship.jump == "ready" or hurt or late
            if wants and _clear_to_jump(ctx, state, ship):
                written[ship.id] = Order(jump=True)
                continue
            thrust = order_limits(ctx, ship)[0]
            written[ship.id] = _steer(
                ctx, ship, _away_angle(ctx, state, ship), 3.0 * max(thrust, 1)
            )
        return written

    return Commander(
        with_torpedo_settings(with_asteroids(with_mines(with_fighters(orders, "recover")))),
        _focused_fire,
        flight=posture_flight("recover"),
    )


def order_commander(order: str) -> Commander:
    """Return the commander for a campaign order: ``engage``, ``stand-off`` or ``ftl-move``.

    Raises:
        ValueError: no such order.
    """
    makers = {
        "engage": engage_commander,
        "stand-off": stand_off_commander,
        "ftl-move": ftl_move_commander,
    }
    if order not in makers:
        raise ValueError(f"no campaign order {order!r}; orders are {', '.join(makers)}")
    commander = makers[order]()
    if order == "stand-off":
        # Engage and FTL Move carry the mine and asteroid doctrines themselves; Stand Off's
        # are added here, and its torpedo settings chosen again after them.
        commander.orders = with_torpedo_settings(with_asteroids(with_mines(commander.orders)))
    return commander


COMMANDER_NAMES = ("closing", "engage", "stand-off", "ftl-move")
"""The commanders a table battle can put on a side: the closing commander of the demo and the
campaign's three order commanders."""


def named_commander(name: str) -> Commander:
    """Return the commander called ``name``, one of :data:`COMMANDER_NAMES`.

    Raises:
        ValueError: no such commander; the message lists them.
    """
    if name == "closing":
        return closing_commander()
    if name not in COMMANDER_NAMES:
        raise ValueError(f"no commander {name!r}; commanders are {', '.join(COMMANDER_NAMES)}")
    return order_commander(name)
