"""Project Continuum's specialised fighters (000 8.15): graser, plasma, MKP and missile fighters
with scripted dice, built from the rule text (000 L9690-9865): what their weapons score, the
combat endurance they cost, their one-shot weapons spent, their ranges; standard groups roll
as before; and a battle with all four replays from its journal."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    BattleState,
    FighterAttack,
    FightersResolved,
    MissilesResolved,
    SalvoAttack,
    SalvoLaunch,
    ShipSetup,
    Theatre,
    replay,
    resolve,
)
from tactical.commanders import closing_commander, play, posture_flight
from tactical.dice import ScriptedDice, SeededDice
from tactical.fighters import fighter_type
from tactical.missiles import Salvo
from tactical.notation import format_position, parse_position
from tactical.points import build
from tactical.rules import BATTLE_RULES
from tactical.ship import PRESETS, Design, Mount, Ship
from tests.tactical import extra_designs
from tests.tactical.test_battle_fighters import in_flight
from tests.tactical.test_fighter_types import BAY, carrier, fight, group, hulk, table

PC = PRESETS["continuum"]
RED = f"r1.{BAY}"


def armoured(ship_id: str, armour: int = 4, screens: int = 0, pds: int = 0) -> Ship:
    """A target with ``armour`` boxes, ``screens`` and ``pds`` point-defence systems."""
    design = Design(
        name="Armoured Hulk",
        rules="continuum",
        mass=100,
        thrust=2,
        hull_strength="average",
        armour=armour,
        screens=screens,
        fire_controls=1,
        systems=(Mount(kind="pds", count=pds),) if pds else (),
    )
    return build(design, PC, ship_id=ship_id)


def run(
    kind: str, faces: list[int], target: Ship | None = None, y: float = 26, **aboard: bool
) -> tuple[BattleState, FightersResolved]:
    """A full group of ``kind`` fighters at (0, ``y``) attacks a target at (0, 30)."""
    ctx, state = table(carrier(kind, "r1"), target or hulk("b1"))
    state = in_flight(ctx, state, group("red", "r1", y, **aboard))
    return fight(ctx, state, {"red": f"{RED}:A>b1"}, faces)


def only_attack(event: FightersResolved) -> FighterAttack:
    (attack,) = event.attacks
    return attack


def rolled(event: FightersResolved | MissilesResolved, prefix: str) -> list[int]:
    return [roll.value for roll in event.rolls if roll.key.startswith(prefix)]


def moving(state: BattleState, ship_id: str, speed: int) -> BattleState:
    ships = tuple(
        msgspec.structs.replace(s, speed=speed) if s.id == ship_id else s for s in state.ships
    )
    return msgspec.structs.replace(state, ships=ships)


# ---------------------------------------------------------------- graser fighters


def test_graser_dice_are_beam_dice_and_each_hit_does_1d3() -> None:
    """000 L9700-9706: a full wing delivers 6 BD* hits, each 1d3, semi-AP; read as a Graser-1
    per fighter (000 L3982-3994): 6 scores two hits, 4-5 one, and each hit rolls 1d3. Firing
    the graser drains 2 endurance (000 L9714-9716)."""
    state, event = run("graser", [6, 5, 4, 3, 2, 1, 1, 3, 2, 1, 3])
    attack = only_attack(event)
    assert attack.weapon == "graser"
    assert (attack.faces, attack.rerolls) == ((6, 5, 4, 3, 2, 1), (1,))
    assert attack.damage == (3, 2, 1, 3)  # four hits: 2 + 1 + 1, the re-roll's 1 none
    assert (attack.hit.damage, attack.hit.to_hull) == (9, 9)  # no armour on the hulk
    assert rolled(event, f"t1/graser/{RED}/damage/") == [3, 2, 1, 3]
    assert not rolled(event, "t1/fighters/")
    (flying,) = state.fighters
    assert flying.endurance == 4


def test_graser_hits_are_semi_armour_piercing_and_re_rolls_ignore_armour() -> None:
    """Screens cut the hits as for beams (level 1: 4 nothing, 6 two); each screened hit's 1d3
    is semi-armour-piercing, half rounded up on armour (000 L3976-3978, L3078-3167), and the
    re-rolls' hits, scored unscreened, penetrate like any beam re-roll (000 L3982-3986)."""
    beams = [6, 5, 4, 1, 1, 1, 6, 4]  # 6 -> 2, 5 -> 1; re-rolls 6 -> 2 and 4 -> 1
    damage = [1, 2, 3, 3, 3, 1]
    _, event = run("graser", beams + damage, target=armoured("b1", armour=4, screens=1))
    attack = only_attack(event)
    assert attack.damage == (1, 2, 3, 3, 3, 1)
    # SAP: 1 -> 1 armour; 2 -> 1 + 1; 3 -> 2 + 1; the re-rolls' 3 + 3 + 1 all hull.
    assert (attack.hit.to_armour, attack.hit.to_hull) == (4, 2 + 7)


