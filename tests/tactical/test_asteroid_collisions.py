"""Asteroids blocking sensors (001 L1090; 000 L17826-17842) and collisions with asteroids
(001 L1092-1108; 000 17.6, L18059-18153): a line of sight across an asteroid's base reveals no
bogey, passive or active, and a ship whose move crosses a base rolls a D6 needing its velocity
less its thrust, or is destroyed."""

from __future__ import annotations

from typing import Literal

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tactical.asteroids import asteroids_crossed, avoid_need, drift_legs, evades, needs_die
from tactical.battle import (
    AsteroidMet,
    Battle,
    BattleSetup,
    BattleState,
    ShipSetup,
    ShipsMoved,
    Shot,
    Theatre,
    replay,
)
from tactical.campaign_battle import resolve_campaign_battle
from tactical.commanders import (
    Commander,
    closing_commander,
    engage_commander,
    play,
    with_asteroids,
)
from tactical.dice import ScriptedDice, SeededDice
from tactical.movement import Order, parse_order
from tactical.summary import describe
from tests.tactical.test_asteroids import _request

# --- collisions: the numbers -------------------------------------------------------------


def test_the_worked_example() -> None:
    """001 L1096, L1104 (000 L18128-18137): a cruiser with thrust 4 at velocity 9 needs 5;
    a 5 or 6 evades, 4 or less is "exit one Cruiser"."""
    need = avoid_need(velocity=9, thrust=4)
    assert need == 5
    assert [evades(face=face, need=need) for face in range(1, 7)] == [False] * 4 + [True] * 2


@pytest.mark.parametrize(
    ("velocity", "thrust", "die", "safe"),
    [
        (5, 4, False, True),  # needs 1: avoids it automatically (001 L1106)
        (2, 6, False, True),  # needs -4: likewise
        (6, 4, True, None),  # needs 2: roll
        (10, 4, True, None),  # needs 6: roll
        (11, 4, False, False),  # needs 7: "a crash is inevitable" (001 L1106)
    ],
)
def test_automatic_and_inevitable(velocity: int, thrust: int, die: bool, safe: bool | None) -> None:
    need = avoid_need(velocity=velocity, thrust=thrust)
    assert needs_die(need) is die
    if safe is not None:
        assert evades(face=None, need=need) is safe


# --- collisions: the path ---------------------------------------------------------------


def test_both_legs_of_a_cinematic_move_count() -> None:
    """001 L1092: "If ANY part of the ship's movement causes it to intersect with an
    Asteroid". A move up 10 MU, turning at mid-move and then 10 MU along +x, passes 0.71 MU
    from an asteroid at (0.5, 10.5), on its turning point; the straight line from start to end
    passes 7 MU from it."""
    legs = ((0.0, 0.0), (0.0, 10.0), (10.0, 10.0))
    assert asteroids_crossed(legs, [(0.5, 10.5)]) == [0]
    assert asteroids_crossed((legs[0], legs[2]), [(0.5, 10.5)]) == []


def test_grazing_the_rim_is_no_collision() -> None:
    """The same geometry as a blocked line (001 L1082): strictly inside the base."""
    path = ((0.0, 0.0), (0.0, 5.0), (0.0, 10.0))
    assert asteroids_crossed(path, [(1.0, 5.0)]) == []
    assert asteroids_crossed(path, [(0.999, 5.0)]) == [0]
    assert asteroids_crossed(path, [(0.0, 11.5)]) == []  # beyond the end of the move


def test_asteroids_in_the_order_met() -> None:
    path = ((0.0, 0.0), (0.0, 5.0), (0.0, 10.0))
    assert asteroids_crossed(path, [(0.0, 8.0), (0.5, 2.0), (9.0, 9.0)]) == [1, 0]


# --- collisions in a battle ------------------------------------------------------------


