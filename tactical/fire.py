"""Fire: arcs, range bands, beam dice, screens and threshold checks, as pure functions.

Rule tables are module constants citing their seed lines. The functions here take positions,
record sheets and dice; the battle (:mod:`tactical.battle`) decides who fires when.

>>> beam_dice("beam_a", 18.0)  # 001 L458: an A battery at 12-24" rolls two dice
2
>>> score_beam_die(6, screen=2)  # 001 L500: level-2 screens turn a 6 into one point
1
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import msgspec

from tactical.dice import DiceSource
from tactical.ship import (
    FOR_THE_BATTLE,
    Ship,
    ShipState,
    SystemStatus,
    hit_drive,
    with_system_status,
)

__all__ = [
    "ASTEROID_RADIUS_MU",
    "BAND_MU",
    "BEAM_DAMAGE",
    "BEAM_STRENGTH",
    "BRIDGE_FOR_GOOD",
    "CORE_MODIFIER",
    "CORE_SYSTEMS",
    "ENHANCED_AFT",
    "LONG",
    "MAX_REROLLS",
    "MKP_DAMAGE",
    "NEEDLE_GRAZE",
    "NEEDLE_HIT",
    "NEEDLE_KILL",
    "NEEDLE_SENSOR_MU",
    "NEEDLE_STRENGTH",
    "NOVA_ARMING_MU",
    "NOVA_STAGES",
    "OVERLOAD",
    "SHORT",
    "SUBMUNITION_DICE",
    "SUPERIOR_AFT",
    "THRESHOLD_FAIL",
    "TORPEDO_BANDS_MU",
    "TORPEDO_BAND_MU",
    "TORPEDO_SETTINGS",
    "TORPEDO_TO_HIT_CONTINUUM",
    "TORPEDO_TO_HIT_FT2",
    "AftSight",
    "BeamOutcome",
    "StrikeRoll",
    "ThresholdOutcome",
    "Warhead",
    "arc_of",
    "beam_dice",
    "bearing",
    "core_need",
    "die_hits",
    "is_beam",
    "line_blocked",
    "mkp_hits",
    "needle_dice",
    "needle_sight",
    "nova_touches",
    "range_between",
    "roll_beams",
    "score_beam_die",
    "score_plasma_die",
    "strike_need",
    "submunition_dice",
    "threshold_check",
    "threshold_need",
    "torpedo_band",
    "torpedo_to_hit",
    "torpedo_warhead",
]

BEAM_STRENGTH: dict[str, int] = {
    # FT2 batteries as Beam-N (digest B9): A 3, B 2, C 1 dice at 0-12" (001 L456-462).
    "beam_a": 3,
    "beam_b": 2,
    "beam_c": 1,
    # Continuum Beam-N: N bands of 12 MU (000 L2397-2482, L2806-2863).
    "beam1": 1,
    "beam2": 2,
    "beam3": 3,
    "beam4": 4,
    "beam5": 5,
}

BAND_MU = 12  # 001 L456-462, 000 L2681-2730: beam range bands are 12 MU, upper limit included
# (002 L17: "a Beam-2 rolls 2d6 at a target 12" away; 1d6 at a target 13" away").

BEAM_DAMAGE: dict[int, tuple[int, int, int, int, int, int]] = {
    # Damage per die face 1..6 by screen level (001 L466-470, L496-502; 000 L2969-3032).
    0: (0, 0, 0, 1, 1, 2),
    1: (0, 0, 0, 0, 1, 2),
    2: (0, 0, 0, 0, 1, 1),
    3: (0, 0, 0, 0, 0, 1),
}

THRESHOLD_FAIL: dict[int, int] = {1: 6, 2: 5, 3: 4}
# A system is lost at the k-th threshold on this face or more (001 L518-522; 002 L57;
# 000 L3194-3397). Rows past the third (Continuum 5- and 6-row hulls) use the third's 4+.

CORE_SYSTEMS: tuple[str, ...] = ("bridge", "power_core", "life_support")
# The core systems, boxed together on the record sheet (000 L11065-11075); also the names of
# their damage-control jobs.
CORE_MODIFIER = -1
# Each core system is rolled at every threshold with 1 off the die (000 L11079-11101): it fails
# if d6 - 1 + the extra-row modifier reaches the target number, so never at the first threshold.
BRIDGE_FOR_GOOD = 6  # a bridge hit's D6: 1-5 turns out of control, 6 the rest of the battle
# (000 L11133-11147)

TORPEDO_BAND_MU = 6  # pulse torpedo to-hit bands are 6" / 6 MU, upper limit included
TORPEDO_TO_HIT_FT2: tuple[int, ...] = (3, 4, 5, 6)
# Pulse torpedo to-hit by 6" band out to 24" (001 L833-838); a hit does a second D6 of
# damage, screens ignored (001 L840-842).
TORPEDO_TO_HIT_CONTINUUM: tuple[int, ...] = (2, 3, 4, 5, 6)
# Continuum's projectile table, standard row, out to 30 MU (000 L4612-4802 names it; the
# Quick Reference Sheet gives it, 000 L20332-20436; index 5.14).
TORPEDO_BANDS_MU: dict[str, float] = {
    "pulse_torpedo": TORPEDO_BAND_MU,  # standard row: 6 12 18 24 30 (000 L20336-20362)
    "pulse_torpedo_sr": 4,  # short range row: 4 8 12 16 20 (000 L20406-20433)
    "pulse_torpedo_lr": 9,  # long range row: 9 18 27 36 45 (000 L20368-20397)
    # Overload-upgraded standard and long range torpedoes fire on their own row unless
    # overloaded (000 L4669-4736); the variable torpedo is standard unless set (L4792-4794).
    "pulse_torpedo_overload": TORPEDO_BAND_MU,
    "pulse_torpedo_lr_overload": 9,
    "pulse_torpedo_variable": TORPEDO_BAND_MU,
}
# The band width of each pulse torpedo's to-hit row: Continuum's standard, short range and
# long range torpedoes (000 L4636-4658) roll 2+ to 6 in five bands of it, upper limit included.

OVERLOAD, SHORT, LONG = "O", "S", "L"
"""A torpedo's setting written in the orders: overloaded (000 L4681-4685), or a variable
torpedo's short or long range mode, "S" and "L" as on the SSD (000 L4786-4794)."""
TORPEDO_SETTINGS: dict[str, dict[str, float]] = {
    # 000 L4689-4703: an overloaded torpedo uses the next smaller class's row: LR the
    # standard one, standard the short range one; short range torpedoes never overload.
    "pulse_torpedo_overload": {OVERLOAD: 4},
    "pulse_torpedo_lr_overload": {OVERLOAD: TORPEDO_BAND_MU},
    # 000 L4752-4782: the variable torpedo's long range mode uses the long range row, its
    # short range mode the short range row.
    "pulse_torpedo_variable": {LONG: 9, SHORT: 4},
}
"""The settings each torpedo kind may be given in the orders, with the band width of the
to-hit row each puts it on."""


