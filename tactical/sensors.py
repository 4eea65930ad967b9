"""Sensors and bogeys as pure tables and counters: what an unidentified contact shows, how far
passive and active sensors reach, and the dummy drones and weasel emitters that fake a contact
(FT2 001 L933-971; Project Continuum 000 12.1-12.3).

Under the ``bogeys`` rule option each ship starts as a bogey: the enemy sees only a counter
with an opaque label, its place, course and speed, and the class its drive emissions show,
escort, cruiser, capital or merchant (001 L939). Passive sensors identify any enemy bogey within
:data:`PASSIVE_RANGE_MU` (001 L947); an active scan, written in the move orders, reaches
:data:`ACTIVE_RANGE_MU` and identifies up to :data:`ACTIVE_SCANS` bogeys a turn, revealing the
scanner too (001 L949-951). A dummy bogey (:class:`Dummy`) shows an escort and is removed when
it is scanned (001 L957); a weasel emitter makes a ship's bogey show a bigger class until it is
scanned (001 L961-969). The battle (:mod:`tactical.battle`) decides when; this module holds the
tables and the counters.

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
    "DUMMY_POINTS",
    "DUMMY_SIGNATURE",
    "DUMMY_THRUST",
    "PASSIVE_RANGE_MU",
    "SCANNING_HULLS",
    "WEASEL_SIGNATURES",
    "Bogey",
    "Dummy",
    "Sensed",
    "bogey_labels",
    "signature",
]

PASSIVE_RANGE_MU = 36.0  # every ship identifies an enemy bogey within 36" (001 L947; 000 12.1)
ACTIVE_RANGE_MU = 54.0  # an active scan reaches 54" (001 L951; 000 12.1)
ACTIVE_SCANS: dict[HullClass, int] = {"escort": 1, "cruiser": 2, "capital": 3}
# Bogeys one active scan may identify a turn: escorts one, cruisers two, capitals three (001
# L951; Continuum names one per working FireCon, 000 12.1, the ``active_scans`` option).
SCANNING_HULLS = frozenset({"warship", "q_ship", "military_installation"})
# Only military vessels carry active sensors (001 L949); a Q-ship may (digest 5.1).
DUMMY_POINTS = 20  # each dummy bogey costs 20 points of the fleet budget (001 L957)
DUMMY_SIGNATURE: HullClass = "escort"  # a dummy emits an escort's drive signature (001 L957)
DUMMY_THRUST = 8
# A dummy manoeuvres like a scoutship (001 L957), whose thrust the text does not print: the
# catalogue's scoutship (tactical/data/ships/ft2/scout.toml, a project design) has thrust 8.
WEASEL_SIGNATURES: dict[str, HullClass] = {
    "weasel_cruiser": "cruiser",  # 001 L965
    "weasel_capital": "capital",  # 001 L967
}


class Dummy(Struct, frozen=True, kw_only=True):
    """A dummy bogey: a drone on the table showing an escort's signature until it is scanned
    (001 L955-957). ``label`` is the opaque name the enemy knows it by."""

    id: str
    side: str
    label: str
    x: float
    y: float
    course: int
    speed: int


class Bogey(Struct, frozen=True, kw_only=True):
    """An unidentified enemy contact as one side sees it: a label, the class its signature
    shows, its place, course and speed (001 L939-945); never what it really is."""

    label: str
    side: str
    shows: HullClass
    x: float
    y: float
    course: int
    speed: int


class Sensed(Struct, frozen=True, kw_only=True):
    """One identification in a movement step: ``counter`` (a ship, or a dummy, which is
    removed) identified ``how``: by ``by``'s passive sensors or active scan, or ``self``
    when the ship gave itself away (scanning, launching, laying mines, 001 L949)."""

    counter: str
    how: str
    by: str | None = None
    dummy: bool = False


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
