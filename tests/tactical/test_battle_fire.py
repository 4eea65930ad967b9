"""Arcs, ranges, beam dice, screens and threshold checks, with the rulebooks' worked examples."""

from __future__ import annotations

import pytest

from tactical.battle import sheet_for
from tactical.dice import ScriptedDice
from tactical.fire import (
    THRESHOLD_FAIL,
    arc_of,
    beam_dice,
    bearing,
    placement,
    range_between,
    roll_beams,
    score_beam_die,
    threshold_check,
)
from tactical.ship import CONTINUUM_ARCS, FT2_ARCS, fresh_state


def test_beam_range_bands() -> None:
    # 001 L458-462: A 3/2/1 dice to 12/24/36", B 2/1 to 12/24", C 1 to 12".
    assert [beam_dice("beam_a", d) for d in (5.0, 12.0, 18.0, 24.0, 30.0, 36.0, 36.5)] == [
        3,
        3,
        2,
        2,
        1,
        1,
        0,
    ]
    assert [beam_dice("beam_b", d) for d in (12.0, 24.0, 24.001)] == [2, 1, 0]
    assert [beam_dice("beam_c", d) for d in (0.0, 12.0, 12.5)] == [1, 1, 0]
    # 002 L17: "a Beam-2 rolls 2d6 at a target 12" away; 1d6 at a target 13" away; and cannot
    # attack a target 25" away".
    assert [beam_dice("beam2", d) for d in (12.0, 13.0, 25.0)] == [2, 1, 0]
    assert beam_dice("beam5", 60.0) == 1


def test_ft2_basic_fire_example() -> None:
    # 001 L480-486: an A and a B battery at 18" roll 3 dice: 1, 5 and 6 do 3 damage;
    # against level-2 screens, 2.
    assert beam_dice("beam_a", 18.0) + beam_dice("beam_b", 18.0) == 3
    outcome = roll_beams(ScriptedDice([1, 5, 6]), "k", 3, 0, reroll=False)
    assert outcome.screened_damage == 3
    assert outcome.rerolls == []
    assert roll_beams(ScriptedDice([1, 5, 6]), "k", 3, 2, reroll=False).screened_damage == 2


@pytest.mark.parametrize(
    ("screen", "expected"),
    [
        (0, [0, 0, 0, 1, 1, 2]),  # 001 L466-470
        (1, [0, 0, 0, 0, 1, 2]),  # 001 L498
        (2, [0, 0, 0, 0, 1, 1]),  # 001 L500
        (3, [0, 0, 0, 0, 0, 1]),  # 001 L502
    ],
)
def test_screen_table(screen: int, expected: list[int]) -> None:
    assert [score_beam_die(face, screen) for face in range(1, 7)] == expected


def test_ft_lite_reroll_example() -> None:
    # 002 L53: a Beam-3 at 9" rolls 1, 3, 6 for 2 points and an extra die; the extra die rolls
    # 6, for 2 points and another roll; that roll is 5, for 1 more. Total 5.
    outcome = roll_beams(
        ScriptedDice([1, 3, 6, 6, 5]), "k", beam_dice("beam3", 9.0), 0, reroll=True
    )
    assert outcome.faces == [1, 3, 6]
    assert outcome.rerolls == [6, 5]
    assert outcome.screened_damage + outcome.reroll_damage == 5


def test_continuum_reroll_example() -> None:
    # 000 L2927-2961: a Beam-3 and a Beam-2 at 18 MU roll 3 dice: 1, 5, 6 and a re-roll of 4.
    dice = beam_dice("beam3", 18.0) + beam_dice("beam2", 18.0)
    outcome = roll_beams(ScriptedDice([1, 5, 6, 4]), "k", dice, 0, reroll=True)
    assert outcome.screened_damage + outcome.reroll_damage == 4


def test_continuum_screen_reroll_example() -> None:
    # 000 L3017-3031: six dice at level-2 screens roll 2, 3, 3, 4, 6, 6 for 2; re-rolls 4 and 6
    # and a further 3 ignore the screens: 1 + 2, a total of 5.
    outcome = roll_beams(ScriptedDice([2, 3, 3, 4, 6, 6, 4, 6, 3]), "k", 6, 2, reroll=True)
    assert outcome.screened_damage == 2
    assert outcome.rerolls == [4, 6, 3]
    assert outcome.reroll_damage == 3


def test_dice_keys() -> None:
    keys: list[str] = []

    class Keyed:
        def roll(self, key: str, sides: int) -> int:
            keys.append(key)
            return 6 if len(keys) < 3 else 1

    roll_beams(Keyed(), "t1/fire/a/beam_a-1", 2, 0, reroll=True)
    assert keys == [
        "t1/fire/a/beam_a-1/0",
        "t1/fire/a/beam_a-1/1",
        "t1/fire/a/beam_a-1/r0",
        "t1/fire/a/beam_a-1/r1",
    ]


