"""The append-only event store on SQLAlchemy: SQLite (default) or PostgreSQL.

One `events` table holds every campaign. A stream is one branch of one campaign; a branch
made by rewinding shares its parent's events up to its fork version and continues the parent's
hash chain from there. `UNIQUE(stream_id, version)` is the optimistic-concurrency guard: a
writer that lost the race gets `ConcurrencyError` and nothing of its batch is stored.

Writers serialise on the database's write lock (SQLite `BEGIN IMMEDIATE`, PostgreSQL
`LOCK TABLE events IN EXCLUSIVE MODE`), so positions are assigned in commit order and a reader
following `position > last_seen` never skips a row.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine, Row
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.exc import IntegrityError

from campaign import db
from campaign.errors import (
    BranchExistsError,
    CampaignExistsError,
    CampaignNotFoundError,
    ConcurrencyError,
    IllegalCommandError,
    InvalidInputError,
)
from campaign.events import (
    EVENT_TYPES,
    UMPIRE,
    NewEvent,
    RecordedEvent,
    encode_payload,
)
from campaign.hashing import GENESIS_HASH, ChainHasher, chain_hasher
from campaign.storetypes import (
    MAIN_BRANCH,
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
    snapshot_digest,
    utc,
    utc_now,
)

__all__ = [  # the stores' values, long imported from here, live in campaign.storetypes
    "MAIN_BRANCH",
    "BranchInfo",
    "CampaignInfo",
    "Clock",
    "EventStore",
    "Lineage",
    "Snapshot",
    "StoredPayload",
    "StoredRow",
    "StoredSnapshot",
    "campaigns",
    "database_revisions",
    "events",
    "export_log",
    "metadata",
    "notifications",
    "player_contacts",
    "player_secrets",
    "snapshot_digest",
    "snapshots",
    "streams",
    "upgrade_database",
    "utc_now",
]
T = TypeVar("T")

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
metadata = sa.MetaData()

# These mirror migrations/versions; tests/test_schema.py proves they match the migrated schema.
campaigns = sa.Table(
    "campaigns",
    metadata,
    sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("seed", sa.Text(), nullable=False),
    sa.Column("active_branch", sa.String(64), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # The secret that salts every event's chain hash (migration 0007, `campaign.hashing`):
    # 32 random bytes in hex, never in an event. NULL: made before it, hashed plain.
    sa.Column("chain_key", sa.String(64), nullable=True),
)
streams = sa.Table(
    "streams",
    metadata,
    sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
    sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
    sa.Column("branch", sa.String(64), nullable=False),
    sa.Column("parent_id", BIG_ID, sa.ForeignKey("streams.id"), nullable=True),
    sa.Column("fork_version", sa.Integer(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("campaign_id", "branch", name="uq_streams_campaign_branch"),
)
events = sa.Table(
    "events",
    metadata,
    sa.Column("position", BIG_ID, primary_key=True, autoincrement=True),
    sa.Column("stream_id", BIG_ID, sa.ForeignKey("streams.id"), nullable=False),
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("type", sa.String(64), nullable=False),
    sa.Column("schema_version", sa.Integer(), nullable=False),
    sa.Column("payload", sa.Text(), nullable=False),
    sa.Column("audience", sa.Text(), nullable=False),
    sa.Column("actor", sa.String(64), nullable=False),
    sa.Column("turn", sa.Integer(), nullable=False),
    sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
    sa.UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
    sa.Index("ix_events_stream_turn", "stream_id", "turn"),
)
snapshots = sa.Table(
    "snapshots",
    metadata,
    sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
    sa.Column("stream_id", BIG_ID, sa.ForeignKey("streams.id"), nullable=False),
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("projection", sa.String(64), nullable=False),
    sa.Column("projection_version", sa.Integer(), nullable=False),
    sa.Column("turn", sa.Integer(), nullable=False),
    sa.Column("state", sa.Text(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # Bound to the chain (issue 13, migration 0005): the hash of the event at `version`, and
    # `snapshot_digest` over it and the row. A snapshot is served only while both match.
    sa.Column("chain_hash", sa.String(64), nullable=False),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.UniqueConstraint(
        "stream_id", "version", "projection", name="uq_snapshots_stream_version_projection"
    ),
)

# Players' secrets for remote play (issue 6): a slow salted hash per player, never the secret.
player_secrets = sa.Table(
    "player_secrets",
    metadata,
    sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
    sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
    sa.Column("player", sa.String(64), nullable=False),
    sa.Column("kdf", sa.String(64), nullable=False),
    sa.Column("salt", sa.String(64), nullable=False),
    sa.Column("digest", sa.String(128), nullable=False),
    sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("rotations", sa.Integer(), nullable=False),
    # The public half of the player's orders-signing key (hex); NULL for secrets issued before
    # migration 0004, until they are rotated.
    sa.Column("signing_key", sa.String(64), nullable=True),
    sa.UniqueConstraint("campaign_id", "player", name="uq_player_secrets_campaign_player"),
)

# The host's (issue 18, migration 0006): how to reach each player and the umpire, and the
# outbox of notifications. Neither is an event: addresses stay out of the log and out of every
# other player's view. `campaign/outbox.py` reads and writes them.
player_contacts = sa.Table(
    "player_contacts",
    metadata,
    sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
    sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
    sa.Column("player", sa.String(64), nullable=False),  # a player, or "umpire"
    sa.Column("email", sa.Text(), nullable=True),
    sa.Column("webhook", sa.Text(), nullable=True),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("campaign_id", "player", name="uq_player_contacts_campaign_player"),
)
notifications = sa.Table(
    "notifications",
    metadata,
    sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
    sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
    # Unique: a notification decided twice (a restart, a second host) is queued once.
    sa.Column("key", sa.String(255), nullable=False, unique=True),
    sa.Column("recipient", sa.Text(), nullable=False),  # a player, umpire, or mailto:ADDRESS
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("subject", sa.Text(), nullable=False),
    sa.Column("body", sa.Text(), nullable=False),
    sa.Column("attachments", sa.Text(), nullable=False),  # JSON: {file name: text}
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("attempts", sa.Integer(), nullable=False),
    sa.Column("last_error", sa.Text(), nullable=True),
)


# An event's columns as the hash chain covers them, in its order (`hashing.chain_hash`), and
# as the readers list them before their own (`recorded_at`) and the hash.
_EVENT_COLUMNS = (
    events.c.position,
    events.c.version,
    events.c.type,
    events.c.schema_version,
    events.c.payload,
    events.c.audience,
    events.c.actor,
    events.c.turn,
)


class EventStore:
    """Campaigns, branches and their events, in one SQL database."""

    def __init__(self, engine: Engine, clock: Clock = utc_now) -> None:
        self.engine = engine
        self.clock = clock
        self.backend = engine.url.get_backend_name()
        self._sql = _AppendSQL(engine)
        self._hashers: dict[str, ChainHasher] = {}  # by campaign: its key never changes

    @classmethod
    def open(cls, url: str, clock: Clock = utc_now, create: bool = True) -> EventStore:
        """Open the database at `url`, creating it at head if new and `create`.

        Raises:
            SchemaError: the schema is not this umpire's (names `umpire db upgrade`).
            DatabaseError: the database is missing (and not `create`) or unreachable.
        """
        parsed = db.normalize_url(url)
        if not create:
            db.check_exists(parsed)
        engine = db.make_engine(parsed)
        try:
            db.ensure_schema(engine, create=create)
        except Exception:
            engine.dispose()
            raise
        return cls(engine, clock)

    @property
    def database(self) -> str:
        """The database's URL, without a password (what `umpire status` shows)."""
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    # ------------------------------------------------------------ campaigns and branches

    def create_campaign(
        self,
        name: str,
        seed: str | None = None,
        batch: Sequence[NewEvent] = (),
        chain_key: str | None = None,
    ) -> str:
        """Create a campaign with a main branch holding `batch`; return its dice seed.

        One transaction: a crash anywhere leaves no campaign, no branch and no event, and the
        name free (issue 13). The seed is kept out of the event log (only its hash is
        published) until revealed. The chain key (32 bytes in hex; drawn from `secrets` when
        not given) salts every chain hash and is never revealed (`campaign.hashing`).

        Raises:
            CampaignExistsError: the name is taken.
            InvalidInputError: the chain key is not 32 bytes in hex.
        """
        seed = seed if seed is not None else secrets.token_hex(32)
        chain_key = chain_key if chain_key is not None else secrets.token_hex(32)
        try:
            hasher = chain_hasher(chain_key)
        except ValueError as exc:
            raise InvalidInputError(f"bad chain key: {exc}") from None
        now = self.clock()
        try:
            with self._write() as conn:
                campaign_id = conn.execute(
                    campaigns.insert().returning(campaigns.c.id),
                    {
                        "name": name,
                        "seed": seed,
                        "active_branch": MAIN_BRANCH,
                        "created_at": now,
                        "chain_key": chain_key,
                    },
                ).scalar_one()
                stream_id = conn.execute(
                    streams.insert().returning(streams.c.id),
                    {
                        "campaign_id": campaign_id,
                        "branch": MAIN_BRANCH,
                        "parent_id": None,
                        "fork_version": 0,
                        "created_at": now,
                    },
                ).scalar_one()
                rows = _chained_rows(stream_id, 0, GENESIS_HASH, batch, now, hasher)
                if rows:
                    conn.execute(
                        events.insert(), [dict(zip(_INSERT_COLUMNS, r, strict=True)) for r in rows]
                    )
        except IntegrityError:
            raise CampaignExistsError(f"a campaign named {name!r} already exists") from None
        return seed

    def campaigns(self) -> list[CampaignInfo]:
        """List the campaigns in the database, by name."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(
                    campaigns.c.name, campaigns.c.active_branch, campaigns.c.created_at
                ).order_by(campaigns.c.name)
            ).all()
        return [
            CampaignInfo(name=r.name, active_branch=r.active_branch, created_at=utc(r.created_at))
            for r in rows
        ]

    def resolve_campaign(self, name: str | None) -> str:
        """Return `name` if it exists, or the only campaign when no name is given."""
        return resolve_campaign_name(name, [c.name for c in self.campaigns()])

    def campaign_seed(self, campaign: str) -> str:
        """Return the campaign's secret dice seed (umpire only)."""
        return str(self._campaign_secret(campaign, campaigns.c.seed))

    def chain_key(self, campaign: str) -> str | None:
        """Return the campaign's secret chain key (umpire only; None: made before 0007)."""
        key = self._campaign_secret(campaign, campaigns.c.chain_key)
        return None if key is None else str(key)

    def _campaign_secret(self, campaign: str, column: sa.Column[Any]) -> Any:
        """Return one column of the campaign's row (its seed, its chain key)."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(column).where(campaigns.c.name == campaign)).first()
        if row is None:
            raise CampaignNotFoundError(f"no campaign named {campaign!r}")
        return row[0]

    def active_branch(self, campaign: str) -> str:
        """Return the branch commands act on when none is named."""
        with self.engine.connect() as conn:
            branch = conn.execute(
                sa.select(campaigns.c.active_branch).where(campaigns.c.name == campaign)
            ).scalar_one_or_none()
        if branch is None:
            raise CampaignNotFoundError(f"no campaign named {campaign!r}")
        return str(branch)

    def set_active_branch(self, campaign: str, branch: str) -> None:
        """Make `branch` the one commands act on by default."""
        self.lineage(campaign, branch)  # raises if unknown
        with self._write() as conn:
            conn.execute(
                campaigns.update().where(campaigns.c.name == campaign).values(active_branch=branch)
            )

    def branches(self, campaign: str) -> list[BranchInfo]:
        """List a campaign's branches, oldest first, with their head versions."""
        with self.engine.connect() as conn:
            rows = self._streams(conn, campaign)
            by_id = {s.id: s for s in rows}
            result = []
            for s in rows:
                lineage = lineage_of(campaign, s, by_id)
                result.append(
                    BranchInfo(
                        name=s.branch,
                        parent=by_id[s.parent_id].branch if s.parent_id is not None else None,
                        fork_version=s.fork_version,
                        head_version=self._head(conn, lineage)[0],
                        created_at=s.created_at,
                    )
                )
        return result

    def create_branch(self, campaign: str, name: str, parent: str, fork_version: int) -> None:
        """Start branch `name` sharing `parent`'s history up to `fork_version`."""
        source = self.lineage(campaign, parent)
        with self._write() as conn:
            head, _ = self._head(conn, source)
            if not 0 <= fork_version <= head:
                raise IllegalCommandError(
                    f"cannot fork {parent!r} at version {fork_version}: it has {head} events"
                )
            campaign_id = self._streams(conn, campaign)[0].campaign_id
            try:
                conn.execute(
                    streams.insert(),
                    {
                        "campaign_id": campaign_id,
                        "branch": name,
                        "parent_id": source.stream_id,
                        "fork_version": fork_version,
                        "created_at": self.clock(),
                    },
                )
            except IntegrityError:
                raise BranchExistsError(
                    f"campaign {campaign!r} already has a branch {name!r}"
                ) from None

    def lineage(self, campaign: str, branch: str) -> Lineage:
        """Resolve a branch to the segments of stream history it is made of."""
        with self.engine.connect() as conn:
            rows = self._streams(conn, campaign)
        return branch_lineage(campaign, branch, rows)

    # ------------------------------------------------------------ append

    def append(
        self, lineage: Lineage, expected_version: int, batch: Sequence[NewEvent]
    ) -> list[RecordedEvent]:
        """Append `batch` atomically after `expected_version`; return the recorded events.

        Raises:
            ConcurrencyError: the branch is no longer at `expected_version` (another writer
                got there first); nothing of the batch was stored.
        """
        if not batch:
            return []
        now = self.clock()
        sql = self._sql
        stored_now = sql.recorded_at(now)
        hasher = self._hasher(lineage.campaign)
        try:
            with sql.write() as cursor:
                head, prev_hash = self._raw_head(cursor, lineage)
                if head != expected_version:
                    raise ConcurrencyError(
                        f"branch {lineage.branch!r} of {lineage.campaign!r} is at version {head}, "
                        f"not {expected_version}: another writer appended first; reload and retry"
                    )
                rows = _chained_rows(
                    lineage.stream_id, expected_version, prev_hash, batch, stored_now, hasher
                )
                positions = sql.insert(cursor, rows)
        except sql.integrity_errors as exc:
            # The one place a lost race becomes a ConcurrencyError.
            raise ConcurrencyError(
                f"branch {lineage.branch!r} of {lineage.campaign!r} moved past version "
                f"{expected_version} while appending: reload and retry"
            ) from exc
        return [
            RecordedEvent(
                position=position,
                version=row[1],
                type=row[2],
                schema_version=row[3],
                audience=new.audience,
                actor=new.actor,
                turn=new.turn,
                recorded_at=now,
                hash=row[9],
                event=new.event,
            )
            for new, row, position in zip(batch, rows, positions, strict=True)
        ]

    # ------------------------------------------------------------ read

    def head(self, lineage: Lineage) -> tuple[int, str]:
        """Return the branch's last version and hash (0 and the genesis hash when empty)."""
        with self.engine.connect() as conn:
            return self._head(conn, lineage)

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
        query = self._query(
            lineage, after_version, upto_version, upto_turn, turn, types, visible_to
        )
        return self._rows(query, recorded_event)

    def replay(
        self, lineage: Lineage, after_version: int = 0, unfolded: Collection[str] = ()
    ) -> list[StoredPayload]:
        """Return the umpire's rows after `after_version`, undecoded, for folding from the log.

        Only what a fold needs (position, version, type, schema version, payload), through
        the DBAPI cursor with the lineage's integers inlined: a full replay is then bound by
        decoding and folding, not by the row machinery (issue 19). The payloads of the
        `unfolded` event types (those the fold only counts) come back empty.
        """
        tags = tuple(sorted(unfolded))
        if not all(tag in EVENT_TYPES for tag in tags):  # our own tags: safe to inline
            raise ValueError(f"unknown event types among {list(tags)}")
        sql = self._sql.replay(lineage, tags, after_version)
        conn = self.engine.raw_connection()
        try:
            cursor = conn.cursor()
            try:
                cursor.execute(sql)
                return list(cursor.fetchall())
            finally:
                cursor.close()
        finally:
            conn.close()

    def read_stored(self, lineage: Lineage) -> Iterator[StoredRow]:
        """Yield a branch's events exactly as stored, undecoded (for verification)."""
        query = self._query(lineage, 0, None, None, None, (), UMPIRE)
        return self._rows(query, _stored_row)

    def read_chain(self, lineage: Lineage) -> Iterator[ChainRow]:
        """Yield a branch's events as the hash chain covers them (`ChainRow`), for `verify`."""
        query = (
            sa.select(*_EVENT_COLUMNS, events.c.hash, events.c.stream_id)
            .where(self._in_lineage(lineage))
            .order_by(events.c.version)
        )
        return self._rows(query, _chain_row)

    def view_head(self, lineage: Lineage, player: str) -> tuple[int, str, int]:
        """Return how many events `player` may see on the branch, and the last one's chain
        hash and game turn (0, the genesis hash and 0 when he may see none)."""
        visible = self._query(lineage, 0, None, None, None, (), player)
        with self.engine.connect() as conn:
            count = conn.execute(
                sa.select(sa.func.count()).select_from(visible.order_by(None).subquery())
            ).scalar_one()
            last = conn.execute(
                visible.order_by(None).order_by(events.c.version.desc()).limit(1)
            ).first()
        if last is None:
            return 0, GENESIS_HASH, 0
        return int(count), str(last.hash), int(last.turn)

    def visible_hash(self, lineage: Lineage, player: str, nth: int) -> str | None:
        """Return the chain hash of the `nth` event (from 1) `player` may see on the branch."""
        if nth < 1:
            return None
        visible = self._query(lineage, 0, None, None, None, (), player)
        with self.engine.connect() as conn:
            row = conn.execute(visible.offset(nth - 1).limit(1)).first()
        return None if row is None else str(row.hash)

    def credentials_fingerprint(self, campaign: str, player: str) -> str:
        """Return a SHA-256 over the player's stored credentials ("" when he holds none).

        It covers the key derivation, salt and digest of his secret and his public signing
        key: a receipt carries it, so a replaced credential shows (issue 13).
        """
        row = self.credentials(campaign, player)
        if row is None:
            return ""
        parts = (row.kdf, row.salt, row.digest, row.signing_key or "")
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()

    def credentials(self, campaign: str, player: str) -> sa.Row[Any, Any, Any, Any] | None:
        """Return a player's stored credentials (kdf, salt, digest, signing_key), or None."""
        with self.engine.connect() as conn:
            return conn.execute(
                sa.select(
                    player_secrets.c.kdf,
                    player_secrets.c.salt,
                    player_secrets.c.digest,
                    player_secrets.c.signing_key,
                )
                .join(campaigns, campaigns.c.id == player_secrets.c.campaign_id)
                .where(campaigns.c.name == campaign, player_secrets.c.player == player)
            ).first()

    def secret_holders(self, campaign: str) -> list[SecretHolder]:
        """Return the players of `campaign` who hold a secret, by name (never the secrets)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(
                    player_secrets.c.player,
                    player_secrets.c.issued_at,
                    player_secrets.c.rotations,
                    player_secrets.c.signing_key.is_not(None),
                )
                .join(campaigns, campaigns.c.id == player_secrets.c.campaign_id)
                .where(campaigns.c.name == campaign)
                .order_by(player_secrets.c.player)
            ).all()
        return [
            SecretHolder(player=p, issued_at=utc(at), rotations=n, signs_orders=bool(key))
            for p, at, n, key in rows
        ]

    def last_version_of_turn(self, lineage: Lineage, turn: int) -> int:
        """Return the branch version of the last event of game turn `turn` or earlier."""
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(sa.func.max(events.c.version)).where(
                    self._in_lineage(lineage), events.c.turn <= turn
                )
            ).scalar_one_or_none()
        return int(value or 0)

    # ------------------------------------------------------------ snapshots

    def save_snapshot(
        self,
        lineage: Lineage,
        projection: str,
        projection_version: int,
        version: int,
        turn: int,
        state: str,
    ) -> None:
        """Save a projection state at `version` of the branch (idempotent), bound to the chain.

        Raises:
            IllegalCommandError: the branch has no event at `version`.
        """
        stream_id = self._owner_stream(lineage, version)
        bound = self.hash_at(lineage, version)
        if bound is None:
            raise IllegalCommandError(
                f"cannot snapshot version {version} of {lineage.branch!r}: it has no such event"
            )
        digest = snapshot_digest(bound, projection, projection_version, version, turn, state)
        try:
            with self._write() as conn:
                conn.execute(
                    snapshots.insert(),
                    {
                        "stream_id": stream_id,
                        "version": version,
                        "projection": projection,
                        "projection_version": projection_version,
                        "turn": turn,
                        "state": state,
                        "created_at": self.clock(),
                        "chain_hash": bound,
                        "digest": digest,
                    },
                )
        except IntegrityError:
            pass  # the same snapshot exists already: snapshots are derived and deterministic

    def hash_at(self, lineage: Lineage, version: int) -> str | None:
        """Return the chain hash of the branch's event at `version` (None: no such event)."""
        with self.engine.connect() as conn:  # asked before every load (issue 19): SQL built once
            value = conn.exec_driver_sql(self._sql.hash_at(lineage, version)).scalar_one_or_none()
        return None if value is None else str(value)

    def latest_snapshot(
        self, lineage: Lineage, projection: str, projection_version: int, upto_version: int | None
    ) -> Snapshot | None:
        """Return the newest snapshot at or before `upto_version` that still matches the chain.

        A snapshot whose bound chain hash is not the branch's hash at its version, or whose
        digest does not match its row, is never served (issue 13): the next older one is
        tried, and with none the caller folds from the start.
        """
        query = (
            self._snapshot_query(lineage)
            .with_only_columns(snapshots.c.id, snapshots.c.version, snapshots.c.chain_hash)
            .where(
                snapshots.c.projection == projection,
                snapshots.c.projection_version == projection_version,
            )
        )
        if upto_version is not None:
            query = query.where(snapshots.c.version <= upto_version)
        with self.engine.connect() as conn:
            candidates = conn.execute(query.order_by(snapshots.c.version.desc())).all()
        for candidate in candidates:
            if self.hash_at(lineage, candidate.version) != candidate.chain_hash:
                continue  # bound to another history: a rewritten or truncated chain
            whole = self._snapshot_query(lineage).where(snapshots.c.id == candidate.id)
            with self.engine.connect() as conn:
                row = _stored_snapshot(conn.execute(whole).one())
            if row.intact():
                return Snapshot(version=row.version, turn=row.turn, state=row.state)
        return None

    def snapshots_of(self, lineage: Lineage) -> list[StoredSnapshot]:
        """Return every snapshot row in the branch's history, by version (for `verify`)."""
        query = self._snapshot_query(lineage).order_by(snapshots.c.version, snapshots.c.id)
        return list(self._rows(query, _stored_snapshot))

    def _snapshot_query(self, lineage: Lineage) -> sa.Select[Any]:
        conditions = [
            sa.and_(
                snapshots.c.stream_id == seg.stream_id,
                snapshots.c.version > seg.after,
                *([snapshots.c.version <= seg.upto] if seg.upto is not None else []),
            )
            for seg in lineage.segments
        ]
        return sa.select(
            snapshots.c.id,
            snapshots.c.version,
            snapshots.c.projection,
            snapshots.c.projection_version,
            snapshots.c.turn,
            snapshots.c.state,
            snapshots.c.chain_hash,
            snapshots.c.digest,
        ).where(sa.or_(*conditions))

    # ------------------------------------------------------------ internals

    def _write(self) -> _WriteTransaction:
        return _WriteTransaction(self.engine)

    def _streams(self, conn: Connection, campaign: str) -> list[StreamRow]:
        rows = conn.execute(
            sa.select(
                streams.c.id,
                streams.c.campaign_id,
                streams.c.branch,
                streams.c.parent_id,
                streams.c.fork_version,
                streams.c.created_at,
            )
            .join(campaigns, campaigns.c.id == streams.c.campaign_id)
            .where(campaigns.c.name == campaign)
            .order_by(streams.c.id)
        ).all()
        if not rows:
            raise CampaignNotFoundError(f"no campaign named {campaign!r}")
        return [
            StreamRow(
                id=r.id,
                campaign_id=r.campaign_id,
                branch=r.branch,
                parent_id=r.parent_id,
                fork_version=r.fork_version,
                created_at=utc(r.created_at),
            )
            for r in rows
        ]

    @staticmethod
    def _in_lineage(lineage: Lineage) -> sa.ColumnElement[bool]:
        return sa.or_(
            *(
                sa.and_(
                    events.c.stream_id == seg.stream_id,
                    events.c.version > seg.after,
                    *([events.c.version <= seg.upto] if seg.upto is not None else []),
                )
                for seg in lineage.segments
            )
        )

    def _head(self, conn: Connection, lineage: Lineage) -> tuple[int, str]:
        row = conn.exec_driver_sql(self._sql.head(lineage)).first()
        if row is None:
            return 0, GENESIS_HASH
        return int(row[0]), str(row[1])

    def _raw_head(self, cursor: DBAPICursor, lineage: Lineage) -> tuple[int, str]:
        """`_head` on the append path's DBAPI cursor (see `_AppendSQL`)."""
        cursor.execute(self._sql.head(lineage))
        row = cursor.fetchone()
        if row is None:
            return 0, GENESIS_HASH
        return int(row[0]), str(row[1])

    def _owner_stream(self, lineage: Lineage, version: int) -> int:
        for seg in lineage.segments:
            if version > seg.after and (seg.upto is None or version <= seg.upto):
                return seg.stream_id
        return lineage.segments[-1].stream_id  # version 0 belongs to the root stream

    def _hasher(self, campaign: str) -> ChainHasher:
        """Return how `campaign`'s events are chained (its key read once per store)."""
        hasher = self._hashers.get(campaign)
        if hasher is None:
            hasher = self._hashers[campaign] = chain_hasher(self.chain_key(campaign))
        return hasher

    def _query(
        self,
        lineage: Lineage,
        after_version: int,
        upto_version: int | None,
        upto_turn: int | None,
        turn: int | None,
        types: Sequence[str],
        visible_to: str,
    ) -> sa.Select[tuple[int, int, str, int, str, str, str, int, datetime, str]]:
        query = sa.select(*_EVENT_COLUMNS, events.c.recorded_at, events.c.hash).where(
            self._in_lineage(lineage)
        )
        if after_version:
            query = query.where(events.c.version > after_version)
        if upto_version is not None:
            query = query.where(events.c.version <= upto_version)
        if upto_turn is not None:
            query = query.where(events.c.turn <= upto_turn)
        if turn is not None:
            query = query.where(events.c.turn == turn)
        if types:
            query = query.where(events.c.type.in_(list(types)))
        if visible_to != UMPIRE:
            # The security boundary: a player's reads never fetch rows outside his audience.
            query = query.where(
                sa.or_(
                    events.c.audience == "*",
                    events.c.audience.contains(f"|{visible_to}|", autoescape=True),
                )
            )
        return query.order_by(events.c.version)

    def _rows(self, query: sa.Select[Any], convert: Callable[[Row[Any]], T]) -> Iterator[T]:
        """Stream a query's rows, converted; the cursor closes even if the consumer fails."""
        with self.engine.connect() as conn:
            result = conn.execution_options(yield_per=10_000).execute(query)
            try:
                for row in result:
                    yield convert(row)
            finally:
                result.close()