def _run(
    asteroid: tuple[float, float],
    *,
    speed: int = 9,
    order: Order | None = None,
    movement: Literal["cinematic", "vector"] = "cinematic",
    design: str = "heavy_cruiser",
    faces: tuple[int, ...] = (),
) -> tuple[Battle, ShipsMoved]:
    """An FT2 ship (heavy cruiser: thrust 4) starts at (0, 0) heading +y at ``speed``; its
    enemy sits far off. One movement step with these dice faces first."""
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="ft2",
        ships=(
            ShipSetup(id="r1", side="red", design=design, x=0, y=0, course=12, speed=speed),
            ShipSetup(id="b1", side="blue", design="frigate", x=40, y=60, course=6, speed=0),
        ),
        theatre=Theatre(asteroids=(asteroid,)),
        movement=movement,
    )
    battle = Battle(setup)
    battle.write_orders("red", {} if order is None else {"r1": order})
    battle.write_orders("blue", {})
    event = battle.resolve(ScriptedDice((*faces, 6, 1, 6, 1)))
    assert isinstance(event, ShipsMoved)
    assert all(m.void is None for m in event.moves)
    return battle, event


@pytest.mark.parametrize(("face", "crashed"), [(4, True), (5, False), (6, False)])
def test_the_cruiser_at_velocity_nine(face: int, crashed: bool) -> None:
    """001 L1096-1108: thrust 4, velocity 9, its course through an asteroid at (0, 5): a 5 or
    6 evades; on a 4 the ship is completely destroyed. The die is in the journal."""
    battle, event = _run((0.0, 5.0), faces=(face,))
    assert event.asteroids == (
        AsteroidMet(
            ship="r1", x=0.0, y=5.0, velocity=9.0, thrust=4, need=5, face=face, crashed=crashed
        ),
    )
    assert event.rolls[0].key == "t1/asteroid/r1/0"
    assert battle.state.ship("r1").status == ("destroyed" if crashed else "active")
    # the journal replays to the same state without a die
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    line = "r1 crosses the asteroid at 0,5: velocity 9 less thrust 4, needs 5"
    assert any(line in text for text in describe(event))


def test_slow_enough_to_avoid_it() -> None:
    """001 L1106: needed 1 or less, the ship evades automatically: no die is rolled."""
    battle, event = _run((0.0, 3.0), speed=5)
    assert event.asteroids == (
        AsteroidMet(ship="r1", x=0.0, y=3.0, velocity=5.0, thrust=4, need=1),
    )
    assert not any(r.key.startswith("t1/asteroid") for r in event.rolls)
    assert battle.state.ship("r1").status == "active"


def test_too_fast_to_avoid_it() -> None:
    """001 L1106, L1108: needed more than 6, the crash is inevitable, with no die."""
    battle, event = _run((0.0, 5.0), speed=11)
    assert event.asteroids == (
        AsteroidMet(ship="r1", x=0.0, y=5.0, velocity=11.0, thrust=4, need=7, crashed=True),
    )
    assert battle.state.ship("r1").status == "destroyed"
    assert any("destroyed" in text for text in describe(event))


def test_the_velocity_is_the_new_one() -> None:
    """001 L366: the ship moves at this turn's new velocity; at 9 + 2 = 11 it needs 7."""
    _battle, event = _run((0.0, 5.0), speed=9, order=Order(accel=2))
    assert event.asteroids[0].velocity == 11.0
    assert event.asteroids[0].crashed


def test_a_path_clear_of_the_asteroid() -> None:
    _battle, event = _run((1.0, 5.0), faces=())  # the rim: grazing
    assert event.asteroids == ()


