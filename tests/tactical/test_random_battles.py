"""random_battle_test: random legal play over many seeds keeps the invariants.

No negative boxes or ammunition, no more boxes lost than a row holds, the battle ends by the turn
limit or a side gone, every position's notation round-trips, and replaying the journal (which
never rolls) gives the live final state exactly; FT Lite's presets (002) are fuzzed with the
others, and so is the rest of each catalogue (`continuum_catalogue`, `ft2_catalogue`). FT2 and
Continuum battles start with mines
between the fleets, and FT2 fleets lay and sweep more. Random commanders now and then ram (some
rams void, most out of reach); close-quarters fleets that ram most turns make contact.
Continuum fleets fire boarding torpedoes and fight the boarding actions with random allocations;
boarders are only ever aboard enemy ships still in the battle.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    BattleState,
    BoardingFought,
    FightersResolved,
    MineDetonated,
    MineLaid,
    MineSetup,
    MineSwept,
    RepairsMade,
    ShipFired,
    ShipSetup,
    ShipsMoved,
    replay,
    sides_to_assault,
    sides_to_fly,
    sides_to_repair,
    sides_to_repel,
    sides_to_write,
)
from tactical.commanders import Commander, closing_commander, order_commander, random_commander
from tactical.dice import SeededDice
from tactical.movement import format_order, parse_order
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
    "continuum": ("heavy_cruiser", "heavy_cruiser", "missile_cruiser", "assault_cruiser"),
    # FT Lite (002): FT2-built ships, and Continuum-built ones whose arcs may include the aft.
    "lite": ("light_cruiser", "frigate", "destroyer", "heavy_cruiser", "escort_cruiser"),
    "lite_continuum": ("heavy_cruiser", "light_cruiser", "frigate", "destroyer"),
    # The rest of each catalogue, fought under its own rules (`FLEET_RULES`).
    "continuum_catalogue": (
        "ew_frigate",
        "flak_destroyer",
        "heavy_missile_cruiser",
        "torpedo_cruiser",
        "lancer",
        "light_carrier",
        "strike_carrier",
        "scout",
        "frigate",
        "destroyer",
        "light_cruiser",
        "battleship",
        "fleet_tender",
        "ortillery_monitor",
    ),
    "ft2_catalogue": (
        "battlecruiser",
        "corvette",
        "courier",
        "scout",
        "weasel_scout",
        "super_heavy_cruiser",
        "survey_cruiser",
        "system_defence_ship",
        "con_am_12",
        "ftl_tug",
        "fleet_tender",
        "ortillery_monitor",
        "bulk_tanker",
    ),
}
FLEET_RULES = {"continuum_catalogue": "continuum", "ft2_catalogue": "ft2"}
"""The rules a fleet of `FLEETS` fights under, where its name is not the rules' own."""
MINE_SHIPS = {"ft2": ("minelaying_destroyer", "minesweeping_destroyer")}
"""Designs that join a fleet when the battle starts with mines."""
MAX_STEPS = 5000


