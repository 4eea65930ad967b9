"""Sightings (004 L58-60, L92-93, L100-104): what a player learns of enemy ships each turn.

Exploring a system reports its planets, enemy colonies and enemy ships once (`exploration`).
After that, every turn ends with each player learning the enemy ships where he has a ship or
a colony: the hexes he observes. Like the exploration report, a sighting counts ships by class
only (escorts, cruisers, capital ships; scouts and colony transports by number, L102-103):
identities come only from battle. So the owner of a besieged colony sees its besiegers, and a
player's orders can be checked against the enemies he knows of (`colonies.command_post_hexes`).

A sighting is kept in the player's view until he observes that hex again: a hex he observes
and finds empty clears it. Observing happens in any hex, a star system or open space: ships in
one hex meet there, as battles do (docs/rulings.md).
"""

from __future__ import annotations

from collections import defaultdict

from campaign.events import Audience, NewEvent, ShipsSighted
from campaign.projections import CampaignState
from campaign.strategic import ShipCount, Sighting, Unit
from maps import StarMap, parse_label
from tactical.points import ft2_military_class

_REPORTED_CLASS = {"escort": "escorts", "cruiser": "cruisers", "capital": "capitals"}


def report_class(unit: Unit) -> str:
    """Return the class a report counts a warship in (004 L102-103: "Escorts, Cruisers,
    Capital Ships").

    A merchant hull (a fleet tender) has no military class; it is counted by its mass as a
    military hull of that mass would be (001 L1250-1252; docs/rulings.md).
    """
    if unit.hull_class in _REPORTED_CLASS:
        return unit.hull_class
    return ft2_military_class(unit.mass)


def enemy_ships(state: CampaignState, player: str, hex_label: str) -> tuple[ShipCount, ...]:
    """Return the other players' ships in a hex, per owner, counted by class only."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for unit in state.units.values():
        if unit.hex != hex_label or unit.owner == player:
            continue
        if unit.kind == "warship":
            counts[unit.owner][_REPORTED_CLASS[report_class(unit)]] += 1
        elif unit.kind == "scout-troop":
            counts[unit.owner]["scouts"] += unit.count
        else:
            counts[unit.owner]["transports"] += unit.count
    return tuple(ShipCount(owner=owner, **dict(c)) for owner, c in sorted(counts.items()))


def enemy_colonies(state: CampaignState, player: str, hex_label: str) -> tuple[str, ...]:
    """Return the other players' colonies in a hex, as `owner: planet` (004 5.2: "enemy
    colonies"), hidden ones too: ships in the system see them."""
    return tuple(
        sorted(
            f"{c.owner}: {c.id}"
            for c in state.colonies.values()
            if c.hex == hex_label and c.owner != player
        )
    )


def observed_hexes(state: CampaignState, player: str) -> set[str]:
    """Return the hexes a player observes: where he has a ship or a colony."""
    hexes = {u.hex for u in state.units.values() if u.owner == player and u.hex is not None}
    return hexes | {c.hex for c in state.colonies.values() if c.owner == player}


def decide_sightings(state: CampaignState, starmap: StarMap) -> list[NewEvent]:
    """Tell each player the enemy ships in the hexes he observes at the end of the turn, and
    which hexes he saw before are empty now."""
    batch = []
    for player in sorted(state.empires):
        before = state.sightings.get(player, {})
        seen = []
        for hex_label in sorted(observed_hexes(state, player)):
            ships = enemy_ships(state, player, hex_label)
            colonies = enemy_colonies(state, player, hex_label)
            if ships or colonies or hex_label in before:
                system = starmap.system_at(parse_label(hex_label))
                seen.append(
                    Sighting(
                        hex=hex_label,
                        system=system.name if system else None,
                        turn=state.turn,
                        ships=ships,
                        colonies=colonies,
                    )
                )
        if seen:
            event = ShipsSighted(player=player, sightings=tuple(seen))
            batch.append(
                NewEvent(event=event, audience=Audience.players_([player]), turn=state.turn)
            )
    return batch


def sighted_warships(state: CampaignState, player: str) -> set[str]:
    """Return the hexes where a player's last sightings, made at the end of the turn before,
    saw enemy warships (a player's view holds no enemy units, only these)."""
    return {
        s.hex
        for s in state.sightings.get(player, {}).values()
        if s.turn >= state.turn - 1 and any(c.escorts or c.cruisers or c.capitals for c in s.ships)
    }
