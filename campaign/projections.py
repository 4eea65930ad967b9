"""Projections: pure folds of events into state.

`evolve(state, event)` never looks anywhere but its arguments, so any state can be rebuilt
from position 0, a snapshot plus the tail equals a full replay, and a player's view is the same
fold over only the events that player may see.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable
from datetime import datetime

import msgspec

from campaign.dice import DiceKey, Roll
from campaign.errors import InvalidInputError
from campaign.events import (
    EVENT_TYPES,
    BattleFought,
    BattleRequested,
    CampaignCreated,
    CampaignRulesChosen,
    CaptainCasualty,
    ColonistsLanded,
    ColonyAdjusted,
    ColonyBombarded,
    ColonyConquered,
    ColonyDetected,
    CommandPostEstablished,
    DeadlineSet,
    DecoysLost,
    DesignRegistered,
    DiceRolled,
    EmpireFounded,
    Event,
    FactoriesDestroyed,
    FightersResupplied,
    MapChosen,
    OfficerCasualty,
    OrdersCommitted,
    OrdersMarkedFinal,
    OrdersSubmitted,
    ProductionResolved,
    RecordedEvent,
    SeedRevealed,
    ShipsRepaired,
    ShipsSighted,
    StoresLost,
    SystemExplored,
    TaskForcesSet,
    TreasurySpent,
    TurnEnded,
    TurnHeld,
    TurnReleased,
    UmpireNoted,
    UnitMoved,
    UnitRelocated,
    UnitsCaught,
    UnitsMerged,
    UnitsSplit,
    decode_payload,
)
from campaign.ft2.model import Ft2State
from campaign.ft2.state import FT2_EVENTS, evolve_ft2, next_week
from campaign.rules.production import LEGACY_SETTINGS, ProductionSettings
from campaign.rules.technology import ResearchOrder
from campaign.seats import SEAT_EVENTS, Seats, evolve_seats
from campaign.strategic import (
    Admiral,
    Attack,
    Battle,
    Colony,
    Empire,
    Landing,
    Location,
    Loss,
    Move,
    ProductionOrder,
    RegisteredDesign,
    Sighting,
    TaskForce,
    TaskForceOrder,
    TreasuryOrder,
    Unit,
    parse_defence_id,
)
from tactical.ship import ShipState

PROJECTION_NAME = "campaign"
# Bump when CampaignState or evolve() changes meaning: older snapshots are then ignored.
PROJECTION_VERSION = 28


class CampaignState(msgspec.Struct, frozen=True, kw_only=True):
    """What the campaign is now, as far as the events folded so far say."""

    name: str = ""
    created: bool = False
    players: tuple[str, ...] = ()
    turn: int = 0  # the game turn in progress; turn 0 is the set-up
    max_turns: int = 44
    seed_commitment: str = ""
    revealed_seed: str | None = None
    dice_mode: str = "seeded"
    absent: str = "hold"
    contested_planets: str = "nobody"  # who holds a contested uncolonised planet (victory.py)
    battle_movement: str = "vector"  # how the engine's battles move (rules.battles.request_for)
    asteroid_motion: str = "jump"  # how drifting asteroids collide in them (request_for)
    morale_ties: str = "both"  # who withdraws when both sides break in one turn (request_for)
    battle_rules: str = "ft2"  # the rules its battles and ships follow (004 section 4)
    design_visibility: str = "secret"  # who sees a home-made design (rules.designs)
    # Home-made designs registered (004 L26-30), by id: a player's view holds his own and the
    # public ones.
    designs: dict[str, RegisteredDesign] = msgspec.field(default_factory=dict)
    production_settings: ProductionSettings = LEGACY_SETTINGS  # where umpires differ (5.7)
    map_name: str | None = None
    map_sha256: str | None = None
    # The dice-key subjects of this turn's ad hoc roll commands (`roll-for-red-1`): each
    # audience numbers its own (rules.core.roll_subject).
    roll_subjects: tuple[str, ...] = ()
    dice_rolled: int = 0
    notes: int = 0
    empires: dict[str, Empire] = msgspec.field(default_factory=dict)
    units: dict[str, Unit] = msgspec.field(default_factory=dict)
    colonies: dict[str, Colony] = msgspec.field(default_factory=dict)
    known_colonies: tuple[tuple[str, str], ...] = ()  # (owner, system) of colonies detected
    # Those of them whose command post shows (`colony_detected`, 004 L86-89); the others were
    # seen by his ships, which tell a colony and not whether it has a post.
    detected_posts: tuple[tuple[str, str], ...] = ()
    # This turn's orders, the last submission of each player (umpire only until revealed).
    submitted: dict[str, OrdersSubmitted] = msgspec.field(default_factory=dict)
    final: tuple[str, ...] = ()  # players whose orders of this turn are marked final
    last_submitted: dict[str, OrdersSubmitted] = msgspec.field(default_factory=dict)
    task_forces: dict[str, TaskForce] = msgspec.field(default_factory=dict)
    # What each player last saw of enemy ships, by hex (`rules.sightings`).
    sightings: dict[str, dict[str, Sighting]] = msgspec.field(default_factory=dict)
    # Each player's admirals without a command (`TaskForcesSet.reserve`, 004 section 6).
    reserve_admirals: dict[str, tuple[Admiral, ...]] = msgspec.field(default_factory=dict)
    assaults: dict[str, str] = msgspec.field(default_factory=dict)  # colony -> attacker, this turn
    devastated: tuple[str, ...] = ()  # planets never to be resettled (004 5.4)
    phase: str = "orders"  # "combat" after movement found battles; "assault" for colonies
    held: str | None = None  # why the umpire holds the turn, if he does
    deadline: datetime | None = None  # orders for this turn must be in by then (UTC)
    pending_battles: dict[str, Battle] = msgspec.field(default_factory=dict)
    seats: Seats = msgspec.field(default_factory=Seats)  # absences, holidays (issue 18)
    # The campaign rules (issue 20): "004" (the default), or "ft2", FT2's own campaign
    # (001 L1459-1614), whose state lives in `ft2` (`campaign/ft2/`).
    rules: str = "004"
    ft2: Ft2State | None = None
    version: int = 0  # the last branch version folded in
    events: int = 0  # how many events were folded (a player's view folds fewer)

    @property
    def orders(self) -> dict[str, tuple[Move, ...]]:
        """Each player's moves this turn."""
        return {p: s.moves for p, s in self.submitted.items()}

    @property
    def landings(self) -> dict[str, tuple[Landing, ...]]:
        """Each player's landings this turn."""
        return {p: s.landings for p, s in self.submitted.items()}

    @property
    def production(self) -> dict[str, tuple[ProductionOrder, ...]]:
        """Each player's production orders this turn."""
        return {p: s.production for p, s in self.submitted.items()}

    @property
    def research(self) -> dict[str, tuple[ResearchOrder, ...]]:
        """Each player's research orders this turn."""
        return {p: s.research for p, s in self.submitted.items()}

    @property
    def battle_locations(self) -> dict[str, tuple[Location, ...]]:
        """Each player's battle-location preferences this turn."""
        return {p: s.battle_locations for p, s in self.submitted.items()}

    @property
    def attacks(self) -> dict[str, tuple[Attack, ...]]:
        """Each player's attack orders this turn."""
        return {p: s.attacks for p, s in self.submitted.items()}

    @property
    def task_force_orders(self) -> dict[str, tuple[TaskForceOrder, ...]]:
        """Each player's task-force orders this turn."""
        return {p: s.task_forces for p, s in self.submitted.items()}

    @property
    def treasury_orders(self) -> dict[str, TreasuryOrder]:
        """Each player's spending of his starting treasury this turn."""
        return {p: s.treasury for p, s in self.submitted.items() if s.treasury is not None}

    @property
    def finished(self) -> bool:
        """Return whether the last turn has ended, or an FT2 scenario was judged early."""
        return self.turn > self.max_turns or (self.ft2 is not None and self.ft2.result is not None)


