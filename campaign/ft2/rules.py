"""FT2's campaign turn as pure decisions (001 L1471-1536, the Lafayette Incident L1538-1614).

`decide(state, ..., dice) -> [NewEvent]`, like the 004 rules beside it: orders committed
then revealed, hidden movement of fleet counters, encounters in star systems with their
long-range scans, secret decisions revealed together, repairs at facilities, and the
scenario's victory judged at the end of its last turn.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import msgspec

from campaign.dice import DiceKey, DiceSource, Roll
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import (
    Audience,
    NewEvent,
    OrdersCommitted,
    OrdersRevealed,
    canonical_json,
)
from campaign.ft2.events import (
    DecisionCommitted,
    DecisionMade,
    DecisionWritten,
    DecoysSpent,
    EncounterFound,
    EncounterResolved,
    FleetsMoved,
    Ft2OrdersSubmitted,
    LongRangeScan,
    ReinforcementsArrived,
)
from campaign.ft2.forces import catalogue, place
from campaign.ft2.model import (
    DECISIONS,
    BattleSide,
    Contact,
    Encounter,
    EncounterSide,
    Fleet,
    Ft2Battle,
    Ft2Orders,
    Ft2Ship,
    Ft2State,
    Scenario,
    battle_id,
    encounter_id,
)
from campaign.rules.orders import commitment, handed_in
from maps import Hex, StarMap, label, parse_label

SCAN_CLASSES = ("capital", "cruiser", "escort", "merchant")
MAX_REPAIR_ROLLS = 3  # 001 L1532
CATCH_FACE = 6  # 001 L1514: "a roll of 6 means that the aggressor has caught the fleeing enemy"
_NEIGHBOURS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


def payload_of(orders: Ft2Orders) -> bytes:
    """Return the canonical orders a commitment covers."""
    return canonical_json(orders)


def system_name(starmap: StarMap, hex_: str) -> str | None:
    """Return the name of the star system in a hex, if any."""
    system = starmap.system_at(parse_label(hex_))
    return system.name if system is not None else None


# ---------------------------------------------------------------- orders


def check_orders(
    view: Ft2State, starmap: StarMap, scenario: Scenario, orders: Ft2Orders
) -> list[str]:
    """Return every problem of a player's orders, checked against his own view only."""
    problems: list[str] = []
    mine = {k: f for k, f in view.fleets.items() if f.owner == orders.player}
    ships = {s.id: f for f in mine.values() for s in f.ships}
    moved: set[str] = set()
    for merge in orders.merges:
        into = mine.get(merge.into)
        if into is None:
            problems.append(f"merge: {orders.player} has no fleet {merge.into!r}")
            continue
        for fid in merge.fleets:
            other = mine.get(fid)
            if other is None or other.hex != into.hex or other.fixed or into.fixed:
                problems.append(
                    f"merge: {fid!r} is not a fleet of yours in {into.hex} that can merge"
                )
    for split in orders.splits:
        fleet = mine.get(split.fleet)
        if fleet is None:
            problems.append(f"split: {orders.player} has no fleet {split.fleet!r}")
            continue
        ids = {s.id for s in fleet.ships}
        if not split.ships or not set(split.ships) <= ids or set(split.ships) == ids:
            problems.append(f"split: {split.fleet} must keep some ships and give some of its own")
        if split.drones > fleet.drones:
            problems.append(
                f"split: {split.fleet} carries {fleet.drones} drones, not {split.drones}"
            )
        if split.to is not None:
            detached = msgspec.structs.replace(
                fleet, ships=tuple(s for s in fleet.ships if s.id in split.ships)
            )
            problems += _move_problem(detached, split.to, starmap, scenario, split.fleet)
    for move in orders.moves:
        fleet = mine.get(move.fleet)
        if fleet is None:
            problems.append(f"move: {orders.player} has no fleet {move.fleet!r}")
            continue
        if move.fleet in moved:
            problems.append(f"move: {move.fleet} is moved twice")
        moved.add(move.fleet)
        problems += _move_problem(fleet, move.to, starmap, scenario, move.fleet)
    for fleet in mine.values():
        if fleet.must_leave and fleet.id not in moved:
            problems.append(
                f"{fleet.id} withdrew and must leave {fleet.hex} on this move (001 L1512): "
                "give it a move"
            )
    problems += _check_docks(orders, ships, moved, starmap, scenario)
    problems += _check_decoys(orders, mine)
    return problems


