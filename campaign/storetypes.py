"""The event store's rows and names, free of any database library (issue 19).

`campaign.store` (SQLAlchemy: every write, PostgreSQL, migrations) and `campaign.sqlitereads`
(the standard library's sqlite3: a read command on a SQLite file at the schema head) return
the same values, built by the same helpers here, so a command that only reads imports neither
SQLAlchemy nor alembic.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

from campaign.errors import BranchNotFoundError, CampaignNotFoundError, DatabaseError
from campaign.events import UMPIRE, Audience, NewEvent, RecordedEvent, decode_payload

Clock = Callable[[], datetime]

# The schema revision this code needs: alembic's head (tests/test_migrations.py checks it).
# A database at it opens with one small query, alembic not even imported (issue 19).
HEAD_REVISION = "0007"

MAIN_BRANCH = "main"


def utc_now() -> datetime:
    """Return the current UTC time (the default clock)."""
    return datetime.now(UTC)


class CampaignInfo(msgspec.Struct, frozen=True):
    """A campaign in the database."""

    name: str
    active_branch: str
    created_at: datetime


class BranchInfo(msgspec.Struct, frozen=True):
    """A branch of a campaign: where it forked from, and how far it has got."""

    name: str
    parent: str | None
    fork_version: int
    head_version: int
    created_at: datetime


class SecretHolder(msgspec.Struct, frozen=True):
    """A player of a campaign who holds a secret (`player_secrets`), without the secret."""

    player: str
    issued_at: datetime
    rotations: int
    signs_orders: bool  # holds a signing key (secrets issued before 0004 do not)


# A row as `EventStore.replay` returns it: position, version, type, schema version, payload.
StoredPayload = tuple[int, int, str, int, str]


class StoredRow(msgspec.Struct, frozen=True):
    """An event exactly as stored, undecoded: what `verify` checks."""

    position: int
    version: int
    type: str
    schema_version: int
    payload: str
    audience: str
    actor: str
    turn: int
    recorded_at: datetime
    hash: str


# An event as the hash chain covers it, with its position and its hash, read for `verify`:
# (position, version, type, schema version, payload, audience, actor, turn, hash, stream id:
# a keyed campaign's salt is the stream's that holds the event). A plain tuple, without
# `recorded_at` (outside the chain): 10,000 events are read in 40% less time than as
# `StoredRow`s (issue 19).
ChainRow = tuple[int, int, str, int, str, str, str, int, str, int]


class Snapshot(msgspec.Struct, frozen=True):
    """A saved projection state at a branch version."""

    version: int
    turn: int
    state: str


class StoredSnapshot(msgspec.Struct, frozen=True):
    """A snapshot row of a branch's history exactly as stored: what `verify` checks."""

    id: int
    version: int
    projection: str
    projection_version: int
    turn: int
    state: str
    chain_hash: str
    digest: str

    def intact(self) -> bool:
        """Return whether the digest still matches the row (edits that forgot it show)."""
        return self.digest == snapshot_digest(
            self.chain_hash,
            self.projection,
            self.projection_version,
            self.version,
            self.turn,
            self.state,
        )


def snapshot_digest(
    chain_hash_: str, projection: str, projection_version: int, version: int, turn: int, state: str
) -> str:
    """Return the SHA-256 binding a snapshot's contents to the chain hash at its version.

    Anyone can recompute it, so it stops mistakes and careless edits, not a forger: `umpire
    verify` refolds the log and compares every snapshot for that (docs/security.md).
    """
    parts = (chain_hash_, projection, str(projection_version), str(version), str(turn), state)
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class Segment(msgspec.Struct, frozen=True):
    """A run of one stream's versions that belongs to a branch's history."""

    stream_id: int
    after: int  # versions > after ...
    upto: int | None  # ... and <= upto (None: no upper bound)


class StreamRow(msgspec.Struct, frozen=True):
    id: int
    campaign_id: int
    branch: str
    parent_id: int | None
    fork_version: int
    created_at: datetime


class Lineage(msgspec.Struct, frozen=True):
    """A branch resolved to the stream segments that make up its history, newest first."""

    campaign: str
    branch: str
    stream_id: int
    segments: tuple[Segment, ...]


