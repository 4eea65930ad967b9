"""Golden battles, perft-style: a fixed set-up, fixed commanders and scripted dice give a fixed
journal and final position. UPDATE_GOLDEN=1 rewrites the files (review the diff)."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from tactical.battle import Battle, BattleSetup, Event, ShipSetup, replay
from tactical.commanders import closing_commander, play
from tactical.dice import ScriptedDice
from tactical.notation import format_position, parse_position
from tactical.scenarios import grendel, skirmish, spatial

GOLDEN = Path(__file__).parent / "golden" / "battles"


class GoldenBattle(msgspec.Struct, frozen=True, kw_only=True):
    setup: BattleSetup
    journal: list[Event]
    final: str


def dice_script() -> ScriptedDice:
    """A fixed, uneven stream of faces; long enough for any golden battle."""
    return ScriptedDice((i * 5 + i // 7 + i // 41) % 6 + 1 for i in range(50_000))


def continuum_duel() -> BattleSetup:
    return BattleSetup(
        name="two Continuum heavy cruisers head on",
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12, speed=6),
            ShipSetup(id="b1", side="blue", design="heavy_cruiser", x=6, y=50, course=6, speed=6),
        ),
        rules="continuum",
        turn_limit=15,
    )


def ft2_carrier_strike() -> BattleSetup:
    """A light carrier and a frigate against an escort cruiser (ADAF) and a destroyer: launch,
    dogfights, point defence and attack runs in a fixed journal."""
    return BattleSetup(
        name="a light carrier strike on an escort cruiser",
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="light_carrier", x=0, y=0, course=12, speed=2),
            ShipSetup(id="r2", side="red", design="frigate", x=8, y=0, course=12, speed=6),
            ShipSetup(id="b1", side="blue", design="escort_cruiser", x=0, y=44, course=6, speed=4),
            ShipSetup(id="b2", side="blue", design="destroyer", x=6, y=46, course=6, speed=6),
        ),
        rules="ft2",
        turn_limit=12,
    )


def spatial_carrier_strike() -> BattleSetup:
    """The carrier strike under spatial movement (003): facing apart from course, and the
    fighter groups' turning limits."""
    return msgspec.structs.replace(
        ft2_carrier_strike(), name="a spatial carrier strike", movement="spatial"
    )


CASES = {
    "grendel": grendel,
    "continuum_duel": continuum_duel,
    "ft2_carrier_strike": ft2_carrier_strike,
    "skirmish": skirmish,
    "spatial": spatial,
    "spatial_carrier_strike": spatial_carrier_strike,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_battle(name: str) -> None:
    setup = CASES[name]()
    battle = play(Battle(setup), {side: closing_commander() for side in setup.sides}, dice_script())
    final = format_position(setup.rules, battle.state)
    produced = GoldenBattle(setup=setup, journal=battle.journal, final=final)
    path = GOLDEN / f"{name}.json"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(msgspec.json.format(msgspec.json.encode(produced), indent=1) + b"\n")
    assert path.exists(), f"missing golden file {path}: run with UPDATE_GOLDEN=1"
    expected = msgspec.json.decode(path.read_bytes(), type=GoldenBattle)
    assert expected.setup == setup
    assert expected.journal == battle.journal
    assert expected.final == final
    # The golden journal replays to the golden final position without rolling a die.
    state = replay(setup, expected.journal)
    assert parse_position(expected.final) == (setup.rules, state)
    assert state.phase == "over"
