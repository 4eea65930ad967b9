"""Fleet tenders (004 L197-201): replacement fighters bought at a colony ride in a tender's
hold to a carrier elsewhere, at the empire's speed, and are lost with the tender's hull
(001 L1005-1007). Worked examples written from the rule text; rulings in docs/rulings.md,
"Fleet tenders"."""

from __future__ import annotations

import msgspec
import pytest

from campaign.dice import SeededDice
from campaign.events import FightersResupplied, OrdersSubmitted, ProductionResolved, StoresLost
from campaign.projections import CampaignState, evolve, evolve_all
from campaign.render import unit_row
from campaign.rules.combat import decide_battle_result
from campaign.rules.economy import check_production, decide_production
from campaign.rules.fighters import decide_resupply, missing_fighters, stores_after
from campaign.rules.setup import catalogue_ship
from campaign.rules.sightings import enemy_ships
from campaign.rules.turn import decide_turn
from campaign.strategic import (
    Battle,
    BattleSide,
    Move,
    ProductionOrder,
    ShipOrder,
    ShipResult,
    Unit,
)
from tactical.designs import decode_design, load_builtin, show_builtin
from tactical.points import PRESETS, validate
from tactical.ship import fresh_state, with_system_status
from tests.test_combat import DUEL
from tests.test_regressions import ALPHA, state_with

TENDER = catalogue_ship("fleet_tender")


def tender(uid: str = "red-W8", hex_: str = "0201", stores: int = 0) -> Unit:
    return Unit(
        id=uid,
        owner=uid.partition("-")[0],
        kind="warship",
        hex=hex_,
        design="fleet_tender",
        hull_class=TENDER.hull_class,
        points=TENDER.points,
        mass=TENDER.mass,
        hold=TENDER.fighter_stores,
        stores=stores,
    )


def carrier(uid: str = "red-W1", hex_: str = "0201", lost: int = 10) -> Unit:
    """A superdreadnought (two fighter groups) that lost `lost` fighters in last turn's battle:
    from the first group, then the rest from the second (6 each)."""
    record = fresh_state(show_builtin("superdreadnought", "ft2"))
    if lost >= 6:
        record = with_system_status(record, "fighter_group-1", "destroyed")
    left = {"fighter_group-1": 6 - min(lost, 6), "fighter_group-2": 6 - max(lost - 6, 0)}
    systems = tuple(
        msgspec.structs.replace(s, fighters=left[s.id]) if s.id in left else s
        for s in record.systems
    )
    record = msgspec.structs.replace(record, ship_id=uid, systems=systems)
    return Unit(
        id=uid,
        owner=uid.partition("-")[0],
        kind="warship",
        hex=hex_,
        design="superdreadnought",
        hull_class="capital",
        record=record,
        record_turn=3,
    )


def production(state: CampaignState, *orders: ProductionOrder) -> ProductionResolved:
    events = decide_production(state, {"red": orders}, {}, catalogue_ship, SeededDice("t"))
    return next(
        e.event
        for e in events
        if isinstance(e.event, ProductionResolved) and e.event.player == "red"
    )


# ---------------------------------------------------------------- the design


def test_the_project_tender_is_an_ft2_merchant_with_a_24_fighter_hold() -> None:
    ship = show_builtin("fleet_tender", "ft2")
    assert (ship.hull, ship.mass, ship.fighter_stores, ship.points) == ("merchant", 40, 24, 276)
    assert TENDER.fighter_stores == 24
    assert catalogue_ship("light_carrier").fighter_stores == 0


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # FT2: a warship hull has no holds (001 L1005-1007: cargo is a merchant's).
        (
            'name = "T"\nrules = "ft2"\nmass = 40\nthrust = 4\nfighter_stores = 6\n',
            "a warship hull has no holds under FT2",
        ),
        # FT2 merchant, mass 20: 2 mass of systems allowance, 18 of holds.
        (
            'name = "T"\nrules = "ft2"\nhull = "merchant"\nmass = 20\nthrust = 2\n'
            "fighter_stores = 19\n",
            "19 fighters as freight need 19 mass of hold, more than the 18 mass outside",
        ),
        # Continuum: stores must fit its cargo spaces (000 L11481-11502).
        (
            'name = "T"\nrules = "continuum"\nmass = 40\nthrust = 4\nfighter_stores = 7\n'
            'hull_boxes = 12\n[[systems]]\nkind = "cargo"\ncount = 6\n',
            "more than its 6 cargo spaces",
        ),
    ],
)
def test_stores_must_fit_the_holds(text: str, reason: str) -> None:
    design = decode_design(text)
    problems = validate(design, PRESETS[design.rules])
    assert any(reason in p.reason and p.path == "$.fighter_stores" for p in problems), problems


def test_a_merchant_with_stores_that_fit_is_valid() -> None:
    tender_design = load_builtin("fleet_tender", "ft2")
    assert validate(tender_design, PRESETS["ft2"]) == ()
    full = msgspec.structs.replace(tender_design, fighter_stores=36)  # 40 - 4 allowance
    assert validate(full, PRESETS["ft2"]) == ()


