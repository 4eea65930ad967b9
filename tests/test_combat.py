"""Combat (004 section 5.3): the order matrix, locations, recording outcomes, the aftermath."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from campaign.dice import DiceKey, ScriptedDice
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import (
    BattleFought,
    BattleRequested,
    EnemyUnitsCaught,
    OfficerCasualty,
    OrdersSubmitted,
    ShipsRepaired,
    UnitMoved,
    UnitsCaught,
)
from campaign.news import news_of
from campaign.projections import CampaignState
from campaign.rules.colonies import decide_repairs
from campaign.rules.combat import decide_aftermath, find_battles
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import Colony, Empire, ShipResult, Unit
from cli import app
from maps import loads_map
from tests.conftest import CountingNonces, FixedClock
from tests.test_strategic import orders

# Red enters at 0101 and blue at 0301; both reach Alpha (0201, with a dense world) on turn 1.
DUEL_MAP = """
format = "stellar-umpire-map"
version = 1
name = "duel"
title = "Duel"
width = 4
height = 3

[[entries]]
name = "1"
hex = "0101"

[[entries]]
name = "2"
hex = "0301"

[[systems]]
name = "Alpha"
hex = "0201"
colour = "yellow"
features = ["dense-world"]
"""
DUEL = loads_map(DUEL_MAP)


def warship(uid: str, order: str, hex_: str = "0201") -> Unit:
    owner = uid.split("-", 1)[0]
    return Unit(id=uid, owner=owner, kind="warship", hex=hex_, order=order, hull_class="cruiser")  # type: ignore[arg-type]


ORDER_FIELDS = ("landings", "battle_locations", "attacks", "scorch", "battle_sites", "posts")


def state_of(*units: Unit, turn: int = 3, **extra: object) -> CampaignState:
    """A turn in progress; `landings=`, `battle_locations=` and `attacks=` (by player) become
    each player's submitted orders."""
    players = sorted({u.owner for u in units})
    per_player: dict[str, dict[str, object]] = {}
    for field in ORDER_FIELDS:
        for player, value in extra.pop(field, {}).items():  # type: ignore[attr-defined]
            per_player.setdefault(player, {})[field] = value
    submitted = {
        p: OrdersSubmitted(player=p, turn=turn, moves=(), **fields)  # type: ignore[arg-type]
        for p, fields in per_player.items()
    }
    return CampaignState(
        created=True,
        turn=turn,
        players=tuple(players),
        empires={p: Empire(player=p, entry="1") for p in players},
        units={u.id: u for u in units},
        submitted=submitted,
        **extra,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("red", "blue", "expected"),
    [
        ("engage", "engage", ("even", None)),
        ("engage", "stand-off", ("even", None)),
        ("stand-off", "engage", ("even", None)),
        ("engage", "ftl-move", ("pursuit", "blue")),
        ("ftl-move", "engage", ("pursuit", "red")),
        ("stand-off", "stand-off", None),
        ("stand-off", "ftl-move", None),
        ("ftl-move", "ftl-move", None),
    ],
)
def test_the_order_matrix(red: str, blue: str, expected: tuple[str, str | None] | None) -> None:
    """004 L115-122: intruder/defender orders decide the kind of engagement."""
    state = state_of(warship("red-W1", red), warship("blue-W1", blue))
    battles, _ = find_battles(state, DUEL, ScriptedDice([6, 1]))
    assert ([(b.type, b.pursued) for b in battles] or [None]) == [expected]


def test_battles_are_fought_engage_first_and_locations_chosen_by_the_rules() -> None:
    """004 L125-131: Engage-vs-Engage, then vs Stand Off, then vs FTL Move."""
    state = state_of(
        warship("red-W1", "engage"),
        warship("blue-W1", "ftl-move"),
        warship("green-W1", "stand-off"),
        warship("white-W1", "engage"),
        battle_locations={"green": ("dense-world",), "red": ("asteroid-field", "dense-world")},
    )
    battles, rolls = find_battles(state, DUEL, ScriptedDice([2, 5]))
    summary = [(b.id, {s.player for s in b.sides}, b.location, b.chosen_by) for b in battles]
    assert summary == [
        # Engage vs Engage: nobody owns Alpha, so initiative: red 2, white 5: white chooses,
        # and white named no preference, so free space.
        ("t3-b1", {"red", "white"}, "free-space", "white"),
        # Engage vs Stand Off: the standing-off side chooses (the system has a dense world).
        ("t3-b2", {"green", "red"}, "dense-world", "green"),
        ("t3-b3", {"green", "white"}, "dense-world", "green"),
        # Engage vs FTL Move: free space, nobody chooses (004 L130-131).
        ("t3-b4", {"blue", "red"}, "free-space", None),
        ("t3-b5", {"blue", "white"}, "free-space", None),
    ]
    assert [r.value for r in rolls] == [2, 5]


