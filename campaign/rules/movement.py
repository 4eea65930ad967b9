"""FTL movement (004 section 5.1): checking a player's moves and carrying them out.

The same check serves submission (every problem reported at once, nothing stored) and
resolution (the legal path each unit takes). Paths come from the star map's movement queries,
which apply the cloud rules; starships other than scouts stay within 8 hexes of a command post.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import Audience, NewEvent, UnitMoved
from campaign.projections import CampaignState
from campaign.rules.colonies import command_post_hexes
from campaign.rules.command import plot_horizon
from campaign.strategic import STAND_IN_CAPTAIN, CombatOrder, Move, Unit
from maps import COMMAND_RADIUS, Hex, StarMap, label, parse_label


class OrdersError(InvalidInputError):
    """A player's orders break the rules; `problems` lists every one, each naming its unit."""

    def __init__(self, player: str, turn: int, problems: list[str]) -> None:
        super().__init__(f"orders of {player} for turn {turn}: " + "; ".join(problems))
        self.problems = problems


class Plan(msgspec.Struct, frozen=True):
    """A unit's move: the hexes it enters this turn, and where it must be after each of the
    coming turns of its horizon (its pre-plot, 004 section 6)."""

    path: tuple[str, ...]
    plot: tuple[str, ...] = ()
    horizon: int = 1


def horizon(state: CampaignState, unit: Unit) -> int:
    """Return how many turns a unit's moves are plotted ahead (004 section 6, Strategic).

    Scout troops 1; warships by their captain (a stand-in's while he is injured); ships in a
    task force by its admiral (3 under a captain). Colony transports are not named by the
    rule: ruling, 1.
    """
    if unit.kind == "scout-troop":
        return plot_horizon("scout-troop")
    if unit.kind != "warship":
        return 1
    force = state.task_forces.get(unit.task_force) if unit.task_force else None
    if force is not None:
        return plot_horizon("task-force", force.admiral_at(state.turn))
    return plot_horizon("warship", unit.captain_at(state.turn) or STAND_IN_CAPTAIN)


def plan_moves(
    state: CampaignState, starmap: StarMap, player: str, moves: tuple[Move, ...]
) -> dict[str, Plan]:
    """Return each ordered unit's plan, or raise `OrdersError` with every problem.

    A destination may lie as many turns away as the unit's horizon; the unit follows the
    quickest route and then waits there until its plot runs out. A unit still bound by an
    earlier plot cannot be ordered.

    Raises:
        OrdersError: unknown or foreign units, a unit ordered twice or still plotted, a
            destination off the map or out of reach within the horizon.
    """
    problems: list[str] = []
    empire = state.empires.get(player)
    if empire is None:
        raise OrdersError(player, state.turn, [f"{player} has no empire in this campaign"])
    colonies = [parse_label(h) for h in command_post_hexes(state, player)]
    posts = starmap.player_command_posts(empire.entry, colonies)
    in_command = starmap.command_range(posts, COMMAND_RADIUS)
    seen: set[str] = set()
    plans: dict[str, Plan] = {}
    forces = {tf.id: tf for tf in state.task_forces.values() if tf.owner == player}
    for move in moves:
        force = forces.get(move.unit)
        # A task force moves as its flagship does, every ship with it (004 5.1).
        unit = state.units.get(force.units[0]) if force else state.units.get(move.unit)
        if unit is None or unit.owner != player:
            problems.append(f"{move.unit}: not a unit of {player}")
            continue
        if move.unit in seen:
            problems.append(f"{move.unit}: ordered twice")
            continue
        seen.add(move.unit)
        if force is None and unit.task_force in forces:
            problems.append(f"{move.unit}: moves with task force {unit.task_force}; order that")
            continue
        if unit.plotted(state.turn):
            final = unit.plot[-1] if unit.plot else unit.hex
            problems.append(
                f"{move.unit}: plotted to {final} until turn {unit.plot_until} "
                "(004 section 6): leave it out of the orders"
            )
            continue
        turns = horizon(state, unit)
        plan, problem = _plan(starmap, unit, move, empire.entry, empire.speed, turns, in_command)
        if problem is not None:
            problems.append(f"{move.unit}: {problem}")
            continue
        assert plan is not None
        for member in force.units if force else (move.unit,):
            plans[member] = plan
    if problems:
        raise OrdersError(player, state.turn, problems)
    return plans


