"""The strategic turn (004 section 5), phase by phase, as pure decisions.

A turn resolves in one step when no battle is found, in two when one is:

1. `decide_turn`: FTL movement (5.1), exploration (5.2) and the search for battles (5.3).
   When battles are found, the turn stops there, each battle announced to its two sides.
2. Each battle gets an outcome (the tactical engine, or an umpire recording a table-top game).
3. `decide_turn` again: scouts and transports caught by enemy warships, disembarking colonists
   (5.5), the production phase after every fourth turn (5.7), and the passage of the turn (5.6).

Attacks on colonies (5.4) come in a later slice.
"""

from __future__ import annotations

from campaign.dice import DiceSource
from campaign.errors import IllegalCommandError
from campaign.events import Audience, NewEvent, TurnEnded
from campaign.projections import CampaignState, evolve_all
from campaign.rules.colonies import decide_landings
from campaign.rules.combat import decide_aftermath, decide_battles
from campaign.rules.core import require_running
from campaign.rules.economy import Catalogue, decide_production, is_production_turn
from campaign.rules.exploration import decide_exploration
from campaign.rules.movement import decide_movement
from maps import StarMap


def decide_turn(
    state: CampaignState, starmap: StarMap, dice: DiceSource, catalogue: Catalogue
) -> list[NewEvent]:
    """Resolve as much of the turn in progress as can be; return its events.

    Raises:
        IllegalCommandError: battles found earlier still wait for their outcomes.
    """
    require_running(state)
    if state.phase == "combat":
        if state.pending_battles:
            waiting = ", ".join(sorted(state.pending_battles))
            raise IllegalCommandError(
                f"battles {waiting} await their outcomes: `umpire battle resolve ID` or "
                "`umpire battle record ID`"
            )
        return _finish(state, starmap, dice, catalogue)
    batch = decide_movement(state, starmap, state.orders)
    moved = evolve_all(state, (new.event for new in batch))
    exploration = decide_exploration(moved, starmap, dice)
    batch += exploration
    explored = evolve_all(moved, (new.event for new in exploration))
    battles = decide_battles(explored, starmap, dice)
    if battles:
        return batch + battles
    return batch + _finish(explored, starmap, dice, catalogue)


def _finish(
    state: CampaignState, starmap: StarMap, dice: DiceSource, catalogue: Catalogue
) -> list[NewEvent]:
    batch = decide_aftermath(state, dice)
    after = evolve_all(state, (new.event for new in batch))
    landings = decide_landings(after, starmap)
    batch += landings
    if is_production_turn(state.turn):
        landed = evolve_all(after, (new.event for new in landings))
        batch += decide_production(landed, landed.production, landed.research, catalogue, dice)
    batch.append(
        NewEvent(event=TurnEnded(turn=state.turn), audience=Audience.everyone(), turn=state.turn)
    )
    return batch
