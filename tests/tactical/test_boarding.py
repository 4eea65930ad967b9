"""Boarding actions (Project Continuum 12.7, 000 L12944-13213) and boarding torpedoes (5.18,
000 L5074-5137), built from the rule text and its worked example.

Boarders come aboard an enemy ship; in phase 12 their side says which engage the defending
marines and which go for the hull (L13049-13053), the defender puts DCPs and marines on
particular boarders (L13053-13057); DCPs kill as a damage-control roll, 1 on a 6, 2 on 5+, 3 on
4+ (L12997-13003); defending marines and the boarders engaging them fight simultaneously at 4+
(L13025-13039, L13073-13081); survivors on the hull do a point each (L13085-13093); boarding's
thresholds spare the boarders and the crew, weapons fire's do not, except boarders landed that
turn (L13097-13109); a ship "destroyed" by boarders is captured, and one point destroys it
(L13113-13130). A boarding torpedo uses the projectile table, spends a torpedo hit or miss,
and a hit does a point past armour and lands two marines (L5090-5128).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from tactical.battle import (
    AssaultOrdered,
    Battle,
    BattleContext,
    BattleSetup,
    BattleState,
    BoardingFought,
    IllegalActionError,
    Landing,
    ShipFired,
    ShipSetup,
    Shot,
    TurnEnded,
    board,
    context,
    decode_journal,
    encode_journal,
    evolve,
    fire_options,
    fire_ship,
    free_parties,
    initial_state,
    repel,
    replay,
    resolve,
    sides_to_assault,
    sides_to_repair,
    sides_to_repel,
    sides_to_write,
    view,
)
from tactical.boarding import (
    Assault,
    BoarderLosses,
    Boarders,
    Guard,
    assault_doctrine,
    dcp_kills,
    format_assaults,
    guard_doctrine,
    melee,
    parse_assaults,
    parse_guards,
    parse_repel,
    torpedo_feeds,
)
from tactical.campaign_battle import outcome_from_journal
from tactical.commanders import named_commander, play, random_commander
from tactical.dice import DiceError, ScriptedDice, SeededDice
from tactical.fire import range_between
from tactical.movement import parse_orders
from tactical.notation import format_position, parse_position
from tactical.points import price
from tactical.repair import damage_control_parties
from tactical.ship import PRESETS, Mount, hull_remaining
from tactical.summary import describe
from tests.tactical import extra_designs

# Test designs, kept out of the built-in catalogue (and so out of its golden listing).
TEST_DESIGNS = {
    # 000 L13172: "The Wulkan has 6 DCPs and 2 Marines": 4 crew factors (mass 80, one
    # per 20, 000 L11326-11342) and 2 extra DCPs, and 2 marines; 24 boxes in rows of 6.
    "wulkan": """
name = "Wulkan"
rules = "continuum"
provenance = "test design: the worked example's United Do Gooder starship (000 L13168-13172)"
mass = 80
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "marines"
count = 2

[[systems]]
kind = "dcp"
count = 2
""",
    # The IKV Kiang gets its 4 marines aboard with two boarding torpedoes.
    "kiang": """
name = "IKV Kiang"
rules = "continuum"
provenance = "test design: the worked example's boarder (000 L13168-13170), with torpedoes"
mass = 40
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "boarding_torpedo"
count = 2
arcs = ["F"]

[[systems]]
kind = "boarding_magazine"
loads = 4
""",
    "armoured_hulk": """
