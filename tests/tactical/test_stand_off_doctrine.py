"""Issue 17: Stand Off "seeks to maintain its distance" (004 L109-110): seeded campaign battles
against Engage, the Continuum default fleets, in which its ships keep the range they want
(outside the enemy's reach, or its longest band when their own guns reach further) instead of
closing to fire, and do not close on bogeys they cannot yet identify."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from campaign.rules.setup import CONTINUUM_DEFAULT_FLEET
from tactical.battle import (
    BattleContext,
    BattleSetup,
    BattleState,
    ShipSetup,
    initial_state,
    order_limits,
)
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    resolve_campaign_battle,
)
from tactical.commanders import order_commander
from tactical.commanders.scoring import enemies_of, reach_of
from tactical.commanders.stand_off import STAND_OFF_MARGIN_MU
from tactical.commanders.steering import end_of
from tactical.dice import SeededDice
from tactical.fire import range_between
from tactical.movement import Order
from tactical.setup import context
from tactical.state import velocity
from tests.tactical import extra_designs

FLEET = [line.design for line in CONTINUUM_DEFAULT_FLEET.ships for _ in range(line.count)]


def _battle(movement: str) -> CampaignBattle:
    def side(name: str, order: str) -> CampaignSide:
        ships = tuple(
            CampaignShip(id=f"{name}-{n}-{design}", design=design)
            for n, design in enumerate(FLEET, start=1)
        )
        return CampaignSide(name=name, order=order, ships=ships)

    return CampaignBattle(
        sides=(side("red", "stand-off"), side("blue", "engage")),
        key="stand-off",
        rules="continuum",
        movement=movement,  # type: ignore[arg-type]
    )


class _Watched(NamedTuple):
    """A Stand Off ship at one turn's orders, as bench/bench_commanders.py counts it."""

    near: float  # its range to the nearest enemy
    keep: float  # the range it wants
    reach: float  # the enemy's longest reach
    outrun: bool  # its drive no weaker than the nearest enemy's: it can hold the range


def _watched(movement: str, seed: str) -> dict[int, list[_Watched]]:
    """Each turn from the second: each Stand Off ship when it writes its orders."""
    stand_off = order_commander("stand-off")
    write = stand_off.orders
    seen: dict[int, list[_Watched]] = {}

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        enemies = enemies_of(state, side)
        if enemies and state.turn > 1:
            theirs = max(reach_of(ctx, e) for e in enemies)
            for ship in state.ships:
                if ship.side != side or ship.status != "active":
                    continue
                mine = reach_of(ctx, ship)
                keep = (
                    (theirs + mine) / 2
                    if mine > theirs + STAND_OFF_MARGIN_MU
                    else theirs + STAND_OFF_MARGIN_MU
                )
                nearest = min(enemies, key=lambda e: range_between(ship.x, ship.y, e.x, e.y))
                near = range_between(ship.x, ship.y, nearest.x, nearest.y)
                outrun = order_limits(ctx, ship)[0] >= order_limits(ctx, nearest)[0]
                seen.setdefault(state.turn, []).append(_Watched(near, keep, theirs, outrun))
        return write(ctx, state, side)

    stand_off.orders = orders
    chosen = {"red": stand_off, "blue": order_commander("engage")}
    resolve_campaign_battle(_battle(movement), SeededDice(seed), chosen)
    return seen


def _ranges(movement: str, seed: str) -> dict[int, list[tuple[float, float]]]:
    """Each turn from the second: each Stand Off ship's range to the nearest enemy when it
    writes its orders, and the range it wants."""
    return {
        turn: [(w.near, w.keep) for w in ships] for turn, ships in _watched(movement, seed).items()
    }


def test_stand_off_keeps_the_range_it_wants_under_vector_movement() -> None:
    """Three seeded vector battles (the campaign's movement, 004 L43): over the first six
    turns (the fleets start 60 MU apart, closing) the Stand Off ships lie on average within
    12 MU of the range they want (now 42 of 52 MU). Before the rework they closed to fire and
    flew at the unidentified bogeys of the first turn: 34 of 52 MU."""
    held: list[float] = []
    wanted: list[float] = []
    for run in range(3):
        ranges = _ranges("vector", f"stand-off/{run}")
        for turn in range(2, 7):
            held.extend(near for near, _ in ranges.get(turn, []))
            wanted.extend(keep for _, keep in ranges.get(turn, []))
    assert held
    assert sum(wanted) / len(wanted) - sum(held) / len(held) <= 12.0


