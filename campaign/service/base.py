"""The service's shared core: open and close the store, name a campaign, load and fold its
state, choose its dice, snapshot and append. Every concern's commands build on it: each
resolves its campaign and branch, folds the branch's events into state (from the
newest snapshot when there is one), asks a pure rule what happened, and appends the result
atomically after the version it decided on. A concurrent writer makes that append fail with
`ConcurrencyError`, and nothing is stored.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache, partial
from typing import NamedTuple, Self

import msgspec

from campaign.battletold import read_as_seen
from campaign.dice import DiceKey, DiceSource, ManualDice, RerolledDice, SeededDice
from campaign.errors import CampaignNotFoundError, DiceError, IllegalCommandError, InvalidInputError
from campaign.events import (
    UMPIRE,
    DiceRerollRuled,
    MapLoaded,
    NewEvent,
    RecordedEvent,
    StarChartPublished,
    check_player_name,
)
from campaign.projections import (
    PROJECTION_NAME,
    PROJECTION_VERSION,
    CampaignState,
    decode_state,
    encode_state,
    fold,
)
from campaign.statecache import FoldedStates
from campaign.storetypes import CampaignInfo, Clock, Lineage, Store, utc_now
from maps import Planet, StarMap, mapfile

AskDie = Callable[[DiceKey, int], int]
Nonces = Callable[[], str]


def secret_nonce() -> str:
    """Return a fresh secret nonce for an orders commitment: 32 random bytes, in hex.

    From the operating system's secure source (`secrets`): it is no game die, and nothing
    may predict it or find it again from anything public (issue 13).
    """
    return secrets.token_hex(32)


def battle_order(battle_id: str) -> tuple[str, int]:
    """Sort battle ids `t3-b2`, `t3-b10`, `t3-a1` by series, then number."""
    tag = battle_id.rpartition("-")[2]
    return tag[:1], int(tag[1:]) if tag[1:].isdigit() else 0


@lru_cache(maxsize=8)
def _parse_map(text: str) -> StarMap:
    return mapfile.loads(text)


def _nobody_to_ask(key: DiceKey, sides: int) -> int:
    """Physical dice with no prompt: fail only if a die is really needed."""
    raise DiceError(
        f"this campaign rolls physical dice: a d{sides} is needed for {key}; run the command "
        "where it can ask for the result (or give --results for `umpire roll`)"
    )


def _reason(text: str) -> str:
    if not text.strip():
        raise InvalidInputError("a ruling needs its reason (--reason)")
    return text.strip()


def _chart_names(charts: Iterable[RecordedEvent]) -> dict[str, str]:
    """The names by hex of the last star chart among `charts`."""
    names: dict[str, str] = {}
    for recorded in charts:
        ev = recorded.event
        if isinstance(ev, StarChartPublished):
            names = {s.hex: s.name for s in ev.stars}
    return names


class PlayerChart(NamedTuple):
    """What a player's map is built from, read from his events up to `version` (`hash`)."""

    version: int
    hash: str | None
    chart: StarChartPublished | None  # the public chart he was shown
    planets: dict[str, tuple[Planet, ...]]  # system -> the planets his exploration reported