name = "Armoured Hulk"
rules = "continuum"
provenance = "test design: 4 armour boxes and 4 hull boxes, no crew extras"
mass = 20
thrust = 2
hull_boxes = 4
armour = 4
fire_controls = 0
""",
}


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def _example_setup(turn_limit: int = 10, target: str = "wulkan") -> BattleSetup:
    """The Kiang 5 MU astern of its target, bow on, both stopped."""
    return BattleSetup(
        sides=("ikv", "udg"),
        rules="continuum",
        turn_limit=turn_limit,
        ships=(
            ShipSetup(id="kiang", side="ikv", design="kiang", x=0, y=0, course=12),
            ShipSetup(id="wulkan", side="udg", design=target, x=0, y=5, course=6),
        ),
    )


def _to_fire(setup: BattleSetup) -> Battle:
    """Write no orders and roll initiative for the first side."""
    battle = Battle(setup)
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    return battle


def _round_trips(battle: Battle) -> None:
    assert parse_position(format_position("continuum", battle.state)) == ("continuum", battle.state)
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    assert decode_journal(encode_journal(battle.journal)) == battle.journal


TORPEDOES = [Shot("boarding_torpedo-1", "wulkan"), Shot("boarding_torpedo-2", "wulkan")]


# ---------------------------------------------------------------- the worked example


def test_worked_example() -> None:
    # 000 L13168-13212, "Example of Boarding Combat".
    battle = _to_fire(_example_setup())
    # "During the turn the IKV Kiang managed to get 4 Marines aboard": two torpedoes at 5 MU
    # hit on 2+ (the projectile table's first band, 000 L20336-20362).
    fired = battle.fire("kiang", TORPEDOES, ScriptedDice([2, 2]))
    assert isinstance(fired, ShipFired)
    assert fired.landed == (Landing(ship="wulkan", side="ikv", marines=4),)
    wulkan = battle.state.ship("wulkan")
    assert wulkan.boarders == (Boarders(side="ikv", landed=1, marines=4),)
    assert wulkan.record.hull_lost == (2, 0, 0, 0)  # a point each, past armour (000 L5122)
    assert [s.ammo for s in battle.state.ship("kiang").record.systems if s.ammo is not None] == [2]
    wulkan_sheet = battle.ctx.sheets["wulkan"]
    assert damage_control_parties(wulkan_sheet, wulkan.record) == 6  # "6 DCPs and 2 Marines"
    battle.fire("wulkan", [], ScriptedDice([]))
    _round_trips(battle)

    # Step 1: "The IKV player decides to assign two of his Marines to attacking the defending
    # Marines. The other two will 'destroy' two hull boxes if they survive."
    assert battle.step() == ("simultaneous", "assault", None)
    assert sides_to_assault(battle.ctx, battle.state) == ("ikv",)
    assert assault_doctrine(4, 0, 2) == Assault(marines=2)
    ordered = battle.assault("ikv", {"wulkan": Assault(marines=2)})
    assert isinstance(ordered, AssaultOrdered)
    assert ordered.orders == "wulkan:M2P0"
    assert battle.step() == ("simultaneous", "repel", None)
    assert sides_to_repel(battle.ctx, battle.state) == ("udg",)
    assert view(battle.state, "udg").written == battle.state.written  # open to the defender
    _round_trips(battle)

    # "The Wulkan player decides to assign his 6 DCP to attack (repel) the Marines assigned to
    # damaging hull boxes (three for each Marine) and his 2 Marines to engage the other two".
    guards = parse_guards("Mh3.Mh3.Mm+1.Mm+1")
    assert guards == guard_doctrine(4, 0, Assault(marines=2), 6, 2)
    # "The DCPs need a 4+ to destroy a Marine. The player rolls a 2 and a 5, killing one
    # Marine." Then the marines, 4+ each way: the Wulkans roll 4 and 1, the IKV 5 and 6: "The
    # IKV Marines wipe out the Wulkans with only one loss."
    fought = battle.repel("udg", {"wulkan": guards}, ScriptedDice([2, 5, 4, 1, 5, 6]))
    assert isinstance(fought, BoardingFought)
    assert [r.key for r in fought.rolls] == [
        "t1/boarding/wulkan/dcp/0",
        "t1/boarding/wulkan/dcp/1",
        "t1/boarding/wulkan/marine/2/0",
        "t1/boarding/wulkan/marine/3/0",
        "t1/boarding/wulkan/attack/0",
        "t1/boarding/wulkan/attack/1",
    ]
    (fight,) = fought.fights
    assert [g.killed for g in fight.melee.guards] == [None, "dcp", "marines", None]
    assert fight.melee.hits == 2
    assert fight.marines_lost == ("marines-1", "marines-2")
    # "The IKV Marine assigned to attacking hull boxes has survived, and now destroys one hull
    # box. The other surviving Marine does not eliminate a box".
    assert fight.melee.hull == 1
    assert fight.hit is not None
    assert fight.hit.to_hull == 1
    wulkan = battle.state.ship("wulkan")
    assert wulkan.record.hull_lost == (3, 0, 0, 0)
    assert wulkan.boarders == (Boarders(side="ikv", landed=1, marines=2),)
    statuses = {s.id: s.status for s in wulkan.record.systems}
    assert statuses["marines-1"] == statuses["marines-2"] == "destroyed"  # not repairable
    # DCPs that fought make no repairs that turn (000 L12983-12991).
    assert wulkan.repelled == 6
    assert free_parties(battle.ctx, wulkan) == 0
    assert describe(fought) == [
        "turn 1: udg fights the boarders aboard its ships",
        "    wulkan fights ikv's boarders (4 marines): 2 engage its marines, 2 go for the hull",
        "      3 DCPs on a marine on the hull roll 2: missed",
        "      3 DCPs on a marine on the hull roll 5: killed",
        "      1 marine on a marine engaging roll [4]: killed",
        "      1 marine on a marine engaging roll [1]: missed",
        "      the boarders engaging roll [5, 6]: 2 marines killed: marines-1, marines-2",
        "      wulkan takes 1",
    ]
    assert battle.step() == ("chance", "end", None)
    _round_trips(battle)
    battle.resolve(ScriptedDice([]))  # no row crossed: no check
    assert battle.state.turn == 2
    assert battle.state.ship("wulkan").repelled == 0
    _round_trips(battle)


# ---------------------------------------------------------------- the rules of a round


def test_dcp_kill_numbers() -> None:
    # 000 L12997-13003: one DCP kills on a 6, two on 5+, three on 4+.
    assert [f for f in range(1, 7) if dcp_kills(f, 1)] == [6]
    assert [f for f in range(1, 7) if dcp_kills(f, 2)] == [5, 6]
    assert [f for f in range(1, 7) if dcp_kills(f, 3)] == [4, 5, 6]
    assert not any(dcp_kills(f, 0) for f in range(1, 7))


def test_marine_combat_is_simultaneous() -> None:
    # 000 L13037-13039, L13073-13081: a defending marine and the boarder engaging it both roll
    # 4+; both die.
    one = (Guard("marine", "marines", marines=1),)
    outcome = melee(ScriptedDice([4, 4]), "k", (1, 0), Assault(marines=1), one, 1)
    assert outcome.hits == 1
    assert outcome.marines_killed == 1
    assert outcome.guards[0].killed == "marines"
    outcome = melee(ScriptedDice([3, 4]), "k", (1, 0), Assault(marines=1), one, 1)
    assert (outcome.hits, outcome.marines_killed) == (1, 0)


def test_dcps_kill_before_the_marines_fight() -> None:
    # 000 L13061-13069: DCP casualties are removed before step 2, so a boarder they kill
    # neither attacks the marines nor draws their fire; no die is rolled for either.
    guard = (Guard("marine", "marines", dcps=3, marines=1),)
    outcome = melee(ScriptedDice([4, 6]), "k", (1, 0), Assault(marines=1), guard, 1)
    assert outcome.guards[0].killed == "dcp"
    assert outcome.guards[0].marines == (6,)  # it fired at a dead boarder: wasted
    assert outcome.attack == ()
    assert outcome.hits == 0


def test_boarding_parties_engaging_marines() -> None:
    # Step 2 names boarding parties beside marines and gives no other number (000
    # L13073-13081): 4+ by default; the rule option makes it one DCP's 6 (000 L12997-12999).
    assert melee(ScriptedDice([5]), "k", (0, 1), Assault(parties=1), (), 1).hits == 1
    assert melee(ScriptedDice([5]), "k", (0, 1), Assault(parties=1), (), 1, party_on=6).hits == 0


def test_hull_damage_of_the_survivors() -> None:
    # 000 L13085-13093: boarders on the hull alive after steps 1 and 2 do a point each.
    guards = (Guard("party", "hull", dcps=2), Guard("marine", "hull", marines=1))
    outcome = melee(ScriptedDice([5, 3]), "k", (2, 1), Assault(), guards, 1)
    assert outcome.guards[0].killed == "dcp"
    assert outcome.guards[1].killed is None
    assert (outcome.hull, outcome.marines_killed, outcome.parties_killed) == (2, 0, 1)


def test_allocation_notation() -> None:
    assert parse_assaults("b1:M2P1 b2:M0P0") == {
        "b1": Assault(marines=2, parties=1),
        "b2": Assault(),
    }
    assert format_assaults(parse_assaults("b2:M0P0 b1:M2P1")) == "b1:M2P1 b2:M0P0"
    assert parse_repel("b1:Mh3.Pm1+2 b2:-") == {
        "b1": (Guard("marine", "hull", dcps=3), Guard("party", "marines", dcps=1, marines=2)),
        "b2": (),
    }


def test_illegal_allocations() -> None:
    battle = _to_fire(_example_setup())
    battle.fire("kiang", TORPEDOES, ScriptedDice([2, 2]))
    battle.fire("wulkan", [], ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="4 marines and 0 parties are aboard"):
        battle.assault("ikv", {"wulkan": Assault(marines=5)})
    with pytest.raises(IllegalActionError, match="udg has no boarders to allot"):
        battle.assault("udg", {})
    battle.assault("ikv", {"wulkan": Assault(marines=2)})
    with pytest.raises(IllegalActionError, match="0 to 3 DCPs on one boarder"):
        battle.repel("udg", {"wulkan": parse_guards("Mh4")}, ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="2 marines aboard are on the hull, not 3"):
        battle.repel("udg", {"wulkan": parse_guards("Mh1.Mh1.Mh1")}, ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="7 DCPs, but the ship has 6 free"):
        battle.repel("udg", {"wulkan": parse_guards("Mh3.Mh3.Mm1")}, ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="3 marines, but the ship has 2"):
        battle.repel("udg", {"wulkan": parse_guards("Mm+2.Mh+1")}, ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="ikv has no boarders to fight"):
        battle.repel("ikv", {}, ScriptedDice([]))


def test_no_assault_step_without_defending_marines() -> None:
    # With no marines aboard there is nothing to engage: every boarder goes for the hull, and
    # the defender answers at once (000 L13049-13053).
    battle = _to_fire(_example_setup(target="armoured_hulk"))
    battle.fire("kiang", TORPEDOES, ScriptedDice([2, 6]))
    battle.fire("wulkan", [], ScriptedDice([]))
    assert battle.step() == ("simultaneous", "repel", None)
    # The hulk's one crew factor (mass 20) puts its DCP on one marine: a 6 kills it.
    fought = battle.repel("udg", {"wulkan": parse_guards("Mh1")}, ScriptedDice([6]))
    assert isinstance(fought, BoardingFought)
    assert fought.fights[0].melee.hull == 3
    assert battle.state.ship("wulkan").record.hull_lost == (1, 1, 1, 1)


# ---------------------------------------------------------------- thresholds and capture


def _position(text: str, target: str = "wulkan") -> tuple[BattleContext, BattleState]:
    """A battle of the example's ships from a position in the notation."""
    return context(_example_setup(target=target)), parse_position(text)[1]


