"""Fighter modifications and light fighters (000 8.15, price list 14.7 L16852-16884): a bay's
``fighters`` names a base type and its mods (``attack+fast``, ``light+interceptor``), priced
per wing, played in battle, and FTL groups may start the battle deployed."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    FightersResolved,
    SetupError,
    context,
    evolve,
    initial_state,
    replay,
    resolve,
    write_orders,
)
from tactical.campaign_battle import CampaignBattle, setup_campaign_battle
from tactical.commanders import closing_commander, play
from tactical.dice import ScriptedDice, SeededDice
from tactical.fighters import (
    FIGHTER_BASES,
    FIGHTER_MODS,
    FIGHTER_TYPES,
    STANDARD,
    FighterNameError,
    fighter_type,
    parse_fighters,
)
from tactical.movement import Order
from tactical.notation import format_position, parse_position
from tactical.points import PC_FIGHTER_MOD_POINTS, PC_FIGHTER_WING_POINTS, build, price
from tactical.render import record_sheet
from tactical.ship import PRESETS, Design, Mount, fresh_state
from tests.tactical import extra_designs
from tests.tactical.test_battle_fighters import in_flight
from tests.tactical.test_campaign_battle import side
from tests.tactical.test_fighter_types import BAY, carrier, fight, group, hulk, table
from tests.tactical.test_render import render

PC = PRESETS["continuum"]

TEST_DESIGNS = {
    "test_ftl_carrier": """
name = "FTL Carrier"
rules = "continuum"
provenance = "test design: an FTL standard wing, an FTL light attack wing, an attack wing"
mass = 100
thrust = 2
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "hangar_bay"
fighters = "standard+ftl"

[[systems]]
kind = "hangar_bay"
fighters = "attack+ftl+light"

[[systems]]
kind = "hangar_bay"
fighters = "attack"

[[systems]]
kind = "launch_tube"
""",
}


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def bay_design(fighters: str, count: int = 1) -> Design:
    return Design(
        name="Carrier",
        rules="continuum",
        mass=100,
        thrust=2,
        hull_strength="average",
        fire_controls=1,
        systems=(
            Mount(kind="hangar_bay", fighters=fighters, count=count),
            Mount(kind="launch_tube"),
        ),
    )


def wing_line(fighters: str, preset_name: str = "continuum") -> tuple[str, float]:
    """The cost sheet's fighter line for one bay of ``fighters``: its item and points."""
    costing = price(bay_design(fighters), PRESETS[preset_name])
    assert costing.problems == ()
    (line,) = (line for line in costing.lines if line.item.startswith("Fighters"))
    return line.item, line.points


def problem_of(fighters: str) -> str:
    (problem,) = price(bay_design(fighters), PC).problems
    assert problem.path == "$.systems[0].fighters"
    return problem.reason


# ---------------------------------------------------------------- prices (14.7)


@pytest.mark.parametrize(
    ("fighters", "points"),
    [
        ("light", 18),  # 000 L16882: "18 for standard wing"
        ("light+attack", 24),  # 000 L16882: "24 for attack"
        ("attack+fast", 30),  # 000 L16868 attack 24, L16858-16860 fast +6
        ("standard+heavy", 36),  # 000 L9448 standard 18, L9511-9515 heavy +18
        ("heavy", 36),  # a lone heavy is the heavy standard fighter
        ("fast", 24),  # 000 L9545: fast standard 24
        ("long_range", 24),  # 000 L9577-9579: long-range standard 24
        ("robot", 12),  # 000 L10096: standard robot 12 per wing
        ("attack+robot", 18),  # 000 L10100-10101: -6 per wing
        ("ftl", 24),  # 000 L9993, L16884: +1 per fighter
        ("standard+heavy+ftl", 42),
        ("light+fast+interceptor", 24),  # 18 + 6, eight fighters at a six-group's price
        ("light+missile", 24),  # 000 L9953: light missile fighters, a missile wing's 24
        ("torpedo+heavy+long_range", 60),  # 36 + 18 + 6
    ],
)
def test_a_wing_costs_its_type_plus_its_mods(fighters: str, points: int) -> None:
    assert wing_line(fighters)[1] == points