class Warhead(NamedTuple):
    """What a pulse torpedo's hit does: a ``sides``-sided die plus ``plus``, semi-armour
    piercing or (``ap``) armour piercing; ``backfire``: a damage die of 1 rolls again, and a
    second 1 destroys the tube (000 L4708-4714)."""

    sides: int = 6
    plus: int = 0
    ap: bool = False
    backfire: bool = False


def torpedo_band(kind: str, setting: str | None = None) -> float:
    """Return the band width of a torpedo's to-hit row under its setting this turn.

    >>> torpedo_band("pulse_torpedo_lr_overload"), torpedo_band("pulse_torpedo_lr_overload", "O")
    (9, 6)
    >>> [torpedo_band("pulse_torpedo_variable", s) for s in (None, "S", "L")]
    [6, 4, 9]
    """
    if setting is None:
        return TORPEDO_BANDS_MU[kind]
    return TORPEDO_SETTINGS[kind][setting]


def torpedo_warhead(kind: str, setting: str | None = None) -> Warhead:
    """Return what a torpedo's hit does under its setting this turn.

    Every pulse torpedo fired normally does 1D6 SAP (000 L4626-4630). Overloaded: 1D6+2 AP,
    3 to 8, with the risk to the tube (000 L4669, L4704-4714). The variable torpedo: long
    range 1D3 SAP (L4752-4760), standard 1D6 SAP (L4764-4772), short range 1D6+2 AP
    (L4774-4782), with no risk to the tube.

    >>> torpedo_warhead("pulse_torpedo_variable", "L")
    Warhead(sides=3, plus=0, ap=False, backfire=False)
    """
    if setting == OVERLOAD:
        return Warhead(plus=2, ap=True, backfire=True)
    if setting == SHORT:
        return Warhead(plus=2, ap=True)
    if setting == LONG:
        return Warhead(sides=3)
    return Warhead()


