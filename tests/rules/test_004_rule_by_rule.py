"""004, rule by rule: one test per sentence of sections 1, 5.1-5.5, each citing its line.

The line numbers are those of `../shared/seeds/004_b5cd3302a4caa276.txt`. Every test calls a
pure rule of `campaign/rules/` on a hand-built state with scripted dice, and asserts exact
values on both sides of each boundary the sentence draws. Rules already tested against their
exact line elsewhere are not repeated here:

- 004 L112 (scouts never fight on the table): `tests/test_combat.py`;
- 004 L77-80 (pre-plotted moves): its table, L346-352, in `tests/rules/test_command.py`;
- 004 L212-219 (sieges and conquered colonies in production), L228-230 (transports built
  with C.E.T., in the production phase) and section 5.7: `tests/rules/test_production.py`.

004 L72 ("ships instructed to move out from a system must be given the order 'FTL Move'") is
left to the tests of the pursuit rules, which are being changed.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from campaign.dice import ScriptedDice
from campaign.errors import InvalidInputError
from campaign.events import (
    AttackFailed,
    Audience,
    BattleFought,
    BattleRequested,
    CaptainCasualty,
    ColonistsLanded,
    ColonyBombarded,
    ColonyConquered,
    ColonyDetected,
    EmpireFounded,
    NewEvent,
    OfficerCasualty,
    OrdersSubmitted,
    ProductionResolved,
    ShipsRepaired,
    SystemExplored,
    SystemScouted,
    TaskForcesSet,
    UnitMoved,
)
from campaign.projections import CampaignState, evolve
from campaign.rules.assault import decide_attacks, decide_conquests
from campaign.rules.battles import request_for
from campaign.rules.colonies import (
    check_landings,
    command_post_hexes,
    decide_landings,
    decide_repairs,
)
from campaign.rules.combat import decide_officer_casualties, find_battles
from campaign.rules.core import CreateCampaign, decide_create
from campaign.rules.economy import decide_production
from campaign.rules.exploration import decide_exploration
from campaign.rules.movement import OrdersError, decide_movement, horizon, plan_moves
from campaign.rules.orders import parse
from campaign.rules.production import PlanetType
from campaign.rules.setup import catalogue_ship, decide_found_empires
from campaign.rules.taskforces import plan_task_forces
from campaign.rules.technology import TechName, ftl_speed
from campaign.rules.victory import scores
from campaign.strategic import (
    BASE_FTL_SPEED,
    DEFENCE_DESIGNS,
    Admiral,
    Attack,
    AttackMode,
    Battle,
    BattleSide,
    Colony,
    CombatOrder,
    CoreDamage,
    Empire,
    Landing,
    Location,
    Loss,
    Move,
    PlanetReport,
    ProductionOrder,
    ShipCount,
    ShipFate,
    ShipResult,
    TaskForce,
    TaskForceOrder,
    Unit,
)
from maps import Hex, loads_map, parse_label
from tactical.designs import builtin_ships

# A 14x8 sector. Red enters at 0101, its initial command post off the map at Hex(-1, 0);
# blue enters at 1408. Alpha (0102, next to red's entry) has one planet of each type and
# two battle features; Beta (0302) has none; Delta (0802) is 8 hexes from red's post. A cloud
# runs 0604-0704-0804.
RULES_MAP = """
format = "stellar-umpire-map"
version = 1
name = "rules"
title = "Rule-by-rule sector"
width = 14
height = 8
clouds = ["0604", "0704", "0804"]

[[entries]]
name = "1"
hex = "0101"

[[entries]]
name = "2"
hex = "1408"

[[systems]]
name = "Alpha"
hex = "0102"
colour = "yellow"
features = ["dense-world", "gas-giant"]

[[systems.planets]]
orbit = 1
type = "terran"
capacity = 60
mineral_rich = true

[[systems.planets]]
orbit = 2
type = "sub-terran"
capacity = 20

[[systems.planets]]
orbit = 3
type = "minimal-terran"
capacity = 5

[[systems.planets]]
orbit = 4
type = "barren"
capacity = 5

[[systems]]
name = "Beta"
hex = "0302"
colour = "red"

[[systems]]
name = "Delta"
hex = "0802"
colour = "orange"

[[systems.planets]]
orbit = 1
type = "terran"
capacity = 60
"""
MAP = loads_map(RULES_MAP)
ALPHA = "0102"
TURN = 3


# ---------------------------------------------------------------- hand-built states


def warship(
    uid: str, hex_: str | None = ALPHA, order: CombatOrder = "stand-off", **changes: Any
) -> Unit:
    """A warship under a level 1 captain (it plots one turn ahead, 004 section 6)."""
    owner = uid.split("-", 1)[0]
    ship = Unit(
        id=uid,
        owner=owner,
        kind="warship",
        hex=hex_,
        order=order,
        hull_class="cruiser",
        design="heavy_cruiser",
        points=160,
        mass=32,
        captain=1,
    )
    return msgspec.structs.replace(ship, **changes)


def scouts(uid: str, hex_: str | None = ALPHA, count: int = 9) -> Unit:
    return Unit(id=uid, owner=uid.split("-", 1)[0], kind="scout-troop", hex=hex_, count=count)


def transports(uid: str, hex_: str | None = ALPHA, count: int = 3, *, cet: bool = False) -> Unit:
    return Unit(
        id=uid, owner=uid.split("-", 1)[0], kind="transports", hex=hex_, count=count, cet=cet
    )


def colony(
    pid: str = "Alpha/1",
    owner: str = "blue",
    planet_type: PlanetType = "terran",
    capacity: int = 60,
    **changes: Any,
) -> Colony:
    system, _, orbit = pid.partition("/")
    hex_ = {"Alpha": ALPHA, "Delta": "0802"}[system]
    base = Colony(
        id=pid,
        owner=owner,
        system=system,
        hex=hex_,
        orbit=int(orbit),
        planet_type=planet_type,
        capacity=capacity,
        population=12,
    )
    return msgspec.structs.replace(base, **changes)


def orders(player: str, **fields: Any) -> OrdersSubmitted:
    """A player's submitted orders for the turn (no moves: the units are already placed)."""
    return OrdersSubmitted(player=player, turn=TURN, moves=(), **fields)


def campaign(
    *units: Unit,
    colonies: tuple[Colony, ...] = (),
    empires: tuple[Empire, ...] = (),
    submitted: tuple[OrdersSubmitted, ...] = (),
    task_forces: tuple[TaskForce, ...] = (),
    **extra: Any,
) -> CampaignState:
    """Turn 3 of a campaign of red (entry 1) and blue (entry 2), after movement."""
    given = {e.player: e for e in empires}
    players = ("blue", "red")
    return CampaignState(
        created=True,
        turn=TURN,
        players=players,
        empires={
            p: given.get(p, Empire(player=p, entry="1" if p == "red" else "2")) for p in players
        },
        units={u.id: u for u in units},
        colonies={c.id: c for c in colonies},
        submitted={s.player: s for s in submitted},
        task_forces={tf.id: tf for tf in task_forces},
        **extra,
    )


def red_at_speed(speed: int, *, explored: tuple[str, ...] = ()) -> Empire:
    return Empire(player="red", entry="1", speed=speed, explored=explored)


def plan_one(
    unit: Unit, to: str | None, *, speed: int = BASE_FTL_SPEED, **kw: Any
) -> tuple[str, ...]:
    """Plan one unit's move; return the hexes it enters this turn."""
    state = campaign(unit, empires=(red_at_speed(speed),), **kw)
    return plan_moves(state, MAP, unit.owner, (Move(unit=unit.id, to=to),))[unit.id].path


def refused(unit: Unit, to: str | None, *, speed: int = BASE_FTL_SPEED, **kw: Any) -> list[str]:
    """Plan one unit's move that the rules refuse; return the problems named."""
    with pytest.raises(OrdersError) as caught:
        plan_one(unit, to, speed=speed, **kw)
    return caught.value.problems


def only(events: list[NewEvent]) -> Any:
    (new,) = events
    return new.event


# ---------------------------------------------------------------- 5.1 FTL movement


def test_L67_any_or_all_ships_may_move_each_on_its_own() -> None:
    """004 L67: "Any or all of a player's ships may move. Ships may move individually"."""
    state = campaign(warship("red-W1", "0302"), warship("red-W2", "0302"))
    events = decide_movement(state, MAP, {"red": (Move(unit="red-W1", to="0402"),)})
    assert [new.event for new in events] == [
        UnitMoved(unit="red-W1", path=("0402",), order="stand-off")
    ]


def test_L67_68_a_task_force_moves_as_one() -> None:
    """004 L67-68: ships may move "as part of a Task Force": one order moves every ship."""
    force = TaskForce(id="red-F1", owner="red", units=("red-W1", "red-W2"), admiral=1)
    members = [warship(uid, "0302", task_force="red-F1") for uid in force.units]
    state = campaign(*members, task_forces=(force,))
    moves = (Move(unit="red-F1", to="0402", order="engage"),)
    assert [new.event for new in decide_movement(state, MAP, {"red": moves})] == [
        UnitMoved(unit="red-W1", path=("0402",), order="engage"),
        UnitMoved(unit="red-W2", path=("0402",), order="engage"),
    ]
    with pytest.raises(OrdersError) as caught:
        plan_moves(state, MAP, "red", (Move(unit="red-W2", to="0402"),))
    assert caught.value.problems == ["red-W2: moves with task force red-F1; order that"]