def test_the_second_leg_of_a_turning_move() -> None:
    """Cinematic: the turn at mid-move (001 L346-358), then the rest of the move; an asteroid
    on the second leg only. Heavy cruiser, speed 8, turning 2 points to starboard: 4 MU at
    course 1, then 4 MU at course 2, ending near (5.46, 5.46)."""
    battle, event = _run((4.5, 5.0), speed=8, order=Order(turn=2), faces=(4,))
    moved = event.moves[0]
    assert (moved.x, moved.y) == pytest.approx((5.464, 5.464), abs=0.001)
    assert [m.need for m in event.asteroids] == [4]
    assert battle.state.ship("r1").status == "active"


def test_vector_movement_uses_the_straight_line() -> None:
    """000 L13828-13850: under vector movement the risk is only on the line between the
    ship's starting and final positions. A frigate (thrust 6) drifting 10 MU up +y, then
    rotating to course 3 and burning 3 MU, ends at (3, 10): an asteroid by its drift point
    (0, 10) is clear of that line; one on the line is met."""
    order = parse_order("TS3.MD3")
    _battle, event = _run((-0.5, 10.5), speed=10, order=order, movement="vector", design="frigate")
    assert (event.moves[0].x, event.moves[0].y) == (3.0, 10.0)
    assert event.asteroids == ()
    _battle, event = _run((1.5, 5.0), speed=10, order=order, movement="vector", design="frigate")
    # velocity sqrt(109) = 10.44, 10 after rounding (000 L13411-13986), less thrust 6: 4
    assert [(m.velocity, m.need) for m in event.asteroids] == [(10.0, 4)]


def test_seeded_collisions_replay() -> None:
    battle, _event = _run((0.0, 5.0), faces=())
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    battle = Battle(battle.ctx.setup)
    battle.write_orders("red", {})
    battle.write_orders("blue", {})
    battle.resolve(SeededDice(3))
    assert replay(battle.ctx.setup, battle.journal) == battle.state


# --- sensors ---------------------------------------------------------------------------


def _sensing(
    asteroid: tuple[float, float], *ships: ShipSetup, scan: bool = False
) -> tuple[BattleState, BattleState]:
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=ships,
        bogeys=True,
        theatre=Theatre(asteroids=(asteroid,)),
    )
    battle = Battle(setup)
    start = battle.state
    battle.write_orders("red", {"r1": Order(scan=True)} if scan else {})
    battle.write_orders("blue", {})
    battle.resolve(SeededDice(1))
    return start, battle.state


def _at(sid: str, side: str, x: float, y: float) -> ShipSetup:
    return ShipSetup(id=sid, side=side, design="frigate", x=x, y=y, course=12, speed=0)


def _hidden(state: BattleState) -> set[str]:
    return {s.id for s in state.ships if s.bogey is not None}


@pytest.mark.parametrize(("asteroid", "hidden"), [((0.0, 15.0), True), ((3.0, 15.0), False)])
def test_hidden_behind_an_asteroid_at_the_start(
    asteroid: tuple[float, float], hidden: bool
) -> None:
    """001 L1090: "At the start of the game, some ships may be 'hidden' behind bodies in an
    asteroid field": 30 MU apart, well within 36", but an asteroid on the line between."""
    start, after = _sensing(asteroid, _at("r1", "red", 0, 0), _at("b1", "blue", 0, 30))
    assert _hidden(start) == ({"r1", "b1"} if hidden else set())
    assert _hidden(after) == _hidden(start)  # nothing moved: still blocked


def test_another_ship_with_a_clear_line_sees_it() -> None:
    """001 L1090: revealed once an enemy ship in range "can get a clear line-of-sight". r2 at
    (10, 0) sees b1 at (0, 30) past the asteroid (4.7 MU clear of the line), and b1 sees r2;
    r1 stays hidden from b1 behind the asteroid."""
    start, _after = _sensing(
        (0.0, 15.0), _at("r1", "red", 0, 0), _at("r2", "red", 10, 0), _at("b1", "blue", 0, 30)
    )
    assert _hidden(start) == {"r1"}


