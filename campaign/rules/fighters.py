"""Replacement fighters and the fleet tenders that carry them (004 L197-201).

004 L197: "Losses to fighter flights may only be made good by the purchase of new fighters
during a Production turn." L198-201: replacements are "carried as freight from the producing
world to the carrier by, and at the speed of, Fleet Tenders", and a tender in the carrier's
task group gives rapid replacement.

So fighters bought at a colony go aboard its owner's carriers in the colony's hex that lack
fighters, then into the holds of his tenders there, built this phase or already there
(`load`). A tender moves like any warship (at the empire's speed, 004 5.1: every ship moves
at it) and, at the end of every turn, gives what it carries to its owner's carriers in its
hex that lack fighters (`decide_resupply`). A tender is a ship: it fights in the battles of its
hex, and its holds lose freight as its hull is hit (`decide_stores_lost`, 001 L1005-1007).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import msgspec

from campaign.events import Audience, FightersResupplied, NewEvent, StoresLost
from campaign.projections import CampaignState
from campaign.rules.battles import carried_state, unit_sheet
from campaign.strategic import ShipResult, Unit
from tactical.ship import ShipState, fresh_state


def missing_fighters(unit: Unit) -> dict[str, int]:
    """Return the fighters each bay of a carrier lacks, by bay id: those lost in battle and
    not yet made good (004 L197). A bay damaged or destroyed is repaired by the next turn."""
    if unit.kind != "warship" or unit.design is None or unit.record is None:
        return {}
    carried = carried_state(unit, unit.record_turn + 1)  # as the next turn finds it
    if carried is None:
        return {}
    sheet = unit_sheet(unit)
    return {
        s.id: spec.bay_capacity - s.fighters
        for spec, s in zip(sheet.systems, carried.systems, strict=True)
        if spec.bay_capacity is not None and s.fighters is not None
        if s.fighters < spec.bay_capacity
    }


def room_for_fighters(unit: Unit) -> int:
    """Return how many fighters a unit can take: what its bays lack, or its hold's room."""
    return sum(missing_fighters(unit).values()) + max(unit.hold - unit.stores, 0)


def _give(unit: Unit, fighters: int, holds: bool) -> tuple[Unit, int]:
    """Put up to `fighters` aboard one unit, its bays first (in bay order), then (`holds`) its
    hold; return it as it stands afterwards and how many it took."""
    taken = 0
    missing = missing_fighters(unit)
    if missing and unit.record is not None:
        systems = []
        for bay in unit.record.systems:
            given = min(fighters - taken, missing.get(bay.id, 0))
            taken += given
            systems.append(
                msgspec.structs.replace(bay, fighters=(bay.fighters or 0) + given) if given else bay
            )
        record = msgspec.structs.replace(unit.record, systems=tuple(systems))
        unit = msgspec.structs.replace(unit, record=record)
    stowed = min(fighters - taken, max(unit.hold - unit.stores, 0)) if holds else 0
    if stowed:
        unit = msgspec.structs.replace(unit, stores=unit.stores + stowed)
    return unit, taken + stowed


def load(
    units: Iterable[Unit], fighters: int, *, holds: bool = True
) -> tuple[tuple[Unit, ...], int]:
    """Put `fighters` aboard `units` in the order given, into their bays and (`holds`) holds.

    Returns the units that took any, as they stand afterwards, and the fighters left over.
    """
    changed = []
    for unit in units:
        if fighters <= 0:
            break
        after, taken = _give(unit, fighters, holds)
        if taken:
            changed.append(after)
            fighters -= taken
    return tuple(changed), fighters


def carriers_first(units: Iterable[Unit]) -> list[Unit]:
    """Return the units that can take fighters: carriers lacking them, then tenders with room,
    each in unit-id order (004 L197-198: the carrier is where replacements are bound)."""
    ordered = sorted(units, key=lambda u: u.id)
    carriers = [u for u in ordered if missing_fighters(u)]
    tenders = [u for u in ordered if u.hold > u.stores and u not in carriers]
    return carriers + tenders


