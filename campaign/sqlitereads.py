"""A SQLite file's reads through the standard library's `sqlite3`, for commands that only read.

Importing SQLAlchemy costs a quarter of a second, more than a read command may take in all
(issue 19: 0.3 s). A read command on a SQLite file whose schema is at alembic's head
(`HEAD_REVISION`: the schema the migrations make, checked by one query) reads through
`SqliteReads` instead: the same rows, turned into the same values by the same helpers
(`campaign.storetypes`), with plain SQL on the tables the migrations created. Anything else
(another revision, a missing file, PostgreSQL, memory) opens `EventStore` as before, which
says what is wrong. Every write, and every read this class does not make itself, goes to an
`EventStore` opened on the same file when first needed, so a command that turns out to write
still works; it then pays for SQLAlchemy.

tests/test_sqlitereads.py proves both stores return the same rows for the same database.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from campaign.events import EVENT_TYPES, UMPIRE, NewEvent, RecordedEvent
from campaign.hashing import GENESIS_HASH
from campaign.storetypes import (
    HEAD_REVISION,
    BranchInfo,
    CampaignInfo,
    ChainRow,
    Clock,
    Lineage,
    SecretHolder,
    Snapshot,
    StoredPayload,
    StoredRow,
    StoredSnapshot,
    StreamRow,
    branch_lineage,
    lineage_of,
    recorded_event,
    resolve_campaign_name,
    utc,
    utc_now,
)

if TYPE_CHECKING:
    from campaign.store import EventStore

_EVENT_COLUMNS = (
    "position, version, type, schema_version, payload, audience, actor, turn, recorded_at, hash"
)
_SNAPSHOT_COLUMNS = "id, version, projection, projection_version, turn, state, chain_hash, digest"


def sqlite_file(url: str) -> Path | None:
    """Return the SQLite file `url` (what a user gives `--db`) names, if it plainly names one.

    A plain path, or `sqlite:///PATH`; anything else (memory, options, other databases, an
    escaped character) is None: the full store reads it.

    >>> sqlite_file("umpire.db"), sqlite_file("sqlite:////tmp/c.db"), sqlite_file("sqlite://")
    (PosixPath('umpire.db'), PosixPath('/tmp/c.db'), None)
    """
    text = url.strip()
    if "://" in text:
        if not text.startswith("sqlite:///"):
            return None
        text = text.removeprefix("sqlite:///")
    if not text or text == ":memory:" or any(c in text for c in "?%#"):
        return None
    return Path(text)


class SqliteReads:
    """`EventStore`'s reads on a SQLite file at the schema head, without SQLAlchemy."""

    backend = "sqlite"

    def __init__(self, path: Path, connection: sqlite3.Connection, clock: Clock) -> None:
        self.path = path
        self.clock = clock
        self._conn = connection
        self._writer: EventStore | None = None

    @classmethod
    def open(cls, url: str, clock: Clock = utc_now) -> SqliteReads | None:
        """Open `url` for reading if it is a SQLite file at the schema head, else None."""
        path = sqlite_file(url)
        if path is None or not path.is_file():
            return None
        try:
            conn = sqlite3.connect(path, timeout=60, isolation_level=None)
        except sqlite3.Error:
            return None
        try:
            revision = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        except sqlite3.Error:  # not a database, or no schema: the full store says which
            conn.close()
            return None
        if revision != [(HEAD_REVISION,)]:
            conn.close()
            return None
        return cls(path, conn, clock)

    @property
    def database(self) -> str:
        """The database as `umpire status` names it."""
        return f"sqlite:///{self.path}"

    def close(self) -> None:
        """Release the connection (and the writer's, if one was opened)."""
        self._conn.close()
        if self._writer is not None:
            self._writer.close()

    # ------------------------------------------------------------ campaigns and branches

    def campaigns(self) -> list[CampaignInfo]:
        """List the campaigns in the database, by name."""
        rows = self._all("SELECT name, active_branch, created_at FROM campaigns ORDER BY name")
        return [
            CampaignInfo(name=name, active_branch=branch, created_at=_time(created))
            for name, branch, created in rows
        ]

    def resolve_campaign(self, name: str | None) -> str:
        """Return `name` if it exists, or the only campaign when no name is given."""
        return resolve_campaign_name(name, [c.name for c in self.campaigns()])

    def campaign_seed(self, campaign: str) -> str:
        """Return the campaign's secret dice seed (umpire only)."""
        return self._campaign_value("seed", campaign)

    def chain_key(self, campaign: str) -> str | None:
        """Return the campaign's secret chain key (umpire only; None: made before 0007)."""
        rows = self._all("SELECT chain_key FROM campaigns WHERE name = ?", [campaign])
        if not rows:
            from campaign.errors import CampaignNotFoundError

            raise CampaignNotFoundError(f"no campaign named {campaign!r}")
        return None if rows[0][0] is None else str(rows[0][0])

    def active_branch(self, campaign: str) -> str:
        """Return the branch commands act on when none is named."""
        return self._campaign_value("active_branch", campaign)

    def lineage(self, campaign: str, branch: str) -> Lineage:
        """Resolve a branch to the segments of stream history it is made of."""
        return branch_lineage(campaign, branch, self._streams(campaign))

    def branches(self, campaign: str) -> list[BranchInfo]:
        """List a campaign's branches, oldest first, with their head versions."""
        rows = self._streams(campaign)
        by_id = {s.id: s for s in rows}
        return [
            BranchInfo(
                name=s.branch,
                parent=by_id[s.parent_id].branch if s.parent_id is not None else None,
                fork_version=s.fork_version,
                head_version=self.head(lineage_of(campaign, s, by_id))[0],
                created_at=s.created_at,
            )
            for s in rows
        ]

    # ------------------------------------------------------------ read

    def head(self, lineage: Lineage) -> tuple[int, str]:
        """Return the branch's last version and hash (0 and the genesis hash when empty)."""
        where, params = _in_lineage(lineage)
        rows = self._all(
            f"SELECT version, hash FROM events WHERE {where} ORDER BY version DESC LIMIT 1",
            params,
        )
        return (int(rows[0][0]), str(rows[0][1])) if rows else (0, GENESIS_HASH)

    def hash_at(self, lineage: Lineage, version: int) -> str | None:
        """Return the chain hash of the branch's event at `version` (None: no such event)."""
        where, params = _in_lineage(lineage)
        rows = self._all(
            f"SELECT hash FROM events WHERE ({where}) AND version = ?", [*params, int(version)]
        )
        return str(rows[0][0]) if rows else None

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
    ) -> Iterator[RecordedEvent]:
        """Yield a branch's events in order, decoded, filtered in the database.

        `visible_to` names a player: events that player may not see never leave the database.
        """
        sql, params = _event_query(
            lineage, after_version, upto_version, upto_turn, turn, types, visible_to
        )
        return (recorded_event(_with_time(row)) for row in self._stream(sql, params))

    def replay(
        self, lineage: Lineage, after_version: int = 0, unfolded: Collection[str] = ()
    ) -> list[StoredPayload]:
        """Return the umpire's rows after `after_version`, undecoded (see `EventStore.replay`)."""
        tags = sorted(unfolded)
        if not all(tag in EVENT_TYPES for tag in tags):
            raise ValueError(f"unknown event types among {tags}")
        where, params = _in_lineage(lineage)
        payload = "payload"
        if tags:
            payload = f"CASE WHEN type IN ({', '.join('?' * len(tags))}) THEN '' ELSE payload END"
        return self._all(
            f"SELECT position, version, type, schema_version, {payload} FROM events "
            f"WHERE ({where}) AND version > ? ORDER BY version",
            [*tags, *params, int(after_version)],
        )

    def read_stored(self, lineage: Lineage) -> Iterator[StoredRow]:
        """Yield a branch's events exactly as stored, undecoded (for verification)."""
        sql, params = _event_query(lineage, 0, None, None, None, (), UMPIRE)
        for row in self._stream(sql, params):
            fields = _with_time(row)
            yield StoredRow(*fields)

    def read_chain(self, lineage: Lineage) -> Iterator[ChainRow]:
        """Yield a branch's events as the hash chain covers them (see `EventStore.read_chain`)."""
        where, params = _in_lineage(lineage)
        sql = (
            "SELECT position, version, type, schema_version, payload, audience, actor, turn, "
            f"hash, stream_id FROM events WHERE ({where}) ORDER BY version"
        )
        return self._stream(sql, params)

    def last_version_of_turn(self, lineage: Lineage, turn: int) -> int:
        """Return the branch version of the last event of game turn `turn` or earlier."""
        where, params = _in_lineage(lineage)
        rows = self._all(
            f"SELECT max(version) FROM events WHERE ({where}) AND turn <= ?", [*params, turn]
        )
        return int(rows[0][0] or 0)

    def latest_snapshot(
        self, lineage: Lineage, projection: str, projection_version: int, upto_version: int | None
    ) -> Snapshot | None:
        """Return the newest snapshot at or before `upto_version` that still matches the chain
        (see `EventStore.latest_snapshot`: the same checks, in the same order)."""
        where, in_lineage = _snapshots_in_lineage(lineage)
        # Not `chain_hash` here: it is stored after the state, so reading it walks through
        # every snapshot's state (4.5 MB on the 44-turn bench campaign); one row's is enough.
        sql = (
            f"SELECT id, version FROM snapshots WHERE ({where}) "
            "AND projection = ? AND projection_version = ?"
        )
        params: list[Any] = [*in_lineage, projection, projection_version]
        if upto_version is not None:
            sql += " AND version <= ?"
            params.append(upto_version)
        for snapshot_id, version in self._all(sql + " ORDER BY version DESC", params):
            [(bound,)] = self._all("SELECT chain_hash FROM snapshots WHERE id = ?", [snapshot_id])
            if self.hash_at(lineage, version) != bound:
                continue  # bound to another history: a rewritten or truncated chain
            [row] = self._all(
                f"SELECT {_SNAPSHOT_COLUMNS} FROM snapshots WHERE ({where}) AND id = ?",
                [*in_lineage, snapshot_id],
            )
            stored = StoredSnapshot(*row)
            if stored.intact():
                return Snapshot(version=stored.version, turn=stored.turn, state=stored.state)
        return None

    def snapshots_of(self, lineage: Lineage) -> list[StoredSnapshot]:
        """Return every snapshot row in the branch's history, by version (for `verify`)."""
        where, params = _snapshots_in_lineage(lineage)
        rows = self._all(
            f"SELECT {_SNAPSHOT_COLUMNS} FROM snapshots WHERE {where} ORDER BY version, id",
            params,
        )
        return [StoredSnapshot(*row) for row in rows]

    # ------------------------------------------------------------ the rest: the full store

    @property
    def engine(self) -> Any:
        """The full store's SQLAlchemy engine (for the tables only it reads and writes)."""
        return self._full().engine

    def create_campaign(
        self,
        name: str,
        seed: str | None = None,
        batch: Sequence[NewEvent] = (),
        chain_key: str | None = None,
    ) -> str:
        """See `EventStore.create_campaign`."""
        return self._full().create_campaign(name, seed, batch, chain_key)

    def set_active_branch(self, campaign: str, branch: str) -> None:
        """See `EventStore.set_active_branch`."""
        self._full().set_active_branch(campaign, branch)

    def create_branch(self, campaign: str, name: str, parent: str, fork_version: int) -> None:
        """See `EventStore.create_branch`."""
        self._full().create_branch(campaign, name, parent, fork_version)

    def append(
        self, lineage: Lineage, expected_version: int, batch: Sequence[NewEvent]
    ) -> list[RecordedEvent]:
        """See `EventStore.append`."""
        return self._full().append(lineage, expected_version, batch)

    def save_snapshot(
        self,
        lineage: Lineage,
        projection: str,
        projection_version: int,
        version: int,
        turn: int,
        state: str,
    ) -> None:
        """See `EventStore.save_snapshot`."""
        self._full().save_snapshot(lineage, projection, projection_version, version, turn, state)

    def view_head(self, lineage: Lineage, player: str) -> tuple[int, str, int]:
        """See `EventStore.view_head`."""
        return self._full().view_head(lineage, player)

    def visible_hash(self, lineage: Lineage, player: str, nth: int) -> str | None:
        """See `EventStore.visible_hash`."""
        return self._full().visible_hash(lineage, player, nth)

    def credentials_fingerprint(self, campaign: str, player: str) -> str:
        """See `EventStore.credentials_fingerprint`."""
        return self._full().credentials_fingerprint(campaign, player)

    def secret_holders(self, campaign: str) -> list[SecretHolder]:
        """See `EventStore.secret_holders`."""
        rows = self._all(
            "SELECT player_secrets.player, player_secrets.issued_at, player_secrets.rotations,"
            " player_secrets.signing_key IS NOT NULL FROM player_secrets JOIN campaigns"
            " ON campaigns.id = player_secrets.campaign_id WHERE campaigns.name = ?"
            " ORDER BY player_secrets.player",
            (campaign,),
        )
        return [
            SecretHolder(player=p, issued_at=_time(at), rotations=n, signs_orders=bool(key))
            for p, at, n, key in rows
        ]

    def credentials(self, campaign: str, player: str) -> Any:
        """See `EventStore.credentials`."""
        return self._full().credentials(campaign, player)

    # ------------------------------------------------------------ internals

    def _full(self) -> EventStore:
        if self._writer is None:
            from campaign.store import EventStore

            self._writer = EventStore.open(str(self.path), self.clock, create=False)
        return self._writer

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._conn.execute(sql, params).fetchall()

    def _stream(self, sql: str, params: Sequence[Any]) -> Iterator[Any]:
        """Stream a query's rows; the cursor closes even if the consumer stops early."""
        cursor = self._conn.execute(sql, params)
        try:
            while rows := cursor.fetchmany(10_000):
                yield from rows
        finally:
            cursor.close()

    def _campaign_value(self, column: str, campaign: str) -> str:
        rows = self._all(f"SELECT {column} FROM campaigns WHERE name = ?", [campaign])
        if not rows:
            from campaign.errors import CampaignNotFoundError

            raise CampaignNotFoundError(f"no campaign named {campaign!r}")
        return str(rows[0][0])

    def _streams(self, campaign: str) -> list[StreamRow]:
        rows = self._all(
            "SELECT streams.id, streams.campaign_id, streams.branch, streams.parent_id, "
            "streams.fork_version, streams.created_at FROM streams "
            "JOIN campaigns ON campaigns.id = streams.campaign_id "
            "WHERE campaigns.name = ? ORDER BY streams.id",
            [campaign],
        )
        if not rows:
            from campaign.errors import CampaignNotFoundError

            raise CampaignNotFoundError(f"no campaign named {campaign!r}")
        return [
            StreamRow(
                id=r[0],
                campaign_id=r[1],
                branch=r[2],
                parent_id=r[3],
                fork_version=r[4],
                created_at=_time(r[5]),
            )
            for r in rows
        ]