def test_the_one_hit_each_reading_of_graser_fighters() -> None:
    """The rule option ``graser_fighters = "one_hit_each"``: each fighter simply scores one
    hit of 1d3 SAP, no to-hit die, screens no matter."""
    ctx, state = table(carrier("graser", "r1"), hulk("b1", screens=2))
    rules = msgspec.structs.replace(ctx.rules, graser_fighters="one_hit_each")
    ctx = ctx._replace(rules=rules)
    state = in_flight(ctx, state, group("red", "r1", 26))
    assert BATTLE_RULES["continuum"].graser_fighters == "beam_dice"
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [3, 3, 3, 1, 1, 2])
    attack = only_attack(event)
    assert (attack.faces, attack.damage, attack.hit.damage) == ((), (3, 3, 3, 1, 1, 2), 13)
    assert state.fighters[0].endurance == 4


def test_graser_fighters_dogfight_with_cannon_at_minus_2_for_1_endurance() -> None:
    """000 L9706-9710: against fighters only secondary cannon, BD* at -2; they are not the
    graser, so a dogfight round costs the usual 1 endurance."""
    ctx, state = table(carrier("graser", "r1"), carrier("standard", "b1"), blue_y=60)
    state = in_flight(ctx, state, group("red", "r1", 20), group("blue", "b1", 30))
    faces = [6, 6, 5, 4, 4, 4, 1, 1] + [1] * 6
    state, event = fight(ctx, state, {"red": f"{RED}:D>b1.{BAY}"}, faces)
    (df,) = event.dogfights
    assert df.attacker_roll.kills == 2  # 6 -> 4 one each, 5 -> 3 and 4 -> 2 none
    assert {g.id: g.endurance for g in state.fighters} == {RED: 5, f"b1.{BAY}": 5}


# ---------------------------------------------------------------- plasma fighters


def test_plasma_dice_score_the_face_less_2_and_the_screens() -> None:
    """000 L9730-9734: plasma dice, 1d6-2 less the screens in hits of 1, re-rolling on a 6
    (000 L3924-3932: 3 one, 4 two, 5 three, 6 four, penetrates and re-rolls); 2 endurance
    (000 L9754-9756)."""
    state, event = run("plasma", [6, 5, 4, 3, 2, 1, 3], target=armoured("b1", armour=4))
    attack = only_attack(event)
    assert attack.weapon == "plasma"
    assert attack.rerolls == (3,)
    # 4 + 3 + 2 + 1 armour first (4 armour, 6 hull); the re-roll's 1 ignores armour.
    assert (attack.hit.damage, attack.hit.to_armour, attack.hit.to_hull) == (11, 4, 7)
    assert rolled(event, f"t1/plasma/{RED}/") == [6, 5, 4, 3, 2, 1, 3]
    assert state.fighters[0].endurance == 4
    # Behind level-2 screens a 6 scores 2 and a 5 one; the re-rolls ignore the screens.
    _, event = run("plasma", [6, 5, 4, 3, 2, 1, 6, 2], target=hulk("b1", screens=2))
    assert only_attack(event).hit.damage == 2 + 1 + 4 + 0


