"""The movement step (001 L250-262): every ship moves at once, then who fires first is found.

``CHANCE``: :func:`move_ships` moves every ship by its orders (cinematic or vector movement),
re-enters ships due back, launches fighters, lays, sweeps and meets mines (001 L868-898),
meets asteroids (001 L1092-1108; 004 L180-184), moves dummies and senses (001 L937-957),
tries the rams the orders named (001 L977-995), drops ships out of FTL and jumps them (see
``ftl``), then rolls for initiative.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec
from msgspec import Struct

from tactical.asteroids import (
    asteroids_crossed,
    avoid_need,
    drift_legs,
    ends_inside,
    evades,
    needs_die,
)
from tactical.dice import DiceSource, Roll
from tactical.fighters import DEFENDING_BEAM, FighterGroup, bays
from tactical.fire import SENSORS, line_blocked, range_between, roll_beams
from tactical.mines import (
    MINE_RADIUS_MU,
    MINE_TENTHS,
    MINELAYER,
    MINESWEEPER,
    Mine,
    Path,
    first_contact,
    mine_id,
    point_along,
    sweep_result,
)
from tactical.movement import (
    NO_ORDER,
    MoveResult,
    MoveStart,
    Order,
    course_after,
    format_mu,
    format_order,
    move,
    order_problem,
    parse_orders,
    round_mu,
    spends_thrust,
)
from tactical.phases.admirals import choose_ships, command_modifier
from tactical.phases.boarding import boarder_losses
from tactical.phases.damage import check_threshold, colours_struck, crash, take_damage
from tactical.phases.fighters import bay_launch_problem, group_type, launch_groups, scramble_problem
from tactical.phases.fire import NovaHit, advance_novas, fire_controls, nova_problem, to_fire_phase
from tactical.phases.ftl import Dropout, depart, drop_out, dropping_out, jump_move, jump_problem
from tactical.phases.knowledge import remember
from tactical.ramming import RAM_ON, contact, in_reach, proceeds, ram_damage
from tactical.sensors import (
    ACTIVE_RANGE_MU,
    ACTIVE_SCANS,
    AREA_ECM,
    AREA_ECM_SCAN_MU,
    DUMMY_THRUST,
    ECM,
    PASSIVE_RANGE_MU,
    SCANNING_HULLS,
    SUPERIOR_BONUS,
    Dummy,
    Sensed,
    deblip_range,
    scan_learned,
)
from tactical.ship import collision_thrust, current_thrust, hull_remaining
from tactical.spatial import spatial_move, spatial_problem
from tactical.state import (
    BattleContext,
    BattleState,
    Hit,
    Moved,
    ShipInPlay,
    Threshold,
    asteroids_at,
    asteroids_now,
    ecm_cover,
    ecm_systems,
    identified,
    in_well,
    moves_this_turn,
    off_table,
    replace_ship,
    targetable,
    working_screen,
)

RETURN_ON = 4  # 001 L538: on a 4, 5 or 6 the ship re-enters after that many turns


MAX_INITIATIVE_ROLLS = 50  # ties re-rolled (000 L1053-1472); a stop for scripted dice


class MineLaid(Struct, frozen=True, kw_only=True, tag="mine_laid", gc=False):
    """A minelayer dropped a mine along its move, active from the next turn (001 L876-888)."""

    mine: str
    ship: str
    layer: str
    x: float
    y: float


class MineSwept(Struct, frozen=True, kw_only=True, tag="mine_swept", gc=False):
    """An active minesweeper passed within 3" of an enemy mine and rolled its D6: on a 2 the
    mine stays, on 3-6 it is removed (001 L896)."""

    mine: str
    ship: str
    face: int
    cleared: bool


class MineDetonated(Struct, frozen=True, kw_only=True, tag="mine_detonated", gc=False):
    """A mine fired its beam dice at an enemy ship within 3" and was removed (001 L872).

    ``sweep`` is the sweep die of 1 that set it off against a minesweeper (001 L896).
    """

    mine: str
    ship: str
    faces: tuple[int, ...]
    rerolls: tuple[int, ...] = ()
    hit: Hit
    sweep: int | None = None


MineEvent = MineLaid | MineSwept | MineDetonated
"""What happened with a mine during the ships' move."""


class AsteroidMet(Struct, frozen=True, kw_only=True, gc=False):
    """A ship's move crossed an asteroid's base (001 L1092-1108; 000 L18059-18153), or, with
    ``swept``, a moving asteroid's drift swept over the ship before it moved (000 L18077-18083).

    ``x``, ``y`` are the asteroid's centre this turn. ``need`` is the ship's ``velocity``
    less its ``thrust`` now (001 L1092); ``face`` the D6 rolled to avoid it, ``None`` when no
    die was needed: at ``need`` 1 or less the ship avoids it, above 6 it crashes (001 L1106).
    ``crashed``: the ship hit the asteroid and is destroyed, whatever its class (001 L1108).
    """

    ship: str
    x: float
    y: float
    velocity: float
    thrust: int
    need: int
    face: int | None = None
    crashed: bool = False
    swept: bool = False


class Rammed(Struct, frozen=True, kw_only=True, gc=False):
    """A ram a ship's orders named, tried after every ship had moved (001 L977-995).

    ``reason`` says why it never came to the dice: the target beyond 2" at ``distance`` (001
    L981), or either ship no longer in play. Else ``proceed`` is the rammer's D6, which needed
    ``need`` (001 L979); ``attack`` and ``evade`` the two ships' D6, added to their thrust now,
    ``attack_thrust`` and ``evade_thrust`` (L993); on ``contact``, ``impact`` is the
    rammer's D6, times its ``ship_points`` (damage points left) dealt to the target, and
    ``recoil`` the target's, times its ``target_points`` dealt to the rammer (L995). ``hits``
    are the damage: the target's, then the rammer's.
    """

    ship: str
    target: str
    distance: float | None = None
    reason: str | None = None
    need: int = RAM_ON
    proceed: int | None = None
    attack: int | None = None
    attack_thrust: int = 0
    evade: int | None = None
    evade_thrust: int = 0
    contact: bool = False
    impact: int | None = None
    ship_points: int = 0
    recoil: int | None = None
    target_points: int = 0
    hits: tuple[Hit, ...] = ()


