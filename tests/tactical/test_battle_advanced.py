"""Advanced weapons (FT2 section 5, 001 L825-929): pulse torpedoes, needle beams, submunitions.

The seeds give no worked example of a torpedo shot, so these tests read the rules text line
by line: the to-hit table (001 L833-838), the damage D6 (L840) that screens do not reduce
(L842), the fore arc and the FireCon of its own (L829); the needle's 9" range, its 6 at a
named system (L848), the drive halving then failing (L854) and its FireCon per aim point
(L850-852); the submunition pack's one shot of 3/2/1 beam dice past screens (L858-864).
"""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tactical.battle import (
    Battle,
    BattleSetup,
    IllegalActionError,
    ShipFired,
    ShipSetup,
    Shot,
    ShotRoll,
    fire_options,
    firecons_needed,
    needle_aims,
    replay,
    sheet_for,
    sides_to_write,
)
from tactical.commanders import engage_commander
from tactical.dice import ScriptedDice
from tactical.fire import (
    TORPEDO_TO_HIT_CONTINUUM,
    TORPEDO_TO_HIT_FT2,
    submunition_dice,
    torpedo_to_hit,
)
from tactical.notation import format_position, parse_position
from tactical.phases.damage import take_damage as _damage
from tactical.rules import BATTLE_RULES
from tactical.ship import fresh_state

TORPEDO = "pulse_torpedo-1"


def ship(ship_id: str, side: str, design: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=0)


def duel(*ships: ShipSetup, rules: str = "ft2") -> Battle:
    """Both sides hold still; with even numbers red wins the initiative roll (001 L262)."""
    battle = Battle(BattleSetup(sides=("red", "blue"), ships=ships, rules=rules, turn_limit=5))
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    if battle.step().side == "blue":  # the side with more ships fires first
        battle.fire("b1", [], ScriptedDice([]))
    assert battle.step() == ("player", "fire", "red")
    return battle


def test_to_hit_table_by_range() -> None:
    # 001 L831-838: 0-6" 3+, 6-12" 4+, 12-18" 5+, 18-24" 6; nothing beyond 24".
    assert TORPEDO_TO_HIT_FT2 == (3, 4, 5, 6)
    assert [torpedo_to_hit(TORPEDO_TO_HIT_FT2, d) for d in (0, 6, 6.1, 12, 12.1, 18, 18.1, 24)] == [
        3,
        3,
        4,
        4,
        5,
        5,
        6,
        6,
    ]
    assert torpedo_to_hit(TORPEDO_TO_HIT_FT2, 24.01) is None
    # Continuum's projectile table, standard row: 2+ to 6 out to 30 MU (000 L20332-20436).
    assert BATTLE_RULES["continuum"].torpedo_to_hit == TORPEDO_TO_HIT_CONTINUUM
    assert torpedo_to_hit(TORPEDO_TO_HIT_CONTINUUM, 30.0) == 6


@given(st.floats(0, 40, allow_nan=False))
def test_to_hit_never_eases_with_range(distance: float) -> None:
    near = torpedo_to_hit(TORPEDO_TO_HIT_FT2, distance)
    far = torpedo_to_hit(TORPEDO_TO_HIT_FT2, distance + 1)
    assert near is not None or far is None
    if near is not None and far is not None:
        assert far >= near


def test_missile_destroyer_torpedo_hits_through_screens() -> None:
    # A battleship with level-1 screens 10" dead ahead: 4+ to hit (L836), then 5 damage that
    # the screen does not reduce (L840-842).
    battle = duel(
        ship("r1", "red", "missile_destroyer", 0, 0), ship("b1", "blue", "battleship", 0, 10, 6)
    )
    assert fire_options(battle.ctx, battle.state, "r1")[TORPEDO] == ("b1",)
    fired = battle.fire("r1", [Shot(TORPEDO, "b1")], ScriptedDice([4, 5]))
    assert isinstance(fired, ShipFired)
    assert fired.shots == (ShotRoll(weapon=TORPEDO, target="b1", faces=(4,), damage=(5,)),)
    assert fired.hits[0].damage == 5
    assert fired.hits[0].to_hull == 5
    assert [roll.key for roll in fired.rolls] == [
        f"t1/fire/r1/{TORPEDO}/hit",
        f"t1/fire/r1/{TORPEDO}/damage",
    ]
    assert battle.state.ship("b1").record.hull_lost == (5, 0, 0, 0)
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_a_miss_rolls_no_damage_die() -> None:
    battle = duel(
        ship("r1", "red", "missile_destroyer", 0, 0), ship("b1", "blue", "battleship", 0, 10, 6)
    )
    fired = battle.fire("r1", [Shot(TORPEDO, "b1")], ScriptedDice([3]))
    assert isinstance(fired, ShipFired)
    assert fired.shots[0].faces == (3,)
    assert fired.shots[0].damage == ()
    assert fired.hits[0].damage == 0
    assert len(fired.rolls) == 1


