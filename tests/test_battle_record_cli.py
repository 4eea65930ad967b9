"""`umpire battles record` for a battle fought on a real table: the umpire enters the Command
Bridge failures (the officers' casualty rolls, 004 L361-370) and the core systems a ship
kept out (004 L192-196), as the engine reports them for its own battles."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.errors import InvalidInputError
from campaign.events import BattleFought, CaptainCasualty
from campaign.rules.battles import carried_state
from campaign.rules.fighters import missing_fighters
from campaign.service import CampaignService
from campaign.strategic import CoreDamage, ShipResult
from cli import _battle_results
from tests.test_combat import DuelAtTheTable


def test_bridge_failures_and_core_damage_are_recorded_from_the_cli(tmp_path: Path) -> None:
    table = DuelAtTheTable(tmp_path)
    db = table.db

    def umpire(*args: str, code: int = 0, dice: str = "") -> str:
        return " ".join(table(*args, code=code, dice=dice).split())

    assert "must look like UNIT=LEVEL" in umpire(
        "battles", "record", "t1-b1", "--bridge-failure", "red-W1", code=2
    )
    assert "must be bridge, bridge:TURNS" in umpire(
        "battles", "record", "t1-b1", "--core", "red-W1=hull", code=2
    )
    # Two bridge failures (levels 2 and 3): two casualty dice for red-W1's captain.
    umpire(
        "battles",
        "record",
        "t1-b1",
        "--bridge-failure",
        "red-W1=2",
        "--bridge-failure",
        "red-W1=3",
        "--core",
        "red-W1=bridge:2,power_core",
        "--damage",
        "red-W1=4",
        dice="6\n5\n",
    )
    service = CampaignService.open(db)
    try:
        lineage = service.target(None, None)
        log = [e.event for e in service.log(lineage)]
        (fought,) = [ev for ev in log if isinstance(ev, BattleFought)]
        result = next(r for r in fought.results if r.unit == "red-W1")
        assert result.bridge_failures == (2, 3)
        assert result.core == CoreDamage(out_of_control=2, power_core=True)
        (casualty,) = [ev for ev in log if isinstance(ev, CaptainCasualty)]
        assert casualty.unit == "red-W1"
        assert [r.value for r in casualty.rolls][:2] == [6, 5]
        unit = service.load(lineage).units["red-W1"]
        assert (unit.hull_lost, unit.core) == (4, CoreDamage(out_of_control=2, power_core=True))
    finally:
        service.close()


@pytest.mark.parametrize(
    ("core", "expected"),
    [
        (["bridge"], CoreDamage(out_of_control=-1)),  # its whole next battle
        (["bridge:3", "life_support:2"], CoreDamage(out_of_control=3, life_support=2)),
        (["none"], CoreDamage()),  # all back: the ship's own core damage is cleared
    ],
)
def test_core_damage_is_read(core: list[str], expected: CoreDamage) -> None:
    values = [f"red-W1={c}" for c in core]
    assert _battle_results(None, None, None, None, None, values) == (
        ShipResult(unit="red-W1", core=expected),
    )


@pytest.mark.parametrize(
    ("destroyed", "core", "message"),
    [
        (None, "red-W1=life_support", "must be bridge"),
        (None, "red-W1=bridge:0", "1 or more"),
        (None, "red-W1=none,bridge", "must be bridge"),
        ("red-W1", "red-W1=power_core", "a destroyed ship carries nothing out"),
    ],
)
def test_bad_core_damage_is_refused(destroyed: str | None, core: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        _battle_results(destroyed, None, None, None, None, [core])


def test_fighters_a_carrier_lost_at_the_table_stay_lost(tmp_path: Path) -> None:
    """004 L197: fighter losses are made good only by fighters bought at production, so the
    umpire enters them for a battle fought on a real table. red-W1, a battledreadnought,
    carries one group of 6 (001 L1453): it lost 4."""
    table = DuelAtTheTable(tmp_path)

    def umpire(*args: str, code: int = 0) -> str:
        return " ".join(table(*args, code=code).split())

    assert "fighters lost by red-W1 must be a number" in umpire(
        "battles", "record", "t1-b1", "--fighters-lost", "red-W1=many", code=2
    )
    assert "red-W1 lost 7 fighters but had only 6 aboard" in umpire(
        "battles", "record", "t1-b1", "--fighters-lost", "red-W1=7", code=2
    )
    assert "a destroyed ship loses its fighters with it" in umpire(
        "battles",
        "record",
        "t1-b1",
        "--destroyed",
        "red-W1",
        "--fighters-lost",
        "red-W1=2",
        code=2,
    )
    umpire("battles", "record", "t1-b1", "--fighters-lost", "red-W1=4", "--damage", "red-W1=3")
    service = CampaignService.open(table.db)
    try:
        lineage = service.target(None, None)
        unit = service.load(lineage).units["red-W1"]
        assert unit.hull_lost == 3
        assert missing_fighters(unit) == {"fighter_group-1": 4}
        carried = carried_state(unit, 2)  # the next turn: hull kept, fighters still short
        assert carried is not None
        assert sum(carried.hull_lost) == 3
        assert [s.fighters for s in carried.systems if s.fighters is not None] == [2]
    finally:
        service.close()


@pytest.mark.parametrize(
    ("fate", "over"),
    [
        ([], 0),  # came through with no box left: it would have been destroyed (001 L476)
        ([], 40),
        (["--disengaged", "red-W1"], 0),
        (["--destroyed", "red-W1"], 1),  # more boxes than the ship had
    ],
)
def test_an_outcome_cannot_take_more_hull_boxes_than_a_ship_had(
    tmp_path: Path, fate: list[str], over: int
) -> None:
    """A battle recorded by hand takes from a ship at most the hull boxes it had left, and a
    ship that came out of the battle keeps one: the outcome is refused with a line naming the
    limit, exit 2, and nothing is written (the battle still waits)."""
    from tactical.setup import sheet_for

    table = DuelAtTheTable(tmp_path)
    boxes = sheet_for("battledreadnought", "ft2").hull_boxes
    lost = boxes + over
    said = " ".join(
        table("battles", "record", "t1-b1", *fate, "--damage", f"red-W1={lost}", code=2).split()
    )
    most = boxes if fate[:1] == ["--destroyed"] else boxes - 1
    assert f"red-W1 had {boxes} of its {boxes} hull boxes left" in said
    assert f"hull_lost may be at most {most}, not {lost}" in said
    assert "t1-b1" in table("battles", "list")
    table("battles", "record", "t1-b1", *fate, "--damage", f"red-W1={most}")
    assert "no battles await" in table("battles", "list")
