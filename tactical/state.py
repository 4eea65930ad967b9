"""The battle's set-up and state types: what a battle starts from and what its events fold.

A :class:`BattleSetup` (ships from the design catalogue, their places, course and speed, the
sides, the options) and its :class:`BattleContext` (the rules and record sheets, which never
change) are read by every phase; :class:`BattleState` and its :class:`ShipInPlay` are the fold
of the journal. The event parts more than one phase records (:class:`Hit`,
:class:`Threshold`, a ship's :class:`Moved`) and the small queries every phase asks
(:func:`targetable`, :func:`replace_ship`...) live here too, so that a phase module imports
only these types and the rule families (see docs/architecture.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Literal, NamedTuple, Protocol

import msgspec
from msgspec import Meta, Struct

from tactical.boarding import BoarderLosses, Boarders
from tactical.dice import Roll
from tactical.fighters import DEFENDING_BEAM, DefenceSpec, FighterGroup, defence_of
from tactical.ftl import Departure
from tactical.mines import Mine
from tactical.missiles import Salvo
from tactical.movement import angle_vector, format_mu, heading_vector, round_mu
from tactical.rules import BattleRules, MoraleTies, Movement
from tactical.sensors import (
    AREA_ECM,
    AREA_ECM_MU,
    ECM,
    LOCK_ON_MU_PER_LEVEL,
    Bogey,
    Dummy,
    Sighting,
    ecm_level,
)
from tactical.ship import Design, HullClass, Ship, ShipState, hull_remaining, screen_level

Phase = Literal[
    "orders",
    "movement",
    "flight",
    "fighters",
    "missiles",
    "fire",
    "assault",
    "repel",
    "end",
    "repair",
    "core",
    "over",
]


ShipStatus = Literal[
    "active", "destroyed", "left", "away", "jumped", "abandoned", "struck", "captured"
]
"""``left``: off the table for good; ``away``: off the table and due back (001 L536-538);
``jumped``: gone into FTL (004 L139-145); ``abandoned``: its life support gave out and its crew
abandoned it, a drifting hulk out of the battle (core systems, 000 L11189-11197); ``struck``:
its captain struck the colours, and it lies where it surrendered, out of the battle (000
L13275-13343); ``captured``: its boarders destroyed its last hull box and took it, out of the
battle, and a single point of damage destroys it (000 L13113-13130)."""


JumpState = Literal["none", "ready", "powering", "unplanned"]
"""A campaign ship's FTL jump: ``ready`` after its 6 (004 L142-143); ``powering`` or
``unplanned`` in its final power-up turn, a planned or an unplanned jump (004 L139-145)."""


Identifier = Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.\-]+$", max_length=40)]


class IllegalActionError(ValueError):
    """An order, a shot or a step the state does not allow; the message quotes it."""


class ShipSetup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """One ship at the start: a catalogue design, where it is, its course and speed."""

    id: Identifier
    side: Identifier
    design: Identifier
    x: float
    y: float
    course: Annotated[int, Meta(ge=1, le=12)]
    speed: Annotated[int, Meta(ge=0, le=1000)] = 0
    state: ShipState | None = None
    """Record state carried in from the campaign; fresh when left out."""
    ftl_deployed: tuple[Identifier, ...] = ()
    """Bays whose FTL fighter group begins the battle deployed on the ship, 1 CEF spent,
    instead of aboard (000 L9981-9989)."""
    dropout: Annotated[int, Meta(ge=1)] | None = None
    """The game turn it enters by dropping out of FTL (001 L1053), a table battle's: ``x``,
    ``y`` its intended entry point, ``course`` and ``speed`` its own after emergence. Until
    then it is ``away``, due back that turn."""


class MineSetup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """A mine on the table at the start, active from the first turn (001 L868-872)."""

    id: Identifier
    side: Identifier
    x: float
    y: float


class DummySetup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """One dummy bogey at the start: a drone showing an escort's signature (001 L955-957)."""

    id: Identifier
    side: Identifier
    x: float
    y: float
    course: Annotated[int, Meta(ge=1, le=12)]
    speed: Annotated[int, Meta(ge=0, le=1000)] = 0