SUBMUNITION_DICE: tuple[int, ...] = (3, 2, 1)
# A submunition pack rolls 3, 2 or 1 beam dice at 0-6", 6-12", 12-18", screens ignored
# (001 L860-864; 000 L4804-4830 the same, with 6s re-rolled).

NEEDLE_KILL = 6  # a needle knocks out its nominated system on a 6 (001 L848; index 5.13)
NEEDLE_GRAZE = 5  # FB1: a 5 does 1 hull damage (index 5.13), under ``needle_hull``

NEEDLE_STRENGTH: dict[str, int] = {
    # 000 L4570-4574: Continuum's class-N needle beams have 12 MU range bands "like all other
    # beam weapons", larger mounts rolling extra dice close in: NB-N reads as Beam-N's dice.
    # NB-1 stays FB1's one-die ``needle`` (index 5.13, Ambiguity 28; docs/rulings.md).
    "needle2": 2,
    "needle3": 3,
    "needle4": 4,
}
NEEDLE_HIT = 4  # 000 L4574-4580: each die of 4+ does a point; a natural 6 (NEEDLE_KILL) also kills
NEEDLE_SENSOR_MU: tuple[int, int] = (12, 24)
# 000 L4517-4523: beyond 12 MU a needle needs Enhanced Sensors, beyond 24 MU Superior Sensors
# or two Enhanced Sensors.

NOVA_ARMING_MU = 6.0
# The nova round is hurled 6" ahead of the bow before its template is placed (001 L921-923).
NOVA_STAGES: tuple[tuple[float, float, int], ...] = ((2.0, 18.0, 6), (4.0, 24.0, 4), (6.0, 24.0, 2))
# Each stage's template diameter, its move along the line of flight and its damage dice, read
# at face value past screens: 2" for 18" at 6D6 as fired, then 4" for 24" at 4D6 the next turn
# and 6" for 24" at 2D6 the turn after, then it burns out (001 L923-929).

MAX_REROLLS = 100  # a safety stop for a chain of natural 6s (000 L2864-2968 sets no limit)

ARC_TIE_TOLERANCE = 1e-9  # degrees: a target this close to an arc line sits on it (001 L408)


def is_beam(kind: str) -> bool:
    """Return whether a system kind fires beam dice."""
    return kind in BEAM_STRENGTH


def range_between(x1: float, y1: float, x2: float, y2: float) -> float:
    """Return the range between two model centres (001 L415)."""
    return math.hypot(x2 - x1, y2 - y1)


def bearing(x: float, y: float, course: int, tx: float, ty: float) -> float:
    """Return the target's bearing from the firer's bow in degrees, in ``(-180, 180]``,
    positive to starboard. A target at the firer's own position bears 0 (dead ahead).
    """
    if tx == x and ty == y:
        return 0.0
    absolute = math.degrees(math.atan2(tx - x, ty - y))
    relative = (absolute - course % 12 * 30 + 180.0) % 360.0 - 180.0
    return 180.0 if relative == -180.0 else relative