# ---------------------------------------------------------------- production (004 L197-198)


def test_fighters_bought_fill_the_carriers_bays_first_then_the_tenders_holds() -> None:
    """004 L197-198: replacements go to the carrier; what its bays cannot take rides as freight.
    The carrier at Alpha lacks 10; 16 bought: 10 to its bays, 6 into the tender's hold (18
    aboard already)."""
    state = state_with(carrier(), tender(stores=18))
    order = ProductionOrder(colony="Alpha/1", fighters=16)
    assert check_production(state, "red", (order,), (), catalogue_ship) == []
    event = production(state, order)
    assert event.problems == ()
    fed, stowed = event.rearmed
    assert (fed.id, missing_fighters(fed)) == ("red-W1", {})
    assert (stowed.id, stowed.stores) == ("red-W8", 24)


def test_a_tender_built_this_phase_is_loaded_where_it_is_built() -> None:
    """A tender and 20 fighters bought together at Alpha: it appears there, loaded."""
    state = state_with()
    order = ProductionOrder(
        colony="Alpha/1", ships=(ShipOrder(design="fleet_tender"),), fighters=20
    )
    assert check_production(state, "red", (order,), (), catalogue_ship) == []
    event = production(state, order)
    assert event.problems == ()
    (built,) = event.units
    assert (built.design, built.hex, built.hold, built.stores) == ("fleet_tender", "0201", 24, 20)
    assert event.rearmed == ()
    assert evolve(state, event).units[built.id].stores == 20


def test_more_fighters_than_bays_and_holds_can_take_are_refused() -> None:
    state = state_with(tender(stores=20), carrier(hex_="0301"))  # the carrier is elsewhere
    too_many = ProductionOrder(colony="Alpha/1", fighters=5)
    (problem,) = check_production(state, "red", (too_many,), (), catalogue_ship)
    assert "5 fighters bought at 0201 but its carriers and fleet tenders have room for only 4" in (
        problem
    )
    two_tenders = ProductionOrder(
        colony="Alpha/1", ships=(ShipOrder(design="fleet_tender", count=2),), fighters=53
    )
    (problem,) = check_production(state, "red", (two_tenders,), (), catalogue_ship)
    assert "room for only 52" in problem


# ---------------------------------------------------------------- resupply (004 L198-201)


def test_a_tender_with_the_carrier_makes_good_its_losses_at_the_end_of_the_turn() -> None:
    """004 L199-201: "rapid replacement of lost fighters by including a Fleet Tender in his
    carrier task group". Two tenders (6 and 20 aboard) with a carrier lacking 10 in deep
    space: the first in id order gives all 6, the second 4; a carrier elsewhere and an enemy
    carrier in the hex get nothing."""
    state = state_with(
        carrier(hex_="0301"),
        carrier("red-W2", hex_="0101"),
        carrier("blue-W1", hex_="0301"),
        tender("red-W7", "0301", stores=6),
        tender("red-W8", "0301", stores=20),
    )
    (new,) = decide_resupply(state)
    assert new.audience.players == ("red",)
    assert isinstance(new.event, FightersResupplied)
    assert [(u.id, u.stores) for u in new.event.units] == [
        ("red-W1", 0),
        ("red-W7", 0),
        ("red-W8", 16),
    ]
    after = evolve(state, new.event)
    assert missing_fighters(after.units["red-W1"]) == {}
    assert missing_fighters(after.units["red-W2"]) == {"fighter_group-1": 6, "fighter_group-2": 4}
    assert missing_fighters(after.units["blue-W1"]) == {"fighter_group-1": 6, "fighter_group-2": 4}
    assert decide_resupply(after) == []  # nothing more to give


def test_a_tender_carries_fighters_to_a_carrier_at_the_empires_speed() -> None:
    """004 L198: "carried as freight from the producing world to the carrier by, and at the
    speed of, Fleet Tenders". The tender moves from Alpha to the carrier's hex as any ship
    moves (speed 2); the turn ends with the carrier's bays full."""
    state = state_with(carrier(hex_="0301"), tender(stores=24), colonies=(), turn=5)
    orders = OrdersSubmitted(
        player="red", turn=5, moves=(Move(unit="red-W8", to="0301", order="stand-off"),)
    )
    state = msgspec.structs.replace(state, submitted={"red": orders})
    events = decide_turn(state, DUEL, SeededDice("t"), catalogue_ship)
    after = evolve_all(state, (e.event for e in events))
    assert after.units["red-W8"].hex == "0301"
    assert after.units["red-W8"].stores == 14
    assert missing_fighters(after.units["red-W1"]) == {}
    assert any(isinstance(e.event, FightersResupplied) for e in events)


# ---------------------------------------------------------------- battle (001 L1005-1007)


