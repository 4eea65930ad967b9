"""Continuum's overloaded pulse torpedoes (000 L4669-4736) and variable strength pulse
torpedoes (000 L4740-4800), built from the rule text.

Overloading is noted in the orders and needs a tube that did not fire in the previous turn
(L4681-4685); it rolls on the next smaller class's row of the Projectile Weapon Hit Probability
Table (L4689-4703), does 1D6+2 AP (L4669, L4704-4708), and a damage die of 1 rolls a second D6
whose 1 destroys the tube for good (L4708-4714); a tube overloaded and not fired is ejected and
counts as having fired (L4718-4724). The upgrade costs +1 per mass, all torpedoes but the short
range ones or none (L4728-4736). The variable torpedo is set in the orders, ``S`` or ``L``,
standard if not (L4786-4794): long range row and 1D3 SAP (L4752-4760), standard row and 1D6 SAP
(L4764-4772), short range row and 1D6+2 AP (L4774-4782); mass 8 +2 per arc at 5 per mass
(L4798-4800). No worked example is given; the text's "damage range between 3 and 8" (L4706-4708)
is one.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    IllegalActionError,
    ShipFired,
    ShipSetup,
    Shot,
    StepKind,
    fire_options,
    replay,
    sides_to_repair,
    sides_to_write,
    view,
)
from tactical.designs import decode_design
from tactical.dice import ScriptedDice, SeededDice
from tactical.fire import TORPEDO_BANDS_MU, torpedo_band, torpedo_warhead
from tactical.movement import Order, format_order, format_orders, parse_order, parse_orders
from tactical.notation import format_position, parse_position
from tactical.points import PC_SYSTEMS, price
from tactical.ship import PRESETS, Design
from tactical.summary import describe
from tests.tactical import extra_designs

LR = "pulse_torpedo_lr_overload-1"
PT = "pulse_torpedo_overload-1"
SR = "pulse_torpedo_sr-1"
VPT = "pulse_torpedo_variable-1"

# Test designs, kept out of the built-in catalogue (and so out of its golden listing).
TEST_DESIGNS = {
    "overload_test_cruiser": """
name = "Overload Test Cruiser"
rules = "continuum"
provenance = "test design: every overloadable and variable torpedo on one hull"
mass = 60
thrust = 4
hull_strength = "average"
fire_controls = 2

[[systems]]
kind = "pulse_torpedo_lr_overload"
arcs = ["F"]

[[systems]]
kind = "pulse_torpedo_overload"
arcs = ["F"]

[[systems]]
kind = "pulse_torpedo_sr"
arcs = ["F"]

[[systems]]
kind = "pulse_torpedo_variable"
arcs = ["F"]
""",
    "armoured_test_target": """
