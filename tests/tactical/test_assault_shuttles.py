"""Project Continuum's assault shuttles (000 8.15, L9995-10040), built from the rule text with
scripted dice: one-use craft at 6 points a wing that must reach the ship they attack, are
fired on by point defence as any group, and whose survivors each land a boarding party on 3+
(L10016-10026); the boarding action then follows the 12.7 rules (L10026-10032)."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    BattleState,
    BoardingFought,
    FightersResolved,
    ShipSetup,
    evolve,
    initial_state,
    replay,
    ships_to_fire,
)
from tactical.boarding import Assault, Boarders, assault_doctrine, guard_doctrine
from tactical.commanders import named_commander, play, posture_flight
from tactical.dice import ScriptedDice, SeededDice
from tactical.fighters import (
    FIGHTER_TYPES,
    SHUTTLE_LANDS_ON,
    FighterNameError,
    fighter_type,
    parse_fighters,
    parse_flight,
)
from tactical.fire import range_between
from tactical.movement import Order
from tactical.notation import format_position, parse_position
from tactical.points import build, price
from tactical.render import record_sheet
from tactical.repair import damage_control_parties
from tactical.ship import PRESETS, Design, Mount, Ship
from tactical.summary import describe
from tests.tactical import extra_designs
from tests.tactical.test_battle_fighters import in_flight
from tests.tactical.test_fighter_mods import bay_design, wing_line
from tests.tactical.test_fighter_types import BAY, carrier, fight, group, hulk, table
from tests.tactical.test_render import render

PC = PRESETS["continuum"]
RED = f"r1.{BAY}"

TEST_DESIGNS = {
    "shuttle_carrier": """
name = "Shuttle Carrier"
rules = "continuum"
provenance = "test design: two assault shuttle wings"
mass = 60
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "hangar_bay"
fighters = "assault_shuttle"
count = 2