def evolve(state: CampaignState, ev: Event) -> CampaignState:
    """Return the state after one event."""
    route = _ROUTES.get(type(ev)) or _route(type(ev))
    if route is _CORE:  # nearly every event: straight on (issue 19)
        return _evolve_core(state, ev)
    if route is _SEATS:  # the seats (issue 18), beside what else the event does
        seats = evolve_seats(state.seats, ev)
        if seats is not state.seats:
            state = msgspec.structs.replace(state, seats=seats)
        return _evolve_core(state, ev)
    if isinstance(ev, CampaignRulesChosen):
        ft2 = (
            Ft2State(scenario=ev.scenario, scale=ev.scale, end_early=ev.end_early)
            if ev.rules == "ft2"
            else None
        )
        return msgspec.structs.replace(state, rules=ev.rules, ft2=ft2)
    # The FT2 campaign's own (issue 20, `campaign.ft2.state`).
    if state.ft2 is None:
        return state
    return msgspec.structs.replace(state, ft2=evolve_ft2(state.ft2, ev))


# How `evolve` folds each class of event, found once per class by `_route`: the event
# classes are few, and looking the class up costs less than asking isinstance of each group.
_CORE, _SEATS, _RULES, _FT2 = "core", "seats", "rules", "ft2"
_ROUTES: dict[type, str] = {}


