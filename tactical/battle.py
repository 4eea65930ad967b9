"""The battle: a set-up, a state that is a fold of events, and the turn as explicit steps.

This module is the step machine and the :class:`Battle` facade; each step of the turn lives in
its own module of :mod:`tactical.phases` (the picture is in docs/architecture.md), the set-up
and state types in :mod:`tactical.state`, the set-up's checks in :mod:`tactical.setup`. Every
public name of those modules that the campaign, the CLI and the commanders use is importable
from here.

A battle is a :class:`BattleSetup` (ships from the design catalogue with their record state,
positions in MU, course, speed, sides) plus a journal of events. Like an OpenSpiel game, the
state says what happens next (:func:`current_step`):

- ``SIMULTANEOUS`` (phase ``orders``, ``phases/orders.py``): every side secretly writes
  movement orders (:func:`write_orders`, 001 L248);
- ``CHANCE`` (phase ``movement``, ``phases/movement.py`` with ``phases/ftl.py``): all ships
  move at once, laying mines, sweeping and meeting the mines in their way (001 L868-898),
  then the first side to fire is found (:func:`resolve`, 001 L250-262);
- ``SIMULTANEOUS`` (phase ``flight``) and ``CHANCE`` (phase ``fighters``, with groups in
  flight, ``phases/fighters.py``): flight orders, then the fighters and point defence (001
  L256-258; 000 L1053-1472 phases 4-10);
- ``CHANCE`` (phase ``missiles``, with salvos due, ``phases/ordnance.py``): the salvos in
  flight strike before the firing (000 L1053-1472 phases 7-10);
- ``PLAYER`` (phase ``fire``, ``phases/fire.py``): the side to play picks one of its ships
  that has not fired and declares all its shots, which are rolled and applied at once
  (:func:`fire_ship`, 001 L262-276); sides alternate, and a side with ships left over fires
  them after the other's last;
- ``SIMULTANEOUS`` (phase ``assault``, ``phases/boarding.py``, with boarders aboard a ship
  that has marines): each side with boarders aboard an enemy ship says which of them engage
  the defending marines, the rest going for the hull (:func:`write_assault`, 000 12.7, phase
  12);
- ``SIMULTANEOUS`` (phase ``repel``, ``phases/boarding.py``, with boarders aboard): each side
  with enemy boarders aboard its ships puts its DCPs and marines on them, and the boarding
  combat is rolled (:func:`repel`, 000 L13043-13093);
- ``CHANCE`` (phase ``end``, ``phases/end.py``): end-of-phase threshold checks where the
  rules have them, wrecks removed, the battle ended by a side gone or the turn limit
  (:func:`resolve`);
- ``SIMULTANEOUS`` (phase ``repair``, ``phases/repair.py``, under rules with damage control):
  each side with damaged systems and parties to spare assigns them and rolls (:func:`repair`,
  000 10.4, phase 14);
- ``CHANCE`` (phase ``core``, ``phases/core.py``, under the ``core_systems`` option, when a
  ship has a core system out): damaged power cores roll to explode, failed life support and
  lost control count down (:func:`resolve`, 000 10.3, phase 15);
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
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

import msgspec

from tactical.boarding import Assault, Guard, parse_assaults, parse_repel
from tactical.dice import DiceSource, RecordingDice, ReplayDice
from tactical.fighters import FlightOrder, parse_flight
from tactical.movement import Order, parse_orders
from tactical.phases.boarding import (
    AssaultOrdered,
    BoardingFight,
    BoardingFought,
    apply_assault,
    assault_on,
    board,
    boarders_aboard,
    check_repel,
    fight_boarders,
    repel,
    sides_to_assault,
    sides_to_repel,
    write_assault,
)
from tactical.phases.core import Breach, CoreRoll, CoreSystemsRolled, resolve_core
from tactical.phases.end import TurnEnded, end_turn, withdraw_at
from tactical.phases.fighters import (
    DefenceFire,
    Dogfight,
    FighterAttack,
    FightersResolved,
    FighterWeapon,
    FlightWritten,
    GroupMoved,
    Interception,
    Rearm,
    SalvoLaunch,
    Scramble,
    apply_flight,
    flight_targets,
    group_reach,
    group_type,
    launch_capacity,
    launchable_bays,
    rearmed,
    resolve_fighters,
    scramble_bays,
    sides_to_fly,
    write_flight,
)
from tactical.phases.fire import (
    AFT,
    NEEDLE,
    NEEDLES,
    NOVA,
    NOVA_LINE,
    SUBMUNITION,
    TORPEDO,
    TORPEDOES,
    Landing,
    NovaHit,
    ShipFired,
    Shot,
    ShotRoll,
    check_fire,
    fire_controls,
    fire_options,
    fire_ship,
    fire_shots,
    firecons_needed,
    firecons_taken,
    fired,
    flight_options,
    launch_options,
    launch_problem,
    needle_aims,
    needle_focus_problem,
    needle_reach,
    ships_to_fire,
)
from tactical.phases.ftl import Dropout
from tactical.phases.knowledge import estimate, sheets_closed, sighting_of
from tactical.phases.movement import (
    AsteroidMet,
    MineDetonated,
    MineEvent,
    MineLaid,
    MineSwept,
    Rammed,
    ShipsMoved,
    mine_layers,
    move_by_rules,
    move_path,
    move_ships,
    move_start,
    order_limits,
    ram_need,
    scan_limit,
    sweeper_working,
)
from tactical.phases.orders import (
    OrdersWritten,
    apply_orders,
    setting_problem,
    sides_to_write,
    write_orders,
)
from tactical.phases.ordnance import (
    MissilesResolved,
    PointDefenceDie,
    SalvoAttack,
    resolve_missiles,
    salvo_targets,
)
from tactical.phases.repair import (
    DRIVE,
    Repair,
    RepairsMade,
    check_repairs,
    free_parties,
    make_repairs,
    repair,
    repair_jobs,
    sides_to_repair,
)
from tactical.sensors import DAMAGE_KNOWN, DUMMY_SIGNATURE, SYSTEMS_KNOWN, Bogey, Sighting
from tactical.setup import SetupError, context, decode_setup, initial_state, sheet_for
from tactical.ship import Ship, ShipState, fresh_state, hull_remaining
from tactical.state import (
    LOST,
    BattleContext,
    BattleSetup,
    BattleState,
    DummySetup,
    FtlDeparture,
    Hit,
    Identifier,
    IllegalActionError,
    JumpState,
    MineSetup,
    Moved,
    NovaBlast,
    Phase,
    ShipInPlay,
    ShipSetup,
    ShipStatus,
    SideOrders,
    Theatre,
    Threshold,
    Zone,
    asteroids_at,
    asteroids_now,
    ftl_blocked,
    velocity,
)

__all__ = [
    "AFT",
    "DRIVE",
    "LOST",
    "NEEDLE",
    "NEEDLES",
    "NOVA",
    "NOVA_LINE",
    "SUBMUNITION",
    "TORPEDO",
    "TORPEDOES",
    "AssaultOrdered",
    "AsteroidMet",
    "Battle",
    "BattleContext",
    "BattleSetup",
    "BattleState",
    "BoardingFight",
    "BoardingFought",
    "Breach",
    "CoreRoll",
    "CoreSystemsRolled",
    "DefenceFire",
    "Dogfight",
    "Dropout",
    "DummySetup",
    "Event",
    "FighterAttack",
    "FighterWeapon",
    "FightersResolved",
    "FlightWritten",
    "FtlDeparture",
    "GroupMoved",
    "Hit",
    "Identifier",
    "IllegalActionError",
    "Interception",
    "JumpState",
    "Landing",
    "MineDetonated",
    "MineEvent",
    "MineLaid",
    "MineSetup",
    "MineSwept",
    "MissilesResolved",
    "Moved",
    "NovaBlast",
    "NovaHit",
    "OrdersWritten",
    "Phase",
    "PointDefenceDie",
    "Rammed",
    "Rearm",
    "Repair",
    "RepairsMade",
    "SalvoAttack",
    "SalvoLaunch",
    "Scramble",
    "SetupError",
    "ShipFired",
    "ShipInPlay",
    "ShipSetup",
    "ShipStatus",
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
    "assault_on",
    "asteroids_at",
    "asteroids_now",
    "board",
    "boarders_aboard",
    "context",
    "current_step",
    "decode_journal",
    "decode_setup",
    "dropout_ids",
    "encode_journal",
    "evolve",
    "fire_controls",
    "fire_options",
    "fire_ship",
    "firecons_needed",
    "firecons_taken",
    "flight_options",
    "flight_targets",
    "free_parties",
    "ftl_blocked",
    "group_reach",
    "group_type",
    "initial_state",
    "launch_capacity",
    "launch_options",
    "launch_problem",
    "launchable_bays",
    "mine_layers",
    "move_by_rules",
    "move_path",
    "move_start",
    "needle_aims",
    "needle_focus_problem",
    "needle_reach",
    "order_limits",
    "ram_need",
    "rearmed",
    "repair",
    "repair_jobs",
    "repel",
    "replay",
    "resolve",
    "salvo_targets",
    "scan_limit",
    "scramble_bays",
    "setting_problem",
    "sheet_for",
    "ships_to_fire",
    "side_view",
    "sides_to_assault",
    "sides_to_fly",
    "sides_to_repair",
    "sides_to_repel",
    "sides_to_write",
    "sweeper_working",
    "velocity",
    "view",
    "withdraw_at",
    "write_assault",
    "write_flight",
    "write_orders",
]


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
    if state.phase in ("orders", "flight", "assault", "repel", "repair"):
        return Step(StepKind.SIMULTANEOUS.value, state.phase)
    if state.phase == "fire":
        return Step(StepKind.PLAYER.value, "fire", state.to_fire)
    if state.phase == "over":
        return Step(StepKind.TERMINAL.value, "over")
    return Step(StepKind.CHANCE.value, state.phase)


def dropout_ids(ctx: BattleContext) -> frozenset[str]:
    """Return the ships the set-up brings in by FTL dropout (001 L1053): noted at the
    start, secret from the other side until they appear."""
    known = _DROPOUTS.get(id(ctx.setup))
    if known is not None and known[0] is ctx.setup:
        return known[1]
    found = frozenset(s.id for s in ctx.setup.ships if s.dropout is not None)
    if len(_DROPOUTS) >= 64:
        _DROPOUTS.clear()
    _DROPOUTS[id(ctx.setup)] = (ctx.setup, found)
    return found


_DROPOUTS: dict[int, tuple[BattleSetup, frozenset[str]]] = {}
""":func:`dropout_ids` by the set-up's identity (each entry holds it): a side's view asks at
every step."""


def view(state: BattleState, side: str, dropouts: Collection[str] = ()) -> BattleState:
    """Return the state as one side may see it: other sides' written orders are blanked, and
    enemy ships not yet identified and enemy dummies are only :class:`~tactical.sensors.Bogey`
    contacts in ``bogeys``, sorted by label.

    ``dropouts`` (:func:`dropout_ids`) are the ships that enter by FTL dropout: an enemy one
    not yet on the table is not seen at all (001 L1053-1058).

    Orders are secret until ships move (001 L248), torpedo settings until they fire; the
    boarders' assaults are open once all are written, for the defenders to answer (000
    L13049-13057). A bogey
    shows its label, place, course, speed and the class its signature shows, nothing else
    (001 L939-945); an unidentified enemy ship off the table is not seen at all. Identified
    ships are shown whole: :func:`side_view` shows them as far as the side knows them, with
    the context to read them by, and is what a side's renderings and commanders read.
    """
    written = tuple(
        w if w.side == side or state.phase == "repel" else SideOrders(w.side, "")
        for w in state.written
    )
    # Enemy salvos are placed after the orders are written (000 L1053-1472 phases 1, 3), and
    # are on the table when the fighters move (phases 4-8): a group may intercept one.
    fighters_fly = state.phase in ("flight", "fighters")
    salvos = tuple(s for s in state.salvos if s.side == side or fighters_fly)
    # Torpedo settings are written orders (000 L4681-4683, L4786-4794): secret until fired;
    # so is a standing order to scramble fighters (000 8.3) until the carrier scrambles, the
    # Beam-1s put on point defence (000 L9105-9109) until they fire, and the enemy admiral's
    # choice of ship (004 L338, L343).
    ships = [
        s
        if s.side == side or not (s.settings or s.scramble or s.inspired or s.beam_defence)
        else _unwritten(s)
        for s in state.ships
    ]
    if dropouts:
        inbound = {
            s.id for s in ships if s.side != side and s.id in dropouts and s.status == "away"
        }
        ships = [s for s in ships if s.id not in inbound]
    hidden = {s.id for s in ships if s.side != side and s.bogey is not None}
    if not hidden and not state.dummies:
        return msgspec.structs.replace(state, ships=tuple(ships), written=written, salvos=salvos)
    contacts = [
        Bogey(
            label=s.bogey, side=s.side, shows=s.shows, x=s.x, y=s.y, course=s.course, speed=s.speed
        )
        for s in ships
        if s.id in hidden and s.status == "active" and s.bogey is not None and s.shows is not None
    ] + [
        Bogey(
            label=d.label,
            side=d.side,
            shows=DUMMY_SIGNATURE,
            x=d.x,
            y=d.y,
            course=d.course,
            speed=d.speed,
        )
        for d in state.dummies
        if d.side != side
    ]
    return msgspec.structs.replace(
        state,
        written=written,
        ships=tuple([s for s in ships if s.id not in hidden]),
        dummies=tuple(d for d in state.dummies if d.side == side),
        bogeys=tuple(sorted(contacts, key=lambda b: (len(b.label), b.label))),
        held=tuple(h for h in state.held if h not in hidden),
        before=tuple(b for b in state.before if b[0] not in hidden),
        fighters=tuple(g for g in state.fighters if g.carrier not in hidden),
        salvos=salvos,
    )


def side_view(
    ctx: BattleContext, state: BattleState, side: str
) -> tuple[BattleContext, BattleState]:
    """Return the battle as one side may see it, context and state: :func:`view` (orders,
    bogeys and dropouts hidden), and, when enemy record sheets are closed
    (``enemy_sheets = "sensed"`` with bogeys, 000 L1462-1466), every identified enemy ship
    shown only as far as the side knows it (``BattleState.known``, 000 L12648-12660; as
    :func:`~tactical.phases.knowledge.known_level` reads it):

    - below "every system" its ``design`` and record sheet are the side's estimate
      (:func:`~tactical.phases.knowledge.estimate`), from its class and what the scans told;
    - below "everything" its record is the sheet's original values: no damage, every system
      working, full magazines and bays; no rows awaiting a check, no DCPs at boarders; but a
      ship whose last hull box is gone shows every box lost (its destruction is seen);
    - below "every system" nothing that names its systems: torpedo tubes, re-arming bays, ECM
      switched on;
    - each such ship carries its :class:`~tactical.sensors.Sighting`.

    With bogeys, the context's set-up and record sheets say of enemy ships only what the
    state shows (an unidentified one and the enemy's dummies not at all: the owner notes his
    bogeys secretly, 001 L939), so whatever reads them, a renderer or a commander, learns
    nothing more. Without bogeys the context is returned as it is.
    """
    seen = view(state, side, dropout_ids(ctx))
    if not ctx.rules.bogeys:
        return ctx, seen
    closed = sheets_closed(ctx)
    learned = {ship: level for who, ship, level in state.known if who == side}
    # Each ship seen, with its design and the level the side knows it to, and as it is shown,
    # in one pass; a ship shown as known below everything looked up first where
    # _shown_as_known keeps it.
    seen_as: list[tuple[str, str, int]] = []
    shown: list[ShipInPlay] = []
    sheets_read, catalogue = ctx.sheets, ctx.rules.ships
    for ship in seen.ships:
        if ship.side == side or not closed:
            seen_as.append((ship.id, ship.design, DAMAGE_KNOWN))
            shown.append(ship)
            continue
        level = learned.get(ship.id, 0)
        seen_as.append((ship.id, ship.design, level))
        if level >= DAMAGE_KNOWN:
            shown.append(ship)
            continue
        kept = _SHOWN.get((id(ship), level, catalogue))
        if kept is not None and kept[0] is ship and kept[1] is sheets_read[ship.id]:
            shown.append(kept[2])
        else:
            shown.append(_shown_as_known(ctx, ship, level))
    setup, sheets = _known_context(ctx, side, tuple(seen_as))
    # A new context each call, as before: a commander may keep what it worked out for as
    # long as the context it was handed is the same object.
    return BattleContext(setup=setup, rules=ctx.rules, sheets=sheets), msgspec.structs.replace(
        seen, ships=tuple(shown)
    )


_KEPT = 4096
"""How many entries each of the side views' caches below keeps before it starts again (a
memory bound only). Each entry holds the objects whose ids its key names, so that no other
object can take those ids while it lives: a hit is the same object, and the same answer."""

_UNWRITTEN: dict[int, tuple[ShipInPlay, ShipInPlay]] = {}
""":func:`_unwritten` by the ship's identity: a ship that no step since has changed is
shown as the same object, and :func:`_shown_as_known` finds it again."""

_SHOWN: dict[tuple[int, int, str], tuple[ShipInPlay, Ship, ShipInPlay]] = {}
""":func:`_shown_as_known` by the ship's identity, the level known and the catalogue."""

