"""The StarMap graph and the movement queries, against an independent reading of 004 5.1."""

from __future__ import annotations

import heapq
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from maps.hexes import Hex, from_offset, parse_label, spiral
from maps.model import Entry, StarColour, StarSystem
from maps.starmap import COMMAND_RADIUS, MapError, StarMap
from tests.maps.strategies import legal_turn, reference_reach, small_maps

H = parse_label


def open_map(width: int = 12, height: int = 10, clouds: tuple[str, ...] = ()) -> StarMap:
    return StarMap(
        name="test",
        width=width,
        height=height,
        clouds=[H(c) for c in clouds],
        entries=[Entry("1", H("0101")), Entry("2", H(f"{width:02d}{height:02d}"))],
    )


# ---------------------------------------------------------------- the graph


def test_one_node_per_hex_cell_inserted_in_sorted_order() -> None:
    m = open_map(7, 5)
    nodes = list(m.graph.nodes)
    assert len(nodes) == 35
    assert nodes == sorted(nodes)
    assert set(nodes) == {from_offset(c, r) for c in range(7) for r in range(5)}
    edges = list(m.graph.edges)
    assert all(a < b for a, b in edges)
    assert edges == sorted(edges)
    # Cells, not corners: every edge joins adjacent cells and no cell has more than 6.
    assert all(a.distance(b) == 1 for a, b in edges)
    assert max(d for _, d in m.graph.degree) == 6
    assert m.graph.degree[H("0403")] == 6


def test_node_attributes_name_label_cloud_and_system() -> None:
    m = StarMap(
        name="t",
        width=5,
        height=5,
        clouds=[H("0303")],
        systems=[StarSystem("Sol", H("0202"), StarColour.YELLOW)],
    )
    assert m.graph.nodes[H("0303")] == {"label": "0303", "cloud": True, "system": None}
    assert m.graph.nodes[H("0202")]["system"] == "Sol"
    assert m.system("sol").hex == H("0202")
    assert m.system_at(H("0202")) is m.system("Sol")
    with pytest.raises(KeyError, match="no star system 'Vega'"):
        m.system("Vega")


# ---------------------------------------------------------------- one turn


def test_open_map_reach_is_the_disc_clipped_to_the_map() -> None:
    m = open_map()
    start = H("0605")
    reach = m.reachable(start, 3)
    assert reach == {c: start.distance(c) for c in spiral(start, 3) if m.contains(c)}


def test_a_cloud_next_to_the_start_may_be_entered_and_ends_the_move() -> None:
    # 004 section 5.1: clouds may only be entered if the movement begins next to the cloud.
    m = open_map(clouds=("0505",))
    reach = m.reachable(H("0504"), 4)
    assert reach[H("0505")] == 1
    # Nothing is reached *through* the cloud: 0506 is 2 hexes away straight through it,
    # but only by going round (also 2) - check a hex only the cloud makes short.
    path = m.path_within_turn(H("0504"), H("0505"), 4)
    assert path == (H("0504"), H("0505"))


def test_a_cloud_further_along_the_move_cannot_be_entered() -> None:
    m = open_map(clouds=("0507",))
    reach = m.reachable(H("0504"), 4)
    assert H("0507") not in reach


def test_movement_inside_a_cloud_is_one_hex_per_turn() -> None:
    m = open_map(clouds=("0505", "0506", "0507"))
    reach = m.reachable(H("0505"), 6)
    assert reach[H("0506")] == 1
    assert H("0507") not in reach


def test_ships_leave_a_cloud_at_full_speed() -> None:
    m = open_map(clouds=("0505",))
    reach = m.reachable(H("0505"), 3)
    assert reach[H("0502")] == 3
    assert max(reach.values()) == 3


