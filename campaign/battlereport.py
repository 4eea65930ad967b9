"""A battle told to the people who fought it (issue 16): the forces at the start, what became
of each ship, and the table turn by turn, replayed from the engine's journal.

`battle_report(fought, viewer)` is a pure function of a `BattleFought` event (which only the
battle's sides may read) and who asks: a side sees the table as the engine showed it to him
(`tactical.battle.side_view`: the other side's written orders blank, unidentified enemy ships
only as contacts, identified ones as far as his sensors learned them when record sheets are
closed), the umpire sees it all. Renderers draw the report and never look further.

The forces and fates follow the same knowledge (docs/rulings.md, "Campaign: what a side
learns of an enemy ship's fate"): with closed record sheets (000 L1462-1466) a side learns of
an enemy ship what its sensors knew at the battle's end, and its fate, which everyone present
sees: `campaign.battleknowledge` is that rule's home.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence

import msgspec

from campaign.battleknowledge import Journal, ShipKnowledge, decode_journal, enemy_knowledge
from campaign.events import UMPIRE, BattleFought
from campaign.strategic import ShipResult, engine_id
from tactical.battle import (
    BoardingFight,
    BoardingFought,
    CoreSystemsRolled,
    Event,
    FightersResolved,
    MissilesResolved,
    RepairsMade,
    ShipFired,
    ShipsMoved,
    TurnEnded,
    evolve,
    side_view,
)
from tactical.movement import format_mu
from tactical.phases.knowledge import sheets_closed
from tactical.sensors import SYSTEMS_KNOWN, Sensed
from tactical.setup import context, initial_state
from tactical.ship import SystemState
from tactical.state import BattleContext, BattleState
from tactical.summary import describe, describe_move


class ForceShip(msgspec.Struct, frozen=True, kw_only=True):
    """A ship as the battle began. ``None``: the viewer does not know it (an enemy ship whose
    record sheet is closed to him, `ShipKnowledge`); ``seen_as`` then says what he knows."""

    id: str
    side: str
    design: str | None
    hull: int | None  # hull boxes of its design
    hull_left: int | None  # boxes not yet crossed off when the battle began
    captain: int | None = None
    fighters: int | None = 0  # fighters aboard
    missiles: int = 0  # rounds of ammunition (salvo and missile launchers) aboard
    seen_as: str | None = None  # e.g. "capital, mass 120"; "never identified"


class ShipFate(msgspec.Struct, frozen=True, kw_only=True):
    """What became of a ship, and what the battle cost it."""

    id: str
    side: str
    fate: str  # destroyed / jumped / disengaged / survived
    to_hex: str | None = None  # where a ship that jumped came out, when its side was told
    # What the battle cost it; None: the viewer's sensors did not learn its damage (closed
    # record sheets, `ShipKnowledge`).
    hull_lost: int | None = 0  # boxes lost in this battle
    hull_left: int | None = 0
    damaged: tuple[str, ...] | None = ()  # systems damaged in this battle
    destroyed: tuple[str, ...] | None = ()  # systems destroyed in this battle
    fighters_lost: int | None = 0
    missiles_spent: int | None = 0


class Counter(msgspec.Struct, frozen=True, kw_only=True):
    """Something on the table at the end of a turn: a ship, a contact, fighters, a salvo."""

    kind: str  # ship / contact / fighters / salvo
    label: str
    side: str
    x: float
    y: float
    course: int = 0
    status: str = "active"
    hull: str = ""  # a ship's hull boxes left of its design's, e.g. `19/30`


class ReplayTurn(msgspec.Struct, frozen=True, kw_only=True):
    """One turn of the battle: what happened, and the table at its end."""

    turn: int
    lines: tuple[str, ...]
    table: tuple[Counter, ...]


class BattleReport(msgspec.Struct, frozen=True, kw_only=True):
    """A battle as `viewer` saw it."""

    id: str
    viewer: str
    where: str
    kind: str  # even / pursuit
    pursued: str | None
    location: str
    source: str  # engine / umpire
    sides: tuple[str, ...]
    orders: tuple[tuple[str, str], ...]  # (side, combat order)
    forces: tuple[ForceShip, ...]
    fates: tuple[ShipFate, ...]
    start: tuple[Counter, ...] = ()
    turns: tuple[ReplayTurn, ...] = ()
    winner: str | None = None
    rules: str | None = None  # the engine's preset (004 section 4): continuum or ft2
    movement: str | None = None  # vector (004 L43), cinematic or spatial


def participants(fought: BattleFought) -> frozenset[str]:
    """The players whose ships fought the battle: the only ones who may see it."""
    return frozenset(side.player for side in fought.battle.sides)


def battle_report(fought: BattleFought, viewer: str, where: str) -> BattleReport:
    """Return the battle as `viewer` (a side of it, or the umpire) saw it.

    Raises:
        ValueError: `viewer` fought no part in it (the service refuses before this).
    """
    if viewer != UMPIRE and viewer not in participants(fought):
        raise ValueError(f"{viewer} was not in battle {fought.battle.id}")
    b = fought.battle
    base = BattleReport(
        id=b.id,
        viewer=viewer,
        where=where,
        kind=b.type,
        pursued=b.pursued,
        location=b.location,
        source=fought.source,
        sides=tuple(s.player for s in b.sides),
        orders=tuple((s.player, s.order) for s in b.sides),
        forces=tuple(
            ForceShip(id=u, side=s.player, design="", hull=0, hull_left=0)
            for s in b.sides
            for u in s.units
        ),
        fates=tuple(_fate(r, _side_of(fought, r.unit)) for r in fought.results),
    )
    record = decode_journal(fought.journal)
    if record is None:
        return base
    return _replayed(base, fought, record, viewer)


def _side_of(fought: BattleFought, unit: str) -> str:
    return next((s.player for s in fought.battle.sides if unit in s.units), "")


def _fate(result: ShipResult, side: str) -> ShipFate:
    return ShipFate(
        id=result.unit,
        side=side,
        fate=result.fate,
        to_hex=result.to_hex,
        hull_lost=result.hull_lost,
    )


def _ammo(state: BattleState, ship_id: str) -> tuple[int, int]:
    ship = next(s for s in state.ships if s.id == ship_id)
    fighters = sum(s.fighters or 0 for s in ship.record.systems)
    ammo = sum(s.ammo or 0 for s in ship.record.systems)
    return fighters, ammo


def _replayed(
    base: BattleReport, fought: BattleFought, record: Journal, viewer: str
) -> BattleReport:
    ctx = context(record.setup)
    first = initial_state(ctx)
    names = {engine_id(r.unit): r.unit for r in fought.results}
    turns: list[ReplayTurn] = []
    state = first
    lines: list[str] = []
    turn = state.turn
    # Under closed record sheets each event is told as the side saw it when it happened
    # (`told_as_seen`); else the turn's lines are cut at its end (`_turn`).
    fog = viewer != UMPIRE and sheets_closed(ctx)
    systems = EnemySystems()  # the labels his side gives the enemy's systems, battle-long
    for event in record.journal:
        if event.turn != turn and lines:
            turns.append(_turn(ctx, turn, lines, state, viewer, fog, systems))
            lines = []
        turn = event.turn
        before, state = state, evolve(ctx, state, event)
        if fog:
            lines.extend(told_as_seen(ctx, before, state, event, viewer, systems))
        else:
            lines.extend(describe(event, ctx.rules.movement))
    if lines:
        turns.append(_turn(ctx, turn, lines, state, viewer, fog, systems))
    knowledge = enemy_knowledge(ctx, state, viewer)
    results = {r.unit: r for r in fought.results}
    fates = []
    for ship in first.ships:
        end = next(s for s in state.ships if s.id == ship.id)
        was = {s.id: s.status for s in ship.record.systems}
        fighters_then, ammo_then = _ammo(first, ship.id)
        fighters_now, ammo_now = _ammo(state, ship.id)
        uid = names.get(ship.id, ship.id)
        result = results.get(uid)
        hull = ctx.sheets[ship.id].hull_boxes
        fate = ShipFate(
            id=uid,
            side=ship.side,
            fate=result.fate if result else end.status,
            to_hex=result.to_hex if result else None,
            hull_lost=sum(end.record.hull_lost) - sum(ship.record.hull_lost),
            hull_left=max(hull - sum(end.record.hull_lost), 0),
            damaged=_newly(end.record.systems, was, "damaged"),
            destroyed=_newly(end.record.systems, was, "destroyed"),
            fighters_lost=max(fighters_then - fighters_now, 0),
            missiles_spent=max(ammo_then - ammo_now, 0),
        )
        fates.append(fate_as_known(fate, knowledge.get(ship.id)))
    return msgspec.structs.replace(
        base,
        forces=_forces(ctx, record, first, names, viewer, knowledge),
        fates=tuple(fates),
        start=_table(ctx, first, viewer, systems if fog else None),
        turns=tuple(turns),
        winner=state.winner,
        rules=record.setup.rules,
        movement=record.setup.movement,
    )


def _forces(
    ctx: BattleContext,
    record: Journal,
    first: BattleState,
    names: Mapping[str, str],
    viewer: str,
    knowledge: Mapping[str, ShipKnowledge],
) -> tuple[ForceShip, ...]:
    """The ships as the battle began, as `viewer` knew them at its end."""
    captains = {ship.id: ship.captain for side in record.request.sides for ship in side.ships}
    forces = []
    for ship in first.ships:
        sheet = ctx.sheets[ship.id]
        fighters, ammo = _ammo(first, ship.id)
        # His own captains and magazines: the enemy's are not on the table (his record sheet
        # and his officers are his own, docs/rulings.md).
        own = viewer in (UMPIRE, ship.side)
        force = ForceShip(
            id=names.get(ship.id, ship.id),
            side=ship.side,
            design=ship.design,
            hull=sheet.hull_boxes,
            hull_left=sheet.hull_boxes - sum(ship.record.hull_lost),
            captain=captains.get(ship.id) if own else None,
            fighters=fighters,
            missiles=ammo if own else 0,
        )
        forces.append(force_as_known(force, knowledge.get(ship.id)))
    return tuple(forces)


# ---------------------------------------------------------------- what a side learns of a ship


def force_as_known(force: ForceShip, known: ShipKnowledge | None) -> ForceShip:
    """A ship at the battle's start as a side knowing it as `known` may tell it (None: all):
    its design and hull boxes from "all onboard systems", what it carried in (damage, fighters
    aboard) only with "current damage status" (000 L12656-12660)."""
    if known is None or known.damage_known:
        return force
    design = known.design_known
    return msgspec.structs.replace(
        force,
        design=force.design if design else None,
        hull=force.hull if design else None,
        hull_left=None,
        fighters=None,
        seen_as=known.seen_as,
    )


def fate_as_known(fate: ShipFate, known: ShipKnowledge | None) -> ShipFate:
    """What became of a ship as a side knowing it as `known` may tell it (None: all): its fate
    always (destroyed, struck, withdrew, jumped, came through: seen by all present), what it
    cost the ship only with "current damage status" (000 L12658-12660)."""
    if known is None or known.damage_known:
        return fate
    return msgspec.structs.replace(
        fate,
        hull_lost=None,
        hull_left=0 if fate.fate == "destroyed" else None,
        damaged=None,
        destroyed=None,
        fighters_lost=None,
        missiles_spent=None,
    )


def _newly(systems: Sequence[SystemState], was: Mapping[str, str], status: str) -> tuple[str, ...]:
    return tuple(s.id for s in systems if s.status == status and was.get(s.id) != status)


def _seen(ctx: BattleContext, state: BattleState, viewer: str) -> tuple[BattleContext, BattleState]:
    return (ctx, state) if viewer == UMPIRE else side_view(ctx, state, viewer)


def _table(
    ctx: BattleContext, state: BattleState, viewer: str, systems: EnemySystems | None = None
) -> tuple[Counter, ...]:
    """The table at the end of a turn as `viewer` saw it; with `systems` (closed record
    sheets), an enemy salvo of a ship whose design his side does not know is labelled as his
    account tells it (`EnemySystems`), its launcher's id untold."""
    seen_ctx, seen = _seen(ctx, state, viewer)
    labels = [f"salvo {s.id}" for s in seen.salvos]
    if systems is not None and labels:
        # Read once a table: whose design the viewer does not know, and the contacts' labels.
        hidden, kinds = _unknown_design(ctx, state, viewer), _kinds(state)
        contacts = _contacts(state, viewer)
        labels = [_renamed(systems.text(label, hidden, kinds), contacts) for label in labels]

    counters = [
        Counter(
            kind="ship",
            label=s.id,
            side=s.side,
            x=s.x,
            y=s.y,
            course=s.course,
            status=s.status,
            # An enemy ship known only in part: its sheet is the side's estimate (`side_view`).
            hull="?"
            if s.sighting is not None
            else f"{max(boxes - sum(s.record.hull_lost), 0)}/{boxes}",
        )
        for s in seen.ships
        for boxes in [seen_ctx.sheets[s.id].hull_boxes]
    ]
    counters += [
        Counter(kind="contact", label=b.label, side=b.side, x=b.x, y=b.y, course=b.course)
        for b in seen.bogeys
    ]
    counters += [
        Counter(kind="fighters", label=f"{g.fighters} fighters", side=g.side, x=g.x, y=g.y)
        for g in seen.fighters
    ]
    counters += [
        Counter(kind="salvo", label=label, side=s.side, x=s.x, y=s.y)
        for s, label in zip(seen.salvos, labels, strict=True)
    ]
    return tuple(counters)


