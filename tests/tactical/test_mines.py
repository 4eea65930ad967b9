"""Mines, minelaying and minesweeping (FT2 section 5, 001 L868-898), read line by line.

The seeds give no worked example, so these tests follow the text: a mine fires on an enemy ship
that comes within 3" of it at any point of its move, not just at the end, with 2D6 read as beam
fire against screens, then it is removed (L870-872; Continuum 4D6, 000 L6737-6739); a
minelayer's order says it lays (L882), one mine per minelayer a turn anywhere along the move
(L884), three mines a minelayer (L886), active from the next turn and still until it detonates
or is swept (L888); an active minesweeper passing within 3" rolls a D6: 1 the mine attacks it,
2 nothing, 3-6 the mine is removed (L894-896), and it fires no offensive weapon that turn
(L898).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    Hit,
    MineDetonated,
    MineLaid,
    MineSetup,
    MineSwept,
    SetupError,
    ShipSetup,
    ShipsMoved,
    context,
    decode_setup,
    fire_options,
    move_path,
    replay,
    ships_to_fire,
    sides_to_write,
)
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    outcome_from_journal,
    resolve_campaign_battle,
)
from tactical.commanders import (
    closing_commander,
    engage_commander,
    order_commander,
    play,
    with_mines,
)
from tactical.commanders.steering import _met
from tactical.designs import load_builtin
from tactical.dice import ScriptedDice, SeededDice
from tactical.mines import MINE_RADIUS_MU, Mine, first_contact
from tactical.movement import Order, parse_orders
from tactical.notation import format_position, parse_position
from tactical.points import price
from tactical.ship import PRESETS, Design, Mount, Ship, ShipState, fresh_state
from tactical.state import working_defence as _defence
from tactical.summary import describe, describe_journal

LAYER = "minelayer-1"


def ship(
    ship_id: str, side: str, design: str, x: float, y: float, course: int = 12, speed: int = 0
) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=speed)


def mine(mine_id: str, side: str, x: float, y: float) -> MineSetup:
    return MineSetup(id=mine_id, side=side, x=x, y=y)


def start(*ships: ShipSetup, mines: tuple[MineSetup, ...] = (), rules: str = "ft2") -> Battle:
    setup = BattleSetup(sides=("red", "blue"), ships=ships, mines=mines, rules=rules, turn_limit=5)
    return Battle(setup)


def move(battle: Battle, dice: ScriptedDice, **orders: str) -> ShipsMoved:
    """Write each side's orders (``red="r1:M5"``) and move the ships."""
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, parse_orders(orders.get(side, "")))
    event = battle.resolve(dice)
    assert isinstance(event, ShipsMoved)
    return event


def finish_turn(battle: Battle) -> None:
    """Every ship holds fire and the turn ends (no dice needed)."""
    while battle.step().phase == "fire":
        side = battle.step().side
        assert side is not None
        battle.fire(ships_to_fire(battle.ctx, battle.state, side)[0], [], ScriptedDice([]))
    battle.resolve(ScriptedDice([]))


def check_notation_and_replay(battle: Battle) -> None:
    rules = battle.ctx.setup.rules
    assert parse_position(format_position(rules, battle.state)) == (rules, battle.state)
    assert replay(battle.ctx.setup, battle.journal) == battle.state


# ---------------------------------------------------------------- the mine's attack (L870-872)


def test_a_mine_fires_on_an_enemy_passing_within_3_mid_move() -> None:
    # L872: "at ANY point during its movement, not just at the END of its move". The destroyer
    # flies from y=40 to y=10 down x=0 and passes exactly 3" from the mine at (3, 20); it ends
    # 10.4" away. Two blue ships to one red: no initiative dice (001 L262).
    battle = start(
        ship("r1", "red", "frigate", 40, 0),
        ship("b1", "blue", "destroyer", 0, 40, course=6, speed=30),
        ship("b2", "blue", "frigate", 60, 0),
        mines=(mine("m1", "red", 3, 20),),
    )
    moved = move(battle, ScriptedDice([4, 5]))
    assert moved.mines == (
        MineDetonated(
            mine="m1",
            ship="b1",
            faces=(4, 5),
            hit=Hit(target="b1", damage=2, to_armour=0, to_hull=2),
        ),
    )
    assert [roll.key for roll in moved.rolls] == ["t1/mine/m1/0", "t1/mine/m1/1"]
    assert battle.state.ship("b1").record.hull_lost == (2, 0)
    assert battle.state.mines == ()  # strictly one-shot (L872)
    check_notation_and_replay(battle)


