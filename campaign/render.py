"""Rich renderables for the campaign core. Colours come from the named theme, never inline."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape as esc
from typing import TYPE_CHECKING

import msgspec
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from campaign.events import (
    AbsencePolicySet,
    AbsentPlayer,
    AttackFailed,
    BattleFought,
    BattleRequested,
    CampaignCreated,
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
    DiceRerollRuled,
    DiceRolled,
    EmpireFounded,
    Event,
    FactoriesDestroyed,
    FightersResupplied,
    HolidayTaken,
    HostActed,
    LandingFailed,
    MapChosen,
    MapLoaded,
    MoveLapsed,
    OfficerCasualty,
    OrdersCommitted,
    OrdersRevealed,
    OrdersSubmitted,
    PlayerDropped,
    ProductionResolved,
    RecordedEvent,
    ScheduleSet,
    SeatSubstituted,
    SeedRevealed,
    ShipsRepaired,
    ShipsSighted,
    StoresLost,
    SystemExplored,
    SystemScouted,
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
    rolls_of,
)
from campaign.ft2.report import describe as describe_ft2
from campaign.inputs import printable
from campaign.playermap import Reach
from campaign.projections import CampaignState
from campaign.schedule import describe as describe_schedule
from campaign.schedule import schedule_of
from campaign.service import BranchDiff, PlayerReport, Status, TurnStatus, VerifyReport
from campaign.storetypes import BranchInfo, CampaignInfo
from campaign.strategic import Battle, Colony, Empire, ShipCount, Sighting, Unit
from campaign.techlist import TechRow

if TYPE_CHECKING:  # the engine, the inbox and the keys' tables: imported only when used
    from campaign.battlereport import BattleReport, Counter, ForceShip, ShipFate
    from campaign.inbox import InboxResult
    from campaign.playeraccess import PlayerAccess
    from campaign.receipts import ReceiptCheck

THEME = Theme(
    {
        "umpire.heading": "bold",
        "umpire.key": "cyan",
        "umpire.ok": "bold green",
        "umpire.bad": "bold red",
        "umpire.dim": "dim",
        "umpire.audience.public": "green",
        "umpire.audience.private": "yellow",
        "umpire.active": "bold",
        "umpire.error": "bold red",
    }
)


def _describe_casualty(ev: OfficerCasualty | CaptainCasualty) -> str:
    out = f" for {ev.turns_out} turn(s)" if ev.turns_out else ""
    if isinstance(ev, CaptainCasualty):
        new = f"; new captain level {ev.new_captain}" if ev.new_captain else ""
        return f"captain of {ev.unit}: {ev.result}{out}{new}"
    flag = f"; flag now in {ev.new_flagship}" if ev.new_flagship else ""
    return f"admiral of {ev.task_force}: {ev.result}{out}{flag}"


def describe(ev: Event) -> str:
    """Return a one-line human summary of an event."""
    match ev:
        case CampaignCreated():
            players = ", ".join(ev.players) or "no players yet"
            return (
                f"campaign {ev.name!r} created for {players}; {ev.max_turns} turns, "
                f"{ev.dice_mode} dice, seed committed as {ev.seed_commitment[:12]}…"
            )
        case TurnEnded():
            return f"turn {ev.turn} ended"
        case DiceRolled():
            faces = " ".join(str(r.value) for r in ev.rolls)
            manual = " (physical dice)" if any(r.source == "manual" for r in ev.rolls) else ""
            return f"rolled {ev.expression} for {ev.reason}: {faces}{manual}"
        case SeedRevealed():
            return f"dice seed revealed: {ev.seed}"
        case UmpireNoted():
            return f"note: {ev.text}"
        case EmpireFounded():
            return (
                f"{ev.empire.player}'s empire founded at entry {ev.empire.entry} with "
                f"{len(ev.units)} units and {ev.empire.ip} IP"
            )
        case (
            UnitRelocated()
            | ColonyAdjusted()
            | DiceRerollRuled()
            | TurnHeld()
            | TurnReleased()
            | AbsentPlayer()
            | DeadlineSet()
            | ScheduleSet()
            | HostActed()
            | AbsencePolicySet()
            | HolidayTaken()
            | PlayerDropped()
            | SeatSubstituted()
            | DesignRegistered()
        ):
            return _describe_umpires_hand(ev)
        case OrdersCommitted() | OrdersRevealed():
            return _describe_orders(ev)
        case OrdersSubmitted():
            return f"{ev.player}'s orders for turn {ev.turn}: {len(ev.moves)} unit(s)"
        case OfficerCasualty() | CaptainCasualty():
            return _describe_casualty(ev)
        case TaskForcesSet():
            forces = "; ".join(
                f"{tf.id} ({', '.join(tf.units)}; admiral level {tf.admiral or '-'})"
                for tf in ev.task_forces
            )
            return f"{ev.player}'s task forces: {forces or 'none'}"
        case UnitMoved():
            where = " > ".join(ev.path) if ev.path else "stays"
            return f"{ev.unit} {where}; order {ev.order}"
        case SystemExplored():
            return _explored_text(ev)
        case ColonistsLanded():
            return (
                f"{ev.colonists}M colonists from {ev.unit} landed on {ev.colony.id}: "
                f"{ev.colony.population}M there now"
            )
        case ProductionResolved():
            return _production_text(ev)
        case TreasurySpent():
            return _treasury_text(ev)
        case ShipsSighted():
            return _sighted_text(ev)
        case MoveLapsed() | LandingFailed() | UnitsMerged() | UnitsSplit():
            return _units_text(ev)
        case BattleRequested():
            b = ev.battle
            sides = " vs ".join(
                f"{s.player} ({s.order}, {len(s.units)} ship{'' if len(s.units) == 1 else 's'})"
                for s in b.sides
            )
            kind = f"{b.type} of {b.pursued}'s ships leaving" if b.departure else b.type
            return f"battle {b.id} at {b.system or b.hex}: {kind}, {sides}, in {b.location}"
        case BattleFought():
            destroyed = [r.unit for r in ev.results if r.fate == "destroyed"]
            gone = [r.unit for r in ev.results if r.fate in ("jumped", "disengaged")]
            text = f"battle {ev.battle.id} fought ({ev.source}): "
            text += f"destroyed {', '.join(destroyed) or 'none'}"
            return text + (f"; left the battle {', '.join(gone)}" if gone else "")
        case UnitsCaught():
            caught = ", ".join(f"{loss.unit} x{loss.count}" for loss in ev.losses) or "none lost"
            return f"{ev.player}'s unescorted ships caught by enemy warships: {caught}"
        case ColonyConquered():  # retaken by its first owner, it is free again: liberated
            return (
                f"{ev.colony.id} {'liberated' if ev.colony.conquered_from is None else 'taken'}"
                f" from {ev.previous_owner} by {ev.colony.owner}"
            )
        case FactoriesDestroyed():
            return f"the defender of {ev.colony} destroyed its {ev.factories} factories"
        case ColonyBombarded():
            ruin = "; the planet is devastated" if ev.devastated else ""
            return (
                f"{ev.attacker} bombarded {ev.colony}: {ev.killed}M killed, "
                f"{ev.population}M left{ruin}"
            )
        case AttackFailed():
            return f"{ev.player}'s attack on {ev.system} could not be made: {ev.reason}"
        case ShipsRepaired():
            return f"{ev.player}'s ships repaired at a friendly colony: {', '.join(ev.units)}"
        case FightersResupplied():
            fed = ", ".join(_fighters_aboard(u) for u in ev.units)
            return f"{ev.player}'s tenders gave their fighters to carriers: {fed}"
        case StoresLost() | DecoysLost():
            return _lost_aboard_text(ev)
        case SystemScouted():
            return f"enemy ships scouted {ev.system}, where you have a colony"
        case ColonyDetected() | CommandPostEstablished():
            return _posts_text(ev)
        case MapChosen():
            return f"star map {ev.name!r} ({ev.title}) chosen; committed as {ev.sha256[:12]}…"
        case MapLoaded():
            return f"umpire's copy of the star map loaded ({len(ev.text)} characters)"
        case _:
            return describe_ft2(ev) or type(ev).__name__


def _describe_umpires_hand(
    ev: UnitRelocated
    | ColonyAdjusted
    | DiceRerollRuled
    | TurnHeld
    | TurnReleased
    | AbsentPlayer
    | DeadlineSet
    | ScheduleSet
    | HostActed
    | AbsencePolicySet
    | HolidayTaken
    | PlayerDropped
    | SeatSubstituted
    | DesignRegistered,
) -> str:
    match ev:
        case (
            ScheduleSet()
            | HostActed()
            | AbsencePolicySet()
            | HolidayTaken()
            | PlayerDropped()
            | SeatSubstituted()
        ):
            return _describe_host(ev)
        case DiceRerollRuled():
            dice = "die" if len(ev.keys) == 1 else "dice"
            return (
                f"by the umpire's ruling, {dice} {', '.join(ev.keys)} will be rolled again "
                f"as turn {ev.turn} resolves: {ev.reason}"
            )
        case UnitRelocated():
            where = ev.hex or "the entry"
            return f"by the umpire's ruling, {ev.unit} is now at {where}: {ev.reason}"
        case ColonyAdjusted():
            c = ev.colony
            return (
                f"by the umpire's ruling, {c.id} now holds {c.population}M, "
                f"{c.factories} factories, {c.pdus} PDUs: {ev.reason}"
            )
        case TurnHeld():
            return f"turn {ev.turn} held by the umpire: {ev.reason}"
        case DeadlineSet():
            return f"orders for turn {ev.turn} are due by {ev.deadline:%Y-%m-%d %H:%M} UTC"
        case AbsentPlayer():
            return f"{ev.player} sent no orders for turn {ev.turn}: {ev.decision}"
        case TurnReleased():
            return f"turn {ev.turn} released"
        case DesignRegistered():  # 004 L26-30
            seen = "public" if ev.public else "secret"
            return (
                f"{ev.player}'s home-made design {ev.design} registered: {ev.points} points, {seen}"
            )


def _describe_host(
    ev: ScheduleSet | HostActed | AbsencePolicySet | HolidayTaken | PlayerDropped | SeatSubstituted,
) -> str:
    """The host's acts and the seats (issue 18)."""
    match ev:
        case ScheduleSet():
            return f"schedule set: {describe_schedule(schedule_of(ev))}"
        case HostActed():
            return f"the host ({ev.action}): {ev.reason}"
        case AbsencePolicySet():
            drop = f", his seat open after {ev.drop_after} missed" if ev.drop_after else ""
            return f"{ev.player}'s absence policy: {ev.policy}{drop}"
        case HolidayTaken():
            last = ev.first_turn + ev.turns - 1
            return f"{ev.player} is on holiday for turns {ev.first_turn}-{last}"
        case PlayerDropped():
            return f"{ev.player} missed {ev.missed} turns in a row: his seat is open"
        case SeatSubstituted():
            return f"{ev.substitute} takes {ev.player}'s seat from turn {ev.turn}"