def arc_of(relative: float, arcs: tuple[str, ...]) -> str:
    """Return the arc a bearing lies in, for a ring of equal arcs centred on the bow.

    ``arcs`` lists them clockwise from the bow: FT2's four 90° quadrants (001 L398-421,
    digest A31) or Continuum's six 60° sectors (000 L2483-2679). A target exactly on a line
    is given to the arc nearer the bow, where the rules roll a die (see docs/rulings.md).

    >>> from tactical.ship import FT2_ARCS
    >>> [arc_of(b, FT2_ARCS) for b in (0.0, 45.0, 90.0, -100.0, 180.0)]
    ['F', 'F', 'S', 'P', 'A']
    """
    width = 360.0 / len(arcs)
    shifted = (relative + width / 2) % 360.0
    index = int(shifted // width) % len(arcs)
    offset = shifted - index * width
    on_line = offset < ARC_TIE_TOLERANCE or width - offset < ARC_TIE_TOLERANCE
    if on_line:
        lower = index if offset < ARC_TIE_TOLERANCE else (index + 1) % len(arcs)
        upper = (lower - 1) % len(arcs)
        return arcs[min(lower, upper, key=lambda i: min(i, len(arcs) - i))]
    return arcs[index]


@functools.lru_cache(maxsize=16384)
def placement(
    x: float, y: float, course: int, tx: float, ty: float, arcs: tuple[str, ...]
) -> tuple[str, float]:
    """Return the arc a target at ``(tx, ty)`` lies in from a firer at ``(x, y)`` heading
    ``course`` (:func:`arc_of` of its :func:`bearing`), and their range
    (:func:`range_between`): what the fire step reads of each firer and target pair.

    Worked out once for each pair of places: the commanders' side views, the firing itself
    and the journal's replay each ask it of the same pairs (a pure function of its figures,
    kept by their values)."""
    return arc_of(bearing(x, y, course, tx, ty), arcs), range_between(x, y, tx, ty)


def nova_touches(
    start: tuple[float, float], end: tuple[float, float], diameter: float, x: float, y: float
) -> bool:
    """Return whether a round template of this diameter, moved in a straight line from
    ``start`` to ``end``, touches a ship whose model centre is at ``(x, y)`` (001 L923).

    Ships are points here as for range (001 L415), so the template touches a ship when the
    ship lies within half its diameter of the line swept (see docs/rulings.md).

    >>> nova_touches((0.0, 6.0), (0.0, 24.0), 2.0, 1.0, 24.0)
    True
    >>> nova_touches((0.0, 6.0), (0.0, 24.0), 2.0, 0.0, 25.5)
    False
    """
    return _gap(start, end, x, y) <= diameter / 2 + ARC_TIE_TOLERANCE


def _gap(start: tuple[float, float], end: tuple[float, float], x: float, y: float) -> float:
    """Return the distance from ``(x, y)`` to the nearest point of the segment start-end."""
    (sx, sy), (ex, ey) = start, end
    dx, dy = ex - sx, ey - sy
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((x - sx) * dx + (y - sy) * dy) / length2))
    return math.hypot(x - (sx + t * dx), y - (sy + t * dy))


ASTEROID_RADIUS_MU = 1.0
"""An asteroid's base is 2 MU across: FT2 mounts asteroids on bases "perhaps 1" or 2" across"
(001 L1084), Continuum "perhaps 1 to 6 MU across" (000 L17794); 2 is the one size both allow
(see docs/rulings.md, "Tactical: asteroids blocking fire")."""


def line_blocked(
    start: tuple[float, float],
    end: tuple[float, float],
    asteroids: Sequence[tuple[float, float]],
    radius: float = ASTEROID_RADIUS_MU,
) -> bool:
    """Return whether the line between two ships' centres crosses an asteroid's base.

    "Any line between two ships that crosses any part of the Asteroid is 'blocked'", measured
    between base centres (001 L1082-1088; 000 L17775-17812). The line is blocked when it
    passes strictly inside a base; a line that only touches the rim grazes it and is clear,
    and so is a base beyond either end of the line (see docs/rulings.md).

    >>> line_blocked((0.0, 0.0), (0.0, 20.0), [(0.5, 10.0)])  # through the base
    True
    >>> line_blocked((0.0, 0.0), (0.0, 20.0), [(1.0, 10.0)])  # grazes the rim
    False
    >>> line_blocked((0.0, 0.0), (0.0, 20.0), [(0.0, 21.5)])  # beyond the target
    False
    """
    return any(_gap(start, end, x, y) < radius - ARC_TIE_TOLERANCE for x, y in asteroids)


def beam_dice(kind: str, distance: float) -> int:
    """Return how many dice a beam rolls at this range; 0 when out of range.

    Beam-N rolls N dice up to 12 MU and one fewer for each further 12 MU or part
    (001 L456-462; 002 L17; 000 L2806-2863; digest B9).

    >>> [beam_dice("beam_b", d) for d in (0.0, 12.0, 12.001, 24.0, 24.5)]
    [2, 2, 1, 1, 0]
    """
    band = max(1, math.ceil(distance / BAND_MU))
    return max(BEAM_STRENGTH[kind] + 1 - band, 0)


def needle_dice(kind: str, distance: float) -> int:
    """Return how many dice a class-N needle beam rolls at this range; 0 when out of range.

    NB-N rolls N dice to 12 MU and one fewer for each further 12 MU band (000 L4570-4574),
    counted as for beams, upper limit included.

    >>> [needle_dice("needle3", d) for d in (12.0, 12.5, 24.0, 36.0, 36.5)]
    [3, 2, 2, 1, 0]
    """
    band = max(1, math.ceil(distance / BAND_MU))
    return max(NEEDLE_STRENGTH[kind] + 1 - band, 0)