[[systems]]
kind = "launch_tube"
count = 2
""",
    # 000 L13172: "The Wulkan has 6 DCPs and 2 Marines".
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
}


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def target(ship_id: str, *, pds: int = 0, screens: int = 0) -> Ship:
    """A target with two marines and two extra DCPs, ``pds`` and ``screens``."""
    systems = [Mount(kind="marines", count=2), Mount(kind="dcp", count=2)]
    if pds:
        systems.append(Mount(kind="pds", count=pds))
    design = Design(
        name="Boarded",
        rules="continuum",
        mass=100,
        thrust=2,
        hull_strength="average",
        screens=screens,
        fire_controls=1,
        systems=tuple(systems),
    )
    return build(design, PC, ship_id=ship_id)


def landing(
    faces: list[int], blue: Ship | None = None, y: float = 26, kind: str = "assault_shuttle"
) -> tuple[BattleState, FightersResolved]:
    """A full wing of ``kind`` at (0, ``y``) attacks the target at (0, 30)."""
    ctx, state = table(carrier(kind, "r1"), blue or target("b1"))
    state = in_flight(ctx, state, group("red", "r1", y))
    return fight(ctx, state, {"red": f"{RED}:A>b1"}, faces)


def rolled(event: FightersResolved, prefix: str) -> list[int]:
    return [roll.value for roll in event.rolls if roll.key.startswith(prefix)]


# ---------------------------------------------------------------- naming and price


def test_a_wing_costs_6_points_and_its_boarders_nothing() -> None:
    # 000 L10036-10040: "Assault Shuttles cost 6 points per wing. Marines or DCPs must be
    # purchased separately or loaded from the ship's crew."
    assert wing_line("assault_shuttle") == ("Fighters, assault shuttle wing", 6)
    costing = price(bay_design("assault_shuttle", count=2), PC)
    (line,) = (line for line in costing.lines if line.item.startswith("Fighters"))
    assert (line.item, line.points) == ("Fighters, assault shuttle wing x2", 12)
    sheet = build(bay_design("assault_shuttle"), PC)
    assert [(s.fighters, s.bay_capacity) for s in sheet.systems if s.bay_capacity] == [
        ("assault_shuttle", 6)
    ]


def test_the_type_has_secondary_weapons_at_minus_2_against_fighters() -> None:
    # 000 L10000-10002: "secondary weapons that have a -2 DRM to hit fighters".
    kind = fighter_type("assault_shuttle")
    assert kind is FIGHTER_TYPES["assault_shuttle"]
    assert (kind.shuttles, kind.fighter_drm, kind.hit_drm) == (True, -2, 0)
    assert not fighter_type("attack").shuttles
    assert parse_fighters("assault_shuttle").label == "assault shuttle"


@pytest.mark.parametrize(
    "fighters", ["assault_shuttle+fast", "light+assault_shuttle", "robot+assault_shuttle"]
)
def test_modifications_are_refused(fighters: str) -> None:
    # The text prices only the plain wing (000 L10036).
    with pytest.raises(FighterNameError, match="assault shuttles take no modifications"):
        parse_fighters(fighters)
    (problem,) = price(bay_design(fighters), PC).problems
    assert "assault shuttles take no modifications" in problem.reason


def test_two_base_types_are_refused() -> None:
    with pytest.raises(FighterNameError, match="name two types"):
        parse_fighters("assault_shuttle+attack")


def test_the_record_sheet_says_assault_shuttles() -> None:
    sheet = build(bay_design("assault_shuttle"), PC)
    assert "6/6 assault shuttles" in render(record_sheet(sheet), width=120)


# ---------------------------------------------------------------- the landing


def test_survivors_land_a_boarding_party_each_on_3_or_more() -> None:
    # 000 L10020-10026: the survivors "may attempt to 'land' one Boarding Party (DCP) ... by
    # rolling a 3+"; "Failed rolls results in a casualty".
    state, event = landing([3, 1, 5, 6, 2, 4])
    (attack,) = event.attacks
    assert (attack.weapon, attack.faces, attack.landed) == ("shuttles", (3, 1, 5, 6, 2, 4), 4)
    assert [r.key for r in event.rolls] == [f"t1/shuttles/{RED}/{i}" for i in range(6)]
    assert attack.hit.damage == 0
    b1 = state.ship("b1")
    assert b1.boarders == (Boarders(side="red", landed=1, parties=4),)
    assert b1.record.hull_lost == (0, 0, 0, 0)
    assert describe(event)[-1] == (
        f"    {RED} shuttles [3, 1, 5, 6, 2, 4]: 4 boarding parties board b1, 2 lost"
    )
    assert SHUTTLE_LANDS_ON == 3
    # A 2 fails, a 3 lands: the line falls between them.
    _, event = landing([2, 2, 2, 2, 2, 3])
    assert event.attacks[0].landed == 1


def test_the_shuttles_are_one_use() -> None:
    # 000 L9997: "one-use attack craft": the group is gone after its landing, not wiped out,
    # and its bay stays empty: nothing comes back to relaunch.
    state, event = landing([6, 6, 6, 6, 6, 6])
    assert state.fighters == ()
    assert event.lost == ()
    bay = next(s for s in state.ship("r1").record.systems if s.id == BAY)
    assert bay.fighters == 0


def test_standard_screens_do_not_stop_them() -> None:
    # 000 L10016-10018: "Standard Screens will not stop this attack"; the engine has no
    # advanced screens.
    state, event = landing([3, 3, 3, 1, 1, 1], blue=target("b1", screens=2))
    assert event.attacks[0].landed == 3
    assert state.ship("b1").boarders == (Boarders(side="red", landed=1, parties=3),)


def test_point_defence_thins_the_shuttles_first() -> None:
    # 000 L10018-10020: "The shuttles are fired upon by PDS as normal": two PDS kill one each
    # on 4-5, so four shuttles roll to land.
    state, event = landing([4, 5, 3, 2, 6, 1], blue=target("b1", pds=2))
    assert [d.roll.kills for d in event.defence] == [1, 1]
    assert rolled(event, "t1/pd/b1/") == [4, 5]
    assert rolled(event, f"t1/shuttles/{RED}/") == [3, 2, 6, 1]
    assert event.attacks[0].landed == 2
    assert state.ship("b1").boarders == (Boarders(side="red", landed=1, parties=2),)


def test_shuttles_wiped_out_by_point_defence_land_nobody() -> None:
    # Three PDS, each a 6 killing two (their re-rolls 1s): no shuttle left to roll.
    blue = target("b1", pds=3)
    state, event = landing([6, 1, 6, 1, 6, 1], blue=blue)
    assert sum(d.roll.kills for d in event.defence) == 6
    assert event.attacks == ()
    assert event.lost == (RED,)
    assert state.ship("b1").boarders == ()


def test_they_must_reach_the_ship() -> None:
    # 000 L10004-10010: "must be in contact with the models post". From 30 MU off a 24 MU
    # move ends 6 MU short: an attack group would make its run, the shuttles do not land.
    state, event = landing([6] * 6, y=0)
    (moved,) = event.moves
    assert (moved.x, moved.y) == (0.0, 24.0)
    assert moved.void is not None
    assert "out of reach" in moved.void
    assert event.attacks == ()
    assert state.ship("b1").boarders == ()
    assert [g.id for g in state.fighters] == [RED]  # still flying, its parties aboard
    _, attack = landing([1] * 6, y=0, kind="attack")
    assert len(attack.attacks) == 1


# ---------------------------------------------------------------- a whole turn


def _shuttle_setup(turn_limit: int = 6) -> BattleSetup:
    return BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        turn_limit=turn_limit,
        ships=(
            ShipSetup(id="r1", side="red", design="shuttle_carrier", x=0, y=0, course=12),
            # 12 MU off: the shuttles fly half their 24 MU on the turn they launch (000
            # L8526-8528).
            ShipSetup(id="b1", side="blue", design="wulkan", x=0, y=12, course=6),
        ),
    )


def test_a_turn_from_launch_to_the_repel_step() -> None:
    # The boarding action is "resolved in accordance with the Boarding Enemy Ships rules in
    # section 12" (000 L10026-10032): the parties landed face the Wulkan's 6 DCPs and 2
    # marines in the assault and repel steps of the same turn.
    battle = Battle(_shuttle_setup())
    battle.write_orders("red", {"r1": Order(launch=1)})
    battle.write_orders("blue", {})
    battle.resolve(ScriptedDice([6, 1]))  # red fires first
    battle.fly("red", parse_flight(f"{RED}:A>b1"))
    event = battle.resolve(ScriptedDice([3, 1, 5, 6, 2, 4]))
    assert isinstance(event, FightersResolved)
    assert event.attacks[0].landed == 4
    assert battle.state.fighters == ()
    assert parse_position(format_position("continuum", battle.state))[1] == battle.state
    while battle.step().phase == "fire":
        side = battle.step().side
        assert side is not None
        (ship,) = ships_to_fire(battle.ctx, battle.state, side)
        battle.fire(ship, [], ScriptedDice([]))
    assert battle.step().phase == "assault"
    assault = assault_doctrine(0, 4, 2)
    assert assault == Assault(parties=2)
    battle.assault("red", {"b1": assault})
    guards = guard_doctrine(0, 4, assault, 6, 2)
    # Three DCPs on each party on the hull (4+ kills), the marines on the parties engaging
    # them; those parties strike back at 4+.
    fought = battle.repel("blue", {"b1": guards}, ScriptedDice([4, 1, 4, 1, 4, 6]))
    assert isinstance(fought, BoardingFought)
    (fight_,) = fought.fights
    assert [g.killed for g in fight_.melee.guards] == ["dcp", None, "marines", None]
    assert fight_.melee.hull == 1  # the party on the hull that lived does a point
    b1 = battle.state.ship("b1")
    assert sum(b.count for b in b1.boarders) == 2
    assert b1.record.hull_lost[0] == 1
    battle.resolve(ScriptedDice([1] * 10))
    assert battle.state.turn == 2
    assert replay(battle.ctx.setup, battle.journal) == battle.state


# ---------------------------------------------------------------- the commanders


def _commander_setup() -> BattleSetup:
    ships = (
        ("r1", "red", "shuttle_carrier", 0, 0, 12),
        ("r2", "red", "heavy_cruiser", 10, 0, 12),
        ("b1", "blue", "heavy_cruiser", 4, 40, 6),
        ("b2", "blue", "wulkan", -6, 40, 6),
    )
    return BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        turn_limit=10,
        ships=tuple(
            ShipSetup(id=i, side=side, design=d, x=x, y=y, course=c, speed=4)
            for i, side, d, x, y, c in ships
        ),
    )


def test_engage_sends_shuttles_at_ships_they_reach_and_the_journal_replays() -> None:
    setup = _commander_setup()
    landings = boarded = 0
    for seed in range(4):
        commanders = {s: named_commander("engage") for s in setup.sides}
        battle = play(Battle(setup), commanders, SeededDice(seed))
        state = initial_state(battle.ctx)
        used: set[str] = set()
        for event in battle.journal:
            if isinstance(event, FightersResolved):
                for attack in event.attacks:
                    if attack.weapon != "shuttles":
                        continue
                    assert attack.group not in used  # one use each
                    used.add(attack.group)
                    ship = state.ship(attack.target)
                    assert ship.side == "blue"
                    assert ship.status == "active"
                    landings += 1
                    boarded += attack.landed
            if isinstance(event, BoardingFought):
                assert event.side == "blue"
            state = evolve(battle.ctx, state, event)
        assert state == battle.state
        assert replay(setup, battle.journal) == battle.state
    assert landings >= 4
    assert boarded >= 8


def test_the_commanders_prefer_the_ship_with_fewest_defenders() -> None:
    # Both enemies in reach: the Wulkan's 2 marines and 6 DCPs against a heavy cruiser's.
    battle = Battle(_commander_setup())
    ctx = battle.ctx
    wulkan = damage_control_parties(ctx.sheets["b2"], battle.state.ship("b2").record) + 2
    cruiser = damage_control_parties(ctx.sheets["b1"], battle.state.ship("b1").record)
    cruiser += sum(1 for s in ctx.sheets["b1"].systems if s.kind == "marines")
    assert cruiser < wulkan
    # 10 MU from the Wulkan (b2), 14.1 from the cruiser (b1): the nearest is not the weaker.
    shuttles = msgspec.structs.replace(group("red", "r1", 30), x=-6.0)
    state = in_flight(ctx, battle.state, shuttles)
    orders = posture_flight("attack")(ctx, state, "red")
    assert orders[RED].kind == "attack"
    assert orders[RED].target == "b1"
    # Out of reach of both, it flies at the nearest.
    far = msgspec.structs.replace(shuttles, y=-40.0)
    state = in_flight(ctx, battle.state, far)
    orders = posture_flight("attack")(ctx, state, "red")
    nearest = min(("b1", "b2"), key=lambda s: range_between(far.x, far.y, *_at(state, s)))
    assert nearest == "b2"
    assert orders[RED].target == nearest


def _at(state: BattleState, ship_id: str) -> tuple[float, float]:
    ship = state.ship(ship_id)
    return ship.x, ship.y


def test_standard_groups_roll_as_before() -> None:
    # Another type's attack run rolls its beams under the old keys.
    ctx, state = table(carrier("standard", "r1"), hulk("b1"))
    state = in_flight(ctx, state, group("red", "r1", 26))
    _, event = fight(ctx, state, {"red": f"{RED}:A>b1"}, [1] * 6)
    assert event.attacks[0].weapon == "beams"
    assert rolled(event, f"t1/fighters/{RED}/") == [1] * 6
