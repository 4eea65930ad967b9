"""Events told as one line of plain words each (`describe`), for the log, the news and the mail."""

from __future__ import annotations

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
    EnemyUnitsCaught,
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
    OrdersHandedIn,
    OrdersMarkedFinal,
    OrdersRevealed,
    OrdersSubmitted,
    PlayerDropped,
    ProductionResolved,
    ScheduleSet,
    SeatSubstituted,
    SeedRevealed,
    ShipsRepaired,
    ShipsSighted,
    StarChartPublished,
    StoresLost,
    SystemExplored,
    SystemScouted,
    TaskForcesSet,
    TreasurySpent,
    TurnEnded,
    TurnHeld,
    TurnReleased,
    UmpireNoted,
    UnitLost,
    UnitMoved,
    UnitRelocated,
    UnitsCaught,
    UnitsMerged,
    UnitsSplit,
)
from campaign.ft2.report import describe as describe_ft2
from campaign.news import counted
from campaign.schedule import describe as describe_schedule
from campaign.schedule import due_words, schedule_of
from campaign.strategic import ShipCount, Unit


def _describe_casualty(ev: OfficerCasualty | CaptainCasualty) -> str:
    out = f" for {counted(ev.turns_out, 'turn')}" if ev.turns_out else ""
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
        case (
            OrdersCommitted()
            | OrdersHandedIn()
            | OrdersRevealed()
            | OrdersSubmitted()
            | OrdersMarkedFinal()
        ):
            return _describe_orders(ev)
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
        case BattleFought() if not any(s.units for s in ev.battle.sides):
            return f"battle {ev.battle.id} not fought ({ev.source}): a side had no ship left"
        case BattleFought():
            destroyed = [r.unit for r in ev.results if r.fate == "destroyed"]
            gone = [r.unit for r in ev.results if r.fate in ("jumped", "disengaged")]
            text = f"battle {ev.battle.id} fought ({ev.source}): "
            text += f"destroyed {', '.join(destroyed) or 'none'}"
            return text + (f"; left the battle {', '.join(gone)}" if gone else "")
        case UnitsCaught() | EnemyUnitsCaught():
            return _caught_text(ev)
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
        case MapChosen() | MapLoaded() | StarChartPublished():
            return _describe_map(ev)
        case UnitLost():
            return f"{ev.unit} lost: {ev.cause}"
        case _:
            return describe_ft2(ev) or type(ev).__name__


def _caught_text(ev: UnitsCaught | EnemyUnitsCaught) -> str:
    if isinstance(ev, EnemyUnitsCaught):
        return (
            f"{ev.player}'s warships caught {ev.owner}'s unescorted ships at {ev.hex}: "
            f"{ev.scouts} scouts and {ev.transports} transports lost"
        )
    caught = ", ".join(f"{loss.unit} x{loss.count}" for loss in ev.losses) or "none lost"
    whose = f"warships of {', '.join(ev.by)}" if ev.by else "enemy warships"
    where = f" at {ev.hex}" if ev.hex else ""
    return f"{ev.player}'s unescorted ships caught{where} by {whose}: {caught}"


def _describe_map(ev: MapChosen | MapLoaded | StarChartPublished) -> str:
    match ev:
        case MapChosen():
            return f"star map {ev.name!r} ({ev.title}) chosen; committed as {ev.sha256[:12]}…"
        case MapLoaded():
            return f"umpire's copy of the star map loaded ({len(ev.text)} characters)"
        case StarChartPublished():
            return (
                f"star chart {ev.title!r} published: {len(ev.stars)} stars on "
                f"{ev.width} x {ev.height} hexes, {len(ev.entries)} entry hexes"
            )


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
            return f"orders for turn {ev.turn} are due by {due_words(ev.deadline)}"
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


def _describe_orders(
    ev: OrdersCommitted | OrdersHandedIn | OrdersRevealed | OrdersSubmitted | OrdersMarkedFinal,
) -> str:
    match ev:
        case OrdersCommitted():
            return (
                f"{ev.player} handed in orders for turn {ev.turn}, committed as {ev.sha256[:12]}…"
            )
        case OrdersHandedIn():
            return f"everyone is told {ev.player} handed in orders for turn {ev.turn}"
        case OrdersRevealed():
            return f"{ev.player}'s orders for turn {ev.turn} revealed ({ev.sha256[:12]}…)"
        case OrdersSubmitted():
            return f"{ev.player}'s orders for turn {ev.turn}: {len(ev.moves)} unit(s)"
        case OrdersMarkedFinal():
            mark = "marked final" if ev.final else "no longer marked final"
            return f"{ev.player}'s orders for turn {ev.turn} {mark}"


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
        (count.escorts, "escort"),
        (count.cruisers, "cruiser"),
        (count.capitals, "capital"),
        (count.scouts, "scout"),
        (count.transports, "transport"),
    ]
    return f"{count.owner}: " + ", ".join(counted(n, kind) for n, kind in kinds)


def _sighted_text(ev: ShipsSighted) -> str:
    parts = []
    for s in ev.sightings:
        where = f"{s.system} ({s.hex})" if s.system else s.hex
        seen = "; ".join(ship_count_text(c) for c in s.ships) or "no enemy ships now"
        parts.append(f"{where}: {seen}")
    return "enemy ships seen: " + " | ".join(parts)


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