def _describe_orders(ev: OrdersCommitted | OrdersRevealed) -> str:
    if isinstance(ev, OrdersCommitted):
        return f"{ev.player} handed in orders for turn {ev.turn}, committed as {ev.sha256[:12]}…"
    return f"{ev.player}'s orders for turn {ev.turn} revealed ({ev.sha256[:12]}…)"


def _explored_text(ev: SystemExplored) -> str:
    faces = " ".join(str(r.value) for r in ev.rolls)
    lost = ", ".join(f"{loss.unit} x{loss.count}" for loss in ev.losses)
    hazard = f"; hazards rolled {faces}" if faces else ""
    hazard += f", lost {lost}" if lost else ""
    if not ev.explored:
        return f"{ev.system} ({ev.hex}): every ship sent was lost{hazard}"
    planets = (
        ", ".join(
            f"{p.type} {p.capacity}M{' mineral-rich' if p.mineral_rich else ''}" for p in ev.planets
        )
        or "no planets"
    )
    enemies = "; ".join(ship_count_text(c) for c in ev.enemy_ships)
    return (
        f"explored {ev.system} ({ev.hex}): {planets}"
        + (f"; enemy colonies {', '.join(ev.enemy_colonies)}" if ev.enemy_colonies else "")
        + (f"; enemy ships {enemies}" if enemies else "")
        + hazard
    )


def ship_count_text(count: ShipCount) -> str:
    """Name what a report counts of one player's ships (004 L102-103), nothing left out."""
    kinds = [
        (count.escorts, "escorts"),
        (count.cruisers, "cruisers"),
        (count.capitals, "capitals"),
        (count.scouts, "scouts"),
        (count.transports, "transports"),
    ]
    return f"{count.owner}: " + ", ".join(f"{n} {kind}" for n, kind in kinds)


def _sighted_text(ev: ShipsSighted) -> str:
    parts = []
    for s in ev.sightings:
        where = f"{s.system} ({s.hex})" if s.system else s.hex
        seen = "; ".join(ship_count_text(c) for c in s.ships) or "no enemy ships now"
        parts.append(f"{where}: {seen}")
    return "enemy ships seen: " + " | ".join(parts)


SIGHTING_COLUMNS = [
    "where",
    "turn",
    "owner",
    "escorts",
    "cruisers",
    "capitals",
    "scouts",
    "transports",
]


def sighting_rows(sightings: Sequence[Sighting]) -> list[list[str]]:
    """The enemy ships a player last saw, a row per hex and owner."""
    return [
        [
            f"{s.system} ({s.hex})" if s.system else s.hex,
            str(s.turn),
            c.owner,
            *(str(n) for n in (c.escorts, c.cruisers, c.capitals, c.scouts, c.transports)),
        ]
        for s in sightings
        for c in s.ships
    ]


def _production_text(ev: ProductionResolved) -> str:
    built = ", ".join(u.design or f"{u.count} {u.kind}" for u in ev.units) or "nothing"
    techs = ", ".join(ev.acquired) or "no technology"
    text = (
        f"{ev.player}'s production after turn {ev.turn}: {ev.produced_ip} IP produced, "
        f"{ev.lost_ip} lost; built {built}; bought {techs}"
    )
    if ev.rearmed:
        text += f"; supplied {', '.join(_supplied(u) for u in ev.rearmed)}"
    if ev.treasury_lost:
        text += f"; {ev.treasury_lost} starting IP never spent, lost (004 L267)"
    return text + (f"; not carried out: {'; '.join(ev.problems)}" if ev.problems else "")


def _fighters_aboard(unit: Unit) -> str:
    """Name a unit, with its hold if it is a fleet tender."""
    return f"{unit.id} (hold {unit.stores}/{unit.hold})" if unit.hold else unit.id


def _lost_aboard_text(ev: StoresLost | DecoysLost) -> str:
    if isinstance(ev, DecoysLost):
        return f"{ev.player} lost the decoy drones of {', '.join(ev.units)} in {ev.battle}"
    return (
        f"{ev.unit} lost {ev.lost} fighters from its holds in battle; {ev.stores} left (001 L1007)"
    )


def _supplied(unit: Unit) -> str:
    """Name a unit given fighters or a decoy drone at a production phase, with its hold if it
    is a fleet tender and its drone if it has one."""
    return _fighters_aboard(unit) + (" with a decoy drone" if unit.decoys else "")


UNIT_COLUMNS = ["unit", "what", "hex", "order", "captain"]
FORCE_COLUMNS = ["where", "unit", "what", "order", "captain"]
WAITING = "Waiting to enter at your entry"
NO_NEWS = "Nothing happened that you know of."


