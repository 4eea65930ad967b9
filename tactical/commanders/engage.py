"""Engage (004 L105-112): close on the nearest enemy and fight, every gun that bears focused
on the targets nearest to destruction; ram only as a desperate act (001 L977-995).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from tactical.battle import (
    TORPEDOES,
    BattleContext,
    BattleState,
    ShipInPlay,
    Shot,
    asteroids_now,
    fire_controls,
    fire_options,
    order_limits,
    ships_to_fire,
    velocity,
)
from tactical.commanders.salvos import in_salvo_reach, salvo_aims, salvo_share
from tactical.commanders.scoring import (
    NOVA_AIM_SLACK_MU,
    Commander,
    aimed,
    enemies_in,
    enemies_of,
    focused_fire,
    has_nova,
    nova_count,
    nova_path,
    order_text,
    overload_ready,
    posture_flight,
    reach_of,
    salvo_shots,
)
from tactical.commanders.screen import screened
from tactical.commanders.steering import (
    DEAD_ASTERN,
    SEEK_SPEED,
    VECTOR_EDGE_WEIGHT,
    VECTOR_FACING_WEIGHT,
    angle_to,
    astern_side,
    end_of,
    lifted,
    ram_course,
    steer_to,
    with_asteroids,
    with_beam_defence,
    with_ecm,
    with_fighters,
    with_mines,
    with_scramble,
    with_sensors,
    with_torpedo_settings,
)
from tactical.commanders.tactics import (
    Candidate,
    GunTable,
    Row,
    candidate_rows,
    candidates,
    dice_array,
    dice_at,
    gun_table,
    nearest,
    vector_offset_arrays,
)
from tactical.fire import (
    BAND_MU,
    BEAM_STRENGTH,
    NOVA_STAGES,
    beam_dice,
    bearing,
    line_blocked,
    range_between,
)
from tactical.movement import MoveResult, Order, angle_vector, heading_vector
from tactical.ramming import RAM_RANGE_MU
from tactical.ship import Ship, hull_remaining

if TYPE_CHECKING:
    # numpy is imported by the functions that use it, when a battle is fought (as in
    # tactical.commanders.tactics): the CLI's commands import the commanders, not numpy.
    import numpy as np
    import numpy.typing as npt

    from tactical.commanders.tactics import FloatArray, IntArray

ENGAGE_CLOSE_MU = 4.0
"""A cinematic Engage ship slows to hold about this range of its target (6 won 72% of the
decisive cinematic battles against the closing commander and 60% against the baseline, 400
seeded battles a cell, seed 99; 4 with the screen, :mod:`tactical.commanders.screen`, 74.5%
and 69%; 2 with it 70.5% and 68.5%, 2 without it 77.5% and 57.5%)."""


VECTOR_CLOSE_MU = 2.0
"""... and a vector one closes to about this range: it turns to bear by rotation, without
circling, and the closer the more dice (6 MU won 72% of the decisive vector battles against
the closing commander in 80 seeded runs, 2 MU 77%)."""


def _desperate_ram(
    ctx: BattleContext, ship: ShipInPlay, enemies: Sequence[ShipInPlay]
) -> Order | None:
    """Return a ram for a warship whose guns are all gone, on the nearest enemy it can end its
    move within 2" of, flown straight on (001 L981), or ``None``: ramming is a suicide attack,
    "rarely attempted" (001 L977), so Engage keeps it for a ship with nothing else to fight
    with."""
    sheet = ctx.sheets[ship.id]
    armed = any(spec.kind in BEAM_STRENGTH or spec.kind in TORPEDOES for spec in sheet.systems)
    if not armed or reach_of(ctx, ship) > 0:
        return None
    for enemy in sorted(enemies, key=lambda e: (range_between(ship.x, ship.y, e.x, e.y), e.id)):
        order = ram_course(ctx, ship, enemy)
        end = end_of(ctx, ship, order)
        dx, dy = velocity(enemy)
        ex, ey = enemy.x + dx, enemy.y + dy
        if range_between(end.x, end.y, ex, ey) <= RAM_RANGE_MU:
            return order
    return None


def _arm_nova(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """Whether an Engage ship arms its nova cannon: an enemy is forecast on the line of fire
    after the straight move arming forces on it, and no friend is (001 L908-925)."""
    if not has_nova(ctx, ship):
        return False
    path = nova_path(ship.x, ship.y, ship.course, ship.speed)
    width = NOVA_STAGES[0][0] + 2 * NOVA_AIM_SLACK_MU
    enemies, friends = nova_count(state, ship, path, width, forecast=True)
    return enemies > 0 and friends == 0


def engage_commander() -> Commander:
    """Return the Engage commander: close on the nearest enemy and fight (004 L108).

    Each ship weighs every move it may make (:func:`_engage_moves`) by where it leaves it for
    the fire phase; a ship with a nova cannon arms it when an enemy is forecast on its bow's
    line; fire is focused on the targets nearest to destruction (:func:`_focused_fire`).
    """

    tables: GunTables = {}

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = enemies_of(state, side)
        if not enemies:
            return _seek_bogeys(ctx, state, side)
        if len(tables) >= GUN_TABLES_KEPT:
            tables.clear()
        plan = _Plan.of(ctx, state, side, enemies, tables)
        weighed: list[ShipInPlay] = []  # the vector ships, their moves weighed together
        for ship in state.ships:
            if ship.side != side or ship.status != "active":
                continue
            if _arm_nova(ctx, state, ship):
                written[ship.id] = Order(nova=True)
                continue
            ram = _desperate_ram(ctx, ship, enemies)
            if ram is not None:
                written[ship.id] = ram
                continue
            if ship.vector is None:
                order = _cinematic_engage(ctx, state, ship, enemies)
                written[ship.id] = _dodged(ctx, state, plan, ship, order)
                continue
            written[ship.id] = Order()  # its place among the orders, its move written below
            weighed.append(ship)
        written.update(_engage_moves(ctx, state, plan, weighed))
        return screened(ctx, state, side, enemies, written)

    return Commander(
        with_torpedo_settings(
            with_ecm(
                with_beam_defence(
                    with_scramble(
                        with_asteroids(with_mines(with_fighters(with_sensors(orders), "attack")))
                    )
                )
            )
        ),
        _focused_fire(),
        flight=posture_flight("attack"),
    )


def _seek_bogeys(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
    """While no enemy is identified, each vector ship steers at the nearest bogey at
    :data:`~tactical.commanders.steering.SEEK_SPEED` (tactical.commanders.steering.with_sensors'
    doctrine, which steers the cinematic ones), choosing among its moves by arithmetic: the
    velocity error, plus :data:`~tactical.commanders.steering.VECTOR_FACING_WEIGHT` a clock
    point its bow lies off that way."""
    import numpy as np

    written: dict[str, Order] = {}
    contacts = [b for b in state.bogeys if b.side != side]
    if not contacts:
        return written
    # Every ship's moves' costs at once, as arrays, the ships' in turn.
    seeking: list[tuple[ShipInPlay, list[Order], int]] = []
    wanted, columns = [], []
    for ship in state.ships:
        if ship.side != side or ship.status != "active" or ship.vector is None:
            continue
        if ship.jump != "none":
            continue
        ranges = [math.hypot(b.x - ship.x, b.y - ship.y) for b in contacts]
        near = contacts[ranges.index(min(ranges))]
        angle, speed = lifted(ctx, ship, angle_to(ship, near.x, near.y), SEEK_SPEED)
        wx, wy = angle_vector(angle)
        if ctx.rules.movement == "spatial":  # 003: its own moves, not the vector drive's
            rows = candidate_rows(ctx, ship)
            orders = [row[0] for row in rows]
            nvx = np.array([row[4] for row in rows], dtype=np.float64)
            nvy = np.array([row[5] for row in rows], dtype=np.float64)
            facing = np.array([row[3] for row in rows], dtype=np.int64)
        else:
            thrust, limit = order_limits(ctx, ship)
            moves = vector_offset_arrays(ship.course, thrust, limit)
            vx, vy = velocity(ship)
            orders = list(moves.orders)
            nvx, nvy, facing = vx + moves.dx, vy + moves.dy, moves.facing
        seeking.append((ship, orders, len(orders)))
        wanted.append((angle, wx * speed, wy * speed))
        columns.append((nvx, nvy, facing))
    if not seeking:
        return written
    owner = np.repeat(np.arange(len(seeking)), [count for _s, _o, count in seeking])
    angles, aim_x, aim_y = (
        np.array(column, dtype=np.float64) for column in zip(*wanted, strict=True)
    )
    nvx, nvy, facing = (np.concatenate(column) for column in zip(*columns, strict=True))
    # The velocity error, plus VECTOR_FACING_WEIGHT a clock point the bow lies off the way
    # wanted, each ship's own.
    offs = np.abs(np.mod(angles[:, None] - np.arange(12) * 30 + 180.0, 360.0) - 180.0) / 30
    costs = (
        np.hypot(nvx - aim_x[owner], nvy - aim_y[owner])
        + VECTOR_FACING_WEIGHT * offs[owner, facing % 12]
    )
    starts = np.cumsum([0, *(count for _s, _o, count in seeking)])
    leasts = np.minimum.reduceat(costs, starts[:-1]).tolist()
    for (ship, orders, _count), start, least in zip(
        seeking, starts[:-1].tolist(), leasts, strict=True
    ):
        # The least cost rounded to 6 places, the order's text breaking ties. Rounding keeps
        # the order of the costs, so only those within a hair of the least can tie with it:
        # they alone are rounded, and only the tied have their text read.
        part = costs[start : start + len(orders)]
        best = round(least, 6)
        tied = [
            orders[i]
            for i in np.flatnonzero(part - least < 1e-5).tolist()
            if round(float(part[i]), 6) == best
        ]
        written[ship.id] = min(tied, key=order_text)
    return written


def _cinematic_engage(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, enemies: Sequence[ShipInPlay]
) -> Order:
    """Return a cinematic Engage ship's move: turn as far towards the nearest enemy as it may
    and bring its speed to keep up with the target's motion away from it (none if it comes
    on) and close half the gap beyond :data:`ENGAGE_CLOSE_MU` (never below 2). Matching its
    whole speed would double the closing rate of two Engage ships meeting head on, and after
    each pass their speeds would climb without end. A target dead astern is turned towards on
    the side :func:`astern_side` picks."""
    target = nearest(enemies, ship.x, ship.y)
    distance = range_between(ship.x, ship.y, target.x, target.y)
    speed = max(2.0, _receding(ship, target) + (distance - ENGAGE_CLOSE_MU) / 2)
    angle = angle_to(ship, target.x, target.y)
    off = bearing(ship.x, ship.y, ship.course, target.x, target.y)
    if abs(off) > TURNING_BEARING:
        # Abaft the beam: slow to come round inside the target's circle, not spiral about it.
        speed = min(speed, TURNING_SPEED)
    if off == DEAD_ASTERN:
        side_sign = astern_side(ctx, state, ship, target)
        angle = ship.course % 12 * 30 + side_sign * (DEAD_ASTERN - 1.0)
    table = _table(ctx, state)
    if table is not None:
        speed = min(speed, TABLE_TOP_SPEED)
    order = steer_to(ctx, ship, angle, speed)
    if table is None:
        return order
    # On a table with edges: the move nearest the one wanted that keeps the ship on it, this
    # turn and the next flown straight on (leaving it is leaving the battle, 001 L536-538).
    wanted = end_of(ctx, ship, order)

    def cost(move: Candidate) -> tuple[float, str]:
        miss = math.hypot(move.x - wanted.x, move.y - wanted.y)
        outside = _outside(table, move.x, move.y) + _outside(
            table, move.x + move.vx, move.y + move.vy
        )
        return round(miss + TABLE_EDGE_WEIGHT * outside, 6), order_text(move.order)

    if not _outside(table, wanted.x, wanted.y) and not _outside(
        table, wanted.x + velocity_of(wanted)[0], wanted.y + velocity_of(wanted)[1]
    ):
        return order
    return min(candidates(ctx, ship), key=cost).order


TABLE_EDGE_WEIGHT = 4.0
"""What an Engage ship pays for each MU it would end outside a table's edges, shrunk by
:data:`TABLE_EDGE_MARGIN_MU` (this turn, or the next flown straight on), in MU of its move's
miss or velocity error."""


TURNING_BEARING = 90.0
"""A cinematic Engage ship whose target bears further off its bow than this (abaft the beam)
comes round at no more than :data:`TURNING_SPEED`: at speed it would circle the target, as
two Engage heavy cruisers did, firing on few turns (issue 17, the cinematic spiral)."""


TURNING_SPEED = 4.0

TABLE_TOP_SPEED = 12.0
"""The fastest a cinematic Engage ship means to fly on a table with edges: one it can still
turn and slow in before it runs off."""


SPATIAL_TABLE_SPEED = 6.0
"""The fastest a spatial Engage ship means to fly on a table with edges: a two-point turn
costs thrust equal to the velocity (003 L179-181), so a faster ship runs off before it turns."""


TABLE_EDGE_MARGIN_MU = 3.0
"""How far inside a table's edges an Engage ship means to keep."""


