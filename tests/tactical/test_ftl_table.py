"""FTL on the table (FT2, 001 L1015-1070), read line by line.

Leaving (L1025-1049): the jump order ``J`` warms the drives up, no thrust and no offensive
fire that turn (L1027), announced (L1027); the following turn half the velocity on the course
after every other ship, then gone (L1029); anything within 6" of that point rolls the ship's
D6 (L1037-1045), the worked example L1047. Entering (L1051-1070): a set-up's dropouts. The
choices are in docs/rulings.md, "Tactical: FTL on the table (FT2)".
"""

from __future__ import annotations

import random

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    FtlDeparture,
    IllegalActionError,
    SetupError,
    ShipSetup,
    ShipsMoved,
    Shot,
    Theatre,
    decode_journal,
    encode_journal,
    replay,
    sides_to_write,
    view,
)
from tactical.commanders import engage_commander, play, random_commander
from tactical.dice import SeededDice
from tactical.fighters import FighterGroup, bays
from tactical.movement import parse_orders
from tactical.notation import format_position, parse_position
from tactical.ship import hull_remaining
from tactical.summary import describe


class KeyedDice:
    """Dice that show a given face for keys starting with a named prefix, else ``default``;
    every key asked is kept."""

    def __init__(self, faces: dict[str, int] | None = None, default: int = 1) -> None:
        self.faces = faces or {}
        self.default = default
        self.asked: list[str] = []

    def roll(self, key: str, sides: int) -> int:
        self.asked.append(key)
        return next((f for k, f in self.faces.items() if key.startswith(k)), self.default)


def ship(
    ship_id: str,
    side: str,
    design: str,
    x: float,
    y: float,
    *,
    course: int = 12,
    speed: int = 0,
) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=speed)


def start(*ships: ShipSetup) -> Battle:
    return Battle(BattleSetup(sides=("red", "blue"), ships=ships, turn_limit=6))


def move(battle: Battle, dice: KeyedDice, **orders: str) -> ShipsMoved:
    """Write each side's orders (``red="r1:J"``) and move the ships."""
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, parse_orders(orders.get(side, "")))
    event = battle.resolve(dice)
    assert isinstance(event, ShipsMoved)
    return event


def finish_turn(battle: Battle, dice: KeyedDice) -> None:
    """Every ship still to fire holds its fire, then the turn ends."""
    while battle.step().phase == "fire":
        side = battle.step().side
        ship_id = next(s.id for s in battle.state.ships if s.side == side and not s.fired)
        battle.fire(ship_id, [], dice)
    battle.resolve(dice)


def check_replay_and_notation(battle: Battle) -> None:
    rules = battle.ctx.setup.rules
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    assert decode_journal(encode_journal(battle.journal)) == battle.journal
    assert parse_position(format_position(rules, battle.state)) == (rules, battle.state)


def warmed_up(*others: ShipSetup, speed: int = 8, design: str = "heavy_cruiser") -> Battle:
    """Red's r1 at 0,0 course 12 warms up its drives in turn 1 (001 L1027)."""
    battle = start(ship("r1", "red", design, 0, 0, speed=speed), *others)
    dice = KeyedDice()
    moved = move(battle, dice, red="r1:J")
    assert next(m for m in moved.moves if m.ship == "r1").void is None
    finish_turn(battle, dice)
    return battle


# ---------------------------------------------------------------- leaving the table


def test_the_warm_up_turn_no_thrust_no_offensive_fire_and_announced() -> None:
    # 001 L1027: noted in the orders, no thrust, no offensive weapons; the enemy sees it.
    battle = start(
        ship("r1", "red", "heavy_cruiser", 0, 0, speed=8),
        ship("b1", "blue", "frigate", 0, 30),
    )
    dice = KeyedDice()
    move(battle, dice, red="r1:J")
    r1 = battle.state.ship("r1")
    assert (r1.x, r1.y, r1.course, r1.speed, r1.jump) == (0.0, 8.0, 12, 8, "powering")
    assert view(battle.state, "blue").ship("r1").jump == "powering"
    with pytest.raises(IllegalActionError):
        battle.fire("r1", [Shot("beam_a-1", "b1")], dice)
    assert battle.step().side == "blue"  # only blue has a firing turn
    check_replay_and_notation(battle)