def test_boarding_thresholds_spare_the_crew() -> None:
    # Row 1 of the Wulkan (6 boxes) completed by boarders alone (/rb1): the phase-13 check
    # (000 L1385-1390) rolls the FireCon, drive and FTL, not the marines and DCPs, and not the
    # boarders aboard (000 L13097-13099).
    ctx, state = _position(
        "continuum 2 end ikv - ikv:kiang:kiang@0,0>12v0/h0.0.0.0 "
        "udg:wulkan:wulkan@0,5>6v0/h6.0.0.0/oikv:2.0@1/rb1"
    )
    ended = resolve(ctx, state, ScriptedDice([6, 1, 1]))
    assert isinstance(ended, TurnEnded)
    (check,) = ended.thresholds
    assert check.boarding
    assert check.lost == ("firecon-1",)
    assert [r.key for r in ended.rolls] == [
        "t2/threshold/wulkan/firecon-1",
        "t2/threshold/wulkan/drive",
        "t2/threshold/wulkan/ftl",
    ]
    assert check.boarders == ()


def test_weapons_fire_thresholds_kill_boarders() -> None:
    # The same row completed by fire (/r1): the marines and DCPs roll with the systems, and
    # each boarder aboard since an earlier turn rolls too, dying on the check's 6; those that
    # landed this turn do not (000 L13099-13109).
    ctx, state = _position(
        "continuum 2 end ikv - ikv:kiang:kiang@0,0>12v0/h0.0.0.0 "
        "udg:wulkan:wulkan@0,5>6v0/h6.0.0.0/r1/oikv:2.0@1/oikv:2.0@2"
    )
    systems = [1, 6, 1, 1, 1]  # firecon-1, marines-1, marines-2, dcp-1, dcp-2
    ended = resolve(ctx, state, ScriptedDice([*systems, 1, 1, 6, 3]))
    assert isinstance(ended, TurnEnded)
    (check,) = ended.thresholds
    assert not check.boarding
    assert check.lost == ("marines-1",)
    assert check.boarders == (BoarderLosses(side="ikv", landed=1, faces=(6, 3), marines=1),)
    assert ended.rolls[-1].key == "t2/end/0/boarders/wulkan/0/1"
    after = evolve(ctx, state, ended)
    wulkan = after.ship("wulkan")
    assert wulkan.boarders == (
        Boarders(side="ikv", landed=1, marines=1),
        Boarders(side="ikv", landed=2, marines=2),
    )
    # A marine a threshold kills stays dead (000 L15100-15108).
    assert {s.id: s.status for s in wulkan.record.systems}["marines-1"] == "destroyed"


