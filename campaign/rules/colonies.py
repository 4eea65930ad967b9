"""Disembarking colonists onto planets (004 section 5.5) and founding colonies.

A landing is ordered with the turn's moves: the transports must end the move in the planet's
system, the player must know the planet (he explored the system), and the planet must be empty
or his own free colony, with room under its capacity. Barren planets need Controlled
Environment Technology, and only transports built with it can settle them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

import msgspec

from campaign.events import (
    Audience,
    ColonistsLanded,
    ColonyDetected,
    CommandPostEstablished,
    LandingFailed,
    NewEvent,
    ShipsRepaired,
)
from campaign.projections import CampaignState
from campaign.rules.sightings import sighted_warships
from campaign.rules.technology import has_cet
from campaign.strategic import Colony, Landing, Unit, planet_id
from maps import StarMap, parse_label
from maps.model import Planet, StarSystem


def find_planet(starmap: StarMap, pid: str) -> tuple[StarSystem, Planet] | None:
    """Return the system and planet a `System/orbit` id names, or None."""
    system_name, _, orbit_text = pid.rpartition("/")
    if not orbit_text.isdigit():
        return None
    try:
        system = starmap.system(system_name)
    except KeyError:
        return None
    planet = next((p for p in system.planets if p.orbit == int(orbit_text)), None)
    return None if planet is None else (system, planet)


def check_landings(
    state: CampaignState,
    starmap: StarMap,
    player: str,
    landings: tuple[Landing, ...],
    positions: Mapping[str, str | None],
) -> list[str]:
    """Return every problem with a player's landings; `positions` are where units will be."""
    problems: list[str] = []
    empire = state.empires.get(player)
    landed: dict[str, int] = defaultdict(int)
    for landing in landings:
        where = f"{landing.unit} to {landing.planet}"
        unit = state.units.get(landing.unit)
        if unit is None or unit.owner != player or unit.kind != "transports":
            groups = sorted(
                u.id for u in state.units.values() if u.owner == player and u.kind == "transports"
            )
            problems.append(
                f"{where}: not a transport group of {player} "
                f"(his transport groups: {', '.join(groups) or 'none'})"
            )
            continue
        system_name, _, orbit = landing.planet.rpartition("/")
        known = empire is not None and system_name in empire.explored
        found = find_planet(starmap, landing.planet)
        if found is None and not known and _has_system(starmap, system_name):
            # Landing on arrival (004 L56-63: explore, then disembark, in one turn): the
            # planets are not known yet; the landing lapses with a note if the orbit turns
            # out empty or unsuitable (`decide_landings`).
            problems += _arrival_problems(starmap, landing, unit, orbit, positions)
            continue
        if found is None:
            problems.append(f"{where}: {_no_planet(starmap, system_name, known)}")
            continue
        system, planet = found
        landed[landing.unit] += landing.colonists
        if landing.colonists < 1 or landed[landing.unit] > unit.count:
            problems.append(f"{where}: {unit.id} carries {unit.count} million colonists in all")
        if not known:
            problems.append(f"{where}: {player} has not explored {system.name}")
        if positions.get(landing.unit) != _label(system):
            problems.append(f"{where}: the transports will not be in {system.name} this turn")
        if landing.planet in state.devastated:
            problems.append(f"{where}: the planet is devastated and may not be resettled (004 5.4)")
        colony = state.colonies.get(landing.planet)
        if colony is not None and not may_join(colony, unit):
            whose = "own free one" if unit.conquered_from is None else "conquered population's"
            problems.append(f"{where}: the planet holds a colony that is not {player}'s {whose}")
        population = colony.population if colony is not None else 0
        if population + landing.colonists > planet.capacity:
            problems.append(
                f"{where}: {population + landing.colonists} million would exceed the planet's "
                f"capacity of {planet.capacity} million"
            )
        owned = () if empire is None else empire.techs
        if planet.type == "barren" and not (has_cet(owned) and unit.cet):
            problems.append(
                f"{where}: barren planets need Controlled Environment Technology and transports "
                "built with it (004 5.5)"
            )
    return problems


def _no_planet(starmap: StarMap, system_name: str, known: bool) -> str:
    """Say a planet is not there and, in a system the player explored, which ones are."""
    if not _has_system(starmap, system_name):
        return f"no star system {system_name!r} (write System/orbit, e.g. Alpha/3)"
    if not known:
        return "no such planet (write System/orbit, e.g. Alpha/3)"
    system = starmap.system(system_name)
    planets = ", ".join(
        f"{system.name}/{p.orbit} ({p.type}, {p.capacity}M)"
        for p in sorted(system.planets, key=lambda p: p.orbit)
    )
    return f"no planet in that orbit; {system.name}'s planets: {planets or 'none'}"


