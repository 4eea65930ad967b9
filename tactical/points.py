"""Validate ship designs and price them: FT2 section 7 and Project Continuum sections 13-14.

Every rule table is a module constant citing its seed line: ``001`` is Full Thrust 2nd edition,
``000`` is Project Continuum (see ``../shared/rules``). :func:`price` never raises on a broken
design: it prices what it can and lists every problem with its field path, so
``umpire ship cost`` can report them all at once. :func:`build` returns the record sheet
(:class:`~tactical.ship.Ship`) or raises :class:`~tactical.ship.DesignError`.

FT2 prices exactly with fractions (a mass-13 escort's thrust-6 drive costs 19.5) and rounds the
*total* up (digest A20). Continuum rounds each percentage-based *mass* half up, never below 1
(000 L14503-14547), and its points are then whole except on 5-row hulls (1.5 per box), whose
total is rounded up as well.

>>> from tactical.designs import load_builtin
>>> price(load_builtin("heavy_cruiser", "ft2"), PRESETS["ft2"]).points  # 001 L687-688
238
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from msgspec import Struct

from tactical.fighters import FighterNameError, FighterWing, parse_fighters
from tactical.ship import (
    CONTINUUM_ARCS,
    FT2_ARCS,
    PRESETS,
    CostLine,
    Design,
    DesignError,
    HullClass,
    HullType,
    Mount,
    Preset,
    Problem,
    Ship,
    SystemSpec,
)

__all__ = [
    "PRESETS",
    "Costing",
    "build",
    "price",
    "round_half_up",
    "track_rows",
    "validate",
]

ArcRule = Literal["none", "beam", "one", "fore", "any"]

# ---------------------------------------------------------------- FT2 tables (001 section 7)

FT2_MAX_SHIP_MASS = 100  # 001 L1246: special hulls up to mass 100 (installations may exceed it)
FT2_MIN_MERCHANT_MASS = 2  # 001 L1254: merchant hulls from mass 2 to 100
FT2_MAX_THRUST = 8  # 001 L1288: maximum thrust on any ship
FT2_MAX_SCREENS = 3  # 001 L502: level 3 is the maximum
FT2_MERCHANT_MAX_SCREENS = 1  # 001 L1304: merchants may carry level-1 screens only
FT2_SCREEN_MASS, FT2_SCREEN_POINTS = 3, 25  # 001 L1336-1338: 3 mass and 25 points per level
FT2_EXTRA_FIRECON_MASS, FT2_EXTRA_FIRECON_POINTS = 3, 10  # 001 L1346-1347

FT2_STANDARD_FIRECONS: dict[HullClass, int] = {  # 001 L382, L1347
    "escort": 1,
    "cruiser": 2,
    "capital": 3,
    "merchant": 1,
}
FT2_TRACK_ROWS: dict[HullClass, int] = {"escort": 2, "cruiser": 3, "capital": 4}  # 001 L526, L552
FT2_DRIVE_DIVISOR: dict[HullClass, int] = {  # 001 L1276-1280: mass per 4 / 2 / 1 thrust factors
    "escort": 4,
    "cruiser": 2,
    "capital": 1,
    "merchant": 1,
}


def ft2_military_class(mass: int) -> HullClass:
    """Return the FT2 class of a military hull (001 L1250-1252).

    >>> [ft2_military_class(m) for m in (18, 19, 36, 37)]
    ['escort', 'cruiser', 'cruiser', 'capital']
    """
    if mass <= 18:
        return "escort"
    if mass <= 36:
        return "cruiser"
    return "capital"


@dataclass(frozen=True)
class Ft2Hull:
    """How FT2 costs one kind of hull."""

    hull_per_mass: Fraction  # hull cost per mass
    dp_ratio: Fraction  # damage points per mass
    allowance: Fraction  # share of mass for weapons and systems
    ftl_per_mass: int  # FTL drive cost per mass
    has_drives: bool
    military_drives: bool  # drive divisor from the military class by mass
    merchant_kit: bool  # only C batteries, PDAF, level-1 screens and submunitions
    source: str


FT2_HULLS: dict[HullType, Ft2Hull] = {
    # 001 L1240, L1260, L1272, L1298: DP half mass, hull 2 x mass, FTL 1 x mass, systems 50%.
    "warship": Ft2Hull(
        Fraction(2),
        Fraction(1, 2),
        Fraction(1, 2),
        1,
        True,
        True,
        False,
        "001 L1240, L1260, L1272, L1298",
    ),
    # 001 L1242, L1260, L1304: DP quarter mass, hull 1.5 x mass, systems 10%.
    "merchant": Ft2Hull(
        Fraction(3, 2),
        Fraction(1, 4),
        Fraction(1, 10),
        1,
        True,
        False,
        True,
        "001 L1242, L1260, L1304",
    ),
    # 001 L1196-1198: merchant hull, military drive prices, 50% systems, any military system.
    "q_ship": Ft2Hull(
        Fraction(3, 2), Fraction(1, 4), Fraction(1, 2), 1, True, True, False, "001 L1196-1198"
    ),
    # 001 L1158: costed as a merchant, but FTL is 3 x mass.
    "tug": Ft2Hull(
        Fraction(3, 2), Fraction(1, 4), Fraction(1, 10), 3, True, False, True, "001 L1158"
    ),
    # 001 L1170, L1180: warship formulae, no drives; hull 2 x mass (digest A23).
    "military_installation": Ft2Hull(
        Fraction(2), Fraction(1, 2), Fraction(1, 2), 0, False, True, False, "001 L1170, L1180"
    ),
    # 001 L1170, L1182-1184: merchant formulae, no drives; hull 1.5 x mass (digest A23).
    "civilian_installation": Ft2Hull(
        Fraction(3, 2),
        Fraction(1, 4),
        Fraction(1, 10),
        0,
        False,
        False,
        False,
        "001 L1170, L1182-1184",
    ),
}
FT2_NON_FTL_MILITARY_ALLOWANCE = Fraction(3, 4)  # 001 L1136-1140: 75%, rounded up (14 -> 11)
FT2_FREIGHT_HULLS: frozenset[HullType] = frozenset({"merchant", "q_ship", "tug"})  # 001 L1005
FT2_INSTALLATIONS: frozenset[HullType] = frozenset(
    {"military_installation", "civilian_installation"}
)


@dataclass(frozen=True)
class Ft2System:
    """One row of FT2's mass and points table (001 L1330-1347)."""

    label: str
    mass: int
    points: int
    points_per_arc: int
    arcs: ArcRule
    merchant: bool
    capital_only: bool
    ammo: int | None
    bay: int | None
    source: str