@pytest.mark.parametrize(("x", "attacked"), [(3.0, True), (3.001, False)])
def test_the_trigger_radius_is_3_inclusive(x: float, attacked: bool) -> None:
    battle = start(
        ship("r1", "red", "frigate", 40, 0),
        ship("b1", "blue", "destroyer", 0, 40, course=6, speed=30),
        ship("b2", "blue", "frigate", 60, 0),
        mines=(mine("m1", "red", x, 20),),
    )
    moved = move(battle, ScriptedDice([4, 5]))
    assert bool(moved.mines) == attacked
    assert len(battle.state.mines) == (0 if attacked else 1)


def test_a_mine_never_fires_on_its_own_side() -> None:
    # L870: it fires on "a hostile ship (ie: one not answering the correct IFF codes)".
    battle = start(
        ship("r1", "red", "destroyer", 0, 40, course=6, speed=30),
        ship("r2", "red", "frigate", 60, 0),
        ship("b1", "blue", "frigate", 40, 0),
        mines=(mine("m1", "red", 1, 20),),
    )
    moved = move(battle, ScriptedDice([]))
    assert moved.mines == ()
    assert battle.state.mines == (Mine(id="m1", side="red", x=1, y=20),)


def test_a_ship_that_stays_within_3_is_attacked() -> None:
    # A stationary ship inside the radius is within it during its move (the brief's "ending
    # within range"; docs/rulings.md).
    battle = start(
        ship("r1", "red", "frigate", 40, 0),
        ship("b1", "blue", "destroyer", 0, 2),
        ship("b2", "blue", "frigate", 60, 0),
        mines=(mine("m1", "red", 0, 0),),
    )
    moved = move(battle, ScriptedDice([6, 1]))
    assert [m.ship for m in moved.mines if isinstance(m, MineDetonated)] == ["b1"]


def test_screens_reduce_a_mine_as_beam_fire() -> None:
    # L870-872: level-1 screens turn a 4 into nothing (001 L496-502).
    damage = {}
    for design in ("destroyer", "light_cruiser"):
        battle = start(
            ship("r1", "red", "frigate", 40, 0),
            ship("b1", "blue", design, 0, 40, course=6, speed=30),
            ship("b2", "blue", "frigate", 60, 0),
            mines=(mine("m1", "red", 0, 20),),
        )
        moved = move(battle, ScriptedDice([4, 5]))
        detonated = moved.mines[0]
        assert isinstance(detonated, MineDetonated)
        damage[design] = detonated.hit.damage
    assert damage == {"destroyer": 2, "light_cruiser": 1}


def test_continuum_mines_roll_four_dice_and_re_roll_sixes() -> None:
    # 000 L6737-6739: "Roll 4D6 and apply damage as for normal beam fire"; Continuum beam
    # fire re-rolls a 6 past screens (000 L2864-2968). The heavy cruiser's level-1 screen
    # makes the 6 worth 2 and the 1s and the re-rolled 5 nothing and one.
    battle = start(
        ship("r1", "red", "heavy_cruiser", 40, 0),
        ship("b1", "blue", "heavy_cruiser", 0, 40, course=6, speed=30),
        mines=(mine("m1", "red", 0, 20),),
        rules="continuum",
    )
    moved = move(battle, ScriptedDice([6, 1, 1, 1, 5, 6, 1]))
    detonated = moved.mines[0]
    assert isinstance(detonated, MineDetonated)
    assert (detonated.faces, detonated.rerolls) == ((6, 1, 1, 1), (5,))
    assert detonated.hit.damage == 3
    check_notation_and_replay(battle)


def test_the_first_ship_to_come_within_3_meets_the_mine() -> None:
    # Ships move at once; b2 stands first in the battle but reaches the mine later in its
    # move, so b1 takes the blast and b2 flies on past the empty spot (docs/rulings.md).
    battle = start(
        ship("r1", "red", "frigate", 40, 0),
        ship("b2", "blue", "destroyer", -2, 40, course=6, speed=30),
        ship("b1", "blue", "destroyer", 2, 24, course=6, speed=30),
        mines=(mine("m1", "red", 0, 20),),
    )
    assert first_contact(((-2.0, 40.0), (-2.0, 10.0)), 0, 20, MINE_RADIUS_MU) == pytest.approx(
        (20 - 2.2360679775) / 30
    )
    moved = move(battle, ScriptedDice([4, 5]))
    assert [(m.ship, m.mine) for m in moved.mines if isinstance(m, MineDetonated)] == [("b1", "m1")]
    assert battle.state.ship("b2").record.hull_lost == (0, 0)