def test_capture_and_the_single_point() -> None:
    # Four marines on the hull of the 4-box hulk, no defence: the last box goes and the ship
    # is captured (000 L13113-13121), out of the battle, its boarders done.
    ctx, state = _position(
        "continuum 1 repel ikv - ikv:kiang:kiang@0,0>12v0/h0.0.0.0 "
        "udg:wulkan:armoured_hulk@0,5>6v0/h0.0.0.0/oikv:4.0@1",
        target="armoured_hulk",
    )
    fought = repel(ctx, state, "udg", {"wulkan": ()}, ScriptedDice([]))
    assert fought.fights[0].captured
    assert fought.fights[0].hit is not None
    assert fought.fights[0].hit.to_armour == 0
    state = evolve(ctx, state, fought)
    hulk = state.ship("wulkan")
    assert (hulk.status, hulk.boarders, hulk.record.armour_lost) == ("captured", (), 0)
    assert state.phase == "end"
    assert "/P" in format_position("continuum", state)
    assert parse_position(format_position("continuum", state)) == ("continuum", state)
    # "Captured ships can still be targeted by ships and ordnance ... A single point of damage
    # is sufficient to destroy the captured ship" (000 L13122-13130): a torpedo's one point,
    # through 4 boxes of armour untouched.
    state = msgspec.structs.replace(state, phase="fire", to_fire="ikv", turn=2)  # next turn
    assert fire_options(ctx, state, "kiang") == {
        "boarding_torpedo-1": ("wulkan",),
        "boarding_torpedo-2": ("wulkan",),
    }
    fired = fire_ship(ctx, state, "kiang", [TORPEDOES[0]], ScriptedDice([1]))
    assert fired.captured == ()  # a miss does nothing
    fired = fire_ship(ctx, state, "kiang", [TORPEDOES[0]], ScriptedDice([2]))
    assert fired.captured == ("wulkan",)
    assert fired.landed == ()
    assert evolve(ctx, state, fired).ship("wulkan").status == "destroyed"
    assert describe(fired)[-1] == "    the captured wulkan is destroyed"