def test_stand_off_keeps_the_range_it_wants_under_cinematic_movement() -> None:
    """Three seeded cinematic battles: over every turn from the second the Stand Off ships lie
    on average within 9 MU of the range they want (7.2 MU short now). Looking three moves
    ahead, flying straight on only, and two moves at the bogeys of the first turn, the big
    ships stopped facing the enemy on the first turn, could not turn away in time and were
    caught: 12.7 MU short."""
    held: list[float] = []
    wanted: list[float] = []
    for run in range(3):
        for ranges in _ranges("cinematic", f"stand-off/{run}").values():
            held.extend(near for near, _ in ranges)
            wanted.extend(keep for _, keep in ranges)
    assert held
    assert sum(wanted) / len(wanted) - sum(held) / len(held) <= 9.0


def test_stand_off_does_not_close_on_bogeys() -> None:
    """The fleets start 60 MU apart, each ship unidentified to the other side: a Stand Off
    fleet turns away on the first turn, so at the second its nearest ship to an enemy still
    lies 35 MU off or more (35.2-40 MU now: under cinematic movement a destroyer turning its
    stern to them comes round through a broadside at 7 MU; steering at the bogeys as before,
    29-31 MU)."""
    for movement in ("vector", "cinematic"):
        ranges = _ranges(movement, "stand-off/0")
        assert min(near for near, _ in ranges[2]) >= 35.0, movement


SLOW_GUNBOAT = """
name = "Slow Gunboat"
rules = "continuum"
provenance = "test design: a gunboat with a Beam-2 (24 MU) and a drive of thrust 1"
mass = 30
thrust = 1
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam2"
arcs = ["F", "FP", "FS", "AP", "AS", "A"]
"""


def test_stand_off_does_not_flee_a_ship_its_drive_outruns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Stand Off heavy cruiser (Beam-3s, 36 MU; thrust 4) lies still 33 MU from a gunboat
    whose Beam-2 reaches 24 MU and whose drive makes 1 MU a move: it keeps 30 MU, half way
    between the two reaches. Taking every enemy to chase it at 6 MU a move, it saw the gunboat
    inside 30 MU a move later and ran out of its own reach; reading the gunboat's own drive,
    it stays within its guns' 36 MU, this move and the next (under vector movement, the
    campaign's, 004 L43: it backed away at 2 MU a move, 37 MU off the next)."""
    extra_designs.install(monkeypatch, {"slow_gunboat": SLOW_GUNBOAT})
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12),
            ShipSetup(id="b1", side="blue", design="slow_gunboat", x=0, y=33, course=6),
        ),
        rules="continuum",
        movement="vector",
    )
    ctx = context(setup)
    state = initial_state(ctx)
    order = order_commander("stand-off").orders(ctx, state, "red")["r1"]
    end = end_of(ctx, state.ship("r1"), order)
    vx, vy = velocity(end)
    assert range_between(end.x, end.y, 0, 33) <= 36.0
    assert range_between(end.x + vx, end.y + vy, 0, 33) <= 36.0  # and a move later


def _gone(movement: str, seed: str) -> dict[int, list[str]]:
    """Each turn: the Stand Off ships that have left the table (disengaged, 004 L136) by the
    time the side writes its orders."""
    stand_off = order_commander("stand-off")
    write = stand_off.orders
    gone: dict[int, list[str]] = {}

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        gone[state.turn] = [
            s.id for s in state.ships if s.side == side and s.status in ("left", "away")
        ]
        return write(ctx, state, side)

    stand_off.orders = orders
    chosen = {"red": stand_off, "blue": order_commander("engage")}
    resolve_campaign_battle(_battle(movement), SeededDice(seed), chosen)
    return gone


