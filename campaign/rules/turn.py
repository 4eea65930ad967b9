"""The strategic turn (004 section 5), phase by phase, as one pure decision.

This resolves FTL movement (5.1), exploration (5.2), disembarking colonists (5.5), the
passage of the turn (5.6) and, after every fourth turn, the production phase (5.7). Combat
(5.3) and attacks on colonies (5.4) come in a later slice.
"""

from __future__ import annotations

from campaign.dice import DiceSource
from campaign.events import Audience, NewEvent, TurnEnded
from campaign.projections import CampaignState, evolve_all
from campaign.rules.colonies import decide_landings
from campaign.rules.core import require_running
from campaign.rules.economy import Catalogue, decide_production, is_production_turn
from campaign.rules.exploration import decide_exploration
from campaign.rules.movement import decide_movement
from maps import StarMap


def decide_turn(
    state: CampaignState, starmap: StarMap, dice: DiceSource, catalogue: Catalogue
) -> list[NewEvent]:
    """Resolve the turn in progress from the orders submitted; return all of its events."""
    require_running(state)
    batch = decide_movement(state, starmap, state.orders)
    moved = evolve_all(state, (new.event for new in batch))
    exploration = decide_exploration(moved, starmap, dice)
    explored = evolve_all(moved, (new.event for new in exploration))
    batch += exploration
    landings = decide_landings(explored, starmap)
    batch += landings
    if is_production_turn(state.turn):
        landed = evolve_all(explored, (new.event for new in landings))
        batch += decide_production(landed, landed.production, landed.research, catalogue, dice)
    batch.append(
        NewEvent(event=TurnEnded(turn=state.turn), audience=Audience.everyone(), turn=state.turn)
    )
    return batch