FT2_SYSTEMS: dict[str, Ft2System] = {
    # Beams: mass is fixed, points add per arc INCLUDING the first (001 L1333-1335, L439).
    "beam_a": Ft2System("A battery", 3, 4, 3, "beam", False, False, None, None, "001 L1333"),
    "beam_b": Ft2System("B battery", 2, 3, 2, "beam", False, False, None, None, "001 L1334"),
    "beam_c": Ft2System("C battery", 1, 2, 1, "beam", True, False, None, None, "001 L1335"),
    "pdaf": Ft2System("PDAF", 1, 3, 0, "none", True, False, None, None, "001 L1336"),
    "adaf": Ft2System("ADAF", 3, 10, 0, "none", False, False, None, None, "001 L1337"),
    # Fighter group with its bay, 6 fighters; capital ships only (001 L1339, digest A21).
    "fighter_group": Ft2System(
        "Fighter group", 6, 20, 0, "none", False, True, None, 6, "001 L1339, L747-755"
    ),
    "needle": Ft2System("Needle beam", 2, 6, 0, "one", False, False, None, None, "001 L1340, L850"),
    "pulse_torpedo": Ft2System(
        "Pulse torpedo", 5, 15, 0, "fore", False, False, None, None, "001 L1341, L829"
    ),
    "nova_cannon": Ft2System(
        "Nova cannon", 16, 50, 0, "none", False, True, None, None, "001 L1342, L906"
    ),
    # One shot; arc fixed at design like a needle (digest A13).
    "submunition": Ft2System(
        "Submunition pack", 1, 3, 0, "one", True, False, 1, None, "001 L1343, L858"
    ),
    "minelayer": Ft2System(
        "Minelayer", 3, 10, 0, "none", False, False, 3, None, "001 L1344, L876-888"
    ),
    "minesweeper": Ft2System(
        "Minesweeper", 5, 20, 0, "none", False, False, None, None, "001 L1345"
    ),
    "weasel_cruiser": Ft2System(
        "Weasel emitter (cruiser)", 1, 20, 0, "none", False, False, None, None, "001 L963-967"
    ),
    "weasel_capital": Ft2System(
        "Weasel emitter (capital)", 1, 40, 0, "none", False, False, None, None, "001 L963-967"
    ),
}

# ---------------------------------------------------------------- Continuum tables (000 13-14)

PC_ESCORT_MAX_MASS, PC_CRUISER_MAX_MASS = 44, 90  # 000 L14341-14345
PC_MIN_HULL_SHARE = Fraction(1, 10)  # 000 L14609-14611: at least 10% of mass in hull boxes
PC_HULL_STRENGTH: dict[str, Fraction] = {  # 000 L14620-14628
    "fragile": Fraction(1, 10),
    "weak": Fraction(2, 10),
    "average": Fraction(3, 10),
    "strong": Fraction(4, 10),
    "super": Fraction(5, 10),
}
PC_HULL_BOX_POINTS: dict[int, Fraction] = {  # 000 L14684-14690, L14718 (3 rows = advanced)
    3: Fraction(3),
    4: Fraction(2),
    5: Fraction(3, 2),
    6: Fraction(1),
}
PC_STANDARD_ROWS = 4  # 000 L14642: four rows are what the typical warship has
PC_ADVANCED_MIN_BOXES = 4  # 000 L14720-14724
PC_FTL_SHARE = Fraction(1, 10)  # 000 L14730-14732
PC_DRIVE_SHARE_PER_THRUST = Fraction(5, 100)  # 000 L14750-14754
PC_DRIVE_POINTS_PER_MASS = {False: 2, True: 3}  # 000 L14742-14746, L14768-14770 (advanced)
PC_SCREEN_SHARE = Fraction(5, 100)  # 000 L6838-6840: 5% of mass per level
PC_SCREEN_POINTS_PER_MASS = 3  # 000 L6844
PC_MAX_ACTIVE_SCREENS = 2  # 000 L6812-6818: more generators are only backups
PC_ARMOUR_MASS, PC_ARMOUR_POINTS = 1, 2  # 000 L7074-7084: 1 mass and 2 points per box
PC_FIRECON_MASS, PC_FIRECON_POINTS = 1, 4  # 000 L3701-3703
PC_CREW_MASS = {"military": 20, "civilian": 50}  # 000 L11326-11342: 1 CF per 20 (50) or part


def pc_class(mass: int) -> HullClass:
    """Return the Continuum class of a military hull (000 L14341-14345).

    >>> [pc_class(m) for m in (44, 45, 90, 91)]
    ['escort', 'cruiser', 'cruiser', 'capital']
    """
    if mass <= PC_ESCORT_MAX_MASS:
        return "escort"
    if mass <= PC_CRUISER_MAX_MASS:
        return "cruiser"
    return "capital"


def _arc_steps(base: int, per_arc: int) -> Callable[[int], int]:
    """Return mass for ``base`` on one arc plus ``per_arc`` per extra arc."""
    return lambda n: base + per_arc * max(n - 1, 0)


def _beam2_mass(n: int) -> int:
    # 000 L3765: mass 2 for up to 3 arcs, +1 for the other 3 arcs.
    return 2 if n <= 3 else 3


def _ads_mass(n: int) -> int:
    # 000 L7474-7478: mass 2 with 3 arcs, +1 to fire into all 6.
    return 2 if n <= 3 else 3


def _torpedo_sr_mass(n: int) -> int:
    # 000 L4656-4658: an SR pulse torpedo is 2 mass for 1 arc, "+1 mass for 2 additional
    # arcs", 3 arcs max: so 3 mass for 2 arcs or 3 (see docs/rulings.md).
    return 2 if n <= 1 else 3


def _needle_mass(n: int) -> int:
    # 000 L16355: NB-1 is 2 mass for 2 arcs, +1 per additional arc, 3 arcs max.
    return 2 + max(n - 2, 0)


@dataclass(frozen=True)
class PcSystem:
    """One Continuum system: mass by arc count, and points per mass or flat."""

    label: str
    mass: Callable[[int], int]
    per_mass: int | None
    flat: int | None
    arcs: ArcRule
    max_arcs: int
    default_arcs: tuple[str, ...]
    capital_only: bool
    ammo: int | None
    bay: int | None
    source: str


def _pc(
    label: str,
    mass: Callable[[int], int] | int,
    source: str,
    *,
    per_mass: int | None = None,
    flat: int | None = None,
    arcs: ArcRule = "none",
    max_arcs: int = 6,
    default_arcs: tuple[str, ...] = (),
    capital_only: bool = False,
    ammo: int | None = None,
    bay: int | None = None,
) -> PcSystem:
    mass_fn = mass if callable(mass) else (lambda _n, m=mass: m)
    return PcSystem(
        label,
        mass_fn,
        per_mass,
        flat,
        arcs,
        max_arcs,
        default_arcs,
        capital_only,
        ammo,
        bay,
        source,
    )


