"""Decoy drones: the dummy bogeys a task force deploys in its battles (004 L39).

004 L39: "Dummy Bogeys and 'Weasel Boats', as described in Full Thrust, may be used." 001
L955-959: "Each 'dummy' Bogey costs 20 points from the owner's Fleet Budget", shows an
escort's signature, "is simply removed from play as soon as it is scanned", and "the maximum
number of Dummies that may be employed in any battle is equal to the number of 'real' ships".

The campaign's fleet budget is what its production buys (63 Full Thrust points to the IP,
004 L277), so a drone is bought in a production phase at 20 points, like a ship; a warship
carries one, from the producing world on (docs/rulings.md, "Campaign: decoy drones"), so a
task force deploys as many as it carries, never more than its ships. A drone identified in
battle (001 L957), or flown off the table, is lost; one still unidentified at the end goes
back aboard its ship, unless that ship was destroyed, captured or left the battle; after a
battle fought on a table, the umpire says how many each side lost. Only the owner learns what
his drones did: the enemy saw contacts, some of which his sensors showed to be dummies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import Audience, DecoysLost, NewEvent
from campaign.projections import CampaignState
from campaign.strategic import Battle, ProductionOrder, ShipResult, Unit

DECOY_POINTS = 20  # 001 L957 ("Each 'dummy' Bogey costs 20 points"); 000 L12706
DECOYS_PER_WARSHIP = 1  # what a warship carries (docs/rulings.md)


def has_room(unit: Unit) -> bool:
    """Whether a unit can take a decoy drone: a warship without one."""
    return unit.kind == "warship" and unit.decoys < DECOYS_PER_WARSHIP


def room_at(state: CampaignState, player: str, hex_: str) -> int:
    """Return the decoy drones a player's warships in a hex can take now."""
    return sum(
        1 for u in state.units.values() if u.owner == player and u.hex == hex_ and has_room(u)
    )


def decoy_problems(
    state: CampaignState,
    player: str,
    orders: Sequence[ProductionOrder],
    built_at: Mapping[str, int],
) -> list[str]:
    """Check that the drones bought fit aboard the warships at each colony's hex, with the
    `built_at` warships each hex builds this phase."""
    problems = []
    wanted: dict[str, int] = {}
    for order in orders:
        colony = state.colonies.get(order.colony)
        if order.decoys < 0:
            problems.append(f"colony {order.colony!r}: decoys is {order.decoys}, negative")
        elif colony is not None and order.decoys:
            wanted[colony.hex] = wanted.get(colony.hex, 0) + order.decoys
    for hex_, decoys in sorted(wanted.items()):
        room = room_at(state, player, hex_) + built_at.get(hex_, 0)
        if decoys > room:
            problems.append(
                f"{decoys} decoy drones bought at {hex_} but only {room} warships there can "
                f"take one (a warship carries {DECOYS_PER_WARSHIP}; docs/rulings.md)"
            )
    return problems


def load_decoys(units: Iterable[Unit], decoys: int) -> tuple[Unit, ...]:
    """Put `decoys` drones aboard `units` in the order given, one to a warship without one;
    return the units that took one, as they stand afterwards."""
    loaded = []
    for unit in units:
        if decoys <= 0:
            break
        if has_room(unit):
            loaded.append(msgspec.structs.replace(unit, decoys=unit.decoys + 1))
            decoys -= 1
    return tuple(loaded)


def carriers(state: CampaignState, unit_ids: Iterable[str]) -> list[Unit]:
    """Return a side's ships that carry a drone, in unit-id order: the i-th deploys the
    side's i-th dummy bogey (`tactical.campaign_battle.dummy_id`)."""
    units = (state.units.get(u) for u in unit_ids)
    return sorted((u for u in units if u is not None and u.decoys > 0), key=lambda u: u.id)


def decide_decoys_recorded(
    state: CampaignState, battle: Battle, lost: Mapping[str, int]
) -> list[NewEvent]:
    """After a battle fought on a table, take from each side's ships the drones the umpire
    says it lost (`lost`: player -> how many): the first ships carrying one, in unit-id order.

    Raises:
        InvalidInputError: a player not in the battle, a negative count, or more drones than
            his ships carried into it.
    """
    sides = {side.player: side for side in battle.sides}
    batch = []
    for player, count in sorted(lost.items()):
        if player not in sides:
            raise InvalidInputError(
                f"{player} did not fight in {battle.id} (sides: {', '.join(sorted(sides))})"
            )
        carried = carriers(state, sides[player].units)
        if not 0 <= count <= len(carried):
            raise InvalidInputError(
                f"{player} lost {count} decoy drones in {battle.id}: his ships carried "
                f"{len(carried)} into it (0 to {len(carried)})"
            )
        if count:
            batch.append(_told(state, battle, player, tuple(u.id for u in carried[:count])))
    return batch


def decide_decoys_lost(
    state: CampaignState,
    battle: Battle,
    results: Sequence[ShipResult],
    kept: Iterable[str],
) -> list[NewEvent]:
    """After a battle the engine fought, take from each side's ships the drones lost: those
    not among the dummy bogeys `kept` on the table at the end, and those whose ship did not
    come through in the hex (destroyed ships take theirs with them). Each owner alone is told.
    """
    from tactical.campaign_battle import dummy_id  # the engine's name for a bogey: after a battle

    still_there = set(kept)
    fates = {r.unit: r.fate for r in results}
    batch = []
    for side in battle.sides:
        lost = tuple(
            unit.id
            for index, unit in enumerate(carriers(state, side.units))
            if fates.get(unit.id) != "destroyed"
            and (
                dummy_id(side.player, index) not in still_there or fates.get(unit.id) != "survived"
            )
        )
        if lost:
            batch.append(_told(state, battle, side.player, lost))
    return batch


def _told(state: CampaignState, battle: Battle, player: str, units: tuple[str, ...]) -> NewEvent:
    """The drones of `units` lost in `battle`, told to their owner alone."""
    event = DecoysLost(battle=battle.id, player=player, units=units)
    return NewEvent(event=event, audience=Audience.players_([player]), turn=state.turn)