def test_stand_off_stays_in_the_battle_under_cinematic_movement() -> None:
    """Stand Off "seeks to maintain its distance while retaining its presence" (004
    L109-110): three seeded cinematic battles, in which at most one Stand Off ship of the 30
    leaves the table.
    Weighing neither the float limit nor the edges, its ships ran from Engage's so far from
    the enemy's rear that the table was fixed on the seventh turn (two opposing ships more
    than 150 MU apart, 004 L133-135) with them 6 MU from its edge at 20-30 MU a move, and 3
    to 6 of its 10 ships left it in each battle: no range kept, no gun fired."""
    left = set()
    for run in range(3):
        gone = _gone("cinematic", f"stand-off/{run}")
        left |= {(run, ship) for ships in gone.values() for ship in ships}
    # Set up turned away from the enemy (docs/rulings.md), the fleet runs faster: one ship of
    # the 30 still leaves late in one battle, not 3 to 6 of each 10.
    assert len(left) <= 1, left


def test_stand_off_banks_the_range_from_chasers_it_cannot_outrun() -> None:
    """Engage's thrust-6 escorts charge a Stand Off fleet whose capital ships and cruisers have
    thrust 4 and 5 (cinematic movement): they cannot hold the range, only delay the chasers,
    so each MU opened early is a MU the chasers must make up. Three seeded battles: over
    turns 2-6 at most 30% of the Stand Off ships' turns lie inside the enemy's reach (24%
    now). Paying for range beyond the one it kept as it paid when its guns would fall silent,
    the thrust-4 battleship gathered 2 MU of speed on the first turn, not 4, the weighing's
    four moves ahead not seeing the escorts come on, and the light cruisers eased off to hold
    52 MU: 44% (all three ships of the cruiser line inside 48 MU by turn 4)."""
    inside = total = 0
    for run in range(3):
        ranges = _ranges("cinematic", f"stand-off/{run}")
        for turn in range(2, 7):
            for near, keep in ranges.get(turn, []):
                # Every ship here keeps the enemy's reach (48 MU, its battleship) + margin.
                inside += near < keep - STAND_OFF_MARGIN_MU
                total += 1
    assert total
    assert inside / total <= 0.30, inside / total


def _held(movement: str, seed: str) -> list[tuple[int, bool]]:
    """Each turn 2-6: each Stand Off ship whose drive is no weaker than the nearest enemy's,
    and whether it lies out of the enemy's reach (as bench/bench_commanders.py counts it)."""
    return [
        (turn, w.near > w.reach)
        for turn, ships in _watched(movement, seed).items()
        if turn <= 6
        for w in ships
        if w.outrun
    ]


def test_stand_off_runs_from_a_chaser_its_drive_only_matches() -> None:
    """Under cinematic movement a Stand Off ship whose drive matches the chaser's holds the
    range only by running as hard as the chaser comes on. Paying for the range beyond the one
    it keeps where it weighed turning away too, it weighed fleeing from a lower speed as the
    cheaper and braked on the second turn (bench_commanders' red-8 destroyer slowed from 9 to
    6 MU a move, inside the escorts' 48 MU by the fourth turn). Three seeded battles: over
    turns 2-6 those ships lie out of the enemy's reach in 92% of their 75 turns (80% before)."""
    held = [out for run in range(3) for _turn, out in _held("cinematic", f"stand-off/{run}")]
    assert held
    assert sum(held) / len(held) >= 0.88, sum(held) / len(held)


def test_stand_off_runs_from_a_chaser_its_drive_only_matches_under_vector_movement() -> None:
    """Under vector movement the fleets set up closing at 4 MU a move each: a Stand Off ship
    set up facing the enemy, whose drive only matches the chaser's, could not win back that
    closing speed and lay inside the enemy's reach by the second turn. Set up running from
    the enemy, and earning the range beyond the one it keeps where it weighs fleeing
    (docs/rulings.md), three seeded battles: over turns 2-6 those ships lie out of the
    enemy's reach in 92% of their 75 turns (55% before)."""
    held = [out for run in range(3) for _turn, out in _held("vector", f"stand-off/{run}")]
    assert held
    assert sum(held) / len(held) >= 0.85, sum(held) / len(held)