def test_plasma_fighters_pay_2_endurance_at_fighters_and_fire_with_1_left() -> None:
    """000 L9742-9756: against fighters the plasma cannon rolls BD* at -2, and firing it
    costs 2 endurance there too; a group with 1 left may still fire and ends at 0."""
    ctx, state = table(carrier("plasma", "r1"), carrier("standard", "b1"), blue_y=60)
    state = in_flight(ctx, state, group("red", "r1", 20), group("blue", "b1", 30))
    faces = [6, 6, 5, 4, 4, 4, 1, 1] + [1] * 6
    state, event = fight(ctx, state, {"red": f"{RED}:D>b1.{BAY}"}, faces)
    (df,) = event.dogfights
    assert df.attacker_roll.kills == 2
    assert {g.id: g.endurance for g in state.fighters} == {RED: 4, f"b1.{BAY}": 5}
    ctx, state = table(carrier("plasma", "r1"), hulk("b1"))
    tired = msgspec.structs.replace(group("red", "r1", 26), endurance=1)
    state, event = fight(ctx, in_flight(ctx, state, tired), {"red": f"{RED}:A>b1"}, [3] * 6)
    assert only_attack(event).hit.damage == 6
    assert state.fighters[0].endurance == 0


# ---------------------------------------------------------------- MKP fighters


def test_mkp_fighters_fire_their_mkps_once() -> None:
    """000 L9768-9780: the MKPs, range 6, each 1 hit on 4+ and 2 on a 6, 4 points armour
    piercing a hit, past screens (000 L5056-5066), all at once at one target, for 1 endurance
    and no secondary weapons that turn; then the secondaries roll BD* at -2 (L9784-9794)."""
    ctx, state = table(carrier("mkp", "r1"), armoured("b1", armour=4, screens=2))
    state = in_flight(ctx, state, group("red", "r1", 26, mkps=True))
    counters = msgspec.structs.replace(state, ships=())  # the notation reads catalogue ships
    assert "^6/e6/mkp" in format_position("continuum", counters)
    assert parse_position(format_position("continuum", counters)) == ("continuum", counters)
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [6, 5, 4, 3, 2, 1])
    attack = only_attack(event)
    assert (attack.weapon, attack.torpedoes) == ("mkps", False)
    assert attack.hit.damage == 4 * (2 + 1 + 1)
    # Armour piercing: each hit's first point on armour, the rest on the hull.
    assert (attack.hit.to_armour, attack.hit.to_hull) == (4, 12)
    assert rolled(event, f"t1/mkps/{RED}/") == [6, 5, 4, 3, 2, 1]
    assert not rolled(event, "t1/fighters/")
    (flying,) = state.fighters
    assert (flying.mkps, flying.endurance) == (False, 5)
    # Next turn the secondaries, at -2: against an unscreened ship 6 scores 1, 5 nothing.
    ctx, state = table(carrier("mkp", "r1"), hulk("b1"))
    state = in_flight(ctx, state, flying)
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [6, 5, 4, 1, 1, 1, 1])
    secondary = only_attack(event)
    assert (secondary.weapon, secondary.hit.damage) == ("beams", 1)


def test_mkps_reach_6_mu() -> None:
    """000 L9774: range 6 MU, as other fighter weapons: a group that ends 16 MU short keeps
    its MKPs and its endurance."""
    ctx, state = table(carrier("mkp", "r1"), hulk("b1"), blue_y=40)
    state = in_flight(ctx, state, group("red", "r1", 0, mkps=True))
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [])
    assert event.attacks == ()
    assert event.moves[0].void == "b1 is out of reach"
    (flying,) = state.fighters
    assert (flying.y, flying.mkps, flying.endurance) == (24.0, True, 6)


# ---------------------------------------------------------------- missile fighters