_SIGHTED: dict[tuple[int, int, str], tuple[Ship, Sighting, str, Ship]] = {}
""":func:`_shown_as_known`'s reading of a record sheet by its identity, the level known and
the catalogue: the sighting, and the design and sheet shown (below "every system", the
estimate's; else the sheet's own, the design the ship's)."""

_CONTEXTS: dict[
    tuple[int, int, str, str, tuple[tuple[str, str, int], ...]],
    tuple[BattleSetup, Mapping[str, Ship], BattleSetup, dict[str, Ship]],
] = {}
""":func:`_known_context` by the battle's set-up and sheets (identity), the catalogue, the
side, and each ship it sees with its design and the level it knows it to."""


def _unwritten(ship: ShipInPlay) -> ShipInPlay:
    """An enemy ship without what its side wrote this turn (:func:`view`): its torpedo
    settings, standing scramble, admiral's choice and point defence."""
    known = _UNWRITTEN.get(id(ship))
    if known is not None and known[0] is ship:
        return known[1]
    blank = msgspec.structs.replace(
        ship, settings=(), scramble=False, inspired=False, beam_defence=False
    )
    if len(_UNWRITTEN) >= _KEPT:
        _UNWRITTEN.clear()
    _UNWRITTEN[id(ship)] = (ship, blank)
    return blank