def _arrival_problems(
    starmap: StarMap,
    landing: Landing,
    unit: Unit,
    orbit: str,
    positions: Mapping[str, str | None],
) -> list[str]:
    """What can be checked of a landing in a system the player will explore this turn."""
    where = f"{landing.unit} to {landing.planet}"
    system = starmap.system(landing.planet.rpartition("/")[0])
    problems = []
    if not orbit.isdigit() or int(orbit) < 1:
        problems.append(f"{where}: name the planet by its orbit, a number like {system.name}/3")
    if not 1 <= landing.colonists <= unit.count:
        problems.append(f"{where}: {unit.id} carries {unit.count} million colonists in all")
    if positions.get(landing.unit) != _label(system):
        problems.append(f"{where}: the transports will not be in {system.name} this turn")
    return problems


def decide_landings(state: CampaignState, starmap: StarMap) -> list[NewEvent]:
    """Land the colonists ordered this turn that are still aboard and in place.

    Transports lost earlier in the turn land nothing; a group that lost some ships lands what
    it still carries. Orders were checked against the planets as they were; two players may
    have aimed at the same empty planet: the first in name order settles it, and the other's
    colonists stay aboard. A new colony is detected by everyone (004 5.1: its command post
    shows).
    """
    batch: list[NewEvent] = []
    units = dict(state.units)
    colonies = dict(state.colonies)
    for player in sorted(state.landings):
        audience = Audience.players_([player])
        for landing in state.landings[player]:
            unit = units.get(landing.unit)
            found = find_planet(starmap, landing.planet)
            previous = colonies.get(landing.planet)
            reason = _landing_problem(state, player, landing, unit, found, previous)
            if reason is not None:
                failed = LandingFailed(unit=landing.unit, planet=landing.planet, reason=reason)
                batch.append(NewEvent(event=failed, audience=audience, turn=state.turn))
                continue
            assert unit is not None
            assert found is not None
            system, planet = found
            room = planet.capacity - (previous.population if previous is not None else 0)
            colonists = min(landing.colonists, unit.count, room)
            colony = previous or Colony(
                id=planet_id(system.name, planet.orbit),
                owner=player,
                system=system.name,
                hex=_label(system),
                orbit=planet.orbit,
                planet_type=planet.type.value,
                capacity=planet.capacity,
                mineral_rich=planet.mineral_rich,
                # 004 L217-219: a conquered population founds a colony of conquered population
                conquered_from=unit.conquered_from,
                command_post=landing.post,
            )
            colony = msgspec.structs.replace(colony, population=colony.population + colonists)
            colonies[colony.id] = colony
            units[unit.id] = msgspec.structs.replace(unit, count=unit.count - colonists)
            if units[unit.id].count == 0:
                del units[unit.id]
            landed = ColonistsLanded(unit=unit.id, colony=colony, colonists=colonists)
            batch.append(
                NewEvent(event=landed, audience=Audience.players_([player]), turn=state.turn)
            )
            if previous is None and colony.command_post:
                detected = ColonyDetected(owner=player, system=system.name, hex=colony.hex)
                batch.append(
                    NewEvent(event=detected, audience=Audience.everyone(), turn=state.turn)
                )
    return batch


def _landing_problem(
    state: CampaignState,
    player: str,
    landing: Landing,
    unit: Unit | None,
    found: tuple[StarSystem, Planet] | None,
    previous: Colony | None,
) -> str | None:
    """Why an ordered landing cannot be made as the turn resolves, or None.

    Orders were checked against what the player knew: transports lost since, a landing on
    arrival whose orbit turned out empty or unsuitable, a planet another player settled
    first this turn (the first in name order settles it) all lapse, with the reason.
    """
    if unit is None:
        return "the transports were lost before they could land"
    if found is None:
        return f"{landing.planet} is no planet: exploring found no planet in that orbit"
    system, planet = found
    if unit.hex != _label(system):
        return f"the transports are not in {system.name}"
    if landing.planet in state.devastated:
        return "the planet is devastated and may not be resettled (004 5.4)"
    if previous is not None and not may_join(previous, unit):
        return "the planet holds a colony the colonists may not join (004 5.5)"
    room = planet.capacity - (previous.population if previous is not None else 0)
    if room <= 0:
        return f"the planet is full (capacity {planet.capacity} million)"
    empire = state.empires.get(player)
    owned = empire.techs if empire is not None else ()
    if planet.type == "barren" and not (has_cet(owned) and unit.cet):
        return "barren planets need C.E.T. and transports built with it (004 5.5)"
    return None


