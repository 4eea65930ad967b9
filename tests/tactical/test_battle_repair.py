"""Damage control: crew factors, the repair rolls and the repair step of a Continuum battle."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    DRIVE,
    Battle,
    BattleSetup,
    IllegalActionError,
    RepairsMade,
    ShipSetup,
    Shot,
    TurnEnded,
    repair_jobs,
    replay,
    sheet_for,
    sides_to_repair,
    sides_to_write,
)
from tactical.dice import ScriptedDice
from tactical.fire import threshold_check
from tactical.notation import format_position, parse_position
from tactical.phases.repair import _has_repair_jobs
from tactical.repair import crew_markers, damage_control_parties, repair_succeeds
from tactical.ship import apply_damage, fresh_state


def test_crew_factor_dots() -> None:
    # 000 L11459-11479: 27 boxes and 5 crew factors: dots in boxes 6, 12, 18, 24 and 27.
    assert crew_markers(27, 5) == (6, 12, 18, 24, 27)
    assert crew_markers(5, 1) == (5,)
    assert crew_markers(0, 3) == ()


def test_parties_fall_with_damage() -> None:
    # 000 L11415-11425: the current CF is the dots in boxes not yet destroyed.
    cruiser = sheet_for("heavy_cruiser", "continuum")
    assert cruiser.crew_factor == 5  # mass 86: one per 20 or part (000 L11326-11342)
    state = fresh_state(cruiser)
    assert damage_control_parties(cruiser, state) == 5
    step = crew_markers(cruiser.hull_boxes, 5)[0]
    assert damage_control_parties(cruiser, apply_damage(cruiser, state, step - 1).state) == 5
    assert damage_control_parties(cruiser, apply_damage(cruiser, state, step).state) == 4


def test_continuum_repair_example() -> None:
    # 000 L11380-11396: 3 DCPs on a FireCon mend it on 1-3; 2 on a weapon on 1 or 2.
    assert [repair_succeeds(f, 3, "continuum") for f in range(1, 7)] == [True] * 3 + [False] * 3
    assert [repair_succeeds(f, 2, "continuum") for f in range(1, 7)] == [True] * 2 + [False] * 4


def test_ft_lite_repair_example() -> None:
    # 002 L65: 2 DCPs on the drive roll 3, no effect; 1 DCP on a weapon rolls 6, repaired;
    # next turn 3 DCPs on the drive roll 4: repaired.
    assert not repair_succeeds(3, 2, "lite")
    assert repair_succeeds(6, 1, "lite")
    assert repair_succeeds(4, 3, "lite")


def test_magazines_are_lost_for_good() -> None:
    # 000 L10909-10999 (index 10.1): a magazine that fails a threshold is destroyed.
    cruiser = sheet_for("heavy_cruiser", "continuum")
    state = fresh_state(cruiser)
    faces = ScriptedDice([6] * (len(cruiser.systems) + 2))
    after, _ = threshold_check(
        cruiser,
        state,
        faces,
        "k",
        row=1,
        lost_status="damaged",
        permanent=frozenset({"magazine"}),
    )
    statuses = {s.id: s.status for s in after.systems}
    assert statuses["magazine-1"] == "destroyed"
    assert statuses["beam3-1"] == "damaged"


# Two Continuum heavy cruisers 10 MU apart, bow to bow.
CRUISER_DUEL = BattleSetup(
    sides=("red", "blue"),
    rules="continuum",
    ships=(
        ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12),
        ShipSetup(id="b1", side="blue", design="heavy_cruiser", x=0, y=10, course=6),
    ),
)


def test_the_repair_step() -> None:
    battle = Battle(CRUISER_DUEL)
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    # Two Beam-3 at 10 MU against level-1 screens: 6, 6, 6, 6, 5, 5 = 10 damage, row 1 (7)
    # gone; the four re-rolls miss.
    battle.fire(
        "r1",
        [Shot("beam3-1", "b1"), Shot("beam3-2", "b1")],
        ScriptedDice([6, 6, 6, 6, 5, 5, 1, 1, 1, 1]),
    )
    battle.fire("b1", [], ScriptedDice([]))
    sheet = battle.ctx.sheets["b1"]
    # The end-of-phase check at row 1: the FireCon and the drive fail on 6, nothing else.
    faces = [6] + [1] * (len(sheet.systems) - 1) + [6, 1]
    ended = battle.resolve(ScriptedDice(faces))
    assert isinstance(ended, TurnEnded)
    assert ended.thresholds[0].lost == ("firecon-1",)
    assert battle.step() == ("simultaneous", "repair", None)
    assert sides_to_repair(battle.ctx, battle.state) == ("blue",)
    b1 = battle.state.ship("b1")
    assert repair_jobs(battle.ctx, b1) == ("firecon-1", DRIVE)
    assert damage_control_parties(sheet, b1.record) == 4  # one crew dot lost with 10 damage
    with pytest.raises(IllegalActionError, match="1 to 3 parties on one job"):
        battle.repair("blue", {"b1": {DRIVE: 4}}, ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="has 4 damage control parties"):
        battle.repair("blue", {"b1": {DRIVE: 3, "firecon-1": 2}}, ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="nothing to mend in 'beam3-1'"):
        battle.repair("blue", {"b1": {"beam3-1": 1}}, ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="red has no damage control"):
        battle.repair("red", {}, ScriptedDice([]))
    text = format_position("continuum", battle.state)
    assert parse_position(text) == ("continuum", battle.state)
    made = battle.repair("blue", {"b1": {DRIVE: 3, "firecon-1": 1}}, ScriptedDice([2, 3]))
    assert isinstance(made, RepairsMade)
    assert [(r.target, r.face, r.success) for r in made.repairs] == [
        ("firecon-1", 2, False),
        (DRIVE, 3, True),
    ]
    assert [r.key for r in made.rolls] == ["t1/repair/b1/firecon-1", "t1/repair/b1/drive"]
    b1 = battle.state.ship("b1")
    assert b1.record.drive == "ok"
    assert b1.record.systems[0].status == "damaged"
    assert battle.step() == ("simultaneous", "orders", None)
    assert battle.state.turn == 2
    assert replay(CRUISER_DUEL, battle.journal) == battle.state


def test_ft2_has_no_damage_control() -> None:
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="light_cruiser", x=0, y=0, course=12),
            ShipSetup(id="b1", side="blue", design="frigate", x=0, y=10, course=6),
        ),
    )
    battle = Battle(setup)
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    shots = [Shot(f"beam_b-{n}", "b1") for n in (1, 2, 3)]
    battle.fire("r1", shots, ScriptedDice([4, 4, 1, 1, 1, 1, 6, 1, 1, 1, 1, 6, 1]))
    battle.fire("b1", [], ScriptedDice([]))
    battle.resolve(ScriptedDice([]))
    assert battle.step() == ("simultaneous", "orders", None)
    assert battle.state.ship("b1").record.drive == "half"


@pytest.mark.parametrize(
    ("status", "drive", "out_of_control", "power_core", "life_support"),
    [
        ("ok", "ok", 0, "ok", 0),
        ("destroyed", "ok", 0, "ok", 0),
        ("damaged", "ok", 0, "ok", 0),
        ("ok", "half", 0, "ok", 0),
        ("ok", "disabled", 0, "ok", 0),
        ("ok", "ok", 1, "ok", 0),
        ("ok", "ok", 0, "damaged", 0),
        ("ok", "ok", 0, "ok", 2),
    ],
)
def test_whether_a_ship_has_repair_jobs_is_whether_it_lists_any(
    status: str, drive: str, out_of_control: int, power_core: str, life_support: int
) -> None:
    # The repair step asks every ship at each turn's end whether it has anything to mend,
    # without listing it: the answer is always whether repair_jobs lists anything.
    battle = Battle(CRUISER_DUEL)
    ship = battle.state.ship("r1")
    systems = ship.record.systems
    systems = (msgspec.structs.replace(systems[0], status=status), *systems[1:])
    record = msgspec.structs.replace(
        ship.record,
        systems=systems,
        drive=drive,
        out_of_control=out_of_control,
        power_core=power_core,
        life_support=life_support,
    )
    ship = msgspec.structs.replace(ship, record=record)
    assert _has_repair_jobs(battle.ctx, ship) == bool(repair_jobs(battle.ctx, ship))