def _shown_as_known(ctx: BattleContext, ship: ShipInPlay, level: int) -> ShipInPlay:
    """An identified enemy ship as a side that knows it to ``level``, below everything, sees
    it (:func:`side_view`)."""
    sheet = ctx.sheets[ship.id]
    key = (id(ship), level, ctx.rules.ships)
    known = _SHOWN.get(key)
    if known is not None and known[0] is ship and known[1] is sheet:
        return known[2]
    seen = (id(sheet), level, ctx.rules.ships)
    sheet_known = _SIGHTED.get(seen)
    if sheet_known is None or sheet_known[0] is not sheet:
        sighting = sighting_of(sheet, level)
        design, estimated = ship.design, sheet
        if level < SYSTEMS_KNOWN:
            design, estimated = estimate(ctx.rules.ships, sighting)
        if len(_SIGHTED) >= _KEPT:
            _SIGHTED.clear()
        sheet_known = _SIGHTED[seen] = (sheet, sighting, design, estimated)
    _sheet, sighting, design, estimated = sheet_known
    if level >= SYSTEMS_KNOWN:
        design = ship.design
    wrecked = hull_remaining(sheet, ship.record) <= 0
    shown = _as_known(ship, design, estimated, sighting, wrecked)
    if len(_SHOWN) >= _KEPT:
        _SHOWN.clear()
    _SHOWN[key] = (ship, sheet, shown)
    return shown


