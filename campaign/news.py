"""A turn's news told as sentences, grouped by kind and by place (issue 16).

A player's report reads "Moves: at Alpha (0201), red-W1 and red-W2 arrived from 0101 under
Engage orders", not the raw log rows. `news_of` is a pure function of the events the player
may see and the public star chart's names (hex -> system), so it can tell nothing he did not
already know: it only rephrases his own news.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from campaign.events import (
    AbsentPlayer,
    AttackFailed,
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
    DiceRerollRuled,
    DiceRolled,
    EmpireFounded,
    EnemyUnitsCaught,
    Event,
    FactoriesDestroyed,
    FightersResupplied,
    LandingFailed,
    MapChosen,
    MoveLapsed,
    OfficerCasualty,
    OrdersCommitted,
    OrdersHandedIn,
    OrdersRevealed,
    ProductionResolved,
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
from campaign.schedule import due_words
from campaign.strategic import Loss, ShipCount, ShipResult

# The kinds of news, in the order a report tells them, with their headings.
KINDS: tuple[tuple[str, str], ...] = (
    ("moves", "Moves"),
    ("exploration", "Exploration"),
    ("sightings", "Sightings"),
    ("battles", "Battles"),
    ("colonies", "Colonies"),
    ("production", "Production and supply"),
    ("umpire", "From the umpire"),
    ("orders", "Orders"),
)
ELSEWHERE = ""  # the place of news that happened nowhere in particular


class NewsPlace(msgspec.Struct, frozen=True):
    """The sentences of one kind of news at one place ("" for no place in particular)."""

    where: str
    sentences: tuple[str, ...]


class NewsSection(msgspec.Struct, frozen=True):
    """One kind of news (`kind`, headed `title`), place by place in the order first told."""

    kind: str
    title: str
    places: tuple[NewsPlace, ...]


def place_name(hex_: str | None, systems: Mapping[str, str], system: str | None = None) -> str:
    """Name a place as a report does: `Alpha (0201)` at a star, the hex in deep space."""
    if hex_ is None:
        return system or ELSEWHERE
    name = system or systems.get(hex_)
    return f"{name} ({hex_})" if name else f"deep space ({hex_})"


def and_list(items: Sequence[str]) -> str:
    """Return `a`, `a and b`, `a, b and c`."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, singular for one: `1 turn`, `2 turns`, `1 hull box`.

    >>> counted(1, "turn"), counted(2, "turn"), counted(1, "hull box", "hull boxes")
    ('1 turn', '2 turns', '1 hull box')
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def count_words(count: ShipCount) -> str:
    """Name the ships one owner was seen with: `blue with 1 capital and 2 escorts`."""
    kinds = [
        (count.capitals, "capital"),
        (count.cruisers, "cruiser"),
        (count.escorts, "escort"),
        (count.scouts, "scout"),
        (count.transports, "transport"),
    ]
    seen = [counted(n, kind) for n, kind in kinds if n]
    return f"{count.owner} with {and_list(seen) or 'no ships'}"


def _order_words(order: str) -> str:
    return {"engage": "Engage", "stand-off": "Stand-off", "ftl-move": "FTL Move"}.get(order, order)


class _Teller:
    """Collects sentences by kind and place, keeping the order they were first told."""

    def __init__(self, player: str, systems: Mapping[str, str]) -> None:
        self.player = player
        self.systems = systems
        self.told: dict[str, dict[str, list[str]]] = {kind: {} for kind, _ in KINDS}
        self.moves: dict[tuple[str, tuple[str, ...], str], list[str]] = {}
        self.committed: list[str] = []

    def tell(self, kind: str, where: str, sentence: str) -> None:
        self.told[kind].setdefault(where, []).append(sentence)

    def at(self, hex_: str | None, system: str | None = None) -> str:
        return place_name(hex_, self.systems, system)

    def colony_place(self, colony_id: str) -> str:
        system = colony_id.split("/", 1)[0]
        hexes = [h for h, name in self.systems.items() if name == system]
        return place_name(hexes[0] if hexes else None, self.systems, system)

    def sections(self) -> tuple[NewsSection, ...]:
        for (where, path, order), units in self.moves.items():
            self.tell("moves", where, _move_sentence(units, path, order))
        if self.committed:
            self.tell(
                "orders",
                ELSEWHERE,
                f"Orders were handed in by {and_list(self.committed)}.",
            )
        return tuple(
            NewsSection(
                kind,
                title,
                tuple(NewsPlace(where, tuple(s)) for where, s in self.told[kind].items()),
            )
            for kind, title in KINDS
            if self.told[kind]
        )


