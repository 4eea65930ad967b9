"""Bugs the autoplay driver found, each pinned by a test (reproducers were in its report)."""

from __future__ import annotations

import msgspec

from campaign.dice import SeededDice
from campaign.events import ProductionResolved
from campaign.projections import CampaignState, evolve
from campaign.rules.battles import fight, request_for
from campaign.rules.economy import check_production, decide_production
from campaign.rules.setup import catalogue_ship
from campaign.strategic import (
    Battle,
    BattleSide,
    Colony,
    Empire,
    ProductionOrder,
    Unit,
)
from tests.test_combat import DUEL

ALPHA = Colony(
    id="Alpha/1",
    owner="red",
    system="Alpha",
    hex="0201",
    orbit=1,
    planet_type="terran",
    capacity=40,
    population=10,
)
BLUE_FRIGATE = Unit(
    id="blue-W1", owner="blue", kind="warship", hex="0201", design="frigate", hull_class="escort"
)


def state_with(
    *units: Unit, colonies: tuple[Colony, ...] = (ALPHA,), turn: int = 4
) -> CampaignState:
    players = sorted({u.owner for u in units} | {c.owner for c in colonies})
    return CampaignState(
        created=True,
        turn=turn,
        players=tuple(players),
        empires={p: Empire(player=p, entry="1") for p in players},
        units={u.id: u for u in units},
        colonies={c.id: c for c in colonies},
    )


def test_a_siege_the_owner_cannot_see_neither_refuses_nor_leaks_but_still_binds() -> None:
    """004 5.4: a besieged colony may not build starships; its owner, who cannot see the
    besieger, gets his orders accepted, and at resolution only the barred purchases fail."""
    order = ProductionOrder(colony="Alpha/1", scout_troops=1, factories=0, research=0)
    truth = state_with(BLUE_FRIGATE)
    red_view = state_with()  # red's own knowledge: no enemy ship in sight
    assert check_production(red_view, "red", (order,), (), catalogue_ship) == []
    events = decide_production(truth, {"red": (order,)}, {}, catalogue_ship, SeededDice("s"))
    red = next(
        e.event
        for e in events
        if isinstance(e.event, ProductionResolved) and e.event.player == "red"
    )
    assert red.units == ()
    assert red.problems == (
        "Alpha/1 is under siege (004 5.4): its starships, scout troops and colony transports "
        "were not built",
    )


def test_an_emptied_colony_is_abandoned() -> None:
    """Ruling: a colony whose whole population emigrates is no longer a colony (no command
    post, no points), as one bombarded to nothing is."""
    state = state_with(colonies=(msgspec.structs.replace(ALPHA, population=1),))
    order = ProductionOrder(colony="Alpha/1", colony_transports=1, emigrants=1)
    (event,) = [
        e
        for e in decide_production(state, {"red": (order,)}, {}, catalogue_ship, SeededDice("s"))
        if e.event.player == "red"  # type: ignore[attr-defined]
    ]
    after = evolve(state, event.event)
    assert "Alpha/1" not in after.colonies
    assert [u.count for u in after.units.values() if u.kind == "transports"] == [1]


def test_carried_damage_is_crossed_off_the_ft2_sheet_the_battle_uses() -> None:
    """Campaign warships are FT2 designs: the battle fights under ft2, and carried damage
    never exceeds what leaves the ship afloat."""
    hurt = Unit(
        id="red-W1",
        owner="red",
        kind="warship",
        hex="0201",
        design="heavy_cruiser",
        hull_class="cruiser",
        hull_lost=99,
    )
    battle = Battle(
        id="t4-b1",
        hex="0201",
        system="Alpha",
        type="even",
        sides=(
            BattleSide(player="red", order="engage", units=("red-W1",)),
            BattleSide(player="blue", order="engage", units=("blue-W1",)),
        ),
    )
    state = state_with(hurt, BLUE_FRIGATE)
    request = request_for(state, battle)
    assert request.rules == "ft2"
    ship = request.sides[0].ships[0]
    assert ship.state is not None
    assert sum(ship.state.hull_lost) == 15  # a heavy cruiser's 16 boxes less one, row by row
    fought = fight(state, DUEL, battle, SeededDice("s"))
    results, rolls = fought.results, fought.rolls
    assert rolls
    assert {r.unit for r in results} == {"red-W1", "blue-W1"}


def test_a_side_lost_in_an_earlier_battle_means_no_battle() -> None:
    battle = Battle(
        id="t4-b2",
        hex="0201",
        system="Alpha",
        type="even",
        sides=(
            BattleSide(player="green", order="engage", units=("green-W5",)),  # gone
            BattleSide(player="blue", order="engage", units=("blue-W1",)),
        ),
    )
    fought = fight(state_with(BLUE_FRIGATE), DUEL, battle, SeededDice("s"))
    results, rolls, journal = fought.results, fought.rolls, fought.journal
    assert results == ()  # nobody was at a table: no ship has a result (docs/rulings.md)
    assert rolls == ()
    assert "no battle" in journal