def _known_context(
    ctx: BattleContext, side: str, seen: tuple[tuple[str, str, int], ...]
) -> tuple[BattleSetup, dict[str, Ship]]:
    """The set-up and record sheets a side reads (:func:`side_view`), given each ship it
    sees, ``(id, design, level known)``: its own and enemies known to the last detail as they
    are, the others by their estimate; with bogeys, nothing of the ships it does not see."""
    key = (id(ctx.setup), id(ctx.sheets), ctx.rules.ships, side, seen)
    known = _CONTEXTS.get(key)
    if known is not None and known[0] is ctx.setup and known[1] is ctx.sheets:
        return known[2], known[3]
    shown: dict[str, str] = {}  # ship -> the design the side sees it as
    open_ids: set[str] = set()  # its own ships, and enemies known to the last detail
    systems_known: set[str] = set()  # enemies shown as their own design, undamaged
    sheets: dict[str, Ship] = {}
    for ship_id, ship_design, level in seen:
        sheet = ctx.sheets[ship_id]
        if level >= DAMAGE_KNOWN:
            open_ids.add(ship_id)
            sheets[ship_id], shown[ship_id] = sheet, ship_design
            continue
        design, estimated = ship_design, sheet
        if level < SYSTEMS_KNOWN:
            design, estimated = estimate(ctx.rules.ships, sighting_of(sheet, level))
        else:
            systems_known.add(ship_id)
        sheets[ship_id], shown[ship_id] = estimated, design
    open_ids.update(s.id for s in ctx.setup.ships if s.side == side)  # its own, off the table
    for own in ctx.setup.ships:
        if own.side == side and own.id not in sheets:
            sheets[own.id], shown[own.id] = ctx.sheets[own.id], own.design
    real = {s.design for s in ctx.setup.ships if s.id in open_ids or s.id in systems_known}
    setup = msgspec.structs.replace(
        ctx.setup,
        ships=tuple(
            s
            if s.id in open_ids
            else msgspec.structs.replace(s, design=shown[s.id], state=None, ftl_deployed=())
            for s in ctx.setup.ships
            if s.id in shown
        ),
        designs={n: d for n, d in ctx.setup.designs.items() if n in real},
        dummies=tuple(d for d in ctx.setup.dummies if d.side == side),
    )
    if len(_CONTEXTS) >= _KEPT:
        _CONTEXTS.clear()
    _CONTEXTS[key] = (ctx.setup, ctx.sheets, setup, sheets)
    return setup, sheets