def test_mine_damage_is_checked_for_thresholds_at_once() -> None:
    # A 6 and a 5 cross the destroyer's first row of 3: a threshold check at once, keyed to
    # the mine (001 L512-534).
    battle = start(
        ship("r1", "red", "frigate", 40, 0),
        ship("b1", "blue", "destroyer", 0, 40, course=6, speed=30),
        ship("b2", "blue", "frigate", 60, 0),
        mines=(mine("m1", "red", 0, 20),),
    )
    moved = move(battle, ScriptedDice([6, 5] + [1] * 8))  # 6 systems, drive and FTL
    assert [check.ship for check in moved.thresholds] == ["b1"]
    assert any(roll.key.startswith("t1/threshold/b1/mine/m1/row1/") for roll in moved.rolls)
    check_notation_and_replay(battle)


# ---------------------------------------------------------------- minelaying (L874-888)


def layer_ammo(record: ShipState) -> int | None:
    return next(s.ammo for s in record.systems if s.id == LAYER)


def battle_sheet(design: str) -> Ship:
    battle = start(ship("x", "red", design, 0, 0), ship("y", "blue", "frigate", 0, 50))
    return battle.ctx.sheets["x"]


def test_a_minelayer_carries_three_mines() -> None:
    # L886, L1344: "Minelayer including 3 Mines".
    sheet = battle_sheet("minelaying_destroyer")
    assert layer_ammo(fresh_state(sheet)) == 3


def test_a_mine_is_laid_along_the_move_and_active_the_turn_after() -> None:
    # L884: "anywhere along the ship's course"; L888: "does NOT become 'active' until the
    # game-turn after". Blue ends turn 1 within 3" of the new mine and is left alone; in turn
    # 2 it starts inside the radius and is attacked.
    battle = start(
        ship("r1", "red", "minelaying_destroyer", 0, 0, speed=10),
        ship("b1", "blue", "destroyer", 2, 20, course=6, speed=13),
        ship("r2", "red", "frigate", 60, 0),
    )
    moved = move(battle, ScriptedDice([]), red="r1:M5")
    assert moved.mines == (MineLaid(mine="r1.minelayer-1.t1", ship="r1", layer=LAYER, x=0, y=5),)
    assert battle.state.mines == (Mine(id="r1.minelayer-1.t1", side="red", x=0, y=5, laid=1),)
    assert layer_ammo(battle.state.ship("r1").record) == 2  # crossed off (L886)
    assert (battle.state.ship("b1").x, battle.state.ship("b1").y) == (2, 7)
    check_notation_and_replay(battle)
    finish_turn(battle)
    moved = move(battle, ScriptedDice([4, 4]))
    assert [(m.mine, m.ship) for m in moved.mines] == [("r1.minelayer-1.t1", "b1")]
    assert battle.state.mines == ()
    check_notation_and_replay(battle)


def test_a_mine_lies_where_the_order_drops_it_on_a_curved_move() -> None:
    # S2 at speed 10: one point of turn, 5" on course 1, the second point, 5" on course 2
    # (001 L346-358); M5 drops the mine at the mid-move turn.
    battle = start(
        ship("r1", "red", "minelaying_destroyer", 0, 0, speed=10),
        ship("b1", "blue", "frigate", 60, 60),
    )
    moved = move(battle, ScriptedDice([6, 1]), red="r1:S2M5")
    assert moved.mines == (
        MineLaid(mine="r1.minelayer-1.t1", ship="r1", layer=LAYER, x=2.5, y=4.33),
    )
    check_notation_and_replay(battle)


def test_one_mine_per_minelayer_a_turn() -> None:
    # L884: "Each Minelayer system fitted may deploy one Mine per turn".
    battle = start(
        ship("r1", "red", "minelaying_destroyer", 0, 0, speed=10),
        ship("b1", "blue", "frigate", 60, 60),
    )
    moved = move(battle, ScriptedDice([6, 1]), red="r1:S2M0M10")
    assert moved.moves[0].void is not None
    assert "one mine per minelayer" in moved.moves[0].void
    assert moved.mines == ()
    assert battle.state.ship("r1").course == 12  # the void order is no order (001 L364)