def test_L68_ships_join_and_leave_a_task_force_in_the_movement_phase() -> None:
    """004 L68: "Ships may join or leave a Task Force at any time during the movement phase"
    (ruling: before anyone moves). W3 joins and W2 leaves; W2 then moves on its own."""
    force = TaskForce(id="red-F1", owner="red", units=("red-W1", "red-W2"), admiral=1)
    state = campaign(
        warship("red-W1", "0302", task_force="red-F1"),
        warship("red-W2", "0302", task_force="red-F1"),
        warship("red-W3", "0302"),
        task_forces=(force,),
    )
    reshaped = TaskForceOrder(id="red-F1", units=("red-W1", "red-W3"))
    forces, problems = plan_task_forces(state, "red", (reshaped,))
    assert (forces, problems) == ([msgspec.structs.replace(force, units=reshaped.units)], [])
    after = evolve(state, TaskForcesSet(player="red", task_forces=tuple(forces)))
    assert {u.id: u.task_force for u in after.units.values()} == {
        "red-W1": "red-F1",
        "red-W2": None,
        "red-W3": "red-F1",
    }
    plans = plan_moves(after, MAP, "red", (Move(unit="red-W2", to="0402"),))
    assert plans["red-W2"].path == ("0402",)
    with pytest.raises(OrdersError, match="red-W3: moves with task force red-F1"):
        plan_moves(after, MAP, "red", (Move(unit="red-W3", to="0402"),))


def test_L68_69_movement_runs_from_a_departure_hex_to_a_destination_hex() -> None:
    """004 L68-69: "All movement must be plotted from a departure hex to a destination hex"."""
    assert plan_one(warship("red-W1", "0302"), "0502") == ("0401", "0502")
    assert refused(warship("red-W1", "0302"), "Betta") == [
        "red-W1: destination 'Betta' is neither a hex label like 0712 nor a star your chart "
        "names (did you mean Beta (0302) or Delta (0802)?)"
    ]
    # A star's name is its hex (docs/rulings.md, "A star named where a hex is wanted").
    assert plan_one(warship("red-W1", "0302"), "beta") == plan_one(
        warship("red-W1", "0302"), "0302"
    )
    assert refused(warship("red-W1", "0302"), "1501") == [
        "red-W1: destination 1501 is off the map (hexes 0101 to 1408: column, row)"
    ]


@pytest.mark.parametrize("order", ["engage", "stand-off", "ftl-move"])
def test_L70_71_every_warship_carries_one_of_the_three_orders(order: CombatOrder) -> None:
    """004 L70-71: an Order is given "as part of their movement instructions ... Engage, Stand
    Off or FTL Move": the move's order replaces the one the ship had (a task force's order
    reaches each of its ships: see the L67-68 test)."""
    before: CombatOrder = "engage" if order == "stand-off" else "stand-off"
    state = campaign(warship("red-W1", "0302", order=before))
    (moved,) = decide_movement(state, MAP, {"red": (Move(unit="red-W1", to="0402", order=order),)})
    assert moved.event == UnitMoved(unit="red-W1", path=("0402",), order=order)
    assert evolve(state, moved.event).units["red-W1"].order == order


@pytest.mark.parametrize("order", ["engage", "stand-off", "ftl-move"])
def test_L70_a_move_without_an_order_keeps_the_order_the_unit_has(order: CombatOrder) -> None:
    """004 L70: warships "must be given an Order as part of their movement instructions";
    ruling: a move that leaves it out keeps the unit's order (as a unit given no move does),
    never a silent Stand Off; a task force's is its flagship's."""
    (text_move,) = parse(
        'player = "red"\nturn = 3\n[[moves]]\nunit = "red-W1"\nto = "0402"\n', "red", TURN
    ).moves
    assert text_move == Move(unit="red-W1", to="0402", order=None)
    state = campaign(warship("red-W1", "0302", order=order))
    (moved,) = decide_movement(state, MAP, {"red": (text_move,)})
    assert moved.event == UnitMoved(unit="red-W1", path=("0402",), order=order)
    force = TaskForce(id="red-F1", owner="red", units=("red-W2", "red-W3"), admiral=1)
    state = campaign(
        warship("red-W2", "0302", order=order, task_force="red-F1"),
        warship("red-W3", "0302", order="stand-off", task_force="red-F1"),
        task_forces=(force,),
    )
    events = decide_movement(state, MAP, {"red": (Move(unit="red-F1", to="0402"),)})
    assert [(new.event.unit, new.event.order) for new in events] == [
        ("red-W2", order),
        ("red-W3", order),
    ]


def test_L71_no_order_but_the_three_is_accepted() -> None:
    """004 L71: "Orders are: Engage, Stand Off or FTL Move" and nothing else."""
    text = 'player = "red"\nturn = 3\n[[moves]]\nunit = "red-W1"\nto = "0402"\norder = "attack"\n'
    with pytest.raises(OrdersError) as caught:
        parse(text, "red", TURN)
    assert caught.value.problems == [
        "Invalid enum value 'attack' - at `$.moves[0].order` (line 6); "
        "accepted: engage, stand-off, ftl-move"
    ]


CLOUD_CAUSE = (
    "gas/dust clouds bar the way to {} this turn: a cloud is entered only from next to it and "
    "crossed 1 hex a turn (004 L83-85)"
)


def causes(problems: list[str]) -> list[str]:
    """The causes a refusal names: `UNIT: cannot reach HEX: CAUSE; it can reach ...`."""
    return [p.split(": ", 2)[2].rpartition("; it can reach")[0] for p in problems]


def test_L74_every_ship_starts_with_an_ftl_speed_of_2() -> None:
    """004 L74: "All ships begin the game with an FTL movement rate of 2 hexes"."""
    assert BASE_FTL_SPEED == 2
    assert Empire(player="red", entry="1").speed == 2
    assert ftl_speed(()) == 2
    assert plan_one(warship("red-W1", "0302"), "0502") == ("0401", "0502")  # 2 hexes
    assert causes(refused(warship("red-W1", "0302"), "0602")) == [  # 3 hexes
        "0602 is 3 hexes away; at speed 2 it moves 2 hexes a turn, 2 this turn (004 L74-76)"
    ]


def test_L75_76_a_higher_speed_moves_all_ships_at_once() -> None:
    """004 L75-76: "When a player achieves a higher FTL speed rating, all his ships are then
    able to immediately move at that higher speed": warships, scouts and transports alike."""
    owned: tuple[TechName, ...] = ("speed-3",)
    assert ftl_speed(owned) == 3
    state = campaign(
        warship("red-W1", "0302"),
        scouts("red-S1", "0302"),
        transports("red-T1", "0302"),
        empires=(red_at_speed(ftl_speed(owned)),),
    )
    moves = tuple(Move(unit=uid, to="0602") for uid in ("red-W1", "red-S1", "red-T1"))
    plans = plan_moves(state, MAP, "red", moves)
    assert {uid: p.path[-1] for uid, p in plans.items()} == dict.fromkeys(
        ("red-W1", "red-S1", "red-T1"), "0602"
    )
    with pytest.raises(OrdersError) as caught:  # 4 hexes is still too far
        plan_moves(state, MAP, "red", tuple(Move(unit=m.unit, to="0702") for m in moves))
    assert len(caught.value.problems) == 3


def test_L81_82_the_entry_hex_is_the_first_hex_of_movement() -> None:
    """004 L81-82: "A player counts his entry hex as the first hex of movement for all ships
    entering the map board": at speed 2 a ship entering ends at most one hex beyond it."""
    assert plan_one(scouts("red-S1", None), "0101") == ("0101",)
    assert plan_one(scouts("red-S1", None), ALPHA) == ("0101", ALPHA)
    assert causes(refused(scouts("red-S1", None), "0202")) == [  # 2 hexes beyond the entry
        "0202 is 3 hexes away; at speed 2 it moves 2 hexes a turn, 2 this turn (004 L74-76)"
    ]


def test_L83_84_a_cloud_is_entered_only_from_a_hex_next_to_it() -> None:
    """004 L83-84: clouds "may only be entered if the movement begins from a hex next to the
    Gas/Dust Cloud hex": from next to it yes; from two hexes off no, at any speed."""
    assert plan_one(scouts("red-S1", "0504"), "0604") == ("0604",)
    problems = refused(scouts("red-S1", "0404"), "0604", speed=8)
    assert causes(problems) == [CLOUD_CAUSE.format("0604")]


def test_L84_movement_within_a_cloud_is_one_hex_per_turn() -> None:
    """004 L84: "Movement within a Gas/Dust Cloud is reduced to 1 hex per turn": entering a
    cloud hex ends the move, even at speed 8, and so does each further cloud hex."""
    assert plan_one(scouts("red-S1", "0604"), "0704", speed=8) == ("0704",)
    assert causes(refused(scouts("red-S1", "0604"), "0804", speed=8)) == [
        CLOUD_CAUSE.format("0804")
    ]
    assert causes(refused(scouts("red-S1", "0504"), "0704", speed=8)) == [
        CLOUD_CAUSE.format("0704")
    ]


