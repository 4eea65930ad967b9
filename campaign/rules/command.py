"""Command quality (004 section 6): officers' levels, promotion, casualties, plots, effects.

A LOWER level number is a BETTER officer: a Level 1 Captain is the excellent one, a Level 3
Captain the inept one (004 L329-344). Every roll function takes a dice source and the die's
`DiceKey` and returns its result with the `Roll` it used, for the event that records it; each
has a pure twin that reads a stored die, so replay never re-rolls.

>>> from campaign.dice import ScriptedDice
>>> key = DiceKey(turn=1, phase="command", subject="ship-1")
>>> level, roll = roll_captain(ScriptedDice([6]), key)
>>> level, roll.value
(3, 6)
>>> promotion_level(5, captain_level=3)
2
>>> casualty(4, officer_level=1, destroyed=True)
Casualty(result='injured', turns_out=3, die=4, modified=2)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import msgspec

from campaign.dice import DiceKey, DiceSource, Roll

CommandLevel = Literal[1, 2, 3]
CommandUnit = Literal["warship", "task-force", "scout-troop"]
CasualtyResult = Literal["dead", "injured", "unharmed"]

DIE_SIDES = 6
CAPTAIN_TABLE: Mapping[int, CommandLevel] = {1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3}  # 004 L323-327
ADMIRAL_TABLE: Mapping[int, CommandLevel] = {1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3}  # 004 L323-327
PROMOTION_TABLE: Mapping[int, CommandLevel] = {1: 3, 2: 3, 3: 2, 4: 2, 5: 1, 6: 1}  # 004 L354-358
# 004 L359 "Subtract 2 if a Level 3 Captain, and add 1 if a Level 1 Captain": on the die, whose
# high faces give the better (lower-numbered) levels; the total is clamped to 1..6.
PROMOTION_MODIFIER: Mapping[CommandLevel, int] = {3: -2, 2: 0, 1: +1}
# 004 L363-368: modified die -> (result, campaign turns out of action); clamped to 1..6.
CASUALTY_TABLE: Mapping[int, tuple[CasualtyResult, int]] = {
    1: ("dead", 0),
    2: ("injured", 3),
    3: ("injured", 2),
    4: ("injured", 1),
    5: ("unharmed", 0),
    6: ("unharmed", 0),
}
# 004 L369-370. Threshold rows past the third (Continuum's 5- and 6-row hulls) use the third's.
THRESHOLD_MODIFIER: Mapping[int, int] = {1: 0, 2: -1, 3: -2}
DESTROYED_MODIFIER = -4  # 004 L369 "subtract 4 if the ship was destroyed"
OFFICER_MODIFIER: Mapping[CommandLevel, int] = {3: 0, 2: +1, 1: +2}  # 004 L370
# 004 L349-352: turns of FTL movement plotted ahead.
PLOT_HORIZON: Mapping[CommandLevel, int] = {3: 3, 2: 2, 1: 1}
TASK_FORCE_UNDER_CAPTAIN_HORIZON = 3  # 004 L350 "Task Force under Captain"
SCOUT_TROOP_HORIZON = 1  # 004 L352 "Scout Troop"


class TacticalEffects(msgspec.Struct, frozen=True):
    """An officer's effects on a battle (004 L328-344), as modifiers for the tactical engine.

    - `course_change_thrust`: added to the thrust available for course changes (a captain's
      own ship; never below a total of one, see `course_change_thrust`).
    - `initiative`: added to the initiative roll by the officer commanding the battle.
    - `strike_colours`: added to the ship's strike-the-colours die.
    - `fleet_withdrawal_percent`: percentage points added to the losses the fleet must suffer
      before it withdraws (fleet morale).
    - `one_ship_acts_as`: an admiral's nominated ship acts as if its captain had this level.
    """

    course_change_thrust: int = 0
    initiative: int = 0
    strike_colours: int = 0
    fleet_withdrawal_percent: int = 0
    one_ship_acts_as: CommandLevel | None = None


CAPTAIN_EFFECTS: Mapping[CommandLevel, TacticalEffects] = {
    3: TacticalEffects(course_change_thrust=-1, initiative=-1, strike_colours=+1),  # 004 L329-331
    2: TacticalEffects(),  # 004 L332
    1: TacticalEffects(course_change_thrust=+1, initiative=+1, strike_colours=-1),  # 004 L333-335
}
ADMIRAL_EFFECTS: Mapping[CommandLevel, TacticalEffects] = {
    3: TacticalEffects(initiative=-1, fleet_withdrawal_percent=-15, one_ship_acts_as=3),  # L336-339
    2: TacticalEffects(),  # 004 L340
    1: TacticalEffects(initiative=+1, fleet_withdrawal_percent=+15, one_ship_acts_as=1),  # L341-344
}


class Casualty(msgspec.Struct, frozen=True):
    """What became of an officer after a casualty roll (004 L360-370).

    `turns_out` is the campaign turns an injured officer is out of action (0 otherwise);
    `die` is the face rolled and `modified` the total read on the table (clamped to 1..6).
    """

    result: CasualtyResult
    turns_out: int
    die: int
    modified: int


def _clamp(value: int) -> int:
    return max(1, min(DIE_SIDES, value))


def captain_level(die: int) -> CommandLevel:
    """Return the level of a new Captain whose die shows `die` (004 L323-327)."""
    return CAPTAIN_TABLE[die]


def admiral_level(die: int) -> CommandLevel:
    """Return the level of a new Admiral whose die shows `die` (004 L323-327)."""
    return ADMIRAL_TABLE[die]


def roll_captain(dice: DiceSource, key: DiceKey) -> tuple[CommandLevel, Roll]:
    """Roll a new Captain's command level: 1 gives Level 1, 2-5 Level 2, 6 Level 3."""
    roll = dice.roll(key, DIE_SIDES)
    return captain_level(roll.value), roll


