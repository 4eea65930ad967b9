"""The tamper suite (issue 13, finding 2): random edits of a campaign database, each caught.

A campaign is played once into a SQLite file: two players with secrets, a turn of orders
resolved, a rewind onto a second branch with an event of its own, the seed revealed, and the
receipts both players were handed on both branches. Then each of `MUTATIONS` seeded random
edits is made to a fresh copy, as someone holding the file could make it, across every table
and column: a changed value, a deleted or copied row, an event appended with its hash
recomputed, an edit with the whole chain recomputed after it, a cut tail.

Each edit must be caught — the database refuses it (a constraint), the umpire refuses to open
it, `verify` (of every branch) finds it, or a receipt no longer holds — or be one of the
edits docs/security.md lists as harmless by design, or an event appended after every receipt
handed out (the next receipt covers it). The figures printed at the end are those in
docs/security.md.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa

from campaign.errors import UmpireError
from campaign.hashing import GENESIS_HASH, ChainHasher, chain_hash, chain_hasher
from campaign.players import PlayerSecrets
from campaign.service import CampaignService, plan_campaign
from campaign.store import metadata
from tests.conftest import CountingNonces, FixedClock
from tests.test_strategic import TINY_MAP

MUTATIONS = 300
SEED = 13

# Edits nothing can catch and nothing needs to (docs/security.md, "Harmless by design").
HARMLESS = {
    ("events", "recorded_at"): "bookkeeping outside the chain; nothing is decided on it",
    ("events", "position"): "only its order counts, and verify checks it",
    ("campaigns", "created_at"): "bookkeeping",
    ("streams", "created_at"): "bookkeeping",
    ("snapshots", "created_at"): "bookkeeping",
    ("snapshots", "id"): "a row id means nothing",
    ("snapshots", "delete"): "derived data: the log is folded instead",
    ("snapshots", "stream_id"): "a snapshot no branch reaches is never served",
    ("player_secrets", "issued_at"): "bookkeeping",
    ("player_secrets", "rotations"): "a counter the umpire reads",
    ("player_secrets", "id"): "a row id means nothing",
}
# Edits `verify` and the receipts held cannot see, by design (docs/security.md, "Receipts").
OUTSIDE = {
    ("events", "append"): "after every receipt: caught by the next package's receipt",
}


def _build(folder: Path) -> tuple[Path, list[tuple[str, bytes]]]:
    """Play the base campaign into a SQLite file; return it and the receipts handed out."""
    (folder / "tiny.toml").write_text(TINY_MAP)
    path = folder / "base.db"
    service = CampaignService.open(
        str(path), clock=FixedClock(), create=True, nonces=CountingNonces()
    )
    try:
        plan = plan_campaign("g", ["red", "blue"], seed="s", map_spec=str(folder / "tiny.toml"))
        service.new_campaign(plan)
        keys = PlayerSecrets(service.store)
        keys.issue("g", "red")
        keys.issue("g", "blue")
        main = service.target("g")
        for player in ("red", "blue"):
            service.submit_orders(main, player, service.orders_template(main, player))
        service.resolve_turn(main, expected_turn=1)
        service.reveal_seed(main, early=True)
        receipts = [
            (f"main-{p}", service.receipt(main, p).encode().encode()) for p in ("red", "blue")
        ]
        side = service.store.lineage("g", service.rewind(main, to_turn=0).name)
        service.submit_orders(side, "red", service.orders_template(side, "red"))
        receipts += [(f"side-{p}", service.receipt(side, p).encode().encode()) for p in ("red",)]
        service.use_branch("g", "main")
    finally:
        service.close()
    conn = sqlite3.connect(path)  # one self-contained file to copy: no write-ahead log
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    return path, receipts


Mutation = Callable[[sqlite3.Connection, random.Random], str]


def _columns(table: str) -> list[str]:
    return [c.name for c in metadata.tables[table].c]


def _changed(value: object, rng: random.Random) -> object:
    """Return a different value of the same kind, as a careless or crafty editor would."""
    if isinstance(value, int):
        return value + rng.choice([-1, 1, 7, -value - 1])
    if value is None:
        return "aa" * 32
    text = str(value)
    if not text:
        return "x"
    i = rng.randrange(len(text))
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    if digits and rng.random() < 0.5:
        i = rng.choice(digits)
        return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1 :]
    replacement = "0" if text[i] != "0" else "1"
    return text[:i] + replacement + text[i + 1 :]


def _rows(conn: sqlite3.Connection, table: str) -> list[int]:
    key = "position" if table == "events" else "rowid"
    return [r[0] for r in conn.execute(f"SELECT {key} FROM {table}")]


def _edit(conn: sqlite3.Connection, rng: random.Random, table: str) -> str:
    """Change one column of one row."""
    key = "position" if table == "events" else "rowid"
    row = rng.choice(_rows(conn, table))
    column = rng.choice(_columns(table))
    (value,) = conn.execute(f"SELECT {column} FROM {table} WHERE {key} = ?", (row,)).fetchone()
    if isinstance(metadata.tables[table].c[column].type, sa.DateTime):
        new: object = f"{rng.randint(2020, 2030)}{str(value)[4:]}"  # a time that still reads
    else:
        new = _changed(value, rng)
    conn.execute(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (new, row))
    return column


def _delete(conn: sqlite3.Connection, rng: random.Random, table: str) -> str:
    key = "position" if table == "events" else "rowid"
    conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (rng.choice(_rows(conn, table)),))
    return "delete"


def _copy(conn: sqlite3.Connection, rng: random.Random, table: str) -> str:
    columns = [c for c in _columns(table) if c not in ("id", "position")]
    key = "position" if table == "events" else "rowid"
    listed = ", ".join(columns)
    conn.execute(
        f"INSERT INTO {table} ({listed}) SELECT {listed} FROM {table} WHERE {key} = ?",
        (rng.choice(_rows(conn, table)),),
    )
    return "copy"


def _forgers_hasher(conn: sqlite3.Connection) -> ChainHasher:
    """The chain as the file's holder computes it: he holds the campaign's chain key."""
    (key,) = conn.execute("SELECT chain_key FROM campaigns").fetchone()
    return chain_hasher(key)


def _rechain(conn: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    """Recompute every stream's hashes in version order, as a forger covering an edit."""
    previous: dict[object, str] = {}
    hasher = _forgers_hasher(conn)
    for position, stream, version, type_, schema, payload, audience, actor, turn in rows:
        digest = hasher(
            previous.get(stream, GENESIS_HASH),
            int(str(stream)),
            int(str(version)),
            str(type_),
            int(str(schema)),
            str(audience),
            str(actor),
            int(str(turn)),
            str(payload),
        )
        previous[stream] = digest
        conn.execute("UPDATE events SET hash = ? WHERE position = ?", (digest, position))


