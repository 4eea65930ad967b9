"""Opening the database: URLs, engines, and the alembic-owned schema lifecycle.

Like JupyterHub's `dbutil`: alembic owns the schema. A new SQLite file (or an empty
PostgreSQL database) is created at head; a database at an older revision is refused with a
message naming `umpire db upgrade`, which backs a SQLite file up before it migrates.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.pool import StaticPool

import migrations
from campaign.errors import DatabaseError, InvalidInputError, SchemaError
from campaign.storetypes import HEAD_REVISION

if TYPE_CHECKING:
    from alembic.config import Config

DEFAULT_DB = "sqlite:///umpire.db"
MIGRATIONS_DIR = Path(migrations.__file__).parent
UPGRADE_HINT = "run `umpire db upgrade`"


def normalize_url(text: str) -> URL:
    """Turn what a user typed for `--db` into a SQLAlchemy URL.

    A plain path means a SQLite file; `postgres://` and `postgresql://` use psycopg 3.

    >>> str(normalize_url("campaign.db"))
    'sqlite:///campaign.db'
    >>> str(normalize_url("postgresql://postgres@127.0.0.1/umpire"))
    'postgresql+psycopg://postgres@127.0.0.1/umpire'
    """
    text = text.strip()
    if not text:
        raise DatabaseError("the database URL is empty")
    if "://" not in text:
        return make_url(f"sqlite:///{text}")
    try:
        url = make_url(text)
    except ArgumentError as exc:
        raise DatabaseError(f"cannot read database URL {text!r}: {exc}") from None
    if url.drivername in ("postgres", "postgresql"):
        url = url.set(drivername="postgresql+psycopg")
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise DatabaseError(
            f"unsupported database {url.get_backend_name()!r}: use SQLite or PostgreSQL"
        )
    return url


def is_sqlite_memory(url: URL) -> bool:
    """Return whether `url` names an in-memory SQLite database."""
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def sqlite_path(url: URL) -> Path | None:
    """Return the file behind a SQLite URL, or None for memory and other backends."""
    if url.get_backend_name() != "sqlite" or is_sqlite_memory(url):
        return None
    return Path(str(url.database))


def current_snapshot(engine: Engine) -> str | None:
    """Return PostgreSQL's current snapshot as text (`pg_current_snapshot()`: the oldest
    transaction running, the next id to be given, those running between), or None (another
    backend, a server before 13, or the database away).

    A transaction that commits a change between two calls was running at the first and is not
    at the second, or took its id after the first: the two differ. Equal ones mean nothing
    was committed between, anywhere on the server (`campaign.web.Freshness`).
    """
    if engine.dialect.name != "postgresql":
        return None
    try:
        with engine.connect() as conn:
            return str(conn.exec_driver_sql("SELECT pg_current_snapshot()::text").scalar())
    except DBAPIError:
        return None


def check_exists(url: URL) -> None:
    """Refuse a SQLite file that does not exist (read commands never create one)."""
    path = sqlite_path(url)
    if path is not None and not path.exists():
        raise DatabaseError(
            f"no database at {path}: create a campaign with `umpire new NAME --db {path}`"
        )


def create_private(path: Path) -> None:
    """Create an empty file only its owner may read or write (0600), if it does not exist.

    A campaign database holds the secret dice seed and the players' key hashes: SQLite then
    writes it, and gives its -wal and -shm files the same mode.

    Raises:
        DatabaseError: the file cannot be created.
    """
    try:
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        raise DatabaseError(f"cannot create {path}: {exc.strerror}") from None
    os.close(handle)


def make_engine(url: URL) -> Engine:
    """Create an engine with the settings the event store relies on.

    SQLite: WAL, foreign keys, a generous busy timeout, and transactions we begin ourselves so
    that an append can take the write lock up front (`BEGIN IMMEDIATE`). The pysqlite driver's
    own transaction handling is switched off, as SQLAlchemy's documentation recommends.
    """
    if url.get_backend_name() != "sqlite":
        return sa.create_engine(url, pool_pre_ping=True)
    memory = is_sqlite_memory(url)
    path = sqlite_path(url)
    if path is not None and not path.parent.exists():
        raise DatabaseError(f"cannot create {path}: folder {path.parent} does not exist")
    if path is not None and not path.exists():
        create_private(path)
    engine = sa.create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": 60},
        poolclass=StaticPool if memory else None,
    )

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode is safe against a killed process (not a power cut) and fast.
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _alembic_config(connection: Connection | None = None) -> Config:
    from alembic.config import Config  # alembic only when the schema is in question

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """Return the schema revision this version of umpire needs."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """Return the database's schema revision, or None if it has none."""
    from alembic.runtime.migration import MigrationContext

    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except DBAPIError as exc:  # not a database, unreadable, unreachable
        raise DatabaseError(f"cannot open {_describe(engine.url)}: {_first_line(exc)}") from None