def roll_admiral(dice: DiceSource, key: DiceKey) -> tuple[CommandLevel, Roll]:
    """Roll a new Admiral's command level: 1 gives Level 1, 2-5 Level 2, 6 Level 3."""
    roll = dice.roll(key, DIE_SIDES)
    return admiral_level(roll.value), roll


def promotion_level(die: int, captain_level: CommandLevel) -> CommandLevel:
    """Return the Admiral level of a Captain promoted on `die` (004 L353-359).

    The die is modified by -2 for a Level 3 Captain and +1 for a Level 1 Captain, clamped to
    1..6, and read on the table (1-2 Level 3, 3-4 Level 2, 5-6 Level 1): a Level 3 Captain never
    becomes a Level 1 Admiral; a Level 1 Captain becomes one on 4-6.
    """
    return PROMOTION_TABLE[_clamp(die + PROMOTION_MODIFIER[captain_level])]


def roll_promotion(
    dice: DiceSource, key: DiceKey, captain_level: CommandLevel
) -> tuple[CommandLevel, Roll]:
    """Roll the Admiral level of a promoted Captain of `captain_level` (004 L353-359)."""
    roll = dice.roll(key, DIE_SIDES)
    return promotion_level(roll.value, captain_level), roll


def casualty_modifier(
    officer_level: CommandLevel, *, threshold: int | None = None, destroyed: bool = False
) -> int:
    """Return the modifier of a casualty roll (004 L369-370).

    Give exactly one cause: `threshold`, the row (1, 2, 3, ...) of the threshold check the
    command bridge failed, or `destroyed`, for a ship completely destroyed. A threshold row
    past the third counts as the third.

    Raises:
        ValueError: no cause or both causes given, or a threshold row below 1.
    """
    if destroyed == (threshold is not None):
        raise ValueError("a casualty roll has one cause: a failed bridge threshold or destruction")
    if destroyed:
        cause = DESTROYED_MODIFIER
    else:
        assert threshold is not None
        if threshold < 1:
            raise ValueError(f"threshold row {threshold} must be 1 or more")
        cause = THRESHOLD_MODIFIER[min(threshold, 3)]
    return cause + OFFICER_MODIFIER[officer_level]


def casualty(
    die: int, officer_level: CommandLevel, *, threshold: int | None = None, destroyed: bool = False
) -> Casualty:
    """Read a casualty die for an officer of `officer_level` (004 L360-370).

    Raises:
        ValueError: as `casualty_modifier`.
    """
    modified = _clamp(
        die + casualty_modifier(officer_level, threshold=threshold, destroyed=destroyed)
    )
    result, turns = CASUALTY_TABLE[modified]
    return Casualty(result=result, turns_out=turns, die=die, modified=modified)