_CHAIN_COLUMNS = (
    "position, stream_id, version, type, schema_version, payload, audience, actor, turn"
)


def _rewrite_history(conn: sqlite3.Connection, rng: random.Random) -> str:
    """Edit one payload, then recompute the chain after it (snapshots dropped, as derived)."""
    row = rng.choice(_rows(conn, "events"))
    (payload,) = conn.execute("SELECT payload FROM events WHERE position = ?", (row,)).fetchone()
    conn.execute("UPDATE events SET payload = ? WHERE position = ?", (_changed(payload, rng), row))
    conn.execute("DELETE FROM snapshots")
    main_only = conn.execute(
        f"SELECT {_CHAIN_COLUMNS} FROM events WHERE stream_id = 1 ORDER BY version"
    ).fetchall()
    _rechain(conn, main_only)
    return "rewrite"


def _truncate(conn: sqlite3.Connection, rng: random.Random) -> str:
    """Cut the main branch's last events (and the snapshots past the cut)."""
    (head,) = conn.execute("SELECT MAX(version) FROM events WHERE stream_id = 1").fetchone()
    keep = head - rng.randint(1, 6)
    conn.execute("DELETE FROM events WHERE stream_id = 1 AND version > ?", (keep,))
    conn.execute("DELETE FROM snapshots WHERE stream_id = 1 AND version > ?", (keep,))
    return "truncate"