def test_mines_need_a_working_layer_with_mines_left() -> None:
    empty = fresh_state(battle_sheet("minelaying_destroyer"))
    systems = tuple(
        msgspec.structs.replace(s, ammo=0) if s.id == LAYER else s for s in empty.systems
    )
    setup_ship = msgspec.structs.replace(
        ship("r1", "red", "minelaying_destroyer", 0, 0, speed=4),
        state=msgspec.structs.replace(empty, systems=systems),
    )
    battle = start(
        setup_ship, ship("r2", "red", "frigate", 8, 0), ship("b1", "blue", "frigate", 0, 60)
    )
    moved = move(battle, ScriptedDice([]), red="r1:M r2:M")
    assert [m.void for m in moved.moves[:2]] == [
        "no working minelayer with mines left (001 L876-886)",
        "no working minelayer with mines left (001 L876-886)",
    ]
    assert battle.state.mines == ()


def test_a_ship_destroyed_before_its_drop_point_lays_nothing() -> None:
    # The layer meets an enemy mine 4/10 of the way along; the blast destroys it before the
    # drop at the end of its move (docs/rulings.md).
    damaged = fresh_state(battle_sheet("minelaying_destroyer"))
    damaged = msgspec.structs.replace(damaged, hull_lost=(3, 3))
    battle = start(
        msgspec.structs.replace(
            ship("r1", "red", "minelaying_destroyer", 0, 0, speed=10), state=damaged
        ),
        ship("r2", "red", "frigate", 60, 0),
        ship("b1", "blue", "frigate", 0, 60),
        mines=(mine("m1", "blue", 3, 4),),
    )
    moved = move(battle, ScriptedDice([6, 6, 6, 1]), red="r1:M")  # then one ship each
    assert [type(m).__name__ for m in moved.mines] == ["MineDetonated"]
    assert battle.state.ship("r1").status == "destroyed"
    assert battle.state.mines == ()


# ---------------------------------------------------------------- minesweeping (L890-898)


def sweep_battle(*more: ShipSetup, mines: tuple[MineSetup, ...] | None = None) -> Battle:
    """Blue's minesweeper flies down x=0 from y=40 to y=10 through red's mine at (0, 20)."""
    return start(
        ship("r1", "red", "frigate", 40, 0),
        ship("s1", "blue", "minesweeping_destroyer", 0, 40, course=6, speed=30),
        *more,
        mines=mines if mines is not None else (mine("m1", "red", 0, 20),),
    )


@pytest.mark.parametrize("face", [3, 4, 5, 6])
def test_a_sweep_of_3_to_6_removes_the_mine(face: int) -> None:
    battle = sweep_battle(ship("b2", "blue", "frigate", 60, 0))
    moved = move(battle, ScriptedDice([face]), blue="s1:W")
    assert moved.mines == (MineSwept(mine="m1", ship="s1", face=face, cleared=True),)
    assert [roll.key for roll in moved.rolls] == ["t1/sweep/s1/m1"]
    assert battle.state.mines == ()
    assert battle.state.ship("s1").sweeping
    check_notation_and_replay(battle)


def test_a_sweep_of_2_leaves_the_mine_for_the_next_ship() -> None:
    # L896: "it remains in position and can attack other ships as normal". b2 follows the
    # sweeper down the same line and reaches the mine later in its move.
    battle = sweep_battle(ship("b2", "blue", "destroyer", 0, 50, course=6, speed=30))
    moved = move(battle, ScriptedDice([2, 4, 4]), blue="s1:W")
    assert moved.mines == (
        MineSwept(mine="m1", ship="s1", face=2, cleared=False),
        MineDetonated(
            mine="m1",
            ship="b2",
            faces=(4, 4),
            hit=Hit(target="b2", damage=2, to_hull=2, to_armour=0),
        ),
    )
    assert battle.state.mines == ()


def test_a_sweep_of_1_sets_the_mine_off_against_the_sweeper() -> None:
    battle = sweep_battle(ship("b2", "blue", "frigate", 60, 0))
    moved = move(battle, ScriptedDice([1, 4, 5]), blue="s1:W")
    assert moved.mines == (
        MineDetonated(
            mine="m1",
            ship="s1",
            faces=(4, 5),
            hit=Hit(target="s1", damage=2, to_hull=2, to_armour=0),
            sweep=1,
        ),
    )
    lines = describe(moved)
    assert "    s1 sweeps mine m1: rolls 1, and the mine fires on s1 [4, 5]" in lines
    assert "    s1 takes 2" in lines


