"""Victory (004 section 1): 3 points per terran and 1 per sub-terran planet controlled.

A player controls a planet when (004 L14-19):
1. he has a colony on it (even with enemy ships in the system);
2. he conquered an enemy colony there and keeps an orbital garrison of a destroyer or larger;
3. it is uncolonised and he has warships in the system;
4. it is uncolonised, he has another colony in the system and no enemy warships are there.

Read literally, 3 and 4 can give one uncolonised planet to several players (two fleets in a
system; two players' colonies and no warships). The campaign's `contested_planets` setting
decides: "nobody" (the default) holds such a planet, or it is "shared" and each of them scores
it (docs/rulings.md, "Campaign: victory").
"""

from __future__ import annotations

from collections import defaultdict

import msgspec

from campaign.projections import CampaignState
from campaign.strategic import planet_id
from maps import StarMap, label

# 004 L12-13: "3 points per Terran planet and 1 point per Sub-Terran planet".
POINTS = {"terran": 3, "sub-terran": 1}


class Score(msgspec.Struct, frozen=True):
    """One player's tally: points and the planets that earn them."""

    player: str
    points: int
    planets: tuple[str, ...]


def scores(state: CampaignState, starmap: StarMap) -> list[Score]:
    """Return every player's tally, best first (ties by name): the running or final score."""
    warships: dict[str, set[str]] = defaultdict(set)  # hex -> owners with warships there
    garrisons: dict[str, set[str]] = defaultdict(set)
    for unit in state.units.values():
        if unit.is_warship and unit.hex is not None:  # 004 L17-18: no merchant hull
            warships[unit.hex].add(unit.owner)
            if unit.can_garrison:  # 004 L16: "a destroyer or larger" (`Unit.can_garrison`)
                garrisons[unit.hex].add(unit.owner)
    colonists: dict[str, set[str]] = defaultdict(set)  # hex -> owners with colonies there
    for colony in state.colonies.values():
        colonists[colony.hex].add(colony.owner)
    held: dict[str, list[str]] = {p: [] for p in state.players}
    for system in sorted(starmap.systems, key=lambda s: s.name):
        where = label(system.hex)
        for planet in system.planets:
            pid = planet_id(system.name, planet.orbit)
            if pid in state.devastated:
                continue  # 004 L222-223: a devastated planet does not count towards victory
            if str(planet.type) not in POINTS:
                continue
            for owner in _controllers(state, pid, where, warships, garrisons, colonists):
                held.setdefault(owner, []).append(pid)
    result = [
        Score(
            player=p, points=sum(_points(starmap, pid) for pid in planets), planets=tuple(planets)
        )
        for p, planets in held.items()
    ]
    return sorted(result, key=lambda s: (-s.points, s.player))


def _controllers(
    state: CampaignState,
    pid: str,
    where: str,
    warships: dict[str, set[str]],
    garrisons: dict[str, set[str]],
    colonists: dict[str, set[str]],
) -> list[str]:
    """Return who controls the planet: one player, none, or (shared) several."""
    colony = state.colonies.get(pid)
    if colony is not None:
        if colony.conquered_from is None:
            return [colony.owner]  # condition 1
        return [colony.owner] if colony.owner in garrisons[where] else []  # condition 2
    fleets = warships[where]
    claimants = fleets | {  # condition 3, and condition 4: no enemy warships in the system
        owner for owner in colonists[where] if not fleets - {owner}
    }
    if len(claimants) > 1 and state.contested_planets != "shared":
        return []  # contested: nobody holds it (the default setting)
    return sorted(claimants)


def _points(starmap: StarMap, pid: str) -> int:
    system_name, _, orbit = pid.rpartition("/")
    planet = next(p for p in starmap.system(system_name).planets if p.orbit == int(orbit))
    return POINTS.get(str(planet.type), 0)
