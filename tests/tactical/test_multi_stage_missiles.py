"""Multi-stage missiles (Project Continuum 000 6.6, optional, L6231-6297): an extra stage for a
heavy missile, a salvo missile rack or a magazine's salvos, +2 mass and twice the points; the
marker placed 16-24 MU out on the launch turn, staying if no enemy is in reach after the move,
then flown 16-24 MU within its 60° front arc in the next launch phase and homing or removed."""

from __future__ import annotations

import math

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tactical.battle import (
    Battle,
    BattleSetup,
    IllegalActionError,
    MissilesResolved,
    ShipFired,
    ShipSetup,
    Shot,
    launch_problem,
    replay,
    ships_to_fire,
)
from tactical.commanders import closing_commander, play
from tactical.designs import decode_design
from tactical.dice import ScriptedDice, SeededDice
from tactical.missiles import (
    SALVO_AIM,
    Salvo,
    first_stage_aim,
    flight_aim,
    flight_problem,
    format_aim,
    parse_aim,
)
from tactical.notation import format_position, parse_position
from tactical.points import price
from tactical.ship import PRESETS
from tactical.summary import describe_journal
from tests.tactical import extra_designs

TEST_DESIGNS = {
    "ms_boat": """
name = "MS Boat"
rules = "continuum"
provenance = "test design: multi-stage heavy missile, salvo rack and magazine loads"
mass = 80
thrust = 4
hull_strength = "average"
armour = 4
fire_controls = 2

[[systems]]
kind = "heavy_missile_ms"
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "smr_ms"
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "sml"
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "magazine_ms"
loads = 2
""",
    "hulk": """
name = "Hulk"
rules = "continuum"
provenance = "test design: a target with no defences"
mass = 40
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam1"
""",
}


@pytest.fixture(autouse=True)
def _designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


HM = "heavy_missile_ms-1"


def setup_of(blue_y: float, blue_speed: int = 0) -> BattleSetup:
    return BattleSetup(
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="ms_boat", x=0, y=0, course=12, speed=0),
            ShipSetup(
                id="b1", side="blue", design="hulk", x=0, y=blue_y, course=6, speed=blue_speed
            ),
        ),
        rules="continuum",
    )


def to_fire(battle: Battle, dice: list[int]) -> None:
    """Finish the turn, then write no orders and move, the missiles due striking, up to red's
    firing."""
    finish_turn(battle)
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice(dice))
    while battle.state.phase == "missiles":
        battle.resolve(ScriptedDice([6] * 12))
    if battle.state.to_fire == "blue":
        battle.fire("b1", [], ScriptedDice([]))


def finish_turn(battle: Battle) -> None:
    """Hold fire with every ship left to fire and end the turn, up to the next orders."""
    while battle.state.phase not in ("orders", "over"):
        if battle.state.phase == "fire":
            side = battle.state.to_fire
            assert side is not None
            battle.fire(ships_to_fire(battle.ctx, battle.state, side)[0], [], ScriptedDice([]))
        else:
            battle.resolve(ScriptedDice([6] * 12))


def test_an_extra_stage_adds_2_mass_and_doubles_the_points() -> None:
    # 000 L6233-6237: "increases the mass by 2 and doubles the points cost": a heavy missile
    # 2 mass and 6 points becomes 4 and 12, a salvo rack 4 and 12 becomes 6 and 24, and a
    # magazine's salvo 2 mass and 6 points becomes 4 and 12 (000 L16734-16741, L6066-6070).
    costing = price(decode_design(TEST_DESIGNS["ms_boat"], "ms_boat.toml"), PRESETS["continuum"])
    lines = {line.item: (line.mass, line.points) for line in costing.lines}
    assert lines["Heavy missile (multi-stage) (FP/F/FS)"] == (4, 12)
    assert lines["Salvo missile rack (multi-stage) (FP/F/FS)"] == (6, 24)
    assert next(v for k, v in lines.items() if k.startswith("Magazine (multi-stage)")) == (8, 24)
    assert costing.problems == ()


def test_the_marker_is_placed_16_to_24_mu_out_facing_away() -> None:
    # 000 L6253-6263: "placed between 16 and 24 MU from the launching ship and within the
    # normal 180° arc"; its facing "the nearest clock facing to the direction from the
    # launching ship to the missile marker".
    battle = Battle(setup_of(60))
    to_fire(battle, [6, 1])
    ctx, state = battle.ctx, battle.state
    assert "16 to 24 MU" in (launch_problem(ctx, state, "r1", HM, "0,12") or "")
    assert "beyond 24 MU" in (launch_problem(ctx, state, "r1", HM, "0,30") or "")
    assert launch_problem(ctx, state, "r1", HM, "9,18") is None
    battle.fire("r1", [Shot(HM, SALVO_AIM, "9,18")], ScriptedDice([]))
    (marker,) = battle.state.salvos
    assert (marker.stages, marker.course, marker.heavy) == (2, 1, True)  # 26.6° off: 1 o'clock
    text = format_position("continuum", battle.state)
    assert "/hm/ms1" in text
    assert parse_position(text) == ("continuum", battle.state)


