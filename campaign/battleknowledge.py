"""What each side of a battle knew of the enemy's ships at its end (docs/rulings.md,
"Campaign: what a side learns of an enemy ship's fate").

With closed record sheets (000 L1462-1466) a side learns of an enemy ship what its sensors knew
at the battle's end, and its fate, which everyone present sees. `enemy_knowledge` is the one
home of that rule: `battle_knowledge` records it in the `battle_fought` event when the engine
fights the battle (`campaign.rules.battles`), `campaign.battletold` tells the event by it, and
the battle report (`campaign.battlereport`) draws its forces and fates by it. An event from
before the knowledge was recorded is told by replaying its journal (`replayed_knowledge`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import msgspec

from campaign.events import UMPIRE, BattleFought
from campaign.strategic import BattleKnowledge, EnemyKnown, KnownShip, engine_id
from tactical.battle import Event as TacticalEvent
from tactical.battle import evolve, side_view
from tactical.campaign_battle import CampaignBattle
from tactical.phases.knowledge import sheets_closed
from tactical.sensors import DRIVE_KNOWN, MASS_KNOWN, SYSTEMS_KNOWN, Sighting
from tactical.setup import context, initial_state
from tactical.state import BattleContext, BattleSetup, BattleState


class Journal(msgspec.Struct, frozen=True):
    """A battle as the engine fought it: the campaign's request, the set-up and the journal."""

    request: CampaignBattle
    setup: BattleSetup
    journal: tuple[TacticalEvent, ...]


def decode_journal(journal: str | None) -> Journal | None:
    """The journal a `battle_fought` event carries, decoded; None when no battle was fought."""
    if not journal:
        return None
    try:
        return msgspec.json.decode(journal, type=Journal)
    except msgspec.ValidationError:
        return None  # "no battle": one side was already gone, nothing was fought


class ShipKnowledge(msgspec.Struct, frozen=True, kw_only=True):
    """What a side knew at a battle's end of an enemy ship whose record sheet is closed to it
    (``enemy_sheets = "sensed"``, 000 L1462-1466; docs/rulings.md, "Campaign: what a side
    learns of an enemy ship's fate"): whether it was ``identified`` (its bogey replaced by
    the ship, which shows its class, 000 L12517-12521, L12569-12573), and what its advanced
    scans told (``sighting``, 000 L12648-12660; None: everything, damage included)."""

    identified: bool
    sighting: Sighting | None = None

    @property
    def design_known(self) -> bool:
        """Whether the side knows the ship's design: "all onboard systems (original values)"
        (000 L12656) or more."""
        return self.identified and (self.sighting is None or self.sighting.level >= SYSTEMS_KNOWN)

    @property
    def damage_known(self) -> bool:
        """Whether the side knows the ship as it stands, damage included (000 L12658-12660)."""
        return self.identified and self.sighting is None

    @property
    def seen_as(self) -> str | None:
        """What the side knows of a ship whose design it does not: its class, and the mass,
        thrust and screens a scan told (original values); None when it knows the design."""
        seen = self.sighting
        if not self.identified:
            return "never identified"
        if seen is None or self.design_known:
            return None
        known: list[str] = [seen.shows]
        if seen.level >= MASS_KNOWN and seen.mass is not None:
            known.append(f"mass {seen.mass}")
        if seen.level >= DRIVE_KNOWN:
            known += [f"thrust {seen.thrust}", f"screens {seen.screens}"]
        return ", ".join(known)

    @property
    def known(self) -> EnemyKnown:
        """The same, as the `battle_fought` event records it (`KnownShip`)."""
        if not self.identified:
            return "unidentified"
        if self.sighting is None:
            return "everything"
        return _SCANNED[self.sighting.level]


# What a side knows of an identified ship by the level its scans reached (000 L12648-12656).
_SCANNED: dict[int, EnemyKnown] = {
    0: "class",
    MASS_KNOWN: "mass",
    DRIVE_KNOWN: "drive",
    SYSTEMS_KNOWN: "systems",
}


def enemy_knowledge(
    ctx: BattleContext, final: BattleState, viewer: str
) -> dict[str, ShipKnowledge]:
    """Return, by engine id, what `viewer`'s side knew at the battle's end (`final`) of each
    enemy ship it did not know to the last detail; empty for the umpire and under open record
    sheets (FT2, FT Lite, a set-up without bogeys: everything shows, 000 L1442-1458).

    The one home of the rule that the battle report's forces and fates and the `battle_fought`
    event as told (`battle_knowledge`, `campaign.battletold`) follow; the knowledge is
    `tactical.battle.side_view`'s (`BattleState.known`)."""
    if viewer == UMPIRE or not sheets_closed(ctx):
        return {}
    seen = {s.id: s.sighting for s in side_view(ctx, final, viewer)[1].ships}
    return {
        ship.id: ShipKnowledge(identified=ship.id in seen, sighting=seen.get(ship.id))
        for ship in ctx.setup.ships
        if ship.side != viewer and (ship.id not in seen or seen[ship.id] is not None)
    }


def battle_knowledge(
    ctx: BattleContext, final: BattleState, names: Mapping[str, str]
) -> BattleKnowledge:
    """Return what each side knew at the battle's end (`final`) of each enemy ship, by its
    campaign id (`names`: engine id to campaign id), as the `battle_fought` event records it:
    `enemy_knowledge` for every side, and every enemy ship listed, those known to the last
    detail as "everything"; under open record sheets nothing to record."""
    if not sheets_closed(ctx):
        return BattleKnowledge(closed=False)
    ships = []
    for side in ctx.setup.sides:
        knowledge = enemy_knowledge(ctx, final, side)
        ships += [
            KnownShip(
                side=side,
                unit=names.get(ship.id, ship.id),
                known=knowledge[ship.id].known if ship.id in knowledge else "everything",
            )
            for ship in ctx.setup.ships
            if ship.side != side
        ]
    return BattleKnowledge(closed=True, ships=tuple(ships))


@functools.lru_cache(maxsize=1024)  # an old event: replayed once per process, for both sides
def replayed_knowledge(fought: BattleFought) -> BattleKnowledge | None:
    """Return `battle_knowledge` of a battle the engine fought, worked out by replaying its
    journal: for a `battle_fought` recorded before the event held it (`fought.knowledge`).
    None: no journal (a battle recorded by hand) or no battle (one side was already gone)."""
    record = decode_journal(fought.journal)
    if record is None:
        return None
    ctx = context(record.setup)
    final = initial_state(ctx)
    for event in record.journal:
        final = evolve(ctx, final, event)
    names = {engine_id(r.unit): r.unit for r in fought.results}
    return battle_knowledge(ctx, final, names)