PC_SYSTEMS: dict[str, PcSystem] = {
    # Beams cost 3 per mass (000 L3759-3777).
    "beam1": _pc("Beam-1", 1, "000 L3763", per_mass=3, arcs="any", default_arcs=CONTINUUM_ARCS),
    "beam2": _pc("Beam-2", _beam2_mass, "000 L3747-3777", per_mass=3, arcs="any"),
    "beam3": _pc("Beam-3", _arc_steps(4, 1), "000 L3767", per_mass=3, arcs="any"),
    "beam4": _pc("Beam-4", _arc_steps(8, 2), "000 L3769", per_mass=3, arcs="any"),
    "beam5": _pc("Beam-5", _arc_steps(16, 4), "000 L3771", per_mass=3, arcs="any"),
    "afc": _pc("Advanced FireCon", 1, "000 L3707-3733"),  # points from the preset
    "pds": _pc("PDS", 1, "000 L16010", flat=3),
    "adfc": _pc("ADFC", 2, "000 L7337-7346", flat=8),
    "ads": _pc("ADS", _ads_mass, "000 L7474-7488", per_mass=3, arcs="any"),
    # One-shot point defence: scattergun 1 mass, 5 a mass; grapeshot 1 mass, 4 (000
    # L7549, L7563, L16018-16020).
    "scattergun": _pc("Scattergun", 1, "000 L7549, L16018", per_mass=5, ammo=1),
    "grapeshot": _pc("Grapeshot", 1, "000 L7563, L16020", flat=4, ammo=1),
    "pulse_torpedo": _pc(
        "Pulse torpedo", _arc_steps(4, 1), "000 L16377-16383", per_mass=3, arcs="any", max_arcs=3
    ),
    # Short and long range pulse torpedoes, 3 per mass like the standard (000 L4636-4658,
    # L16371-16383).
    "pulse_torpedo_sr": _pc(
        "Pulse torpedo (SR)",
        _torpedo_sr_mass,
        "000 L4656-4658, L16379",
        per_mass=3,
        arcs="any",
        max_arcs=3,
    ),
    "pulse_torpedo_lr": _pc(
        "Pulse torpedo (LR)",
        _arc_steps(8, 2),
        "000 L4644-4646, L16381",
        per_mass=3,
        arcs="any",
        max_arcs=3,
    ),
    # The overload upgrade (000 L4669-4736) on a standard or long range torpedo: +1 point per
    # mass (L4728; L16385-16387), so 4 per mass; short range torpedoes take no upgrade.
    "pulse_torpedo_overload": _pc(
        "Pulse torpedo (overload)",
        _arc_steps(4, 1),
        "000 L4728-4736, L16377, L16385-16387",
        per_mass=4,
        arcs="any",
        max_arcs=3,
    ),
    "pulse_torpedo_lr_overload": _pc(
        "Pulse torpedo (LR, overload)",
        _arc_steps(8, 2),
        "000 L4728-4736, L16381, L16385-16387",
        per_mass=4,
        arcs="any",
        max_arcs=3,
    ),
    # 000 L4798-4800: VPTs are mass 8 on one arc, +2 per additional arc, 3 arcs at most, and
    # cost 5 points per mass.
    "pulse_torpedo_variable": _pc(
        "Variable pulse torpedo",
        _arc_steps(8, 2),
        "000 L4740-4800",
        per_mass=5,
        arcs="any",
        max_arcs=3,
    ),
    "needle": _pc(
        "Needle beam", _needle_mass, "000 L16347-16363", per_mass=3, arcs="any", max_arcs=3
    ),
    # 000 L4594-4610, L16357-16361: NB-2, NB-3 and NB-4 are 4, 8 and 16 mass on one arc, +2,
    # +4 and +8 per additional arc, 3 arcs at most, 3 points per mass. Continuum only.
    "needle2": _pc(
        "Needle beam NB-2",
        _arc_steps(4, 2),
        "000 L4600-4602, L16357",
        per_mass=3,
        arcs="any",
        max_arcs=3,
    ),
    "needle3": _pc(
        "Needle beam NB-3",
        _arc_steps(8, 4),
        "000 L4604-4606, L16359",
        per_mass=3,
        arcs="any",
        max_arcs=3,
    ),
    "needle4": _pc(
        "Needle beam NB-4",
        _arc_steps(16, 8),
        "000 L4608-4610, L16361",
        per_mass=3,
        arcs="any",
        max_arcs=3,
    ),
    "submunition": _pc(
        "Submunition pack", 1, "000 L16397, L4804-4830", per_mass=3, arcs="any", max_arcs=3, ammo=1
    ),
    "smr": _pc("Salvo missile rack", 4, "000 L16758-16804", per_mass=3, arcs="any", ammo=1),
    "smr_er": _pc("Salvo missile rack (ER)", 5, "000 L16758-16804", per_mass=3, arcs="any", ammo=1),
    # Heavy missile racks, one shot each: 2 mass, ER 3, x3 (000 L16734-16741, L6044-6050).
    "heavy_missile": _pc("Heavy missile", 2, "000 L16734-16741", per_mass=3, arcs="any", ammo=1),
    "heavy_missile_er": _pc(
        "Heavy missile (ER)", 3, "000 L16734-16741", per_mass=3, arcs="any", ammo=1
    ),
    # Multi-stage (optional): an extra stage adds 2 mass and doubles the points; standard
    # grade only (000 L6231-6243). A rack of 6 mass at 24 points (twice 12), a heavy missile
    # of 4 at 12 (twice 6); a magazine's multi-stage load 4 mass at 12 (twice 6).
    "smr_ms": _pc(
        "Salvo missile rack (multi-stage)",
        6,
        "000 L16758-16804, L6231-6243",
        per_mass=4,
        arcs="any",
        ammo=1,
    ),
    "heavy_missile_ms": _pc(
        "Heavy missile (multi-stage)",
        4,
        "000 L16734-16741, L6231-6243",
        per_mass=3,
        arcs="any",
        ammo=1,
    ),
    "sml": _pc("Salvo missile launcher", 3, "000 L15617-15627, L16770", per_mass=3, arcs="any"),
    # Magazine mass is 2 per standard salvo, 3 per ER salvo (000 L6066-6070); x3 (L16804).
    "magazine": _pc("Magazine", 2, "000 L6066-6070", per_mass=3),
    "magazine_er": _pc("Magazine (ER)", 3, "000 L6066-6070", per_mass=3),
    "magazine_ms": _pc("Magazine (multi-stage)", 4, "000 L6066-6070, L6231-6243", per_mass=3),
    # Hangar bays 6 mass, 3 per mass (2 with hangar criticals) (000 L14846-14856).
    "hangar_bay": _pc("Hangar bay", 6, "000 L14846-14856", per_mass=3, bay=6),
    "launch_tube": _pc("Launch tube", 3, "000 L14870", per_mass=3),
    "combined_bay": _pc("Combined bay", 9, "000 L14945-14947", per_mass=3, bay=6),
    "minesweeper": _pc("Minesweeper", 5, "000 L16041", flat=15),
    # A mine rack is 2 mass at 3 per mass and carries its mines as loads, 1 mass and 2 points
    # each, at least 2 (000 L6799-6802, L16809-16813).
    "minelayer": _pc("Mine layer", 2, "000 L6799-6802, L16809-16813", per_mass=3),
    "ecm": _pc("ECM", 1, "000 L16030", flat=3),
    "area_ecm": _pc("Area ECM", 2, "000 L16032", flat=6),
    "enhanced_sensors": _pc("Enhanced sensors", 2, "000 L16051"),  # priced by preset
    "superior_sensors": _pc("Superior sensors", 4, "000 L16053"),  # priced by preset
    "weasel_cruiser": _pc("Weasel emitter (cruiser)", 2, "000 L16055; 001 L963-967"),
    "weasel_capital": _pc("Weasel emitter (capital)", 4, "000 L16057; 001 L963-967"),
    # Boarding torpedoes cost 3 per mass: the launcher 2 mass through up to 3 arcs, each
    # torpedo in its magazine 1 mass (000 L5132-5136).
    "boarding_torpedo": _pc(
        "Boarding torpedo launcher", 2, "000 L5132-5134", per_mass=3, arcs="any", max_arcs=3
    ),
    "boarding_magazine": _pc("Boarding torpedo magazine", 1, "000 L5132, L5136", per_mass=3),
    "dcp": _pc("Damage control party", 0, "000 L15148, L16043", flat=5),
    "marines": _pc("Marine boarding party", 0, "000 L15094, L16045", flat=5),
    "cargo": _pc("Cargo space", 1, "000 L15947", flat=0),
    "nova_cannon": _pc("Nova cannon", 20, "000 L8218, L8120-8122", flat=60, capital_only=True),
}
PC_SENSOR_COSTS: dict[str, dict[str, tuple[int, int]]] = {
    "summary": {"enhanced_sensors": (2, 8), "superior_sensors": (4, 16)},  # 000 L16051-16053
    "body": {"enhanced_sensors": (4, 24), "superior_sensors": (8, 48)},  # 000 13.13, index 13.13
}
PC_WEASEL_COSTS: dict[str, dict[str, tuple[int, int]]] = {
    "ft2": {"weasel_cruiser": (1, 20), "weasel_capital": (1, 40)},  # 001 L963-967
    "continuum": {"weasel_cruiser": (2, 8), "weasel_capital": (4, 16)},  # 000 L16055-16057
}
PC_MINE_MASS, PC_MINE_POINTS = 1, 2  # 000 L6801-6802: each mine a rack carries
PC_MIN_MINES = 2  # 000 L6801-6803: "2 mines min per rack"
PC_MAGAZINES = frozenset({"magazine", "magazine_er", "magazine_ms"})
PC_LOADED = PC_MAGAZINES | {"minelayer", "boarding_magazine"}
"""Systems that take ``loads``: salvos, mines or boarding torpedoes."""
PC_MASS_PER_LOAD = PC_MAGAZINES | {"boarding_magazine"}
"""Magazines whose mass is their system mass for each load (000 L6066-6070, L5136)."""
PC_CREW_EXTRAS = frozenset({"dcp", "marines"})  # 000 L15112-15122: together <= crew factor
PC_BEAM2_BROADSIDES = (frozenset({"FP", "AP"}), frozenset({"FS", "AS"}))  # 000 L3747-3755, L3775
PC_BAYS = frozenset({"hangar_bay", "combined_bay"})
PC_TORPEDOES_PLAIN = frozenset({"pulse_torpedo", "pulse_torpedo_lr"})
PC_TORPEDOES_OVERLOAD = frozenset({"pulse_torpedo_overload", "pulse_torpedo_lr_overload"})
# 000 L4728-4736: every pulse torpedo but the short range ones is upgraded, or none.
PC_FIGHTER_WING_POINTS: dict[str, int] = {  # 000 L16852-16884, per wing of 6
    "standard": 18,
    "interceptor": 18,
    "attack": 24,
    "torpedo": 36,
    "graser": 42,
    "plasma": 42,
    "mkp": 36,
    "missile": 24,
    "multi_role": 24,
    # 000 L10036-10040: 6 a wing; the marines or DCPs they carry are bought or crewed apart.
    "assault_shuttle": 6,
}
PC_FIGHTER_MOD_POINTS: dict[str, int] = {  # added to the base type's wing (000 8.15, 14.7)
    "light": 0,  # 8 light fighters cost what 6 of the type do (000 L9919-9923, L9967-9969)
    "heavy": 18,  # 000 L9511-9515, L16856
    "fast": 6,  # fast standard 24 (000 L9545-9549, L16858-16860)
    "long_range": 6,  # long-range standard 24 (000 L9579-9583, L16862-16864)
    "ftl": 6,  # +1 per fighter (000 L9993, L16884)
    "robot": -6,  # robot standard 12 (000 L10062-10064, L10096-10101)
}
FB1_HEAVY_MOD_POINTS = 12  # the preset's fb1 heavy: FB1's heavy group is 30, standard 18 + 12
# (index D35; the FB1 text is not among the seeds)

