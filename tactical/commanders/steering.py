"""What every order commander shares for moving: the candidate orders and the steering
towards a point (cinematic or vector, 000 12.12), the table's edges, rams (001 L977-995), and
the layers that adjust a chosen move: fighters launched and scrambled, sensors, asteroids
(001 L1092-1106), mines and torpedo settings (000 L4669-4800).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import msgspec

from tactical.asteroids import AVOID_ALWAYS, asteroids_crossed, avoid_need, drift_legs, ends_inside
from tactical.battle import (
    AFT,
    BattleContext,
    BattleState,
    ShipInPlay,
    asteroids_now,
    fire_controls,
    fire_options,
    group_reach,
    launch_capacity,
    launch_options,
    launchable_bays,
    mine_layers,
    move_by_rules,
    move_path,
    move_start,
    order_limits,
    scan_limit,
    scramble_bays,
    setting_problem,
    sweeper_working,
    velocity,
)
from tactical.commanders.scoring import (
    LAUNCH_RANGE_MU,
    Forecast,
    Posture,
    WriteOrders,
    enemies_of,
    order_text,
    reach_of,
    wants_home,
)
from tactical.commanders.spatial import spatial_candidates
from tactical.fighters import DEFENDING_BEAM, FIGHTER_RANGE_MU
from tactical.fire import (
    BAND_MU,
    TORPEDO_SETTINGS,
    arc_of,
    bearing,
    line_blocked,
    range_between,
    torpedo_band,
    torpedo_to_hit,
    torpedo_warhead,
)
from tactical.mines import MINE_RADIUS_MU, MINE_TENTHS, Mine, Path, first_contact, point_along
from tactical.movement import (
    NO_ORDER,
    PUSHES,
    Burn,
    MoveResult,
    MoveStart,
    Order,
    angle_vector,
    format_order,
    spends_thrust,
)
from tactical.sensors import ACTIVE_RANGE_MU, AREA_ECM, ECM, PASSIVE_RANGE_MU
from tactical.ship import collision_thrust, hull_remaining


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
        enemies = enemies_of(state, side)
        for ship in _free(state, side):
            homing = [
                g for g in state.fighters if g.carrier == ship.id and wants_home(ctx, g, posture)
            ]
            dx, dy = velocity(ship)
            ex, ey = ship.x + dx, ship.y + dy
            if any(range_between(g.x, g.y, ex, ey) <= group_reach(ctx, g) for g in homing):
                written[ship.id] = NO_ORDER
                continue
            close = any(range_between(ship.x, ship.y, e.x, e.y) <= LAUNCH_RANGE_MU for e in enemies)
            if posture == "recover" or not close or not launchable_bays(ctx, state, ship):
                continue
            capacity = launch_capacity(ctx, state, ship)  # one per launch tube (000 L8536-8538)
            if capacity:
                written[ship.id] = Order(launch=capacity)
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
            thrust = spends_thrust(order)
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


def with_ecm(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders (outermost): a ship with working ECM switches it on
    every turn (``/ecm``, 000 L12832-12838), unless it makes an active scan, which its own
    jamming would hinder (000 L12822-12832). A ship with area ECM, which blinds its own
    FireCons while on (000 L7778-7784), switches on only while none of its weapons has an
    enemy in reach (see docs/rulings.md, "Tactical: ECM and advanced sensors")."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        if not ctx.rules.sensors_ecm:
            return written
        for ship in _free(state, side):
            order = written.get(ship.id, NO_ORDER)
            if order.scan or ship.record.out_of_control:
                continue
            sheet = ctx.sheets[ship.id]
            kinds = {
                spec.kind
                for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
                if now.status == "ok"
            }
            if ECM not in kinds and AREA_ECM not in kinds:
                continue
            if AREA_ECM in kinds and any(fire_options(ctx, state, ship.id).values()):
                continue
            written[ship.id] = msgspec.structs.replace(order, ecm=True)
        return written

    return wrapped


def with_beam_defence(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders with a doctrine for Beam-1s (000 L9105-9109): a ship
    with working Beam-1s puts them on point defence (``/pd``) when enemy fighters or missiles
    may strike it this turn (:func:`ordnance_within_reach`) and no enemy ship is within 12 MU,
    the Beam-1's reach, where they would rather fire at it: neither now nor after the move
    (:func:`_gun_reach_after_move`). An Engage ship closing on the enemy otherwise put its
    Beam-1s on defence at 13 MU and more and came into their reach unable to fire them (the
    cinematic Engage won 61% of the decisive battles against the baseline with open books,
    83% without point defence)."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        if not ctx.rules.beam_point_defence:
            return written
        enemies = enemies_of(state, side)
        for ship in _free(state, side):
            has_beam_1 = any(
                spec.kind == DEFENDING_BEAM and now.status == "ok"
                for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
            )
            if not has_beam_1 or any(
                range_between(ship.x, ship.y, e.x, e.y) <= BAND_MU for e in enemies
            ):
                continue
            order = written.get(ship.id, NO_ORDER)
            # The cheaper test first: most ships meet no enemy ordnance, and need no move.
            if not ordnance_within_reach(ctx, state, ship):
                continue
            if not _gun_reach_after_move(ctx, ship, order, enemies):
                written[ship.id] = msgspec.structs.replace(order, point_defence=True)
        return written

    return wrapped


PD_CLOSING_MU = 6.0
"""How much nearer than its straight flight an enemy ship is taken to come this turn when a
ship weighs its Beam-1s for point defence: it may burn its drive at it."""


def _gun_reach_after_move(
    ctx: BattleContext, ship: ShipInPlay, order: Order, enemies: Sequence[ShipInPlay]
) -> bool:
    """Whether an enemy ship may lie within a Beam-1's reach (:data:`BAND_MU`) of where the
    ship's order leaves it, the enemy forecast flying straight on and coming
    :data:`PD_CLOSING_MU` nearer."""
    end = end_of(ctx, ship, order)
    for enemy in enemies:
        dx, dy = velocity(enemy)
        if range_between(end.x, end.y, enemy.x + dx, enemy.y + dy) <= BAND_MU + PD_CLOSING_MU:
            return True
    return False


def ordnance_within_reach(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether enemy fighters or missiles may strike this ship this turn: a group in flight
    within its move and its weapons' reach (001 L777), or a ship with a salvo launcher ready
    within the longest launch range and the homing radius (000 L5749-5786)."""
    fighter_reach = ctx.rules.fighter_move + FIGHTER_RANGE_MU
    if any(
        g.side != ship.side and range_between(ship.x, ship.y, g.x, g.y) <= fighter_reach
        for g in state.fighters
    ):
        return True
    return any(
        range_between(ship.x, ship.y, e.x, e.y) <= SALVO_REACH_MU
        and launch_options(ctx, state, e.id)
        for e in enemies_of(state, ship.side)
    )


