"""Full Thrust Lite (002) as the ``lite`` battle rules: its worked examples, each citing its
line, played through the battle engine; its damage control, DCPs and aft fire; and the
built-in ``lite`` scenario fought from the CLI and replayed from its journal."""

from __future__ import annotations

import json

import msgspec
import pytest
from typer.testing import CliRunner

from cli import app
from tactical.battle import (
    DRIVE,
    Battle,
    BattleSetup,
    IllegalActionError,
    RepairsMade,
    ShipFired,
    ShipSetup,
    ShipsMoved,
    Shot,
    decode_journal,
    fire_options,
    replay,
    sheet_for,
    ships_to_fire,
    sides_to_write,
)
from tactical.dice import ScriptedDice, SeededDice
from tactical.fire import beam_dice
from tactical.movement import MoveStart, Order, heading_vector, move, order_problem, round_mu
from tactical.notation import format_position, parse_position
from tactical.odds import TableBattle, odds
from tactical.repair import crew_markers, damage_control_parties
from tactical.rules import BATTLE_RULES
from tactical.scenarios import lite
from tactical.ship import (
    ShipState,
    apply_damage,
    current_thrust,
    fresh_state,
    with_system_status,
)

LITE = BATTLE_RULES["lite"]
runner = CliRunner()


def _battle(*ships: ShipSetup, rules: str = "lite") -> Battle:
    return Battle(BattleSetup(sides=("red", "blue"), rules=rules, ships=ships, turn_limit=10))


def _orders(battle: Battle, orders: dict[str, Order] | None = None) -> None:
    """Every side writes its orders (the named ones, no order for the rest)."""
    for side in sides_to_write(battle.ctx, battle.state):
        own = {s.id for s in battle.state.ships if s.side == side}
        battle.write_orders(side, {k: v for k, v in (orders or {}).items() if k in own})


# ---------------------------------------------------------------- movement (002 L35-45)


def test_the_preset_reads_lite() -> None:
    assert LITE.turn_limit(6) == 3  # 002 L39: "Up to half a ship's thrust points"
    assert LITE.turn_limit(5) == 2  # "up to half": rounded down
    assert LITE.beam_reroll  # 002 L53
    assert LITE.threshold_timing == "immediate"  # 002 L31, L57
    assert LITE.initiative == "roll"  # 002 L31: "Players roll for initiative"
    assert not LITE.destroyed_fire  # 002 L31: "Damage effects take place immediately"
    assert LITE.lost_status == "damaged"  # 002 L59: disabled until repaired
    assert LITE.damage_control == "lite"  # 002 L33, L61-65
    assert LITE.aft_fire == "unthrusted"  # 002 L51


def test_lite_movement_example_through_the_engine() -> None:
    # 002 L43-45: a thrust 6 ship at speed 10 in direction 7 turns left 3 and accelerates 2:
    # left one point, six inches, left two more, six inches; it ends at speed 12 in direction 4.
    order = Order(turn=-3, accel=2)
    assert order_problem(order, speed=10, course=7, thrust=6, rules=LITE) is None
    battle = _battle(
        ShipSetup(id="r1", side="red", design="destroyer", x=0, y=0, course=7, speed=10),
        ShipSetup(id="b1", side="blue", design="destroyer", x=100, y=100, course=6),
    )
    assert battle.ctx.sheets["r1"].thrust == 6
    _orders(battle, {"r1": order})
    moved = battle.resolve(SeededDice(1))
    assert isinstance(moved, ShipsMoved)
    r1 = next(m for m in moved.moves if m.ship == "r1")
    assert (r1.course, r1.speed, r1.void) == (4, 12, None)
    alone = move(MoveStart(x=0.0, y=0.0, course=7, speed=10), order, LITE.split_velocity)
    dx, dy = heading_vector(6)  # course 7 turned left one point, six inches to the midpoint
    assert (alone.mid_x, alone.mid_y) == (round_mu(6 * dx), round_mu(6 * dy))
    dx, dy = heading_vector(4)  # two more points left, six inches more
    assert (r1.x, r1.y) == (round_mu(alone.mid_x + 6 * dx), round_mu(alone.mid_y + 6 * dy))
    assert battle.state.ship("r1").thrusted  # it used thrust (002 L51)


