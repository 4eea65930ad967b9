"""The umpire's commands on seats (issue 18): a player's absence policy, his holidays, and a
substitute taking his seat. Pure decisions live in `campaign/seats.py`; this module loads the
state, appends the event, and (for a substitute) revokes the old secret and issues a new one.
"""

from __future__ import annotations

from campaign.errors import InvalidInputError
from campaign.events import RecordedEvent, check_player_name
from campaign.outbox import Outbox
from campaign.players import PlayerSecrets
from campaign.projections import CampaignState
from campaign.rules import core
from campaign.schedule import current_schedule
from campaign.seats import decide_holiday, decide_policy, decide_substitute
from campaign.service import CampaignService
from campaign.store import Lineage


def set_absence_policy(
    service: CampaignService, lineage: Lineage, player: str, policy: str, drop_after: int = 0
) -> list[RecordedEvent]:
    """Change what happens when `player` sends no orders, from the turn in progress on.

    Raises:
        InvalidInputError: not a player, an unknown policy or a limit out of range.
    """
    state = _seat_state(service, lineage, player)
    batch = [decide_policy(state.turn, player, policy, drop_after)]
    return service.append(lineage, state.version, batch)


def take_holiday(
    service: CampaignService, lineage: Lineage, player: str, turns: int
) -> list[RecordedEvent]:
    """Send `player` on holiday from the turn in progress, within the campaign's allowance.

    Raises:
        IllegalCommandError: more holiday turns than the schedule allows him.
    """
    state = _seat_state(service, lineage, player)
    schedule = current_schedule(service.store, lineage)
    allowed = schedule.holidays if schedule is not None else 0
    batch = [decide_holiday(state.seats, state.turn, player, turns, allowed)]
    return service.append(lineage, state.version, batch)


def substitute_seat(
    service: CampaignService,
    lineage: Lineage,
    player: str,
    substitute: str,
    email: str | None = None,
    webhook: str | None = None,
) -> tuple[list[RecordedEvent], str]:
    """Hand `player`'s seat to `substitute`: a new secret (returned, shown once) replaces the
    old one, which stops working at once; his contact is replaced; everyone is told.

    The secret is replaced before the event is appended: a crash between the two leaves the
    old player locked out and the command to run again, never the old secret working.
    """
    state = _seat_state(service, lineage, player)
    event = decide_substitute(state.turn, player, substitute)
    secrets = PlayerSecrets(service.store)
    if secrets.holds_secret(lineage.campaign, player):
        secret = secrets.rotate(lineage.campaign, player)
    else:
        secret = secrets.issue(lineage.campaign, player)
    Outbox(service.store).set_contact(lineage.campaign, player, email, webhook)
    return service.append(lineage, state.version, [event]), secret


def check_seat(service: CampaignService, lineage: Lineage, player: str) -> None:
    """Check that `player` is a player of the campaign (or `umpire`).

    Raises:
        InvalidInputError: he is not, naming the players.
    """
    if player != "umpire":
        _seat_state(service, lineage, player)


def _seat_state(service: CampaignService, lineage: Lineage, player: str) -> CampaignState:
    check_player_name(player)
    state = service.load(lineage)
    if player not in state.players:
        raise InvalidInputError(
            f"{player!r} is not a player of {lineage.campaign!r} "
            f"(players: {', '.join(state.players) or 'none'})"
        )
    core.require_running(state)
    return state