SALVO_REACH_MU = 36.0 + 6.0
"""An extended-range salvo's launch range and the homing radius (000 L5749-5753, L5778-5786):
the furthest an enemy launcher may be and still strike a ship this turn."""


SEEK_SPEED = 8
"""The speed a ship seeking bogeys steers at while no enemy is identified."""


def with_sensors(
    orders: WriteOrders,
) -> WriteOrders:
    """Wrap a commander's movement orders with a doctrine for bogeys (001 L933-951), seen
    only in its view's ``bogeys``: while no enemy ship is identified, a ship steers at the
    nearest bogey; a ship with active sensors scans (``A``) when a bogey lies beyond its
    passive reach but within the scan's 54", giving itself away for it (001 L947-949)."""

    def wrapped(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written = orders(ctx, state, side)
        contacts = [b for b in state.bogeys if b.side != side]
        if not contacts:
            return written
        seeking = not enemies_of(state, side)
        for ship in _free(state, side):
            order = written.get(ship.id, NO_ORDER)
            ranges = [range_between(ship.x, ship.y, b.x, b.y) for b in contacts]
            if seeking and order == NO_ORDER:
                near = contacts[ranges.index(min(ranges))]
                order = steer_to(ctx, ship, angle_to(ship, near.x, near.y), SEEK_SPEED)
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
    for enemy in enemies_of(state, side):
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
    that sweep (000 L18073-18101) the move risks the asteroid it ends inside, and the drift
    at the start of next turn sweeping over where it ends; else any its path crosses."""
    return _risked(ctx, ship, end_of(ctx, ship, order), asteroids) > 0


def _risked(
    ctx: BattleContext, ship: ShipInPlay, end: MoveResult, asteroids: Sequence[tuple[float, float]]
) -> int:
    """How many asteroids a move ending at ``end`` risks (:func:`_asteroid_risk`): met at a
    velocity that may crash the ship. The path is the engine's: start, mid-move point, end."""
    need = avoid_need(
        velocity=_end_velocity(end), thrust=collision_thrust(ctx.sheets[ship.id], ship.record)
    )
    if need <= AVOID_ALWAYS:
        return 0  # it would avoid any asteroid automatically (001 L1106)
    path = ((ship.x, ship.y), (end.mid_x, end.mid_y), (end.x, end.y))
    theatre = ctx.setup.theatre
    if theatre is None or theatre.asteroid_motion != "sweep" or theatre.field is None:
        return len(asteroids_crossed(path, asteroids))
    legs = [leg for start in asteroids for leg in drift_legs(start, theatre.drift, theatre.field)]
    return len(ends_inside(path[-1], asteroids)) + sum(
        line_blocked(a, b, [path[-1]]) for a, b in legs
    )


def _end_velocity(end: MoveResult) -> float:
    """The velocity a move ends at: the one a collision is rolled with (001 L1092)."""
    return end.vector[1] if end.vector is not None else float(end.speed)


def _crash_chance(ctx: BattleContext, ship: ShipInPlay, end: MoveResult, risked: int) -> float:
    """The chance a move ending at ``end`` crashes the ship, rolling for each of the
    ``risked`` asteroids with its new velocity less its thrust (001 L1092-1108): for the
    doctrine's choice when every order takes a risk."""
    need = avoid_need(
        velocity=_end_velocity(end), thrust=collision_thrust(ctx.sheets[ship.id], ship.record)
    )
    fails = min(1.0, max(0.0, (need - 1) / 6))
    return 1.0 - (1.0 - fails) ** risked


def _braking_burns(end: MoveResult, thrust: int, points: int) -> list[Order]:
    """The vector orders that slow a ship most: rotate to either clock point on each side of
    dead astern of its velocity (with a manoeuvre point to spend, 000 L13411-13986), then
    burn the whole main drive."""
    assert end.vector is not None
    astern = (end.vector[0] + 180.0) / 30.0
    burns: list[Order] = []
    for facing in {math.floor(astern) % 12, math.ceil(astern) % 12}:
        points_off = (facing - end.course) % 12
        if points_off and not points:
            continue
        rotation: tuple[Burn, ...] = ()
        if points_off:
            rotation = (
                (Burn("TS", points_off),) if points_off < 6 else (Burn("TP", 12 - points_off),)
            )
        burns.append(Order(vector=(*rotation, Burn("MD", thrust))))
    return burns


def _slowest_next(ctx: BattleContext, ship: ShipInPlay, end: MoveResult) -> float:
    """The least velocity the ship can have after next turn's move, from where a move ends
    this one, its thrust as now: cinematic, its speed less its thrust (001 L366); vector,
    the better of its braking burns (:func:`_braking_burns`); spatial, its velocity less its
    thrust, a bound."""
    thrust, points = order_limits(ctx, ship)
    velocity_now = _end_velocity(end)
    if end.vector is None or ctx.rules.movement == "spatial":
        return max(0.0, velocity_now - thrust)
    start = MoveStart(
        x=end.x, y=end.y, course=end.course, speed=end.speed, vector=end.vector, spin=end.spin
    )
    return min(
        velocity_now,
        *(_end_velocity(move_by_rules(ctx, start, o)) for o in _braking_burns(end, thrust, points)),
    )


def _can_slow_down(ctx: BattleContext, ship: ShipInPlay, end: MoveResult) -> bool:
    """Whether, after a move ending at ``end``, the ship can bring its velocity next turn
    down to where it avoids any asteroid automatically (001 L1106): its velocity less its
    thrust 1 or less. A ship that always can always has an order that risks no asteroid,
    wherever the field drifts: the one that slows it so, and after that, flying on."""
    thrust = collision_thrust(ctx.sheets[ship.id], ship.record)
    velocity_now = _end_velocity(end)
    if avoid_need(velocity=velocity_now, thrust=thrust) <= AVOID_ALWAYS:
        return True
    if avoid_need(velocity=velocity_now - order_limits(ctx, ship)[0], thrust=thrust) > AVOID_ALWAYS:
        return False  # no burn slows it by more than its thrust
    return avoid_need(velocity=_slowest_next(ctx, ship, end), thrust=thrust) <= AVOID_ALWAYS


def _asteroid_order(
    ctx: BattleContext, ship: ShipInPlay, order: Order, asteroids: Sequence[tuple[float, float]]
) -> Order | None:
    """The legal order that replaces ``order`` in an asteroid field, or ``None`` to keep it.

    The order stands if it risks no asteroid (:func:`_asteroid_risk`) and leaves the ship able
    to slow to a safe velocity next turn (:func:`_can_slow_down`). Else the candidate ending
    nearest where it would have, of those that are both; failing any, the order itself if it
    risks no asteroid now, else the nearest candidate that risks none; failing any, of the
    order and the candidates the one least likely to crash (:func:`_crash_chance`), the slower
    first, the order itself on a tie. Ties go to the order's text, so the choice is stable.
    """
    ending = end_of(ctx, ship, order)
    risked = _risked(ctx, ship, ending, asteroids)
    if not risked and _can_slow_down(ctx, ship, ending):
        return None
    # The order itself competes (as None, ending where it means to, its text first): it
    # stands unless a candidate does better.
    safe: list[tuple[tuple[int, float, str], Order | None]] = []
    risky: list[tuple[tuple[float, float, float, str], Order | None]] = []
    if risked:
        chance = _crash_chance(ctx, ship, ending, risked)
        risky.append(((chance, _end_velocity(ending), 0.0, ""), None))
    else:
        safe.append(((1, 0.0, ""), None))
    ends = [(end_of(ctx, ship, candidate), candidate) for candidate in _all_orders(ctx, ship)]
    nearest = sorted(
        (
            (
                range_between(end.x, end.y, ending.x, ending.y),
                format_order(candidate),
                end,
                candidate,
            )
            for end, candidate in ends
        ),
        key=lambda entry: (entry[0], entry[1]),
    )
    for miss, text, end, candidate in nearest:
        if risked := _risked(ctx, ship, end, asteroids):
            chance = _crash_chance(ctx, ship, end, risked)
            risky.append(((chance, _end_velocity(end), miss, text), candidate))
        elif _can_slow_down(ctx, ship, end):
            return candidate  # the nearest of the best: nothing later beats it
        else:
            safe.append(((1, miss, text), candidate))
    if safe:
        return min(safe, key=lambda pair: pair[0])[1]
    return min(risky, key=lambda pair: pair[0])[1]


def with_asteroids(orders: WriteOrders) -> WriteOrders:
    """Wrap a commander's movement orders with a pilot's care for asteroids (001 L1092-1110).

    A ship whose move risks a collision, or would leave it too fast to slow next turn to a
    velocity that avoids any asteroid automatically, takes the legal order (turn and speed
    change, or the vector candidates) chosen by :func:`_asteroid_order`; its other
    instructions (scans, mines, sweeps, a ram) stay. A launch, a pivot or a nova shot keeps
    its order.
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
            safe = _asteroid_order(ctx, ship, order, asteroids)
            if safe is not None:
                written[ship.id] = msgspec.structs.replace(
                    order,
                    turn=safe.turn,
                    accel=safe.accel,
                    vector=safe.vector,
                    spatial=safe.spatial,
                )
        return written

    return wrapped


BACKFIRE_TURNS = 3
"""How many turns of its standard shots a commander counts an overloaded tube as risking: a
hit's damage die of 1 and a second 1, 1 in 36, destroys it for good (000 L4708-4714)."""


def settable(ctx: BattleContext, ship: ShipInPlay) -> list[tuple[str, str]]:
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
    end = end_of(ctx, ship, order)
    turns = max(0, min(BACKFIRE_TURNS, ctx.setup.turn_limit - state.turn))
    settings: list[tuple[str, str]] = []
    for weapon, kind in settable(ctx, ship):
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
            s for s in state.ships if s.side == side and s.status == "active" and settable(ctx, s)
        ]
        if not ships:
            return written
        ahead: Forecast = []
        for enemy in enemies_of(state, side):
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
    reach = reach_of(ctx, ship)
    x, y = path[-1]
    return any(range_between(x, y, e.x, e.y) <= reach for e in enemies_of(state, ship.side))


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
                continue  # no power for mines (001 L919); entering jump (004 L144-145)
            if not mines and not mine_layers(ctx, ship):
                continue  # no mine to meet, none to drop: its path is not needed
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


