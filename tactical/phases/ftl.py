"""FTL on the table: a ship jumping out or dropping in during the movement (001
L1015-1070; 004 L139-145).

A campaign ship's jump after its final power-up turn (004 L140-145), a table battle's
departure with the 6-inch hazard (001 L1027-1049), and FTL dropouts that scatter and
endanger everything within 6 inches (001 L1053-1070).
"""

from __future__ import annotations

import msgspec
from msgspec import Struct

from tactical.dice import DiceSource
from tactical.ftl import (
    ARRIVAL_TIMES_ON,
    EXTREME_ON,
    Departure,
    arrival_damage,
    departure,
    explosion_damage,
    scatter,
    scatter_distance,
    within_radius,
)
from tactical.mines import Path
from tactical.movement import NO_ORDER, Order, format_order, round_mu
from tactical.phases.damage import crash
from tactical.state import (
    ON_THE_TABLE,
    BattleContext,
    BattleState,
    FtlDeparture,
    Hit,
    Moved,
    ShipInPlay,
    Threshold,
    asteroids_now,
    ftl_blocked,
    off_table,
    replace_ship,
    velocity,
)


class Dropout(Struct, frozen=True, kw_only=True, gc=False):
    """A ship that dropped out of FTL at the start of the movement (001 L1058-1070): its
    intended point, the scatter's dice, where it appeared and what lay within 6"."""

    ship: str
    aimed: tuple[float, float]
    direction: int
    """The D12 for the scatter's direction, a clock point of the course gauge (001 L1058)."""
    distance: int
    """The D6 for the scatter's distance in MU (001 L1058)."""
    extreme: int | None = None
    """Under ``ftl_dropout_extreme``, the second D6 after a distance 6 (001 L1064)."""
    x: float
    y: float
    entered: bool = True
    """``False``: under the OPTION it would appear off the table and never enters (L1064)."""
    faces: tuple[tuple[str, int, int | None], ...] = ()
    """Each ship, itself included, and fighter group within 6": its D6 and a 6's second D6
    (001 L1066-1070)."""
    hits: tuple[Hit, ...] = ()
    fighters: tuple[tuple[str, int], ...] = ()
    """Fighters each group near lost, one a point (see docs/rulings.md)."""


def dropping_out(ctx: BattleContext, ship: ShipInPlay, turn: int) -> bool:
    """Whether a ship is off the table waiting to drop out of FTL on ``turn`` (001 L1053)."""
    return ship.status == "away" and ship.returns == turn == _dropout_turn(ctx, ship.id)


