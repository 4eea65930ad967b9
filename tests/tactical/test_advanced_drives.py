"""Continuum advanced drives (000 3.3, L1690-1721; 13.10, L14742-14774): a ship may spend all
its thrust on turning, not half; under vector movement its thrusters give the whole rating
(a ruling, with an option); and it avoids asteroids with its thrust doubled (000
L18124-18126)."""

from __future__ import annotations

from typing import Literal

import msgspec
import pytest

from tactical.battle import Battle, BattleSetup, ShipSetup, ShipsMoved, Theatre, replay
from tactical.commanders import closing_commander, play
from tactical.dice import ScriptedDice, SeededDice
from tactical.movement import Order, parse_order
from tactical.points import build
from tactical.ship import PRESETS, collision_thrust, fresh_state
from tests.tactical.extra_designs import design_of, install

_HULL = """
rules = "continuum"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "AS", "A", "AP", "FP"]
"""
DESIGNS = {
    "racer": f'name = "Racer"\nadvanced_drive = true\n{_HULL}',
    "plodder": f'name = "Plodder"\n{_HULL}',
}


@pytest.fixture(autouse=True)
def _designs(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, DESIGNS)


def _move(
    design: str,
    order: Order,
    *,
    movement: Literal["cinematic", "vector"] = "cinematic",
    speed: int = 0,
    asteroids: tuple[tuple[float, float], ...] = (),
    faces: tuple[int, ...] = (),
    thrusters: Literal["full", "half"] = "full",
) -> tuple[Battle, ShipsMoved]:
    """One movement step of ``design`` at (0, 0) heading +y at ``speed``, its enemy far off."""
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        ships=(
            ShipSetup(id="r1", side="red", design=design, x=0, y=0, course=12, speed=speed),
            ShipSetup(id="b1", side="blue", design="plodder", x=40, y=80, course=6, speed=0),
        ),
        theatre=Theatre(asteroids=asteroids) if asteroids else None,
        movement=movement,
        advanced_vector_thrusters=thrusters,
    )
    battle = Battle(setup)
    battle.write_orders("red", {"r1": order})
    battle.write_orders("blue", {})
    event = battle.resolve(ScriptedDice((*faces, 6, 1, 6, 1)))
    assert isinstance(event, ShipsMoved)
    return battle, event


def _void(event: ShipsMoved) -> str | None:
    return next(m.void for m in event.moves if m.ship == "r1")


def test_the_sheet_carries_the_drive_and_its_price() -> None:
    """13.10 (000 L14768-14770): the main drive costs mass x 3 for advanced, x 2 for standard;
    thrust 4 on mass 30 is 20% of 30 = 6 mass of drive, so 6 points more."""
    racer = build(design_of(DESIGNS, "racer"), PRESETS["continuum"])
    plodder = build(design_of(DESIGNS, "plodder"), PRESETS["continuum"])
    assert racer.advanced_drive
    assert not plodder.advanced_drive
    assert racer.points - plodder.points == 6
    assert any(line.item == "Main drive, thrust 4 (advanced)" for line in racer.cost)


def test_cinematic_turns_with_all_its_thrust() -> None:
    """000 L1713-1721: "permitted to use up to all of their thrust rating to change course
    instead of half": thrust 4 turns 4 points; a standard drive is held to 2 (000 L1934-2037),
    and its order is void (the ship goes straight on, 001 L364)."""
    battle, event = _move("racer", Order(turn=4, accel=0), speed=4)
    assert _void(event) is None
    assert battle.state.ship("r1").course == 4
    _battle, event = _move("plodder", Order(turn=4), speed=4)
    assert _void(event) == "turns 4 points and thrust 4 allows 2 (001 L326-330)"


def test_turning_still_costs_thrust() -> None:
    """The whole rating may go on turning, never more: 4 points and 1 MU more is 5 thrust."""
    _battle, event = _move("racer", Order(turn=4, accel=1), speed=4)
    assert _void(event) == "needs 5 thrust and the drive gives 4 (001 L364)"


def test_a_halved_drive_doubles_what_it_has() -> None:
    """The asteroid roll doubles the thrust the drive delivers now (001 L1092 "available"):
    halved to 2 by a drive hit, it avoids with 4."""
    battle, _ = _move("racer", Order(), speed=4)
    sheet = battle.ctx.sheets["r1"]
    halved = msgspec.structs.replace(fresh_state(sheet), drive="half")
    assert collision_thrust(sheet, halved) == 4  # 2, doubled


@pytest.mark.parametrize(
    ("thrusters", "void"),
    [
        ("full", None),
        ("half", "needs 4 manoeuvre points and the thrusters give 2 (000 L13411-13986)"),
    ],
)
def test_vector_thrusters_give_the_whole_rating(
    thrusters: Literal["full", "half"], void: str | None
) -> None:
    """FB1's vector text (000 12.12) is silent on advanced drives: by the ruling the
    thrusters give the whole rating, 4 manoeuvre points at thrust 4 (a rotation is 1, a push
    of 3 is 3); the set-up's ``advanced_vector_thrusters = "half"`` keeps FB1's half."""
    _battle, event = _move("racer", parse_order("TP1.PS3"), movement="vector", thrusters=thrusters)
    assert _void(event) == void


def test_a_standard_drive_under_vector_keeps_half() -> None:
    _battle, event = _move("plodder", parse_order("TP1.PS3"), movement="vector")
    assert _void(event) == "needs 4 manoeuvre points and the thrusters give 2 (000 L13411-13986)"


@pytest.mark.parametrize(
    ("design", "need", "faces", "status"),
    [("racer", 1, (), "active"), ("plodder", 5, (4,), "destroyed")],
)
def test_asteroids_with_thrust_doubled(
    design: str, need: int, faces: tuple[int, ...], status: str
) -> None:
    """000 L18116-18126: velocity less thrust on a D6, and "Ships with Advanced Drives double
    their engine rating": at velocity 9 a thrust-4 advanced drive needs 9 - 8 = 1 and avoids
    the asteroid with no die (001 L1106); a standard drive needs 5, and a 4 destroys it."""
    battle, event = _move(design, Order(), speed=9, asteroids=((0.0, 5.0),), faces=faces)
    met = event.asteroids[0]
    assert (met.thrust, met.need, met.face) == (
        8 if need == 1 else 4,
        need,
        faces[0] if faces else None,
    )
    assert battle.state.ship("r1").status == status
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_commanders_play_legal_orders_and_replay() -> None:
    """Seeded battles of an advanced-drive ship against a standard one, the closing commanders
    on both sides, cinematic and vector: every order is legal, the advanced drive turns more
    than half its thrust at least once, and the journal replays to the same state."""
    turns: list[int] = []
    for seed, movement in [(1, "cinematic"), (2, "cinematic"), (3, "vector")]:
        setup = BattleSetup(
            sides=("red", "blue"),
            rules="continuum",
            turn_limit=8,
            movement=movement,  # type: ignore[arg-type]
            ships=(
                ShipSetup(id="r1", side="red", design="racer", x=0, y=0, course=12, speed=4),
                ShipSetup(id="b1", side="blue", design="plodder", x=20, y=30, course=6, speed=4),
            ),
        )
        commanders = {side: closing_commander() for side in setup.sides}
        battle = play(Battle(setup), commanders, SeededDice(seed))
        moves = [m for e in battle.journal if isinstance(e, ShipsMoved) for m in e.moves]
        assert moves
        assert all(m.void is None for m in moves)
        turns += [abs(parse_order(m.order).turn) for m in moves if m.ship == "r1"]
        assert replay(setup, battle.journal) == battle.state
    assert max(turns) > 2