def test_a_marker_with_no_enemy_in_reach_stays_and_flies_on_next_turn() -> None:
    # 000 L6267-6277: no enemy within 6 MU at the end of ship movement, "it is not removed";
    # next launch phase it is placed "anywhere from 16 to 24 MU within the 60° front arc";
    # L6289-6293: after ship movement it homes "as usual". The hulk lies 44 MU out, still.
    battle = Battle(setup_of(44))
    to_fire(battle, [6, 1])
    battle.fire("r1", [Shot(HM, SALVO_AIM, "0,20")], ScriptedDice([]))
    to_fire(battle, [6, 1])
    (marker,) = battle.state.salvos
    assert (marker.waited, marker.flown) == (2, 0)
    ident = marker.id
    assert "/ms12/w2" in format_position("continuum", battle.state)

    def refused(aim: str, why: str) -> None:
        with pytest.raises(IllegalActionError, match=why):
            battle.fire("r1", [Shot(ident, SALVO_AIM, aim)], ScriptedDice([]))

    refused("0,30", "16 to 24 MU")  # 10 MU: "at least 16 MU each turn" (L6283-6285)
    refused("0,50", "16 to 24 MU")  # 30 MU
    refused("14,36", "front arc")  # 33° off its 12 o'clock facing
    battle.fire("r1", [Shot(ident, SALVO_AIM, "0,40")], ScriptedDice([]))
    (marker,) = battle.state.salvos
    assert (marker.x, marker.y, marker.course, marker.flown) == (0, 40, 12, 2)
    text = format_position("continuum", battle.state)
    assert "/ms12/w2/f2" in text
    assert parse_position(text) == ("continuum", battle.state)

    finish_turn(battle)
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    event = battle.resolve(ScriptedDice([4, 4, 4]))  # no point defence: 3D6 on the hulk
    assert isinstance(event, MissilesResolved)
    (attack,) = event.attacks
    assert (attack.target, attack.hits, attack.faces) == ("b1", 1, (4, 4, 4))
    assert battle.state.salvos == ()
    assert any("flies" in line and ident in line for line in describe_journal(battle.journal))
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_a_marker_that_finds_nobody_after_its_second_stage_is_removed() -> None:
    # 000 L6289-6293: "or is removed if none is within 6 MU". The hulk lies 70 MU out.
    battle = Battle(setup_of(70))
    to_fire(battle, [6, 1])
    battle.fire("r1", [Shot(HM, SALVO_AIM, "0,24")], ScriptedDice([]))
    to_fire(battle, [6, 1])
    (marker,) = battle.state.salvos
    battle.fire("r1", [Shot(marker.id, SALVO_AIM, "0,48")], ScriptedDice([]))
    to_fire(battle, [6, 1])
    assert battle.state.salvos == ()


def test_a_marker_not_flown_on_is_lost() -> None:
    # 000 L6283-6285: multi-stage missiles "must always be moved at least 16 MU each turn";
    # left where it stayed, it is lost even with an enemy now in reach (docs/rulings.md).
    battle = Battle(setup_of(40, blue_speed=0))
    to_fire(battle, [6, 1])
    battle.fire("r1", [Shot(HM, SALVO_AIM, "0,20")], ScriptedDice([]))
    to_fire(battle, [6, 1])
    assert battle.state.salvos[0].waited == 2
    finish_turn(battle)
    state = battle.state
    ship = msgspec.structs.replace(state.ship("b1"), y=22.0)
    battle.state = msgspec.structs.replace(state, ships=(state.ships[0], ship))
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    event = battle.resolve(ScriptedDice([]))
    assert isinstance(event, MissilesResolved)
    assert [a.target for a in event.attacks] == [None]
    assert battle.state.salvos == ()


