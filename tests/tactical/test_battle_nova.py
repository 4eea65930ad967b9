"""The spinal-mount nova cannon (FT2 section 5, 001 L900-929), read line by line.

The seeds give no worked example, so these tests follow the text: capital ships only, firing
straight ahead on the centreline (L906); armed in the movement orders, with no thrust, no
other weapon and no screens that turn, and the arming lost if not fired (L908-919); the round
flies 6" to its arming point, then a 2" template moves 18" on doing 6D6 to everything it
touches (L921-925); the next turn, at the start of the firing, a 4" template moves 24" for 4D6,
and the turn after a 6" template another 24" for 2D6, then it burns out (L925); damage is
each die's face (L927) and screens never reduce it (L929).
"""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tactical.battle import (
    NOVA_LINE,
    Battle,
    BattleSetup,
    FightersResolved,
    NovaBlast,
    ShipFired,
    ShipSetup,
    ShipsMoved,
    Shot,
    fire_options,
    replay,
    sides_to_write,
)
from tactical.commanders import engage_commander, play
from tactical.dice import ScriptedDice, SeededDice
from tactical.fire import NOVA_ARMING_MU, NOVA_STAGES, nova_touches
from tactical.movement import Order, format_order, parse_order
from tactical.notation import format_position, parse_position
from tactical.state import working_defence as _defence
from tactical.state import working_screen as _screen
from tactical.summary import describe

from .test_random_battles import play_checked, random_setup

NOVA = "nova_cannon-1"


def ship(ship_id: str, side: str, design: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=0)


def armed(*others: ShipSetup, orders: dict[str, Order] | None = None) -> Battle:
    """Red's nova dreadnought at the origin facing +y, armed; red fires first."""
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("n1", "red", "nova_dreadnought", 0, 0), *others),
        rules="ft2",
        turn_limit=5,
    )
    battle = Battle(setup)
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, orders if orders is not None and side == "red" else {})
    battle.resolve(ScriptedDice([6, 1]))
    return battle


def hold_blue(battle: Battle) -> None:
    while battle.step().side == "blue":
        battle.fire(
            next(s.id for s in battle.state.ships if s.side == "blue" and not s.fired),
            [],
            ScriptedDice([]),
        )


def check_notation_and_replay(battle: Battle) -> None:
    parsed = parse_position(format_position("ft2", battle.state))
    assert parsed == ("ft2", battle.state)
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_the_order_is_written_n() -> None:
    # L908: the player notes the arming in the ship's movement orders.
    assert parse_order("N") == Order(nova=True)
    assert format_order(Order(nova=True)) == "N"


def test_arming_spends_no_thrust_and_fires_nothing_else() -> None:
    # L919: no thrust, no other weapon; the bow line is the only "target" (L906).
    battle = armed(ship("b1", "blue", "frigate", 5, 10, 6), orders={"n1": Order(nova=True)})
    n1 = battle.state.ship("n1")
    assert n1.nova
    assert (n1.x, n1.y, n1.course) == (0, 0, 12)
    assert fire_options(battle.ctx, battle.state, "n1") == {NOVA: (NOVA_LINE,)}
    check_notation_and_replay(battle)


def test_only_a_ship_with_a_working_cannon_arms() -> None:
    battle = armed(ship("b1", "blue", "frigate", 5, 10, 6))
    setup = msgspec.structs.replace(
        battle.ctx.setup, ships=(ship("n1", "red", "battleship", 0, 0), battle.ctx.setup.ships[1])
    )
    battle = Battle(setup)
    battle.write_orders("red", {"n1": Order(nova=True)})
    battle.write_orders("blue", {})
    moved = battle.resolve(ScriptedDice([6, 1]))
    assert isinstance(moved, ShipsMoved)
    assert moved.moves[0].void is not None
    assert "nova cannon" in moved.moves[0].void
    assert not battle.state.ship("n1").nova


def test_screens_fail_while_armed() -> None:
    # L919: "even its Screens may not function for that Turn". A 4 on a beam die scores 1
    # against no screen and nothing against level 1 (001 L496-502).
    for nova, damage in ((True, 1), (False, 0)):
        orders = {"n1": Order(nova=True)} if nova else {}
        battle = armed(ship("b1", "blue", "frigate", 0, 5, 6), orders=orders)
        if battle.step().side == "red":
            battle.fire("n1", [], ScriptedDice([]))
        fired = battle.fire("b1", [Shot("beam_b-1", "n1")], ScriptedDice([4, 1]))
        assert isinstance(fired, ShipFired)
        assert fired.hits[0].damage == damage


