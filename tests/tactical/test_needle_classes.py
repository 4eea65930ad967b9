"""Continuum's class-N needle beams NB-2 to NB-4 (000 5.13, L4473-4610), from the rule text.

Range bands of 12 MU "like all other beam weapons", larger mounts rolling extra dice close in
(L4570-4574): NB-N rolls N dice to 12 MU and one fewer a band. Each die of 4+ does a point, a
natural 6 a point and destroys the targeted system (L4574-4580), for good (L4582-4590); screens
do not apply (L4558-4560). Beyond 12 MU the ship needs Enhanced Sensors, beyond 24 MU Superior
Sensors or two Enhanced (L4517-4523), and the sensors focus the needles on one enemy ship's
system a turn (L4525-4529). A FireCon for every needle target, shared by the needles at it and
by the other weapons at the same ship (L4546-4554). 3 points per mass; NB-2, NB-3 and NB-4 are
4, 8 and 16 mass on one arc, +2, +4 and +8 per additional arc, 3 arcs at most (L4594-4610,
L16355-16361). NB-1 stays FB1's one-die ``needle`` (index 5.13, Ambiguity 28).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from tactical.battle import (
    NEEDLES,
    Battle,
    BattleSetup,
    IllegalActionError,
    ShipFired,
    ShipSetup,
    Shot,
    ShotRoll,
    fire_options,
    firecons_needed,
    needle_focus_problem,
    replay,
    sides_to_write,
)
from tactical.commanders import engage_commander, play, random_commander
from tactical.designs import decode_design
from tactical.dice import ScriptedDice, SeededDice
from tactical.fire import BEAM_DAMAGE, NEEDLE_STRENGTH, needle_dice, needle_sight
from tactical.points import PC_SYSTEMS, price
from tactical.ship import PRESETS, Design, with_system_status
from tests.tactical import extra_designs

NB2, NB3, NB4 = "needle2-1", "needle3-1", "needle4-1"

_SHIP = """
name = "Needle Test Ship"
rules = "continuum"
provenance = "test design: NB-2, NB-3 and NB-4 and a Beam-2 fore"
mass = 80
thrust = 2
hull_strength = "average"
fire_controls = 2

[[systems]]
kind = "needle2"
arcs = ["F"]

[[systems]]
kind = "needle3"
arcs = ["F"]

[[systems]]
kind = "needle4"
arcs = ["F"]

[[systems]]
kind = "beam2"
arcs = ["F"]
"""


def _sensors(*kinds: str) -> str:
    return _SHIP + "".join(f'\n[[systems]]\nkind = "{kind}"\n' for kind in kinds)


# Test designs, kept out of the built-in catalogue (and so out of its golden listing). Each
# sensor fit has a name of its own, since record sheets are cached by design name.
TEST_DESIGNS = {
    "needle_test_ship": _SHIP,
    "needle_test_ship_enhanced": _sensors("enhanced_sensors"),
    "needle_test_ship_two_enhanced": _sensors("enhanced_sensors", "enhanced_sensors"),
    "needle_test_ship_superior": _sensors("superior_sensors"),
    "needle_screened_target": """
name = "Needle Screened Target"
rules = "continuum"
provenance = "test design: level-2 screens and 2 armour boxes"
mass = 50
thrust = 2
hull_strength = "average"
armour = 2
screens = 2
fire_controls = 1
""",
}


def _design(name: str) -> Design:
    return extra_designs.design_of(TEST_DESIGNS, name)


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def _setup(*targets: tuple[str, float], firer: str = "needle_test_ship") -> BattleSetup:
    ships = [ShipSetup(id="r1", side="red", design=firer, x=0, y=0, course=12, speed=0)]
    ships += [
        ShipSetup(id=i, side="blue", design="needle_screened_target", x=0, y=y, course=6, speed=0)
        for i, y in targets
    ]
    return BattleSetup(sides=("red", "blue"), ships=tuple(ships), rules="continuum", turn_limit=6)


def _duel(distance: float, firer: str = "needle_test_ship", *more: tuple[str, float]) -> Battle:
    """Red's firing turn with the target ``b1`` dead ahead at ``distance``."""
    battle = Battle(_setup(("b1", distance), *more, firer=firer))
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))  # red wins the initiative
    if battle.step().side == "blue":
        battle.fire("b1", [], ScriptedDice([]))
    return battle


