"""A campaign admiral's chosen ship, which "may be changed from turn to turn" (004 L338, L343).

004 L336-344: a Level 3 admiral makes "one ship under his/her command, which may be changed from
turn to turn", act "as if it has a Level 3 Captain"; a Level 1 admiral, one "as if it has a
Level 1 Captain"; "the ship cannot already have" a captain of that level. A Level 1 captain
turns one course point more, a Level 3 one less, and strikes his colours one likelier (L329-335).
"""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    IllegalActionError,
    OrdersWritten,
    ShipsMoved,
    Theatre,
    context,
    initial_state,
    view,
)
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    PrefixedDice,
    setup_campaign_battle,
)
from tactical.commanders import order_commander, play
from tactical.dice import SeededDice
from tactical.movement import Order, format_order, parse_order, parse_orders
from tactical.notation import format_position, parse_position
from tactical.phases.admirals import choose_ships, strike_modifier
from tactical.phases.movement import order_limits

from .test_vector_movement import vector_setup


def _side(
    name: str, admiral: int | None, captains: tuple[int, ...], designs: tuple[str, ...] = ()
) -> CampaignSide:
    designs = designs or ("frigate",) * len(captains)
    ships = tuple(
        CampaignShip(id=f"{name[0]}{i}", design=design, captain=level)
        for i, (level, design) in enumerate(zip(captains, designs, strict=True), start=1)
    )
    return CampaignSide(name=name, order="engage", admiral=admiral, ships=ships)


def _battle(red: int | None = 1, blue: int | None = 3) -> Battle:
    # Red's second captain is Level 1 and blue's second Level 3: neither may be chosen by an
    # admiral of his own level (004 L338, L343).
    request = CampaignBattle(
        sides=(_side("red", red, (2, 1, 2)), _side("blue", blue, (2, 3, 2))), rules="ft2"
    )
    return Battle(setup_campaign_battle(request, SeededDice(1)))


def _limits(battle: Battle) -> dict[str, int]:
    return {s.id: order_limits(battle.ctx, s)[1] for s in battle.state.ships}


def test_each_admiral_starts_with_his_first_ship() -> None:
    battle = _battle()
    theatre = battle.ctx.setup.theatre
    assert theatre is not None
    assert dict(theatre.admirals) == {"red": 1, "blue": 3}
    assert dict(theatre.turn_mods) == {"r2": 1, "b2": -1}  # the captains' own levels
    assert [s.id for s in battle.state.ships if s.inspired] == ["r1", "b1"]
    # Frigate, thrust 6, vector: 3 manoeuvre points, one more or one less (004 L329-335).
    assert _limits(battle) == {"r1": 4, "r2": 4, "r3": 3, "b1": 2, "b2": 2, "b3": 3}


def test_the_admiral_changes_his_ship_from_turn_to_turn() -> None:
    battle = _battle()
    # Red's admiral turns to r3 this turn: r3's thrusters give 4 manoeuvre points, r1's are
    # back to 3, so r1's four-point push is an order it cannot carry out (001 L364) and r3's
    # is not.
    battle.write_orders("red", parse_orders("r1:PS4 r3:PS4/admiral"))
    battle.write_orders("blue", parse_orders("b3:TS1/admiral"))
    moved = battle.resolve(SeededDice(2))
    assert isinstance(moved, ShipsMoved)
    void = {m.ship: m.void for m in moved.moves}
    assert void["r3"] is None
    assert void["r1"] is not None
    assert [s.id for s in battle.state.ships if s.inspired] == ["r3", "b3"]
    assert _limits(battle) == {"r1": 3, "r2": 4, "r3": 4, "b1": 3, "b2": 2, "b3": 2}


def test_the_choice_holds_until_changed_or_the_ship_is_gone() -> None:
    battle = _battle()
    battle.write_orders("red", parse_orders("r3:=/admiral"))
    battle.write_orders("blue", {})
    battle.resolve(SeededDice(2))
    state = battle.state
    kept = choose_ships(battle.ctx, state, {})
    assert [s.id for s in kept.ships if s.inspired] == ["r3", "b1"]
    gone = msgspec.structs.replace(
        state,
        ships=tuple(
            msgspec.structs.replace(s, status="destroyed") if s.id == "r3" else s
            for s in state.ships
        ),
    )
    after = choose_ships(battle.ctx, gone, {})
    assert [s.id for s in after.ships if s.inspired] == ["r1", "b1"]