def forces_by_place(report: PlayerReport) -> list[tuple[str, list[Unit]]]:
    """Return a report's units grouped by hex, by place name; those not entered yet last."""
    groups: dict[str | None, list[Unit]] = {}
    for unit in report.units:
        groups.setdefault(unit.hex, []).append(unit)
    placed = sorted(h for h in groups if h is not None)
    ordered = [(report.places.get(h, h), groups[h]) for h in placed]
    return ordered + ([(WAITING, groups[None])] if None in groups else [])


def force_row(unit: Unit) -> list[str]:
    """Return a unit's cells in a report's forces-by-place table (the place aside)."""
    cells = unit_row(unit)
    return [cells[0], cells[1], cells[3], cells[4]]


def missed_text(report: PlayerReport) -> str:
    """Return the line counting the turns he sent no orders for (issue 18)."""
    return f"Turns you sent no orders for: {report.missed_turns}."


def deadline_text(report: PlayerReport) -> str:
    """Return the line that says when the next orders are due ("" in a finished campaign)."""
    if report.finished:
        return ""
    if report.deadline is None:
        return f"Orders for turn {report.turn}: no deadline set."
    return f"Orders for turn {report.turn} are due by {report.deadline:%Y-%m-%d %H:%M} UTC."


SIGHTINGS_TITLE = "Enemy ships seen (last sighting)"
COLONY_COLUMNS = ["planet", "hex", "type", "population", "factories"]


def unit_row(unit: Unit) -> list[str]:
    """Return a unit's cells in a report's forces table."""
    what = (
        f"{unit.design} ({unit.hull_class}, {unit.points} pts)"
        if unit.design
        else f"{unit.count} {unit.kind}"
    )
    if unit.hold:
        what += f", {unit.stores}/{unit.hold} fighters in its hold"
    if unit.decoys:
        what += ", a decoy drone aboard"
    captain = f"level {unit.captain}" if unit.captain else ""
    return [unit.id, what, unit.hex or "entering", unit.order, captain]


def colony_row(colony: Colony) -> list[str]:
    """Return a colony's cells in a report's colonies table."""
    kind = colony.planet_type + (" (mineral-rich)" if colony.mineral_rich else "")
    population = f"{colony.population}M of {colony.capacity}M"
    return [colony.id, colony.hex, kind, population, str(colony.factories)]


def empire_facts(empire: Empire) -> list[tuple[str, str]]:
    """Return the lines of a report's empire summary."""
    return [
        ("entry", empire.entry),
        ("FTL speed", f"{empire.speed} hexes per turn"),
        ("starting IP left", str(empire.ip)),
        ("technology", ", ".join(empire.techs) or "none yet"),
        ("explored", ", ".join(empire.explored) or "nothing yet"),
    ]


CHANGES_TITLE = "Since the turn before"


def changes_html(changes: Sequence[str]) -> str:
    """Return the report's "since the turn before" section as HTML (empty if nothing changed)."""
    if not changes:
        return ""
    items = "".join(f"<li>{esc(change)}</li>" for change in changes)
    return f"<h2>{esc(CHANGES_TITLE)}</h2><ul>{items}</ul>"


def report_view(report: PlayerReport) -> RenderableType:
    """Return a player's turn package."""
    parts: list[RenderableType] = []
    if report.empire is not None:
        title = report.title
        parts.append(_pairs(title, list(empire_facts(report.empire))))
    deadline = deadline_text(report)
    if deadline:
        parts.append(Text(deadline, style="umpire.heading"))
    if report.missed_turns:
        parts.append(Text(missed_text(report)))
    units = Table(title="Forces, by place", title_justify="left")
    for column in FORCE_COLUMNS:
        units.add_column(column)
    for where, group in forces_by_place(report):
        for index, unit in enumerate(group):
            cells = [where if index == 0 else "", *force_row(unit)]
            units.add_row(*(Text(cell) for cell in cells), end_section=index == len(group) - 1)
    parts.append(units)
    if report.colonies:
        colonies = Table(title="Colonies", title_justify="left")
        for column in COLONY_COLUMNS:
            colonies.add_column(column)
        for colony in report.colonies:
            colonies.add_row(*colony_row(colony))
        parts.append(colonies)
    if report.sightings:
        seen = Table(title=SIGHTINGS_TITLE, title_justify="left")
        for column in SIGHTING_COLUMNS:
            seen.add_column(column)
        for row in sighting_rows(report.sightings):
            seen.add_row(*(Text(cell) for cell in row))
        parts.append(seen)
    if report.changes:
        changed = Table(title=CHANGES_TITLE, title_justify="left", show_header=False)
        changed.add_column("change")
        for change in report.changes:
            changed.add_row(Text(change))
        parts.append(changed)
    parts.append(Text(f"News of turn {report.news_turn}", style="umpire.heading"))
    if not report.stories:
        parts.append(Text(NO_NEWS, style="umpire.dim"))
    for section in report.stories:
        parts.append(Text(section.title, style="umpire.key"))
        for place in section.places:
            indent = 2
            if place.where:
                parts.append(Padding(Text(place.where), (0, 0, 0, 2)))
                indent = 4
            for sentence in place.sentences:
                parts.append(Padding(Text(sentence), (0, 0, 0, indent)))
    return Group(*parts)


def turn_status_panel(status: TurnStatus) -> RenderableType:
    """Return where the turn in progress stands."""
    waiting = Text(
        ", ".join(status.waiting_for) or "nobody",
        style="umpire.bad" if status.waiting_for else "umpire.ok",
    )
    rows: list[tuple[str, str | Text]] = [
        ("turn", f"{status.turn} ({status.phase})"),
        ("orders in", ", ".join(status.submitted) or "none yet"),
        ("marked final", ", ".join(status.final) or "none yet"),
        ("waiting for", waiting),
        ("battles waiting", ", ".join(status.battles) or "none"),
    ]
    if status.deadline is not None:
        due = f"{status.deadline:%Y-%m-%d %H:%M} UTC"
        rows.append(
            ("deadline", Text(f"{due} (passed)", style="umpire.bad") if status.late else due)
        )
    if status.held is not None:
        rows.append(("held", Text(status.held, style="umpire.bad")))
    rows += _seat_rows(status)
    return _pairs(f"{status.campaign} [{status.branch}] turn {status.turn}", rows)


def _seat_rows(status: TurnStatus) -> list[tuple[str, str | Text]]:
    """Missed turns, holidays and open seats (issue 18), when there are any."""
    rows: list[tuple[str, str | Text]] = []
    if status.missed:
        rows.append(("missed turns", ", ".join(f"{p} {n}" for p, n in status.missed.items())))
    if status.on_holiday:
        rows.append(("on holiday", ", ".join(status.on_holiday)))
    if status.open_seats:
        rows.append(("open seats", Text(", ".join(status.open_seats), style="umpire.bad")))
    return rows


def next_steps(status: TurnStatus) -> RenderableType:
    """Return what the umpire does next: battles to fight, orders awaited, the deadline."""
    if status.finished:
        return Text("The campaign is over: `umpire status` shows the final score.", "umpire.ok")
    lines: list[str] = []
    if status.battles:
        waiting = ", ".join(status.battles)
        fight, record = (
            ("encounters fight ID", "encounters record ID")
            if status.rules == "ft2"
            else ("battles resolve", "battles record ID")
        )
        lines.append(
            f"Next: battles {waiting} await their outcome: `umpire {fight}` fights "
            f"{'it' if status.rules == 'ft2' else 'them'} with the engine, `umpire {record}` "
            "enters one fought at the table; then `umpire turn resolve` again."
        )
    elif status.phase != "orders":
        lines.append(f"Next: turn {status.turn} goes on ({status.phase}): `umpire turn resolve`.")
    else:
        waiting = ", ".join(status.waiting_for)
        lines.append(
            f"Next: turn {status.turn} is open for orders"
            + (f"; waiting for {waiting}." if waiting else "; every player's orders are in.")
        )
    if status.production:
        lines.append(f"Turn {status.turn} ends with a production phase (004 L65).")
    if status.deadline is not None:
        due = f"{status.deadline:%Y-%m-%d %H:%M} UTC"
        lines.append(f"Orders are due by {due}" + (" (passed)." if status.late else "."))
    elif not status.battles:
        lines.append("No deadline is set: `umpire turn deadline WHEN` sets one.")
    if status.held is not None:
        lines.append(f"The turn is held: {status.held}")
    return Group(*(Text(line) for line in lines))