def _turn(
    ctx: BattleContext,
    turn: int,
    lines: list[str],
    state: BattleState,
    viewer: str,
    as_seen: bool = False,
    systems: EnemySystems | None = None,
) -> ReplayTurn:
    """A turn of the battle: its lines (``as_seen``: already as the viewer saw them, with the
    labels `systems` gives the enemy's systems, else cut by what he knew at the turn's end:
    open record sheets) and the table at its end."""
    if as_seen:
        table = _table(ctx, state, viewer, systems)
        return ReplayTurn(turn=turn, lines=tuple(lines), table=table)
    hidden: set[str] = set()
    closed: set[str] = set()
    if viewer != UMPIRE:
        seen = _seen(ctx, state, viewer)[1]
        hidden = {s.id for s in state.ships if s.id not in {v.id for v in seen.ships}}
        closed = {s.id for s in seen.ships if s.sighting is not None}
    told = tuple(
        kept
        for line in lines
        if not _mentions(line, hidden)
        for kept in [_outside(line, closed)]
        if kept is not None
    )
    return ReplayTurn(turn=turn, lines=told, table=_table(ctx, state, viewer))


# The lines of `tactical.summary.describe` that tell what only a ship's record sheet shows.
_INSIDE = (
    re.compile(r"\s*(?P<ship>\S+) threshold check \("),  # the systems a check took
    re.compile(r"\s*(?P<ship>\S+) repair \S+ with "),  # its damage control parties at work
    re.compile(r"\s*(?P<ship>\S+)'s damaged power core rolls \d+: holds"),
)
_HIT = re.compile(
    r"(?P<head>\s*(?P<ship>\S+) takes \d+)(?: \(\d+ to armour\))?(?:, rows? [\d, ]+ gone)?"
)