def test_missile_fighters_close_to_12_mu_and_launch_their_salvo() -> None:
    """000 L9810-9833: within 12 MU of an enemy ship the group launches its one salvo, for 1
    endurance. It closes only to 12 MU, makes no attack run, and the target's point defence
    has no group attacking it to fire at. The salvo is aimed where the ship will be after its
    next move, and homes then, like a ship's salvo."""
    ctx, state = table(carrier("missile", "r1"), hulk("b1", pds=2))
    state = moving(state, "b1", 4)  # course 6: it flies 4 MU towards the group
    state = in_flight(ctx, state, group("red", "r1", 0, salvo=True))
    counters = msgspec.structs.replace(state, ships=())
    assert "^6/e6/sm" in format_position("continuum", counters)
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [])
    assert (event.attacks, event.defence, event.rolls) == ((), (), ())
    assert event.launches == (
        SalvoLaunch(group=RED, target="b1", salvo=f"{RED}.t1", x=0.0, y=26.0),
    )
    (flying,) = state.fighters
    assert (flying.y, flying.salvo, flying.endurance) == (18.0, False, 5)
    assert state.salvos == (Salvo(id=f"{RED}.t1", side="red", x=0.0, y=26.0, launched=1),)


def test_a_missile_group_launches_where_it_stands_within_12_mu() -> None:
    ctx, state = table(carrier("missile", "r1"), hulk("b1"))
    state = in_flight(ctx, state, group("red", "r1", 22, salvo=True))
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [])
    assert [launch.target for launch in event.launches] == ["b1"]
    assert state.fighters[0].y == 22.0


def test_a_missile_group_out_of_reach_keeps_its_salvo() -> None:
    """A group that ends 16 MU from the ship may not launch (000 L9814-9817)."""
    ctx, state = table(carrier("missile", "r1"), hulk("b1"), blue_y=40)
    state = in_flight(ctx, state, group("red", "r1", 0, salvo=True))
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [])
    assert event.launches == ()
    assert event.moves[0].void == "b1 is out of reach"
    (flying,) = state.fighters
    assert (flying.y, flying.salvo, flying.endurance) == (24.0, True, 6)


def test_the_aim_point_stays_within_24_mu_of_the_group() -> None:
    """A fast target's forecast position may lie beyond a salvo's 24 MU (000 L5749-5751):
    the aim is brought in along the line to it."""
    ctx, state = table(carrier("missile", "r1"), hulk("b1"))
    state = moving(state, "b1", 40)  # course 6: forecast at (0, -10)
    state = in_flight(ctx, state, group("red", "r1", 22, salvo=True))
    _, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [])
    (launch,) = event.launches
    assert (launch.x, launch.y) == (0.0, -2.0)


def test_an_asteroid_across_the_aim_keeps_the_salvo_aboard() -> None:
    """A salvo is never placed across an asteroid (000 L5757-5759, L17810-17812): the group
    closes as ordered but does not launch."""
    ctx, state = table(carrier("missile", "r1"), hulk("b1"))
    setup = msgspec.structs.replace(ctx.setup, theatre=Theatre(asteroids=((0.0, 26.0),)))
    ctx = ctx._replace(setup=setup)
    state = in_flight(ctx, state, group("red", "r1", 22, salvo=True))
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [])
    assert event.launches == ()
    assert (
        event.moves[0].void == "an asteroid lies across the line to the aim point (000 L5757-5759)"
    )
    (flying,) = state.fighters
    assert (flying.salvo, flying.endurance) == (True, 6)