def _move_sentence(units: list[str], path: tuple[str, ...], order: str) -> str:
    who = and_list(units)
    orders = f"under {_order_words(order)} orders"
    if not path:
        return f"{who} held position {orders}."
    via = f" by way of {', '.join(path[:-1])}" if len(path) > 1 else ""
    return f"{who} arrived{via}, {orders}."


def news_of(
    player: str, events: Iterable[Event], systems: Mapping[str, str]
) -> tuple[NewsSection, ...]:
    """Tell `player`'s news (the events he may see) as sentences by kind and place.

    `systems` maps a hex to its star's name (the public chart).
    """
    teller = _Teller(player, systems)
    for ev in events:
        _tell(teller, ev)
    return teller.sections()


def _tell(t: _Teller, ev: Event) -> None:
    match ev:
        case UnitMoved():
            where = t.at(ev.path[-1]) if ev.path else ELSEWHERE
            t.moves.setdefault((where, ev.path, ev.order), []).append(ev.unit)
        case MoveLapsed():
            to = f" to {ev.to}" if ev.to else ""
            t.tell("moves", ELSEWHERE, f"{ev.unit}'s move{to} lapsed and it held: {ev.reason}.")
        case UnitsMerged():
            t.tell("moves", ELSEWHERE, f"{and_list(list(ev.merged))} merged into {ev.unit}.")
        case UnitsSplit():
            parts = and_list([f"{p.count} of {p.unit} as {p.new_unit}" for p in ev.parts])
            why = f", by the umpire's ruling: {ev.reason}" if ev.reason else ""
            t.tell("moves", ELSEWHERE, f"Split off {parts}{why}.")
        case TaskForcesSet():
            forces = [
                f"{tf.id} ({and_list(list(tf.units))}, admiral level {tf.admiral or '-'})"
                for tf in ev.task_forces
            ]
            text = f"Your task forces: {and_list(forces)}." if forces else "No task forces now."
            t.tell("moves", ELSEWHERE, text)
        case SystemExplored():
            t.tell("exploration", t.at(ev.hex, ev.system), _explored(ev))
        case ShipsSighted():
            for s in ev.sightings:
                seen = and_list([count_words(c) for c in s.ships])
                text = f"Seen there: {seen}." if seen else "No enemy ships there now."
                if s.colonies:
                    text += f" Enemy colonies: {and_list(list(s.colonies))}."
                t.tell("sightings", t.at(s.hex, s.system), text)
        case SystemScouted():
            text = f"Enemy ships scouted {ev.system}, where you have a colony."
            t.tell("sightings", t.colony_place(ev.system), text)
        case (
            BattleRequested()
            | BattleFought()
            | UnitsCaught()
            | EnemyUnitsCaught()
            | StoresLost()
            | DecoysLost()
            | AttackFailed()
        ):
            _battle_news(t, ev)
        case OfficerCasualty() | CaptainCasualty():
            _casualty(t, ev)
        case (
            ColonistsLanded()
            | LandingFailed()
            | ColonyConquered()
            | ColonyBombarded()
            | FactoriesDestroyed()
            | ColonyDetected()
            | CommandPostEstablished()
        ):
            _colony_news(t, ev)
        case ProductionResolved() | TreasurySpent() | ShipsRepaired() | FightersResupplied():
            _production_news(t, ev)
        case UnitLost():
            t.tell("battles", ELSEWHERE, f"{ev.unit} was lost: {ev.cause}.")
        case (
            UnitRelocated()
            | ColonyAdjusted()
            | DiceRerollRuled()
            | TurnHeld()
            | TurnReleased()
            | AbsentPlayer()
            | DeadlineSet()
            | UmpireNoted()
            | DiceRolled()
            | DesignRegistered()
            | CampaignCreated()
            | MapChosen()
        ):
            _umpire_news(t, ev)
        case OrdersHandedIn() | OrdersCommitted():
            # Each name once: a player's commitments (his own, or anyone's in a log stored
            # before `orders_handed_in`) count his submissions, which is nobody's news.
            if ev.player not in t.committed:
                t.committed.append(ev.player)
        case OrdersRevealed():
            if ev.player == t.player:
                t.tell("orders", ELSEWHERE, "Your orders were opened and carried out.")
        case TurnEnded() | StarChartPublished() | EmpireFounded() | CampaignRulesChosen():
            pass  # the report shows the chart and the empire; the rules' own news says the rest
        case _:
            t.tell("umpire", ELSEWHERE, f"{type(ev).__name__.lower()} recorded.")