def test_a_wall_of_cloud_takes_one_turn_per_hex() -> None:
    # A cloud band three hexes deep across the whole map: crossing it costs a turn to enter,
    # a turn per further cloud hex, then a turn that leaves at full speed.
    wall = tuple(f"{c:02d}{r:02d}" for c in range(1, 13) for r in (5, 6, 7))
    m = open_map(12, 12, clouds=wall)
    route = m.route(H("0604"), H("0610"), 6)
    assert route is not None
    assert route.legs == (
        (H("0605"),),
        (H("0606"),),
        (H("0607"),),
        (H("0608"), H("0609"), H("0610")),
    )
    # Starting one hex further back, the first turn can only bring the ship next to the cloud.
    route = m.route(H("0603"), H("0610"), 6)
    assert route is not None
    assert route.turns == 5
    assert route.legs[0][-1].distance(H("0605")) <= 1
    for leg in route.legs:
        if any(m.is_cloud(c) for c in leg):
            assert len(leg) == 1


@settings(max_examples=150, deadline=None)
@given(small_maps(), st.data())
def test_reach_matches_brute_force_enumeration(
    shape: tuple[int, int, frozenset[Hex]], data: st.DataObject
) -> None:
    width, height, clouds = shape
    m = StarMap(name="p", width=width, height=height, clouds=clouds)
    cells = frozenset(m.cells())
    start = data.draw(st.sampled_from(sorted(cells)))
    speed = data.draw(st.integers(min_value=0, max_value=3))
    reach = m.reachable(start, speed)
    assert reach == reference_reach(start, speed, cells, clouds)
    for end in reach:
        path = m.path_within_turn(start, end, speed)
        assert path is not None
        assert legal_turn(path, clouds, speed)
        assert len(path) - 1 == reach[end]


@settings(max_examples=150, deadline=None)
@given(small_maps(), st.data())
def test_routes_never_enter_a_cloud_illegally_and_take_fewest_turns(
    shape: tuple[int, int, frozenset[Hex]], data: st.DataObject
) -> None:
    width, height, clouds = shape
    m = StarMap(name="p", width=width, height=height, clouds=clouds)
    cells = frozenset(m.cells())
    start = data.draw(st.sampled_from(sorted(cells)))
    goal = data.draw(st.sampled_from(sorted(cells)))
    speed = data.draw(st.integers(min_value=1, max_value=3))
    route = m.route(start, goal, speed)
    assert route is not None  # clouds slow ships but never wall them in
    assert route.hexes[0] == start
    assert route.hexes[-1] == goal
    here = start
    for leg in route.legs:
        assert legal_turn((here, *leg), clouds, speed)
        here = leg[-1]
    # Fewest turns, then fewest hexes: Dijkstra over turn starts with the reference reach.
    best = {start: (0, 0)}
    heap = [(0, 0, start)]
    while heap:
        turns, hexes, here = heapq.heappop(heap)
        if (turns, hexes) > best[here]:
            continue
        for end, steps in reference_reach(here, speed, cells, clouds).items():
            cost = (turns + 1, hexes + steps)
            if end != here and cost < best.get(end, (1_000, 0)):
                best[end] = cost
                heapq.heappush(heap, (*cost, end))
    assert (route.turns, route.length) == best[goal]


def test_routes_are_reproducible_whatever_the_input_order() -> None:
    cells = [f"{c:02d}{r:02d}" for c in range(3, 9) for r in range(4, 7)]
    rng = random.Random(5)
    shuffled = cells[:]
    rng.shuffle(shuffled)
    a = open_map(14, 12, clouds=tuple(cells))
    b = open_map(14, 12, clouds=tuple(shuffled))
    ra = a.route(H("0101"), H("1412"), 3)
    rb = b.route(H("0101"), H("1412"), 3)
    assert ra == rb
    assert ra == a.route(H("0101"), H("1412"), 3)


def test_route_to_itself_and_off_the_map() -> None:
    m = open_map()
    assert m.route(H("0303"), H("0303"), 2) is not None
    assert m.route(H("0303"), H("0303"), 2).turns == 0  # type: ignore[union-attr]
    assert m.route(H("0303"), H("9999"), 2) is None
    with pytest.raises(ValueError, match="not on map"):
        m.reachable(H("9999"), 2)
    with pytest.raises(ValueError, match="speed must be >= 0"):
        m.reachable(H("0303"), -1)