def utc(value: datetime) -> datetime:
    """SQLite hands datetimes back naive; every stored time is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@functools.lru_cache(maxsize=256)
def audience_of(text: str) -> Audience:
    """Audiences repeat: decode each stored form once (Audience is frozen)."""
    return Audience.decode(text)


def recorded_event(fields: Sequence[Any]) -> RecordedEvent:
    """An event row (position, version, type, schema version, payload, audience, actor,
    turn, recorded at, hash: the stores' read order) as a decoded `RecordedEvent`."""
    # Unpacked once: cheaper than ten attribute lookups.
    position, version, type_, schema, payload, audience, actor, turn, recorded_at, hash_ = fields
    return RecordedEvent(
        position=position,
        version=version,
        type=type_,
        schema_version=schema,
        audience=audience_of(audience),
        actor=actor,
        turn=turn,
        recorded_at=utc(recorded_at),
        hash=hash_,
        event=decode_payload(position, type_, schema, payload),
    )


def resolve_campaign_name(name: str | None, names: Sequence[str]) -> str:
    """Return `name` if it is among `names`, or the only one there when no name is given."""
    if name is not None:
        if name not in names:
            known = ", ".join(names) or "none"
            raise CampaignNotFoundError(f"no campaign named {name!r} (campaigns: {known})")
        return name
    if not names:
        raise CampaignNotFoundError(
            "no campaign in this database: create one with `umpire new NAME`"
        )
    if len(names) > 1:
        raise CampaignNotFoundError(
            f"{len(names)} campaigns here ({', '.join(names)}): choose one with --campaign"
        )
    return names[0]


def lineage_of(campaign: str, stream: StreamRow, by_id: dict[int, StreamRow]) -> Lineage:
    """Resolve a stream to the segments of history its branch is made of, newest first."""
    segments = [Segment(stream_id=stream.id, after=stream.fork_version, upto=None)]
    child = stream
    seen = {stream.id}
    # A branch holds its parent's history up to where it forked, and no further than where
    # any branch below it forked: one rewound to before its parent's own fork reads none of
    # the parent's events and only the grandparent's up to that earlier fork.
    cap = stream.fork_version
    while child.parent_id is not None:
        parent = by_id.get(child.parent_id)
        if parent is None or parent.id in seen:
            # Only an edited database gets here (issue 13): say so, never loop or crash.
            raise DatabaseError(
                f"branch {stream.branch!r} of {campaign!r} descends from a branch that "
                f"{'is not there' if parent is None else 'descends from it'}: "
                "the database was edited (`umpire verify`)"
            )
        seen.add(parent.id)
        cap = min(cap, child.fork_version)
        segments.append(Segment(stream_id=parent.id, after=parent.fork_version, upto=cap))
        child = parent
    return Lineage(
        campaign=campaign, branch=stream.branch, stream_id=stream.id, segments=tuple(segments)
    )


def branch_lineage(campaign: str, branch: str, rows: Sequence[StreamRow]) -> Lineage:
    """Return the lineage of `branch` among a campaign's streams (`rows`, by id)."""
    by_id = {s.id: s for s in rows}
    for s in rows:
        if s.branch == branch:
            return lineage_of(campaign, s, by_id)
    known = ", ".join(s.branch for s in rows)
    raise BranchNotFoundError(f"campaign {campaign!r} has no branch {branch!r} (branches: {known})")


class Store(Protocol):
    """What the service asks of an event store: `campaign.store.EventStore` does it all;
    `campaign.sqlitereads.SqliteReads` reads a SQLite file itself and hands the rest to one."""

    clock: Clock
    backend: str

    @property
    def engine(self) -> Any:
        """The SQLAlchemy engine, for the tables only `campaign.store` knows (Any: this
        module imports no database library)."""

    @property
    def database(self) -> str:
        """The database's URL, without a password."""

    def close(self) -> None: ...
    def create_campaign(
        self,
        name: str,
        seed: str | None = None,
        batch: Sequence[NewEvent] = (),
        chain_key: str | None = None,
    ) -> str: ...
    def campaigns(self) -> list[CampaignInfo]: ...
    def resolve_campaign(self, name: str | None) -> str: ...
    def campaign_seed(self, campaign: str) -> str: ...
    def chain_key(self, campaign: str) -> str | None: ...
    def active_branch(self, campaign: str) -> str: ...
    def set_active_branch(self, campaign: str, branch: str) -> None: ...
    def branches(self, campaign: str) -> list[BranchInfo]: ...
    def create_branch(self, campaign: str, name: str, parent: str, fork_version: int) -> None: ...
    def lineage(self, campaign: str, branch: str) -> Lineage: ...
    def append(
        self, lineage: Lineage, expected_version: int, batch: Sequence[NewEvent]
    ) -> list[RecordedEvent]: ...
    def head(self, lineage: Lineage) -> tuple[int, str]: ...
    def read(
        self,
        lineage: Lineage,
        *,
        after_version: int = 0,
        upto_version: int | None = None,
        upto_turn: int | None = None,
        turn: int | None = None,
        types: Sequence[str] = (),
        visible_to: str = UMPIRE,
    ) -> Iterator[RecordedEvent]: ...
    def replay(
        self, lineage: Lineage, after_version: int = 0, unfolded: Collection[str] = ()
    ) -> list[StoredPayload]: ...
    def read_stored(self, lineage: Lineage) -> Iterator[StoredRow]: ...
    def read_chain(self, lineage: Lineage) -> Iterator[ChainRow]: ...
    def view_head(self, lineage: Lineage, player: str) -> tuple[int, str, int]: ...
    def visible_hash(self, lineage: Lineage, player: str, nth: int) -> str | None: ...
    def credentials_fingerprint(self, campaign: str, player: str) -> str: ...
    def credentials(self, campaign: str, player: str) -> Any: ...
    def secret_holders(self, campaign: str) -> list[SecretHolder]: ...
    def last_version_of_turn(self, lineage: Lineage, turn: int) -> int: ...
    def save_snapshot(
        self,
        lineage: Lineage,
        projection: str,
        projection_version: int,
        version: int,
        turn: int,
        state: str,
    ) -> None: ...
    def hash_at(self, lineage: Lineage, version: int) -> str | None: ...
    def latest_snapshot(
        self, lineage: Lineage, projection: str, projection_version: int, upto_version: int | None
    ) -> Snapshot | None: ...
    def snapshots_of(self, lineage: Lineage) -> list[StoredSnapshot]: ...