def test_L84_85_ships_leave_a_cloud_at_full_speed() -> None:
    """004 L84-85: "Ships may move out of a Gas/Dust Cloud at their full normal movement
    speed": two hexes out at speed 2, not three."""
    path = plan_one(scouts("red-S1", "0604"), "0404")
    assert (len(path), path[-1]) == (2, "0404")
    assert not any(MAP.is_cloud(parse_label(h)) for h in path)
    assert parse_label("0304").distance(parse_label("0604")) == 3
    assert causes(refused(scouts("red-S1", "0604"), "0304")) == [
        "0304 is 3 hexes away; at speed 2 it moves 2 hexes a turn, 2 this turn (004 L74-76)"
    ]


def test_L86_starships_stay_within_8_hexes_of_a_command_post() -> None:
    """004 L86: "Starships, except for Scouts, cannot move further than 8 hexes from a Command
    Post": 0801 is 8 hexes from red's initial post, 0901 is 9."""
    post = MAP.initial_command_post("1")
    assert (parse_label("0801").distance(post), parse_label("0901").distance(post)) == (8, 9)
    assert plan_one(warship("red-W1", "0701"), "0801") == ("0801",)
    assert causes(refused(warship("red-W1", "0701"), "0901")) == [
        "0901 is 9 hexes from the nearest command post; starships other than scouts stay "
        "within 8 (004 L86)"
    ]


def test_L86_scouts_are_not_held_by_command_posts() -> None:
    """004 L86: "except for Scouts"."""
    assert plan_one(scouts("red-S1", "0701"), "0901") == ("0801", "0901")


def test_L87_a_colony_world_is_a_command_post() -> None:
    """004 L87: Command Posts "can be established on any colony world": red's colony at Delta
    (0802) brings 0901, 9 hexes from the initial post, into range."""
    delta = colony("Delta/1", owner="red")
    assert command_post_hexes(campaign(colonies=(delta,)), "red") == ["0802"]
    assert plan_one(warship("red-W1", "0701"), "0901", colonies=(delta,)) == ("0801", "0901")


def test_L88_90_everyone_detects_a_colony_and_its_command_post() -> None:
    """004 L88-90: "The presence of a Command Post (and therefore the location of the colony it
    is on) is detectable by other players": owner, system and hex, to everyone; the landing
    itself only to its player."""
    state = campaign(
        transports("red-T1", "0802"),
        submitted=(
            orders("red", landings=(Landing(unit="red-T1", planet="Delta/1", colonists=2),)),
        ),
    )
    landed, detected = decide_landings(state, MAP)
    assert isinstance(landed.event, ColonistsLanded)
    assert landed.audience == Audience.players_(["red"])
    assert detected.event == ColonyDetected(owner="red", system="Delta", hex="0802")
    assert detected.audience == Audience.everyone()


def test_L90_the_initial_command_post_is_just_off_the_map_from_the_entry_hex() -> None:
    """004 L90: "all players have an initial Command Post just off the map from the entry
    hex"; with no colony, range is counted from it."""
    post = MAP.initial_command_post("1")
    assert post == Hex(-1, 0)
    assert not MAP.contains(post)
    assert post.distance(MAP.entry("1").hex) == 1
    assert MAP.player_command_posts("1") == [post]
    assert command_post_hexes(campaign(), "red") == []


# ---------------------------------------------------------------- 5.2 exploration


def explore(*units: Unit, faces: list[int], **kw: Any) -> list[NewEvent]:
    return decide_exploration(campaign(*units, **kw), MAP, ScriptedDice(faces))


def report(*units: Unit, faces: list[int], **kw: Any) -> SystemExplored:
    event = explore(*units, faces=faces, **kw)[0].event
    assert isinstance(event, SystemExplored)
    return event


@pytest.mark.parametrize(("face", "lost"), [(1, True), (2, False), (6, False)])
def test_L94_a_scout_troop_is_lost_on_a_1(face: int, lost: bool) -> None:
    """004 L93-94: one die per Scout Troop; "On a '1', Scout Troops ... are destroyed"."""
    ev = report(scouts("red-S1"), faces=[face])
    assert [r.value for r in ev.rolls] == [face]
    assert ev.losses == ((Loss(unit="red-S1", count=9),) if lost else ())
    assert ev.explored is not lost


@pytest.mark.parametrize(("face", "lost"), [(1, True), (2, True), (3, False)])
def test_L95_a_warship_is_lost_on_a_1_or_2(face: int, lost: bool) -> None:
    """004 L95: "On a '1 - 2', Warships ... are destroyed"."""
    ev = report(warship("red-W1"), faces=[face])
    assert ev.losses == ((Loss(unit="red-W1", count=1),) if lost else ())
    assert ev.explored is not lost


def test_L93_95_each_colony_transport_rolls_and_is_lost_on_a_1_or_2() -> None:
    """004 L93-95: "roll a dice for each ship"; Colony Transports are lost on 1-2."""
    ev = report(transports("red-T1", count=4), faces=[3, 2, 1, 6])
    assert [r.value for r in ev.rolls] == [3, 2, 1, 6]
    assert ev.losses == (Loss(unit="red-T1", count=2),)
    assert ev.explored


def test_L96_97_an_explored_system_is_safe_for_that_player_forever() -> None:
    """004 L96-97: "Once a system has been explored, that player will not encounter further
    hazards on subsequent visits": red rolls no more at Alpha; blue, arriving, still rolls."""
    state = campaign(scouts("red-S1"))
    (new,) = decide_exploration(state, MAP, ScriptedDice([6]))
    state = evolve(state, new.event)
    assert state.empires["red"].explored == ("Alpha",)
    state = msgspec.structs.replace(
        state, units={**state.units, "red-W1": warship("red-W1"), "blue-W1": warship("blue-W1")}
    )
    (blue,) = decide_exploration(state, MAP, ScriptedDice([4]))
    assert isinstance(blue.event, SystemExplored)
    assert (blue.event.player, len(blue.event.rolls)) == ("blue", 1)


def test_L97_99_a_troop_of_more_than_one_scout_rolls_first_and_covers_the_rest() -> None:
    """004 L97-99: accompanied "by a scout troop (of more than 1 Scout), then the scout troop
    rolls first. If the scout troop survives ... the accompanying ships do not need to roll".
    Two scouts are enough; the troop of two rolls before a lone scout listed ahead of it."""
    ev = report(
        scouts("red-S1", count=1),
        scouts("red-S2", count=2),
        transports("red-T1"),
        warship("red-W1"),
        faces=[2],
    )
    assert ([r.value for r in ev.rolls], ev.losses, ev.explored) == ([2], (), True)
    assert ev.rolls[0].key.endswith(".red-S2/0")


def test_L97_99_a_troop_that_is_lost_covers_nobody() -> None:
    """004 L98: only "If the scout troop survives" are the others spared their rolls."""
    ev = report(warship("red-W1"), scouts("red-S1"), faces=[1, 3])
    assert [r.value for r in ev.rolls] == [1, 3]
    assert (ev.losses, ev.explored) == ((Loss(unit="red-S1", count=9),), True)


def test_L97_a_troop_of_one_scout_covers_nobody() -> None:
    """004 L97: "(of more than 1 Scout)": a lone scout survives, the warship still rolls."""
    ev = report(warship("red-W1"), scouts("red-S1", count=1), faces=[6, 2])
    assert [r.value for r in ev.rolls] == [6, 2]
    assert (ev.losses, ev.explored) == ((Loss(unit="red-W1", count=1),), True)


def test_L100_no_report_unless_a_ship_survives() -> None:
    """004 L100: the report comes "provided the player retains at least one ship in the
    system": every ship lost, nothing is learnt and the system stays unexplored."""
    blue = Empire(player="blue", entry="2", explored=("Alpha",))
    ev = report(
        warship("red-W1"), warship("blue-W1"), faces=[2], colonies=(colony(),), empires=(blue,)
    )
    assert (ev.explored, ev.planets, ev.enemy_colonies, ev.enemy_ships) == (False, (), (), ())
    ev = report(
        warship("red-W1"), warship("blue-W1"), faces=[3], colonies=(colony(),), empires=(blue,)
    )
    assert (ev.explored, len(ev.planets), ev.enemy_colonies) == (True, 4, ("blue: Alpha/1",))
    assert ev.enemy_ships == (ShipCount(owner="blue", cruisers=1),)


def test_L101_the_report_gives_the_planets_and_their_types() -> None:
    """004 L100-101: "a report on the system indicating whether there are planets (and their
    planet types)"."""
    ev = report(scouts("red-S1"), faces=[6])
    assert ev.planets == (
        PlanetReport(orbit=1, type="terran", capacity=60, mineral_rich=True),
        PlanetReport(orbit=2, type="sub-terran", capacity=20),
        PlanetReport(orbit=3, type="minimal-terran", capacity=5),
        PlanetReport(orbit=4, type="barren", capacity=5),
    )