def _fire(battle: Battle, shots: list[Shot], faces: list[int]) -> ShipFired:
    fired = battle.fire("r1", shots, ScriptedDice(faces))
    assert isinstance(fired, ShipFired)
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    return fired


def _status(battle: Battle, ship: str, system: str) -> str:
    return next(s.status for s in battle.state.ship(ship).record.systems if s.id == system)


# ---------------------------------------------------------------- tables and points


def test_dice_by_band() -> None:
    # 000 L4570-4574: 12 MU bands like the beams, an extra die close in per class; NB-N as
    # Beam-N, upper limit of each band included.
    ranges = (0.0, 12.0, 12.01, 24.0, 24.01, 36.0, 36.01, 48.0, 48.01)
    assert [needle_dice("needle2", d) for d in ranges] == [2, 2, 1, 1, 0, 0, 0, 0, 0]
    assert [needle_dice("needle3", d) for d in ranges] == [3, 3, 2, 2, 1, 1, 0, 0, 0]
    assert [needle_dice("needle4", d) for d in ranges] == [4, 4, 3, 3, 2, 2, 1, 1, 0]
    assert "needle" not in NEEDLE_STRENGTH  # NB-1 is FB1's needle (Ambiguity 28)
    assert {"needle", "needle2", "needle3", "needle4"} == NEEDLES


@pytest.mark.parametrize(
    ("kind", "masses"),
    [
        ("needle2", (4, 6, 8)),  # L4600-4602, L16357: 4 on one arc, +2 per additional arc
        ("needle3", (8, 12, 16)),  # L4604-4606, L16359: 8, +4
        ("needle4", (16, 24, 32)),  # L4608-4610, L16361: 16, +8
    ],
)
def test_masses_and_points(kind: str, masses: tuple[int, int, int]) -> None:
    system = PC_SYSTEMS[kind]
    assert tuple(system.mass(n) for n in (1, 2, 3)) == masses
    assert system.per_mass == 3  # "Needle Beams cost 3 per mass" (L4594)
    assert system.max_arcs == 3  # "3 arcs maximum"


def test_test_ship_points_and_arc_limit() -> None:
    costing = price(_design("needle_test_ship"), PRESETS["continuum"])
    assert not costing.problems
    points = {line.item: (line.mass, line.points) for line in costing.lines}
    assert points["Needle beam NB-2 (F)"] == (4, 12)
    assert points["Needle beam NB-3 (F)"] == (8, 24)
    assert points["Needle beam NB-4 (F)"] == (16, 48)
    four_arcs = _SHIP.replace(
        'kind = "needle2"\narcs = ["F"]', 'kind = "needle2"\narcs = ["F", "FP", "FS", "A"]'
    )
    problems = price(decode_design(four_arcs), PRESETS["continuum"]).problems
    assert [p.path for p in problems] == ["$.systems[0].arcs"]


def test_the_class_n_needles_are_continuum_only() -> None:
    # FT2 has the one-die needle (001 L844-854) and no class-N needles.
    text = _SHIP.replace('rules = "continuum"', 'rules = "ft2"')
    problems = price(decode_design(text), PRESETS["ft2"]).problems
    assert any("needle2" in p.reason for p in problems)


def test_needle_sight() -> None:
    # L4517-4523: 12 MU with basic sensors, 24 with Enhanced, beyond with Superior or two
    # Enhanced.
    assert [needle_sight(0, 0), needle_sight(1, 0)] == [12, 24]
    assert needle_sight(2, 0) == needle_sight(0, 1) == float("inf")


# ---------------------------------------------------------------- the dice


def test_four_up_a_point_six_kills_past_screens() -> None:
    # L4574-4580: 4+ a point, a natural 6 a point and the targeted system destroyed; screens
    # do not apply (L4558-4560): against level-2 screens a beam's 4 would score nothing.
    assert BEAM_DAMAGE[2][3] == 0
    battle = _duel(10.0)
    fired = _fire(battle, [Shot(NB4, "b1", "screen-1")], [1, 3, 4, 6])
    assert fired.shots == (ShotRoll(weapon=NB4, target="b1", faces=(1, 3, 4, 6), aim="screen-1"),)
    assert [roll.key for roll in fired.rolls] == [f"t1/fire/r1/{NB4}/{i}" for i in range(4)]
    assert _status(battle, "b1", "screen-1") == "destroyed"  # not repairable (L4582-4590)
    assert _status(battle, "b1", "screen-2") == "ok"
    hit = fired.hits[0]
    # Two points, armour first as beam damage (docs/rulings.md): the 2 armour boxes take them.
    assert (hit.damage, hit.to_armour, hit.to_hull) == (2, 2, 0)