def test_dcps_that_fought_make_no_repairs() -> None:
    # 000 L12983-12991: fighting boarders is a damage-control action; DCPs used so do not
    # repair that turn (/u6: six fought).
    text = (
        "continuum 1 repair ikv - ikv:kiang:kiang@0,0>12v0/h0.0.0.0 "
        "udg:wulkan:wulkan@0,5>6v0/h3.0.0.0/sfirecon-1=d"
    )
    ctx, state = _position(text)
    assert sides_to_repair(ctx, state) == ("udg",)
    ctx, state = _position(text + "/u6")
    assert sides_to_repair(ctx, state) == ()


def test_board_lands_one_landing_a_turn() -> None:
    ctx = context(_example_setup())
    state = initial_state(ctx)
    state = board(state, "wulkan", "ikv", marines=2)
    state = board(state, "wulkan", "ikv", parties=1)
    assert state.ship("wulkan").boarders == (Boarders(side="ikv", landed=1, marines=2, parties=1),)
    with pytest.raises(ValueError, match="cannot board its own ship"):
        board(state, "wulkan", "udg", marines=1)


# ---------------------------------------------------------------- boarding torpedoes


def test_boarding_torpedo_points() -> None:
    # 000 L5132-5136: 3 points per mass; the launcher 2 mass through up to 3 arcs, each
    # torpedo 1 mass.
    costing = price(extra_designs.design_of(TEST_DESIGNS, "kiang"), PRESETS["continuum"])
    lines = {line.item: (line.mass, line.points) for line in costing.lines}
    assert lines["Boarding torpedo launcher (F) x2"] == (4, 12)
    assert lines["Boarding torpedo magazine (4 loads)"] == (4, 12)
    lonely = msgspec.structs.replace(
        extra_designs.design_of(TEST_DESIGNS, "kiang"),
        systems=(Mount(kind="boarding_torpedo", arcs=("F", "FS", "AS", "A")),),
    )
    problems = [p.reason for p in price(lonely, PRESETS["continuum"]).problems]
    assert any("covers at most 3 arcs" in p for p in problems)
    assert any("fed by a magazine" in p for p in problems)