def _founding(ev: CampaignCreated) -> str:
    """The campaign's first news: who plays and for how long (004 L12)."""
    players = ", ".join(ev.players)
    return f"The campaign {ev.name} began: {players}, for {ev.max_turns} turns."


def _registered(ev: DesignRegistered, viewer: str) -> str:
    """A home-made design registered (004 L26-30): its owner's news, everyone's if public."""
    whose = "your" if ev.player == viewer else f"{ev.player}'s"
    return (
        f"The umpire registered {whose} design {ev.design}: {ev.points} points, built at "
        "63 points per IP (004 L23)."
    )


def _explored(ev: SystemExplored) -> str:
    lost = and_list([_loss(loss) for loss in ev.losses])
    if not ev.explored:
        return f"Every ship sent to explore it was lost: {lost or 'none came back'}."
    planets = and_list(
        [
            f"orbit {p.orbit} {p.type} {p.capacity}M{' (mineral-rich)' if p.mineral_rich else ''}"
            for p in ev.planets
        ]
    )
    text = f"Explored: {planets or 'no planets'}."
    if ev.enemy_colonies:
        text += f" Enemy colonies: {and_list(list(ev.enemy_colonies))}."
    if ev.enemy_ships:
        text += f" Enemy ships: {and_list([count_words(c) for c in ev.enemy_ships])}."
    if lost:
        text += f" Lost to its hazards: {lost}."
    return text


def _loss(loss: Loss) -> str:
    return f"{loss.unit} ({loss.count} ship{'' if loss.count == 1 else 's'})"


def _results(results: Sequence[ShipResult]) -> str:
    fates: dict[str, list[str]] = {}
    for r in results:
        name = r.unit
        if r.fate == "jumped" and r.to_hex:
            name += f" (to {r.to_hex})"
        elif r.fate == "survived" and r.hull_lost:
            name += f" ({counted(r.hull_lost, 'hull box', 'hull boxes')} lost)"
        fates.setdefault(r.fate, []).append(name)
    words = {
        "destroyed": "Destroyed",
        "jumped": "Jumped out",
        "disengaged": "Disengaged",
        "survived": "Came through",
    }
    parts = [f"{words.get(fate, fate)}: {and_list(units)}." for fate, units in fates.items()]
    return " ".join(parts)


