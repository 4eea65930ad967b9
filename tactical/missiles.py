"""Salvo missiles as pure functions: the salvo counter, launchers and magazines, homing and the
on-target die (Project Continuum 000 6.2-6.6, L5639-6297; the campaign's "Salvo Missile Systems
Rules from Fleet Book 1", 004 L48).

A salvo is a counter of its own on the table (:class:`Salvo`): launched at an aim point by a
one-shot rack (``smr``, ``smr_er``) or by a launcher (``sml``) fed from a magazine, it lies
still while the ships move and then homes on the nearest enemy within its attack radius
(:func:`homing_target`), or is wasted. The battle (:mod:`tactical.battle`) decides when; this
module holds the tables and the geometry.

>>> salvo_id("r1", "sml-1", 3)
'r1.sml-1.t3'
>>> hits_through(5, kills=1, defended=True), hits_through(2, kills=3, defended=True)  # L5887
(4, 0)
>>> sap_split(3), sap_split(6)  # half rounded up may go on armour (000 L5944-5946)
((2, 1), (3, 3))
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from msgspec import Struct

from tactical.movement import round_mu
from tactical.ship import Ship, ShipState, read_off

__all__ = [
    "ATTACK_RADIUS_MU",
    "ER_RANGE_MU",
    "FLIGHT_ARC_DEGREES",
    "HEAVY_DICE",
    "HEAVY_KILL_ON",
    "HEAVY_RACKS",
    "LAUNCHERS",
    "MAGAZINES",
    "MULTI_STAGE",
    "RACKS",
    "SALVO_AIM",
    "STAGE_MAX_MU",
    "STAGE_MIN_MU",
    "STANDARD_RANGE_MU",
    "VECTOR_ATTACK_RADIUS_MU",
    "Salvo",
    "facing_to",
    "feeds",
    "first_stage_aim",
    "flight_aim",
    "flight_problem",
    "format_aim",
    "hits_through",
    "homing_target",
    "launch_range",
    "launcher_ready",
    "multi_stage",
    "parse_aim",
    "salvo_id",
    "sap_split",
]

HEAVY_RACKS = frozenset({"heavy_missile", "heavy_missile_er", "heavy_missile_ms"})
# Heavy missiles "are always fired from one-shot launcher racks" (000 L5701-5709, L6046-6050).
RACKS = frozenset({"smr", "smr_er", "smr_ms"}) | HEAVY_RACKS
# One-shot salvo missile racks and heavy missile racks (000 L6044-6050).
ER_RACKS = frozenset({"smr_er", "heavy_missile_er"})
HEAVY_KILL_ON = 5  # a PDS kills a heavy missile on 5-6 (000 L5897-5899)
HEAVY_DICE = 3  # "Each Heavy Missile inflicts 3D6 of damage on the target" (000 L5942-5944)
LAUNCHERS = frozenset({"sml"})  # salvo missile launchers, one salvo a turn (000 L6056-6058)
MAGAZINES = frozenset({"magazine", "magazine_er", "magazine_ms"})  # 000 L6057-6070, L6239-6243
MULTI_STAGE = frozenset({"heavy_missile_ms", "smr_ms", "magazine_ms"})
"""Two-stage heavy missiles, salvo racks and magazine loads: standard grade only, and a
magazine holds all multi-stage or all regular loads (000 L6231-6243, optional)."""
STAGE_MIN_MU = 16.0  # a two-stage marker is placed 16 to 24 MU away (000 L6253-6257, L6275)
STAGE_MAX_MU = 24.0
FLIGHT_ARC_DEGREES = 30.0  # its second stage flies within its 60° front arc (000 L6275-6277)
STANDARD_RANGE_MU = 24.0  # the aim point at most 24 MU from the launcher (000 L5749-5751)
ER_RANGE_MU = 36.0  # extended range missiles: 36 MU (000 L5753)
ATTACK_RADIUS_MU = 6.0  # a salvo attacks the closest enemy within 6 MU (000 L5778-5786)
VECTOR_ATTACK_RADIUS_MU = 3.0  # 3 MU against a vector-drive ship (000 L5802-5828)
SALVO_AIM = "point"
"""The target a launch names: it flies at a point on the table (its ``aim``), at no ship."""
CONTACT_TOLERANCE = 1e-9  # MU: a ship this close to the edge of the radius is within it


class Salvo(Struct, frozen=True, kw_only=True, gc=False):
    """One salvo marker on the table: whose it is, where it was aimed, the turn it was launched
    in and its grade (``er`` for extended range); a ship's launcher or a missile fighter group
    (000 L9837-9843) launched it."""

    id: str
    side: str
    x: float
    y: float
    launched: int
    er: bool = False
    lost: int = 0
    """A missile fighters' salvo: the fighters the group had lost before the launch, each one
    off the on-target die (000 L9843-9849)."""
    heavy: bool = False
    """A single heavy missile, not a salvo (000 L5701-5709): one kill stops it, and it does
    3D6 semi-armour-piercing (L5895-5899, L5942-5944)."""
    stages: int = 1
    """2 for a multi-stage missile (000 L6231-6297)."""
    course: int = 0
    """A multi-stage marker's facing on the 1-12 clock (000 L6257-6263); 0 for the others."""
    waited: int = 0
    """The turn a multi-stage marker found no enemy in reach and stayed (000 L6267-6271)."""
    flown: int = 0
    """The turn its second stage flew it to a new aim point (000 L6271-6277)."""

    def due(self, turn: int) -> bool:
        """Whether it homes during ``turn``'s missile step: the turn after its launch, and a
        multi-stage marker that stayed, the turn after that.

        >>> Salvo(id="s", side="red", x=0, y=0, launched=3).due(3)
        False
        >>> Salvo(id="s", side="red", x=0, y=0, launched=3, stages=2, waited=4).due(4)
        False
        """
        return self.launched < turn and self.waited < turn

    def stays(self, turn: int) -> bool:
        """Whether it stays on the table when no enemy is in reach in ``turn``'s missile step:
        a multi-stage marker on its first stage (000 L6267-6271)."""
        return self.stages > 1 and not self.waited and self.launched < turn

    def may_fly(self, turn: int) -> bool:
        """Whether its owner may fly it to a new aim point in ``turn``'s firing: a multi-stage
        marker that stayed in this turn's missile step (000 L6267-6277)."""
        return self.stages > 1 and self.waited == turn and not self.flown