def test_lite_turn_limit_is_half_the_thrust_rounded_down() -> None:
    # 002 L39: "Up to half a ship's thrust points can be used to change direction".
    assert order_problem(Order(turn=-4), speed=10, course=7, thrust=6, rules=LITE) is not None
    assert order_problem(Order(turn=3), speed=10, course=7, thrust=5, rules=LITE) is not None
    assert order_problem(Order(turn=2), speed=10, course=7, thrust=5, rules=LITE) is None
    # 002 L37: no travelling backwards.
    assert order_problem(Order(accel=-11), speed=10, course=7, thrust=6, rules=LITE) is not None


# ---------------------------------------------------------------- fire (002 L49-53)


def _firing(target: str, state: ShipState | None = None) -> Battle:
    """A heavy cruiser (a Beam-A rolls 3 dice to 12", 001 L456) and a target 9" ahead; red
    has the initiative."""
    battle = _battle(
        ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12),
        ShipSetup(id="b1", side="blue", design=target, x=0, y=9, course=6, state=state),
    )
    _orders(battle)
    battle.resolve(ScriptedDice([6, 1]))  # the initiative dice (002 L31)
    assert battle.state.first == "red"
    return battle


def test_lite_beam_range_example() -> None:
    # 002 L17: "a Beam-2 rolls 2d6 at a target 12" away; 1d6 at a target 13" away; and cannot
    # attack a target 25" away". FT2's B battery is Lite's Beam-2, its A battery Beam-3 and its
    # C battery Beam-1 (docs/rulings.md, "Tactical: FT Lite"); Continuum's Beam-N is Lite's.
    assert [beam_dice("beam_b", d) for d in (12.0, 13.0, 25.0)] == [2, 1, 0]
    assert [beam_dice("beam2", d) for d in (12.0, 13.0, 25.0)] == [2, 1, 0]
    assert [beam_dice("beam_a", d) for d in (9.0, 13.0, 25.0, 37.0)] == [3, 2, 1, 0]
    assert [beam_dice("beam_c", d) for d in (12.0, 13.0)] == [1, 0]


def test_lite_reroll_example_through_the_engine() -> None:
    # 002 L53: "a Beam-3 at 9" rolls 3d6, scoring 1, 3, 6, for 2 points plus an extra die.
    # The extra die also rolls a 6, for 2 points and another roll. This roll is a 5, for 1 more
    # damage. Total: 5 damage." Five points cross the destroyer's first row (3 boxes): its
    # threshold check comes at once (002 L31, L57), here passed on every die.
    battle = _firing("destroyer")
    sheet = battle.ctx.sheets["b1"]
    checks = len(sheet.systems) + 1  # each system and the drive; no FTL roll (002 L59)
    fired = battle.fire(
        "r1", [Shot("beam_a-1", "b1")], ScriptedDice([1, 3, 6, 6, 5] + [1] * checks)
    )
    assert isinstance(fired, ShipFired)
    (hit,) = fired.hits
    assert hit.damage == 5
    assert [t.row for t in fired.thresholds] == [1]
    assert battle.state.ship("b1").record.hull_lost == (3, 2)


def test_lite_checks_each_row_at_once_and_disables() -> None:
    # 002 L57: "If multiple rows are destroyed in a single attack, check for each row"; L59: a
    # "disabled" result on a 6 for the first row check, 5-6 for the second; a disabled weapon
    # must be repaired; "A disabled main drive still produces half thrust".
    sheet = sheet_for("light_cruiser", "ft2")  # rows 3, 4, 4 behind a level-1 screen
    hurt = apply_damage(sheet, fresh_state(sheet), 2).state
    battle = _firing("light_cruiser", msgspec.structs.replace(hurt, ship_id="b1"))
    checks = len(sheet.systems) + 1
    # Three 6s through a level-1 screen: 2 each; their three extra dice miss. 6 damage on top
    # of 2 crosses rows 1 and 2. The first check passes on 5s, the second fails on them.
    faces = [6, 6, 6, 1, 1, 1] + [5] * checks + [5] * checks
    fired = battle.fire("r1", [Shot("beam_a-1", "b1")], ScriptedDice(faces))
    assert isinstance(fired, ShipFired)
    assert [(t.row, t.lost, t.drive) for t in fired.thresholds] == [
        (1, (), False),
        (2, tuple(s.id for s in sheet.systems), True),
    ]
    b1 = battle.state.ship("b1").record
    assert {s.status for s in b1.systems} == {"damaged"}  # disabled, not destroyed
    assert b1.drive == "half"