def test_boarding_torpedo_hits_misses_and_magazine() -> None:
    # The projectile table's standard row (000 L5118-5122, L20336-20362): 2+ at 5 MU. Hit or
    # miss, a torpedo is spent (000 L5094-5098); a miss lands nobody.
    battle = _to_fire(_example_setup())
    sheet = battle.ctx.sheets["kiang"]
    assert torpedo_feeds(sheet) == {
        "boarding_torpedo-1": "boarding_magazine-1",
        "boarding_torpedo-2": "boarding_magazine-1",
    }
    fired = battle.fire("kiang", TORPEDOES, ScriptedDice([1, 2]))
    assert isinstance(fired, ShipFired)
    assert [len(s.damage) for s in fired.shots] == [0, 1]
    assert fired.landed == (Landing(ship="wulkan", side="ikv", marines=2),)
    assert [r.key for r in fired.rolls] == [
        "t1/fire/kiang/boarding_torpedo-1/hit",
        "t1/fire/kiang/boarding_torpedo-2/hit",
    ]
    magazine = battle.state.ship("kiang").record.systems[-1]
    assert magazine.ammo == 2
    assert describe(fired)[-1] == "    2 marines of ikv board wulkan"


def test_boarding_torpedo_needs_its_magazine() -> None:
    # 000 L5098-5106: no torpedoes, no fire; a damaged magazine or launcher fires nothing
    # until repaired.
    for field, left in (("sboarding_magazine-1=o#1", 1), ("sboarding_magazine-1=d#4", 0)):
        ctx, state = _position(
            f"continuum 1 fire:ikv ikv - ikv:kiang:kiang@0,0>12v0/h0.0.0.0/{field} "
            "udg:wulkan:wulkan@0,5>6v0/h0.0.0.0"
        )
        assert len(fire_options(ctx, state, "kiang")) == 2 * left
    ctx, state = _position(
        "continuum 1 fire:ikv ikv - ikv:kiang:kiang@0,0>12v0/h0.0.0.0/sboarding_magazine-1=o#1 "
        "udg:wulkan:wulkan@0,5>6v0/h0.0.0.0"
    )
    with pytest.raises(IllegalActionError, match="2 launchers draw on boarding_magazine-1"):
        fire_ship(ctx, state, "kiang", TORPEDOES, ScriptedDice([2, 2]))
    # 24.5 MU is the fifth band: 6 only; beyond 30 MU out of reach.
    far = (
        "continuum 1 fire:ikv ikv - ikv:kiang:kiang@0,0>12v0/h0.0.0.0 "
        "udg:wulkan:wulkan@0,{}>6v0/h0.0.0.0"
    )
    ctx, state = _position(far.format(24.5))
    assert fire_ship(ctx, state, "kiang", [TORPEDOES[0]], ScriptedDice([5])).landed == ()
    ctx, state = _position(far.format(30.5))
    assert fire_options(ctx, state, "kiang") == {}