def _outside(line: str, closed: set[str]) -> str | None:
    """A journal line as a side may read it when the ships in ``closed`` are enemy ships
    whose damage its sensors have not learned (closed record sheets, 000 L1462-1466,
    L12658-12660): their threshold checks, repairs and damaged power cores are not told,
    and of a hit on one only the damage it took (the firer's own dice) and whether it was
    destroyed, not its armour or rows; ``None`` when the line is not told at all."""
    if not closed:
        return line
    if any((m := p.match(line)) and m["ship"] in closed for p in _INSIDE):
        return None
    hit = _HIT.match(line)
    if hit and hit["ship"] in closed:
        return hit["head"] + line[hit.end() :]
    return line


def _mentions(line: str, ids: set[str]) -> bool:
    return any(re.search(rf"(?<![\w.-]){re.escape(i)}(?![\w-])", line) for i in ids)


# ---------------------------------------------------------------- the journal as a side saw it


def told_as_seen(
    ctx: BattleContext,
    before: BattleState,
    after: BattleState,
    event: Event,
    viewer: str,
    systems: EnemySystems | None = None,
) -> list[str]:
    """Return the lines that tell one journal event (`tactical.summary.describe`) as `viewer`'s
    side saw it happen under closed record sheets (docs/rulings.md, "Campaign: a battle told
    turn by turn to a side"); `before` and `after` are the states around it.

    - An enemy counter his side has not identified is told by the label his table shows it
      by, `?B1` (001 L939-945: a bogey shows its label, place, course and speed), until the
      line that identifies it, which names both; a dummy is never told as one before that.
    - The enemy's orders are never told (001 L248): an enemy ship's move is where it went, its
      facing and motion; a fighter group's likewise; no void order, standing scramble, ram that
      was ordered and never tried, nor repairs (the enemy's damage control and its dice).
    - What a ship's record sheet alone shows is told only of an enemy ship his sensors know
      "everything" of (000 L12658-12660, `_outside`); of his own ships, what the enemy's
      scans learnt of them is the enemy's (docs/rulings.md).
    - The systems of an enemy ship whose design his side does not know (000 L12656: "all
      onboard systems") are never told by their ids, which tell the design (how many hangar
      bays, which weapons): its fighter groups, salvos and mines, the weapons it fires and
      the marines it loses are told by labels numbered as he first met them (`?B1 fighters
      1`, `blue-W1 salvo 2`, `weapon 1`), kept for the whole battle in `systems` (one per
      account: without it, numbered afresh).
    """
    systems = systems if systems is not None else EnemySystems()
    sides = {s.id: s.side for s in ctx.setup.ships} | {d.id: d.side for d in ctx.setup.dummies}

    def enemy(counter: str) -> bool:
        carrier = counter.split(".", maxsplit=1)[0]  # a fighter group by its carrier
        return sides.get(carrier, viewer) != viewer

    was = _contacts(before, viewer)
    now = _contacts(after, viewer)
    closed, hidden = _unknown(ctx, before, viewer)  # hidden: whose systems go by labels
    closed |= _unknown_damage(ctx, after, viewer)
    kinds = _kinds(before) | _kinds(after)
    event = _systems_unnamed(event, hidden, systems)

    def told(lines: list[str], names: dict[str, str]) -> list[str]:
        return [
            _renamed(systems.text(kept, hidden, kinds), names)
            for line in lines
            for seen in [_enemy_outside(line, enemy)]
            if seen is not None
            for kept in [_outside(seen, closed)]
            if kept is not None
        ]

    if isinstance(event, ShipsMoved):
        return _moves_as_seen(ctx, event, was, told, enemy)
    if isinstance(event, RepairsMade) and event.side != viewer:
        return []  # its damage control parties and their dice are the enemy's own
    lines = describe(event, ctx.rules.movement)
    if isinstance(event, FightersResolved):
        # One line a group's move, after the heading: an enemy group's without its order.
        for index, moved in enumerate(event.moves, start=1):
            if enemy(moved.group):
                lines[index] = f"    {moved.group} to {format_mu(moved.x)},{format_mu(moved.y)}" + (
                    ", lands" if moved.recovered else ""
                )
    if isinstance(event, ShipFired) and event.ship in was:
        if event.ship in now:  # still a contact: it fired nothing that gives it away
            return told(lines, now) if event.shots else []
        revealed = f"  {was[event.ship]} fires, giving itself away: it is {event.ship}"
        return [revealed, *told(lines, now)]
    return told(lines, now)