def test_lite_second_drive_failure_leaves_no_thrust() -> None:
    # 002 L59: "A disabled main drive still produces half thrust; a second failure will reduce
    # it to zero."
    sheet = sheet_for("destroyer", "ft2")
    halved = msgspec.structs.replace(fresh_state(sheet), ship_id="b1", drive="half")
    battle = _firing("destroyer", halved)
    checks = len(sheet.systems) + 1
    battle.fire("r1", [Shot("beam_a-1", "b1")], ScriptedDice([1, 3, 6, 6, 5] + [6] * checks))
    assert battle.state.ship("b1").record.drive == "disabled"
    assert current_thrust(sheet, battle.state.ship("b1").record) == 0
    assert current_thrust(sheet, halved) == sheet.thrust // 2


def test_lite_fire_controls_limit_the_targets() -> None:
    # 002 L51: "A ship may fire on as many targets as it has functioning Fire Controls".
    battle = _battle(
        ShipSetup(id="r1", side="red", design="destroyer", x=0, y=0, course=12),
        ShipSetup(id="b1", side="blue", design="frigate", x=-3, y=9, course=6),
        ShipSetup(id="b2", side="blue", design="frigate", x=3, y=9, course=6),
    )
    _orders(battle)
    battle.resolve(ScriptedDice([6, 1]))
    with pytest.raises(IllegalActionError, match="FireCon"):
        battle.fire("r1", [Shot("beam_b-1", "b1"), Shot("beam_b-2", "b2")], ScriptedDice([1] * 9))


def _astern(order: Order, rules: str) -> Battle:
    """A Continuum-built light cruiser (Beam-1s and Beam-2s into all six arcs) with an enemy
    frigate 6 MU dead astern."""
    battle = _battle(
        ShipSetup(id="r1", side="red", design="light_cruiser", x=0, y=20, course=12, speed=4),
        ShipSetup(id="b1", side="blue", design="frigate", x=0, y=14, course=12, speed=4),
        rules=rules,
    )
    _orders(battle, {"r1": order, "b1": Order()})
    battle.resolve(ScriptedDice([6, 1]))
    return battle


def test_lite_aft_fire_only_without_thrust() -> None:
    # 002 L51: "A ship may not fire at targets in its Aft arc if it used any thrust this turn":
    # the weapons whose arcs include the aft arc fire there when it used none.
    still = _astern(Order(), "lite_continuum")
    assert not still.state.ship("r1").thrusted
    aft = {
        w for w, targets in fire_options(still.ctx, still.state, "r1").items() if "b1" in targets
    }
    assert aft == {"beam2-1", "beam2-2", "beam1-1", "beam1-2"}  # not the forward Beam-3
    burned = _astern(Order(accel=1), "lite_continuum")
    assert burned.state.ship("r1").thrusted
    assert "b1" not in {
        t for ts in fire_options(burned.ctx, burned.state, "r1").values() for t in ts
    }
    # Continuum's own rules never fire aft without advanced sensors (000 L2591-2597).
    plain = _astern(Order(), "continuum")
    assert not fire_options(plain.ctx, plain.state, "r1")


def test_thrust_used_round_trips_in_the_notation() -> None:
    battle = _astern(Order(accel=1), "lite_continuum")
    text = format_position("lite_continuum", battle.state)
    assert "/U" in text
    assert parse_position(text) == ("lite_continuum", battle.state)


# ---------------------------------------------------------------- damage control (002 L61-65)


