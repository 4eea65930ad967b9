"""Beam-1s on point defence (Project Continuum 000 6.4 and 8.8): a ship whose orders put its
Beam-1s on point defence (``/pd``) rolls a die a Beam-1 at the missiles and fighters attacking
it, 5-6 a kill and a 6 a re-roll, a heavy missile only on a 6; those Beam-1s then do not fire
in the ship fire phase (L9105-9109), and they never defend another ship."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    MissilesResolved,
    ShipSetup,
    initial_state,
    resolve,
)
from tactical.commanders.steering import with_beam_defence
from tactical.dice import ScriptedDice
from tactical.movement import parse_order
from tactical.notation import format_position, parse_position
from tactical.phases.fire import fire_options
from tactical.state import BattleState
from tests.tactical import extra_designs
from tests.tactical.test_fighter_expanded import TEST_DESIGNS as CARRIERS
from tests.tactical.test_fighter_expanded import battle_at, fly, group, launched, move, ship
from tests.tactical.test_scattergun import SALVO, at

TEST_DESIGNS = {
    **CARRIERS,
    "picket": """
name = "Picket"
rules = "continuum"
provenance = "test design: an escort whose only guns are two all-round Beam-1s"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam1"
count = 2
""",
    "bare_escort": """
name = "Bare Escort"
rules = "continuum"
provenance = "test design: an escort with no point defence"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1
""",
}


@pytest.fixture(autouse=True)
def _designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def _on_defence(state: BattleState, *ship_ids: str) -> BattleState:
    ships = tuple(
        msgspec.structs.replace(s, beam_defence=True) if s.id in ship_ids else s
        for s in state.ships
    )
    return msgspec.structs.replace(state, ships=ships)


def salvo_state(*ships: ShipSetup, salvos=(SALVO,), defending=("b1",)):  # type: ignore[no-untyped-def]
    ctx = Battle(BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum")).ctx
    state = msgspec.structs.replace(
        initial_state(ctx), turn=2, phase="missiles", first="red", salvos=salvos
    )
    return ctx, _on_defence(state, *defending)


def test_the_worked_example_two_beam_1s_against_a_salvo_of_five() -> None:
    # 000 L6012-6026: "the defender gets to roll 2 dice for the 2 Beam-1 batteries, and rolls a
    # 4 and a 6. The 6 allows a re-roll, but this only gets a 2. So the defender has killed
    # only one incoming missile from this salvo of five. ... four missiles ... scoring 3, 1,
    # 3, and 6". The point defence dice come first, then the on-target die, then the damage.
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 0, 0), at("b1", "blue", "picket", 0, 24, 6)
    )
    event = resolve(ctx, state, dice([4, 6, 2, 5, 3, 1, 3, 6]))
    assert isinstance(event, MissilesResolved)
    assert [(d.system, d.roll.faces, d.roll.rerolls, d.roll.kills) for d in event.defence] == [
        ("beam1-1", (4,), (), 0),
        ("beam1-2", (6,), (2,), 1),
    ]
    (attack,) = event.attacks
    assert (attack.on_target, attack.kills, attack.hits, attack.faces) == (5, 1, 4, (3, 1, 3, 6))


def test_beam_1s_not_on_point_defence_do_not_defend() -> None:
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 0, 0), at("b1", "blue", "picket", 0, 24, 6), defending=()
    )
    event = resolve(ctx, state, dice([5, 1, 1, 1, 1, 1]))
    assert isinstance(event, MissilesResolved)
    assert event.defence == ()
    assert event.attacks[0].hits == 5


def test_a_beam_1_kills_a_heavy_missile_only_on_a_6() -> None:
    # 000 L5901-5903: "Each Beam-1 or fighter rolls a D6 and kills the missile on a roll of 6."
    heavy = msgspec.structs.replace(SALVO, id="r1.heavy_missile-1.t1", heavy=True)
    for faces, killed in (([5, 5], False), ([5, 6], True)):
        ctx, state = salvo_state(
            at("r1", "red", "bare_escort", 0, 0),
            at("b1", "blue", "picket", 0, 24, 6),
            salvos=(heavy,),
        )
        event = resolve(ctx, state, dice([*faces, 1, 1, 1]))
        assert isinstance(event, MissilesResolved)
        assert (event.attacks[0].kills > 0) is killed


def test_beam_1s_never_defend_another_ship() -> None:
    # 000 L9108-9109: "Beam-1s may not be used for area defense."
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 40, 0),
        at("b1", "blue", "bare_escort", 0, 24, 6),
        at("b2", "blue", "picket", 3, 24, 6),
        defending=("b2",),
    )
    event = resolve(ctx, state, dice([3, 1, 1, 1]))
    assert isinstance(event, MissilesResolved)
    assert event.defence == ()


def test_beam_1s_on_point_defence_kill_attacking_fighters_on_5_6() -> None:
    # 000 L9146-9147: "A Beam-1 rolls a D6 and kills one fighter on 5 or 6, with a re-roll on 6."
    ctx, state = battle_at(ship("r1", "red", "test_carrier", 0), ship("b1", "blue", "picket", 8, 6))
    state = launched(state, group("red", "r1", 4))
    state, _ = move(ctx, state, {"blue": {"b1": parse_order("=/pd")}}, [6, 1])
    assert state.ship("b1").beam_defence
    _, event = fly(ctx, state, {"red": "r1.hangar_bay-1:A>b1"}, [5, 6, 4])
    assert [(d.system, d.roll.faces, d.roll.rerolls, d.roll.kills) for d in event.defence] == [
        ("beam1-1", (5,), (), 1),
        ("beam1-2", (6,), (4,), 1),
    ]


def test_beam_1s_on_point_defence_do_not_fire_in_the_ship_fire_phase() -> None:
    # 000 L9105-9107: "if they do so they may not fire in the Ship Fire Phase".
    ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 0, 10), at("b1", "blue", "picket", 0, 0, 12), defending=()
    )
    state = msgspec.structs.replace(state, phase="fire", to_fire="blue", salvos=())
    assert fire_options(ctx, state, "b1") == {"beam1-1": ("r1",), "beam1-2": ("r1",)}
    assert fire_options(ctx, _on_defence(state, "b1"), "b1") == {}


@pytest.mark.parametrize(
    ("rules", "design", "why"),
    [
        ("ft2", "corvette", "Beam-1 point defence is not in these rules"),
        ("continuum", "bare_escort", "no working Beam-1 to put on point defence"),
    ],
)
def test_an_order_to_put_beam_1s_on_point_defence_is_void_where_it_cannot_be(
    rules: str, design: str, why: str
) -> None:
    ctx, state = battle_at(
        ship("b1", "blue", design, 0), ship("r1", "red", design, 40), rules=rules
    )
    after, moved = move(ctx, state, {"blue": {"b1": parse_order("=/pd")}}, [6, 1])
    (void,) = [m.void for m in moved.moves if m.ship == "b1"]
    assert void is not None
    assert why in void
    assert not after.ship("b1").beam_defence


def test_the_position_notation_carries_beam_1s_on_point_defence() -> None:
    _ctx, state = salvo_state(
        at("r1", "red", "bare_escort", 0, 0), at("b1", "blue", "picket", 0, 24, 6)
    )
    text = format_position("continuum", state)
    assert "/D" in text
    assert parse_position(text)[1] == state


def dice(faces: list[int]) -> ScriptedDice:
    """These faces, then 1s."""
    return ScriptedDice([*faces, *[1] * 20])


@pytest.mark.parametrize(
    ("carrier_y", "group_y", "on_defence"),
    [(60.0, 30.0, True), (10.0, 30.0, False), (60.0, None, False)],
    ids=["fighters near", "enemy ship within 12 MU", "no fighters or missiles"],
)
def test_the_commanders_put_beam_1s_on_point_defence_against_fighters_out_of_gun_reach(
    carrier_y: float, group_y: float | None, on_defence: bool
) -> None:
    ctx, state = battle_at(
        ship("r1", "red", "test_carrier", carrier_y), ship("b1", "blue", "picket", 0, 12)
    )
    if group_y is not None:
        state = launched(state, group("red", "r1", group_y))
    written = with_beam_defence(lambda _ctx, _state, _side: {})(ctx, state, "blue")
    assert bool(written.get("b1") and written["b1"].point_defence) is on_defence


@pytest.mark.parametrize(
    ("order", "on_defence"),
    [("+4", False), ("=", True)],
    ids=["closing into Beam-1 reach", "holding off"],
)
def test_a_ship_closing_into_beam_1_reach_keeps_its_beam_1s_to_fire(
    order: str, on_defence: bool
) -> None:
    """The enemy heavy cruiser's salvo launcher is 22 MU off, beyond the Beam-1s' 12 MU; a
    picket that accelerates 4 MU towards it ends 18 MU off, within reach once the cruiser
    burns its drive at it (12 MU and 6 more): it keeps its Beam-1s for the fire phase (Engage
    put them on point defence and came into reach unable to fire them). Standing still, it
    puts them on defence."""
    ctx, state = battle_at(
        ship("r1", "red", "heavy_cruiser", 22, course=6), ship("b1", "blue", "picket", 0)
    )
    written = with_beam_defence(lambda _ctx, _state, _side: {"b1": parse_order(order)})(
        ctx, state, "blue"
    )
    assert written["b1"].point_defence is on_defence