# ---------------------------------------------------------------- shared arithmetic


def round_half_up(value: Fraction) -> int:
    """Round .5 and above up, .49 and below down (000 L14503-14515).

    >>> [round_half_up(Fraction(n, 10)) for n in (258, 43, 25)]
    [26, 4, 3]
    """
    return math.floor(value + Fraction(1, 2))


def track_rows(boxes: int, rows: int, *, extra_on_top: bool) -> tuple[int, ...]:
    """Split hull boxes into damage-track rows as evenly as possible.

    FT2 puts the surplus on the lower rows (001 L548-550); Continuum on the upper rows
    (000 L14668-14680).

    >>> track_rows(7, 2, extra_on_top=False)
    (3, 4)
    >>> track_rows(26, 4, extra_on_top=True)
    (7, 7, 6, 6)
    """
    base, extra = divmod(boxes, rows)
    if extra_on_top:
        return tuple(base + 1 if i < extra else base for i in range(rows))
    return tuple(base + 1 if i >= rows - extra else base for i in range(rows))


class Costing(Struct, frozen=True, kw_only=True, gc=False):
    """The price of a design and everything wrong with it."""

    design: str
    rules: str
    preset: str
    points: int
    exact_points: float
    mass_used: float
    mass_allowance: float
    lines: tuple[CostLine, ...]
    problems: tuple[Problem, ...]
    warnings: tuple[str, ...]

    @property
    def valid(self) -> bool:
        """Whether the design broke no rule."""
        return not self.problems


@dataclass
class _Assessment:
    """Working notes while a design is checked and priced."""

    design: Design
    preset: Preset
    lines: list[CostLine] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    systems: list[SystemSpec] = field(default_factory=list)
    exact: Fraction = Fraction(0)
    mass_used: Fraction = Fraction(0)
    allowance: Fraction = Fraction(0)
    hull_class: HullClass = "escort"
    hull_boxes: int = 1
    rows: tuple[int, ...] = (1,)
    fire_controls: int = 0
    crew_factor: int = 0

    def line(self, item: str, mass: Fraction | int, points: Fraction | int, source: str) -> None:
        self.lines.append(
            CostLine(item=item, mass=float(mass), points=float(points), source=source)
        )
        self.exact += points
        self.mass_used += mass

    def problem(self, path: str, reason: str) -> None:
        self.problems.append(Problem(path=path, reason=reason))

    def add_systems(
        self,
        count: int,
        kind: str,
        label: str,
        *,
        arcs: tuple[str, ...] = (),
        ammo: int | None = None,
        bay_capacity: int | None = None,
        fighters: str | None = None,
    ) -> None:
        """Add ``count`` record-sheet lines, numbered per kind: ``beam_b-1``, ``beam_b-2``..."""
        first = sum(1 for s in self.systems if s.kind == kind) + 1
        for number in range(first, first + count):
            self.systems.append(
                SystemSpec(
                    id=f"{kind}-{number}",
                    kind=kind,
                    label=label,
                    arcs=arcs,
                    ammo=ammo,
                    bay_capacity=bay_capacity,
                    fighters=fighters,
                )
            )


