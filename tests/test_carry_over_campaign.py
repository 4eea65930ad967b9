"""Repair and replacement between a turn's battles (004 5.3.6, L185-201): a ship fighting again
in the same strategic turn comes in as its last battle left it; from the next turn its
systems and munitions are restored, while hull, armour and core wait for a friendly colony."""

from __future__ import annotations

import msgspec

from campaign.dice import SeededDice
from campaign.events import BattleFought, ProductionResolved, ShipsRepaired, TurnEnded
from campaign.projections import CampaignState, evolve
from campaign.rules.battles import carried_state, fight, present, request_for
from campaign.rules.economy import check_production, decide_production, fighter_points
from campaign.rules.fighters import missing_fighters
from campaign.rules.setup import catalogue_ship
from campaign.strategic import (
    CoreDamage,
    ProductionOrder,
    ShipResult,
    Unit,
)
from tactical.designs import show_builtin
from tactical.ship import ShipState, fresh_state, with_system_status
from tests.test_combat import DUEL, state_of
from tests.test_core_systems_campaign import BATTLE
from tests.test_regressions import state_with

# A carrier (fighters), minelayers (mines are munitions) and a cruiser.
DESIGNS = {
    "red-W1": "superdreadnought",
    "red-W2": "minelaying_destroyer",
    "blue-W1": "heavy_cruiser",
    "blue-W2": "minelaying_destroyer",
}


def ship(uid: str) -> Unit:
    owner = uid.partition("-")[0]
    return Unit(
        id=uid, owner=owner, kind="warship", hex="0201", order="engage", design=DESIGNS[uid]
    )


def fleets() -> CampaignState:
    return state_of(*map(ship, DESIGNS), pending_battles={"t3-b1": BATTLE})


def fresh(uid: str) -> ShipState:
    return fresh_state(show_builtin(DESIGNS[uid], "ft2"))


def carried(state: CampaignState) -> dict[str, ShipState | None]:
    request = request_for(state, present(state, BATTLE))
    return {s.id: s.state for side in request.sides for s in side.ships}


def test_a_second_battle_the_same_turn_carries_damage_and_spent_munitions() -> None:
    """004 L186-191: munitions expended are not replaced and damage suffered is carried into a
    later battle of the same strategic turn; from the next turn (after `turn_ended`) weapons,
    drives, systems and munitions are restored and hull and core stay (L192-196) until the
    ship is repaired at a friendly colony."""
    state = fleets()
    damaged = spent = short = 0
    for seed in range(12):
        results = fight(state, DUEL, BATTLE, SeededDice(f"carry-{seed}")).results
        after = evolve(state, BattleFought(battle=BATTLE, results=results, source="engine"))
        again = carried(after)
        turned = evolve(after, TurnEnded(turn=3))
        later = carried(turned)
        for result in results:
            if result.fate == "destroyed":
                continue
            record = result.record
            assert record is not None
            assert after.units[result.unit].record == record
            new = fresh(result.unit)
            # The same turn: exactly as the battle left it (the engine's own record state).
            untouched = msgspec.structs.replace(record, ship_id=new.ship_id) == new
            assert again[result.unit] == (None if untouched else record)
            if any(s.status != "ok" for s in record.systems) or record.drive != "ok":
                damaged += 1
            pairs = list(zip(record.systems, new.systems, strict=True))
            spent += any(s.ammo != f.ammo for s, f in pairs)
            short += any(s.fighters != f.fighters for s, f in pairs)
            # The next turn: systems, drives and magazines restored; hull and core kept.
            restored = later[result.unit] or new
            assert all(s.status == "ok" for s in restored.systems)
            assert (restored.drive, restored.ftl) == (new.drive, new.ftl)
            assert [s.ammo for s in restored.systems] == [s.ammo for s in new.systems]
            assert restored.hull_lost == record.hull_lost
            assert restored.armour_lost == record.armour_lost
            core = (restored.out_of_control, restored.power_core, restored.life_support)
            assert core == (record.out_of_control, record.power_core, record.life_support)
            # Fighters lost stay lost (L197).
            assert [s.fighters for s in restored.systems] == [s.fighters for s in record.systems]
    assert damaged > 0
    assert spent > 0
    assert short > 0