def needle_sight(enhanced: int, superior: int) -> float:
    """Return how far a ship's sensors let it aim needle beams, by its working Enhanced and
    Superior Sensors: 12 MU with neither, 24 MU with one Enhanced, unlimited with Superior
    Sensors or two Enhanced (000 L4517-4523).

    >>> [needle_sight(0, 0), needle_sight(1, 0), needle_sight(2, 0), needle_sight(0, 1)]
    [12, 24, inf, inf]
    """
    if superior or enhanced >= 2:  # "two Enhanced Sensors" (000 L4523)
        return math.inf
    return NEEDLE_SENSOR_MU[1] if enhanced else NEEDLE_SENSOR_MU[0]


def torpedo_to_hit(
    table: tuple[int, ...], distance: float, band_mu: float = TORPEDO_BAND_MU
) -> int | None:
    """Return the face a pulse torpedo needs to hit at this range; ``None`` out of range.

    The bands are 6" wide with the upper limit included, like the beam bands (001 L831-838);
    Continuum's short and long range torpedoes have bands of 4 and 9 MU (``band_mu``, from
    :data:`TORPEDO_BANDS_MU`).

    >>> [torpedo_to_hit(TORPEDO_TO_HIT_FT2, d) for d in (0.0, 6.0, 6.5, 18.0, 24.0, 24.5)]
    [3, 3, 4, 5, 6, None]
    >>> [torpedo_to_hit(TORPEDO_TO_HIT_CONTINUUM, d, 4) for d in (4.0, 4.5, 20.0, 20.5)]
    [2, 3, 6, None]
    >>> [torpedo_to_hit(TORPEDO_TO_HIT_CONTINUUM, d, 9) for d in (9.0, 9.5, 45.0, 45.5)]
    [2, 3, 6, None]
    """
    band = max(1, math.ceil(distance / band_mu))
    return table[band - 1] if band <= len(table) else None


def submunition_dice(distance: float) -> int:
    """Return how many dice a submunition pack rolls at this range; 0 out of range.

    >>> [submunition_dice(d) for d in (0.0, 6.0, 6.5, 12.0, 18.0, 18.5)]
    [3, 3, 2, 2, 1, 0]
    """
    band = max(1, math.ceil(distance / TORPEDO_BAND_MU))
    return SUBMUNITION_DICE[band - 1] if band <= len(SUBMUNITION_DICE) else 0


def score_beam_die(face: int, screen: int) -> int:
    """Return the damage of one beam die against a screen level."""
    return BEAM_DAMAGE[min(screen, 3)][face - 1]


ENHANCED_AFT_MU = 24.0  # enhanced sensors' aft fire reaches 24 MU (000 L15257-15259)
SUPERIOR_AFT_MU = 36.0  # superior sensors' 36 MU, at -1 to hit (000 L15347-15351)
AFT_DRM = -1  # superior sensors' aft fire: -1 to hit, "penetrating ... re-roll as normal"


class AftSight(NamedTuple):
    """What a ship's advanced sensors, augmenting its FireCon, let its weapons do through the
    aft arc, where no offensive weapon fires otherwise (000 L2591-2601): "Any weapons fired
    through the Aft arc are limited to a range of 24 MU and will only cause a hit on a die
    roll of 6" with enhanced sensors (000 L15257-15267), "limited to a range of 36 MU and are
    at -1 to hit" with superior sensors (000 L15347-15351)."""

    sensors: str
    reach: float
    drm: int  # on each first die, none on a penetrating weapon's re-rolls (000 L15349-15351)
    sixes_only: bool  # a hit on a 6 only, whatever the weapon needs otherwise


ENHANCED_AFT = AftSight("enhanced_sensors", ENHANCED_AFT_MU, 0, sixes_only=True)
SUPERIOR_AFT = AftSight("superior_sensors", SUPERIOR_AFT_MU, AFT_DRM, sixes_only=False)


