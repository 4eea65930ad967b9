"""Attacks on colonies (004 section 5.4): surrender, assault, conquest and bombardment.

A player orders attacks on the enemy colonies in a system. Once the turn's battles are over
and no enemy warship remains there (004 L204), each colony is attacked:

- a colony under a planet shield cannot be attacked at all (004 L224);
- to conquer: an undefended colony surrenders at once (004 L206); a defended one brings an
  assault battle against its planetary defences, a PDU fighting as a battledreadnought and an
  advanced PDU as two superdreadnoughts (004 5.7.7); when the last defence falls and at least
  one attacking warship remains, the colony is conquered (004 L207-208);
- to bombard: defences are fought first, as for a conquest; then 250 points of warships kill
  1 million a turn, a dedicated ortillery vessel's points counting three times (a design
  marked `ortillery`); wiping out a population of 10 million or more, over however many
  turns, devastates the planet: never resettled, no victory points (004 L220-223).

An attack names one colony (`colony = "System/orbit"`) or, naming none, takes every enemy
colony in the system. Ships are warships in 004's sense (`Unit.is_warship`): a merchant hull
does not hold a system for an assault.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from campaign.battlenames import DiceKeys
from campaign.events import (
    AttackFailed,
    Audience,
    BattleRequested,
    ColonyBombarded,
    ColonyConquered,
    FactoriesDestroyed,
    NewEvent,
)
from campaign.projections import CampaignState
from campaign.strategic import (
    Attack,
    AttackMode,
    Battle,
    BattleSide,
    Colony,
    defence_id,
    planet_id,
)
from maps import StarMap, label

BOMBARD_POINTS_PER_MILLION = 250  # 004 L220-221
ORTILLERY_FACTOR = 3  # 004 L221: "Dedicated ortillery vessels count as three times their points"
DEVASTATION_POPULATION = 10  # 004 L221-222: "at least 10 million is completely destroyed"


def check_attacks(
    state: CampaignState,
    starmap: StarMap,
    player: str,
    attacks: tuple[Attack, ...],
    positions: Mapping[str, str | None],
) -> list[str]:
    """Return every problem with a player's attack orders; `positions` are where units end."""
    problems = []
    for attack in attacks:
        try:
            system = starmap.system(attack.system)
        except KeyError:
            problems.append(f"attack on {attack.system}: no such star system")
            continue
        where = label(system.hex)
        if not knows_enemy_colony(state, player, system.name):
            problems.append(f"attack on {system.name}: {player} knows of no enemy colony there")
        orbits = sorted(p.orbit for p in system.planets)
        if attack.colony is not None and attack.colony not in {
            planet_id(system.name, o) for o in orbits
        }:
            choices = ", ".join(planet_id(system.name, o) for o in orbits)
            problems.append(
                f"attack on {attack.colony}: no such planet in {system.name} (its planets: "
                f"{choices or 'none'})"
            )
        warships = [
            u
            for u in state.units.values()
            if u.owner == player and u.is_warship and positions.get(u.id) == where
        ]
        if not warships:
            problems.append(f"attack on {system.name}: no warship of {player} will be there")
    return problems


def knows_enemy_colony(state: CampaignState, player: str, system: str) -> bool:
    """Return whether `state` (a player's view) knows of an enemy colony in `system`:
    detected there (004 L89), or taken from him (`projections`, a conquest)."""
    return any(name == system and owner != player for owner, name in state.known_colonies)


def _warships(state: CampaignState, hex_: str, owner: str) -> list[str]:
    """A player's warships in a hex: those that hold it after an assault (004 L207-208)."""
    return sorted(
        u.id for u in state.units.values() if u.is_warship and u.hex == hex_ and u.owner == owner
    )


def attack_on(state: CampaignState, attacker: str, colony: Colony) -> Attack | None:
    """Return the attacker's order that attacks `colony` this turn, if any."""
    return next(
        (
            a
            for a in state.attacks.get(attacker, ())
            if a.system == colony.system and a.targets(colony)
        ),
        None,
    )


def decide_attacks(state: CampaignState, starmap: StarMap) -> list[NewEvent]:
    """Carry out the attack orders; defended colonies bring assault battles (the turn waits).

    Planetary defences are fought first, whatever the attack (004 L207-208): only "once he
    has decided to attack a colony does the owning player reveal if there are any planetary
    defences" (L205-206), so a bombardment meets them too (`decide_conquests` bombards once
    they are down).
    """
    batch: list[NewEvent] = []
    assaults = 0
    keys = DiceKeys(state.turn, assault=True)
    for player in sorted(state.attacks):
        for attack in state.attacks[player]:
            system = starmap.system(attack.system)
            where = label(system.hex)
            mine = _warships(state, where, player)
            colonies = sorted(
                (
                    c
                    for c in state.colonies.values()
                    if c.hex == where and c.owner != player and attack.targets(c)
                ),
                key=lambda c: c.id,
            )
            enemies = {
                u.owner
                for u in state.units.values()
                if u.kind == "warship" and u.hex == where and u.owner != player
            }
            reason = None
            if not mine:
                reason = "none of the attacking warships is left in the system"
            elif enemies:
                reason = f"enemy warships ({', '.join(sorted(enemies))}) remain in the system"
            elif not colonies:
                reason = "no enemy colony is there"
            if reason is not None:
                failed = AttackFailed(player=player, system=system.name, reason=reason)
                batch.append(
                    NewEvent(event=failed, audience=Audience.players_([player]), turn=state.turn)
                )
                continue
            for colony in colonies:
                both = Audience.players_([player, colony.owner])
                if colony.shield:
                    failed = AttackFailed(
                        player=player,
                        system=system.name,
                        reason=f"{colony.id} is under a planet shield",
                    )
                    batch.append(NewEvent(event=failed, audience=both, turn=state.turn))
                elif colony.pdus or colony.advanced_pdbs:
                    assaults += 1
                    key = keys.next(colony.hex, (player, colony.owner))
                    battle = _assault(state, colony, player, mine, assaults, key)
                    batch.append(
                        NewEvent(
                            event=BattleRequested(battle=battle), audience=both, turn=state.turn
                        )
                    )
                else:
                    batch.append(
                        NewEvent(
                            event=_take(state, colony, player, attack.mode, mine),
                            audience=both,
                            turn=state.turn,
                        )
                    )
    return batch