def test_fore_arc_and_24_inch_range_only() -> None:
    battle = duel(
        ship("r1", "red", "missile_destroyer", 0, 0),
        ship("b1", "blue", "frigate", 10, 0),  # starboard: torpedoes fire fore only (L829)
        ship("b2", "blue", "frigate", 0, 25),  # ahead, past 24" (L831)
        ship("b3", "blue", "frigate", 0, 23),  # ahead, at 6 to hit
    )
    options = fire_options(battle.ctx, battle.state, "r1")
    assert options[TORPEDO] == ("b3",)
    with pytest.raises(IllegalActionError, match=f"{TORPEDO} cannot reach b1"):
        battle.fire("r1", [Shot(TORPEDO, "b1")], ScriptedDice([]))


def test_torpedoes_take_a_firecon_of_their_own() -> None:
    # One FireCon: torpedo and C battery at the same target is two FireCons' work (L829).
    battle = duel(
        ship("r1", "red", "missile_destroyer", 0, 0), ship("b1", "blue", "frigate", 0, 10, 6)
    )
    with pytest.raises(IllegalActionError, match="2 targets and 1 working FireCons"):
        battle.fire("r1", [Shot(TORPEDO, "b1"), Shot("beam_c-1", "b1")], ScriptedDice([]))


def test_engage_fires_its_torpedo() -> None:
    battle = duel(
        ship("r1", "red", "missile_destroyer", 0, 0), ship("b1", "blue", "frigate", 0, 10, 6)
    )
    ship_id, shots = engage_commander().fire(battle.ctx, battle.state, "red")
    assert (ship_id, shots) == ("r1", [Shot(TORPEDO, "b1")])
    battle.fire(ship_id, shots, ScriptedDice([6, 6, 1, 1, 1, 1, 1, 1, 1]))
    rules, parsed = parse_position(format_position(battle.ctx.setup.rules, battle.state))
    assert (rules, parsed) == (battle.ctx.setup.rules, battle.state)
    assert replay(battle.ctx.setup, battle.journal) == battle.state


NEEDLE = "needle-1"


def needle_duel(distance: float = 8.0) -> Battle:
    return duel(
        ship("r1", "red", "needle_cruiser", 0, 0),
        ship("b1", "blue", "frigate", 0, distance, 6),
    )


def test_needle_reaches_9_inches_fore() -> None:
    assert NEEDLE in fire_options(needle_duel(9.0).ctx, needle_duel(9.0).state, "r1")
    far = needle_duel(9.5)
    assert NEEDLE not in fire_options(far.ctx, far.state, "r1")  # 001 L848: 9" at most
    assert BATTLE_RULES["continuum"].needle_range == 12  # FB1 (index 5.13)


def test_needle_six_kills_the_named_system_and_nothing_else() -> None:
    battle = needle_duel()
    assert needle_aims(battle.ctx, battle.state, "b1") == (
        "firecon-1",
        "beam_b-1",
        "beam_c-1",
        "pdaf-1",
        "pdaf-2",
        "drive",
    )
    fired = battle.fire("r1", [Shot(NEEDLE, "b1", "beam_b-1")], ScriptedDice([6]))
    assert isinstance(fired, ShipFired)
    assert fired.shots == (ShotRoll(weapon=NEEDLE, target="b1", faces=(6,), aim="beam_b-1"),)
    assert [roll.key for roll in fired.rolls] == [f"t1/fire/r1/{NEEDLE}/needle"]
    frigate = battle.state.ship("b1").record
    assert frigate.hull_lost == (0, 0)  # never hull damage (L850)
    assert [s.status for s in frigate.systems if s.id == "beam_b-1"] == ["destroyed"]
    assert replay(battle.ctx.setup, battle.journal) == battle.state


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5])
def test_needle_below_six_does_nothing(face: int) -> None:
    battle = needle_duel()
    before = battle.state.ship("b1").record
    battle.fire("r1", [Shot(NEEDLE, "b1", "drive")], ScriptedDice([face]))
    assert battle.state.ship("b1").record == before