def upgrade_database(url: str) -> tuple[str | None, str, Path | None]:
    """Migrate the database at `url` to head, backing a SQLite file up first.

    Returns (revision before, revision after, backup path or None).
    """
    engine = db.make_engine(db.normalize_url(url))
    try:
        return db.upgrade_with_backup(engine)
    finally:
        engine.dispose()


def export_log(url: str, target: Path) -> dict[str, int]:
    """Copy every campaign's log into a new SQLite file anyone may be given (issue 13).

    The copy holds the campaigns, their branches and every event, positions and hashes as
    stored, and the players' credentials as stored (slow salted hashes of random secrets and
    public signing keys: never a secret), so `umpire verify --db COPY --receipts DIR` checks
    every player's receipts without the umpire's database. It leaves out the snapshots
    (derived data). It holds every hidden event, and the dice seed: so it is made only once
    each campaign's seed is revealed in its log, after the campaign. Returns how many rows of
    each it copied.

    Raises:
        InvalidInputError: `target` exists already.
        IllegalCommandError: a campaign's seed is not revealed yet.
    """
    if target.exists():
        raise InvalidInputError(f"{target} exists already: name a new file for the export")
    source = EventStore.open(url, create=False)
    try:
        with source.engine.connect() as conn:
            revealed = set(
                conn.execute(
                    sa.select(campaigns.c.name)
                    .join(streams, streams.c.campaign_id == campaigns.c.id)
                    .join(events, events.c.stream_id == streams.c.id)
                    .where(events.c.type == "seed_revealed")
                ).scalars()
            )
            hidden = [c.name for c in source.campaigns() if c.name not in revealed]
            if hidden:
                raise IllegalCommandError(
                    f"campaign {hidden[0]!r} has not revealed its dice seed: the export would "
                    "give it away (`umpire reveal-seed` once the campaign is over)"
                )
            rows = {
                table.name: [dict(r._mapping) for r in conn.execute(sa.select(table))]
                for table in (campaigns, streams, events, player_secrets)
            }
    finally:
        source.close()
    copy = EventStore.open(str(target), create=True)
    try:
        with copy._write() as conn:
            for table in (campaigns, streams, events, player_secrets):
                if rows[table.name]:
                    conn.execute(table.insert(), rows[table.name])
    finally:
        copy.close()
    return {name: len(found) for name, found in rows.items()}