def salvo_id(ship_id: str, launcher_id: str, turn: int) -> str:
    """Name the salvo a launcher fires in a turn: one a launcher a turn keeps it unique."""
    return f"{ship_id}.{launcher_id}.t{turn}"


def format_aim(x: float, y: float) -> str:
    """Write an aim point as a shot's ``aim``: ``x,y`` with at most three decimals.

    >>> format_aim(12.0, -3.25)
    '12,-3.25'
    """
    return f"{round_mu(x):g},{round_mu(y):g}"  # round(v, 3) + 0.0, by arithmetic


def parse_aim(text: str | None) -> tuple[float, float] | None:
    """Read an aim point written by :func:`format_aim`, or ``None`` if it is not one.

    >>> parse_aim("12,-3.25"), parse_aim("drive")
    ((12.0, -3.25), None)
    """
    if text is None:
        return None
    x_text, comma, y_text = text.partition(",")
    try:
        x, y = float(x_text), float(y_text)
    except ValueError:
        return None
    if not comma or not (math.isfinite(x) and math.isfinite(y)):
        return None
    return round(x, 3) + 0.0, round(y, 3) + 0.0


def facing_to(x: float, y: float, tx: float, ty: float) -> int:
    """Return the clock facing nearest the direction from (x, y) to (tx, ty): a multi-stage
    marker faces away from its launcher (000 L6257-6263); half way between, the later one.

    >>> facing_to(0, 0, 0, 20), facing_to(0, 0, 20, 0), facing_to(0, 0, -1, -20)
    (12, 3, 6)
    """
    angle = math.degrees(math.atan2(tx - x, ty - y)) % 360.0
    clock = math.floor(angle / 30.0 + 0.5) % 12
    return clock or 12