def _check_docks(
    orders: Ft2Orders,
    ships: dict[str, Fleet],
    moved: set[str],
    starmap: StarMap,
    scenario: Scenario,
) -> list[str]:
    problems: list[str] = []
    for dock in orders.docks:
        fleet = ships.get(dock.ship)
        if fleet is None:
            problems.append(f"dock: {orders.player} has no ship {dock.ship!r}")
            continue
        system = system_name(starmap, fleet.hex)
        facility = scenario.facility(system) if system else None
        if facility is None or not (facility.repair or facility.replenish):
            problems.append(f"dock: {dock.ship} is not at a naval facility (001 L1530)")
        if fleet.id in moved:
            problems.append(f"dock: {dock.ship}'s fleet moves this turn; it cannot also dock")
        if len(dock.systems) > MAX_REPAIR_ROLLS:
            problems.append(f"dock: at most {MAX_REPAIR_ROLLS} systems a week (001 L1532)")
    return problems


def _check_decoys(orders: Ft2Orders, mine: dict[str, Fleet]) -> list[str]:
    problems: list[str] = []
    for decoy in orders.decoys:
        fleet = mine.get(decoy.fleet)
        if fleet is None or decoy.drones > fleet.drones:
            problems.append(f"decoys: {decoy.fleet!r} does not carry {decoy.drones} drones (A38)")
        elif decoy.drones > len(fleet.ships):
            problems.append(
                f"decoys: at most one drone per real ship, {len(fleet.ships)} in "
                f"{decoy.fleet} (001 L959)"
            )
    return problems


def ftl_works(ship: Ft2Ship) -> bool:
    """Return whether a ship can jump on its own: an FTL drive, not lost."""
    return ship.ftl and (ship.record is None or ship.record.ftl == "ok")


def towing_problem(fleet: Fleet) -> str | None:
    """Return why a fleet cannot jump, or None: its ships without a working FTL drive must be
    carried by its tugs or tenders, each up to its own MASS (001 L1152-1156)."""
    carried = [s for s in fleet.ships if not ftl_works(s)]
    if not carried:
        return None
    tugs = [s for s in fleet.ships if ftl_works(s) and catalogue(s.design).hull == "tug"]
    need, room = sum(s.mass for s in carried), sum(s.mass for s in tugs)
    if need <= room:
        return None
    names = ", ".join(s.id for s in carried)
    return (
        f"has ships without a working FTL drive ({names}, MASS {need}) and tugs or tenders "
        f"for MASS {room} (001 L1152-1156)"
    )


def move_problems(fleet: Fleet, to: str, starmap: StarMap, scenario: Scenario) -> list[str]:
    """Return why submission refuses a move of `fleet` to `to` (a hex label or a system's
    name); none: it is accepted. The web page's reach asks this very check."""
    return _move_problem(fleet, to, starmap, scenario, fleet.id)


def _move_problem(
    fleet: Fleet, to: str, starmap: StarMap, scenario: Scenario, name: str
) -> list[str]:
    if fleet.fixed:
        return [f"move: {name} is a non-FTL System Defence force and cannot move (001 L1550)"]
    problem = towing_problem(fleet)
    if problem:
        return [f"move: {name} {problem}"]
    try:
        target = place(starmap, to)
    except InvalidInputError as exc:
        return [f"move: {name}: {exc}"]
    distance = parse_label(fleet.hex).distance(parse_label(target))
    if distance > scenario.move_hexes:
        return [
            f"move: {name} from {fleet.hex} to {target} is {distance} hexes; a fleet moves up "
            f"to {scenario.move_hexes} (001 L1477)"
        ]
    if fleet.must_leave and target == fleet.hex:
        return [f"move: {name} withdrew and must leave {fleet.hex} (001 L1512)"]
    return []