def test_the_system_owner_chooses_for_engage_against_engage() -> None:
    colony = Colony(
        id="Alpha/3",
        owner="blue",
        system="Alpha",
        hex="0201",
        orbit=3,
        planet_type="terran",
        capacity=10,
        population=5,
    )
    state = state_of(
        warship("red-W1", "engage"),
        warship("blue-W1", "engage"),
        colonies={"Alpha/3": colony},
        battle_locations={"blue": ("gas-giant", "dense-world")},
    )
    (battle,), rolls = find_battles(state, DUEL, ScriptedDice([]))
    assert (battle.chosen_by, battle.location, rolls) == ("blue", "dense-world", [])


def test_unescorted_scouts_and_transports_are_caught() -> None:
    """Ruling: scouts lost on a 1, else they withdraw; unescorted transports are lost."""
    state = state_of(
        warship("blue-W1", "engage"),
        Unit(id="red-S1", owner="red", kind="scout-troop", hex="0201", count=9),
        Unit(id="red-S2", owner="red", kind="scout-troop", hex="0201", count=9),
        Unit(id="red-T1", owner="red", kind="transports", hex="0201", count=20),
        Unit(id="green-T1", owner="green", kind="transports", hex="0201", count=5),
        warship("green-W1", "stand-off"),
    )
    new, told = decide_aftermath(state, ScriptedDice([1, 4]))
    ev = new.event
    assert isinstance(ev, UnitsCaught)
    assert (ev.player, str(new.audience)) == ("red", "red")
    assert [(loss.unit, loss.count) for loss in ev.losses] == [("red-S1", 9), ("red-T1", 20)]
    assert [r.key for r in ev.rolls] == [
        str(DiceKey(3, "caught", "red-S1")),
        str(DiceKey(3, "caught", "red-S2")),
    ]
    # Each side is told what it saw (docs/rulings.md): red where and by whose warships (blue
    # engaged; green's stood off), blue whose ships his warships caught there and how many
    # were lost, by number as a sighting counts them, no unit ids and no dice.
    assert (ev.hex, ev.by) == ("0201", ("blue",))
    assert str(told.audience) == "blue"
    assert told.event == EnemyUnitsCaught(
        player="blue", owner="red", hex="0201", scouts=9, transports=20
    )
    red = news_of("red", [ev], {"0201": "Alpha"})
    blue = news_of("blue", [told.event], {"0201": "Alpha"})
    assert [(p.where, p.sentences) for s in red for p in s.places] == [
        (
            "Alpha (0201)",
            (
                "The warships of blue caught your unescorted ships: lost red-S1 (9 ships) and "
                "red-T1 (20 ships).",
            ),
        )
    ]
    assert [(p.where, p.sentences) for s in blue for p in s.places] == [
        (
            "Alpha (0201)",
            (
                "Your warships caught red's unescorted ships: 9 scouts and 20 colony "
                "transports lost.",
            ),
        )
    ]


def duel_dice(key: DiceKey, sides: int) -> int:
    """Physical dice for the duel: 6 for everything, but red wins initiative 5 to 2."""
    if key.phase == "initiative":
        return 5 if key.subject.endswith(".red") else 2
    return 6