# Events worth a line of their own in a write command's summary.
_NOTABLE = frozenset(
    {
        "battle_requested",
        "battle_fought",
        "turn_ended",
        "production_resolved",
        "colony_conquered",
        "colony_bombarded",
        "colonists_landed",
        "unit_lost",
        "units_caught",
        "absent_player",
        "seed_revealed",
        "campaign_created",
        "deadline_set",
        "turn_held",
        "turn_released",
        "treasury_spent",
    }
)
_SUMMARY_ALL = 6  # a batch this short is told event by event


def written_summary(
    recorded: Sequence[RecordedEvent], title: str, verb: str = "recorded"
) -> RenderableType:
    """Return a short summary of what a write command recorded (`verb`: "would be recorded"
    for a dry run): how many events of each kind and a line for each that matters (`--events`
    shows the rows)."""
    if not recorded:
        return Text(f"{title}: nothing {verb}.", style="umpire.dim")
    first, last = recorded[0].version, recorded[-1].version
    versions = f"version {first}" if first == last else f"versions {first}-{last}"
    counts: dict[str, int] = {}
    for r in recorded:
        counts[r.type] = counts.get(r.type, 0) + 1
    kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    parts: list[RenderableType] = [
        Text(printable(f"{title}: {len(recorded)} event(s) {verb} ({versions})."), "umpire.ok"),
        Text(f"  {kinds}", style="umpire.dim"),
    ]
    told = [r for r in recorded if len(recorded) <= _SUMMARY_ALL or r.type in _NOTABLE]
    parts.extend(Padding(Text(printable(describe(r.event))), (0, 0, 0, 2)) for r in told)
    if len(told) < len(recorded):
        parts.append(Text("  (--events shows every event)", style="umpire.dim"))
    return Group(*parts)


def battles_table(
    battles: Sequence[Battle], decoys: Mapping[str, Mapping[str, int]] | None = None
) -> RenderableType:
    """Return the battles awaiting an outcome, with the dummy bogeys each side may deploy
    (its decoy drones, `decoys`: by battle, the sides the viewer may know of)."""
    if not battles:
        return Text("no battles await an outcome", style="umpire.dim")
    table = Table(title="Battles awaiting an outcome", title_justify="left")
    for column in ("battle", "where", "type", "location", "sides"):
        table.add_column(column)
    for b in battles:
        drones = (decoys or {}).get(b.id, {})
        sides = "\n".join(
            f"{s.player} ({s.order}): {', '.join(s.units)}"
            + (f"; {drones[s.player]} dummy bogeys" if drones.get(s.player) else "")
            for s in b.sides
        )
        kind = b.type + (f", {b.pursued} pursued" if b.pursued else "")
        kind += ", leaving" if b.departure else ""
        if b.colony is not None:  # an assault on planetary defences (004 5.4)
            kind += f", assault on {b.colony}"
            if b.call_off_after is not None:  # the attacker's standing order (004 L208-209)
                kind += f", called off after {b.call_off_after} turns if they stand"
        where = f"{b.system or 'deep space'} ({b.hex})"
        chooser = f" (chosen by {b.chosen_by})" if b.chosen_by else ""
        table.add_row(b.id, where, kind, b.location + chooser, Text(sides))
    return table


def _audience_text(recorded: RecordedEvent) -> Text:
    style = "umpire.audience.public" if recorded.audience.public else "umpire.audience.private"
    return Text(str(recorded.audience), style=style)


def log_table(events: Sequence[RecordedEvent], title: str) -> RenderableType:
    """Return the event log as a table."""
    table = Table(title=escape(printable(title)), title_justify="left", expand=False)
    table.add_column("pos", justify="right", style="umpire.dim")
    table.add_column("ver", justify="right")
    table.add_column("turn", justify="right")
    table.add_column("type", style="umpire.key")
    table.add_column("seen by")
    table.add_column("what happened", overflow="fold")  # a long key is shown whole
    for recorded in events:
        table.add_row(
            str(recorded.position),
            str(recorded.version),
            str(recorded.turn),
            recorded.type,
            _audience_text(recorded),
            Text(printable(describe(recorded.event))),  # user text: never markup, no escapes
        )
    if not events:
        return Group(table, Text("no events match", style="umpire.dim"))
    return table


def dice_table(events: Sequence[RecordedEvent], title: str) -> RenderableType:
    """Return every die the events recorded, one row each, with the key that names it."""
    table = Table(title=escape(title), title_justify="left", expand=False)
    table.add_column("ver", justify="right")
    table.add_column("seen by")
    table.add_column("die", style="umpire.key", overflow="fold")  # whole, to copy
    table.add_column("face", justify="right", no_wrap=True)
    for recorded in events:
        for roll in rolls_of(recorded.event):
            physical = " (physical)" if roll.source == "manual" else ""
            table.add_row(
                str(recorded.version),
                _audience_text(recorded),
                Text(roll.key),
                f"{roll.value} on d{roll.sides}{physical}",
            )
    if not table.row_count:
        return Group(table, Text("no dice rolled", style="umpire.dim"))
    return table


def unrolled_reroll(key: str, turn_ended: bool) -> Text:
    """Return the warning that a die the umpire ruled rolled again was not rolled."""
    if turn_ended:
        text = f"die {key} was ruled rolled again, but the turn ends without rolling it"
    else:
        text = f"die {key} was ruled rolled again, but this step does not roll it (a later may)"
    return Text(text, style="umpire.bad")


def _pairs(title: str, rows: Sequence[tuple[str, str | Text]]) -> Table:
    table = Table(
        title=escape(title), title_justify="left", show_header=False, box=None, padding=(0, 2)
    )
    table.add_column(style="umpire.key")
    table.add_column()
    for key, value in rows:
        table.add_row(key, value)
    return table


def _state_rows(state: CampaignState) -> list[tuple[str, str | Text]]:
    seed = state.revealed_seed if state.revealed_seed is not None else "secret"
    turn = f"{state.turn} of {state.max_turns}"
    if state.finished:
        turn = f"finished after turn {state.max_turns}"
    return [
        ("turn", turn),
        ("players", ", ".join(state.players) or "none"),
        ("map", state.map_name or "none chosen"),
        ("dice", f"{state.dice_mode}; {state.dice_rolled} rolled by the umpire's own `roll`"),
        ("seed commitment", state.seed_commitment),
        ("seed", seed),
        ("umpire notes", str(state.notes)),
        ("events folded", f"{state.events} (to version {state.version})"),
    ]


def status_panel(status: Status) -> RenderableType:
    """Return the overview of a campaign branch."""
    rows: list[tuple[str, str | Text]] = [
        ("campaign", status.campaign),
        ("branch", f"{status.branch} ({status.branches} in all)"),
        ("database", status.database),
        ("head", f"version {status.head_version}, hash {status.head_hash[:16]}…"),
    ]
    panel = _pairs(f"Campaign {status.campaign}", rows + _state_rows(status.state))
    if not status.scores:
        return panel
    final = status.state.finished
    table = Table(
        title="Final score (004 section 1)" if final else "Running tally (004 section 1)",
        title_justify="left",
    )
    for column in ("player", "points", "planets controlled"):
        table.add_column(column)
    for score in status.scores:
        table.add_row(score.player, str(score.points), Text(", ".join(score.planets) or "none"))
    if final and status.scores and status.scores[0].points > 0:
        top = [s.player for s in status.scores if s.points == status.scores[0].points]
        winner = Text(f"Winner: {' and '.join(top)}", style="umpire.ok")
        return Group(panel, table, winner)
    return Group(panel, table)