def random_setup(fleet: str, rng: random.Random, mines: int = 0) -> BattleSetup:
    """Two fleets of `FLEETS[fleet]` a few dozen MU apart with random courses and speeds, and
    ``mines`` mines of either side between them (then minelayers and minesweepers may join
    the fleets)."""
    designs = FLEETS[fleet] + (MINE_SHIPS.get(fleet, ()) if mines else ())
    rules = FLEET_RULES.get(fleet, fleet)
    ships: list[ShipSetup] = []
    for side, base in (("red", 0.0), ("blue", rng.uniform(20, 60))):
        for index in range(rng.randint(1, 3)):
            ships.append(
                ShipSetup(
                    id=f"{side[0]}{index}",
                    side=side,
                    design=rng.choice(designs),
                    x=rng.uniform(-20, 20),
                    y=base + rng.uniform(-5, 5),
                    course=rng.randint(1, 12),
                    speed=rng.randint(0, 10),
                )
            )
    table = (-200.0, -200.0, 200.0, 200.0) if rng.random() < 0.3 else None
    laid = tuple(
        MineSetup(
            id=f"m{index}",
            side=rng.choice(("red", "blue")),
            x=rng.uniform(-25, 25),
            y=rng.uniform(-5, 60),
        )
        for index in range(mines)
    )
    return BattleSetup(
        sides=("red", "blue"),
        ships=tuple(ships),
        rules=rules,
        turn_limit=12,
        table=table,
        mines=laid,
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
        assert all(b.side != ship.side and b.count > 0 for b in ship.boarders)
        if state.phase == "orders":  # aboard a ship that left, fought out at the turn's end
            assert not ship.boarders or ship.status in ("active", "away")
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
        elif step.phase == "assault":
            for side in sides_to_assault(battle.ctx, battle.state):
                battle.assault(side, commanders[side].assaults(battle.ctx, battle.state, side))
        elif step.phase == "repel":
            for side in sides_to_repel(battle.ctx, battle.state):
                battle.repel(side, commanders[side].repel(battle.ctx, battle.state, side), dice)
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
    repairs = flights = torpedoes = novas = boardings = heavy_missiles = 0
    mines: dict[type, int] = {MineLaid: 0, MineSwept: 0, MineDetonated: 0}
    for seed in range(200 if rules.startswith("lite") else 120):  # 400 Lite battles
        rng = random.Random(f"{rules}/{seed}")
        setup = random_setup(rules, rng, mines=0 if rules == "ft2_reroll" else 4)
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
        boardings += sum(1 for event in battle.journal if isinstance(event, BoardingFought))
        flights += sum(1 for event in battle.journal if isinstance(event, FightersResolved))
        torpedoes += sum(
            1
            for event in battle.journal
            if isinstance(event, ShipFired)
            for shot in event.shots
            if shot.weapon.startswith(("pulse_torpedo", "needle", "submunition"))
        )
        heavy_missiles += sum(
            1
            for event in battle.journal
            if isinstance(event, ShipFired)
            for shot in event.shots
            if shot.weapon.startswith("heavy_missile")
        )
        novas += sum(
            1
            for event in battle.journal
            if isinstance(event, ShipFired)
            for shot in event.shots
            if shot.weapon.startswith("nova_cannon")
        )
        for event in battle.journal:
            if isinstance(event, ShipsMoved):
                for happened in event.mines:
                    mines[type(happened)] += 1
    assert endings["decided"] > 10  # the commanders do fight
    if rules == "continuum":
        assert boardings > 10  # boarding torpedoes land marines and they fight (000 12.7)
    if rules in ("ft2", "ft2_reroll"):
        assert flights > 10  # carriers launch and their groups fly
    if rules == "ft2":
        assert torpedoes > 10  # torpedoes, needles and packs are fired
        assert novas > 5  # nova cannons are armed and fired (001 L908-925)
        # Mines are laid and set off (001 L868-898), and swept, more rarely: a random sweeper
        # must happen to fly past one.
        assert mines[MineLaid] > 10
        assert mines[MineDetonated] > 10
        assert mines[MineSwept] > 2
    if rules == "continuum":
        assert mines[MineDetonated] > 10  # the set-up's mines fire their 4D6
        assert repairs > 10  # damage control is exercised
    if rules.startswith("lite"):
        assert repairs > 10  # Lite's damage control is exercised (002 L61-65)
    if rules == "continuum_catalogue":
        assert flights > 10  # light and strike carriers launch
        assert torpedoes > 10  # torpedo cruisers and lancers fire theirs
        assert heavy_missiles > 10  # heavy missile cruisers launch (000 L5701-5709)


@pytest.mark.parametrize("rules", sorted(FLEETS))
def test_random_rams(rules: str) -> None:
    """Fleets at close quarters whose random commanders mean to ram most turns, with the
    special option's lowest roll (001 L979): rams reach the dice, make contact and destroy
    ships, and every invariant and replay still holds."""
    tried = contacts = wrecked = 0
    for seed in range(40):
        rng = random.Random(f"ram/{rules}/{seed}")
        setup = random_setup(rules, rng)
        close = tuple(
            msgspec.structs.replace(
                ship,
                y=ship.y if ship.side == "red" else rng.uniform(0, 10),
                speed=rng.randint(0, 4),
            )
            for ship in setup.ships
        )
        setup = msgspec.structs.replace(
            setup, ships=close, ram_on={"red": 1, "blue": 1}, turn_limit=6
        )
        commanders = {side: random_commander(rng, ram=0.8) for side in setup.sides}
        battle = play_checked(setup, commanders, seed)
        assert replay(setup, battle.journal) == battle.state
        for event in battle.journal:
            if isinstance(event, ShipsMoved):
                tried += sum(1 for ram in event.rams if ram.proceed is not None)
                contacts += sum(1 for ram in event.rams if ram.contact)
                wrecked += sum(1 for ram in event.rams for hit in ram.hits if hit.destroyed)
    assert tried > 30
    assert contacts > 10
    assert wrecked > 10


@pytest.mark.parametrize(("rules", "whole"), [("ft2", True), ("ft2_reroll", True), ("ft2", False)])
def test_random_vector_battles(rules: str, whole: bool) -> None:
    """Vector movement (000 12.12): random, closing and the campaign's order commanders play
    to the end under either rounding; every invariant holds and replay equals live."""
    endings = {"decided": 0, "turn limit": 0}
    moves = voids = 0
    for seed in range(80):
        rng = random.Random(f"vector/{rules}/{whole}/{seed}")
        setup = msgspec.structs.replace(
            random_setup(rules, rng, mines=2 if seed % 2 else 0),
            movement="vector",
            vector_rounding=whole,
        )
        battle = _fought_against_each_commander(setup, rng, seed, endings)
        for event in battle.journal:
            if isinstance(event, ShipsMoved):
                for moved in event.moves:
                    assert moved.vector is not None or moved.jumped
                    moves += 1
                    voids += moved.void is not None
    assert endings["decided"] > 5
    assert 0 < voids < moves / 5  # some impossible random orders, most legal


@pytest.mark.parametrize("rules", ["ft2", "continuum"])
def test_random_spatial_battles(rules: str) -> None:
    """Spatial movement (003): random, closing and the order commanders play to the end (150
    battles a preset, Continuum's with advanced-drive lancers); every invariant holds, every
    position round-trips, every order's text reads back as itself and replay equals live."""
    endings = {"decided": 0, "turn limit": 0}
    moves = voids = spins = 0
    for seed in range(150):
        rng = random.Random(f"spatial/{rules}/{seed}")
        setup = random_setup(rules, rng, mines=2 if seed % 2 else 0)
        if rules == "continuum":
            ships = tuple(
                msgspec.structs.replace(s, design="lancer") if i % 2 else s
                for i, s in enumerate(setup.ships)
            )
            setup = msgspec.structs.replace(setup, ships=ships)
        setup = msgspec.structs.replace(setup, movement="spatial", death_blossom=seed % 3 == 0)
        battle = _fought_against_each_commander(setup, rng, seed, endings)
        for event in battle.journal:
            if isinstance(event, ShipsMoved):
                for moved in event.moves:
                    assert moved.vector is not None or moved.jumped
                    assert format_order(parse_order(moved.order)) == moved.order
                    assert moved.vector is None or moved.vector[0] % 30 == 0
                    moves += 1
                    voids += moved.void is not None
                    spins += moved.order.startswith("Spin") and moved.void is None
    assert endings["decided"] > 5
    assert spins > 5
    assert 0 < voids < moves / 5  # some impossible random orders, most legal


def _fought_against_each_commander(
    setup: BattleSetup, rng: random.Random, seed: int, endings: dict[str, int]
) -> Battle:
    """Fight `setup` to the end, red random and blue each commander in turn by seed; check
    that it ended and replays to the same state, and count how it ended in `endings`."""
    names = ("random", "closing", "engage", "stand-off", "ftl-move")
    pick = names[seed % len(names)]
    blue: Commander = (
        random_commander(rng)
        if pick == "random"
        else closing_commander()
        if pick == "closing"
        else order_commander(pick)
    )
    battle = play_checked(setup, {"red": random_commander(rng), "blue": blue}, seed)
    state = battle.state
    assert state.phase == "over"
    assert replay(setup, battle.journal) == state
    present = {s.side for s in state.ships if s.status == "active"}
    endings["decided" if len(present) < 2 else "turn limit"] += 1
    return battle