def _route(cls: type) -> str:
    if issubclass(cls, SEAT_EVENTS):
        route = _SEATS
    elif issubclass(cls, CampaignRulesChosen):
        route = _RULES
    elif issubclass(cls, FT2_EVENTS):
        route = _FT2
    else:
        route = _CORE
    _ROUTES[cls] = route
    return route


def _evolve_core(state: CampaignState, ev: Event) -> CampaignState:
    match ev:  # the commonest first: the event classes are disjoint, so order is speed only
        case UnitMoved():
            moved = _moved(state.units[ev.unit], ev)
            return msgspec.structs.replace(state, units={**state.units, ev.unit: moved})
        case SystemExplored():
            return _system_explored(state, ev)
        case CampaignCreated():
            return msgspec.structs.replace(
                state,
                name=ev.name,
                created=True,
                players=ev.players,
                seed_commitment=ev.seed_commitment,
                dice_mode=ev.dice_mode,
                max_turns=ev.max_turns,
                absent=ev.absent,
                contested_planets=ev.contested_planets,
                battle_movement=ev.battle_movement,
                asteroid_motion=ev.asteroid_motion,
                morale_ties=ev.morale_ties,
                battle_rules=ev.battle_rules,
                design_visibility=ev.design_visibility,
                production_settings=ev.production or LEGACY_SETTINGS,
            )
        case MapChosen():
            return msgspec.structs.replace(state, map_name=ev.name, map_sha256=ev.sha256)
        case DesignRegistered():
            design = RegisteredDesign(
                id=ev.design,
                owner=ev.player,
                text=ev.text,
                rules=ev.rules,
                points=ev.points,
                public=ev.public,
            )
            return msgspec.structs.replace(state, designs={**state.designs, ev.design: design})
        case TurnEnded():
            last = {**state.last_submitted, **state.submitted}
            return msgspec.structs.replace(_next_turn(state, ev.turn + 1), last_submitted=last)
        case EmpireFounded():
            empires = {**state.empires, ev.empire.player: ev.empire}
            units = {**state.units, **{u.id: u for u in ev.units}}
            return msgspec.structs.replace(state, empires=empires, units=units)
        case OrdersSubmitted() | OrdersCommitted() | OrdersMarkedFinal():
            return _orders_handed_in(state, ev)
        case TaskForcesSet():
            return _task_forces_set(state, ev)
        case UnitRelocated() | ColonyAdjusted() | TurnHeld() | TurnReleased():
            return _umpires_hand(state, ev)
        case DeadlineSet():
            return msgspec.structs.replace(state, deadline=ev.deadline)
        case OfficerCasualty():
            return _officer_casualty(state, ev)
        case CaptainCasualty():
            return _captain_casualty(state, ev)
        case BattleRequested():
            pending = {**state.pending_battles, ev.battle.id: ev.battle}
            if ev.battle.colony is None:
                return msgspec.structs.replace(state, phase="combat", pending_battles=pending)
            attacker = ev.battle.sides[0].player
            assaults = {**state.assaults, ev.battle.colony: attacker}
            return msgspec.structs.replace(
                state, phase="assault", pending_battles=pending, assaults=assaults
            )
        case (
            FactoriesDestroyed() | ColonyConquered() | ColonyBombarded() | CommandPostEstablished()
        ):
            return _colony_fate(state, ev)
        case BattleFought():
            return _battle_fought(state, ev)
        case ShipsRepaired():
            return _ships_repaired(state, ev)
        case UnitsCaught():
            return msgspec.structs.replace(state, units=_without(state.units, ev.losses))
        case FightersResupplied():
            return msgspec.structs.replace(state, units=_with_units(state.units, ev.units))
        case StoresLost() | DecoysLost():
            return _lost_aboard(state, ev)
        case ProductionResolved():
            colonies = {**state.colonies, **{c.id: c for c in ev.colonies}}
            for colony in ev.colonies:
                if colony.population == 0:  # all emigrated: the colony is abandoned (ruling)
                    del colonies[colony.id]
            units = _with_units(state.units, (*ev.units, *ev.rearmed))
            empires = {**state.empires, ev.player: ev.empire}
            return msgspec.structs.replace(state, colonies=colonies, units=units, empires=empires)
        case ColonistsLanded():
            units = _without(state.units, [Loss(unit=ev.unit, count=ev.colonists)])
            colonies = {**state.colonies, ev.colony.id: ev.colony}
            return msgspec.structs.replace(state, units=units, colonies=colonies)
        case ColonyDetected():
            detected = tuple(sorted({*state.known_colonies, (ev.owner, ev.system)}))
            posts = tuple(sorted({*state.detected_posts, (ev.owner, ev.system)}))
            return msgspec.structs.replace(state, known_colonies=detected, detected_posts=posts)
        case ShipsSighted():
            return _sighted(state, ev.player, ev.sightings)
        case UnitsMerged() | UnitsSplit() | TreasurySpent():
            return _regrouped(state, ev)

        case DiceRolled():
            return msgspec.structs.replace(
                state,
                roll_subjects=state.roll_subjects + roll_subjects(ev.rolls),
                dice_rolled=state.dice_rolled + len(ev.rolls),
            )
        case SeedRevealed():
            return msgspec.structs.replace(state, revealed_seed=ev.seed)
        case UmpireNoted():
            return msgspec.structs.replace(state, notes=state.notes + 1)
        case _:
            return state


