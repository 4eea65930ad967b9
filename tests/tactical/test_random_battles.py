"""random_battle_test: random legal play over many seeds keeps the invariants.

No negative boxes or ammunition, no more boxes lost than a row holds, the battle ends by the turn
limit or a side gone, every position's notation round-trips, and replaying the journal (which
never rolls) gives the live final state exactly.
"""

from __future__ import annotations

import random

import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    BattleState,
    FightersResolved,
    RepairsMade,
    ShipFired,
    ShipSetup,
    replay,
    sides_to_fly,
    sides_to_repair,
    sides_to_write,
)
from tactical.commanders import Commander, closing_commander, random_commander
from tactical.dice import SeededDice
from tactical.notation import format_position, parse_position
from tactical.ship import hull_remaining

FLEETS = {
    "ft2": (
        "light_cruiser",
        "frigate",
        "destroyer",
        "battleship",
        "light_carrier",
        "missile_destroyer",
        "needle_cruiser",
        "fast_missile_boat",
        "nova_dreadnought",
    ),
    "ft2_reroll": ("heavy_cruiser", "frigate", "escort_cruiser", "fleet_carrier"),
    "continuum": ("heavy_cruiser", "heavy_cruiser"),
}
MAX_STEPS = 5000


def random_setup(rules: str, rng: random.Random) -> BattleSetup:
    """Two fleets a few dozen MU apart with random courses and speeds."""
    ships: list[ShipSetup] = []
    for side, base in (("red", 0.0), ("blue", rng.uniform(20, 60))):
        for index in range(rng.randint(1, 3)):
            ships.append(
                ShipSetup(
                    id=f"{side[0]}{index}",
                    side=side,
                    design=rng.choice(FLEETS[rules]),
                    x=rng.uniform(-20, 20),
                    y=base + rng.uniform(-5, 5),
                    course=rng.randint(1, 12),
                    speed=rng.randint(0, 10),
                )
            )
    table = (-200.0, -200.0, 200.0, 200.0) if rng.random() < 0.3 else None
    return BattleSetup(
        sides=("red", "blue"), ships=tuple(ships), rules=rules, turn_limit=12, table=table
    )


def check_invariants(battle: Battle) -> None:
    state: BattleState = battle.state
    for ship in state.ships:
        sheet = battle.ctx.sheets[ship.id]
        record = ship.record
        assert all(
            0 <= lost <= size for lost, size in zip(record.hull_lost, sheet.rows, strict=True)
        )
        assert 0 <= record.armour_lost <= sheet.armour
        assert hull_remaining(sheet, record) >= 0
        assert all(s.ammo is None or s.ammo >= 0 for s in record.systems)
        assert all(s.fighters is None or s.fighters >= 0 for s in record.systems)
        if ship.status == "active" and state.phase == "orders":
            assert hull_remaining(sheet, record) > 0
    for group in state.fighters:
        assert group.fighters > 0  # wiped-out groups leave the table
        assert group.endurance is None or group.endurance >= 0
        bay = next(s for s in state.ship(group.carrier).record.systems if s.id == group.bay)
        assert bay.fighters == 0  # a group in flight is not also aboard
    rules, parsed = parse_position(format_position(battle.ctx.setup.rules, state))
    assert rules == battle.ctx.setup.rules
    assert parsed == state


def play_checked(setup: BattleSetup, commanders: dict[str, Commander], seed: int) -> Battle:
    battle = Battle(setup)
    dice = SeededDice(seed)
    for _ in range(MAX_STEPS):
        check_invariants(battle)
        step = battle.step()
        if step.kind == "terminal":
            return battle
        if step.phase == "repair":
            for side in sides_to_repair(battle.ctx, battle.state):
                jobs = commanders[side].repairs(battle.ctx, battle.state, side)
                battle.repair(side, jobs, dice)
        elif step.phase == "flight":
            for side in sides_to_fly(battle.ctx, battle.state):
                battle.fly(side, commanders[side].flight(battle.ctx, battle.state, side))
        elif step.kind == "simultaneous":
            for side in sides_to_write(battle.ctx, battle.state):
                battle.write_orders(side, commanders[side].orders(battle.ctx, battle.state, side))
        elif step.kind == "chance":
            battle.resolve(dice)
        else:
            assert step.side is not None
            ship_id, shots = commanders[step.side].fire(battle.ctx, battle.state, step.side)
            battle.fire(ship_id, shots, dice)
    pytest.fail(f"seed {seed}: the battle did not end in {MAX_STEPS} steps")


@pytest.mark.parametrize("rules", sorted(FLEETS))
def test_random_battles(rules: str) -> None:
    endings = {"decided": 0, "turn limit": 0}
    repairs = flights = torpedoes = novas = 0
    for seed in range(120):
        rng = random.Random(f"{rules}/{seed}")
        setup = random_setup(rules, rng)
        commanders = {"red": random_commander(rng), "blue": random_commander(rng)}
        if seed % 3 == 0:
            commanders["blue"] = closing_commander(cruise=rng.randint(4, 10))
        battle = play_checked(setup, commanders, seed)
        state = battle.state
        assert state.phase == "over"
        assert state.turn <= setup.turn_limit
        present = {s.side for s in state.ships if s.status == "active"}
        if state.winner is not None:
            assert present == {state.winner}
        elif present == {"red", "blue"}:
            assert state.turn == setup.turn_limit
        endings["decided" if len(present) < 2 else "turn limit"] += 1
        assert replay(setup, battle.journal) == state
        repairs += sum(1 for event in battle.journal if isinstance(event, RepairsMade))
        flights += sum(1 for event in battle.journal if isinstance(event, FightersResolved))
        torpedoes += sum(
            1
            for event in battle.journal
            if isinstance(event, ShipFired)
            for shot in event.shots
            if shot.weapon.startswith(("pulse_torpedo", "needle", "submunition"))
        )
        novas += sum(
            1
            for event in battle.journal
            if isinstance(event, ShipFired)
            for shot in event.shots
            if shot.weapon.startswith("nova_cannon")
        )
    assert endings["decided"] > 10  # the commanders do fight
    if rules.startswith("ft2"):
        assert flights > 10  # carriers launch and their groups fly
    if rules == "ft2":
        assert torpedoes > 10  # torpedoes, needles and packs are fired
        assert novas > 5  # nova cannons are armed and fired (001 L908-917)
    if rules == "continuum":
        assert repairs > 10  # damage control is exercised