def test_a_marker_homes_on_the_first_turn_with_an_enemy_in_reach() -> None:
    # 000 L6267-6269: only a marker with no enemy within 6 MU stays; one that has homes at
    # once, as a single-stage missile (L5778-5786).
    battle = Battle(setup_of(22))
    to_fire(battle, [6, 1])
    battle.fire("r1", [Shot(HM, SALVO_AIM, "0,18")], ScriptedDice([]))
    finish_turn(battle)
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    event = battle.resolve(ScriptedDice([1, 2, 3] + [6] * 12))
    assert isinstance(event, MissilesResolved)
    assert [(a.target, a.faces) for a in event.attacks] == [("b1", (1, 2, 3))]


def test_multi_stage_salvos_from_a_magazine_stay_too() -> None:
    # 000 L6233-6241: "Salvo Missiles" of a multi-stage magazine are two-stage as well.
    battle = Battle(setup_of(60))
    to_fire(battle, [6, 1])
    fired = battle.fire("r1", [Shot("sml-1", SALVO_AIM, "0,24")], ScriptedDice([]))
    assert isinstance(fired, ShipFired)
    (marker,) = battle.state.salvos
    assert (marker.stages, marker.heavy) == (2, False)
    to_fire(battle, [6, 1])
    assert battle.state.salvos[0].may_fly(battle.state.turn)


def test_a_plain_marker_still_is_wasted_with_nobody_in_reach() -> None:
    # 000 L5794-5798: a regular salvo with no enemy in reach is removed, as before.
    marker = Salvo(id="r1.smr-1.t1", side="red", x=0, y=20, launched=1)
    assert not marker.stays(2)
    assert Salvo(id="m", side="red", x=0, y=20, launched=1, stages=2).stays(2)


def test_commanders_launch_and_fly_multi_stage_missiles_and_the_journal_replays() -> None:
    flown = launched = 0
    for seed in range(4):
        setup = msgspec.structs.replace(setup_of(56 + 4 * seed, blue_speed=2), turn_limit=6)
        battle = play(
            Battle(setup),
            {"red": closing_commander(), "blue": closing_commander()},
            SeededDice(seed),
        )
        shots = [s for e in battle.journal if isinstance(e, ShipFired) for s in e.shots]
        launched += sum(1 for shot in shots if shot.weapon == HM)
        flown += sum(1 for shot in shots if "." in shot.weapon)
        assert replay(setup, battle.journal) == battle.state
    assert launched
    assert flown


def test_only_the_launching_ship_flies_its_marker_and_no_firecon_is_taken() -> None:
    # The second stage is ordered in the launching ship's firing turn (docs/rulings.md,
    # "Multi-stage missiles"); the FireCons direct launches (000 L5769-5773): two launches at
    # two aim points take both of r1's FireCons, and the flight a third shot besides.
    setup = setup_of(60)
    wing = ShipSetup(id="r2", side="red", design="ms_boat", x=10, y=0, course=12, speed=0)
    setup = msgspec.structs.replace(setup, ships=(*setup.ships, wing))
    battle = Battle(setup)
    to_fire(battle, [6, 1])
    battle.fire("r1", [Shot(HM, SALVO_AIM, "0,20")], ScriptedDice([]))
    to_fire(battle, [6, 1])
    (marker,) = battle.state.salvos
    if battle.state.to_fire == "blue":
        battle.fire("b1", [], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="not launched by r2"):
        battle.fire("r2", [Shot(marker.id, SALVO_AIM, "0,40")], ScriptedDice([]))
    shots = [
        Shot(marker.id, SALVO_AIM, "0,40"),
        Shot("smr_ms-1", SALVO_AIM, "0,20"),
        Shot("sml-1", SALVO_AIM, "5,20"),
    ]
    fired = battle.fire("r1", shots, ScriptedDice([]))
    assert isinstance(fired, ShipFired)
    assert [s.y for s in battle.state.salvos if s.id == marker.id] == [40]


coordinate = st.floats(min_value=-200, max_value=200, allow_nan=False)


@given(x=coordinate, y=coordinate, course=st.integers(1, 12), tx=coordinate, ty=coordinate)
def test_the_commanders_flight_aim_is_always_a_legal_second_stage(
    x: float, y: float, course: int, tx: float, ty: float
) -> None:
    # Whatever the enemy's place, the aim the commanders write is 16-24 MU within the 60°
    # front arc (000 L6275-6285), after rounding to 0.001 MU.
    marker = Salvo(id="m", side="red", x=x, y=y, launched=1, stages=2, course=course, waited=2)
    aim = parse_aim(format_aim(*flight_aim(marker, tx, ty)))
    assert aim is not None
    assert flight_problem(marker, 2, *aim) is None
    first = first_stage_aim(x, y, tx, ty)
    assert 16 <= math.hypot(first[0] - x, first[1] - y) <= 24