class ShipsMoved(Struct, frozen=True, kw_only=True, tag="ships_moved", gc=False):
    """Every ship moved by its orders, and the side to fire first was found."""

    turn: int
    moves: tuple[Moved, ...]
    first: str | None
    nova: tuple[NovaHit, ...] = ()
    """Nova templates moved on at the start of the firing (001 L925), with no fighters
    in flight to resolve first."""
    thresholds: tuple[Threshold, ...] = ()
    mines: tuple[MineEvent, ...] = ()
    """Mines laid, swept and set off during the move, in the order they happened."""
    decoys: tuple[Moved, ...] = ()
    """Dummy bogeys moved by their orders; ``left`` ones are gone (001 L957)."""
    sensed: tuple[Sensed, ...] = ()
    """Bogeys identified at the end of the move, in order: self-revealed, passive, active
    (001 L945-949); a dummy identified is removed (001 L957)."""
    rams: tuple[Rammed, ...] = ()
    """The rams the orders named, tried after the move and the sensors, before initiative
    (001 L977-995), in the order the ships stand; their thresholds are in ``thresholds``."""
    asteroids: tuple[AsteroidMet, ...] = ()
    """Asteroids the ships' moves crossed, before the mines, each ship's in the order it met
    them (001 L1092-1108)."""
    dropouts: tuple[Dropout, ...] = ()
    """Ships that dropped out of FTL at the start of the move, before any ship moved, in the
    order the ships stand (001 L1058-1070); their thresholds are in ``thresholds``."""
    rolls: tuple[Roll, ...] = ()


def order_limits(ctx: BattleContext, ship: ShipInPlay) -> tuple[int, int]:
    """Return a ship's thrust now and its course-change limit (under vector movement, its
    manoeuvre points).

    An advanced drive may spend all its thrust on turning, not half (000 L1713-1721); under
    vector movement its thrusters give the whole rating unless the rules'
    ``advanced_vector_thrusters`` says ``"half"`` (see docs/rulings.md). In a campaign battle
    a Level 1 captain turns one point more, a Level 3 one less but never below one (004
    L329-335), and so does the ship an admiral of that level has chosen (L338, L343); never
    more than the thrust, which pays for every point.
    """
    sheet = ctx.sheets[ship.id]
    thrust = current_thrust(sheet, ship.record)
    limit = thrust if sheet.advanced_drive else ctx.rules.turn_limit(thrust)
    if ctx.rules.movement == "vector":
        full = sheet.advanced_drive and ctx.rules.advanced_vector_thrusters == "full"
        # manoeuvre points, FB1 errata: T6 gives 3 (000 L13411-13986)
        limit = thrust if full else thrust // 2
    mod = command_modifier(ctx, ship)
    if mod > 0:
        limit = min(limit + mod, thrust)
    elif mod < 0:
        limit = max(limit + mod, min(limit, 1))
    return thrust, limit


def move_start(ship: ShipInPlay | Dummy) -> MoveStart:
    """Where a ship (or a dummy bogey) starts its move."""
    spin = ship.spin if isinstance(ship, ShipInPlay) else 0
    return MoveStart(
        x=ship.x, y=ship.y, course=ship.course, speed=ship.speed, vector=ship.vector, spin=spin
    )


def move_by_rules(ctx: BattleContext, start: MoveStart, order: Order) -> MoveResult:
    """Carry out a legal order the way these rules move: cinematic, vector or spatial."""
    if ctx.rules.movement == "spatial":
        return spatial_move(start, order, ctx.rules.spatial_turn_rounding)
    return move(start, order, ctx.rules.split_velocity, whole=ctx.rules.vector_rounding)


def ship_order_problem(ctx: BattleContext, ship: ShipInPlay, order: Order) -> str | None:
    """Return why a ship cannot carry out a movement order with its thrust and course-change
    limit now (:func:`order_limits`), or ``None`` (001 L364: such an order is no order).
    Under spatial movement the thrust alone limits it (003 L40-41), a campaign captain's
    level changing nothing (see docs/rulings.md)."""
    thrust, limit = order_limits(ctx, ship)
    if ctx.rules.movement == "spatial":
        return spatial_problem(
            order,
            move_start(ship),
            thrust=thrust,
            advanced=ctx.sheets[ship.id].advanced_drive,
            rounding=ctx.rules.spatial_turn_rounding,
        )
    return order_problem(
        order, speed=ship.speed, course=ship.course, thrust=thrust, rules=ctx.rules, limit=limit
    )


