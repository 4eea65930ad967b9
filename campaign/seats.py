"""Seats (issue 18): each player's absence policy, missed turns, holidays and substitutes.

The campaign's `absent` setting is the default; `absence_policy_set` changes it for one player
mid-campaign, with `drop_after` missed turns in a row before his seat is declared open
(`player_dropped`). A player on holiday (`holiday_taken`, a number of turns the campaign's
schedule allows) holds position, is not waited for, and misses nothing. A substitute takes an
open (or any) seat with `seat_substituted`: the seat keeps its name and its history.

`Seats` is folded by `campaign.projections.evolve` (a player's view folds his own events only),
and the decisions here are pure functions of the state.
"""

from __future__ import annotations

import msgspec

from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import (
    AbsencePolicySet,
    AbsentPlayer,
    Audience,
    Event,
    HolidayTaken,
    NewEvent,
    OrdersCommitted,
    PlayerDropped,
    SeatSubstituted,
)

POLICIES = ("hold", "repeat", "autoplay")
ON_HOLIDAY = "on holiday: held position"
SEAT_OPEN = "seat open: held position"
SEAT_EVENTS = (
    AbsencePolicySet,
    AbsentPlayer,
    HolidayTaken,
    OrdersCommitted,
    PlayerDropped,
    SeatSubstituted,
)


class Seats(msgspec.Struct, frozen=True, kw_only=True):
    """Every player's seat as the events so far say."""

    policies: dict[str, str] = msgspec.field(default_factory=dict)  # overriding `absent`
    drop_after: dict[str, int] = msgspec.field(default_factory=dict)
    missed: dict[str, int] = msgspec.field(default_factory=dict)  # turns missed, in all
    streak: dict[str, int] = msgspec.field(default_factory=dict)  # missed in a row, now
    holidays_used: dict[str, int] = msgspec.field(default_factory=dict)
    holiday_until: dict[str, int] = msgspec.field(default_factory=dict)  # the last such turn
    dropped: tuple[str, ...] = ()  # open seats
    substitutes: dict[str, str] = msgspec.field(default_factory=dict)  # who plays each now

    def policy(self, player: str, default: str) -> str:
        """Return the absence policy that applies to `player`."""
        return self.policies.get(player, default)

    def on_holiday(self, player: str, turn: int) -> bool:
        """Return whether `player` is on holiday in `turn`."""
        return turn <= self.holiday_until.get(player, 0)

    def excused(self, player: str, turn: int) -> bool:
        """Return whether the host neither waits for nor reminds `player` in `turn`."""
        return self.on_holiday(player, turn) or player in self.dropped


def evolve_seats(seats: Seats, ev: Event) -> Seats:
    """Return the seats after one event."""
    match ev:
        case AbsencePolicySet():
            return msgspec.structs.replace(
                seats,
                policies={**seats.policies, ev.player: ev.policy},
                drop_after={**seats.drop_after, ev.player: ev.drop_after},
            )
        case HolidayTaken():
            used = seats.holidays_used.get(ev.player, 0) + ev.turns
            return msgspec.structs.replace(
                seats,
                holidays_used={**seats.holidays_used, ev.player: used},
                holiday_until={**seats.holiday_until, ev.player: ev.first_turn + ev.turns - 1},
            )
        case AbsentPlayer():
            if ev.decision == ON_HOLIDAY:
                return seats
            return msgspec.structs.replace(
                seats,
                missed={**seats.missed, ev.player: seats.missed.get(ev.player, 0) + 1},
                streak={**seats.streak, ev.player: seats.streak.get(ev.player, 0) + 1},
            )
        case OrdersCommitted():
            if not seats.streak.get(ev.player):
                return seats
            return msgspec.structs.replace(seats, streak={**seats.streak, ev.player: 0})
        case PlayerDropped():
            return msgspec.structs.replace(
                seats, dropped=tuple(sorted({*seats.dropped, ev.player}))
            )
        case SeatSubstituted():
            return msgspec.structs.replace(
                seats,
                dropped=tuple(p for p in seats.dropped if p != ev.player),
                streak={**seats.streak, ev.player: 0},
                substitutes={**seats.substitutes, ev.player: ev.substitute},
            )
        case _:
            return seats


def decide_policy(turn: int, player: str, policy: str, drop_after: int) -> NewEvent:
    """Change `player`'s absence policy.

    Raises:
        InvalidInputError: an unknown policy, or a limit out of 0-99.
    """
    if policy not in POLICIES:
        raise InvalidInputError(f"absence policy {policy!r} must be one of {', '.join(POLICIES)}")
    if not 0 <= drop_after <= 99:
        raise InvalidInputError(f"--drop-after must be 0 (never) to 99 turns, not {drop_after}")
    event = AbsencePolicySet(player=player, policy=policy, drop_after=drop_after)
    return NewEvent(event, Audience.players_([player]), turn)


def decide_holiday(seats: Seats, turn: int, player: str, turns: int, allowed: int) -> NewEvent:
    """Send `player` on holiday for `turns` turns from the turn in progress.

    Raises:
        IllegalCommandError: more holiday turns than the campaign allows him.
    """
    used = seats.holidays_used.get(player, 0)
    if turns < 1:
        raise InvalidInputError(f"a holiday is at least 1 turn, not {turns}")
    if used + turns > allowed:
        raise IllegalCommandError(
            f"{player} has used {used} of the {allowed} holiday turns the campaign allows "
            f"(`umpire schedule set --holidays N`): {turns} more is too many"
        )
    return NewEvent(
        HolidayTaken(player=player, first_turn=turn, turns=turns), Audience.everyone(), turn
    )


def decide_drops(seats: Seats, turn: int, players: tuple[str, ...]) -> list[NewEvent]:
    """Declare open the seats of players whose missed turns in a row reached their limit."""
    batch = []
    for player in players:
        limit = seats.drop_after.get(player, 0)
        streak = seats.streak.get(player, 0)
        if limit and streak >= limit and player not in seats.dropped:
            dropped = PlayerDropped(player=player, turn=turn, missed=streak)
            batch.append(NewEvent(dropped, Audience.everyone(), turn))
    return batch


def decide_substitute(turn: int, player: str, substitute: str) -> NewEvent:
    """Hand `player`'s seat to `substitute` (everyone is told).

    Raises:
        InvalidInputError: no substitute's name given.
    """
    name = " ".join(substitute.split())
    if not name or len(name) > 64:
        raise InvalidInputError("name the substitute (1-64 characters): --to 'Jane Doe'")
    return NewEvent(
        SeatSubstituted(player=player, substitute=name, turn=turn), Audience.everyone(), turn
    )