def test_two_wings_and_the_record_sheet_name() -> None:
    costing = price(bay_design("attack+fast", count=2), PC)
    (line,) = (line for line in costing.lines if line.item.startswith("Fighters"))
    assert (line.item, line.points) == ("Fighters, fast attack wing x2", 60)
    assert wing_line("light+attack")[0] == "Fighters, light attack wing of 8"
    assert wing_line("standard+heavy+ftl")[0] == "Fighters, heavy FTL wing"
    # The record sheet keeps the canonical name, mods first, whatever order they were written.
    sheet = build(bay_design("attack+fast+light"), PC)
    assert [s.fighters for s in sheet.systems if s.bay_capacity] == ["light+fast+attack"]


def test_every_single_name_keeps_its_price_and_its_play() -> None:
    """The names a bay could carry before keep their meaning: the old 14.7 table."""
    before = {
        "standard": 18,
        "interceptor": 18,
        "attack": 24,
        "fast": 24,
        "long_range": 24,
        "torpedo": 36,
        "graser": 42,
        "plasma": 42,
        "mkp": 36,
        "missile": 24,
        "multi_role": 24,
    }
    for name, points in before.items():
        assert wing_line(name) == (f"Fighters, {name.replace('_', ' ')} wing", points)
        assert parse_fighters(name).name == name
        assert fighter_type(name) == FIGHTER_TYPES.get(name, STANDARD)
    assert fighter_type("heavy") == FIGHTER_TYPES["heavy"]


def test_the_parser_and_the_price_list_know_the_same_names() -> None:
    assert set(FIGHTER_BASES) == set(PC_FIGHTER_WING_POINTS)
    assert set(FIGHTER_MODS) == set(PC_FIGHTER_MOD_POINTS)


def test_the_fb1_heavy_price_is_a_preset_option() -> None:
    """Index D35: FB1 prices the heavy group at 30, PC the heavy mod at +18."""
    fb1 = msgspec.structs.replace(PC, heavy_fighter_costs="fb1")
    costing = price(bay_design("heavy"), fb1)
    (line,) = (line for line in costing.lines if line.item.startswith("Fighters"))
    assert line.points == 30
    assert wing_line("heavy")[1] == 36


# ---------------------------------------------------------------- illegal combinations


@pytest.mark.parametrize(
    ("fighters", "reason"),
    [
        ("light+heavy", "light fighters cannot be heavy (000 L9947-9951)"),
        ("light+torpedo", "light fighters cannot be torpedo (000 L9947-9951)"),
        ("light+long_range", "light fighters cannot be long_range (000 L9947-9951)"),
        ("light+graser", "light fighters may be standard, interceptor, attack or missile"),
        ("light+multi_role", "not multi_role"),
        ("attack+interceptor", "name two types, 'attack' and 'interceptor'"),
        ("long_range+long_range", "name 'long_range' twice"),
        ("attack+", "empty part"),
        ("assault_shuttle+fast", "assault shuttles take no modifications (fast)"),
        ("attack+dragon", "unknown fighter type 'dragon'"),
    ],
)
def test_illegal_combinations_are_refused_with_the_reason(fighters: str, reason: str) -> None:
    assert reason in problem_of(fighters)
    with pytest.raises(FighterNameError):
        parse_fighters(fighters)


def test_light_may_be_fast_ftl_or_robot() -> None:
    """000 L9947-9953 allow fast, interceptor, attack and missile; FTL and robot (L10056-10058:
    "any other fighter type") come after the light section and are allowed too."""
    for fighters in ("light+fast", "light+ftl", "light+robot+interceptor", "light+missile"):
        assert price(bay_design(fighters), PC).problems == ()


# ---------------------------------------------------------------- light fighters in play