def _arcs_text(arcs: tuple[str, ...]) -> str:
    return "/".join(arcs)


def _times(label: str, count: int) -> str:
    return f"{label} x{count}" if count > 1 else label


def _check_arc_names(
    a: _Assessment, path: str, arcs: tuple[str, ...], names: tuple[str, ...]
) -> bool:
    unknown = [arc for arc in arcs if arc not in names]
    if unknown:
        a.problem(path, f"unknown arc {unknown[0]!r}; arcs are {', '.join(names)}")
        return False
    if len(set(arcs)) != len(arcs):
        a.problem(path, "an arc is listed twice")
        return False
    return True


def _contiguous(arcs: tuple[str, ...], ring: tuple[str, ...]) -> bool:
    """Whether the arcs form one unbroken run around the ship."""
    if len(arcs) in (0, len(ring)):
        return True
    marks = [name in arcs for name in ring]
    starts = sum(1 for i in range(len(ring)) if marks[i] and not marks[i - 1])
    return starts == 1


# ---------------------------------------------------------------- FT2


def _ft2_arcs(
    a: _Assessment, path: str, mount: Mount, rule: Ft2System, installation: bool
) -> tuple[str, ...]:
    """Check a mount's arcs and return them port to starboard; problems go on ``a``."""
    arcs = mount.arcs
    if not _check_arc_names(a, path, arcs, FT2_ARCS):
        return arcs
    if rule.arcs == "none":
        if arcs:
            a.problem(path, f"a {rule.label} has no fire arcs (it covers the whole ship)")
        return ()
    if rule.arcs == "fore":
        if arcs not in ((), ("F",)):
            a.problem(path, f"a {rule.label} fires through the fore arc only (001 L829)")
        return ("F",)
    if not arcs:
        a.problem(path, f"say which arcs the {rule.label} bears through (F, P, S)")
    elif "A" in arcs and not installation:
        a.problem(path, "no ship may fire offensive weapons through its aft arc (001 L404, L439)")
    elif rule.arcs == "one" and len(arcs) != 1:
        a.problem(path, f"a {rule.label} fires through exactly one arc (001 L850; digest A13)")
    elif not _contiguous(arcs, FT2_ARCS):
        a.problem(path, "a battery's arcs must be adjacent: F+P or F+S, never P+S (001 L441)")
    return tuple(arc for arc in ("P", "F", "S", "A") if arc in arcs)


_FT2_ONLY_CONTINUUM = (
    ("armour", "FT2 has no armour; it came with the Fleet Books (000 L7072-7084)"),
    ("hull_boxes", "FT2 damage points are half the mass, a quarter for merchants (001 L1240-1242)"),
    (
        "hull_strength",
        "FT2 damage points are half the mass, a quarter for merchants (001 L1240-1242)",
    ),
    ("advanced_drive", "advanced drives are Continuum technology (000 L14742-14774)"),
    ("advanced_ftl", "advanced FTL is Continuum technology (000 L14742-14746)"),
)


def _ft2_hull(a: _Assessment, hull: Ft2Hull, installation: bool) -> None:
    """Check the hull, price it and its drives, and lay out the damage track."""
    d = a.design
    military = ft2_military_class(d.mass)
    a.hull_class = military if d.hull in ("warship", "military_installation") else "merchant"
    for name, reason in _FT2_ONLY_CONTINUUM:
        if getattr(d, name) not in (None, 0, False):
            a.problem(f"$.{name}", reason)
    if not installation and d.mass > FT2_MAX_SHIP_MASS:
        a.problem("$.mass", f"a ship's mass is at most {FT2_MAX_SHIP_MASS} (001 L1246)")
    if d.hull in ("merchant", "tug") and d.mass < FT2_MIN_MERCHANT_MASS:
        a.problem("$.mass", "merchant hulls run from mass 2 to 100 (001 L1254)")
    if d.thrust > FT2_MAX_THRUST:
        a.problem("$.thrust", f"the maximum thrust on any ship is {FT2_MAX_THRUST} (001 L1288)")
    if installation and (d.thrust or d.ftl):
        a.problem(
            "$.thrust" if d.thrust else "$.ftl",
            "installations are unpowered: no FTL and no normal-space drives (001 L1170)",
        )
    if d.hull == "tug" and not d.ftl:
        a.problem("$.ftl", "a tug or tender exists to carry ships through FTL (001 L1152-1158)")

    # Hull and damage track: 001 L1238-1262, L540-552.
    hull_name = d.hull.replace("_", " ")
    a.line(f"Hull ({hull_name}, mass {d.mass})", 0, hull.hull_per_mass * d.mass, hull.source)
    a.hull_boxes = max(math.floor(hull.dp_ratio * d.mass), 1)  # digest A20: floor, minimum 1
    if d.hull == "warship":
        rows = FT2_TRACK_ROWS[military]
        if d.hull_rows is not None and d.hull_rows != rows:
            a.problem("$.hull_rows", f"a {military} has {rows} rows of boxes (001 L526, L552)")
    elif installation:
        rows = d.hull_rows or 4  # 001 L1172: two or more capital boxes; digest A7
    else:
        rows = d.hull_rows or FT2_TRACK_ROWS[military]  # 001 L542: merchants by size; digest A7
    a.rows = track_rows(a.hull_boxes, rows, extra_on_top=False)

    # Drives: 001 L1264-1292; a tug's FTL costs three times as much (001 L1158).
    if d.ftl and hull.ftl_per_mass:
        source = "001 L1158" if d.hull == "tug" else "001 L1272"
        a.line("FTL drive", 0, hull.ftl_per_mass * d.mass, source)
    if hull.has_drives and d.thrust:
        divisor = FT2_DRIVE_DIVISOR[military if hull.military_drives else "merchant"]
        a.line(
            f"Drive, thrust {d.thrust}", 0, Fraction(d.mass * d.thrust, divisor), "001 L1274-1286"
        )

    # Allowance: 001 L1298, L1304, L1136-1140; any merchant may carry 1 mass (001 L1256).
    share = FT2_NON_FTL_MILITARY_ALLOWANCE if d.hull == "warship" and not d.ftl else hull.allowance
    raw = share * d.mass
    allowance = math.ceil(raw) if a.preset.allowance_rounding == "up" else math.floor(raw)
    if hull.allowance < Fraction(1, 2):
        allowance = max(allowance, 1)
    a.allowance = Fraction(allowance)