def test_fives_do_a_point_and_kill_nothing() -> None:
    battle = _duel(10.0)
    fired = _fire(
        battle, [Shot(NB2, "b1", "firecon-1"), Shot(NB3, "b1", "firecon-1")], [5, 5, 4, 5, 3]
    )
    assert _status(battle, "b1", "firecon-1") == "ok"
    hit = fired.hits[0]
    assert (hit.damage, hit.to_armour, hit.to_hull) == (4, 2, 2)  # armour first, then hull


def test_dice_fall_off_with_range() -> None:
    # At 30 MU (third band) NB-4 rolls 2 dice, NB-3 one, NB-2 none (L4570-4574).
    battle = _duel(30.0, "needle_test_ship_superior")
    options = fire_options(battle.ctx, battle.state, "r1")
    assert NB2 not in options
    assert options[NB3] == options[NB4] == ("b1",)
    fired = _fire(battle, [Shot(NB3, "b1", "firecon-1"), Shot(NB4, "b1", "firecon-1")], [6, 2, 4])
    assert [shot.faces for shot in fired.shots] == [(6,), (2, 4)]
    assert _status(battle, "b1", "firecon-1") == "destroyed"
    assert fired.hits[0].damage == 2


def test_sixes_at_the_drive_are_drive_hits() -> None:
    # Each natural 6 at the drive is a drive hit, as FB1's needle: half, then disabled.
    battle = _duel(10.0)
    _fire(battle, [Shot(NB3, "b1", "drive")], [6, 1, 1])
    assert battle.state.ship("b1").record.drive == "half"
    battle = _duel(10.0)
    _fire(battle, [Shot(NB3, "b1", "drive")], [6, 6, 1])
    assert battle.state.ship("b1").record.drive == "disabled"


def test_a_class_n_needle_must_aim() -> None:
    battle = _duel(10.0)
    with pytest.raises(IllegalActionError, match="must aim at a working system"):
        battle.fire("r1", [Shot(NB2, "b1")], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="only a needle beam aims"):
        battle.fire("r1", [Shot("beam2-1", "b1", "screen-1")], ScriptedDice([]))


# ---------------------------------------------------------------- sensors and FireCons


@pytest.mark.parametrize(
    ("firer", "reach"),
    [
        ("needle_test_ship", 12.0),  # basic sensors only (L4517-4519)
        ("needle_test_ship_enhanced", 24.0),  # Enhanced Sensors beyond 12 MU (L4517-4519)
        ("needle_test_ship_two_enhanced", 48.0),  # two Enhanced beyond 24 MU (L4521-4523)
        ("needle_test_ship_superior", 48.0),  # or Superior Sensors (L4521-4523)
    ],
)
def test_sensor_gates(firer: str, reach: float) -> None:
    for distance in (12.0, 12.5, 24.0, 24.5, 36.0):
        battle = _duel(distance, firer)
        options = fire_options(battle.ctx, battle.state, "r1")
        fires = distance <= reach
        assert (NB4 in options) is fires, distance
        assert "beam2-1" in options if distance <= 24 else True  # beams need no sensors
        if not fires:
            with pytest.raises(IllegalActionError, match=r"needs .*Sensors, 000 L4517-4523"):
                battle.fire("r1", [Shot(NB4, "b1", "screen-1")], ScriptedDice([]))


def test_sensors_lost_close_the_gate() -> None:
    # Only working sensors aim the needles: with its Enhanced Sensors damaged, 12 MU again.
    battle = _duel(20.0, "needle_test_ship_enhanced")
    assert NB4 in fire_options(battle.ctx, battle.state, "r1")
    ship = battle.state.ship("r1")
    record = with_system_status(ship.record, "enhanced_sensors-1", "damaged")
    ships = tuple(
        msgspec.structs.replace(s, record=record) if s.id == "r1" else s for s in battle.state.ships
    )
    state = msgspec.structs.replace(battle.state, ships=ships)
    assert NB4 not in fire_options(battle.ctx, state, "r1")


