"""Ships as data: the design a player writes, the record sheet it builds, and its state in battle.

Three layers, each a frozen ``msgspec.Struct``:

- :class:`Design` is what a designer writes in a TOML file (``tactical/data/ships``). It is
  decoded with ``forbid_unknown_fields`` so a typo is reported with its path, and it says which
  construction rules it was built to (``rules = "ft2"`` or ``"continuum"``).
- :class:`Ship` is the validated, priced record sheet that :func:`tactical.points.build`
  derives from a design under a :class:`Preset`: hull class, damage-track rows, every system as
  its own line (threshold checks roll per system), and the cost breakdown.
- :class:`ShipState` is what changes in battle: boxes lost per row, armour lost, each system's
  status, ammunition, fighters aboard, the drives. It changes only by replacement, through the
  pure functions at the end of this module.

>>> d = Design(name="Courier", rules="ft2", mass=2, thrust=8, systems=(Mount(kind="beam_c"),))
>>> d.systems[0].arcs
()
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Literal, TypeVar

import msgspec
import msgspec.inspect
from msgspec import Meta, Struct

RulesName = Literal["ft2", "continuum"]
"""The construction rules a design is built to: FT2 section 7 or Project Continuum 13-14."""

HullType = Literal[
    "warship",
    "merchant",
    "q_ship",
    "tug",
    "military_installation",
    "civilian_installation",
]
"""What kind of hull: FT2 costs each differently (001 L1238-1262, L1148-1202)."""

HullClass = Literal["escort", "cruiser", "capital", "merchant"]
"""The classification the rules use for fire controls, drives, thresholds and sensor signatures."""

HullStrength = Literal["fragile", "weak", "average", "strong", "super"]
"""Continuum hull-integrity descriptors, 10% to 50% of mass (000 L14620-14628)."""

SystemStatus = Literal["ok", "damaged", "destroyed"]
"""``damaged`` can be repaired by damage control; ``destroyed`` cannot (digest B7)."""

DriveState = Literal["ok", "half", "disabled"]
"""Normal-space drive: the first hit halves thrust, the second disables it (001 L528)."""

FtlState = Literal["ok", "lost"]

CoreStatus = Literal["ok", "damaged"]
"""A power core after a failed threshold check: ``damaged`` may explode at the end of each turn
(core systems, 000 L11201-11211)."""

FOR_THE_BATTLE = -1
"""``ShipState.out_of_control`` after a bridge hit's 6: out of control for the rest of the battle
(000 L11143-11147)."""
GIVEN_OUT = -1
"""``ShipState.life_support`` once the failed life support has given out (000 L11189-11197)."""

FT2_ARCS: tuple[str, ...] = ("F", "S", "A", "P")
"""FT2 fire arcs, four 90° quadrants, clockwise from the bow (001 L398-421)."""

CONTINUUM_ARCS: tuple[str, ...] = ("F", "FS", "AS", "A", "AP", "FP")
"""Continuum fire arcs, six 60° sectors, clockwise from the bow (000 L2483-2679)."""

Count = Annotated[int, Meta(ge=1, le=1000)]
NonNegative = Annotated[int, Meta(ge=0, le=100_000)]


class Mount(
    Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True, gc=False
):
    """One line of a design's system list: ``count`` identical systems of one ``kind``.

    ``kind`` names an entry of the rules' system table (see :mod:`tactical.points`), e.g.
    ``beam_b`` under FT2 or ``beam3`` under Continuum. ``arcs`` lists the fire arcs for
    directional systems. ``loads`` is a magazine's salvo count or a Continuum mine layer's mines;
    ``fighters`` the fighter wing a Continuum bay carries, a type and its ``+`` mods
    (:func:`tactical.fighters.parse_fighters`).
    """

    kind: str
    count: Count = 1
    arcs: tuple[str, ...] = ()
    loads: Annotated[int, Meta(ge=1, le=100)] | None = None
    fighters: str | None = None
    label: str | None = None


class Design(
    Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True, gc=False
):
    """A ship design as written in a data file.

    Fields that only one set of rules uses (``armour``, ``hull_boxes``, ``hull_strength``,
    ``advanced_drive``, ``advanced_ftl`` are Continuum's) are rejected by the validator under
    the other rules, with the reason.
    """

    name: str
    rules: RulesName
    mass: Annotated[int, Meta(ge=1, le=10_000)]
    thrust: Annotated[int, Meta(ge=0, le=20)]
    hull: HullType = "warship"
    ftl: bool = True
    screens: Annotated[int, Meta(ge=0, le=10)] = 0
    fire_controls: NonNegative | None = None
    hull_rows: Annotated[int, Meta(ge=1, le=12)] | None = None
    hull_boxes: Annotated[int, Meta(ge=1, le=10_000)] | None = None
    hull_strength: HullStrength | None = None
    armour: NonNegative = 0
    advanced_drive: bool = False
    advanced_ftl: bool = False
    systems: tuple[Mount, ...] = ()
    provenance: str = ""
    notes: str = ""
    ortillery: bool = False
    """A dedicated ortillery (orbital bombardment) vessel: the campaign counts its points three
    times when it bombards a colony (004 L220-221). A role, not a system: the points and the
    battle engine ignore it."""
    fighter_stores: Annotated[int, Meta(ge=0, le=1000)] = 0
    """Replacement fighters the ship can carry as freight, 1 mass of hold each: a fleet tender
    (004 L197-201). FT2 holds are a merchant hull's mass outside its systems allowance
    (001 L1005-1007); Continuum holds are ``cargo`` spaces (000 L11481-11502, L15019-15023).
    Crated fighters cannot be launched: the battle engine ignores them."""


class Preset(Struct, frozen=True, kw_only=True, gc=False):
    """A named set of rule options, like a python-chess variant.

    Each preset prices the designs built to its ``rules``. The options below are the points
    questions the rules leave open or answer twice; every default is argued in
    ``docs/rulings.md`` ("Tactical: ship design").
    """

    name: str
    rules: RulesName
    description: str
    allowance_rounding: Literal["up", "down"] = "up"
    """FT2: percentage system allowances of odd masses. Up: 75% of 14 is 11 (001 L1140), and
    only 5 mass (not 4) fits the Survey Cruiser's printed 333 points."""
    hangar_critical_rule: bool = False
    """Continuum: the optional hangar-critical rule makes bays 2 points per mass, not 3
    (000 L14852-14856)."""
    adfc_massless_over_20: bool = False
    """Continuum: optional ADFC of 0 mass on ships over 20 mass, still 8 points (000 L7341-7346)."""
    afc_points: int = 5
    """Continuum: advanced FireCon points; 5 in the body (000 L3731), 8 in the summary (L15945)."""
    sensor_costs: Literal["summary", "body"] = "summary"
    """Continuum: enhanced/superior sensors 2/8 and 4/16 (summary 000 L16051-16053) or
    4/24 and 8/48 (body 13.13)."""
    weasel_costs: Literal["ft2", "continuum"] = "ft2"
    """Continuum: weasel emitters at FT2's 1 mass for 20 (cruiser) or 40 (capital) points
    (001 L963-967), as the campaign names "Full Thrust" for them (index E40), or PC's 2/8 and
    4/16 (000 L16055-16057)."""
    screen_min_mass: int = 1
    """Continuum: no system rounds to 0 mass (000 L14543-14547), although 7.2 says screens have
    "no minimum" (000 L6838-6840); 0 follows 7.2."""
    allow_nonstandard_rows: bool = False
    """Continuum: 5- and 6-row and advanced 3-row hulls (000 L14632-14724) are PC additions;
    the campaign builds to the Fleet Book's 4-row hull (index F46)."""
    heavy_fighter_costs: Literal["continuum", "fb1"] = "continuum"
    """Continuum: the heavy modification at PC's +18 a wing (000 L9511-9515, L16856), so a heavy
    standard wing is 36, or at +12, as FB1 prices its heavy group at 30 (index D35)."""


PRESETS: dict[str, Preset] = {
    "ft2": Preset(
        name="ft2",
        rules="ft2",
        description="Full Thrust 2nd edition, section 7 design and points (001 L1220-1383)",
    ),
    "continuum": Preset(
        name="continuum",
        rules="continuum",
        description="Project Continuum ship design, sections 13-14 (000 L13987-16925); "
        "the campaign default",
    ),
}
DEFAULT_PRESET = "continuum"


class Problem(Struct, frozen=True, gc=False):
    """One thing wrong with a design, where it is (``$.systems[2].arcs``) and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    @classmethod
    def from_decode_error(cls, exc: msgspec.DecodeError, decoded: object = None) -> Problem:
        """Return the problem a TOML decode names: its field path (``$`` if none) and why;
        for a value not among a field's choices in the type ``decoded``, the choices.

        >>> class Rules(Struct):
        ...     movement: Literal["cinematic", "vector"] = "cinematic"
        >>> try:
        ...     msgspec.convert({"movement": "warp"}, Rules)
        ... except msgspec.ValidationError as exc:
        ...     print(Problem.from_decode_error(exc, Rules))
        $.movement: Invalid enum value 'warp'; choose cinematic or vector
        """
        if not isinstance(exc, msgspec.ValidationError):
            return cls(path="$", reason=f"not valid TOML: {exc}")
        reason, _, where = str(exc).rpartition(" - at `")
        if not reason:
            return cls(path="$", reason=str(exc))
        path = where.rstrip("`")
        choices = _choices_at(decoded, path) if reason.startswith("Invalid enum value") else ()
        if choices:
            reason += f"; choose {', '.join(choices[:-1])} or {choices[-1]}"
        return cls(path=path, reason=reason)


def _choices_at(decoded: object, path: str) -> tuple[str, ...]:
    """The values a Literal field at ``path`` (``$.sides[0].order``) of the type ``decoded``
    takes; none when the path leads elsewhere."""
    if decoded is None:
        return ()
    info: msgspec.inspect.Type = msgspec.inspect.type_info(decoded)
    for name, index in re.findall(r"\.(\w+)|\[(\d+)\]", path.removeprefix("$")):
        info = _one_of(info)
        if name and isinstance(info, msgspec.inspect.StructType):
            fields = {f.encode_name: f.type for f in info.fields}
            if name not in fields:
                return ()
            info = fields[name]
        elif index and isinstance(info, msgspec.inspect.ListType | msgspec.inspect.VarTupleType):
            info = info.item_type
        elif index and isinstance(info, msgspec.inspect.TupleType):
            if int(index) >= len(info.item_types):
                return ()
            info = info.item_types[int(index)]
        else:
            return ()
    info = _one_of(info)
    if isinstance(info, msgspec.inspect.LiteralType):
        return tuple(str(value) for value in info.values)
    return ()


def _one_of(info: msgspec.inspect.Type) -> msgspec.inspect.Type:
    """An optional type's other type (``X | None`` is ``X``)."""
    if isinstance(info, msgspec.inspect.UnionType):
        kept = [t for t in info.types if not isinstance(t, msgspec.inspect.NoneType)]
        if len(kept) == 1:
            return kept[0]
    return info


class DesignError(ValueError):
    """A design broke the construction rules; ``problems`` lists every error found."""

    def __init__(self, name: str, problems: tuple[Problem, ...]) -> None:
        self.name = name
        self.problems = problems
        listed = "; ".join(str(p) for p in problems)
        super().__init__(f"design {name!r} is invalid: {listed}")


class CostLine(Struct, frozen=True, gc=False):
    """One line of a points breakdown. Points may be fractional before the total is rounded."""

    item: str
    mass: float
    points: float
    source: str


class SystemSpec(Struct, frozen=True, kw_only=True, gc=False):
    """One system on the record sheet; threshold checks and needle shots address it by ``id``."""

    id: str
    kind: str
    label: str
    arcs: tuple[str, ...] = ()
    ammo: int | None = None
    bay_capacity: int | None = None
    fighters: str | None = None


class Ship(Struct, frozen=True, kw_only=True, gc=False):
    """A validated, priced record sheet built from a :class:`Design` under a :class:`Preset`."""

    id: str
    name: str
    rules: RulesName
    preset: str
    hull: HullType
    hull_class: HullClass
    mass: int
    hull_boxes: int
    rows: tuple[int, ...]
    armour: int
    thrust: int
    ftl: bool
    screens: int
    fire_controls: int
    crew_factor: int
    systems: tuple[SystemSpec, ...]
    mass_used: float
    mass_allowance: float
    points: int
    cost: tuple[CostLine, ...]
    warnings: tuple[str, ...] = ()
    provenance: str = ""
    ortillery: bool = False  # the design's role (Design.ortillery)
    fighter_stores: int = 0  # replacement fighters carried as freight (Design.fighter_stores)
    advanced_drive: bool = False  # Continuum advanced drive (000 L1690-1721, L14742-14774)

    def system(self, system_id: str) -> SystemSpec:
        """Return the system with this id.

        Raises:
            KeyError: no system has that id.
        """
        known = _SYSTEMS.get(id(self))  # read_off's reading, without its general key
        if known is None or known[0] is not self:
            if len(_SYSTEMS) >= _READ_OFF_KEPT:
                _SYSTEMS.clear()
            known = _SYSTEMS[id(self)] = (self, read_off(self, _systems_by_id))
        spec = known[1].get(system_id)
        if spec is None:
            raise KeyError(f"{self.id} has no system {system_id!r}")
        return spec


_SYSTEMS: dict[int, tuple[Ship, dict[str, SystemSpec]]] = {}
""":meth:`Ship.system`'s index of each sheet's systems, by the sheet's identity (each entry
holds its sheet): the rules look systems up by the ten thousand a battle."""


def _systems_by_id(sheet: Ship) -> dict[str, SystemSpec]:
    """The sheet's systems by id (the first of any id given twice), for :meth:`Ship.system`."""
    found: dict[str, SystemSpec] = {}
    for spec in sheet.systems:
        found.setdefault(spec.id, spec)
    return found


class SystemState(Struct, frozen=True, kw_only=True, gc=False):
    """What a threshold check, a needle or a shot has done to one system."""

    id: str
    status: SystemStatus = "ok"
    ammo: int | None = None
    fighters: int | None = None


class ShipState(Struct, frozen=True, kw_only=True, gc=False):
    """A ship's record state in battle. Replace it; never mutate it.

    The campaign stores it in its events (`campaign.strategic.ShipResult.record`), so it
    evolves as an event does: a new field needs a default (tests/golden/events/).
    """

    ship_id: str
    hull_lost: tuple[int, ...]
    armour_lost: int = 0
    drive: DriveState = "ok"
    ftl: FtlState = "ok"
    systems: tuple[SystemState, ...] = ()
    out_of_control: int = 0
    """Core systems: the turns the ship stays out of control after its bridge failed, the
    current turn included (000 L11133-11147); :data:`FOR_THE_BATTLE` for the rest of the
    battle; 0 under control."""
    power_core: CoreStatus = "ok"
    life_support: int = 0
    """Core systems: the turns before a failed life support gives out, the current turn
    included (000 L11175-11181); :data:`GIVEN_OUT` once it has; 0 working."""


class DamageResult(Struct, frozen=True, kw_only=True, gc=False):
    """The outcome of :func:`apply_damage`: the new state and what the damage crossed."""

    state: ShipState
    to_armour: int
    to_hull: int
    rows_completed: tuple[int, ...]
    destroyed: bool


def fresh_state(ship: Ship) -> ShipState:
    """Return the state of an undamaged ship with full magazines and full bays.

    >>> from tactical.designs import load_builtin
    >>> from tactical.points import build
    >>> frigate = build(load_builtin("frigate", "ft2"), PRESETS["ft2"])
    >>> fresh_state(frigate).hull_lost
    (0, 0)
    """
    return ShipState(
        ship_id=ship.id,
        hull_lost=tuple(0 for _ in ship.rows),
        ftl="ok" if ship.ftl else "lost",
        drive="ok" if ship.thrust > 0 else "disabled",
        systems=tuple(
            SystemState(
                id=spec.id,
                ammo=spec.ammo,
                fighters=spec.bay_capacity if spec.fighters is not None else None,
            )
            for spec in ship.systems
        ),
    )


_Read = TypeVar("_Read")

_READ_OFF: dict[tuple[int, Callable[[Ship], object]], tuple[Ship, object]] = {}
""":func:`read_off` by the sheet's identity and the reading; each entry holds its sheet, so
no other sheet can take its id while it lives."""

_READ_OFF_KEPT = 4096
"""How many readings :data:`_READ_OFF` keeps before it starts again (a memory bound only)."""


def read_off(sheet: Ship, reading: Callable[[Ship], _Read]) -> _Read:
    """Return ``reading(sheet)``, worked out once for each record sheet: a sheet does not
    change, and the rules read the same things off it (which systems are launchers, which
    are fighter bays) step after step. ``reading`` must read the sheet and nothing else."""
    key = (id(sheet), reading)
    known = _READ_OFF.get(key)
    if known is not None and known[0] is sheet:
        return known[1]  # type: ignore[return-value]
    value = reading(sheet)
    if len(_READ_OFF) >= _READ_OFF_KEPT:
        _READ_OFF.clear()
    _READ_OFF[key] = (sheet, value)
    return value


def hull_remaining(ship: Ship, state: ShipState) -> int:
    """Return the hull boxes not yet crossed off."""
    return ship.hull_boxes - sum(state.hull_lost)


def is_destroyed(ship: Ship, state: ShipState) -> bool:
    """Return whether every hull box is gone (001 L474-476; 000 L961-1051)."""
    return hull_remaining(ship, state) <= 0


def apply_damage(
    ship: Ship, state: ShipState, points: int, *, armour_first: bool = True
) -> DamageResult:
    """Cross off ``points`` of damage: armour first, then hull boxes row by row, top row first.

    Returns the rows this damage completed, in order, so the caller can make one threshold
    check per row (001 L512-534) or one aggregated check (000 L3251-3261). Completing the last
    row destroys the ship and is not a threshold. Re-roll damage that bypasses armour
    (000 L2864-2967) passes ``armour_first=False``.

    Raises:
        ValueError: ``points`` is negative.
    """
    if points < 0:
        raise ValueError(f"damage must be >= 0, got {points}")
    armour_left = ship.armour - state.armour_lost if armour_first else 0
    to_armour = min(points, max(armour_left, 0))
    to_hull = points - to_armour
    lost = list(state.hull_lost)
    completed: list[int] = []
    remaining = to_hull
    for index, size in enumerate(ship.rows):
        if remaining == 0:
            break
        space = size - lost[index]
        if space <= 0:
            continue
        taken = min(space, remaining)
        lost[index] += taken
        remaining -= taken
        if lost[index] == size and index < len(ship.rows) - 1:
            completed.append(index + 1)
    new_state = msgspec.structs.replace(
        state, armour_lost=state.armour_lost + to_armour, hull_lost=tuple(lost)
    )
    return DamageResult(
        state=new_state,
        to_armour=to_armour,
        to_hull=to_hull - remaining,
        rows_completed=tuple(completed),
        destroyed=is_destroyed(ship, new_state),
    )


def with_system_status(state: ShipState, system_id: str, status: SystemStatus) -> ShipState:
    """Return the state with one system's status changed.

    A destroyed fighter bay loses the fighters still aboard (001 L532-534).

    Raises:
        KeyError: the ship has no system with that id.
    """
    found = False
    systems: list[SystemState] = []
    for sys_state in state.systems:
        if sys_state.id != system_id:
            systems.append(sys_state)
            continue
        found = True
        fighters = sys_state.fighters
        if status == "destroyed" and fighters is not None:
            fighters = 0
        systems.append(msgspec.structs.replace(sys_state, status=status, fighters=fighters))
    if not found:
        raise KeyError(f"{state.ship_id} has no system {system_id!r}")
    return msgspec.structs.replace(state, systems=tuple(systems))


def hit_drive(state: ShipState) -> ShipState:
    """Return the state after the normal-space drive fails a check or takes a needle hit.

    The first hit halves thrust, the second disables the drive (001 L528, L854; 000 L10909-10999).
    """
    following: dict[DriveState, DriveState] = {
        "ok": "half",
        "half": "disabled",
        "disabled": "disabled",
    }
    return msgspec.structs.replace(state, drive=following[state.drive])


def core_damaged(state: ShipState) -> bool:
    """Return whether any core system is out: bridge, power core or life support (000 10.3)."""
    return bool(state.out_of_control or state.life_support) or state.power_core != "ok"


def collision_thrust(ship: Ship, state: ShipState) -> int:
    """Return the thrust a ship avoids an asteroid with: what its drive delivers now (001
    L1092), doubled for an advanced drive (000 L18124-18126)."""
    return current_thrust(ship, state) * (2 if ship.advanced_drive else 1)


def current_thrust(ship: Ship, state: ShipState) -> int:
    """Return the thrust the drive can deliver now.

    Half thrust is ``floor(original / 2)`` from the original rating. FT2 keeps at least 1
    (digest A9); under Continuum a thrust-1 drive is disabled by its first hit (000 L10909-10999).
    """
    if state.drive == "disabled":
        return 0
    if state.drive == "half":
        if ship.rules == "continuum" and ship.thrust <= 1:
            return 0
        return max(ship.thrust // 2, 1 if ship.rules == "ft2" else 0)
    return ship.thrust


def screen_level(ship: Ship, state: ShipState) -> int:
    """Return the working screen level: one per working generator, capped by the rules.

    FT2 caps at 3 (001 L502); Continuum's active level caps at 2 (000 L6812-6818).
    """
    cap = 3 if ship.rules == "ft2" else 2
    systems = state.systems
    if len(systems) == len(ship.systems):  # the sheet's screens' places, read off once
        working = sum(1 for index in read_off(ship, _screens) if systems[index].status == "ok")
        return min(working, cap)
    working = sum(
        1
        for spec, sys_state in zip(ship.systems, systems, strict=True)
        if spec.kind == "screen" and sys_state.status == "ok"
    )
    return min(working, cap)


def _screens(ship: Ship) -> tuple[int, ...]:
    """The places of the sheet's screen generators among its systems (:func:`screen_level`)."""
    return tuple(index for index, spec in enumerate(ship.systems) if spec.kind == "screen")


def fighters_aboard(state: ShipState) -> int:
    """Return the fighters aboard in working bays."""
    return sum(s.fighters or 0 for s in state.systems if s.status == "ok")