@functools.lru_cache(maxsize=1024)
def _time(text: str) -> datetime:
    """A stored time as SQLAlchemy wrote it on SQLite (`2026-11-26 21:03:37.123456`), UTC.

    The events of one append share their time: each is read once (datetimes are immutable).
    """
    return utc(datetime.fromisoformat(text))


def _with_time(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """An event row with its `recorded_at` (the ninth column) read as a time."""
    return (*row[:8], _time(row[8]), row[9])


def _in_lineage(lineage: Lineage, table: str = "events") -> tuple[str, list[int]]:
    """The condition a row of the branch's history meets (`EventStore._in_lineage`)."""
    parts: list[str] = []
    params: list[int] = []
    for seg in lineage.segments:
        part = f"{table}.stream_id = ? AND {table}.version > ?"
        params += [seg.stream_id, seg.after]
        if seg.upto is not None:
            part += f" AND {table}.version <= ?"
            params.append(seg.upto)
        parts.append(f"({part})")
    return " OR ".join(parts), params


def _snapshots_in_lineage(lineage: Lineage) -> tuple[str, list[int]]:
    return _in_lineage(lineage, "snapshots")


def _event_query(
    lineage: Lineage,
    after_version: int,
    upto_version: int | None,
    upto_turn: int | None,
    turn: int | None,
    types: Sequence[str],
    visible_to: str,
) -> tuple[str, list[Any]]:
    """`EventStore._query` in plain SQL: the same filters, the same order."""
    where, lineage_params = _in_lineage(lineage)
    conditions = [f"({where})"]
    params: list[Any] = list(lineage_params)
    if after_version:
        conditions.append("version > ?")
        params.append(after_version)
    if upto_version is not None:
        conditions.append("version <= ?")
        params.append(upto_version)
    if upto_turn is not None:
        conditions.append("turn <= ?")
        params.append(upto_turn)
    if turn is not None:
        conditions.append("turn = ?")
        params.append(turn)
    if types:
        conditions.append(f"type IN ({', '.join('?' * len(types))})")
        params += list(types)
    if visible_to != UMPIRE:
        # The security boundary: a player's reads never fetch rows outside his audience
        # (SQLAlchemy's `contains(autoescape=True)`, the same LIKE and the same escapes).
        escaped = visible_to.replace("/", "//").replace("%", "/%").replace("_", "/_")
        conditions.append("(audience = '*' OR audience LIKE ? ESCAPE '/')")
        params.append(f"%|{escaped}|%")
    sql = f"SELECT {_EVENT_COLUMNS} FROM events WHERE {' AND '.join(conditions)}"
    return sql + " ORDER BY version", params