def test_ft2_built_ships_have_one_dcp_per_20_mass_in_their_hull_boxes() -> None:
    # docs/rulings.md (Tactical: FT Lite): a star per 20 mass or part (000 L11326-11329),
    # placed as crew-factor dots (000 L11437-11455) and lost with their boxes (002 L33).
    battleship = sheet_for("battleship", "ft2")  # mass 48, 24 boxes
    assert battleship.crew_factor == 0
    fresh = fresh_state(battleship)
    assert damage_control_parties(battleship, fresh, "lite") == 3
    assert crew_markers(battleship.hull_boxes, 3) == (8, 16, 24)
    assert damage_control_parties(battleship, apply_damage(battleship, fresh, 8).state, "lite") == 2
    assert damage_control_parties(battleship, fresh) == 0  # no DCPs under other rules
    cruiser = sheet_for("heavy_cruiser", "continuum")  # a Continuum crew factor is kept
    assert damage_control_parties(cruiser, fresh_state(cruiser), "lite") == cruiser.crew_factor


def _to_repairs(battle: Battle) -> None:
    while battle.step().phase != "repair":
        step = battle.step()
        if step.kind == "simultaneous":
            _orders(battle)
        elif step.kind == "chance":
            battle.resolve(SeededDice(3))
        else:  # too far apart to hit: each ship holds its fire
            assert step.side is not None
            battle.fire(ships_to_fire(battle.ctx, battle.state, step.side)[0], [], SeededDice(3))


def test_lite_repair_example_through_the_engine() -> None:
    # 002 L65: "a ship assigns 2 DCPs to a damaged Main Drive and 1 DCP to a damaged weapon.
    # The Main Drive repair roll is a 3 - no effect. The beam repair roll is a 6 - it is
    # repaired. Next turn, the ship assigns all three DCPs to the Main Drive. The repair attempt
    # rolls a 4 - the Drive is repaired."
    sheet = sheet_for("battleship", "ft2")  # three DCPs
    hurt = with_system_status(fresh_state(sheet), "beam_a-1", "damaged")
    hurt = msgspec.structs.replace(hurt, ship_id="r1", drive="half")
    battle = _battle(
        ShipSetup(id="r1", side="red", design="battleship", x=0, y=0, course=12, state=hurt),
        ShipSetup(id="b1", side="blue", design="frigate", x=200, y=200, course=6),
    )
    _to_repairs(battle)
    made = battle.repair("red", {"r1": {DRIVE: 2, "beam_a-1": 1}}, ScriptedDice([6, 3]))
    assert isinstance(made, RepairsMade)
    assert [(r.target, r.parties, r.face, r.success) for r in made.repairs] == [
        ("beam_a-1", 1, 6, True),  # record-sheet order: the drive last
        (DRIVE, 2, 3, False),
    ]
    r1 = battle.state.ship("r1").record
    assert r1.drive == "half"
    assert next(s for s in r1.systems if s.id == "beam_a-1").status == "ok"
    _to_repairs(battle)
    with pytest.raises(IllegalActionError, match="1 to 3 parties on one job"):  # 002 L63
        battle.repair("red", {"r1": {DRIVE: 4}}, ScriptedDice([]))
    made = battle.repair("red", {"r1": {DRIVE: 3}}, ScriptedDice([4]))
    assert isinstance(made, RepairsMade)
    assert made.repairs[0].success
    assert battle.state.ship("r1").record.drive == "ok"
    assert replay(battle.ctx.setup, battle.journal) == battle.state


# ---------------------------------------------------------------- the built-in scenario


def test_lite_scenario_fights_from_the_cli_and_replays() -> None:
    result = runner.invoke(app, ["battle", "fight", "lite", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["journal"][-1]["type"] == "turn_ended"
    assert data["journal"][-1]["over"]
    setup = lite()
    journal = decode_journal(json.dumps(data["journal"]).encode())
    assert format_position("lite", replay(setup, journal)) == data["final"]
    again = runner.invoke(app, ["battle", "fight", "lite", "--seed", "3", "--json"])
    assert again.stdout == result.stdout


def test_lite_mirror_comes_out_even() -> None:
    """Issue 21: the scenario's two lines are each other's image, so Engage against Engage
    each side wins 45-55% of the decisive battles over 400 runs (50.75% for red, measured)."""
    figures = odds(
        TableBattle(lite(), {"red": "engage", "blue": "engage"}), ("red", "blue"), 400, 2026
    )
    red, blue = figures.sides
    assert 0.45 <= red.wins / (red.wins + blue.wins) <= 0.55