def test_a_light_bay_holds_8_and_launches_them_with_4_endurance() -> None:
    """000 L9913-9915: 8 fighters a group; L9923-9927: only 4 turns of endurance."""
    sheet = build(bay_design("light+attack"), PC)
    (bay,) = (s for s in sheet.systems if s.bay_capacity)
    assert bay.bay_capacity == 8
    assert [s.fighters for s in fresh_state(sheet).systems if s.fighters is not None] == [8]
    assert "8/8 light attack fighters" in render(record_sheet(sheet), width=120)
    ctx, state = table(carrier("light", "r1"), hulk("b1"), blue_y=80)
    state = evolve(ctx, state, write_orders(ctx, state, "red", {"r1": Order(launch=1)}))
    state = evolve(ctx, state, write_orders(ctx, state, "blue", {}))
    state = evolve(ctx, state, resolve(ctx, state, ScriptedDice([1, 2] + [1] * 20)))
    (flying,) = state.fighters
    assert (flying.fighters, flying.endurance) == (8, 4)
    counters = msgspec.structs.replace(state, ships=())  # the notation reads catalogue ships
    assert "^8/e4" in format_position("continuum", counters)
    assert parse_position(format_position("continuum", counters)) == ("continuum", counters)


def test_point_defence_at_light_fighters_is_at_plus_1() -> None:
    """000 L9927-9941: every attack at a light group at +1, PDS included: a 3 kills one, a 5
    kills two (and does not re-roll: only a natural 6 does)."""
    kills = {}
    for kind in ("standard", "light"):
        ctx, state = table(carrier(kind, "r1"), hulk("b1", pds=2))
        state = in_flight(ctx, state, group("red", "r1", 26, n=8))
        state, event = fight(ctx, state, {"red": f"r1.{BAY}:A>b1"}, [3, 5] + [1] * 10)
        kills[kind] = [d.roll.kills for d in event.defence]
        assert all(d.roll.rerolls == () for d in event.defence)
    assert kills == {"standard": [0, 1], "light": [1, 2]}


def test_normal_fighters_attack_light_ones_like_interceptors_attack_normal_ones() -> None:
    """000 L9927-9933: "1-2, no kills; 3-4, 1 kill; 5, 2 kills; 6, 2 kills and a re-roll";
    interceptors against light fighters add their own +1 (L9935)."""
    faces = [1, 2, 3, 4, 5, 6, 1]  # the attacker's six dice and its re-roll; then 1s

    def kills(attacker: str, defender: str, size: int) -> tuple[int, tuple[int, ...]]:
        ctx, state = table(carrier(attacker, "r1"), carrier(defender, "b1"), blue_y=60)
        state = in_flight(ctx, state, group("red", "r1", 20), group("blue", "b1", 30, n=size))
        _, event = fight(ctx, state, {"red": f"r1.{BAY}:D>b1.{BAY}"}, faces + [1] * 9)
        (df,) = event.dogfights
        assert len(df.defender_roll.faces) == size  # a light group rolls 8 dice
        return df.attacker_roll.kills, df.attacker_roll.rerolls

    assert kills("standard", "light", 8) == (0 + 0 + 1 + 1 + 2 + 2, (1,))
    assert kills("standard", "light", 8) == kills("interceptor", "standard", 6)
    assert kills("interceptor", "light", 8) == (0 + 1 + 1 + 2 + 2 + 2, (1,))


def test_mods_combine_with_their_base_type() -> None:
    """Each mod adds its die modifier to the base type's and sets its own move or endurance."""
    heavy_attack = fighter_type("attack+heavy")
    assert (heavy_attack.ship_drm, heavy_attack.fighter_drm, heavy_attack.hit_drm) == (1, -2, -1)
    fast_light = fighter_type("light+fast+interceptor")
    assert (fast_light.move, fast_light.endurance, fast_light.hit_drm) == (36, 4, 1)
    assert fighter_type("torpedo+long_range").torpedoes
    assert fighter_type("torpedo+long_range").endurance == 9
    # Robots take their secondary move early (000 L10070-10078): a robot wing plays as its
    # type but for that (tests/tactical/test_fighter_expanded.py).
    robot_attack = fighter_type("robot+attack")
    assert robot_attack.robot
    assert msgspec.structs.replace(robot_attack, robot=False) == fighter_type("attack")
    assert fighter_type("ftl") == STANDARD


# ---------------------------------------------------------------- FTL fighters deployed


def ftl_setup(**extra: object) -> BattleSetup:
    return msgspec.convert(
        {
            "sides": ["red", "blue"],
            "rules": "continuum",
            "ships": [
                {"id": "r1", "side": "red", "design": "test_ftl_carrier", "x": 3, "y": 4,
                 "course": 12, "speed": 2},
                {"id": "b1", "side": "blue", "design": "heavy_cruiser", "x": 0, "y": 60,
                 "course": 6, "speed": 4},
            ],
            **extra,
        },
        BattleSetup,
    )  # fmt: skip


