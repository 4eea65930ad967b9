"""The battle engine: steps, orders, initiative, alternating fire, damage, thresholds, replay."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    IllegalActionError,
    OrdersWritten,
    SetupError,
    ShipFired,
    ShipSetup,
    ShipsMoved,
    Shot,
    StepKind,
    TurnEnded,
    decode_journal,
    decode_setup,
    encode_journal,
    fire_options,
    replay,
    ships_to_fire,
    sides_to_write,
    view,
)
from tactical.dice import DiceError, Roll, ScriptedDice
from tactical.movement import NO_ORDER, Order
from tactical.notation import format_position, parse_position
from tactical.ship import ShipState


def ship(
    ship_id: str,
    side: str,
    design: str,
    x: float,
    y: float,
    course: int = 12,
    speed: int = 0,
) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=speed)


def duel(rules: str = "ft2", *ships: ShipSetup, turn_limit: int = 20) -> Battle:
    return Battle(
        BattleSetup(sides=("red", "blue"), ships=ships, rules=rules, turn_limit=turn_limit)
    )


def no_orders(battle: Battle) -> None:
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})


def test_the_turn_as_steps() -> None:
    battle = duel("ft2", ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 50))
    assert battle.step() == ("simultaneous", "orders", None)
    battle.write_orders("red", {"r1": Order(accel=2)})
    assert battle.step().kind == StepKind.SIMULTANEOUS
    assert sides_to_write(battle.ctx, battle.state) == ("blue",)
    battle.write_orders("blue", {})
    assert battle.step() == ("chance", "movement", None)
    # Equal fleets: a D6 each, ties re-rolled (001 L262).
    moved = battle.resolve(ScriptedDice([3, 3, 2, 5]))
    assert isinstance(moved, ShipsMoved)
    assert moved.first == "blue"
    assert [r.key for r in moved.rolls] == [
        "t1/initiative/red/0",
        "t1/initiative/blue/0",
        "t1/initiative/red/1",
        "t1/initiative/blue/1",
    ]
    assert battle.state.ship("r1").y == 2.0
    assert battle.step() == ("player", "fire", "blue")
    battle.fire("b1", [], ScriptedDice([]))
    assert battle.step() == ("player", "fire", "red")
    battle.fire("r1", [], ScriptedDice([]))
    assert battle.step() == ("chance", "end", None)
    ended = battle.resolve(ScriptedDice([]))
    assert isinstance(ended, TurnEnded)
    assert not ended.over
    assert battle.step() == ("simultaneous", "orders", None)
    assert battle.state.turn == 2
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_impossible_orders_go_straight_ahead() -> None:
    # 001 L364: an order that exceeds the thrust rating is treated as no order.
    battle = duel(
        "ft2", ship("r1", "red", "frigate", 0, 0, speed=4), ship("b1", "blue", "frigate", 0, 90)
    )
    battle.write_orders("red", {"r1": Order(turn=3, accel=4)})
    battle.write_orders("blue", {"b1": NO_ORDER})
    moved = battle.resolve(ScriptedDice([6, 1]))
    assert isinstance(moved, ShipsMoved)
    assert moved.moves[0].order == "S3+4"
    assert moved.moves[0].void is not None
    assert "thrust" in moved.moves[0].void
    assert (moved.moves[0].x, moved.moves[0].y, moved.moves[0].course) == (0.0, 4.0, 12)


def test_illegal_orders_quote_themselves() -> None:
    battle = duel("ft2", ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 50))
    with pytest.raises(IllegalActionError, match=r"'b1:P1' for red on turn 1: 'b1' is not red's"):
        battle.write_orders("red", {"b1": Order(turn=-1)})
    with pytest.raises(IllegalActionError, match="no ship 'zz'"):
        battle.write_orders("red", {"zz": NO_ORDER})
    battle.write_orders("red", {})
    with pytest.raises(IllegalActionError, match="red has no orders to write"):
        battle.write_orders("red", {})
    with pytest.raises(IllegalActionError, match="no chance step"):
        battle.resolve(ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="orders step"):
        battle.fire("r1", [], ScriptedDice([]))


def test_most_ships_fire_first_and_leftovers_fire_last() -> None:
    # 001 L262: the side with more ships fires first; L270: it fires its leftover ships after
    # the other side's last.
    battle = duel(
        "ft2",
        ship("r1", "red", "frigate", 0, 0),
        ship("r2", "red", "frigate", 5, 0),
        ship("r3", "red", "frigate", 10, 0),
        ship("b1", "blue", "frigate", 0, 20, course=6),
    )
    no_orders(battle)
    moved = battle.resolve(ScriptedDice([]))
    assert isinstance(moved, ShipsMoved)
    assert moved.first == "red"
    assert moved.rolls == ()
    sides = []
    while battle.step().kind == StepKind.PLAYER:
        side = battle.step().side
        assert side is not None
        sides.append(side)
        battle.fire(ships_to_fire(battle.ctx, battle.state, side)[0], [], ScriptedDice([]))
    assert sides == ["red", "blue", "red", "red"]


def test_shots_must_fit_arcs_range_and_fire_controls() -> None:
    battle = duel(
        "ft2",
        ship("r1", "red", "frigate", 0, 0),
        ship("b1", "blue", "frigate", 0, 10),  # dead ahead, 10"
        ship("b2", "blue", "frigate", 10, 0),  # starboard, 10"
        ship("b3", "blue", "frigate", 0, -10),  # astern: no offensive fire aft (001 L404)
        ship("b4", "blue", "frigate", 0, 30),  # ahead, beyond the B battery's 24"
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([]))  # blue has more ships and fires first
    battle.fire("b1", [], ScriptedDice([]))
    assert battle.step() == ("player", "fire", "red")
    options = fire_options(battle.ctx, battle.state, "r1")
    assert options == {"beam_b-1": ("b1", "b2"), "beam_c-1": ("b1", "b2")}
    with pytest.raises(IllegalActionError, match="beam_b-1 cannot reach b3"):
        battle.fire("r1", [Shot("beam_b-1", "b3")], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="beam_b-1 cannot reach b4"):
        battle.fire("r1", [Shot("beam_b-1", "b4")], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="pdaf-1 cannot reach"):
        battle.fire("r1", [Shot("pdaf-1", "b1")], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="fires once a turn"):
        battle.fire("r1", [Shot("beam_b-1", "b1"), Shot("beam_b-1", "b1")], ScriptedDice([]))
    # A frigate has one FireCon: one target a turn (001 L380).
    with pytest.raises(IllegalActionError, match="2 targets and 1 working FireCons"):
        battle.fire("r1", [Shot("beam_b-1", "b1"), Shot("beam_c-1", "b2")], ScriptedDice([]))
    fired = battle.fire(
        "r1", [Shot("beam_b-1", "b1"), Shot("beam_c-1", "b1")], ScriptedDice([1, 1, 1])
    )
    assert isinstance(fired, ShipFired)
    assert [r.key for r in fired.rolls] == [
        "t1/fire/r1/beam_b-1/0",
        "t1/fire/r1/beam_b-1/1",
        "t1/fire/r1/beam_c-1/0",
    ]


def test_damage_threshold_and_lost_fire_control() -> None:
    battle = duel(
        "ft2",
        ship("r1", "red", "light_cruiser", 0, 0),
        ship("b1", "blue", "frigate", 0, 10, course=6),
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([6, 1]))
    shots = [Shot(f"beam_b-{n}", "b1") for n in (1, 2, 3)]
    # Six dice at 10": two 4s are 2 damage, the frigate's first row (2, 3): a threshold.
    # Its five systems, drive and FTL roll; the FireCon rolls the 6 and is lost (001 L518).
    fired = battle.fire("r1", shots, ScriptedDice([4, 4, 1, 1, 1, 1, 6, 1, 1, 1, 1, 1, 1]))
    assert isinstance(fired, ShipFired)
    assert fired.hits[0].damage == 2
    assert fired.hits[0].rows == (1,)
    assert fired.thresholds[0].lost == ("firecon-1",)
    frigate = battle.state.ship("b1")
    assert frigate.record.hull_lost == (2, 0)
    with pytest.raises(IllegalActionError, match="1 targets and 0 working FireCons"):
        battle.fire("b1", [Shot("beam_b-1", "r1")], ScriptedDice([]))
    battle.fire("b1", [], ScriptedDice([]))
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_screens_cut_damage() -> None:
    # 001 L498: level-1 screens ignore 4s.
    battle = duel(
        "ft2",
        ship("r1", "red", "frigate", 0, 0),
        ship("b1", "blue", "light_cruiser", 0, 10, course=6),
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([6, 1]))
    fired = battle.fire(
        "r1", [Shot("beam_b-1", "b1"), Shot("beam_c-1", "b1")], ScriptedDice([4, 4, 5])
    )
    assert isinstance(fired, ShipFired)
    assert fired.hits[0].damage == 1


def test_ft2_removes_the_destroyed_at_once() -> None:
    battle = duel(
        "ft2",
        ship("r1", "red", "light_cruiser", 0, 0),
        ship("b1", "blue", "courier", 0, 10, course=6),
        ship("b2", "blue", "courier", 5, 10, course=6),
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([]))  # blue has more ships
    battle.fire("b1", [], ScriptedDice([]))
    shots = [Shot("beam_b-1", "b2")]
    fired = battle.fire("r1", shots, ScriptedDice([5, 1]))
    assert isinstance(fired, ShipFired)
    assert fired.hits[0].destroyed
    assert battle.state.ship("b2").status == "destroyed"
    # 001 L476: removed from play at once, so b2 never fires; the turn ends.
    assert battle.step() == ("chance", "end", None)


def test_continuum_wrecks_fire_back_and_thresholds_wait() -> None:
    # 000 L1053-1472: a ship reduced to 0 hull still fires in its turn and is removed at the end
    # of the phase; threshold checks for ship fire come at the end (phase 13).
    battle = duel(
        "continuum",
        ship("r1", "red", "heavy_cruiser", 0, 0),
        ship("b1", "blue", "heavy_cruiser", 0, 10, course=6),
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([6, 1]))
    assert battle.step().side == "red"
    options = fire_options(battle.ctx, battle.state, "r1")
    shots = [Shot(weapon, "b1") for weapon in options]
    many = ScriptedDice([6] * 9 + [6] * 30 + [1] * 200)
    fired = battle.fire("r1", shots, many)
    assert isinstance(fired, ShipFired)
    assert fired.thresholds == ()
    wreck = battle.state.ship("b1")
    assert wreck.status == "active"
    assert sum(wreck.record.hull_lost) == sum(battle.ctx.sheets["b1"].rows)
    assert battle.step() == ("player", "fire", "blue")
    back = battle.fire(
        "b1",
        [Shot(w, "r1") for w in fire_options(battle.ctx, battle.state, "b1")],
        ScriptedDice([1] * 20),
    )
    assert isinstance(back, ShipFired)
    ended = battle.resolve(ScriptedDice([]))
    assert isinstance(ended, TurnEnded)
    assert ended.removed == ("b1",)
    assert ended.over
    assert ended.winner == "red"
    assert battle.step().kind == StepKind.TERMINAL
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_continuum_one_check_for_two_rows() -> None:
    battle = duel(
        "continuum",
        ship("r1", "red", "heavy_cruiser", 0, 0),
        ship("b1", "blue", "heavy_cruiser", 0, 10, course=6),
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([6, 1]))
    # Two Beam-3 and a Beam-2 ahead at 10 MU: 3 + 3 + 2 dice against level-1 screens; six 6s
    # and two 5s are 14 damage, rows 1 and 2 of 7, 7, 6, 6; the six re-rolls miss.
    shots = [Shot("beam3-1", "b1"), Shot("beam3-2", "b1"), Shot("beam2-1", "b1")]
    fired = battle.fire("r1", shots, ScriptedDice([6] * 6 + [5, 5] + [1] * 6))
    assert isinstance(fired, ShipFired)
    assert fired.hits[0].rows == (1, 2)
    assert battle.state.ship("b1").rows == (1, 2)
    battle.fire("b1", [], ScriptedDice([]))
    systems = len(battle.ctx.sheets["b1"].systems)
    ended = battle.resolve(ScriptedDice([4] * (systems + 2)))
    assert isinstance(ended, TurnEnded)
    (check,) = ended.thresholds
    assert (check.row, check.modifier) == (2, 1)
    assert len(check.lost) == systems
    assert check.drive


def test_turn_limit_ends_the_battle() -> None:
    battle = duel(
        "ft2",
        ship("r1", "red", "frigate", 0, 0),
        ship("b1", "blue", "frigate", 0, 200),
        turn_limit=1,
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([1, 2]))
    battle.fire("b1", [], ScriptedDice([]))
    battle.fire("r1", [], ScriptedDice([]))
    ended = battle.resolve(ScriptedDice([]))
    assert isinstance(ended, TurnEnded)
    assert ended.over
    assert ended.winner is None
    assert "turn limit" in ended.reason


def table_duel(rules: str) -> Battle:
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("r1", "red", "frigate", 0, 0, speed=8), ship("b1", "blue", "frigate", 0, 5)),
        table=(-5.0, -5.0, 5.0, 5.0),
        rules=rules,
        turn_limit=10,
    )
    battle = Battle(setup)
    no_orders(battle)
    return battle


def test_leaving_the_table_for_good() -> None:
    # 001 L538: a 1-3 and the ship may not return.
    battle = table_duel("ft2")
    moved = battle.resolve(ScriptedDice([3]))
    assert isinstance(moved, ShipsMoved)
    assert moved.moves[0].left
    assert moved.moves[0].returns is None
    assert [r.key for r in moved.rolls] == ["t1/leave/r1"]
    assert battle.state.ship("r1").status == "left"
    assert battle.step().phase == "end"  # nothing left to shoot at
    ended = battle.resolve(ScriptedDice([]))
    assert isinstance(ended, TurnEnded)
    assert ended.winner == "blue"


def test_leaving_the_table_and_coming_back() -> None:
    # 001 L538: on a 4-6 the ship re-enters after that many turns, by the same edge.
    battle = table_duel("ft2")
    battle.resolve(ScriptedDice([4]))
    away = battle.state.ship("r1")
    assert (away.status, away.returns) == ("away", 5)
    assert parse_position(format_position("ft2", battle.state))[1] == battle.state
    battle.resolve(ScriptedDice([]))
    assert battle.step() == ("simultaneous", "orders", None)  # red is away, not beaten
    for _turn in range(2, 5):
        assert sides_to_write(battle.ctx, battle.state) == ("blue",)
        no_orders(battle)
        battle.resolve(ScriptedDice([]))
        battle.resolve(ScriptedDice([]))
    assert battle.state.turn == 5
    assert sides_to_write(battle.ctx, battle.state) == ("red", "blue")
    battle.write_orders("red", {"r1": Order(accel=-6)})
    battle.write_orders("blue", {})
    moved = battle.resolve(ScriptedDice([6, 1]))
    assert isinstance(moved, ShipsMoved)
    back = battle.state.ship("r1")
    # Back at its exit point on the north edge (0, 5), facing onto the table at its exit
    # speed of 8, and this turn's order slows it to 2.
    assert (back.x, back.y, back.course, back.speed, back.status) == (0.0, 3.0, 6, 2, "active")
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_continuum_ships_that_leave_are_gone() -> None:
    # 000 L2348-2386: leaving the table counts as retreating; no roll.
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ship("r1", "red", "heavy_cruiser", 0, 0, speed=8),
            ship("b1", "blue", "heavy_cruiser", 0, 5),
        ),
        table=(-5.0, -5.0, 5.0, 5.0),
        rules="continuum",
    )
    battle = Battle(setup)
    no_orders(battle)
    moved = battle.resolve(ScriptedDice([]))
    assert isinstance(moved, ShipsMoved)
    assert battle.state.ship("r1").status == "left"


def test_journal_round_trips_and_replay_checks_dice() -> None:
    battle = duel(
        "ft2", ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 10, course=6)
    )
    no_orders(battle)
    battle.resolve(ScriptedDice([6, 1]))
    battle.fire("r1", [Shot("beam_b-1", "b1")], ScriptedDice([5, 1]))
    journal = decode_journal(encode_journal(battle.journal))
    assert journal == battle.journal
    assert replay(battle.ctx.setup, journal) == battle.state
    fired = journal[-1]
    assert isinstance(fired, ShipFired)
    tampered = msgspec.structs.replace(fired, rolls=(Roll("t1/fire/r1/beam_b-1/0", 6, 5),))
    with pytest.raises(DiceError, match="recorded no more"):
        replay(battle.ctx.setup, [*journal[:-1], tampered])


def test_written_orders_stay_secret() -> None:
    # 001 L248: orders are written secretly and simultaneously.
    battle = duel("ft2", ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 50))
    battle.write_orders("red", {"r1": Order(turn=-2, accel=3)})
    blue_sees = view(battle.state, "blue")
    assert "P2+3" not in format_position("ft2", blue_sees)
    assert "P2+3" not in repr(blue_sees)
    assert [w.side for w in blue_sees.written] == ["red"]
    assert "P2+3" in format_position("ft2", view(battle.state, "red"))


def test_setup_problems_are_listed_together() -> None:
    broken = BattleSetup(
        sides=("red", "red"),
        ships=(
            ship("r1", "red", "frigit", 0, 0),
            ship("r1", "green", "frigate", 0, 0),
            ShipSetup(
                id="r2",
                side="red",
                design="frigate",
                x=0,
                y=0,
                course=1,
                state=ShipState(ship_id="r2", hull_lost=(2, 9)),
            ),
        ),
    )
    with pytest.raises(SetupError) as caught:
        Battle(broken)
    paths = [problem.path for problem in caught.value.problems]
    assert paths == [
        "$.sides",
        "$.ships[0].design",
        "$.ships[1].id",
        "$.ships[1].side",
        "$.ships[2].state.hull_lost",
        "$.ships[2].state.systems",
    ]
    assert "frigit" in str(caught.value)


def test_setup_files() -> None:
    text = """
