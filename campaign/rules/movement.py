"""FTL movement (004 section 5.1): checking a player's moves and carrying them out.

The same check serves submission (every problem reported at once, nothing stored) and
resolution (the legal path each unit takes). Paths come from the star map's movement queries,
which apply the cloud rules; starships other than scouts stay within 8 hexes of a command post.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import Audience, MoveLapsed, NewEvent, UnitMoved
from campaign.projections import CampaignState
from campaign.rules.colonies import command_post_hexes
from campaign.rules.command import plot_horizon
from campaign.strategic import STAND_IN_CAPTAIN, CombatOrder, Move, Unit, unit_order
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
    state: CampaignState,
    starmap: StarMap,
    player: str,
    moves: tuple[Move, ...],
    new_forces: frozenset[str] = frozenset(),
    accepted: bool = True,
    reach: CommandReach | None = None,
) -> dict[str, Plan]:
    """Return each ordered unit's plan, or raise `OrdersError` with every problem.

    `accepted`: a problem says what would be accepted too (his units, the map's hexes), as a
    refused file's does; a move lapsing as the turn resolves says only why.

    A destination may lie as many turns away as the unit's horizon; the unit follows the
    quickest route and then waits there until its plot runs out. A unit still bound by an
    earlier plot cannot be ordered. `new_forces` are task forces formed by these orders whose
    admirals are not rolled yet: their horizon is unknown until then, so their destinations
    must be reached this turn, which any admiral's plot allows (004 L349-352). `reach`: the
    player's command range in `state`, when the caller has it already (one per player and turn).

    Raises:
        OrdersError: unknown or foreign units, a unit ordered twice or still plotted, a
            destination off the map or out of reach within the horizon.
    """
    problems: list[str] = []
    empire = state.empires.get(player)
    if empire is None:
        raise OrdersError(player, state.turn, [f"{player} has no empire in this campaign"])
    reach = reach or CommandReach(state, starmap, player)
    seen: set[str] = set()
    plans: dict[str, Plan] = {}
    forces = {tf.id: tf for tf in state.task_forces.values() if tf.owner == player}
    for move in moves:
        force = forces.get(move.unit)
        # A task force moves as its flagship does, every ship with it (004 5.1).
        unit = state.units.get(force.units[0]) if force else state.units.get(move.unit)
        if unit is None or unit.owner != player:
            known = f" ({_his_units(state, player)})" if accepted else ""
            problems.append(f"{move.unit}: not a unit of {player}{known}")
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
        if move.order == "engage" and unit.kind != "warship":  # a tender may: it fights
            problems.append(
                f"{move.unit}: only warships take Engage orders; scout troops and transports "
                "stand off or move by FTL (004 L112)"
            )
            continue
        turns = 1 if move.unit in new_forces else horizon(state, unit)
        plan, problem = _plan(
            starmap, unit, move, empire.entry, empire.speed, turns, reach, accepted
        )
        if problem is not None:
            problems.append(f"{move.unit}: {problem}")
            continue
        assert plan is not None
        for member in force.units if force else (move.unit,):
            plans[member] = plan
    if problems:
        raise OrdersError(player, state.turn, problems)
    return plans


class CommandReach:
    """Where a player's starships may go under command and control (004 L86): within 8 hexes
    of a command post; a ship already further out (its post lost or besieged, or thrown there
    by an unplanned jump) may move, but never further from a post than it is (ruling)."""

    def __init__(self, state: CampaignState, starmap: StarMap, player: str) -> None:
        empire = state.empires[player]
        colonies = [parse_label(h) for h in command_post_hexes(state, player)]
        self.posts = starmap.player_command_posts(empire.entry, colonies)
        self._starmap = starmap
        self._ranges: dict[int, frozenset[Hex]] = {}

    def covered(self) -> frozenset[Hex]:
        """Return the hexes within command range of his posts (004 L86)."""
        if COMMAND_RADIUS not in self._ranges:
            self._ranges[COMMAND_RADIUS] = self._starmap.command_range(self.posts, COMMAND_RADIUS)
        return self._ranges[COMMAND_RADIUS]

    def allowed(self, unit: Unit) -> frozenset[Hex] | None:
        """Return the hexes a unit's move may touch, or None for a scout (anywhere)."""
        if unit.is_scout:
            return None
        radius = COMMAND_RADIUS
        if unit.hex is not None:
            distance = self._starmap.command_post_distance(parse_label(unit.hex), self.posts)
            radius = max(radius, distance or 0)
        if radius not in self._ranges:
            self._ranges[radius] = self._starmap.command_range(self.posts, radius)
        return self._ranges[radius]


def with_star_hexes(starmap: StarMap, moves: tuple[Move, ...]) -> tuple[Move, ...]:
    """Return `moves` with each destination or waypoint written as a star's name (any case)
    written as that star's hex label instead: `to = "Hamal"` is `to = "0603"` when the chart
    names Hamal (star names are unique on a map, and the public chart names every star: the
    player learns nothing from it). A text that is neither is left for `plan_moves` to refuse.

    The orders are recorded with the hexes, so the turn resolves them as labels.
    """

    def place(text: str) -> str:
        return star_hex(starmap, text) or text

    def placed(move: Move) -> Move:
        to = None if move.to is None else place(move.to)
        via = tuple(place(w) for w in move.via)
        if (to, via) == (move.to, move.via):
            return move
        return msgspec.structs.replace(move, to=to, via=via)

    return tuple(placed(m) for m in moves)


def star_hex(starmap: StarMap, text: str) -> str | None:
    """Return the hex label of the star `text` names on `starmap` (any case), or None when it
    is a hex label already or names no star."""
    try:
        parse_label(text)
    except ValueError:
        try:
            return label(starmap.system(text.strip()).hex)
        except KeyError:
            return None
    return None


# A refusal names up to this many stars of the chart when none is close to what was written.
STARS_LISTED = 12


def _stars_hint(starmap: StarMap, text: str) -> str:
    """Say which stars were perhaps meant, with their hexes: close names, else the chart's."""
    stars = {s.name: label(s.hex) for s in starmap.systems}
    close = difflib.get_close_matches(text, list(stars), n=3, cutoff=0.6)
    if close:
        return " (did you mean " + " or ".join(f"{n} ({stars[n]})" for n in close) + "?)"
    if not stars:
        return ""
    if len(stars) > STARS_LISTED:
        return f" (your map names {len(stars)} stars)"
    return " (stars: " + ", ".join(f"{n} ({h})" for n, h in sorted(stars.items())) + ")"


# How many reachable hexes a refusal lists before it says how many more there are.
REACH_LISTED = 24


def _plan(
    starmap: StarMap,
    unit: Unit,
    move: Move,
    entry: str,
    speed: int,
    turns: int,
    reach: CommandReach,
    accepted: bool = True,
) -> tuple[Plan | None, str | None]:
    allowed = reach.allowed(unit)
    (move,) = with_star_hexes(starmap, (move,))  # a star's name is its hex
    if move.to is None:
        # Holding is no FTL move: it binds nothing, as leaving a unit out of the orders does
        # (004 L347 pre-plots FTL moves; docs/rulings.md, "Holding").
        return Plan(path=()), None
    targets = []
    for name, text in [*(("waypoint", w) for w in move.via), ("destination", move.to)]:
        try:
            cell = parse_label(text)
        except ValueError:
            return None, (
                f"{name} {text!r} is neither a hex label like 0712 nor a star your chart "
                f"names{_stars_hint(starmap, text)}"
            )
        if not starmap.contains(cell):
            last = f"{starmap.width:02d}{starmap.height:02d}"
            hexes = f" (hexes 0101 to {last}: column, row)" if accepted else ""
            return None, f"{name} {text} is off the map{hexes}"
        targets.append(cell)
    goal = targets[-1]
    legs = _legs(starmap, unit, targets, entry, speed, allowed)
    if legs is None or len(legs) > turns:
        if move.via:
            within = "this turn" if turns == 1 else f"within {turns} turns (its plot horizon)"
            way = ", ".join(move.via)
            return None, (
                f"cannot reach {move.to} by way of {way} {within}; "
                f"{_reachable(starmap, unit, entry, speed, allowed)}"
            )
        return None, _why_not(starmap, unit, goal, entry, speed, turns, reach)
    waypoints = tuple(label(leg[-1]) if leg else move.to for leg in legs[1:])
    plot = waypoints + (move.to,) * (turns - len(legs))
    return Plan(path=tuple(label(h) for h in legs[0]), plot=plot, horizon=turns), None


def _legs(
    starmap: StarMap,
    unit: Unit,
    targets: list[Hex],
    entry: str,
    speed: int,
    allowed: frozenset[Hex] | None,
) -> tuple[tuple[Hex, ...], ...] | None:
    """The legs, a turn each, of the quickest route through `targets` in order (waypoints,
    then the destination). A waypoint is a stop: the move ends there, at the end of a turn,
    so the unit explores it and is seen there (docs/rulings.md). A unit already at its
    destination: one empty leg."""
    legs: list[tuple[Hex, ...]] = []
    here = None if unit.hex is None else parse_label(unit.hex)
    for target in targets:
        if here is None:
            # 004 section 5.1, First Turn Entry: the entry hex is the first hex of movement.
            route = starmap.route_from_entry(entry, target, speed, allowed=allowed)
        else:
            route = starmap.route(here, target, speed, allowed=allowed)
        if route is None:
            return None
        here = target
        legs += route.legs
    return tuple(legs) or ((),)


def _why_not(
    starmap: StarMap,
    unit: Unit,
    goal: Hex,
    entry: str,
    speed: int,
    turns: int,
    reach: CommandReach,
) -> str:
    """Say why a unit cannot reach `goal` within `turns`: its real cause (command range,
    clouds or speed), and the hexes it can reach this turn."""
    allowed = reach.allowed(unit)
    within = "this turn" if turns == 1 else f"within {turns} turns (its plot horizon)"
    target = label(goal)
    if allowed is not None and goal not in allowed:
        far = starmap.command_post_distance(goal, reach.posts)
        cause = (
            f"{target} is {far} hexes from the nearest command post; starships other than "
            "scouts stay within 8 (004 L86)"
        )
    elif allowed is not None and _fits(_legs(starmap, unit, [goal], entry, speed, None), turns):
        cause = (
            f"every way to {target} {within} leaves command range (8 hexes from a command "
            "post, 004 L86)"
        )
    else:
        start = starmap.entry(entry).hex if unit.hex is None else parse_label(unit.hex)
        hexes = start.distance(goal) + (1 if unit.hex is None else 0)
        if hexes <= speed * turns:
            cause = (
                f"gas/dust clouds bar the way to {target} {within}: a cloud is entered only "
                "from next to it and crossed 1 hex a turn (004 L83-85)"
            )
        else:
            cause = (
                f"{target} is {hexes} hexes away; at speed {speed} it moves {speed} hexes a "
                f"turn, {speed * turns} {within} (004 L74-76)"
            )
    return f"cannot reach {target}: {cause}; {_reachable(starmap, unit, entry, speed, allowed)}"


def _fits(legs: tuple[tuple[Hex, ...], ...] | None, turns: int) -> bool:
    return legs is not None and len(legs) <= turns


def reachable_hexes(
    starmap: StarMap, unit: Unit, entry: str, speed: int, allowed: frozenset[Hex] | None
) -> list[str]:
    """Return the hexes (labels, sorted) a unit can end this turn's move in: from its hex,
    or from its empire's entry hex before it entered (004 section 5.1), at `speed`, touching
    only `allowed` (`CommandReach.allowed`; None: anywhere)."""
    if unit.hex is None:
        cells = starmap.reachable_from_entry(entry, speed, allowed=allowed)
    else:
        cells = starmap.reachable(parse_label(unit.hex), speed, allowed=allowed)
    return sorted(label(c) for c in cells)


def _reachable(
    starmap: StarMap, unit: Unit, entry: str, speed: int, allowed: frozenset[Hex] | None
) -> str:
    """The hexes a unit can end this turn's move in, as a refusal lists them."""
    labels = reachable_hexes(starmap, unit, entry, speed, allowed)
    if not labels:
        return "it can reach no hex this turn"
    shown = ", ".join(labels[:REACH_LISTED])
    more = f" and {len(labels) - REACH_LISTED} more" if len(labels) > REACH_LISTED else ""
    return f"it can reach {shown}{more} this turn"


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
        plans, lapsed = _plans_that_hold(state, starmap, player, moves)
        batch += [
            NewEvent(event=ev, audience=Audience.players_([player]), turn=state.turn)
            for ev in lapsed
        ]
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
) -> tuple[dict[str, Plan], list[MoveLapsed]]:
    """Plan the moves at resolution. One that no longer holds (checked against the player's
    knowledge, it may meet what he could not see) lapses: that unit holds position, and the
    player is told why (never silently)."""
    if not moves:
        return {}, []
    try:
        return plan_moves(state, starmap, player, moves), []
    except OrdersError:
        plans: dict[str, Plan] = {}
        lapsed = []
        for move in moves:
            try:
                plans.update(plan_moves(state, starmap, player, (move,), accepted=False))
            except OrdersError as exc:
                reason = "; ".join(p.removeprefix(f"{move.unit}: ") for p in exc.problems)
                lapsed.append(MoveLapsed(unit=move.unit, to=move.to, reason=reason))
        return plans, lapsed


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


def _his_units(state: CampaignState, player: str) -> str:
    """Name what a player may give orders to: his units and task forces."""
    units = sorted((u for u in state.units.values() if u.owner == player), key=unit_order)
    forces = sorted(tf.id for tf in state.task_forces.values() if tf.owner == player)
    names = [u.id for u in units] + forces
    return f"his units: {', '.join(names)}" if names else "he has no units"
