"""Core systems in the campaign (004 L44): a campaign battle's Command Bridge failures bring the
officers' casualty roll, -1 for a level 2 threshold check and -2 for level 3 (004 L361-370)."""

from __future__ import annotations

import msgspec
import pytest

from campaign.dice import ScriptedDice, SeededDice
from campaign.errors import InvalidInputError
from campaign.events import BattleFought, OfficerCasualty
from campaign.projections import CampaignState, evolve
from campaign.rules.battles import fight, present, request_for
from campaign.rules.combat import decide_battle_result, decide_officer_casualties
from campaign.strategic import Battle, BattleSide, ShipResult, TaskForce, Unit
from tactical.battle import CoreSystemsRolled, ShipFired, ShipsMoved, TurnEnded, decode_journal
from tests.test_combat import DUEL, state_of


def battleship(uid: str) -> Unit:
    owner = uid.split("-", 1)[0]
    return Unit(
        id=uid,
        owner=owner,
        kind="warship",
        hex="0201",
        order="engage",
        design="battleship",
        hull_class="capital",
    )


BATTLE = Battle(
    id="t3-b1",
    hex="0201",
    system="Alpha",
    type="even",
    sides=(
        BattleSide(player="red", order="engage", units=("red-W1", "red-W2")),
        BattleSide(player="blue", order="engage", units=("blue-W1", "blue-W2")),
    ),
)


def with_admiral(level: int = 2) -> CampaignState:
    """Red's two battleships in a task force under an admiral; the flagship is red-W1."""
    force = TaskForce(id="red-F1", owner="red", units=("red-W1", "red-W2"), admiral=level)  # type: ignore[arg-type]
    units = [battleship(u) for u in ("red-W1", "red-W2", "blue-W1", "blue-W2")]
    return state_of(*units, task_forces={"red-F1": force}, pending_battles={"t3-b1": BATTLE})


def test_the_engines_bridge_failures_reach_the_ship_results() -> None:
    """The engine's campaign battles play with core systems, and every bridge failure's
    threshold level comes back in the ship's result, as the journal shows it."""
    state = with_admiral()
    found = 0
    for seed in range(30):
        fought = fight(state, DUEL, BATTLE, SeededDice(f"core-{seed}"))
        results, journal = fought.results, fought.journal
        record = msgspec.json.decode(journal)
        events = decode_journal(msgspec.json.encode(record["journal"]))
        assert record["setup"]["core_systems"] is True
        failed: dict[str, list[int]] = {}
        for event in events:
            if isinstance(event, ShipFired | TurnEnded | ShipsMoved | CoreSystemsRolled):
                for check in event.thresholds:
                    if check.bridge is not None:
                        failed.setdefault(check.ship, []).append(check.row)
        for result in results:
            assert result.bridge_failures == tuple(failed.get(result.unit, ()))
            found += len(result.bridge_failures)
    assert found > 0


def casualty(state: CampaignState, *results: ShipResult, dice: list[int]) -> OfficerCasualty:
    (new,) = decide_officer_casualties(state, "t3-b1", results, ScriptedDice(dice))
    assert isinstance(new.event, OfficerCasualty)
    return new.event


@pytest.mark.parametrize(
    ("level", "die", "result", "turns_out"),
    [
        (3, 5, "injured", 1),  # 5 - 2 (level 3 check) + 1 (level 2 officer) = 4
        (2, 5, "unharmed", 0),  # 5 - 1 + 1 = 5
        (3, 2, "dead", 0),  # 2 - 2 + 1 = 1
        (2, 3, "injured", 2),  # 3 - 1 + 1 = 3
    ],
)
def test_a_bridge_failure_brings_the_admirals_casualty_roll(
    level: int, die: int, result: str, turns_out: int
) -> None:
    """004 L361-370: "If the Command Bridge fails a threshold roll ... Subtract 1 if a Level 2
    threshold check, subtract 2 if a Level 3"; the flagship survives, the flag stays."""
    failed = ShipResult(unit="red-W1", bridge_failures=(level,))
    event = casualty(with_admiral(), failed, dice=[die])
    assert (event.result, event.turns_out, event.new_flagship) == (result, turns_out, None)
    assert [r.key for r in event.rolls] == ["3/casualty/t3-b1.red-F1.bridge1/0"]


def test_no_roll_without_a_bridge_failure_or_a_loss() -> None:
    state = with_admiral()
    assert (
        decide_officer_casualties(state, "t3-b1", (ShipResult(unit="red-W1"),), ScriptedDice([]))
        == []
    )
    # Only the flagship carries the admiral.
    escort = ShipResult(unit="red-W2", bridge_failures=(3,))
    assert decide_officer_casualties(state, "t3-b1", (escort,), ScriptedDice([])) == []


def test_one_roll_per_cause_and_the_worst_stands() -> None:
    """docs/rulings.md: one roll per cause; a bridge failure at level 2 (6: unharmed), another
    at level 3 (4 - 2 + 1 = 3: 2 turns) and the ship's destruction (5 - 4 + 1 = 2: 3 turns)."""
    lost = ShipResult(unit="red-W1", fate="destroyed", bridge_failures=(2, 3))
    event = casualty(with_admiral(), lost, dice=[6, 4, 5])
    assert (event.result, event.turns_out, event.new_flagship) == ("injured", 3, "red-W2")
    assert [r.key for r in event.rolls] == [
        "3/casualty/t3-b1.red-F1.bridge1/0",
        "3/casualty/t3-b1.red-F1.bridge2/0",
        "3/casualty/t3-b1.red-F1/0",
    ]


def test_bridge_failure_levels_are_checked() -> None:
    bad = ShipResult(unit="red-W1", bridge_failures=(0,))
    with pytest.raises(InvalidInputError, match="bridge_failures are threshold levels"):
        decide_battle_result(with_admiral(), DUEL, "t3-b1", (bad,), "umpire")


def test_core_damage_left_by_the_engine_is_carried_into_the_next_battle() -> None:
    """004 L187-196: a ship in a later battle the same turn, or in any later turn until it is
    repaired at a friendly colony, comes in with the core systems its last battle left out."""
    state = with_admiral()
    carried = 0
    for seed in range(30):
        results = fight(state, DUEL, BATTLE, SeededDice(f"core-{seed}")).results
        for result in results:
            assert (result.core is None) == (result.fate == "destroyed")
        hurt = [r for r in results if r.core is not None and r.core.any]
        if not hurt:
            continue
        fought = BattleFought(battle=BATTLE, results=results, source="engine")
        after = evolve(state, fought)
        again = request_for(after, present(after, BATTLE))
        request = {s.id: s for side in again.sides for s in side.ships}
        for result in hurt:
            assert result.core is not None
            assert after.units[result.unit].core == result.core
            record = request[result.unit].state
            assert record is not None
            assert record.out_of_control == result.core.out_of_control
            assert (record.power_core == "damaged") == result.core.power_core
            assert record.life_support == result.core.life_support
            carried += 1
    assert carried > 0