def test_L102_the_report_gives_enemy_colonies() -> None:
    """004 L102: "enemy colonies": blue's, not red's own."""
    mine = colony("Alpha/2", owner="red", planet_type="sub-terran", capacity=20)
    ev = report(scouts("red-S1"), faces=[6], colonies=(colony(), mine))
    assert ev.enemy_colonies == ("blue: Alpha/1",)


def test_L102_103_enemy_ships_are_counted_per_class_only() -> None:
    """004 L102-103: "Initial reports on ships will only indicate numbers in each class
    (Escorts, Cruisers, Capital Ships)": no ids, designs, points or captains."""
    enemy = (
        warship("blue-W1", hull_class="escort", design="frigate"),
        warship("blue-W2", hull_class="escort", design="destroyer"),
        warship("blue-W3", hull_class="cruiser", design="heavy_cruiser"),
        warship("blue-W4", hull_class="capital", design="battledreadnought"),
    )
    blue = Empire(player="blue", entry="2", explored=("Alpha",))
    ev = report(scouts("red-S1"), *enemy, faces=[4], empires=(blue,))
    assert ev.enemy_ships == (ShipCount(owner="blue", escorts=2, cruisers=1, capitals=1),)
    text = msgspec.json.encode(ev).decode()
    for secret in ("blue-W", "frigate", "destroyer", "heavy_cruiser", "battledreadnought"):
        assert secret not in text
    assert set(msgspec.structs.asdict(ev.enemy_ships[0])) == {
        "owner",
        "escorts",
        "cruisers",
        "capitals",
        "scouts",
        "transports",
    }


def test_L104_colony_owners_learn_that_enemy_ships_scouted_their_system() -> None:
    """004 L104: "The owner of any colonies in a system will receive a report that enemy ships
    have scouted the system": blue is told, not by whom; red, exploring, is not told of his
    own colony."""
    mine = colony("Alpha/2", owner="red", planet_type="sub-terran", capacity=20)
    explored, notice = explore(scouts("red-S1"), faces=[6], colonies=(colony(), mine))
    assert explored.audience == Audience.players_(["red"])
    assert notice.event == SystemScouted(system="Alpha", turn=TURN)
    assert notice.audience == Audience.players_(["blue"])


@pytest.mark.parametrize(("face", "told"), [(1, False), (2, True)])
def test_L104_no_notice_unless_an_explorer_survives(face: int, told: bool) -> None:
    """004 L104 (ruling, docs/rulings.md "Enemy ships have scouted the system"): the owner is
    told his system was scouted only when the explorer's own report comes (L100: "provided the
    player retains at least one ship"): a troop lost on a 1 scouted nothing."""
    events = explore(scouts("red-S1"), faces=[face], colonies=(colony(),))
    assert [type(new.event) for new in events] == (
        [SystemExplored, SystemScouted] if told else [SystemExplored]
    )


def test_L205_206_defences_stay_hidden_until_an_attack() -> None:
    """004 L205-206: "Only once he has decided to attack a colony does the owning playing
    reveal if there are any planetary defences": neither the report nor the detection of a
    colony says what defends it."""
    fortress = colony(pdus=3, advanced_pdbs=1, shield=True)
    ev = report(scouts("red-S1"), faces=[6], colonies=(fortress,))
    assert ev.enemy_colonies == ("blue: Alpha/1",)
    seen = msgspec.json.encode(ev).decode()
    assert not any(word in seen for word in ("pdu", "apdb", "shield"))
    assert set(msgspec.structs.asdict(ColonyDetected(owner="b", system="s", hex="h"))) == {
        "owner",
        "system",
        "hex",
    }


# ---------------------------------------------------------------- 5.3 combat


def battles(*units: Unit, faces: tuple[int, ...] = (), **kw: Any) -> list[Battle]:
    found, _ = find_battles(campaign(*units, **kw), MAP, ScriptedDice(faces))
    return found


@pytest.mark.parametrize(
    ("intruder", "defender", "expected"),
    [
        ("engage", "engage", ("even", None)),
        ("engage", "stand-off", ("even", None)),
        ("engage", "ftl-move", ("pursuit", "blue")),
        ("stand-off", "engage", ("even", None)),
        ("stand-off", "stand-off", None),
        ("stand-off", "ftl-move", None),
        ("ftl-move", "engage", ("pursuit", "red")),
        ("ftl-move", "stand-off", None),
        ("ftl-move", "ftl-move", None),
    ],
)
def test_L117_122_the_order_matrix(
    intruder: CombatOrder, defender: CombatOrder, expected: tuple[str, str | None] | None
) -> None:
    """004 L115-122: intruder (red) and defender (blue) orders decide the engagement."""
    found = battles(
        warship("red-W1", order=intruder), warship("blue-W1", order=defender), faces=(6, 1)
    )
    assert [(b.type, b.pursued) for b in found] == ([expected] if expected else [])


def test_L125_131_engage_battles_first_then_stand_off_then_ftl_move() -> None:
    """004 L125-131: "Engage: All ships with 'Engage' orders fight first", then Engage against
    Stand Off, then Engage against FTL Move, whatever the hexes' order on the map."""
    found = battles(
        warship("red-W1", ALPHA, "engage"),
        warship("blue-W1", ALPHA, "ftl-move"),
        warship("red-W2", "0302", "engage"),
        warship("blue-W2", "0302", "stand-off"),
        warship("red-W3", "0802", "engage"),
        warship("blue-W3", "0802", "engage"),
        faces=(6, 1),
    )
    assert [(b.id, b.hex, b.type, tuple(s.order for s in b.sides)) for b in found] == [
        ("t3-b1", "0802", "even", ("engage", "engage")),
        ("t3-b2", "0302", "even", ("stand-off", "engage")),
        ("t3-b3", ALPHA, "pursuit", ("ftl-move", "engage")),
    ]


PREFERENCES = (
    orders("red", battle_locations=("gas-giant",)),
    orders("blue", battle_locations=("dense-world",)),
)


def test_L126_127_the_system_owner_chooses_where_engage_meets_engage() -> None:
    """004 L126-127: "The owner of the system chooses the location of the battle" (no dice)."""
    (battle,) = battles(
        warship("red-W1", order="engage"),
        warship("blue-W1", order="engage"),
        colonies=(colony(owner="red"),),
        submitted=PREFERENCES,
    )
    assert (battle.chosen_by, battle.location) == ("red", "gas-giant")


@pytest.mark.parametrize(
    ("faces", "winner", "location"),
    [((3, 3, 1, 6), "red", "gas-giant"), ((5, 4), "blue", "dense-world")],
)
def test_L127_otherwise_the_initiative_winner_chooses(
    faces: tuple[int, ...], winner: str, location: Location
) -> None:
    """004 L127: "Otherwise, roll Initiative and the winner chooses the battle location"
    (blue rolls first, by name; a tie rolls again)."""
    found, rolls = find_battles(
        campaign(
            warship("red-W1", order="engage"),
            warship("blue-W1", order="engage"),
            submitted=PREFERENCES,
        ),
        MAP,
        ScriptedDice(faces),
    )
    assert [(b.chosen_by, b.location) for b in found] == [(winner, location)]
    assert tuple(r.value for r in rolls) == faces


def test_L128_129_the_standing_off_force_chooses() -> None:
    """004 L128-129: against Engage, "The 'Standing Off' force chooses the location", even in a
    system the engaging player owns."""
    (battle,) = battles(
        warship("red-W1", order="engage"),
        warship("blue-W1", order="stand-off"),
        colonies=(colony(owner="red"),),
        submitted=PREFERENCES,
    )
    assert (battle.chosen_by, battle.location) == ("blue", "dense-world")


def test_L130_131_ftl_movers_fight_in_free_space() -> None:
    """004 L130-131: "FTL movers must be in Free Space": nobody chooses."""
    (battle,) = battles(
        warship("red-W1", order="engage"),
        warship("blue-W1", order="ftl-move"),
        colonies=(colony(owner="red"),),
        submitted=PREFERENCES,
    )
    assert (battle.chosen_by, battle.location) == (None, "free-space")


@pytest.mark.parametrize(
    ("wanted", "location"),
    [
        (("asteroid-field", "dense-world"), "dense-world"),
        (("asteroid-field",), "free-space"),
        ((), "free-space"),
    ],
)
def test_L123_124_a_battle_is_fought_only_where_the_system_offers(
    wanted: tuple[Location, ...], location: Location
) -> None:
    """004 L123-124: "in Free Space; at a Dense World; at a Gas Giant; in an asteroid field":
    Alpha has a dense world and a gas giant but no asteroids; free space is always there."""
    (battle,) = battles(
        warship("red-W1", order="engage"),
        warship("blue-W1", order="stand-off"),
        submitted=(orders("blue", battle_locations=wanted),),
    )
    assert (battle.chosen_by, battle.location) == ("blue", location)


# ---------------------------------------------------------------- 5.4 attacks on colonies


def attack(
    *units: Unit, target: Colony | None = None, mode: AttackMode = "conquer"
) -> CampaignState:
    target = target or colony()
    return campaign(
        *units,
        colonies=(target,),
        submitted=(orders("red", attacks=(Attack(system="Alpha", mode=mode),)),),
        known_colonies=(("blue", "Alpha"),),
    )


