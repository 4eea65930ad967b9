"""The FT2 campaign's events (001 L1459-1614): past-tense facts with their dice.

Registered in the one event registry (`campaign.events`); `campaign.projections` imports
this module so that every store can decode them. Orders reuse the 004 campaign's public
commitment (`orders_committed`) and reveal (`orders_revealed`), so `umpire verify` opens them.
"""

from __future__ import annotations

from campaign.dice import Roll
from campaign.events import Event, event
from campaign.ft2.model import (
    Contact,
    Encounter,
    Fleet,
    Ft2Battle,
    Ft2Orders,
    Repair,
    ShipFate,
)


@event("forces_deployed", version=1)
class ForcesDeployed(Event, frozen=True, kw_only=True):
    """A side's forces were set up from its budget (001 L1568-1594): its fleets, secretly
    deployed (001 L1554), and its fixed system defences. Only its owner is told."""

    player: str
    side: str
    fleets: tuple[Fleet, ...]
    points: int


@event("ft2_orders_submitted", version=1)
class Ft2OrdersSubmitted(Event, frozen=True, kw_only=True):
    """A player handed in his plotted moves (001 L1481); the last before resolving counts.
    `nonce` salts the commitment (`orders_committed`)."""

    orders: Ft2Orders
    nonce: str = ""
    sequence: int = 0  # a signed file's (`campaign/signing.py`); 0: not from one


@event("fleets_moved", version=1)
class FleetsMoved(Event, frozen=True, kw_only=True):
    """A player's fleets as they stand after the turn's splits, merges and moves (001
    L1477-1483); only he is told. `gone` are fleet ids merged away."""

    player: str
    fleets: tuple[Fleet, ...]
    gone: tuple[str, ...] = ()


@event("reinforcements_arrived", version=1)
class ReinforcementsArrived(Event, frozen=True, kw_only=True):
    """A side's reinforcements entered the map by the scenario's schedule (001 L1536); only
    their owner is told."""

    player: str
    fleets: tuple[Fleet, ...]


@event("encounter_found", version=1)
class EncounterFound(Event, frozen=True, kw_only=True):
    """Opposing forces ended the turn in one star system (001 L1489); both are told where."""

    encounter: Encounter


@event("long_range_scan", version=1)
class LongRangeScan(Event, frozen=True, kw_only=True):
    """What `scanner`'s long-range scan made of `scanned`'s forces in an encounter: the
    number of contacts and their basic classes only, decoys and weasels included (001
    L1491-1510). Both players are told, as the text has each tell the other."""

    encounter: str
    scanner: str
    scanned: str
    contacts: tuple[Contact, ...]


@event("decoys_spent", version=1)
class DecoysSpent(Event, frozen=True, kw_only=True):
    """Decoy drones were released and are gone once scanned (A38); only their owner knows."""

    player: str
    fleet: str
    drones: int


@event("decision_committed", version=1)
class DecisionCommitted(Event, frozen=True, kw_only=True):
    """A player wrote down his decision for an encounter: he sees the commitment, nobody the
    decision (001 L1512: written in secret, then revealed together). Public when stored
    before `decision_written` existed."""

    player: str
    encounter: str
    sha256: str


@event("decision_written", version=1)
class DecisionWritten(Event, frozen=True, kw_only=True):
    """A player wrote down a decision for an encounter: public, once, with his first.

    His commitments (`decision_committed`, one for each decision written) are his since the
    004 trial of remote play: seen by all, they let his rival count his changes of mind.
    """

    player: str
    encounter: str


@event("decision_made", version=1)
class DecisionMade(Event, frozen=True, kw_only=True):
    """A player's secret decision for an encounter (fight, withdraw or stand-off)."""

    player: str
    encounter: str
    decision: str
    nonce: str
    sequence: int = 0  # a signed orders file's; 0: not from one


@event("encounter_resolved", version=1)
class EncounterResolved(Event, frozen=True, kw_only=True):
    """The decisions were revealed together and what followed (001 L1512-1522).

    `decisions` and `nonces` are by player, in the encounter's side order; `outcome` is one
    of battle, caught, escaped, both-withdraw, stand-off, gone. `battle` is the battle that
    follows, if one does. `rolls` holds the catch die (001 L1514).
    """

    encounter: str
    players: tuple[str, ...]
    decisions: tuple[str, ...]
    nonces: tuple[str, ...]
    outcome: str
    leaving: tuple[str, ...] = ()  # fleets that must leave on the next move
    battle: Ft2Battle | None = None
    rolls: tuple[Roll, ...] = ()


@event("ft2_battle_fought", version=1)
class Ft2BattleFought(Event, frozen=True, kw_only=True):
    """A battle's outcome: what became of every ship in it, by the engine or a table.

    `disengaged` names the side that left the table (001 L1514: separated, nobody holds the
    system this turn). `journal` replays an engine battle; `rolls` are its dice.
    """

    battle: Ft2Battle
    fates: tuple[ShipFate, ...]
    source: str  # engine or umpire
    disengaged: str | None = None
    journal: str | None = None
    rolls: tuple[Roll, ...] = ()


@event("disengagement_rolled", version=1)
class DisengagementRolled(Event, frozen=True, kw_only=True):
    """A side that took all its ships off the table rolled to disengage (001 L1204-1216):
    a D6 each, +2 to a side with a ship of higher thrust than all the other's; the fleeing
    side gets away on a total equal to or higher than the pursuer's. Failing, the battle goes
    on as a stern chase (it is recorded again later)."""

    battle: str
    side: str
    modifiers: tuple[int, int]  # the fleeing side's, the pursuer's
    succeeded: bool
    rolls: tuple[Roll, ...] = ()


@event("ships_refitted", version=1)
class ShipsRefitted(Event, frozen=True, kw_only=True):
    """Ships docked at a facility were repaired and replenished this week (001 L1530-1536):
    1D6 damage points, up to three system rolls at 3+, magazines and fighters restocked."""

    player: str
    repairs: tuple[Repair, ...]
    fleets: tuple[Fleet, ...]  # the fleets holding them, as they stand afterwards
    rolls: tuple[Roll, ...] = ()


@event("campaign_judged", version=1)
class CampaignJudged(Event, frozen=True, kw_only=True):
    """The scenario's victory conditions were judged at the end of its last turn
    (001 L1556-1558): `result` names the winner, or "draw"."""

    result: str
    held: tuple[str, ...]  # the settled systems the attacker held
    reason: str