def decide_submit(
    state: Ft2State,
    turn: int,
    view: Ft2State,
    starmap: StarMap,
    scenario: Scenario,
    orders: Ft2Orders,
    nonce: str,
    sequence: int = 0,
) -> list[NewEvent]:
    """Record a player's plotted moves (001 L1481): sealed and committed for him; everyone is
    told once that he handed in orders (`handed_in`).

    Raises:
        IllegalCommandError: the turn is not taking orders.
        InvalidInputError: every problem with the orders, together.
    """
    if state.phase != "orders":
        raise IllegalCommandError(
            f"turn {turn} is past its orders: encounters or battles wait (umpire encounters list)"
        )
    if orders.turn != turn:
        raise InvalidInputError(
            f"these orders are for turn {orders.turn}; turn {turn} is in progress"
        )
    problems = check_orders(view, starmap, scenario, orders)
    if problems:
        raise InvalidInputError("; ".join(problems))
    sealed = Ft2OrdersSubmitted(orders=orders, nonce=nonce, sequence=sequence)
    committed = OrdersCommitted(
        player=orders.player, turn=turn, sha256=commitment(nonce, payload_of(orders))
    )
    already = orders.player in state.orders  # his rivals are told once, not counted to
    return [
        NewEvent(sealed, Audience.players_([orders.player]), turn, actor=orders.player),
        NewEvent(committed, Audience.players_([orders.player]), turn, actor=orders.player),
        *handed_in(orders.player, turn, already=already, actor=orders.player),
    ]


# ---------------------------------------------------------------- movement and encounters


def decide_movement(
    state: Ft2State, turn: int, players: tuple[str, ...], starmap: StarMap, scenario: Scenario
) -> list[NewEvent]:
    """Reveal the orders, carry out every player's splits, merges and moves at once, and
    find the encounters: opposing forces ending the turn in one star system (001 L1489, A24),
    with each side's long-range scan of the other (001 L1491-1510)."""
    batch: list[NewEvent] = []
    for player in sorted(state.orders):
        orders = state.orders[player]
        nonce = state.nonces.get(player, "")
        payload = payload_of(orders)
        revealed = OrdersRevealed(
            player=player,
            turn=turn,
            sha256=commitment(nonce, payload),
            payload=payload.decode(),
            nonce=nonce,
        )
        batch.append(NewEvent(revealed, Audience.players_([player]), turn))
    fleets = dict(state.fleets)
    decoys: dict[str, int] = {}
    for player in players:
        orders = state.orders.get(player, Ft2Orders(player=player, turn=turn))
        moved, gone = _carry_out(state, fleets, orders, turn, starmap)
        for decoy in orders.decoys:
            decoys[decoy.fleet] = decoy.drones
        if moved or gone:
            event = FleetsMoved(player=player, fleets=tuple(moved), gone=tuple(gone))
            batch.append(NewEvent(event, Audience.players_([player]), turn))
        arrived = _reinforcements(scenario, state.sides.get(player), player, turn, starmap)
        if arrived:
            fleets.update({f.id: f for f in arrived})
            came = ReinforcementsArrived(player=player, fleets=arrived)
            batch.append(NewEvent(came, Audience.players_([player]), turn))
    batch += _encounters(fleets, decoys, turn, players, starmap)
    return batch