def test_L204_colonies_are_attacked_only_once_enemy_ships_are_gone() -> None:
    """004 L204: "Once all enemy ships have been destroyed or driven from a system, a player
    may attack any enemy colonies present"."""
    held = only(decide_attacks(attack(warship("red-W1"), warship("blue-W1")), MAP))
    assert held == AttackFailed(
        player="red", system="Alpha", reason="enemy warships (blue) remain in the system"
    )
    assert isinstance(only(decide_attacks(attack(warship("red-W1")), MAP)), ColonyConquered)


def test_L206_a_colony_without_defences_surrenders_at_once() -> None:
    """004 L206: "If there are no planetary defences, then the colony surrenders immediately";
    one PDU brings a battle instead."""
    surrendered = only(decide_attacks(attack(warship("red-W1")), MAP))
    assert isinstance(surrendered, ColonyConquered)
    assert (surrendered.colony.owner, surrendered.colony.conquered_from) == ("red", "blue")
    assert (surrendered.colony.conquered_turn, surrendered.previous_owner) == (TURN, "blue")
    defended = only(decide_attacks(attack(warship("red-W1"), target=colony(pdus=1)), MAP))
    assert isinstance(defended, BattleRequested)


@pytest.mark.parametrize(("attacker_fate", "conquered"), [("survived", True), ("destroyed", False)])
def test_L207_208_every_defence_must_fall_while_a_warship_remains(
    attacker_fate: ShipFate, conquered: bool
) -> None:
    """004 L207-208: "the attacker must engage and destroy them all, while retaining at least
    one warship in the system, before he can conquer the colony"."""
    state = attack(warship("red-W1"), target=colony(pdus=1))
    requested = only(decide_attacks(state, MAP))
    state = evolve(state, requested)
    fought = BattleFought(
        battle=requested.battle,
        results=(
            ShipResult(unit="red-W1", fate=attacker_fate),
            ShipResult(unit="Alpha/1#pdu-1", fate="destroyed"),
        ),
        source="umpire",
    )
    conquests = decide_conquests(evolve(state, fought))
    assert [type(new.event) for new in conquests] == ([ColonyConquered] if conquered else [])


def test_L299_304_a_pdu_is_a_battledreadnought_and_an_advanced_pdu_two_superdreadnoughts() -> None:
    """004 L299-300 (a PDU is "Equivalent to a Battledreadnought") and L302-304 (an advanced
    PDU to "two SuperDreadnoughts"), as 5.4's assault battle fields them."""
    assert DEFENCE_DESIGNS == {"pdu": "battledreadnought", "apdb": "superdreadnought"}
    requested = only(
        decide_attacks(attack(warship("red-W1"), target=colony(pdus=2, advanced_pdbs=1)), MAP)
    )
    assert isinstance(requested, BattleRequested)
    attacker, defender = requested.battle.sides
    assert (attacker.player, attacker.units) == ("red", ("red-W1",))
    assert (defender.player, defender.units) == (
        "blue",
        ("Alpha/1#pdu-1", "Alpha/1#pdu-2", "Alpha/1#apdb-1", "Alpha/1#apdb-2"),
    )


def bombard(points: tuple[int, ...], population: int = 12) -> ColonyBombarded:
    fleet = [warship(f"red-W{i}", points=p) for i, p in enumerate(points, start=1)]
    event = only(
        decide_attacks(attack(*fleet, target=colony(population=population), mode="bombard"), MAP)
    )
    assert isinstance(event, ColonyBombarded)
    return event


@pytest.mark.parametrize(
    ("points", "killed"),
    [((249,), 0), ((250,), 1), ((499,), 1), ((500,), 2), ((125, 125), 1)],
)
def test_L220_221_250_points_of_ships_destroy_1_million_a_turn(
    points: tuple[int, ...], killed: int
) -> None:
    """004 L220-221: "250 points of ships will destroy 1 million population per turn"."""
    ev = bombard(points)
    assert (ev.killed, ev.population, ev.devastated) == (killed, 12 - killed, False)


def test_L221_a_dedicated_ortillery_vessel_counts_triple() -> None:
    """004 L221: "Dedicated ortillery vessels count as three times their points value for such
    assaults": 84 points kill nobody, 84 points of ortillery (252) 1 million, and the catalogue's
    Ortillery Monitor (214 points, 642) 2 million."""
    assert bombard((84,)).killed == 0
    gunner = warship("red-W1", points=84, ortillery=True)
    bombarded = only(decide_attacks(attack(gunner, mode="bombard"), MAP))
    assert isinstance(bombarded, ColonyBombarded)
    assert bombarded.killed == 1
    monitor = catalogue_ship("ortillery_monitor")
    assert (monitor.ortillery, monitor.points, monitor.hull_class) == (True, 214, "cruiser")
    built = warship("red-W1", design=monitor.design, points=monitor.points, ortillery=True)
    bombarded = only(decide_attacks(attack(built, mode="bombard"), MAP))
    assert isinstance(bombarded, ColonyBombarded)
    assert bombarded.killed == 2


def test_L221_the_catalogue_has_a_dedicated_ortillery_vessel_and_units_keep_the_mark() -> None:
    """004 L221: a design is "dedicated" by its `ortillery` flag (docs/rulings.md,
    Bombardment), and a warship of that design carries it from the catalogue."""
    assert [name for name, ship in builtin_ships("ft2") if ship.ortillery] == ["ortillery_monitor"]
    fleet = [catalogue_ship("ortillery_monitor"), catalogue_ship("frigate")]
    founded = decide_found_empires(("red",), ("1",), {"red": fleet}, ScriptedDice([2, 2]))[0].event
    assert isinstance(founded, EmpireFounded)
    assert [(u.design, u.ortillery) for u in founded.units if u.kind == "warship"] == [
        ("ortillery_monitor", True),
        ("frigate", False),
    ]


@pytest.mark.parametrize(
    ("population", "points", "left", "devastated"),
    [(10, 2500, 0, True), (9, 2500, 0, False), (12, 2500, 2, False)],
)
def test_L221_222_wiping_out_10_million_or_more_devastates(
    population: int, points: int, left: int, devastated: bool
) -> None:
    """004 L221-222: "If a population of at least 10 million is completely destroyed, then the
    planet is deemed devastated"."""
    ev = bombard((points,), population)
    assert (ev.population, ev.devastated) == (left, devastated)


def test_L222_223_a_devastated_planet_is_never_resettled_nor_scored() -> None:
    """004 L222-223: devastated, it "may not be resettled. It will also not count towards
    final Victory Points" (red's warship there would otherwise hold it, L17)."""
    state = attack(warship("red-W1", points=2500), target=colony(population=10), mode="bombard")
    state = evolve(state, only(decide_attacks(state, MAP)))
    assert (state.devastated, state.colonies) == (("Alpha/1",), {})
    landing = Landing(unit="red-T1", planet="Alpha/1", colonists=1)
    state = msgspec.structs.replace(
        state,
        units={**state.units, "red-T1": transports("red-T1")},
        empires={**state.empires, "red": red_at_speed(2, explored=("Alpha",))},
    )
    assert check_landings(state, MAP, "red", (landing,), {"red-T1": ALPHA}) == [
        "red-T1 to Alpha/1: the planet is devastated and may not be resettled (004 5.4)"
    ]
    assert [(s.player, s.planets) for s in scores(state, MAP)] == [
        ("red", ("Alpha/2",)),
        ("blue", ()),
    ]


@pytest.mark.parametrize("mode", ["conquer", "bombard"])
def test_L224_a_planet_shield_blocks_every_attack(mode: AttackMode) -> None:
    """004 L224: "Colonies protected by Planetary Shields may not be attacked at all"."""
    state = attack(warship("red-W1", points=2500), target=colony(shield=True), mode=mode)
    (failed,) = decide_attacks(state, MAP)
    assert failed.event == AttackFailed(
        player="red", system="Alpha", reason="Alpha/1 is under a planet shield"
    )
    assert failed.audience == Audience.players_(["blue", "red"])


# ---------------------------------------------------------------- 5.5 landings


def landing_problems(
    planet: str,
    colonists: int = 3,
    *,
    cet_owned: bool = False,
    cet_built: bool = False,
    colonies: tuple[Colony, ...] = (),
) -> list[str]:
    techs: tuple[TechName, ...] = ("cet",) if cet_owned else ()
    state = campaign(
        transports("red-T1", count=10, cet=cet_built),
        colonies=colonies,
        empires=(Empire(player="red", entry="1", explored=("Alpha",), techs=techs),),
    )
    landing = Landing(unit="red-T1", planet=planet, colonists=colonists)
    return check_landings(state, MAP, "red", (landing,), {"red-T1": ALPHA})


def test_L226_colonists_land_on_an_uninhabited_planet() -> None:
    """004 L226: "Colonists may be landed on uninhabited planets"."""
    assert landing_problems("Alpha/1") == []
    state = campaign(
        transports("red-T1"),
        submitted=(
            orders("red", landings=(Landing(unit="red-T1", planet="Alpha/1", colonists=3),)),
        ),
    )
    landed = decide_landings(state, MAP)[0].event
    assert isinstance(landed, ColonistsLanded)
    assert (landed.colony.owner, landed.colony.population, landed.colonists) == ("red", 3, 3)