@pytest.mark.parametrize(("asteroid", "found"), [((0.0, 20.0), False), ((3.0, 20.0), True)])
def test_an_active_scan_is_blocked_too(asteroid: tuple[float, float], found: bool) -> None:
    """001 L1090: the blocking "applies equally to Active scan attempts as to Passive" (000
    L17838-17842): a scan to 54" (001 L949) finds no bogey behind an asteroid."""
    start, after = _sensing(asteroid, _at("r1", "red", 0, 0), _at("b1", "blue", 0, 45), scan=True)
    assert _hidden(start) == {"r1", "b1"}
    assert "r1" not in _hidden(after)  # the scan gives the scanner away (001 L949)
    assert ("b1" not in _hidden(after)) is found


# --- the commanders ----------------------------------------------------------------------


def test_the_closing_commander_steers_round_an_asteroid() -> None:
    """The closing commander would fly r1 straight at b1 at velocity 9 through an asteroid
    (thrust 4: needs 5, 001 L1104); the asteroid doctrine takes the order that crosses no
    asteroid and ends nearest, so the move meets none."""
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="ft2",
        ships=(
            ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12, speed=9),
            ShipSetup(id="b1", side="blue", design="frigate", x=0, y=60, course=6, speed=0),
        ),
        theatre=Theatre(asteroids=((0.0, 5.0),)),
    )
    bare = Battle(msgspec.structs.replace(setup, theatre=Theatre()))
    battle = Battle(setup)
    commander = closing_commander(cruise=9)
    assert commander.orders(bare.ctx, bare.state, "red")["r1"] == Order()  # straight on
    order = commander.orders(battle.ctx, battle.state, "red")["r1"]
    assert order != Order()
    battle.write_orders("red", {"r1": order})
    battle.write_orders("blue", {})
    event = battle.resolve(SeededDice(1))
    assert isinstance(event, ShipsMoved)
    assert event.asteroids == ()


def test_order_commanders_take_no_asteroid_risk() -> None:
    """Campaign battles in asteroid fields (Engage, Stand Off): no ship of the order
    commanders rolls for, or crashes into, an asteroid."""
    for seed in range(8):
        outcome = resolve_campaign_battle(_request(seed), SeededDice(seed))
        for event in outcome.journal:
            if isinstance(event, ShipsMoved):
                assert all(m.face is None and not m.crashed for m in event.asteroids)


# --- moving asteroids that sweep (000 17.6, L18073-18101) ------------------------------


def test_a_drift_across_the_edge_is_two_legs() -> None:
    """004 L180-181: an asteroid leaving one side comes back on the opposite; across a corner
    it is three legs, each inside the field."""
    field = (0.0, 0.0, 10.0, 10.0)
    assert drift_legs((9.0, 9.0), (2.0, 4.0), field) == [
        ((9.0, 9.0), (9.5, 10.0)),  # out across the top at a quarter of the drift,
        ((9.5, 0.0), (10.0, 1.0)),  # back in at the bottom, out across the right at half
        ((0.0, 1.0), (1.0, 3.0)),  # and back in on the left
    ]
    assert drift_legs((1.0, 5.0), (-3.0, 0.0), field) == [
        ((1.0, 5.0), (0.0, 5.0)),
        ((10.0, 5.0), (8.0, 5.0)),
    ]


class _Keyed:
    """Dice showing ``faces`` for named keys and 1 for any other."""

    def __init__(self, faces: dict[str, int]) -> None:
        self.faces = faces

    def roll(self, key: str, sides: int) -> int:
        return self.faces.get(key, 1)