def _reinforcements(
    scenario: Scenario, side: str | None, player: str, turn: int, starmap: StarMap
) -> tuple[Fleet, ...]:
    """The fleets the scenario brings `player`'s side at the end of this turn's moves."""
    fleets = []
    due = [r for r in scenario.reinforcements if r.side == side and r.turn == turn]
    for number, arrival in enumerate(due, start=1):
        fid = f"{player}-R{turn}-{number}"
        ships: list[Ft2Ship] = []
        for line in arrival.ships:
            sheet = catalogue(line.design)
            for _ in range(line.count):
                ships.append(
                    Ft2Ship(
                        id=f"{fid}S{len(ships) + 1}",
                        design=line.design,
                        hull_class=sheet.hull_class,
                        mass=sheet.mass,
                        ftl=sheet.ftl,
                    )
                )
        hex_ = place(starmap, arrival.hex)
        fleets.append(
            Fleet(
                id=fid,
                owner=player,
                hex=hex_,
                ships=tuple(ships),
                drones=arrival.drones,
                arrived=turn,
            )
        )
    return tuple(fleets)


def _carry_out(
    state: Ft2State, fleets: dict[str, Fleet], orders: Ft2Orders, turn: int, starmap: StarMap
) -> tuple[list[Fleet], list[str]]:
    """Apply one player's merges, splits and moves to `fleets`; return what changed."""
    changed: dict[str, Fleet] = {}
    gone: list[str] = []
    for merge in orders.merges:
        into = changed.get(merge.into, fleets[merge.into])
        for fid in merge.fleets:
            other = fleets.pop(fid)
            into = msgspec.structs.replace(
                into, ships=into.ships + other.ships, drones=into.drones + other.drones
            )
            changed.pop(fid, None)
            gone.append(fid)
        fleets[into.id] = changed[into.id] = into
    number = state.next_fleet.get(orders.player, 1)
    for split in orders.splits:
        fleet = changed.get(split.fleet, fleets[split.fleet])
        keep = tuple(s for s in fleet.ships if s.id not in split.ships)
        leave = tuple(s for s in fleet.ships if s.id in split.ships)
        new_id = f"{orders.player}-F{number}"
        number += 1
        fleets[fleet.id] = changed[fleet.id] = msgspec.structs.replace(
            fleet, ships=keep, drones=fleet.drones - split.drones
        )
        new = msgspec.structs.replace(fleet, id=new_id, ships=leave, drones=split.drones)
        if split.to is not None:
            new = _moved(new, place(starmap, split.to), turn)
        fleets[new_id] = changed[new_id] = new
    moves = {m.fleet: place(starmap, m.to) for m in orders.moves}
    for fid, fleet in list(fleets.items()):
        if fleet.owner != orders.player:
            continue
        if fid in moves:
            fleets[fid] = changed[fid] = _moved(fleet, moves[fid], turn)
        elif fleet.must_leave:  # ordered to leave and given no move: back where it came from
            fleets[fid] = changed[fid] = _moved(fleet, _way_out(fleet, starmap), turn)
    return sorted(changed.values(), key=lambda f: f.id), gone


def _moved(fleet: Fleet, to: str, turn: int) -> Fleet:
    if to == fleet.hex:
        return fleet
    return msgspec.structs.replace(
        fleet, hex=to, came_from=fleet.hex, arrived=turn, must_leave=False
    )


def _way_out(fleet: Fleet, starmap: StarMap) -> str:
    """Where a withdrawing fleet given no move goes: where it came from, else the first hex
    beside it on the map (docs/rulings.md)."""
    if fleet.came_from is not None and fleet.came_from != fleet.hex:
        return fleet.came_from
    cell = parse_label(fleet.hex)
    for dq, dr in _NEIGHBOURS:
        step = Hex(cell.q + dq, cell.r + dr)
        if starmap.contains(step):
            return label(step)
    return fleet.hex