def _append(conn: sqlite3.Connection, rng: random.Random) -> str:
    """Append a forged event to the main branch with a correct hash."""
    version, hash_ = conn.execute(
        "SELECT version, hash FROM events WHERE stream_id = 1 ORDER BY version DESC LIMIT 1"
    ).fetchone()
    payload = f'{{"text":"forged {rng.randrange(1000)}"}}'
    audience = rng.choice(["*", "umpire", "|red|"])
    hasher = _forgers_hasher(conn)
    digest = hasher(hash_, 1, version + 1, "umpire_noted", 1, audience, "umpire", 2, payload)
    conn.execute(
        "INSERT INTO events (stream_id, version, type, schema_version, payload, audience, "
        "actor, turn, recorded_at, hash) VALUES (1, ?, 'umpire_noted', 1, ?, ?, 'umpire', 2, "
        "'2026-01-01 00:00:00.000000', ?)",
        (version + 1, payload, audience, digest),
    )
    return "append"


# Every table, the log most often: most of what matters is there.
TABLES = (
    ["events"] * 4
    + ["snapshots"] * 2
    + [
        "campaigns",
        "streams",
        "player_secrets",
        "alembic_version",
    ]
)


def _mutate(conn: sqlite3.Connection, rng: random.Random) -> tuple[str, str]:
    """Make one random edit; return (table, what was edited)."""
    table = rng.choice(TABLES)
    if table == "alembic_version":
        (value,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        conn.execute("UPDATE alembic_version SET version_num = ?", (_changed(value, rng),))
        return table, "version_num"
    roll = rng.random()
    if table == "events" and roll < 0.25:
        kind = rng.choice([_rewrite_history, _truncate, _append])
        return table, kind(conn, rng)
    if roll < 0.85:
        return table, _edit(conn, rng, table)
    if roll < 0.95:
        return table, _delete(conn, rng, table)
    return table, _copy(conn, rng, table)


def _caught(path: Path, receipts: list[tuple[str, bytes]]) -> str | None:
    """Return what caught the edit in the database at `path`, or None if nothing did."""
    try:
        service = CampaignService.open(str(path))
    except UmpireError:
        return "refused on open"
    try:
        if [c.name for c in service.campaigns()] != ["g"]:
            return "receipts"  # each names campaign g: none holds any more
        for branch in service.store.branches("g"):
            if not service.verify(service.store.lineage("g", branch.name)).ok:
                return "verify"
        checks = service.check_receipts(receipts)
        if not all(c.holds for c in checks[:2]):  # the main branch's: in use
            return "receipts"
        if not all(c.ok and not c.credentials_changed for c in checks[2:]):
            return "receipts"
    except UmpireError:
        return "refused with a message"
    finally:
        service.close()
    return None


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, bytes]]]:
    return _build(tmp_path_factory.mktemp("tamper"))


def test_the_untouched_database_passes(base: tuple[Path, list[tuple[str, bytes]]]) -> None:
    path, receipts = base
    assert _caught(path, receipts) is None


def test_every_edit_is_caught_or_documented(
    base: tuple[Path, list[tuple[str, bytes]]], tmp_path: Path
) -> None:
    path, receipts = base
    rng = random.Random(SEED)
    outcomes: Counter[str] = Counter()
    tables: Counter[str] = Counter()
    unexplained: list[tuple[str, str]] = []
    uncaught: Counter[str] = Counter()
    by_receipts: Counter[str] = Counter()
    for n in range(MUTATIONS):
        copy = tmp_path / f"m{n}.db"
        shutil.copyfile(path, copy)
        conn = sqlite3.connect(copy)
        try:
            table, what = _mutate(conn, rng)
            conn.commit()
        except sqlite3.DatabaseError:
            outcomes["refused by the schema"] += 1
            conn.close()
            copy.unlink()
            continue
        conn.close()
        tables[table] += 1
        caught = _caught(copy, receipts)
        copy.unlink()
        if caught is not None:
            outcomes[caught] += 1
            if caught == "receipts":
                by_receipts[f"{table}.{what}"] += 1
        elif (table, what) in HARMLESS:
            outcomes["harmless by design"] += 1
            uncaught[f"{table}.{what}"] += 1
        elif (table, what) in OUTSIDE:
            outcomes["outside what the receipts cover (documented)"] += 1
            uncaught[f"{table}.{what}"] += 1
        else:
            unexplained.append((table, what))
    print(f"\n{MUTATIONS} edits: {dict(sorted(outcomes.items()))}; by table {dict(tables)}")
    print(f"not caught, by design: {dict(sorted(uncaught.items()))}")
    print(f"caught by the receipts: {dict(sorted(by_receipts.items()))}")
    assert unexplained == [], unexplained
    caught = sum(v for k, v in outcomes.items() if k not in HARMLESS_OUTCOMES)
    assert caught >= MUTATIONS * 0.7


