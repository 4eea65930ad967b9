"""A player's FT2 map and orders desk for the web page (issue 20), from his own view alone.

`build_desk` gathers what his interactive map and orders editor show: the star systems and
their facilities, his fleet counters with their ships (001 L1475: only their owner knows
what a counter holds) and the hexes each can reach this turn (001 L1477, checked as
submission checks a move), the encounters he is in with the long-range scans he was told
of (001 L1491-1510), the battles he fought, and his orders so far. Nothing here looks at
another player's events: the caller folds the view from his events only.
`desk_svg` draws the same picture as the map the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from campaign.errors import InvalidInputError
from campaign.ft2 import rules
from campaign.ft2.forces import place
from campaign.ft2.model import Contact, DecisionOrder, Fleet, Ft2Orders, Ft2State, Scenario
from maps import Marker, StarMap, label, parse_label
from maps.svg import Arrow, Region, to_svg

FLEET_COLOUR = "#ffd27f"
DEFENCE_COLOUR = "#9ad0ff"
SCAN_COLOUR = "#ff8a80"
FACILITY_STROKE = "#7fe0a0"
ENCOUNTER_STROKE = "#ff5050"
MAP_KEY = (
    (FLEET_COLOUR, "your fleet"),
    (DEFENCE_COLOUR, "your System Defence"),
    (SCAN_COLOUR, "your scan's contacts"),
    (FACILITY_STROKE, "naval facility"),
    (ENCOUNTER_STROKE, "encounter"),
)


class DeskShip(msgspec.Struct, frozen=True, kw_only=True):
    """One of his ships: its design, class and MASS, and whether it carries damage."""

    id: str
    design: str
    hull_class: str
    mass: int
    ftl: bool
    damaged: bool


class DeskFleet(msgspec.Struct, frozen=True, kw_only=True):
    """One of his fleet counters, with where it can end this turn's move.

    `reach`: every hex a move to which submission accepts; `problem`: why it cannot move at
    all (a fixed System Defence, or ships without FTL its tugs cannot carry).
    """

    id: str
    hex: str
    system: str | None
    ships: tuple[DeskShip, ...]
    drones: int
    fixed: bool = False
    must_leave: bool = False
    facility: bool = False  # at a naval facility: its ships may dock (001 L1530)
    reach: tuple[str, ...] = ()
    problem: str | None = None


class DeskSystem(msgspec.Struct, frozen=True, kw_only=True):
    """A star system of the map, and its naval facility if it has one."""

    name: str
    hex: str
    colour: str
    facility: str = ""  # e.g. "repair, replenish, fighters"; empty: none


class DeskScan(msgspec.Struct, frozen=True, kw_only=True):
    """A long-range scan he was told of: who scanned whom, and what it showed."""

    scanner: str
    contacts: tuple[Contact, ...]


class DeskEncounter(msgspec.Struct, frozen=True, kw_only=True):
    """An encounter he is in, awaiting decisions (001 L1512-1520)."""

    id: str
    system: str
    hex: str
    occupant: str
    players: tuple[str, ...]
    scans: tuple[DeskScan, ...]
    decision: str | None = None  # his own, once written down


class Ft2Desk(msgspec.Struct, frozen=True, kw_only=True):
    """Everything his FT2 map and orders editor need, from his own view."""

    rules: str = "ft2"
    player: str
    turn: int
    phase: str
    title: str
    move_hexes: int
    systems: tuple[DeskSystem, ...]
    fleets: tuple[DeskFleet, ...]
    encounters: tuple[DeskEncounter, ...]
    battles: tuple[str, ...] = ()  # the battles his ships fought, oldest first
    document: dict[str, object] = msgspec.field(default_factory=dict)  # his orders' fields
    received: tuple[str, ...] = ()  # his orders recorded this turn, in words
    deadline: str | None = None
    now: str = ""
    finished: bool = False


def _facility_text(scenario: Scenario, system: str | None) -> str:
    facility = scenario.facility(system) if system else None
    if facility is None:
        return ""
    kinds = [k for k in ("repair", "replenish", "fighters") if getattr(facility, k)]
    return ", ".join(kinds)


def reach(fleet: Fleet, starmap: StarMap, scenario: Scenario) -> tuple[str, ...]:
    """Every hex a move of `fleet` to is accepted (the check submission makes, 001 L1477)."""
    here = parse_label(fleet.hex)
    return tuple(
        label(cell)
        for cell in starmap.cells()
        if here.distance(cell) <= scenario.move_hexes
        and cell != here
        and not rules.move_problems(fleet, label(cell), starmap, scenario)
    )


def _desk_fleet(fleet: Fleet, starmap: StarMap, scenario: Scenario, view: Ft2State) -> DeskFleet:
    system = rules.system_name(starmap, fleet.hex)
    facility = scenario.facility(system) if system else None
    problem = None
    if fleet.fixed:
        problem = "a non-FTL System Defence force: it stays (001 L1550)"
    elif (towing := rules.towing_problem(fleet)) is not None:
        problem = towing
    moving = view.phase == "orders" and problem is None
    return DeskFleet(
        id=fleet.id,
        hex=fleet.hex,
        system=system,
        ships=tuple(
            DeskShip(
                id=s.id,
                design=s.design,
                hull_class=s.hull_class,
                mass=s.mass,
                ftl=s.ftl,
                damaged=s.record is not None,
            )
            for s in fleet.ships
        ),
        drones=fleet.drones,
        fixed=fleet.fixed,
        must_leave=fleet.must_leave,
        facility=facility is not None and (facility.repair or facility.replenish),
        reach=reach(fleet, starmap, scenario) if moving else (),
        problem=problem,
    )


def _desk_encounters(view: Ft2State, player: str) -> tuple[DeskEncounter, ...]:
    found = []
    for eid in sorted(view.encounters):
        encounter = view.encounters[eid]
        players = tuple(s.player for s in encounter.sides)
        scans = tuple(
            DeskScan(scanner=p, contacts=view.scans[f"{eid}/{p}"])
            for p in players
            if f"{eid}/{p}" in view.scans
        )
        found.append(
            DeskEncounter(
                id=eid,
                system=encounter.system,
                hex=encounter.hex,
                occupant=encounter.occupant,
                players=players,
                scans=scans,
                decision=view.decisions.get(eid, {}).get(player),
            )
        )
    return tuple(found)


def build_desk(
    view: Ft2State,
    turn: int,
    finished: bool,
    starmap: StarMap,
    scenario: Scenario,
    player: str,
    battles: Sequence[str] = (),
) -> Ft2Desk:
    """Return `player`'s map and orders desk from his view (`view`, folded from his events
    only), the map and the scenario; `battles`: the battles he fought (his events)."""
    mine = sorted((f for f in view.fleets.values() if f.owner == player), key=lambda f: f.id)
    sent = view.orders.get(player)
    document = sent if sent is not None else Ft2Orders(player=player, turn=turn)
    if view.phase == "encounters":  # once encounters are found, orders are decisions only
        made = tuple(
            DecisionOrder(encounter=eid, decision=view.decisions[eid][player])
            for eid in sorted(view.encounters)
            if player in view.decisions.get(eid, {})
        )
        document = Ft2Orders(player=player, turn=turn, decisions=made)
        sent = document if made else None
    return Ft2Desk(
        player=player,
        turn=turn,
        phase=view.phase,
        title=scenario.title,
        move_hexes=scenario.move_hexes,
        systems=tuple(
            DeskSystem(
                name=s.name,
                hex=label(s.hex),
                colour=s.colour.value,
                facility=_facility_text(scenario, s.name),
            )
            for s in starmap.systems
        ),
        fleets=tuple(_desk_fleet(f, starmap, scenario, view) for f in mine),
        encounters=_desk_encounters(view, player),
        battles=tuple(battles),
        document=msgspec.to_builtins(document),
        received=tuple(orders_summary(sent)) if sent is not None else (),
        finished=finished,
    )


def orders_summary(orders: Ft2Orders) -> list[str]:
    """His orders in words, one line an order (the page's "received" list)."""
    lines = [f"{m.fleet} moves to {m.to}" for m in orders.moves]
    for split in orders.splits:
        goes = f", which goes to {split.to}" if split.to else ""
        lines.append(f"{', '.join(split.ships)} split off {split.fleet} as a new fleet{goes}")
    lines += [f"{', '.join(m.fleets)} merge into {m.into}" for m in orders.merges]
    for dock in orders.docks:
        rolls = f" (repair rolls: {', '.join(dock.systems)})" if dock.systems else ""
        lines.append(f"{dock.ship} docks for repairs{rolls}")
    lines += [f"{d.fleet} releases {d.drones} decoy drone(s)" for d in orders.decoys]
    lines += [f"{d.encounter}: {d.decision}" for d in orders.decisions]
    return lines or ["no orders: every fleet stays where it is"]


def desk_svg(desk: Ft2Desk, starmap: StarMap) -> str:
    """Return the player's FT2 map as SVG: his fleet counters, the contacts of his scans,
    the facilities, the encounters, and the courses of his orders so far."""
    markers = [
        Marker(
            hex=parse_label(fleet.hex),
            text=fleet.id.rsplit("-", 1)[-1],
            colour=DEFENCE_COLOUR if fleet.fixed else FLEET_COLOUR,
            title=f"{fleet.id}: " + ", ".join(s.design for s in fleet.ships),
            key=fleet.id,
        )
        for fleet in desk.fleets
    ]
    for encounter in desk.encounters:
        for scan in encounter.scans:
            if scan.scanner != desk.player:
                continue
            seen = ", ".join(f"{c.count} {c.hull_class}" for c in scan.contacts) or "nothing"
            markers.append(
                Marker(
                    hex=parse_label(encounter.hex),
                    text="scan",
                    colour=SCAN_COLOUR,
                    title=f"{encounter.id}: your long-range scan shows {seen}",
                    key=f"scan {encounter.id}",
                )
            )
    at = {f.id: f.hex for f in desk.fleets}
    arrows = []
    for fleet, to in _courses(desk, starmap):
        if to != at[fleet]:
            start, end = parse_label(at[fleet]), parse_label(to)
            arrows.append(Arrow(start, end, FLEET_COLOUR, key=fleet, title=f"{fleet} to {to}"))
    regions = [
        Region(
            "facility-hexes",
            frozenset(parse_label(s.hex) for s in desk.systems if s.facility),
            stroke=FACILITY_STROKE,
            opacity=0.9,
        ),
        Region(
            "encounter-hexes",
            frozenset(parse_label(e.hex) for e in desk.encounters),
            stroke=ENCOUNTER_STROKE,
            opacity=1.0,
        ),
    ]
    return to_svg(
        starmap,
        markers=markers,
        regions=regions,
        arrows=arrows,
        key=MAP_KEY,
        title=desk.title,
    )


def _courses(desk: Ft2Desk, starmap: StarMap) -> list[tuple[str, str]]:
    """The (fleet, hex) of every move of his orders so far that names a place on the map."""
    at = {f.id for f in desk.fleets}
    moves = desk.document.get("moves", ())
    found = []
    for move in moves if isinstance(moves, list | tuple) else ():
        if not isinstance(move, dict) or move.get("fleet") not in at:
            continue
        try:
            found.append((str(move["fleet"]), place(starmap, str(move.get("to", "")))))
        except InvalidInputError:
            continue
    return found