def decide_resupply(state: CampaignState) -> list[NewEvent]:
    """At the end of the turn, each tender gives the fighters in its hold to its owner's
    carriers in its hex that lack fighters (004 L198-201), tenders and carriers in unit-id
    order; the owner alone learns of it."""
    by_place: dict[tuple[str, str], list[Unit]] = defaultdict(list)
    for unit in state.units.values():
        if unit.kind == "warship" and unit.hex is not None:
            by_place[unit.owner, unit.hex].append(unit)
    changed: dict[str, list[Unit]] = defaultdict(list)
    for (player, _hex), here in sorted(by_place.items()):
        tenders = sorted((u for u in here if u.stores > 0), key=lambda u: u.id)
        carriers = {u.id: u for u in sorted(here, key=lambda u: u.id) if missing_fighters(u)}
        for giver in tenders if carriers else ():
            # A ship with bays and a hold of its own gives from its hold to the others only.
            now = carriers.get(giver.id, giver)
            others = [c for c in carriers.values() if c.id != giver.id]
            fed, left = load(others, now.stores, holds=False)
            if not fed:
                continue
            carriers.update((u.id, u) for u in fed)
            emptied = msgspec.structs.replace(now, stores=left)
            if giver.id in carriers:
                carriers[giver.id] = emptied
            changed[player] += [emptied, *fed]
    return [
        NewEvent(
            event=FightersResupplied(player=player, units=_latest(units)),
            audience=Audience.players_([player]),
            turn=state.turn,
        )
        for player, units in sorted(changed.items())
    ]


def _latest(units: list[Unit]) -> tuple[Unit, ...]:
    """Return each unit once, as it last stood, in unit-id order."""
    return tuple(sorted({u.id: u for u in units}.values(), key=lambda u: u.id))


def stores_after(unit: Unit, result: ShipResult) -> int:
    """Return the fighters left in a tender's hold after a battle.

    001 L1007: "the percentage of Damage Points lost equals the percentage of the cargo lost".
    Reckoned battle by battle, the hold keeps the share of its freight that the hull boxes left
    afloat keep of those it came in with, rounded down; a ship lost loses it all.
    """
    if unit.stores <= 0 or result.fate == "destroyed":
        return 0
    lost = result.hull_lost or 0  # a stored result always tells it (None: as told, unknown)
    if unit.design is None or lost <= 0:
        return unit.stores
    boxes = unit_sheet(unit).hull_boxes
    before = max(boxes - unit.hull_lost, 1)
    after = max(before - lost, 0)
    return unit.stores * after // before


def decide_stores_lost(state: CampaignState, results: Iterable[ShipResult]) -> list[NewEvent]:
    """Tell each tender's owner what his holds lost in a battle (001 L1005-1007); a tender
    destroyed takes its freight with it and needs no word."""
    batch = []
    for result in results:
        unit = state.units.get(result.unit)
        if unit is None or unit.stores <= 0 or result.fate == "destroyed":
            continue
        left = stores_after(unit, result)
        if left < unit.stores:
            lost = StoresLost(unit=unit.id, lost=unit.stores - left, stores=left)
            batch.append(
                NewEvent(event=lost, audience=Audience.players_([unit.owner]), turn=state.turn)
            )
    return batch


def _aboard(unit: Unit, turn: int) -> ShipState | None:
    """Return a carrier's record state as it comes into a battle on `turn`; None: no bays."""
    if unit.kind != "warship" or unit.design is None:
        return None
    state = carried_state(unit, turn) or fresh_state(unit_sheet(unit))
    return state if any(s.fighters is not None for s in state.systems) else None


def fighter_loss_problems(unit: Unit | None, result: ShipResult, turn: int) -> list[str]:
    """Check the fighters a hand-entered outcome says a carrier lost (004 L197)."""
    if result.fighters_lost < 0:
        return [f"{result.unit}: fighters lost cannot be negative"]
    if result.fate == "destroyed":
        return [f"{result.unit}: a destroyed ship loses its fighters with it; give no count"]
    state = None if unit is None else _aboard(unit, turn)
    if state is None:
        return [f"{result.unit} carries no fighters"]
    aboard = sum(s.fighters or 0 for s in state.systems)
    if result.fighters_lost > aboard:
        return [f"{result.unit} lost {result.fighters_lost} fighters but had only {aboard} aboard"]
    return []


def with_fighters_lost(unit: Unit | None, result: ShipResult, turn: int) -> ShipResult:
    """Return a hand-entered result whose carrier lost fighters with the record state that
    says so: the ship as it came in, its bays emptied in bay order (docs/rulings.md)."""
    if unit is None or not result.fighters_lost or result.record is not None:
        return result  # a planetary defence, or nothing to say
    state = _aboard(unit, turn)
    assert state is not None  # checked by `fighter_loss_problems`
    left = result.fighters_lost
    systems = []
    for system in state.systems:
        taken = min(left, system.fighters or 0)
        left -= taken
        systems.append(
            msgspec.structs.replace(system, fighters=(system.fighters or 0) - taken)
            if taken
            else system
        )
    record = msgspec.structs.replace(state, ship_id=unit.id, systems=tuple(systems))
    return msgspec.structs.replace(result, record=record)
