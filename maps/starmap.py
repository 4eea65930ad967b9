"""The campaign map on a networkx graph, and the movement queries the turn engine asks.

Movement follows 004 section 5.1. In one turn a ship moves up to its speed in hexes, and:

- a gas/dust cloud hex may be entered only by a move that begins next to it, so a cloud hex can
  only be the first hex of a turn's move;
- movement within a cloud is 1 hex per turn, so entering a cloud (or moving from one cloud hex
  to another) ends the turn's move;
- a ship that starts in a cloud may leave it at its full normal speed.

Movement never leaves the map; the off-map start of a player's ships is handled by
`StarMap.reachable_from_entry` (004 section 5.1, "First Turn Entry").
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import heapq
import itertools
import math
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from maps.hexes import Hex, from_offset, label, to_offset
from maps.model import Entry, Planet, StarSystem

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "COMMAND_RADIUS",
    "MapError",
    "Problem",
    "Route",
    "StarMap",
]

# 004 section 5.1: starships other than scouts cannot move further than 8 hexes from a
# Command Post.
COMMAND_RADIUS = 8

# Label columns and rows run 01..99.
MAX_SIDE = 99


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a map, and where: ``("systems", 3, "hex")``."""

    where: tuple[str | int, ...]
    message: str

    def path(self) -> str:
        """Return the location as a JSON path, e.g. ``$.systems[3].hex``."""
        out = "$"
        for part in self.where:
            out += f"[{part}]" if isinstance(part, int) else f".{part}"
        return out

    def __str__(self) -> str:
        return f"{self.message} - at `{self.path()}`"


class MapError(ValueError):
    """A map that breaks the rules of maps; ``problems`` lists every fault found."""

    def __init__(self, problems: Iterable[Problem | str], source: str = "") -> None:
        self.problems: tuple[Problem | str, ...] = tuple(problems)
        self.source = source
        text = "; ".join(str(p) for p in self.problems) or "invalid map"
        super().__init__(f"{source}: {text}" if source else text)


@dataclass(frozen=True, slots=True)
class Route:
    """A multi-turn route: ``legs[t]`` are the hexes entered on turn ``t + 1``, in order."""

    start: Hex
    legs: tuple[tuple[Hex, ...], ...]

    @property
    def turns(self) -> int:
        """Return the number of turns the route takes."""
        return len(self.legs)

    @property
    def hexes(self) -> tuple[Hex, ...]:
        """Return every hex of the route, the start included."""
        return (self.start, *(cell for leg in self.legs for cell in leg))

    @property
    def length(self) -> int:
        """Return the number of hexes moved."""
        return sum(len(leg) for leg in self.legs)


def validate(
    width: int,
    height: int,
    systems: Iterable[StarSystem],
    clouds: Iterable[Hex],
    entries: Iterable[Entry],
) -> list[Problem]:
    """Return every problem with these map parts (an empty list for a good map)."""
    problems: list[Problem] = []
    for side, value in (("width", width), ("height", height)):
        if not 1 <= value <= MAX_SIDE:
            problems.append(Problem((side,), f"must be 1..{MAX_SIDE}, got {value}"))
    if problems:
        return problems

    def on_map(cell: Hex) -> bool:
        col, row = to_offset(cell)
        return 0 <= col < width and 0 <= row < height

    def where(cell: Hex) -> str:
        col, row = to_offset(cell)
        return f"{col + 1:02d}{row + 1:02d}" if col >= 0 and row >= 0 else repr(cell)

    cloud_set: set[Hex] = set()
    for i, cell in enumerate(clouds):
        if not on_map(cell):
            problems.append(Problem(("clouds", i), f"hex {where(cell)} is off the map"))
        if cell in cloud_set:
            problems.append(Problem(("clouds", i), f"hex {where(cell)} is listed twice"))
        cloud_set.add(cell)

    seen_hex: dict[Hex, str] = {}
    seen_name: dict[str, int] = {}
    for i, system in enumerate(systems):
        problems += _name_problems(("systems", i, "name"), system.name)
        key = system.name.casefold()
        if key in seen_name:
            problems.append(
                Problem(
                    ("systems", i, "name"), f"{system.name!r} is already system {seen_name[key]}"
                )
            )
        seen_name.setdefault(key, i)
        if not on_map(system.hex):
            problems.append(
                Problem(("systems", i, "hex"), f"hex {where(system.hex)} is off the map")
            )
        elif system.hex in seen_hex:
            problems.append(
                Problem(
                    ("systems", i, "hex"),
                    f"hex {where(system.hex)} already holds {seen_hex[system.hex]!r}",
                )
            )
        elif system.hex in cloud_set:
            problems.append(Problem(("systems", i, "hex"), f"hex {where(system.hex)} is a cloud"))
        seen_hex.setdefault(system.hex, system.name)
        problems += _system_problems(i, system)

    entry_names: set[str] = set()
    for i, entry in enumerate(entries):
        problems += _name_problems(("entries", i, "name"), entry.name)
        if entry.name in entry_names:
            problems.append(Problem(("entries", i, "name"), f"{entry.name!r} is listed twice"))
        entry_names.add(entry.name)
        if not on_map(entry.hex):
            problems.append(
                Problem(("entries", i, "hex"), f"hex {where(entry.hex)} is off the map")
            )
        elif all(on_map(n) for n in entry.hex.neighbours()):
            problems.append(
                Problem(
                    ("entries", i, "hex"),
                    f"hex {where(entry.hex)} is not on the map edge (004 section 5.1: the "
                    "initial command post is just off the map from the entry hex)",
                )
            )
        elif entry.hex in cloud_set:
            problems.append(Problem(("entries", i, "hex"), f"hex {where(entry.hex)} is a cloud"))
    return problems