def _original(sheet: Ship, ship_id: str) -> ShipState:
    """A ship's record as its sheet's original values, kept by the sheet's identity and the
    ship's id (the commanders ask each step; a record sheet is a large struct, and hashing it
    by value, as functools' caches do, cost more than the lookup saved)."""
    key = (id(sheet), ship_id)
    known = _ORIGINALS.get(key)
    if known is not None and known[0] is sheet:
        return known[1]
    record = msgspec.structs.replace(fresh_state(sheet), ship_id=ship_id)
    if len(_ORIGINALS) >= _KEPT:
        _ORIGINALS.clear()
    _ORIGINALS[key] = (sheet, record)
    return record


_ORIGINALS: dict[tuple[int, str], tuple[Ship, ShipState]] = {}
""":func:`_original` by the sheet's identity and the ship's id (each entry holds its sheet)."""


def _as_known(
    ship: ShipInPlay, design: str, sheet: Ship, sighting: Sighting, wrecked: bool
) -> ShipInPlay:
    """An enemy ship as a side knowing it to ``sighting.level`` sees it (:func:`side_view`);
    ``wrecked``, its last hull box gone, which all see (the firer's dice destroyed it), shown
    as every box of its sheet lost."""
    systems_known = sighting.level >= SYSTEMS_KNOWN
    record = _original(sheet, ship.id)
    if wrecked:
        record = msgspec.structs.replace(record, hull_lost=sheet.rows)
    return msgspec.structs.replace(
        ship,
        design=design,
        record=record,
        rows=(),
        board_rows=(),
        repelled=0,
        tubes=ship.tubes if systems_known else (),
        rearming=ship.rearming if systems_known else (),
        ecm=ship.ecm and systems_known,
        sighting=sighting,
    )