def _has_tables(engine: Engine) -> bool:
    return bool(sa.inspect(engine).get_table_names())


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the schema to `revision` (no backup: see `upgrade_with_backup`)."""
    from alembic import command

    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), revision)


def ensure_schema(engine: Engine, create: bool = True) -> None:
    """Create a new database at head (if `create`), accept one at head, refuse anything else.

    Raises:
        SchemaError: the schema is older (names `umpire db upgrade`) or newer than this code.
        DatabaseError: the database has tables but is not an umpire database, or is unreachable.
    """
    if _at_head(engine):
        return
    try:
        current = current_revision(engine)
        if current is None:
            if _has_tables(engine):
                raise DatabaseError(
                    f"{_describe(engine.url)} has tables but no umpire schema revision: "
                    "it is not an umpire database"
                )
            if not create:
                raise DatabaseError(
                    f"{_describe(engine.url)} holds no campaigns yet: "
                    "create one with `umpire new NAME`"
                )
            upgrade(engine)
            return
    except DBAPIError as exc:
        raise DatabaseError(f"cannot open {_describe(engine.url)}: {_first_line(exc)}") from None
    head = head_revision()
    if current == head:
        return
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(_alembic_config())
    if current not in {rev.revision for rev in script.walk_revisions()}:
        raise SchemaError(
            f"{_describe(engine.url)} has schema revision {current}, newer than this umpire "
            f"knows ({head}): install a newer stellar-umpire"
        )
    raise SchemaError(
        f"{_describe(engine.url)} has schema revision {current} but this umpire needs {head}: "
        f"{UPGRADE_HINT} (it backs SQLite files up first)"
    )


def _at_head(engine: Engine) -> bool:
    """Return whether the database is at `HEAD_REVISION` (False when it cannot say)."""
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT version_num FROM alembic_version")).all()
    except DBAPIError:  # no such table, or no database: the full check says what is wrong
        return False
    return [tuple(row) for row in rows] == [(HEAD_REVISION,)]


def backup_sqlite(path: Path, revision: str | None, now: datetime | None = None) -> Path:
    """Copy a SQLite file, WAL included, with SQLite's online backup; return the copy's path."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.{revision or 'empty'}.{stamp}.bak")
    create_private(target)
    _copy_sqlite(path, target)
    return target


def _copy_sqlite(path: Path, target: Path) -> None:
    source = sqlite3.connect(path)
    try:
        dest = sqlite3.connect(target)
        try:
            source.backup(dest)
        finally:
            dest.close()
    finally:
        source.close()


def backup_database(text: str, target: Path) -> None:
    """Copy the SQLite database `text` names to the new file `target`, safely while it is in
    use: SQLite's online backup copies what the write-ahead log holds too, which copying the
    file by hand can miss. The copy is private to its owner (0600), as the database is.

    Raises:
        DatabaseError: not a SQLite file (PostgreSQL: use pg_dump), no such file, or the
            copy failed (then nothing is left behind).
        InvalidInputError: `target` exists already.
    """
    url = normalize_url(text)
    path = sqlite_path(url)
    if path is None:
        if url.get_backend_name() == "postgresql":
            raise DatabaseError(
                "umpire db backup copies SQLite files; back a PostgreSQL database up with "
                "pg_dump (e.g. pg_dump -Fc DBNAME > umpire.dump)"
            )
        raise DatabaseError(f"{_describe(url)} is not a SQLite file: give a database file")
    check_exists(url)
    if target.exists() or target.is_symlink():
        raise InvalidInputError(f"{target} exists already: name a new file for the backup")
    try:
        handle = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError as exc:
        raise DatabaseError(f"cannot create {target}: {exc.strerror}") from None
    os.close(handle)
    try:
        _copy_sqlite(path, target)
    except sqlite3.Error as exc:
        target.unlink(missing_ok=True)
        raise DatabaseError(f"cannot back {path} up: {exc}") from None


def upgrade_with_backup(engine: Engine) -> tuple[str | None, str, Path | None]:
    """Back a SQLite file up, then migrate to head; return (from, to, backup path)."""
    before = current_revision(engine)
    head = head_revision()
    backup = None
    path = sqlite_path(engine.url)
    if before != head and path is not None and path.exists():
        backup = backup_sqlite(path, before)
    if before != head:
        upgrade(engine)
    return before, head, backup


def _describe(url: URL) -> str:
    path = sqlite_path(url)
    if path is not None:
        return str(path)
    if is_sqlite_memory(url):
        return "the in-memory database"
    return url.render_as_string(hide_password=True)


def _first_line(exc: Exception) -> str:
    return str(getattr(exc, "orig", exc)).strip().splitlines()[0]