def test_L226_or_on_a_planet_with_his_own_population() -> None:
    """004 L226: "or on planets with an existing population"."""
    mine = colony(owner="red")
    assert landing_problems("Alpha/1", colonies=(mine,)) == []
    state = campaign(
        transports("red-T1"),
        colonies=(mine,),
        submitted=(
            orders("red", landings=(Landing(unit="red-T1", planet="Alpha/1", colonists=3),)),
        ),
    )
    landed = decide_landings(state, MAP)[0].event
    assert isinstance(landed, ColonistsLanded)
    assert landed.colony.population == 15


@pytest.mark.parametrize(
    "held", [colony(owner="red", conquered_from="blue", conquered_turn=1), colony(owner="blue")]
)
def test_L226_227_not_on_a_conquered_or_enemy_planet(held: Colony) -> None:
    """004 L226-227: "though not on conquered planets unless the original population has been
    moved or eliminated"; nor on an enemy's (5.5 lands "onto friendly planets")."""
    assert landing_problems("Alpha/1", colonies=(held,)) == [
        "red-T1 to Alpha/1: the planet holds a colony that is not red's own free one"
    ]


@pytest.mark.parametrize(("colonists", "fits"), [(3, True), (4, False)])
def test_L247_a_landing_never_exceeds_the_planets_capacity(colonists: int, fits: bool) -> None:
    """004 L247: "A colony's population can never exceed its host planet's capacity": 57
    million on a 60 million terran take 3 more, not 4."""
    mine = colony(owner="red", population=57)
    problems = landing_problems("Alpha/1", colonists, colonies=(mine,))
    assert problems == (
        []
        if fits
        else ["red-T1 to Alpha/1: 61 million would exceed the planet's capacity of 60 million"]
    )


BARREN_REFUSED = [
    "red-T1 to Alpha/4: barren planets need Controlled Environment Technology and transports "
    "built with it (004 5.5)"
]


@pytest.mark.parametrize(
    ("planet", "cet_owned", "cet_built", "expected"),
    [
        ("Alpha/3", False, False, []),  # minimal-terran: no C.E.T. needed
        ("Alpha/4", False, False, BARREN_REFUSED),  # L228-229
        ("Alpha/4", True, False, BARREN_REFUSED),  # L229-230: built before C.E.T.
        ("Alpha/4", True, True, []),
    ],
)
def test_L228_230_barren_planets_need_cet_and_transports_built_with_it(
    planet: str, cet_owned: bool, cet_built: bool, expected: list[str]
) -> None:
    """004 L228-230: "Colonies cannot be established on Barren Planets until the player has
    developed Controlled Environment Technology (C.E.T.). Even so, only Colony Transports
    built at the same time or subsequent to the acquisition of C.E.T. ... be able to"."""
    assert landing_problems(planet, 2, cet_owned=cet_owned, cet_built=cet_built) == expected


# ---------------------------------------------------------------- 1 victory


def tally(
    *units: Unit, colonies: tuple[Colony, ...] = ()
) -> dict[str, tuple[int, tuple[str, ...]]]:
    return {
        s.player: (s.points, s.planets) for s in scores(campaign(*units, colonies=colonies), MAP)
    }


def test_L12_the_campaign_is_tallied_at_turn_44() -> None:
    """004 L12: "At turn 44, players tally the number of planets they control"."""
    assert CreateCampaign(name="g", players=("red",), seed="s").max_turns == 44
    assert CampaignState().max_turns == 44


def test_L12_13_3_points_per_terran_and_1_per_sub_terran_planet() -> None:
    """004 L12-13: "3 points per Terran planet and 1 point per Sub-Terran planet"; minimal
    terran and barren planets score nothing."""
    mine = (
        colony("Alpha/1", owner="red"),
        colony("Alpha/2", owner="red", planet_type="sub-terran", capacity=20),
        colony("Alpha/3", owner="red", planet_type="minimal-terran", capacity=5),
        colony("Alpha/4", owner="red", planet_type="barren", capacity=5),
    )
    assert tally(colonies=mine) == {"red": (4, ("Alpha/1", "Alpha/2")), "blue": (0, ())}


def test_L15_a_colony_holds_its_planet_even_with_enemy_ships_there() -> None:
    """004 L15: "Have a colony on the planet (even if there are enemy ships in the system)"."""
    held = tally(warship("blue-W1"), colonies=(colony(owner="red"),))
    assert held == {"red": (3, ("Alpha/1",)), "blue": (1, ("Alpha/2",))}


@pytest.mark.parametrize(
    ("garrison", "expected"),
    [
        (
            (warship("red-W1", hull_class="escort", design="destroyer", mass=14),),
            (4, ("Alpha/1", "Alpha/2")),
        ),
        # An escort, but no destroyer: mass 10 (docs/rulings.md, Garrisons: mass 14 or more).
        ((warship("red-W1", hull_class="escort", design="frigate", mass=10),), (1, ("Alpha/2",))),
        ((), (1, ("Alpha/2",))),  # L18-19 still gives red the empty sub-terran
    ],
)
def test_L16_a_conquered_colony_needs_a_garrison_of_a_destroyer_or_larger(
    garrison: tuple[Unit, ...], expected: tuple[int, tuple[str, ...]]
) -> None:
    """004 L16: "Have conquered an enemy colony and maintained an orbital garrison of at least
    one destroyer or larger"."""
    taken = colony(owner="red", conquered_from="blue", conquered_turn=1)
    assert tally(*garrison, colonies=(taken,))["red"] == expected


def test_L17_warships_hold_the_uncolonised_planets_of_their_system() -> None:
    """004 L17: "The planet is uncolonised but the player has warships in the system"."""
    assert tally(warship("red-W1")) == {"red": (4, ("Alpha/1", "Alpha/2")), "blue": (0, ())}
    assert tally(scouts("red-S1"), transports("red-T1")) == {"red": (0, ()), "blue": (0, ())}


@pytest.mark.parametrize(
    ("enemy", "expected"),
    [
        ((), {"red": (4, ("Alpha/1", "Alpha/2")), "blue": (0, ())}),
        ((warship("blue-W1"),), {"blue": (4, ("Alpha/1", "Alpha/2")), "red": (0, ())}),
    ],
)
def test_L18_19_another_colony_holds_them_while_no_enemy_warship_is_there(
    enemy: tuple[Unit, ...], expected: dict[str, tuple[int, tuple[str, ...]]]
) -> None:
    """004 L18-19: "uncolonised but the player has another colony in the system and there are
    no enemy warships in the system" (red's colony is on the minimal-terran, worth 0)."""
    outpost = colony("Alpha/3", owner="red", planet_type="minimal-terran", capacity=5)
    assert tally(*enemy, colonies=(outpost,)) == expected


def tally_under(
    setting: str, *units: Unit, colonies: tuple[Colony, ...] = ()
) -> dict[str, tuple[int, tuple[str, ...]]]:
    state = campaign(*units, colonies=colonies, contested_planets=setting)
    return {s.player: (s.points, s.planets) for s in scores(state, MAP)}


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("nobody", {"blue": (0, ()), "red": (0, ())}),
        ("shared", {"blue": (4, ("Alpha/1", "Alpha/2")), "red": (4, ("Alpha/1", "Alpha/2"))}),
    ],
)
def test_L17_two_fleets_contest_the_uncolonised_planets(
    setting: str, expected: dict[str, tuple[int, tuple[str, ...]]]
) -> None:
    """004 L17, read literally, gives each player with warships there the planet. Setting
    `contested_planets` (docs/rulings.md, "Campaign: victory"): nobody holds it (default),
    or each scores it."""
    assert tally_under(setting, warship("red-W1"), warship("blue-W1")) == expected


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("nobody", {"blue": (0, ()), "red": (0, ())}),
        ("shared", {"blue": (4, ("Alpha/1", "Alpha/2")), "red": (4, ("Alpha/1", "Alpha/2"))}),
    ],
)
def test_L18_19_two_players_colonies_without_warships_contest_the_planets(
    setting: str, expected: dict[str, tuple[int, tuple[str, ...]]]
) -> None:
    """004 L18-19 gives each player with "another colony in the system" and no enemy warships
    there the planet: red and blue each have a worthless outpost at Alpha."""
    outposts = (
        colony("Alpha/3", owner="red", planet_type="minimal-terran", capacity=5),
        colony("Alpha/4", owner="blue", planet_type="barren", capacity=5),
    )
    assert tally_under(setting, colonies=outposts) == expected


def test_L17_19_a_fleet_beats_an_enemy_colony_under_either_setting() -> None:
    """004 L17 and L18-19 together: red's warships hold the empty planets; blue's colony does
    not, as enemy warships are there. Nothing is contested, so the setting changes nothing."""
    outpost = colony("Alpha/3", owner="blue", planet_type="minimal-terran", capacity=5)
    for setting in ("nobody", "shared"):
        assert tally_under(setting, warship("red-W1"), colonies=(outpost,)) == {
            "red": (4, ("Alpha/1", "Alpha/2")),
            "blue": (0, ()),
        }