def _table(ctx: BattleContext, state: BattleState) -> tuple[float, float, float, float] | None:
    """The table's edges, if it has any now (tactical.state.off_table)."""
    return ctx.setup.table if ctx.setup.theatre is None else state.table


def _outside(table: tuple[float, float, float, float], x: float, y: float) -> float:
    """How far outside the table, shrunk by :data:`TABLE_EDGE_MARGIN_MU`, a point lies."""
    x_min, y_min, x_max, y_max = table
    m = TABLE_EDGE_MARGIN_MU
    return (
        max(0.0, x_min + m - x)
        + max(0.0, x - x_max + m)
        + max(0.0, y_min + m - y)
        + max(0.0, y - y_max + m)
    )


def velocity_of(end: MoveResult) -> tuple[float, float]:
    """A cinematic move's end velocity: its speed along its course."""
    dx, dy = heading_vector(end.course)
    return dx * end.speed, dy * end.speed


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
    :data:`VECTOR_CLOSE_MU` (:data:`VECTOR_CHASE_SHARE` of it when the target opens the range,
    :data:`VECTOR_CLOSE_SHARE` when it comes on), so that a ship which can change its velocity
    only by its thrust a turn does not run past its target."""
    vx, vy = velocity(target)
    gx, gy = target.x - ship.x, target.y - ship.y
    gap = math.hypot(gx, gy)
    share = VECTOR_CHASE_SHARE if vx * gx + vy * gy > 0 else VECTOR_CLOSE_SHARE
    scale = share * (gap - VECTOR_CLOSE_MU) / gap if gap else 0.0
    dx, dy = vx + gx * scale, vy + gy * scale
    if dx == dy == 0.0:
        return ship.course % 12 * 30.0, 0.0
    return math.degrees(math.atan2(dx, dy)), math.hypot(dx, dy)


VECTOR_CHASE_SHARE = 0.5
"""The share of the gap beyond :data:`VECTOR_CLOSE_MU` a vector Engage ship closes a turn on a
target running from it (the cinematic Engage's half)."""


VECTOR_CLOSE_SHARE = 0.25
"""... and on a target coming on or passing: a quarter, so the two do not meet at a speed the
ship cannot shed (Engage beat the random commander in 92.5% of 400 battles with a quarter, 78%
with a half; docs/rulings.md, "Tactical: vector movement")."""


VECTOR_ERROR_MU = 16.0
"""An Engage ship's velocity error of e MU (from :func:`_closing_vector`) costs e * e / 16: a
small error is cheap against a die, a large one (an overshoot, turns lost coming back) dear
(8, the baseline's, won 66% of the decisive vector battles against the closing commander in
80 seeded runs, 16 with :data:`ENGAGE_DIE_MU` at 4 75%)."""


ENGAGE_DIE_MU = 4.0
"""What an Engage ship gives for each beam die it could roll this turn at an enemy's forecast
place (in the units of :data:`VECTOR_ERROR_MU`'s cost)."""


ENGAGE_THREAT_MU = 1.0
"""... what it pays for each beam die the enemies could roll at it, each enemy's dice shared
among the ships of the side it could reach (it fires at one of them whatever this one does)."""


ENGAGE_FACING_MU = 1.0
"""... and for each clock point its bow lies off its target's forecast place."""


SEARCH_SLACK = 12.0
"""How much dearer in velocity error than the cheapest a candidate may be and still be weighed
in full: six dice, more than any one ship's guns would trade for (so the cut loses nothing)."""


SEARCH_WIDTH = 3
"""... and of those, only the few cheapest in velocity error that end facing each way: the
facing decides what bears, the velocity where the ship will be."""


REACH_SLACK_MU = 12.0
"""An enemy counts as able to reach a ship of the side (:class:`_Plan`'s ``spread``) when the
ship lies within its guns' reach and this much more: a turn's closing."""


GunTables = dict[tuple[str, int, tuple[str, ...], tuple[str, ...]], tuple[Ship, GunTable]]
"""Engage's gun tables kept by ship, record sheet (by identity, each entry holding it), the
rules' arcs and the states of its systems (:meth:`_Plan.of`)."""

GUN_TABLES_KEPT = 4096
"""How many gun tables a commander keeps before it starts again (a memory bound only)."""


class _Plan(NamedTuple):
    """What an Engage side works out once a turn for all its ships: the enemies' forecast
    places (flown straight on), every ship's guns as dice, and among how many of the side's
    ships each enemy's fire is shared."""

    arcs: int
    enemies: tuple[tuple[ShipInPlay, float, float, int], ...]
    guns: dict[str, GunTable]
    spread: dict[str, int]
    asteroids: tuple[tuple[float, float], ...]
    ex: FloatArray
    """The enemies' forecast places, x and y, in :attr:`enemies`' order ..."""
    ey: FloatArray
    ahead: FloatArray
    """... the bearing of each one's bow, in degrees ..."""
    reach: FloatArray
    bands: int
    dice: IntArray
    """... and its guns: ``dice[enemy, arc, band]``, padded with none to :attr:`bands` bands,
    the most dice one arc gives ``best[enemy, band]``, and twice :attr:`spread`."""
    best: IntArray
    share: FloatArray

    @classmethod
    def of(
        cls,
        ctx: BattleContext,
        state: BattleState,
        side: str,
        enemies: Sequence[ShipInPlay],
        tables: GunTables | None = None,
    ) -> _Plan:
        """Work the plan out; ``tables`` keeps each ship's gun table for as long as its
        record sheet (the one its side sees: each side view's context is new, its sheets
        not), the rules' arcs and its systems' states stand (a table is read off those
        alone)."""
        import numpy as np

        ahead = []
        for enemy in enemies:
            dx, dy = velocity(enemy)
            ahead.append((enemy, enemy.x + dx, enemy.y + dy, enemy.course))
        ours = [s for s in state.ships if s.side == side and s.status == "active"]
        known = {} if tables is None else tables
        guns = {}
        for s in (*ours, *enemies):
            sheet = ctx.sheets[s.id]
            statuses = tuple(system.status for system in s.record.systems)
            key = (s.id, id(sheet), ctx.rules.arcs, statuses)
            kept = known.get(key)
            if kept is None or kept[0] is not sheet:
                kept = known[key] = (sheet, gun_table(ctx, s))
            guns[s.id] = kept[1]
        spread = {
            enemy.id: max(
                1,
                sum(
                    math.hypot(s.x - x, s.y - y) <= guns[enemy.id].reach + REACH_SLACK_MU
                    for s in ours
                ),
            )
            for enemy, x, y, _c in ahead
        }
        theirs = [guns[enemy.id] for enemy in enemies]
        bands = max([1, *(len(table.best) for table in theirs)])
        padded = [dice_array(table, bands) for table in theirs]
        return cls(
            len(ctx.rules.arcs),
            tuple(ahead),
            guns,
            spread,
            asteroids_now(ctx, state),
            np.array([x for _e, x, _y, _c in ahead], dtype=np.float64),
            np.array([y for _e, _x, y, _c in ahead], dtype=np.float64),
            np.array([c % 12 * 30 for _e, _x, _y, c in ahead], dtype=np.float64),
            np.array([table.reach for table in theirs], dtype=np.float64),
            bands,
            np.array([dice for dice, _best in padded], dtype=np.int64),
            np.array([best for _dice, best in padded], dtype=np.int64),
            np.array([2.0 * spread[enemy.id] for enemy in enemies], dtype=np.float64),
        )


def _engage_moves(
    ctx: BattleContext, state: BattleState, plan: _Plan, ships: Sequence[ShipInPlay]
) -> dict[str, Order]:
    """Return each ship's move as an Engage ship moves (docs/rulings.md, "Tactical: Engage"):
    of every move it may make (:func:`tactical.commanders.tactics.candidates`), the one with
    the lowest cost, the enemies forecast flown straight on:

    - the square of its new velocity's error from :func:`_closing_vector` (lifted over a gas
      giant), over :data:`VECTOR_ERROR_MU`;
    - less :data:`ENGAGE_DIE_MU` a beam die it could roll at the best enemy this turn, plus
      :data:`ENGAGE_THREAT_MU` a die the enemies could roll at it, each enemy half as it flies
      and half turned to bring its best arc to bear, shared among the ships it could reach;
      none through an asteroid;
    - plus :data:`ENGAGE_FACING_MU` a clock point its bow lies off the target's forecast
      place, and :data:`VECTOR_EDGE_WEIGHT` an MU of the gas giant edge's risk;
    - plus :data:`SALVO_DODGE_MU` for ending where an enemy salvo may wait for it, times the
      chance one does (:func:`_salvo_risk`).

    Only the :data:`SEARCH_WIDTH` moves nearest the wanted velocity for each facing, within
    :data:`SEARCH_SLACK` of the nearest, are weighed in full, all of them at once as arrays
    (:class:`_Weighed`). The order's text breaks ties, so the choice is stable.

    The beam dice each move leaves for and against every ship's moves are worked out together,
    as one set of arrays (an element's figure is the same whichever array it is worked out in).
    """
    import numpy as np

    if not ships:
        return {}
    weighed = []
    for ship in ships:
        target = nearest(enemies_of(state, ship.side), ship.x, ship.y)
        angle, speed = lifted(ctx, ship, *_closing_vector(ship, target))
        if ctx.rules.movement == "spatial" and _table(ctx, state) is not None:
            speed = min(speed, SPATIAL_TABLE_SPEED)  # 003: turning at speed costs the velocity
        wx, wy = angle_vector(angle)
        wx, wy = wx * speed, wy * speed
        tdx, tdy = velocity(target)
        weighed.append((ship, _Weighed.of(ctx, ship, wx, wy), target.x + tdx, target.y + tdy))
    counts = [len(moves.orders) for _s, moves, _x, _y in weighed]
    every = _Weighed(
        [],
        np.concatenate([moves.x for _s, moves, _x, _y in weighed]),
        np.concatenate([moves.y for _s, moves, _x, _y in weighed]),
        np.concatenate([moves.facing for _s, moves, _x, _y in weighed]),
        np.empty(0),
        np.empty(0),
        np.concatenate([moves.cost for _s, moves, _x, _y in weighed]),
    )
    owner = np.repeat(np.arange(len(weighed)), counts)
    near = _Near.of(plan, every)
    hits = _hits(plan, [plan.guns[ship.id] for ship, _m, _x, _y in weighed], owner, every, near)
    threat = _threat(plan, every, near)
    tx = np.array([x for _s, _m, x, _y in weighed], dtype=np.float64)[owner]
    ty = np.array([y for _s, _m, _x, y in weighed], dtype=np.float64)[owner]
    together = (
        every.cost
        - ENGAGE_DIE_MU * hits
        + ENGAGE_THREAT_MU * threat
        + ENGAGE_FACING_MU * _off_bow(every, tx, ty)
    )
    written: dict[str, Order] = {}
    start = 0
    for (ship, moves, _x, _y), count in zip(weighed, counts, strict=True):
        value = together[start : start + count] + _salvo_risk(ctx, state, ship, moves)
        start += count
        values = _with_edges(ctx, state, moves, value.tolist())
        # The least value rounded to 6 places, the order's text breaking ties. Rounding keeps
        # the order of the values, so only those within a hair of the least can tie with it:
        # they alone are rounded.
        least = min(values)
        best = round(least, 6)
        written[ship.id] = min(
            (
                moves.orders[i]
                for i, v in enumerate(values)
                if v - least < 1e-5 and round(v, 6) == best
            ),
            key=order_text,
        )
    return written


def _with_edges(
    ctx: BattleContext, state: BattleState, moves: _Weighed, values: list[float]
) -> list[float]:
    """Each move's value with :data:`VECTOR_EDGE_WEIGHT` an MU of the gas giant edge's risk,
    and :data:`TABLE_EDGE_WEIGHT` an MU it ends outside a table's edges, this turn or the
    next flown straight on."""
    theatre = ctx.setup.theatre
    well = theatre is not None and theatre.well_edge is not None and bool(theatre.gravity)
    table = _table(ctx, state)
    if not well and table is None:
        return values
    ends = zip(
        moves.x.tolist(), moves.y.tolist(), moves.vx.tolist(), moves.vy.tolist(), strict=True
    )
    for i, (x, y, vx, vy) in enumerate(ends):
        if well:
            values[i] += VECTOR_EDGE_WEIGHT * _edge_risk(ctx, x, vx)
        if table is not None:
            values[i] += TABLE_EDGE_WEIGHT * (
                _outside(table, x, y) + _outside(table, x + vx, y + vy)
            )
    return values


def _salvo_risk(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, moves: _Weighed
) -> FloatArray | float:
    """:data:`SALVO_DODGE_MU` for each move that ends where an enemy salvo may be waiting for
    the ship (:mod:`tactical.commanders.salvos`), when it is its side's last ship, so the one
    the enemy's salvos are aimed at (:data:`DUEL_SHARE`), as under cinematic movement. A ship
    of a fleet weighing the chance that one waits for it (one in as many ships as its side
    has) cost the fleet's fire: with both the side's guns counted together and that, Engage
    won 65.5% of 200 decisive vector battles against the closing commander, and 76.0% with
    the duel's dodge alone, its heavy cruisers' mirrors drawing 6% either way."""
    share = salvo_share(ctx, state, ship)
    if share < DUEL_SHARE:
        return 0.0
    aims = salvo_aims(ctx, state, ship)
    return SALVO_DODGE_MU * share * in_salvo_reach(ctx, aims, moves.x, moves.y)


def _dodged(
    ctx: BattleContext, state: BattleState, plan: _Plan, ship: ShipInPlay, order: Order
) -> Order:
    """A cinematic Engage ship's order, or, if it ends where an enemy salvo may be waiting
    for the ship and the ship is its side's last (:data:`DUEL_SHARE`), the move ending nearest
    its end that is clear of it, within :data:`DODGE_REACH_MU`, and leaves the ship open to
    no more of the enemies' dice (none such: the order; on a table with edges the order
    stands). The order's text breaks ties."""
    import numpy as np

    duel = _table(ctx, state) is None and salvo_share(ctx, state, ship) >= DUEL_SHARE
    aims = salvo_aims(ctx, state, ship) if duel else []
    if not aims:
        return order
    wanted = end_of(ctx, ship, order)
    if not in_salvo_reach(ctx, aims, np.array([wanted.x]), np.array([wanted.y]))[0]:
        return order
    rows = [Candidate(order, wanted.x, wanted.y, wanted.course, 0.0, 0.0), *candidates(ctx, ship)]
    x = np.array([row.x for row in rows], dtype=np.float64)
    y = np.array([row.y for row in rows], dtype=np.float64)
    miss = np.hypot(x - wanted.x, y - wanted.y)
    moves = _Weighed(
        [row.order for row in rows],
        x,
        y,
        np.array([row.facing for row in rows], dtype=np.int64),
        np.zeros(len(rows)),
        np.zeros(len(rows)),
        miss,
    )
    threat = _threat(plan, moves)
    clear = (in_salvo_reach(ctx, aims, x, y) == 0) & (threat <= threat[0] + 1e-9)
    clear &= miss <= DODGE_REACH_MU
    if not clear.any():
        return order
    misses = miss.tolist()
    best = min(
        (i for i, free in enumerate(clear.tolist()) if free),
        key=lambda i: (round(misses[i], 6), order_text(rows[i].order)),
    )
    return rows[best].order


DUEL_SHARE = 1.0
"""A cinematic Engage ship dodges (:func:`_dodged`) when a salvo waits for it at least this
likely (:func:`~tactical.commanders.salvos.salvo_share`): when it is its side's last ship."""


DODGE_REACH_MU = 16.0
"""How far from the end it wanted a cinematic Engage ship may end to dodge a salvo."""


SALVO_DODGE_MU = 16.0
"""What a vector Engage ship pays for ending where an enemy salvo may be waiting for it
(:func:`_salvo_risk`), times the chance one is: four dice, against a salvo's 10-18 points.
Two Engage heavy cruisers that flew on into each other's salvo were both struck or destroyed
on the same turn in most of their drawn mirrors (issue 17); over 300 seeded mirrors a
movement, dodging drew 34 under vector movement (44 before) and 28 under cinematic (36).
Paying it in full wherever an enemy might aim, a fleet won 4 of 40 vector battles against the
closing commander instead of 24, so it is weighed by the chance (26 of the same 40)."""


class _Weighed(NamedTuple):
    """The moves an Engage ship weighs in full, as arrays: each order, where it ends, the
    facing it ends with, the velocity it leaves with, and its velocity error's cost."""

    orders: list[Order]
    x: FloatArray
    y: FloatArray
    facing: IntArray
    vx: FloatArray
    vy: FloatArray
    cost: FloatArray

    @classmethod
    def of(cls, ctx: BattleContext, ship: ShipInPlay, wx: float, wy: float) -> _Weighed:
        """For each facing the :data:`SEARCH_WIDTH` moves nearest the wanted velocity (wx,
        wy), within :data:`SEARCH_SLACK` of the nearest of all (equal costs in the
        candidates' order)."""
        import numpy as np

        if ctx.rules.movement == "spatial":
            return cls._of_rows(candidate_rows(ctx, ship), wx, wy)
        thrust, limit = order_limits(ctx, ship)
        offsets = vector_offset_arrays(ship.course, thrust, limit)
        vx, vy = velocity(ship)
        nvx = vx + offsets.dx
        nvy = vy + offsets.dy
        error = np.hypot(nvx - wx, nvy - wy)
        cost = error * error / VECTOR_ERROR_MU
        # Grouped by facing, cheapest first (stable sorts: equal costs keep their order).
        # The arrays' own methods and the ufuncs' reductions: what np.argsort and .min()
        # call, without their Python wrappers.
        cheapest = cost.argsort(kind="stable")
        ranked = cheapest[offsets.facing[cheapest].argsort(kind="stable")]
        least = np.minimum.reduce(cost)
        keep = ranked[(offsets.rank < SEARCH_WIDTH) & (cost[ranked] <= least + SEARCH_SLACK)]
        sx, sy = ship.x + vx, ship.y + vy
        return cls(
            [offsets.orders[i] for i in keep.tolist()],
            sx + offsets.dx[keep],
            sy + offsets.dy[keep],
            offsets.facing[keep],
            nvx[keep],
            nvy[keep],
            cost[keep],
        )

    @classmethod
    def _of_rows(cls, rows: Sequence[Row], wx: float, wy: float) -> _Weighed:
        """:meth:`of` for moves given as rows (a spatial ship's, 003: their facings and
        motions are not the vector drive's offsets), chosen the same way."""
        import numpy as np

        x = np.array([row[1] for row in rows], dtype=np.float64)
        y = np.array([row[2] for row in rows], dtype=np.float64)
        facing = np.array([row[3] for row in rows], dtype=np.int64)
        nvx = np.array([row[4] for row in rows], dtype=np.float64)
        nvy = np.array([row[5] for row in rows], dtype=np.float64)
        error = np.hypot(nvx - wx, nvy - wy)
        cost = error * error / VECTOR_ERROR_MU
        cheapest = np.argsort(cost, kind="stable")
        ranked = cheapest[np.argsort(facing[cheapest], kind="stable")]
        grouped = facing[ranked]
        rank = np.arange(len(rows)) - np.searchsorted(grouped, grouped)
        keep = ranked[(rank < SEARCH_WIDTH) & (cost[ranked] <= cost.min() + SEARCH_SLACK)]
        return cls(
            [rows[i][0] for i in keep.tolist()],
            x[keep],
            y[keep],
            facing[keep],
            nvx[keep],
            nvy[keep],
            cost[keep],
        )


def _bands(distance: FloatArray) -> IntArray:
    """Each distance's range band index (0 for the first :data:`BAND_MU`)."""
    import numpy as np

    band: IntArray = np.maximum(np.ceil(distance / BAND_MU) - 1, 0).astype(np.int64)
    return band


def _arcs(plan: _Plan, relative: FloatArray) -> IntArray:
    """The arc index each bearing off the bow lies in (tactics.arc_index, for arrays)."""
    import numpy as np

    width = 360.0 / plan.arcs
    if 360 % plan.arcs:
        return (
            np.floor_divide(np.mod(relative + width / 2, 360.0), width).astype(np.int64) % plan.arcs
        )
    # The same figures as np.mod and np.floor_divide (which work out a remainder and a quotient
    # with corrections, element by element) from quicker steps: the remainder of fmod, plus
    # 360 where it is negative, as np.mod adds it; the quotient's floor less one where the
    # division rounded up to the next whole number (the arcs' width a whole number of
    # degrees, so each multiple of it is exact).
    turned = np.fmod(relative + width / 2, 360.0)
    np.add(turned, 360.0, out=turned, where=turned < 0)
    arc = turned / width
    np.floor(arc, out=arc)
    arc -= arc * width > turned
    return arc.astype(np.int64) % plan.arcs


def _clear(plan: _Plan, moves: _Weighed) -> npt.NDArray[np.bool_]:
    """Whether each move's end and each enemy's forecast place see each other past the
    asteroids."""
    import numpy as np

    clear = np.ones((len(moves.x), len(plan.enemies)), dtype=np.bool_)
    if plan.asteroids:
        for i, (x, y) in enumerate(zip(moves.x.tolist(), moves.y.tolist(), strict=True)):
            for j, (_e, ex, ey, _c) in enumerate(plan.enemies):
                clear[i, j] = not line_blocked((x, y), (ex, ey), plan.asteroids)
    return clear


def _hits(
    plan: _Plan, tables: Sequence[GunTable], owner: IntArray, moves: _Weighed, near: _Near
) -> FloatArray:
    """The most beam dice each move leaves its ship (``tables[owner]``) able to roll at one
    enemy's forecast place, facing as it ends (dice_at, for every move and enemy at once)."""
    import numpy as np

    bands = max(1, *(len(table.best) for table in tables))
    # Each ship's dice padded with none to the most bands: past its own it rolls none there,
    # as past its reach.
    padded = [dice_array(table, bands) for table in tables]
    dice = np.array([d for d, _b in padded], dtype=np.int64)
    best = np.array([b for _d, b in padded], dtype=np.int64)
    reach = np.array([table.reach for table in tables], dtype=np.float64)[owner]
    gx = plan.ex[None, :] - moves.x[:, None]
    gy = plan.ey[None, :] - moves.y[:, None]
    band = np.minimum(near.band, bands - 1)
    ahead = (moves.facing % 12 * 30).astype(np.float64)
    arc = _arcs(plan, np.degrees(np.arctan2(gx, gy)) - ahead[:, None])
    which = owner[:, None]
    rolled = np.where(
        (near.distance <= reach[:, None]) & (best[which, band] > 0) & near.clear,
        dice[which, arc, band],
        0,
    )
    hits: FloatArray = np.maximum.reduce(rolled, axis=1).astype(np.float64)
    return hits


class _Near(NamedTuple):
    """How far each move's end lies from each enemy's forecast place, in which range band,
    and whether they see each other past the asteroids: what :func:`_hits` and
    :func:`_threat` both read."""

    distance: FloatArray
    band: IntArray
    clear: npt.NDArray[np.bool_]

    @classmethod
    def of(cls, plan: _Plan, moves: _Weighed) -> _Near:
        import numpy as np

        # The same distances whichever way the lines are drawn: each difference is the
        # other's negated exactly, and hypot reads only their sizes.
        distance = np.hypot(
            plan.ex[None, :] - moves.x[:, None], plan.ey[None, :] - moves.y[:, None]
        )
        return cls(distance, _bands(distance), _clear(plan, moves))


def _threat(plan: _Plan, moves: _Weighed, near: _Near | None = None) -> FloatArray:
    """The beam dice the enemies could roll at the ship at each move's end: each half from
    where it is forecast, facing as it does, half turned to bring its best arc to bear, over
    the number of the side's ships it could reach (dice_at and best_dice_at, for every move
    and enemy at once)."""
    import numpy as np

    near = _Near.of(plan, moves) if near is None else near
    gx = moves.x[:, None] - plan.ex[None, :]
    gy = moves.y[:, None] - plan.ey[None, :]
    band = np.minimum(near.band, plan.bands - 1)
    which = np.arange(len(plan.enemies))[None, :]
    arc = _arcs(plan, np.degrees(np.arctan2(gx, gy)) - plan.ahead[None, :])
    best = plan.best[which, band]
    reach = (near.distance <= plan.reach[None, :]) & (best > 0) & near.clear
    dice = np.where(reach, (plan.dice[which, arc, band] + best) / plan.share[None, :], 0.0)
    threat: FloatArray = np.add.reduce(dice, axis=1)
    return threat


def _off_bow(moves: _Weighed, tx: float | FloatArray, ty: float | FloatArray) -> FloatArray:
    """How many clock points each move's bow lies off a point, or each its own (``tx`` and
    ``ty`` as arrays; tactical.fire.bearing)."""
    import numpy as np

    gx, gy = tx - moves.x, ty - moves.y
    relative = np.mod(np.degrees(np.arctan2(gx, gy)) - moves.facing % 12 * 30 + 180.0, 360.0)
    off: FloatArray = np.where((gx == 0) & (gy == 0), 0.0, np.abs(relative - 180.0) / 30)
    return off


def _edge_risk(ctx: BattleContext, x: float, away: float) -> float:
    """:func:`tactical.commanders.steering.edge_risk` for a ship ending at ``x`` with a
    velocity of ``away`` MU a turn away from the well."""
    theatre = ctx.setup.theatre
    assert theatre is not None
    assert theatre.well_edge is not None
    gravity = theatre.gravity
    now = x - gravity - theatre.well_edge
    later = now + away - gravity
    return max(0.0, 2 * gravity - min(now, later))


BEAM_DIE_DAMAGE = 2 / 3
"""A beam die's mean damage on an unscreened target: 4 and 5 score 1, a 6 scores 2 (001
L466-475); Engage weighs targets by it, not by rolling."""


TORPEDO_SHOT_DAMAGE = 2.0
"""... and a torpedo's or any other weapon's shot, roughly: half hit, a few points each."""


UNFIRED_WORTH = 0.5
"""How much more an enemy ship that has not yet fired this phase is worth finishing (the
sides fire in turn, 001 L270: a ship destroyed before its turn does not fire): 1.5 times its
mass. Over 400 seeded bench battles a cell (seeds 2026 and 7), 0.5 won 76.3% and 72.5% of the
decisive against the closing commander (vector, cinematic) and 71.8% and 63.8% against the
baseline; 1.5 74.0%, 75.3%, 72.3% and 64.5%, but drew 13 of the 40 cinematic mirrors of
test_fire_that_finishes_ships_decides_more_mirror_battles (both fleets withdrawing when they
break together), 0.5 7; 3 (seed 2026 alone) won less in every cell."""


KILL_POWER = 3
"""How a target's worth grows with the share of its hull left that the fire is expected to
take: as its cube. Fleet morale counts ships lost, not hull boxes (000 L13214-13273), so fire
that can finish a ship is worth much more than the same damage spread over sound ones. Over
300 seeded mirrors of the Continuum default fleets each (with :func:`_focused_fire`'s order),
the share itself, the power 1, drew 21% (vector) and 34% (cinematic), every draw both fleets
breaking on the same turn; its square 18% and 22%; its cube 17% and 19%."""


def _target_worth(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    options: dict[str, tuple[str, ...]],
    dealt: dict[str, float] | None = None,
    support: dict[str, float] | None = None,
) -> dict[str, float]:
    """What firing every weapon that reaches it at each target is worth to a side that wins by
    breaking the enemy's fleet morale (000 L13214-13273, lost mass): the share of its hull
    left that the expected damage of this ship and of the side's ships yet to fire
    (``support``) takes, capped at all of it, to the power :data:`KILL_POWER`, times its mass
    (more by :data:`UNFIRED_WORTH` if it has yet to fire), times this ship's share of that
    damage. So the side's guns go together on the most mass they can finish between them, a
    battleship as well as a frigate, not each on whatever it could finish alone.

    The hull left is what the side sees; of an enemy whose record sheet is closed to it (it
    sees no damage), less the expected damage of the side's own shots at it this battle
    (``dealt``, a tally of what it ordered), never below one box."""
    sheet = ctx.sheets[ship.id]
    damage: dict[str, float] = {}
    ranges: dict[str, float] = {}  # each target's range, worked out once for all the weapons
    for weapon, targets in options.items():
        kind = sheet.system(weapon).kind
        for target_id in targets:
            if kind in BEAM_STRENGTH:
                distance = ranges.get(target_id)
                if distance is None:
                    target = state.ship(target_id)
                    distance = ranges[target_id] = range_between(ship.x, ship.y, target.x, target.y)
                dice = beam_dice(kind, distance)
                expected = dice * BEAM_DIE_DAMAGE
            else:
                expected = TORPEDO_SHOT_DAMAGE
            damage[target_id] = damage.get(target_id, 0.0) + expected
    worth: dict[str, float] = {}
    for target_id, expected in damage.items():
        target = state.ship(target_id)
        their = ctx.sheets[target_id]
        left = float(max(1, hull_remaining(their, target.record)))
        if dealt and target.sighting is not None:
            left = max(1.0, left - dealt.get(target_id, 0.0))
        more = support.get(target_id, 0.0) if support else 0.0
        mass = their.mass * (1.0 if target.fired else 1.0 + UNFIRED_WORTH)
        share = expected / (expected + more) if expected + more > 0 else 0.0
        worth[target_id] = (min(expected + more, left) / left) ** KILL_POWER * mass * share
    return worth


def _focused_fire() -> Callable[[BattleContext, BattleState, str], tuple[str, list[Shot]]]:
    """Return Engage's fire: a ship with a single enemy in reach fires first, so that its
    friends, who have more choice, see what its fire left (fired later, it found that enemy
    destroyed as often as not, and fired nothing); then the ship with the most guns bearing
    (each ship's count worked out once a fire phase, and again only when an enemy has left
    play since). Each fires at the targets its fire is worth most on (:func:`_target_worth`:
    the most enemy mass it and the side's ships yet to fire bring nearest destruction, less
    what the side's shots at it this battle are expected to have taken where the enemy's
    damage is hidden from it), one a FireCon; the nearest breaks ties."""
    counted: dict[tuple[int, str], tuple[bool, int, int]] = {}
    battle: list[BattleContext] = []  # the battle the counts are of: a commander may fight many
    dealt: dict[str, float] = {}  # target -> expected damage of the side's shots at it
    fired: dict[str, int] = {}  # the side's ship -> the turn it last fired, for the tally
    supporting: SupportKept = {}  # _support's dice, kept while the ships and enemies stand

    def fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        if not battle or battle[0] is not ctx:
            battle[:] = [ctx]
            counted.clear()
        if _another_battle(state, fired, dealt):
            fired.clear()
            dealt.clear()
        ready = ships_to_fire(ctx, state, side)
        if any(state.ship(s).nova for s in ready):
            return focused_fire(ctx, state, side)
        gone = sum(s.status != "active" for s in state.ships)
        now: dict[str, dict[str, tuple[str, ...]]] = {}  # options worked out from this state

        def bearing_guns(ship_id: str) -> tuple[bool, int]:
            key = (state.turn, ship_id)
            known = counted.get(key)
            if known is None or known[2] != gone:
                options = now[ship_id] = fire_options(ctx, state, ship_id)
                single = len(enemies_in(state, options)) == 1
                known = counted[key] = (single, len(options), gone)
            return known[0], known[1]

        ship_id = max(ready, key=lambda s: (overload_ready(ctx, state, s), *bearing_guns(s), s))
        ship = state.ship(ship_id)
        options = now[ship_id] if ship_id in now else fire_options(ctx, state, ship_id)
        salvos = salvo_shots(ctx, state, ship_id)
        support = _support(ctx, state, [s for s in ready if s != ship_id], supporting)
        worth = _target_worth(ctx, state, ship, options, dealt, support)
        reachable = sorted(
            enemies_in(state, options),
            key=lambda t: (
                -round(worth.get(t, 0.0), 9),
                range_between(ship.x, ship.y, state.ship(t).x, state.ship(t).y),
                t,
            ),
        )
        chosen = reachable[: fire_controls(ctx, ship)]
        shots = aimed(ctx, state, ship_id, options, chosen)
        for shot in shots:
            target = state.ship(shot.target)
            dealt[shot.target] = dealt.get(shot.target, 0.0) + _expected(
                ctx, ship, target, shot.weapon
            )
        fired[ship_id] = state.turn
        return ship_id, salvos + shots

    return fire


SupportKept = dict[
    tuple[tuple[str, float, float], ...],
    dict[int, tuple[ShipInPlay, Ship, object, list[tuple[str, int]]]],
]
""":func:`_support`'s dice of each ship at each enemy, by the enemies' places and the ship's
identity; each entry holds the ship, its record sheet and the rules it was worked out with."""

SUPPORT_KEPT = 64
"""How many sets of enemy places :data:`SupportKept` keeps before it starts again (a memory
bound only)."""


def _support(
    ctx: BattleContext,
    state: BattleState,
    others: Sequence[str],
    kept: SupportKept | None = None,
) -> dict[str, float]:
    """The expected beam damage the side's other ships yet to fire this phase could put on
    each enemy in play, facing as they do (their gun tables: an estimate). ``kept`` keeps
    each ship's dice at the enemies for as long as it, its record sheet, the rules and the
    enemies' places stand (the dice are read off those alone), for the phase's later
    firings."""
    if not others:
        return {}
    arcs = len(ctx.rules.arcs)
    side = state.ship(others[0]).side
    enemies = [e for e in state.ships if e.side != side and e.status == "active"]
    if kept is not None and len(kept) >= SUPPORT_KEPT:
        kept.clear()
    known = {} if kept is None else kept.setdefault(tuple((e.id, e.x, e.y) for e in enemies), {})
    support: dict[str, float] = {}
    for other_id in others:
        other = state.ship(other_id)
        sheet = ctx.sheets[other_id]
        entry = known.get(id(other))
        if (
            entry is None
            or entry[0] is not other
            or entry[1] is not sheet
            or entry[2] is not ctx.rules
        ):
            table = gun_table(ctx, other)
            rolled = [
                (enemy.id, dice_at(table, arcs, other.x, other.y, other.course, enemy.x, enemy.y))
                for enemy in enemies
            ]
            entry = known[id(other)] = (other, sheet, ctx.rules, [r for r in rolled if r[1]])
        for enemy_id, dice in entry[3]:
            support[enemy_id] = support.get(enemy_id, 0.0) + dice * BEAM_DIE_DAMAGE
    return support


def _expected(ctx: BattleContext, ship: ShipInPlay, target: ShipInPlay, weapon: str) -> float:
    """A weapon's expected damage on a target, as :func:`_target_worth` reckons it."""
    kind = ctx.sheets[ship.id].system(weapon).kind
    if kind in BEAM_STRENGTH:
        distance = range_between(ship.x, ship.y, target.x, target.y)
        return beam_dice(kind, distance) * BEAM_DIE_DAMAGE
    return TORPEDO_SHOT_DAMAGE


def _another_battle(state: BattleState, fired: dict[str, int], dealt: dict[str, float]) -> bool:
    """Whether the fire's tally is of another battle than this state's (a commander may fight
    many): a ship it saw fire is gone, or fired in a later turn, or has not fired in this turn
    after all; or a target it tallied is gone."""
    ships = {s.id: s for s in state.ships}
    for ship_id, turn in fired.items():
        ship = ships.get(ship_id)
        if ship is None or turn > state.turn or (turn == state.turn and not ship.fired):
            return True
    return any(target not in ships for target in dealt)
