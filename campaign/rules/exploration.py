"""Exploration (004 section 5.2): hazards for ships entering unexplored systems, and reports.

After movement, each player with ships in a star system he has not explored rolls for them:
a scout troop is lost on a 1, a warship or colony transport on a 1-2, one die per ship or
troop. A scout troop of more than one scout rolls first; if it survives, the system counts as
explored and the ships with it need not roll. Survivors report the system's planets and the
enemy ships there, as numbers per class only; the system is then safe for that player forever.
"""

from __future__ import annotations

from collections import defaultdict

from campaign.dice import DiceKey, DiceSource, Roll
from campaign.events import Audience, NewEvent, SystemExplored, SystemScouted
from campaign.projections import CampaignState
from campaign.rules.sightings import enemy_colonies, enemy_ships
from campaign.strategic import Loss, PlanetReport, Unit
from maps import StarMap, parse_label

# 004 section 5.2: the faces on which a ship meeting an unknown hazard is destroyed.
SCOUT_TROOP_LOST_ON = frozenset({1})
SHIP_LOST_ON = frozenset({1, 2})


def decide_exploration(state: CampaignState, starmap: StarMap, dice: DiceSource) -> list[NewEvent]:
    """Roll for every player's ships in systems new to him and report what survivors find.

    `state` is the state after this turn's movement.
    """
    present: dict[tuple[str, str], list[Unit]] = defaultdict(list)
    for unit in state.units.values():
        if unit.hex is not None:
            present[(unit.owner, unit.hex)].append(unit)
    batch = []
    for (player, hex_label), units in sorted(present.items()):
        system = starmap.system_at(parse_label(hex_label))
        empire = state.empires.get(player)
        if system is None or empire is None or system.name in empire.explored:
            continue
        subject = f"{player}.{system.name.replace(' ', '_').replace(chr(39), '')}"
        rolls, losses = _hazards(sorted(units, key=_rolling_order), state.turn, subject, dice)
        lost = {loss.unit: loss.count for loss in losses}
        survivors = [u for u in units if lost.get(u.id, 0) < u.count]
        report = SystemExplored(
            player=player,
            system=system.name,
            hex=hex_label,
            planets=(
                tuple(
                    PlanetReport(
                        orbit=p.orbit,
                        type=str(p.type),
                        capacity=p.capacity,
                        mineral_rich=p.mineral_rich,
                    )
                    for p in system.planets
                )
                if survivors
                else ()
            ),
            enemy_ships=enemy_ships(state, player, hex_label) if survivors else (),
            enemy_colonies=enemy_colonies(state, player, hex_label) if survivors else (),
            rolls=rolls,
            losses=losses,
            explored=bool(survivors),
        )
        batch.append(NewEvent(event=report, audience=Audience.players_([player]), turn=state.turn))
        if survivors:
            # 004 5.2: "The owner of any colonies in a system will receive a report that enemy
            # ships have scouted the system" (not whose ships).
            owners = {c.owner for c in state.colonies.values() if c.hex == hex_label} - {player}
            for owner in sorted(owners):
                scouted = SystemScouted(system=system.name, turn=state.turn)
                batch.append(
                    NewEvent(event=scouted, audience=Audience.players_([owner]), turn=state.turn)
                )
    return batch


def _rolling_order(unit: Unit) -> tuple[int, str]:
    # Scout troops of more than one scout roll first (004 section 5.2), then the rest by id.
    return (0 if unit.is_scout and unit.count > 1 else 1, unit.id)


def _hazards(
    units: list[Unit], turn: int, subject: str, dice: DiceSource
) -> tuple[tuple[Roll, ...], tuple[Loss, ...]]:
    rolls: list[Roll] = []
    losses: list[Loss] = []
    for unit in units:
        ships = 1 if unit.kind != "transports" else unit.count  # one die per ship or troop
        lost_on = SCOUT_TROOP_LOST_ON if unit.is_scout else SHIP_LOST_ON
        unit_rolls = [
            dice.roll(
                DiceKey(turn=turn, phase="exploration", subject=f"{subject}.{unit.id}", index=i)
            )
            for i in range(ships)
        ]
        rolls.extend(unit_rolls)
        dead = sum(1 for r in unit_rolls if r.value in lost_on)
        if dead:
            losses.append(
                Loss(unit=unit.id, count=unit.count if unit.kind != "transports" else dead)
            )
        if unit.is_scout and unit.count > 1 and not dead:
            break  # the troop survived: the system is explored and the others are covered
    return tuple(rolls), tuple(losses)