HARMLESS_OUTCOMES = ("harmless by design", "outside what the receipts cover (documented)")


def test_the_chain_hash_is_the_one_stored_campaigns_carry() -> None:
    """The chain hash, built faster since (issue 19), is byte for byte the one every stored
    event carries: vectors from the code before, non-ASCII text and an empty payload."""
    text = '{"text":"Ærø, 東京 ✓"}'
    assert (
        chain_hash(GENESIS_HASH, 7, "umpire_noted", 1, "|red|blue|", "umpire", 3, text)
        == "2a1f6b44c662e87375f0da54ed0c7f74051d53eb2c75a74d4fc2ee4108e4671c"
    )
    assert (
        chain_hash("ab" * 32, 12345, "unit_moved", 2, "*", "red", 44, "")
        == "d3b6b4dd67bf9a49c8b6f91cb636c7cb1d1b3d636a50d9dc3a4d08633a8df17d"
    )


def test_the_salted_chain_hash_is_pinned() -> None:
    """A keyed campaign's chain hash (migration 0007), pinned: a change of the salt's
    derivation or of where it goes would leave every such campaign unverifiable."""
    key = "5a" * 32
    text = '{"text":"Ærø, 東京 ✓"}'
    hasher = chain_hasher(key)
    assert (
        hasher(GENESIS_HASH, 1, 7, "umpire_noted", 1, "|red|blue|", "umpire", 3, text)
        == "cec50268c319a682d55ba9ab6eb6f8bf5786951f9561df35491ebd7dc0ef54d8"
    )
    assert (
        hasher("ab" * 32, 3, 12345, "unit_moved", 2, "*", "red", 44, "")
        == "4dc06702c9c7acc14205d194ee8634cb880fa42be09220f1823451f3e644da18"
    )
    # The salt is HMAC-SHA256 as the standard library computes it, where the hash says.
    salt = hmac.new(
        bytes.fromhex(key), b"stellar-umpire/chain-salt/v1\x1f1\x1f7", hashlib.sha256
    ).hexdigest()
    assert chain_hash(
        GENESIS_HASH, 7, "umpire_noted", 1, "|red|blue|", "umpire", 3, text, salt
    ) == hasher(GENESIS_HASH, 1, 7, "umpire_noted", 1, "|red|blue|", "umpire", 3, text)
    # The salt is the stream's and the version's: another stream, another hash.
    assert hasher(GENESIS_HASH, 2, 7, "umpire_noted", 1, "|red|blue|", "umpire", 3, text) != (
        hasher(GENESIS_HASH, 1, 7, "umpire_noted", 1, "|red|blue|", "umpire", 3, text)
    )


def test_verify_finds_the_same_through_the_light_reads(
    base: tuple[Path, list[tuple[str, bytes]]], tmp_path: Path
) -> None:
    """`umpire verify` reads the log through `SqliteReads` (a command that reads, issue 19):
    for every edit it reports what it reports through the full store, problem and position
    alike, so the faster way catches every edit the other catches."""
    path, _ = base
    rng = random.Random(SEED + 1)
    compared = failed = 0
    for n in range(MUTATIONS // 3):
        copy = tmp_path / f"v{n}.db"
        shutil.copyfile(path, copy)
        conn = sqlite3.connect(copy)
        try:
            _mutate(conn, rng)
            conn.commit()
        except sqlite3.DatabaseError:
            continue
        finally:
            conn.close()
        try:
            full = CampaignService.open(str(copy))
        except UmpireError:
            continue
        light = CampaignService.open_to_read(str(copy))
        try:
            for branch in full.store.branches("g"):
                reports = []
                for service in (full, light):
                    try:
                        reports.append(service.verify(service.store.lineage("g", branch.name)))
                    except UmpireError as exc:
                        reports.append(type(exc))
                assert reports[0] == reports[1], (n, branch.name)
                compared += 1
                failed += not getattr(reports[0], "ok", False)
        except UmpireError:
            continue  # the edit broke the campaign's rows: neither gets as far as verify
        finally:
            full.close()
            light.close()
    assert compared >= MUTATIONS // 3
    assert failed >= 20
