"""Decoy drones in the campaign (004 L39: "Dummy Bogeys and 'Weasel Boats', as described in
Full Thrust, may be used"; 001 L955-959): bought at a production phase at 20 points each
(L957), carried one to a warship, deployed as dummy bogeys in its battles (never more than its
ships, L959), lost when identified. Rulings: docs/rulings.md, "Campaign: decoy drones"."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from campaign.dice import SeededDice
from campaign.errors import InvalidInputError
from campaign.events import Audience, DecoysLost, ProductionResolved
from campaign.projections import CampaignState, evolve
from campaign.render import battles_table, unit_row
from campaign.rules import decoys
from campaign.rules.battles import fight, request_for
from campaign.rules.economy import check_production, decide_production
from campaign.rules.production import starship_cost
from campaign.rules.setup import catalogue_ship
from campaign.service import CampaignService
from campaign.strategic import Battle, BattleSide, ProductionOrder, ShipOrder, ShipResult, Unit
from tactical.campaign_battle import dummy_id
from tests.test_combat import DUEL, DuelAtTheTable
from tests.test_regressions import state_with
from tests.test_render import text_of


def warship(uid: str, hex_: str = "0201", drones: int = 0, design: str = "frigate") -> Unit:
    ship = catalogue_ship(design)
    return Unit(
        id=uid,
        owner=uid.partition("-")[0],
        kind="warship",
        hex=hex_,
        design=design,
        hull_class=ship.hull_class,
        points=ship.points,
        mass=ship.mass,
        decoys=drones,
        order="engage",
    )


def production(state: CampaignState, *orders: ProductionOrder) -> ProductionResolved:
    events = decide_production(state, {"red": orders}, {}, catalogue_ship, SeededDice("t"))
    return next(e.event for e in events if isinstance(e.event, ProductionResolved))


# ---------------------------------------------------------------- buying them (001 L957)


def test_drones_cost_20_points_each_like_starships() -> None:
    # "Each 'dummy' Bogey costs 20 points from the owner's Fleet Budget" (001 L957): three
    # drones are 60 points, one IP at 63 points to the IP (004 L277); four, 80 points, two.
    assert decoys.DECOY_POINTS == 20
    state = state_with(*(warship(f"red-W{i}") for i in range(1, 5)))
    unspent = {
        n: production(state, ProductionOrder(colony="Alpha/1", decoys=n)).lost_ip for n in (0, 3, 4)
    }
    assert unspent[0] - unspent[3] == starship_cost(60) == 1
    assert unspent[0] - unspent[4] == starship_cost(80) == 2


def test_drones_go_aboard_the_warships_in_the_hex_then_those_built_there() -> None:
    state = state_with(warship("red-W1", drones=1), warship("red-W2"), warship("red-W3", "0301"))
    order = ProductionOrder(
        colony="Alpha/1", ships=(ShipOrder(design="frigate", count=2),), decoys=2
    )
    assert check_production(state, "red", (order,), (), catalogue_ship) == []
    event = production(state, order)
    assert event.problems == ()
    # red-W1 has one already, red-W3 is elsewhere: red-W2 takes one, then the first new ship.
    assert [(u.id, u.decoys) for u in event.rearmed] == [("red-W2", 1)]
    assert [u.decoys for u in event.units] == [1, 0]
    after = evolve(state, event)
    assert sum(u.decoys for u in after.units.values()) == 3
    assert "a decoy drone aboard" in unit_row(after.units["red-W2"])[1]


def test_more_drones_than_warships_to_carry_them_are_refused() -> None:
    state = state_with(warship("red-W1", drones=1), warship("red-W2"))
    order = ProductionOrder(colony="Alpha/1", decoys=2)
    (problem,) = check_production(state, "red", (order,), (), catalogue_ship)
    assert "2 decoy drones bought at 0201 but only 1 warships there can take one" in problem
    negative = ProductionOrder(colony="Alpha/1", decoys=-1)
    assert any(
        "negative" in p for p in check_production(state, "red", (negative,), (), catalogue_ship)
    )


def test_drones_with_no_warship_left_to_take_them_are_not_bought() -> None:
    # Checked with red-W2 at Alpha; it left before the production phase.
    state = state_with(warship("red-W2", "0301"))
    event = production(state, ProductionOrder(colony="Alpha/1", decoys=1))
    assert event.rearmed == ()
    assert any("decoy drones were not bought" in p for p in event.problems)


# ---------------------------------------------------------------- in battle (001 L955-959)


def _battle(red: tuple[str, ...], blue: tuple[str, ...]) -> Battle:
    return Battle(
        id="t4-b1",
        hex="0201",
        system="Alpha",
        type="even",
        sides=(
            BattleSide(player="red", order="engage", units=red),
            BattleSide(player="blue", order="engage", units=blue),
        ),
    )


def _fleets() -> CampaignState:
    red = [warship(f"red-W{i}", drones=i % 2, design="destroyer") for i in range(1, 5)]
    blue = [warship(f"blue-W{i}", design="destroyer") for i in range(1, 4)]
    return msgspec.structs.replace(state_with(*red, *blue), battle_rules="continuum")


def test_a_task_force_deploys_the_drones_it_carries() -> None:
    state = _fleets()
    battle = _battle(("red-W1", "red-W2", "red-W3", "red-W4"), ("blue-W1", "blue-W2", "blue-W3"))
    request = request_for(state, battle)
    assert [side.dummies for side in request.sides] == [2, 0]  # red-W1 and red-W3 carry one


@pytest.mark.parametrize("seed", ["a", "b", "c", "d"])
def test_drones_identified_or_left_behind_are_lost_and_only_their_owner_knows(seed: str) -> None:
    state = _fleets()
    battle = _battle(("red-W1", "red-W2", "red-W3", "red-W4"), ("blue-W1", "blue-W2", "blue-W3"))
    fought = fight(state, DUEL, battle, SeededDice(seed))
    assert fought.decoys_kept is not None
    batch = decoys.decide_decoys_lost(state, battle, fought.results, fought.decoys_kept)
    fates = {r.unit: r.fate for r in fought.results}
    carriers = ["red-W1", "red-W3"]  # the first deploys red's first dummy, the second the next
    expected = tuple(
        uid
        for index, uid in enumerate(carriers)
        if fates[uid] != "destroyed"
        and (dummy_id("red", index) not in fought.decoys_kept or fates[uid] != "survived")
    )
    if not expected:
        assert batch == []
        return
    (new,) = batch
    assert new.event == DecoysLost(battle="t4-b1", player="red", units=expected)
    assert new.audience == Audience.players_(["red"])  # the enemy is never told
    after = evolve(state, new.event)
    assert all(after.units[u].decoys == 0 for u in expected)


def test_the_battle_results_both_sides_see_say_nothing_of_drones() -> None:
    state = _fleets()
    battle = _battle(("red-W1", "red-W2"), ("blue-W1",))
    fought = fight(state, DUEL, battle, SeededDice("x"))
    assert all("decoy" not in msgspec.json.encode(r).decode() for r in fought.results)


def test_a_drone_still_unidentified_at_the_end_goes_back_aboard_its_ship() -> None:
    # red-W1 deploys red's first dummy, red-W3 the second; only the first is still on the
    # table, unidentified, when the battle ends, and both ships come through.
    state = _fleets()
    battle = _battle(("red-W1", "red-W2", "red-W3", "red-W4"), ("blue-W1",))
    survived = tuple(ShipResult(unit=u) for side in battle.sides for u in side.units)
    (lost,) = decoys.decide_decoys_lost(state, battle, survived, (dummy_id("red", 0),))
    assert lost.event == DecoysLost(battle="t4-b1", player="red", units=("red-W3",))
    # A ship that left the battle (by FTL, or disengaging) leaves its drone behind.
    jumped = tuple(
        msgspec.structs.replace(r, fate="jumped") if r.unit == "red-W1" else r for r in survived
    )
    (lost,) = decoys.decide_decoys_lost(state, battle, jumped, (dummy_id("red", 0),))
    assert lost.event.units == ("red-W1", "red-W3")  # type: ignore[attr-defined]


def test_the_umpire_at_the_table_is_told_the_dummies_each_side_may_deploy(tmp_path: Path) -> None:
    battle = _battle(("red-W1", "red-W2", "red-W3"), ("blue-W1",))
    text = " ".join(text_of(battles_table([battle], {"t4-b1": {"red": 2, "blue": 0}})).split())
    assert "red (engage): red-W1, red-W2, red-W3; 2 dummy bogeys" in text
    assert "blue (engage): blue-W1 " in text + " "
    assert text.count("dummy bogeys") == 1
    # A player is told of his own side's drones only.
    table = DuelAtTheTable(tmp_path)
    service = CampaignService.open(table.db)
    try:
        lineage = service.target(None, None)
        assert service.battle_decoys(lineage) == {"t1-b1": {"red": 0, "blue": 0}}
        assert service.battle_decoys(lineage, "red") == {"t1-0201": {"red": 0}}
        assert service.battle_decoys(lineage, "blue") == {"t1-0201": {"blue": 0}}
    finally:
        service.close()


def test_drones_lost_at_a_table_battle_are_recorded_by_count() -> None:
    """After a battle fought on a table the umpire says how many drones each side lost; the
    first ships carrying one, in unit-id order, lose theirs, and only their owner is told."""
    state = _fleets()
    battle = _battle(("red-W1", "red-W2", "red-W3", "red-W4"), ("blue-W1",))
    (lost,) = decoys.decide_decoys_recorded(state, battle, {"red": 1, "blue": 0})
    assert lost.event == DecoysLost(battle="t4-b1", player="red", units=("red-W1",))
    assert lost.audience == Audience.players_(["red"])
    with pytest.raises(InvalidInputError, match=r"his ships carried 2 into it \(0 to 2\)"):
        decoys.decide_decoys_recorded(state, battle, {"red": 3})
    with pytest.raises(InvalidInputError, match="green did not fight in t4-b1"):
        decoys.decide_decoys_recorded(state, battle, {"green": 0})


def test_battles_record_takes_the_drones_lost_and_refuses_what_cannot_be(tmp_path: Path) -> None:
    table = DuelAtTheTable(tmp_path)  # t1-b1: red-W1 against blue-W1, no drones aboard
    assert "must be a whole number" in table(
        "battles", "record", "t1-b1", "--decoys-lost", "red=x", code=2
    )
    refused = table("battles", "record", "t1-b1", "--decoys-lost", "red=1", code=2)
    assert "his ships carried 0 into it (0 to 0)" in " ".join(refused.split())
    assert "t1-b1" in table("battles", "list")  # nothing was written
    table("battles", "record", "t1-b1", "--decoys-lost", "red=0", "--destroyed", "blue-W1")
    assert "no battles await" in table("battles", "list")