def _moves_as_seen(
    ctx: BattleContext,
    event: ShipsMoved,
    was: dict[str, str],
    told: Callable[[list[str], dict[str, str]], list[str]],
    enemy: Callable[[str], bool],
) -> list[str]:
    """A movement step as a side saw it (`told_as_seen`), `was` its contacts before it: the
    moves while the enemy's contacts were still contacts, then each identification as it
    came, then what followed (rams, the first to fire, thresholds) as the identifications
    left the table."""
    movement = ctx.rules.movement
    nothing: dict[str, object] = {
        "moves": (),
        "first": None,
        "nova": (),
        "thresholds": (),
        "mines": (),
        "decoys": (),
        "sensed": (),
        "rams": (),
        "asteroids": (),
        "dropouts": (),
    }

    def part(**kept: object) -> list[str]:
        return describe(msgspec.structs.replace(event, **(nothing | kept)), movement)[1:]

    lines = describe(msgspec.structs.replace(event, **nothing), movement)
    for dropout in event.dropouts:
        told_lines = part(dropouts=(dropout,))
        if enemy(dropout.ship):
            # Where it aimed is its order; a ship that never entered was never seen.
            if not dropout.entered:
                continue
            where = f"{format_mu(dropout.x)},{format_mu(dropout.y)}"
            told_lines[0] = f"    {dropout.ship} drops out of FTL, appears at {where}"
        lines += told(told_lines, was)
    jumps: list[str] = []
    for moved in event.moves:
        if moved.ship in was:
            continue  # a contact's: below
        own = part(moves=(moved,))  # its move, then its FTL jump's lines
        if enemy(moved.ship):
            own[0] = describe_move(moved, movement, written=False)
        lines += told(own[:1], was)
        jumps += own[1:]
    # The contacts' moves, ships' and dummies' alike, in the order of their labels: in the
    # journal's (by id, the dummies last) their order would tell which was which.
    contacts = sorted(
        (m for m in (*event.moves, *event.decoys) if m.ship in was),
        key=lambda m: (len(was[m.ship]), was[m.ship]),  # as the table orders them: ?B2, ?B10
    )
    for moved in contacts:
        lines += told([describe_move(moved, movement, written=False)], was)
        if moved.ftl is not None:
            jumps += part(moves=(moved,))[1:]
    lines += told(jumps, was)
    lines += [line for d in event.decoys if d.ship not in was for line in part(decoys=(d,))]
    lines += told(part(asteroids=event.asteroids, mines=event.mines), was)
    names = dict(was)
    for sensed in event.sensed:
        lines += _sensed_as_seen(sensed, part(sensed=(sensed,)), names, enemy)
    rams = tuple(
        ram
        for ram in event.rams
        # A ram the enemy ordered and never tried is an order, not seen.
        if not (enemy(ram.ship) and (ram.reason is not None or ram.proceed is None))
    )
    rest = part(rams=rams, first=event.first, nova=event.nova, thresholds=event.thresholds)
    return lines + told(rest, names)


