"""The FT2 campaign's fold: `evolve_ft2(state, event) -> state`, pure.

A player's view is the same fold over only his events: his fleets, his orders and
decisions, the encounters he is in and the scans he was told of; battle fates of ships he
does not know of are passed over.
"""

from __future__ import annotations

from collections.abc import Container

import msgspec

from campaign.events import Event
from campaign.ft2.events import (
    CampaignJudged,
    DecisionMade,
    DecoysSpent,
    DisengagementRolled,
    EncounterFound,
    EncounterResolved,
    FleetsMoved,
    ForcesDeployed,
    Ft2BattleFought,
    Ft2OrdersSubmitted,
    LongRangeScan,
    ReinforcementsArrived,
    ShipsRefitted,
)
from campaign.ft2.model import Fleet, Ft2Ship, Ft2State, battle_turn

FT2_EVENTS = (
    ForcesDeployed,
    Ft2OrdersSubmitted,
    FleetsMoved,
    ReinforcementsArrived,
    EncounterFound,
    LongRangeScan,
    DecoysSpent,
    DecisionMade,
    DisengagementRolled,
    EncounterResolved,
    Ft2BattleFought,
    ShipsRefitted,
    CampaignJudged,
)


def next_week(state: Ft2State) -> Ft2State:
    """Open the next turn: orders, encounters and battles of the last are done with."""
    return msgspec.structs.replace(
        state,
        phase="orders",
        orders={},
        nonces={},
        encounters={},
        decisions={},
        decision_nonces={},
        battles={},
        fought=(),
        separated=(),
    )


def evolve_ft2(state: Ft2State, ev: Event) -> Ft2State:
    """Return the FT2 state after one of its events."""
    replace = msgspec.structs.replace
    match ev:
        case ForcesDeployed():
            fleets = {**state.fleets, **{f.id: f for f in ev.fleets}}
            counters = {**state.next_fleet, ev.player: len(ev.fleets) + 1}
            sides = {**state.sides, ev.player: ev.side}
            return replace(state, fleets=fleets, next_fleet=counters, sides=sides)
        case Ft2OrdersSubmitted():
            player = ev.orders.player
            return replace(
                state,
                orders={**state.orders, player: ev.orders},
                nonces={**state.nonces, player: ev.nonce},
            )
        case FleetsMoved():
            fleets = {k: f for k, f in state.fleets.items() if k not in ev.gone}
            fleets.update({f.id: f for f in ev.fleets})
            mine = [f for f in fleets.values() if f.owner == ev.player]
            top = max((_number(f.id) for f in mine), default=0)
            counters = {
                **state.next_fleet,
                ev.player: max(top + 1, state.next_fleet.get(ev.player, 1)),
            }
            return replace(state, fleets=fleets, next_fleet=counters)
        case ReinforcementsArrived():
            return replace(state, fleets={**state.fleets, **{f.id: f for f in ev.fleets}})
        case EncounterFound():
            return replace(
                state,
                phase="encounters",
                encounters={**state.encounters, ev.encounter.id: ev.encounter},
            )
        case LongRangeScan():
            return replace(
                state, scans={**state.scans, f"{ev.encounter}/{ev.scanner}": ev.contacts}
            )
        case DecoysSpent():
            fleet = state.fleets.get(ev.fleet)
            if fleet is None:
                return state
            spent = replace(fleet, drones=max(0, fleet.drones - ev.drones))
            return replace(state, fleets={**state.fleets, fleet.id: spent})
        case DecisionMade():
            made = {**state.decisions.get(ev.encounter, {}), ev.player: ev.decision}
            salts = {**state.decision_nonces.get(ev.encounter, {}), ev.player: ev.nonce}
            return replace(
                state,
                decisions={**state.decisions, ev.encounter: made},
                decision_nonces={**state.decision_nonces, ev.encounter: salts},
            )
        case EncounterResolved():
            return _encounter_resolved(state, ev)
        case Ft2BattleFought():
            return _battle_fought(state, ev)
        case DisengagementRolled():
            tries = {**state.disengagements, ev.battle: state.disengagements.get(ev.battle, 0) + 1}
            return replace(state, disengagements=tries)
        case ShipsRefitted():
            return replace(state, fleets={**state.fleets, **{f.id: f for f in ev.fleets}})
        case CampaignJudged():
            return replace(state, result=ev.result, held=ev.held)
        case _:
            return state