def awaiting_dropout(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """Whether a ship has yet to drop out of FTL onto the table (001 L1053)."""
    return ship.status == "away" and ship.returns == _dropout_turn(ctx, ship.id) is not None


def _dropout_turn(ctx: BattleContext, ship_id: str) -> int | None:
    """The turn the set-up has a ship drop out of FTL, if it does (001 L1053)."""
    return next((s.dropout for s in ctx.setup.ships if s.id == ship_id), None)


def drop_out(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, Dropout]:
    """Bring a ship out of FTL at the start of the movement (001 L1058-1070): the marker at
    its intended point scatters a D12 clock direction and a D6 MU (under the OPTION, a 6 times
    a second D6, and off the table it never enters); then every ship, itself included, and
    fighter group within 6" of where it appears takes a D6, a 6 making it a second D6 times 6,
    unscreened, thresholds checked at once. Dice are keyed ``t<turn>/dropout/<ship>/...``.
    """
    turn = state.turn
    key = f"t{turn}/dropout/{ship_id}"
    ship = state.ship(ship_id)
    direction = dice.roll(f"{key}/direction", 12)
    distance = dice.roll(f"{key}/distance", 6)
    extreme = None
    if ctx.rules.ftl_dropout_extreme and distance == EXTREME_ON:
        extreme = dice.roll(f"{key}/extreme", 6)
    x, y = scatter(ship.x, ship.y, direction, scatter_distance(distance, extreme))
    report = Dropout(
        ship=ship_id,
        aimed=(ship.x, ship.y),
        direction=direction,
        distance=distance,
        extreme=extreme,
        x=x,
        y=y,
    )
    if ctx.rules.ftl_dropout_extreme and off_table(ctx, state, x, y):
        state = replace_ship(state, msgspec.structs.replace(ship, status="left", returns=None))
        return state, msgspec.structs.replace(report, entered=False)
    state = replace_ship(
        state, msgspec.structs.replace(ship, x=x, y=y, status="active", returns=None)
    )
    victims = [
        s.id for s in state.ships if s.status in ON_THE_TABLE and within_radius(x, y, s.x, s.y)
    ]
    groups = [g.id for g in state.fighters if within_radius(x, y, g.x, g.y)]
    faces: list[tuple[str, int, int | None]] = []
    hits: list[Hit] = []
    lost: list[tuple[str, int]] = []
    for victim in (*victims, *groups):
        face = dice.roll(f"{key}/damage/{victim}", 6)
        second = dice.roll(f"{key}/damage/{victim}/times", 6) if face == ARRIVAL_TIMES_ON else None
        faces.append((victim, face, second))
        points = arrival_damage(face, second)
        if victim in victims:
            state, hit = crash(ctx, state, victim, points, f"dropout/{ship_id}", dice, thresholds)
            hits.append(hit)
        else:
            state, killed = _fighters_lost(state, victim, points)
            lost.append((victim, killed))
    return state, msgspec.structs.replace(
        report, faces=tuple(faces), hits=tuple(hits), fighters=tuple(lost)
    )


def jump_problem(ctx: BattleContext, ship: ShipInPlay) -> str | None:
    """Return why a ship may not start its final power-up for a jump, or ``None``."""
    theatre = ctx.setup.theatre
    if theatre is None:  # a table battle: FT2's FTL departure (001 L1027)
        return None if ship.record.ftl == "ok" else "its FTL drive is lost"
    if ship.side not in theatre.ftl_sides:
        return "only ships under FTL Move orders may jump (004 L139)"
    if ship.record.ftl != "ok":
        return "its FTL drive is lost"
    return None


def jump_move(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, order: Order, dice: DiceSource
) -> tuple[Moved, ShipInPlay]:
    """The turn after the final power-up: half the normal distance, then the jump (004 L145).

    Where FTL may not be engaged (:func:`ftl_blocked`) the jump is called off: a planned jump
    stays ready, an unplanned one must power up again. An unplanned jump rolls a D6 for the
    parsecs it lands off target and a D6 for the hex direction (004 L140-141).
    """
    assert ctx.setup.theatre is not None
    dx, dy = velocity(ship)
    x = round_mu(ship.x + dx / 2)
    y = round_mu(ship.y + dy / 2)
    ignored = None if order == NO_ORDER else "the ship is entering jump (004 L145)"
    blocked = ftl_blocked(ctx.setup.theatre, state.turn, x, y)
    if blocked is not None:
        after = msgspec.structs.replace(
            ship, x=x, y=y, jump="ready" if ship.jump == "powering" else "none"
        )
        moved = Moved(
            ship=ship.id,
            order=format_order(order),
            x=x,
            y=y,
            course=ship.course,
            speed=ship.speed,
            void=f"jump called off: {blocked}",
        )
        return moved, after
    displaced = None
    if ship.jump == "unplanned":
        parsecs = dice.roll(f"t{state.turn}/jump/{ship.id}/parsecs", 6)
        direction = dice.roll(f"t{state.turn}/jump/{ship.id}/direction", 6)
        displaced = (parsecs, direction)
    after = msgspec.structs.replace(ship, x=x, y=y, status="jumped")
    moved = Moved(
        ship=ship.id,
        order=format_order(order),
        x=x,
        y=y,
        course=ship.course,
        speed=ship.speed,
        void=ignored,
        jumped=True,
        displaced=displaced,
    )
    return moved, after


def depart(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    order: Order,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, Moved, Path | None]:
    """A table battle's jump into FTL, the turn after the warm-up (001 L1029-1047): half the
    velocity on its course after every other ship has moved, then gone, unless something
    within 6" makes the D6 necessary. Return the path of a ship that stays in normal space.

    On a 1 the drive fails and the ship completes its move at its course and velocity; on 2-4
    it jumps and every ship and fighter group within 6" takes 1D6 (a D6 each) unscreened; on
    5-6 it explodes and every other ship within 6" takes its original damage points. Dice are
    keyed ``t<turn>/ftl/<ship>`` and ``t<turn>/ftl/<ship>/damage/<victim>``; thresholds are
    checked at once, as for mines and rams.
    """
    turn = state.turn
    ship = state.ship(ship_id)
    dx, dy = velocity(ship)
    x, y = round_mu(ship.x + dx / 2), round_mu(ship.y + dy / 2)
    ignored = None if order == NO_ORDER else "the ship is entering FTL (001 L1029)"
    ships_near = [
        s.id
        for s in state.ships
        if s.id != ship_id and s.status in ON_THE_TABLE and within_radius(x, y, s.x, s.y)
    ]
    groups_near = [g.id for g in state.fighters if within_radius(x, y, g.x, g.y)]
    rocks_near = [
        f"asteroid{index}"
        for index, (ax, ay) in enumerate(asteroids_now(ctx, state))
        if within_radius(x, y, ax, ay)
    ]
    near = (*ships_near, *groups_near, *rocks_near)
    face = dice.roll(f"t{turn}/ftl/{ship_id}", 6) if near else None
    outcome: Departure = "jumps" if face is None else departure(face)
    report = FtlDeparture(near=near, face=face, outcome=outcome)
    moved = Moved(
        ship=ship_id,
        order=format_order(order),
        x=x,
        y=y,
        course=ship.course,
        speed=ship.speed,
        void=ignored,
        vector=ship.vector,
    )
    if outcome == "fails":  # 001 L1041: it completes the move at its course and velocity
        end_x, end_y = round_mu(ship.x + dx), round_mu(ship.y + dy)
        left = off_table(ctx, state, end_x, end_y)
        stays = msgspec.structs.replace(
            ship, x=end_x, y=end_y, jump="none", status="left" if left else "active"
        )
        state = replace_ship(state, stays)
        moved = msgspec.structs.replace(moved, x=end_x, y=end_y, left=left, ftl=report)
        return state, moved, ((ship.x, ship.y), (end_x, end_y))
    hits: list[Hit] = []
    faces: list[tuple[str, int]] = []
    lost: list[tuple[str, int]] = []
    if outcome == "jumps":
        state = replace_ship(state, msgspec.structs.replace(ship, x=x, y=y, status="jumped"))
        for victim in (*ships_near, *groups_near):
            points = dice.roll(f"t{turn}/ftl/{ship_id}/damage/{victim}", 6)  # 001 L1043
            faces.append((victim, points))
            if victim in ships_near:
                state, hit = crash(ctx, state, victim, points, f"ftl/{ship_id}", dice, thresholds)
                hits.append(hit)
            else:
                state, killed = _fighters_lost(state, victim, points)
                lost.append((victim, killed))
    else:
        points = explosion_damage(ctx.sheets[ship_id].hull_boxes)  # 001 L1045-1047
        wreck = msgspec.structs.replace(ship, x=x, y=y, status="destroyed", jump="none")
        state = replace_ship(state, wreck)
        for victim in ships_near:
            state, hit = crash(ctx, state, victim, points, f"ftl/{ship_id}", dice, thresholds)
            hits.append(hit)
    report = msgspec.structs.replace(
        report, faces=tuple(faces), hits=tuple(hits), fighters=tuple(lost)
    )
    return state, msgspec.structs.replace(moved, jumped=outcome == "jumps", ftl=report), None


def _fighters_lost(state: BattleState, group_id: str, points: int) -> tuple[BattleState, int]:
    """Take ``points`` fighters from a group, one a point; a group with none left is gone."""
    group = next(g for g in state.fighters if g.id == group_id)
    killed = min(points, group.fighters)
    groups = tuple(
        msgspec.structs.replace(g, fighters=g.fighters - killed) if g.id == group_id else g
        for g in state.fighters
    )
    return msgspec.structs.replace(
        state, fighters=tuple(g for g in groups if g.fighters > 0)
    ), killed