def test_ft2_arcs() -> None:
    # 001 L398-408 and digest A31: four 90° quadrants centred on bow, beams and stern.
    assert bearing(0, 0, 12, 0, 10) == 0.0
    assert bearing(0, 0, 12, 10, 0) == pytest.approx(90.0)
    assert bearing(0, 0, 3, 0, 10) == pytest.approx(-90.0)
    assert bearing(0, 0, 12, 0, -10) == 180.0
    assert [arc_of(b, FT2_ARCS) for b in (0.0, 44.9, 45.1, 134.9, 135.1, -90.0, 180.0)] == [
        "F",
        "F",
        "S",
        "S",
        "A",
        "P",
        "A",
    ]


def test_arc_lines_go_to_the_arc_nearer_the_bow() -> None:
    assert [arc_of(b, FT2_ARCS) for b in (45.0, -45.0, 135.0, -135.0)] == ["F", "F", "S", "P"]
    assert [arc_of(b, CONTINUUM_ARCS) for b in (30.0, -30.0, 90.0, 150.0, -150.0)] == [
        "F",
        "F",
        "FS",
        "AS",
        "AP",
    ]


def test_placement_is_the_arc_of_the_bearing_and_the_range_every_time_asked() -> None:
    pairs = [
        (0.0, 0.0, 12, 0.0, 10.0),
        (0.0, 0.0, 3, 10.0, 0.0),
        (5.5, -2.25, 7, 5.5 + 10.0, -2.25 - 10.0),  # on an arc line
        (1.0, 1.0, 0, 1.0, 1.0),  # at its own place: dead ahead
    ]
    for arcs in (FT2_ARCS, CONTINUUM_ARCS):
        for _asked in range(2):  # worked out, then kept: the same answer
            for x, y, course, tx, ty in pairs:
                expected = (
                    arc_of(bearing(x, y, course, tx, ty), arcs),
                    range_between(x, y, tx, ty),
                )
                assert placement(x, y, course, tx, ty, arcs) == expected


def test_continuum_arcs() -> None:
    # 000 L2483-2679: F -30..30, FS 30..90, AS 90..150, A 150..210, AP 210..270, FP 270..330.
    expected = {0.0: "F", 60.0: "FS", 120.0: "AS", 180.0: "A", -120.0: "AP", -60.0: "FP"}
    assert {b: arc_of(b, CONTINUUM_ARCS) for b in expected} == expected


def test_threshold_table() -> None:
    # 001 L518-522: lost on 6 at the first threshold, 5-6 at the second, 4-6 at the third.
    assert THRESHOLD_FAIL == {1: 6, 2: 5, 3: 4}


def test_threshold_check_rolls_every_system_then_drive_and_ftl() -> None:
    cruiser = sheet_for("light_cruiser", "ft2")
    state = fresh_state(cruiser)
    systems = len(cruiser.systems)
    keys: list[str] = []
    faces = iter([6, 5, *([1] * (systems - 2)), 6, 1])

    class Keyed:
        def roll(self, key: str, sides: int) -> int:
            keys.append(key)
            return next(faces)

    after, outcome = threshold_check(cruiser, state, Keyed(), "t1/threshold/x/row1", row=1)
    assert outcome.lost == [cruiser.systems[0].id]  # only the 6 fails the first check
    assert outcome.drive
    assert not outcome.ftl
    assert after.drive == "half"
    assert after.systems[0].status == "destroyed"
    assert keys[-2:] == ["t1/threshold/x/row1/drive", "t1/threshold/x/row1/ftl"]
    assert len(keys) == systems + 2
    # The lost system is not rolled again; a second drive failure disables it (001 L528).
    faces = iter([1] * (systems - 1) + [5, 1])
    keys.clear()
    final, outcome = threshold_check(cruiser, after, Keyed(), "t1/threshold/x/row2", row=2)
    assert len(keys) == systems - 1 + 2
    assert final.drive == "disabled"


def test_continuum_aggregated_modifier() -> None:
    # 000 L3194-3397 (index 4.11): rows 1 and 2 in one phase: one check at the row-2 level
    # (5+) with +1, failing on 4+.
    cruiser = sheet_for("heavy_cruiser", "continuum")
    state = fresh_state(cruiser)
    count = len(cruiser.systems) + 2
    after, outcome = threshold_check(
        cruiser, state, ScriptedDice([4] * count), "k", row=2, modifier=1, lost_status="damaged"
    )
    assert len(outcome.lost) == len(cruiser.systems)
    assert all(s.status == "damaged" for s in after.systems)
    assert outcome.drive
    assert outcome.ftl