def test_the_following_turn_half_velocity_after_the_others_then_gone() -> None:
    # 001 L1029: half the current velocity on the present course, after all other ships, and
    # gone; nothing within 6": no die (L1037).
    battle = warmed_up(ship("b1", "blue", "frigate", 40, 0))
    dice = KeyedDice(default=6)
    moved = move(battle, dice, red="r1:P3")  # any order is ignored: it is entering FTL
    assert [m.ship for m in moved.moves] == ["b1", "r1"]
    jump = moved.moves[-1]
    assert (jump.x, jump.y, jump.jumped) == (0.0, 12.0, True)
    assert jump.void == "the ship is entering FTL (001 L1029)"
    assert jump.ftl == FtlDeparture(near=(), face=None, outcome="jumps")
    assert not any("/ftl/" in key for key in dice.asked)
    assert battle.state.ship("r1").status == "jumped"
    assert describe(moved)[2].endswith(
        "(order void: the ship is entering FTL (001 L1029)), jumps out"
    )
    finish_turn(battle, dice)
    # 001 L1049: it never returns, nor is there an order to write for it.
    assert sides_to_write(battle.ctx, battle.state) == ("blue",)
    check_replay_and_notation(battle)


def test_a_1_the_drive_fails_and_the_ship_completes_its_move() -> None:
    # 001 L1041: "remains in Normal Space at its present course and velocity".
    battle = warmed_up(ship("b1", "blue", "frigate", 3, 12))
    dice = KeyedDice({"t2/ftl/r1": 1})
    moved = move(battle, dice)
    jump = moved.moves[-1]
    assert jump.ftl == FtlDeparture(near=("b1",), face=1, outcome="fails")
    assert (jump.x, jump.y, jump.jumped) == (0.0, 16.0, False)
    r1 = battle.state.ship("r1")
    assert (r1.status, r1.jump, r1.y, r1.speed) == ("active", "none", 16.0, 8)
    assert any("fails to engage" in line for line in describe(moved))
    check_replay_and_notation(battle)


@pytest.mark.parametrize("face", [2, 3, 4])
def test_2_to_4_a_safe_jump_and_1d6_unscreened_to_everything_near(face: int) -> None:
    # 001 L1043: the jump is made; every ship within 6" takes 1D6, unmodified by screens
    # (b1's heavy cruiser has a screen).
    battle = warmed_up(
        ship("b1", "blue", "heavy_cruiser", 3, 12),
        ship("b2", "blue", "heavy_cruiser", 0, 18),  # exactly 6" away: within (digest R)
        ship("b3", "blue", "heavy_cruiser", 0, 18.01),  # beyond
    )
    dice = KeyedDice({"t2/ftl/r1/damage/b1": 4, "t2/ftl/r1/damage/b2": 3, "t2/ftl/r1": face})
    moved = move(battle, dice)
    report = moved.moves[-1].ftl
    assert report is not None
    assert (report.near, report.face, report.outcome) == (("b1", "b2"), face, "jumps")
    assert report.faces == (("b1", 4), ("b2", 3))
    assert [(h.target, h.damage) for h in report.hits] == [("b1", 4), ("b2", 3)]
    sheet = battle.ctx.sheets["b1"]
    assert hull_remaining(sheet, battle.state.ship("b1").record) == 12
    assert hull_remaining(sheet, battle.state.ship("b3").record) == 16
    assert battle.state.ship("r1").status == "jumped"
    check_replay_and_notation(battle)


@pytest.mark.parametrize("face", [5, 6])
def test_5_or_6_the_ship_explodes_the_worked_example(face: int) -> None:
    # 001 L1045-1047: "if a 10 D.P. ship failed its FTL entry and exploded, the energy release
    # would cause 10 points of damage to EVERY ship within 6" of the explosion point".
    battle = warmed_up(
        ship("b1", "blue", "heavy_cruiser", 3, 4),
        ship("b2", "blue", "heavy_cruiser", -3, 4),
        ship("b3", "blue", "heavy_cruiser", 0, 30),
        design="fleet_tender",
        speed=0,
    )
    assert battle.ctx.sheets["r1"].hull_boxes == 10
    dice = KeyedDice({"t2/ftl/r1": face})
    moved = move(battle, dice)
    report = moved.moves[-1].ftl
    assert report is not None
    assert (report.near, report.outcome) == (("b1", "b2"), "explodes")
    assert [(h.target, h.damage) for h in report.hits] == [("b1", 10), ("b2", 10)]
    assert battle.state.ship("r1").status == "destroyed"
    assert not moved.moves[-1].jumped
    # 10 points cross the cruisers' first row (5 boxes) and second: threshold checks at once.
    assert [t.ship for t in moved.thresholds] == ["b1", "b1", "b2", "b2"]
    assert any("explodes" in line for line in describe(moved))
    check_replay_and_notation(battle)