def test_a_sweeper_tries_every_mine_it_passes() -> None:
    # 000 L12912-12914: "A minesweeper can attempt to dispose of all the mines it passes".
    battle = sweep_battle(
        ship("b2", "blue", "frigate", 60, 0),
        mines=(mine("m2", "red", 1, 15), mine("m1", "red", 0, 30)),
    )
    moved = move(battle, ScriptedDice([5, 6]), blue="s1:W")
    assert [(m.mine, type(m).__name__) for m in moved.mines] == [
        ("m1", "MineSwept"),
        ("m2", "MineSwept"),
    ]


def test_a_sweeper_not_sweeping_is_attacked_like_any_ship() -> None:
    battle = sweep_battle(ship("b2", "blue", "frigate", 60, 0))
    moved = move(battle, ScriptedDice([4, 4]))
    assert isinstance(moved.mines[0], MineDetonated)
    assert not battle.state.ship("s1").sweeping


def test_a_sweeping_ship_fires_no_offensive_weapon() -> None:
    # L898: no offensive weapons that turn; anti-fighter defences and screens as normal.
    battle = start(
        ship("r1", "red", "frigate", 0, 14),
        ship("s1", "blue", "minesweeping_destroyer", 0, 10),
        ship("b2", "blue", "frigate", 60, 0),
    )
    move(battle, ScriptedDice([]), blue="s1:W")
    s1 = battle.state.ship("s1")
    assert s1.sweeping
    assert fire_options(battle.ctx, battle.state, "s1") == {}
    assert "s1" not in ships_to_fire(battle.ctx, battle.state, "blue")
    assert _defence(battle.ctx, s1).point == ("pdaf-1",)
    assert "/M" in format_position("ft2", battle.state)
    finish_turn(battle)
    assert not battle.state.ship("s1").sweeping  # for that turn only
    check_notation_and_replay(battle)


def test_a_sweep_needs_a_working_minesweeper() -> None:
    battle = start(ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 50))
    moved = move(battle, ScriptedDice([6, 1]), red="r1:W")
    assert moved.moves[0].void == "no working minesweeper to activate (001 L894)"
    assert not battle.state.ship("r1").sweeping


def test_an_armed_nova_cannon_leaves_no_power_for_mines() -> None:
    battle = start(
        ship("r1", "red", "nova_dreadnought", 0, 0), ship("b1", "blue", "frigate", 0, 50)
    )
    moved = move(battle, ScriptedDice([6, 1]), red="r1:NW")
    assert moved.moves[0].void is not None
    assert "nova cannon" in moved.moves[0].void


# ---------------------------------------------------------------- set-up, notation, journal


def test_a_set_up_file_places_mines() -> None:
    setup = decode_setup(
        """
        sides = ["red", "blue"]
        [[ships]]
        id = "r1"
        side = "red"
        design = "frigate"
        x = 0.0
        y = 0.0
        course = 12
        [[ships]]
        id = "b1"
        side = "blue"
        design = "frigate"
        x = 0.0
        y = 40.0
        course = 6
        [[mines]]
        id = "m1"
        side = "red"
        x = 1.5
        y = 20.0
        """
    )
    battle = Battle(setup)
    assert battle.state.mines == (Mine(id="m1", side="red", x=1.5, y=20),)
    text = format_position("ft2", battle.state)
    assert text.endswith(" M:red:m1@1.5,20")


@pytest.mark.parametrize(
    ("mines", "message"),
    [
        ((mine("m1", "green", 0, 0),), r"\$\.mines\[0\]\.side: 'green' is not one of"),
        ((mine("m1", "red", 0, 0), mine("m1", "blue", 5, 5)), r"\$\.mines\[1\]\.id: two mines"),
        ((mine("r1.minelayer-1.t2", "red", 0, 0),), r"\$\.mines\[0\]\.id: a set-up mine's id"),
    ],
)
def test_set_up_mines_are_checked(mines: tuple[MineSetup, ...], message: str) -> None:
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("r1", "red", "frigate", 0, 0),),
        mines=mines,
    )
    with pytest.raises(SetupError, match=message):
        context(setup)