BATTLE = Battle(
    id="t3-b1",
    hex="0201",
    system="Alpha",
    type="even",
    sides=(
        BattleSide(player="red", order="engage", units=("red-W8",)),
        BattleSide(player="blue", order="engage", units=("blue-W1",)),
    ),
)


@pytest.mark.parametrize(
    ("hull_lost_before", "hull_lost", "fate", "left"),
    [
        (0, 0, "survived", 24),
        (0, 5, "survived", 12),  # half its 10 boxes: half its freight
        (0, 3, "disengaged", 16),  # 24 x 7 / 10 = 16.8, rounded down
        (2, 4, "survived", 12),  # 8 boxes came in, 4 go on: half of what came in
        (0, 9, "jumped", 2),  # 24 x 1 / 10
        (0, 10, "destroyed", 0),
    ],
)
def test_a_tenders_hold_loses_freight_as_its_hull_is_hit(
    hull_lost_before: int, hull_lost: int, fate: str, left: int
) -> None:
    """001 L1007: "the percentage of Damage Points lost equals the percentage of the cargo
    lost"."""
    unit = msgspec.structs.replace(tender(stores=24), hull_lost=hull_lost_before)
    result = ShipResult(unit="red-W8", fate=fate, hull_lost=hull_lost, to_hex="0301")  # type: ignore[arg-type]
    assert stores_after(unit, result) == left


def test_the_owner_alone_learns_what_the_hold_lost() -> None:
    red = tender(stores=24)
    blue = Unit(id="blue-W1", owner="blue", kind="warship", hex="0201", design="frigate")
    state = msgspec.structs.replace(
        state_with(red, blue), pending_battles={BATTLE.id: BATTLE}, turn=4
    )
    results = (ShipResult(unit="red-W8", hull_lost=5), ShipResult(unit="blue-W1"))
    events = decide_battle_result(state, DUEL, BATTLE.id, results, source="umpire")
    (lost,) = [e for e in events if isinstance(e.event, StoresLost)]
    assert lost.event == StoresLost(unit="red-W8", lost=12, stores=12)
    assert lost.audience.players == ("red",)
    after = evolve_all(state, (e.event for e in events))
    assert after.units["red-W8"].stores == 12


# ---------------------------------------------------------------- what players see


def test_reports_show_the_hold_and_count_a_tender_by_its_mass() -> None:
    assert "16/24 fighters in its hold" in unit_row(tender(stores=16))[1]
    # 004 L102-103 reports ships as escorts, cruisers, capitals: a 40-mass merchant counts as
    # a 40-mass military hull would (001 L1250-1252), a capital.
    (count,) = enemy_ships(state_with(tender()), "blue", "0201")
    assert (count.owner, count.capitals, count.escorts, count.cruisers) == ("red", 1, 0, 0)
    assert not tender().can_garrison


def test_fighters_with_no_room_left_by_production_are_not_bought_and_the_rest_goes_ahead() -> None:
    """Checked at submission, 16 fighters fitted the carrier and tender at Alpha; by the
    production phase the carrier has gone (moved or lost): 6 go into the tender's hold, 10 are
    not bought (nor paid for), and the colony's other purchases stand."""
    order = ProductionOrder(colony="Alpha/1", fighters=16, scout_troops=1)
    before = state_with(carrier(), tender(stores=18))
    assert check_production(before, "red", (order,), (), catalogue_ship) == []
    event = production(state_with(carrier(hex_="0301"), tender(stores=18)), order)
    assert event.problems == (
        "Alpha/1: 10 of its 16 fighters were not bought: its carriers and fleet tenders at 0201 "
        "had room for only 6 by the production phase",
    )
    (stowed,) = event.rearmed
    assert (stowed.id, stowed.stores) == ("red-W8", 24)
    assert [u.kind for u in event.units] == ["scout-troop"]


def test_the_orders_of_a_colony_lost_before_production_lapse_alone() -> None:
    beta = msgspec.structs.replace(ALPHA, id="Beta/1", system="Beta", hex="0301", owner="blue")
    order = ProductionOrder(colony="Beta/1", scout_troops=1)
    event = production(
        state_with(colonies=(ALPHA, beta)), order, ProductionOrder(colony="Alpha/1", scout_troops=1)
    )
    assert event.problems == ("Beta/1 is no longer a colony of red: its orders lapsed",)
    assert [u.hex for u in event.units] == ["0201"]  # Alpha's scout troop, and only that


def test_a_ship_with_bays_and_a_hold_gives_from_its_hold_to_the_others_only() -> None:
    both = msgspec.structs.replace(carrier("red-W1"), hold=24, stores=6)
    other = carrier("red-W2", lost=4)
    (new,) = decide_resupply(state_with(both, other))
    assert isinstance(new.event, FightersResupplied)
    fed = {u.id: u for u in new.event.units}
    assert fed["red-W1"].stores == 2
    assert missing_fighters(fed["red-W1"]) == missing_fighters(both)
    assert missing_fighters(fed["red-W2"]) == {}