def test_boarding_torpedo_bypasses_armour() -> None:
    # 000 L5122-5124: "one point of damage to the target's hull, bypassing any armor".
    battle = _to_fire(_example_setup(target="armoured_hulk"))
    fired = battle.fire("kiang", [TORPEDOES[0]], ScriptedDice([4]))
    assert isinstance(fired, ShipFired)
    (hit,) = fired.hits
    assert (hit.to_armour, hit.to_hull) == (0, 1)


# ---------------------------------------------------------------- battles


def test_fought_out_when_the_battle_ends() -> None:
    # 000 L13134-13140: the fight aboard goes on until the boarders are dead or the ship is
    # captured; here the battle's last turn ends with four marines aboard the Wulkan, and the
    # action is fought out at once by the default doctrine, round by round.
    battle = _to_fire(_example_setup(turn_limit=1))
    battle.fire("kiang", TORPEDOES, ScriptedDice([2, 2]))
    battle.fire("wulkan", [], ScriptedDice([]))
    battle.assault("ikv", {"wulkan": Assault(marines=2)})
    battle.repel("udg", {"wulkan": parse_guards("Mh3.Mh3.Mm+1.Mm+1")}, SeededDice(3))
    ended = battle.resolve(SeededDice(3))
    assert isinstance(ended, TurnEnded)
    assert ended.over
    assert [f.round for f in ended.boarding] == list(range(1, len(ended.boarding) + 1))
    assert ended.rolls[0].key.startswith("t1/boarding/wulkan/r1/")
    wulkan = battle.state.ship("wulkan")
    assert wulkan.boarders == ()
    last = ended.boarding[-1]
    assert last.captured == (wulkan.status == "captured")
    _round_trips(battle)
    assert any("round 1" in line for line in describe(ended))


def test_fought_out_when_the_ship_leaves() -> None:
    # 000 L13134-13140: a ship that jumps away with boarders aboard fights on until the action
    # is resolved. Leaving the table is played the same way (see docs/rulings.md): the Wulkan
    # takes two marines on the hull, then runs off the table's edge the next turn.
    setup = BattleSetup(
        sides=("ikv", "udg"),
        rules="continuum",
        table=(-50.0, -50.0, 50.0, 50.0),
        ships=(
            ShipSetup(id="kiang", side="ikv", design="kiang", x=0, y=40, course=12),
            ShipSetup(id="wulkan", side="udg", design="wulkan", x=0, y=42, course=12, speed=4),
            ShipSetup(id="other", side="udg", design="wulkan", x=40, y=-40, course=12),
        ),
    )
    battle = _to_fire(setup)
    battle.fire("kiang", [Shot("boarding_torpedo-1", "wulkan")], ScriptedDice([2]))
    battle.fire("wulkan", [], ScriptedDice([]))
    battle.fire("other", [], ScriptedDice([]))
    assert battle.step() == ("simultaneous", "assault", None)
    battle.assault("ikv", {})  # both marines go for the hull
    battle.repel("udg", {}, ScriptedDice([]))
    battle.resolve(ScriptedDice([]))
    assert battle.state.ship("wulkan").record.hull_lost == (3, 0, 0, 0)
    battle.write_orders("ikv", {})
    battle.write_orders("udg", parse_orders("wulkan:+4"))
    battle.resolve(ScriptedDice([6, 1]))
    assert battle.state.ship("wulkan").status == "left"
    battle.fire("kiang", [], ScriptedDice([]))
    battle.fire("other", [], ScriptedDice([]))
    assert battle.step() == ("chance", "end", None)  # no boarding on the table
    ended = battle.resolve(SeededDice(5))
    assert isinstance(ended, TurnEnded)
    assert not ended.over
    assert ended.boarding
    assert {f.round for f in ended.boarding} == set(range(1, len(ended.boarding) + 1))
    wulkan = battle.state.ship("wulkan")
    assert wulkan.boarders == ()
    assert wulkan.status == ("captured" if ended.boarding[-1].captured else "left")
    _round_trips(battle)