def test_a_short_group_launches_a_salvo_that_locks_on_less() -> None:
    """000 L9837-9849: six fighters launch 6 missiles less any destroyed; the missiles that lock
    on are a D6 less 1 per fighter destroyed before the launch. Then the salvo strikes as a
    ship's: each missile through 1D6, semi-armour-piercing, past screens (000 L5950-5958)."""
    ctx, state = table(carrier("missile", "r1"), hulk("b1", screens=2))
    state = in_flight(ctx, state, group("red", "r1", 22, n=4, salvo=True))
    state, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [])
    (launch,) = event.launches
    assert launch.lost == 2
    (salvo,) = state.salvos
    assert salvo.lost == 2
    counters = msgspec.structs.replace(state, ships=())
    assert f"S:red:{RED}.t1@0,30/t1/l2" in format_position("continuum", counters)
    assert parse_position(format_position("continuum", counters)) == ("continuum", counters)
    # Next turn the salvo homes: a 5 on target less 2 is 3 missiles, no defence, 3 hits.
    homing = msgspec.structs.replace(state, turn=2, phase="missiles", fighters=())
    strike = resolve(ctx, homing, ScriptedDice([5, 4, 2, 6] + [1] * 20))
    assert isinstance(strike, MissilesResolved)
    assert strike.attacks == (
        SalvoAttack(
            salvo=f"{RED}.t1",
            target="b1",
            on_target=5,
            lost=2,
            hits=3,
            faces=(4, 2, 6),
            hit=strike.attacks[0].hit,
        ),
    )
    assert strike.attacks[0].hit is not None
    assert strike.attacks[0].hit.damage == 12
    # A D6 of 2 less 3 lost locks on nothing, and rolls no damage.
    short = msgspec.structs.replace(homing, salvos=(msgspec.structs.replace(salvo, lost=3),))
    strike = resolve(ctx, short, ScriptedDice([2]))
    assert isinstance(strike, MissilesResolved)
    assert (strike.attacks[0].hits, len(strike.rolls)) == (0, 1)


def test_missile_fighters_secondaries_roll_at_minus_2_within_6_mu() -> None:
    """000 L9853-9861: after the launch the beams roll BD* at -2, to 6 MU."""
    state, event = run("missile", [6, 5, 4, 1, 1, 1, 1])
    attack = only_attack(event)
    assert (attack.weapon, attack.hit.damage) == ("beams", 1)
    assert state.fighters[0].endurance == 5


# ---------------------------------------------------------------- what stays as it was


def test_standard_and_torpedo_groups_roll_as_before() -> None:
    """Standard groups roll beam dice under ``t<turn>/fighters/``, torpedo groups their
    torpedoes, each for 1 endurance; neither carries the new weapons."""
    state, event = run("standard", [6, 5, 4, 3, 2, 1, 1])
    attack = only_attack(event)
    assert (attack.weapon, attack.damage, attack.hit.damage) == ("beams", (), 4)
    assert rolled(event, f"t1/fighters/{RED}/") == [6, 5, 4, 3, 2, 1, 1]
    assert state.fighters[0].endurance == 5
    state, event = run("torpedo", [6, 5, 4, 3, 2, 1], torpedoes=True)
    attack = only_attack(event)
    assert (attack.weapon, attack.torpedoes, attack.hit.damage) == ("torpedoes", True, 15)
    assert state.fighters[0].endurance == 5
    for kind in ("standard", "interceptor", "attack", "torpedo", "fast", "long_range"):
        played = fighter_type(kind)
        assert (played.ship_weapon, played.ship_cef, played.fighter_cef) == ("beams", 1, 1)
        assert (played.mkps, played.salvo) == (False, False)


def test_a_group_spent_in_a_dogfight_never_goes_below_0_endurance() -> None:
    """A group caught with no endurance left still fights back (000 L9344-9350) and stays at
    0; it never shows -1."""
    ctx, state = table(carrier("standard", "r1"), carrier("standard", "b1"), blue_y=60)
    prey = msgspec.structs.replace(group("blue", "b1", 30), endurance=0)
    state = in_flight(ctx, state, group("red", "r1", 20), prey)
    state, _ = fight(ctx, state, {"red": f"{RED}:D>b1.{BAY}"}, [1] * 12)
    assert {g.id: g.endurance for g in state.fighters} == {RED: 5, f"b1.{BAY}": 0}


# ---------------------------------------------------------------- the commanders


def test_the_commanders_fire_one_shot_weapons_before_coming_home() -> None:
    """A group low on endurance comes home, unless it still carries one-shot weapons it can
    fire: it attacks once more."""
    attack = posture_flight("attack")
    for aboard, order in ((True, "attack"), (False, "recover")):
        ctx, state = table(carrier("mkp", "r1"), hulk("b1"))
        tired = msgspec.structs.replace(group("red", "r1", 10, mkps=aboard), endurance=1)
        state = in_flight(ctx, state, tired)
        assert attack(ctx, state, "red")[RED].kind == order