def test_needle_at_the_drive_halves_it() -> None:
    # L854: the first hit halves thrust, the second knocks the drive out.
    battle = needle_duel()
    battle.fire("r1", [Shot(NEEDLE, "b1", "drive")], ScriptedDice([6]))
    assert battle.state.ship("b1").record.drive == "half"
    _rules, parsed = parse_position(format_position(battle.ctx.setup.rules, battle.state))
    assert parsed == battle.state


def test_needle_aim_must_be_a_working_system() -> None:
    battle = needle_duel()
    with pytest.raises(IllegalActionError, match="must aim at a working system"):
        battle.fire("r1", [Shot(NEEDLE, "b1", "bridge")], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="must aim"):
        battle.fire("r1", [Shot(NEEDLE, "b1")], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="only a needle beam aims"):
        battle.fire("r1", [Shot("beam_b-1", "b1", "drive")], ScriptedDice([]))


def test_needle_firecon_per_aim_point() -> None:
    # A FireCon directing needles directs nothing else; needles at one system share one, at
    # two systems need two (L850-852).
    battle = needle_duel()
    beams = [Shot("beam_b-1", "b1"), Shot("beam_b-2", "b1")]
    at_drive = Shot(NEEDLE, "b1", "drive")
    assert firecons_needed(battle.ctx, "r1", [*beams, at_drive]) == 2
    assert firecons_needed(battle.ctx, "r1", [at_drive, at_drive]) == 1
    assert firecons_needed(battle.ctx, "r1", [at_drive, Shot(NEEDLE, "b1", "pdaf-1")]) == 2
    fired = battle.fire("r1", [*beams, at_drive], ScriptedDice([1, 1, 1, 1, 1]))
    assert isinstance(fired, ShipFired)


def test_engage_aims_its_needle_at_a_lone_firecon() -> None:
    battle = needle_duel()
    ship_id, shots = engage_commander().fire(battle.ctx, battle.state, "red")
    assert ship_id == "r1"
    assert Shot(NEEDLE, "b1", "firecon-1") in shots
    assert len(shots) == 3


PACK = "submunition-1"


def pack_duel(distance: float) -> Battle:
    return duel(
        ship("r1", "red", "fast_missile_boat", 0, 0),
        ship("b1", "blue", "battleship", 0, distance, 6),
    )


def test_submunition_dice_by_range() -> None:
    # 001 L860: 3D6 at 0-6", 2D6 at 6-12", 1D6 at 12-18", nothing beyond.
    assert [submunition_dice(d) for d in (0, 6, 7, 12, 13, 18, 19)] == [3, 3, 2, 2, 1, 1, 0]


def test_pack_fires_once_past_screens() -> None:
    # A level-1 screened battleship 5" ahead: 3 dice of 6, 5, 4 score 2 + 1 + 1 = 4, the
    # screen ignored (L862-864); unscreened-table scoring, not the level-1 row (which gives 3).
    battle = pack_duel(5.0)
    fired = battle.fire("r1", [Shot(PACK, "b1")], ScriptedDice([6, 5, 4]))
    assert isinstance(fired, ShipFired)
    assert fired.shots[0].faces == (6, 5, 4)
    assert fired.hits[0].damage == 4
    boat = battle.state.ship("r1").record
    assert [s.ammo for s in boat.systems if s.id == PACK] == [0]  # crossed off (L858)
    _rules, parsed = parse_position(format_position(battle.ctx.setup.rules, battle.state))
    assert parsed == battle.state
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    assert PACK not in fire_options(battle.ctx, battle.state, "r1")


def test_engage_keeps_its_pack_for_close_range() -> None:
    far = pack_duel(10.0)
    assert engage_commander().fire(far.ctx, far.state, "red") == ("r1", [])
    near = pack_duel(5.0)
    assert engage_commander().fire(near.ctx, near.state, "red") == ("r1", [Shot(PACK, "b1")])


def test_continuum_torpedo_hit_is_semi_armour_piercing() -> None:
    # 000 L3078-3167 (index 4.9): SAP puts half a hit, rounded up, on armour, the rest on hull.
    sheet = msgspec.structs.replace(sheet_for("heavy_cruiser", "continuum"), armour=4)
    record, hit = _damage(sheet, fresh_state(sheet), "b1", 0, [5], 0)
    assert (hit.to_armour, hit.to_hull, hit.damage) == (3, 2, 5)
    assert record.armour_lost == 3
