"""Dummy bogeys in campaign battles (004 L39: "Dummy Bogeys and 'Weasel Boats', as described
in Full Thrust, may be used"; 001 L955-959), under the campaign's vector movement (004 L43)."""

from __future__ import annotations

import math

import pytest

from tactical.battle import OrdersWritten, SetupError, ShipsMoved, replay, view
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    dummy_id,
    resolve_campaign_battle,
    setup_campaign_battle,
)
from tactical.dice import SeededDice
from tactical.movement import parse_orders


def _side(name: str, order: str, dummies: int) -> CampaignSide:
    designs = ("light_cruiser", "frigate", "frigate")
    ships = tuple(CampaignShip(id=f"{name}-{i}", design=d) for i, d in enumerate(designs))
    return CampaignSide(name=name, order=order, ships=ships, dummies=dummies)


def _request(red: int = 2, blue: int = 0, **kw: object) -> CampaignBattle:
    return CampaignBattle(
        sides=(_side("red", "engage", red), _side("blue", "engage", blue)),
        key="decoys",
        **kw,  # type: ignore[arg-type]
    )


def test_a_task_forces_dummies_fly_in_its_formation() -> None:
    setup = setup_campaign_battle(_request(), SeededDice(1))
    assert setup.bogeys
    assert [d.id for d in setup.dummies] == [dummy_id("red", 0), dummy_id("red", 1)]
    red = [s for s in setup.ships if s.side == "red"]
    for dummy in setup.dummies:
        # In the formation, within 20 MU of every ship (004 L148), as fast and the same way.
        assert all(math.hypot(dummy.x - s.x, dummy.y - s.y) <= 20 for s in red)
        assert (dummy.course, dummy.speed) == (red[0].course, red[0].speed)


def test_no_more_dummies_than_ships() -> None:
    # "The maximum number of Dummies ... is equal to the number of 'real' ships" (001 L959).
    with pytest.raises(SetupError, match=r"at most one dummy per real ship \(001 L959\)"):
        setup_campaign_battle(_request(red=4), SeededDice(1))


def test_the_enemy_sees_dummies_as_escort_contacts_until_identified() -> None:
    for seed in range(4):
        outcome = resolve_campaign_battle(_request(red=3), SeededDice(seed))
        contacts = view(replay(outcome.setup, ()), "blue").bogeys
        # Three drones showing an escort (001 L957), two frigates (escorts), a light cruiser.
        assert sorted(c.shows for c in contacts) == ["cruiser"] + ["escort"] * 5
        # A dummy is "removed from play as soon as it is scanned" (L957), or gone off the
        # table: the outcome counts what the task force lost.
        moves = [e for e in outcome.journal if isinstance(e, ShipsMoved)]
        identified = sum(1 for e in moves for s in e.sensed if s.dummy)
        flown_off = sum(1 for e in moves for m in e.decoys if m.left)
        assert dict(outcome.decoys_lost) == {"red": identified + flown_off}


@pytest.mark.parametrize("seed", range(4))
def test_the_commanders_keep_their_dummies_with_the_fleet(seed: int) -> None:
    outcome = resolve_campaign_battle(_request(red=2, blue=3), SeededDice(seed))
    moved_decoys = [
        m for event in outcome.journal if isinstance(event, ShipsMoved) for m in event.decoys
    ]
    assert moved_decoys, "no dummy moved"
    assert all(m.void is None for m in moved_decoys)
    written = [e for e in outcome.journal if isinstance(e, OrdersWritten)]
    decoy_orders = [
        order
        for event in written
        for ship_id, order in parse_orders(event.orders).items()
        if ".decoy" in ship_id
    ]
    # While the fleet manoeuvres, so do its dummies.
    assert any(order.vector for order in decoy_orders)