def test_a_defending_missile_group_launches_at_a_ship_in_reach() -> None:
    """Stand Off's groups cover their ships; a missile group with its salvo aboard goes for an
    enemy ship it can come within 12 MU of this turn, and covers once it has launched."""
    defend = posture_flight("defend")
    for distance, aboard, order in (
        (36, True, "attack"),
        (37, True, "cover"),
        (30, False, "cover"),
    ):
        ctx, state = table(carrier("missile", "r1"), hulk("b1"), blue_y=distance)
        state = in_flight(ctx, state, group("red", "r1", 0, salvo=aboard))
        assert defend(ctx, state, "red")[RED].kind == order, (distance, aboard)


# ---------------------------------------------------------------- a battle, replayed


def _carrier(name: str, *kinds: str) -> str:
    bays = "".join(f'\n[[systems]]\nkind = "hangar_bay"\nfighters = "{k}"\n' for k in kinds)
    return f"""
name = "{name}"
rules = "continuum"
provenance = "test design: a carrier of {", ".join(kinds)} fighters"
mass = 120
thrust = 4
hull_strength = "average"
fire_controls = 2
{bays}
[[systems]]
kind = "launch_tube"
count = {len(kinds)}

[[systems]]
kind = "pds"
count = 2
"""


TEST_DESIGNS = {
    "graser_plasma_carrier": _carrier("Graser Plasma Carrier", "graser", "plasma"),
    "mkp_missile_carrier": _carrier("MKP Missile Carrier", "mkp", "missile"),
}


@pytest.fixture
def carriers(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


@pytest.mark.usefixtures("carriers")
def test_a_battle_of_specialised_fighters_replays_from_its_journal() -> None:
    """Closing commanders fly all four types at each other's carriers and cruisers; folding
    the journal into the set-up gives the live state, and every weapon was used."""
    setup = BattleSetup(
        name="specialised fighters",
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="graser_plasma_carrier", x=0, y=0, course=12),
            ShipSetup(id="r2", side="red", design="heavy_cruiser", x=10, y=0, course=12),
            ShipSetup(id="b1", side="blue", design="mkp_missile_carrier", x=0, y=50, course=6),
            ShipSetup(id="b2", side="blue", design="heavy_cruiser", x=10, y=50, course=6),
        ),
        rules="continuum",
        turn_limit=10,
    )
    battle = play(
        Battle(setup), {side: closing_commander(cruise=2) for side in setup.sides}, SeededDice(3)
    )
    assert replay(setup, battle.journal) == battle.state
    fighters = [e for e in battle.journal if isinstance(e, FightersResolved)]
    weapons = {a.weapon for e in fighters for a in e.attacks}
    assert {"graser", "plasma", "mkps"} <= weapons
    launched = {launch.salvo for e in fighters for launch in e.launches}
    strikes = [a for e in fighters for a in e.salvos] + [
        a for e in battle.journal if isinstance(e, MissilesResolved) for a in e.attacks
    ]
    assert any(a.salvo in launched and a.hit is not None for a in strikes)


def test_a_modified_wing_keeps_its_base_weapon() -> None:
    """A mod changes dice, move or endurance; the base type's weapon stays (000 L16852-16884:
    fast and long range "may be added to other fighter types"; L9953 light missile fighters)."""
    fast_missile = fighter_type("missile+fast")
    assert (fast_missile.salvo, fast_missile.move, fast_missile.ship_drm) == (True, 36, -2)
    heavy_mkp = fighter_type("mkp+heavy")
    assert (heavy_mkp.mkps, heavy_mkp.hit_drm) == (True, -1)
    long_graser = fighter_type("graser+long_range")
    assert (long_graser.ship_weapon, long_graser.ship_cef, long_graser.endurance) == (
        "graser",
        2,
        9,
    )