def may_join(colony: Colony, unit: Unit) -> bool:
    """Return whether the transports' colonists may land on an existing colony (004 5.5).

    Only on their owner's own colonies, never mixing a conquered population with a free one
    (004 L216-217), and never on a conquered planet itself (004 L226-227): a conquered
    population joins only a colony one founded.
    """
    if colony.owner != unit.owner:
        return False
    if unit.conquered_from is None:
        return colony.conquered_from is None
    return colony.conquered_from is not None and colony.conquered_turn is None


def decide_repairs(state: CampaignState) -> list[NewEvent]:
    """Repair damaged warships that end the turn at one of their owner's colonies.

    004 5.3.6: hull, armour and core damage need "a colony world controlled by that player";
    a ship ending its move there "is fully repaired the following turn", but not at a world
    conquered this turn. Repairs are recorded at the end of the turn, ready for the next.
    """
    havens = {(c.owner, c.hex) for c in state.colonies.values() if c.conquered_turn != state.turn}
    damaged: dict[str, list[str]] = defaultdict(list)
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.needs_repair and (unit.owner, unit.hex) in havens:
            damaged[unit.owner].append(unit.id)
    return [
        NewEvent(
            event=ShipsRepaired(player=player, units=tuple(units)),
            audience=Audience.players_([player]),
            turn=state.turn,
        )
        for player, units in sorted(damaged.items())
    ]


def command_post_hexes(state: CampaignState, player: str) -> list[str]:
    """Return the hexes of a player's colony command posts (004 5.1: any colony world),
    less besieged ones (004 L212-213: a besieged colony may not be used as a command post).

    Folded from a player's own view, a siege he cannot see does not show: his orders are
    checked as he knows the map, and resolution (the truth) holds a move that relied on it.
    """
    enemies = {u.hex for u in state.units.values() if u.is_warship and u.owner != player}
    enemies |= sighted_warships(state, player)  # a view holds only what he saw of them
    return sorted(
        {
            c.hex
            for c in state.colonies.values()
            if c.owner == player and c.command_post and c.hex not in enemies
        }
    )


def _has_system(starmap: StarMap, name: str) -> bool:
    try:
        starmap.system(name)
    except KeyError:
        return False
    return True


def _label(system: StarSystem) -> str:
    from maps import label

    return label(system.hex)


def decide_posts(state: CampaignState) -> list[NewEvent]:
    """Establish the command posts ordered on hidden colonies (004 L86-89: "Command Posts cost
    nothing and can be established on any colony world"); everyone detects them."""
    batch: list[NewEvent] = []
    for player, submitted in sorted(state.submitted.items()):
        for cid in submitted.posts:
            colony = state.colonies.get(cid)
            if colony is None or colony.owner != player or colony.command_post:
                continue  # lost since, or a post already
            post = CommandPostEstablished(colony=cid)
            batch.append(
                NewEvent(event=post, audience=Audience.players_([player]), turn=state.turn)
            )
            detected = ColonyDetected(owner=player, system=colony.system, hex=colony.hex)
            batch.append(NewEvent(event=detected, audience=Audience.everyone(), turn=state.turn))
    return batch


def planets_to_land(state: CampaignState, known_map: StarMap, player: str) -> list[str]:
    """The planets where `player`'s transports are that he could land on as far as he knows
    (his view and his map): in a system he explored, not devastated, with room, barren only
    with C.E.T. (004 5.5); each as `System/orbit (type, room for NM)`."""
    empire = state.empires.get(player)
    cet = empire is not None and has_cet(empire.techs)
    here = {u.hex for u in state.units.values() if u.owner == player and u.kind == "transports"}
    found = []
    for cell in sorted(h for h in here if h is not None):
        system = known_map.system_at(parse_label(cell))
        if system is None:
            continue
        for planet in system.planets:
            pid = planet_id(system.name, planet.orbit)
            colony = state.colonies.get(pid)
            room = planet.capacity - (colony.population if colony is not None else 0)
            barred = planet.type == "barren" and not cet
            if pid not in state.devastated and room > 0 and not barred:
                found.append(f"{pid} ({planet.type}, room for {room}M)")
    return found