def scan(fleets: list[Fleet], drones: int) -> tuple[Contact, ...]:
    """Return what a long-range scan makes of a force: its contacts by basic class (001
    L1491). A weasel boat shows the class its decoy emits (001 L961-969), each decoy drone
    an escort (001 L957)."""
    counts = dict.fromkeys(SCAN_CLASSES, 0)
    for fleet in fleets:
        for ship in fleet.ships:
            counts[_signature(ship)] += 1
    counts["escort"] += drones
    return tuple(Contact(c, n) for c, n in counts.items() if n)


def _signature(ship: Ft2Ship) -> str:
    sheet = catalogue(ship.design)
    states = {s.id: s.status for s in ship.record.systems} if ship.record else {}
    for system in sheet.systems:
        if system.kind.startswith("weasel_") and states.get(system.id, "ok") == "ok":
            return system.kind.removeprefix("weasel_")
    return ship.hull_class


def _encounters(
    fleets: dict[str, Fleet],
    decoys: dict[str, int],
    turn: int,
    players: tuple[str, ...],
    starmap: StarMap,
) -> list[NewEvent]:
    by_hex: dict[str, list[Fleet]] = {}
    for fleet in fleets.values():
        by_hex.setdefault(fleet.hex, []).append(fleet)
    batch: list[NewEvent] = []
    for hex_ in sorted(by_hex):
        system = system_name(starmap, hex_)
        here = by_hex[hex_]
        owners = [p for p in players if any(f.owner == p for f in here)]
        if system is None or len(owners) < 2:
            continue  # A24: only co-location in a star system's hex at the turn's end
        first = {p: min((f.arrived, not f.fixed) for f in here if f.owner == p) for p in owners}
        occupant = min(owners, key=lambda p: first[p])
        order = [occupant] + [p for p in owners if p != occupant]
        sides = tuple(
            EncounterSide(player=p, fleets=tuple(sorted(f.id for f in here if f.owner == p)))
            for p in order
        )
        encounter = Encounter(
            id=encounter_id(turn, hex_),
            system=system,
            hex=hex_,
            occupant=occupant,
            sides=(sides[0], sides[1]),
        )
        both = Audience.players_(list(order))
        fleet_owners = {f.id: f.owner for f in here}
        batch += _told_apart(EncounterFound(encounter=encounter), order, fleet_owners, turn)
        for side in encounter.sides:
            own = [fleets[f] for f in side.fleets]
            released = 0
            for fleet in own:
                drones = min(decoys.get(fleet.id, 0), fleet.drones)
                if drones and fleet.arrived == turn:  # released on emerging (001 L1499)
                    released += drones
                    spent = DecoysSpent(player=side.player, fleet=fleet.id, drones=drones)
                    batch.append(NewEvent(spent, Audience.players_([side.player]), turn))
            other = next(p for p in order if p != side.player)
            seen = LongRangeScan(
                encounter=encounter.id,
                scanner=other,
                scanned=side.player,
                contacts=scan(own, released),
            )
            batch.append(NewEvent(seen, both, turn))
    return batch


def _told_apart(
    event: EncounterFound | EncounterResolved,
    players: Sequence[str],
    owners: dict[str, str],
    turn: int,
) -> list[NewEvent]:
    """Tell each player an encounter's event naming only his own fleets and ships (001 L1475:
    the counters are known to their owner alone; a battle shows the rest, starting with
    bogeys, 001 L1512), and the umpire the whole of it."""
    told: list[NewEvent] = []
    for player in players:
        if isinstance(event, EncounterFound):
            sides = tuple(
                s if s.player == player else msgspec.structs.replace(s, fleets=())
                for s in event.encounter.sides
            )
            encounter = msgspec.structs.replace(event.encounter, sides=(sides[0], sides[1]))
            his: EncounterFound | EncounterResolved = EncounterFound(encounter=encounter)
        else:
            leaving = tuple(f for f in event.leaving if owners.get(f) == player)
            battle = event.battle
            if battle is not None:  # the enemy's true ships are for the table to show
                seen = tuple(
                    b if b.player == player else msgspec.structs.replace(b, ships=())
                    for b in battle.sides
                )
                battle = msgspec.structs.replace(battle, sides=(seen[0], seen[1]))
            his = msgspec.structs.replace(event, leaving=leaving, battle=battle)
        told.append(NewEvent(his, Audience.players_([player]), turn))
    told.append(NewEvent(event, Audience.umpire_only(), turn))
    return told