def flight_problem(salvo: Salvo, turn: int, tx: float, ty: float) -> str | None:
    """Return why a multi-stage marker may not fly to (tx, ty) in ``turn``'s firing, or
    ``None``: 16 to 24 MU from it, within its 60° front arc (000 L6271-6285).

    >>> s = Salvo(id="s", side="red", x=0, y=0, launched=1, stages=2, course=12, waited=2)
    >>> flight_problem(s, 2, 0, 20) is None, flight_problem(s, 2, 12, 16) is None
    (True, False)
    """
    if not salvo.may_fly(turn):
        return (
            f"salvo {salvo.id} is not a multi-stage missile waiting for its second stage "
            "(000 L6267-6277)"
        )
    distance = math.hypot(tx - salvo.x, ty - salvo.y)
    if not STAGE_MIN_MU - CONTACT_TOLERANCE <= distance <= STAGE_MAX_MU + CONTACT_TOLERANCE:
        return (
            f"the new aim point is {distance:.1f} MU from the marker; its second stage flies "
            f"{STAGE_MIN_MU:g} to {STAGE_MAX_MU:g} MU (000 L6271-6285)"
        )
    absolute = math.degrees(math.atan2(tx - salvo.x, ty - salvo.y))
    off = (absolute - salvo.course % 12 * 30.0 + 180.0) % 360.0 - 180.0
    if abs(off) > FLIGHT_ARC_DEGREES + CONTACT_TOLERANCE:
        return (
            f"the new aim point lies {abs(off):.0f}° off the marker's facing, outside its 60° "
            "front arc (000 L6275-6277)"
        )
    return None


def first_stage_aim(x: float, y: float, tx: float, ty: float) -> tuple[float, float]:
    """Return where a multi-stage missile launched from (x, y) toward (tx, ty) is placed: on
    the line to it, 16 to 24 MU out, a little inside both, to 0.001 MU (000 L6253-6257).

    >>> first_stage_aim(0, 0, 0, 40), first_stage_aim(0, 0, 0, 20)
    ((0.0, 23.99), (0.0, 20.0))
    """
    toward = Salvo(id="", side="", x=x, y=y, launched=0, course=facing_to(x, y, tx, ty))
    return flight_aim(toward, tx, ty)


def flight_aim(salvo: Salvo, tx: float, ty: float) -> tuple[float, float]:
    """Return the legal second-stage aim point nearest the way to (tx, ty): that point if it
    lies 16 to 24 MU within the marker's 60° front arc, else the direction turned into the
    arc and the distance kept to 16-24 MU, a little inside both, to 0.001 MU.

    >>> s = Salvo(id="s", side="red", x=0, y=0, launched=1, stages=2, course=12, waited=2)
    >>> flight_aim(s, 0, 20), flight_aim(s, 0, 5), flight_aim(s, 30, 0)
    ((0.0, 20.0), (0.0, 16.01), (11.991, 20.778))
    """
    off = math.degrees(math.atan2(tx - salvo.x, ty - salvo.y)) - salvo.course % 12 * 30.0
    off = (off + 180.0) % 360.0 - 180.0
    margin = 0.01
    off = max(-FLIGHT_ARC_DEGREES + margin, min(FLIGHT_ARC_DEGREES - margin, off))
    distance = math.hypot(tx - salvo.x, ty - salvo.y)
    distance = max(STAGE_MIN_MU + margin, min(STAGE_MAX_MU - margin, distance))
    angle = math.radians(salvo.course % 12 * 30.0 + off)
    x = round(salvo.x + distance * math.sin(angle), 3) + 0.0
    y = round(salvo.y + distance * math.cos(angle), 3) + 0.0
    return x, y


def multi_stage(ship: Ship, launcher_id: str) -> bool:
    """Whether a rack, or the magazine feeding a launcher, holds multi-stage missiles."""
    spec = ship.system(launcher_id)
    if spec.kind in RACKS:
        return spec.kind in MULTI_STAGE
    magazine = feeds(ship).get(launcher_id)
    return magazine is not None and ship.system(magazine).kind in MULTI_STAGE