class ServiceCore:
    """The store, and what every command does with it: load, decide the dice, append."""

    def __init__(self, store: Store, nonces: Nonces = secret_nonce) -> None:
        self.store = store
        # Secrets: salts for orders commitments and each new campaign's chain key (32 random
        # bytes in hex each); tests inject a fixed sequence.
        self.nonces = nonces
        self.folded = FoldedStates()  # the states folded last, so loads fold the tail (19)
        self._player_maps: dict[
            tuple[Lineage, str, int, str | None], tuple[StarMap, tuple[str, ...]]
        ] = {}
        # What a player's map was last built from, by branch and player: the version and
        # chain hash read up to, his star chart and the planets he explored (`player_map`).
        self._player_charts: dict[tuple[Lineage, str], PlayerChart] = {}

    @classmethod
    def open(
        cls, url: str, clock: Clock = utc_now, create: bool = False, nonces: Nonces = secret_nonce
    ) -> Self:
        """Open the database at `url`; only with `create` is a missing one made (at head)."""
        from campaign.store import EventStore  # SQLAlchemy: only when the store is opened

        return cls(EventStore.open(url, clock, create=create), nonces)

    @classmethod
    def open_to_read(cls, url: str, clock: Clock = utc_now) -> Self:
        """Open the database at `url` for a command that reads (issue 19): a SQLite file at
        the schema head through `sqlite3` alone (`campaign.sqlitereads`), anything else as
        `open` does. Should the command write after all, the full store does it."""
        from campaign.sqlitereads import SqliteReads

        reads = SqliteReads.open(url, clock)
        return cls(reads) if reads is not None else cls.open(url, clock)

    def close(self) -> None:
        """Release the database."""
        self.store.close()

    def target(self, campaign: str | None, branch: str | None = None) -> Lineage:
        """Resolve a campaign (default: the only one) and branch (default: its active one)."""
        if campaign is not None and branch is None:  # the web page's every request: one query
            try:
                return self.store.lineage(campaign, self.store.active_branch(campaign))
            except CampaignNotFoundError:
                self.store.resolve_campaign(campaign)  # raises, naming the campaigns there
                raise
        name = self.store.resolve_campaign(campaign)
        return self.store.lineage(name, branch or self.store.active_branch(name))

    def campaigns(self) -> list[CampaignInfo]:
        """List the database's campaigns."""
        return self.store.campaigns()

    def load(
        self,
        lineage: Lineage,
        upto_version: int | None = None,
        viewer: str = UMPIRE,
        use_snapshots: bool = True,
    ) -> CampaignState:
        """Fold a branch's events (up to `upto_version`) into state, as `viewer` knows it.

        The umpire's view starts from the newest snapshot; a player's view folds only the
        events that player may see, straight from the store. Now (no `upto_version`), both
        start from the state this process folded last for that viewer, when the branch still
        holds it (`campaign/statecache.py`), and fold only the tail.
        """
        if upto_version is None:  # now: the state this process folded last, plus the tail
            first = None if viewer != UMPIRE or not use_snapshots else self._from_snapshot
            return self.folded.load(self.store, lineage, viewer, first and partial(first, lineage))
        start = None
        if viewer == UMPIRE and use_snapshots:
            snapshot = self.store.latest_snapshot(
                lineage, PROJECTION_NAME, PROJECTION_VERSION, upto_version
            )
            if snapshot is not None:
                start = decode_state(snapshot.state)
        after = start.version if start is not None else 0
        tail = read_as_seen(self.store, lineage, viewer, after, upto_version)
        return fold(tail, start)

    def _from_snapshot(self, lineage: Lineage) -> tuple[CampaignState | None, str]:
        """The newest snapshot's state and its chain hash, or (None, "") with none."""
        snapshot = self.store.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION, None)
        if snapshot is None:
            return None, ""
        return decode_state(snapshot.state), self.store.hash_at(lineage, snapshot.version) or ""

    def _decisive_state(self, lineage: Lineage) -> CampaignState:
        """Return the umpire's state folded from the log alone, for a turn's outcome.

        Resolutions, battles and the turn's end decide from the log, never from a snapshot
        (issue 13): a snapshot forged with a matching digest could mislead a view until
        `umpire verify` names it, but never an outcome, nor the snapshot saved after it.
        Folding is cheap next to resolving (tens of thousands of events a second).
        """
        return self.load(lineage, use_snapshots=False)

    def state_at(
        self,
        lineage: Lineage,
        turn: int | None = None,
        viewer: str = UMPIRE,
        use_snapshots: bool = True,
        version: int | None = None,
    ) -> CampaignState:
        """Return the state at the end of turn `turn`, or at branch `version` (default: now)."""
        self._check_viewer(lineage, viewer)
        if turn is not None and version is not None:
            raise InvalidInputError("give a turn or a version, not both")
        upto = None
        if version is not None:
            head = self.store.head(lineage)[0]
            if not 1 <= version <= head:
                raise InvalidInputError(
                    f"version {version} is not in branch {lineage.branch!r} (versions 1-{head})"
                )
            upto = version
        if turn is not None:
            current = self.load(lineage)
            if not 0 <= turn <= current.turn:
                raise InvalidInputError(
                    f"turn {turn} is not in branch {lineage.branch!r} (turns 0-{current.turn})"
                )
            upto = self.store.last_version_of_turn(lineage, turn)
        state = self.load(lineage, upto, viewer, use_snapshots)
        if viewer != UMPIRE:  # his view counts his own events only (see `player_view`)
            state = msgspec.structs.replace(state, version=state.events)
        return state

    def head(self, lineage: Lineage) -> tuple[int, str]:
        """Return the branch's last version and chain hash: anything drawn from the branch
        may be kept until they change (the web page's drawn pages, issue 19)."""
        return self.store.head(lineage)

    def starmap(self, lineage: Lineage) -> StarMap:
        """Return the campaign's star map, from the umpire's copy in the log."""
        loaded = self.store.read(lineage, types=[MapLoaded.TYPE])
        texts = [e.event.text for e in loaded if isinstance(e.event, MapLoaded)]
        if not texts:
            raise IllegalCommandError("this campaign has no star map (create it with --map)")
        return _parse_map(texts[-1])

    def _dice(
        self,
        lineage: Lineage,
        state: CampaignState,
        results: Sequence[int] | None,
        ask: AskDie | None,
    ) -> DiceSource:
        if results is not None:
            return ManualDice(results=results)
        source: DiceSource
        if state.dice_mode == "manual":
            source = ManualDice(ask=ask or _nobody_to_ask)
        else:
            source = SeededDice(self.store.campaign_seed(lineage.campaign))
        rerolls = self._rerolls(lineage, state)  # the umpire's rulings this turn (issue 6)
        return RerolledDice(source, rerolls) if rerolls else source

    def _rerolls(self, lineage: Lineage, state: CampaignState) -> dict[str, int]:
        """Return the dice ruled rolled again this turn: first key -> the generation to roll."""
        generations: dict[str, int] = {}
        ruled = self.store.read(
            lineage, turn=state.turn, upto_version=state.version, types=[DiceRerollRuled.TYPE]
        )
        for recorded in ruled:
            assert isinstance(recorded.event, DiceRerollRuled)
            for text in recorded.event.keys:
                key = DiceKey.parse(text)
                generations[str(key.first)] = key.generation
        return generations

    def _snapshot(self, lineage: Lineage, state: CampaignState) -> None:
        self.store.save_snapshot(
            lineage,
            PROJECTION_NAME,
            PROJECTION_VERSION,
            state.version,
            state.turn,
            encode_state(state),
        )

    def _check_viewer(self, lineage: Lineage, viewer: str) -> None:
        if viewer == UMPIRE:
            return
        check_player_name(viewer)
        players = self.load(lineage).players
        if viewer not in players:
            raise InvalidInputError(
                f"{viewer!r} is not a player of {lineage.campaign!r} "
                f"(players: {', '.join(players) or 'none'})"
            )

    def append(
        self, lineage: Lineage, expected_version: int, batch: Sequence[NewEvent]
    ) -> list[RecordedEvent]:
        """Append events decided elsewhere (other rule modules use this)."""
        return self.store.append(lineage, expected_version, batch)