def _sensed_as_seen(
    sensed: Sensed, lines: list[str], names: dict[str, str], enemy: Callable[[str], bool]
) -> list[str]:
    """One identification as a side saw it (`told_as_seen`); `names` are the enemy's
    contacts so far, and lose the one identified."""
    (line,) = lines
    if not enemy(sensed.counter):
        # His own counter turned over: by the enemy, what its scan learnt is the enemy's.
        line = line.split(", which learns ")[0]
        if sensed.by in names:
            removed = ", removed" if sensed.dummy else ""
            line = line.split(" identified by ")[0] + " identified by the enemy" + removed
        return [_renamed(line, names)]
    label = names.pop(sensed.counter, None)
    if label is None:
        return [_renamed(line, names)]
    if sensed.how == "self":
        return [f"    {label} gives itself away: it is {sensed.counter}"]
    if sensed.dummy:
        return [_renamed(line.replace(sensed.counter, label, 1), names)]
    return [
        _renamed(
            line.replace(
                f"{sensed.counter} identified by", f"{label} identified as {sensed.counter} by", 1
            ),
            names,
        )
    ]


def _contacts(state: BattleState, viewer: str) -> dict[str, str]:
    """The enemy counters `viewer`'s side has not identified in `state`, by id: the label his
    table shows each by (`tactical.battle.view`), as his report tells it, `?B1`."""
    names = {s.id: f"?{s.bogey}" for s in state.ships if s.side != viewer and s.bogey is not None}
    names.update({d.id: f"?{d.label}" for d in state.dummies if d.side != viewer})
    return names


