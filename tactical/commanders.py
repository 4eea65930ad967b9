"""Simple commanders that play legal actions: a random one (for tests) and a closing one (demo).

Neither is the campaign's computer commander (issue 4 asks for one that plays Engage, Stand
Off and FTL Move); they exist to drive battles in tests, benchmarks and ``umpire battle demo``.
Their choices come from a ``random.Random`` the caller passes in; the dice stay the battle's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from tactical.battle import (
    DRIVE,
    Battle,
    BattleContext,
    BattleState,
    ShipInPlay,
    Shot,
    StepKind,
    fire_controls,
    fire_options,
    order_limits,
    repair_jobs,
    ships_to_fire,
    sides_to_repair,
    sides_to_write,
    view,
)
from tactical.dice import DiceSource
from tactical.fire import bearing, range_between
from tactical.movement import NO_ORDER, Order
from tactical.repair import MAX_PARTIES_PER_JOB, damage_control_parties

__all__ = [
    "Commander",
    "closing_commander",
    "greedy_repairs",
    "play",
    "random_commander",
]


Jobs = dict[str, dict[str, int]]
"""Damage-control jobs: ship id to {system id or ``"drive"``: parties}."""


def greedy_repairs(ctx: BattleContext, state: BattleState, side: str) -> Jobs:
    """Put parties on the drive first, then on systems in record-sheet order, three a job."""
    jobs: Jobs = {}
    for ship in state.ships:
        if ship.side != side or not _repairable(ctx, ship):
            continue
        left = damage_control_parties(ctx.sheets[ship.id], ship.record)
        work: dict[str, int] = {}
        targets = repair_jobs(ctx, ship)
        for target in sorted(targets, key=lambda t: t != DRIVE):
            if left <= 0:
                break
            work[target] = min(MAX_PARTIES_PER_JOB, left)
            left -= work[target]
        jobs[ship.id] = work
    return jobs


def _repairable(ctx: BattleContext, ship: ShipInPlay) -> bool:
    return (
        ship.status == "active"
        and bool(repair_jobs(ctx, ship))
        and (damage_control_parties(ctx.sheets[ship.id], ship.record) > 0)
    )


class Commander:
    """A side's choices: the orders it writes, the firing turns it takes, its repairs."""

    def __init__(
        self,
        orders: Callable[[BattleContext, BattleState, str], dict[str, Order]],
        fire: Callable[[BattleContext, BattleState, str], tuple[str, list[Shot]]],
        repairs: Callable[[BattleContext, BattleState, str], Jobs] = greedy_repairs,
    ) -> None:
        self.orders = orders
        self.fire = fire
        self.repairs = repairs


def _random_order(rng: random.Random, thrust: int, limit: int, speed: int, pivot: bool) -> Order:
    if rng.random() < 0.2:
        return NO_ORDER
    if pivot and speed == 0 and rng.random() < 0.3:
        return Order(pivot=rng.randint(1, 12))
    turn = rng.randint(-limit, limit) if limit else 0
    room = thrust - abs(turn)
    accel = rng.randint(max(-room, -speed), room) if room else 0
    return Order(turn=turn, accel=accel)


def _random_shots(
    ctx: BattleContext, state: BattleState, ship_id: str, rng: random.Random
) -> list[Shot]:
    options = fire_options(ctx, state, ship_id)
    reachable = sorted({t for targets in options.values() for t in targets})
    rng.shuffle(reachable)
    chosen = set(reachable[: fire_controls(ctx, state.ship(ship_id))])
    shots: list[Shot] = []
    for weapon, targets in options.items():
        allowed = [t for t in targets if t in chosen]
        if allowed and rng.random() < 0.9:
            shots.append(Shot(weapon, rng.choice(allowed)))
    return shots