def test_the_contested_planets_setting_is_checked_and_recorded() -> None:
    """`umpire new --contested-planets`: only the two readings; the choice is in the public
    `campaign_created` event, so every player's view scores alike."""
    with pytest.raises(InvalidInputError, match="must be one of nobody, shared"):
        decide_create(CreateCampaign(name="g", players=("red",), seed="s", contested_planets="x"))
    (created,) = decide_create(
        CreateCampaign(name="g", players=("red",), seed="s", contested_planets="shared")
    )
    assert created.audience == Audience.everyone()
    assert evolve(CampaignState(), created.event).contested_planets == "shared"
    assert CampaignState().contested_planets == "nobody"


# ---------------------------------------------------------------- 5.3.6 repair (core systems)


def test_L192_196_core_damage_is_carried_out_of_battle_and_into_the_next() -> None:
    """004 L192-196: "Damage to Hull, Armour and Core Systems may not be repaired 'in the
    field'": the core systems a ship leaves a battle with stay out, this turn and later ones,
    and the next battle gets them in its record state; an outcome entered by hand (`core`
    left out) keeps them."""
    battle = Battle(
        id="t3-b1",
        hex=ALPHA,
        system="Alpha",
        type="even",
        sides=(
            BattleSide(player="red", order="engage", units=("red-W1",)),
            BattleSide(player="blue", order="engage", units=("blue-W1",)),
        ),
    )
    state = campaign(warship("red-W1", "0102", "engage"), warship("blue-W1", "0102", "engage"))
    hit = CoreDamage(out_of_control=2, power_core=True)
    fought = BattleFought(
        battle=battle,
        results=(ShipResult(unit="red-W1", core=hit), ShipResult(unit="blue-W1")),
        source="engine",
    )
    after = evolve(state, fought)
    assert after.units["red-W1"].core == hit
    assert after.units["blue-W1"].core is None
    by_hand = BattleFought(battle=battle, results=(ShipResult(unit="red-W1"),), source="umpire")
    assert evolve(after, by_hand).units["red-W1"].core == hit
    later = msgspec.structs.replace(after, turn=TURN + 1)
    (red, _blue) = request_for(later, battle).sides
    carried = red.ships[0].state
    assert carried is not None
    assert (carried.out_of_control, carried.power_core, carried.life_support) == (2, "damaged", 0)
    assert sum(carried.hull_lost) == 0  # no hull damage: only the core is carried


@pytest.mark.parametrize(
    ("held", "repaired"),
    [
        (colony(owner="red"), True),
        (colony(owner="red", conquered_from="blue", conquered_turn=TURN), False),
        (colony(owner="red", conquered_from="blue", conquered_turn=TURN - 1), True),
        (colony(owner="blue"), False),
    ],
)
def test_L194_196_core_damage_is_repaired_at_a_friendly_colony_not_one_conquered_this_turn(
    held: Colony, repaired: bool
) -> None:
    """004 L194-196: core damage "requires the damaged ship to return to a colony world
    controlled by that player ... may not be repaired at a conquered world in the turn it is
    conquered"; a ship whose only damage is to its core is repaired too."""
    hurt = warship("red-W1", core=CoreDamage(life_support=3))
    state = campaign(hurt, colonies=(held,))
    events = decide_repairs(state)
    assert [type(e.event) for e in events] == ([ShipsRepaired] if repaired else [])
    if repaired:
        assert evolve(state, events[0].event).units["red-W1"].core is None


# ---------------------------------------------------------------- 6 captains: death and injury


def test_L361_370_a_captain_whose_bridge_failed_is_injured_and_a_stand_in_commands() -> None:
    """004 L361-370: a level 1 captain (+2) on a bridge failing a level 3 check (-2) rolls 2:
    injured for 3 campaign turns. Ruling: a level 2 stand-in commands his ship (in battle and
    for its plot horizon) for this turn and 3 more."""
    state = campaign(warship("red-W1", "0102", "engage"))
    failed = ShipResult(unit="red-W1", bridge_failures=(3,))
    event = only(decide_officer_casualties(state, "t3-b1", (failed,), ScriptedDice([2])))
    assert isinstance(event, CaptainCasualty)
    assert (event.unit, event.result, event.turns_out, event.new_captain) == (
        "red-W1",
        "injured",
        3,
        None,
    )
    assert [r.key for r in event.rolls] == ["3/casualty/t3-b1.red-W1.bridge1/0"]
    ship = evolve(state, event).units["red-W1"]
    assert [ship.captain_at(t) for t in range(TURN, TURN + 5)] == [2, 2, 2, 2, 1]
    later = campaign(ship)
    assert horizon(later, ship) == 2  # the stand-in's, not the level 1 captain's 1


def test_L361_370_a_dead_captains_successor_is_diced_for_at_once() -> None:
    """004 L361-370: a level 3 captain (+0) on a level 2 check (-1) rolling 1 is dead; his
    successor is diced for at once on the captains' table (004 L322-327): 6, level 3."""
    state = campaign(warship("red-W1", "0102", "engage", captain=3))
    failed = ShipResult(unit="red-W1", fate="disengaged", bridge_failures=(2,))
    event = only(decide_officer_casualties(state, "t3-b1", (failed,), ScriptedDice([1, 6])))
    assert isinstance(event, CaptainCasualty)
    assert (event.result, event.new_captain) == ("dead", 3)
    assert [r.key for r in event.rolls] == [
        "3/casualty/t3-b1.red-W1.bridge1/0",
        "3/casualty/t3-b1.red-W1.successor/0",
    ]
    assert evolve(state, event).units["red-W1"].captain == 3


def test_L361_no_captain_roll_for_a_destroyed_ship_a_stand_in_or_an_intact_bridge() -> None:
    """Rulings: a destroyed ship's captain leaves the campaign with it whatever the die; a
    stand-in is not rolled for; no bridge failure, no roll."""
    out = warship("red-W2", "0102", "engage", captain_out_until=TURN + 1)
    state = campaign(warship("red-W1", "0102", "engage"), out, warship("red-W3", "0102"))
    results = (
        ShipResult(unit="red-W1", fate="destroyed", bridge_failures=(2,)),
        ShipResult(unit="red-W2", bridge_failures=(3,)),
        ShipResult(unit="red-W3"),
    )
    assert decide_officer_casualties(state, "t3-b1", results, ScriptedDice([])) == []


def test_L345_the_admiral_and_the_flagships_captain_both_roll_and_the_flag_moves_on() -> None:
    """004 L361-370 rolls for "the Captain or Admiral aboard": both, each on his own die. The
    admiral (level 2, +1) dies on 1 + 1 - 4 = -2 when the flagship is destroyed; L345 "command
    is transferred to the senior Captain remaining": the next ship listed, now the flagship."""
    force = TaskForce(id="red-F1", owner="red", units=("red-W1", "red-W2"), admiral=2)
    state = campaign(
        warship("red-W1", "0102", "engage", task_force="red-F1"),
        warship("red-W2", "0102", "engage", task_force="red-F1"),
        task_forces=(force,),
    )
    results = (
        ShipResult(unit="red-W1", fate="destroyed"),
        ShipResult(unit="red-W2", bridge_failures=(2,)),
    )
    events = decide_officer_casualties(state, "t3-b1", results, ScriptedDice([1, 6]))
    admiral, captain = (e.event for e in events)
    assert isinstance(admiral, OfficerCasualty)
    assert (admiral.result, admiral.new_flagship) == ("dead", "red-W2")
    assert isinstance(captain, CaptainCasualty)
    assert (captain.unit, captain.result) == ("red-W2", "unharmed")
    battle = Battle(
        id="t3-b1",
        hex=ALPHA,
        system="Alpha",
        type="even",
        sides=(
            BattleSide(player="red", order="engage", units=("red-W1", "red-W2")),
            BattleSide(player="blue", order="engage", units=()),
        ),
    )
    after = evolve(
        evolve(state, BattleFought(battle=battle, results=results, source="engine")), admiral
    )
    force_after = after.task_forces["red-F1"]
    assert (force_after.units, force_after.admiral) == (("red-W2",), None)


# ---------------------------------------------------------------- 5.4 conquered populations


def conquered_transports(uid: str = "red-T1", count: int = 3) -> Unit:
    return msgspec.structs.replace(transports(uid, count=count), conquered_from="blue")


def test_L217_218_conquered_emigrants_stay_a_conquered_population() -> None:
    """004 L217-218: "Conquered populations ... can be used to establish further colonies":
    the transports built at a conquered colony carry its conquered population."""
    taken = colony(owner="red", conquered_from="blue", conquered_turn=1, population=12)
    state = msgspec.structs.replace(campaign(colonies=(taken,)), turn=8)  # IP again by turn 8
    order = ProductionOrder(colony="Alpha/1", colony_transports=3, emigrants=3)
    (resolved,) = [
        e.event
        for e in decide_production(state, {"red": (order,)}, {}, catalogue_ship, ScriptedDice([]))
        if isinstance(e.event, ProductionResolved) and e.event.player == "red"
    ]
    (built,) = resolved.units
    assert (built.kind, built.count, built.conquered_from) == ("transports", 3, "blue")