def roll_casualty(
    dice: DiceSource,
    key: DiceKey,
    officer_level: CommandLevel,
    *,
    threshold: int | None = None,
    destroyed: bool = False,
) -> tuple[Casualty, Roll]:
    """Roll whether the Captain or Admiral aboard a stricken ship became a casualty.

    One roll per officer aboard and per cause (see rulings).

    Raises:
        ValueError: as `casualty_modifier` (checked before the die is rolled).
    """
    casualty_modifier(officer_level, threshold=threshold, destroyed=destroyed)
    roll = dice.roll(key, DIE_SIDES)
    return casualty(roll.value, officer_level, threshold=threshold, destroyed=destroyed), roll


def worst_casualty(first: Casualty, second: Casualty) -> Casualty:
    """Return the worse of two casualty results for one officer (death, then longer injury).

    Injuries do not add up: an officer injured twice is out for the longer of the two.
    """
    order = {"dead": 2, "injured": 1, "unharmed": 0}
    return max(first, second, key=lambda c: (order[c.result], c.turns_out))


def plot_horizon(unit: CommandUnit, level: CommandLevel | None = None) -> int:
    """Return how many turns of FTL movement a unit must plot ahead (004 L346-352).

    `level` is the captain's for a warship, the admiral's for a task force (None: the task
    force is under a captain, 3 turns), and is ignored for a scout troop (always 1).

    Raises:
        ValueError: a warship without its captain's level.
    """
    if unit == "scout-troop":
        return SCOUT_TROOP_HORIZON
    if unit == "task-force":
        return TASK_FORCE_UNDER_CAPTAIN_HORIZON if level is None else PLOT_HORIZON[level]
    if level is None:
        raise ValueError("a warship's plot horizon needs its captain's level")
    return PLOT_HORIZON[level]


def course_change_thrust(thrust: int, captain_level: CommandLevel) -> int:
    """Return the thrust a ship may use for course changes under its captain (004 L329-335).

    A Level 3 Captain takes one away, never below a total of one; a Level 1 Captain adds one.
    A ship with no thrust for course changes (0) gets none from its captain either way.
    """
    if thrust <= 0:
        return thrust
    return max(1, thrust + CAPTAIN_EFFECTS[captain_level].course_change_thrust)


def initiative_modifier(
    admiral_level: CommandLevel | None, senior_captain_level: CommandLevel | None = None
) -> int:
    """Return the initiative modifier of the officer commanding a side in battle (004 section 6).

    The Admiral's when one commands (None: no admiral), otherwise the senior Captain's. The
    two never add up: a captain's modifier applies only "if he/she is the senior Captain
    commanding in a battle".
    """
    if admiral_level is not None:
        return ADMIRAL_EFFECTS[admiral_level].initiative
    if senior_captain_level is not None:
        return CAPTAIN_EFFECTS[senior_captain_level].initiative
    return 0


def fleet_withdrawal_percent(base_percent: int, admiral_level: CommandLevel | None) -> int:
    """Return the fleet-withdrawal percentage under an admiral: +-15 points, within 0..100."""
    if admiral_level is None:
        return base_percent
    return max(0, min(100, base_percent + ADMIRAL_EFFECTS[admiral_level].fleet_withdrawal_percent))


def nomination_problem(admiral_level: CommandLevel, captain_level: CommandLevel) -> str | None:
    """Say why an admiral may not nominate a ship with this captain, or return None.

    A Level 3 Admiral's nominee acts as a Level 3 Captain and may not already have one; a
    Level 1 Admiral's acts as a Level 1 Captain and may not already have one (004 L337-344). A
    Level 2 Admiral nominates no ship.
    """
    acts_as = ADMIRAL_EFFECTS[admiral_level].one_ship_acts_as
    if acts_as is None:
        return "a Level 2 Admiral has no tactical effect and nominates no ship (004 L340)"
    if captain_level == acts_as:
        return (
            f"a Level {admiral_level} Admiral's nominated ship cannot already have a "
            f"Level {acts_as} Captain (004 section 6)"
        )
    return None


def effective_captain_level(
    captain_level: CommandLevel, admiral_level: CommandLevel | None = None, nominated: bool = False
) -> CommandLevel:
    """Return the level a ship's captain acts at this battle turn (004 L337-344).

    Raises:
        ValueError: the nomination is not allowed (see `nomination_problem`).
    """
    if not nominated:
        return captain_level
    if admiral_level is None:
        raise ValueError("only an admiral nominates a ship")
    problem = nomination_problem(admiral_level, captain_level)
    if problem is not None:
        raise ValueError(problem)
    acts_as = ADMIRAL_EFFECTS[admiral_level].one_ship_acts_as
    assert acts_as is not None
    return acts_as