def test_fighter_groups_within_the_radius_roll_and_lose_fighters() -> None:
    # 001 L1037: "ANY other ship, Asteroid, Fighter etc.": a fighter group near calls for the
    # die and, on a safe jump, takes its 1D6 as fighters lost, one a point (docs/rulings.md).
    battle = warmed_up(ship("b1", "blue", "light_carrier", 40, 0))
    bay = bays(battle.ctx.sheets["b1"])[0].id
    group = FighterGroup(side="blue", carrier="b1", bay=bay, x=2, y=14, fighters=6)
    battle.state = msgspec.structs.replace(battle.state, fighters=(group,))
    dice = KeyedDice({"t2/ftl/r1/damage/": 4, "t2/ftl/r1": 3})
    moved = move(battle, dice)
    report = moved.moves[-1].ftl
    assert report is not None
    assert (report.near, report.face, report.fighters) == ((group.id,), 3, ((group.id, 4),))
    assert [g.fighters for g in battle.state.fighters] == [2]
    assert f"    {group.id} loses 4 fighters" in describe(moved)


def test_a_lost_ftl_drive_cannot_jump() -> None:
    battle = start(ship("r1", "red", "heavy_cruiser", 0, 0, speed=8))
    r1 = battle.state.ship("r1")
    lost = msgspec.structs.replace(r1, record=msgspec.structs.replace(r1.record, ftl="lost"))
    battle.state = msgspec.structs.replace(battle.state, ships=(lost,))
    moved = move(battle, KeyedDice(), red="r1:J")
    assert moved.moves[0].void == "its FTL drive is lost"
    assert battle.state.ship("r1").jump == "none"


# ---------------------------------------------------------------- entering under FTL


def dropping_in(*others: ShipSetup, **options: object) -> Battle:
    """Blue's b2 drops out of FTL in turn 2, aimed at 0,20, course 6 speed 4 (001 L1053)."""
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ship("r1", "red", "heavy_cruiser", 0, 0),
            ship("b1", "blue", "frigate", 40, 40),
            ShipSetup(
                id="b2",
                side="blue",
                design="heavy_cruiser",
                x=0,
                y=20,
                course=6,
                speed=4,
                dropout=2,
            ),
            *others,
        ),
        turn_limit=6,
    )
    return Battle(msgspec.structs.replace(setup, **options))


def test_a_ship_due_to_drop_out_is_not_in_play_until_its_turn() -> None:
    # 001 L1053: noted at the start, with its turn, entry point and course.
    battle = dropping_in()
    b2 = battle.state.ship("b2")
    assert (b2.status, b2.returns) == ("away", 2)
    check_replay_and_notation(battle)
    dice = KeyedDice()
    with pytest.raises(IllegalActionError):
        battle.write_orders("blue", parse_orders("b2:="))
    move(battle, dice)
    with pytest.raises(IllegalActionError):
        battle.fire("r1", [Shot("beam_a-1", "b2")], dice)
    assert battle.state.ship("b2").status == "away"
    check_replay_and_notation(battle)


