"""Heavy missiles (Project Continuum 000 6.2-6.6): one-shot racks, launched like salvos,
homing like them; a PDS kills one on 5-6 (L5895-5897) and one that gets through does 3D6
semi-armour-piercing (L5942-5944)."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    MissilesResolved,
    ShipFired,
    ShipSetup,
    Shot,
    evolve,
    initial_state,
    launch_options,
    launch_problem,
    replay,
    resolve,
)
from tactical.commanders import closing_commander, play
from tactical.designs import decode_design
from tactical.dice import ScriptedDice, SeededDice
from tactical.missiles import SALVO_AIM, Salvo
from tactical.notation import format_position, parse_position
from tactical.points import price
from tactical.ship import PRESETS
from tactical.summary import describe_journal
from tests.tactical import extra_designs

TEST_DESIGNS = {
    "hm_boat": """
name = "HM Boat"
rules = "continuum"
provenance = "test design: two heavy missile racks, one extended range, a PDS and 4 armour"
mass = 40
thrust = 4
hull_strength = "average"
armour = 4
fire_controls = 1

[[systems]]
kind = "heavy_missile"
count = 2
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "heavy_missile_er"
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "pds"
""",
}


@pytest.fixture(autouse=True)
def _designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def at(ship_id: str, side: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=ship_id, side=side, design="hm_boat", x=x, y=y, course=course, speed=0)


def duel(*ships: ShipSetup) -> Battle:
    return Battle(BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum"))


def test_heavy_missile_racks_are_priced_by_the_summary() -> None:
    # 000 L16734-16741: Heavy Missile standard mass 2, extended range 3, points x3.
    costing = price(decode_design(TEST_DESIGNS["hm_boat"], "hm_boat.toml"), PRESETS["continuum"])
    lines = {line.item: (line.mass, line.points) for line in costing.lines}
    assert lines["Heavy missile (FP/F/FS) x2"] == (4, 12)  # two racks of 2 mass, 6 points
    assert lines["Heavy missile (ER) (FP/F/FS)"] == (3, 9)
    assert costing.problems == ()


def test_a_heavy_missile_launches_from_its_rack_to_24_or_36_mu() -> None:
    # 000 L5747-5753: the marker at the aim point, 24 MU, 36 MU extended range; the rack is
    # one-shot and crossed off once fired (L6044-6050).
    battle = duel(at("r1", "red", 0, 0), at("b1", "blue", 0, 40, 6))
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    ctx, state = battle.ctx, battle.state
    assert launch_options(ctx, state, "r1") == (
        "heavy_missile-1",
        "heavy_missile-2",
        "heavy_missile_er-1",
    )
    assert "beyond 24 MU" in (launch_problem(ctx, state, "r1", "heavy_missile-1", "0,30") or "")
    assert launch_problem(ctx, state, "r1", "heavy_missile_er-1", "0,36") is None
    fired = battle.fire("r1", [Shot("heavy_missile_er-1", SALVO_AIM, "0,36")], ScriptedDice([]))
    assert isinstance(fired, ShipFired)
    (missile,) = battle.state.salvos
    assert missile.heavy
    assert missile.er
    ammo = {s.id: s.ammo for s in battle.state.ship("r1").record.systems}
    assert ammo["heavy_missile_er-1"] == 0
    text = format_position("continuum", battle.state)
    assert "/hm" in text
    assert parse_position(text) == ("continuum", battle.state)


def missile_state(*ships: ShipSetup, salvos: tuple[Salvo, ...]):  # type: ignore[no-untyped-def]
    battle = duel(*ships)
    ctx = battle.ctx
    state = msgspec.structs.replace(
        initial_state(ctx), turn=2, phase="missiles", first="red", salvos=salvos
    )
    return ctx, state


HM = Salvo(id="r1.heavy_missile-1.t1", side="red", x=0, y=20, launched=1, heavy=True)


def test_a_pds_kills_a_heavy_missile_on_5_or_6() -> None:
    # 000 L5897-5899: "Each PDS rolls a D6 and kills the missile on a roll of 5 or 6."
    ctx, state = missile_state(at("r1", "red", 0, 0), at("b1", "blue", 0, 24, 6), salvos=(HM,))
    event = resolve(ctx, state, ScriptedDice([5]))
    assert isinstance(event, MissilesResolved)
    (attack,) = event.attacks
    assert (attack.target, attack.kills, attack.hits, attack.hit) == ("b1", 1, 0, None)
    assert event.defence[0].roll.faces == (5,)  # one die, no re-roll
    assert evolve(ctx, state, event).ship("b1").record == state.ship("b1").record


def test_a_heavy_missile_through_does_3d6_semi_armour_piercing() -> None:
    # 000 L5942-5944: "Each Heavy Missile inflicts 3D6 of damage on the target. (As usual,
    # half rounded up can be taken on armor, the remainder on the hull.)" The PDS's 4 does not
    # kill it (a salvo's PDS would have killed one on 4); 3 + 1 + 3 = 7: 4 on the 4 armour
    # boxes, 3 on the hull.
    ctx, state = missile_state(at("r1", "red", 0, 0), at("b1", "blue", 0, 24, 6), salvos=(HM,))
    event = resolve(ctx, state, ScriptedDice([4, 3, 1, 3] + [1] * 20))
    assert isinstance(event, MissilesResolved)
    (attack,) = event.attacks
    assert attack.on_target is None
    assert (attack.kills, attack.hits, attack.faces) == (0, 1, (3, 1, 3))
    assert attack.hit is not None
    assert (attack.hit.damage, attack.hit.to_armour, attack.hit.to_hull) == (7, 4, 3)
    after = evolve(ctx, state, event)
    assert after.ship("b1").record.armour_lost == 4
    assert after.salvos == ()
    assert any("heavy missile hits [3, 1, 3]" in line for line in describe_journal([event]))


def test_commanders_launch_heavy_missiles_and_the_journal_replays() -> None:
    launched = 0
    for seed in range(4):
        setup = BattleSetup(
            sides=("red", "blue"),
            ships=(at("r1", "red", 0, 0), at("b1", "blue", 0, 48, 6)),
            rules="continuum",
            turn_limit=8,
        )
        battle = play(
            Battle(setup),
            {"red": closing_commander(), "blue": closing_commander()},
            SeededDice(seed),
        )
        launched += sum(
            1
            for event in battle.journal
            if isinstance(event, ShipFired)
            for shot in event.shots
            if shot.weapon.startswith("heavy_missile")
        )
        assert replay(setup, battle.journal) == battle.state
    assert launched


def test_an_intercepting_fighter_kills_a_heavy_missile_on_a_6() -> None:
    # 000 L5901-5903: "Each Beam-1 or fighter rolls a D6 and kills the missile on a roll of
    # 6"; for the missile killed a D6, a 6 losing the fighter (L5913-5917). Five 5s do nothing.
    from tests.tactical.test_fighter_expanded import MARKER, RED, in_flight, salvo_at
    from tests.tactical.test_fighter_types import carrier, fight, group, hulk, table

    for faces, kills in (([5, 5, 5, 5, 5, 5], 0), ([5, 6, 1, 1, 1, 1, 3], 1)):
        ctx, state = table(carrier("standard", "r1"), hulk("b1"), blue_y=60)
        state = in_flight(ctx, state, group("red", "r1", 20))
        heavy = msgspec.structs.replace(salvo_at(5), heavy=True)
        state = msgspec.structs.replace(state, salvos=(heavy,))
        _, event = fight(ctx, state, {"red": f"{RED}:I>{MARKER}"}, [*faces, 1, 1, 1, 1])
        (caught,) = event.interceptions
        assert (caught.roll.faces, caught.roll.kills) == (tuple(faces[:6]), kills)
        assert len(caught.losses) == kills
        (strike,) = event.salvos
        assert strike.kills == kills
        assert strike.hits == 1 - kills