def _moved(unit: Unit, ev: UnitMoved) -> Unit:
    """The unit where its move ended, with its order and plot."""
    hex_ = ev.path[-1] if ev.path else unit.hex
    return msgspec.structs.replace(
        unit, hex=hex_, order=ev.order, plot=ev.plot, plot_until=ev.plot_until
    )


def _orders_handed_in(
    state: CampaignState, ev: OrdersSubmitted | OrdersCommitted | OrdersMarkedFinal
) -> CampaignState:
    """A player's orders of the turn (sealed: the umpire's), their commitment, and his
    "final" mark, which new orders (a new commitment) take back."""
    others = tuple(p for p in state.final if p != ev.player)
    match ev:
        case OrdersSubmitted():
            return msgspec.structs.replace(state, submitted={**state.submitted, ev.player: ev})
        case OrdersCommitted():
            if len(others) == len(state.final):
                return state  # he had not marked them final: nothing to take back
            return msgspec.structs.replace(state, final=others)
        case OrdersMarkedFinal():
            final = tuple(sorted((*others, ev.player))) if ev.final else others
            return msgspec.structs.replace(state, final=final)


def roll_subjects(rolls: Iterable[Roll]) -> tuple[str, ...]:
    """The dice-key subjects an umpire's roll used (one, unless hand-made), each once."""
    subjects: dict[str, None] = {}
    for roll in rolls:
        try:
            subjects[DiceKey.parse(roll.key).subject] = None
        except InvalidInputError:  # not a key this code made: it numbers nothing
            continue
    return tuple(subjects)


def _next_turn(state: CampaignState, turn: int) -> CampaignState:
    """Open turn `turn`: last turn's orders and battles are done with."""
    return msgspec.structs.replace(
        state,
        turn=turn,
        roll_subjects=(),
        submitted={},
        final=(),
        assaults={},
        held=None,
        deadline=None,
        phase="orders",
        pending_battles={},
        ft2=next_week(state.ft2) if state.ft2 is not None else None,
    )


def _umpires_hand(
    state: CampaignState, ev: UnitRelocated | ColonyAdjusted | TurnHeld | TurnReleased
) -> CampaignState:
    """The umpire's rulings and his control of the turn."""
    match ev:
        case UnitRelocated():
            unit = state.units.get(ev.unit)
            if unit is None:
                return state
            moved = msgspec.structs.replace(unit, hex=ev.hex, plot=(), plot_until=None)
            return msgspec.structs.replace(state, units={**state.units, ev.unit: moved})
        case ColonyAdjusted():
            colonies = {**state.colonies, ev.colony.id: ev.colony}
            if ev.colony.population == 0:
                del colonies[ev.colony.id]
            return msgspec.structs.replace(state, colonies=colonies)
        case TurnHeld():
            return msgspec.structs.replace(state, held=ev.reason)
        case TurnReleased():
            return msgspec.structs.replace(state, held=None)