def _boarding_battle() -> BattleSetup:
    """Two assault cruisers against a heavy cruiser and an assault cruiser, head on."""
    ships = (
        ("r1", "red", "assault_cruiser", 0, 0, 12),
        ("r2", "red", "assault_cruiser", 10, 0, 12),
        ("b1", "blue", "heavy_cruiser", 4, 40, 6),
        ("b2", "blue", "assault_cruiser", -6, 40, 6),
    )
    return BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        turn_limit=12,
        ships=tuple(
            ShipSetup(id=i, side=side, design=d, x=x, y=y, course=c, speed=6)
            for i, side, d, x, y, c in ships
        ),
    )


def test_engage_fires_boarding_torpedoes_close_in() -> None:
    # The Engage commanders fire boarding torpedoes within 12 MU only (3+), land marines, and
    # fight the boarding actions by the worked example's doctrine; the journal replays.
    setup = _boarding_battle()
    fired = landed = fights = captured = 0
    for seed in range(6):
        commanders = {side: named_commander("engage") for side in setup.sides}
        battle = play(Battle(setup), commanders, SeededDice(seed))
        state = initial_state(battle.ctx)
        for event in battle.journal:
            if isinstance(event, ShipFired):
                firer = state.ship(event.ship)
                for shot in event.shots:
                    if shot.weapon.startswith("boarding_torpedo"):
                        target = state.ship(shot.target)
                        assert range_between(firer.x, firer.y, target.x, target.y) <= 12
                        assert target.side != firer.side
                        assert target.status == "active"
                        fired += 1
                landed += len(event.landed)
            if isinstance(event, BoardingFought):
                fights += len(event.fights)
            state = evolve(battle.ctx, state, event)
        assert state == battle.state
        assert replay(setup, battle.journal) == battle.state
        outcome = outcome_from_journal(setup, battle.journal)
        for ship in battle.state.ships:
            if ship.status == "captured":
                captured += 1
                fate = next(s.fate for s in outcome.ships if s.id == ship.id)
                assert fate == ("destroyed" if battle.state.winner == ship.side else "captured")
    assert fired > 10
    assert landed > 5
    assert fights > 10
    assert captured >= 1


def test_random_commanders_keep_boarding_legal() -> None:
    # Random allocations, both sides boarding: every step legal, every position round-trips.
    setup = _boarding_battle()
    for seed in range(4):
        rng = random.Random(seed)
        battle = Battle(setup)
        commanders = {side: random_commander(rng) for side in setup.sides}
        battle = play(battle, commanders, SeededDice(seed))
        assert replay(setup, battle.journal) == battle.state
        assert parse_position(format_position("continuum", battle.state))[1] == battle.state
        for ship in battle.state.ships:
            assert hull_remaining(battle.ctx.sheets[ship.id], ship.record) >= 0


def test_replay_refuses_other_dice() -> None:
    battle = _to_fire(_example_setup())
    battle.fire("kiang", TORPEDOES, ScriptedDice([2, 2]))
    battle.fire("wulkan", [], ScriptedDice([]))
    battle.assault("ikv", {"wulkan": Assault(marines=2)})
    fought = battle.repel("udg", {"wulkan": parse_guards("Mh3.Mh3.Mm+1.Mm+1")}, SeededDice(1))
    assert isinstance(fought, BoardingFought)
    bad = msgspec.structs.replace(fought, rolls=fought.rolls[:-1])
    with pytest.raises(DiceError):
        replay(battle.ctx.setup, [*battle.journal[:-1], bad])
