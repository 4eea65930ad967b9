"""The one service layer: load state, decide, append. Every front end calls only this.

Each command resolves its campaign and branch, folds the branch's events into state (from the
newest snapshot when there is one), asks a pure rule what happened, and appends the result
atomically after the version it decided on. A concurrent writer makes that append fail with
`ConcurrencyError`, and nothing is stored.

`CampaignService` is composed of one class per concern, each in its own module here, all
built on `base.ServiceCore` (the store, target, load, dice, snapshot, append):

- `creation`: `plan_campaign`, `plan_ft2_campaign` and the campaign created;
- `desks`: what a player writes his orders from (his map, template, desk, package, reach);
- `submission`: orders handed in, replaced by ruling, marked final;
- `turns`: the umpire's dice and notes, the deadline, hold, resolve and end of a turn;
- `rulings`: units, colonies and designs ruled on, dice rolled again;
- `fighting`: battles listed, fought, recorded and reported;
- `reports`: a player's report and log, the branch's status;
- `branching`: rewind, branches listed and compared;
- `verification`: the chain, row and snapshots verified; receipts.

Every name other code imports from `campaign.service` is exported here.
"""

from __future__ import annotations

from campaign.events import UMPIRE
from campaign.service.base import AskDie, Nonces, ServiceCore, battle_order, secret_nonce
from campaign.service.branching import EVERYONE, BranchCommands, BranchDiff, Standing, TurnDiff
from campaign.service.creation import CampaignCreation, plan_campaign, plan_ft2_campaign
from campaign.service.desks import PlayerDesks
from campaign.service.fighting import BattleCommands
from campaign.service.reports import PlayerReport, ReportQueries, Status, _as_told, _numbered
from campaign.service.rulings import RulingCommands
from campaign.service.submission import OrdersSubmission
from campaign.service.turns import TurnCommands, TurnStatus
from campaign.service.verification import VerifyCommands, VerifyReport

__all__ = [
    "EVERYONE",
    "UMPIRE",
    "AskDie",
    "BranchDiff",
    "CampaignService",
    "Nonces",
    "PlayerReport",
    "Standing",
    "Status",
    "TurnDiff",
    "TurnStatus",
    "VerifyReport",
    "_as_told",
    "_numbered",
    "battle_order",
    "plan_campaign",
    "plan_ft2_campaign",
    "secret_nonce",
]


class CampaignService(
    CampaignCreation,
    OrdersSubmission,
    RulingCommands,
    TurnCommands,
    PlayerDesks,
    BattleCommands,
    ReportQueries,
    BranchCommands,
    VerifyCommands,
    ServiceCore,
):
    """Campaign commands and queries over one event store."""