# ---------------------------------------------------------------- entry and command posts


def test_the_entry_hex_is_the_first_hex_of_movement() -> None:
    m = open_map(clouds=("0202",))
    reach = m.reachable_from_entry("1", 2)
    assert reach[H("0101")] == 1
    # 004 section 5.1: the move began off the map, so not next to the cloud at 0202.
    assert H("0202") not in reach
    assert set(reach) == {H("0101"), H("0102"), H("0201")}
    route = m.route_from_entry("1", H("0105"), 2)
    assert route is not None
    assert route.start == m.initial_command_post("1")
    assert route.legs[0][0] == H("0101")
    assert route.turns == 3  # 5 hexes (entry included) at 2 a turn


def test_initial_command_post_is_just_off_the_map_by_the_entry_hex() -> None:
    m = open_map()
    for entry in m.entries:
        post = m.initial_command_post(entry.name)
        assert not m.contains(post)
        assert post.distance(entry.hex) == 1
    with pytest.raises(KeyError, match="no entry 'x'"):
        m.initial_command_post("x")


def test_command_range_limits_starship_moves() -> None:
    # 004 section 5.1: starships other than scouts stay within 8 hexes of a command post.
    m = open_map(20, 20)
    posts = m.player_command_posts("1")
    covered = m.command_range(posts)
    assert covered == {c for c in m.cells() if m.command_post_distance(c, posts) <= COMMAND_RADIUS}  # type: ignore[operator]
    edge = next(c for c in covered if m.command_post_distance(c, posts) == COMMAND_RADIUS)
    reach = m.reachable(edge, 3, allowed=covered)
    assert all(m.command_post_distance(c, posts) <= COMMAND_RADIUS for c in reach)  # type: ignore[operator]
    assert len(reach) < len(m.reachable(edge, 3))
    # A colony adds a post.
    far = H("1515")
    assert far not in covered
    assert far in m.command_range([*posts, H("1414")])
    assert m.command_post_distance(far, []) is None


# ---------------------------------------------------------------- validation


def test_bad_maps_list_every_problem_with_its_place() -> None:
    with pytest.raises(MapError) as caught:
        StarMap(
            name="bad",
            width=6,
            height=6,
            clouds=[H("0303"), H("0909")],
            systems=[
                StarSystem("A", H("0303"), StarColour.RED),
                StarSystem("a", H("0404"), StarColour.RED),
                StarSystem("B", H("0404"), StarColour.RED),
            ],
            entries=[Entry("1", H("0303"))],
        )
    text = str(caught.value)
    assert "hex 0909 is off the map - at `$.clouds[1]`" in text
    assert "hex 0303 is a cloud - at `$.systems[0].hex`" in text
    assert "'a' is already system 0 - at `$.systems[1].name`" in text
    assert "hex 0404 already holds 'a' - at `$.systems[2].hex`" in text
    assert "not on the map edge" in text
    assert len(caught.value.problems) == 5


def test_maps_must_fit_the_labels() -> None:
    with pytest.raises(MapError, match=r"must be 1\.\.99, got 100"):
        StarMap(name="big", width=100, height=5)


def test_equal_maps_compare_equal() -> None:
    assert open_map() == open_map()
    assert open_map() != open_map(clouds=("0505",))
    assert hash(open_map()) == hash(open_map())