def _plan(
    starmap: StarMap,
    unit: Unit,
    move: Move,
    entry: str,
    speed: int,
    turns: int,
    in_command: frozenset[Hex],
) -> tuple[Plan | None, str | None]:
    allowed = None if unit.is_scout else in_command
    if move.to is None:
        # Holding: a plotted unit holds for its whole horizon (waiting off the map is free).
        waits = (unit.hex,) * (turns - 1) if unit.hex is not None else ()
        return Plan(path=(), plot=waits, horizon=turns if waits else 1), None
    try:
        goal = parse_label(move.to)
    except ValueError:
        return None, f"destination {move.to!r} is not a hex label like 0712"
    if not starmap.contains(goal):
        return None, f"destination {move.to} is off the map"
    if unit.hex is None:
        # 004 section 5.1, First Turn Entry: the entry hex is the first hex of movement.
        route = starmap.route_from_entry(entry, goal, speed, allowed=allowed)
    else:
        route = starmap.route(parse_label(unit.hex), goal, speed, allowed=allowed)
    # A route to where the unit already is has no legs: it stays this turn.
    legs = None if route is None else (route.legs or ((),))
    if legs is None or len(legs) > turns:
        reach = "this turn" if turns == 1 else f"within {turns} turns (its plot horizon)"
        command = "" if unit.is_scout else " within 8 hexes of a command post"
        return None, f"cannot reach {move.to} {reach} at speed {speed}{command} (004 section 5.1)"
    waypoints = tuple(label(leg[-1]) if leg else move.to for leg in legs[1:])
    plot = waypoints + (move.to,) * (turns - len(legs))
    return Plan(path=tuple(label(h) for h in legs[0]), plot=plot, horizon=turns), None


def decide_movement(
    state: CampaignState, starmap: StarMap, orders: Mapping[str, tuple[Move, ...]]
) -> list[NewEvent]:
    """Carry out every player's moves and the plotted moves of earlier turns.

    A unit without orders and without a plot holds position. Each `unit_moved` is addressed
    to the unit's owner: nobody else sees the move itself.
    """
    batch = []
    players = sorted({*orders, *(u.owner for u in state.units.values() if u.plot)})
    for player in players:
        moves = orders.get(player, ())
        plans = _plans_that_hold(state, starmap, player, moves)
        orders_of = {m.unit: m for m in moves}
        for uid in sorted(plans):
            unit = state.units[uid]
            plan = plans[uid]
            move = orders_of.get(uid) or orders_of[unit.task_force or uid]
            order = move.order or _standing_order(state, move.unit)
            plotted = plan.horizon > 1 and bool(plan.plot)
            if not plan.path and order == unit.order and not plotted:
                continue
            moved = UnitMoved(
                unit=uid,
                path=plan.path,
                order=order,
                plot=plan.plot if plotted else (),
                plot_until=state.turn + len(plan.plot) if plotted else None,
            )
            batch.append(
                NewEvent(event=moved, audience=Audience.players_([player]), turn=state.turn)
            )
        batch += _plotted_moves(state, starmap, player, set(plans))
    return batch


def _standing_order(state: CampaignState, ordered: str) -> CombatOrder:
    """Return the combat order a unit (or a task force: its flagship's) keeps when its move
    gives none (004 L70-71: the order is part of the movement instructions; ruling: an order
    left out is the one it had)."""
    force = state.task_forces.get(ordered)
    flagship = force.units[0] if force is not None and force.units else ordered
    return state.units[flagship].order


def _plans_that_hold(
    state: CampaignState, starmap: StarMap, player: str, moves: tuple[Move, ...]
) -> dict[str, Plan]:
    """Plan the moves at resolution; one that no longer holds (checked against the player's
    knowledge, it may meet what he could not see) is dropped: that unit holds position."""
    if not moves:
        return {}
    try:
        return plan_moves(state, starmap, player, moves)
    except OrdersError:
        plans: dict[str, Plan] = {}
        for move in moves:
            try:
                plans.update(plan_moves(state, starmap, player, (move,)))
            except OrdersError:
                continue
        return plans


def _plotted_moves(
    state: CampaignState, starmap: StarMap, player: str, ordered: set[str]
) -> list[NewEvent]:
    """Move units along the plots made in earlier turns (004 section 6)."""
    empire = state.empires[player]
    batch = []
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.owner != player or unit.id in ordered or not unit.plot or unit.hex is None:
            continue
        start, goal = parse_label(unit.hex), parse_label(unit.plot[0])
        path = () if start == goal else starmap.path_within_turn(start, goal, empire.speed)
        if path is None:  # the way closed since (ruling): it stops, its plot void
            moved = UnitMoved(unit=unit.id, path=(), order=unit.order)
        else:
            moved = UnitMoved(
                unit=unit.id,
                path=tuple(label(h) for h in path[1:]),
                order=unit.order,
                plot=unit.plot[1:],
                plot_until=unit.plot_until,
            )
        batch.append(NewEvent(event=moved, audience=Audience.players_([player]), turn=state.turn))
    return batch