def state_panel(
    state: CampaignState, campaign: str, branch: str, at: str, viewer: str
) -> RenderableType:
    """Return a campaign state, as `viewer` knows it."""
    title = f"{campaign} [{branch}] {at}, as the {viewer} sees it"
    if viewer != "umpire":
        title = f"{campaign} [{branch}] {at}, as player {viewer} sees it"
        return _pairs(title, _state_rows(state))
    if not state.empires:
        return _pairs(title, _state_rows(state))
    return Group(_pairs(title, _state_rows(state)), empires_table(state))


EMPIRE_COLUMNS = [
    "player",
    "IP",
    "FTL",
    "tech",
    "colonies",
    "fact",
    "warships (pts)",
    "scouts",
    "transp",
    "expl",
    "orders",
]


def empire_rows(state: CampaignState) -> list[list[str]]:
    """The umpire's overview, a row an empire: treasury, technology, colonies, forces."""
    rows = []
    for player in state.players:
        empire = state.empires.get(player)
        if empire is None:
            continue
        colonies = [c for c in state.colonies.values() if c.owner == player]
        units = [u for u in state.units.values() if u.owner == player]
        warships = [u for u in units if u.kind == "warship"]
        scouts = sum(u.count for u in units if u.kind == "scout-troop")
        transports = sum(u.count for u in units if u.kind == "transports")
        settled = f"{len(colonies)} ({sum(c.population for c in colonies)}M)"
        orders = "in" if player in state.submitted else "waiting"
        rows.append(
            [
                player,
                str(empire.ip),
                str(empire.speed),
                ", ".join(empire.techs) or "none",
                settled,
                str(sum(c.factories for c in colonies)),
                f"{len(warships)} ({sum(u.points for u in warships)})",
                str(scouts),
                str(transports),
                str(len(empire.explored)),
                orders if not state.finished else "",
            ]
        )
    return rows


def empires_table(state: CampaignState) -> RenderableType:
    """Return every empire side by side (the umpire's `umpire state`)."""
    table = Table(
        title="Empires", title_justify="left", box=None, padding=(0, 1, 0, 0), header_style="bold"
    )
    for column in EMPIRE_COLUMNS:
        table.add_column(column, overflow="fold", no_wrap=column != "tech")
    for row in empire_rows(state):
        table.add_row(*(Text(cell) for cell in row))
    return table


def verify_panel(report: VerifyReport) -> RenderableType:
    """Return what verification found."""
    if not report.ok and report.problem is not None:
        verdict = Text(
            f"FAILED at position {report.position} (version {report.version}): {report.problem}",
            style="umpire.bad",
        )
    elif report.ok:
        verdict = Text("OK", style="umpire.ok")
    else:
        if report.store_problems:
            what = "the database does not match its log"
        elif report.orders_problems:
            what = "revealed orders do not match their commitments"
        else:
            what = "dice do not match the revealed seed"
        verdict = Text(f"FAILED: {what}", style="umpire.bad")
    rows: list[tuple[str, str | Text]] = [
        ("campaign", f"{report.campaign} [{report.branch}]"),
        ("hash chain", verdict),
        ("events checked", str(report.events_checked)),
        ("head hash", report.head_hash),
    ]
    if report.orders_revealed or report.orders_problems:
        rows.append(
            (
                "orders",
                f"{report.orders_revealed} revealed order file(s) checked against their "
                "public commitments",
            )
        )
        rows.extend(("orders problem", Text(p, style="umpire.bad")) for p in report.orders_problems)
    if report.snapshots_checked or report.store_problems:
        rows.append(("snapshots", f"{report.snapshots_checked} compared with the log folded again"))
        rows.extend(
            ("database problem", Text(p, style="umpire.bad")) for p in report.store_problems
        )
    if report.dice_checked:
        rows.append(
            (
                "dice",
                f"{report.seeded_rolls} seeded roll(s) recomputed from the revealed seed; "
                f"{report.manual_rolls} physical roll(s) taken as recorded",
            )
        )
        rows.extend(("dice problem", Text(p, style="umpire.bad")) for p in report.dice_problems)
    return _pairs("Verification", rows)


def branch_diff_view(diff: BranchDiff) -> RenderableType:
    """Return what differs between two branches, turn by turn and audience by audience."""
    head = (
        f"{diff.campaign}: {diff.a} (turn {diff.turn_a}) against {diff.b} (turn {diff.turn_b}); "
        f"they share history up to version {diff.shared}."
    )
    parts: list[RenderableType] = [Text(printable(head), style="umpire.heading")]
    if diff.standings:
        standing = Table(title="Where each player stands now", title_justify="left")
        for column in ("player", "points", "colonies", "warships"):
            standing.add_column(column, justify="left" if column == "player" else "right")
        for s in diff.standings:
            standing.add_row(
                s.player,
                *(f"{a} / {b}" for a, b in (s.points, s.colonies, s.warships)),
            )
        standing.caption = escape(printable(f"on {diff.a} / on {diff.b}"))
        standing.caption_justify = "left"
        parts.append(standing)
    if not diff.turns:
        parts.append(Text("Nobody was told anything different.", style="umpire.ok"))
        return Group(*parts)
    table = Table(title="What differs", title_justify="left")
    table.add_column("turn", justify="right")
    table.add_column("told to", style="umpire.key")
    table.add_column(f"only on {escape(printable(diff.a))}", overflow="fold")
    table.add_column(f"only on {escape(printable(diff.b))}", overflow="fold")
    for t in diff.turns:
        table.add_row(
            str(t.turn),
            t.player,
            Text("\n".join(printable(describe(e)) for e in t.only_a)),
            Text("\n".join(printable(describe(e)) for e in t.only_b)),
            end_section=True,
        )
    parts.append(table)
    return Group(*parts)


def branches_table(campaign: str, active: str, branches: Sequence[BranchInfo]) -> RenderableType:
    """Return a campaign's branches."""
    table = Table(title=escape(f"Branches of {campaign}"), title_justify="left")
    table.add_column("")
    table.add_column("branch", style="umpire.key")
    table.add_column("from")
    table.add_column("forked at", justify="right")
    table.add_column("events", justify="right")
    table.add_column("created (UTC)")
    for b in branches:
        marker = Text("*", style="umpire.active") if b.name == active else Text("")
        table.add_row(
            marker,
            b.name,
            b.parent or "",
            str(b.fork_version) if b.parent else "",
            str(b.head_version),
            b.created_at.strftime("%Y-%m-%d %H:%M"),
        )
    return table


def campaigns_table(campaigns: Sequence[CampaignInfo]) -> RenderableType:
    """Return the campaigns in a database."""
    table = Table(title="Campaigns", title_justify="left")
    table.add_column("campaign", style="umpire.key")
    table.add_column("active branch")
    table.add_column("created (UTC)")
    for c in campaigns:
        table.add_row(c.name, c.active_branch, c.created_at.strftime("%Y-%m-%d %H:%M"))
    if not campaigns:
        return Text("no campaigns yet: create one with `umpire new NAME`", style="umpire.dim")
    return table


def report_markdown(report: PlayerReport) -> str:
    """Return a player's turn package as Markdown (for mail or a shared folder)."""
    lines = [f"# {report.title}", ""]
    if deadline_text(report):
        lines += [f"**{deadline_text(report)}**", ""]
    if report.missed_turns:
        lines += [missed_text(report), ""]
    if report.empire is not None:
        lines += [f"- {key}: {_md(value)}" for key, value in empire_facts(report.empire)] + [""]
    lines += ["## Forces, by place"]
    for where, group in forces_by_place(report):
        rows = [force_row(u) for u in group]
        lines += ["", f"### {_md(where)}", "", *_md_table(FORCE_COLUMNS[1:], rows)]
    if report.colonies:
        rows = [colony_row(c) for c in report.colonies]
        lines += ["", "## Colonies", "", *_md_table(COLONY_COLUMNS, rows)]
    if report.sightings:
        rows = sighting_rows(report.sightings)
        lines += ["", f"## {SIGHTINGS_TITLE}", "", *_md_table(SIGHTING_COLUMNS, rows)]
    if report.changes:
        lines += ["", f"## {CHANGES_TITLE}", "", *(f"- {_md(c)}" for c in report.changes)]
    pages = battle_pages(report)
    if pages:
        lines += ["", "## Battle reports", ""]
        lines += [f"- [Battle {b}](battle-{b}.html)" for b in pages]
    lines += ["", f"## News of turn {report.news_turn}"]
    if not report.stories:
        lines += ["", NO_NEWS]
    for section in report.stories:
        lines += ["", f"### {section.title}", ""]
        for place in section.places:
            said = " ".join(_md(sentence) for sentence in place.sentences)
            lines.append(f"- **{_md(place.where)}**: {said}" if place.where else f"- {said}")
    return "\n".join(lines) + "\n"


