"""The strategic turn (004 section 5), phase by phase, as one pure decision.

This slice resolves FTL movement (5.1), exploration (5.2) and disembarking colonists (5.5),
then records the passage of the turn (5.6). Combat (5.3), attacks on colonies (5.4) and
production (5.7) come in later slices.
"""

from __future__ import annotations

from campaign.dice import DiceSource
from campaign.events import Audience, NewEvent, TurnEnded
from campaign.projections import CampaignState, evolve_all
from campaign.rules.colonies import decide_landings
from campaign.rules.core import require_running
from campaign.rules.exploration import decide_exploration
from campaign.rules.movement import decide_movement
from maps import StarMap


def decide_turn(state: CampaignState, starmap: StarMap, dice: DiceSource) -> list[NewEvent]:
    """Resolve the turn in progress from the orders submitted; return all of its events."""
    require_running(state)
    batch = decide_movement(state, starmap, state.orders)
    moved = evolve_all(state, (new.event for new in batch))
    exploration = decide_exploration(moved, starmap, dice)
    explored = evolve_all(moved, (new.event for new in exploration))
    batch += exploration
    batch += decide_landings(explored, starmap)
    batch.append(
        NewEvent(event=TurnEnded(turn=state.turn), audience=Audience.everyone(), turn=state.turn)
    )
    return batch