@settings(max_examples=100, deadline=None)
@given(small_maps(), st.data())
def test_routes_from_an_entry_hex_obey_first_turn_entry(
    shape: tuple[int, int, frozenset[Hex]], data: st.DataObject
) -> None:
    width, height, clouds = shape
    cells = frozenset(from_offset(c, r) for c in range(width) for r in range(height))
    edge = sorted(c for c in cells - clouds if any(n not in cells for n in c.neighbours()))
    assume(edge)
    entry = data.draw(st.sampled_from(edge))
    m = StarMap(name="p", width=width, height=height, clouds=clouds, entries=[Entry("1", entry)])
    goal = data.draw(st.sampled_from(sorted(cells)))
    speed = data.draw(st.integers(min_value=1, max_value=3))
    route = m.route_from_entry("1", goal, speed)
    assert route is not None
    assert route.start == m.initial_command_post("1")
    assert route.legs[0][0] == entry
    # 004 section 5.1: the entry hex is the first hex of movement; the move began off the map,
    # so no cloud on turn one.
    assert len(route.legs[0]) <= speed
    assert not any(c in clouds for c in route.legs[0])
    here = route.legs[0][-1]
    for leg in route.legs[1:]:
        assert legal_turn((here, *leg), clouds, speed)
        here = leg[-1]
    assert here == goal
    # Fewest turns then hexes, against the reference: turn one ends anywhere the reference
    # reaches from the entry with speed - 1 hexes, clouds excluded.
    first = {
        end: (1, steps + 1)
        for end, steps in reference_reach(entry, speed - 1, cells, clouds).items()
        if end not in clouds
    }
    best = dict(first)
    heap = [(*cost, end) for end, cost in first.items()]
    heapq.heapify(heap)
    while heap:
        turns, hexes, here = heapq.heappop(heap)
        if (turns, hexes) > best[here]:
            continue
        for end, steps in reference_reach(here, speed, cells, clouds).items():
            cost = (turns + 1, hexes + steps)
            if end != here and cost < best.get(end, (1_000, 0)):
                best[end] = cost
                heapq.heappush(heap, (*cost, end))
    assert (route.turns, route.length) == best[goal]


# ---------------------------------------------------------------- shared geometry (issue 19)


def test_maps_of_one_size_share_their_cells_and_adjacency() -> None:
    """Issue 19: the cells of a map never change, so every map of a size shares one grid;
    the graph is only built for whoever asks, and is the same graph as before."""
    a, b = open_map(9, 7), open_map(9, 7, clouds=("0505",))
    assert a._adj is b._adj
    assert a._cells is b._cells
    assert list(a.cells()) == sorted(a.cells())
    assert "graph" not in a.__dict__  # not built until asked for
    assert all(tuple(sorted(a.graph.adj[c])) == a._adj[c] for c in a.cells())


def test_a_reach_works_out_who_is_next_to_whom_only_around_it() -> None:
    """Issue 19: one unit's reach on a big map (a 600-star map has 7,821 cells) works out the
    neighbours of the cells it crosses, not of every cell; each is what the whole map's
    adjacency says, and a cell off the map is no key."""
    big = open_map(83, 67)  # a size no other test uses: a grid of its own
    reach = big.reachable(H("4030"), 3)
    assert len(reach) == 37
    assert 0 < len(big._adj) < 100
    cells = set(big.cells())
    assert all(big._adj[c] == tuple(n for n in c.neighbours() if n in cells) for c in reach)
    with pytest.raises(KeyError):
        big._adj[Hex(-50, -50)]


def test_a_view_with_planets_carries_only_its_own_planets() -> None:
    """Issue 19: a player's map is a view over the shared chart: his planets, nobody else's;
    neither the chart nor another view ever holds them."""
    from maps.model import Planet, PlanetType

    chart = StarMap(
        name="c",
        width=8,
        height=8,
        systems=[
            StarSystem("Sol", H("0202"), StarColour.YELLOW),
            StarSystem("Vega", H("0505"), StarColour.WHITE),
        ],
    )
    red_planets = (Planet(1, PlanetType.TERRAN, 60, False),)
    blue_planets = (Planet(2, PlanetType.BARREN, 5, True),)
    red = chart.with_planets({"Sol": red_planets})
    _ = red.graph  # a view's graph is its own
    blue = chart.with_planets({"Vega": blue_planets})
    assert red.system("Sol").planets == red_planets
    assert red.system("Vega").planets == ()
    assert blue.system("Sol").planets == ()
    assert blue.system("Vega").planets == blue_planets
    assert blue.system_at(H("0202")) is blue.system("Sol")
    assert all(s.planets == () for s in chart.systems)
    assert "graph" not in blue.__dict__
    assert "graph" not in chart.__dict__
    assert red._adj is chart._adj is blue._adj
    assert red != blue != chart
