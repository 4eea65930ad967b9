"""The strategic turn (004 section 5), phase by phase, as pure decisions.

A turn resolves in one step when no battle is found, and stops for battles when one is:

1. FTL movement (5.1), exploration (5.2) and the search for battles (5.3), including the
   pursuits of ships leaving hexes where enemies Engage (5.1). Battles found stop the turn,
   each announced to its two sides; each then gets an outcome (the tactical engine, or an
   umpire recording a table-top game), and `decide_turn` goes on.
2. Scouts and transports caught by enemy warships, then attacks on colonies (5.4): shields,
   surrender, bombardment; assaults on planetary defences stop the turn again the same way.
3. Conquests, disembarking colonists (5.5), the production phase after every fourth turn
   (5.7), fleet tenders resupplying carriers (L198-201), repairs at friendly colonies (5.3.6),
   and the passage of the turn (5.6).
"""

from __future__ import annotations

from campaign.dice import DiceSource
from campaign.errors import IllegalCommandError
from campaign.events import Audience, NewEvent, TurnEnded
from campaign.projections import CampaignState, evolve_all
from campaign.rules.assault import decide_attacks, decide_conquests
from campaign.rules.colonies import decide_landings, decide_posts, decide_repairs
from campaign.rules.combat import decide_aftermath, decide_battles
from campaign.rules.core import require_running
from campaign.rules.economy import (
    Catalogue,
    decide_production,
    decide_treasury,
    is_production_turn,
)
from campaign.rules.exploration import decide_exploration
from campaign.rules.fighters import decide_resupply
from campaign.rules.movement import decide_movement
from campaign.rules.orders import decide_reveal
from campaign.rules.regroup import decide_regroup
from campaign.rules.sightings import decide_sightings
from campaign.rules.taskforces import decide_task_forces
from maps import StarMap


def decide_turn(
    state: CampaignState, starmap: StarMap, dice: DiceSource, catalogue: Catalogue
) -> list[NewEvent]:
    """Resolve as much of the turn in progress as can be; return its events.

    Raises:
        IllegalCommandError: battles found earlier still wait for their outcomes.
    """
    require_running(state)
    if state.held is not None:
        raise IllegalCommandError(
            f"turn {state.turn} is held ({state.held}): `umpire turn release` first"
        )
    if state.pending_battles:
        waiting = ", ".join(sorted(state.pending_battles))
        raise IllegalCommandError(
            f"battles {waiting} await their outcomes: `umpire battles resolve` or "
            "`umpire battles record ID`"
        )
    phases = _Phases(state)
    if state.phase == "orders":
        phases.add(decide_reveal(state))
        phases.add(decide_treasury(state, catalogue, dice))  # before the first move (004 L32)
        phases.add(decide_task_forces(phases.state, dice))
        regrouped, moves = decide_regroup(phases.state)  # merges and splits (004 L67)
        phases.add(regrouped)
        phases.add(decide_movement(phases.state, starmap, moves))
        phases.add(decide_exploration(phases.state, starmap, dice))
        # The turn's start shows who left a hex: they are pursued there (004 L72).
        battles = decide_battles(phases.state, starmap, dice, start=state)
        if battles:
            return phases.events + battles
    if state.phase in ("orders", "combat"):
        phases.add(decide_aftermath(phases.state, dice))
        attacks = decide_attacks(phases.state, starmap)
        phases.add(attacks)
        if phases.state.pending_battles:
            return phases.events  # assault battles on planetary defences come first
    return phases.events + _finish(phases.state, starmap, dice, catalogue)


class _Phases:
    """The turn's events so far, and the state they lead to, one phase after another."""

    def __init__(self, state: CampaignState) -> None:
        self.state = state
        self.events: list[NewEvent] = []

    def add(self, events: list[NewEvent]) -> None:
        self.events += events
        self.state = evolve_all(self.state, (new.event for new in events))


def _finish(
    state: CampaignState, starmap: StarMap, dice: DiceSource, catalogue: Catalogue
) -> list[NewEvent]:
    phases = _Phases(state)
    phases.add(decide_conquests(phases.state))
    phases.add(decide_landings(phases.state, starmap))
    phases.add(decide_posts(phases.state))  # 004 L86-89: command posts by choice
    if is_production_turn(state.turn):
        now = phases.state
        phases.add(
            decide_production(
                now, now.production, now.research, catalogue, dice, now.treasury_orders
            )
        )
    phases.add(decide_resupply(phases.state))
    phases.add(decide_repairs(phases.state))
    phases.add(decide_sightings(phases.state, starmap))  # 004 L92-104: what each one sees
    ended = TurnEnded(turn=state.turn)
    phases.add([NewEvent(event=ended, audience=Audience.everyone(), turn=state.turn)])
    return phases.events
