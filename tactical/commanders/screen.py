"""Engage's screen under cinematic movement (issue 17): once the fleets close, a cinematic
Engage side's escorts keep behind its capital ships, so that no enemy finds an escort alone
ahead of the fleet, nearer it than every ship that could stand its fire
(docs/rulings.md, "Tactical: Engage and FTL Move as an admiral plays them").

An escort is a ship of less than :data:`ESCORT_SHARE` of the mass of the side's largest ship
in play; the others are its capital ships. Once the capital ships' moves bring one within
:data:`SCREEN_RANGE_MU` of an enemy's forecast place (flown straight on), each escort whose
own move would end nearer an enemy's forecast place than the side's nearest capital ship to
that enemy (less :data:`SCREEN_MARGIN_MU`) takes instead the move nearest its own end that
keeps it behind them. Everything is read from the side's own view: its orders, and the
enemies as it sees them.

The screen is not kept once the enemy's fire has shown that it spares the smallest ships
(:func:`_escorts_spared`, read off the side's own record sheets): an enemy that fires at what
is nearest and aims its salvos at the straight flight of the ship with the least hull (the
closing commander) had its salvos led to the battleship by frigates screened just behind it
(docs/rulings.md, "Engage's escorts read the enemy's fire").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tactical.battle import BattleContext, BattleState, ShipInPlay, velocity
from tactical.commanders.scoring import order_text
from tactical.commanders.steering import end_of
from tactical.commanders.tactics import Candidate, candidates
from tactical.movement import Order

ESCORT_SHARE = 0.4
"""A ship of less than this share of the mass of its side's largest ship in play is an
escort (of the Continuum default fleet's battleship, 124: the destroyers, 38, and frigates,
24; the light cruisers, 60, stand in the line). In seeded cinematic battles (seed 99, with a
softer screen and closing to 6 MU), screening the light cruisers too (0.6) won 66.5% of 200
decisive against the closing commander and 60% against the baseline; the frigates alone
(0.3) 71% and 59% of 400, as without a screen."""

SCREEN_RANGE_MU = 12.0
"""The screen is kept once a capital ship's move ends within this of an enemy's forecast
place (the first range band: every beam rolls its full dice). Within 9 MU it won 75% and 56%
of 400 (seed 99), within 16 MU 71% and 70%, within 12 MU 74.5% and 69%; kept during the
approach only (softer, closing to 6 MU) 62% and 50% of 200."""

SCREEN_MARGIN_MU = 1.0
"""How much further than the side's nearest capital ship from each enemy an escort keeps (0
won 70.5% and 56%, 2 73.5% and 61%: 400 battles a cell, seed 99)."""

SCREEN_WEIGHT = 16.0
"""What an escort pays for each MU it would end inside the screen, in MU of its end's miss
from the move it wanted (4 won 70.5% and 68.5%, 1 66% and 56%: a soft screen lets the
escorts through)."""


def screened(
    ctx: BattleContext,
    state: BattleState,
    side: str,
    enemies: Sequence[ShipInPlay],
    written: dict[str, Order],
) -> dict[str, Order]:
    """The side's orders with its cinematic escorts held behind its capital ships (the
    module's doctrine). Orders to arm a nova cannon or to ram stand; so does every order
    while the side has no escort or no capital ship among its cinematic ships."""
    ours = [
        s
        for s in state.ships
        if s.side == side
        and s.status == "active"
        and s.vector is None
        and s.id in written
        and not written[s.id].nova
        and written[s.id].ram is None
    ]
    if not ours or not enemies:
        return written
    largest = max(ctx.sheets[s.id].mass for s in ours)
    escorts = [s for s in ours if ctx.sheets[s.id].mass < ESCORT_SHARE * largest]
    capitals = [s for s in ours if ctx.sheets[s.id].mass >= ESCORT_SHARE * largest]
    if not escorts or not capitals or _escorts_spared(ctx, state, side):
        return written
    forecast = []
    for enemy in enemies:
        dx, dy = velocity(enemy)
        forecast.append((enemy.x + dx, enemy.y + dy))
    ends = [end_of(ctx, s, written[s.id]) for s in capitals]
    line = [min(math.hypot(end.x - fx, end.y - fy) for end in ends) for fx, fy in forecast]
    if min(line) > SCREEN_RANGE_MU:
        return written
    screen = _Screen(forecast, line)
    kept = dict(written)
    for ship in escorts:
        wanted = end_of(ctx, ship, written[ship.id])
        if screen.inside(wanted.x, wanted.y) == 0.0:
            continue

        def cost(
            move: Candidate, wanted_x: float = wanted.x, wanted_y: float = wanted.y
        ) -> tuple[float, str]:
            miss = math.hypot(move.x - wanted_x, move.y - wanted_y)
            weighed = miss + SCREEN_WEIGHT * screen.inside(move.x, move.y)
            return round(weighed, 6), order_text(move.order)

        kept[ship.id] = min(candidates(ctx, ship), key=cost).order
    return kept


def _escorts_spared(ctx: BattleContext, state: BattleState, side: str) -> bool:
    """Whether the enemy's fire so far has fallen on the side's capital ships and on none of
    its smallest ships (read off the side's own record sheets): the enemy fires at what is
    nearest, not at the smallest ship it reaches, so escorts held behind the capital ships
    only lead its salvos to them."""
    own = [s for s in state.ships if s.side == side]
    largest = max(ctx.sheets[s.id].mass for s in own)
    smallest = min(ctx.sheets[s.id].mass for s in own)
    hit_smallest = hit_capital = False
    for ship in own:
        hit = ship.status != "active" or sum(ship.record.hull_lost) + ship.record.armour_lost > 0
        mass = ctx.sheets[ship.id].mass
        if mass == smallest:
            hit_smallest |= hit
        elif mass >= ESCORT_SHARE * largest:
            hit_capital |= hit
    return hit_capital and not hit_smallest


class _Screen:
    """The line an escort keeps behind: each enemy's forecast place, and the range from it
    to the side's nearest capital ship's end."""

    def __init__(self, forecast: list[tuple[float, float]], line: list[float]) -> None:
        self.forecast = forecast
        self.line = line

    def inside(self, x: float, y: float) -> float:
        """How far inside the screen a point lies, summed over the enemies: the MU it is
        nearer each than the side's nearest capital ship and :data:`SCREEN_MARGIN_MU`."""
        return sum(
            max(0.0, near + SCREEN_MARGIN_MU - math.hypot(x - fx, y - fy))
            for (fx, fy), near in zip(self.forecast, self.line, strict=True)
        )
