"""Fighter launch and recovery as Continuum writes them (000 8.1, 10.1, 13.12): launch tubes
limit the groups a turn, combined bays launch all and recover half, a group flies half its
move on its launch turn, and a hangar bay knocked out loses the fighters aboard."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import BattleState, context, initial_state
from tactical.dice import ScriptedDice
from tactical.fire import threshold_check
from tactical.movement import Order
from tactical.notation import format_position, parse_position
from tactical.phases.fighters import group_reach, launch_capacity
from tactical.ship import SystemState
from tests.tactical import extra_designs
from tests.tactical.test_fighter_expanded import (
    TEST_DESIGNS as EXPANDED_DESIGNS,
)
from tests.tactical.test_fighter_expanded import (
    battle_at,
    fly,
    group,
    launched,
    move,
    ship,
)


def _carrier(name: str, bay: str, bays: int, tubes: int) -> str:
    tube = f'\n[[systems]]\nkind = "launch_tube"\ncount = {tubes}\n' if tubes else ""
    return f"""
name = "{name}"
rules = "continuum"
provenance = "test design: {bays} {bay}s and {tubes} launch tubes"
mass = 100
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "{bay}"
fighters = "standard"
count = {bays}
{tube}"""


TEST_DESIGNS = {
    **EXPANDED_DESIGNS,
    "adfc_carrier": _carrier("ADFC Carrier", "hangar_bay", 1, 1)
    + '\n[[systems]]\nkind = "pds"\n\n[[systems]]\nkind = "adfc"\n',
    "bare_escort": """