def die_hits(face: int, need: int, aft: AftSight | None = None) -> bool:
    """Return whether one to-hit die of a weapon that hits on ``need`` or more hits: fired
    through the aft arc (``aft``), with enhanced sensors on a 6 only (000 L15259-15261), with
    superior sensors at -1, the modified face kept within 1-6, so a weapon needing a 6 cannot
    hit (000 L15349; L501-513: "A DRM can result in automatic hits or misses").

    >>> [die_hits(face, 3) for face in (2, 3)]
    [False, True]
    >>> [die_hits(face, 2, ENHANCED_AFT) for face in (5, 6)]
    [False, True]
    >>> [die_hits(face, 4, SUPERIOR_AFT) for face in (4, 5)], die_hits(6, 6, SUPERIOR_AFT)
    ([False, True], False)
    """
    if aft is None:
        return face >= need
    if aft.sixes_only:
        return face == 6
    return min(max(face + aft.drm, 1), 6) >= need


def score_aft_die(face: int, screen: int) -> int:
    """Return the damage of one beam die fired aft by a ship whose enhanced sensors augment
    its FireCon: "only cause a hit on a die roll of 6. Weapons that are penetrating will
    re-roll their hits but will only inflict one point of damage on a 5 and two points on a
    6" (000 L15257-15267): nothing below 5, else as the beam table.

    >>> [score_aft_die(face, 0) for face in range(1, 7)]
    [0, 0, 0, 0, 1, 2]
    """
    return score_beam_die(face, screen) if face >= 5 else 0


def score_plasma_die(face: int, screen: int) -> int:
    """Return the hits of one plasma cannon die, 1 damage each: the face less 2, less 1 per
    screen level (000 L3924-3932; plasma fighters, 000 L9730-9734).

    >>> [score_plasma_die(face, 0) for face in range(1, 7)], score_plasma_die(6, 2)
    ([0, 0, 1, 2, 3, 4], 2)
    """
    return max(face - 2 - screen, 0)


MKP_DAMAGE = 4  # each MKP hit does 4 points, armour piercing (000 L5056-5066, L9776-9780)


def mkp_hits(face: int) -> int:
    """Return the hits of one multiple kinetic penetrator's die: one on 4+, two on a 6, past
    screens (000 L5056-5066; MKP fighters "just like a ship-mounted MKP", 000 L9774-9780).

    >>> [mkp_hits(face) for face in range(1, 7)]
    [0, 0, 0, 1, 1, 2]
    """
    return 2 if face == 6 else int(face >= 4)


class BeamOutcome:
    """The dice of one weapon against one target and what they scored."""

    __slots__ = ("faces", "reroll_damage", "rerolls", "screened_damage")

    def __init__(self) -> None:
        self.faces: list[int] = []
        self.rerolls: list[int] = []
        self.screened_damage = 0
        self.reroll_damage = 0


def roll_beams(
    dice: DiceSource,
    key: str,
    count: int,
    screen: int,
    *,
    reroll: bool,
    drm: int = 0,
    score: Callable[[int, int], int] = score_beam_die,
    reroll_drm: int | None = None,
) -> BeamOutcome:
    """Roll ``count`` beam dice against a screen level.

    With ``reroll``, each natural 6 earns one more die, scored unscreened, whose own 6s chain
    on (000 L2864-2968; 002 L53). ``drm`` changes every die, re-rolls too, clamped to 1-6
    (fighter types' attack runs, 000 L9593, L9619). ``score`` reads a die against a screen
    level: the beam table, or :func:`score_plasma_die` for plasma dice, which re-roll the same
    way (000 L3930-3932). ``reroll_drm``, when given, replaces ``drm`` on the re-rolls. Keys
    are ``{key}/{i}`` for the dice and ``{key}/r{j}`` for re-rolls.
    """
    outcome = BeamOutcome()
    pending = 0
    if score is score_beam_die and drm == 0:
        # The beam table's row for the screen read once (score_beam_die of the face clamped to
        # 1-6, as below).
        row = BEAM_DAMAGE[min(screen, 3)]
        faces = outcome.faces
        damage = 0
        for index in range(count):
            face = dice.roll(f"{key}/{index}", 6)
            faces.append(face)
            damage += row[min(max(face, 1), 6) - 1]
            if reroll and face == 6:
                pending += 1
        outcome.screened_damage = damage
    else:
        for index in range(count):
            face = dice.roll(f"{key}/{index}", 6)
            outcome.faces.append(face)
            outcome.screened_damage += score(min(max(face + drm, 1), 6), screen)
            if reroll and face == 6:
                pending += 1
    number = 0
    while pending and number < MAX_REROLLS:
        face = dice.roll(f"{key}/r{number}", 6)
        number += 1
        pending -= 1
        outcome.rerolls.append(face)
        again = drm if reroll_drm is None else reroll_drm
        outcome.reroll_damage += score(min(max(face + again, 1), 6), 0)
        if face == 6:
            pending += 1
    return outcome