def _unknown_damage(ctx: BattleContext, state: BattleState, viewer: str) -> set[str]:
    """The enemy ships whose damage `viewer`'s sensors did not know in `state`: contacts, and
    ships identified and not scanned to "everything" (`side_view`, 000 L12658-12660)."""
    return _unknown(ctx, state, viewer)[0]


def _unknown(ctx: BattleContext, state: BattleState, viewer: str) -> tuple[set[str], set[str]]:
    """The enemy ships whose damage (`_unknown_damage`), and those whose design
    (`_unknown_design`), `viewer`'s sensors did not know in `state`: one side view for both."""
    seen = side_view(ctx, state, viewer)[1].ships
    enemy = [s.id for s in state.ships if s.side != viewer]
    whole = {s.id for s in seen if s.sighting is None}
    design = whole | {s.id for s in seen if s.sighting and s.sighting.level >= SYSTEMS_KNOWN}
    return {i for i in enemy if i not in whole}, {i for i in enemy if i not in design}


# The lines that tell what only the enemy's own people know: its fighters' re-arming dice
# (000 8.16), and its FTL Move ship's die that readies the jump (004 L142-143), whose jump
# shows when it is made.
_ENEMY_INSIDE = (
    re.compile(r"\s*(?P<counter>\S+) re-arms \["),
    re.compile(r"\s*(?P<counter>\S+) is ready to power up for a jump$"),
)
# An enemy carrier's scramble die (000 8.3): what gets away is seen, not the die or a mishap
# in its bays.
_SCRAMBLE = re.compile(r"(?P<head>\s*(?P<counter>\S+) scrambles) \[\d+\]: (?P<rest>.*)$")


