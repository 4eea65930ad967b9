"""The battle: a set-up, a state that is a fold of events, and the turn as explicit steps.

A battle is a :class:`BattleSetup` (ships from the design catalogue with their record state,
positions in MU, course, speed, sides) plus a journal of events. Like an OpenSpiel game, the
state says what happens next (:func:`current_step`):

- ``SIMULTANEOUS`` (phase ``orders``): every side secretly writes movement orders
  (:func:`write_orders`, 001 L248);
- ``CHANCE`` (phase ``movement``): all ships move at once, then the first side to fire is
  found (:func:`resolve`, 001 L250-262);
- ``PLAYER`` (phase ``fire``): the side to play picks one of its ships that has not fired and
  declares all its shots, which are rolled and applied at once (:func:`fire_ship`, 001
  L262-276); sides alternate, and a side with ships left over fires them after the other's last;
- ``CHANCE`` (phase ``end``): end-of-phase threshold checks where the rules have them, wrecks
  removed, the battle ended by a side gone or the turn limit (:func:`resolve`);
- ``SIMULTANEOUS`` (phase ``repair``, under rules with damage control): each side with damaged
  systems and parties to spare assigns them and rolls (:func:`repair`, 000 10.4, phase 14);
- ``TERMINAL`` (phase ``over``).

Every command is ``decide``-shaped: it checks the command, raises :class:`IllegalActionError`
quoting it if illegal, and returns one event that records every die it rolled. :func:`evolve`
folds an event into the state by running the same rules on the recorded dice
(:class:`~tactical.dice.ReplayDice`), so replaying a journal never rolls.

>>> setup = BattleSetup(sides=("red", "blue"), ships=(
...     ShipSetup(id="r1", side="red", design="frigate", x=0, y=0, course=12, speed=4),
...     ShipSetup(id="b1", side="blue", design="frigate", x=0, y=20, course=6, speed=4)))
>>> battle = Battle(setup)
>>> battle.step()
Step(kind='simultaneous', phase='orders', side=None)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Annotated, Literal, NamedTuple

import msgspec
from msgspec import Meta, Struct

from tactical.designs import load_builtin
from tactical.dice import DiceSource, RecordingDice, ReplayDice, Roll
from tactical.fire import (
    ThresholdOutcome,
    arc_of,
    beam_dice,
    bearing,
    is_beam,
    range_between,
    roll_beams,
    threshold_check,
)
from tactical.movement import (
    NO_ORDER,
    MoveStart,
    Order,
    course_after,
    format_mu,
    format_order,
    format_orders,
    heading_vector,
    move,
    order_problem,
    parse_orders,
    round_mu,
)
from tactical.points import build
from tactical.repair import (
    MAX_PARTIES_PER_JOB,
    PERMANENT_LOSSES,
    damage_control_parties,
    repair_succeeds,
)
from tactical.rules import BattleRules, rules_named
from tactical.ship import (
    PRESETS,
    DesignError,
    DriveState,
    Problem,
    Ship,
    ShipState,
    apply_damage,
    current_thrust,
    fresh_state,
    hull_remaining,
    screen_level,
    with_system_status,
)

__all__ = [
    "AFT",
    "DRIVE",
    "Battle",
    "BattleContext",
    "BattleSetup",
    "BattleState",
    "Event",
    "Hit",
    "IllegalActionError",
    "Moved",
    "OrdersWritten",
    "Phase",
    "Repair",
    "RepairsMade",
    "SetupError",
    "ShipFired",
    "ShipInPlay",
    "ShipSetup",
    "ShipsMoved",
    "Shot",
    "ShotRoll",
    "SideOrders",
    "Step",
    "StepKind",
    "Theatre",
    "Threshold",
    "TurnEnded",
    "Zone",
    "asteroids_at",
    "context",
    "current_step",
    "decode_journal",
    "decode_setup",
    "encode_journal",
    "evolve",
    "fire_controls",
    "fire_options",
    "fire_ship",
    "ftl_blocked",
    "initial_state",
    "order_limits",
    "repair",
    "repair_jobs",
    "replay",
    "resolve",
    "sheet_for",
    "ships_to_fire",
    "sides_to_repair",
    "sides_to_write",
    "view",
    "write_orders",
]

Phase = Literal["orders", "movement", "fire", "end", "repair", "over"]
ShipStatus = Literal["active", "destroyed", "left", "away", "jumped"]
"""``left``: off the table for good; ``away``: off the table and due back (001 L536-538);
``jumped``: gone into FTL (004 L137-142)."""
JumpState = Literal["none", "ready", "powering", "unplanned"]
"""A campaign ship's FTL jump: ``ready`` after its 6 (004 L139-140); ``powering`` or
``unplanned`` in its final power-up turn, a planned or an unplanned jump (004 L137-142)."""
RETURN_ON = 4  # 001 L538: on a 4, 5 or 6 the ship re-enters after that many turns
AFT = "A"  # no offensive fire through the aft arc (001 L404; 000 L2483-2679)
MAX_INITIATIVE_ROLLS = 50  # ties re-rolled (000 L1053-1472); a stop for scripted dice

Identifier = Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.\-]+$", max_length=40)]


class IllegalActionError(ValueError):
    """An order, a shot or a step the state does not allow; the message quotes it."""


# ---------------------------------------------------------------- set-up


class ShipSetup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
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


class Zone(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A body no ship may jump near: a dense world or a moon, its centre and FTL radius."""

    kind: Literal["dense world", "moon"]
    x: float
    y: float
    radius: float