def _battle_news(
    t: _Teller,
    ev: (
        BattleRequested
        | BattleFought
        | UnitsCaught
        | EnemyUnitsCaught
        | StoresLost
        | DecoysLost
        | AttackFailed
    ),
) -> None:
    match ev:
        case BattleRequested():
            b = ev.battle
            sides = " against ".join(
                f"{s.player} ({len(s.units)} ship{'' if len(s.units) == 1 else 's'}, "
                f"{_order_words(s.order)})"
                for s in b.sides
            )
            kind = f"a pursuit of {b.pursued}" if b.pursued else f"an {b.type} engagement"
            where = b.location.replace("-", " ")
            t.tell("battles", t.at(b.hex, b.system), f"Battle {b.id}, {kind} in {where}: {sides}.")
        case BattleFought():
            b = ev.battle
            how = "by the engine" if ev.source == "engine" else "at the table"
            if not any(s.units for s in b.sides):  # a side was gone before it (004 5.3.6)
                text = f"Battle {b.id} was not fought: a side had no ship left there."
                t.tell("battles", t.at(b.hex, b.system), text)
                return
            text = f"Battle {b.id} was fought ({how}). {_results(ev.results)}"
            if ev.source == "engine":
                text += (  # where a player reads it: no umpire's command of his
                    f" Turn by turn: battle-{b.id}.html in your published package, or "
                    f"Battles on the players' web page."
                )
            t.tell("battles", t.at(b.hex, b.system), text)
        case UnitsCaught():
            caught = and_list([_loss(loss) for loss in ev.losses])
            whose = f"The warships of {and_list(list(ev.by))}" if ev.by else "Enemy warships"
            text = (
                f"{whose} caught your unescorted ships: lost {caught}."
                if caught
                else f"{whose} caught your unescorted ships, but none were lost."
            )
            t.tell("battles", t.at(ev.hex) if ev.hex else ELSEWHERE, text)
        case EnemyUnitsCaught():
            lost = [
                f"{n} {what}{'' if n == 1 else 's'}"
                for n, what in ((ev.scouts, "scout"), (ev.transports, "colony transport"))
                if n
            ]
            text = f"Your warships caught {ev.owner}'s unescorted ships: " + (
                f"{and_list(lost)} lost." if lost else "none lost, they withdrew."
            )
            t.tell("battles", t.at(ev.hex), text)
        case StoresLost():
            t.tell(
                "battles",
                ELSEWHERE,
                f"{ev.unit} lost {ev.lost} fighters from its hold in battle; {ev.stores} left.",
            )
        case DecoysLost():
            ships = and_list(list(ev.units))
            t.tell("battles", ELSEWHERE, f"The decoy drones of {ships} were lost in {ev.battle}.")
        case AttackFailed():
            t.tell("battles", t.colony_place(ev.system), f"Your attack failed: {ev.reason}.")


def _casualty(t: _Teller, ev: OfficerCasualty | CaptainCasualty) -> None:
    out = f" for {counted(ev.turns_out, 'turn')}" if ev.turns_out else ""
    fate = "killed" if ev.result == "dead" else ev.result
    if isinstance(ev, CaptainCasualty):
        new = f"; the new captain is level {ev.new_captain}" if ev.new_captain else ""
        text = f"The captain of {ev.unit} was {fate}{out}{new}."
    else:
        flag = f"; the flag is now in {ev.new_flagship}" if ev.new_flagship else ""
        text = f"The admiral of {ev.task_force} was {fate}{out}{flag}."
    t.tell("battles", ELSEWHERE, text)


def _colony_news(
    t: _Teller,
    ev: ColonistsLanded
    | LandingFailed
    | ColonyConquered
    | ColonyBombarded
    | FactoriesDestroyed
    | ColonyDetected
    | CommandPostEstablished,
) -> None:
    match ev:
        case ColonistsLanded():
            c = ev.colony
            text = (
                f"{ev.unit} landed {ev.colonists}M colonists on {c.id} ({c.planet_type}); "
                f"{c.population}M of {c.capacity}M live there now."
            )
            t.tell("colonies", t.at(c.hex, c.system), text)
        case LandingFailed():
            text = f"{ev.unit}'s colonists did not land on {ev.planet}: {ev.reason}."
            t.tell("colonies", t.colony_place(ev.planet), text)
        case ColonyConquered():
            c = ev.colony
            # Retaken by its first owner, a colony is free again: liberated (docs/rulings.md).
            how = "liberated" if c.conquered_from is None else "taken"
            text = f"{c.id} was {how} from {ev.previous_owner} by {c.owner}."
            t.tell("colonies", t.at(c.hex, c.system), text)
        case ColonyBombarded():
            ruin = " The planet is devastated." if ev.devastated else ""
            text = (
                f"{ev.attacker} bombarded {ev.colony}: {ev.killed}M killed, "
                f"{ev.population}M left.{ruin}"
            )
            t.tell("colonies", t.colony_place(ev.colony), text)
        case FactoriesDestroyed():
            text = f"The defender of {ev.colony} destroyed its {ev.factories} factories."
            t.tell("colonies", t.colony_place(ev.colony), text)
        case ColonyDetected():
            text = f"{ev.owner} has a colony here: its command post shows."
            t.tell("colonies", t.at(ev.hex, ev.system), text)
        case CommandPostEstablished():
            text = f"A command post was established on {ev.colony}; every player detects it."
            t.tell("colonies", t.colony_place(ev.colony), text)