name = "Bare Escort"
rules = "continuum"
provenance = "test design: an escort with no point defence"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1
""",
    "one_tube_carrier": _carrier("One Tube", "hangar_bay", 3, 1),
    "combined_carrier": _carrier("Combined", "combined_bay", 3, 0),
}


@pytest.fixture(autouse=True)
def carriers(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def _with_status(state: BattleState, ship_id: str, system: str, status: str) -> BattleState:
    ships = []
    for s in state.ships:
        systems = tuple(
            msgspec.structs.replace(x, status=status) if s.id == ship_id and x.id == system else x
            for x in s.record.systems
        )
        ships.append(
            msgspec.structs.replace(s, record=msgspec.structs.replace(s.record, systems=systems))
        )
    return msgspec.structs.replace(state, ships=tuple(ships))


def test_a_carrier_launches_one_group_a_turn_per_working_launch_tube() -> None:
    # 000 L8536-8538: "All carriers are allowed to launch (or recover) as many groups per turn
    # as they have operational launch tube/flight decks." Three hangars and one tube: one.
    ctx, state = battle_at(
        ship("r1", "red", "one_tube_carrier", 0), ship("b1", "blue", "one_tube_carrier", 90, 6)
    )
    assert launch_capacity(ctx, state, state.ship("r1")) == 1
    _, event = move(ctx, state, {"red": {"r1": Order(launch=2)}}, [6, 1])
    assert "one per working launch tube" in (event.moves[0].void or "")
    after, event = move(ctx, state, {"red": {"r1": Order(launch=1)}}, [6, 1])
    assert event.moves[0].void is None
    assert [g.bay for g in after.fighters] == ["hangar_bay-1"]


def test_no_launch_without_a_working_launch_tube() -> None:
    # 000 L10967-10979: "the ship may not launch, or recover, any fighters unless the ship has
    # an operational launch tube/flight deck."
    ctx, state = battle_at(
        ship("r1", "red", "one_tube_carrier", 0), ship("b1", "blue", "one_tube_carrier", 90, 6)
    )
    state = _with_status(state, "r1", "launch_tube-1", "damaged")
    assert launch_capacity(ctx, state, state.ship("r1")) == 0
    _, event = move(ctx, state, {"red": {"r1": Order(launch=1)}}, [6, 1])
    assert "no working launch tube" in (event.moves[0].void or "")


def test_combined_bays_launch_every_group_and_recover_half() -> None:
    # 000 L14935-14940: "Ships using combined hangars may launch all their available fighter
    # groups in one turn but may only recover fighters equal to half of their available
    # hangar bays": three bays, three groups out at once, two back a turn (half, rounded up).
    ctx, state = battle_at(
        ship("r1", "red", "combined_carrier", 0), ship("b1", "blue", "combined_carrier", 90, 6)
    )
    after, event = move(ctx, state, {"red": {"r1": Order(launch=3)}}, [6, 1])
    assert event.moves[0].void is None
    assert len(after.fighters) == 3
    bays = ("combined_bay-1", "combined_bay-2", "combined_bay-3")
    home = launched(state, *(group("red", "r1", 5, bay=bay) for bay in bays))
    home, _ = move(ctx, home, {}, [6, 1])
    flight = " ".join(f"r1.{bay}:R" for bay in bays)
    _, resolved = fly(ctx, home, {"red": flight}, [6, 6, 6])
    assert sum(m.recovered for m in resolved.moves) == 2
    assert "as its launch tubes allow" in next(m.void or "" for m in resolved.moves if m.void)


@pytest.mark.parametrize(
    ("design", "landed"), [("one_tube_carrier", [True, False]), ("test_carrier", [True, True])]
)
def test_each_tube_recovers_one_group_a_turn(design: str, landed: list[bool]) -> None:
    # 000 L8536-8538: launch "(or recover)" as many groups a turn as working tubes: one tube
    # lands one group, two tubes two (FT2's carriers land one, 001 L761).
    ctx, state = battle_at(ship("r1", "red", design, 0), ship("b1", "blue", design, 90, 6))
    bays = ("hangar_bay-1", "hangar_bay-2")
    home = launched(state, *(group("red", "r1", 5, bay=bay) for bay in bays))
    home, _ = move(ctx, home, {}, [6, 1])
    _, resolved = fly(ctx, home, {"red": " ".join(f"r1.{b}:R" for b in bays)}, [6, 6])
    assert [m.recovered for m in resolved.moves] == landed


def test_a_group_flies_half_its_move_on_its_launch_turn() -> None:
    # 000 L8526-8528: "Move distance on the launch turn is only half normal, representing time
    # lost for successive launches and/or to form up." 24 MU standard: 12, then 24.
    ctx, state = battle_at(
        ship("r1", "red", "test_carrier", 0), ship("b1", "blue", "test_carrier", 90, 6)
    )
    after, _ = move(ctx, state, {"red": {"r1": Order(launch=1)}}, [6, 1])
    (fresh,) = after.fighters
    assert fresh.launching
    assert group_reach(ctx, fresh) == 12.0
    text = format_position("continuum", after)
    assert "/n" in text
    assert parse_position(text) == ("continuum", after)
    flown, resolved = fly(ctx, after, {"red": f"r1.{fresh.bay}:A>b1"}, [])
    assert resolved.moves[0].y == pytest.approx(12.0)
    (group_after,) = flown.fighters
    assert not group_after.launching
    assert group_reach(ctx, group_after) == 24.0


def test_ft2_groups_fly_their_whole_move_and_carriers_launch_two() -> None:
    # FT2 has neither rule (001 L757-763): unchanged.
    ctx, state = battle_at(
        ship("r1", "red", "light_carrier", 0),
        ship("b1", "blue", "light_carrier", 90, 6),
        rules="ft2",
    )
    after, _ = move(ctx, state, {"red": {"r1": Order(launch=1)}}, [6, 1])
    assert all(not g.launching for g in after.fighters)
    assert all(group_reach(ctx, g) == 12.0 for g in after.fighters)


def test_a_hangar_bay_knocked_out_loses_its_fighters_though_only_damaged() -> None:
    # 000 L10939-10943: "When a hangar bay is knocked out any fighters still inside that bay
    # are lost" - also under Continuum, where a failed system is only damaged (repairable).
    ctx = context(
        battle_at(
            ship("r1", "red", "one_tube_carrier", 0), ship("b1", "blue", "one_tube_carrier", 90)
        )[0].setup
    )
    sheet = ctx.sheets["r1"]
    record = initial_state(ctx).ship("r1").record
    faces = [6 if s.id == "hangar_bay-1" else 1 for s in sheet.systems] + [1, 1]
    record, outcome = threshold_check(
        sheet, record, ScriptedDice(faces), "t1/threshold/r1", row=1, lost_status="damaged"
    )
    assert outcome.lost == ["hangar_bay-1"]
    bay = next(s for s in record.systems if s.id == "hangar_bay-1")
    assert bay == SystemState(id="hangar_bay-1", status="damaged", fighters=0)
    other = next(s for s in record.systems if s.id == "hangar_bay-2")
    assert other.fighters == 6


@pytest.mark.parametrize("launches", [False, True])
def test_a_carrier_that_launches_cannot_use_its_adfc(launches: bool) -> None:
    # 000 L8721-8723: "A ship that launches or recovers fighters cannot use an ADFC (section
    # 7) in that turn." Blue fighters attack the bare escort r2; r1's PDS covers it through
    # the ADFC unless r1 launched this turn.
    ctx, state = battle_at(
        ship("r1", "red", "adfc_carrier", 3),
        ship("r2", "red", "bare_escort", 0),
        ship("b1", "blue", "test_carrier", 90, 6),
    )
    state = launched(state, group("blue", "b1", 20))
    orders = {"red": {"r1": Order(launch=1)}} if launches else {}
    state, _ = move(ctx, state, orders, [6, 1])
    _, event = fly(ctx, state, {"blue": "b1.hangar_bay-1:A>r2"}, [])
    assert [(d.ship, d.system) for d in event.defence] == ([] if launches else [("r1", "pds-1")])
