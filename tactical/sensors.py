"""Sensors and bogeys as pure tables and counters: what an unidentified contact shows, how far
passive and active sensors reach, and the dummy drones and weasel emitters that fake a contact
(FT2 001 L933-971; Project Continuum 000 12.1-12.3).

Under the ``bogeys`` rule option each ship starts as a bogey: the enemy sees only a counter
with an opaque label, its place, course and speed, and the class its drive emissions show,
escort, cruiser, capital or merchant (001 L939). Passive sensors identify any enemy bogey within
:data:`PASSIVE_RANGE_MU` (001 L945); an active scan, written in the move orders, reaches
:data:`ACTIVE_RANGE_MU` and identifies up to :data:`ACTIVE_SCANS` bogeys a turn, revealing the
scanner too (001 L947-949). A dummy bogey (:class:`Dummy`) shows an escort and is removed when
it is scanned (001 L957); a weasel emitter makes a ship's bogey show a bigger class until it is
scanned (001 L961-969). The battle (:mod:`tactical.battle`) decides when; this module holds the
tables and the counters.

Continuum's ECM (000 7.18-7.19, 12.4; the ``sensors_ecm`` rule option) is switched on in a
ship's orders for the turn (``/ecm``, 000 L12832-12838). While on, each level of its own ECM,
and of the area ECM of any ally within 6 MU with its own switched on, takes 6 MU off the range
at which enemy sensors identify it and 1 MU off the range at which enemy missiles and fighters
lock on, to at most three levels (:func:`ecm_level`).

>>> signature("escort", ("beam_c", "weasel_capital"))
'capital'
>>> bogey_labels([("blue", "b2", 0.0, 10.0), ("blue", "d1", 5.0, 10.0), ("red", "r1", 0.0, 0.0)],
...              ("red", "blue"))
{'r1': 'B1', 'b2': 'B2', 'd1': 'B3'}
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from msgspec import Struct

from tactical.ship import HullClass

__all__ = [
    "ACTIVE_RANGE_MU",
    "ACTIVE_SCANS",
    "AREA_ECM",
    "AREA_ECM_MU",
    "AREA_ECM_SCAN_MU",
    "DAMAGE_KNOWN",
    "DEBLIP_MU_PER_LEVEL",
    "DRIVE_KNOWN",
    "DUMMY_POINTS",
    "DUMMY_SIGNATURE",
    "DUMMY_THRUST",
    "ECM",
    "ECM_MAX_LEVEL",
    "LEARNED",
    "LOCK_ON_MU_PER_LEVEL",
    "MASS_KNOWN",
    "PASSIVE_RANGE_MU",
    "SCANNING_HULLS",
    "SUPERIOR_BONUS",
    "SYSTEMS_KNOWN",
    "WEASEL_SIGNATURES",
    "Bogey",
    "Dummy",
    "Sensed",
    "Sighting",
    "bogey_labels",
    "deblip_range",
    "ecm_level",
    "scan_learned",
    "signature",
]

PASSIVE_RANGE_MU = 36.0  # every ship identifies an enemy bogey within 36" (001 L945; 000 12.1)
ACTIVE_RANGE_MU = 54.0  # an active scan reaches 54" (001 L949; 000 12.1)
ACTIVE_SCANS: dict[HullClass, int] = {"escort": 1, "cruiser": 2, "capital": 3}
# Bogeys one active scan may identify a turn: escorts one, cruisers two, capitals three (001
# L949; Continuum names one per working FireCon, 000 12.1, the ``active_scans`` option).
SCANNING_HULLS = frozenset({"warship", "q_ship", "military_installation"})
# Only military vessels carry active sensors (001 L947); a Q-ship may (digest 5.1).
DUMMY_POINTS = 20  # each dummy bogey costs 20 points of the fleet budget (001 L957)
DUMMY_SIGNATURE: HullClass = "escort"  # a dummy emits an escort's drive signature (001 L957)
DUMMY_THRUST = 8
# A dummy manoeuvres like a scoutship (001 L957), whose thrust the text does not print: the
# catalogue's scoutship (tactical/data/ships/ft2/scout.toml, a project design) has thrust 8.
ECM = "ecm"  # one system per level (000 L7736-7740)
AREA_ECM = "area_ecm"  # one system per level (000 L7790-7796)
DEBLIP_MU_PER_LEVEL = 6.0
# Each level of ECM "subtracts 6 MU from the 'de-blip' range of enemy sensors" (000 L7703-7705).
LOCK_ON_MU_PER_LEVEL = 1.0
# "Every level of ECM reduces the lock-on range by 1 MU, meaning missiles and fighters need to
# be closer to attack" (000 L7717-7721).
SUPERIOR_BONUS = 2  # Superior sensors add 2 to the scan die (000 L12641-12643)
AREA_ECM_SCAN_MU = 12.0  # area ECM jams scans at ships within 12 MU of it (000 L12816-12818)
LEARNED = (
    "no information",  # 1-2
    "mass only",  # 3
    "mass, drive and screens",  # 4
    "every system",  # 5
    "everything, damage included",  # 6+
)
"""What an advanced scan's score discloses (000 L12647-12657), by :func:`scan_learned`."""
MASS_KNOWN = 1  # "Mass only of ship disclosed" (000 L12650)
DRIVE_KNOWN = 2  # "Data on mass, drive, and screen systems (original values)" (L12652-12654)
SYSTEMS_KNOWN = 3  # "Data on all onboard systems (original values)" (L12656)
DAMAGE_KNOWN = 4  # "current damage status and systems that are functional" (L12658-12660)
ECM_MAX_LEVEL = 3  # "The aggregate ECM level of a ship (its own plus any Area ECM) cannot
# exceed 3" (000 L7722-7724, L7766-7770).
AREA_ECM_MU = 6.0  # area ECM covers its ship "and all allied ships within 6 MU" (000 L7764-7766)
WEASEL_SIGNATURES: dict[str, HullClass] = {
    "weasel_cruiser": "cruiser",  # 001 L967
    "weasel_capital": "capital",  # 001 L967
}