def test_the_dropout_scatters_and_everything_within_6_inches_rolls_itself_included() -> None:
    # 001 L1058: a D12 on the course gauge and a D6 in inches; L1066-1070: every ship
    # within 6" of where it appears, the entering ship included, a D6, a 6 a second D6 x 6.
    battle = dropping_in(
        ship("r2", "red", "heavy_cruiser", 4, 25), ship("r3", "red", "frigate", 12, 20)
    )
    dice = KeyedDice()
    move(battle, dice)
    finish_turn(battle, dice)
    dice = KeyedDice(
        {
            "t2/dropout/b2/direction": 3,
            "t2/dropout/b2/distance": 4,
            "t2/dropout/b2/damage/r2/times": 2,
            "t2/dropout/b2/damage/r2": 6,
            "t2/dropout/b2/damage/b2": 3,
        }
    )
    moved = move(battle, dice, blue="b2:=")  # then it moves by its order (see docs/rulings.md)
    (dropout,) = moved.dropouts
    assert (dropout.aimed, dropout.direction, dropout.distance) == ((0.0, 20.0), 3, 4)
    assert (dropout.x, dropout.y, dropout.entered) == (4.0, 20.0, True)
    # r2 is 5" away, r3 8": only r2 and b2 roll, in the order the ships stand.
    assert dropout.faces == (("b2", 3, None), ("r2", 6, 2))
    assert [(h.target, h.damage) for h in dropout.hits] == [("b2", 3), ("r2", 12)]
    b2 = battle.state.ship("b2")
    assert (b2.status, b2.x, b2.y, b2.course, b2.speed) == ("active", 4.0, 16.0, 6, 4)
    sheet = battle.ctx.sheets["r2"]
    assert hull_remaining(sheet, battle.state.ship("r2").record) == 4
    assert hull_remaining(sheet, battle.state.ship("r3").record) == 16
    lines = describe(moved)
    assert lines[1] == "    b2 drops out of FTL aimed at 0,20 (D12 3, D6 4), appears at 4,20"
    assert '    r2 within 6" of the dropout: D6 6 x 2' in lines
    check_replay_and_notation(battle)


def test_the_option_multiplies_a_6_and_off_the_table_the_ship_never_enters() -> None:
    # 001 L1064: a distance 6 rolls a second D6 and multiplies; off the table it never enters.
    battle = dropping_in(table=(-30.0, -30.0, 30.0, 30.0), ftl_dropout_extreme=True)
    dice = KeyedDice()
    move(battle, dice)
    finish_turn(battle, dice)
    dice = KeyedDice(
        {"t2/dropout/b2/direction": 12, "t2/dropout/b2/distance": 6, "t2/dropout/b2/extreme": 2}
    )
    moved = move(battle, dice)
    (dropout,) = moved.dropouts
    assert (dropout.extreme, dropout.x, dropout.y, dropout.entered) == (2, 0.0, 32.0, False)
    assert dropout.faces == ()
    assert battle.state.ship("b2").status == "left"
    assert "it never enters" in describe(moved)[1]
    check_replay_and_notation(battle)


def test_without_the_option_a_6_is_6_inches() -> None:
    battle = dropping_in(table=(-30.0, -30.0, 30.0, 30.0))
    dice = KeyedDice()
    move(battle, dice)
    finish_turn(battle, dice)
    dice = KeyedDice({"t2/dropout/b2/direction": 12, "t2/dropout/b2/distance": 6})
    (dropout,) = move(battle, dice).dropouts
    assert (dropout.extreme, dropout.y, dropout.entered) == (None, 26.0, True)
    assert not any(key.endswith("/extreme") for key in dice.asked)


def test_dropouts_are_for_table_battles() -> None:
    setup = dropping_in().ctx.setup
    with pytest.raises(SetupError, match="table battles"):
        Battle(msgspec.structs.replace(setup, theatre=Theatre()))


@pytest.mark.parametrize("seed", range(4))
def test_commanders_cope_with_a_dropout_and_replay_equals_live(seed: int) -> None:
    battle = dropping_in(ship("r2", "red", "frigate", -5, 5), table=(-40.0, -40.0, 40.0, 40.0))
    commanders = {"red": engage_commander(), "blue": random_commander(random.Random(seed))}
    play(battle, commanders, SeededDice(seed))
    assert battle.state.phase == "over"
    moves = [e for e in battle.journal if isinstance(e, ShipsMoved)]
    assert [d.ship for e in moves for d in e.dropouts] == ["b2"]
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    assert decode_journal(encode_journal(battle.journal)) == battle.journal


def test_the_other_side_does_not_see_a_dropout_coming() -> None:
    """001 L1053-1058: a dropout is noted at the start and announced only when it comes. Red's
    view (what its commander plays from) has no b2 until b2 is on the table; blue's has it."""
    from tactical.battle import dropout_ids, view

    battle = dropping_in()
    hidden = dropout_ids(battle.ctx)
    assert hidden == {"b2"}
    assert "b2" not in {s.id for s in view(battle.state, "red", hidden).ships}
    assert "b2" in {s.id for s in view(battle.state, "blue", hidden).ships}
    dice = KeyedDice()
    move(battle, dice)
    finish_turn(battle, dice)
    move(battle, dice, blue="b2:=")
    assert battle.state.ship("b2").status == "active"
    assert "b2" in {s.id for s in view(battle.state, "red", hidden).ships}
