"""The turn's course: the umpire's table (dice rolled, notes, the seed revealed), the deadline,
a hold and its release, the turn resolved (absent players decided first) or ended, and
where the turn in progress stands.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec

from campaign.dice import DiceSource, ManualDice
from campaign.errors import DiceError, IllegalCommandError, InvalidInputError
from campaign.events import (
    AbsentPlayer,
    Audience,
    DeadlineSet,
    NewEvent,
    RecordedEvent,
    TurnHeld,
    TurnReleased,
)
from campaign.ft2 import service as ft2
from campaign.projections import CampaignState, evolve_all, fold
from campaign.random_orders import random_document
from campaign.rules import core, orders, turn
from campaign.rules.production import is_production_turn
from campaign.rules.setup import campaign_catalogue
from campaign.schedule import check_future
from campaign.seats import ON_HOLIDAY, SEAT_OPEN, decide_drops
from campaign.service.base import AskDie
from campaign.service.desks import PlayerDesks
from campaign.storetypes import Lineage
from maps import StarMap


class TurnStatus(msgspec.Struct, frozen=True):
    """What `umpire turn status` shows."""

    campaign: str
    branch: str
    turn: int
    phase: str
    held: str | None
    deadline: datetime | None
    late: bool  # the deadline has passed
    submitted: tuple[str, ...]
    waiting_for: tuple[str, ...]
    battles: tuple[str, ...]
    production: bool = False  # a production phase follows this turn (004 L65, L235)
    finished: bool = False  # the campaign is over
    final: tuple[str, ...] = ()  # players who marked their orders final ("ready")
    missed: dict[str, int] = msgspec.field(default_factory=dict)  # turns missed (issue 18)
    on_holiday: tuple[str, ...] = ()
    open_seats: tuple[str, ...] = ()  # dropped after missing too many turns
    rules: str = "004"  # the campaign rules: 004, or ft2 (its battles are the encounters')


def _check_resolve(state: CampaignState, expected_turn: int | None, now: datetime) -> None:
    """Refuse to resolve a turn nobody meant to resolve (issue 13)."""
    if expected_turn is not None:
        if expected_turn != state.turn:
            raise IllegalCommandError(
                f"turn {expected_turn} is not the turn in progress (turn {state.turn}): "
                "nothing was resolved"
            )
        return
    due = state.deadline is not None and now > state.deadline
    if state.phase == "orders" and not state.submitted and not due:
        raise IllegalCommandError(
            f"nobody has sent orders for turn {state.turn} and it is not past its deadline: "
            f"to resolve it all the same, name it (--turn {state.turn})"
        )


class TurnCommands(PlayerDesks):
    """Roll, note, set the deadline, hold, resolve and end the turn in progress."""

    def roll(
        self,
        lineage: Lineage,
        expression: str,
        reason: str,
        audience: Audience,
        results: Sequence[int] | None = None,
        ask: AskDie | None = None,
    ) -> list[RecordedEvent]:
        """Roll the umpire's dice: seeded, or physical (`results` given, or asked at a prompt)."""
        state = self.load(lineage)
        command = core.RollDice(expression=expression, reason=reason, audience=audience)
        dice = self._dice(lineage, state, results, ask)
        batch = core.decide_roll(state, command, dice)
        if isinstance(dice, ManualDice) and dice.unused():
            raise DiceError(f"{dice.unused()} more result(s) given than the {expression} rolled")
        return self.store.append(lineage, state.version, batch)

    def note(self, lineage: Lineage, text: str, audience: Audience) -> list[RecordedEvent]:
        """Record a note from the umpire."""
        state = self.load(lineage)
        return self.store.append(
            lineage, state.version, core.decide_note(state, core.WriteNote(text, audience))
        )

    def end_turn(self, lineage: Lineage) -> list[RecordedEvent]:
        """Close the turn in progress and snapshot the state at its end."""
        state = self._decisive_state(lineage)
        ft2.refuse_in_ft2(state, "umpire turn end")  # its week's end is `turn resolve`'s
        recorded = self.store.append(
            lineage, state.version, core.decide_end_turn(state, core.EndTurn())
        )
        self._snapshot(lineage, fold(recorded, state))
        return recorded

    def reveal_seed(self, lineage: Lineage, early: bool = False) -> list[RecordedEvent]:
        """Publish the campaign's seed so anyone can recompute every seeded roll."""
        state = self.load(lineage)
        seed = self.store.campaign_seed(lineage.campaign)
        batch = core.decide_reveal_seed(state, core.RevealSeed(seed=seed, early=early))
        return self.store.append(lineage, state.version, batch)

    def resolve_turn(
        self,
        lineage: Lineage,
        ask: AskDie | None = None,
        dry_run: bool = False,
        expected_turn: int | None = None,
    ) -> list[RecordedEvent]:
        """Resolve the turn in progress: movement, exploration, then the turn's end.

        A player who sent no orders holds position. Everything is appended in one batch.
        With `dry_run` nothing is stored: the events are returned as they would be recorded
        (positions 0, no hashes), from the same dice, so the real resolve gives the same.

        A resolve resolves only the turn it means (issue 13): `expected_turn` names it, and
        any other turn is refused. Without it, a turn nobody has sent orders for is refused
        until its deadline has passed: a retried or doubled resolve would otherwise resolve
        the next turn with everyone holding position.

        Raises:
            IllegalCommandError: the turn in progress is not `expected_turn`, or it is an
                empty turn before its deadline and no turn was named.
        """
        state = self._decisive_state(lineage)
        if state.ft2 is not None:
            return ft2.resolve_turn(self, lineage, state, ask, expected_turn, self.store.clock())
        if not dry_run:
            _check_resolve(state, expected_turn, self.store.clock())
        dice = self._dice(lineage, state, None, ask)
        batch = self._turn_batch(lineage, state, self.starmap(lineage), dice)
        if dry_run:
            return [
                RecordedEvent(
                    position=0,
                    version=state.version + i,
                    type=new.event.TYPE,
                    schema_version=new.event.SCHEMA_VERSION,
                    audience=new.audience,
                    actor=new.actor,
                    turn=new.turn,
                    recorded_at=self.store.clock(),
                    hash="",
                    event=new.event,
                )
                for i, new in enumerate(batch, start=1)
            ]
        recorded = self.store.append(lineage, state.version, batch)
        self._snapshot(lineage, fold(recorded, state))
        return recorded

    def _turn_batch(
        self, lineage: Lineage, state: CampaignState, starmap: StarMap, dice: DiceSource
    ) -> list[NewEvent]:
        """Decide the next step of the turn: the absent players first, then the phases."""
        absentees = self._absentees(lineage, state) if state.held is None else []
        ready = evolve_all(state, (new.event for new in absentees))
        return absentees + turn.decide_turn(ready, starmap, dice, campaign_catalogue(ready))

    def _absentees(self, lineage: Lineage, state: CampaignState) -> list[NewEvent]:
        """Decide for the players who sent no orders, by the campaign's setting (issue 6).

        hold: they hold position. repeat: last turn's standing orders (moves, combat orders,
        battle locations, attacks) are handed in again if they still hold. autoplay: orders
        drawn from the player's own view. Each decision is an event for that player.
        """
        if state.phase != "orders" or not state.empires:
            return []
        batch: list[NewEvent] = []
        for player in state.players:
            if player in state.submitted or player not in state.empires:
                continue
            view = self.load(lineage, viewer=player)
            known, _ = self.player_map(lineage, player)
            document = None
            decision = "held position"
            policy = state.seats.policy(player, state.absent)  # his own, if set (issue 18)
            if state.seats.on_holiday(player, state.turn):
                decision = ON_HOLIDAY
            elif player in state.seats.dropped:
                decision = SEAT_OPEN
            elif policy == "repeat" and player in state.last_submitted:
                last = state.last_submitted[player]
                document = orders.OrdersDocument(
                    player=player,
                    turn=state.turn,
                    moves=last.moves,
                    battle_locations=last.battle_locations,
                    attacks=last.attacks,
                )
                decision = "repeated last turn's standing orders"
            elif policy == "autoplay":
                rng = random.Random(f"{state.seed_commitment}/{state.turn}/absent/{player}")
                document = random_document(view, known, player, rng)
                decision = "played by autoplay from his own view"
            if document is not None:
                try:
                    batch += orders.decide_submit(
                        state,
                        view,
                        known,
                        player,
                        document,
                        campaign_catalogue(state, player),
                        nonce=self.nonces(),
                    )
                except InvalidInputError:
                    decision = "held position (the repeated orders no longer hold)"
            absent = AbsentPlayer(player=player, turn=state.turn, decision=decision)
            batch.append(NewEvent(absent, Audience.players_([player]), state.turn))
        seats = evolve_all(state, (new.event for new in batch)).seats
        return batch + decide_drops(seats, state.turn, state.players)

    def turn_status(self, lineage: Lineage) -> TurnStatus:
        """Return where the turn in progress stands: who sent orders, what waits."""
        state = self.load(lineage)
        submitted, phase, battles_waiting = ft2.turn_in_progress(state)
        return TurnStatus(
            campaign=lineage.campaign,
            branch=lineage.branch,
            turn=state.turn,
            phase=phase,
            held=state.held,
            deadline=state.deadline,
            late=state.deadline is not None and self.store.clock() > state.deadline,
            submitted=submitted,
            waiting_for=tuple(p for p in state.players if p not in submitted),
            final=state.final,
            battles=battles_waiting,
            production=is_production_turn(state.turn) and state.ft2 is None,
            finished=state.finished,
            missed={p: n for p, n in sorted(state.seats.missed.items()) if n},
            on_holiday=tuple(p for p in state.players if state.seats.on_holiday(p, state.turn)),
            open_seats=state.seats.dropped,
            rules="ft2" if state.ft2 is not None else "004",
        )

    def set_deadline(
        self, lineage: Lineage, deadline: datetime, allow_past: bool = False
    ) -> list[RecordedEvent]:
        """Set when orders for the turn in progress are due (everyone is told).

        Raises:
            InvalidInputError: the deadline has passed already, unless `allow_past` (a
                ruling that closes the turn to orders at once) (issue 18).
        """
        state = self.load(lineage)
        core.require_running(state)
        when = deadline if deadline.tzinfo is not None else deadline.replace(tzinfo=UTC)
        if not allow_past:
            check_future(when.astimezone(UTC), self.store.clock())
        event = DeadlineSet(turn=state.turn, deadline=when.astimezone(UTC))
        return self.store.append(
            lineage, state.version, [NewEvent(event, Audience.everyone(), state.turn)]
        )

    def hold_turn(self, lineage: Lineage, reason: str) -> list[RecordedEvent]:
        """Hold the turn: it will not resolve until released (every player is told why)."""
        state = self.load(lineage)
        core.require_running(state)
        if state.held is not None:
            raise IllegalCommandError(f"turn {state.turn} is held already ({state.held})")
        if not reason.strip():
            raise InvalidInputError("say why the turn is held (--reason)")
        held = TurnHeld(turn=state.turn, reason=reason.strip())
        return self.store.append(
            lineage, state.version, [NewEvent(held, Audience.everyone(), state.turn)]
        )

    def release_turn(self, lineage: Lineage) -> list[RecordedEvent]:
        """Release a held turn."""
        state = self.load(lineage)
        if state.held is None:
            raise IllegalCommandError(f"turn {state.turn} is not held")
        released = TurnReleased(turn=state.turn)
        return self.store.append(
            lineage, state.version, [NewEvent(released, Audience.everyone(), state.turn)]
        )
