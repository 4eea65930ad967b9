"""Command quality (004 section 6): officer rolls, promotion, casualties, plots and effects."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

import campaign.rules.command
from campaign.dice import DiceKey, Roll, ScriptedDice, SeededDice
from campaign.rules.command import (
    ADMIRAL_EFFECTS,
    CAPTAIN_EFFECTS,
    Casualty,
    CommandLevel,
    CommandUnit,
    TacticalEffects,
    admiral_level,
    captain_level,
    casualty,
    casualty_modifier,
    course_change_thrust,
    effective_captain_level,
    fleet_withdrawal_percent,
    initiative_modifier,
    nomination_problem,
    plot_horizon,
    promotion_level,
    roll_admiral,
    roll_captain,
    roll_casualty,
    roll_promotion,
    worst_casualty,
)

KEY = DiceKey(turn=3, phase="command", subject="ship-7")
LEVELS: list[CommandLevel] = [1, 2, 3]
levels = st.sampled_from(LEVELS)
faces = st.integers(min_value=1, max_value=6)


def test_doctests() -> None:
    result = doctest.testmod(campaign.rules.command)
    assert result.attempted > 0
    assert result.failed == 0


# ---------------------------------------------------------------- 004 L322-327 officer rolls


@pytest.mark.parametrize(("die", "level"), [(1, 1), (2, 2), (3, 2), (4, 2), (5, 2), (6, 3)])
def test_captain_and_admiral_tables(die: int, level: CommandLevel) -> None:
    # 004 L323-327: 1 Level 1, 2-5 Level 2, 6 Level 3, for captains and admirals alike.
    assert captain_level(die) == level
    assert admiral_level(die) == level


def test_roll_captain_returns_the_roll() -> None:
    # 004 L322: each warship's Captain is diced for; a 6 is a Level 3 Captain.
    level, roll = roll_captain(ScriptedDice([6]), KEY)
    assert level == 3
    assert roll == Roll(key="3/command/ship-7/0", sides=6, value=6, source="scripted")


def test_roll_admiral_returns_the_roll() -> None:
    level, roll = roll_admiral(ScriptedDice([1]), KEY)
    assert (level, roll.value) == (1, 1)


def test_seeded_officer_rolls_replay() -> None:
    dice = SeededDice("campaign-seed")
    first = roll_captain(dice, KEY)
    assert first == roll_captain(dice, KEY)
    assert first[0] == captain_level(first[1].value)


# ---------------------------------------------------------------- 004 L353-359 promotion


@pytest.mark.parametrize(("die", "expected"), [(1, 3), (2, 3), (3, 2), (4, 2), (5, 1), (6, 1)])
def test_level_2_captain_promotion_reads_the_table(die: int, expected: CommandLevel) -> None:
    # 004 L355-358: 1-2 Level 3, 3-4 Level 2, 5-6 Level 1; no modifier for Level 2.
    assert promotion_level(die, captain_level=2) == expected


@pytest.mark.parametrize(("die", "expected"), [(1, 3), (2, 3), (3, 3), (4, 3), (5, 2), (6, 2)])
def test_level_3_captain_subtracts_2(die: int, expected: CommandLevel) -> None:
    # 004 L359: a Level 3 Captain's 6 counts as 4 (Level 2); he never makes Level 1 Admiral.
    assert promotion_level(die, captain_level=3) == expected


@pytest.mark.parametrize(("die", "expected"), [(1, 3), (2, 2), (3, 2), (4, 1), (5, 1), (6, 1)])
def test_level_1_captain_adds_1(die: int, expected: CommandLevel) -> None:
    # 004 L359: a Level 1 Captain's 4 counts as 5 (Level 1); his 6 counts as 6 (clamped).
    assert promotion_level(die, captain_level=1) == expected


def test_roll_promotion() -> None:
    level, roll = roll_promotion(ScriptedDice([3]), KEY, captain_level=1)
    assert (level, roll.value) == (2, 3)


@given(die=faces)
def test_better_captains_never_make_worse_admirals(die: int) -> None:
    # Lower level numbers are better: a Level 1 Captain's result is at least a Level 2's,
    # which is at least a Level 3's.
    assert (
        promotion_level(die, captain_level=1)
        <= promotion_level(die, captain_level=2)
        <= promotion_level(die, captain_level=3)
    )


# ---------------------------------------------------------------- 004 L360-370 casualties


@pytest.mark.parametrize(
    ("die", "result", "turns"),
    [
        (1, "dead", 0),
        (2, "injured", 3),
        (3, "injured", 2),
        (4, "injured", 1),
        (5, "unharmed", 0),
        (6, "unharmed", 0),
    ],
)
def test_casualty_table_unmodified(die: int, result: str, turns: int) -> None:
    # 004 L363-368: a Level 3 officer whose bridge fails a first-row threshold: no modifier.
    outcome = casualty(die, officer_level=3, threshold=1)
    assert (outcome.result, outcome.turns_out, outcome.modified) == (result, turns, die)


def test_second_row_threshold_subtracts_1() -> None:
    # 004 L369: a 5 on a Level 2 threshold check counts as 4: injured for 1 turn.
    assert casualty(5, officer_level=3, threshold=2) == Casualty("injured", 1, 5, 4)


def test_third_row_threshold_subtracts_2_and_later_rows_too() -> None:
    # 004 L369 (and ruling for Continuum's fourth and later rows).
    assert casualty(4, officer_level=3, threshold=3) == Casualty("injured", 3, 4, 2)
    assert casualty(4, officer_level=3, threshold=5) == Casualty("injured", 3, 4, 2)


def test_destroyed_ship_subtracts_4_level_1_officer_adds_2() -> None:
    # 004 L369-370: a Level 1 Admiral whose flagship is destroyed rolls 4: 4 - 4 + 2 = 2,
    # injured for 3 campaign turns.
    assert casualty(4, officer_level=1, destroyed=True) == Casualty("injured", 3, 4, 2)


def test_destroyed_ship_level_3_officer_dies_on_anything_but_6() -> None:
    # 004 L369: 5 - 4 = 1, dead; 6 - 4 = 2, injured for 3 turns (modified total clamped).
    assert casualty(1, officer_level=3, destroyed=True).modified == 1
    assert casualty(5, officer_level=3, destroyed=True).result == "dead"
    assert casualty(6, officer_level=3, destroyed=True).result == "injured"


def test_level_2_officer_adds_1() -> None:
    # 004 L370: a Level 2 officer's 4 on a first-row check counts as 5: unharmed.
    assert casualty(4, officer_level=2, threshold=1).result == "unharmed"
    assert casualty_modifier(2, threshold=3) == -1


def test_casualty_needs_exactly_one_cause() -> None:
    with pytest.raises(ValueError, match="one cause"):
        casualty_modifier(2)
    with pytest.raises(ValueError, match="one cause"):
        casualty_modifier(2, threshold=1, destroyed=True)
    with pytest.raises(ValueError, match="threshold row 0"):
        casualty_modifier(2, threshold=0)


def test_roll_casualty_checks_before_rolling() -> None:
    dice = ScriptedDice([2])
    with pytest.raises(ValueError, match="one cause"):
        roll_casualty(dice, KEY, officer_level=2)
    outcome, roll = roll_casualty(dice, KEY, officer_level=2, threshold=2)
    assert roll.value == 2
    assert outcome == Casualty("injured", 3, 2, 2)


def test_worst_casualty() -> None:
    dead = Casualty("dead", 0, 1, 1)
    long = Casualty("injured", 3, 2, 2)
    short = Casualty("injured", 1, 4, 4)
    fine = Casualty("unharmed", 0, 6, 6)
    assert worst_casualty(short, long) == long
    assert worst_casualty(long, dead) == dead
    assert worst_casualty(fine, short) == short


@given(
    die=faces,
    level=levels,
    cause=st.one_of(st.integers(min_value=1, max_value=6), st.just("destroyed")),
)
def test_casualty_results_are_on_the_table(die: int, level: CommandLevel, cause: object) -> None:
    if cause == "destroyed":
        outcome = casualty(die, level, destroyed=True)
    else:
        assert isinstance(cause, int)
        outcome = casualty(die, level, threshold=cause)
    assert 1 <= outcome.modified <= 6
    assert (outcome.result == "injured") == (1 <= outcome.turns_out <= 3)
    # A better officer never fares worse on the same die.
    if level > 1 and cause != "destroyed":
        assert isinstance(cause, int)
        better = casualty(die, 1, threshold=cause)
        assert better.modified >= outcome.modified


# ---------------------------------------------------------------- 004 L346-352 plot horizons


@pytest.mark.parametrize(
    ("unit", "level", "turns"),
    [
        ("warship", 3, 3),
        ("warship", 2, 2),
        ("warship", 1, 1),
        ("task-force", 3, 3),
        ("task-force", 2, 2),
        ("task-force", 1, 1),
        ("task-force", None, 3),
        ("scout-troop", None, 1),
    ],
)
def test_plot_horizon(unit: CommandUnit, level: CommandLevel | None, turns: int) -> None:
    # 004 L349-352: Level 3 captain or admiral, or a task force under a captain, 3 turns;
    # Level 2, 2; Level 1 or a scout troop, 1.
    assert plot_horizon(unit, level) == turns


def test_warship_plot_needs_its_captain() -> None:
    with pytest.raises(ValueError, match="captain's level"):
        plot_horizon("warship")


# ---------------------------------------------------------------- 004 L328-344 tactical effects


def test_captain_effects_as_data() -> None:
    # 004 L329-335.
    assert CAPTAIN_EFFECTS[3] == TacticalEffects(
        course_change_thrust=-1, initiative=-1, strike_colours=+1
    )
    assert CAPTAIN_EFFECTS[2] == TacticalEffects()
    assert CAPTAIN_EFFECTS[1] == TacticalEffects(
        course_change_thrust=+1, initiative=+1, strike_colours=-1
    )


def test_admiral_effects_as_data() -> None:
    # 004 L336-344.
    assert ADMIRAL_EFFECTS[3] == TacticalEffects(
        initiative=-1, fleet_withdrawal_percent=-15, one_ship_acts_as=3
    )
    assert ADMIRAL_EFFECTS[2] == TacticalEffects()
    assert ADMIRAL_EFFECTS[1] == TacticalEffects(
        initiative=+1, fleet_withdrawal_percent=+15, one_ship_acts_as=1
    )


def test_course_change_thrust_never_below_one() -> None:
    # 004 L329-330: a Level 3 Captain takes one away, "though never below a total of one".
    assert course_change_thrust(3, captain_level=3) == 2
    assert course_change_thrust(1, captain_level=3) == 1
    assert course_change_thrust(3, captain_level=1) == 4
    assert course_change_thrust(3, captain_level=2) == 3
    assert course_change_thrust(0, captain_level=1) == 0


def test_initiative_is_the_commanding_officers() -> None:
    # 004 L330-342: the admiral's modifier, else the senior captain's; never both.
    assert initiative_modifier(admiral_level=1, senior_captain_level=3) == 1
    assert initiative_modifier(admiral_level=None, senior_captain_level=3) == -1
    assert initiative_modifier(admiral_level=2, senior_captain_level=1) == 0
    assert initiative_modifier(admiral_level=None) == 0


def test_fleet_withdrawal_percentage() -> None:
    # 004 L336, L342: 15 percentage points either way.
    assert fleet_withdrawal_percent(50, admiral_level=3) == 35
    assert fleet_withdrawal_percent(50, admiral_level=1) == 65
    assert fleet_withdrawal_percent(50, admiral_level=2) == 50
    assert fleet_withdrawal_percent(90, admiral_level=1) == 100
    assert fleet_withdrawal_percent(50, admiral_level=None) == 50


def test_admiral_nominates_one_ship() -> None:
    # 004 L337-344: the nominee acts as a Level 3 (or Level 1) Captain and may not already
    # be one.
    assert effective_captain_level(2, admiral_level=3, nominated=True) == 3
    assert effective_captain_level(3, admiral_level=1, nominated=True) == 1
    assert effective_captain_level(2, admiral_level=1, nominated=False) == 2
    assert nomination_problem(3, 3) == (
        "a Level 3 Admiral's nominated ship cannot already have a Level 3 Captain (004 section 6)"
    )
    with pytest.raises(ValueError, match="cannot already have a Level 1 Captain"):
        effective_captain_level(1, admiral_level=1, nominated=True)
    with pytest.raises(ValueError, match="nominates no ship"):
        effective_captain_level(2, admiral_level=2, nominated=True)
    with pytest.raises(ValueError, match="only an admiral"):
        effective_captain_level(2, nominated=True)