def _ft2_control_and_screens(a: _Assessment, hull: Ft2Hull) -> None:
    """Fire control (the standard fit is free, 001 L382, L1346-1347) and screens (L488-510)."""
    d = a.design
    standard = FT2_STANDARD_FIRECONS[a.hull_class]
    a.fire_controls = standard if d.fire_controls is None else d.fire_controls
    extra = max(a.fire_controls - standard, 0)
    if extra:
        if hull.merchant_kit:
            a.problem(
                "$.fire_controls",
                "merchants may not buy extra FireCons: only C batteries, PDAF, level-1 screens "
                "and submunitions (001 L1304)",
            )
        a.line(
            f"Extra FireCon x{extra}",
            FT2_EXTRA_FIRECON_MASS * extra,
            FT2_EXTRA_FIRECON_POINTS * extra,
            "001 L1346-1347",
        )
    a.add_systems(a.fire_controls, "firecon", "FireCon")

    if d.screens > FT2_MAX_SCREENS:
        a.problem("$.screens", f"level {FT2_MAX_SCREENS} is the most any ship can have (001 L502)")
    if hull.merchant_kit and d.screens > FT2_MERCHANT_MAX_SCREENS:
        a.problem("$.screens", "merchants may carry level-1 screens only (001 L1304)")
    if d.screens:
        a.line(
            f"Screens, level {d.screens}",
            FT2_SCREEN_MASS * d.screens,
            FT2_SCREEN_POINTS * d.screens,
            "001 L1336-1338",
        )
    a.add_systems(d.screens, "screen", "Screen generator")


def _ft2_mount(a: _Assessment, index: int, mount: Mount, hull: Ft2Hull, installation: bool) -> None:
    """Check and price one line of the system list (001 L1330-1347)."""
    d = a.design
    path = f"$.systems[{index}]"
    rule = FT2_SYSTEMS.get(mount.kind)
    if rule is None:
        known = ", ".join(sorted(FT2_SYSTEMS))
        a.problem(f"{path}.kind", f"unknown FT2 system {mount.kind!r}; known: {known}")
        return
    if mount.loads is not None:
        a.problem(f"{path}.loads", f"a {rule.label} takes no loads")
    if mount.fighters is not None:
        a.problem(f"{path}.fighters", "FT2 fighter groups come with their six fighters")
    if hull.merchant_kit and not rule.merchant:
        a.problem(
            f"{path}.kind",
            f"merchants may carry only C batteries, PDAF, level-1 screens and submunitions, "
            f"not a {rule.label} (001 L1304)",
        )
    capital = d.hull in ("warship", "q_ship") and ft2_military_class(d.mass) == "capital"
    if rule.capital_only and not (capital or installation):
        a.problem(
            f"{path}.kind",
            f"a {rule.label} goes on capital ships only (mass 37 and up, 001 L1252; {rule.source})",
        )
    arcs = _ft2_arcs(a, f"{path}.arcs", mount, rule, installation)
    cost = rule.points + rule.points_per_arc * len(arcs)
    label = mount.label or rule.label
    shown = f"{label} ({_arcs_text(arcs)})" if arcs and rule.arcs != "fore" else label
    a.line(_times(shown, mount.count), rule.mass * mount.count, cost * mount.count, rule.source)
    a.add_systems(
        mount.count,
        mount.kind,
        label,
        arcs=arcs,
        ammo=rule.ammo,
        bay_capacity=rule.bay,
        fighters="standard" if rule.bay else None,
    )


def _assess_ft2(a: _Assessment) -> None:
    hull = FT2_HULLS[a.design.hull]
    installation = a.design.hull in FT2_INSTALLATIONS
    _ft2_hull(a, hull, installation)
    _ft2_control_and_screens(a, hull)
    for index, mount in enumerate(a.design.systems):
        _ft2_mount(a, index, mount, hull, installation)


# ---------------------------------------------------------------- Continuum


def _pc_system_points(
    kind: str, rule: PcSystem, mass: int, preset: Preset, loads: int | None
) -> Fraction:
    if kind == "minelayer":
        rack = rule.mass(0) * (rule.per_mass or 0)
        return Fraction(rack + PC_MINE_POINTS * (loads or 0))
    if kind == "afc":
        return Fraction(preset.afc_points)
    if kind in PC_SENSOR_COSTS["summary"]:
        return Fraction(PC_SENSOR_COSTS[preset.sensor_costs][kind][1])
    if kind in PC_WEASEL_COSTS["ft2"]:
        return Fraction(PC_WEASEL_COSTS[preset.weasel_costs][kind][1])
    if kind == "hangar_bay" and preset.hangar_critical_rule:
        return Fraction(2 * mass)  # 000 L14854-14856
    if rule.flat is not None:
        return Fraction(rule.flat)
    assert rule.per_mass is not None
    return Fraction(rule.per_mass * mass)


def _pc_system_mass(
    kind: str, rule: PcSystem, arcs: tuple[str, ...], mount: Mount, a: _Assessment
) -> int:
    if kind == "beam2" and len(arcs) == 2 and frozenset(arcs) in PC_BEAM2_BROADSIDES:
        return 1  # 000 L3775-3777: broadside Beam-2
    if kind in PC_MASS_PER_LOAD:
        return rule.mass(0) * (mount.loads or 0)
    if kind == "minelayer":
        return rule.mass(0) + PC_MINE_MASS * (mount.loads or 0)
    if kind in PC_SENSOR_COSTS["summary"]:
        return PC_SENSOR_COSTS[a.preset.sensor_costs][kind][0]
    if kind in PC_WEASEL_COSTS["ft2"]:
        return PC_WEASEL_COSTS[a.preset.weasel_costs][kind][0]
    if kind == "adfc" and a.preset.adfc_massless_over_20 and a.design.mass > 20:
        return 0  # 000 L7341-7346
    return rule.mass(len(arcs))


def _pc_hull(a: _Assessment) -> None:
    """Basic hull (000 L15522-15526) and hull integrity (000 L14605-14724)."""
    d, preset = a.design, a.preset
    if d.hull not in ("warship", "merchant"):
        a.problem(
            "$.hull",
            f"Continuum designs here are warships or merchants; {d.hull!r} is not supported "
            "yet (docs/rulings.md)",
        )
    civilian = d.hull == "merchant"
    a.hull_class = "merchant" if civilian else pc_class(d.mass)
    a.allowance = Fraction(d.mass)  # 000 L14309-14313: a mass-N hull holds N mass of systems
    a.crew_factor = math.ceil(d.mass / PC_CREW_MASS["civilian" if civilian else "military"])
    a.line(f"Basic hull, mass {d.mass}", 0, d.mass, "000 L15522-15526")

    minimum = max(round_half_up(PC_MIN_HULL_SHARE * d.mass), 1)
    if (d.hull_boxes is None) == (d.hull_strength is None):
        a.problem(
            "$.hull_boxes",
            "give either hull_boxes or hull_strength (fragile, weak, average, strong, super) "
            "(000 L14605-14628)",
        )
    if d.hull_boxes is not None:
        boxes = d.hull_boxes
    elif d.hull_strength is not None:
        boxes = max(round_half_up(PC_HULL_STRENGTH[d.hull_strength] * d.mass), 1)
    else:
        boxes = minimum
    if boxes < minimum:
        a.problem(
            "$.hull_boxes",
            f"at least 10% of mass must be hull boxes: {minimum} for mass {d.mass} "
            "(000 L14609-14611)",
        )
    rows = d.hull_rows or PC_STANDARD_ROWS
    if rows not in PC_HULL_BOX_POINTS:
        a.problem("$.hull_rows", "hulls have 4, 5 or 6 rows, or 3 if advanced (000 L14632-14724)")
        rows = PC_STANDARD_ROWS
    elif rows != PC_STANDARD_ROWS and not preset.allow_nonstandard_rows:
        a.problem(
            "$.hull_rows",
            f"the {preset.name!r} preset builds 4-row hulls only (Fleet Book hulls); "
            "3, 5 and 6 rows need allow_nonstandard_rows",
        )
    if rows == 3 and boxes < PC_ADVANCED_MIN_BOXES:
        a.problem("$.hull_rows", "an advanced hull needs at least 4 boxes (000 L14720-14724)")
    a.hull_boxes = boxes
    a.rows = track_rows(boxes, rows, extra_on_top=True)
    a.line(
        f"Hull integrity, {boxes} boxes in {rows} rows",
        boxes,
        PC_HULL_BOX_POINTS[rows] * boxes,
        "000 L14632-14690",
    )


