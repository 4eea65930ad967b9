"""Salvo missiles (Project Continuum 000 6.2-6.6, L5639-6297), read line by line.

A salvo is launched at an aim point within 24 MU (36 ER) inside the launcher's arcs
(L5749-5757), lies still while the ships move and then attacks the closest enemy within 6 MU
(L5778-5786); point defence is allocated before any die (L5837-5843): a PDS kills one missile
on 4-5, two on a 6 and re-rolls (L5855-5857); the attacker's D6 is the missiles on target, less
the kills (L5867-5879); each hit does 1D6 semi-armour-piercing past screens (L5950-5958). The
worked example is L5968-6040.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    FightersResolved,
    IllegalActionError,
    MissilesResolved,
    SalvoAttack,
    ShipFired,
    ShipSetup,
    Shot,
    initial_state,
    launch_options,
    launch_problem,
    replay,
    resolve,
    view,
)
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    outcome_from_journal,
    resolve_campaign_battle,
)
from tactical.commanders import closing_commander, engage_commander, play, random_commander
from tactical.designs import load_builtin
from tactical.dice import ScriptedDice, SeededDice
from tactical.fighters import roll_kills
from tactical.missiles import SALVO_AIM, Salvo, feeds, hits_through, homing_target
from tactical.notation import format_position, parse_position
from tactical.phases.damage import take_damage as _damage
from tactical.points import build
from tactical.ship import PRESETS, fresh_state


def duel(*ships: ShipSetup, turn_limit: int = 20) -> Battle:
    return Battle(
        BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum", turn_limit=turn_limit)
    )


def at(ship_id: str, side: str, design: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=0)


def to_fire(battle: Battle) -> None:
    """Write no orders and move, red to fire first (initiative 6 against 1)."""
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    assert battle.step() == ("player", "fire", "red")


def test_pds_against_a_salvo() -> None:
    # L5851-5856: 4-5 kills one, 6 kills two and re-rolls; the re-roll scores the same way.
    assert roll_kills(ScriptedDice([6, 6, 4]), "k", 1, reroll=True).kills == 5
    assert roll_kills(ScriptedDice([3]), "k", 1, reroll=True).kills == 0


def test_the_worked_example() -> None:
    # L5983-5999: two on target, the PDS rolls 6: both shot down.
    assert hits_through(2, kills=2, defended=True) == 0
    # L6001-6012: five on target, the B1s kill one (4, 6 and a re-rolled 2): four get through.
    assert hits_through(5, kills=1, defended=True) == 4
    # L6013-6036: 3, 1, 3 and 6 is 13 damage; with four armour boxes, 4 on armour, 9 on hull
    # (applied per missile, half rounded up to armour: 2+1, 1+0, then the last armour box).
    design = msgspec.structs.replace(load_builtin("heavy_cruiser", "continuum"), armour=4)
    design = msgspec.structs.replace(design, mass=100)
    sheet = build(design, PRESETS["continuum"])
    _record, hit = _damage(sheet, fresh_state(sheet), "b1", 0, (3, 1, 3, 6), 0)
    assert (hit.damage, hit.to_armour, hit.to_hull) == (13, 4, 9)


def test_no_defence_at_all_lets_every_missile_on_target_through() -> None:
    # L5887-5889: with no defences at least one missile gets through; the die is at least 1.
    assert hits_through(1, kills=0, defended=False) == 1
    assert hits_through(1, kills=1, defended=True) == 0


def test_launch_range_and_arcs() -> None:
    battle = duel(
        at("r1", "red", "missile_cruiser", 0, 0), at("b1", "blue", "missile_cruiser", 0, 30, 6)
    )
    to_fire(battle)
    ctx, state = battle.ctx, battle.state
    assert launch_options(ctx, state, "r1") == ("smr-1", "smr-2", "sml-1")
    assert launch_problem(ctx, state, "r1", "sml-1", "0,24") is None  # 24 MU (L5751)
    assert "beyond 24 MU" in (launch_problem(ctx, state, "r1", "sml-1", "0,24.5") or "")
    assert "arc" in (launch_problem(ctx, state, "r1", "sml-1", "0,-10") or "")  # aft
    assert "arc" in (launch_problem(ctx, state, "r1", "smr-1", "20,-8") or "")  # abaft
    assert "aim point" in (launch_problem(ctx, state, "r1", "smr-1", "b1") or "")
    with pytest.raises(IllegalActionError, match="beyond 24 MU"):
        battle.fire("r1", [Shot("sml-1", SALVO_AIM, "0,30")], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="FireCons"):
        # One FireCon: one aim point a turn (000 L5769-5773).
        battle.fire(
            "r1",
            [Shot("smr-1", SALVO_AIM, "0,20"), Shot("smr-2", SALVO_AIM, "1,20")],
            ScriptedDice([]),
        )


def test_launch_spends_the_rack_and_a_magazine_load() -> None:
    battle = duel(
        at("r1", "red", "missile_cruiser", 0, 0), at("b1", "blue", "missile_cruiser", 0, 30, 6)
    )
    to_fire(battle)
    shots = [Shot(w, SALVO_AIM, "0,22") for w in ("smr-1", "sml-1")]
    fired = battle.fire("r1", shots, ScriptedDice([]))
    assert isinstance(fired, ShipFired)
    assert [(s.weapon, s.target, s.aim) for s in fired.shots] == [
        ("smr-1", SALVO_AIM, "0,22"),
        ("sml-1", SALVO_AIM, "0,22"),
    ]
    r1 = battle.state.ship("r1")
    ammo = {s.id: s.ammo for s in r1.record.systems}
    assert ammo["smr-1"] == 0  # crossed off (L6044-6050)
    assert ammo["magazine-1"] == 1  # one load of two (L6051-6060)
    assert [s.id for s in battle.state.salvos] == ["r1.sml-1.t1", "r1.smr-1.t1"][::-1]
    assert launch_options(battle.ctx, battle.state, "r1") == ("smr-2", "sml-1")
    # The enemy does not see the salvos before it writes its orders (phases 1 and 3).
    assert view(battle.state, "blue").salvos == ()
    assert len(view(battle.state, "red").salvos) == 2
    text = format_position("continuum", battle.state)
    assert "S:red:r1.smr-1.t1@0,22/t1" in text
    assert parse_position(text) == ("continuum", battle.state)


def test_a_magazine_feeds_its_launcher_until_empty() -> None:
    sheet = build(load_builtin("missile_cruiser", "continuum"), PRESETS["continuum"])
    assert feeds(sheet) == {"sml-1": "magazine-1"}
    battle = duel(
        at("r1", "red", "missile_cruiser", 0, 0), at("b1", "blue", "missile_cruiser", 0, 60, 6)
    )
    ctx = battle.ctx
    state = initial_state(ctx)
    empty = tuple(
        msgspec.structs.replace(s, ammo=0) if s.id == "magazine-1" else s
        for s in state.ship("r1").record.systems
    )
    r1 = state.ship("r1")
    r1 = msgspec.structs.replace(r1, record=msgspec.structs.replace(r1.record, systems=empty))
    state = msgspec.structs.replace(state, ships=(r1, state.ship("b1")))
    assert launch_options(ctx, state, "r1") == ("smr-1", "smr-2")


def missile_state(salvos: tuple[Salvo, ...], *ships: ShipSetup):  # type: ignore[no-untyped-def]
    battle = duel(*ships)
    ctx = battle.ctx
    state = msgspec.structs.replace(
        initial_state(ctx), turn=2, phase="missiles", first="red", salvos=salvos
    )
    return ctx, state


def test_a_salvo_homes_on_the_closest_enemy_within_6_mu() -> None:
    # L5778-5798: the closest enemy within 6 MU; none, and the launch is wasted.
    near = Salvo(id="r9.sml-1.t1", side="red", x=0, y=20, launched=1)
    far = Salvo(id="r9.smr-1.t1", side="red", x=40, y=40, launched=1)
    assert homing_target(near, [("b1", 0, 26, 6.0), ("b2", 0, 25, 6.0)]) == "b2"
    assert homing_target(near, [("b1", 0, 26.01, 6.0)]) is None
    ctx, state = missile_state(
        (near, far),
        at("r1", "red", "missile_cruiser", 0, 0),
        at("b1", "blue", "missile_cruiser", 0, 24, 6),
        at("b2", "blue", "missile_cruiser", 3, 25, 6),
    )
    # b1's PDS: 6, kills 2, re-roll 5 kills 1; on target 5: 2 hit, damage 4 and 2.
    event = resolve(ctx, state, ScriptedDice([6, 5, 5, 4, 2] + [6] * 20))  # then thresholds
    assert isinstance(event, MissilesResolved)
    assert [d.roll.kills for d in event.defence] == [3]
    assert event.attacks == (
        SalvoAttack(
            salvo="r9.sml-1.t1",
            target="b1",
            on_target=5,
            kills=3,
            hits=2,
            faces=(4, 2),
            hit=event.attacks[0].hit,
        ),
        SalvoAttack(salvo="r9.smr-1.t1"),
    )
    hit = event.attacks[0].hit
    assert hit is not None
    assert hit.damage == 6
    assert [r.key for r in event.rolls][:3] == [
        "t2/salvo/r9.sml-1.t1/pd/b1/pds-1/0",
        "t2/salvo/r9.sml-1.t1/pd/b1/pds-1/r0",
        "t2/salvo/r9.sml-1.t1/on",
    ]


def test_point_defence_is_shared_between_salvos_and_overkill_is_lost() -> None:
    # L5837-5843, L5883-5886: each system engages one salvo, announced before the dice.
    one = Salvo(id="r1.smr-1.t1", side="red", x=0, y=20, launched=1)
    two = Salvo(id="r1.smr-2.t1", side="red", x=0, y=21, launched=1)
    ctx, state = missile_state(
        (one, two),
        at("r1", "red", "missile_cruiser", 0, 0),
        at("b1", "blue", "heavy_cruiser", 0, 22, 6),
    )
    # Two PDS, one a salvo: 6 (re-roll 1) kills 2 and 4 kills 1; on target 1 and 3.
    event = resolve(ctx, state, ScriptedDice([6, 1, 4, 1, 3, 5, 5] + [6] * 20))
    assert isinstance(event, MissilesResolved)
    assert [(d.system, d.salvo) for d in event.defence] == [
        ("pds-1", "r1.smr-1.t1"),
        ("pds-2", "r1.smr-2.t1"),
    ]
    assert [(a.on_target, a.kills, a.hits) for a in event.attacks] == [(1, 2, 0), (3, 1, 2)]


def test_seeded_missile_battles_replay_and_round_trip() -> None:
    launched = struck = 0
    for seed in range(12):
        rng = random.Random(seed)
        battle = duel(
            at("r1", "red", "missile_cruiser", 0, 0),
            at("r2", "red", "heavy_cruiser", 10, 0),
            ShipSetup(id="b1", side="blue", design="missile_cruiser", x=0, y=40, course=6, speed=4),
            ShipSetup(id="b2", side="blue", design="heavy_cruiser", x=8, y=44, course=6, speed=2),
            turn_limit=8,
        )
        commanders = {
            "red": engage_commander() if seed % 2 else closing_commander(),
            "blue": random_commander(rng),
        }
        play(battle, commanders, SeededDice(seed))
        assert replay(battle.ctx.setup, battle.journal) == battle.state
        launched += sum(
            1
            for event in battle.journal
            if isinstance(event, ShipFired)
            for shot in event.shots
            if shot.target == SALVO_AIM
        )
        for event in battle.journal:
            attacks = (
                event.attacks
                if isinstance(event, MissilesResolved)
                else event.salvos
                if isinstance(event, FightersResolved)
                else ()
            )
            struck += sum(1 for a in attacks if a.hits)
    assert launched > 10
    assert struck > 3


def test_a_campaign_battle_counts_salvos_as_munitions_spent() -> None:
    # Expendables reset between strategic turns (index line ~82): the outcome carries them.
    request = CampaignBattle(
        sides=(
            CampaignSide(
                name="red",
                order="engage",
                ships=(CampaignShip(id="red-M1", design="missile_cruiser"),),
            ),
            CampaignSide(
                name="blue",
                order="engage",
                ships=(CampaignShip(id="blue-C1", design="heavy_cruiser"),),
            ),
        ),
        rules="continuum",
        turn_limit=8,
    )
    outcome = resolve_campaign_battle(request, SeededDice(5))
    launches = {
        ship: sum(
            1
            for event in outcome.journal
            if isinstance(event, ShipFired) and event.ship.endswith(ship)
            for shot in event.shots
            if shot.target == SALVO_AIM
        )
        for ship in ("red-M1", "blue-C1")
    }
    assert launches["red-M1"] > 0
    for ship in outcome.ships:
        assert ship.munitions_spent == launches[ship.id]
    assert outcome_from_journal(outcome.setup, outcome.journal) == outcome