def ram_course(ctx: BattleContext, ship: ShipInPlay, target: ShipInPlay) -> Order:
    """Return the legal order that ends the ship's move nearest where ``target`` will be if it
    flies straight on, with the ram on it written (001 L979-981); the order's text breaks ties.
    """
    dx, dy = velocity(target)
    tx, ty = target.x + dx, target.y + dy

    def miss(order: Order) -> tuple[float, str]:
        end = end_of(ctx, ship, order)
        return range_between(end.x, end.y, tx, ty), order_text(order)

    return msgspec.structs.replace(min(_all_orders(ctx, ship), key=miss), ram=target.id)


def end_of(ctx: BattleContext, ship: ShipInPlay, order: Order) -> MoveResult:
    """Where the ship ends its move under ``order``, cinematic, vector or spatial."""
    return move_by_rules(ctx, move_start(ship), order)


def _all_orders(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """Every legal cinematic turn and speed change, or the vector candidates."""
    if ship.vector is not None:
        return vector_candidates(ctx, ship)
    thrust, limit = order_limits(ctx, ship)
    return [
        Order(turn=turn, accel=accel)
        for turn in range(-limit, limit + 1)
        for accel in range(-(thrust - abs(turn)), thrust - abs(turn) + 1)
        if ship.speed + accel >= 0
    ]


def vector_candidates(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """A modest set of legal vector orders to weigh (000 L13411-13986): every rotation or none,
    a main drive burn of none, half or all the thrust, before or after the rotation, then no
    push or a push of every manoeuvre point left to port, starboard or astern. Under spatial
    movement (003), whose ships carry a vector too, the spatial candidates
    (:func:`tactical.commanders.spatial.spatial_candidates`)."""
    if ctx.rules.movement == "spatial":
        return spatial_candidates(ctx, ship)
    return list(vector_orders(*order_limits(ctx, ship)))


@functools.cache
def vector_orders(thrust: int, points: int) -> tuple[Order, ...]:
    """:func:`vector_candidates` for a drive of this thrust and these manoeuvre points, built
    once."""
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
    return tuple(candidates)


VECTOR_FACING_WEIGHT = 2.0
"""How many MU of velocity error a vector ship trades for one clock point of facing off the
way it wants to go (its bow guns, its drive)."""


def vector_steer(ctx: BattleContext, ship: ShipInPlay, angle: float, speed: float) -> Order:
    """Return the vector candidate whose new velocity comes nearest ``speed`` MU along the
    absolute ``angle`` (degrees clockwise from +y), its facing nearest that way breaking near
    ties; the order's text breaks exact ones, so the choice is stable."""
    wx, wy = angle_vector(angle)
    wx, wy = wx * speed, wy * speed

    def score(order: Order) -> tuple[float, str]:
        end = end_of(ctx, ship, order)
        assert end.vector is not None
        vx, vy = angle_vector(end.vector[0])
        error = math.hypot(vx * end.vector[1] - wx, vy * end.vector[1] - wy)
        off = abs((angle - end.course % 12 * 30 + 180.0) % 360.0 - 180.0) / 30
        value = error + VECTOR_FACING_WEIGHT * off + VECTOR_EDGE_WEIGHT * edge_risk(ctx, end)
        return round(value, 6), order_text(order)

    return min(vector_candidates(ctx, ship), key=score)


def edge_risk(ctx: BattleContext, end: MoveResult) -> float:
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


def steer_to(ctx: BattleContext, ship: ShipInPlay, angle: float, speed: float) -> Order:
    """Return the legal order that turns as far towards the absolute ``angle`` (degrees
    clockwise from +y) as the ship may and brings its speed towards ``speed``.

    Over a gas giant the wanted velocity gains the band's MU away from the well, twice that
    near the edge, so that the end-of-turn drift does not carry the ship off (004 L164-168).
    """
    angle, speed = lifted(ctx, ship, angle, speed)
    if ship.vector is not None:
        return vector_steer(ctx, ship, angle, speed)
    thrust, limit = order_limits(ctx, ship)
    off = (angle - ship.course % 12 * 30 + 180.0) % 360.0 - 180.0
    turn = max(-limit, min(limit, round(off / 30)))
    room = thrust - abs(turn)
    accel = max(-room, -ship.speed, min(room, round(speed) - ship.speed))
    return Order(turn=turn, accel=accel)


def lifted(ctx: BattleContext, ship: ShipInPlay, angle: float, speed: float) -> tuple[float, float]:
    """The velocity (angle, speed) a ship wants with the gas giant's pull allowed for: the
    band's MU more away from the well, twice that near the edge (004 L164-168)."""
    theatre = ctx.setup.theatre
    if theatre is None or not theatre.gravity or theatre.well_edge is None:
        return angle, speed
    rad = math.radians(angle)
    lift = theatre.gravity * (2 if ship.x - theatre.well_edge < 4 * theatre.gravity else 1)
    vx, vy = speed * math.sin(rad) + lift, speed * math.cos(rad)
    return math.degrees(math.atan2(vx, vy)), math.hypot(vx, vy)


def angle_to(ship: ShipInPlay, x: float, y: float) -> float:
    return math.degrees(math.atan2(x - ship.x, y - ship.y))


DEAD_ASTERN = 180.0  # the bearing fire.bearing gives a target right behind the ship


def astern_side(
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


VECTOR_EDGE_WEIGHT = 2.0
"""What a vector ship pays for each MU it would come short of clearing the gas giant edge by
two bands (:func:`edge_risk`)."""
