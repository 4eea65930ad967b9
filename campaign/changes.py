"""What changed for a player between two of his views: the "since last turn" part of a report.

Pure: both states must already be the player's own views (folded only from events he may
see), so nothing here can reveal more than he knew at either moment.
"""

from __future__ import annotations

from collections.abc import Iterator

from campaign.projections import CampaignState
from campaign.strategic import Colony, Unit, unit_order


def changes_since(before: CampaignState, after: CampaignState, player: str) -> tuple[str, ...]:
    """Return one plain sentence for each thing that changed in `player`'s view.

    Covers his treasury, FTL speed, technology, exploration, his units and every colony he
    knows of (his own and those he has seen).
    """
    return (
        *_empire_changes(before, after, player),
        *_unit_changes(before.units, after.units, player),
        *_colony_changes(before.colonies, after.colonies, player),
    )


def _empire_changes(before: CampaignState, after: CampaignState, player: str) -> Iterator[str]:
    old, new = before.empires.get(player), after.empires.get(player)
    if new is None:
        return
    if old is None:
        yield f"Your empire entered the map at {new.entry}."
        return
    if new.ip != old.ip:
        yield f"Treasury {old.ip} -> {new.ip} IP ({new.ip - old.ip:+d})."
    if new.speed != old.speed:
        yield f"FTL speed {old.speed} -> {new.speed} hexes a turn."
    gained = [tech for tech in new.techs if tech not in old.techs]
    if gained:
        yield f"New technology: {', '.join(gained)}."
    explored = sorted(set(new.explored) - set(old.explored))
    if explored:
        yield f"Explored: {', '.join(explored)}."


def _unit_changes(before: dict[str, Unit], after: dict[str, Unit], player: str) -> Iterator[str]:
    old = {key: unit for key, unit in before.items() if unit.owner == player}
    new = {key: unit for key, unit in after.items() if unit.owner == player}
    for key in _in_unit_order(new, new.keys() - old.keys()):
        yield f"New: {key} ({_unit_label(new[key])}) at {new[key].hex or 'the entry point'}."
    for key in _in_unit_order(old, old.keys() - new.keys()):
        yield f"Lost: {key} ({_unit_label(old[key])})."
    for key in _in_unit_order(new, old.keys() & new.keys()):
        was, now = old[key], new[key]
        if was.hex is None and now.hex is not None:
            yield f"{key} entered the map at {now.hex}."
        elif now.hex != was.hex:
            yield f"{key} moved {was.hex} -> {now.hex or 'off the map'}."
        if now.count != was.count:
            yield f"{key}: {was.count} -> {now.count} {_plural(now)}."
        if now.hull_lost != was.hull_lost:
            yield f"{key}: hull damage {was.hull_lost} -> {now.hull_lost} boxes."


def _colony_changes(
    before: dict[str, Colony], after: dict[str, Colony], player: str
) -> Iterator[str]:
    for key in sorted(after.keys() - before.keys()):
        colony = after[key]
        whose = "your" if colony.owner == player else f"{colony.owner}'s"
        yield f"New colony {key}: {whose}, population {colony.population}."
    for key in sorted(before.keys() - after.keys()):
        yield f"Colony {key} ({before[key].owner}'s) is gone."
    for key in sorted(before.keys() & after.keys()):
        was, now = before[key], after[key]
        if now.owner != was.owner:
            yield f"Colony {key} passed from {was.owner} to {now.owner}."
        for label, old_value, new_value in (
            ("population", was.population, now.population),
            ("factories", was.factories, now.factories),
            ("robotic factories", was.robotic_factories, now.robotic_factories),
            ("PDUs", was.pdus, now.pdus),
            ("advanced PDBs", was.advanced_pdbs, now.advanced_pdbs),
        ):
            if new_value != old_value:
                yield f"Colony {key}: {label} {old_value} -> {new_value}."
        if now.shield and not was.shield:
            yield f"Colony {key}: planetary shield raised."


def _in_unit_order(units: dict[str, Unit], keys: set[str]) -> list[str]:
    return sorted(keys, key=lambda key: unit_order(units[key]))


def _unit_label(unit: Unit) -> str:
    if unit.kind == "warship":
        return f"{unit.design or 'warship'}, {unit.hull_class or 'unclassed'}"
    return f"{unit.count} {_plural(unit)}"


def _plural(unit: Unit) -> str:
    return "scouts" if unit.kind == "scout-troop" else "transports"
