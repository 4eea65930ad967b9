"""Where an enemy salvo may be waiting for a ship, so that its move can leave it elsewhere.

A salvo is launched at an aim point in the fire phase and homes, after the ships move, on the
nearest enemy within its attack radius of that point (000 L5724-5748): 6 MU, 3 MU against a
vector-drive ship. Its aim is where the target will be if it flies straight on (the
commanders' own doctrine, :func:`tactical.commanders.scoring.salvo_shots`), and the salvo is
not shown to the target's side until the ships have moved (tactical.battle.view). A ship
that ends its move within the radius of that point meets the whole salvo; one that ends
outside it meets none. Two Engage heavy cruisers that each flew straight on into the other's
salvo were both struck or destroyed on the same turn in most of the heavy cruisers' drawn
mirrors (issue 17).

Only what the side knows is read: an enemy whose systems it knows is feared only for the
launchers and racks it still has ready; one it knows less well may carry anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tactical.battle import BattleContext, BattleState, ShipInPlay, velocity
from tactical.missiles import (
    ATTACK_RADIUS_MU,
    ER_RANGE_MU,
    LAUNCHERS,
    RACKS,
    VECTOR_ATTACK_RADIUS_MU,
    launch_range,
    launcher_ready,
)
from tactical.movement import heading_vector
from tactical.sensors import SYSTEMS_KNOWN

if TYPE_CHECKING:
    from tactical.commanders.tactics import FloatArray

SALVO_CLEAR_MU = 0.5
"""How far beyond a salvo's attack radius a ship means to end, against the rounding of its
move and of the aim."""


def salvo_reach(ctx: BattleContext, enemy: ShipInPlay) -> float:
    """How far from where it stands an enemy may have aimed a salvo: the longest reach of its
    ready launchers and racks (:func:`tactical.missiles.launch_range`), none if it has none;
    an enemy whose systems the side does not know may carry extended range missiles."""
    if unseen_launcher(enemy):
        return ER_RANGE_MU
    sheet = ctx.sheets[enemy.id]
    known = _REACHES.get(id(enemy))
    if known is not None and known[0] is enemy and known[1] is sheet:
        return known[2]
    reach = max(
        (
            launch_range(sheet, spec.id)[0]
            for spec in sheet.systems
            if (spec.kind in LAUNCHERS or spec.kind in RACKS)
            and launcher_ready(sheet, enemy.record, spec.id)
        ),
        default=0.0,
    )
    if len(_REACHES) >= REACHES_KEPT:
        _REACHES.clear()
    _REACHES[id(enemy)] = (enemy, sheet, reach)
    return reach


_REACHES: dict[int, tuple[ShipInPlay, object, float]] = {}
""":func:`salvo_reach` by the enemy ship's identity, each entry holding the ship and the record
sheet it was read off (the reach is read off those alone): a side's orders ask it of each
enemy for each of its ships."""

REACHES_KEPT = 4096
"""How many entries :data:`_REACHES` keeps before it starts again (a memory bound only)."""


def unseen_launcher(enemy: ShipInPlay) -> bool:
    """Whether the side does not know the enemy's systems, so it may carry salvo launchers
    its estimate of the ship does not show (tactical.battle.side_view)."""
    return enemy.sighting is not None and enemy.sighting.level < SYSTEMS_KNOWN


def salvo_aims(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay
) -> list[tuple[float, float]]:
    """The points an enemy salvo launched last turn may be waiting at for this ship: where it
    will be flying straight on (along its bow at its speed, as the commanders aim; under
    vector movement its drift too), each within the salvo reach of an enemy as it stands
    (it fired from there)."""
    dx, dy = heading_vector(ship.course)
    points = [(ship.x + dx * ship.speed, ship.y + dy * ship.speed)]
    if ship.vector is not None:
        vx, vy = velocity(ship)
        points.append((ship.x + vx, ship.y + vy))
    reach = {
        e.id: salvo_reach(ctx, e)
        for e in state.ships
        if e.side != ship.side and e.status == "active"
    }
    return [
        (x, y)
        for x, y in points
        if any(
            math.hypot(e.x - x, e.y - y) <= reach[e.id]
            for e in state.ships
            if e.id in reach and reach[e.id] > 0
        )
    ]


def salvo_share(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> float:
    """The chance that a salvo waits for this ship, when an enemy that may launch one reaches
    its straight flight: one in as many ships as its side has in play (an enemy fires each
    salvo at one of them), none if no enemy reaches it. A ship fighting a duel is the only
    target; in a fleet battle, dodging every place an enemy might aim costs more fire than it
    saves (Engage, dodging at four dice whatever the share, won 4 of 40 vector fleet battles
    against the closing commander instead of 24, and its cinematic fleet mirrors drew more)."""
    dx, dy = heading_vector(ship.course)
    x, y = ship.x + dx * ship.speed, ship.y + dy * ship.speed
    if not any(
        enemy.side != ship.side
        and enemy.status == "active"
        and math.hypot(enemy.x - x, enemy.y - y) <= salvo_reach(ctx, enemy)
        for enemy in state.ships
    ):
        return 0.0
    return 1 / sum(s.side == ship.side and s.status == "active" for s in state.ships)


def attack_radius(ctx: BattleContext) -> float:
    """A salvo's attack radius in this battle (tactical.phases.ordnance)."""
    return VECTOR_ATTACK_RADIUS_MU if ctx.rules.movement == "vector" else ATTACK_RADIUS_MU


def in_salvo_reach(
    ctx: BattleContext, aims: Sequence[tuple[float, float]], x: FloatArray, y: FloatArray
) -> FloatArray:
    """1.0 for each move end (``x``, ``y``) within a salvo's attack radius (and
    :data:`SALVO_CLEAR_MU`) of one of ``aims``, else 0.0."""
    import numpy as np

    exposed: FloatArray = np.zeros(len(x), dtype=np.float64)
    near = attack_radius(ctx) + SALVO_CLEAR_MU
    for ax, ay in aims:
        exposed = np.maximum(exposed, (np.hypot(x - ax, y - ay) <= near).astype(np.float64))
    return exposed