def player_package(report: PlayerReport, map_svg: str) -> dict[str, str]:
    """Return a player's turn package as files: the report (Markdown, HTML with the map in
    it, JSON) and his map (`CampaignService.map_svg`)."""
    return {
        "report.md": report_markdown(report),
        "report.html": report_html(report, map_svg),
        "report.json": msgspec.json.format(msgspec.json.encode(report)).decode() + "\n",
        "map.svg": map_svg,
    }


def battle_pages(report: PlayerReport) -> list[str]:
    """The battles of the news turn the player fought: each has a page in his package
    (`battle-ID.html`, written by `umpire publish`)."""
    return [
        e.event.battle.id
        for e in report.news
        if isinstance(e.event, BattleFought)
        and report.player in {s.player for s in e.event.battle.sides}
    ]


def inline_svg(svg: str) -> str:
    """Return an SVG document without its XML declaration, to embed in an HTML page."""
    return svg.split("?>", 1)[1].lstrip() if svg.startswith("<?xml") else svg


def report_html(report: PlayerReport, map_svg: str = "") -> str:
    """Return a player's turn package as a self-contained HTML page (all text escaped), with
    links to the pages of his battles beside it; his map (SVG, built from escaped text) is
    embedded after his empire's facts."""
    title = esc(f"{report.campaign}: {report.player}, turn {report.turn}")
    links = "".join(
        f"<li><a href='battle-{esc(b)}.html'>Battle {esc(b)}</a>: the forces, the losses ship by "
        "ship and the table turn by turn</li>"
        for b in battle_pages(report)
    )
    battles = f"<h2>Battle reports</h2><ul>{links}</ul>" if links else ""
    map_html = f"<h2>Your map</h2><div class='map'>{inline_svg(map_svg)}</div>" if map_svg else ""
    body = report_body_html(report, map_html=map_html)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{_HTML_STYLE}</style></head><body>{body}{battles}</body></html>\n"
    )


def report_body_html(report: PlayerReport, map_html: str = "", no_news: str = "") -> str:
    """Return a report's HTML body (all text escaped): the published page and the web page's.

    `map_html` goes after the empire's facts; `no_news` stands in an empty news list.
    """
    parts = [f"<h1>{esc(report.title, quote=False)}</h1>"]
    if deadline_text(report):
        parts.append(f"<p class='deadline'><strong>{esc(deadline_text(report))}</strong></p>")
    if report.missed_turns:
        parts.append(f"<p>{esc(missed_text(report))}</p>")
    if report.empire is not None:
        facts = "".join(f"<li>{esc(k)}: {esc(v)}</li>" for k, v in empire_facts(report.empire))
        parts.append(f"<ul>{facts}</ul>")
    parts += [map_html, "<h2>Forces, by place</h2>"]
    for where, group in forces_by_place(report):
        parts.append(f"<h3>{esc(where)}</h3>")
        parts.append(html_table(FORCE_COLUMNS[1:], [force_row(u) for u in group]))
    if report.colonies:
        rows = [colony_row(c) for c in report.colonies]
        parts += ["<h2>Colonies</h2>", html_table(COLONY_COLUMNS, rows)]
    if report.sightings:
        rows = sighting_rows(report.sightings)
        parts += [f"<h2>{SIGHTINGS_TITLE}</h2>", html_table(SIGHTING_COLUMNS, rows)]
    parts.append(changes_html(report.changes))
    parts.append(f"<h2>News of turn {report.news_turn}</h2>")
    if not report.stories:
        parts.append(f"<ul>{no_news}</ul>" if no_news else f"<p>{esc(NO_NEWS)}</p>")
    for section in report.stories:
        parts.append(f"<h3 class='news-{esc(section.kind)}'>{esc(section.title)}</h3><ul>")
        for place in section.places:
            said = " ".join(esc(sentence) for sentence in place.sentences)
            where = f"<strong>{esc(place.where)}</strong>: " if place.where else ""
            parts.append(f"<li>{where}{said}</li>")
        parts.append("</ul>")
    return "".join(parts)


_HTML_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:auto;padding:0 1em;line-height:1.4}"
    "table{border-collapse:collapse;margin-bottom:.5em}"
    "td,th{padding:.1em .6em;text-align:left;border-bottom:1px solid #ddd}"
    ".map svg{max-width:100%;height:auto}"
    "th{background:#f2f2f2}h3{margin-bottom:.2em}.deadline{color:#a00}"
    "@media print{body{max-width:none;font-size:10pt}h2{break-after:avoid}"
    "table,li{break-inside:avoid}}"
)


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows]


def html_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Return an HTML table, every cell escaped."""
    cells = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _md(text: str) -> str:
    """Escape the characters that would break a Markdown table cell."""
    return text.replace("|", "\\|")


def players_table(campaign: str, access: Sequence[PlayerAccess]) -> RenderableType:
    """Return a campaign's players and whether each holds a secret (never the secret)."""
    table = Table(title=escape(f"Players of {campaign}"), title_justify="left")
    table.add_column("player", style="umpire.key")
    table.add_column("secret")
    table.add_column("issued (UTC)")
    table.add_column("rotations", justify="right")
    table.add_column("signs orders")
    for a in access:
        issued = a.issued_at.strftime("%Y-%m-%d %H:%M") if a.issued_at else ""
        held = Text("issued", style="umpire.ok") if a.has_secret else Text("none", "umpire.dim")
        if a.signs_orders:
            signs = Text("yes", style="umpire.ok")
        else:  # a secret from before signing keys: rotating it makes one
            signs = Text("rotate for a key", "umpire.bad") if a.has_secret else Text("")
        table.add_row(a.player, held, issued, str(a.rotations) if a.has_secret else "", signs)
    if not access:
        return Text("this campaign has no players", style="umpire.dim")
    return table


def receipts_table(folder: str, checks: Sequence[ReceiptCheck]) -> RenderableType:
    """Return what checking each receipt found (issue 13)."""
    if not checks:
        return Text(
            f"no receipts (receipt.json, *.receipt.json) under {folder}", style="umpire.dim"
        )
    table = Table(title=escape(f"Receipts {folder}"), title_justify="left")
    table.add_column("file", style="umpire.key")
    table.add_column("player")
    table.add_column("branch")
    table.add_column("seen", justify="right")
    table.add_column("result")
    for c in checks:
        r = c.receipt
        if not c.ok:
            result = Text(f"FAILED: {c.problem}", style="umpire.bad")
        elif not c.on_active_branch:
            result = Text("on the chain, not on the active branch", style="umpire.bad")
        elif c.credentials_changed:
            result = Text(
                "on the chain; his credentials on record changed since", style="umpire.bad"
            )
        else:
            result = Text("on the chain", style="umpire.ok")
        table.add_row(
            Text(c.file),
            Text(r.player if r else ""),
            Text(r.branch if r else ""),
            Text(str(r.seen) if r else ""),
            result,
        )
    return table


