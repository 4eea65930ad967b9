"""Stand Off (004 L105-112): keep the range outside the enemy's longest beam band when its
own guns reach further, else just outside the enemy's reach, and fire whatever bears.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from tactical.battle import (
    BattleContext,
    BattleState,
    ShipInPlay,
    asteroids_now,
    move_by_rules,
    move_start,
    order_limits,
    velocity,
)
from tactical.commanders.scoring import (
    Commander,
    Forecast,
    Guns,
    dice_on,
    enemies_of,
    focused_fire,
    guns_of,
    order_text,
    posture_flight,
    reach_of,
)
from tactical.commanders.steering import (
    vector_candidates,
    with_beam_defence,
    with_ecm,
    with_fighters,
    with_scramble,
    with_sensors,
    with_torpedo_settings,
)
from tactical.fire import BAND_MU, range_between
from tactical.movement import (
    COURSES,
    DEGREES_PER_COURSE,
    MoveResult,
    MoveStart,
    Order,
    heading_vector,
    move,
)
from tactical.sensors import Bogey

STAND_OFF_MARGIN_MU = 4.0  # how far outside the enemy's reach a Stand Off ship keeps


STAND_OFF_THREAT = 1.5  # how much a Stand Off ship weighs the enemy's dice against its own


STAND_OFF_INSIDE_MU = 0.5
"""A Stand Off ship pays a die for each this many MU an enemy lies inside the range it keeps
from that enemy, after this move or any of the next :data:`STAND_OFF_LOOKS`."""

STAND_OFF_LOOKS = {"vector": 4, "cinematic": 4, "spatial": 4}
"""How many moves a Stand Off ship looks ahead, both sides flying straight on (a cinematic
ship also as if it turned away, :func:`_fleeing`), under each movement: a velocity towards the
enemy takes turns of thrust to undo, and a ship turns away in time only if it sees the range
fall that far ahead. Cinematic ships looked three moves ahead, straight on only (two at
bogeys), and held 41.3 MU of the 51.8 they wanted against Engage's default fleet, losing 68 of
100 seeded battles; now 44.0 of 51.9, losing 8 (issue 17, bench/bench_commanders.py)."""

FASTER_LOOKS = 3
"""... and from an enemy whose drive is stronger than its own, no more than this many: it
cannot be outrun, and fleeing it further ahead only turns the ship's guns away (heavy
cruisers that looked four moves ahead at faster frigates dealt 457 hull boxes for 413 over 40
seeded vector battles; tests/tactical/test_campaign_battle.py asks for more than twice), and
from an enemy without guns: it cannot hurt the ship, which closes to half its own reach
(looking four moves ahead at such a target coming on, a cinematic cruiser held off instead of
closing; tests/tactical/test_torpedo_commanders.py)."""

TABLE_LOOKS = 2
"""... but on a table with edges, two (this move and the next), paying a die an MU inside: a
ship that looks further ahead, with no edge in its weighing, runs into them (in the Grendel
scenario against the closing commander it lost 151 points a battle over 30 seeded runs, more
than a third of the 412 the closing commander loses in its own mirror;
tests/tactical/test_odds.py)."""

BOGEY_LOOKS = 4
"""... and while no enemy is identified, this many, paying a die an MU inside the range to
the nearest bogey: the ship does not close on what it cannot see. Looking two moves ahead
(this move and the next), cinematic ships stopped facing the bogeys on the first turn, could
not come round in time once they were identified, and the Stand Off fleet lost 86 of 100
seeded cinematic battles against Engage's; looking four, and turning away in the weighing
(:func:`_fleeing`), 8 (issue 17, bench/bench_commanders.py)."""

BOGEY_INSIDE_MU = 1.0

BOGEY_CHASE_MU = 6.0
"""How much nearer than its straight flight a bogey (its drive unknown) is taken to come each
move: it may burn its drive at the Stand Off ship (a typical warship's thrust)."""

PAYS, MATCHED, BANKS = 0, 1, 2
"""What a Stand Off ship does with the range beyond the one it keeps from an enemy: pays for
it (its guns fall silent there), earns it only where it weighs turning away
(:func:`_fleeing`: from a chaser whose drive matches its own, :func:`_drifts`), or earns it
(:func:`banks`)."""

STAND_OFF_OUTSIDE_MU = BAND_MU
"""... and a die for each this many MU it lies beyond it (its own guns fall silent), or, from
a chaser it cannot outrun, earns one (:func:`banks`)."""


def _candidate_orders(ctx: BattleContext, ship: ShipInPlay) -> list[Order]:
    """Legal orders worth weighing: every turn, with five speed changes each (under vector
    movement, :func:`vector_candidates`)."""
    if ship.vector is not None:
        return vector_candidates(ctx, ship)
    thrust, limit = order_limits(ctx, ship)
    candidates: list[Order] = []
    for turn in range(-limit, limit + 1):
        room = thrust - abs(turn)
        for accel in sorted({-room, -room // 2, 0, room // 2, room}):
            if ship.speed + accel >= 0:
                candidates.append(Order(turn=turn, accel=accel))
    return candidates


Drift = tuple[float, float, float, float, float, float, int, int]
"""Where an enemy (or a bogey) will be after this move, flying straight on, how far it drifts
a move, how much nearer it may come each move besides, the range the Stand Off ship keeps
from it, how many moves ahead it weighs that, and what it does with the range beyond
(:data:`PAYS`, :data:`MATCHED` or :data:`BANKS`): x, y, dx, dy, chase, keep, looks, bank."""


def banks(thrust: float, ours: float, chase: float, keep: float) -> bool:
    """Whether a ship of this ``thrust``, whose guns reach ``ours``, banks the range beyond the
    ``keep`` it keeps from an enemy (or a bogey) that may come ``chase`` nearer each move:
    when its drive is the weaker, so that it cannot hold the range, only delay the enemy, and
    its guns are silent at that range anyway (it does not outrange the enemy). Each MU it
    opens now is a MU the chaser must make up later: the ship earns
    a die for each :data:`STAND_OFF_OUTSIDE_MU` it lies beyond the range, not pays one.

    Paying for that range as for any other, the weighing's four moves ahead did not see the
    chaser come on: under cinematic movement a thrust-4 battleship set up turned away from
    Engage's thrust-6 escorts gathered 2 MU of speed on the first turn, not 4, and thrust-5
    light cruisers eased off to hold 52 MU; by the fourth turn every ship of the cruiser line
    lay inside the enemy's 48 MU. Over bench/bench_commanders.py's 100 seeded cinematic
    battles, Stand Off ship-turns inside the enemy's reach 45.3%, now 37.5% (turns 2-6: 44%,
    now 24%); mean range 49.0, now 49.8 of 52 MU; its ships destroyed or captured 317, now
    285. Under vector movement, where the fleet sets up facing the enemy and weighs flying
    straight on only, banking ran 274 of its 1,000 ships off the table or out with the
    fleet's withdrawal, not 181: there it pays as before (issue 17)."""
    return chase > thrust and _outranged(ours, keep)


def _outranged(ours: float, keep: float) -> bool:
    """Whether guns reaching ``ours`` are silent at the ``keep`` range (they do not outrange
    the enemy): the range beyond it is then worth nothing to them (:func:`banks`,
    :data:`MATCHED`)."""
    return keep >= ours


def keep_from(ours: float, theirs: float) -> float:
    """The range a ship whose guns reach ``ours`` keeps from an enemy whose guns reach
    ``theirs``: outside the enemy's reach and inside its own when it outranges it by more than
    :data:`STAND_OFF_MARGIN_MU`, else just outside the enemy's reach."""
    if ours > theirs + STAND_OFF_MARGIN_MU:
        return (theirs + ours) / 2
    return theirs + STAND_OFF_MARGIN_MU


def _drifts(ctx: BattleContext, ahead: Forecast, ship: ShipInPlay, looks: int) -> list[Drift]:
    """Each enemy's drift, each from what the side knows of that enemy's drive and guns
    (its record sheet, or the side's estimate of it; :func:`~tactical.battle.order_limits`
    and :func:`~tactical.commanders.scoring.reach_of` read a lost drive or gun there):

    - its chase, its own drive's thrust a move;
    - the range kept from it: from the longest reach of the enemy's guns for an enemy with
      guns, from none for one without (a ship that cannot hurt the Stand Off ship is not fled);
    - ``looks`` moves ahead for an armed enemy no faster than the ship, no more than
      :data:`FASTER_LOOKS` for a faster one or one without guns: running from a ship that
      can catch it only turns its guns away (heavy cruisers fleeing frigates four moves ahead
      took 413 hull boxes for 457 dealt over 40 seeded vector battles,
      tests/tactical/test_campaign_battle.py);
    - under cinematic movement, whether the ship banks the range beyond the one it keeps
      (:func:`banks`), or, from an armed enemy whose drive matches its own (under vector
      movement too), earns it where it weighs turning away (:data:`MATCHED`). Paying for it
      there as on its straight flight, a ship weighed fleeing from a lower speed as the
      cheaper (it overshoots the kept range less, the weighing's chaser coming on at a
      constant speed) and braked:
      the thrust-6 destroyer red-8 of bench_commanders' seeded cinematic battles turned
      across and slowed from 9 to 6 MU a move on the second turn, inside the escorts' 48 MU
      by the fourth. An equal chaser gathers speed as fast as the ship can: the range is
      held only by running as it does. Over 100 seeded cinematic battles, ship-turns out of
      the enemy's reach with a drive no weaker than the nearest enemy's 68.9%, now
      85.8% (issue 17); under vector movement, see :func:`_vector_fleeing`."""
    ours = reach_of(ctx, ship)
    thrust = order_limits(ctx, ship)[0]
    cinematic = ship.vector is None and ctx.rules.movement == "cinematic"
    matched = cinematic or ctx.rules.movement == "vector"
    longest = max((reach_of(ctx, enemy) for enemy, _ in ahead), default=0.0)
    drifts: list[Drift] = []
    for enemy, (x, y, _c) in ahead:
        chase = order_limits(ctx, enemy)[0]
        keep = keep_from(ours, longest if reach_of(ctx, enemy) > 0 else 0.0)
        armed = reach_of(ctx, enemy) > 0
        seen = looks if chase <= thrust and armed else min(looks, FASTER_LOOKS)
        bank = (
            BANKS
            if armed and cinematic and banks(thrust, ours, chase, keep)
            else MATCHED
            if armed and matched and chase == thrust and _outranged(ours, keep)
            else PAYS
        )
        drifts.append((x, y, x - enemy.x, y - enemy.y, float(chase), keep, seen, bank))
    return drifts


def _weigh(
    ctx: BattleContext,
    ship: ShipInPlay,
    start: MoveStart,
    order: Order,
    ahead: Forecast,
    drifts: Sequence[Drift],
    inside: float,
    asteroids: Sequence[tuple[float, float]] = (),
    guns: Mapping[str, Guns] | None = None,
    table: Table | None = None,
    thrust: int = 0,
) -> tuple[float, str]:
    """Score one Stand Off order; the order's text breaks ties, so the choice is stable.
    Dice count only along lines no asteroid of this turn blocks. ``table``: the table's
    edges, if it has any now, and ``thrust`` the ship's, for braking (:func:`_leaving`)."""
    end = move_by_rules(ctx, start, order)
    at = (end.x, end.y, end.course)
    guns = guns or {}
    hits = max(
        (dice_on(ctx, ship, at, ex, ey, asteroids, guns.get(ship.id)) for _, (ex, ey, _c) in ahead),
        default=0,
    )
    threat = sum(
        dice_on(ctx, enemy, where, end.x, end.y, asteroids, guns.get(enemy.id))
        for enemy, where in ahead
    )
    off = _off_range(end, drifts, inside)
    if end.vector is None and ctx.rules.movement == "cinematic":
        off = min(off, _off_range(end, drifts, inside, _fleeing(ctx, ship, end, drifts)))
    elif end.vector is not None and ctx.rules.movement == "vector":
        off = min(off, _off_range(end, drifts, inside, _vector_fleeing(end, drifts, thrust)))
    value = hits - STAND_OFF_THREAT * threat - off - _leaving(ctx, table, end, drifts, thrust)
    theatre = ctx.setup.theatre
    if theatre is not None and theatre.gravity and theatre.well_edge is not None:
        # Keep well clear of the gas giant edge after the drift (004 L164-168).
        margin = end.x - theatre.gravity - theatre.well_edge
        value -= max(0.0, 3 * theatre.gravity - margin)
    return value, order_text(order)


Table = tuple[float, float, float, float]
"""A table's edges: x_min, y_min, x_max, y_max."""

STAND_OFF_FLOAT_MARGIN_MU = 25.0
"""How far inside a campaign battle's float limit (150 MU, 004 L133-135) a Stand Off ship keeps
from the furthest enemy: further, and the table is fixed with the ship 6 MU from its edge."""

STAND_OFF_EDGE_DICE = 4.0
"""What a Stand Off ship pays for each MU it would end outside a table's edges, shrunk by
the campaign table's margin: leaving is disengaging (004 L136), no range kept."""


def _braking(speed: float, thrust: int) -> float:
    """How far a ship at ``speed`` goes before it stops, shedding ``thrust`` of it a move.

    >>> _braking(10, 4), _braking(3, 4), _braking(5, 0)
    (8.0, 0.0, 0.0)
    """
    if thrust <= 0:
        return 0.0
    return float(sum(max(0.0, speed - k * thrust) for k in range(1, int(speed // thrust) + 1)))


def _leaving(
    ctx: BattleContext,
    table: Table | None,
    end: MoveResult,
    drifts: Sequence[Drift],
    thrust: int = 0,
) -> float:
    """The dice a Stand Off ship pays for leaving the battle, where its move ends and a
    move later flown straight on (the enemies too): on a table with edges, for each MU
    outside them (shrunk by the campaign table's margin) :data:`STAND_OFF_EDGE_DICE`; on a
    campaign battle's floating table, a die for each MU the furthest enemy lies beyond the
    float limit less :data:`STAND_OFF_FLOAT_MARGIN_MU`. Stand Off "seeks to maintain its
    distance while retaining its presence" (004 L109-110): a ship running from a chaser so
    far from the enemy's rear that the table is fixed lies 6 MU from its edge at the speed it
    ran at, and leaves it (004 L133-136). Neither weighed, under cinematic movement the Stand
    Off fleet fixed the table on the seventh turn of each of 6 seeded battles and 2 to 7 of
    its 10 ships left it (issue 17)."""
    theatre = ctx.setup.theatre
    if theatre is None:
        return 0.0
    vx, vy = velocity(end)
    points = [(end.x, end.y), (end.x + vx, end.y + vy)]
    speed = math.hypot(vx, vy)
    if speed > 0 and thrust > 0:
        # Where it stops if it brakes from here on: a ship that gathered speed running cannot
        # shed it in a move (a cinematic heavy cruiser at 25 MU a move ran 90 MU on, off the
        # table the float limit had just fixed).
        stop = _braking(speed, thrust) / speed
        points.append((end.x + vx * (1 + stop), end.y + vy * (1 + stop)))
    if table is not None:
        margin = theatre.table_margin
        x_min, y_min, x_max, y_max = table
        return STAND_OFF_EDGE_DICE * sum(
            max(0.0, x_min + margin - x, x - x_max + margin)
            + max(0.0, y_min + margin - y, y - y_max + margin)
            for x, y in points
        )
    if not drifts:
        return 0.0
    # Where it ends and a move on, kept inside the float limit by the margin; where it stops,
    # inside the limit itself.
    limits = (theatre.float_limit - STAND_OFF_FLOAT_MARGIN_MU,) * 2 + (theatre.float_limit,)
    return sum(
        max(
            0.0,
            max(range_between(x, y, ex + n * dx, ey + n * dy) for ex, ey, dx, dy, *_r in drifts)
            - limit,
        )
        for n, ((x, y), limit) in enumerate(zip(points, limits, strict=False))
    )


def _off_range(
    end: MoveResult,
    drifts: Sequence[Drift],
    inside: float,
    path: Sequence[tuple[float, float]] | None = None,
) -> float:
    """The dice a Stand Off ship pays for the enemies' ranges against the ones it keeps from
    each, where its move ends and where it will drift to in each of the next moves (each
    enemy's looks), both flying straight on, each enemy its chase a move nearer: a die for
    each ``inside`` MU inside (the enemy closes), mildly for the range beyond the nearest
    kept (or mildly earning it, where the ship banks it, :func:`banks`, or weighs turning
    away from a chaser its drive only matches, :data:`MATCHED`). The looks ahead
    are what make a ship turn away in time: a velocity towards the enemy takes turns of thrust
    to undo. ``path``: where the ship is after this move and each of the next, if not
    straight on (:func:`_fleeing`)."""
    vx, vy = velocity(end)
    paid = 0.0
    for step in range(max(d[6] for d in drifts)):
        x, y = (end.x + step * vx, end.y + step * vy) if path is None else path[step]
        spare, bank = min(
            (range_between(x, y, ex + step * edx, ey + step * edy) - step * chase - keep, bank)
            for ex, ey, edx, edy, chase, keep, seen, bank in drifts
            if step < seen
        )
        paid += max(0.0, -spare) / inside
        earns = bank == BANKS or (bank == MATCHED and path is not None)
        paid += (-1 if earns else 1) * max(0.0, spare) / STAND_OFF_OUTSIDE_MU
    return paid


def _nearest_drifted(drifts: Sequence[Drift], step: int, x: float, y: float) -> tuple[float, float]:
    """Where the enemy nearest (x, y) will be after ``step`` more moves of straight flight
    (its chase aside): what a fleeing ship runs from (:func:`_fleeing`, :func:`_vector_fleeing`)."""
    return min(
        ((ex + step * edx, ey + step * edy) for ex, ey, edx, edy, *_r in drifts),
        key=lambda p: (range_between(x, y, p[0], p[1]), p),
    )


def _fleeing(
    ctx: BattleContext, ship: ShipInPlay, end: MoveResult, drifts: Sequence[Drift]
) -> list[tuple[float, float]]:
    """Where a cinematic ship is after this move and each of the next moves it weighs, if in
    each it turns as far as it may away from the nearest enemy (where that one drifts to, its
    chase aside) and puts the thrust left over into speed: its flight from there. Weighed
    against flying straight on, whichever keeps the range better, it shows the ship that a
    move which turns it away now is worth more than its own end says: a ship facing the
    enemy takes turns to come round, and one that stops to hold the range there is caught
    (issue 17: cinematic Stand Off ships held 41 MU of the 52 they wanted)."""
    thrust, limit = order_limits(ctx, ship)
    at = MoveStart(x=end.x, y=end.y, course=end.course, speed=end.speed)
    path = [(end.x, end.y)]
    for step in range(1, max(d[6] for d in drifts)):
        ex, ey = _nearest_drifted(drifts, step, at.x, at.y)
        away = round(math.degrees(math.atan2(at.x - ex, at.y - ey)) / DEGREES_PER_COURSE)
        off = (away - at.course + COURSES // 2) % COURSES - COURSES // 2
        turn = max(-limit, min(limit, off))
        moved = move(at, Order(turn=turn, accel=thrust - abs(turn)), ctx.rules.split_velocity)
        at = MoveStart(x=moved.x, y=moved.y, course=moved.course, speed=moved.speed)
        path.append((at.x, at.y))
    return path


def _vector_fleeing(
    end: MoveResult, drifts: Sequence[Drift], thrust: int
) -> list[tuple[float, float]]:
    """Where a vector ship is after this move and each of the next moves it weighs, if in
    each it burns its whole ``thrust`` straight away from the nearest enemy (where that one
    drifts to): :func:`_fleeing` under vector movement, where the ship earns the range beyond
    the one it keeps from a chaser whose drive matches its own (:data:`MATCHED`). With the
    fleet set up running from the enemy (tactical/campaign_battle.py), over
    bench/bench_commanders.py's 100 seeded vector battles the ship-turns out of the enemy's
    reach with a drive no weaker than the nearest enemy's were 76.3%, now 94.8% (all
    ship-turns 56.6%, now 73.2%; mean range 51.5, now 65.3 of 52 MU). Either alone gained
    little or lost: this weighing alone 76.5%; set up running away without it, 34.5% (issue
    17)."""
    vx, vy = velocity(end)
    x, y = end.x, end.y
    path = [(x, y)]
    for step in range(1, max(d[6] for d in drifts)):
        ex, ey = _nearest_drifted(drifts, step, x, y)
        gap = math.hypot(x - ex, y - ey) or 1.0
        vx, vy = vx + thrust * (x - ex) / gap, vy + thrust * (y - ey) / gap
        x, y = x + vx, y + vy
        path.append((x, y))
    return path


def _bogey_drifts(
    ship: ShipInPlay,
    contacts: Sequence[Bogey],
    looks: int = BOGEY_LOOKS,
    thrust: int | None = None,
) -> list[Drift]:
    """While no enemy is identified: each bogey's drift, taken to chase at
    :data:`BOGEY_CHASE_MU`, the range kept from it the range to the nearest now (001
    L933-951: the ship does not close on what it cannot yet see), weighed ``looks`` moves
    ahead; under cinematic movement (``thrust`` given) a ship whose thrust is less than that
    chase banks the range beyond (:func:`banks`: no gun of its fires at what it cannot
    identify)."""
    if not contacts:
        return []
    keep = min(range_between(ship.x, ship.y, b.x, b.y) for b in contacts)
    drifts: list[Drift] = []
    for bogey in contacts:
        dx, dy = heading_vector(bogey.course)
        drifts.append(
            (
                bogey.x + dx * bogey.speed,
                bogey.y + dy * bogey.speed,
                dx * bogey.speed,
                dy * bogey.speed,
                BOGEY_CHASE_MU,
                keep,
                looks,
                BANKS if thrust is not None and banks(thrust, 0.0, BOGEY_CHASE_MU, keep) else PAYS,
            )
        )
    return drifts


def stand_off_commander() -> Commander:
    """Return the Stand Off commander: keep the range, fire what bears (004 L109-110).

    Each ship weighs its legal orders one move ahead, the enemy assumed to fly straight on:
    the dice its guns would roll at the best target, less one and a half times the dice the
    enemy's guns would roll at it, less the range it would lie inside or beyond the one it
    wants to keep (outside the enemy's longest band if its own guns reach further, else just
    outside the enemy's reach), after this move and after the next if both flew straight on.
    While no enemy is identified it keeps at least the range it has to the nearest bogey
    (001 L933-951), so it does not close on what it cannot yet see.
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = enemies_of(state, side)
        asteroids = asteroids_now(ctx, state)  # they drift at the end of the turn
        ahead: Forecast = []
        for enemy in enemies:
            dx, dy = velocity(enemy)
            ahead.append((enemy, (enemy.x + dx, enemy.y + dy, enemy.course)))
        contacts = [b for b in state.bogeys if b.side != side] if not enemies else []
        # While only bogeys are seen: a die an MU inside (what they are and can do is not
        # known), :data:`BOGEY_LOOKS` ahead.
        looks = STAND_OFF_LOOKS[ctx.rules.movement]
        inside = STAND_OFF_INSIDE_MU if enemies else BOGEY_INSIDE_MU
        table = ctx.setup.table if ctx.setup.theatre is None else state.table
        if table is not None:
            looks, inside = TABLE_LOOKS, BOGEY_INSIDE_MU
        guns = {ship.id: guns_of(ctx, ship) for ship in state.ships if ship.status == "active"}
        cinematic = ctx.rules.movement == "cinematic"
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not (ahead or contacts):
                continue
            thrust = order_limits(ctx, ship)[0]
            drifts = _drifts(ctx, ahead, ship, looks) + _bogey_drifts(
                ship, contacts, min(looks, BOGEY_LOOKS), thrust if cinematic else None
            )
            start = move_start(ship)
            written[ship.id] = max(
                _candidate_orders(ctx, ship),
                key=lambda order: _weigh(
                    ctx, ship, start, order, ahead, drifts, inside, asteroids, guns, table, thrust
                ),
            )
        return written

    return Commander(
        with_torpedo_settings(
            with_ecm(
                with_beam_defence(with_scramble(with_fighters(with_sensors(orders), "defend")))
            )
        ),
        focused_fire,
        flight=posture_flight("defend"),
    )