def _two_turns(
    motion: Literal["jump", "sweep"], asteroid: tuple[float, float], faces: dict[str, int]
) -> tuple[Battle, list[AsteroidMet]]:
    """r1 (heavy cruiser, thrust 4) flies up +y at 9 for two turns, drifting on; the asteroid
    drifts 3 MU to +x at the end of turn 1. Every ship holds its fire."""
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="ft2",
        turn_limit=2,
        ships=(
            ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12, speed=9),
            ShipSetup(id="b1", side="blue", design="frigate", x=40, y=-40, course=6, speed=0),
        ),
        theatre=Theatre(
            asteroids=(asteroid,),
            drift=(3.0, 0.0),
            field=(-50.0, -50.0, 50.0, 50.0),
            asteroid_motion=motion,
        ),
    )

    def hold_fire(_ctx: object, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        return next(s.id for s in state.ships if s.side == side and not s.fired), []

    drifting = Commander(orders=lambda _ctx, _state, _side: {}, fire=hold_fire)  # type: ignore[arg-type]
    battle = play(Battle(setup), {"red": drifting, "blue": drifting}, _Keyed(faces))
    met = [m for e in battle.journal if isinstance(e, ShipsMoved) for m in e.asteroids]
    return battle, met


@pytest.mark.parametrize(("face", "status"), [(4, "destroyed"), (5, "active")])
def test_the_drift_sweeps_over_a_ship(face: int, status: str) -> None:
    """000 L18077-18083: "The movement path of the asteroid brings it into contact with a
    ship at any point (this is before the ship itself has moved)". r1 ends turn 1 at (0, 9);
    the asteroid drifts from (-3, 9) onto it. At the start of turn 2 r1 rolls with its
    velocity 9 less thrust 4: needs 5 (000 L18116-18137)."""
    battle, met = _two_turns("sweep", (-3.0, 9.0), {"t2/asteroid-sweep/r1/0": face})
    assert met == [
        AsteroidMet(
            ship="r1",
            x=0.0,
            y=9.0,
            velocity=9.0,
            thrust=4,
            need=5,
            face=face,
            crashed=status == "destroyed",
            swept=True,
        )
    ]
    ship = battle.state.ship("r1")
    assert ship.status == status
    assert (ship.x, ship.y) == ((0.0, 9.0) if status == "destroyed" else (0.0, 18.0))
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    assert any(
        "drifting to 0,9 sweeps over r1" in text for e in battle.journal for text in describe(e)
    )


def test_under_jump_the_ship_rolls_as_it_moves_off() -> None:
    """The default ``jump``: the drift sweeps no ship; r1, left inside the base, crosses it as
    it moves on in turn 2 and rolls then (see docs/rulings.md)."""
    _battle, met = _two_turns("jump", (-3.0, 9.0), {"t2/asteroid/r1/0": 6})
    assert [(m.swept, m.need, m.face) for m in met] == [(False, 5, 6)]


def test_paths_that_merely_cross_are_safe() -> None:
    """000 L18093-18095: "Collisions do not occur if the movement paths of the asteroid and
    ship merely cross": r1's first move runs through the asteroid at (0, 5), which drifts on
    to (3, 5); nothing is rolled. Under ``jump`` the same move rolls (001 L1092)."""
    _battle, met = _two_turns("sweep", (0.0, 5.0), {})
    assert met == []
    _battle, met = _two_turns("jump", (0.0, 5.0), {})
    assert [m.ship for m in met] == ["r1"]


def test_ending_inside_a_moving_asteroid() -> None:
    """000 L18087-18089: "The final position of a ship after making its move is inside the
    asteroid": r1 ends turn 1 at (0, 9), 0.5 MU from the asteroid's centre."""
    _battle, met = _two_turns("sweep", (0.5, 9.0), {"t1/asteroid/r1/0": 6})
    assert [(m.swept, m.x, m.y, m.face) for m in met][:1] == [(False, 0.5, 9.0, 6)]


def test_commanders_take_no_risk_of_sweeping_asteroids() -> None:
    """Campaign asteroid-field battles replayed with ``asteroid_motion = "sweep"`` and the
    Engage commanders: no ship rolls for, or crashes into, an asteroid, and the journal
    replays."""
    for seed in range(4):
        setup = resolve_campaign_battle(_request(seed), SeededDice(seed)).setup
        assert setup.theatre is not None
        theatre = msgspec.structs.replace(setup.theatre, asteroid_motion="sweep")
        setup = msgspec.structs.replace(setup, theatre=theatre)
        commanders = {side: engage_commander() for side in setup.sides}
        battle = play(Battle(setup), commanders, SeededDice(seed))
        for event in battle.journal:
            if isinstance(event, ShipsMoved):
                assert all(m.face is None and not m.crashed for m in event.asteroids)
        assert replay(setup, battle.journal) == battle.state


# --- the doctrine keeps a way out (001 L1106) ------------------------------------------


def _reckless(_ctx: object, state: BattleState, side: str) -> dict[str, Order]:
    """Every ship burns its whole drive (a frigate's 6) straight ahead, every turn."""
    return {s.id: parse_order("MD6") for s in state.ships if s.side == side}


def _hold_fire(_ctx: object, state: BattleState, side: str) -> tuple[str, list[Shot]]:
    return next(s.id for s in state.ships if s.side == side and not s.fired), []


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wall=st.integers(40, 160), offset=st.integers(-3, 3), drift=st.integers(-1, 1))
def test_the_doctrine_never_lets_a_ship_outrun_its_brakes(
    wall: int, offset: int, drift: int
) -> None:
    """A vector frigate (thrust 6) whose orders burn its whole drive ahead every turn flies
    at a wall of asteroids across its way, ``wall`` MU off, drifting ``drift`` MU a turn
    along it; under the asteroid doctrine it never rolls for, nor crashes into, one. Taking
    only this turn's safe orders it would soon fly too fast to stop short of the wall, or to
    slow below the 7 at which it meets one without a roll (001 L1106): the doctrine keeps it
    slow enough to."""
    rocks = tuple((offset + 1.8 * i, float(wall)) for i in range(-25, 26))
    setup = BattleSetup(
        sides=("red", "blue"),
        turn_limit=8,
        movement="vector",
        ships=(
            ShipSetup(id="r1", side="red", design="frigate", x=0, y=0, course=12, speed=0),
            ShipSetup(id="b1", side="blue", design="frigate", x=-80, y=0, course=6, speed=0),
        ),
        theatre=Theatre(
            asteroids=rocks, drift=(float(drift), 0.0), field=(-100.0, -300.0, 300.0, 300.0)
        ),
    )
    pilot = Commander(orders=with_asteroids(_reckless), fire=_hold_fire)  # type: ignore[arg-type]
    still = Commander(orders=lambda _ctx, _state, _side: {}, fire=_hold_fire)  # type: ignore[arg-type]
    battle = play(Battle(setup), {"red": pilot, "blue": still}, SeededDice(1))
    met = [m for e in battle.journal if isinstance(e, ShipsMoved) for m in e.asteroids]
    assert battle.state.turn == setup.turn_limit  # no crash ended the battle early
    assert all(m.face is None and not m.crashed for m in met)


def test_with_no_safe_order_the_least_risky() -> None:
    """A heavy cruiser (thrust 4) at speed 11, 3 MU short of a wall of asteroids it cannot
    miss: straight on it needs 7, a certain crash (001 L1106); slowed by its whole thrust to
    7 it needs 3, and rolls for the one asteroid in its way. The doctrine takes that."""
    rocks = tuple((1.8 * i, 3.0) for i in range(-25, 26))
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="ft2",
        ships=(
            ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12, speed=11),
            ShipSetup(id="b1", side="blue", design="frigate", x=-80, y=0, course=6, speed=0),
        ),
        theatre=Theatre(asteroids=rocks),
    )
    battle = Battle(setup)
    straight_on = with_asteroids(lambda _ctx, _state, _side: {"r1": Order()})
    assert straight_on(battle.ctx, battle.state, "red") == {"r1": Order(accel=-4)}
