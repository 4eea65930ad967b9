"""What a viewer is told: a player's turn report, the log (a player's numbered by his own
events, each as he may read it), and the umpire's overview of a branch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import msgspec

from campaign.battletold import read_as_seen, read_named
from campaign.changes import changes_since
from campaign.errors import InvalidInputError
from campaign.events import (
    EVENT_TYPES,
    UMPIRE,
    BattleFought,
    BattleRequested,
    Event,
    RecordedEvent,
    StarChartPublished,
)
from campaign.inputs import MAX_TURN_NUMBER, check_range
from campaign.news import NewsSection, news_of, place_name
from campaign.projections import CampaignState, fold
from campaign.rules.economy import FIRST_PRODUCTION_TURN, treasury_open
from campaign.rules.victory import Score, scores
from campaign.service.base import ServiceCore, _chart_names
from campaign.storetypes import Lineage
from campaign.strategic import Colony, Empire, Sighting, Unit, unit_order


class Status(msgspec.Struct, frozen=True):
    """The overview `umpire status` shows."""

    campaign: str
    branch: str
    branches: int
    database: str
    head_version: int
    head_hash: str
    state: CampaignState
    scores: tuple[Score, ...] = ()  # the running tally (004 section 1); final after the last turn


class PlayerReport(msgspec.Struct, frozen=True):
    """A player's turn package: his empire and units now, and the news of a turn."""

    campaign: str
    player: str
    turn: int
    news_turn: int
    empire: Empire | None
    units: tuple[Unit, ...]
    colonies: tuple[Colony, ...]
    news: tuple[RecordedEvent, ...]
    finished: bool = False  # the campaign is over: this is the final report
    changes: tuple[str, ...] = ()  # what changed in his view since the turn before the news
    sightings: tuple[Sighting, ...] = ()  # enemy ships he last saw, by hex (004 L92-104)
    # The news told as sentences, by kind and place (`campaign.news`), and the places of his
    # units and colonies by name (hex -> `Alpha (0201)`); the turn in progress's deadline.
    stories: tuple[NewsSection, ...] = ()
    places: dict[str, str] = msgspec.field(default_factory=dict)
    deadline: datetime | None = None
    missed_turns: int = 0  # turns he sent no orders for, holidays aside (issue 18)
    entry_hex: str | None = None  # his entry's hex on the public chart
    # The turn whose production phase loses his unspent starting IP (004 L267), when the
    # campaign lets them expire and he has some left; None otherwise or in his history.
    starting_ip_lost_after: int | None = None

    @property
    def title(self) -> str:
        """The report's heading."""
        when = "final report" if self.finished else f"report, turn {self.turn}"
        return f"{self.campaign}: {self.player}'s {when}"


def _entry_hex(mine: Iterable[RecordedEvent], empire: Empire | None) -> str | None:
    """The hex of `empire`'s entry on the public chart among his events `mine`."""
    if empire is None:
        return None
    for recorded in mine:
        if isinstance(recorded.event, StarChartPublished):
            for entry in recorded.event.entries:
                if entry.name == empire.entry:
                    return entry.hex
    return None


def _starting_ip_lost_after(state: CampaignState, player: str) -> int | None:
    """The turn whose production phase loses `player`'s unspent starting IP (004 L267, the
    "expire" setting), or None when he has none left or the campaign keeps them."""
    empire = state.empires.get(player)
    if empire is None or state.production_settings.starting_ip != "expire":
        return None
    return FIRST_PRODUCTION_TURN if treasury_open(state, empire) else None


def last_resolved(state: CampaignState) -> int:
    """The turn a report tells by default: the last one resolved (0 before any)."""
    return max(state.turn - 1, 0)


def _numbered(
    mine: Iterable[RecordedEvent], player: str, turn: int | None = None
) -> list[RecordedEvent]:
    """A player's events as `CampaignService.player_view` gives them: numbered 1, 2, 3... by
    his own events only, `recorded_at` to the minute, and each as he may read it (a battle
    fought with closed record sheets as his side knew its enemies, `_as_told`); only those
    of game turn `turn` if given (numbered still among all of them)."""
    return [
        msgspec.structs.replace(
            recorded,
            position=number,
            version=number,
            recorded_at=recorded.recorded_at.replace(second=0, microsecond=0),
            event=_as_told(recorded.event, player),
        )
        for number, recorded in enumerate(mine, 1)
        if turn is None or recorded.turn == turn
    ]


def _as_told(ev: Event, player: str) -> Event:
    """An event as `player` may read it: a battle without the other side's admiral, and a
    `battle_fought` as his side knew the enemy's ships (`campaign.battletold.event_as_told`,
    docs/rulings.md "Campaign: what a side learns of an enemy ship's fate"); any other as it
    is, its audience having let him read it."""
    if not isinstance(ev, BattleFought | BattleRequested):
        return ev
    from campaign.battletold import event_as_told  # what his side knew: recorded in the event

    return event_as_told(ev, player)


