"""A player's map: what he knows, drawn (issue 16).

`build_player_map` gathers, from a player's own view and his map alone, everything his map
shows: his units with their ids, destinations and the hexes each can reach this turn, his
colonies and command posts, the 8-hex command range, the enemy colonies and ships he knows
of, the systems he explored with their planets (orbit and type), and last turn's battles.
`player_map_svg` draws it; the published `map.svg`, the HTML report and the web page all
show that one picture, and the web page hands the same `PlayerMap` to its script.

`unit_reach` answers "where can this unit go", as submission checks a move: `umpire map
reach`, the web page and the map all ask it, so a hex shown reachable is one the orders
accept.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import UMPIRE
from campaign.projections import CampaignState
from campaign.rules import movement
from campaign.rules.colonies import command_post_hexes
from campaign.strategic import Battle, Move, Unit, unit_order
from maps import COMMAND_RADIUS, StarMap, label, parse_label
from maps.svg import Arrow, Marker, Region, to_svg


class Reach(msgspec.Struct, frozen=True, kw_only=True):
    """Where a unit (or task force) can go this turn, as `viewer` knows the map (004 5.1).

    `hexes`: every hex it can end this turn's move in. With a destination asked for (`to`):
    `path`, the hexes it enters this turn, and `plot`, where it must be after each coming
    turn of its horizon; or `problem`, the reason submission would refuse the move.
    """

    unit: str
    owner: str
    hex: str | None  # None: not entered yet (it enters at its empire's entry hex)
    speed: int
    horizon: int  # turns its moves are plotted ahead (004 section 6)
    hexes: tuple[str, ...] = ()
    to: str | None = None
    path: tuple[str, ...] = ()
    plot: tuple[str, ...] = ()
    problem: str | None = None  # why it cannot move now at all, or not to `to`


def unit_reach(
    state: CampaignState,
    starmap: StarMap,
    unit: str,
    viewer: str,
    to: str | None = None,
    command: movement.CommandReach | None = None,
) -> Reach:
    """Return where `unit` can go this turn in `state` on `starmap`, as `viewer` may ask
    (`command`: its owner's command range, when the caller has it already).

    The move is checked by `movement.plan_moves`, as submission checks it: the same answer and
    the same words. A player (`viewer`) asks about his own units only; the umpire about any.
    `CampaignService.reach` asks it of the database, `umpire map reach --package` of a
    player's published view.

    Raises:
        InvalidInputError: no such unit (for a player: none of his), or `to` is not a hex
            label on the map.
    """
    force = state.task_forces.get(unit)
    flagship = state.units.get(force.units[0]) if force and force.units else None
    found = flagship if force is not None else state.units.get(unit)
    if found is None or viewer not in (UMPIRE, found.owner):
        whose = "in this campaign" if viewer == UMPIRE else f"of {viewer}"
        raise InvalidInputError(
            f"{unit} is not a unit or task force {whose} (the report's forces list them)"
        )
    if to is not None:
        to = movement.star_hex(starmap, to) or to  # a star's name is its hex, as in orders
        try:
            goal = parse_label(to)
        except ValueError:
            raise InvalidInputError(
                f"--to {to!r} is not a hex label like 0712 nor a star your map names"
            ) from None
        if not starmap.contains(goal):
            raise InvalidInputError(
                f"--to {to} is off the map (columns 01-{starmap.width:02d}, "
                f"rows 01-{starmap.height:02d})"
            )
    player = found.owner
    empire = state.empires[player]
    answer = Reach(
        unit=unit,
        owner=player,
        hex=found.hex,
        speed=empire.speed,
        horizon=movement.horizon(state, found),
    )
    command = command or movement.CommandReach(state, starmap, player)

    def planned(goal: str | None) -> tuple[dict[str, movement.Plan], str | None]:
        try:
            moves = (Move(unit=unit, to=goal),)
            return movement.plan_moves(state, starmap, player, moves, reach=command), None
        except movement.OrdersError as exc:
            return {}, "; ".join(p.removeprefix(f"{unit}: ") for p in exc.problems)

    plans, problem = planned(to)
    # A unit that cannot be ordered at all this turn (bound by its plot, moving with its task
    # force) reaches nothing, whatever destination was asked.
    unordered = problem
    if problem is not None and to is not None:
        unordered = planned(None)[1]  # refused anywhere, or only there?
    if unordered is not None:
        return msgspec.structs.replace(answer, problem=unordered)
    allowed = command.allowed(found)
    hexes = movement.reachable_hexes(starmap, found, empire.entry, empire.speed, allowed)
    plan = plans.get(found.id)
    return msgspec.structs.replace(
        answer,
        hexes=tuple(hexes),
        to=to,
        path=plan.path if plan else (),
        plot=plan.plot if plan else (),
        problem=problem,
    )


class MapPlanet(msgspec.Struct, frozen=True, kw_only=True):
    """A planet the player's exploration reported: `id` is `System/orbit`."""

    id: str
    orbit: int
    type: str
    capacity: int
    mineral_rich: bool = False


class MapSystem(msgspec.Struct, frozen=True, kw_only=True):
    """A star on the player's map; planets only where he explored."""

    name: str
    hex: str
    colour: str
    explored: bool
    planets: tuple[MapPlanet, ...] = ()


class MapUnit(msgspec.Struct, frozen=True, kw_only=True):
    """One of the player's units (or task forces) as his map shows it.

    `hex` None: waiting to enter at `entry`. `to`: where it is ordered (his orders of this
    turn) or plotted to go. `reach`: the hexes it can end this turn's move in; `problem`: why
    it cannot be ordered at all this turn (`unit_reach`).
    """

    id: str
    kind: str
    what: str
    hex: str | None
    order: str
    count: int = 1
    task_force: str | None = None
    members: tuple[str, ...] = ()  # a task force's ships, flagship first
    to: str | None = None
    horizon: int = 1
    plotted: bool = False
    reach: tuple[str, ...] = ()
    problem: str | None = None


class MapColony(msgspec.Struct, frozen=True, kw_only=True):
    """A colony the player knows of: his own in full, an enemy's as far as he knows it."""

    id: str  # `System/orbit`, or the system alone when only the system is known
    owner: str
    system: str
    hex: str
    own: bool
    command_post: bool = False
    planet_type: str | None = None
    population: int | None = None
    capacity: int | None = None
    factories: int | None = None


class MapSighting(msgspec.Struct, frozen=True, kw_only=True):
    """Enemy ships the player last saw in a hex, in words."""

    hex: str
    turn: int
    text: str


class MapBattle(msgspec.Struct, frozen=True, kw_only=True):
    """A battle of last turn the player was told of."""

    id: str
    hex: str
    system: str | None
    text: str


class PlayerMap(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a player's map shows, from his own view alone."""

    player: str
    turn: int
    title: str
    width: int
    height: int
    entry: str  # his entry hex
    speed: int
    systems: tuple[MapSystem, ...]
    units: tuple[MapUnit, ...]
    colonies: tuple[MapColony, ...]
    posts: tuple[str, ...]  # hexes of his colony command posts
    command_range: tuple[str, ...]  # map hexes within 8 of a command post (004 L86)
    sightings: tuple[MapSighting, ...] = ()
    battles: tuple[MapBattle, ...] = ()


def _short(unit_id: str) -> str:
    """`red-S1` -> `S1`: the player's own ids on his map, without his name."""
    return unit_id.rpartition("-")[2] or unit_id


def _what(unit: Unit) -> str:
    if unit.kind == "warship":
        return unit.design or "warship"
    if unit.kind == "scout-troop":
        return f"troop of {unit.count} scouts"
    return f"{unit.count} colony transports"


def _sighting_text(owner_counts: Sequence[tuple[str, int]], colonies: Sequence[str]) -> str:
    ships = ", ".join(f"{n} ships of {owner}" for owner, n in owner_counts) or "no ships"
    held = f"; colonies: {', '.join(colonies)}" if colonies else ""
    return ships + held


def build_player_map(
    view: CampaignState,
    starmap: StarMap,
    explored: Collection[str],
    player: str,
    battles: Sequence[Battle] = (),
    moves: Sequence[Move] = (),
) -> PlayerMap:
    """Return what `player`'s map shows, from his view (`view`, folded from his events
    only), his map as he knows it (`starmap`, `explored`), the battles he was told of and
    the moves of his orders so far this turn (`moves`: where his units are going).

    Raises:
        InvalidInputError: he has no empire in `view`.
    """
    empire = view.empires.get(player)
    if empire is None:
        raise InvalidInputError(f"{player} has no empire in this campaign (no map?)")
    entry_hex = label(starmap.entry(empire.entry).hex)
    systems = tuple(
        MapSystem(
            name=s.name,
            hex=label(s.hex),
            colour=s.colour.value,
            explored=s.name in explored,
            planets=tuple(
                MapPlanet(
                    id=f"{s.name}/{p.orbit}",
                    orbit=p.orbit,
                    type=p.type.value,
                    capacity=p.capacity,
                    mineral_rich=p.mineral_rich,
                )
                for p in s.planets
            ),
        )
        for s in starmap.systems
    )
    ordered = {m.unit: m.to for m in moves}
    reach = movement.CommandReach(view, starmap, player)  # once for all his units
    units: list[MapUnit] = []
    forces = {tf.id: tf for tf in view.task_forces.values() if tf.owner == player and tf.units}
    for force in sorted(forces.values(), key=lambda tf: tf.id):
        flagship = view.units.get(force.units[0])
        if flagship is None:
            continue
        units.append(_map_unit(view, starmap, reach, force.id, flagship, ordered, force.units))
    for unit in sorted(view.units.values(), key=unit_order):
        if unit.owner != player or unit.task_force in forces:
            continue
        units.append(_map_unit(view, starmap, reach, unit.id, unit, ordered))
    colonies: list[MapColony] = []
    for colony in sorted(view.colonies.values(), key=lambda c: c.id):
        own = colony.owner == player
        colonies.append(
            MapColony(
                id=colony.id,
                owner=colony.owner,
                system=colony.system,
                hex=colony.hex,
                own=own,
                command_post=colony.command_post,
                planet_type=colony.planet_type,
                population=colony.population if own else None,
                capacity=colony.capacity if own else None,
                factories=colony.factories if own else None,
            )
        )
    placed = {(c.owner, c.system) for c in colonies}
    for owner, system in view.known_colonies:
        if owner != player and (owner, system) not in placed:
            where = _system_hex(starmap, system)
            if where is not None:
                # Detected by its command post, or seen by his ships (which tell no post).
                post = (owner, system) in view.detected_posts
                colonies.append(
                    MapColony(
                        id=system,
                        owner=owner,
                        system=system,
                        hex=where,
                        own=False,
                        command_post=post,
                    )
                )
                placed.add((owner, system))
    sightings = []
    for seen in sorted(view.sightings.get(player, {}).values(), key=lambda s: s.hex):
        counts = [
            (c.owner, c.escorts + c.cruisers + c.capitals + c.scouts + c.transports)
            for c in seen.ships
        ]
        sightings.append(
            MapSighting(hex=seen.hex, turn=seen.turn, text=_sighting_text(counts, seen.colonies))
        )
    return PlayerMap(
        player=player,
        turn=view.turn,
        title=f"{starmap.title or starmap.name}: {player}'s map, turn {view.turn}",
        width=starmap.width,
        height=starmap.height,
        entry=entry_hex,
        speed=empire.speed,
        systems=systems,
        units=tuple(units),
        colonies=tuple(colonies),
        posts=tuple(command_post_hexes(view, player)),
        command_range=tuple(
            sorted(label(h) for h in starmap.command_range(reach.posts, COMMAND_RADIUS))
        ),
        sightings=tuple(sightings),
        battles=tuple(_map_battle(b) for b in battles),
    )


def _system_hex(starmap: StarMap, name: str) -> str | None:
    for system in starmap.systems:
        if system.name == name:
            return label(system.hex)
    return None


def _map_battle(battle: Battle) -> MapBattle:
    sides = " against ".join(s.player for s in battle.sides)
    where = battle.system or battle.hex
    return MapBattle(
        id=battle.id, hex=battle.hex, system=battle.system, text=f"{battle.id}: {sides} at {where}"
    )


def _map_unit(
    view: CampaignState,
    starmap: StarMap,
    reach: movement.CommandReach,
    uid: str,
    unit: Unit,
    ordered: dict[str, str | None],
    members: tuple[str, ...] = (),
) -> MapUnit:
    plotted = unit.plotted(view.turn)
    to = ordered.get(uid) or (unit.plot[-1] if unit.plot and plotted else None)
    answer = unit_reach(view, starmap, uid, unit.owner, command=reach)
    return MapUnit(
        id=uid,
        kind="task-force" if members else unit.kind,
        what=f"task force of {len(members)}" if members else _what(unit),
        hex=unit.hex,
        order=unit.order,
        count=unit.count,
        task_force=unit.task_force,
        members=members,
        to=to,
        horizon=answer.horizon,
        plotted=plotted,
        reach=answer.hexes,
        problem=answer.problem,
    )


UNIT_COLOUR = {
    "warship": "#ffd84a",
    "task-force": "#ffb000",
    "scout-troop": "#9fe0ff",
    "transports": "#b6f5a0",
}
TAGS_PER_HEX = 3  # unit tags drawn on one hex; beyond, the last says how many more
OWN_COLONY = "#3fd16b"
ENEMY_COLONY = "#ff5a4a"
RANGE_FILL = "#27507a"
REACH_STROKE = "#9fd0ff"
BATTLE_STROKE = "#ff2020"
SIGHTING_COLOUR = "#ff9a9a"
POST_COLOUR = "#ffffff"
MAP_KEY = (
    (UNIT_COLOUR["warship"], "your warships"),
    (UNIT_COLOUR["task-force"], "your task forces"),
    (UNIT_COLOUR["scout-troop"], "your scout troops"),
    (UNIT_COLOUR["transports"], "your transports"),
    (RANGE_FILL, "command range (8 hexes)"),
    (REACH_STROKE, "reachable this turn"),
    (OWN_COLONY, "ring: your colony"),
    (ENEMY_COLONY, "ring: enemy colony"),
    (POST_COLOUR, "CP: your command post"),
    (SIGHTING_COLOUR, "enemy ships seen"),
    (BATTLE_STROKE, "battle last turn"),
)


def unit_title(unit: MapUnit) -> str:
    """The words a unit's tooltip gives: what it is, where, its order and destination."""
    where = f"at {unit.hex}" if unit.hex else "waiting to enter"
    bits = [f"{unit.id}: {unit.what}, {where}, {unit.order}"]
    if unit.to:
        bits.append(f"plotted to {unit.to}" if unit.plotted else f"ordered to {unit.to}")
    if unit.problem:
        bits.append(f"cannot move: {unit.problem}")
    else:
        bits.append(f"reaches {len(unit.reach)} hexes this turn")
    return "; ".join(bits)


def player_map_svg(picture: PlayerMap, starmap: StarMap, explored: Collection[str]) -> str:
    """Return the player's map as SVG: the star chart he knows, and everything `picture`
    holds drawn on it (the published `map.svg`, the HTML report's and the web page's map)."""
    markers: list[Marker] = []
    arrows: list[Arrow] = []
    by_hex: dict[str, list[MapUnit]] = {}
    for unit in picture.units:
        by_hex.setdefault(unit.hex or picture.entry, []).append(unit)
    for at, here in by_hex.items():
        shown = here if len(here) <= TAGS_PER_HEX else here[: TAGS_PER_HEX - 1]
        for unit in shown:
            markers.append(
                Marker(
                    parse_label(at),
                    _short(unit.id),
                    UNIT_COLOUR.get(unit.kind, "#ffffff"),
                    title=unit_title(unit),
                    key=unit.id,
                )
            )
        rest = here[len(shown) :]
        if rest:
            markers.append(
                Marker(
                    parse_label(at),
                    f"+{len(rest)}",
                    "#d0d4e0",
                    title="; ".join(unit_title(u) for u in rest),
                    key=" ".join(u.id for u in rest),
                )
            )
    for unit in picture.units:
        at = unit.hex or picture.entry
        if unit.to and unit.to != at:
            arrows.append(
                Arrow(
                    parse_label(at),
                    parse_label(unit.to),
                    UNIT_COLOUR.get(unit.kind, "#ffffff"),
                    key=unit.id,
                    title=f"{unit.id} to {unit.to}",
                )
            )
    for post in picture.posts:
        markers.append(Marker(parse_label(post), "CP", POST_COLOUR, title="your command post"))
    for seen in picture.sightings:
        if seen.text != "no ships":
            markers.append(
                Marker(
                    parse_label(seen.hex),
                    "seen",
                    SIGHTING_COLOUR,
                    title=f"turn {seen.turn}: {seen.text}",
                )
            )
    control: dict[str, str] = {}
    for colony in picture.colonies:
        if colony.own:
            control[colony.system] = OWN_COLONY
        else:
            control.setdefault(colony.system, ENEMY_COLONY)
    reachable = {h for u in picture.units for h in u.reach}
    regions = [
        Region(
            "command-range",
            frozenset(parse_label(h) for h in picture.command_range),
            fill=RANGE_FILL,
            opacity=0.35,
        ),
        Region(
            "reach",
            frozenset(parse_label(h) for h in reachable),
            stroke=REACH_STROKE,
            opacity=0.6,
        ),
        Region(
            "battles",
            frozenset(parse_label(b.hex) for b in picture.battles),
            stroke=BATTLE_STROKE,
            opacity=1.0,
        ),
    ]
    return to_svg(
        starmap,
        explored=explored,
        markers=markers,
        control=control,
        regions=regions,
        arrows=arrows,
        key=MAP_KEY,
        title=picture.title,
    )


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """What one of the player's colonies will have to spend at this turn's production phase
    (004 5.7.2), as his own view has it."""

    colony: str
    hex: str
    population: int
    factories: int
    ip: int
    note: str = ""


class Design(msgspec.Struct, frozen=True, kw_only=True):
    """A starship design a colony may build: its FT points (63 a IP, 004 L277)."""

    id: str
    hull_class: str
    points: int


class Tech(msgspec.Struct, frozen=True, kw_only=True):
    """A technology the player may research now, and its price to him (004 5.7.6-5.7.7)."""

    name: str
    title: str
    price: int


class OrdersDesk(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the web page's orders editor needs, from the player's own view: his map,
    his orders so far (the last he sent this turn, else every unit holding), the deadline,
    and on a production turn each colony's IP, the prices and the technologies."""

    map: PlayerMap
    document: dict[str, object]  # the orders document's fields (`rules.orders.dumps` writes it)
    received: tuple[str, ...] = ()  # his orders as recorded this turn, in words; none: not sent
    deadline: str | None = None  # ISO 8601, UTC
    now: str = ""
    phase: str = "orders"
    production: bool = False
    budgets: tuple[Budget, ...] = ()
    prices: dict[str, int] = msgspec.field(default_factory=dict)
    ft_points_per_ip: int = 63
    designs: tuple[Design, ...] = ()
    techs: tuple[Tech, ...] = ()
    treasury: int = 0  # IP left of the starting treasury while it may be spent (004 L32)
    fighters_per_group: int = 6  # replacement fighters: FT points of a group of this many ...
    fighter_group_points: int = 20  # ... (`rules.economy.fighter_points`)
    decoy_points: int = 20  # a decoy drone's FT points (`rules.decoys`)


__all__ = [
    "Budget",
    "Design",
    "MapColony",
    "MapSystem",
    "MapUnit",
    "OrdersDesk",
    "PlayerMap",
    "Reach",
    "Tech",
    "build_player_map",
    "player_map_svg",
    "unit_reach",
]