MAX_NAME = 64  # characters in a star's or an entry's name


def _name_problems(where: tuple[str | int, ...], name: str) -> list[Problem]:
    """Return what is wrong with a star's or entry's name: blank, too long, or holding a
    control character (it is shown on terminals and in reports). Any other character plays:
    dice keys escape what they cannot hold."""
    if not name.strip():
        return [Problem(where, "must not be blank")]
    if len(name) > MAX_NAME:
        return [Problem(where, f"is {len(name)} characters long; at most {MAX_NAME}")]
    bad = next((ch for ch in name if not ch.isprintable()), None)
    if bad is not None:
        return [Problem(where, f"holds the control character {bad!r}; names must be printable")]
    return []


def _system_problems(i: int, system: StarSystem) -> list[Problem]:
    """Return the problems inside one system: planets, features and facilities."""
    problems: list[Problem] = []
    orbits: set[int] = set()
    for j, planet in enumerate(system.planets):
        if planet.orbit < 1 or planet.orbit in orbits:
            problems.append(
                Problem(
                    ("systems", i, "planets", j, "orbit"),
                    f"orbit {planet.orbit} must be >= 1 and unique in the system",
                )
            )
        orbits.add(planet.orbit)
        if planet.capacity < 0:
            problems.append(Problem(("systems", i, "planets", j, "capacity"), "must be >= 0"))
    if len(set(system.features)) != len(system.features):
        problems.append(Problem(("systems", i, "features"), "lists a feature twice"))
    if len(set(system.facilities)) != len(system.facilities):
        problems.append(Problem(("systems", i, "facilities"), "lists a facility twice"))
    if system.repair_mass_limit is not None and system.repair_mass_limit < 1:
        problems.append(Problem(("systems", i, "repair_mass_limit"), "must be >= 1"))
    return problems


class _Neighbours(dict[Hex, tuple[Hex, ...]]):
    """Each cell's neighbours on the map, sorted, each cell's worked out when first asked: one
    unit's reach asks for a few hundred of a 600-star map's 7,821 cells (issue 19). A cell off
    the map is a KeyError, as in a full dict."""

    def __init__(self, cells: frozenset[Hex]) -> None:
        super().__init__()
        self._cells = cells

    def __missing__(self, cell: Hex) -> tuple[Hex, ...]:
        cells = self._cells
        if cell not in cells:
            raise KeyError(cell)
        # `neighbours` are in sorted order, so each cell's tuple is too: ties break by hex order.
        found = self[cell] = tuple(n for n in cell.neighbours() if n in cells)
        return found