def decide_conquests(state: CampaignState) -> list[NewEvent]:
    """After the assaults: where the last defence fell and an attacking warship remains, the
    colony is conquered (004 L207-208) or bombarded, as the attack was ordered.

    Just before a colony falls to conquest, its owner destroys the factories he ordered
    scorched (004 L210-211: "after each round of combat while the colony remains
    unconquered"); a colony whose defences hold, or that is only bombarded, keeps them.
    """
    batch = []
    for colony_id, attacker in sorted(state.assaults.items()):
        colony = state.colonies.get(colony_id)
        if colony is None or colony.owner == attacker or colony.pdus or colony.advanced_pdbs:
            continue
        mine = _warships(state, colony.hex, attacker)
        if not mine:
            continue
        both = Audience.players_([attacker, colony.owner])
        attack = attack_on(state, attacker, colony)
        mode = attack.mode if attack is not None else "conquer"
        orders = state.submitted.get(colony.owner)
        factories = colony.factories + colony.robotic_factories
        if mode == "conquer" and orders is not None and colony_id in orders.scorch and factories:
            razed = FactoriesDestroyed(colony=colony_id, factories=factories)
            batch.append(NewEvent(event=razed, audience=both, turn=state.turn))
            colony = msgspec.structs.replace(colony, factories=0, robotic_factories=0)
        batch.append(
            NewEvent(
                event=_take(state, colony, attacker, mode, mine), audience=both, turn=state.turn
            )
        )
    return batch


def _take(
    state: CampaignState, colony: Colony, attacker: str, mode: AttackMode, ships: list[str]
) -> ColonyConquered | ColonyBombarded:
    """Conquer or bombard a colony whose defences are down (or were never there)."""
    if mode == "bombard":
        return _bombard(state, colony, attacker, ships)
    return _conquer(state, colony, attacker)


def _conquer(state: CampaignState, colony: Colony, attacker: str) -> ColonyConquered:
    """The colony changes hands. Retaken by its original owner, it is free again: a
    liberated population grows, produces and mixes like any other (docs/rulings.md)."""
    original = colony.conquered_from or colony.owner
    liberated = original == attacker
    taken = msgspec.structs.replace(
        colony,
        owner=attacker,
        conquered_from=None if liberated else original,
        conquered_turn=None if liberated else state.turn,
    )
    return ColonyConquered(colony=taken, previous_owner=colony.owner)


def _bombard(
    state: CampaignState, colony: Colony, attacker: str, ships: list[str]
) -> ColonyBombarded:
    points = sum(
        state.units[uid].points * (ORTILLERY_FACTOR if state.units[uid].ortillery else 1)
        for uid in ships
    )
    killed = min(colony.population, points // BOMBARD_POINTS_PER_MILLION)
    left = colony.population - killed
    # 004 L221-223: a population of at least 10 million completely destroyed, counted over
    # every turn of bombardment (`Colony.bombarded`), not one turn's kill.
    total = colony.bombarded + killed
    devastated = left == 0 and killed > 0 and total >= DEVASTATION_POPULATION
    return ColonyBombarded(
        colony=colony.id, attacker=attacker, killed=killed, population=left, devastated=devastated
    )


def _assault(
    state: CampaignState, colony: Colony, attacker: str, ships: list[str], n: int, key: str
) -> Battle:
    """The turn's `n`th assault, its dice keyed `key` (docs/rulings.md, "Campaign: a
    battle's dice")."""
    attack = attack_on(state, attacker, colony)  # it may be called off (004 L208-209)
    defences = [defence_id(colony.id, "pdu", i) for i in range(1, colony.pdus + 1)]
    # 004 5.7.7: an advanced PDU is "equivalent to two SuperDreadnoughts".
    defences += [defence_id(colony.id, "apdb", i) for i in range(1, 2 * colony.advanced_pdbs + 1)]
    return Battle(
        id=f"t{state.turn}-a{n}",
        hex=colony.hex,
        system=colony.system,
        type="even",
        sides=(
            BattleSide(player=attacker, order="engage", units=tuple(ships)),
            BattleSide(player=colony.owner, order="engage", units=tuple(defences)),
        ),
        colony=colony.id,
        call_off_after=attack.call_off_after if attack is not None else None,
        dice_key=key,
    )