def _production_news(
    t: _Teller, ev: ProductionResolved | TreasurySpent | ShipsRepaired | FightersResupplied
) -> None:
    match ev:
        case ProductionResolved():
            built = and_list([u.design or f"{u.count} {u.kind}" for u in ev.units])
            text = f"Your colonies produced {ev.produced_ip} IP"
            text += f" ({ev.lost_ip} lost)." if ev.lost_ip else "."
            text += f" Built: {built}." if built else " Nothing was built."
            if ev.acquired:
                text += f" Technology bought: {and_list(list(ev.acquired))}."
            drones = [u.id for u in (*ev.rearmed, *ev.units) if u.decoys]
            if drones:
                text += f" Decoy drones aboard {and_list(drones)}."
            if ev.treasury_lost:
                text += f" {ev.treasury_lost} starting IP never spent were lost (004 L267)."
            if ev.problems:
                text += f" Not carried out: {'; '.join(ev.problems)}."
            t.tell("production", ELSEWHERE, text)
            for c in ev.colonies:
                if c.owner == t.player:
                    text = f"{c.id}: {c.population}M of {c.capacity}M, {c.factories} factories."
                    t.tell("production", t.at(c.hex, c.system), text)
        case TreasurySpent():
            if ev.problems:
                text = f"Your starting treasury was not spent: {'; '.join(ev.problems)}."
            else:
                bought = [*ev.acquired, *(f"{u.id} ({u.design})" for u in ev.units)]
                text = f"You spent starting IP on {and_list(bought) or 'nothing'}; "
                text += f"{ev.empire.ip} IP left."
                if ev.research_lost:
                    text += f" {ev.research_lost} research IP unspent were lost."
            t.tell("production", ELSEWHERE, text)
        case ShipsRepaired():
            text = f"Repaired at a friendly colony: {and_list(list(ev.units))}."
            t.tell("production", ELSEWHERE, text)
        case FightersResupplied():
            fed = and_list([f"{u.id} (hold {u.stores}/{u.hold})" for u in ev.units])
            t.tell("production", ELSEWHERE, f"Tenders gave their fighters to carriers: {fed}.")


def _umpire_news(t: _Teller, ev: Event) -> None:
    match ev:
        case CampaignCreated():
            text = _founding(ev)
        case MapChosen():
            text = f"The map is {ev.title}."
        case UmpireNoted():
            text = f"Note: {ev.text}"
        case DiceRolled():
            faces = " ".join(str(r.value) for r in ev.rolls)
            text = f"The umpire rolled {ev.expression} for {ev.reason}: {faces}."
        case DeadlineSet():
            text = f"Orders for turn {ev.turn} are due by {due_words(ev.deadline)}."
        case TurnHeld():
            text = f"Turn {ev.turn} was held: {ev.reason}."
        case TurnReleased():
            text = f"Turn {ev.turn} was released."
        case AbsentPlayer():
            text = f"{ev.player} sent no orders for turn {ev.turn}: {ev.decision}."
        case UnitRelocated():
            text = f"By ruling, {ev.unit} is now at {ev.hex or 'the entry'}: {ev.reason}."
        case ColonyAdjusted():
            c = ev.colony
            text = (
                f"By ruling, {c.id} now holds {c.population}M, {c.factories} factories, "
                f"{c.pdus} PDUs: {ev.reason}."
            )
        case DiceRerollRuled():
            text = f"By ruling, {', '.join(ev.keys)} will be rolled again: {ev.reason}."
        case DesignRegistered():
            text = _registered(ev, t.player)
        case _:
            text = f"{type(ev).__name__} recorded."
    t.tell("umpire", ELSEWHERE, text)