class ThresholdOutcome:
    """What one threshold check knocked out.

    Core systems: ``bridge`` is the D6 of turns out of control after a bridge hit,
    ``life_support`` the D6 of turns before a failed life support gives out.
    """

    __slots__ = (
        "bridge",
        "colours",
        "drive",
        "ftl",
        "life_support",
        "lost",
        "power_core",
        "struck",
    )

    def __init__(self) -> None:
        self.lost: list[str] = []
        self.colours: int | None = None
        self.struck = False
        self.drive = False
        self.ftl = False
        self.bridge: int | None = None
        self.power_core = False
        self.life_support: int | None = None


FRAGILE_MODIFIER = 1
# Enhanced and Superior Sensors "are damaged at +1 on the die roll" at any threshold check
# (000 L15295-15309, L15393-15407).
SENSORS = frozenset({"enhanced_sensors", "superior_sensors"})


def threshold_need(row: int, modifier: int = 0) -> int:
    """Return the face a system fails on at the ``row``-th threshold, less Continuum's +1 per
    extra row (001 L518-522; 000 L3194-3397), never below 2.

    >>> [threshold_need(row) for row in (1, 2, 3, 4)], threshold_need(3, modifier=3)
    ([6, 5, 4, 4], 2)
    """
    return max(THRESHOLD_FAIL[min(row, 3)] - modifier, 2)


def core_need(row: int, modifier: int = 0) -> int:
    """Return the face a core system fails on at the ``row``-th threshold: d6 - 1 + modifier
    must reach the target number (000 L11079-11101; index 10.3). Over 6 it cannot fail.

    >>> [core_need(row) for row in (1, 2, 3)], core_need(2, modifier=1)
    ([7, 6, 5], 5)
    """
    return max(THRESHOLD_FAIL[min(row, 3)] - CORE_MODIFIER - modifier, 2)


class StrikeRoll(NamedTuple):
    """The extra die for the ship itself at a threshold check (000 L13275-13343)."""

    captain: int = 0
    """Added to the die: +1 for a Level 3 captain, -1 for a Level 1 (004 L331, L335)."""
    as_core: bool = False
    """Roll it as a core system, with 1 off the die: never at the first threshold (000
    L13275-13343's variant)."""


def strike_need(row: int, modifier: int = 0, strike: StrikeRoll | None = None) -> int:
    """Return the face on which a captain strikes the colours at the ``row``-th threshold: the
    systems' target (6, 5-6, 4-6, less the extra-row ``modifier``), less the captain's
    modifier, 1 more as a core system; a 1 never strikes, and over 6 nothing is rolled.

    >>> [strike_need(row) for row in (1, 2, 3)], strike_need(1, strike=StrikeRoll(as_core=True))
    ([6, 5, 4], 7)
    >>> strike_need(1, strike=StrikeRoll(captain=1)), strike_need(2, 1, StrikeRoll(captain=-1))
    (5, 5)
    """
    strike = strike or StrikeRoll()
    core = -CORE_MODIFIER if strike.as_core else 0
    return max(THRESHOLD_FAIL[min(row, 3)] - modifier - strike.captain + core, 2)