def _task_forces_set(state: CampaignState, ev: TaskForcesSet) -> CampaignState:
    forces = {k: v for k, v in state.task_forces.items() if v.owner != ev.player}
    forces.update({tf.id: tf for tf in ev.task_forces})
    member = {uid: tf.id for tf in ev.task_forces for uid in tf.units}
    # Only the units whose task force changes are copied; the others stay as they are.
    changed = {
        uid: msgspec.structs.replace(u, task_force=force)
        for uid, u in state.units.items()
        if u.owner == ev.player and u.task_force != (force := member.get(uid))
    }
    units = {**state.units, **changed} if changed else state.units
    reserve = state.reserve_admirals
    if ev.reserve is not None:
        reserve = {p: r for p, r in reserve.items() if p != ev.player}
        if ev.reserve:
            reserve[ev.player] = ev.reserve
    return msgspec.structs.replace(state, task_forces=forces, units=units, reserve_admirals=reserve)


def _officer_casualty(state: CampaignState, ev: OfficerCasualty) -> CampaignState:
    force = state.task_forces.get(ev.task_force)
    if force is None:
        return state
    units = tuple(u for u in force.units if u in state.units)
    if ev.result == "dead":
        force = msgspec.structs.replace(force, units=units, admiral=None, admiral_out_until=None)
    elif ev.result == "injured":
        back = state.turn + ev.turns_out + 1
        force = msgspec.structs.replace(force, units=units, admiral_out_until=back)
    else:
        force = msgspec.structs.replace(force, units=units)
    return msgspec.structs.replace(state, task_forces={**state.task_forces, force.id: force})


def _captain_casualty(state: CampaignState, ev: CaptainCasualty) -> CampaignState:
    ship = state.units.get(ev.unit)
    if ship is None:
        return state
    if ev.result == "dead" and ev.new_captain in (1, 2, 3):
        ship = msgspec.structs.replace(ship, captain=ev.new_captain, captain_out_until=None)
    elif ev.result == "injured":  # out for this turn and `turns_out` more, as an admiral
        ship = msgspec.structs.replace(ship, captain_out_until=state.turn + ev.turns_out + 1)
    return msgspec.structs.replace(state, units={**state.units, ship.id: ship})