@pytest.fixture
def duel(tmp_path: Path) -> Iterator[tuple[CampaignService, Lineage]]:
    path = tmp_path / "duel.toml"
    path.write_text(DUEL_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    plan = plan_campaign("d", ["red", "blue"], seed="s", dice_mode="manual", map_spec=str(path))
    service.new_campaign(plan, ask=lambda key, sides: 6)
    lineage = service.target("d")
    red = orders("red", 1, ("red-W1", "0201", "engage")) + 'battle_locations = ["dense-world"]\n'
    # TOML: the top-level key must come before the tables.
    red = 'battle_locations = ["dense-world"]\n' + red.replace(
        'battle_locations = ["dense-world"]\n', ""
    )
    service.submit_orders(lineage, "red", red)
    service.submit_orders(lineage, "blue", orders("blue", 1, ("blue-W1", "0201", "engage")))
    yield service, lineage
    service.close()


def test_a_battle_stops_the_turn_until_its_outcome_is_recorded(
    duel: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = duel
    first = service.resolve_turn(lineage, ask=duel_dice)
    assert [e.type for e in first][-1] == "battle_requested"
    (battle,) = service.battles(lineage)
    assert (battle.id, battle.type, battle.location, battle.chosen_by) == (
        "t1-b1",
        "even",
        "dense-world",
        "red",
    )
    assert [b.id for b in service.battles(lineage, "blue")] == ["t1-0201"]  # his name for it
    with pytest.raises(IllegalCommandError, match="t1-b1 await their outcomes"):
        service.resolve_turn(lineage, ask=duel_dice)
    with pytest.raises(IllegalCommandError, match="orders are closed"):
        service.submit_orders(lineage, "red", orders("red", 1))
    with pytest.raises(InvalidInputError, match="green-W1 did not fight in t1-b1"):
        service.record_battle(lineage, "t1-b1", (ShipResult(unit="green-W1", fate="destroyed"),))
    with pytest.raises(InvalidInputError, match="not on the map"):
        service.record_battle(
            lineage, "t1-b1", (ShipResult(unit="blue-W1", fate="jumped", to_hex="9999"),)
        )
    service.record_battle(
        lineage,
        "t1-b1",
        (ShipResult(unit="blue-W1", fate="destroyed"), ShipResult(unit="red-W1", hull_lost=3)),
    )
    with pytest.raises(IllegalCommandError, match="no battle 't1-b1' awaits"):
        service.record_battle(lineage, "t1-b1", ())
    second = service.resolve_turn(lineage, ask=duel_dice)
    assert [e.type for e in second][-1] == "turn_ended"
    state = service.load(lineage)
    assert "blue-W1" not in state.units
    assert state.units["red-W1"].hull_lost == 3
    assert state.turn == 2
    # Each side's view folds the battle without knowing the other's units.
    assert "blue-W1" not in service.state_at(lineage, viewer="blue").units
    assert service.state_at(lineage, viewer="red").units["red-W1"].hull_lost == 3


class DuelAtTheTable:
    """`umpire` on a manual-dice duel campaign whose turn 1 brought battle t1-b1: red-W1 and
    blue-W1 both Engage at 0201 (exploration 6, 6; initiative blue 2, red 5)."""

    def __init__(self, tmp_path: Path) -> None:
        map_file = tmp_path / "duel.toml"
        map_file.write_text(DUEL_MAP)
        self.db = str(tmp_path / "cli.db")
        self.runner = CliRunner()
        captains = "6\n" * 28  # two empires of 14 warships: every captain rolled at a prompt
        self(
            "new",
            "d",
            "--players",
            "red,blue",
            "--map",
            str(map_file),
            "--dice",
            "manual",
            "--battle-rules",
            "ft2",  # FT2's default fleet: red-W1 a battledreadnought with a fighter group
            dice=captains,
        )
        for player in ("red", "blue"):
            path = tmp_path / f"{player}.toml"
            path.write_text(orders(player, 1, (f"{player}-W1", "0201", "engage")))
            self("orders", "submit", str(path), "--player", player)
        self("turn", "resolve", dice="6\n6\n2\n5\n")

    def __call__(self, *args: str, code: int = 0, dice: str = "") -> str:
        result = self.runner.invoke(app, [*args, "--db", self.db], input=dice)
        assert result.exit_code == code, result.output
        return result.output


def test_battles_are_recorded_from_the_cli(tmp_path: Path) -> None:
    umpire = DuelAtTheTable(tmp_path)
    assert "t1-b1" in umpire("battles", "list")
    assert "number of boxes" in umpire("battles", "record", "t1-b1", "--damage", "red-W1=x", code=2)
    umpire("battles", "record", "t1-b1", "--destroyed", "blue-W1", "--damage", "red-W1=2")
    assert "no battles await" in umpire("battles", "list")
    assert "turn 1 ended" in umpire("turn", "resolve")


def test_the_engine_fights_a_campaign_battle(duel: tuple[CampaignService, Lineage]) -> None:
    """Red (Engage) meets blue (Engage) at Alpha; the Full Thrust engine fights it out."""
    service, lineage = duel
    service.resolve_turn(lineage, ask=duel_dice)
    seeded = iter(range(10_000))

    def dice(key: DiceKey, sides: int) -> int:
        return 1 + (next(seeded) * 7 + len(str(key))) % sides  # varied, reproducible faces

    (fought,) = service.resolve_battles(lineage, ask=dice)
    ev = fought.event
    assert isinstance(ev, BattleFought)
    assert ev.source == "engine"
    assert {r.unit for r in ev.results} == {"red-W1", "blue-W1"}
    assert ev.rolls
    assert all(r.key.split("/")[1] == "battle" for r in ev.rolls)
    assert ev.journal is not None
    assert '"request"' in ev.journal
    assert '"journal"' in ev.journal
    assert service.battles(lineage) == []
    assert service.resolve_turn(lineage, ask=duel_dice)[-1].type == "turn_ended"
    assert service.verify(lineage).ok


def test_damaged_warships_are_repaired_at_a_friendly_colony() -> None:
    """004 5.3.6: hull damage is repaired by ending the move at a colony of one's own,
    but not at a world conquered this turn."""

    def colony(cid: str, owner: str, hex_: str, conquered_turn: int | None = None) -> Colony:
        return Colony(
            id=cid,
            owner=owner,
            system=cid.split("/", 1)[0],
            hex=hex_,
            orbit=1,
            planet_type="terran",
            capacity=10,
            population=5,
            conquered_from="blue" if conquered_turn else None,
            conquered_turn=conquered_turn,
        )

    ships = [
        msgspec.structs.replace(warship("red-W1", "engage", "0201"), hull_lost=3),  # home
        msgspec.structs.replace(warship("red-W2", "engage", "0301"), hull_lost=2),  # just taken
        msgspec.structs.replace(warship("red-W3", "engage", "0101"), hull_lost=1),  # blue's world
        warship("red-W4", "engage", "0201"),  # undamaged
    ]
    state = state_of(
        *ships,
        colonies={
            "Alpha/1": colony("Alpha/1", "red", "0201"),
            "Beta/1": colony("Beta/1", "red", "0301", conquered_turn=3),
            "Gamma/1": colony("Gamma/1", "blue", "0101"),
        },
    )
    (new,) = decide_repairs(state)
    assert new.event == ShipsRepaired(player="red", units=("red-W1",))
    assert str(new.audience) == "red"


def test_an_admiral_whose_flagship_is_lost_rolls_for_his_life(tmp_path: Path) -> None:
    """004 section 6, Death and Injury: a die, -4 for a destroyed ship, +2 for a level 1
    officer: a 6 reads 4, injured for 1 campaign turn; the flag passes to the next ship."""
    path = tmp_path / "duel.toml"
    path.write_text(DUEL_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        plan = plan_campaign("d", ["red", "blue"], seed="s", dice_mode="manual", map_spec=str(path))
        service.new_campaign(plan, ask=lambda key, sides: 6)
        lineage = service.target("d")

        def dice(key: DiceKey, sides: int) -> int:
            return 1 if key.phase == "admiral" else duel_dice(key, sides)

        red = orders("red", 1) + (
            '[[task_forces]]\nunits = ["red-W1", "red-W2"]\n'
            '[[moves]]\nunit = "red-F1"\nto = "0201"\norder = "engage"\n'
        )
        service.submit_orders(lineage, "red", red)
        service.submit_orders(lineage, "blue", orders("blue", 1, ("blue-W1", "0201", "engage")))
        service.resolve_turn(lineage, ask=dice)
        assert service.load(lineage).task_forces["red-F1"].admiral == 1
        recorded = service.record_battle(
            lineage, "t1-b1", (ShipResult(unit="red-W1", fate="destroyed"),), ask=dice
        )
        casualty = recorded[-1].event
        assert isinstance(casualty, OfficerCasualty)
        assert (casualty.result, casualty.turns_out, casualty.new_flagship) == (
            "injured",
            1,
            "red-W2",
        )
        force = service.load(lineage).task_forces["red-F1"]
        assert force.units == ("red-W2",)
        assert (force.admiral_at(1), force.admiral_at(2), force.admiral_at(3)) == (None, None, 1)
    finally:
        service.close()


def test_a_task_force_whose_admiral_died_promotes_its_flagships_captain() -> None:
    """004 section 6, Promotion: a level 1 captain rolls 5 (+1 = 6): a level 1 admiral."""
    from campaign.events import TaskForcesSet
    from campaign.rules.taskforces import decide_task_forces
    from campaign.strategic import TaskForce

    flagship = msgspec.structs.replace(warship("red-W2", "engage"), captain=1)
    escort = warship("red-W3", "engage")
    force = TaskForce(id="red-F1", owner="red", units=("red-W2", "red-W3"), admiral=None)
    state = msgspec.structs.replace(state_of(flagship, escort), task_forces={"red-F1": force})
    (new,) = decide_task_forces(state, ScriptedDice([5]))
    ev = new.event
    assert isinstance(ev, TaskForcesSet)
    assert ev.task_forces[0].admiral == 1
    assert [r.key for r in ev.rolls] == ["3/promotion/red-F1/0"]
    # A task force with its admiral in command is left alone.
    assert decide_task_forces(evolve_state(state, ev), ScriptedDice([])) == []


def evolve_state(state: CampaignState, ev: object) -> CampaignState:
    from campaign.projections import evolve

    return evolve(state, ev)  # type: ignore[arg-type]


# ---------------------------------------------------------------- ships leaving (004 5.1)


def moved(unit: Unit, hex_: str, order: str | None = None) -> Unit:
    """The unit after this turn's movement: in `hex_`, with this turn's combat order."""
    return msgspec.structs.replace(unit, hex=hex_, order=order or unit.order)


Found = tuple[str, str, str, bool, str | None, tuple[tuple[str, str, tuple[str, ...]], ...]]


def departures_of(before: list[Unit], after: list[Unit]) -> list[Found]:
    """The battles found after movement, as (id, hex, type, departure, pursued, sides)."""
    start = state_of(*before)
    now = state_of(*after)
    battles, _ = find_battles(now, DUEL, ScriptedDice([6, 1]), start=start)
    return [
        (
            b.id,
            b.hex,
            b.type,
            b.departure,
            b.pursued,
            tuple((s.player, s.order, s.units) for s in b.sides),
        )
        for b in battles
    ]


def test_a_ship_leaving_where_an_enemy_engages_is_pursued_there() -> None:
    """004 L72: a ship moving out is under FTL Move; Engage vs FTL Move is a pursuit (L119-122),
    fought in the hex it left, in free space (L130-131), whatever order it has for where it
    goes."""
    red, blue = warship("red-W1", "stand-off"), warship("blue-W1", "engage")
    found = departures_of([red, blue], [moved(red, "0101", "engage"), blue])
    assert found == [
        (
            "t3-b1",
            "0201",
            "pursuit",
            True,
            "red",
            (("blue", "engage", ("blue-W1",)), ("red", "ftl-move", ("red-W1",))),
        )
    ]
    start = state_of(red, blue)
    now = state_of(moved(red, "0101", "engage"), blue)
    (battle,), rolls = find_battles(now, DUEL, ScriptedDice([]), start=start)
    assert (battle.location, battle.chosen_by, rolls) == ("free-space", None, [])
    assert battle.leaving == {"red-W1"}
    # Without the turn's start nobody left: the two are in different hexes, no battle.
    assert find_battles(now, DUEL, ScriptedDice([]))[0] == []


@pytest.mark.parametrize(
    ("blue_before", "blue_after"),
    [
        # Stand Off against FTL Move is no battle (004 L121).
        (warship("blue-W1", "engage"), warship("blue-W1", "stand-off")),
        # Both leave: nobody stays to pursue.
        (warship("blue-W1", "engage"), warship("blue-W1", "engage", "0301")),
        # Arriving this turn under Engage comes too late to catch a ship that left.
        (warship("blue-W1", "engage", "0301"), warship("blue-W1", "engage")),
        # The same player's ships never fight each other.
        (warship("red-W9", "engage"), warship("red-W9", "engage")),
    ],
)
def test_no_pursuit_without_an_enemy_that_stays_and_engages(
    blue_before: Unit, blue_after: Unit
) -> None:
    red = warship("red-W1", "stand-off")
    assert departures_of([red, blue_before], [moved(red, "0101"), blue_after]) == []


def test_scouts_and_transports_leaving_are_not_pursued() -> None:
    """Ruling: scouts and transports never fight on the table (004 L112)."""
    scouts = Unit(id="red-S1", owner="red", kind="scout-troop", hex="0201", count=9)
    transports = Unit(id="red-T1", owner="red", kind="transports", hex="0201", count=5)
    blue = warship("blue-W1", "engage")
    after = [moved(scouts, "0101"), moved(transports, "0101"), blue]
    assert departures_of([scouts, transports, blue], after) == []


def test_a_task_force_leaving_is_one_side_under_its_admiral() -> None:
    from campaign.strategic import TaskForce

    force = TaskForce(id="red-F1", owner="red", units=("red-W2", "red-W1"), admiral=1)
    ships = [
        msgspec.structs.replace(warship(uid, "engage"), task_force="red-F1")
        for uid in ("red-W1", "red-W2")
    ]
    blue = warship("blue-W1", "engage")
    start = msgspec.structs.replace(state_of(*ships, blue), task_forces={"red-F1": force})
    now = msgspec.structs.replace(
        state_of(*(moved(s, "0101") for s in ships), blue), task_forces={"red-F1": force}
    )
    (battle,), _ = find_battles(now, DUEL, ScriptedDice([]), start=start)
    red_side = next(s for s in battle.sides if s.player == "red")
    assert (red_side.order, red_side.units, red_side.admiral) == (
        "ftl-move",
        ("red-W1", "red-W2"),
        1,
    )
    assert battle.departure


def test_a_departure_pursuit_comes_in_004s_order_with_the_other_battles() -> None:
    """004 L125-131: Engage vs Engage (red arriving at 0101, where green Engages) is fought
    before Engage vs FTL Move (red caught leaving 0201); in a hex, the pursuit of ships
    staying under FTL Move comes before that of the ships leaving."""
    red = warship("red-W1", "stand-off")
    stayer = warship("red-W2", "ftl-move")
    blue = warship("blue-W1", "engage")
    green = warship("green-W1", "engage", "0101")
    found = departures_of(
        [red, stayer, blue, green], [moved(red, "0101", "engage"), stayer, blue, green]
    )
    assert [(f[0], f[1], f[2], f[3]) for f in found] == [
        ("t3-b1", "0101", "even", False),
        ("t3-b2", "0201", "pursuit", False),
        ("t3-b3", "0201", "pursuit", True),
    ]


def test_a_planned_jump_takes_a_ship_leaving_where_it_was_going() -> None:
    """004 L139-141: an unplanned jump lands d6 parsecs "from the desired target point": for a
    ship leaving, its destination; a planned jump leaves it there."""
    from campaign.rules.battles import _result
    from campaign.strategic import Battle, BattleSide
    from tactical.campaign_battle import ShipOutcome
    from tactical.designs import show_builtin
    from tactical.ship import fresh_state

    record = fresh_state(show_builtin("frigate", "ft2"))
    battle = Battle(
        id="t3-b1",
        hex="0201",
        system="Alpha",
        type="pursuit",
        pursued="red",
        departure=True,
        sides=(
            BattleSide(player="blue", order="engage", units=("blue-W1",)),
            BattleSide(player="red", order="ftl-move", units=("red-W1",)),
        ),
    )

    def jump(displaced: tuple[int, int] | None, bound_for: str | None) -> str | None:
        ship = ShipOutcome(
            id="red-W1",
            side="red",
            design="frigate",
            fate="jumped",
            record=record,
            hull_lost=0,
            displaced=displaced,
        )
        return _result(DUEL, battle, ship, bound_for).to_hex

    assert jump(None, "0101") is None  # on to 0101, where it already is
    assert jump((1, 4), "0101") == "0102"  # one hex "south" of its destination
    assert jump(None, None) == "0201"  # a ship not leaving stays in the hex
    assert jump((1, 4), None) == "0202"


# Red enters at 0101 and blue at 0301; both reach 0201, empty space, on turn 1 (no hazards).
LANE_MAP = DUEL_MAP.split("[[systems]]", maxsplit=1)[0].replace('name = "duel"', 'name = "lane"')
# Under this seed red-W2, red-W11 and blue-W2 have level 1 captains: they plot one turn.
LANE_SEED = "pursuit"


def lane_until_the_departure(
    tmp_path: Path, db: str = "sqlite://"
) -> tuple[CampaignService, Lineage]:
    """Turn 1: red's W2 and W11 and blue's W2 meet at 0201, all Standing Off: no battle.
    Turn 2: red forms them into a task force and leaves for 0101 (to Engage there); blue
    stays and Engages. The turn stops for the pursuit at 0201."""
    path = tmp_path / "lane.toml"
    path.write_text(LANE_MAP)
    service = CampaignService.open(db, clock=FixedClock(), create=True, nonces=CountingNonces())
    plan = plan_campaign(  # FT2's default fleet: the seed gives these ships level 1 captains
        "lane", ["red", "blue"], seed=LANE_SEED, map_spec=str(path), battle_rules="ft2"
    )
    service.new_campaign(plan)
    lineage = service.target("lane")
    units = service.load(lineage).units
    assert {units[u].captain for u in ("red-W2", "red-W11", "blue-W2")} == {1}
    red = orders("red", 1, ("red-W2", "0201", "stand-off"), ("red-W11", "0201", "stand-off"))
    service.submit_orders(lineage, "red", red)
    service.submit_orders(lineage, "blue", orders("blue", 1, ("blue-W2", "0201", "stand-off")))
    assert service.resolve_turn(lineage)[-1].type == "turn_ended"
    red = orders("red", 2, ("red-F1", "0101", "engage")) + (
        '[[task_forces]]\nunits = ["red-W2", "red-W11"]\n'
    )
    service.submit_orders(lineage, "red", red)
    service.submit_orders(lineage, "blue", orders("blue", 2, ("blue-W2", None, "engage")))
    assert service.resolve_turn(lineage)[-1].type == "battle_requested"
    return service, lineage


def test_a_task_force_leaving_is_pursued_and_the_engine_fights_it(tmp_path: Path) -> None:
    service, lineage = lane_until_the_departure(tmp_path)
    try:
        (battle,) = service.battles(lineage)
        assert (battle.id, battle.hex, battle.type, battle.pursued, battle.departure) == (
            "t2-b1",
            "0201",
            "pursuit",
            "red",
            True,
        )
        assert [(s.player, s.order, s.units) for s in battle.sides] == [
            ("blue", "engage", ("blue-W2",)),
            ("red", "ftl-move", ("red-W11", "red-W2")),
        ]
        assert battle.sides[1].admiral == service.load(lineage).task_forces["red-F1"].admiral
        # Both sides are told of it; the leavers are at their destination meanwhile.
        assert [b.id for b in service.battles(lineage, "blue")] == ["t2-0201"]  # his name for it
        assert service.state_at(lineage, viewer="red").units["red-W2"].hex == "0101"
        fought = service.resolve_battles(lineage)
        ev = fought[0].event
        assert isinstance(ev, BattleFought)
        assert ev.source == "engine"
        # Where a leaver's jump took it is never in the event both sides see.
        assert all(r.to_hex is None for r in ev.results if r.unit.startswith("red-"))
        assert service.resolve_turn(lineage)[-1].type == "turn_ended"
        state = service.load(lineage)
        fates = {r.unit: r.fate for r in ev.results}
        # An unplanned jump lands off the destination; only red is told where.
        landed = {r.event.unit: r.event.path[-1] for r in fought if isinstance(r.event, UnitMoved)}
        assert {str(r.audience) for r in fought if isinstance(r.event, UnitMoved)} <= {"red"}
        assert set(landed) <= {u for u, fate in fates.items() if fate == "jumped"}
        red = service.state_at(lineage, viewer="red").units
        for uid in ("red-W2", "red-W11"):
            if fates[uid] == "destroyed":
                assert uid not in state.units
            else:  # got away: on at its destination, or where an unplanned jump took it
                assert state.units[uid].hex == red[uid].hex == landed.get(uid, "0101")
        assert state.units.get("blue-W2") is None or state.units["blue-W2"].hex == "0201"
        assert service.verify(lineage).ok
    finally:
        service.close()


def test_a_departure_is_decided_the_same_way_twice(tmp_path: Path) -> None:
    """Same seed, same orders: the same events, battle and all."""

    def play(folder: Path) -> list[tuple[str, str, bytes]]:
        folder.mkdir()
        service, lineage = lane_until_the_departure(folder)
        try:
            service.resolve_battles(lineage)
            service.resolve_turn(lineage)
            return [
                (e.type, str(e.audience), msgspec.json.encode(e.event))
                for e in service.log(lineage)
            ]
        finally:
            service.close()

    first = play(tmp_path / "one")
    assert "battle_fought" in [t for t, _, _ in first]
    assert play(tmp_path / "two") == first


def test_where_a_leaver_came_out_is_told_to_its_owner_alone(tmp_path: Path) -> None:
    """A table-top outcome: red-W2 jumped out to 0102, red-W11 jumped on to its destination,
    blue-W2 came through. Blue learns that they jumped, not where to."""
    service, lineage = lane_until_the_departure(tmp_path)
    try:
        with pytest.raises(InvalidInputError, match="blue-W2 jumped: say where it came out"):
            service.record_battle(lineage, "t2-b1", (ShipResult(unit="blue-W2", fate="jumped"),))
        before = service.load(lineage).units["red-W2"]
        recorded = service.record_battle(
            lineage,
            "t2-b1",
            (
                ShipResult(unit="red-W2", fate="jumped", to_hex="0102", hull_lost=1),
                ShipResult(unit="red-W11", fate="jumped"),
            ),
        )
        assert [(r.type, str(r.audience)) for r in recorded] == [
            ("battle_fought", "blue,red"),
            ("unit_moved", "red"),
        ]
        fought = recorded[0].event
        assert isinstance(fought, BattleFought)
        assert [(r.unit, r.fate, r.to_hex) for r in fought.results] == [
            ("blue-W2", "survived", None),
            ("red-W11", "jumped", None),
            ("red-W2", "jumped", None),
        ]
        # The jump keeps its plot, as any ship a battle displaces does.
        assert recorded[1].event == UnitMoved(
            unit="red-W2",
            path=("0102",),
            order="engage",
            plot=before.plot,
            plot_until=before.plot_until,
        )
        red = service.state_at(lineage, viewer="red")
        assert (red.units["red-W2"].hex, red.units["red-W2"].hull_lost) == ("0102", 1)
        assert red.units["red-W11"].hex == "0101"
        truth = service.load(lineage).units
        assert {u: truth[u] for u in red.units} == red.units
        blue = [e.event for e in service.log(lineage, viewer="blue")]
        assert not [ev for ev in blue if isinstance(ev, UnitMoved) and ev.unit.startswith("red")]
        assert service.resolve_turn(lineage)[-1].type == "turn_ended"
    finally:
        service.close()


def test_the_cli_records_a_leavers_jump_without_a_hex(tmp_path: Path) -> None:
    """`umpire battles record --jumped UNIT`: a ship leaving the hex jumped on to where it was
    going (docs/rulings.md, "What becomes of ships leaving"); `UNIT=HEX` says where one came
    out. Any other ship must be given a hex."""
    db = str(tmp_path / "lane.db")
    service, lineage = lane_until_the_departure(tmp_path, db)
    service.close()
    runner = CliRunner()

    def umpire(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, ["battles", "record", "t2-b1", *args, "--db", db])
        assert result.exit_code == code, result.output
        return " ".join(result.output.split())

    assert "blue-W2 jumped: say where it came out" in umpire("--jumped", "blue-W2", code=2)
    assert "must look like UNIT or UNIT=HEX" in umpire("--jumped", "red-W2=", code=2)
    umpire("--jumped", "red-W11", "--jumped", "red-W2=0102")
    service = CampaignService.open(db)
    try:
        fought = next(e.event for e in service.log(lineage) if e.type == "battle_fought")
        assert isinstance(fought, BattleFought)
        assert [(r.unit, r.fate) for r in fought.results] == [
            ("blue-W2", "survived"),
            ("red-W11", "jumped"),
            ("red-W2", "jumped"),
        ]
        units = service.state_at(lineage, viewer="red").units
        assert (units["red-W11"].hex, units["red-W2"].hex) == ("0101", "0102")
    finally:
        service.close()


@pytest.mark.parametrize(
    ("red_captain", "white_admiral", "faces", "chooser"),
    [
        # Level 1 captain (+1) turns red's 4 against white's 5 into a tie: rolled again.
        (1, None, [4, 5, 3, 2], "red"),
        # A level 3 admiral (-1): white's 5 ties red's 4, then his 5 loses to red's 5.
        (2, 3, [4, 5, 5, 5], "red"),
        # A level 1 admiral (+1): white's 4 ties red's 5, then his 2 beats red's 2.
        (2, 1, [5, 4, 2, 2], "white"),
    ],
)
def test_command_modifies_the_battle_location_initiative(
    red_captain: int, white_admiral: int | None, faces: list[int], chooser: str
) -> None:
    """004 L330-342: a level-1 senior captain or admiral adds one to the initiative roll, a
    level-3 takes one away; equal totals roll again."""
    from campaign.strategic import TaskForce

    red = msgspec.structs.replace(warship("red-W1", "engage"), captain=red_captain)
    whites = [
        msgspec.structs.replace(warship(f"white-W{i}", "engage"), captain=2, task_force="white-F1")
        for i in (1, 2)
    ]
    forces = {
        "white-F1": TaskForce(
            id="white-F1", owner="white", units=("white-W1", "white-W2"), admiral=white_admiral
        )
    }
    state = state_of(red, *whites, task_forces=forces)
    battles, _ = find_battles(state, DUEL, ScriptedDice(faces))
    assert battles[0].chosen_by == chooser


def test_the_chooser_picks_the_location_per_system_and_sets_it_up() -> None:
    """Issue 12 (004 L123-131, L154-155, L163-164): a player's choice of battle location is
    his for each system, with the dense world's set-up (his fleet within 10 MU of it) or a
    gas giant's gravity band; elsewhere his general list holds."""
    from campaign.rules.battles import request_for
    from campaign.rules.combat import check_battle_sites
    from campaign.strategic import BattleSite

    cruisers = [
        msgspec.structs.replace(warship(uid, order), design="heavy_cruiser", captain=2)
        for uid, order in (("red-W1", "engage"), ("green-W1", "stand-off"))
    ]
    state = state_of(
        *cruisers,
        battle_locations={"green": ("free-space",)},
        battle_sites={
            "green": (BattleSite(system="Alpha", prefer=("dense-world",), world="near"),)
        },
    )
    (battle,), _ = find_battles(state, DUEL, ScriptedDice([]))
    assert (battle.location, battle.chosen_by, battle.world) == ("dense-world", "green", "near")
    assert request_for(state, battle).world == "near"
    assert check_battle_sites(
        DUEL,
        (
            BattleSite(system="Alpha", gravity=13),
            BattleSite(system="Nowhere"),
            BattleSite(system="Alpha"),
        ),
    ) == [
        "battle site Alpha: gravity band 13 MU is not one of 2-12 (004 L163-164)",
        "battle site Nowhere: no such star system",
        "battle site Alpha: given twice",
    ]


def test_an_enemy_admirals_level_is_his_sides_own(tmp_path: Path) -> None:
    """Red's task force, under its admiral, is pursued by blue (t2-b1). The admiral's level was
    rolled for red and told to red alone: the battle as blue learns of it before it is fought
    (his state, his log, his report's news) leaves it out; red and the umpire see it
    (docs/rulings.md, "Campaign: an enemy admiral's level")."""
    service, lineage = lane_until_the_departure(tmp_path)
    try:
        level = service.load(lineage).task_forces["red-F1"].admiral
        assert level is not None  # there is something to hide
        admirals = {"blue": [None, None], "red": [None, level], "umpire": [None, level]}
        for viewer, seen in admirals.items():
            (battle,) = service.battles(lineage, viewer)
            assert [s.admiral for s in battle.sides] == seen, viewer
        service.resolve_battles(lineage)
        for viewer, seen in admirals.items():
            told = [
                e.event
                for e in (
                    service.log(lineage)
                    if viewer == "umpire"
                    else service.player_view(lineage, viewer)
                )
                if isinstance(e.event, BattleRequested | BattleFought)
            ]
            requested, fought = told
            assert isinstance(requested, BattleRequested)
            assert isinstance(fought, BattleFought)
            assert [s.admiral for s in requested.battle.sides] == seen, viewer
            # Fought under open record sheets (FT2), the battle is told whole, its journal's
            # set-up naming both admirals: once fought, the level shows.
            assert fought.journal is not None
            assert [s.admiral for s in fought.battle.sides] == [None, level], viewer
        news = service.report(lineage, "blue", 2).news
        assert [
            [s.admiral for s in e.event.battle.sides]
            for e in news
            if isinstance(e.event, BattleRequested)
        ] == [[None, None]]
    finally:
        service.close()