def test_hull_and_core_stay_until_a_repair_and_lost_fighters_until_bought() -> None:
    """004 L192-201: a later turn still brings the hull boxes and core systems out until the
    ship is repaired at a friendly colony; the repair restores them but not its fighters."""
    new = fresh("red-W1")
    record = with_system_status(new, "fighter_group-1", "destroyed")  # its 6 fighters lost
    record = with_system_status(record, "beam_a-1", "damaged")
    record = msgspec.structs.replace(record, ship_id="red-W1", hull_lost=(5, 0, 0, 0), drive="half")
    result = ShipResult(unit="red-W1", hull_lost=5, core=CoreDamage(power_core=True), record=record)
    state = evolve(fleets(), BattleFought(battle=BATTLE, results=(result,), source="engine"))
    assert carried(state)["red-W1"] == msgspec.structs.replace(record, power_core="damaged")
    # A table-top battle later the same turn: 2 more boxes, entered by hand.
    by_hand = ShipResult(unit="red-W1", hull_lost=2)
    state = evolve(state, BattleFought(battle=BATTLE, results=(by_hand,), source="umpire"))
    assert state.units["red-W1"].record == record
    same_turn = carried(state)["red-W1"]
    assert same_turn is not None
    assert (same_turn.hull_lost, same_turn.drive) == ((7, 0, 0, 0), "half")
    for turn in (3, 4):  # two turns go by: no colony, so no repair
        state = evolve(state, TurnEnded(turn=turn))
        later = carried(state)["red-W1"]
        assert later is not None
        assert (later.hull_lost, later.power_core, later.drive) == ((7, 0, 0, 0), "damaged", "ok")
        assert {s.id: s.fighters for s in later.systems if s.fighters is not None} == {
            "fighter_group-1": 0,
            "fighter_group-2": 6,
        }
        assert all(s.status == "ok" for s in later.systems)
    assert state.units["red-W1"].needs_repair
    state = evolve(state, ShipsRepaired(player="red", units=("red-W1",)))
    assert not state.units["red-W1"].needs_repair
    repaired = carried(state)["red-W1"]
    assert repaired is not None
    assert msgspec.structs.replace(repaired, systems=new.systems, ship_id=new.ship_id) == new
    assert [s.fighters for s in repaired.systems if s.fighters is not None] == [0, 6]


def test_a_record_that_no_longer_fits_its_design_is_read_from_the_hull_count() -> None:
    """A design file changed since the battle: the stored record is set aside, the hull boxes
    crossed off from `Unit.hull_lost`."""
    unit = msgspec.structs.replace(
        ship("red-W2"),
        hull_lost=2,
        record=ShipState(ship_id="red-W2", hull_lost=(2,)),
        record_turn=3,
    )
    state = carried_state(unit, 3)
    assert state is not None
    assert sum(state.hull_lost) == 2
    assert [s.id for s in state.systems] == [s.id for s in fresh("red-W2").systems]


def test_lost_fighters_are_made_good_only_by_fighters_bought_at_a_colony() -> None:
    """004 L197-198: fighters bought in a production phase (20 FT points a group of 6, 001
    L1339) go aboard the carriers at the producing colony's hex at once; carriers elsewhere
    and more fighters than the bays lack are refused."""
    new = fresh("red-W1")
    short = with_system_status(new, "fighter_group-1", "destroyed")  # 6 lost
    groups = tuple(
        msgspec.structs.replace(s, fighters=2) if s.id == "fighter_group-2" else s
        for s in short.systems
    )  # and 4 more
    record = msgspec.structs.replace(short, ship_id="red-W1", systems=groups)
    carrier = msgspec.structs.replace(ship("red-W1"), record=record, record_turn=4)
    away = msgspec.structs.replace(carrier, id="red-W9", hex="0101")
    state = state_with(carrier, away)
    assert missing_fighters(carrier) == {"fighter_group-1": 6, "fighter_group-2": 4}
    assert fighter_points(10) == 34  # 200 / 6, rounded up: 1 IP at 63 points per IP

    too_many = ProductionOrder(colony="Alpha/1", fighters=11)
    (problem,) = check_production(state, "red", (too_many,), (), catalogue_ship)
    assert (
        "11 fighters bought at 0201 but its carriers and fleet tenders have room for only 10"
        in problem
    )

    order = ProductionOrder(colony="Alpha/1", fighters=8)
    (event,) = [
        e.event
        for e in decide_production(state, {"red": (order,)}, {}, catalogue_ship, SeededDice("s"))
        if isinstance(e.event, ProductionResolved) and e.event.player == "red"
    ]
    assert event.problems == ()
    assert event.lost_ip == event.produced_ip - 1
    (rearmed,) = event.rearmed
    assert missing_fighters(rearmed) == {"fighter_group-2": 2}
    after = evolve(state, event)
    assert missing_fighters(after.units["red-W1"]) == {"fighter_group-2": 2}
    assert missing_fighters(after.units["red-W9"]) == missing_fighters(away)  # not there
    # The next turn's battle finds them aboard.
    aboard = carried_state(after.units["red-W1"], 5)
    assert aboard is not None
    assert [s.fighters for s in aboard.systems if s.fighters is not None] == [6, 4]