def test_mine_counters_round_trip_in_the_notation() -> None:
    text = "ft2 2 orders - - red:r1:frigate@0,0>12v8/h0.0 M:red:m1@-3.25,10.5 M:blue:b.x.t1@4,5/t1"
    rules, state = parse_position(text)
    assert state.mines == (
        Mine(id="m1", side="red", x=-3.25, y=10.5),
        Mine(id="b.x.t1", side="blue", x=4, y=5, laid=1),
    )
    assert format_position(rules, state) == text


def test_the_journal_tells_the_mines() -> None:
    battle = start(
        ship("r1", "red", "minelaying_destroyer", 0, 0, speed=10),
        ship("b1", "blue", "minesweeping_destroyer", 0, 40, course=6, speed=30),
        mines=(mine("m1", "red", 0, 30),),
    )
    move(battle, ScriptedDice([2, 6, 1]), red="r1:M", blue="b1:W")
    lines = describe_journal(battle.journal)
    assert "    r1 lays mine r1.minelayer-1.t1 at 0,10, active next turn" in lines
    assert "    b1 sweeps mine m1: rolls 2, the mine stays" in lines


# ---------------------------------------------------------------- points and designs


def test_ft2_points_for_minelayer_and_minesweeper() -> None:
    # 001 L1344-1345: minelayer with 3 mines, mass 3 and 10 points; minesweeper 5 and 20.
    for design, points in (("minelaying_destroyer", 90), ("minesweeping_destroyer", 91)):
        costing = price(load_builtin(design, "ft2"), PRESETS["ft2"])
        assert costing.valid
        assert costing.points == points
    lines = {
        line.item: (line.mass, line.points)
        for line in price(load_builtin("minelaying_destroyer", "ft2"), PRESETS["ft2"]).lines
    }
    assert lines["Minelayer"] == (3, 10)
    sweeper = price(load_builtin("minesweeping_destroyer", "ft2"), PRESETS["ft2"]).lines
    assert ("Minesweeper", 5, 20) in [(line.item, line.mass, line.points) for line in sweeper]


def test_continuum_mine_layers_carry_their_mines_as_loads() -> None:
    # 000 L6799-6802: a rack is 2 mass at 3 points per mass; mines 1 mass and 2 points each,
    # at least 2 a rack. The minesweeper is 5 mass and 15 points (000 L16041).
    def design(*mounts: Mount) -> Design:
        return Design(
            name="Layer",
            rules="continuum",
            mass=40,
            thrust=4,
            hull_strength="average",
            fire_controls=1,
            systems=mounts,
        )

    costing = price(
        design(Mount(kind="minelayer", loads=3), Mount(kind="minesweeper")), PRESETS["continuum"]
    )
    assert costing.valid
    lines = {line.item: (line.mass, line.points) for line in costing.lines}
    assert lines["Mine layer (3 loads)"] == (5, 12)
    assert lines["Minesweeper"] == (5, 15)
    short = price(design(Mount(kind="minelayer", loads=1)), PRESETS["continuum"])
    assert [p.path for p in short.problems] == ["$.systems[0].loads"]
    bare = price(design(Mount(kind="minelayer")), PRESETS["continuum"])
    assert [p.path for p in bare.problems] == ["$.systems[0].loads"]


# ---------------------------------------------------------------- commanders


def test_engage_minelayer_drops_mines_in_a_pursuers_path() -> None:
    battle = start(
        ship("r1", "red", "minelaying_destroyer", 0, 0, speed=6),
        ship("b1", "blue", "destroyer", 0, 30, course=6, speed=6),
    )
    orders = engage_commander().orders(battle.ctx, battle.state, "red")
    assert orders["r1"].mines == (10,)  # its end is 6" from b1's forecast path
    battle.write_orders("red", orders)
    battle.write_orders("blue", {})
    moved = battle.resolve(SeededDice(1))
    assert isinstance(moved, ShipsMoved)
    assert [type(m) for m in moved.mines] == [MineLaid]


def test_a_sweeper_with_nothing_to_shoot_sweeps_the_mine_in_its_way() -> None:
    battle = start(
        ship("r1", "red", "frigate", 0, 200, course=12, speed=0),
        ship("b1", "blue", "minesweeping_destroyer", 0, 0, speed=8),
        mines=(mine("m1", "red", 0, 8),),
    )
    orders = engage_commander().orders(battle.ctx, battle.state, "blue")
    assert orders["b1"].sweep