name = "Armoured Test Target"
rules = "continuum"
provenance = "test design: 4 armour boxes, to see SAP and AP hits apart"
mass = 50
thrust = 2
hull_strength = "average"
armour = 4
fire_controls = 0
""",
}


def _design(name: str) -> Design:
    return extra_designs.design_of(TEST_DESIGNS, name)


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


# ---------------------------------------------------------------- tables and points


def test_overload_uses_the_next_smaller_row() -> None:
    # 000 L4693-4699: an LR torpedo overloaded uses the standard row, a standard one the SR row.
    assert torpedo_band("pulse_torpedo_lr_overload") == TORPEDO_BANDS_MU["pulse_torpedo_lr"]
    assert torpedo_band("pulse_torpedo_lr_overload", "O") == TORPEDO_BANDS_MU["pulse_torpedo"]
    assert torpedo_band("pulse_torpedo_overload") == TORPEDO_BANDS_MU["pulse_torpedo"]
    assert torpedo_band("pulse_torpedo_overload", "O") == TORPEDO_BANDS_MU["pulse_torpedo_sr"]


def test_variable_rows() -> None:
    # 000 L4752-4755 long range line, L4764-4766 standard, L4774-4776 short range; standard
    # when no setting is selected (L4792-4794).
    assert torpedo_band("pulse_torpedo_variable", "L") == 9
    assert torpedo_band("pulse_torpedo_variable") == 6
    assert torpedo_band("pulse_torpedo_variable", "S") == 4


def test_overload_damage_range_is_3_to_8() -> None:
    # 000 L4704-4708: "roll a 1D6 as normal with a +2DRM, giving a damage range between 3 and 8".
    warhead = torpedo_warhead("pulse_torpedo_overload", "O")
    assert [face + warhead.plus for face in range(1, warhead.sides + 1)] == [3, 4, 5, 6, 7, 8]
    assert warhead.ap  # "Overloaded Pulse Torpedoes (AP)", L4669
    assert warhead.backfire  # L4708-4714


def test_variable_warheads() -> None:
    # L4756-4760: 1D3 SAP; L4768-4770: 1D6 SAP; L4778-4780: 1D6+2 AP; no risk to the tube.
    long, standard, short = (torpedo_warhead("pulse_torpedo_variable", s) for s in ("L", None, "S"))
    assert (long.sides, long.plus, long.ap, long.backfire) == (3, 0, False, False)
    assert (standard.sides, standard.plus, standard.ap) == (6, 0, False)
    assert (short.sides, short.plus, short.ap, short.backfire) == (6, 2, True, False)


@pytest.mark.parametrize(
    ("kind", "masses", "per_mass"),
    [
        # L4728: +1 point per mass on the 3 per mass of every pulse torpedo (L4638-4640);
        # masses as the plain torpedoes (L4644-4652; L16377, L16381).
        ("pulse_torpedo_overload", (4, 5, 6), 4),
        ("pulse_torpedo_lr_overload", (8, 10, 12), 4),
        # L4798-4800: mass 8 on one arc, +2 per additional arc, 3 arcs, 5 points per mass.
        ("pulse_torpedo_variable", (8, 10, 12), 5),
    ],
)
def test_masses_and_points(kind: str, masses: tuple[int, int, int], per_mass: int) -> None:
    system = PC_SYSTEMS[kind]
    assert tuple(system.mass(n) for n in (1, 2, 3)) == masses
    assert system.per_mass == per_mass
    assert system.max_arcs == 3


def test_test_cruiser_points() -> None:
    # LR overload 8 x 4 = 32, overload 4 x 4 = 16, SR 2 x 3 = 6, VPT 8 x 5 = 40 on a mass 60
    # hull: short range torpedoes stay as they are beside upgraded ones (L4730-4732).
    costing = price(_design("overload_test_cruiser"), PRESETS["continuum"])
    assert not costing.problems
    points = {line.item: line.points for line in costing.lines}
    assert points["Pulse torpedo (LR, overload) (F)"] == 32
    assert points["Pulse torpedo (overload) (F)"] == 16
    assert points["Pulse torpedo (SR) (F)"] == 6
    assert points["Variable pulse torpedo (F)"] == 40
    assert costing.points == 234


def test_upgrade_is_all_or_nothing_on_a_design() -> None:
    # L4728-4732: every pulse torpedo but the short range ones is upgraded, or none.
    text = TEST_DESIGNS["overload_test_cruiser"].replace(
        'kind = "pulse_torpedo_overload"', 'kind = "pulse_torpedo"'
    )
    costing = price(decode_design(text), PRESETS["continuum"])
    assert any("L4728-4736" in problem.reason for problem in costing.problems)


# ---------------------------------------------------------------- notation


@pytest.mark.parametrize(
    "text",
    [
        "=/pulse_torpedo_overload-1=O",
        "P1+2/pulse_torpedo_variable-1=S",
        "S2M5WRb1/pulse_torpedo_lr_overload-1=O/pulse_torpedo_variable-1=L",
        "TP2.MD6.PS1/pulse_torpedo_variable-1=L",
        "N/pulse_torpedo_overload-1=O",
    ],
)
def test_order_notation_round_trips(text: str) -> None:
    order = parse_order(text)
    assert format_order(order) == text
    assert parse_order(format_order(order)) == order
    assert parse_orders(format_orders({"r1": order})) == {"r1": order}


def test_order_settings_parse() -> None:
    order = parse_order("S1/pulse_torpedo_overload-1=O/pulse_torpedo_variable-1=L")
    assert order.turn == 1
    assert order.torpedoes == (("pulse_torpedo_overload-1", "O"), ("pulse_torpedo_variable-1", "L"))
    assert format_order(Order()) == "="  # no settings, nothing written


@pytest.mark.parametrize("text", ["/pt-1=O", "=/pt-1=X", "=/pt-1", "=/pt-1=O/pt-1=S", "=/=O"])
def test_bad_settings_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="order"):
        parse_order(text)


# ---------------------------------------------------------------- battles


def _setup(distance: float, target: str = "armoured_test_target") -> BattleSetup:
    return BattleSetup(
        sides=("red", "blue"),
        ships=(
            ShipSetup(
                id="r1", side="red", design="overload_test_cruiser", x=0, y=0, course=12, speed=0
            ),
            ShipSetup(id="b1", side="blue", design=target, x=0, y=distance, course=6, speed=0),
        ),
        rules="continuum",
        turn_limit=10,
    )


def _to_red_fire(battle: Battle, orders: Mapping[str, Order] | None = None) -> None:
    """Play on to red's firing turn: red writes ``orders``, blue holds fire, red wins the
    initiative; any other die is seeded."""
    written = False
    while True:
        step = battle.step()
        if step.phase == "orders":
            for side in sides_to_write(battle.ctx, battle.state):
                battle.write_orders(side, (orders or {}) if side == "red" and not written else {})
            written = True
        elif step.phase == "repair":
            for side in sides_to_repair(battle.ctx, battle.state):
                battle.repair(side, {}, SeededDice(0))
        elif step.phase == "fire" and step.side == "red":
            return
        elif step.phase == "fire":
            battle.fire("b1", [], ScriptedDice([]))
        elif step.kind == StepKind.CHANCE.value:
            dice = ScriptedDice([6, 1]) if step.phase == "movement" else SeededDice(0)
            battle.resolve(dice)
        else:
            raise AssertionError(f"unexpected step {step}")


def _fire(battle: Battle, shots: list[Shot], faces: list[int]) -> ShipFired:
    fired = battle.fire("r1", shots, ScriptedDice(faces))
    assert isinstance(fired, ShipFired)
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    return fired


def _overload(*weapons: str) -> dict[str, Order]:
    return {"r1": Order(torpedoes=tuple((w, "O") for w in weapons))}


def test_fired_normally_an_upgraded_torpedo_is_a_pulse_torpedo() -> None:
    # Without the order it is the torpedo it always was: standard row (3+ at 8.5 MU) and 1D6
    # SAP (L4626-4630), and a damage die of 1 rolls nothing more. 5 SAP: 3 armour, 2 hull.
    battle = Battle(_setup(8.5))
    _to_red_fire(battle)
    fired = _fire(battle, [Shot(PT, "b1")], [3, 5])
    assert (fired.shots[0].faces, fired.shots[0].damage) == ((3,), (5,))
    assert fired.shots[0].setting is None
    hit = fired.hits[0]
    assert (hit.damage, hit.to_armour, hit.to_hull) == (5, 3, 2)
    battle = Battle(_setup(8.5))
    _to_red_fire(battle)
    fired = _fire(battle, [Shot(PT, "b1")], [3, 1])  # ScriptedDice would refuse a third die
    assert fired.shots[0].backfire == ()


def test_overloaded_standard_torpedo_on_the_short_range_row() -> None:
    # 000 L4697-4699: at 8.5 MU the short range row asks 4+, not the standard row's 3+.
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, _overload(PT))
    assert battle.state.ship("r1").settings == ((PT, "O"),)
    # The setting is a written order: blue does not see it before red fires.
    assert view(battle.state, "blue").ship("r1").settings == ()
    assert view(battle.state, "red").ship("r1").settings == ((PT, "O"),)
    fired = _fire(battle, [Shot(PT, "b1")], [3])
    assert fired.shots[0].damage == ()  # a 3 misses
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, _overload(PT))
    fired = _fire(battle, [Shot(PT, "b1")], [4, 5])
    # 5 + 2 = 7, armour piercing: the first point to armour, the rest to the hull (000
    # L3078-3167; index 4.9).
    assert fired.shots[0].setting == "O"
    hit = fired.hits[0]
    assert (hit.damage, hit.to_armour, hit.to_hull) == (7, 1, 6)


def test_overloaded_torpedoes_reach_only_their_new_row() -> None:
    # The short range row ends at 20 MU, the standard row at 30 (000 L20332-20436).
    battle = Battle(_setup(20.5))
    _to_red_fire(battle, _overload(PT))
    assert PT not in fire_options(battle.ctx, battle.state, "r1")
    assert "b1" in fire_options(battle.ctx, battle.state, "r1")[LR]
    battle = Battle(_setup(30.5))
    _to_red_fire(battle, _overload(LR))
    assert LR not in fire_options(battle.ctx, battle.state, "r1")  # 45 MU without the order


def test_overloaded_long_range_torpedo_on_the_standard_row() -> None:
    # 000 L4693-4697: at 27 MU the LR row asks 4+, the standard row 6.
    battle = Battle(_setup(27.0))
    _to_red_fire(battle, _overload(LR))
    fired = _fire(battle, [Shot(LR, "b1")], [5])
    assert fired.shots[0].damage == ()
    battle = Battle(_setup(27.0))
    _to_red_fire(battle, _overload(LR))
    fired = _fire(battle, [Shot(LR, "b1")], [6, 6])
    assert fired.hits[0].damage == 8  # the most an overloaded torpedo does (L4706-4708)


def test_a_second_one_destroys_the_tube() -> None:
    # 000 L4708-4714: a damage die of 1 rolls a second 1D6; a second 1 destroys the tube, and
    # DCPs may not repair it. The hit still does its 1 + 2 = 3.
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, _overload(PT))
    fired = _fire(battle, [Shot(PT, "b1")], [6, 1, 1])
    assert fired.shots[0].backfire == (1,)
    assert fired.hits[0].damage == 3
    tube = next(s for s in battle.state.ship("r1").record.systems if s.id == PT)
    assert tube.status == "destroyed"  # never repairable (tactical.ship.SystemStatus)
    assert any(roll.key.endswith(f"{PT}/backfire") for roll in fired.rolls)


def test_a_second_die_above_one_spares_the_tube() -> None:
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, _overload(PT))
    fired = _fire(battle, [Shot(PT, "b1")], [6, 1, 2])
    assert fired.shots[0].backfire == (2,)
    tube = next(s for s in battle.state.ship("r1").record.systems if s.id == PT)
    assert tube.status == "ok"


def test_short_range_and_plain_torpedoes_do_not_overload() -> None:
    # 000 L4701-4703: short range torpedoes may not be fired overloaded; the variable torpedo
    # has S and L, no overload; the overload torpedo has no S or L.
    for weapon, setting in ((SR, "O"), (VPT, "O"), (PT, "S"), (LR, "L"), ("firecon-1", "O")):
        battle = Battle(_setup(8.5))
        with pytest.raises(IllegalActionError, match=r"takes|no such"):
            battle.write_orders("red", {"r1": Order(torpedoes=((weapon, setting),))})
    battle = Battle(_setup(8.5))
    with pytest.raises(IllegalActionError, match="no such weapon"):
        battle.write_orders("red", {"r1": Order(torpedoes=(("beam9-1", "O"),))})


def test_a_tube_that_fired_last_turn_may_not_overload() -> None:
    # 000 L4681-4685: "the Pulse Torpedo may not have fired in the previous turn".
    battle = Battle(_setup(8.5))
    _to_red_fire(battle)
    _fire(battle, [Shot(PT, "b1")], [1])  # fired normally, and missed
    _finish_turn(battle)
    assert battle.state.turn == 2
    assert battle.state.ship("r1").tubes == ((PT, 1),)
    with pytest.raises(IllegalActionError, match="previous turn"):
        battle.write_orders("red", _overload(PT))
    battle.write_orders("red", _overload(LR))  # the other tube did not fire


def _finish_turn(battle: Battle) -> None:
    """Let blue hold fire and the turn end, up to the next orders step."""
    while battle.step().phase != "orders":
        step = battle.step()
        if step.phase == "fire":
            battle.fire("b1", [], ScriptedDice([]))
        elif step.phase == "repair":
            for side in sides_to_repair(battle.ctx, battle.state):
                battle.repair(side, {}, SeededDice(0))
        else:
            battle.resolve(SeededDice(0))


def test_an_overloaded_tube_not_fired_is_ejected() -> None:
    # 000 L4718-4724: not fired, it is ejected and counts as having fired: no overload in the
    # next turn, but again in the one after. A normal shot is still allowed the next turn.
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, _overload(PT))
    battle.fire("r1", [], ScriptedDice([]))  # holds fire
    _finish_turn(battle)
    assert battle.state.ship("r1").tubes == ((PT, 1),)
    assert battle.state.ship("r1").settings == ()
    with pytest.raises(IllegalActionError, match="previous turn"):
        battle.write_orders("red", _overload(PT))
    _to_red_fire(battle, {})
    assert PT in fire_options(battle.ctx, battle.state, "r1")
    battle.fire("r1", [], ScriptedDice([]))
    _finish_turn(battle)
    assert battle.state.ship("r1").tubes == ()
    battle.write_orders("red", _overload(PT))  # turn 3: legal again
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_variable_torpedo_long_range() -> None:
    # 000 L4752-4760: the LR row (6 at 40 MU) and 1D3 SAP: 3 points, 2 to armour, 1 to hull.
    battle = Battle(_setup(40.0))
    _to_red_fire(battle, {"r1": Order(torpedoes=((VPT, "L"),))})
    fired = _fire(battle, [Shot(VPT, "b1")], [6, 3])
    assert fired.shots[0].setting == "L"
    assert any(r.key.endswith(f"{VPT}/damage") and r.sides == 3 for r in fired.rolls)
    hit = fired.hits[0]
    assert (hit.damage, hit.to_armour, hit.to_hull) == (3, 2, 1)


def test_variable_torpedo_standard_by_default() -> None:
    # 000 L4764-4772, L4792-4794: no setting is standard: 3+ at 8.5 MU, 1D6 SAP; and out of
    # reach at 40 MU.
    battle = Battle(_setup(8.5))
    _to_red_fire(battle)
    fired = _fire(battle, [Shot(VPT, "b1")], [3, 6])
    hit = fired.hits[0]
    assert (hit.damage, hit.to_armour, hit.to_hull) == (6, 3, 3)
    battle = Battle(_setup(40.0))
    _to_red_fire(battle)
    assert VPT not in fire_options(battle.ctx, battle.state, "r1")


def test_variable_torpedo_short_range() -> None:
    # 000 L4774-4782: the SR row (4+ at 8.5 MU) and 1D6+2 AP; no second die on a 1.
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, {"r1": Order(torpedoes=((VPT, "S"),))})
    fired = _fire(battle, [Shot(VPT, "b1")], [4, 6])
    hit = fired.hits[0]
    assert (hit.damage, hit.to_armour, hit.to_hull) == (8, 1, 7)
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, {"r1": Order(torpedoes=((VPT, "S"),))})
    fired = _fire(battle, [Shot(VPT, "b1")], [4, 1])
    assert fired.shots[0].backfire == ()
    assert fired.hits[0].damage == 3


def test_settings_ignore_screens_like_any_torpedo() -> None:
    # L4760, L4770, L4780-4782: every mode bypasses standard screens; the heavy cruiser has one.
    battle = Battle(_setup(8.5, target="heavy_cruiser"))
    _to_red_fire(battle, {"r1": Order(torpedoes=((VPT, "S"), (PT, "O")))})
    fired = _fire(battle, [Shot(VPT, "b1"), Shot(PT, "b1")], [4, 2, 6, 4])
    assert fired.hits[0].damage == 4 + 6


def test_position_notation_keeps_settings_and_tubes() -> None:
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, {"r1": Order(torpedoes=((PT, "O"), (VPT, "L")))})
    text = format_position("continuum", battle.state)
    assert f"/t{PT}=O/t{VPT}=L" in text
    assert parse_position(text) == ("continuum", battle.state)
    _fire(battle, [Shot(PT, "b1")], [2])
    text = format_position("continuum", battle.state)
    assert f"/f{PT}@1" in text
    assert parse_position(text) == ("continuum", battle.state)
    orders_written = next(e for e in battle.journal if getattr(e, "side", None) == "red")
    assert f"r1:=/{PT}=O/{VPT}=L" in getattr(orders_written, "orders", "")


def test_written_orders_in_the_position_round_trip() -> None:
    battle = Battle(_setup(8.5))
    battle.write_orders("red", {"r1": Order(turn=1, torpedoes=((PT, "O"),))})
    text = format_position("continuum", battle.state)
    assert f"w:red=r1:S1/{PT}=O" in text
    assert parse_position(text) == ("continuum", battle.state)


def test_summary_tells_the_setting_and_the_second_die() -> None:
    battle = Battle(_setup(8.5))
    _to_red_fire(battle, _overload(PT))
    fired = _fire(battle, [Shot(PT, "b1")], [6, 1, 1])
    line = describe(fired)[0]
    assert f"{PT} overloaded at b1 [6] damage [1] second die [1]" in line


def test_standard_torpedoes_roll_exactly_as_before() -> None:
    # The plain torpedoes' dice, keys and damage are unchanged (see test_torpedo_variants and
    # the golden battles): a torpedo cruiser's three torpedoes at 8.5 MU.
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="torpedo_cruiser", x=0, y=0, course=12, speed=0),
            ShipSetup(id="b1", side="blue", design="heavy_cruiser", x=0, y=8.5, course=6, speed=0),
        ),
        rules="continuum",
    )
    battle = Battle(setup)
    _to_red_fire(battle)
    shots = [Shot("pulse_torpedo_sr-1", "b1"), Shot("pulse_torpedo_lr-1", "b1")]
    fired = _fire(battle, shots, [4, 5, 2, 6])
    assert [(r.key, r.sides, r.value) for r in fired.rolls] == [
        ("t1/fire/r1/pulse_torpedo_sr-1/hit", 6, 4),
        ("t1/fire/r1/pulse_torpedo_sr-1/damage", 6, 5),
        ("t1/fire/r1/pulse_torpedo_lr-1/hit", 6, 2),
        ("t1/fire/r1/pulse_torpedo_lr-1/damage", 6, 6),
    ]
    assert all(s.setting is None and s.backfire == () for s in fired.shots)
    assert fired.hits[0].damage == 11
    assert battle.state.ship("r1").tubes == ()  # plain torpedoes keep no record