def database_revisions(url: str) -> tuple[str | None, str]:
    """Return (the database's schema revision, the revision this umpire needs)."""
    parsed = db.normalize_url(url)
    db.check_exists(parsed)
    engine = db.make_engine(parsed)
    try:
        return db.current_revision(engine), db.head_revision()
    finally:
        engine.dispose()


_INSERT_COLUMNS = tuple(c.name for c in events.c if c.name != "position")
_INSERT_CHUNK = 1000  # rows per INSERT: 10,000 parameters, inside SQLite's and PostgreSQL's limits


class _AppendSQL:
    """The append path, on the pooled DBAPI connection, with its SQL built once per engine.

    An append is a handful of statements on 1-50 rows. Run through SQLAlchemy Core, its
    per-call work (the Connection/Transaction layers and their events, building the lineage
    expression and its cache key, per-row bind processing, and on SQLite insertmanyvalues'
    row-at-a-time fallback for `RETURNING ... sort_by_parameter_order`) cost more than the
    database did. The statements here are still SQLAlchemy's (or plain, portable SQL), built
    once; the transaction takes the same write lock as `_WriteTransaction`.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._dialect = engine.dialect
        self._sqlite = engine.dialect.name == "sqlite"
        # sqlite3 takes qmark; psycopg takes positional %s under its pyformat paramstyle.
        mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        self._values = "(" + ", ".join([mark] * len(_INSERT_COLUMNS)) + ")"
        self._inserts: dict[int, str] = {}
        self._heads: dict[Lineage, str] = {}
        self._hashes: dict[Lineage, str] = {}
        self._replays: dict[tuple[Lineage, tuple[str, ...]], str] = {}
        impl = events.c.recorded_at.type.dialect_impl(engine.dialect)
        self._bind_recorded_at = impl.bind_processor(engine.dialect)
        self.integrity_errors: tuple[type[Exception], ...] = (
            IntegrityError,
            engine.dialect.loaded_dbapi.IntegrityError,
        )

    def recorded_at(self, now: datetime) -> Any:
        """Return `now` as the driver gets it for the column (SQLite: SQLAlchemy's text form)."""
        return self._bind_recorded_at(now) if self._bind_recorded_at is not None else now

    def write(self) -> _RawWriteTransaction:
        """Open an append's write transaction (it holds the write lock from its start)."""
        return _RawWriteTransaction(self._engine, self._sqlite)

    def head(self, lineage: Lineage) -> str:
        """Return the SQL of a branch's head query (the lineage's integers inlined)."""
        sql = self._heads.get(lineage)
        if sql is None:
            stmt = (
                sa.select(events.c.version, events.c.hash)
                .where(EventStore._in_lineage(lineage))
                .order_by(events.c.version.desc())
                .limit(1)
            )
            # Only integers are inlined: stream ids and versions, nothing to quote.
            sql = self._heads[lineage] = str(
                stmt.compile(dialect=self._dialect, compile_kwargs={"literal_binds": True})
            )
        return sql

    def hash_at(self, lineage: Lineage, version: int) -> str:
        """Return the SQL of the query for the chain hash at a branch version."""
        sql = self._hashes.get(lineage)
        if sql is None:
            stmt = sa.select(events.c.hash).where(
                EventStore._in_lineage(lineage), events.c.version == sa.literal_column("{v}")
            )
            compiled = stmt.compile(dialect=self._dialect, compile_kwargs={"literal_binds": True})
            sql = self._hashes[lineage] = str(compiled)
        # Only integers are inlined: stream ids and versions, nothing to quote.
        return sql.replace("{v}", str(int(version)))

    def replay(self, lineage: Lineage, tags: tuple[str, ...], after_version: int) -> str:
        """Return the SQL of `EventStore.replay`'s query, compiled once per branch and set of
        event tags left unread (each replay compiled it again: a millisecond of a load that
        folds a few events, issue 19)."""
        key = (lineage, tags)
        sql = self._replays.get(key)
        if sql is None:
            payload: sa.ColumnElement[str] = events.c.payload
            if tags:
                payload = sa.case((events.c.type.in_(tags), ""), else_=events.c.payload)
            stmt = (
                sa.select(
                    events.c.position,
                    events.c.version,
                    events.c.type,
                    events.c.schema_version,
                    payload,
                )
                .where(EventStore._in_lineage(lineage), events.c.version > sa.literal_column("{v}"))
                .order_by(events.c.version)
            )
            compiled = stmt.compile(
                dialect=self._dialect,
                compile_kwargs={"literal_binds": True, "render_postcompile": True},
            )
            if len(self._replays) > 256:  # a hosted server's branches: start again
                self._replays.clear()
            sql = self._replays[key] = str(compiled)
        # Inlined: stream ids and versions (integers), and registered event tags.
        return sql.replace("{v}", str(int(after_version)))

    def insert(self, cursor: DBAPICursor, rows: list[tuple[Any, ...]]) -> list[int]:
        """Insert rows (in `_INSERT_COLUMNS` order); return their positions, in row order."""
        by_version: dict[int, int] = {}
        for start in range(0, len(rows), _INSERT_CHUNK):
            chunk = rows[start : start + _INSERT_CHUNK]
            sql = self._inserts.get(len(chunk))
            if sql is None:
                sql = self._inserts[len(chunk)] = (
                    f"INSERT INTO events ({', '.join(_INSERT_COLUMNS)}) VALUES "
                    + ", ".join([self._values] * len(chunk))
                    # RETURNING's row order is unspecified: the version names each row.
                    + " RETURNING version, position"
                )
            cursor.execute(sql, tuple(value for row in chunk for value in row))
            by_version.update(cursor.fetchall())
        return [by_version[row[1]] for row in rows]


class _RawWriteTransaction:
    """`_WriteTransaction` on the pooled DBAPI connection: the same locks, in one cursor."""

    def __init__(self, engine: Engine, sqlite: bool) -> None:
        self._engine = engine
        self._sqlite = sqlite

    def __enter__(self) -> DBAPICursor:
        self._conn = self._engine.raw_connection()  # pre-ping and connect events still apply
        self._cursor = self._conn.cursor()
        try:
            # sqlite3 runs in autocommit mode (db.make_engine): begin, taking the write lock.
            # psycopg begins implicitly; LOCK TABLE serialises writers as _WriteTransaction does.
            self._cursor.execute(
                "BEGIN IMMEDIATE" if self._sqlite else "LOCK TABLE events IN EXCLUSIVE MODE"
            )
        except BaseException:
            self._end(commit=False)
            raise
        return self._cursor

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._end(commit=exc_type is None)

    def _end(self, *, commit: bool) -> None:
        try:
            if commit:
                self._conn.commit()
            else:
                self._conn.rollback()
        finally:
            self._cursor.close()
            self._conn.close()  # back to the pool, which rolls back anything left open


class _WriteTransaction:
    """A write transaction that holds the database's write lock from its first statement."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._conn: Connection | None = None

    def __enter__(self) -> Connection:
        conn = self._engine.connect()
        if self._engine.url.get_backend_name() == "sqlite":
            conn = conn.execution_options(sqlite_immediate=True)
        conn.begin()
        if self._engine.url.get_backend_name() == "postgresql":
            conn.exec_driver_sql("LOCK TABLE events IN EXCLUSIVE MODE")
        self._conn = conn
        return conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        assert self._conn is not None
        try:
            if exc_type is None:
                self._conn.commit()
            else:
                self._conn.rollback()
        finally:
            self._conn.close()


def _chained_rows(
    stream_id: int,
    after: int,
    prev_hash: str,
    batch: Sequence[NewEvent],
    recorded_at: Any,
    hasher: ChainHasher,
) -> list[tuple[Any, ...]]:
    """Return `batch` as event rows (in `_INSERT_COLUMNS` order), chained after `prev_hash`
    by the campaign's `hasher`."""
    rows: list[tuple[Any, ...]] = []
    for version, new in enumerate(batch, start=after + 1):
        payload = encode_payload(new.event).decode()
        audience = new.audience.encode()
        ev_type, schema = new.event.TYPE, new.event.SCHEMA_VERSION
        prev_hash = hasher(
            prev_hash, stream_id, version, ev_type, schema, audience, new.actor, new.turn, payload
        )
        rows.append(
            (
                stream_id,
                version,
                ev_type,
                schema,
                payload,
                audience,
                new.actor,
                new.turn,
                recorded_at,
                prev_hash,
            )
        )
    return rows


def _stored_snapshot(row: Row[Any]) -> StoredSnapshot:
    return StoredSnapshot(
        id=row.id,
        version=row.version,
        projection=row.projection,
        projection_version=row.projection_version,
        turn=row.turn,
        state=row.state,
        chain_hash=row.chain_hash,
        digest=row.digest,
    )


def _chain_row(row: Row[Any]) -> ChainRow:
    return (
        row.position,
        row.version,
        row.type,
        row.schema_version,
        row.payload,
        row.audience,
        row.actor,
        row.turn,
        row.hash,
        row.stream_id,
    )


def _stored_row(row: Row[Any]) -> StoredRow:
    return StoredRow(
        position=row.position,
        version=row.version,
        type=row.type,
        schema_version=row.schema_version,
        payload=row.payload,
        audience=row.audience,
        actor=row.actor,
        turn=row.turn,
        recorded_at=utc(row.recorded_at),
        hash=row.hash,
    )