def _battle_fought(state: CampaignState, ev: BattleFought) -> CampaignState:
    units = dict(state.units)
    colonies = dict(state.colonies)
    lost_defences: dict[tuple[str, str], int] = {}
    for result in ev.results:
        defence = parse_defence_id(result.unit)
        if defence is not None:
            if result.fate == "destroyed":
                lost_defences[defence] = lost_defences.get(defence, 0) + 1
            continue
        ship = units.get(result.unit)  # a player's view holds only his own ships
        if ship is None:
            continue
        if result.fate == "destroyed":
            del units[result.unit]
            continue
        # A ship leaving the hex (a departure battle) jumps on to where it is bound: there
        # already, unless its owner is told otherwise (a `unit_moved` after this).
        jumped_to = result.to_hex if result.fate == "jumped" else None
        hex_ = jumped_to if jumped_to is not None else ship.hex
        # His own ship's result is told whole, to him too (None: an enemy's, not told).
        hull = ship.hull_lost + (result.hull_lost or 0)
        core = ship.core if result.core is None else (result.core if result.core.any else None)
        ship = msgspec.structs.replace(ship, hex=hex_, hull_lost=hull, core=core)
        if result.record is not None:  # 004 L186-191: carried into this turn's later battles
            ship = msgspec.structs.replace(ship, record=result.record, record_turn=state.turn)
        units[result.unit] = ship
    for (colony_id, kind), lost in lost_defences.items():
        colony = colonies.get(colony_id)
        if colony is None:
            continue
        if kind == "pdu":
            colony = msgspec.structs.replace(colony, pdus=max(colony.pdus - lost, 0))
        else:  # an advanced PDU fights as two superdreadnoughts: it stands while one does
            ships = max(2 * colony.advanced_pdbs - lost, 0)
            colony = msgspec.structs.replace(colony, advanced_pdbs=(ships + 1) // 2)
        colonies[colony_id] = colony
    pending = {k: v for k, v in state.pending_battles.items() if k != ev.battle.id}
    return msgspec.structs.replace(
        state,
        units=units,
        colonies=colonies,
        pending_battles=pending,
        task_forces=_pruned(state.task_forces, units),
    )


def _with_units(units: dict[str, Unit], changed: Iterable[Unit]) -> dict[str, Unit]:
    return {**units, **{u.id: u for u in changed}}


def _lost_aboard(state: CampaignState, ev: StoresLost | DecoysLost) -> CampaignState:
    """Freight lost from a tender's holds, or decoy drones lost from the ships that carried
    them."""
    if isinstance(ev, DecoysLost):
        lost = (state.units[u] for u in ev.units if u in state.units)
        units = _with_units(state.units, (msgspec.structs.replace(u, decoys=0) for u in lost))
        return msgspec.structs.replace(state, units=units)
    tender = state.units.get(ev.unit)
    if tender is None:
        return state
    tender = msgspec.structs.replace(tender, stores=ev.stores)
    return msgspec.structs.replace(state, units={**state.units, ev.unit: tender})


def _ships_repaired(state: CampaignState, ev: ShipsRepaired) -> CampaignState:
    units = dict(state.units)
    for uid in ev.units:
        if uid in units:
            unit = units[uid]
            record = None if unit.record is None else _repaired(unit.record)
            units[uid] = msgspec.structs.replace(unit, hull_lost=0, core=None, record=record)
    return msgspec.structs.replace(state, units=units)


def _repaired(record: ShipState) -> ShipState:
    """Return a record state with hull, armour and core repaired (004 L192-196); its systems
    and munitions are restored by the turn anyway, and its fighters are not (004 L197)."""
    return msgspec.structs.replace(
        record,
        hull_lost=tuple(0 for _ in record.hull_lost),
        armour_lost=0,
        out_of_control=0,
        power_core="ok",
        life_support=0,
    )


def _colony_fate(
    state: CampaignState,
    ev: FactoriesDestroyed | ColonyConquered | ColonyBombarded | CommandPostEstablished,
) -> CampaignState:
    """What attacks on colonies do to them (004 5.4), and a command post established."""
    match ev:
        case CommandPostEstablished():
            posted = state.colonies.get(ev.colony)
            if posted is None:
                return state
            posted = msgspec.structs.replace(posted, command_post=True)
            return msgspec.structs.replace(state, colonies={**state.colonies, ev.colony: posted})
        case FactoriesDestroyed():
            colony = state.colonies.get(ev.colony)
            if colony is None:
                return state
            razed = msgspec.structs.replace(colony, factories=0, robotic_factories=0)
            return msgspec.structs.replace(state, colonies={**state.colonies, ev.colony: razed})
        case ColonyConquered():
            # Both sides saw it fall: each knows who holds it now, the loser included, so he
            # can attack it to retake it (004 5.4).
            colonies = {**state.colonies, ev.colony.id: ev.colony}
            known = tuple(sorted({*state.known_colonies, (ev.colony.owner, ev.colony.system)}))
            return msgspec.structs.replace(state, colonies=colonies, known_colonies=known)
        case ColonyBombarded():
            return _bombarded(state, ev)


def _bombarded(state: CampaignState, ev: ColonyBombarded) -> CampaignState:
    colonies = dict(state.colonies)
    colony = colonies.get(ev.colony)
    if colony is not None:
        if ev.population > 0:
            colonies[ev.colony] = msgspec.structs.replace(
                colony, population=ev.population, bombarded=colony.bombarded + ev.killed
            )
        else:
            del colonies[ev.colony]
    devastated = state.devastated
    if ev.devastated:
        devastated = tuple(sorted({*state.devastated, ev.colony}))
    return msgspec.structs.replace(state, colonies=colonies, devastated=devastated)


def _system_explored(state: CampaignState, ev: SystemExplored) -> CampaignState:
    units = _without(state.units, ev.losses)
    empires = state.empires
    empire = empires.get(ev.player) if ev.explored else None
    # `explored` is kept sorted without repeats: a system is found, or goes in, at its place
    # (the same tuple as sorting them all again, without the sort or a search: issue 19).
    at = 0 if empire is None else bisect.bisect_left(empire.explored, ev.system)
    if empire is not None and empire.explored[at : at + 1] != (ev.system,):
        explored = (*empire.explored[:at], ev.system, *empire.explored[at:])
        empires = {**empires, ev.player: msgspec.structs.replace(empire, explored=explored)}
    state = msgspec.structs.replace(
        state, units=units, empires=empires, task_forces=_pruned(state.task_forces, units)
    )
    if not ev.explored:
        return state
    first = Sighting(
        hex=ev.hex,
        system=ev.system,
        turn=state.turn,
        ships=ev.enemy_ships,
        colonies=ev.enemy_colonies,
    )
    return _sighted(state, ev.player, [first])


def _regrouped(state: CampaignState, ev: UnitsMerged | UnitsSplit | TreasurySpent) -> CampaignState:
    """A player's units change outside the moves: merged, split, or bought with his starting
    treasury (with his empire)."""
    units = dict(state.units)
    if isinstance(ev, TreasurySpent):
        units.update({u.id: u for u in ev.units})
        empires = {**state.empires, ev.player: ev.empire}
        return msgspec.structs.replace(state, units=units, empires=empires)
    if isinstance(ev, UnitsMerged):
        into = units[ev.unit]
        total = into.count + sum(units[uid].count for uid in ev.merged)
        units[ev.unit] = msgspec.structs.replace(into, count=total)
        for uid in ev.merged:
            del units[uid]
        return msgspec.structs.replace(state, units=units)
    last = dict(state.empires[ev.player].last_ids) if ev.player in state.empires else {}
    for part in ev.parts:
        whole = units[part.unit]
        units[part.unit] = msgspec.structs.replace(whole, count=whole.count - part.count)
        units[part.new_unit] = msgspec.structs.replace(whole, id=part.new_unit, count=part.count)
        tag = part.new_unit.rpartition("-")[2]
        last[tag[:1]] = max(last.get(tag[:1], 0), int(tag[1:]))
    empires = state.empires
    if ev.player in empires:
        empire = msgspec.structs.replace(empires[ev.player], last_ids=last)
        empires = {**empires, ev.player: empire}
    return msgspec.structs.replace(state, units=units, empires=empires)


def _sighted(state: CampaignState, player: str, sightings: Iterable[Sighting]) -> CampaignState:
    """What a player saw: enemy ships kept by hex, enemy colonies (hidden ones included)
    added to the colonies he knows of."""
    sightings = tuple(sightings)
    before = state.sightings.get(player, {})
    seen = before  # copied at the first change only: most sightings change nothing (issue 19)
    for sighting in sightings:
        if sighting.ships:
            if seen.get(sighting.hex) != sighting:
                seen = dict(seen) if seen is before else seen
                seen[sighting.hex] = sighting
        elif sighting.hex in seen:
            seen = dict(seen) if seen is before else seen
            del seen[sighting.hex]
    found = {
        (c.partition(":")[0], sighting.system)
        for sighting in sightings
        if sighting.system is not None
        for c in sighting.colonies
    }
    # `known_colonies` is always sorted and without repeats: unchanged unless one was added.
    colonies = state.known_colonies
    if found and not found.issubset(colonies):
        colonies = tuple(sorted({*colonies, *found}))
    if seen is before and colonies is state.known_colonies and player in state.sightings:
        return state  # nothing new (most systems explored): the same values, not a copy
    return msgspec.structs.replace(
        state, sightings={**state.sightings, player: seen}, known_colonies=colonies
    )


def _pruned(forces: dict[str, TaskForce], units: dict[str, Unit]) -> dict[str, TaskForce]:
    """Drop lost ships from their task forces (the next one listed becomes the flagship)."""
    if not forces:
        return forces
    last = _LAST_PRUNED[0]
    if last[0] is forces and last[1] is units:
        return last[2]  # the same two dicts as the call before (see _LAST_PRUNED)
    gone = set().union(*(tf.units for tf in forces.values())).difference(units)
    if not gone:
        pruned = forces  # states are never changed in place, so they may share it
    else:
        pruned = {
            tf.id: tf
            if gone.isdisjoint(tf.units)
            else msgspec.structs.replace(tf, units=tuple(u for u in tf.units if u in units))
            for tf in forces.values()
        }
    _LAST_PRUNED[0] = (forces, units, pruned)
    return pruned


# The last `_pruned` call's arguments and result. A turn's explorations come in a run, each
# pruning the same task forces against the same units (most lose none): the answer is the
# one before. A state's dicts are never changed in place (nor these, held here so that no
# other dict can take their place), so the same two dicts always give the same answer.
_LAST_PRUNED: list[tuple[dict[str, TaskForce], dict[str, Unit], dict[str, TaskForce]]] = [
    ({}, {}, {})
]


def _without(units: dict[str, Unit], losses: Iterable[Loss]) -> dict[str, Unit]:
    """Return `units` less the ships lost (a whole unit, or some of a transport group).

    Without losses, `units` itself: states are never changed in place, so they may share it.
    """
    losses = tuple(losses)
    if not losses:
        return units
    remaining = dict(units)
    for loss in losses:
        unit = remaining.get(loss.unit)
        if unit is None:
            continue
        if loss.count >= unit.count:
            del remaining[loss.unit]
        else:
            remaining[loss.unit] = msgspec.structs.replace(unit, count=unit.count - loss.count)
    return remaining


def apply(state: CampaignState, recorded: RecordedEvent) -> CampaignState:
    """Fold one recorded event in, keeping track of the version reached."""
    state = evolve(state, recorded.event)
    return msgspec.structs.replace(state, version=recorded.version, events=state.events + 1)


def fold(events: Iterable[RecordedEvent], state: CampaignState | None = None) -> CampaignState:
    """Fold recorded events into a state, starting from `state` or from nothing."""
    result = state if state is not None else CampaignState()
    for recorded in events:
        result = apply(result, recorded)
    return result


# The events `evolve` leaves the state as it is: a fold from stored rows need not even decode
# them (issue 19). tests/test_events.py checks each against its golden fixture.
UNFOLDED = frozenset(
    {
        "attack_failed",
        "dice_reroll_ruled",
        "enemy_units_caught",
        "landing_failed",
        "map_loaded",
        "move_lapsed",
        "orders_revealed",
        "star_chart_published",
        "system_scouted",
        "unit_lost",
    }
)


def fold_stored(
    rows: Iterable[tuple[int, int, str, int, str]], state: CampaignState | None = None
) -> CampaignState:
    """Fold stored rows (position, version, type, schema version, payload) into a state, as
    `fold` folds them decoded.

    The same state as `fold`: the events `evolve` ignores (`UNFOLDED`) are counted, not
    decoded, a run of moves copies the units once, and the version and count are set once
    at the end.

    Raises:
        EventDecodeError: a payload that must be folded does not decode.
    """
    result = state if state is not None else CampaignState()
    rows = list(rows)
    if not rows:
        return result
    # A turn's moves come in a run: the units dict is copied once for the run, not per move.
    moved: dict[str, Unit] = {}
    decoders = _decoders()
    replace = msgspec.structs.replace
    for position, _, tag, schema, payload in rows:
        if tag == "unit_moved" and schema == UnitMoved.SCHEMA_VERSION:  # most rows: `_moved`
            try:
                move = _MOVE_DECODER.decode(payload)
            except (msgspec.ValidationError, msgspec.DecodeError):
                move = None  # the way below says what is wrong
            if move is not None:
                unit = moved.get(move.unit) or result.units[move.unit]
                moved[move.unit] = replace(
                    unit,
                    hex=move.path[-1] if move.path else unit.hex,
                    order=move.order,
                    plot=move.plot,
                    plot_until=move.plot_until,
                )
                continue
        if tag in UNFOLDED:
            continue
        found = decoders.get(tag)
        try:  # today's version straight; an older one, or a fault, as `decode_payload` says
            if found is None or found[0] != schema:
                raise msgspec.DecodeError
            ev = found[1].decode(payload)
        except (msgspec.ValidationError, msgspec.DecodeError):
            ev = decode_payload(position, tag, schema, payload)
        if isinstance(ev, UnitMoved):
            moved[ev.unit] = _moved(moved.get(ev.unit) or result.units[ev.unit], ev)
            continue
        if moved:
            result = replace(result, units={**result.units, **moved})
            moved = {}
        result = evolve(result, ev)
    if moved:
        result = msgspec.structs.replace(result, units={**result.units, **moved})
    return msgspec.structs.replace(result, version=rows[-1][1], events=result.events + len(rows))


_MOVE_DECODER = msgspec.json.Decoder(UnitMoved)


@functools.cache
def _decoders() -> dict[str, tuple[int, msgspec.json.Decoder[Event]]]:
    """Each event type's schema version today and its decoder (every type is registered
    when campaign.events is imported)."""
    return {
        tag: (cls.SCHEMA_VERSION, msgspec.json.Decoder(cls)) for tag, cls in EVENT_TYPES.items()
    }


def evolve_all(state: CampaignState, events: Iterable[Event]) -> CampaignState:
    """Return the state after `events`, folded one after another as `evolve` folds them (a
    decision's look-ahead, or `verify` folding the log again).

    A run of moves copies the units once, as `fold_stored` does: a turn's moves come in a run.
    """
    moved: dict[str, Unit] = {}
    for ev in events:
        if type(ev) is UnitMoved:
            moved[ev.unit] = _moved(moved.get(ev.unit) or state.units[ev.unit], ev)
            continue
        if moved:
            state = msgspec.structs.replace(state, units={**state.units, **moved})
            moved = {}
        state = evolve(state, ev)
    if moved:
        state = msgspec.structs.replace(state, units={**state.units, **moved})
    return state


_ENCODER = msgspec.json.Encoder(order="sorted")
_DECODER = msgspec.json.Decoder(CampaignState)


def encode_state(state: CampaignState) -> str:
    """Return a state as canonical JSON (for snapshots and `--json`)."""
    return _ENCODER.encode(state).decode()


def decode_state(text: str) -> CampaignState:
    """Read a state back from `encode_state`'s JSON."""
    return _DECODER.decode(text)
