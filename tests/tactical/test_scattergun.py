"""Scatterguns and grapeshot (Project Continuum 000 7.14-7.15): one-shot point defence. A
scattergun's D6 is that many kills against fighters and missiles (a D3 against heavy
fighters) and covers allies within 6 MU with its built-in ADFC; grapeshot rolls four PDS
dice."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    MissilesResolved,
    ShipSetup,
    evolve,
    initial_state,
    resolve,
)
from tactical.commanders.scoring import aimed
from tactical.designs import decode_design
from tactical.dice import ScriptedDice
from tactical.fighters import defence_of
from tactical.missiles import Salvo
from tactical.phases.fire import Shot, fire_options, fire_ship, firecons_needed
from tactical.points import price
from tactical.ship import PRESETS
from tests.tactical import extra_designs
from tests.tactical.test_fighter_expanded import TEST_DESIGNS as CARRIERS
from tests.tactical.test_fighter_expanded import battle_at, fly, group, launched, move, ship


def _guard(name: str, kind: str) -> str:
    return f"""
name = "{name}"
rules = "continuum"
provenance = "test design: an escort whose only defence is one {kind}"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "{kind}"
"""


TEST_DESIGNS = {
    **CARRIERS,
    "scatter_escort": _guard("Scatter Escort", "scattergun"),
    "grape_escort": _guard("Grape Escort", "grapeshot"),
    "screened_escort": """
name = "Screened Escort"
rules = "continuum"
provenance = "test design: an escort behind level-2 screens"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1
screens = 2
""",
    "bare_escort": """