@pytest.mark.parametrize(
    ("side", "orders", "problem"),
    [
        ("blue", "b2:=/admiral", r"already Level 3 \(004 L338\)"),
        ("red", "r2:=/admiral", r"already Level 1 \(004 L343\)"),
        ("red", "r1:=/admiral r3:=/admiral", r"chooses one ship \(004 L338, L343\)"),
    ],
)
def test_a_choice_the_rules_forbid_is_refused(side: str, orders: str, problem: str) -> None:
    battle = _battle()
    with pytest.raises(IllegalActionError, match=problem):
        battle.write_orders(side, parse_orders(orders))


@pytest.mark.parametrize("level", [2, None])
def test_only_a_level_1_or_3_admiral_chooses(level: int | None) -> None:
    battle = _battle(red=level)
    assert not any(s.inspired for s in battle.state.ships if s.side == "red")
    with pytest.raises(IllegalActionError, match=r"no Level 1 or Level 3 admiral"):
        battle.write_orders("red", parse_orders("r1:=/admiral"))


def test_the_enemy_does_not_see_the_choice() -> None:
    battle = _battle()
    seen_by_blue = view(battle.state, "blue")
    assert [s.id for s in seen_by_blue.ships if s.inspired] == ["b1"]
    seen_by_red = view(battle.state, "red")
    assert [s.id for s in seen_by_red.ships if s.inspired] == ["r1"]


def test_the_chosen_ship_strikes_as_its_admirals_level() -> None:
    battle = _battle()
    strikes = {s.id: strike_modifier(battle.ctx, s) for s in battle.state.ships}
    # A Level 1 subtracts one from the strike die, a Level 3 adds one (004 L331, L335).
    assert strikes == {"r1": -1, "r2": -1, "r3": 0, "b1": 1, "b2": 1, "b3": 0}


def test_the_choice_is_written_in_the_notations() -> None:
    order = parse_order("TS1/ecm/admiral")
    assert order == Order(vector=order.vector, ecm=True, admiral=True)
    assert format_order(order) == "TS1/ecm/admiral"
    battle = _battle()
    position = format_position(battle.ctx.setup.rules, battle.state)
    marked = [t.split("@")[0] for t in position.split() if "I" in t.split("/")[1:]]
    assert marked == ["red:r1:frigate", "blue:b1:frigate"]
    assert parse_position(position) == ("ft2", battle.state)


def test_set_ups_stored_before_the_choice_replay_as_they_were() -> None:
    # Older campaign set-ups folded the admiral's one ship into the captains' modifiers.
    ctx = context(vector_setup(theatre=Theatre(turn_mods=(("r1", 1), ("b1", -1)))))
    state = initial_state(ctx)
    assert not any(s.inspired for s in state.ships)
    assert order_limits(ctx, state.ship("r1")) == (2, 2)


def test_commanders_move_a_level_3_admirals_meddling_off_the_ships_that_need_to_turn() -> None:
    fleet = ("light_cruiser", "frigate", "frigate")
    changes = 0
    for seed in range(6):
        request = CampaignBattle(
            sides=(_side("red", 3, (2, 2, 2), fleet), _side("blue", 1, (2, 2, 2), fleet)),
            rules="continuum",
            key=f"admirals/{seed}",
        )
        dice = SeededDice(seed)
        setup = setup_campaign_battle(request, dice)
        battle = play(
            Battle(setup),
            {"red": order_commander("engage"), "blue": order_commander("engage")},
            PrefixedDice(dice, request.key),
        )
        for event in battle.journal:
            if isinstance(event, OrdersWritten) and "/admiral" in event.orders:
                changes += event.side == "red"
                chosen = [o for o in event.orders.split() if o.endswith("/admiral")]
                assert len(chosen) == 1
            if isinstance(event, ShipsMoved):
                # No order is spoiled by the admiral's choice.
                spoiled = [m for m in event.moves if m.void and "manoeuvre points" in m.void]
                assert not spoiled
    assert changes > 0