def inbox_table(folder: str, results: Sequence[InboxResult]) -> RenderableType:
    """Return what the inbox did with each signed orders file, and why a file was refused."""
    if not results:
        return Text(f"no orders files (*.toml) in {printable(folder)}", style="umpire.dim")
    table = Table(title=escape(printable(f"Inbox {folder}")), title_justify="left")
    table.add_column("file", style="umpire.key")
    table.add_column("player")
    table.add_column("result")
    table.add_column("reason")
    from campaign.inbox import Outcome  # the inbox (signing, keys) only when it is shown

    styles = {
        Outcome.ACCEPTED: "umpire.ok",
        Outcome.REJECTED: "umpire.bad",
        Outcome.RETRY: "umpire.dim",
    }
    for r in results:
        renamed = r.moved_to.rpartition("/")[2] if r.moved_to else r.file
        result = f"{r.outcome} as {renamed}" if renamed != r.file else str(r.outcome)
        table.add_row(
            Text(printable(r.file)),
            Text(printable(r.player or "")),
            Text(printable(result), style=styles[r.outcome]),
            Text("\n".join(printable(p) for p in r.problems)),
        )
    return table


def _posts_text(ev: ColonyDetected | CommandPostEstablished) -> str:
    if isinstance(ev, CommandPostEstablished):
        return f"a command post established on {ev.colony}: every player detects it now"
    return f"{ev.owner} has a colony in {ev.system} ({ev.hex}): its command post shows"


def _units_text(ev: MoveLapsed | LandingFailed | UnitsMerged | UnitsSplit) -> str:
    match ev:
        case MoveLapsed():
            where = f" to {ev.to}" if ev.to else ""
            return f"{ev.unit}'s move{where} lapsed; it held position: {ev.reason}"
        case LandingFailed():
            return f"{ev.unit}'s colonists did not land on {ev.planet}: {ev.reason}"
        case UnitsMerged():
            return f"{', '.join(ev.merged)} merged into {ev.unit}"
        case UnitsSplit():
            parts = ", ".join(f"{p.count} of {p.unit} as {p.new_unit}" for p in ev.parts)
            why = f" by the umpire's ruling: {ev.reason}" if ev.reason else ""
            return f"split off {parts}{why}"


def _treasury_text(ev: TreasurySpent) -> str:
    if ev.problems:
        return f"{ev.player}'s starting treasury was not spent: {'; '.join(ev.problems)}"
    bought = [*ev.acquired, *(f"{u.id} ({u.design})" for u in ev.units)]
    lost = f"; {ev.research_lost} research IP unspent, lost" if ev.research_lost else ""
    return (
        f"{ev.player} spent starting IP on {', '.join(bought) or 'nothing'}; "
        f"{ev.empire.ip} IP left{lost}"
    )


def tech_table(rows: Sequence[TechRow], player: str | None = None) -> RenderableType:
    """Return the technology tree (004 5.7.7): prices, prerequisites, and a player's standing."""
    title = "Technology (004 5.7.6-5.7.7)" + (f": {player}" if player else "")
    table = Table(title=escape(title), title_justify="left")
    for column in ("technology", "field", "level", "price", "what it does"):
        table.add_column(column)
    if player is not None:
        table.add_column(f"{player} now")
    for row in rows:
        cost = f"{row.normal_cost} IP"
        if row.predecessor is not None:
            cost += f", {row.cost_with_predecessor} with {row.predecessor}"
        cells = [
            f"{row.name} ({row.title})",
            row.field,
            str(row.level),
            cost,
            row.development,
        ]
        if player is not None:
            cells.append(_tech_standing(row))
        table.add_row(*(escape(c) for c in cells))
    return table


def _tech_standing(row: TechRow) -> str:
    if row.owned:
        return "owned"
    standing = f"costs {row.price} IP"
    if row.blocked is not None:
        standing += "; needs a level " + f"{row.level - 1} {row.field} technology first"
    return standing


def reach_view(reach: Reach) -> RenderableType:
    """Return where a unit can go this turn and, for a destination asked, how or why not."""
    where = f"at {reach.hex}" if reach.hex else f"not entered yet (enters at {reach.owner}'s entry)"
    plotted = "1 turn" if reach.horizon == 1 else f"{reach.horizon} turns"
    lines = [
        Text(
            f"{reach.unit} of {reach.owner}, {where}: speed {reach.speed}, "
            f"moves plotted {plotted} ahead"
        ),
    ]
    if reach.problem is not None and reach.to is None:
        lines.append(Text(f"it cannot be ordered this turn: {reach.problem}", style="umpire.bad"))
        return Group(*lines)
    if reach.to is not None:
        if reach.problem is not None:
            lines.append(Text(reach.problem, style="umpire.bad"))
        else:
            path = " ".join(reach.path) or "staying where it is"
            then = f"; after the coming turns: {' '.join(reach.plot)}" if reach.plot else ""
            lines.append(Text(f"{reach.to}: yes, this turn by {path}{then}", style="umpire.ok"))
    hexes = " ".join(reach.hexes) or "none"
    lines.append(Text(f"it can reach ({len(reach.hexes)} hexes this turn): {hexes}"))
    return Group(*lines)


def _fate_words(fate: ShipFate) -> str:
    if fate.fate == "jumped":
        return f"jumped out to {fate.to_hex}" if fate.to_hex else "jumped out"
    return {"survived": "came through", "disengaged": "withdrew"}.get(fate.fate, fate.fate)


def battle_heading(report: BattleReport) -> tuple[str, str]:
    """Return a battle report's title and the sentence under it."""
    who = "the umpire" if report.viewer == "umpire" else report.viewer
    title = f"Battle {report.id} at {report.where}, as {who} saw it"
    kind = f"a pursuit of {report.pursued}" if report.pursued else f"an {report.kind} battle"
    how = "fought by the engine" if report.source == "engine" else "fought at the table"
    sides = " against ".join(f"{side} ({order})" for side, order in report.orders)
    text = f"{kind.capitalize()} in {report.location.replace('-', ' ')}, {how}: {sides}."
    if report.rules:  # the set-up the engine fought it under (004 section 4)
        text = text[:-1] + f", under {report.rules} rules with {report.movement} movement."
    if report.source == "engine":
        text += f" Won by {report.winner}." if report.winner else " Nobody won the field."
    return title, text


FORCE_START_COLUMNS = ["side", "ship", "design", "hull at start", "captain", "fighters", "ammo"]
FATE_COLUMNS = ["side", "ship", "what became of it", "hull lost", "hull left", "systems lost"]


def force_start_rows(report: BattleReport) -> list[list[str]]:
    """The forces at the start, a row a ship; `?` where the viewer does not know (an enemy
    ship whose record sheet his sensors did not open, docs/rulings.md)."""
    return [
        [
            f.side,
            f.id,
            f.design if f.design is not None else f"{f.seen_as or 'not known'}, design unknown",
            _hull_at_start(f),
            f"level {f.captain}" if f.captain else "",
            "?" if f.fighters is None else str(f.fighters) if f.fighters else "",
            str(f.missiles) if f.missiles else "",
        ]
        for f in report.forces
    ]


def _hull_at_start(force: ForceShip) -> str:
    if force.hull is None:
        return "?"
    left = "?" if force.hull_left is None else str(force.hull_left)
    return f"{left}/{force.hull}" if force.hull else ""


def fate_rows(report: BattleReport) -> list[list[str]]:
    """What became of each ship: its fate, damage, fighters lost and ammunition spent; `?`
    where the viewer's sensors did not learn its damage (docs/rulings.md)."""
    rows = []
    for f in report.fates:
        if f.damaged is None or f.destroyed is None:
            lost = ["?"]
        else:
            lost = [*f.destroyed, *(f"{s} (damaged)" for s in f.damaged)]
        if f.fighters_lost:
            lost.append(f"{f.fighters_lost} fighters")
        if f.missiles_spent:
            lost.append(f"{f.missiles_spent} rounds fired")
        left = "" if f.fate == "destroyed" else _known_number(f.hull_left)
        rows.append(
            [
                f.side,
                f.id,
                _fate_words(f),
                _known_number(f.hull_lost),
                left,
                ", ".join(lost) or "none",
            ]
        )
    return rows