class Theatre(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """What a campaign battle adds to the table (004 5.3.1-5.3.5); ``tactical.campaign_battle``
    builds it. A set-up without one is an ordinary tabletop battle.

    The table floats (no edges) until two opposing ships are more than ``float_limit`` apart,
    then it is fixed where the ships are (004 L132-134); leaving a fixed table is disengaging,
    with a D6: under ``return_on`` the ship is gone, else it returns after that many turns
    (004 L135-137). Ships of the ``ftl_sides`` (FTL Move orders) roll a D6 at the end of each
    turn to be ready to jump (004 L139-142). ``gravity`` drifts every ship that many MU towards
    the gas giant edge at ``well_edge`` (an x coordinate) at the end of each turn (004
    L162-168). Asteroids start at ``asteroids`` and drift ``drift`` MU a turn, wrapping in
    ``field`` (004 L174-181).
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
    turn_mods: tuple[tuple[str, int], ...] = ()
    """Per ship: +1 or -1 to the course-change limit for its captain (004 L329-335)."""
    initiative_mods: tuple[tuple[str, int], ...] = ()
    """Per side: +1 or -1 to its initiative dice (senior captain or admiral, 004 L329-343)."""
    rolls: tuple[Roll, ...] = ()
    """The dice that set the battle up (gravity band, asteroids), so the set-up is a record."""


ASTEROID_FTL_MU = 10.0  # 004 L142, L181: no FTL within 10 MU of an asteroid


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


def asteroids_at(theatre: Theatre, turn: int) -> tuple[tuple[float, float], ...]:
    """Return where the asteroids are during ``turn``: they drift at the end of each turn and
    wrap round the field, leaving one side and coming back on the opposite (004 L178-180)."""
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


def ftl_blocked(theatre: Theatre, turn: int, x: float, y: float) -> str | None:
    """Return why no ship may jump at ``(x, y)`` during ``turn``, or ``None`` if one may.

    No FTL near a gas giant, within 40 MU of a dense world, 20 MU of a moon or 10 MU of an
    asteroid (004 L142, L161, L170, L181).
    """
    if theatre.gravity:
        return "no FTL near a gas giant (004 L170)"
    for zone in theatre.zones:
        if math.hypot(x - zone.x, y - zone.y) <= zone.radius:
            return f"no FTL within {format_mu(zone.radius)} MU of a {zone.kind} (004 L142)"
    for ax, ay in asteroids_at(theatre, turn):
        if math.hypot(x - ax, y - ay) <= ASTEROID_FTL_MU:
            return "no FTL within 10 MU of an asteroid (004 L142)"
    return None


class BattleContext(NamedTuple):
    """What does not change in a battle: its rules, set-up and record sheets by ship id."""

    setup: BattleSetup
    rules: BattleRules
    sheets: Mapping[str, Ship]


@cache
def sheet_for(design: str, preset_name: str) -> Ship:
    """Return the record sheet of a catalogue design under a points preset (cached).

    Raises:
        tactical.designs.UnknownDesignError: no such design under those rules.
    """
    preset = PRESETS[preset_name]
    return build(load_builtin(design, preset.rules), preset, ship_id=design)


class SetupError(ValueError):
    """A battle set-up does not fit the rules or the catalogue; ``problems`` lists them all."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__(f"{source}: " + "; ".join(str(p) for p in self.problems))


def _record_problems(sheet: Ship, state: ShipState, path: str) -> list[Problem]:
    """Check a record state carried into a battle against its record sheet."""
    problems: list[Problem] = []
    if len(state.hull_lost) != len(sheet.rows):
        problems.append(Problem(f"{path}.hull_lost", f"{len(sheet.rows)} rows expected"))
    elif any(not 0 <= lost <= size for lost, size in zip(state.hull_lost, sheet.rows, strict=True)):
        problems.append(
            Problem(f"{path}.hull_lost", f"boxes lost must be 0 to the row sizes {sheet.rows}")
        )
    elif sum(state.hull_lost) >= sheet.hull_boxes:
        problems.append(Problem(f"{path}.hull_lost", "a destroyed ship cannot join a battle"))
    if not 0 <= state.armour_lost <= sheet.armour:
        problems.append(Problem(f"{path}.armour_lost", f"must be 0 to {sheet.armour}"))
    if tuple(s.id for s in state.systems) != tuple(s.id for s in sheet.systems):
        listed = ", ".join(s.id for s in sheet.systems)
        problems.append(Problem(f"{path}.systems", f"expected the systems {listed}, in order"))
    elif any(
        (s.ammo is not None and s.ammo < 0) or (s.fighters is not None and s.fighters < 0)
        for s in state.systems
    ):
        problems.append(Problem(f"{path}.systems", "ammunition and fighters must be >= 0"))
    return problems


def context(setup: BattleSetup, source: str = "<set-up>") -> BattleContext:
    """Check a set-up and build its record sheets from the design catalogue.

    Raises:
        SetupError: every problem found: rules, sides, ids, designs, record states.
    """
    problems: list[Problem] = []
    try:
        rules = rules_named(setup.rules)
    except KeyError as exc:
        raise SetupError(source, [Problem("$.rules", str(exc.args[0]))]) from None
    if setup.sides[0] == setup.sides[1]:
        problems.append(Problem("$.sides", f"the two sides {setup.sides!r} must differ"))
    sheets: dict[str, Ship] = {}
    seen: set[str] = set()
    for index, ship in enumerate(setup.ships):
        path = f"$.ships[{index}]"
        if ship.id in seen:
            problems.append(Problem(f"{path}.id", f"two ships have the id {ship.id!r}"))
        seen.add(ship.id)
        if ship.side not in setup.sides:
            problems.append(Problem(f"{path}.side", f"{ship.side!r} is not one of {setup.sides}"))
        try:
            sheet = sheet_for(ship.design, rules.ships)
        except (LookupError, DesignError) as exc:
            problems.append(Problem(f"{path}.design", str(exc)))
            continue
        if ship.state is not None:
            problems.extend(_record_problems(sheet, ship.state, f"{path}.state"))
        sheets.setdefault(ship.id, sheet)
    if problems:
        raise SetupError(source, problems)
    return BattleContext(setup=setup, rules=rules, sheets=sheets)


def decode_setup(text: str | bytes, source: str = "<set-up>") -> BattleSetup:
    """Decode a battle set-up from TOML; unknown fields are errors.

    Raises:
        SetupError: not TOML, or a field is missing, unknown or mistyped (with its path).
    """
    try:
        return msgspec.toml.decode(text, type=BattleSetup)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).rpartition(" - at `")
        if not message:
            message, where = str(exc), "$`"
        raise SetupError(source, [Problem(where.rstrip("`"), message)]) from None
    except msgspec.DecodeError as exc:
        raise SetupError(source, [Problem("$", f"not valid TOML: {exc}")]) from None


# ---------------------------------------------------------------- state


class ShipInPlay(Struct, frozen=True, kw_only=True):
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


class SideOrders(Struct, frozen=True):
    """The orders one side has written this turn, in notation."""

    side: str
    orders: str


class BattleState(Struct, frozen=True, kw_only=True):
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
    winner: str | None = None
    table: tuple[float, float, float, float] | None = None
    """A campaign battle's table once fixed (004 L132-134); ``None`` while it floats."""

    def ship(self, ship_id: str) -> ShipInPlay:
        """Return the ship with this id.

        Raises:
            KeyError: there is none.
        """
        for ship in self.ships:
            if ship.id == ship_id:
                return ship
        raise KeyError(f"no ship {ship_id!r} in this battle")


