"""What the fire step keeps between asks (issue 17, speed): each answer kept for the objects it
was read off, so a ship whose record changed, or a state whose ships did, is read anew."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    ShipSetup,
    _original,
    fire_controls,
    launch_options,
)
from tactical.dice import ReplayDice, Roll
from tactical.fire import roll_beams, score_beam_die
from tactical.phases.fire import Shot, _in_sight, check_fire, fire_options
from tactical.ship import fresh_state, with_system_status
from tactical.state import IllegalActionError, replace_ship


def _battle() -> Battle:
    ships = (
        ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12, speed=0),
        ShipSetup(id="b1", side="blue", design="heavy_cruiser", x=0, y=20, course=6, speed=0),
        ShipSetup(id="b2", side="blue", design="frigate", x=10, y=20, course=6, speed=0),
    )
    return Battle(BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum"))


def test_fire_controls_read_anew_for_a_ship_whose_firecon_is_gone() -> None:
    battle = _battle()
    ship = battle.state.ship("r1")
    firecons = [s.id for s in battle.ctx.sheets["r1"].systems if s.kind == "firecon"]
    assert fire_controls(battle.ctx, ship) == len(firecons) == 2
    hit = msgspec.structs.replace(
        ship, record=with_system_status(ship.record, firecons[0], "destroyed")
    )
    assert fire_controls(battle.ctx, hit) == 1
    assert fire_controls(battle.ctx, ship) == 2  # the ship as it was, as it was


def test_launch_options_read_anew_for_a_ship_whose_magazine_is_empty() -> None:
    battle = _battle()
    ship = battle.state.ship("r1")
    sheet = battle.ctx.sheets["r1"]
    launcher = next(s.id for s in sheet.systems if s.kind == "sml")
    magazine = next(s.id for s in sheet.systems if s.kind == "magazine")
    assert launch_options(battle.ctx, battle.state, "r1") == (launcher,)
    empty = tuple(
        msgspec.structs.replace(s, ammo=0) if s.id == magazine else s for s in ship.record.systems
    )
    spent = msgspec.structs.replace(
        ship, record=msgspec.structs.replace(ship.record, systems=empty)
    )
    after = replace_ship(battle.state, spent)
    assert launch_options(battle.ctx, after, "r1") == ()
    assert launch_options(battle.ctx, battle.state, "r1") == (launcher,)


def test_ships_in_sight_follow_the_ships_not_the_state() -> None:
    battle = _battle()
    state = battle.state
    seen = _in_sight(battle.ctx, state, "red")
    assert [s.id for s in seen.ships] == ["b1", "b2"]
    # A state replaced but for its ships shares them, and the answer.
    turned = msgspec.structs.replace(state, to_fire="blue", phase="fire")
    assert _in_sight(battle.ctx, turned, "red") is seen
    # A state whose ships changed is read anew: a destroyed ship is no target.
    wreck = msgspec.structs.replace(state.ship("b2"), status="destroyed")
    after = replace_ship(turned, wreck)
    assert [s.id for s in _in_sight(battle.ctx, after, "red").ships] == ["b1"]
    assert after.ship("b2").status == "destroyed"
    assert turned.ship("b2").status == "active"


def test_an_enemy_shown_unknown_carries_its_own_id_on_its_sheets_original_record() -> None:
    # One record sheet read for two ships (closed sheets show both as its original values):
    # each its own record, kept for the sheet and the ship.
    battle = _battle()
    sheet = battle.ctx.sheets["b1"]
    first, second = _original(sheet, "b1"), _original(sheet, "b9")
    assert first == msgspec.structs.replace(fresh_state(sheet), ship_id="b1")
    assert second.ship_id == "b9"
    assert _original(sheet, "b1") is first


def test_replayed_beam_faces_score_as_the_beam_table_says() -> None:
    # The beam table's row read once for a screen: every face as score_beam_die reads it,
    # a replayed face outside 1-6 (a corrupt journal) clamped as before.
    for screen in range(4):
        for face in range(0, 8):
            dice = ReplayDice([Roll("k/0", 6, face)])
            outcome = roll_beams(dice, "k", 1, screen, reroll=False)
            assert outcome.screened_damage == score_beam_die(min(max(face, 1), 6), screen)
            assert outcome.faces == [face]


def test_the_fire_check_refuses_a_target_gone_after_the_options_were_kept() -> None:
    # The live fire check reads the firing ship's options where fire_options kept them: kept
    # for the ships in sight, so a target destroyed or moved out of reach since is refused.
    battle = _battle()
    state = msgspec.structs.replace(battle.state, phase="fire", to_fire="red", turn=1)
    options = fire_options(battle.ctx, state, "r1")
    weapon = next(w for w, targets in options.items() if "b2" in targets)
    check_fire(battle.ctx, state, "r1", [Shot(weapon, "b2")])  # reached: no error
    for gone in (
        msgspec.structs.replace(state.ship("b2"), status="destroyed"),
        msgspec.structs.replace(state.ship("b2"), y=400.0),
    ):
        after = replace_ship(state, gone)
        with pytest.raises(IllegalActionError):
            check_fire(battle.ctx, after, "r1", [Shot(weapon, "b2")])
    assert fire_options(battle.ctx, state, "r1") == options  # the state as it was, as it was