def _pc_drives_and_defences(a: _Assessment) -> None:
    """Drives (000 L14728-14774; never below 1 mass, L14543-14547), FireCons, screens, armour."""
    d, preset = a.design, a.preset
    if d.ftl:
        ftl_mass = max(round_half_up(PC_FTL_SHARE * d.mass), 1)
        a.line(
            "FTL drive" + (" (advanced)" if d.advanced_ftl else ""),
            ftl_mass,
            PC_DRIVE_POINTS_PER_MASS[d.advanced_ftl] * ftl_mass,
            "000 L14730-14746",
        )
    elif d.advanced_ftl:
        a.problem("$.advanced_ftl", "a ship without FTL cannot have advanced FTL")
    if d.thrust:
        drive_mass = max(round_half_up(PC_DRIVE_SHARE_PER_THRUST * d.thrust * d.mass), 1)
        a.line(
            f"Main drive, thrust {d.thrust}" + (" (advanced)" if d.advanced_drive else ""),
            drive_mass,
            PC_DRIVE_POINTS_PER_MASS[d.advanced_drive] * drive_mass,
            "000 L14750-14774",
        )
    elif d.advanced_drive:
        a.problem("$.advanced_drive", "a thrust-0 ship has no drive to be advanced")

    if d.fire_controls is None:
        a.problem(
            "$.fire_controls",
            "Continuum ships buy their FireCons (1 mass, 4 points each, 000 L3701-3703); "
            "say how many, 0 allowed",
        )
    a.fire_controls = d.fire_controls or 0
    if a.fire_controls:
        a.line(
            _times("FireCon", a.fire_controls),
            PC_FIRECON_MASS * a.fire_controls,
            PC_FIRECON_POINTS * a.fire_controls,
            "000 L3701-3703",
        )
    a.add_systems(a.fire_controls, "firecon", "FireCon")

    if d.screens:
        per = max(round_half_up(PC_SCREEN_SHARE * d.mass), preset.screen_min_mass)
        a.line(
            _times("Screen generator", d.screens),
            per * d.screens,
            PC_SCREEN_POINTS_PER_MASS * per * d.screens,
            "000 L6838-6844",
        )
        if d.screens > PC_MAX_ACTIVE_SCREENS:
            a.warnings.append(
                f"screens: only {PC_MAX_ACTIVE_SCREENS} levels can be active; the rest are "
                "backups (000 L6812-6818)"
            )
    a.add_systems(d.screens, "screen", "Screen generator")
    if d.armour:
        a.line(
            f"Armour, {d.armour} boxes",
            PC_ARMOUR_MASS * d.armour,
            PC_ARMOUR_POINTS * d.armour,
            "000 L7074-7084",
        )


def _pc_arcs(a: _Assessment, path: str, mount: Mount, rule: PcSystem) -> tuple[str, ...]:
    arcs = mount.arcs or rule.default_arcs
    if not _check_arc_names(a, path, arcs, CONTINUUM_ARCS):
        return ()
    if rule.arcs == "none" and arcs:
        a.problem(path, f"a {rule.label} has no fire arcs")
        return ()
    if rule.arcs == "any" and not arcs:
        a.problem(
            path, f"say which arcs the {rule.label} fires through: {', '.join(CONTINUUM_ARCS)}"
        )
    elif len(arcs) > rule.max_arcs:
        a.problem(path, f"a {rule.label} covers at most {rule.max_arcs} arcs ({rule.source})")
    return arcs


def _pc_mount(a: _Assessment, index: int, mount: Mount) -> None:
    """Check and price one line of the system list (000 sections 5-7, 13.12-13.13, 14)."""
    d = a.design
    path = f"$.systems[{index}]"
    rule = PC_SYSTEMS.get(mount.kind)
    if rule is None:
        known = ", ".join(sorted(PC_SYSTEMS))
        a.problem(f"{path}.kind", f"unknown Continuum system {mount.kind!r}; known: {known}")
        return
    arcs = _pc_arcs(a, f"{path}.arcs", mount, rule)
    if mount.kind == "minelayer" and (mount.loads or 0) < PC_MIN_MINES:
        a.problem(
            f"{path}.loads",
            f"say how many mines the mine layer carries: loads = {PC_MIN_MINES} or more "
            "(000 L6801-6802)",
        )
    elif mount.kind == "boarding_magazine" and mount.loads is None:
        a.problem(f"{path}.loads", "say how many boarding torpedoes the magazine holds (loads = N)")
    elif mount.kind in PC_LOADED and mount.loads is None:
        a.problem(f"{path}.loads", "say how many salvos the magazine holds (loads = N)")
    elif mount.kind not in PC_LOADED and mount.loads is not None:
        a.problem(f"{path}.loads", f"a {rule.label} takes no loads")
    wing: FighterWing | None = None
    if mount.fighters is not None and mount.kind not in PC_BAYS:
        a.problem(
            f"{path}.fighters", f"only hangar or combined bays carry fighters, not a {rule.label}"
        )
    elif mount.fighters is not None:
        try:
            wing = parse_fighters(mount.fighters)
        except FighterNameError as exc:
            a.problem(f"{path}.fighters", str(exc))
    if rule.capital_only and (d.hull != "warship" or pc_class(d.mass) != "capital"):
        a.problem(
            f"{path}.kind",
            f"a {rule.label} goes on capital ships only (over mass {PC_CRUISER_MAX_MASS}; "
            "000 L8120-8122, index F51)",
        )
    mass = _pc_system_mass(mount.kind, rule, arcs, mount, a)
    points = _pc_system_points(mount.kind, rule, mass, a.preset, mount.loads)
    label = mount.label or rule.label
    if mount.loads is not None:
        label = f"{label} ({mount.loads} loads)"
    shown = f"{label} ({_arcs_text(arcs)})" if arcs else label
    a.line(_times(shown, mount.count), mass * mount.count, points * mount.count, rule.source)
    if wing is not None:
        size = f" of {wing.fighters}" if wing.light else ""
        a.line(
            _times(f"Fighters, {wing.label} wing{size}", mount.count),
            0,
            pc_wing_points(wing, a.preset) * mount.count,
            "000 L16852-16884",
        )
    a.add_systems(
        mount.count,
        mount.kind,
        label,
        arcs=arcs,
        ammo=mount.loads if mount.loads is not None else rule.ammo,
        bay_capacity=wing.fighters if wing is not None else rule.bay,
        fighters=wing.name if wing is not None else None,
    )