def _enemy_outside(line: str, enemy: Callable[[str], bool]) -> str | None:
    """A journal line as the other side may read it when it tells what only the enemy's own
    people know (`_ENEMY_INSIDE`, `_SCRAMBLE`); ``None`` when not told at all."""
    if any((m := p.match(line)) and enemy(m["counter"]) for p in _ENEMY_INSIDE):
        return None
    scramble = _SCRAMBLE.match(line)
    if scramble and enemy(scramble["counter"]):
        mishap = scramble["rest"].startswith("a mishap")
        return f"{scramble['head']}: " + ("no group gets away" if mishap else scramble["rest"])
    return line


def _renamed(line: str, names: Mapping[str, str]) -> str:
    """`line` with each counter of `names` told by its name there (an id by its contact's
    label), a fighter group by its carrier's (`blue-W1.hangar_bay-1`)."""
    if not names:
        return line
    ids = "|".join(re.escape(i) for i in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w.?-])(?:{ids})(?![\w-])", lambda m: names[m[0]], line)


# ---------------------------------------------------------------- the enemy's systems, unnamed


class EnemySystems:
    """The labels one side's account of a battle gives the systems of enemy ships whose
    design his side does not know (`told_as_seen`): a system's id (`hangar_bay-2`,
    `beam3-2`, a salvo's `blue-W1.salvo_rack-1.t3`) tells how many of which the design
    carries, which his scans never opened. Each gets a label when his account first tells
    it, numbered among that ship's of its kind in that order (`blue-W1 fighters 1`, `blue-W1
    salvo 2`, `blue-W1 mine 1`; a weapon, told beside its ship, `weapon 1`), and keeps it to
    the battle's end; so nothing in a label comes from what he did not see."""

    def __init__(self) -> None:
        self._labels: dict[tuple[str, str], str] = {}
        self._counts: dict[tuple[str, str], int] = {}
        self._ships: set[str] = set()  # those with a label

    def label(self, ship: str, system: str, kind: str) -> str:
        """The label of `ship`'s `system` (an id on its sheet, or a group's, salvo's or
        mine's whole id), given when first asked."""
        key = (ship, system)
        if key not in self._labels:
            self._counts[(ship, kind)] = number = self._counts.get((ship, kind), 0) + 1
            told = f"{kind} {number}" if kind == "weapon" else f"{ship} {kind} {number}"
            self._labels[key] = told
            self._ships.add(ship)
        return self._labels[key]

    def labelled(self, ship: str, system: str) -> bool:
        return (ship, system) in self._labels

    def text(self, line: str, hidden: set[str], kinds: Mapping[str, str]) -> str:
        """`line` with each fighter group, salvo and mine of a ship in `hidden` (or labelled
        before) by its label; `kinds` says which each id is (`_kinds`). A label stands for
        the word before the id it replaces (`salvo blue-W1.salvo_rack-1.t3` is `blue-W1 salvo
        1`)."""
        ships = hidden | self._ships
        if "." not in line or not ships:
            return line

        def unnamed(match: re.Match[str]) -> str:
            whole, ship = match["id"], match["ship"]
            if ship not in hidden and not self.labelled(ship, whole):
                return match[0]
            kind = kinds.get(whole) or ("salvo" if re.search(r"\.t\d+$", whole) else "fighters")
            told = self.label(ship, whole, kind)
            word = match["word"]
            return told if word in (None, kind) else f"{word} {told}"

        return _composite(frozenset(ships)).sub(unnamed, line)