# ---------------------------------------------------------------- decisions


def decision_hash(nonce: str, encounter: str, decision: str) -> str:
    """Return SHA-256(nonce || encounter/decision): the commitment to a decision."""
    return hashlib.sha256(bytes.fromhex(nonce) + f"{encounter}/{decision}".encode()).hexdigest()


def decide_decision(
    state: Ft2State,
    turn: int,
    player: str,
    encounter: str,
    decision: str,
    nonce: str,
    sequence: int = 0,
) -> list[NewEvent]:
    """Write down a player's secret decision for an encounter (001 L1512); a later one
    replaces it until the encounters are resolved.

    Raises:
        IllegalCommandError: no such encounter of his awaits a decision.
        InvalidInputError: not fight, withdraw or stand-off.
    """
    if decision not in DECISIONS:
        raise InvalidInputError(f"decision {decision!r} must be one of {', '.join(DECISIONS)}")
    found = state.encounters.get(encounter)
    if found is None or player not in (s.player for s in found.sides):
        waiting = ", ".join(
            k for k, e in sorted(state.encounters.items()) if player in (s.player for s in e.sides)
        )
        raise IllegalCommandError(
            f"no encounter {encounter!r} of {player}'s awaits a decision "
            f"(waiting: {waiting or 'none'})"
        )
    made = DecisionMade(
        player=player, encounter=encounter, decision=decision, nonce=nonce, sequence=sequence
    )
    committed = DecisionCommitted(
        player=player, encounter=encounter, sha256=decision_hash(nonce, encounter, decision)
    )
    # His commitment is his; his rivals are told once that he wrote a decision down, so
    # that nobody counts how often he changed his mind (as for orders, `handed_in`).
    batch = [
        NewEvent(made, Audience.players_([player]), turn, actor=player),
        NewEvent(committed, Audience.players_([player]), turn, actor=player),
    ]
    if player not in state.decisions.get(encounter, {}):
        written = DecisionWritten(player=player, encounter=encounter)
        batch.append(NewEvent(written, Audience.everyone(), turn, actor=player))
    return batch


def decide_encounters(state: Ft2State, turn: int, dice: DiceSource) -> list[NewEvent]:
    """Reveal every encounter's decisions together and apply the table (001 L1512-1522,
    A25): a player who wrote nothing stands off (docs/rulings.md)."""
    batch: list[NewEvent] = []
    for eid in sorted(state.encounters):
        encounter = state.encounters[eid]
        made = state.decisions.get(eid, {})
        salts = state.decision_nonces.get(eid, {})
        players = [s.player for s in encounter.sides]
        decisions = [made.get(p, "stand-off") for p in players]
        outcome, leaving, battle, rolls = _table(state, encounter, decisions, turn, dice)
        resolved = EncounterResolved(
            encounter=eid,
            players=tuple(players),
            decisions=tuple(decisions),
            nonces=tuple(salts.get(p, "") for p in players),
            outcome=outcome,
            leaving=leaving,
            battle=battle,
            rolls=rolls,
        )
        owners = {f.id: f.owner for f in state.fleets.values()}
        batch += _told_apart(resolved, players, owners, turn)
    return batch