def test_first_template_six_d6_face_value_on_friend_and_foe() -> None:
    # L921-925: arming point 6" ahead, a 2" template moved 18" on: 6D6, each die its face
    # (L927), screens ignored (L929), friend or foe (digest 4.5).
    battle = armed(
        ship("r2", "red", "superdreadnought", 0.9, 12),  # inside the 2" path, a friend
        ship("b1", "blue", "superdreadnought", -1, 24),  # the far edge of the sweep
        ship("b2", "blue", "superdreadnought", 0, 4.5),  # short of the arming point
        ship("b3", "blue", "superdreadnought", 0, 25.5),  # past the 24" move
        ship("b4", "blue", "superdreadnought", 2, 15),  # off the line
        orders={"n1": Order(nova=True)},
    )
    hold_blue(battle)  # the side with more ships fires first (001 L262)
    fired = battle.fire("n1", [Shot(NOVA, NOVA_LINE)], ScriptedDice([1] * 6 + [1, 2] * 3))
    assert isinstance(fired, ShipFired)
    assert [(n.hit.target, n.faces, n.hit.damage, n.stage) for n in fired.nova] == [
        ("r2", (1,) * 6, 6, 1),
        ("b1", (1, 2) * 3, 9, 1),
    ]
    assert [r.key for r in fired.rolls][:2] == ["t1/nova/n1/s1/r2/0", "t1/nova/n1/s1/r2/1"]
    assert battle.state.ship("b1").record.hull_lost == (9, 0, 0, 0)  # level-2 screens ignored
    assert battle.state.novas == (NovaBlast(ship="n1", x=0, y=24, course=12, stage=1),)
    check_notation_and_replay(battle)


def play_turn(battle: Battle, dice: list[int]) -> ShipsMoved:
    """Finish the turn with no more fire, then move everyone straight on with these dice."""
    while battle.step().phase == "fire":
        side = battle.step().side
        ready = [s.id for s in battle.state.ships if s.side == side and not s.fired]
        battle.fire(ready[0], [], ScriptedDice([]))
    while battle.step().phase in ("end", "repair"):
        battle.resolve(ScriptedDice([]))
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})
    moved = battle.resolve(ScriptedDice(dice))
    assert isinstance(moved, ShipsMoved)
    return moved


def test_the_template_grows_and_burns_out() -> None:
    # L925: next turn a 4" template 24" on for 4D6, then a 6" one 24" more for 2D6, then
    # it is removed.
    battle = armed(
        ship("b1", "blue", "superdreadnought", 1.9, 40),  # within 2" of the second sweep
        ship("b2", "blue", "superdreadnought", 2.9, 60),  # within 3" of the third
        ship("b3", "blue", "superdreadnought", -2.5, 30),  # too wide for the 4" template
        orders={"n1": Order(nova=True)},
    )
    hold_blue(battle)
    battle.fire("n1", [Shot(NOVA, NOVA_LINE)], ScriptedDice([]))
    second = play_turn(battle, [2, 2, 2, 2])
    assert [(n.hit.target, n.faces, n.stage) for n in second.nova] == [("b1", (2,) * 4, 2)]
    burning = battle.state.novas
    assert burning == (NovaBlast(ship="n1", x=0, y=48, course=12, stage=2),)
    check_notation_and_replay(battle)
    third = play_turn(battle, [4, 5])
    assert [(n.hit.target, n.faces, n.hit.damage, n.stage) for n in third.nova] == [
        ("b2", (4, 5), 9, 3)
    ]
    assert battle.state.novas == ()
    check_notation_and_replay(battle)


def test_arming_is_lost_unless_fired() -> None:
    # L919: not fired that turn, for any reason, and it must be re-armed.
    battle = armed(ship("b1", "blue", "frigate", 0, 10, 6), orders={"n1": Order(nova=True)})
    play_turn(battle, [6, 1])  # one ship a side: initiative is rolled
    assert not battle.state.ship("n1").nova
    assert NOVA not in fire_options(battle.ctx, battle.state, "n1")
    assert battle.state.novas == ()
    check_notation_and_replay(battle)


def test_engage_arms_and_fires_at_an_enemy_on_the_bow() -> None:
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ship("n1", "red", "nova_dreadnought", 0, 0),
            ship("b1", "blue", "battleship", 0, 16, 6),
        ),
        rules="ft2",
        turn_limit=2,
    )
    battle = Battle(setup)
    commander = engage_commander()
    assert commander.orders(battle.ctx, battle.state, "red") == {"n1": Order(nova=True)}
    play(battle, {"red": commander, "blue": engage_commander()}, SeededDice(4))
    fired = [e for e in battle.journal if isinstance(e, ShipFired) and e.ship == "n1"]
    assert fired[0].shots[0].weapon == NOVA
    assert fired[0].nova
    assert replay(setup, battle.journal) == battle.state