def initial_state(ctx: BattleContext) -> BattleState:
    """Return the state before the first orders."""
    return BattleState(
        ships=tuple(
            ShipInPlay(
                id=s.id,
                side=s.side,
                design=s.design,
                x=round_mu(s.x),
                y=round_mu(s.y),
                course=s.course,
                speed=s.speed,
                record=msgspec.structs.replace(
                    s.state or fresh_state(ctx.sheets[s.id]), ship_id=s.id
                ),
            )
            for s in ctx.setup.ships
        )
    )


class StepKind(enum.StrEnum):
    """Who acts next, as in OpenSpiel."""

    SIMULTANEOUS = "simultaneous"
    CHANCE = "chance"
    PLAYER = "player"
    TERMINAL = "terminal"


class Step(NamedTuple):
    """The next step: its kind, the phase, and for ``PLAYER`` the side to play."""

    kind: str
    phase: Phase
    side: str | None = None


def current_step(state: BattleState) -> Step:
    """Return what happens next."""
    if state.phase in ("orders", "repair"):
        return Step(StepKind.SIMULTANEOUS.value, state.phase)
    if state.phase == "fire":
        return Step(StepKind.PLAYER.value, "fire", state.to_fire)
    if state.phase == "over":
        return Step(StepKind.TERMINAL.value, "over")
    return Step(StepKind.CHANCE.value, state.phase)


def view(state: BattleState, side: str) -> BattleState:
    """Return the state as one side may see it: other sides' written orders are blanked.

    Orders are secret until ships move (001 L248); everything else is open-book in this slice.
    """
    written = tuple(w if w.side == side else SideOrders(w.side, "") for w in state.written)
    return msgspec.structs.replace(state, written=written)


def _moves_this_turn(ship: ShipInPlay, turn: int) -> bool:
    """A ship moves if it is on the table or re-enters this turn."""
    return ship.status == "active" or (ship.status == "away" and ship.returns == turn)


