"""Who of a campaign's players holds a secret for remote play: what `umpire player list` shows.

Read from the store alone (`Store.secret_holders`), so the command reads a SQLite file without
SQLAlchemy (issue 19); issuing, rotating and checking secrets live in `campaign.players`.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from campaign.events import CampaignCreated
from campaign.storetypes import Store


class PlayerAccess(msgspec.Struct, frozen=True):
    """Whether a player of a campaign holds a secret, and since when."""

    player: str
    has_secret: bool
    issued_at: datetime | None = None
    rotations: int = 0
    signs_orders: bool = False  # holds a signing key (secrets issued before 0004 do not)


def campaign_players(store: Store, campaign: str) -> tuple[str, ...]:
    """Return the campaign's players, from its creation event.

    Raises:
        CampaignNotFoundError: no such campaign.
    """
    name = store.resolve_campaign(campaign)
    lineage = store.lineage(name, store.active_branch(name))
    for recorded in store.read(lineage, types=[CampaignCreated.TYPE], upto_version=1):
        if isinstance(recorded.event, CampaignCreated):
            return tuple(recorded.event.players)
    return ()


def player_access(store: Store, campaign: str) -> list[PlayerAccess]:
    """Return every player of the campaign, with or without a secret, in creation order."""
    players = campaign_players(store, campaign)
    held = {h.player: h for h in store.secret_holders(store.resolve_campaign(campaign))}
    return [
        PlayerAccess(
            player=p,
            has_secret=p in held,
            issued_at=held[p].issued_at if p in held else None,
            rotations=held[p].rotations if p in held else 0,
            signs_orders=p in held and held[p].signs_orders,
        )
        for p in players
    ]
