"""A `battle_fought` event as a player may read it (docs/rulings.md, "Campaign: what a side
learns of an enemy ship's fate").

With closed record sheets (000 L1462-1466) a side learns of an enemy ship what its sensors knew
at the battle's end, and its fate, which everyone present sees: `battle_as_told` gives the
event with each enemy ship's result cut to that, and without the engine's journal and dice,
which tell every ship's sheet. What each side knew is recorded in the event when the engine
fights the battle (`BattleFought.knowledge`), so telling it replays nothing and loads no
battle engine; an event from before that is told by replaying its journal once
(`campaign.battleknowledge.replayed_knowledge`), the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec

from campaign.battlenames import BattleNames
from campaign.events import UMPIRE, BattleFought, BattleRequested, Event, RecordedEvent
from campaign.storetypes import Lineage, Store
from campaign.strategic import Battle, BattleKnowledge, ShipResult


def battle_as_told(fought: BattleFought, viewer: str) -> BattleFought:
    """Return the `battle_fought` event as `viewer` may read it: as it is for the umpire, for
    a battle recorded by hand (fought at an open table), under open record sheets and when no
    battle was fought; with closed ones, each enemy ship whose damage his side did not know
    cut to its fate (`result_as_known`), what his side knew of each enemy ship and nothing of
    what the other side knew (of his own ships too: that is the other side's), and neither
    the engine's journal nor its dice. His battle report is drawn from the whole event
    (`campaign.battlereport.battle_report`)."""
    if viewer == UMPIRE:
        return fought
    knowledge = fought.knowledge
    if knowledge is None:
        if not fought.journal:
            return fought
        # Fought before the event recorded what each side knew: the engine's replay says.
        from campaign.battleknowledge import replayed_knowledge

        knowledge = replayed_knowledge(fought)
        if knowledge is None:
            return fought
    return told_by(fought, knowledge, viewer)


def told_by(fought: BattleFought, knowledge: BattleKnowledge, viewer: str) -> BattleFought:
    """`battle_as_told` of a battle the engine fought, whose sides knew `knowledge`."""
    if not knowledge.closed:
        return fought
    unknown = knowledge.damage_unknown(viewer)
    return msgspec.structs.replace(
        fought,
        results=tuple(result_as_known(r) if r.unit in unknown else r for r in fought.results),
        journal=None,
        rolls=(),
        knowledge=knowledge.of_side(viewer),
    )


def result_as_known(result: ShipResult) -> ShipResult:
    """A ship's campaign result as a side that did not know its damage may read it (below
    "current damage status", 000 L12658-12660): the ship, its fate and where a jump took it
    when the event tells that. Its hull boxes lost and bridge failures read None, not told (0
    or none would say it lost none); its core and record are left out."""
    return ShipResult(
        unit=result.unit,
        fate=result.fate,
        to_hex=result.to_hex,
        hull_lost=None,
        bridge_failures=None,
    )


def battle_seen_by(battle: Battle, viewer: str) -> Battle:
    """A battle as `viewer` may know it: the other side's admiral left out. His level was
    rolled for his own player (004 section 6) and told to him alone; the enemy learns what
    the admiral does in the battle, not his level before it (docs/rulings.md, "Campaign: an
    enemy admiral's level")."""
    if viewer == UMPIRE or all(s.admiral is None for s in battle.sides if s.player != viewer):
        return battle
    first, second = (
        side if side.player == viewer else msgspec.structs.replace(side, admiral=None)
        for side in battle.sides
    )
    return msgspec.structs.replace(battle, sides=(first, second))


def seen_by(recorded: RecordedEvent, viewer: str) -> RecordedEvent:
    """A stored event as `viewer`'s state folds it: a battle's request and outcome without the
    other side's admiral (`battle_seen_by`); any other event as it is."""
    ev = recorded.event
    if not isinstance(ev, BattleRequested | BattleFought) or viewer == UMPIRE:
        return recorded
    battle = battle_seen_by(ev.battle, viewer)
    if battle is ev.battle:
        return recorded
    return msgspec.structs.replace(recorded, event=msgspec.structs.replace(ev, battle=battle))


def read_as_seen(
    store: Store,
    lineage: Lineage,
    viewer: str,
    after_version: int = 0,
    upto_version: int | None = None,
) -> Iterator[RecordedEvent]:
    """The branch's events `viewer` may see (all, for the umpire), as his state folds them
    (`seen_by`), his battles named as he knows them (`read_named`): the one read of a
    player's events that his state, his report and his log's folds are made from."""
    read = read_named(store, lineage, viewer, after_version, upto_version)
    return read if viewer == UMPIRE else (seen_by(r, viewer) for r in read)


def read_named(
    store: Store,
    lineage: Lineage,
    viewer: str,
    after_version: int = 0,
    upto_version: int | None = None,
    *,
    turn: int | None = None,
    types: Sequence[str] = (),
) -> Iterator[RecordedEvent]:
    """The branch's events `viewer` may see (all, for the umpire), each internal battle id in
    a player's named as he knows the battle (`campaign.battlenames`): every read of a player's
    events goes through here. `turn` and `types` keep only those of a game turn and types."""
    read = store.read(
        lineage,
        after_version=after_version,
        upto_version=upto_version,
        turn=turn,
        types=types,
        visible_to=viewer,
    )
    if viewer == UMPIRE:
        return read
    if after_version == 0 and turn is None and not types:
        # A read from the start holds every request before what names it: learnt as read.
        names = BattleNames(lambda _turn: iter(()))
        return (_named(r, names) for r in read)
    names = battle_names(store, lineage, viewer)
    # Read it all before the names may read: a store holds one read open at a time.
    return (_named(r, names) for r in list(read))


def battle_names(store: Store, lineage: Lineage, player: str) -> BattleNames:
    """The names `player` knows his battles by, whatever he reads: his battle requests read
    once, when a name is first asked, not once a turn (a player's battle reports read every
    battle he fought). For a reader that names only the few events it keeps
    (`BattleNames.told`); the events named must be read before a name is asked, a store
    holding one read open at a time."""
    requested: dict[int, list[Battle]] | None = None

    def earlier(battle_turn: int) -> Iterator[Battle]:
        nonlocal requested
        if requested is None:
            requested = {}
            for r in store.read(lineage, types=[BattleRequested.TYPE], visible_to=player):
                if isinstance(r.event, BattleRequested):
                    requested.setdefault(r.turn, []).append(r.event.battle)
        return iter(requested.get(battle_turn, ()))

    return BattleNames(earlier)


def _named(recorded: RecordedEvent, names: BattleNames) -> RecordedEvent:
    ev = names.told(recorded.event)
    return recorded if ev is recorded.event else msgspec.structs.replace(recorded, event=ev)


def event_as_told(ev: Event, viewer: str) -> Event:
    """An event as `viewer` may read it: a battle's request and outcome without the other
    side's admiral, and a `battle_fought` as his side knew the enemy's ships
    (`battle_as_told`); any other as it is, its audience having let him read it. A battle
    fought under open record sheets is told whole, journal and all, and its set-up names both
    admirals: once fought there, the level shows (docs/rulings.md)."""
    if isinstance(ev, BattleFought):
        ev = battle_as_told(ev, viewer)
        if ev.journal is not None:
            return ev
    if isinstance(ev, BattleRequested | BattleFought):
        battle = battle_seen_by(ev.battle, viewer)
        if battle is not ev.battle:
            return msgspec.structs.replace(ev, battle=battle)
    return ev