def random_commander(rng: random.Random, *, impossible: float = 0.05) -> Commander:
    """Return a commander that writes random orders and fires random legal shots.

    With probability ``impossible`` an order is over the ship's thrust, to exercise the "no
    order" rule (001 L364).
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        for ship in state.ships:
            if ship.side != side or ship.status != "active":
                continue
            if rng.random() < impossible:
                written[ship.id] = Order(turn=-1, accel=order_limits(ctx, ship)[0] + 1)
                continue
            thrust, limit = order_limits(ctx, ship)
            pivot = ctx.rules.pivot_any_course
            written[ship.id] = _random_order(rng, thrust, limit, ship.speed, pivot)
        return written

    def fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        ship_id = rng.choice(ships_to_fire(ctx, state, side))
        return ship_id, _random_shots(ctx, state, ship_id, rng)

    def repairs(ctx: BattleContext, state: BattleState, side: str) -> Jobs:
        jobs: Jobs = {}
        for ship in state.ships:
            if ship.side != side or not _repairable(ctx, ship) or rng.random() < 0.2:
                continue
            left = damage_control_parties(ctx.sheets[ship.id], ship.record)
            work: dict[str, int] = {}
            for target in rng.sample(repair_jobs(ctx, ship), len(repair_jobs(ctx, ship))):
                if left <= 0:
                    break
                work[target] = rng.randint(1, min(MAX_PARTIES_PER_JOB, left))
                left -= work[target]
            jobs[ship.id] = work
        return jobs

    return Commander(orders, fire, repairs)


def closing_commander(cruise: int = 8) -> Commander:
    """Return a commander that turns towards the nearest enemy at about ``cruise`` speed and
    fires every gun that bears at the nearest targets its FireCons allow."""

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        enemies = [s for s in state.ships if s.side != side and s.status == "active"]
        for ship in state.ships:
            if ship.side != side or ship.status != "active" or not enemies:
                continue
            nearest = min(enemies, key=lambda e: range_between(ship.x, ship.y, e.x, e.y))
            thrust, limit = order_limits(ctx, ship)
            off = bearing(ship.x, ship.y, ship.course, nearest.x, nearest.y)
            turn = max(-limit, min(limit, round(off / 30)))
            room = thrust - abs(turn)
            accel = max(-room, -ship.speed, min(room, cruise - ship.speed))
            written[ship.id] = Order(turn=turn, accel=accel)
        return written

    def fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        ship_id = ships_to_fire(ctx, state, side)[0]
        ship = state.ship(ship_id)
        options = fire_options(ctx, state, ship_id)
        reachable = sorted(
            {t for targets in options.values() for t in targets},
            key=lambda t: (
                math.floor(range_between(ship.x, ship.y, state.ship(t).x, state.ship(t).y)),
                t,
            ),
        )
        chosen = reachable[: fire_controls(ctx, ship)]
        shots = [
            Shot(weapon, next(t for t in chosen if t in targets))
            for weapon, targets in options.items()
            if any(t in chosen for t in targets)
        ]
        return ship_id, shots

    return Commander(orders, fire)


def play(battle: Battle, commanders: dict[str, Commander], dice: DiceSource) -> Battle:
    """Play a battle to its end with one commander per side and the given dice."""
    while True:
        step = battle.step()
        if step.kind == StepKind.TERMINAL:
            return battle
        if step.kind == StepKind.SIMULTANEOUS and step.phase == "repair":
            for side in sides_to_repair(battle.ctx, battle.state):
                jobs = commanders[side].repairs(battle.ctx, battle.state, side)
                battle.repair(side, jobs, dice)
        elif step.kind == StepKind.SIMULTANEOUS:
            for side in sides_to_write(battle.ctx, battle.state):
                seen = view(battle.state, side)  # the other side's orders stay secret
                battle.write_orders(side, commanders[side].orders(battle.ctx, seen, side))
        elif step.kind == StepKind.CHANCE:
            battle.resolve(dice)
        else:
            assert step.side is not None
            ship_id, shots = commanders[step.side].fire(battle.ctx, battle.state, step.side)
            battle.fire(ship_id, shots, dice)