def pc_wing_points(wing: FighterWing, preset: Preset) -> int:
    """Return the points of one wing: its base type's plus each modification's (000 14.7
    L16852-16884); a light wing costs what six of its type do.

    >>> from tactical.fighters import parse_fighters
    >>> from tactical.ship import PRESETS
    >>> [pc_wing_points(parse_fighters(name), PRESETS["continuum"])
    ...  for name in ("light", "light+attack", "attack+fast", "standard+heavy", "robot")]
    [18, 24, 30, 36, 12]
    """
    mods = dict(PC_FIGHTER_MOD_POINTS)
    if preset.heavy_fighter_costs == "fb1":
        mods["heavy"] = FB1_HEAVY_MOD_POINTS
    return PC_FIGHTER_WING_POINTS[wing.base] + sum(mods[mod] for mod in wing.mods)


def _pc_links(a: _Assessment) -> None:
    """Launchers need magazines, hangars need tubes, one nova cannon (000 L6056-6062)."""
    kinds = {m.kind for m in a.design.systems}
    magazines = kinds & PC_MAGAZINES
    if "sml" in kinds and not magazines:
        a.problem("$.systems", "a salvo missile launcher needs a magazine (000 L6056-6062)")
    if magazines and "sml" not in kinds:
        a.problem("$.systems", "a magazine needs a salvo missile launcher (000 L6056-6062)")
    if "boarding_torpedo" in kinds and "boarding_magazine" not in kinds:
        a.problem("$.systems", "a boarding torpedo launcher is fed by a magazine (000 L5090-5114)")
    if "boarding_magazine" in kinds and "boarding_torpedo" not in kinds:
        a.problem("$.systems", "a boarding torpedo magazine needs a launcher (000 L5090-5114)")
    if "hangar_bay" in kinds and "launch_tube" not in kinds:
        a.warnings.append(
            "hangar bays cannot launch or recover without a launch tube (000 L14838-14870)"
        )
    extras = sum(m.count for m in a.design.systems if m.kind in PC_CREW_EXTRAS)
    if extras > a.crew_factor:
        a.problem(
            "$.systems",
            f"extra DCPs and marines together may not exceed the crew factor, {a.crew_factor} "
            "(000 L15112-15122, L15160-15168)",
        )
    if kinds & PC_TORPEDOES_OVERLOAD and kinds & PC_TORPEDOES_PLAIN:
        a.problem(
            "$.systems",
            "every pulse torpedo but the short range ones takes the overload upgrade, or none "
            "does (000 L4728-4736): use pulse_torpedo_overload and pulse_torpedo_lr_overload "
            "throughout, or neither",
        )
    if sum(m.count for m in a.design.systems if m.kind == "nova_cannon") > 1:
        a.problem("$.systems", "one nova cannon per ship: it is a spinal mount (index F51)")


def _assess_continuum(a: _Assessment) -> None:
    _pc_hull(a)
    _pc_drives_and_defences(a)
    for index, mount in enumerate(a.design.systems):
        _pc_mount(a, index, mount)
    _pc_links(a)


# ---------------------------------------------------------------- entry points


def _assess(design: Design, preset: Preset) -> _Assessment:
    a = _Assessment(design=design, preset=preset)
    if design.rules != preset.rules:
        a.problem(
            "$.rules",
            f"this is an {design.rules} design; the {preset.name!r} preset prices "
            f"{preset.rules} designs only",
        )
    if design.rules == "ft2":
        _assess_ft2(a)
    else:
        _assess_continuum(a)
    _check_holds(a)
    if a.mass_used > a.allowance:
        a.problem(
            "$.systems",
            f"systems need {_number(a.mass_used)} mass but the hull allows {_number(a.allowance)}",
        )
    elif a.mass_used < a.allowance:
        a.warnings.append(
            f"{_number(a.allowance - a.mass_used)} mass unused "
            f"({_number(a.mass_used)} of {_number(a.allowance)})"
        )
    return a


def _check_holds(a: _Assessment) -> None:
    """Check that a fleet tender's fighter stores fit its holds, 1 mass per fighter
    (docs/rulings.md, "Fleet tenders")."""
    d = a.design
    if not d.fighter_stores:
        return
    if d.rules == "ft2":
        # 001 L1005-1007: merchants carry cargo; FT2 leaves a merchant-costed hull's mass
        # outside its systems allowance for hull, drives and holds.
        if d.hull not in FT2_FREIGHT_HULLS:
            kinds = ", ".join(sorted(FT2_FREIGHT_HULLS))
            a.problem(
                "$.fighter_stores",
                f"a {d.hull} hull has no holds under FT2; freight needs a {kinds} hull "
                "(001 L1005-1007)",
            )
            return
        holds = d.mass - math.ceil(a.allowance)
        where = f"the {holds} mass outside its systems allowance"
    else:
        holds = sum(m.count for m in d.systems if m.kind == "cargo")
        where = f"its {holds} cargo spaces (000 L11481-11502)"
    if d.fighter_stores > holds:
        a.problem(
            "$.fighter_stores",
            f"{d.fighter_stores} fighters as freight need {d.fighter_stores} mass of hold, "
            f"more than {where}",
        )


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def price(design: Design, preset: Preset) -> Costing:
    """Price a design and list every rule it breaks; never raises for a broken design.

    The total is the exact sum rounded up (digest A20).
    """
    a = _assess(design, preset)
    return Costing(
        design=design.name,
        rules=design.rules,
        preset=preset.name,
        points=math.ceil(a.exact),
        exact_points=float(a.exact),
        mass_used=float(a.mass_used),
        mass_allowance=float(a.allowance),
        lines=tuple(a.lines),
        problems=tuple(a.problems),
        warnings=tuple(a.warnings),
    )


def validate(design: Design, preset: Preset) -> tuple[Problem, ...]:
    """Return every rule the design breaks under the preset; empty if it is legal."""
    return price(design, preset).problems


def build(design: Design, preset: Preset, ship_id: str | None = None) -> Ship:
    """Validate and price a design and lay out its record sheet.

    Raises:
        DesignError: the design breaks a rule; ``problems`` lists them all.
    """
    a = _assess(design, preset)
    if a.problems:
        raise DesignError(design.name, tuple(a.problems))
    return Ship(
        id=ship_id or design.name.lower().replace(" ", "_"),
        name=design.name,
        rules=design.rules,
        preset=preset.name,
        hull=design.hull,
        hull_class=a.hull_class,
        mass=design.mass,
        hull_boxes=a.hull_boxes,
        rows=a.rows,
        armour=design.armour,
        thrust=design.thrust,
        ftl=design.ftl,
        screens=design.screens,
        fire_controls=a.fire_controls,
        crew_factor=a.crew_factor,
        systems=tuple(a.systems),
        mass_used=float(a.mass_used),
        mass_allowance=float(a.allowance),
        points=math.ceil(a.exact),
        cost=tuple(a.lines),
        warnings=tuple(a.warnings),
        provenance=design.provenance,
        ortillery=design.ortillery,
        fighter_stores=design.fighter_stores,
        advanced_drive=design.advanced_drive,
    )