def test_a_ship_turns_aside_from_a_known_mine_when_it_is_cheap() -> None:
    ships = (
        ship("r1", "red", "frigate", 0, 60, course=6, speed=0),
        ship("b1", "blue", "destroyer", 0, 0, speed=8),
    )
    mines = (mine("m1", "red", 0, 12),)
    clear, mined = start(*ships), start(*ships, mines=mines)
    b1 = mined.state.ship("b1")
    laid = list(mined.state.mines)
    straight = engage_commander().orders(clear.ctx, clear.state, "blue")["b1"]
    assert _met(move_path(clear.ctx, b1, straight), laid)  # its way runs over the mine
    aside = engage_commander().orders(mined.ctx, mined.state, "blue")
    assert _met(move_path(mined.ctx, b1, aside["b1"]), laid) == []
    assert order_commander("engage").orders(mined.ctx, mined.state, "blue") == aside


def test_the_mine_doctrine_leaves_orders_alone_without_mines() -> None:
    battle = start(
        ship("r1", "red", "destroyer", 0, 0, speed=6), ship("b1", "blue", "destroyer", 0, 40, 6, 6)
    )

    def inner(*_args: object) -> dict[str, Order]:
        return {"r1": Order(turn=1, accel=2)}

    assert with_mines(inner)(battle.ctx, battle.state, "red") == inner()


def test_stand_off_gets_the_mine_doctrine() -> None:
    # b1 is forecast to fly through (0, 2), 2" from where r1 starts its move.
    battle = start(
        ship("r1", "red", "minelaying_destroyer", 0, 0, speed=6),
        ship("b1", "blue", "destroyer", 0, 14, course=6, speed=6),
    )
    orders = order_commander("stand-off").orders(battle.ctx, battle.state, "red")
    assert orders["r1"].mines


def test_commanders_with_mines_play_whole_battles_that_replay() -> None:
    laid = swept = hit = 0
    for seed in range(12):
        rng = random.Random(seed)
        ships = (
            ship("r1", "red", "minelaying_destroyer", rng.uniform(-10, 10), 0, 12, 6),
            ship("r2", "red", "minesweeping_destroyer", rng.uniform(-10, 10), 4, 12, 6),
            ship("b1", "blue", "minelaying_destroyer", rng.uniform(-10, 10), 50, 6, 6),
            ship("b2", "blue", "destroyer", rng.uniform(-10, 10), 54, 6, 6),
        )
        mines = tuple(
            mine(f"m{i}", rng.choice(["red", "blue"]), rng.uniform(-15, 15), rng.uniform(10, 40))
            for i in range(4)
        )
        setup = BattleSetup(sides=("red", "blue"), ships=ships, mines=mines, turn_limit=10)
        commander = engage_commander if seed % 2 else closing_commander
        battle = play(Battle(setup), {"red": commander(), "blue": commander()}, SeededDice(seed))
        assert replay(setup, battle.journal) == battle.state
        for event in battle.journal:
            if isinstance(event, ShipsMoved):
                laid += sum(isinstance(m, MineLaid) for m in event.mines)
                swept += sum(isinstance(m, MineSwept) for m in event.mines)
                hit += sum(isinstance(m, MineDetonated) for m in event.mines)
                assert all(move.void is None for move in event.moves)
    assert laid > 5
    assert hit > 0


def test_a_campaign_battle_counts_mines_laid_as_munitions_spent() -> None:
    # Engage against Engage: the minelayer drops mines in the path of the ship closing on it,
    # and the outcome carries the crossed-off mines out of the battle (004 L185-201). (A Stand
    # Off minelayer, set up under vector movement running from the enemy, keeps out of the
    # closing ship's path: it lays none.)
    request = CampaignBattle(
        sides=(
            CampaignSide(
                name="red",
                order="engage",
                ships=(CampaignShip(id="red-W1", design="minelaying_destroyer"),),
            ),
            CampaignSide(
                name="blue",
                order="engage",
                ships=(CampaignShip(id="blue-W1", design="destroyer"),),
            ),
        ),
        turn_limit=8,
    )
    outcome = resolve_campaign_battle(request, SeededDice(3))
    layer = next(s for s in outcome.ships if s.id == "red-W1")
    laid = sum(
        isinstance(m, MineLaid)
        for event in outcome.journal
        if isinstance(event, ShipsMoved)
        for m in event.mines
    )
    assert laid > 0
    assert layer.munitions_spent == laid
    assert outcome_from_journal(outcome.setup, outcome.journal) == outcome