class Dummy(Struct, frozen=True, kw_only=True, gc=False):
    """A dummy bogey: a drone on the table showing an escort's signature until it is scanned
    (001 L955-957). ``label`` is the opaque name the enemy knows it by. Under vector movement
    ``course`` is its facing, ``speed`` its velocity rounded and ``vector`` its velocity, as
    for a ship."""

    id: str
    side: str
    label: str
    x: float
    y: float
    course: int
    speed: int
    vector: tuple[float, float] | None = None


class Bogey(Struct, frozen=True, kw_only=True, gc=False):
    """An unidentified enemy contact as one side sees it: a label, the class its signature
    shows, its place, course and speed (001 L939-945); never what it really is."""

    label: str
    side: str
    shows: HullClass
    x: float
    y: float
    course: int
    speed: int


class Sighting(Struct, frozen=True, kw_only=True, gc=False):
    """What one side knows of an identified enemy ship whose record sheet is closed to it
    (the ``enemy_sheets = "sensed"`` option; 000 L1462-1466, 12.2): the index in
    :data:`LEARNED` its advanced scans reached, its true class, which even its bogey showed (000
    L12517-12521), and the mass, drive and screens once a scan disclosed them, original
    values (L12650-12654); ``None`` where not known."""

    level: int
    shows: HullClass
    mass: int | None = None
    thrust: int | None = None
    screens: int | None = None


class Sensed(Struct, frozen=True, kw_only=True, gc=False):
    """One identification in a movement step: ``counter`` (a ship, or a dummy, which is
    removed) identified ``how``: by ``by``'s passive sensors or active scan, or ``self``
    when the ship gave itself away (scanning, launching, laying mines, 001 L949)."""

    counter: str
    how: str
    by: str | None = None
    dummy: bool = False
    learned: int | None = None
    """An active scan by enhanced or superior sensors (000 12.2): the score on the table,
    after the target's ECM roll and any friendly jamming (12.4), 0 to 4 for "no information",
    "mass only", "mass, drive and screens", "all systems", "everything" (:data:`LEARNED`)."""


def signature(hull_class: HullClass, kinds: Iterable[str]) -> HullClass:
    """Return the class a ship's bogey shows: its own (001 L939), or the largest a weasel
    emitter among its systems fakes (001 L961-967)."""
    faked = [WEASEL_SIGNATURES[k] for k in kinds if k in WEASEL_SIGNATURES]
    if "capital" in faked:
        return "capital"
    if "cruiser" in faked and hull_class in ("escort", "merchant"):
        return "cruiser"
    return hull_class


def bogey_labels(
    counters: Sequence[tuple[str, str, float, float]], sides: Sequence[str]
) -> dict[str, str]:
    """Label every counter (side, id, x, y) ``B1``, ``B2``...: by side, then by where it
    starts, which the enemy sees anyway, so a label tells nothing of a ship's id or whether it
    is a dummy. Counters on the same spot are ordered by a hash of their id."""

    def key(counter: tuple[str, str, float, float]) -> tuple[int, float, float, str]:
        side, name, x, y = counter
        return (sides.index(side), y, x, hashlib.sha256(name.encode()).hexdigest())

    return {c[1]: f"B{n}" for n, c in enumerate(sorted(counters, key=key), start=1)}


def ecm_level(own: int, area: Iterable[int]) -> int:
    """Return a ship's aggregate ECM level: its own working ECM systems switched on, plus the
    levels of every area ECM covering it, at most three (000 L7722-7724, L7766-7770).

    >>> ecm_level(1, [2, 2]), ecm_level(0, []), ecm_level(2, [1])
    (3, 0, 3)
    """
    return min(ECM_MAX_LEVEL, own + sum(area))


def scan_learned(score: int) -> int:
    """Return the index in :data:`LEARNED` an advanced scan's final score gives: 1-2 nothing,
    3 mass, 4 mass, drive and screens, 5 all systems, 6 or more everything (000
    L12647-12657). The worked example: superior +2 and a 6, less an ECM roll of 1, is 7, "still
    enough to reveal everything" (L12858-12866).

    >>> scan_learned(6 + SUPERIOR_BONUS - 1), scan_learned(2), scan_learned(-3), scan_learned(4)
    (4, 0, 0, 2)
    """
    return min(max(score - 2, 0), len(LEARNED) - 1)


def deblip_range(base: float, level: int) -> float:
    """Return how near an enemy sensor must be to identify a bogey of this ECM level: its
    range less 6 MU a level (000 L7703-7707), never below nothing.

    >>> deblip_range(PASSIVE_RANGE_MU, 2), deblip_range(ACTIVE_RANGE_MU, 3)
    (24.0, 36.0)
    """
    return max(0.0, base - DEBLIP_MU_PER_LEVEL * level)