def threshold_check(
    ship: Ship,
    state: ShipState,
    dice: DiceSource,
    key: str,
    *,
    row: int,
    modifier: int = 0,
    lost_status: SystemStatus = "destroyed",
    ftl: bool = True,
    permanent: frozenset[str] = frozenset(),
    core: bool = False,
    strike: StrikeRoll | None = None,
    spared: frozenset[str] = frozenset(),
    fragile: frozenset[str] = frozenset(),
) -> tuple[ShipState, ThresholdOutcome]:
    """Roll one threshold check: a D6 for every working system, the drive and the FTL drive.

    At the ``row``-th threshold a system fails on :data:`THRESHOLD_FAIL` or more, less
    ``modifier`` (Continuum's +1 per extra row passed, 000 L3194-3397). The drive halves, then
    fails (001 L528). Systems already knocked out are not rolled (001 L516). A failed system
    is left ``lost_status``, except kinds in ``permanent``, which are destroyed. With ``core``
    the core systems are rolled too (:func:`_core_check`). With ``strike`` one more die,
    ``{key}/colours``, for the ship itself: on :func:`strike_need` or more its captain strikes
    the colours (``outcome.struck``; 000 L13275-13343). Systems of the kinds in ``spared``
    are not rolled: the marines and DCPs at a check caused by boarding combat (000
    L13097-13099). Systems of the kinds in ``fragile`` (enhanced and superior sensors) roll
    with 1 added and are destroyed for good on a natural 6 (000 L15295-15309, L15393-15407).
    """
    need = threshold_need(row, modifier)
    outcome = ThresholdOutcome()
    wrecked: set[str] = set()
    for spec, sys_state in zip(ship.systems, state.systems, strict=True):
        if sys_state.status != "ok" or spec.kind in spared:
            continue
        face = dice.roll(f"{key}/{spec.id}", 6)
        if spec.kind in fragile and face == 6:  # "destroyed and cannot be repaired"
            wrecked.add(spec.id)
        if face + (FRAGILE_MODIFIER if spec.kind in fragile else 0) >= need:
            outcome.lost.append(spec.id)
    kinds = {spec.id: spec.kind for spec in ship.systems}
    for system_id in outcome.lost:
        permanently = kinds[system_id] in permanent or system_id in wrecked
        status = "destroyed" if permanently else lost_status
        state = with_system_status(state, system_id, status)
        # "When a hangar bay is knocked out any fighters still inside that bay are lost", even
        # when damage control may later repair the bay (000 L10939-10943).
        state = _empty_bay(state, system_id)
    if state.drive != "disabled" and dice.roll(f"{key}/drive", 6) >= need:
        outcome.drive = True
        state = hit_drive(state)
    if ftl and state.ftl == "ok" and dice.roll(f"{key}/ftl", 6) >= need:
        outcome.ftl = True
        state = msgspec.structs.replace(state, ftl="lost")
    if core:
        state = _core_check(state, dice, key, core_need(row, modifier), outcome)
    if strike is not None and strike_need(row, modifier, strike) <= 6:  # else out of reach
        outcome.colours = dice.roll(f"{key}/colours", 6)
        outcome.struck = outcome.colours >= strike_need(row, modifier, strike)
    return state, outcome


def _empty_bay(state: ShipState, system_id: str) -> ShipState:
    """Return the state with no fighters left aboard this system, if it holds any."""
    systems = tuple(
        msgspec.structs.replace(s, fighters=0) if s.id == system_id and s.fighters else s
        for s in state.systems
    )
    return msgspec.structs.replace(state, systems=systems)


def _core_check(
    state: ShipState, dice: DiceSource, key: str, need: int, outcome: ThresholdOutcome
) -> ShipState:
    """Roll the core systems still working at a threshold, each failing on ``need`` or more
    (none is rolled when ``need`` is over 6, 000 L11083-11089), with their keys
    ``{key}/bridge``, ``{key}/power_core`` and ``{key}/life_support``.

    A bridge hit rolls a D6 at once (``{key}/bridge/turns``): out of control for that many
    turns, the current one included, or for the rest of the battle on a 6 (000 L11133-11147).
    A life support hit rolls the D6 of turns before it gives out (``{key}/life_support/turns``,
    000 L11175-11181). A power core hit leaves it damaged (000 L11201-11207).
    """
    if need > 6:  # a six-sided die cannot reach it
        return state
    if state.out_of_control == 0 and dice.roll(f"{key}/bridge", 6) >= need:
        face = dice.roll(f"{key}/bridge/turns", 6)
        outcome.bridge = face
        turns = FOR_THE_BATTLE if face == BRIDGE_FOR_GOOD else face
        state = msgspec.structs.replace(state, out_of_control=turns)
    if state.power_core == "ok" and dice.roll(f"{key}/power_core", 6) >= need:
        outcome.power_core = True
        state = msgspec.structs.replace(state, power_core="damaged")
    if state.life_support == 0 and dice.roll(f"{key}/life_support", 6) >= need:
        face = dice.roll(f"{key}/life_support/turns", 6)
        outcome.life_support = face
        state = msgspec.structs.replace(state, life_support=face)
    return state