def _known_number(value: int | None) -> str:
    return "?" if value is None else str(value)


def battle_report_view(report: BattleReport, turns: bool = False) -> RenderableType:
    """Return a battle report: the forces, their fates, and (`turns`) the battle turn by turn."""
    title, text = battle_heading(report)
    parts: list[RenderableType] = [Text(title, style="umpire.heading"), Text(text)]
    for heading, columns, rows in (
        ("Forces at the start", FORCE_START_COLUMNS, force_start_rows(report)),
        ("What became of them", FATE_COLUMNS, fate_rows(report)),
    ):
        table = Table(title=escape(heading), title_justify="left")
        for column in columns:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        parts.append(table)
    if turns:
        for played in report.turns:
            parts.append(Text(f"Turn {played.turn}", style="umpire.key"))
            parts.extend(Text(line) for line in played.lines)
            parts.append(table_plot(played.table, report.sides))
    elif report.turns:
        parts.append(
            Text(
                f"{len(report.turns)} turns fought: --turns tells them, --replay FILE.html "
                "draws the table turn by turn.",
                style="umpire.dim",
            )
        )
    return Group(*parts)


def table_plot(
    table: Sequence[Counter], sides: Sequence[str], width: int = 60, height: int = 10
) -> Text:
    """Return the table at a turn's end as a rough plot, north up: a ship is its side's
    initial (`*` where both sides share a cell), a contact `?`, fighters `^`, a salvo `:`."""
    shown = [c for c in table if c.kind != "ship" or c.status == "active"]
    if not shown:
        return Text("nothing on the table", style="umpire.dim")
    xs = [c.x for c in shown]
    ys = [c.y for c in shown]
    scale = max((max(xs) - min(xs)) / (width - 1), (max(ys) - min(ys)) / (2 * (height - 1)), 0.25)
    left = (min(xs) + max(xs)) / 2 - scale * (width - 1) / 2
    bottom = (min(ys) + max(ys)) / 2 - scale * (height - 1)
    cells: dict[tuple[int, int], set[str]] = {}
    for c in shown:
        column = min(max(round((c.x - left) / scale), 0), width - 1)
        row = min(max(height - 1 - round((c.y - bottom) / (2 * scale)), 0), height - 1)
        mark = {"ship": c.side[:1], "contact": "?", "fighters": "^"}.get(c.kind, ":")
        cells.setdefault((row, column), set()).add(mark)
    styles = ("cyan", "red", "green", "magenta", "yellow", "blue")
    colour = {side[:1]: styles[i % len(styles)] for i, side in enumerate(sides)}
    text = Text()
    for row in range(height):
        for column in range(width):
            marks = cells.get((row, column))
            if not marks:
                text.append("·" if row % 3 == 0 and column % 10 == 0 else " ", "umpire.dim")
            elif len(marks) > 1:
                text.append("*", style="bold")
            else:
                (mark,) = marks
                text.append(mark, style=colour.get(mark, ""))
        text.append("\n")
    text.append(f"{round(scale * (width - 1))} MU across", style="umpire.dim")
    return text


_SIDE_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
_FRAME_SECONDS = 2


def battle_replay_svg(report: BattleReport, size: int = 600) -> str:
    """Return the table turn by turn as one looping SVG animation (no script), every text
    escaped: each frame shows the ships, contacts, fighters and salvos at a turn's end."""
    frames = [("Start", report.start)] + [(f"Turn {t.turn}", t.table) for t in report.turns]
    counters = [c for _, table in frames for c in table]
    if not counters:
        return ""
    xs = [c.x for c in counters]
    ys = [c.y for c in counters]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 12.0)
    margin = 40
    scale = (size - 2 * margin) / span
    cx = (min(xs) + max(xs)) / 2
    cy = (min(ys) + max(ys)) / 2
    colour = {side: _SIDE_COLOURS[i % len(_SIDE_COLOURS)] for i, side in enumerate(report.sides)}

    def at(x: float, y: float) -> tuple[float, float]:
        return (round(size / 2 + (x - cx) * scale, 1), round(size / 2 - (y - cy) * scale, 1))

    n = len(frames)
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='replay' viewBox='0 0 {size} {size}' "
        f"width='{size}' height='{size}' role='img' aria-label='{esc(report.id)} replay'>",
        f"<rect width='{size}' height='{size}' fill='#0b1020'/>",
    ]
    for index, (name, table) in enumerate(frames):
        parts.append(f"<g class='frame' data-frame='{index}'{_frame_timing(index, n)}>")
        parts.append(f"<text x='12' y='22' fill='#fff' font-size='16'>{esc(name)}</text>")
        for c in table:
            x, y = at(c.x, c.y)
            fill = colour.get(c.side, "#ccc")
            label = esc(c.label)
            if c.kind == "ship" and c.status == "active":
                parts.append(f"<circle cx='{x}' cy='{y}' r='6' fill='{fill}'/>")
                # Its facing, a clock course (12 is north, 000 movement).
                angle = math.radians(c.course * 30)
                tip = (round(x + 14 * math.sin(angle), 1), round(y - 14 * math.cos(angle), 1))
                parts.append(
                    f"<line x1='{x}' y1='{y}' x2='{tip[0]}' y2='{tip[1]}' stroke='{fill}'/>"
                )
                label += f" {esc(c.hull)}" if c.hull else ""
            elif c.kind == "ship":
                parts.append(f"<text x='{x}' y='{y}' fill='{fill}' font-size='12'>×</text>")
                label += f" ({esc(c.status)})"
            elif c.kind == "contact":
                parts.append(f"<text x='{x}' y='{y}' fill='{fill}' font-size='14'>?</text>")
            elif c.kind == "fighters":
                parts.append(
                    f"<polygon points='{x},{y - 5} {x - 4},{y + 4} {x + 4},{y + 4}' fill='{fill}'/>"
                )
            else:
                parts.append(f"<rect x='{x - 3}' y='{y - 3}' width='6' height='6' fill='{fill}'/>")
            parts.append(
                f"<text x='{x + 8}' y='{y + 4}' fill='{fill}' font-size='11'>{label}</text>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _frame_timing(index: int, frames: int) -> str:
    """Show frame `index` of `frames` in its slot of a looping cycle (SVG animation)."""
    if frames == 1:
        return ""
    total = frames * _FRAME_SECONDS
    start = index / frames
    end = (index + 1) / frames
    if index == 0:
        values, times = "1;0", f"0;{end:.4f}"
    elif index == frames - 1:
        values, times = "0;1", f"0;{start:.4f}"
    else:
        values, times = "0;1;0", f"0;{start:.4f};{end:.4f}"
    return (
        f" opacity='{1 if index == 0 else 0}'><animate attributeName='opacity' "
        f"values='{values}' keyTimes='{times}' calcMode='discrete' dur='{total}s' "
        "repeatCount='indefinite'/"
    )


def battle_replay_html(report: BattleReport) -> str:
    """Return a self-contained HTML page of a battle: the report, the animated table, and
    every turn told (all text escaped; no script)."""
    title, text = battle_heading(report)
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{_HTML_STYLE}svg.replay{{max-width:100%;height:auto}}</style></head><body>",
        f"<h1>{esc(title)}</h1><p>{esc(text)}</p>",
        "<h2>Forces at the start</h2>",
        html_table(FORCE_START_COLUMNS, force_start_rows(report)),
        "<h2>What became of them</h2>",
        html_table(FATE_COLUMNS, fate_rows(report)),
    ]
    svg = battle_replay_svg(report)
    if svg:
        parts += ["<h2>The table, turn by turn</h2>", svg]
    for played in report.turns:
        lines = "".join(f"<li>{esc(line.strip())}</li>" for line in played.lines)
        parts.append(f"<h3>Turn {played.turn}</h3><ul>{lines}</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)