def _number(fleet_id: str) -> int:
    tail = fleet_id.rsplit("F", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _encounter_resolved(state: Ft2State, ev: EncounterResolved) -> Ft2State:
    fleets = dict(state.fleets)
    for fid in ev.leaving:
        if fid in fleets:
            fleets[fid] = msgspec.structs.replace(fleets[fid], must_leave=True)
    battles = dict(state.battles)
    if ev.battle is not None:
        battles[ev.battle.id] = ev.battle
    encounters = {k: e for k, e in state.encounters.items() if k != ev.encounter}
    phase = "battles" if battles else ("encounters" if encounters else "end")
    return msgspec.structs.replace(
        state, fleets=fleets, battles=battles, encounters=encounters, phase=phase
    )


def jumped_fleet_id(fleet_id: str, battle: str, battles_before: int, taken: Container[str]) -> str:
    """The id of the fleet that the ships jumping out of `battle` make: the fleet's own and
    the battle's turn (`esu-F1J3`), a fleet fighting one battle a turn; nothing of the other
    battles (docs/rulings.md, "FT2 campaign: an encounter's id"). A battle numbered across
    its turn (a campaign stored before) names it by the battles fought before, as it did
    then; and a name a fleet of then holds takes a number after it.

    >>> jumped_fleet_id("esu-F1", "B3-0909", 5, ()), jumped_fleet_id("esu-F1", "B3-2", 5, ())
    ('esu-F1J3', 'esu-F1J6')
    >>> jumped_fleet_id("esu-F1", "B3-0909", 0, {"esu-F1J3"})
    'esu-F1J3-2'
    """
    turn = battle_turn(battle)
    if turn is None:
        return f"{fleet_id}J{battles_before + 1}"
    away = name = f"{fleet_id}J{turn}"
    number = 1
    while name in taken:
        number += 1
        name = f"{away}-{number}"
    return name


def _battle_fought(state: Ft2State, ev: Ft2BattleFought) -> Ft2State:
    fates = {f.ship: f for f in ev.fates}
    fleets: dict[str, Fleet] = {}
    for fid, fleet in state.fleets.items():
        if not any(s.id in fates for s in fleet.ships):
            fleets[fid] = fleet
            continue
        staying: list[Ft2Ship] = []
        jumped: list[Ft2Ship] = []
        for ship in fleet.ships:
            fate = fates.get(ship.id)
            if fate is None:
                staying.append(ship)
                continue
            if fate.fate == "destroyed":
                continue
            carried = msgspec.structs.replace(ship, record=fate.record)
            (jumped if fate.fate == "jumped" else staying).append(carried)
        if staying:
            fleets[fid] = msgspec.structs.replace(fleet, ships=tuple(staying))
        if jumped:
            # 001 L1514: a ship that jumps out leaves the system by FTL: back where its fleet
            # came from (docs/rulings.md), as a fleet of its own.
            taken = state.fleets.keys() | fleets.keys()
            away = jumped_fleet_id(fid, ev.battle.id, state.battles_fought, taken)
            fleets[away] = msgspec.structs.replace(
                fleet, id=away, ships=tuple(jumped), hex=fleet.came_from or fleet.hex, drones=0
            )
    battles = {k: b for k, b in state.battles.items() if k != ev.battle.id}
    fought = tuple(sorted({*state.fought, *fates}))
    separated = state.separated
    if ev.disengaged is not None:
        separated = tuple(sorted({*separated, ev.battle.hex}))
    phase = "battles" if battles else ("encounters" if state.encounters else "end")
    return msgspec.structs.replace(
        state,
        fleets=fleets,
        battles=battles,
        fought=fought,
        separated=separated,
        phase=phase,
        battles_fought=state.battles_fought + 1,
    )