def _reenter(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> ShipInPlay:
    """Put a returning ship back on the edge it left by, at its exit point, facing onto the
    table at its exit speed (001 L538; digest A10; see docs/rulings.md).

    In a campaign battle it returns at the point it left (004 L138), turned about, at its
    exit speed up to 3 x thrust; on the fixed table if there is one.
    """
    if ctx.setup.theatre is not None:
        thrust = current_thrust(ctx.sheets[ship.id], ship.record)
        x, y = ship.x, ship.y
        if state.table is not None:
            x_min, y_min, x_max, y_max = state.table
            x, y = min(max(x, x_min), x_max), min(max(y, y_min), y_max)
        return msgspec.structs.replace(
            ship,
            x=round_mu(x),
            y=round_mu(y),
            course=course_after(ship.course, 6),
            speed=min(ship.speed, 3 * thrust),
            status="active",
            returns=None,
            vector=_turned_about(ship.vector, 3 * thrust),
        )
    assert ctx.setup.table is not None
    x_min, y_min, x_max, y_max = ctx.setup.table
    overshoot = {
        3: x_min - ship.x,  # off the west edge: come back heading east, course 3
        9: ship.x - x_max,
        12: y_min - ship.y,
        6: ship.y - y_max,
    }
    course = max(overshoot, key=lambda c: (overshoot[c], -c))
    return msgspec.structs.replace(
        ship,
        x=round_mu(min(max(ship.x, x_min), x_max)),
        y=round_mu(min(max(ship.y, y_min), y_max)),
        course=course,
        status="active",
        returns=None,
        vector=None if ship.vector is None else (course * 30.0, ship.vector[1]),
    )


def _turned_about(vector: tuple[float, float] | None, most: int) -> tuple[float, float] | None:
    """A vector ship back from disengaging: its velocity reversed, at most ``most`` MU."""
    if vector is None:
        return None
    course, speed = vector
    return (round_mu((course + 180.0) % 360.0), min(speed, float(most)))


def move_ships(  # noqa: PLR0915 - ships, launches, mines, rams and initiative in one step
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, ShipsMoved]:
    """Move every ship by its orders at once, meeting mines on the way, then try the rams the
    orders named and find who fires first (001 L250-262, L868-898, L977-995)."""
    written: dict[str, Order] = {}
    for side_orders in state.written:
        written.update(parse_orders(side_orders.orders))
    # Torpedo settings are a note on the record sheet, not a move (000 L4786-4794).
    settings = {ship_id: order.torpedoes for ship_id, order in written.items()}
    written = {k: msgspec.structs.replace(v, torpedoes=()) for k, v in written.items()}
    moves: list[Moved] = []
    ships: list[ShipInPlay] = []
    launched: list[FighterGroup] = []
    held: list[str] = []
    paths: dict[str, Path] = {}
    drops: dict[str, tuple[int, ...]] = {}
    sweeps: set[str] = set()
    scanners: list[tuple[str, tuple[str, ...]]] = []
    revealers: list[str] = []
    rams: list[tuple[str, str]] = []
    thrusting: set[str] = set()  # ships that used thrust, kept for FT Lite's aft fire (002 L51)
    state = choose_ships(ctx, state, written)  # the admirals' ships for this move
    state, swept = _asteroid_sweeps(ctx, state, dice)
    thresholds: list[Threshold] = []
    dropouts: list[Dropout] = []
    for ship in state.ships:
        if dropping_out(ctx, ship, state.turn):
            state, dropped = drop_out(ctx, state, ship.id, dice, thresholds)
            dropouts.append(dropped)
    starts = tuple((s.id, s.x, s.y) for s in state.ships if s.status == "active")
    departing: list[str] = []
    for ship in state.ships:
        if not moves_this_turn(ship, state.turn):
            ships.append(ship)
            continue
        if ship.status == "away":
            ship = _reenter(ctx, state, ship)  # noqa: PLW2901 - the returning ship moves from the edge
        order = written.get(ship.id, NO_ORDER)
        if ship.jump == "powering" and ctx.setup.theatre is None:
            departing.append(ship.id)  # moved after every other ship (001 L1029)
            ships.append(ship)
            continue
        if ship.jump in ("powering", "unplanned"):
            moved, after = jump_move(ctx, state, ship, order, dice)
            moves.append(moved)
            ships.append(after)
            paths[ship.id] = ((ship.x, ship.y), (after.x, after.y))
            continue
        void = ship_order_problem(ctx, ship, order)
        if ship.record.out_of_control and order != NO_ORDER:
            void = "out of control: it keeps its course and speed (000 L11151-11157)"
        if order.jump and void is None:
            void = jump_problem(ctx, ship)
        if order.launch and void is None:
            void = bay_launch_problem(ctx, state, ship, order.launch)
        if order.nova and void is None:
            void = nova_problem(ctx, ship)
        if (order.mines or order.sweep) and void is None:
            void = _mine_problem(ctx, ship, order)
        if order.scan and void is None:
            void = _scan_problem(ctx, state, ship, order.scan_for)
        if order.ram is not None and void is None:
            void = _ram_problem(state, ship, order.ram)
        if order.scramble and void is None:
            void = scramble_problem(ctx, ship, order)
        if order.ecm and void is None:
            void = _ecm_problem(ctx, ship)
        if order.point_defence and void is None:
            void = _beam_defence_problem(ctx, ship)
        jump = ship.jump
        if order.jump and void is None and ctx.setup.theatre is None:
            jump = "powering"  # the drives warm up this turn (001 L1027)
        elif order.jump and void is None:
            jump = "powering" if ship.jump == "ready" else "unplanned"
        end = move_by_rules(ctx, move_start(ship), NO_ORDER if void else order)
        fell = in_well(ctx, end.x)
        left = fell or off_table(ctx, state, end.x, end.y)
        returns = None
        if left and not fell and ctx.setup.theatre is not None:
            face = dice.roll(f"t{state.turn}/leave/{ship.id}", 6)  # 004 L136-138
            returns = state.turn + face if face >= ctx.setup.theatre.return_on else None
        elif left and not fell and ctx.rules.leave_table == "return_roll":
            face = dice.roll(f"t{state.turn}/leave/{ship.id}", 6)
            returns = state.turn + face if face >= RETURN_ON else None
        moves.append(
            Moved(
                ship=ship.id,
                order=format_order(order),
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                void=void,
                left=left,
                returns=returns,
                vector=end.vector,
            )
        )
        carried = NO_ORDER if void else order
        # A standing order to scramble gives nothing away until it is carried out.
        # Nor does jamming: ECM hides a ship, it does not identify it (000 L7703-7707).
        # Nor do Beam-1s standing by to defend the ship.
        quiet = msgspec.structs.replace(
            carried, ram=None, scramble=False, ecm=False, point_defence=False
        )
        if not left and quiet != course_and_speed(carried):
            revealers.append(ship.id)  # scanning or any other system gives it away
        if carried.ram is not None:
            rams.append((ship.id, carried.ram))  # a ram gives nothing away until it is tried
        if carried.scan and not left:
            scanners.append((ship.id, carried.scan_for))
        paths[ship.id] = ((ship.x, ship.y), (end.mid_x, end.mid_y), (end.x, end.y))
        drops[ship.id] = carried.mines
        if spends_thrust(carried):
            thrusting.add(ship.id)
        if carried.sweep:
            sweeps.add(ship.id)
        if bays(ctx.sheets[ship.id]) and not left:
            if course_and_speed(carried) == NO_ORDER and not carried.jump:
                held.append(ship.id)  # course and velocity held: it may recover (001 L761)
            if carried.launch:
                ship, groups = launch_groups(ctx, state, ship, carried.launch)  # noqa: PLW2901
                launched.extend(groups)
        ships.append(
            msgspec.structs.replace(
                ship,
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                vector=end.vector,
                spin=end.spin,
                status=("away" if returns else "left") if left else "active",
                returns=returns,
                jump=jump,
                nova=carried.nova and not left,
                sweeping=carried.sweep and not left,
                scramble=carried.scramble and not left,
                ecm=carried.ecm and not left,
                beam_defence=carried.point_defence and not left,
                scanned=carried.scan and not left,
            )
        )
    ships = [
        msgspec.structs.replace(ship, settings=settings[ship.id])
        if settings.get(ship.id) and ship.status == "active"
        else ship
        for ship in ships
    ]
    if ctx.rules.aft_fire == "unthrusted":
        ships = [
            msgspec.structs.replace(ship, thrusted=ship.id in thrusting)
            if ship.thrusted != (ship.id in thrusting)
            else ship
            for ship in ships
        ]
    fighters = state.fighters + tuple(launched)
    robots = ctx.rules.fighter_secondary_move and any(
        group_type(ctx, g.carrier, g.bay).robot for g in fighters
    )
    state = msgspec.structs.replace(
        state,
        ships=tuple(ships),
        written=(),
        fighters=fighters,
        held=tuple(held),
        before=starts if robots else (),  # robots' secondary moves (000 L10070-10078)
    )
    for ship_id in departing:
        state, moved, path = depart(
            ctx, state, ship_id, written.get(ship_id, NO_ORDER), dice, thresholds
        )
        moves.append(moved)
        if path is not None:
            paths[ship_id] = path
    state, decoys = _move_dummies(ctx, state, written)
    state, met = _asteroid_collisions(ctx, state, paths, dice)
    met = swept + met
    state, mines = _mines(ctx, state, paths, drops, sweeps, dice, thresholds)
    sensed: list[Sensed] = []
    if ctx.rules.bogeys:
        state, sensed = sense(ctx, state, scanners, revealers, dice)
        state = remember(state, sensed)  # what the advanced scans told (000 L12664-12672)
    rammed: list[Rammed] = []
    for rammer, target in rams:  # after the move, before the firing (see docs/rulings.md)
        state, tried = _ram(ctx, state, rammer, target, dice, thresholds)
        rammed.append(tried)
    first = _initiative(ctx, state, dice)
    nova: list[NovaHit] = []
    if not state.fighters:
        state = advance_novas(ctx, state, dice, nova, thresholds)
    state = boarder_losses(ctx, state, thresholds, 0, dice, "moved")
    if state.fighters:
        # Fighters fly after the ships (001 L256-258; 000 L1053-1472 phases 4-10).
        state = msgspec.structs.replace(state, phase="flight", first=first, to_fire=None)
    else:
        state = to_fire_phase(ctx, state, first)
    return state, ShipsMoved(
        turn=state.turn,
        moves=tuple(moves),
        first=first,
        nova=tuple(nova),
        thresholds=tuple(thresholds),
        mines=tuple(mines),
        decoys=tuple(decoys),
        sensed=tuple(sensed),
        rams=tuple(rammed),
        asteroids=tuple(met),
        dropouts=tuple(dropouts),
    )


def _asteroid_collisions(
    ctx: BattleContext, state: BattleState, paths: Mapping[str, Path], dice: DiceSource
) -> tuple[BattleState, list[AsteroidMet]]:
    """Roll for every asteroid a ship's move crossed, in the order the ships stand and, for
    each ship, the order it met them (001 L1092-1108; 000 L18059-18153).

    The path is the move's legs (cinematic: start, mid-move turn, end; vector: the straight
    line, 000 L13828-13850), the asteroids stand where they are this turn, and a path crosses
    one when it passes strictly inside its base (:func:`tactical.asteroids.asteroids_crossed`).
    The ship needs its velocity after the move less its thrust now on a D6 (001 L1092,
    L1106; 000 L18116-18124); the die is keyed by the turn, the ship and the asteroid. A ship
    that hits one is destroyed at once, whatever its class (001 L1108), and meets nothing
    further. Collisions come before mines (see docs/rulings.md).
    """
    asteroids = asteroids_now(ctx, state)
    if not asteroids:
        return state, []
    theatre = ctx.setup.theatre
    moving = theatre is not None and theatre.asteroid_motion == "sweep"
    met: list[AsteroidMet] = []
    for ship in state.ships:
        path = paths.get(ship.id)
        if path is None or ship.status == "destroyed":
            continue
        risked = ends_inside(path[-1], asteroids) if moving else asteroids_crossed(path, asteroids)
        for index in risked:
            key = f"t{state.turn}/asteroid/{ship.id}/{index}"
            state, event = _meet_asteroid(ctx, state, ship, asteroids[index], key, dice)
            met.append(event)
            if event.crashed:
                break
    return state, met


def _meet_asteroid(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    at: tuple[float, float],
    key: str,
    dice: DiceSource,
    *,
    swept: bool = False,
) -> tuple[BattleState, AsteroidMet]:
    """Roll a ship's D6 to avoid the asteroid at ``at``, when a die is needed, and destroy it
    if it fails (001 L1092-1108). The need is its current velocity less "the ship's total
    available THRUST RATING": what its drive delivers now, an advanced drive's doubled (000
    L18116-18126)."""
    thrust = collision_thrust(ctx.sheets[ship.id], ship.record)
    speed = ship.vector[1] if ship.vector is not None else float(ship.speed)
    need = avoid_need(velocity=speed, thrust=thrust)
    face = dice.roll(key, 6) if needs_die(need) else None
    crashed = not evades(face=face, need=need)
    event = AsteroidMet(
        ship=ship.id,
        x=at[0],
        y=at[1],
        velocity=speed,
        thrust=thrust,
        need=need,
        face=face,
        crashed=crashed,
        swept=swept,
    )
    if crashed:  # 001 L1108: "THE SHIP IS COMPLETELY DESTROYED" (000 L18147-18149)
        state = replace_ship(state, msgspec.structs.replace(ship, status="destroyed", returns=None))
    return state, event


def _asteroid_sweeps(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, list[AsteroidMet]]:
    """Under ``asteroid_motion = "sweep"``, roll for every ship a drifting asteroid swept over
    since the last turn: "the movement path of the asteroid brings it into contact with a
    ship at any point (this is before the ship itself has moved, at the beginning of the Ship
    Movement Phase)" (000 L18077-18083). The ship's centre against the base along the drift's
    legs (:func:`tactical.asteroids.drift_legs`, wrapping round the field, 004 L180-181); the
    need is its velocity now less its thrust (000 L18116-18126); the die is keyed
    ``t<turn>/asteroid-sweep/<ship>/<asteroid>``.
    """
    theatre = ctx.setup.theatre
    if (
        theatre is None
        or theatre.asteroid_motion != "sweep"
        or theatre.field is None
        or theatre.drift == (0.0, 0.0)
        or state.turn < 2  # the first drift is at the end of turn 1
    ):
        return state, []
    sweeps = [
        drift_legs(start, theatre.drift, theatre.field)
        for start in asteroids_at(theatre, state.turn - 1)
    ]
    now = asteroids_at(theatre, state.turn)
    met: list[AsteroidMet] = []
    for ship in state.ships:
        if ship.status != "active":
            continue
        for index, legs in enumerate(sweeps):
            if not any(line_blocked(a, b, [(ship.x, ship.y)]) for a, b in legs):
                continue
            key = f"t{state.turn}/asteroid-sweep/{ship.id}/{index}"
            state, event = _meet_asteroid(ctx, state, ship, now[index], key, dice, swept=True)
            met.append(event)
            if event.crashed:
                break
    return state, met


def dummy_order_problem(ctx: BattleContext, dummy: Dummy, order: Order) -> str | None:
    """Return why a dummy bogey cannot carry out an order, or ``None``: it flies with a
    scoutship's thrust and only moves (001 L957)."""
    if ctx.rules.movement == "spatial":
        void = spatial_problem(
            order,
            move_start(dummy),
            thrust=DUMMY_THRUST,
            advanced=False,
            rounding=ctx.rules.spatial_turn_rounding,
        )
    else:
        void = order_problem(
            order, speed=dummy.speed, course=dummy.course, thrust=DUMMY_THRUST, rules=ctx.rules
        )
    if void is None and order != course_and_speed(order):
        void = "a dummy bogey only moves (001 L957)"
    return void


def course_and_speed(order: Order) -> Order:
    """The order's course and speed change alone: what a bogey may do unseen."""
    return Order(
        turn=order.turn,
        accel=order.accel,
        pivot=order.pivot,
        vector=order.vector,
        spatial=order.spatial,
    )


def scan_limit(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return how many bogeys the ship's active sensors may identify this turn: escort 1,
    cruiser 2, capital 3 (001 L949), or one per working FireCon under the ``active_scans``
    option (000 12.1); none for a civilian hull, which has passive sensors only (001 L947)."""
    sheet = ctx.sheets[ship.id]
    if sheet.hull not in SCANNING_HULLS:
        return 0
    if ctx.rules.active_scans == "firecon":
        return fire_controls(ctx, ship)
    return ACTIVE_SCANS.get(sheet.hull_class, 1)  # a Q-ship's merchant hull scans one


def _scan_problem(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, names: Sequence[str]
) -> str | None:
    """Return why a ship may not make this active scan this turn, or ``None``: the bogeys it
    names must be enemy bogeys on the table as the orders were written, no more than it may
    scan (001 L949)."""
    if not ctx.rules.bogeys:
        return "there are no bogeys to scan: the battle is played without sensors (001 L933)"
    limit = scan_limit(ctx, ship)
    if limit == 0:
        return "only military vessels carry active sensors (001 L947)"
    if ecm_systems(ctx, ship, AREA_ECM):
        return "its area ECM is on and blinds its FireCons, whose arrays scan (000 L7778-7784)"
    if len(names) > limit:
        return f"the scan names {len(names)} bogeys and this ship may scan {limit} (001 L949)"
    contacts = {
        s.bogey for s in state.ships if s.side != ship.side and s.status == "active" and s.bogey
    } | {d.label for d in state.dummies if d.side != ship.side}
    unknown = [name for name in names if name not in contacts]
    if unknown:
        return f"{', '.join(unknown)} is no enemy bogey on the table (001 L949)"
    return None


def _ecm_problem(ctx: BattleContext, ship: ShipInPlay) -> str | None:
    """Return why a ship may not switch its ECM on this turn, or ``None``."""
    if not ctx.rules.sensors_ecm:
        return "ECM is not in these rules (000 7.18-7.19: rule sensors_ecm)"
    sheet = ctx.sheets[ship.id]
    if not any(
        spec.kind in (ECM, AREA_ECM) and now.status == "ok"
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
    ):
        return "no working ECM or area ECM to switch on (000 L7736-7740, L7790-7796)"
    return None


def _beam_defence_problem(ctx: BattleContext, ship: ShipInPlay) -> str | None:
    """Return why a ship may not put its Beam-1s on point defence this turn, or ``None``."""
    if not ctx.rules.beam_point_defence:
        return (
            "Beam-1 point defence is not in these rules (000 L9105-9109: rule beam_point_defence)"
        )
    sheet = ctx.sheets[ship.id]
    if not any(
        spec.kind == DEFENDING_BEAM and now.status == "ok"
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
    ):
        return "no working Beam-1 to put on point defence (000 L9105-9109)"
    return None


def _move_dummies(
    ctx: BattleContext, state: BattleState, written: Mapping[str, Order]
) -> tuple[BattleState, list[Moved]]:
    """Move every dummy bogey by its orders, with a scoutship's thrust (001 L957), cinematic or
    vector as the ships move. A dummy only moves; any other order is void. One that leaves
    the table is gone."""
    moves: list[Moved] = []
    kept: list[Dummy] = []
    for dummy in state.dummies:
        order = written.get(dummy.id, NO_ORDER)
        void = dummy_order_problem(ctx, dummy, order)
        end = move_by_rules(ctx, move_start(dummy), NO_ORDER if void else order)
        left = in_well(ctx, end.x) or off_table(ctx, state, end.x, end.y)
        moves.append(
            Moved(
                ship=dummy.id,
                order=format_order(order),
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                void=void,
                left=left,
                vector=end.vector,
            )
        )
        if not left:
            kept.append(
                msgspec.structs.replace(
                    dummy,
                    x=end.x,
                    y=end.y,
                    course=end.course,
                    speed=end.speed,
                    vector=end.vector,
                )
            )
    return msgspec.structs.replace(state, dummies=tuple(kept)), moves


def sense(
    ctx: BattleContext,
    state: BattleState,
    scanners: Sequence[tuple[str, tuple[str, ...]]],
    revealers: Sequence[str],
    dice: DiceSource | None = None,
) -> tuple[BattleState, list[Sensed]]:
    """Identify bogeys at the end of the move (digest A17): ships that gave themselves away,
    then every enemy bogey within 36" of a ship in play, both at once when both are bogeys
    (001 L945), then each active scan's bogeys within 54", up to its limit (001 L949): those
    its order names, in the order named, else the nearest.

    Passive sensors go first, so that no scan is spent on a bogey they identify anyway; a scan
    naming no bogeys takes the nearest left, the labels settling ties, and one naming bogeys
    takes only those still unidentified within 54" (see docs/rulings.md). A dummy identified
    is removed (001 L957). Under the ``sensors_ecm`` option a ship's ECM switched on takes 6
    MU a level off both ranges for its own bogey (000 L7703-7707), and a scanner with enhanced
    or superior sensors rolls what its scan learns (:func:`advanced_scan`, with ``dice``).
    """
    sensed: list[Sensed] = []
    done: set[str] = set()

    jammed = {s.id: ecm_cover(ctx, state, s) for s in state.ships if s.bogey is not None}

    def bogeys_of(side: str) -> list[tuple[str, str, float, float, bool]]:
        ships = [
            (s.bogey, s.id, s.x, s.y, False)
            for s in state.ships
            if s.side != side and s.status == "active" and s.bogey is not None
        ]
        dummies = [(d.label, d.id, d.x, d.y, True) for d in state.dummies if d.side != side]
        return [c for c in ships + dummies if c[1] not in done]

    def reach(base: float, name: str) -> float:
        return deblip_range(base, jammed.get(name, 0))

    for ship_id in revealers:
        if state.ship(ship_id).bogey is not None:
            done.add(ship_id)
            sensed.append(Sensed(counter=ship_id, how="self"))
    sensors = [s for s in state.ships if s.status == "active"]
    asteroids = asteroids_now(ctx, state)

    def clear(ship: ShipInPlay, x: float, y: float) -> bool:
        # 001 L1090: a bogey is revealed only to a ship within scan range that "can get a
        # clear line-of-sight on to the Bogey", active or passive (000 L17826-17842).
        return not line_blocked((ship.x, ship.y), (x, y), asteroids)

    passive: list[Sensed] = []
    for side in ctx.setup.sides:
        for _label, name, x, y, dummy in bogeys_of(side):
            near = [
                (range_between(s.x, s.y, x, y), s.id)
                for s in sensors
                if s.side == side
                and range_between(s.x, s.y, x, y) <= reach(PASSIVE_RANGE_MU, name)
                and clear(s, x, y)
            ]
            if near:
                passive.append(Sensed(counter=name, how="passive", by=min(near)[1], dummy=dummy))
    done.update(p.counter for p in passive)
    sensed.extend(passive)
    for scanner_id, named in scanners:
        scanner = state.ship(scanner_id)
        if scanner.status != "active":
            continue
        in_range = sorted(
            (range_between(scanner.x, scanner.y, x, y), len(label), label, name, dummy)
            for label, name, x, y, dummy in bogeys_of(scanner.side)
            if range_between(scanner.x, scanner.y, x, y) <= reach(ACTIVE_RANGE_MU, name)
            and clear(scanner, x, y)
        )
        if named:  # the player chooses which bogeys he scans (001 L949)
            in_range = sorted(
                (c for c in in_range if c[2] in named), key=lambda c: named.index(c[2])
            )
        for _r, _n, _label, name, dummy in in_range[: scan_limit(ctx, scanner)]:
            done.add(name)
            learned = None
            if dice is not None and not dummy:
                learned = advanced_scan(ctx, state, scanner, state.ship(name), dice)
            sensed.append(
                Sensed(counter=name, how="active", by=scanner_id, dummy=dummy, learned=learned)
            )
    gone = {s.counter for s in sensed if s.dummy}
    ships = tuple(identified(s) if s.id in done else s for s in state.ships)
    dummies = tuple(d for d in state.dummies if d.id not in gone)
    return msgspec.structs.replace(state, ships=ships, dummies=dummies), sensed


def _scan_jammed(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether active ECM covers a ship against scans: its own switched on, or the area ECM
    switched on of a ship of its side within 12 MU (000 L12812-12818)."""
    if ecm_systems(ctx, ship, ECM) or ecm_systems(ctx, ship, AREA_ECM):
        return True
    return any(
        friend.side == ship.side
        and ecm_systems(ctx, friend, AREA_ECM)
        and range_between(friend.x, friend.y, ship.x, ship.y) <= AREA_ECM_SCAN_MU
        for friend in state.ships
    )


def advanced_scan(
    ctx: BattleContext,
    state: BattleState,
    scanner: ShipInPlay,
    target: ShipInPlay,
    dice: DiceSource,
) -> int | None:
    """Roll what an active scan with enhanced or superior sensors learns of a ship, the index
    in :data:`~tactical.sensors.LEARNED`; ``None`` for basic sensors or without the
    ``sensors_ecm`` option (000 12.2, L12637-12660). The D6, +2 for superior sensors
    (``t<turn>/scan/<scanner>/<target>``), less the target's owner's D6 when active ECM covers
    it (``.../ecm``, 000 L12848-12856), less another D6 when the scanner's own side jams it
    (``.../jammed``, L12870-12876)."""
    if not ctx.rules.sensors_ecm:
        return None
    working = {
        spec.kind
        for spec, now in zip(ctx.sheets[scanner.id].systems, scanner.record.systems, strict=True)
        if now.status == "ok"
    }
    if not working & SENSORS:
        return None
    key = f"t{state.turn}/scan/{scanner.id}/{target.id}"
    score = dice.roll(key, 6) + (SUPERIOR_BONUS if "superior_sensors" in working else 0)
    if _scan_jammed(ctx, state, target):
        score -= dice.roll(f"{key}/ecm", 6)
    if _scan_jammed(ctx, state, scanner):
        score -= dice.roll(f"{key}/jammed", 6)
    return scan_learned(score)


def mine_layers(ctx: BattleContext, ship: ShipInPlay) -> tuple[str, ...]:
    """Return the ship's working minelayers with mines left, in record-sheet order: each
    may drop one mine this turn (001 L884-886)."""
    return tuple(
        spec.id
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
        if spec.kind == MINELAYER and now.status == "ok" and (now.ammo or 0) > 0
    )


def sweeper_working(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """Return whether the ship has a working minesweeper to activate (001 L894)."""
    return any(
        spec.kind == MINESWEEPER and now.status == "ok"
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
    )


def move_path(ctx: BattleContext, ship: ShipInPlay, order: Order) -> Path:
    """Return the points a ship flies through carrying out a legal order: its start, the
    mid-move turn and its end (001 L346-358)."""
    end = move_by_rules(ctx, move_start(ship), order)
    return ((ship.x, ship.y), (end.mid_x, end.mid_y), (end.x, end.y))


def _mine_problem(ctx: BattleContext, ship: ShipInPlay, order: Order) -> str | None:
    """Return why a ship may not lay these mines or sweep this turn, or ``None``."""
    if order.nova:
        return "an armed nova cannon leaves no power for mines or sweeping (001 L919)"
    layers = mine_layers(ctx, ship)
    if order.mines and not layers:
        return "no working minelayer with mines left (001 L876-886)"
    if len(order.mines) > len(layers):
        return (
            f"{len(order.mines)} mines and {len(layers)} working minelayers with mines: one "
            "mine per minelayer a turn (001 L884)"
        )
    if order.sweep and not sweeper_working(ctx, ship):
        return "no working minesweeper to activate (001 L894)"
    return None


def _mines(
    ctx: BattleContext,
    state: BattleState,
    paths: Mapping[str, Path],
    drops: Mapping[str, tuple[int, ...]],
    sweeps: set[str],
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, list[MineEvent]]:
    """Lay, sweep and set off mines along the ships' moves, in the order they happen.

    Ships move at once and at an even pace, so how far through its move a ship is tells the
    time: the first enemy to come within 3" of an active mine meets it (001 L872), and a
    mine swept or set off earlier in the move is gone for those that come later (see
    docs/rulings.md). A minelayer drops each mine at the point of its move its order names;
    the mine is active from the next turn (001 L884-888). An active minesweeper passing an
    enemy mine rolls its D6 instead of being attacked (001 L896). Mine damage and its
    threshold checks are resolved on the spot, as for fighters (000 L1241).
    """
    turn = state.turn
    order = {s.id: i for i, s in enumerate(state.ships)}
    happenings: list[tuple[float, int, int, str]] = []  # when, drop 0 / contact 1, ship, name
    for ship_id, path in paths.items():
        ship = state.ship(ship_id)
        for tenth, layer in zip(drops.get(ship_id, ()), mine_layers(ctx, ship), strict=False):
            happenings.append((tenth / MINE_TENTHS, 0, order[ship_id], layer))
        for placed in state.mines:
            if placed.side == ship.side or not placed.active(turn):
                continue  # mines never attack their own side's ships (001 L870)
            when = first_contact(path, placed.x, placed.y, MINE_RADIUS_MU)
            if when is not None:
                happenings.append((when, 1, order[ship_id], placed.id))
    events: list[MineEvent] = []
    for when, kind, index, name in sorted(happenings):
        ship = state.ships[index]
        sheet = ctx.sheets[ship.id]
        if ship.status == "destroyed" or hull_remaining(sheet, ship.record) <= 0:
            continue
        if kind == 0:
            if name not in mine_layers(ctx, ship):
                continue  # knocked out earlier in the move
            x, y = point_along(paths[ship.id], when)
            laid = Mine(
                id=mine_id(ship.id, name, turn),
                side=ship.side,
                x=round_mu(x),
                y=round_mu(y),
                laid=turn,
            )
            systems = tuple(
                msgspec.structs.replace(now, ammo=(now.ammo or 0) - 1) if now.id == name else now
                for now in ship.record.systems
            )
            record = msgspec.structs.replace(ship.record, systems=systems)
            state = replace_ship(state, msgspec.structs.replace(ship, record=record))
            state = msgspec.structs.replace(state, mines=(*state.mines, laid))
            events.append(MineLaid(mine=laid.id, ship=ship.id, layer=name, x=laid.x, y=laid.y))
            continue
        mine = next((m for m in state.mines if m.id == name), None)
        if mine is None:
            continue  # swept or set off earlier in the move
        sweep = None
        if ship.id in sweeps and sweeper_working(ctx, ship):
            sweep = dice.roll(f"t{turn}/sweep/{ship.id}/{mine.id}", 6)
            result = sweep_result(sweep)
            if result != "detonated":
                events.append(
                    MineSwept(mine=mine.id, ship=ship.id, face=sweep, cleared=result == "cleared")
                )
                if result == "cleared":
                    state = _without_mine(state, mine.id)
                continue
        state, detonated = _detonate(ctx, state, ship, mine, sweep, dice, thresholds)
        events.append(detonated)
    return state, events


def _without_mine(state: BattleState, mine: str) -> BattleState:
    return msgspec.structs.replace(state, mines=tuple(m for m in state.mines if m.id != mine))


def _detonate(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    mine: Mine,
    sweep: int | None,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, MineDetonated]:
    """Fire a mine at a ship and remove it: beam dice against its screens (001 L872; 4 under
    Continuum, 000 L6737-6739), with threshold checks at once."""
    turn = state.turn
    sheet = ctx.sheets[ship.id]
    outcome = roll_beams(
        dice,
        f"t{turn}/mine/{mine.id}",
        ctx.rules.mine_dice,
        working_screen(ctx, ship),
        reroll=ctx.rules.beam_reroll,
    )
    record, hit = take_damage(
        sheet, ship.record, ship.id, outcome.screened_damage, (), outcome.reroll_damage
    )
    if not hit.destroyed:
        for row in hit.rows:
            record, check = check_threshold(
                ctx,
                ship,
                record,
                dice,
                f"t{turn}/threshold/{ship.id}/mine/{mine.id}/row{row}",
                row,
            )
            thresholds.append(check)
    hurt = msgspec.structs.replace(
        ship,
        record=record,
        status="destroyed" if hit.destroyed else colours_struck(ship.status, ship.id, thresholds),
        returns=None if hit.destroyed else ship.returns,
    )
    state = _without_mine(replace_ship(state, hurt), mine.id)
    event = MineDetonated(
        mine=mine.id,
        ship=ship.id,
        faces=tuple(outcome.faces),
        rerolls=tuple(outcome.rerolls),
        hit=hit,
        sweep=sweep,
    )
    return state, event


def ram_need(ctx: BattleContext, side: str) -> int:
    """Return the D6 face a side's rams need to go on: the rules' 6 (001 L979), or what the
    set-up's special option gives the side."""
    return ctx.setup.ram_on.get(side, ctx.rules.ram_on)


def _ram_problem(state: BattleState, ship: ShipInPlay, target_id: str) -> str | None:
    """Return why a ship may not mean to ram this target this turn, or ``None``: only an
    enemy ship in play that its side has identified may be named (001 L977-979)."""
    try:
        target = state.ship(target_id)
    except KeyError:
        return f"there is no ship {target_id!r} to ram (a dummy bogey is no ship, 001 L957)"
    if target.side == ship.side:
        return f"{target_id} is no enemy: only an enemy ship is rammed (001 L977)"
    if not moves_this_turn(target, state.turn):
        return f"{target_id} is not in play"
    if target.bogey is not None:
        return f"{target_id} is a bogey its side has not identified (001 L937)"
    return None


def _ram(
    ctx: BattleContext,
    state: BattleState,
    rammer_id: str,
    target_id: str,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, Rammed]:
    """Try one ram after the move (001 L979-995): within 2" of the target, the rammer's D6 to
    go on, D6 + current thrust each to make contact, then D6 x damage points left each way.

    Both ships' damage is rolled from the damage points they had before the ram, since they
    hit each other at once; it goes armour first and ignores screens (digest A14), and its
    threshold checks are made at once, as for mines (see docs/rulings.md).
    """
    rammer, target = state.ship(rammer_id), state.ship(target_id)
    for ship in (rammer, target):
        if not targetable(ctx, ship):
            reason = f"{ship.id} is no longer in play"
            return state, Rammed(ship=rammer_id, target=target_id, reason=reason)
    distance = round_mu(range_between(rammer.x, rammer.y, target.x, target.y))
    tried = Rammed(ship=rammer_id, target=target_id, distance=distance)
    if not in_reach(distance):
        reason = f"{target_id} is {format_mu(distance)} MU away, more than 2 (001 L981)"
        return state, msgspec.structs.replace(tried, reason=reason)
    key = f"t{state.turn}/ram/{rammer_id}"
    need = ram_need(ctx, rammer.side)
    face = dice.roll(f"{key}/proceed", 6)
    tried = msgspec.structs.replace(tried, need=need, proceed=face)
    if not proceeds(face, need):
        return state, tried
    rammer_sheet, target_sheet = ctx.sheets[rammer_id], ctx.sheets[target_id]
    attack, evade = dice.roll(f"{key}/attack", 6), dice.roll(f"{key}/evade", 6)
    attack_thrust = current_thrust(rammer_sheet, rammer.record)
    evade_thrust = current_thrust(target_sheet, target.record)
    tried = msgspec.structs.replace(
        tried,
        attack=attack,
        attack_thrust=attack_thrust,
        evade=evade,
        evade_thrust=evade_thrust,
    )
    if not contact(
        attack=attack, attack_thrust=attack_thrust, evade=evade, evade_thrust=evade_thrust
    ):
        return state, tried
    impact, recoil = dice.roll(f"{key}/impact", 6), dice.roll(f"{key}/recoil", 6)
    ship_points = hull_remaining(rammer_sheet, rammer.record)
    target_points = hull_remaining(target_sheet, target.record)
    hits: list[Hit] = []
    for victim, points in (
        (target_id, ram_damage(face=impact, points=ship_points)),
        (rammer_id, ram_damage(face=recoil, points=target_points)),
    ):
        state, hit = crash(ctx, state, victim, points, f"ram/{rammer_id}", dice, thresholds)
        hits.append(hit)
    return state, msgspec.structs.replace(
        tried,
        contact=True,
        impact=impact,
        ship_points=ship_points,
        recoil=recoil,
        target_points=target_points,
        hits=tuple(hits),
    )


def _initiative(ctx: BattleContext, state: BattleState, dice: DiceSource) -> str | None:
    """Return the side that fires first: most ships in play, else a D6 each, ties re-rolled
    (001 L262; 000 L1053-1472 phase 2)."""
    counts = {
        side: sum(1 for s in state.ships if s.side == side and s.status == "active")
        for side in ctx.setup.sides
    }
    present = [side for side in ctx.setup.sides if counts[side]]
    if len(present) < len(ctx.setup.sides):
        return present[0] if present else None
    first, second = ctx.setup.sides
    theatre = ctx.setup.theatre
    rolled = theatre is not None and theatre.initiative_roll  # a campaign battle (004 L331)
    if ctx.rules.initiative == "most_ships" and counts[first] != counts[second] and not rolled:
        return first if counts[first] > counts[second] else second
    mods = dict(theatre.initiative_mods) if theatre else {}
    for attempt in range(MAX_INITIATIVE_ROLLS):
        # A campaign side's senior captain or admiral adds or takes one (004 L329-343).
        a = dice.roll(f"t{state.turn}/initiative/{first}/{attempt}", 6) + mods.get(first, 0)
        b = dice.roll(f"t{state.turn}/initiative/{second}/{attempt}", 6) + mods.get(second, 0)
        if a != b:
            return first if a > b else second
    return first