name = "a frigate duel"
sides = ["red", "blue"]
rules = "ft2"
turn_limit = 5

[[ships]]
id = "r1"
side = "red"
design = "frigate"
x = 0.0
y = 0.0
course = 12
speed = 8

[[ships]]
id = "b1"
side = "blue"
design = "frigate"
x = 0.0
y = 40.0
course = 6
speed = 8
"""
    setup = decode_setup(text, "duel.toml")
    assert setup.ships[1].y == 40.0
    assert Battle(setup).step().phase == "orders"
    with pytest.raises(SetupError, match=r"duel.toml: \$.ships\[0\].course: Expected `int` <= 12"):
        decode_setup(text.replace("course = 12", "course = 13"), "duel.toml")
    with pytest.raises(SetupError, match="unknown field `colour`"):
        decode_setup('colour = "red"\n' + text, "duel.toml")
    with pytest.raises(SetupError, match="not valid TOML"):
        decode_setup("sides = [", "duel.toml")


@pytest.mark.parametrize("seed", [1, 2, 10])
def test_a_turn_with_every_ship_off_the_table_still_passes(seed: int) -> None:
    """Two Stand Off commanders on grendel both leave the table (001 L538); with nobody on it
    the turns must run on to the returns and the turn limit (this once looped for ever)."""
    from tactical.commanders import play, stand_off_commander
    from tactical.dice import SeededDice
    from tactical.scenarios import SCENARIOS

    setup = SCENARIOS["grendel"]()
    battle = play(
        Battle(setup), {side: stand_off_commander() for side in setup.sides}, SeededDice(seed)
    )
    assert battle.step().kind == StepKind.TERMINAL
    ordered = {e.turn for e in battle.journal if isinstance(e, OrdersWritten)}
    ended = [e.turn for e in battle.journal if isinstance(e, TurnEnded)]
    assert ended == list(range(1, len(ended) + 1))
    if seed == 10:  # on this seed (today's Stand Off) every ship is away on some turns
        assert set(ended) - ordered
    assert replay(setup, battle.journal) == battle.state


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_cinematic_engage_ships_close_and_fight(seed: int) -> None:
    """Engage against Engage on grendel, cinematic: each ship keeps up only with the part of
    its target's motion that draws away from it. Matching the target's whole speed doubled
    the closing rate head on, and after each pass both sides' speeds climbed (to 41 MU a turn
    by turn 20) until every ship had run off the table. Now speeds settle and the battle is
    fought to a finish on the table."""
    from tactical.commanders import engage_commander, play
    from tactical.dice import SeededDice
    from tactical.scenarios import SCENARIOS

    setup = SCENARIOS["grendel"]()
    battle = play(
        Battle(setup), {side: engage_commander() for side in setup.sides}, SeededDice(seed)
    )
    speeds = [m.speed for e in battle.journal if isinstance(e, ShipsMoved) for m in e.moves]
    assert max(speeds) <= 20
    assert battle.state.winner is not None
    assert not any(s.status in ("left", "away") for s in battle.state.ships)