def feeds(ship: Ship) -> dict[str, str]:
    """Return the magazine that feeds each salvo missile launcher, by system id.

    Each launcher is fed by exactly one magazine (000 L6060-6062). The record sheet does not
    draw the lines, so the n-th launcher is fed by the n-th magazine and any launchers beyond
    the last magazine by the last one (see docs/rulings.md, "Tactical: salvo missiles").
    """
    return dict(read_off(ship, _launcher_feeds))  # a copy: the reading is kept


def _launcher_feeds(ship: Ship) -> dict[str, str]:
    return magazine_feeds(ship, MAGAZINES, LAUNCHERS)


def magazine_feeds(
    ship: Ship, magazine_kinds: Collection[str], launcher_kinds: Collection[str]
) -> dict[str, str]:
    """Return the magazine of ``magazine_kinds`` that feeds each launcher of
    ``launcher_kinds``, by system id: the n-th launcher the n-th magazine, the launchers
    beyond the last magazine the last one; none without a magazine."""
    magazines = [s.id for s in ship.systems if s.kind in magazine_kinds]
    launchers = [s.id for s in ship.systems if s.kind in launcher_kinds]
    if not magazines:
        return {}
    return {
        launcher: magazines[min(index, len(magazines) - 1)]
        for index, launcher in enumerate(launchers)
    }


def launcher_ready(ship: Ship, state: ShipState, launcher_id: str) -> bool:
    """Whether a rack still holds its salvo, or a launcher and its magazine work and the
    magazine holds a load (000 L6044-6058; a lost magazine loses its loads, L10997)."""
    statuses = {s.id: s for s in state.systems}
    spec = ship.system(launcher_id)
    own = statuses[launcher_id]
    if own.status != "ok":
        return False
    if spec.kind in RACKS:
        return (own.ammo or 0) > 0
    if spec.kind not in LAUNCHERS:
        return False
    magazine = feeds(ship).get(launcher_id)
    if magazine is None:
        return False
    return statuses[magazine].status == "ok" and (statuses[magazine].ammo or 0) > 0


def launch_range(ship: Ship, launcher_id: str) -> tuple[float, bool]:
    """Return how far a launcher may aim and whether its salvo is extended range: an ER rack,
    or a launcher fed from an ER magazine (000 L5749-5753, L6082-6090); a multi-stage
    missile's first stage 24 MU (000 L6253-6257)."""
    spec = ship.system(launcher_id)
    if spec.kind in RACKS:
        er = spec.kind in ER_RACKS
    else:
        magazine = feeds(ship).get(launcher_id)
        er = magazine is not None and ship.system(magazine).kind == "magazine_er"
    return (ER_RANGE_MU if er else STANDARD_RANGE_MU), er


def homing_target(salvo: Salvo, enemies: Sequence[tuple[str, float, float, float]]) -> str | None:
    """Return the enemy a salvo attacks: the closest within its radius of the marker, ties to
    the lower id; ``None`` if there is none and the salvo is wasted (000 L5778-5798).

    ``enemies`` are (ship id, x, y, attack radius) of the ships it may attack.

    >>> s = Salvo(id="s", side="red", x=0, y=0, launched=1)
    >>> homing_target(s, [("b1", 0, 5, 6.0), ("b2", 0, 4, 3.0), ("b3", 0, 2.5, 3.0)])
    'b3'
    """
    best: tuple[float, str] | None = None
    for ship_id, x, y, radius in enemies:
        distance = math.hypot(x - salvo.x, y - salvo.y)
        if distance > radius + CONTACT_TOLERANCE:
            continue
        if best is None or (distance, ship_id) < best:
            best = (distance, ship_id)
    return None if best is None else best[1]


def hits_through(on_target: int, *, kills: int, defended: bool) -> int:
    """Return the missiles that hit: the on-target die less the kills, never below 0; with no
    defence allocated at all, every missile on target hits (000 L5867-5891; index Ambiguity
    17)."""
    if not defended:
        return on_target
    return max(on_target - kills, 0)


def sap_split(points: int) -> tuple[int, int]:
    """Split one missile's damage semi-armour-piercing: half rounded up may go on armour, the
    rest on the hull (000 L5944-5946, applied per missile: index Ambiguity 16)."""
    return (points + 1) // 2, points // 2