class _Grid:
    """The cells of a ``width`` x ``height`` map and who is next to whom: the same for every
    map of that size, so built once per size and process and shared (issue 19). Who is next
    to whom is worked out cell by cell when first asked: a map read only for its stars never
    needs it, one unit's reach only around him."""

    def __init__(self, width: int, height: int) -> None:
        self.order: tuple[Hex, ...] = tuple(  # every cell, sorted
            sorted(from_offset(c, r) for c in range(width) for r in range(height))
        )
        self.cells: frozenset[Hex] = frozenset(self.order)
        self.adjacency: dict[Hex, tuple[Hex, ...]] = _Neighbours(self.cells)


@functools.lru_cache(maxsize=16)
def _grid(width: int, height: int) -> _Grid:
    return _Grid(width, height)


class StarMap:
    """A rectangular hex map of ``width`` columns and ``height`` rows.

    Its cells and their adjacency are shared by every map of its size (`_grid`); ``graph``
    gives them as a networkx graph on demand. A StarMap is never changed once built.

    Raises:
        MapError: from the constructor, listing every problem with the parts.
    """

    def __init__(
        self,
        *,
        name: str,
        width: int,
        height: int,
        systems: Iterable[StarSystem] = (),
        clouds: Iterable[Hex] = (),
        entries: Iterable[Entry] = (),
        title: str = "",
        provenance: str = "",
    ) -> None:
        systems = tuple(systems)
        clouds = tuple(clouds)
        entries = tuple(entries)
        problems = validate(width, height, systems, clouds, entries)
        if problems:
            raise MapError(problems, source=name)
        self.name = name
        self.title = title
        self.provenance = provenance
        self.width = width
        self.height = height
        self.systems: tuple[StarSystem, ...] = tuple(sorted(systems, key=lambda s: s.hex))
        self.clouds: frozenset[Hex] = frozenset(clouds)
        self.entries: tuple[Entry, ...] = entries
        self._by_hex: dict[Hex, StarSystem] = {s.hex: s for s in self.systems}
        self._by_name: dict[str, StarSystem] = {s.name.casefold(): s for s in self.systems}
        self._entries: dict[str, Entry] = {e.name: e for e in entries}

        self._grid = _grid(width, height)
        self._cells = self._grid.cells

    @property
    def _adj(self) -> dict[Hex, tuple[Hex, ...]]:
        """Plain dict-of-tuples adjacency: the hot loops below read it millions of times."""
        return self._grid.adjacency

    @functools.cached_property
    def graph(self) -> nx.Graph[Hex]:
        """Return the map as a networkx graph, built on first use (the movement queries read
        the shared adjacency instead: issue 19).

        One node per hex cell (axial `Hex`), inserted in sorted order with its edges, so
        that every search breaks ties the same way. Node attributes: ``label``, ``cloud`` and
        ``system`` (a name or ``None``).
        """
        import networkx as nx  # only for whoever asks for the graph: the CLI starts faster

        graph: nx.Graph[Hex] = nx.Graph()
        for cell in self._grid.order:
            system = self._by_hex.get(cell)
            graph.add_node(
                cell,
                label=label(cell),
                cloud=cell in self.clouds,
                system=system.name if system else None,
            )
        for cell in self._grid.order:
            for n in self._adj[cell]:
                if cell < n:
                    graph.add_edge(cell, n)
        return graph

    def with_planets(self, planets: Mapping[str, tuple[Planet, ...]]) -> StarMap:
        """Return this map with every system holding exactly the planets `planets` gives it
        by name (none when it gives none): a player's map, the public chart with the systems
        he explored (issue 19).

        The new map is a view: it shares this map's cells, adjacency and clouds (which never
        change), and holds its own systems, so nothing of one player's planets reaches
        another's map or this one.
        """
        view = copy.copy(self)
        view.__dict__.pop("graph", None)  # a graph carries systems: the view builds its own
        view.systems = tuple(
            s
            if s.planets == (held := tuple(planets.get(s.name, ())))
            else dataclasses.replace(s, planets=held)
            for s in self.systems
        )
        view._by_hex = {s.hex: s for s in view.systems}
        view._by_name = {s.name.casefold(): s for s in view.systems}
        return view

    # ------------------------------------------------------------------ lookups

    def __repr__(self) -> str:
        return (
            f"<StarMap {self.name!r} {self.width}x{self.height}, {len(self.systems)} systems, "
            f"{len(self.clouds)} cloud hexes, {len(self.entries)} entries>"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StarMap):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[object, ...]:
        return (
            self.name,
            self.title,
            self.provenance,
            self.width,
            self.height,
            self.systems,
            self.clouds,
            self.entries,
        )

    def cells(self) -> Iterator[Hex]:
        """Yield every cell of the map in sorted order."""
        return iter(self._grid.order)

    def contains(self, cell: Hex) -> bool:
        """Return whether the cell is on the map."""
        return cell in self._cells

    def is_cloud(self, cell: Hex) -> bool:
        """Return whether the cell is a gas/dust cloud hex."""
        return cell in self.clouds

    def system_at(self, cell: Hex) -> StarSystem | None:
        """Return the star system in a cell, if any."""
        return self._by_hex.get(cell)

    def system(self, name: str) -> StarSystem:
        """Return the system with this name (case-insensitive).

        Raises:
            KeyError: if there is none.
        """
        try:
            return self._by_name[name.casefold()]
        except KeyError:
            raise KeyError(f"no star system {name!r} on map {self.name!r}") from None

    def entry(self, name: str) -> Entry:
        """Return the entry hex of a player slot.

        Raises:
            KeyError: if the map has no entry of that name.
        """
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self._entries) or "none"
            raise KeyError(f"no entry {name!r} on map {self.name!r} (entries: {known})") from None

    # ------------------------------------------------------------------ one turn of movement

    def _turn(
        self,
        origin: Hex,
        speed: int,
        allowed: Collection[Hex] | None,
        *,
        first_step_taken: bool = False,
    ) -> tuple[dict[Hex, int], dict[Hex, Hex]]:
        """Breadth-first search of one turn's move; return steps and predecessors.

        With ``first_step_taken`` the origin was itself entered this turn (from off the map), so
        the move did not begin next to any cloud and no cloud may be entered.
        """
        steps = {origin: 1 if first_step_taken else 0}
        parent: dict[Hex, Hex] = {}
        frontier = [origin]
        clouds = self.clouds
        adj = self._adj
        depth = steps[origin]
        while frontier and depth < speed:
            depth += 1
            nxt: list[Hex] = []
            for cell in frontier:
                for n in adj[cell]:
                    if n in steps or (allowed is not None and n not in allowed):
                        continue
                    if n in clouds:
                        # 004 section 5.1: a cloud may be entered only when the move begins
                        # next to it, i.e. as the first hex of the move ...
                        if cell != origin or first_step_taken:
                            continue
                        # ... and movement within a cloud is 1 hex per turn: the move ends.
                        steps[n] = depth
                        parent[n] = cell
                        continue
                    steps[n] = depth
                    parent[n] = cell
                    nxt.append(n)
            frontier = nxt
        return steps, parent

    def _check_move(self, start: Hex, speed: int) -> None:
        if not self.contains(start):
            raise ValueError(f"start hex {start!r} is not on map {self.name!r}")
        if speed < 0:
            raise ValueError(f"speed must be >= 0, got {speed}")

    def reachable(
        self, start: Hex, speed: int, *, allowed: Collection[Hex] | None = None
    ) -> dict[Hex, int]:
        """Return the hexes one turn's move of ``speed`` hexes can end in, with their steps.

        ``start`` is included with 0 steps. ``allowed`` limits every hex of the move (e.g. to
        `command_range` for starships other than scouts); ``None`` allows the whole map.

        Raises:
            ValueError: if ``start`` is off the map or ``speed`` is negative.
        """
        self._check_move(start, speed)
        return self._turn(start, speed, allowed)[0]

    def _usable_entry(self, entry: str, speed: int, allowed: Collection[Hex] | None) -> Hex | None:
        """Return an entry's hex, or None if `allowed` excludes it.

        Raises:
            KeyError: if there is no such entry.
            ValueError: if ``speed`` is below 1.
        """
        cell = self.entry(entry).hex
        if speed < 1:
            raise ValueError(f"entering the map needs speed >= 1, got {speed}")
        return cell if allowed is None or cell in allowed else None

    def reachable_from_entry(
        self, entry: str, speed: int, *, allowed: Collection[Hex] | None = None
    ) -> dict[Hex, int]:
        """Return where ships entering the map at a player's entry hex can get on turn one.

        004 section 5.1: the entry hex counts as the first hex of movement, so it costs one
        step, and since the move began off the map no cloud can be entered on that turn.

        Raises:
            KeyError: if there is no such entry.
            ValueError: if ``speed`` is below 1.
        """
        cell = self._usable_entry(entry, speed, allowed)
        if cell is None:
            return {}
        return self._turn(cell, speed, allowed, first_step_taken=True)[0]

    def path_within_turn(
        self, start: Hex, goal: Hex, speed: int, *, allowed: Collection[Hex] | None = None
    ) -> tuple[Hex, ...] | None:
        """Return the hexes of a shortest legal one-turn move, ``start`` first, or ``None``.

        Raises:
            ValueError: if ``start`` is off the map or ``speed`` is negative.
        """
        self._check_move(start, speed)
        steps, parent = self._turn(start, speed, allowed)
        if goal not in steps:
            return None
        out = [goal]
        while out[-1] != start:
            out.append(parent[out[-1]])
        return tuple(reversed(out))

    # ------------------------------------------------------------------ routes over turns

    def route(
        self,
        start: Hex,
        goal: Hex,
        speed: int,
        *,
        allowed: Collection[Hex] | None = None,
    ) -> Route | None:
        """Return the quickest legal route in turns (then fewest hexes), or ``None``.

        Every turn's leg obeys the cloud rules of 004 section 5.1, so a route may spend a turn
        closing up to a cloud, a turn entering it, a turn per further cloud hex, and leave at
        full speed. Ties are broken by sorted hex order, so the same question always gets the
        same route.

        Raises:
            ValueError: if ``start`` is off the map or ``speed`` is below 1.
        """
        self._check_move(start, speed)
        if speed < 1:
            raise ValueError(f"a route needs speed >= 1, got {speed}")
        if goal == start:
            return Route(start, ())
        return self._route(start, goal, speed, allowed, entering=False)

    def route_from_entry(
        self, entry: str, goal: Hex, speed: int, *, allowed: Collection[Hex] | None = None
    ) -> Route | None:
        """Return the quickest route for ships entering at a player's entry hex.

        The route's ``start`` is the player's off-map initial command post and its first leg
        begins with the entry hex (004 section 5.1: the entry hex is the first hex of movement).

        Raises:
            KeyError: if there is no such entry.
            ValueError: if ``speed`` is below 1.
        """
        cell = self._usable_entry(entry, speed, allowed)
        if cell is None:
            return None
        post = self.initial_command_post(entry)
        if goal == cell:
            return Route(post, ((cell,),))
        found = self._route(cell, goal, speed, allowed, entering=True)
        if found is None:
            return None
        return Route(post, ((cell, *found.legs[0]), *found.legs[1:]))

    def _route(
        self,
        start: Hex,
        goal: Hex,
        speed: int,
        allowed: Collection[Hex] | None,
        *,
        entering: bool,
    ) -> Route | None:
        """A* over states (hex, hexes moved this turn); ``entering``: the start was entered."""
        if not self.contains(goal) or (allowed is not None and goal not in allowed):
            return None
        # Cost is (turns, hexes), packed as turns * big + hexes. A turn is charged when its
        # first hex is moved. The heuristic (turns still needed after this turn's remaining
        # hexes, and the straight distance) never overestimates and never drops by more than
        # a step costs, so the first time the goal is popped the route is optimal.
        big = len(self._cells) * (speed + 2) + 1
        clouds = self.clouds
        adj = self._adj

        def estimate(cell: Hex, used: int) -> int:
            d = cell.distance(goal)
            left = speed - used if used else 0
            return -(-max(0, d - left) // speed) * big + d

        State = tuple[Hex, int]
        first: State = (start, 1 if entering else 0)
        best: dict[State, int] = {first: big + 1 if entering else 0}
        came: dict[State, State] = {}
        heap: list[tuple[int, int, Hex, int]] = [
            (best[first] + estimate(*first), 0, start, first[1])
        ]
        done: set[State] = set()
        while heap:
            _, _, cell, used = heapq.heappop(heap)
            state = (cell, used)
            if state in done:
                continue
            if cell == goal:
                return self._legs(start, state, came)
            done.add(state)
            base = best[state]
            moves: list[tuple[State, int]] = []
            if used:
                moves.append(((cell, 0), 0))  # end the turn here
            if used < speed:
                for n in adj[cell]:
                    if allowed is not None and n not in allowed:
                        continue
                    if n in clouds:
                        # 004 section 5.1: a cloud may be entered only when the move begins
                        # next to it (as its first hex), and movement within a cloud is 1 hex
                        # per turn, so the move ends there.
                        if used == 0:
                            moves.append(((n, speed), big + 1))
                        continue
                    moves.append(((n, used + 1), (0 if used else big) + 1))
            for nxt, step in moves:
                cost = base + step
                if nxt not in done and cost < best.get(nxt, cost + 1):
                    best[nxt] = cost
                    came[nxt] = state
                    heapq.heappush(
                        heap, (cost + estimate(*nxt), nxt[0].distance(goal), nxt[0], nxt[1])
                    )
        return None

    @staticmethod
    def _legs(
        start: Hex, end: tuple[Hex, int], came: Mapping[tuple[Hex, int], tuple[Hex, int]]
    ) -> Route:
        states = [end]
        while states[-1] in came:
            states.append(came[states[-1]])
        states.reverse()
        legs: list[tuple[Hex, ...]] = []
        leg: list[Hex] = []
        for (prev, _), (cell, used) in itertools.pairwise(states):
            if cell == prev and used == 0:
                legs.append(tuple(leg))
                leg = []
            else:
                leg.append(cell)
        if leg:
            legs.append(tuple(leg))
        return Route(start, tuple(legs))

    # ------------------------------------------------------------------ command posts

    def initial_command_post(self, entry: str) -> Hex:
        """Return the off-map hex of a player's initial command post.

        004 section 5.1: "all players have an initial Command Post just off the map from the
        entry hex". We put it at the off-map neighbour of the entry hex that lies furthest from
        the map's centre (the first in sorted order on a tie).

        Raises:
            KeyError: if there is no such entry.
        """
        cell = self.entry(entry).hex
        cx, cy = _pixel(from_offset((self.width - 1) // 2, (self.height - 1) // 2))

        def outward(n: Hex) -> float:
            x, y = _pixel(n)
            return -((x - cx) ** 2 + (y - cy) ** 2)

        outside = [n for n in cell.neighbours() if not self.contains(n)]
        return min(outside, key=lambda n: (outward(n), n))

    def command_post_distance(self, cell: Hex, posts: Iterable[Hex]) -> int | None:
        """Return the hex distance from a cell to the nearest command post (``None`` if none).

        Command range is counted in straight hexes: clouds slow ships, not signals.
        """
        return min((cell.distance(p) for p in posts), default=None)

    def command_range(self, posts: Iterable[Hex], radius: int = COMMAND_RADIUS) -> frozenset[Hex]:
        """Return the map hexes within ``radius`` of any command post (posts may be off-map).

        Pass the result as ``allowed`` to movement queries for starships other than scouts
        (004 section 5.1: they cannot move further than 8 hexes from a Command Post). Build it
        once per player per turn; membership tests are then constant time.
        """
        covered: set[Hex] = set()
        cells = self._cells
        for q, r in set(posts):
            # The disc of `radius` round (q, r), row by row (faster than walking rings).
            for dq in range(-radius, radius + 1):
                lo, hi = max(-radius, -dq - radius), min(radius, -dq + radius)
                covered.update(c for dr in range(lo, hi + 1) if (c := Hex(q + dq, r + dr)) in cells)
        return frozenset(covered)

    def player_command_posts(self, entry: str, colonies: Iterable[Hex] = ()) -> list[Hex]:
        """Return a player's command posts: the initial off-map one plus any colony posts.

        Raises:
            KeyError: if there is no such entry.
        """
        return [self.initial_command_post(entry), *colonies]


def _pixel(cell: Hex) -> tuple[float, float]:
    """Return the centre of a flat-topped hex of unit size (for directions, not drawing)."""
    return 1.5 * cell.q, math.sqrt(3) * (cell.r + cell.q / 2)