def test_one_system_a_turn_beyond_12_mu() -> None:
    # L4525-4529: "these sensors may only focus the Needle Beam weapons on one enemy ship's
    # system per turn".
    battle = _duel(20.0, "needle_test_ship_superior")
    split = [Shot(NB3, "b1", "screen-1"), Shot(NB4, "b1", "screen-2")]
    problem = needle_focus_problem(battle.ctx, battle.state, "r1", split)
    assert problem is not None
    assert "L4525-4529" in problem
    with pytest.raises(IllegalActionError, match="one enemy ship's system a turn"):
        battle.fire("r1", split, ScriptedDice([]))
    fired = _fire(battle, [Shot(NB3, "b1", "screen-1"), Shot(NB4, "b1", "screen-1")], [1] * 5)
    assert len(fired.shots) == 2


def test_one_ship_a_turn_beyond_12_mu() -> None:
    battle = _duel(20.0, "needle_test_ship_superior", ("b2", 22.0))
    split = [Shot(NB3, "b1", "firecon-1"), Shot(NB4, "b2", "firecon-1")]
    with pytest.raises(IllegalActionError, match="L4525-4529"):
        battle.fire("r1", split, ScriptedDice([]))


def test_within_12_mu_the_focus_does_not_bind() -> None:
    # Within 12 MU the basic sensors serve (L4517-4519); two systems take two FireCons.
    battle = _duel(10.0)
    shots = [Shot(NB3, "b1", "screen-1"), Shot(NB4, "b1", "screen-2")]
    assert needle_focus_problem(battle.ctx, battle.state, "r1", shots) is None
    fired = _fire(battle, shots, [1] * 7)
    assert len(fired.shots) == 2


def test_firecons() -> None:
    # L4546-4554: a FireCon for every needle target, shared by the needles at it, and the
    # other weapons at the same ship share it.
    battle = _duel(10.0)
    ctx = battle.ctx
    one = [Shot(NB2, "b1", "screen-1"), Shot(NB3, "b1", "screen-1"), Shot("beam2-1", "b1")]
    assert firecons_needed(ctx, "r1", one) == 1
    two = [Shot(NB2, "b1", "screen-1"), Shot(NB3, "b1", "screen-2"), Shot("beam2-1", "b1")]
    assert firecons_needed(ctx, "r1", two) == 2
    three = [*two, Shot(NB4, "b1", "firecon-1")]
    assert firecons_needed(ctx, "r1", three) == 3
    with pytest.raises(IllegalActionError, match="3 targets and 2 working FireCons"):
        battle.fire("r1", three, ScriptedDice([]))
    assert firecons_needed(ctx, "r1", [Shot("beam2-1", "b1")]) == 1  # beams as before


# ---------------------------------------------------------------- commanders and replay


def test_engage_aims_the_class_n_needles() -> None:
    battle = _duel(10.0)
    ship_id, shots = engage_commander().fire(battle.ctx, battle.state, "red")
    assert ship_id == "r1"
    needles = [shot for shot in shots if shot.weapon in (NB2, NB3, NB4)]
    assert len(needles) == 3
    assert {shot.aim for shot in needles} == {"firecon-1"}  # a lone FireCon (001 L380)
    assert Shot("beam2-1", "b1") in shots  # it shares the needles' FireCon (L4552-4554)
    battle.fire(ship_id, shots, SeededDice(5))
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_random_battle_replays() -> None:
    # Journals replay exactly: every die is keyed, the class-N needles' too.
    setup = _setup(("b1", 14.0), ("b2", 30.0), firer="needle_test_ship_enhanced")
    commanders = {"red": random_commander(random.Random(3)), "blue": engage_commander()}
    battle = play(Battle(setup), commanders, SeededDice(11))
    needles = [
        shot
        for event in battle.journal
        if isinstance(event, ShipFired)
        for shot in event.shots
        if shot.weapon.startswith("needle")
    ]
    assert needles
    assert replay(setup, battle.journal) == battle.state