def test_L217_219_a_colony_founded_by_a_conquered_population_is_one_too() -> None:
    """004 L217-219: the colony a conquered population founds is a conquered population (it
    does not grow, 004 L218; it needs a garrison, L219 and L16), but was not conquered itself:
    it produces from the first production phase (ruling)."""
    state = campaign(
        conquered_transports(),
        empires=(Empire(player="red", entry="1", explored=("Alpha",)),),
        submitted=(
            orders("red", landings=(Landing(unit="red-T1", planet="Alpha/1", colonists=3),)),
        ),
    )
    landed = only([e for e in decide_landings(state, MAP) if isinstance(e.event, ColonistsLanded)])
    assert (landed.colony.conquered_from, landed.colony.conquered_turn) == ("blue", None)


@pytest.mark.parametrize(
    ("held", "conquered", "accepted"),
    [
        (colony(owner="red"), True, False),  # never mixed with a free population (L216-217)
        (colony(owner="red", conquered_from="blue"), False, False),  # nor the other way round
        (colony(owner="red", conquered_from="blue"), True, True),  # one a conquered pop founded
        (colony(owner="red", conquered_from="blue", conquered_turn=1), True, False),  # L226-227
    ],
)
def test_L216_217_conquered_populations_are_not_mixed_with_free_ones(
    held: Colony, conquered: bool, accepted: bool
) -> None:
    """004 L216-217: "Conquered populations may not be mixed with non-conquered populations"."""
    unit = conquered_transports(count=10) if conquered else transports("red-T1", count=10)
    state = campaign(
        unit, colonies=(held,), empires=(Empire(player="red", entry="1", explored=("Alpha",)),)
    )
    landing = Landing(unit="red-T1", planet="Alpha/1", colonists=3)
    problems = check_landings(state, MAP, "red", (landing,), {"red-T1": ALPHA})
    assert (problems == []) is accepted


@pytest.mark.parametrize(("garrisoned", "points"), [(True, 4), (False, 1)])
def test_L218_219_a_colony_founded_by_a_conquered_population_needs_a_garrison(
    garrisoned: bool, points: int
) -> None:
    """004 L218-219: "At all times a conquering warship must garrison the original colony as
    well as any subsequent colonies"; ruling: as for the conquered colony itself (L16), the
    only consequence 004 gives is that an ungarrisoned one does not count for victory."""
    founded = colony(owner="red", conquered_from="blue")
    garrison = (warship("red-W1", mass=32),) if garrisoned else ()
    assert tally(*garrison, colonies=(founded,))["red"][0] == points


# ---------------------------------------------------------------- issue 12


def test_L86_a_ship_beyond_command_range_may_move_back_toward_it() -> None:
    """004 L86 forbids moving further than 8 hexes from a command post, not moving back: a
    ship stranded 10 hexes out (its post lost, an unplanned jump) moves toward its posts,
    never further out (docs/rulings.md)."""
    post = MAP.initial_command_post("1")
    assert parse_label("1101").distance(post) == 11
    assert plan_one(warship("red-W1", "1101"), "0901") == ("1001", "0901")
    assert causes(refused(warship("red-W1", "1101"), "1301")) == [
        "1301 is 13 hexes from the nearest command post; starships other than scouts stay "
        "within 8 (004 L86)"
    ]


def test_L349_352_a_new_task_force_is_checked_against_the_horizon_any_admiral_allows() -> None:
    """Issue 12, bug 1: a task force formed in the same orders gets its admiral as the turn
    resolves; a destination 2 turns away could lapse under a level-1 or -2 admiral, so it is
    refused at submission, saying why; one reached this turn is accepted, and plotted at
    resolution to the horizon of the admiral rolled."""
    from campaign.rules.orders import OrdersDocument, decide_submit
    from campaign.strategic import TaskForceOrder

    state = campaign(warship("red-W1", "0302"), warship("red-W2", "0302"))
    far = OrdersDocument(
        player="red",
        turn=TURN,
        task_forces=(TaskForceOrder(units=("red-W1", "red-W2")),),
        moves=(Move(unit="red-F1", to="0702"),),
    )
    with pytest.raises(OrdersError) as caught:
        decide_submit(state, state, MAP, "red", far, {}, nonce="00")  # type: ignore[arg-type]
    assert caught.value.problems[0].startswith("red-F1: cannot reach 0702: 0702 is 4 hexes")
    near = msgspec.structs.replace(far, moves=(Move(unit="red-F1", to="0502"),))
    assert decide_submit(state, state, MAP, "red", near, {}, nonce="00")  # type: ignore[arg-type]


def test_L320_327_disbanding_and_re_forming_does_not_re_roll_the_admiral() -> None:
    """Issue 12, bug 11: an admiral stays with his command or waits in the empire's reserve;
    a new task force takes him from there, and only an empty reserve rolls a new one."""
    from campaign.rules.taskforces import decide_task_forces, plan_commands
    from campaign.strategic import TaskForceOrder

    force = TaskForce(id="red-F1", owner="red", units=("red-W1", "red-W2"), admiral=3)
    state = campaign(
        warship("red-W1", "0302", task_force="red-F1"),
        warship("red-W2", "0302", task_force="red-F1"),
        task_forces=(force,),
    )
    reform = (TaskForceOrder(units=("red-W1", "red-W2")), TaskForceOrder(id="red-F1"))
    commands = plan_commands(state, "red", reform)  # the form order first: disbands go first
    assert commands.problems == []
    assert [(tf.id, tf.admiral) for tf in commands.forces] == [("red-F2", 3)]
    assert commands.reserve == ()
    state = msgspec.structs.replace(state, submitted={"red": orders("red", task_forces=reform)})
    (new,) = decide_task_forces(state, ScriptedDice([1]))  # a 1 would be a level-1 admiral
    assert isinstance(new.event, TaskForcesSet)
    assert [(tf.id, tf.admiral) for tf in new.event.task_forces] == [("red-F2", 3)]
    assert new.event.rolls == ()
    after = evolve(state, new.event)
    # Disbanded alone, he waits in the reserve for the next task force.
    alone = (TaskForceOrder(id="red-F2"),)
    state = msgspec.structs.replace(after, submitted={"red": orders("red", task_forces=alone)})
    (new,) = decide_task_forces(state, ScriptedDice([]))
    after = evolve(state, new.event)
    assert after.reserve_admirals == {"red": (Admiral(level=3),)}
    assert after.task_forces == {}


def test_L266_267_research_may_accumulate_by_setting() -> None:
    """Issue 12, bug 10: `umpire new --research-pooling accumulate` (a setting no one could
    set before): IP invested in a technology stay invested between production phases."""
    from campaign.rules.production import ProductionSettings
    from campaign.rules.technology import ResearchOrder

    home = colony(owner="red", population=20)  # 20M on a terran planet: 24 IP after growth
    state = msgspec.structs.replace(
        campaign(colonies=(home,)),
        turn=4,
        production_settings=ProductionSettings(research_pooling="accumulate"),
    )
    order = ProductionOrder(colony="Alpha/1", research=20)
    research = {"red": (ResearchOrder(tech="speed-4", ip=20),)}
    (resolved,) = [
        e.event
        for e in decide_production(
            state, {"red": (order,)}, research, catalogue_ship, ScriptedDice([])
        )
        if isinstance(e.event, ProductionResolved) and e.event.player == "red"
    ]
    assert resolved.problems == ()
    assert resolved.empire.invested == {"speed-4": 20}  # of its 40 IP (004 L288)
    assert resolved.acquired == ()
    later = msgspec.structs.replace(evolve(state, resolved), turn=8)
    research = {"red": (ResearchOrder(tech="speed-4", ip=20),)}
    order = ProductionOrder(colony="Alpha/1", research=20)
    (done,) = [
        e.event
        for e in decide_production(
            later, {"red": (order,)}, research, catalogue_ship, ScriptedDice([])
        )
        if isinstance(e.event, ProductionResolved) and e.event.player == "red"
    ]
    assert (done.acquired, done.empire.invested) == (("speed-4",), {})


def test_L347_352_moves_are_plotted_through_waypoints_within_the_horizon() -> None:
    """004 section 6 (L347-352): a move is plotted as many turns ahead as the commander's
    level; issue 12: by waypoints, not only a destination. A waypoint is a stop: a level 2
    captain (2 turns) stops at 0303 on turn 1 (to explore it, say), then goes on to 0502."""
    state = campaign(warship("red-W1", "0302", captain=2))
    direct = plan_moves(state, MAP, "red", (Move(unit="red-W1", to="0502"),))["red-W1"]
    assert (direct.path, direct.plot) == (("0401", "0502"), ("0502",))
    by = Move(unit="red-W1", to="0502", via=("0303",))
    plan = plan_moves(state, MAP, "red", (by,))["red-W1"]
    assert (plan.path, plan.plot) == (("0303",), ("0502",))
    too_far = Move(unit="red-W1", to="0302", via=("0303", "0401"))
    with pytest.raises(OrdersError) as caught:
        plan_moves(state, MAP, "red", (too_far,))
    assert caught.value.problems[0].startswith(
        "red-W1: cannot reach 0302 by way of 0303, 0401 within 2 turns (its plot horizon); "
        "it can reach"
    )