def deploy_bays(*bays: str) -> BattleSetup:
    setup = ftl_setup()
    r1 = msgspec.structs.replace(setup.ships[0], ftl_deployed=bays)
    return msgspec.structs.replace(setup, ships=(r1, setup.ships[1]))


def test_ftl_groups_start_deployed_at_their_carrier_with_1_cef_spent() -> None:
    """000 L9981-9989: FTL fighters may begin the game deployed within 6 MU of their carrier
    instead of launching, 1 endurance checked off; chosen per bay or for a whole side."""
    assert initial_state(context(ftl_setup())).fighters == ()
    state = initial_state(context(deploy_bays("hangar_bay-1")))
    (deployed,) = state.fighters
    assert (deployed.id, deployed.x, deployed.y) == ("r1.hangar_bay-1", 3, 4)
    assert (deployed.fighters, deployed.endurance) == (6, 5)
    aboard = {s.id: s.fighters for s in state.ship("r1").record.systems if s.fighters is not None}
    assert aboard == {"hangar_bay-1": 0, "hangar_bay-2": 8, "hangar_bay-3": 6}
    # The whole side: both FTL wings, the light one with 4 - 1 endurance; the attack wing stays.
    state = initial_state(context(ftl_setup(ftl_deployed=["red"])))
    assert [(g.bay, g.fighters, g.endurance) for g in state.fighters] == [
        ("hangar_bay-1", 6, 5),
        ("hangar_bay-2", 8, 3),
    ]
    counters = msgspec.structs.replace(state, ships=())
    assert parse_position(format_position("continuum", counters)) == ("continuum", counters)


def test_deployed_groups_fly_and_the_battle_replays() -> None:
    setup = ftl_setup(ftl_deployed=["red"], turn_limit=4)
    battle = play(Battle(setup), {s: closing_commander() for s in setup.sides}, SeededDice(7))
    first = next(e for e in battle.journal if isinstance(e, FightersResolved))
    assert first.turn == 1  # flying on the first turn, with no launch
    assert {m.group for m in first.moves} == {"r1.hangar_bay-1", "r1.hangar_bay-2"}
    assert replay(setup, battle.journal) == battle.state


@pytest.mark.parametrize(
    ("bays", "reason"),
    [
        (("hangar_bay-3",), "carries attack fighters, not FTL fighters"),
        (("launch_tube-1",), "'launch_tube-1' is not a fighter bay"),
        (("hangar_bay-1", "hangar_bay-1"), "named twice"),
    ],
)
def test_only_ftl_bays_with_a_group_aboard_deploy(bays: tuple[str, ...], reason: str) -> None:
    with pytest.raises(SetupError) as caught:
        context(deploy_bays(*bays))
    (problem,) = caught.value.problems
    assert problem.path.startswith("$.ships[0].ftl_deployed[")
    assert reason in problem.reason


def test_an_empty_ftl_bay_and_an_unknown_side_are_refused() -> None:
    setup = deploy_bays("hangar_bay-1")
    record = fresh_state(context(setup).sheets["r1"])
    empty = tuple(
        msgspec.structs.replace(s, fighters=0) if s.id == "hangar_bay-1" else s
        for s in record.systems
    )
    r1 = msgspec.structs.replace(
        setup.ships[0], state=msgspec.structs.replace(record, systems=empty)
    )
    with pytest.raises(SetupError, match="no working group aboard"):
        context(msgspec.structs.replace(setup, ships=(r1, setup.ships[1])))
    with pytest.raises(SetupError, match=r"\$.ftl_deployed: 'green' is not one of"):
        context(ftl_setup(ftl_deployed=["green"]))


def test_the_order_commanders_deploy_unless_leaving_by_ftl() -> None:
    """Campaign battles deploy the FTL groups of sides that mean to fight; an FTL Move side,
    which never launches, keeps them aboard."""
    request = CampaignBattle(sides=(side("red", "engage"), side("blue", "ftl-move")))
    assert setup_campaign_battle(request, SeededDice(1)).ftl_deployed == ("red",)