def _table(
    state: Ft2State, encounter: Encounter, decisions: list[str], turn: int, dice: DiceSource
) -> tuple[str, tuple[str, ...], Ft2Battle | None, tuple[Roll, ...]]:
    """One encounter's outcome: (outcome, fleets that must leave, battle, dice)."""
    sides = encounter.sides
    mobile = [[f for f in s.fleets if not state.fleets[f].fixed] for s in sides]
    fixed = [[f for f in s.fleets if state.fleets[f].fixed] for s in sides]
    # A25: non-FTL defences cannot withdraw: they stand off while the FTL fleets leave.
    withdrawing = [d == "withdraw" for d in decisions]
    staying = [fixed[i] if withdrawing[i] else sides[i].fleets for i in range(2)]
    stays_as = ["stand-off" if withdrawing[i] else decisions[i] for i in range(2)]
    rolls: tuple[Roll, ...] = ()
    leaving: list[str] = []
    outcome = "stand-off"
    for i in range(2):
        if not withdrawing[i]:
            continue
        j = 1 - i
        if decisions[j] == "fight" and mobile[i]:
            key = DiceKey(turn=turn, phase="encounter", subject=f"{encounter.id}.catch")
            roll = dice.roll(key, 6)
            rolls += (roll,)
            if roll.value >= CATCH_FACE:  # 001 L1514: caught before it could jump
                staying[i] = sides[i].fleets
                # A25: with its non-FTL defences there, the side cannot flee: it stands.
                stays_as[i] = "stand-off" if fixed[i] else "withdraw"
                outcome = "caught"
                continue
            outcome = "escaped"
        elif outcome == "stand-off":
            outcome = "both-withdraw" if all(withdrawing) else "withdraw"
        leaving += mobile[i]
    fights = "fight" in stays_as
    if not fights or not staying[0] or not staying[1]:
        return outcome, tuple(leaving), None, rolls
    battle = Ft2Battle(
        id=battle_id(turn, encounter.hex),  # the encounter's turn and hex (docs/rulings.md)
        encounter=encounter.id,
        system=encounter.system,
        hex=encounter.hex,
        sides=(
            _battle_side(state, sides[0].player, staying[0], stays_as[0]),
            _battle_side(state, sides[1].player, staying[1], stays_as[1]),
        ),
    )
    if not battle.sides[0].ships or not battle.sides[1].ships:
        return outcome, tuple(leaving), None, rolls
    return ("battle" if outcome == "stand-off" else outcome), tuple(leaving), battle, rolls


def _battle_side(state: Ft2State, player: str, fleets: Sequence[str], decision: str) -> BattleSide:
    docked = {d.ship for d in state.orders.get(player, Ft2Orders(player=player, turn=0)).docks}
    ships = tuple(
        s.id for f in fleets for s in state.fleets[f].ships if s.id not in docked
    )  # 001 L1532: a docked ship cannot fight
    return BattleSide(player=player, decision=decision, ships=ships)


class DecisionLedger:
    """`umpire verify`'s check of encounter decisions (001 L1512): each revealed decision and
    nonce must open the commitment its player made public before the reveal."""

    # The events `record` looks at: the others it passes over.
    kinds: tuple[type, ...] = (DecisionCommitted, EncounterResolved)

    def __init__(self) -> None:
        self.commitments: dict[tuple[str, str], str] = {}
        self.problems: list[str] = []
        self.opened = 0

    def record(self, position: int, ev: object) -> None:
        """Note a commitment, or check a reveal against the commitments before it."""
        if isinstance(ev, DecisionCommitted):
            self.commitments[(ev.player, ev.encounter)] = ev.sha256  # the last one counts
            return
        if not isinstance(ev, EncounterResolved):
            return
        for player, decision, nonce in zip(ev.players, ev.decisions, ev.nonces, strict=True):
            committed = self.commitments.get((player, ev.encounter))
            if not nonce and committed is None:
                continue  # nothing written down: he stood off by default
            try:
                digest = decision_hash(nonce, ev.encounter, decision)
            except ValueError:
                digest = ""
            self.opened += 1
            if digest != committed:
                self.problems.append(
                    f"position {position}: {player}'s decision for encounter {ev.encounter} "
                    "does not match the commitment he made before it was revealed"
                )