Event = (
    OrdersWritten
    | ShipsMoved
    | ShipFired
    | TurnEnded
    | RepairsMade
    | FlightWritten
    | FightersResolved
    | CoreSystemsRolled
    | MissilesResolved
    | AssaultOrdered
    | BoardingFought
)


def encode_journal(events: Sequence[Event]) -> bytes:
    """Encode a journal as JSON, one tagged object per event."""
    return msgspec.json.encode(list(events))


def decode_journal(data: bytes | str) -> list[Event]:
    """Decode a journal written by :func:`encode_journal`.

    Raises:
        msgspec.ValidationError: an event is malformed (the message gives its path).
    """
    return msgspec.json.decode(data, type=list[Event])


def resolve(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> ShipsMoved | TurnEnded | FightersResolved | CoreSystemsRolled | MissilesResolved:
    """Resolve a ``CHANCE`` step (movement, the fighters, the salvos in flight, the end of the
    turn, or the core systems after damage control).

    Raises:
        IllegalActionError: the step is not a chance step.
    """
    return resolved(ctx, state, dice)[1]


def resolved(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[
    BattleState, ShipsMoved | TurnEnded | FightersResolved | CoreSystemsRolled | MissilesResolved
]:
    """:func:`resolve`, and the state after it: the state :func:`evolve` folds the event into
    (the same step's function, its dice replayed), so a live battle need not fold it again."""
    recording = RecordingDice(dice)
    event: ShipsMoved | TurnEnded | FightersResolved | CoreSystemsRolled | MissilesResolved
    if state.phase == "movement":
        after, event = move_ships(ctx, state, recording)
    elif state.phase == "missiles":
        after, event = resolve_missiles(ctx, state, recording)
    elif state.phase == "fighters":
        after, event = resolve_fighters(ctx, state, recording)
    elif state.phase == "end":
        after, event = end_turn(ctx, state, recording)
    elif state.phase == "core":
        after, event = resolve_core(ctx, state, recording)
    else:
        raise IllegalActionError(
            f"resolve on turn {state.turn}: the {state.phase} step is no chance step"
        )
    return after, msgspec.structs.replace(event, rolls=tuple(recording.rolls))


def evolve(ctx: BattleContext, state: BattleState, event: Event) -> BattleState:
    """Fold one event into the state, reading its recorded dice; never rolls.

    Raises:
        tactical.dice.DiceError: the event's dice do not fit the rules (a corrupt journal).
        IllegalActionError: the event does not fit the state.
    """
    if isinstance(event, OrdersWritten):
        write_orders(ctx, state, event.side, parse_orders(event.orders))
        return apply_orders(ctx, state, event)
    if isinstance(event, FlightWritten):
        write_flight(ctx, state, event.side, parse_flight(event.orders))
        return apply_flight(ctx, state, event)
    if isinstance(event, AssaultOrdered):
        write_assault(ctx, state, event.side, parse_assaults(event.orders))
        return apply_assault(ctx, state, event)
    dice = ReplayDice(event.rolls)
    if isinstance(event, ShipsMoved):
        if state.phase != "movement":
            raise IllegalActionError(f"ships_moved on turn {event.turn} in the {state.phase} step")
        state, _ = move_ships(ctx, state, dice)
    elif isinstance(event, ShipFired):
        shots = tuple(Shot(s.weapon, s.target, s.aim) for s in event.shots)
        check_fire(ctx, state, event.ship, shots)
        state, _ = fire_shots(ctx, state, event.ship, shots, dice)
    elif isinstance(event, FightersResolved):
        if state.phase != "fighters":
            raise IllegalActionError(
                f"fighters_resolved on turn {event.turn} in the {state.phase} step"
            )
        state, _ = resolve_fighters(ctx, state, dice)
    elif isinstance(event, RepairsMade):
        jobs: dict[str, dict[str, int]] = {}
        for job in event.repairs:
            jobs.setdefault(job.ship, {})[job.target] = job.parties
        check_repairs(ctx, state, event.side, jobs)
        state, _ = make_repairs(ctx, state, event.side, jobs, dice)
    elif isinstance(event, BoardingFought):
        guards = parse_repel(event.orders)
        check_repel(ctx, state, event.side, guards)
        state, _ = fight_boarders(ctx, state, event.side, guards, dice)
    elif isinstance(event, MissilesResolved):
        if state.phase != "missiles":
            raise IllegalActionError(
                f"missiles_resolved on turn {event.turn} in the {state.phase} step"
            )
        state, _ = resolve_missiles(ctx, state, dice)
    elif isinstance(event, CoreSystemsRolled):
        if state.phase != "core":
            raise IllegalActionError(
                f"core_systems_rolled on turn {event.turn} in the {state.phase} step"
            )
        state, _ = resolve_core(ctx, state, dice)
    else:
        if state.phase != "end":
            raise IllegalActionError(f"turn_ended on turn {event.turn} in the {state.phase} step")
        state, _ = end_turn(ctx, state, dice)
    dice.finish()
    return state


def replay(
    setup: BattleSetup, journal: Sequence[Event], ctx: BattleContext | None = None
) -> BattleState:
    """Return the state after folding a whole journal into the set-up's initial state;
    ``ctx``, the set-up's context (:func:`~tactical.setup.context`) when the caller has it
    already: it is read off the set-up alone.

    Raises:
        SetupError: the set-up is broken.
        tactical.dice.DiceError: an event's dice do not fit the rules.
        IllegalActionError: an event does not fit the state.
    """
    if ctx is None or ctx.setup is not setup:
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
        """Write one side's orders (see :func:`write_orders`), the event folded in as
        :func:`evolve` folds it but for checking the orders again: :func:`write_orders` just
        did (a replay of the journal checks them as read back from their text)."""
        event = write_orders(self.ctx, self.state, side, orders)
        self.state = apply_orders(self.ctx, self.state, event)
        self.journal.append(event)
        return event

    def fly(self, side: str, orders: Mapping[str, FlightOrder]) -> Event:
        """Write one side's flight orders (see :func:`write_flight`)."""
        return self.record(write_flight(self.ctx, self.state, side, orders))

    def resolve(self, dice: DiceSource) -> Event:
        """Resolve the chance step (see :func:`resolve`). The state after it is the one the
        step's own function gave, not folded again (:func:`resolved`)."""
        self.state, event = resolved(self.ctx, self.state, dice)
        self.journal.append(event)
        return event

    def fire(self, ship_id: str, shots: Sequence[Shot], dice: DiceSource) -> Event:
        """Fire one ship (see :func:`fire_ship`), the state after it not folded again
        (:func:`tactical.phases.fire.fired`)."""
        self.state, event = fired(self.ctx, self.state, ship_id, shots, dice)
        self.journal.append(event)
        return event

    def repair(self, side: str, jobs: Mapping[str, Mapping[str, int]], dice: DiceSource) -> Event:
        """Make one side's damage-control rolls (see :func:`repair`)."""
        return self.record(repair(self.ctx, self.state, side, jobs, dice))

    def assault(self, side: str, assaults: Mapping[str, Assault]) -> Event:
        """Allot one side's boarders (see :func:`write_assault`)."""
        return self.record(write_assault(self.ctx, self.state, side, assaults))

    def repel(self, side: str, guards: Mapping[str, Sequence[Guard]], dice: DiceSource) -> Event:
        """Fight the boarders aboard one side's ships (see :func:`repel`)."""
        return self.record(repel(self.ctx, self.state, side, guards, dice))
