"""A campaign's branches: rewound to a turn or version (nothing deleted), made the default,
listed, and two compared turn by turn, player by player.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import (
    UMPIRE,
    Event,
    OrdersCommitted,
    OrdersRevealed,
    OrdersSubmitted,
    RecordedEvent,
)
from campaign.projections import CampaignState
from campaign.rules import core
from campaign.rules.victory import scores
from campaign.service.base import ServiceCore
from campaign.service.reports import _as_told
from campaign.storetypes import BranchInfo, Lineage

EVERYONE = "everyone"


class TurnDiff(msgspec.Struct, frozen=True):
    """What one player was told in a turn on one branch and not on the other."""

    turn: int
    player: str  # a player; "everyone" for public news; "umpire" for what no player sees
    only_a: tuple[Event, ...]
    only_b: tuple[Event, ...]


class BranchDiff(msgspec.Struct, frozen=True):
    """Two branches of a campaign compared turn by turn, player by player."""

    campaign: str
    a: str
    b: str
    shared: int  # the last version both histories share
    turn_a: int  # the turn in progress on each
    turn_b: int
    turns: tuple[TurnDiff, ...]
    standings: tuple[Standing, ...] = ()  # each player at the head of each branch


class Standing(msgspec.Struct, frozen=True):
    """Where a player stands at the head of two branches: victory points, colonies, warships."""

    player: str
    points: tuple[int, int]
    colonies: tuple[int, int]
    warships: tuple[int, int]


def _diff_key(ev: Event) -> bytes:
    """What two branches' events are compared by: everything, but a commitment's salted hash
    (fresh on every submission) counts only as orders handed in, orders by their text."""
    if isinstance(ev, OrdersCommitted):
        ev = msgspec.structs.replace(ev, sha256="")
    elif isinstance(ev, OrdersRevealed):
        ev = msgspec.structs.replace(ev, sha256="", nonce="")
    elif isinstance(ev, OrdersSubmitted):
        ev = msgspec.structs.replace(ev, nonce="")
    return msgspec.json.encode(ev)


def _missing(these: list[Event], those: list[Event]) -> tuple[Event, ...]:
    """The events of `these` not among `those` (as many times as they are missing)."""
    left = Counter(_diff_key(e) for e in those)
    found = []
    for ev in these:
        key = _diff_key(ev)
        if left[key]:
            left[key] -= 1
        else:
            found.append(ev)
    return tuple(found)


def _as_seen_by(found: BranchDiff, player: str, events: Iterable[RecordedEvent]) -> BranchDiff:
    """`found`, compared as `player` may read the events (`_as_told`), as he may see it: the
    shared history as the number of his own events in it (the branch's versions would count
    the events hidden from him), his standing alone."""
    return msgspec.structs.replace(
        found,
        shared=sum(1 for e in events if e.version <= found.shared and e.audience.may_see(player)),
        standings=tuple(s for s in found.standings if s.player == player),
    )


def _told(events: Sequence[RecordedEvent], shared: int, turn_number: int, who: str) -> list[Event]:
    """The events `who` was told in a turn after the shared history: a player his own, the
    umpire only what no player sees, "everyone" the public news (each difference is listed
    once, under the audience it was told to)."""
    lines = []
    for recorded in events:
        if recorded.version <= shared or recorded.turn != turn_number:
            continue
        audience = recorded.audience
        if who == EVERYONE:
            if not audience.public:
                continue
        elif audience.public:
            continue
        elif who == UMPIRE:
            if audience.players:
                continue
        elif not audience.may_see(who):
            continue
        lines.append(recorded.event)
    return lines


def _free_name(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


class BranchCommands(ServiceCore):
    """Rewind, choose, list and compare a campaign's branches."""

    def rewind(
        self,
        lineage: Lineage,
        to_turn: int | None,
        new_branch: str | None = None,
        to_version: int | None = None,
    ) -> BranchInfo:
        """Start a branch sharing history up to the end of `to_turn` (or up to branch version
        `to_version`, e.g. just before a turn resolved), and make it active.

        Nothing is deleted: the original branch stays as it was.
        """
        if (to_turn is None) == (to_version is None):
            raise InvalidInputError("rewind to the end of a turn or to a version (one of them)")
        if to_version is not None:
            head = self.store.head(lineage)[0]
            if not 1 <= to_version <= head:
                raise InvalidInputError(
                    f"cannot rewind to version {to_version}: "
                    f"branch {lineage.branch!r} has versions 1-{head}"
                )
            fork, suffix = to_version, f"v{to_version}"
        else:
            assert to_turn is not None
            state = self.load(lineage)
            if not 0 <= to_turn <= state.turn:
                raise InvalidInputError(
                    f"cannot rewind to turn {to_turn}: "
                    f"branch {lineage.branch!r} is in turn {state.turn}"
                )
            fork, suffix = self.store.last_version_of_turn(lineage, to_turn), f"t{to_turn}"
        existing = {b.name for b in self.store.branches(lineage.campaign)}
        name = new_branch or _free_name(f"{lineage.branch}-{suffix}", existing)
        core.check_campaign_name(name)
        self.store.create_branch(lineage.campaign, name, lineage.branch, fork)
        self.store.set_active_branch(lineage.campaign, name)
        return next(b for b in self.store.branches(lineage.campaign) if b.name == name)

    def use_branch(self, campaign: str | None, branch: str) -> str:
        """Make `branch` the campaign's default branch; return the campaign's name."""
        name = self.store.resolve_campaign(campaign)
        self.store.set_active_branch(name, branch)
        return name

    def branch_diff(self, campaign: str | None, a: str, b: str, viewer: str = UMPIRE) -> BranchDiff:
        """Compare two branches: for each turn and each player (and the umpire), the news one
        branch told him and the other did not, so a re-run after a ruling can be shown.

        As a player (`viewer`) sees it: only the public news and his own, each as he may read
        it, the shared history counted in his own events, and only his own standing."""
        first, second = self.target(campaign, a), self.target(campaign, b)
        if a == b:
            raise InvalidInputError(f"compare two different branches, not {a!r} with itself")
        self._check_viewer(first, viewer)
        self._check_viewer(second, viewer)
        found = self._branch_diff(first, second, a, b, viewer)
        return found if viewer == UMPIRE else _as_seen_by(found, viewer, self.store.read(first))

    def _branch_diff(
        self, first: Lineage, second: Lineage, a: str, b: str, viewer: str
    ) -> BranchDiff:
        left = list(self.store.read(first))
        right = list(self.store.read(second))
        shared = 0
        for x, y in zip(left, right, strict=False):
            if x.hash != y.hash:
                break
            shared = x.version
        state_a, state_b = self.load(first), self.load(second)
        players = list(dict.fromkeys([*state_a.players, *state_b.players]))
        diffs: list[TurnDiff] = []
        # A player's diff compares the events as he may read them: a change only in what is
        # hidden from him (an enemy's damage, his admiral) is no difference he may be shown.
        audiences = [EVERYONE, *players, UMPIRE] if viewer == UMPIRE else [EVERYONE, viewer]
        for turn_number in range(0, max(state_a.turn, state_b.turn) + 1):
            for who in audiences:
                told_a = [_as_told(e, viewer) for e in _told(left, shared, turn_number, who)]
                told_b = [_as_told(e, viewer) for e in _told(right, shared, turn_number, who)]
                only_a = _missing(told_a, told_b)
                only_b = _missing(told_b, told_a)
                if only_a or only_b:
                    diffs.append(TurnDiff(turn_number, who, only_a, only_b))
        points: list[dict[str, int]] = [{}, {}]
        if state_a.map_name:
            starmap = self.starmap(first)
            points = [
                {score.player: score.points for score in scores(state, starmap)}
                for state in (state_a, state_b)
            ]

        def count(state: CampaignState, player: str, what: str) -> int:
            if what == "colonies":
                return sum(1 for c in state.colonies.values() if c.owner == player)
            return sum(1 for u in state.units.values() if u.owner == player and u.is_warship)

        standings = tuple(
            Standing(
                player=player,
                points=(points[0].get(player, 0), points[1].get(player, 0)),
                colonies=(count(state_a, player, "colonies"), count(state_b, player, "colonies")),
                warships=(count(state_a, player, "warships"), count(state_b, player, "warships")),
            )
            for player in players
        )
        return BranchDiff(
            campaign=first.campaign,
            a=a,
            b=b,
            shared=shared,
            turn_a=state_a.turn,
            turn_b=state_b.turn,
            turns=tuple(diffs),
            standings=standings,
        )

    def branches(self, campaign: str | None) -> tuple[str, str, list[BranchInfo]]:
        """Return (campaign, active branch, branches)."""
        name = self.store.resolve_campaign(campaign)
        return name, self.store.active_branch(name), self.store.branches(name)
