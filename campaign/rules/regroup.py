"""Splitting and merging transports and scout troops (004 L27, L31, L67).

"Any or all of a player's ships may move. Ships may move individually" (004 L67): a move may
take part of a group of colony transports (35 at the start, L31) or of a scout troop (9
scouts, L27) with `count`, and that part becomes a new unit. Its id is deterministic: the next
free number of its kind (`red-T2`, `red-S5`), in the order the moves are written, so a player
can land the part he sends (`[[landings]]`) in the same orders. Groups of one kind in one hex
merge with `[[merges]]` (the first listed keeps its id); colonists of a conquered population,
or transports with and without C.E.T. (004 L228-230), never mix.

Both happen at the start of the movement phase, after task forces form (004 L68, docs/
rulings.md): merges first, then the splits, then every move.
"""

from __future__ import annotations

import msgspec

from campaign.events import Audience, Event, MoveLapsed, NewEvent, UnitsMerged, UnitsSplit
from campaign.projections import CampaignState
from campaign.strategic import MergeOrder, Move, SplitPart, Unit, UnitKind, unit_id

SPLITTABLE: tuple[UnitKind, ...] = ("transports", "scout-troop")


class Regroup(msgspec.Struct, frozen=True):
    """A player's merges and splits, the moves with each split part under its new id, and
    every problem with them."""

    merges: tuple[tuple[str, tuple[str, ...]], ...]  # (into, absorbed)
    splits: tuple[SplitPart, ...]
    moves: tuple[Move, ...]
    problems: tuple[str, ...]


def plan_regroup(
    state: CampaignState,
    player: str,
    moves: tuple[Move, ...],
    merges: tuple[MergeOrder, ...] = (),
) -> Regroup:
    """Check a player's merges and split moves against `state`; name the new units."""
    problems: list[str] = []
    counts = {u.id: u.count for u in state.units.values() if u.owner == player}
    merged: list[tuple[str, tuple[str, ...]]] = []
    gone: set[str] = set()
    for order in merges:
        label = f"merge {', '.join(order.units)}"
        units = [state.units.get(uid) for uid in order.units]
        problem = _merge_problem(player, order.units, units, gone)
        if problem is not None:
            problems.append(f"{label}: {problem}")
            continue
        into, *rest = order.units
        counts[into] = sum(counts[uid] for uid in order.units)
        gone.update(rest)
        merged.append((into, tuple(rest)))
    numbers = last_numbers(state, player)
    splits: list[SplitPart] = []
    rewritten: list[Move] = []
    for move in moves:
        if move.count is None:
            rewritten.append(move)
            continue
        unit = state.units.get(move.unit)
        where = f"{move.unit}: a move of {move.count}"
        if unit is None or unit.owner != player or move.unit in gone:
            problems.append(f"{move.unit}: not a unit of {player}")
            continue
        if unit.kind not in SPLITTABLE:
            problems.append(
                f"{where}: only colony transports and scout troops split; a warship moves whole"
            )
            continue
        if move.count < 1 or move.count >= counts[move.unit]:
            problems.append(
                f"{where}: a part must be 1 to {counts[move.unit] - 1} of its "
                f"{counts[move.unit]} (leave `count` out to move them all)"
            )
            continue
        counts[move.unit] -= move.count
        new = next_unit_id(numbers, player, unit.kind)
        splits.append(SplitPart(unit=move.unit, new_unit=new, count=move.count))
        rewritten.append(msgspec.structs.replace(move, unit=new, count=None))
    return Regroup(
        merges=tuple(merged),
        splits=tuple(splits),
        moves=tuple(rewritten),
        problems=tuple(problems),
    )


def _merge_problem(
    player: str, ids: tuple[str, ...], units: list[Unit | None], gone: set[str]
) -> str | None:
    if len(ids) < 2 or len(set(ids)) != len(ids):
        return "name two or more different groups"
    if any(u is None or u.owner != player or u.id in gone for u in units):
        missing = [uid for uid, u in zip(ids, units, strict=True) if u is None or u.owner != player]
        return f"{', '.join(missing) or 'a group'} is not a unit of {player} to merge"
    found = [u for u in units if u is not None]
    if len({u.kind for u in found}) > 1 or found[0].kind not in SPLITTABLE:
        return "only colony transports with transports, or scout troops with scout troops"
    if len({u.hex for u in found}) > 1:
        return "they are not in one hex"
    if len({(u.cet, u.conquered_from) for u in found}) > 1:
        return (
            "transports with and without C.E.T., or of a conquered population and a free "
            "one, never mix (004 L216-217, L228-230)"
        )
    return None


def next_unit_id(numbers: dict[str, int], player: str, kind: UnitKind) -> str:
    """Take the next free number of a kind from `numbers` (`last_numbers`); return its id."""
    letter = unit_id(player, kind, 0).rpartition("-")[2][:1]
    numbers[letter] = numbers.get(letter, 0) + 1
    return unit_id(player, kind, numbers[letter])


def last_numbers(state: CampaignState, player: str) -> dict[str, int]:
    """Each unit kind's last number used by a player (his own view knows them all)."""
    empire = state.empires.get(player)
    last = dict(empire.last_ids) if empire is not None else {}
    for unit in state.units.values():
        if unit.owner == player:
            tag = unit.id.rpartition("-")[2]
            if tag[1:].isdigit():
                last[tag[:1]] = max(last.get(tag[:1], 0), int(tag[1:]))
    return last


def decide_regroup(state: CampaignState) -> tuple[list[NewEvent], dict[str, tuple[Move, ...]]]:
    """Merge and split as ordered; return the events and each player's moves with split parts
    under their new ids. Orders that no longer hold regroup nothing (the moves stand)."""
    batch: list[NewEvent] = []
    moves: dict[str, tuple[Move, ...]] = {}
    for player, submitted in sorted(state.submitted.items()):
        regroup = plan_regroup(state, player, submitted.moves, submitted.merges)
        audience = Audience.players_([player])
        if regroup.problems:
            # Checked at submission; what was lost since breaks it: no part moves, and the
            # player is told why (the rest of his moves stand).
            moves[player] = tuple(m for m in submitted.moves if m.count is None)
            reason = "the split no longer holds: " + "; ".join(regroup.problems)
            batch += [
                NewEvent(
                    event=MoveLapsed(unit=m.unit, to=m.to, reason=reason),
                    audience=audience,
                    turn=state.turn,
                )
                for m in submitted.moves
                if m.count is not None
            ]
            continue
        moves[player] = regroup.moves
        batch += [
            NewEvent(event=ev, audience=audience, turn=state.turn)
            for ev in regroup_events(player, regroup)
        ]
    return batch, moves


def regroup_events(player: str, regroup: Regroup) -> list[Event]:
    """The events of a player's merges and splits (for the record, and for a look-ahead)."""
    events: list[Event] = [
        UnitsMerged(player=player, unit=into, merged=absorbed) for into, absorbed in regroup.merges
    ]
    if regroup.splits:
        events.append(UnitsSplit(player=player, parts=regroup.splits))
    return events