def test_engage_holds_the_nova_when_a_friend_is_on_the_line() -> None:
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ship("n1", "red", "nova_dreadnought", 0, 0),
            ship("r2", "red", "frigate", 0, 10),
            ship("b1", "blue", "battleship", 0, 16, 6),
        ),
        rules="ft2",
    )
    battle = Battle(setup)
    assert engage_commander().orders(battle.ctx, battle.state, "red")["n1"] != Order(nova=True)


@pytest.mark.parametrize(
    ("stage", "diameter", "flight", "dice"), [(0, 2, 18, 6), (1, 4, 24, 4), (2, 6, 24, 2)]
)
def test_stage_table(stage: int, diameter: float, flight: float, dice: int) -> None:
    assert NOVA_ARMING_MU == 6  # L921
    assert NOVA_STAGES[stage] == (diameter, flight, dice)  # L923-925


@given(
    st.floats(-30, 30, allow_nan=False),
    st.floats(-30, 60, allow_nan=False),
    st.floats(0.5, 6),
    st.floats(0, 3),
)
def test_a_wider_template_touches_all_a_narrower_one_does(
    x: float, y: float, diameter: float, extra: float
) -> None:
    path = ((0.0, 6.0), (0.0, 24.0))
    if nova_touches(*path, diameter, x, y):
        assert nova_touches(*path, diameter + extra, x, y)
    # Symmetric about the line of flight.
    assert nova_touches(*path, diameter, x, y) == nova_touches(*path, diameter, -x, y)


def test_engage_nova_battles_keep_the_invariants() -> None:
    # Random set-ups with nova dreadnoughts on both sides under the Engage commander: every
    # position round-trips, the battle ends, replay equals live, and the cannons are fired.
    fired = touched = 0
    for seed in range(30):
        rng = random.Random(f"nova/{seed}")
        base = random_setup("ft2", rng)
        ships = tuple(
            msgspec.structs.replace(s, design="nova_dreadnought") if i % 2 == 0 else s
            for i, s in enumerate(base.ships)
        )
        setup = msgspec.structs.replace(base, ships=ships)
        commanders = {"red": engage_commander(), "blue": engage_commander()}
        battle = play_checked(setup, commanders, seed)
        assert battle.state.phase == "over"
        assert replay(setup, battle.journal) == battle.state
        for event in battle.journal:
            if isinstance(event, ShipFired):
                fired += sum(1 for shot in event.shots if shot.weapon == NOVA)
            if isinstance(event, ShipFired | ShipsMoved | FightersResolved):
                touched += len(event.nova)
    assert fired > 5
    assert touched > 0


@given(
    st.lists(
        st.tuples(
            st.integers(-(10**6), 10**6),
            st.integers(-(10**6), 10**6),
            st.integers(1, 12),
            st.integers(1, 2),
        ),
        max_size=3,
    ),
    st.booleans(),
)
def test_nova_state_round_trips(blasts: list[tuple[int, int, int, int]], nova_armed: bool) -> None:
    battle = armed(ship("b1", "blue", "frigate", 5, 10, 6))
    n1 = msgspec.structs.replace(battle.state.ship("n1"), nova=nova_armed)
    novas = tuple(
        NovaBlast(ship="n1", x=x / 1000, y=y / 1000, course=course, stage=stage)
        for x, y, course, stage in blasts
    )
    state = msgspec.structs.replace(battle.state, ships=(n1, *battle.state.ships[1:]), novas=novas)
    assert parse_position(format_position("ft2", state)) == ("ft2", state)


def test_no_point_defence_while_armed() -> None:
    # L919: "may not fire ANY other weapons" - its PDAF stays silent against fighters too.
    battle = armed(ship("b1", "blue", "frigate", 5, 10, 6), orders={"n1": Order(nova=True)})
    n1 = battle.state.ship("n1")
    assert _defence(battle.ctx, n1).point == ()
    assert _screen(battle.ctx, n1) == 0
    calm = msgspec.structs.replace(n1, nova=False)
    assert _defence(battle.ctx, calm).point == ("pdaf-1",)
    assert _screen(battle.ctx, calm) == 1


def test_the_story_tells_the_nova() -> None:
    battle = armed(
        ship("b1", "blue", "superdreadnought", 0, 20, 6), orders={"n1": Order(nova=True)}
    )
    hold_blue(battle)
    fired = battle.fire("n1", [Shot(NOVA, NOVA_LINE)], ScriptedDice([1, 1, 1, 1, 1, 2]))
    assert describe(fired) == [
        "  n1 fires: nova_cannon-1 at bow []",
        "    n1's nova template (stage 1) [1, 1, 1, 1, 1, 2]",
        "    b1 takes 7",
    ]