@functools.lru_cache(maxsize=64)
def _composite(ships: frozenset[str]) -> re.Pattern[str]:
    """A fighter group's, salvo's or mine's id of one of `ships` (`ship.system`,
    `ship.system.t3`; a ship's own id may hold dots, a colony's defences `Alpha.3.pdu-1`),
    and the word before it that a label stands for."""
    names = "|".join(re.escape(s) for s in sorted(ships, key=len, reverse=True))
    return re.compile(
        rf"(?:\b(?P<word>salvo|mine) )?(?<![\w.?-])"
        rf"(?P<id>(?P<ship>{names})\.[\w-]+(?:\.t\d+)?)(?![\w.-])"
    )


def _kinds(state: BattleState) -> dict[str, str]:
    """What each fighter group's, salvo's and mine's id on the table names."""
    kinds = {g.id: "fighters" for g in state.fighters}
    kinds.update({s.id: "salvo" for s in state.salvos})
    kinds.update({m.id: "mine" for m in state.mines})
    return kinds


def _unknown_design(ctx: BattleContext, state: BattleState, viewer: str) -> set[str]:
    """The enemy ships whose design `viewer`'s sensors did not know in `state`: contacts,
    and ships identified and not scanned to "all onboard systems" (000 L12656)."""
    return _unknown(ctx, state, viewer)[1]


def _systems_unnamed(event: Event, hidden: set[str], systems: EnemySystems) -> Event:
    """The event with the weapons and point defences the ships in `hidden` fired, and the
    marines they lost to boarders, told without their ids (`EnemySystems`): labels for the
    weapons, the marines killed counted but not named."""

    def weapon(ship: str, system: str) -> str:
        if "." in system or (ship not in hidden and not systems.labelled(ship, system)):
            return system  # a salvo marker in flight (`EnemySystems.text`), or known
        return systems.label(ship, system, "weapon")

    def fights(found: tuple[BoardingFight, ...]) -> tuple[BoardingFight, ...]:
        return tuple(
            msgspec.structs.replace(f, marines_lost=()) if f.ship in hidden else f for f in found
        )

    if isinstance(event, ShipFired):
        shots = tuple(
            msgspec.structs.replace(shot, weapon=weapon(event.ship, shot.weapon))
            for shot in event.shots
        )
        return msgspec.structs.replace(event, shots=shots)
    if isinstance(event, FightersResolved):
        return msgspec.structs.replace(
            event,
            defence=tuple(
                msgspec.structs.replace(d, system=weapon(d.ship, d.system)) for d in event.defence
            ),
            salvo_defence=tuple(
                msgspec.structs.replace(d, system=weapon(d.ship, d.system))
                for d in event.salvo_defence
            ),
        )
    if isinstance(event, MissilesResolved):
        defence = tuple(
            msgspec.structs.replace(d, system=weapon(d.ship, d.system)) for d in event.defence
        )
        return msgspec.structs.replace(event, defence=defence)
    if isinstance(event, BoardingFought):
        return msgspec.structs.replace(event, fights=fights(event.fights))
    if isinstance(event, CoreSystemsRolled | TurnEnded):
        return msgspec.structs.replace(event, boarding=fights(event.boarding))
    return event
