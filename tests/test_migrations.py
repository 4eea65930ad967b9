"""The alembic-owned schema: created at head, old schemas refused, upgrades backed up."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext

from campaign import db
from campaign.errors import DatabaseError, SchemaError
from campaign.events import Audience, NewEvent, UmpireNoted
from campaign.store import EventStore, database_revisions, metadata, upgrade_database
from tests.conftest import reset_postgres


def test_a_new_database_is_created_at_head(backend_url: str) -> None:
    store = EventStore.open(backend_url)
    try:
        assert db.current_revision(store.engine) == db.head_revision() == "0007"
        assert db.head_revision() == db.HEAD_REVISION  # the fast open's revision (issue 19)
    finally:
        store.close()


def test_store_tables_match_the_migrated_schema(backend_url: str) -> None:
    """The tables store.py declares are exactly what the migrations build."""
    store = EventStore.open(backend_url)
    try:
        with store.engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), metadata)
        assert diffs == []
    finally:
        store.close()


def old_sqlite(path: Path, revision: str = "0001") -> None:
    """Build a database at `revision` holding one campaign, as an old umpire left it."""
    engine = db.make_engine(db.normalize_url(str(path)))
    db.upgrade(engine, revision)
    engine.dispose()
    raw = sqlite3.connect(path)
    raw.execute(
        "INSERT INTO campaigns (name, seed, active_branch, created_at) "
        "VALUES ('old', 's', 'main', '2026-01-01 00:00:00')"
    )
    raw.execute(
        "INSERT INTO streams (campaign_id, branch, parent_id, fork_version, created_at) "
        "VALUES (1, 'main', NULL, 0, '2026-01-01 00:00:00')"
    )
    raw.commit()
    raw.close()


def test_an_old_schema_is_refused_naming_the_upgrade_command(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_sqlite(path)
    with pytest.raises(
        SchemaError, match=r"revision 0001 but this umpire needs 0007: run `umpire db upgrade`"
    ):
        EventStore.open(str(path))
    assert database_revisions(str(path)) == ("0001", "0007")


def test_upgrade_backs_the_sqlite_file_up_first(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_sqlite(path)
    before, after, backup = upgrade_database(str(path))
    assert (before, after) == ("0001", "0007")
    assert backup is not None
    assert backup.parent == tmp_path
    assert backup.name.startswith("old.db.0001.")
    copy = sqlite3.connect(backup)
    assert copy.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
    assert copy.execute("SELECT name FROM campaigns").fetchall() == [("old",)]
    copy.close()
    store = EventStore.open(str(path))
    try:
        lineage = store.lineage("old", "main")
        store.append(lineage, 0, [NewEvent(UmpireNoted(text="after"), Audience.everyone(), 0)])
        assert len(list(store.read(lineage))) == 1
    finally:
        store.close()
    assert upgrade_database(str(path)) == ("0007", "0007", None)


def old_postgres(pg_url: str, revision: str) -> None:
    """Leave the PostgreSQL test database empty at schema `revision`."""
    reset_postgres(pg_url)
    engine = sa.create_engine(pg_url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "DROP TABLE IF EXISTS notifications, player_contacts, player_secrets, snapshots, "
            "events, streams, campaigns, alembic_version CASCADE"
        )
    db.upgrade(engine, revision)
    engine.dispose()


def test_postgres_upgrade_from_0001(pg_url: str) -> None:
    old_postgres(pg_url, "0001")
    with pytest.raises(SchemaError, match="umpire db upgrade"):
        EventStore.open(pg_url)
    assert upgrade_database(pg_url) == ("0001", "0007", None)
    EventStore.open(pg_url).close()


OLD_SECRET = (
    "INSERT INTO player_secrets (campaign_id, player, kdf, salt, digest, issued_at, rotations) "
    "VALUES (1, 'red', 'scrypt:n=16384,r=8,p=1', 'aa', 'bb', '2026-01-01 00:00:00', 2)"
)


def secret_rows(engine: sa.Engine) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        columns = [c["name"] for c in sa.inspect(conn).get_columns("player_secrets")]
        wanted = [c for c in ("player", "salt", "rotations", "signing_key") if c in columns]
        rows = conn.exec_driver_sql(f"SELECT {', '.join(wanted)} FROM player_secrets").all()
    return [tuple(row) for row in rows]


def test_0004_keeps_older_secrets_without_a_signing_key(tmp_path: Path) -> None:
    """Secrets issued before 0004 survive the upgrade, with no signing key until rotated."""
    path = tmp_path / "old.db"
    old_sqlite(path, "0003")
    raw = sqlite3.connect(path)
    raw.execute(OLD_SECRET)
    raw.commit()
    raw.close()
    with pytest.raises(SchemaError, match=r"revision 0003 but this umpire needs 0007"):
        EventStore.open(str(path))
    before, after, backup = upgrade_database(str(path))
    assert (before, after) == ("0003", "0007")
    assert backup is not None
    assert backup.name.startswith("old.db.0003.")
    store = EventStore.open(str(path))
    try:
        assert secret_rows(store.engine) == [("red", "aa", 2, None)]
    finally:
        store.close()


def downgrade(engine: sa.Engine, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS_DIR))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, revision)


def test_0004_downgrades_and_upgrades_again(backend_url: str) -> None:
    store = EventStore.open(backend_url)
    try:
        store.create_campaign("old", seed="s")
        with store.engine.begin() as conn:
            conn.exec_driver_sql(OLD_SECRET)
            conn.exec_driver_sql("UPDATE player_secrets SET signing_key = 'cc'")
        assert secret_rows(store.engine) == [("red", "aa", 2, "cc")]
        downgrade(store.engine, "0003")
        assert db.current_revision(store.engine) == "0003"
        assert secret_rows(store.engine) == [("red", "aa", 2)]
        db.upgrade(store.engine)
        assert secret_rows(store.engine) == [("red", "aa", 2, None)]
    finally:
        store.close()


def test_postgres_upgrade_from_0003_keeps_secrets(pg_url: str) -> None:
    old_postgres(pg_url, "0003")
    engine = sa.create_engine(pg_url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(
                "INSERT INTO campaigns (name, seed, active_branch, created_at) "
                "VALUES ('old', 's', 'main', '2026-01-01 00:00:00+00')"
            )
            conn.exec_driver_sql(OLD_SECRET)
        with pytest.raises(SchemaError, match="revision 0003 but this umpire needs 0007"):
            EventStore.open(pg_url)
        assert upgrade_database(pg_url) == ("0003", "0007", None)
        assert secret_rows(engine) == [("red", "aa", 2, None)]
    finally:
        engine.dispose()
    EventStore.open(pg_url).close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    EventStore.open(str(path)).close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE alembic_version SET version_num = '0099'")
    raw.commit()
    raw.close()
    with pytest.raises(SchemaError, match="newer than this umpire knows"):
        EventStore.open(str(path))


def test_a_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE accounts (id INTEGER)")
    raw.close()
    with pytest.raises(DatabaseError, match="not an umpire database"):
        EventStore.open(str(path))


def test_read_commands_never_create_a_database(tmp_path: Path) -> None:
    path = tmp_path / "missing.db"
    with pytest.raises(DatabaseError, match="no database at"):
        EventStore.open(str(path), create=False)
    assert not path.exists()
    with pytest.raises(DatabaseError, match="folder"):
        EventStore.open(str(tmp_path / "nope" / "x.db"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("umpire.db", "sqlite:///umpire.db"),
        ("sqlite://", "sqlite://"),
        ("postgres://u@h/d", "postgresql+psycopg://u@h/d"),
        ("postgresql+psycopg://u@h/d", "postgresql+psycopg://u@h/d"),
    ],
)
def test_database_urls(text: str, expected: str) -> None:
    assert db.normalize_url(text).render_as_string(hide_password=False) == expected


@pytest.mark.parametrize("text", ["", "mysql://u@h/d", "http://[bad"])
def test_bad_database_urls(text: str) -> None:
    with pytest.raises(DatabaseError):
        db.normalize_url(text)


def test_0005_drops_unbound_snapshots_and_downgrades(backend_url: str, tmp_path: Path) -> None:
    """Snapshots saved before 0005 are bound to no chain hash: the upgrade deletes them, and
    the campaign then folds from its log (issue 13)."""
    store = EventStore.open(backend_url)
    try:
        store.create_campaign("old", seed="s")
        downgrade(store.engine, "0004")
        with store.engine.begin() as conn:
            conn.exec_driver_sql(
                "INSERT INTO snapshots (stream_id, version, projection, projection_version, "
                "turn, state, created_at) VALUES (1, 1, 'campaign', 1, 0, '{}', "
                "'2026-01-01 00:00:00')"
            )
        db.upgrade(store.engine)
        assert db.current_revision(store.engine) == "0007"
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT COUNT(*) FROM snapshots").scalar_one() == 0
            columns = {c["name"] for c in sa.inspect(conn).get_columns("snapshots")}
        assert {"chain_hash", "digest"} <= columns
        downgrade(store.engine, "0004")
        with store.engine.connect() as conn:
            columns = {c["name"] for c in sa.inspect(conn).get_columns("snapshots")}
        assert "chain_hash" not in columns
    finally:
        db.upgrade(store.engine)  # the PostgreSQL database is shared by the session's tests
        store.close()


def test_0007_keeps_old_campaigns_on_their_plain_chain(backend_url: str, tmp_path: Path) -> None:
    """Campaigns made before chain keys come through the upgrade with none (NULL), and go on
    verifying and appending on their plain hashes; new ones get a key. Down and up again, an
    old campaign loses nothing."""
    from campaign.service import CampaignService, plan_campaign
    from tests.test_hidden_chain import as_before_0007

    service = CampaignService.open(backend_url, create=True)
    try:
        service.new_campaign(plan_campaign("old", ["red", "blue"], seed="s"))
        as_before_0007(service.store.engine)
        downgrade(service.store.engine, "0006")
        with service.store.engine.connect() as conn:
            columns = {c["name"] for c in sa.inspect(conn).get_columns("campaigns")}
        assert "chain_key" not in columns
        db.upgrade(service.store.engine)
        assert service.store.chain_key("old") is None
        lineage = service.target("old")
        assert service.verify(lineage).ok
        service.note(lineage, "after the upgrade", Audience.everyone())
        assert service.verify(lineage).ok
        service.new_campaign(plan_campaign("new", ["red", "blue"], seed="s"))
        key = service.store.chain_key("new")
        assert key is not None
        assert len(bytes.fromhex(key)) == 32
        assert service.verify(service.target("new")).ok
    finally:
        db.upgrade(service.store.engine)  # the PostgreSQL database is shared by the session's tests
        service.close()