class ReportQueries(ServiceCore):
    """A player's report and view of the log; the log and the status of a branch."""

    def report(self, lineage: Lineage, player: str, turn_number: int | None = None) -> PlayerReport:
        """Return what `player` knew at the end of a turn: his empire, units and its news.

        Default: the last turn resolved, with his forces as they stand now. A past turn gives
        his report as it was then (his history). Computed only from the events he may see.
        """
        self._check_viewer(lineage, player)
        now = self.load(lineage, viewer=player)
        news_turn = turn_number if turn_number is not None else last_resolved(now)
        if not 0 <= news_turn <= now.turn:
            raise InvalidInputError(f"turn {news_turn} is not in this campaign (0-{now.turn})")
        # His events, read once: the news, the states at the ends of turns and the chart's
        # names are each what `player_view`, `state_at` and `_star_names` give (issue 19).
        mine = list(read_as_seen(self.store, lineage, player))
        current = now if turn_number is None else self._his_state_at(lineage, mine, news_turn)
        news = _numbered(mine, player, turn=news_turn)
        before = self._his_state_at(lineage, mine, news_turn - 1) if news_turn > 0 else None
        names = _chart_names(e for e in mine if e.type == StarChartPublished.TYPE)
        hexes = {u.hex for u in current.units.values() if u.hex} | {
            c.hex for c in current.colonies.values()
        }
        return PlayerReport(
            campaign=lineage.campaign,
            player=player,
            turn=current.turn,
            news_turn=news_turn,
            empire=current.empires.get(player),
            units=tuple(sorted(current.units.values(), key=unit_order)),
            colonies=tuple(sorted(current.colonies.values(), key=lambda c: c.id)),
            news=tuple(news),
            finished=now.finished and turn_number is None,
            changes=changes_since(before, current, player) if before is not None else (),
            sightings=tuple(
                sorted(current.sightings.get(player, {}).values(), key=lambda s: s.hex)
            ),
            stories=news_of(player, (e.event for e in news), names),
            places={h: place_name(h, names) for h in sorted(hexes)},
            deadline=now.deadline if turn_number is None and not now.finished else None,
            missed_turns=now.seats.missed.get(player, 0),
            entry_hex=_entry_hex(mine, current.empires.get(player)),
            starting_ip_lost_after=(
                _starting_ip_lost_after(now, player) if turn_number is None else None
            ),
        )

    def _his_state_at(
        self, lineage: Lineage, mine: Sequence[RecordedEvent], turn: int
    ) -> CampaignState:
        """`state_at(lineage, turn, player)` folded from his events `mine`, already read."""
        upto = self.store.last_version_of_turn(lineage, turn)
        state = fold(e for e in mine if e.version <= upto)
        return msgspec.structs.replace(state, version=state.events)

    def log(
        self,
        lineage: Lineage,
        turn: int | None = None,
        types: Sequence[str] = (),
        viewer: str = UMPIRE,
        limit: int | None = None,
    ) -> list[RecordedEvent]:
        """Return the branch's events, filtered; a player sees only his audience's events."""
        self._check_viewer(lineage, viewer)
        check_range(turn, "turn", 0, MAX_TURN_NUMBER)
        unknown = [t for t in types if t not in EVENT_TYPES]
        if unknown:
            raise InvalidInputError(
                f"unknown event type {unknown[0]!r} (types: {', '.join(sorted(EVENT_TYPES))})"
            )
        if viewer == UMPIRE:
            # A branch's versions run 1, 2, 3... without a gap (`verify`): the last `limit`
            # events, unfiltered, are those after version head - limit; read only them.
            after = 0
            if limit and turn is None and not types:
                after = max(0, self.store.head(lineage)[0] - limit)
            events = list(self.store.read(lineage, after_version=after, turn=turn, types=types))
        else:
            events = [
                e
                for e in self.player_view(lineage, viewer)
                if (turn is None or e.turn == turn) and (not types or e.type in types)
            ]
        return events[-limit:] if limit else events

    def player_view(self, lineage: Lineage, player: str) -> list[RecordedEvent]:
        """Return the events `player` may see, numbered by his own events only.

        The global `position` and branch `version` would count, by their gaps, the events he
        may not see (a rival's moves, the umpire's private rolls): his view numbers his events
        1, 2, 3... in both, and gives `recorded_at` to the minute only.
        """
        return _numbered(read_named(self.store, lineage, player), player)

    def status(self, lineage: Lineage) -> Status:
        """Return the overview of a branch."""
        version, head_hash = self.store.head(lineage)
        state = self.load(lineage)
        return Status(
            campaign=lineage.campaign,
            branch=lineage.branch,
            branches=len(self.store.branches(lineage.campaign)),
            database=self.store.database,
            head_version=version,
            head_hash=head_hash,
            state=state,
            scores=tuple(scores(state, self.starmap(lineage))) if state.map_name else (),
        )