name = "Bare Escort"
rules = "continuum"
provenance = "test design: an escort with no point defence"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1
""",
}


@pytest.fixture(autouse=True)
def _designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def test_scattergun_and_grapeshot_are_priced() -> None:
    # 000 L7549: "Scatterguns have a mass of 1, and cost 5 per mass"; L7563:
    # grapeshot "Mass: 1, cost 4 each and is one-shot only".
    for name, item, points in (
        ("scatter_escort", "Scattergun", 5),
        ("grape_escort", "Grapeshot", 4),
    ):
        costing = price(decode_design(TEST_DESIGNS[name], f"{name}.toml"), PRESETS["continuum"])
        assert costing.problems == ()
        assert {line.item: (line.mass, line.points) for line in costing.lines}[item] == (1, points)


def salvo_state(*ships: ShipSetup, salvos: tuple[Salvo, ...]):  # type: ignore[no-untyped-def]
    ctx = Battle(BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum")).ctx
    state = msgspec.structs.replace(
        initial_state(ctx), turn=2, phase="missiles", first="red", salvos=salvos
    )
    return ctx, state


def at(ship_id: str, side: str, design: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=0)


SALVO = Salvo(id="r1.smr-1.t1", side="red", x=0, y=20, launched=1)


def test_a_scattergun_kills_a_d6_of_salvo_missiles_once() -> None:
    # 000 L7518-7524: "They inflict 1d6 hits on fighters and missiles (including Salvo
    # Missiles)"; L7541-7543: "When a Scattergun is used, cross it out." A 4 kills four of the
    # five missiles on target: one hits.
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 0, 0),
        at("b1", "blue", "scatter_escort", 0, 24, 6),
        salvos=(SALVO,),
    )
    event = resolve(ctx, state, ScriptedDice([4, 5, 2] + [1] * 20))
    assert isinstance(event, MissilesResolved)
    assert [(d.system, d.roll.faces, d.roll.kills) for d in event.defence] == [
        ("scattergun-1", (4,), 4)
    ]
    (attack,) = event.attacks
    assert (attack.on_target, attack.kills, attack.hits, attack.faces) == (5, 4, 1, (2,))
    after = evolve(ctx, state, event)
    gun = next(s for s in after.ship("b1").record.systems if s.id == "scattergun-1")
    assert gun.ammo == 0
    assert defence_of(ctx.sheets["b1"], after.ship("b1").record).area == ()  # spent


def test_grapeshot_rolls_four_pds_dice() -> None:
    # 000 L7555-7559: "When fired the player rolls 4 PDS dice for each launcher": 4, 6 (two and
    # a re-roll of 1), 1, 2 kill three; six on target less three is three hits.
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 0, 0),
        at("b1", "blue", "grape_escort", 0, 24, 6),
        salvos=(SALVO,),
    )
    event = resolve(ctx, state, ScriptedDice([4, 6, 1, 2, 1, 6, 1, 1, 1] + [1] * 20))
    assert isinstance(event, MissilesResolved)
    (fire,) = event.defence
    assert (fire.roll.faces, fire.roll.rerolls, fire.roll.kills) == ((4, 6, 1, 2), (1,), 3)
    assert event.attacks[0].hits == 3


def test_a_scattergun_always_stops_a_heavy_missile() -> None:
    # L7518-7524: a D6 of hits, at least one: the heavy missile is killed.
    heavy = msgspec.structs.replace(SALVO, id="r1.heavy_missile-1.t1", heavy=True)
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 0, 0),
        at("b1", "blue", "scatter_escort", 0, 24, 6),
        salvos=(heavy,),
    )
    event = resolve(ctx, state, ScriptedDice([1]))
    assert isinstance(event, MissilesResolved)
    assert (event.attacks[0].kills, event.attacks[0].hits) == (1, 0)


def test_a_scattergun_covers_an_ally_within_6_mu() -> None:
    # 000 L7508-7512: "Scatterguns have an in-built ADFC capability, and they can be used to
    # support allied ships within 6 MU." The bare escort 5 MU off is attacked; its friend's
    # scattergun fires for it.
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 40, 0),
        at("b1", "blue", "bare_escort", 0, 24, 6),
        at("b2", "blue", "scatter_escort", 5, 24, 6),
        salvos=(SALVO,),
    )
    event = resolve(ctx, state, ScriptedDice([6, 3] + [1] * 20))
    assert isinstance(event, MissilesResolved)
    assert [(d.ship, d.system, d.roll.kills) for d in event.defence] == [("b2", "scattergun-1", 6)]
    assert event.attacks[0].hits == 0


def test_a_scattergun_kills_a_d6_of_attacking_fighters() -> None:
    # L7518-7524: "1d6 hits on fighters" (a D3 on heavy fighters: tactical.fighters.
    # defence_roll's doctest). A 5 kills five of the six fighters attacking it.
    ctx, state = battle_at(
        ship("r1", "red", "test_carrier", 0), ship("b1", "blue", "scatter_escort", 8, 6)
    )
    state = launched(state, group("red", "r1", 4))
    state, _ = move(ctx, state, {}, [6, 1])
    _, event = fly(ctx, state, {"red": "r1.hangar_bay-1:A>b1"}, [5])
    (fire,) = event.defence
    assert (fire.system, fire.roll.faces, fire.roll.kills) == ("scattergun-1", (5,), 5)


def test_a_scattergun_covering_an_ally_hurts_it_on_a_1() -> None:
    # 000 L7528-7534: "Scatterguns used in ADFC-mode have a chance of causing some damage to
    # the ship being assisted. On a roll of '1' the allied ship suffers one point of damage,
    # in addition to the effect of the Scattergun on the attacking fighter/missile."
    from tactical.summary import describe_journal

    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 40, 0),
        at("b1", "blue", "bare_escort", 0, 24, 6),
        at("b2", "blue", "scatter_escort", 5, 24, 6),
        salvos=(SALVO,),
    )
    event = resolve(ctx, state, ScriptedDice([1, 1, 1] + [1] * 20))
    assert isinstance(event, MissilesResolved)
    (fire,) = event.defence
    assert fire.roll.kills == 1
    assert fire.backlash is not None
    assert (fire.backlash.target, fire.backlash.damage) == ("b1", 1)
    after = evolve(ctx, state, event)
    # The scattergun's point alone: one missile on target, killed by its 1.
    assert sum(after.ship("b1").record.hull_lost) == 1
    assert any("from the scattergun's 1" in line for line in describe_journal([event]))


def fire_state(*ships: ShipSetup):  # type: ignore[no-untyped-def]
    ctx = Battle(BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum")).ctx
    state = msgspec.structs.replace(
        initial_state(ctx), turn=2, phase="fire", first="blue", to_fire="blue"
    )
    return ctx, state


@pytest.mark.parametrize(
    ("x", "y", "reaches"),
    [(0.0, 5.0, True), (0.0, -5.0, True), (4.0, 4.0, True), (0.0, 6.5, False)],
    ids=["fore", "aft", "flank", "beyond 6 MU"],
)
def test_a_scattergun_fires_directly_at_a_ship_within_6_mu_in_any_arc(
    x: float, y: float, reaches: bool
) -> None:
    # 000 L7516-7518: "Scatterguns may fire into the aft arc behind the ship, like PDS. The
    # range of a Scattergun is 6 MU"; L7536-7538: "Scatterguns can be used in direct-fire mode
    # against enemy ships."
    ctx, state = fire_state(
        at("b1", "blue", "scatter_escort", 0, 0, 12), at("r1", "red", "screened_escort", x, y)
    )
    assert fire_options(ctx, state, "b1") == ({"scattergun-1": ("r1",)} if reaches else {})


def test_a_scattergun_s_direct_fire_is_one_penetrating_die_past_screens_and_its_last() -> None:
    # 000 L7538-7540: "They inflict 1 BD* hits, and are unaffected by screens": a 6 against
    # level-2 screens scores two and re-rolls (a 4, one more); L7502-7506: its own FireCon;
    # L7541-7543: crossed out once used.
    ctx, state = fire_state(
        at("b1", "blue", "scatter_escort", 0, 0, 12), at("r1", "red", "screened_escort", 0, 4)
    )
    shot = Shot("scattergun-1", "r1")
    assert firecons_needed(ctx, "b1", [shot]) == 0
    event = fire_ship(ctx, state, "b1", [shot], ScriptedDice([6, 4, 1, 1, 1, 1]))
    (roll,) = event.shots
    assert (roll.faces, roll.rerolls) == ((6,), (4,))
    (hit,) = event.hits
    assert hit.damage == 3
    after = evolve(ctx, state, event)
    gun = next(s for s in after.ship("b1").record.systems if s.id == "scattergun-1")
    assert gun.ammo == 0
    assert defence_of(ctx.sheets["b1"], after.ship("b1").record).area == ()


@pytest.mark.parametrize(
    ("enemy", "fires"), [("screened_escort", True), ("test_carrier", False)], ids=str
)
def test_engage_keeps_its_scattergun_for_fighters_and_missiles_while_the_enemy_has_any(
    enemy: str, fires: bool
) -> None:
    # One BD* at a ship (000 L7538-7540) against a D6 of fighters or missiles (L7518-7524):
    # the commanders fire it at a ship only once the enemy has neither left.
    ctx, state = fire_state(
        at("b1", "blue", "scatter_escort", 0, 0, 12), at("r1", "red", enemy, 0, 4)
    )
    options = fire_options(ctx, state, "b1")
    assert options == {"scattergun-1": ("r1",)}
    shots = aimed(ctx, state, "b1", options, ["r1"])
    assert shots == ([Shot("scattergun-1", "r1")] if fires else [])


@pytest.mark.parametrize(("y", "reaches"), [(5.0, True), (-5.0, False)], ids=["fore", "aft"])
def test_under_spatial_movement_a_scattergun_fires_at_no_ship_aft(y: float, reaches: bool) -> None:
    # 003 L68-70: "When using these movement rules, ships can never fire ship to ship weapons
    # through their rear arc": the scattergun's direct fire too (docs/rulings.md).
    ships = (
        at("b1", "blue", "scatter_escort", 0, 0, 12),
        at("r1", "red", "screened_escort", 0, y),
    )
    setup = BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum", movement="spatial")
    ctx = Battle(setup).ctx
    state = msgspec.structs.replace(
        initial_state(ctx), turn=2, phase="fire", first="blue", to_fire="blue"
    )
    assert fire_options(ctx, state, "b1") == ({"scattergun-1": ("r1",)} if reaches else {})