class Zone(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """A body no ship may jump near: a dense world or a moon, its centre and FTL radius."""

    kind: Literal["dense world", "moon"]
    x: float
    y: float
    radius: float


class Theatre(
    Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True, gc=False
):
    """What a campaign battle adds to the table (004 5.3.1-5.3.5); ``tactical.campaign_battle``
    builds it. A set-up without one is an ordinary tabletop battle.

    The table floats (no edges) until two opposing ships are more than ``float_limit`` apart,
    then it is fixed where the ships are (004 L133-135); leaving a fixed table is disengaging,
    with a D6: under ``return_on`` the ship is gone, else it returns after that many turns
    (004 L136-138). Ships of the ``ftl_sides`` (FTL Move orders) roll a D6 at the end of each
    turn to be ready to jump (004 L142-143). ``gravity`` drifts every ship that many MU towards
    the gas giant edge at ``well_edge`` (an x coordinate) at the end of each turn (004
    L162-168). Asteroids start at ``asteroids`` and drift ``drift`` MU a turn, wrapping in
    ``field`` (004 L178-181).
    """

    float_limit: float = 150.0
    table_margin: float = 6.0
    return_on: int = 3
    ftl_sides: tuple[str, ...] = ()
    zones: tuple[Zone, ...] = ()
    gravity: int = 0
    well_edge: float | None = None
    asteroids: tuple[tuple[float, float], ...] = ()
    drift: tuple[float, float] = (0.0, 0.0)
    field: tuple[float, float, float, float] | None = None
    asteroid_motion: Literal["jump", "sweep"] = "jump"
    """How drifting asteroids collide (see docs/rulings.md). ``jump``: the drift is a jump at
    the end of the turn and a ship's move risks every asteroid its path crosses, as for
    stationary ones (001 L1092). ``sweep``: Continuum's moving asteroids (000 L18073-18101): at
    the start of the movement a ship the drift swept over risks it, and a ship risks only the
    asteroid its move ends inside; paths that merely cross are safe."""
    turn_mods: tuple[tuple[str, int], ...] = ()
    """Per ship: +1 or -1 to the course-change limit for its captain (004 L329-335). Set-ups
    stored before ``admirals`` was recorded also fold the admiral's one ship in here."""
    admirals: tuple[tuple[str, int], ...] = ()
    """Per side with a Level 1 or Level 3 admiral: his level. One ship of the side, which
    may change from turn to turn, acts as if its captain were of that level (004 L338,
    L343): the ship marked ``inspired``, chosen by ``/admiral`` in the side's orders."""
    initiative_mods: tuple[tuple[str, int], ...] = ()
    """Per side: +1 or -1 to its initiative dice (senior captain or admiral, 004 L329-343)."""
    initiative_roll: bool = False
    """Roll for initiative every turn, a D6 each with ``initiative_mods``, whatever the
    rules' ``initiative``: 004 L331, L334, L337 and L342 put the senior officer's modifier on an
    initiative roll in every campaign battle, so FT2's "most ships fires first" (001 L262)
    gives way to the roll (docs/rulings.md). Off for set-ups stored before it was recorded."""
    morale_mods: tuple[tuple[str, int], ...] = ()
    """Per side: points added to the set-up's ``morale`` percentage, -15 for a Level 3
    admiral and +15 for a Level 1 (004 L336-337, L341-342)."""
    strike_mods: tuple[tuple[str, int], ...] = ()
    """Per ship: added to its strike-the-colours die, +1 for a Level 3 captain and -1 for a
    Level 1 (004 L331, L335)."""
    rolls: tuple[Roll, ...] = ()
    """The dice that set the battle up (gravity band, asteroids), so the set-up is a record."""


ASTEROID_FTL_MU = 10.0  # 004 L146, L184: no FTL within 10 MU of an asteroid


class BattleSetup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything a battle starts from. Positions are MU, rounded to 0.001 when read."""

    sides: tuple[Identifier, Identifier]
    ships: tuple[ShipSetup, ...]
    rules: str = "ft2"
    turn_limit: Annotated[int, Meta(ge=1, le=1000)] = 20
    table: tuple[float, float, float, float] | None = None
    """``(x_min, y_min, x_max, y_max)``; ``None`` is a table without edges (the campaign's
    floating table)."""
    name: str = ""
    theatre: Theatre | None = None
    """A campaign battle's floating table, FTL escape, gravity and asteroids (004 5.3)."""
    mines: tuple[MineSetup, ...] = ()
    """Mines laid before the battle, each a side's (001 L868-888)."""
    bogeys: bool = False
    """Play with sensors and bogeys (001 L933-951): turns the rules' ``bogeys`` option on."""
    dummies: tuple[DummySetup, ...] = ()
    """Dummy bogeys, at most one per real ship of their side (001 L955-959); needs ``bogeys``."""
    core_systems: bool = False
    """Play with core systems (000 10.3): turns the rules' ``core_systems`` option on."""
    reactor_breach: bool = False
    """Power cores that explode breach (000 L11217-11254); needs ``core_systems``."""
    morale: Annotated[int, Meta(ge=1, le=100)] | None = None
    """Fleet morale (000 L13214-13273): a side that has lost this percentage of its mass
    withdraws; turns the rules' ``morale`` option on."""
    morale_ties: MoraleTies = "both"
    """With ``morale``, when both sides reach their share in the same turn: ``both`` withdraw,
    or the side ``worse`` off withdraws and the other holds the field; sets the rules'
    ``morale_ties`` (see docs/rulings.md)."""
    strike_colours: bool = False
    """Striking the colours (000 L13275-13343): turns the rules' option on."""
    strike_as_core: bool = False
    """Roll the strike die as a core system, 1 off (000 L13275-13343's variant)."""
    ram_on: dict[Identifier, Annotated[int, Meta(ge=1, le=6)]] = msgspec.field(default_factory=dict)
    """Per side, the D6 face its rams need to go on, for a scenario or a race that rams more
    readily (001 L979's special option); a side left out needs the rules' 6."""
    movement: Movement = "cinematic"
    """How ships move: sets the rules' ``movement`` option. Under ``vector`` (000 12.12) and
    ``spatial`` (003) each ship's ``course`` is its facing and its starting course; ``speed``
    MU along it."""
    spatial_turn_rounding: Literal["exact", "down"] = "exact"
    """Under spatial movement, half and a quarter of the velocity a course change is weighed
    against, exact or rounded down (003 L183-190 against L192-207): sets the rules' option."""
    death_blossom: bool = False
    """Under spatial movement, a ship spinning at rate 12 or more fires in any arc (003
    L266-271): sets the rules' ``death_blossom``."""
    vector_rounding: bool = True
    """Under vector movement, round each new velocity to whole MU (FB1); sets the rules'
    ``vector_rounding``."""
    advanced_vector_thrusters: Literal["full", "half"] = "full"
    """Under vector movement, the manoeuvre points of an advanced drive: its whole thrust
    rating (``full``, by analogy with 000 L1713-1721) or half, as any drive's; sets the
    rules' option of that name (see docs/rulings.md)."""
    fighter_rearming: bool | None = None
    """Roll to re-arm each group recovered (000 8.16): sets the rules' ``fighter_rearming``;
    ``None`` keeps the preset's (on under Continuum, off under FT2)."""
    fighter_scramble: bool | None = None
    """Let carriers scramble fighters at attackers (000 8.3): sets the rules'
    ``fighter_scramble``; ``None`` keeps the preset's (on under Continuum, off under FT2)."""
    fighter_secondary_move: bool | None = None
    """Let groups make secondary moves (000 8.5): sets the rules' ``fighter_secondary_move``;
    ``None`` keeps the preset's (on under Continuum, off under FT2)."""
    ftl_dropout_extreme: bool = False
    """FT2's OPTION for FTL dropouts (001 L1064): turns the rules' option of that name on."""
    enemy_sheets: Literal["open", "sensed"] | None = None
    """With ``bogeys``, whether a side reads an identified enemy ship's record sheet
    (``open``) or only what its sensors learned (``sensed``): sets the rules'
    ``enemy_sheets``, as a scenario's designer may (000 L1462-1466); ``None`` keeps the
    preset's (``sensed`` under Continuum, ``open`` under FT2)."""
    ftl_deployed: tuple[Identifier, ...] = ()
    """Sides whose FTL fighter groups all begin the battle deployed on their carriers, 1 CEF
    spent, instead of aboard (000 L9981-9989); ``ShipSetup.ftl_deployed`` picks single bays."""
    designs: dict[Identifier, Design] = msgspec.field(default_factory=dict)
    """Designs of this battle's own, by the id its ships name, before the catalogue: a
    campaign's home-made designs (004 L26-30), built to the rules' construction rules."""


def asteroids_at(theatre: Theatre, turn: int) -> tuple[tuple[float, float], ...]:
    """Return where the asteroids are during ``turn``: they drift at the end of each turn and
    wrap round the field, leaving one side and coming back on the opposite (004 L180-181)."""
    if theatre.field is None:
        return theatre.asteroids
    x_min, y_min, x_max, y_max = theatre.field
    dx, dy = theatre.drift
    steps = turn - 1
    return tuple(
        (
            round_mu(x_min + (x + dx * steps - x_min) % (x_max - x_min)),
            round_mu(y_min + (y + dy * steps - y_min) % (y_max - y_min)),
        )
        for x, y in theatre.asteroids
    )


def asteroids_now(ctx: BattleContext, state: BattleState) -> tuple[tuple[float, float], ...]:
    """Return where the asteroids are this turn; none outside a campaign asteroid field."""
    theatre = ctx.setup.theatre
    return () if theatre is None else asteroids_at(theatre, state.turn)


def ftl_blocked(theatre: Theatre, turn: int, x: float, y: float) -> str | None:
    """Return why no ship may jump at ``(x, y)`` during ``turn``, or ``None`` if one may.

    No FTL near a gas giant, within 40 MU of a dense world, 20 MU of a moon or 10 MU of an
    asteroid (004 L146, L161, L172, L184).
    """
    if theatre.gravity:
        return "no FTL near a gas giant (004 L172)"
    for zone in theatre.zones:
        if math.hypot(x - zone.x, y - zone.y) <= zone.radius:
            return f"no FTL within {format_mu(zone.radius)} MU of a {zone.kind} (004 L146)"
    for ax, ay in asteroids_at(theatre, turn):
        if math.hypot(x - ax, y - ay) <= ASTEROID_FTL_MU:
            return "no FTL within 10 MU of an asteroid (004 L184)"
    return None


class BattleContext(NamedTuple):
    """What does not change in a battle: its rules, set-up and record sheets by ship id."""

    setup: BattleSetup
    rules: BattleRules
    sheets: Mapping[str, Ship]


class ShipInPlay(Struct, frozen=True, kw_only=True, gc=False):
    """One ship's place, motion, record state and turn flags."""

    id: str
    side: str
    design: str
    x: float
    y: float
    course: int
    speed: int
    record: ShipState
    status: ShipStatus = "active"
    returns: int | None = None
    """For a ship ``away``: the turn at whose movement it re-enters."""
    fired: bool = False
    rows: tuple[int, ...] = ()
    """Rows completed this fire phase, waiting for an end-of-phase threshold check."""
    jump: JumpState = "none"
    nova: bool = False
    """Its nova cannon is armed this turn: no thrust, no other fire, no screens (001 L908-919)."""
    sweeping: bool = False
    """Its minesweeper is active this turn: no offensive fire (001 L898)."""
    ecm: bool = False
    """Its ECM is switched on this turn (``/ecm`` in its orders, 000 L12832-12838; the
    ``sensors_ecm`` option)."""
    thrusted: bool = False
    """It used thrust this turn (:func:`tactical.movement.spends_thrust`), which under the
    ``aft_fire = "unthrusted"`` rule (FT Lite, 002 L51) bars its fire through the aft arc; kept
    only under that rule."""
    beam_defence: bool = False
    """Its Beam-1s are on point defence this turn (``/pd`` in its orders, the
    ``beam_point_defence`` option): they defend it against missiles and fighters and do not
    fire in the ship fire phase (000 L9105-9109)."""
    scanned: bool = False
    """It made an active scan this turn (``A`` in its orders): advanced sensors that gather
    intelligence do not augment its fire control in the same turn (000 L15239-15243,
    L15329-15333)."""
    inspired: bool = False
    """The ship its side's Level 1 or Level 3 admiral has chosen: it acts as if its captain
    were of the admiral's level, and the admiral may choose another from turn to turn
    (``/admiral`` in its orders; 004 L338, L343; the set-up's ``Theatre.admirals``)."""
    bogey: str | None = None
    """While the enemy has not identified it (the ``bogeys`` option): the label its bogey
    counter goes by (001 L939); ``None`` once revealed, or without bogeys."""
    shows: HullClass | None = None
    """While a bogey: the class its drive signature shows, or its weasel emitter fakes (001
    L939, L969)."""
    vector: tuple[float, float] | None = None
    """Under vector movement (000 12.12): its velocity, a course in degrees clockwise from +y
    (0.001) and a speed in MU; ``course`` is then its facing and ``speed`` the velocity
    rounded. ``None`` under cinematic movement. Under spatial movement (003) the same: its
    course of motion, a clock point times 30 degrees, and its velocity, ``course`` its facing
    (:mod:`tactical.spatial`)."""
    spin: int = 0
    """Under spatial movement: its spin rate, clock points a turn, clockwise if positive,
    kept turn after turn until a ``Spin0`` order (003 L249-264)."""
    settings: tuple[tuple[str, str], ...] = ()
    """Its pulse torpedoes' settings written in this turn's orders, ``(weapon, setting)``:
    overloaded (``O``, 000 L4681-4685) or a variable torpedo's short or long range mode (``S``,
    ``L``, 000 L4786-4794); a torpedo not named fires normally, a variable one in standard mode
    (L4792-4794)."""
    tubes: tuple[tuple[str, int], ...] = ()
    """Overload-upgraded torpedoes that fired, or were ejected, this turn or the last, with
    the turn: one that fired in the previous turn may not be overloaded (000 L4681-4685)."""
    boarders: tuple[Boarders, ...] = ()
    """Enemy marines and boarding parties aboard, one entry per landing, earliest first (000
    12.7); :func:`board` puts them aboard."""
    board_rows: tuple[int, ...] = ()
    """Rows the boarders' hull damage completed this turn, waiting for the end-of-turn check
    with :attr:`rows` (000 phase 13); a check from these rows alone is caused by boarding."""
    repelled: int = 0
    """DCPs that fought boarders this turn and so make no repairs (000 L12983-13003)."""
    scramble: bool = False
    """Its orders this turn stand ready to scramble fighters at enemy groups that move in to
    attack it (000 8.3, ``/scramble``)."""
    rearming: tuple[tuple[str, int], ...] = ()
    """Bays whose group landed under the ``fighter_rearming`` rule, with the turn from which it
    may launch again, or :data:`~tactical.fighters.NEVER_RELAUNCH` (000 8.16, L10102-10121),
    in the order they landed; a bay leaves the list when its group launches."""
    sighting: Sighting | None = None
    """Only in a side's :func:`~tactical.battle.side_view`, on an enemy ship whose record
    sheet it may not read (``enemy_sheets = "sensed"``): what it knows of the ship. Its
    ``design`` is then the side's estimate below :data:`~tactical.sensors.SYSTEMS_KNOWN` and
    its ``record`` the original values below :data:`~tactical.sensors.DAMAGE_KNOWN`."""


class Moving(Protocol):
    """A ship in play, or where a move leaves it (`tactical.movement.MoveResult`)."""

    @property
    def vector(self) -> tuple[float, float] | None: ...
    @property
    def course(self) -> int: ...
    @property
    def speed(self) -> int: ...


def velocity(ship: Moving) -> tuple[float, float]:
    """Return how far a ship drifts in a turn with no order: its vector, or its speed along
    its course."""
    if ship.vector is not None:
        dx, dy = angle_vector(ship.vector[0])
        return dx * ship.vector[1], dy * ship.vector[1]
    dx, dy = heading_vector(ship.course)
    return dx * ship.speed, dy * ship.speed


class NovaBlast(Struct, frozen=True, kw_only=True, gc=False):
    """A nova cannon's reaction on the table after it was fired (001 L923-929).

    ``x``, ``y`` is where its template was left, ``course`` its line of flight and ``stage``
    the index in :data:`~tactical.fire.NOVA_STAGES` of its next move, at the start of the
    next turn's firing.
    """

    ship: str
    x: float
    y: float
    course: int
    stage: int


class SideOrders(Struct, frozen=True, gc=False):
    """The orders one side has written this turn, in notation."""

    side: str
    orders: str


class BattleState(Struct, frozen=True, kw_only=True, gc=False):
    """The whole state of a battle between steps. Replace it; never mutate it."""

    turn: int = 1
    phase: Phase = "orders"
    ships: tuple[ShipInPlay, ...]
    written: tuple[SideOrders, ...] = ()
    first: str | None = None
    """The side that fires first this turn."""
    to_fire: str | None = None
    """The side whose ship fires next."""
    repaired: tuple[str, ...] = ()
    """The sides that have made their damage-control rolls this turn."""
    fought: tuple[str, ...] = ()
    """The sides that have fought the boarders aboard their ships this turn (phase 12)."""
    winner: str | None = None
    table: tuple[float, float, float, float] | None = None
    """A campaign battle's table once fixed (004 L133-135); ``None`` while it floats."""
    fighters: tuple[FighterGroup, ...] = ()
    """Fighter groups in flight, in launch order."""
    held: tuple[str, ...] = ()
    """Ships with fighter bays that held course and speed this turn and may recover a
    group (001 L761)."""
    novas: tuple[NovaBlast, ...] = ()
    """Nova cannon templates still burning, in the order they were fired (001 L925-929)."""
    mines: tuple[Mine, ...] = ()
    """Mines on the table, in the order they were placed or laid (001 L868-888)."""
    dummies: tuple[Dummy, ...] = ()
    """Dummy bogeys still on the table (001 L955-957); in a side's view, only its own."""
    salvos: tuple[Salvo, ...] = ()
    """Salvo missile markers in flight, in launch order (000 L5741-5798); in a side's view,
    only its own."""
    bogeys: tuple[Bogey, ...] = ()
    """Only in a side's :func:`view`: the enemy contacts it has not identified, by label.
    The umpire's state keeps none: its ships carry their ``bogey`` label instead."""
    before: tuple[tuple[str, float, float], ...] = ()
    """Where each ship stood before this turn's move, ``(ship, x, y)``, kept from the move to
    the end of the fighter step while a robot group flies under the secondary-move rule: its
    secondary move is flown towards them (000 L10070-10078)."""
    known: tuple[tuple[str, str, int], ...] = ()
    """What each side's advanced scans have learned of enemy ships, ``(side, ship, level)``,
    the best level in :data:`~tactical.sensors.LEARNED` each reached, sorted; a side
    remembers what it was told (000 L12664-12672). Only levels above "no information"."""

    def ship(self, ship_id: str) -> ShipInPlay:
        """Return the ship with this id.

        Raises:
            KeyError: there is none.
        """
        in_play = self.ships
        last = _SHIPS_BY_ID[0] if _SHIPS_BY_ID else None
        if last is not None and last[0] is in_play:  # the usual case: the last state asked
            ships = last[1]
        else:
            for kept, by_id in _SHIPS_BY_ID:
                if kept is in_play:
                    ships = by_id
                    break
            else:
                # The first of an id, as a scan finds it: the last written, read in reverse.
                ships = {ship.id: ship for ship in reversed(in_play)}
                _SHIPS_BY_ID.insert(0, (in_play, ships))
                del _SHIPS_BY_ID[_SHIPS_KEPT:]
        found = ships.get(ship_id)
        if found is None:
            raise KeyError(f"no ship {ship_id!r} in this battle")
        return found


_SHIPS_BY_ID: list[tuple[tuple[ShipInPlay, ...], dict[str, ShipInPlay]]] = []
"""The ships of the last few states :meth:`BattleState.ship` was asked of, by id, kept by the
identity of the states' tuple of ships: a step asks one state for many ships (the live
battle's state and a side's view of it in turn), and a state replaced but for its ships (the
side to fire, the phase) shares its tuple. Each entry holds its tuple, so a hit is the same
ships."""

_SHIPS_KEPT = 4
"""How many states :data:`_SHIPS_BY_ID` keeps."""


def moves_this_turn(ship: ShipInPlay, turn: int) -> bool:
    """A ship moves if it is on the table or re-enters this turn."""
    return ship.status == "active" or (ship.status == "away" and ship.returns == turn)


class Hit(Struct, frozen=True, kw_only=True, gc=False):
    """What one firing ship's dice did to one target, summed (digest A11)."""

    target: str
    damage: int
    to_armour: int
    to_hull: int
    rows: tuple[int, ...] = ()
    destroyed: bool = False


class Threshold(Struct, frozen=True, kw_only=True, gc=False):
    """One threshold check and what it knocked out.

    With core systems (000 10.3): ``bridge`` is the D6 of turns out of control after a bridge
    hit (6: the rest of the battle), ``power_core`` a power core hit, ``life_support`` the D6
    of turns before a failed life support gives out.
    """

    ship: str
    row: int
    modifier: int = 0
    lost: tuple[str, ...] = ()
    drive: bool = False
    ftl: bool = False
    bridge: int | None = None
    power_core: bool = False
    life_support: int | None = None
    colours: int | None = None
    """Striking the colours: the ship's own die (000 L13275-13343)."""
    struck: bool = False
    """The die failed: its captain struck the colours."""
    boarding: bool = False
    """Caused by boarding combat's damage alone: its marines and DCPs were not rolled, nor the
    boarders aboard (000 L13097-13099)."""
    boarders: tuple[BoarderLosses, ...] = ()
    """The enemy boarders aboard that rolled at this check, caused by weapons fire, and those
    it killed (000 L13099-13109)."""


class FtlDeparture(Struct, frozen=True, kw_only=True, gc=False):
    """A ship's jump into FTL from the table (001 L1027-1049): what lay within 6" of the point
    where it disappears, its D6 if anything did, and what the jump did to them."""

    near: tuple[str, ...] = ()
    """Ships, fighter groups (``carrier.bay``) and asteroids (``asteroid<n>``) within 6"."""
    face: int | None = None
    """The jumping ship's D6 (001 L1039), rolled only with something within 6"."""
    outcome: Departure = "jumps"
    """``fails``: the drive did not engage, the ship completed its move (L1041); ``jumps``:
    gone into FTL (L1043); ``explodes``: the ship was destroyed (L1045)."""
    faces: tuple[tuple[str, int], ...] = ()
    """On a safe jump with company, the 1D6 each ship and fighter group near took (L1043)."""
    hits: tuple[Hit, ...] = ()
    """The damage the ships near took, unscreened (L1043, L1045)."""
    fighters: tuple[tuple[str, int], ...] = ()
    """Fighters each group near lost, one a point (see docs/rulings.md)."""


class Moved(Struct, frozen=True, kw_only=True, gc=False):
    """Where one ship went, and why its written order was not carried out if it was not."""

    ship: str
    order: str
    x: float
    y: float
    course: int
    speed: int
    void: str | None = None
    left: bool = False
    returns: int | None = None
    """The turn a ship that left the table comes back, if it does."""
    jumped: bool = False
    displaced: tuple[int, int] | None = None
    """An unplanned jump's D6 parsecs off target and D6 hex direction (004 L140-141)."""
    ftl: FtlDeparture | None = None
    """A table battle's jump into FTL (001 L1027-1049): its D6 and the damage it did."""
    vector: tuple[float, float] | None = None
    """Under vector movement: the new velocity's course in degrees and speed; ``course`` is
    then the facing."""


def replace_ship(state: BattleState, ship: ShipInPlay) -> BattleState:
    ship_id = ship.id
    ships = tuple([ship if s.id == ship_id else s for s in state.ships])
    replaced = msgspec.structs.replace(state, ships=ships)
    # The new state's ships by id (BattleState.ship) from the old one's, if it has them: a
    # step that replaces ships one by one asks each new state for its ships.
    last = _SHIPS_BY_ID[0] if _SHIPS_BY_ID else None
    if last is not None and last[0] is state.ships and ship_id in last[1]:
        by_id = last[1].copy()
        by_id[ship_id] = ship  # every ship of its id replaced: the first of them is this one
        _SHIPS_BY_ID.insert(0, (ships, by_id))
        del _SHIPS_BY_ID[_SHIPS_KEPT:]
    return replaced


def working_screen(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return a ship's working screen level: none while its nova cannon is armed (001 L919)."""
    return 0 if ship.nova else screen_level(ctx.sheets[ship.id], ship.record)


def working_defence(ctx: BattleContext, ship: ShipInPlay) -> DefenceSpec:
    """Return a ship's working point defence: none while its nova cannon is armed, since it
    may fire no other weapon that turn (001 L919)."""
    if ship.nova or ship.record.out_of_control:
        # Nor while out of control: active defences are down (000 L11157-11159).
        return DefenceSpec(point=(), area=(), controls=0)
    return defence_of(ctx.sheets[ship.id], ship.record)


def defending_beams(ctx: BattleContext, ship: ShipInPlay) -> tuple[str, ...]:
    """Return the working Beam-1s a ship has put on point defence this turn: they defend the
    ship itself only, "Beam-1s may not be used for area defense" (000 L9105-9109)."""
    if not ship.beam_defence or ship.nova or ship.record.out_of_control:
        return ()
    return tuple(
        spec.id
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
        if spec.kind == DEFENDING_BEAM and now.status == "ok"
    )


def ecm_systems(ctx: BattleContext, ship: ShipInPlay, kind: str) -> int:
    """Return how many working systems of this kind (``ecm``, ``area_ecm``: one a level,
    000 L7736-7740, L7790-7796) a ship has switched on this turn."""
    if not (ctx.rules.sensors_ecm and ship.ecm and ship.status == "active"):
        return 0
    sheet = ctx.sheets[ship.id]
    return sum(
        1
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
        if spec.kind == kind and now.status == "ok"
    )


def ecm_cover(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> int:
    """Return a ship's aggregate ECM level this turn: its own ECM switched on, and the area
    ECM switched on of every ship of its side within 6 MU, itself included, at most 3 (000
    L7717-7724, L7764-7770). Zero without the ``sensors_ecm`` option."""
    if not ctx.rules.sensors_ecm:
        return 0
    area = [
        ecm_systems(ctx, friend, AREA_ECM)
        for friend in state.ships
        if friend.side == ship.side
        and friend.ecm  # else ecm_systems counts none: the sum is the same without it
        and math.hypot(friend.x - ship.x, friend.y - ship.y) <= AREA_ECM_MU + 1e-9
    ]
    return ecm_level(ecm_systems(ctx, ship, ECM), area)


def lock_on_range(ctx: BattleContext, state: BattleState, ship: ShipInPlay, base: float) -> float:
    """Return how near enemy missiles and fighters must come to lock on to a ship: ``base``
    less 1 MU a level of its ECM (000 L7717-7721), never below nothing."""
    return max(0.0, base - LOCK_ON_MU_PER_LEVEL * ecm_cover(ctx, state, ship))


def spend_one_shots(state: BattleState, fired: list[tuple[str, str]]) -> BattleState:
    """Cross off the one-shot point defence systems fired, as ``(ship, system)``: a
    scattergun or grapeshot launcher is used once a battle (000 L7541-7543, L7563)."""
    gone = set(fired)
    if not gone:
        return state
    ships = []
    for ship in state.ships:
        systems = tuple(
            msgspec.structs.replace(s, ammo=0) if (ship.id, s.id) in gone else s
            for s in ship.record.systems
        )
        record = msgspec.structs.replace(ship.record, systems=systems)
        ships.append(msgspec.structs.replace(ship, record=record))
    return msgspec.structs.replace(state, ships=tuple(ships))


def other_side(ctx: BattleContext, side: str) -> str:
    first, second = ctx.setup.sides
    return second if side == first else first


def targetable(ctx: BattleContext, ship: ShipInPlay) -> bool:
    return ship.status == "active" and hull_remaining(ctx.sheets[ship.id], ship.record) > 0


def enemy_in_sight(ctx: BattleContext, side: str, ship: ShipInPlay) -> bool:
    """An enemy ship in play that has been identified: only those are fired on or attacked
    (see docs/rulings.md, "Tactical: sensors and bogeys")."""
    return ship.side != side and ship.bogey is None and targetable(ctx, ship)


def prize(ship: ShipInPlay) -> bool:
    """A captured ship in sight: any ship may fire on it, its own side to keep it from the
    enemy, and a single point of damage destroys it (000 L13122-13130)."""
    return ship.status == "captured" and ship.bogey is None


def off_table(ctx: BattleContext, state: BattleState, x: float, y: float) -> bool:
    table = ctx.setup.table if ctx.setup.theatre is None else state.table
    if table is None:
        return False
    x_min, y_min, x_max, y_max = table
    return not (x_min <= x <= x_max and y_min <= y <= y_max)


def in_well(ctx: BattleContext, x: float) -> bool:
    """A ship past the gas giant edge has left by it and cannot return (004 L167-168)."""
    theatre = ctx.setup.theatre
    return theatre is not None and theatre.well_edge is not None and x < theatre.well_edge


def identified(ship: ShipInPlay) -> ShipInPlay:
    return msgspec.structs.replace(ship, bogey=None, shows=None)


LOST: tuple[ShipStatus, ...] = ("destroyed", "abandoned", "struck", "captured")
"""What fleet morale counts as lost: ships destroyed, hulks, ships that struck and ships
boarders captured."""


IN_PLAY: tuple[ShipStatus, ...] = ("active", "away")


ON_THE_TABLE: tuple[ShipStatus, ...] = ("active", "abandoned", "struck", "captured")
"""Ships whose hulls are on the table, in play or not: within an FTL drive's 6" (001 L1037)."""


def named_ship(state: BattleState, ship_id: str, where: str) -> ShipInPlay:
    """Return the ship an action names, or refuse the action: there is no such ship."""
    try:
        return state.ship(ship_id)
    except KeyError:
        raise IllegalActionError(f"{where}: there is no ship {ship_id!r}") from None