def sides_to_write(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have to write orders this turn."""
    done = {w.side for w in state.written}
    present = {s.side for s in state.ships if _moves_this_turn(s, state.turn)}
    return tuple(side for side in ctx.setup.sides if side in present and side not in done)


# ---------------------------------------------------------------- events


class Shot(Struct, frozen=True, array_like=True):
    """One declared shot: a weapon of the firing ship and the ship it fires at."""

    weapon: str
    target: str


class ShotRoll(Struct, frozen=True, kw_only=True):
    """One weapon's dice against its target."""

    weapon: str
    target: str
    faces: tuple[int, ...]
    rerolls: tuple[int, ...] = ()


class Hit(Struct, frozen=True, kw_only=True):
    """What one firing ship's dice did to one target, summed (digest A11)."""

    target: str
    damage: int
    to_armour: int
    to_hull: int
    rows: tuple[int, ...] = ()
    destroyed: bool = False


class Threshold(Struct, frozen=True, kw_only=True):
    """One threshold check and what it knocked out."""

    ship: str
    row: int
    modifier: int = 0
    lost: tuple[str, ...] = ()
    drive: bool = False
    ftl: bool = False


class Moved(Struct, frozen=True, kw_only=True):
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
    """An unplanned jump's D6 parsecs off target and D6 hex direction (004 L137-138)."""


class OrdersWritten(Struct, frozen=True, kw_only=True, tag="orders_written"):
    """A side wrote its movement orders for the turn (secret until movement)."""

    turn: int
    side: str
    orders: str


class ShipsMoved(Struct, frozen=True, kw_only=True, tag="ships_moved"):
    """Every ship moved by its orders, and the side to fire first was found."""

    turn: int
    moves: tuple[Moved, ...]
    first: str | None
    rolls: tuple[Roll, ...] = ()


class ShipFired(Struct, frozen=True, kw_only=True, tag="ship_fired"):
    """A ship took its firing turn: its declared shots, their dice, damage and thresholds."""

    turn: int
    ship: str
    shots: tuple[ShotRoll, ...]
    hits: tuple[Hit, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    rolls: tuple[Roll, ...] = ()


class TurnEnded(Struct, frozen=True, kw_only=True, tag="turn_ended"):
    """The turn ended: end-of-phase thresholds, wrecks removed, and whether the battle is over."""

    turn: int
    thresholds: tuple[Threshold, ...] = ()
    removed: tuple[str, ...] = ()
    over: bool = False
    winner: str | None = None
    reason: str = ""
    ready: tuple[str, ...] = ()
    """Campaign ships that rolled their 6 and may power up for a jump (004 L139-140)."""
    fell: tuple[str, ...] = ()
    """Ships the gas giant's gravity drew off the table for good (004 L162-166)."""
    table: tuple[float, float, float, float] | None = None
    """A campaign battle's table after this turn: fixed, or ``None`` floating (004 L132)."""
    rolls: tuple[Roll, ...] = ()


class Repair(Struct, frozen=True, kw_only=True):
    """One damage-control job: the parties on it, the die and whether it worked."""

    ship: str
    target: str
    parties: int
    face: int
    success: bool


class RepairsMade(Struct, frozen=True, kw_only=True, tag="repairs_made"):
    """A side's damage control parties tried to mend damaged systems (000 10.4)."""

    turn: int
    side: str
    repairs: tuple[Repair, ...] = ()
    rolls: tuple[Roll, ...] = ()


Event = OrdersWritten | ShipsMoved | ShipFired | TurnEnded | RepairsMade


def encode_journal(events: Sequence[Event]) -> bytes:
    """Encode a journal as JSON, one tagged object per event."""
    return msgspec.json.encode(list(events))


def decode_journal(data: bytes | str) -> list[Event]:
    """Decode a journal written by :func:`encode_journal`.

    Raises:
        msgspec.ValidationError: an event is malformed (the message gives its path).
    """
    return msgspec.json.decode(data, type=list[Event])


# ---------------------------------------------------------------- helpers


def _replace_ship(state: BattleState, ship: ShipInPlay) -> BattleState:
    ships = tuple(ship if s.id == ship.id else s for s in state.ships)
    return msgspec.structs.replace(state, ships=ships)


def _other(ctx: BattleContext, side: str) -> str:
    first, second = ctx.setup.sides
    return second if side == first else first


def _targetable(ctx: BattleContext, ship: ShipInPlay) -> bool:
    return ship.status == "active" and hull_remaining(ctx.sheets[ship.id], ship.record) > 0


def _may_fire(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """A ship takes a firing turn if it is in play, has not fired and has an enemy to aim at.

    Under ``destroyed_fire`` a ship reduced to 0 hull this phase still takes its turn.
    """
    if ship.status != "active" or ship.fired or ship.jump in ("powering", "unplanned"):
        return False  # no offensive fire in the final power-up turn (004 L141)
    if not ctx.rules.destroyed_fire and hull_remaining(ctx.sheets[ship.id], ship.record) <= 0:
        return False
    return any(s.side != ship.side and _targetable(ctx, s) for s in state.ships)


def ships_to_fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, ...]:
    """Return the ids of this side's ships that may take their firing turn now."""
    if state.phase != "fire" or state.to_fire != side:
        return ()
    return tuple(s.id for s in state.ships if s.side == side and _may_fire(ctx, state, s))


def _next_to_fire(ctx: BattleContext, state: BattleState, after: str) -> str | None:
    """Alternate sides; a side with ships left fires them after the other's last (001 L270)."""
    for side in (_other(ctx, after), after):
        if any(s.side == side and _may_fire(ctx, state, s) for s in state.ships):
            return side
    return None


# ---------------------------------------------------------------- orders


def write_orders(
    ctx: BattleContext, state: BattleState, side: str, orders: Mapping[str, Order]
) -> OrdersWritten:
    """Record one side's secret movement orders for this turn.

    Ships left out go straight ahead at the same speed. An order the ship cannot carry out is
    recorded as written and treated as no order when ships move (001 L364).

    Raises:
        IllegalActionError: not the orders step, the side has written already, or an order is
            for a ship that is not this side's or not in play.
    """
    where = f"orders {format_orders(orders)!r} for {side} on turn {state.turn}"
    if state.phase != "orders":
        raise IllegalActionError(f"{where}: it is the {state.phase} step")
    if side not in sides_to_write(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no orders to write now")
    for ship_id in orders:
        try:
            ship = state.ship(ship_id)
        except KeyError:
            raise IllegalActionError(f"{where}: there is no ship {ship_id!r}") from None
        if ship.side != side or not _moves_this_turn(ship, state.turn):
            raise IllegalActionError(f"{where}: {ship_id!r} is not {side}'s ship in play")
    return OrdersWritten(turn=state.turn, side=side, orders=format_orders(orders))


def _apply_orders(ctx: BattleContext, state: BattleState, event: OrdersWritten) -> BattleState:
    written = (*state.written, SideOrders(event.side, event.orders))
    state = msgspec.structs.replace(state, written=written)
    if not sides_to_write(ctx, state):
        state = msgspec.structs.replace(state, phase="movement")
    return state


def order_limits(ctx: BattleContext, ship: ShipInPlay) -> tuple[int, int]:
    """Return a ship's thrust now and its course-change limit.

    In a campaign battle a Level 1 captain turns one point more, a Level 3 one less but never
    below one (004 L329-335); never more than the thrust, which pays for every point.
    """
    thrust = current_thrust(ctx.sheets[ship.id], ship.record)
    limit = ctx.rules.turn_limit(thrust)
    theatre = ctx.setup.theatre
    mod = dict(theatre.turn_mods).get(ship.id, 0) if theatre else 0
    if mod > 0:
        limit = min(limit + mod, thrust)
    elif mod < 0:
        limit = max(limit + mod, min(limit, 1))
    return thrust, limit


def _off_table(ctx: BattleContext, state: BattleState, x: float, y: float) -> bool:
    table = ctx.setup.table if ctx.setup.theatre is None else state.table
    if table is None:
        return False
    x_min, y_min, x_max, y_max = table
    return not (x_min <= x <= x_max and y_min <= y <= y_max)


def _in_well(ctx: BattleContext, x: float) -> bool:
    """A ship past the gas giant edge has left by it and cannot return (004 L166)."""
    theatre = ctx.setup.theatre
    return theatre is not None and theatre.well_edge is not None and x < theatre.well_edge


def _reenter(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> ShipInPlay:
    """Put a returning ship back on the edge it left by, at its exit point, facing onto the
    table at its exit speed (001 L538; digest A10; see docs/rulings.md).

    In a campaign battle it returns at the point it left (004 L136-137), turned about, at its
    exit speed up to 3 x thrust; on the fixed table if there is one.
    """
    if ctx.setup.theatre is not None:
        thrust = current_thrust(ctx.sheets[ship.id], ship.record)
        x, y = ship.x, ship.y
        if state.table is not None:
            x_min, y_min, x_max, y_max = state.table
            x, y = min(max(x, x_min), x_max), min(max(y, y_min), y_max)
        return msgspec.structs.replace(
            ship,
            x=round_mu(x),
            y=round_mu(y),
            course=course_after(ship.course, 6),
            speed=min(ship.speed, 3 * thrust),
            status="active",
            returns=None,
        )
    assert ctx.setup.table is not None
    x_min, y_min, x_max, y_max = ctx.setup.table
    overshoot = {
        3: x_min - ship.x,  # off the west edge: come back heading east, course 3
        9: ship.x - x_max,
        12: y_min - ship.y,
        6: ship.y - y_max,
    }
    course = max(overshoot, key=lambda c: (overshoot[c], -c))
    return msgspec.structs.replace(
        ship,
        x=round_mu(min(max(ship.x, x_min), x_max)),
        y=round_mu(min(max(ship.y, y_min), y_max)),
        course=course,
        status="active",
        returns=None,
    )


def _movement(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, ShipsMoved]:
    """Move every ship by its orders at once, then find who fires first (001 L250-262)."""
    written: dict[str, Order] = {}
    for side_orders in state.written:
        written.update(parse_orders(side_orders.orders))
    moves: list[Moved] = []
    ships: list[ShipInPlay] = []
    for ship in state.ships:
        if not _moves_this_turn(ship, state.turn):
            ships.append(ship)
            continue
        if ship.status == "away":
            ship = _reenter(ctx, state, ship)  # noqa: PLW2901 - the returning ship moves from the edge
        order = written.get(ship.id, NO_ORDER)
        if ship.jump in ("powering", "unplanned"):
            moved, after = _jump(ctx, state, ship, order, dice)
            moves.append(moved)
            ships.append(after)
            continue
        thrust, limit = order_limits(ctx, ship)
        void = order_problem(
            order,
            speed=ship.speed,
            course=ship.course,
            thrust=thrust,
            rules=ctx.rules,
            limit=limit,
        )
        if order.jump and void is None:
            void = _jump_problem(ctx, ship)
        jump = ship.jump
        if order.jump and void is None:
            jump = "powering" if ship.jump == "ready" else "unplanned"
        start = MoveStart(x=ship.x, y=ship.y, course=ship.course, speed=ship.speed)
        end = move(start, NO_ORDER if void else order, ctx.rules.split_velocity)
        fell = _in_well(ctx, end.x)
        left = fell or _off_table(ctx, state, end.x, end.y)
        returns = None
        if left and not fell and ctx.setup.theatre is not None:
            face = dice.roll(f"t{state.turn}/leave/{ship.id}", 6)  # 004 L135-137
            returns = state.turn + face if face >= ctx.setup.theatre.return_on else None
        elif left and not fell and ctx.rules.leave_table == "return_roll":
            face = dice.roll(f"t{state.turn}/leave/{ship.id}", 6)
            returns = state.turn + face if face >= RETURN_ON else None
        moves.append(
            Moved(
                ship=ship.id,
                order=format_order(order),
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                void=void,
                left=left,
                returns=returns,
            )
        )
        ships.append(
            msgspec.structs.replace(
                ship,
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                status=("away" if returns else "left") if left else "active",
                returns=returns,
                jump=jump,
            )
        )
    state = msgspec.structs.replace(state, ships=tuple(ships), written=())
    first = _initiative(ctx, state, dice)
    to_fire = None if first is None else _next_to_fire(ctx, state, _other(ctx, first))
    state = msgspec.structs.replace(
        state, phase="fire" if to_fire else "end", first=first, to_fire=to_fire
    )
    return state, ShipsMoved(turn=state.turn, moves=tuple(moves), first=first)


def _jump_problem(ctx: BattleContext, ship: ShipInPlay) -> str | None:
    """Return why a ship may not start its final power-up for a jump, or ``None``."""
    theatre = ctx.setup.theatre
    if theatre is None:
        return "jumps out of battle are for campaign battles (004 L137)"
    if ship.side not in theatre.ftl_sides:
        return "only ships under FTL Move orders may jump (004 L137)"
    if ship.record.ftl != "ok":
        return "its FTL drive is lost"
    return None


def _jump(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, order: Order, dice: DiceSource
) -> tuple[Moved, ShipInPlay]:
    """The turn after the final power-up: half the normal distance, then the jump (004 L142).

    Where FTL may not be engaged (:func:`ftl_blocked`) the jump is called off: a planned jump
    stays ready, an unplanned one must power up again. An unplanned jump rolls a D6 for the
    parsecs it lands off target and a D6 for the hex direction (004 L137-138).
    """
    assert ctx.setup.theatre is not None
    dx, dy = heading_vector(ship.course)
    x = round_mu(ship.x + dx * ship.speed / 2)
    y = round_mu(ship.y + dy * ship.speed / 2)
    ignored = None if order == NO_ORDER else "the ship is entering jump (004 L142)"
    blocked = ftl_blocked(ctx.setup.theatre, state.turn, x, y)
    if blocked is not None:
        after = msgspec.structs.replace(
            ship, x=x, y=y, jump="ready" if ship.jump == "powering" else "none"
        )
        moved = Moved(
            ship=ship.id,
            order=format_order(order),
            x=x,
            y=y,
            course=ship.course,
            speed=ship.speed,
            void=f"jump called off: {blocked}",
        )
        return moved, after
    displaced = None
    if ship.jump == "unplanned":
        parsecs = dice.roll(f"t{state.turn}/jump/{ship.id}/parsecs", 6)
        direction = dice.roll(f"t{state.turn}/jump/{ship.id}/direction", 6)
        displaced = (parsecs, direction)
    after = msgspec.structs.replace(ship, x=x, y=y, status="jumped")
    moved = Moved(
        ship=ship.id,
        order=format_order(order),
        x=x,
        y=y,
        course=ship.course,
        speed=ship.speed,
        void=ignored,
        jumped=True,
        displaced=displaced,
    )
    return moved, after


def _initiative(ctx: BattleContext, state: BattleState, dice: DiceSource) -> str | None:
    """Return the side that fires first: most ships in play, else a D6 each, ties re-rolled
    (001 L262; 000 L1053-1472 phase 2)."""
    counts = {
        side: sum(1 for s in state.ships if s.side == side and s.status == "active")
        for side in ctx.setup.sides
    }
    present = [side for side in ctx.setup.sides if counts[side]]
    if len(present) < len(ctx.setup.sides):
        return present[0] if present else None
    first, second = ctx.setup.sides
    if ctx.rules.initiative == "most_ships" and counts[first] != counts[second]:
        return first if counts[first] > counts[second] else second
    theatre = ctx.setup.theatre
    mods = dict(theatre.initiative_mods) if theatre else {}
    for attempt in range(MAX_INITIATIVE_ROLLS):
        # A campaign side's senior captain or admiral adds or takes one (004 L329-343).
        a = dice.roll(f"t{state.turn}/initiative/{first}/{attempt}", 6) + mods.get(first, 0)
        b = dice.roll(f"t{state.turn}/initiative/{second}/{attempt}", 6) + mods.get(second, 0)
        if a != b:
            return first if a > b else second
    return first


# ---------------------------------------------------------------- fire


def fire_options(
    ctx: BattleContext, state: BattleState, ship_id: str
) -> dict[str, tuple[str, ...]]:
    """Return, for each weapon that can fire now, the targets it can reach.

    A beam fires at an enemy in play inside one of its arcs, never aft (001 L404, L443), and
    within range (001 L456-462).
    """
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    options: dict[str, tuple[str, ...]] = {}
    targets = [s for s in state.ships if s.side != ship.side and _targetable(ctx, s)]
    for spec, sys_state in zip(sheet.systems, ship.record.systems, strict=True):
        if not is_beam(spec.kind) or sys_state.status != "ok":
            continue
        reachable: list[str] = []
        for target in targets:
            arc = arc_of(bearing(ship.x, ship.y, ship.course, target.x, target.y), ctx.rules.arcs)
            distance = range_between(ship.x, ship.y, target.x, target.y)
            if arc != AFT and arc in spec.arcs and beam_dice(spec.kind, distance) > 0:
                reachable.append(target.id)
        if reachable:
            options[spec.id] = tuple(reachable)
    return options


def fire_controls(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return the working FireCons: one target each (001 L380)."""
    sheet = ctx.sheets[ship.id]
    return sum(
        1
        for spec, sys_state in zip(sheet.systems, ship.record.systems, strict=True)
        if spec.kind == "firecon" and sys_state.status == "ok"
    )


def _check_fire(
    ctx: BattleContext, state: BattleState, ship_id: str, shots: Sequence[Shot]
) -> None:
    listed = ", ".join(f"{s.weapon}>{s.target}" for s in shots) or "no shots"
    where = f"fire {listed} by {ship_id!r} on turn {state.turn}"
    if state.phase != "fire":
        raise IllegalActionError(f"{where}: it is the {state.phase} step")
    try:
        ship = state.ship(ship_id)
    except KeyError:
        raise IllegalActionError(f"{where}: there is no such ship") from None
    if ship.side != state.to_fire:
        raise IllegalActionError(f"{where}: it is {state.to_fire}'s turn to fire")
    if not _may_fire(ctx, state, ship):
        raise IllegalActionError(f"{where}: the ship has fired or cannot fire this turn")
    options = fire_options(ctx, state, ship_id)
    seen: set[str] = set()
    for shot in shots:
        if shot.weapon in seen:
            raise IllegalActionError(f"{where}: {shot.weapon} fires once a turn (001 L443)")
        seen.add(shot.weapon)
        if shot.target not in options.get(shot.weapon, ()):
            raise IllegalActionError(
                f"{where}: {shot.weapon} cannot reach {shot.target} "
                "(not a working beam, out of arc or out of range)"
            )
    targets = {shot.target for shot in shots}
    if len(targets) > fire_controls(ctx, ship):
        raise IllegalActionError(
            f"{where}: {len(targets)} targets and {fire_controls(ctx, ship)} working FireCons "
            "(001 L380)"
        )


def fire_ship(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    shots: Sequence[Shot],
    dice: DiceSource,
) -> ShipFired:
    """Take one ship's firing turn: every shot declared first, then rolled (001 L266).

    An empty list holds fire; the ship's turn is spent either way (001 L276).

    Raises:
        IllegalActionError: not this ship's turn, or a shot is out of arc, range or FireCons.
    """
    _check_fire(ctx, state, ship_id, shots)
    recording = RecordingDice(dice)
    _state, event = _fire(ctx, state, ship_id, tuple(shots), recording)
    return msgspec.structs.replace(event, rolls=tuple(recording.rolls))


def _fire(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    shots: tuple[Shot, ...],
    dice: DiceSource,
) -> tuple[BattleState, ShipFired]:
    """Resolve a checked firing turn target by target, in declaration order (digest A11)."""
    turn = state.turn
    firer = state.ship(ship_id)
    firer_sheet = ctx.sheets[ship_id]
    rolled: list[ShotRoll] = []
    hits: list[Hit] = []
    thresholds: list[Threshold] = []
    order: list[str] = []
    for shot in shots:
        if shot.target not in order:
            order.append(shot.target)
    for target_id in order:
        target = state.ship(target_id)
        sheet = ctx.sheets[target_id]
        screen = screen_level(sheet, target.record)
        screened = rerolled = 0
        for shot in (s for s in shots if s.target == target_id):
            kind = firer_sheet.system(shot.weapon).kind
            distance = range_between(firer.x, firer.y, target.x, target.y)
            outcome = roll_beams(
                dice,
                f"t{turn}/fire/{ship_id}/{shot.weapon}",
                beam_dice(kind, distance),
                screen,
                reroll=ctx.rules.beam_reroll,
            )
            rolled.append(
                ShotRoll(
                    weapon=shot.weapon,
                    target=target_id,
                    faces=tuple(outcome.faces),
                    rerolls=tuple(outcome.rerolls),
                )
            )
            screened += outcome.screened_damage
            rerolled += outcome.reroll_damage
        first = apply_damage(sheet, target.record, screened)
        # Re-roll damage ignores armour (000 L2864-2968, L3033-3077).
        second = apply_damage(sheet, first.state, rerolled, armour_first=False)
        rows = first.rows_completed + second.rows_completed
        record = second.state
        destroyed = second.destroyed
        hits.append(
            Hit(
                target=target_id,
                damage=screened + rerolled,
                to_armour=first.to_armour + second.to_armour,
                to_hull=first.to_hull + second.to_hull,
                rows=rows,
                destroyed=destroyed,
            )
        )
        status: ShipStatus = target.status
        pending = target.rows
        if destroyed:
            if not ctx.rules.destroyed_fire:
                status = "destroyed"  # removed at once (001 L476)
        elif ctx.rules.threshold_timing == "immediate":
            for row in rows:  # one check per row crossed, in order (002 L57; digest B10)
                record, result = threshold_check(
                    sheet,
                    record,
                    dice,
                    f"t{turn}/threshold/{target_id}/row{row}",
                    row=row,
                    lost_status=ctx.rules.lost_status,
                    ftl=ctx.rules.ftl_threshold,
                    permanent=PERMANENT_LOSSES,
                )
                thresholds.append(_threshold(target_id, row, 0, result))
        else:
            pending = pending + rows
        state = _replace_ship(
            state, msgspec.structs.replace(target, record=record, status=status, rows=pending)
        )
    state = _replace_ship(state, msgspec.structs.replace(state.ship(ship_id), fired=True))
    to_fire = _next_to_fire(ctx, state, firer.side)
    state = msgspec.structs.replace(state, to_fire=to_fire, phase="fire" if to_fire else "end")
    event = ShipFired(
        turn=turn,
        ship=ship_id,
        shots=tuple(rolled),
        hits=tuple(hits),
        thresholds=tuple(thresholds),
    )
    return state, event


def _threshold(ship_id: str, row: int, modifier: int, result: ThresholdOutcome) -> Threshold:
    return Threshold(
        ship=ship_id,
        row=row,
        modifier=modifier,
        lost=tuple(result.lost),
        drive=result.drive,
        ftl=result.ftl,
    )


# ---------------------------------------------------------------- end of turn


def _end(ctx: BattleContext, state: BattleState, dice: DiceSource) -> tuple[BattleState, TurnEnded]:
    """End the turn: deferred threshold checks, wrecks removed, the battle over or not."""
    turn = state.turn
    thresholds: list[Threshold] = []
    removed: list[str] = []
    ships: list[ShipInPlay] = []
    for ship in state.ships:
        sheet = ctx.sheets[ship.id]
        record = ship.record
        status = ship.status
        if status == "active" and hull_remaining(sheet, record) <= 0:
            status = "destroyed"
            removed.append(ship.id)
        elif status == "active" and ship.rows:
            # One check at the last row's level, +1 per extra row (000 L3194-3397).
            row, modifier = max(ship.rows), len(ship.rows) - 1
            record, result = threshold_check(
                sheet,
                record,
                dice,
                f"t{turn}/threshold/{ship.id}",
                row=row,
                modifier=modifier,
                lost_status=ctx.rules.lost_status,
                ftl=ctx.rules.ftl_threshold,
                permanent=PERMANENT_LOSSES,
            )
            thresholds.append(_threshold(ship.id, row, modifier, result))
        ships.append(
            msgspec.structs.replace(ship, record=record, status=status, fired=False, rows=())
        )
    state = msgspec.structs.replace(state, ships=tuple(ships))
    ready: tuple[str, ...] = ()
    fell: tuple[str, ...] = ()
    if ctx.setup.theatre is not None:
        state, ready, fell = _theatre_end(ctx, ctx.setup.theatre, state, dice)
        ships = list(state.ships)
    present = [
        side
        for side in ctx.setup.sides
        if any(s.side == side and s.status in ("active", "away") for s in ships)
    ]
    over, winner, reason = False, None, ""
    if len(present) < len(ctx.setup.sides):
        over = True
        winner = present[0] if present else None
        reason = f"{winner} alone remains" if winner else "no ship remains"
    elif turn >= ctx.setup.turn_limit:
        over, reason = True, f"turn limit {ctx.setup.turn_limit} reached"
    state = msgspec.structs.replace(state, first=None, to_fire=None, winner=winner)
    if over:
        state = msgspec.structs.replace(state, phase="over")
    elif sides_to_repair(ctx, msgspec.structs.replace(state, phase="repair")):
        state = msgspec.structs.replace(state, phase="repair")
    else:
        state = msgspec.structs.replace(state, phase="orders", turn=turn + 1)
    return state, TurnEnded(
        turn=turn,
        thresholds=tuple(thresholds),
        removed=tuple(removed),
        over=over,
        winner=winner,
        reason=reason,
        ready=ready,
        fell=fell,
        table=state.table,
    )


def _theatre_end(
    ctx: BattleContext, theatre: Theatre, state: BattleState, dice: DiceSource
) -> tuple[BattleState, tuple[str, ...], tuple[str, ...]]:
    """A campaign battle's end of turn: jump rolls, gravity, and the table fixed or floating.

    Returns the new state, the ships that rolled their 6 and the ships gravity took off.
    """
    ready: list[str] = []
    fell: list[str] = []
    ships: list[ShipInPlay] = []
    for ship in state.ships:
        if ship.status != "active":
            ships.append(ship)
            continue
        jump = ship.jump
        # Every ship under FTL Move orders prepares; a 6 readies it (004 L139-140).
        preparing = ship.side in theatre.ftl_sides and ship.record.ftl == "ok" and jump == "none"
        if preparing and dice.roll(f"t{state.turn}/jump/{ship.id}", 6) == 6:
            jump = "ready"
            ready.append(ship.id)
        x = round_mu(ship.x - theatre.gravity)  # towards the gas giant edge (004 L163-164)
        status: ShipStatus = "active"
        if _in_well(ctx, x):
            status = "left"
            fell.append(ship.id)
        ships.append(msgspec.structs.replace(ship, x=x, jump=jump, status=status))
    state = msgspec.structs.replace(state, ships=tuple(ships))
    return (
        msgspec.structs.replace(state, table=_table_after(theatre, state)),
        tuple(ready),
        tuple(fell),
    )


def _table_after(theatre: Theatre, state: BattleState) -> tuple[float, float, float, float] | None:
    """Fix the table once two opposing ships are more than 150 MU apart, where the ships are;
    let it float again once every opposing pair is closer than that (004 L132-134)."""
    active = [s for s in state.ships if s.status == "active"]
    widest = max(
        (
            range_between(a.x, a.y, b.x, b.y)
            for i, a in enumerate(active)
            for b in active[i + 1 :]
            if a.side != b.side
        ),
        default=0.0,
    )
    if widest < theatre.float_limit:
        return None
    if widest == theatre.float_limit or state.table is not None:
        return state.table
    margin = theatre.table_margin
    return (
        round_mu(min(s.x for s in active) - margin),
        round_mu(min(s.y for s in active) - margin),
        round_mu(max(s.x for s in active) + margin),
        round_mu(max(s.y for s in active) + margin),
    )


# ---------------------------------------------------------------- damage control

DRIVE = "drive"  # the repair job that mends the main drive one step


def repair_jobs(ctx: BattleContext, ship: ShipInPlay) -> tuple[str, ...]:
    """Return what damage control could mend on this ship: damaged systems, then the drive.

    Destroyed systems stay lost (001 L516; 000 L10909-10999); so does a lost FTL drive
    (see docs/rulings.md).
    """
    sheet = ctx.sheets[ship.id]
    jobs = [
        spec.id
        for spec, sys_state in zip(sheet.systems, ship.record.systems, strict=True)
        if sys_state.status == "damaged"
    ]
    if ship.record.drive != "ok" and sheet.thrust > 0:
        jobs.append(DRIVE)
    return tuple(jobs)


def _can_repair(ctx: BattleContext, ship: ShipInPlay) -> bool:
    return (
        ctx.rules.damage_control != "none"
        and _targetable(ctx, ship)
        and damage_control_parties(ctx.sheets[ship.id], ship.record) > 0
        and bool(repair_jobs(ctx, ship))
    )


def sides_to_repair(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have damage-control rolls to make this turn."""
    if state.phase != "repair":
        return ()
    return tuple(
        side
        for side in ctx.setup.sides
        if side not in state.repaired
        and any(s.side == side and _can_repair(ctx, s) for s in state.ships)
    )


def _check_repairs(
    ctx: BattleContext, state: BattleState, side: str, jobs: Mapping[str, Mapping[str, int]]
) -> None:
    listed = " ".join(
        f"{ship}:{target}={parties}"
        for ship, work in jobs.items()
        for target, parties in work.items()
    )
    where = f"repairs {listed or 'none'!r} for {side} on turn {state.turn}"
    if side not in sides_to_repair(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no damage control to do now")
    for ship_id, work in jobs.items():
        try:
            ship = state.ship(ship_id)
        except KeyError:
            raise IllegalActionError(f"{where}: there is no ship {ship_id!r}") from None
        if ship.side != side or not _can_repair(ctx, ship):
            raise IllegalActionError(f"{where}: {ship_id!r} is not {side}'s ship with repairs")
        open_jobs = repair_jobs(ctx, ship)
        for target, parties in work.items():
            if target not in open_jobs:
                raise IllegalActionError(f"{where}: {ship_id} has nothing to mend in {target!r}")
            if not 1 <= parties <= MAX_PARTIES_PER_JOB:
                raise IllegalActionError(
                    f"{where}: 1 to {MAX_PARTIES_PER_JOB} parties on one job (000 L11368)"
                )
        available = damage_control_parties(ctx.sheets[ship_id], ship.record)
        if sum(work.values()) > available:
            raise IllegalActionError(
                f"{where}: {ship_id} has {available} damage control parties (000 L11415-11425)"
            )


def _repairs(
    ctx: BattleContext,
    state: BattleState,
    side: str,
    jobs: Mapping[str, Mapping[str, int]],
    dice: DiceSource,
) -> tuple[BattleState, RepairsMade]:
    """Roll each job once, ships in battle order and jobs in record-sheet order (000 L11364)."""
    turn = state.turn
    made: list[Repair] = []
    for ship in state.ships:
        work = jobs.get(ship.id)
        if not work:
            continue
        record = ship.record
        for target in repair_jobs(ctx, ship):
            if target not in work:
                continue
            parties = work[target]
            face = dice.roll(f"t{turn}/repair/{ship.id}/{target}", 6)
            success = repair_succeeds(face, parties, "continuum")
            made.append(
                Repair(ship=ship.id, target=target, parties=parties, face=face, success=success)
            )
            if success and target == DRIVE:
                record = msgspec.structs.replace(record, drive=_DRIVE_MENDED[record.drive])
            elif success:
                record = with_system_status(record, target, "ok")
        state = _replace_ship(state, msgspec.structs.replace(ship, record=record))
    state = msgspec.structs.replace(state, repaired=(*state.repaired, side))
    if not sides_to_repair(ctx, state):
        state = msgspec.structs.replace(state, phase="orders", turn=state.turn + 1, repaired=())
    return state, RepairsMade(turn=turn, side=side, repairs=tuple(made))


_DRIVE_MENDED: dict[DriveState, DriveState] = {"disabled": "half", "half": "ok", "ok": "ok"}


def repair(
    ctx: BattleContext,
    state: BattleState,
    side: str,
    jobs: Mapping[str, Mapping[str, int]],
    dice: DiceSource,
) -> RepairsMade:
    """Make one side's damage-control rolls: ``jobs`` maps ship id to {system id or
    ``"drive"``: parties}. An empty mapping makes no rolls.

    Raises:
        IllegalActionError: not this side's repair step, a job that is not damaged, more than
            three parties on a job or more parties than the ship has.
    """
    _check_repairs(ctx, state, side, jobs)
    recording = RecordingDice(dice)
    _state, event = _repairs(ctx, state, side, jobs, recording)
    return msgspec.structs.replace(event, rolls=tuple(recording.rolls))


# ---------------------------------------------------------------- decide and evolve


def resolve(ctx: BattleContext, state: BattleState, dice: DiceSource) -> ShipsMoved | TurnEnded:
    """Resolve a ``CHANCE`` step (movement, or the end of the turn) with these dice.

    Raises:
        IllegalActionError: the step is not a chance step.
    """
    recording = RecordingDice(dice)
    event: ShipsMoved | TurnEnded
    if state.phase == "movement":
        _state, event = _movement(ctx, state, recording)
    elif state.phase == "end":
        _state, event = _end(ctx, state, recording)
    else:
        raise IllegalActionError(
            f"resolve on turn {state.turn}: the {state.phase} step is no chance step"
        )
    return msgspec.structs.replace(event, rolls=tuple(recording.rolls))


def evolve(ctx: BattleContext, state: BattleState, event: Event) -> BattleState:
    """Fold one event into the state, reading its recorded dice; never rolls.

    Raises:
        tactical.dice.DiceError: the event's dice do not fit the rules (a corrupt journal).
        IllegalActionError: the event does not fit the state.
    """
    if isinstance(event, OrdersWritten):
        write_orders(ctx, state, event.side, parse_orders(event.orders))
        return _apply_orders(ctx, state, event)
    dice = ReplayDice(event.rolls)
    if isinstance(event, ShipsMoved):
        if state.phase != "movement":
            raise IllegalActionError(f"ships_moved on turn {event.turn} in the {state.phase} step")
        state, _ = _movement(ctx, state, dice)
    elif isinstance(event, ShipFired):
        shots = tuple(Shot(s.weapon, s.target) for s in event.shots)
        _check_fire(ctx, state, event.ship, shots)
        state, _ = _fire(ctx, state, event.ship, shots, dice)
    elif isinstance(event, RepairsMade):
        jobs: dict[str, dict[str, int]] = {}
        for job in event.repairs:
            jobs.setdefault(job.ship, {})[job.target] = job.parties
        _check_repairs(ctx, state, event.side, jobs)
        state, _ = _repairs(ctx, state, event.side, jobs, dice)
    else:
        if state.phase != "end":
            raise IllegalActionError(f"turn_ended on turn {event.turn} in the {state.phase} step")
        state, _ = _end(ctx, state, dice)
    dice.finish()
    return state


def replay(setup: BattleSetup, journal: Sequence[Event]) -> BattleState:
    """Return the state after folding a whole journal into the set-up's initial state.

    Raises:
        SetupError: the set-up is broken.
        tactical.dice.DiceError: an event's dice do not fit the rules.
        IllegalActionError: an event does not fit the state.
    """
    ctx = context(setup)
    state = initial_state(ctx)
    for event in journal:
        state = evolve(ctx, state, event)
    return state


class Battle:
    """A battle in progress: the set-up, the current state and the journal so far.

    Each method checks the action, records its event and folds it in.
    """

    def __init__(self, setup: BattleSetup) -> None:
        """Start a battle.

        Raises:
            SetupError: the set-up is broken.
        """
        self.ctx = context(setup)
        self.state = initial_state(self.ctx)
        self.journal: list[Event] = []

    def step(self) -> Step:
        """Return what happens next."""
        return current_step(self.state)

    def record(self, event: Event) -> Event:
        """Fold an event into the state and append it to the journal."""
        self.state = evolve(self.ctx, self.state, event)
        self.journal.append(event)
        return event

    def write_orders(self, side: str, orders: Mapping[str, Order]) -> Event:
        """Write one side's orders (see :func:`write_orders`)."""
        return self.record(write_orders(self.ctx, self.state, side, orders))

    def resolve(self, dice: DiceSource) -> Event:
        """Resolve the chance step (see :func:`resolve`)."""
        return self.record(resolve(self.ctx, self.state, dice))

    def fire(self, ship_id: str, shots: Sequence[Shot], dice: DiceSource) -> Event:
        """Fire one ship (see :func:`fire_ship`)."""
        return self.record(fire_ship(self.ctx, self.state, ship_id, shots, dice))

    def repair(self, side: str, jobs: Mapping[str, Mapping[str, int]], dice: DiceSource) -> Event:
        """Make one side's damage-control rolls (see :func:`repair`)."""
        return self.record(repair(self.ctx, self.state, side, jobs, dice))
