"""FTL movement (004 section 5.1): checking a player's moves and carrying them out.

The same check serves submission (every problem reported at once, nothing stored) and
resolution (the legal path each unit takes). Paths come from the star map's movement queries,
which apply the cloud rules; starships other than scouts stay within 8 hexes of a command post.
"""

from __future__ import annotations

from collections.abc import Mapping

from campaign.errors import InvalidInputError
from campaign.events import Audience, NewEvent, UnitMoved
from campaign.projections import CampaignState
from campaign.rules.colonies import command_post_hexes
from campaign.strategic import Move, Unit
from maps import COMMAND_RADIUS, Hex, StarMap, label, parse_label


class OrdersError(InvalidInputError):
    """A player's orders break the rules; `problems` lists every one, each naming its unit."""

    def __init__(self, player: str, turn: int, problems: list[str]) -> None:
        super().__init__(f"orders of {player} for turn {turn}: " + "; ".join(problems))
        self.problems = problems


def plan_moves(
    state: CampaignState, starmap: StarMap, player: str, moves: tuple[Move, ...]
) -> dict[str, tuple[str, ...]]:
    """Return each moving unit's path (hex labels entered, in order), or raise `OrdersError`.

    Raises:
        OrdersError: every problem at once: unknown or foreign units, a unit ordered twice,
            a destination off the map or out of reach this turn.
    """
    problems: list[str] = []
    empire = state.empires.get(player)
    if empire is None:
        raise OrdersError(player, state.turn, [f"{player} has no empire in this campaign"])
    colonies = [parse_label(h) for h in command_post_hexes(state, player)]
    posts = starmap.player_command_posts(empire.entry, colonies)
    in_command = starmap.command_range(posts, COMMAND_RADIUS)
    seen: set[str] = set()
    paths: dict[str, tuple[str, ...]] = {}
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
        if move.to is None:
            continue
        try:
            goal = parse_label(move.to)
        except ValueError:
            problems.append(f"{move.unit}: destination {move.to!r} is not a hex label like 0712")
            continue
        if not starmap.contains(goal):
            problems.append(f"{move.unit}: destination {move.to} is off the map")
            continue
        path = _path(
            starmap, unit, empire.entry, goal, empire.speed, None if unit.is_scout else in_command
        )
        if path is None:
            problems.append(
                f"{move.unit}: cannot reach {move.to} this turn at speed {empire.speed}"
                + ("" if unit.is_scout else " within 8 hexes of a command post")
                + " (004 section 5.1)"
            )
            continue
        if path:
            paths[move.unit] = tuple(label(h) for h in path)
            for member in force.units if force else ():
                paths[member] = paths[move.unit]
    if problems:
        raise OrdersError(player, state.turn, problems)
    return paths


def _path(
    starmap: StarMap,
    unit: Unit,
    entry: str,
    goal: Hex,
    speed: int,
    allowed: frozenset[Hex] | None,
) -> tuple[Hex, ...] | None:
    """Return the hexes entered on the way to `goal` this turn (empty: already there)."""
    if unit.hex is None:
        # 004 section 5.1, First Turn Entry: the entry hex is the first hex of movement.
        route = starmap.route_from_entry(entry, goal, speed, allowed=allowed)
        if route is None or route.turns != 1:
            return None
        return tuple(route.legs[0])
    start = parse_label(unit.hex)
    if start == goal:
        return ()
    path = starmap.path_within_turn(start, goal, speed, allowed=allowed)
    return None if path is None else tuple(path[1:])


def decide_movement(
    state: CampaignState, starmap: StarMap, orders: Mapping[str, tuple[Move, ...]]
) -> list[NewEvent]:
    """Carry out every player's moves; a unit without orders holds position.

    Each `unit_moved` is addressed to the unit's owner: nobody else sees the move itself.
    """
    batch = []
    for player in sorted(orders):
        moves = orders[player]
        paths = plan_moves(state, starmap, player, moves)
        for move in sorted(moves, key=lambda m: m.unit):
            force = state.task_forces.get(move.unit)
            members = force.units if force is not None else (move.unit,)
            for uid in members:
                unit = state.units.get(uid)
                if unit is None:
                    continue
                path = paths.get(uid, ())
                if not path and move.order == unit.order:
                    continue
                moved = UnitMoved(unit=uid, path=path, order=move.order)
                batch.append(
                    NewEvent(event=moved, audience=Audience.players_([player]), turn=state.turn)
                )
    return batch
