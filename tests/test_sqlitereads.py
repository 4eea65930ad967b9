"""Issue 19: read commands read a SQLite file at the schema head through `sqlite3` alone.

`SqliteReads` must return exactly what `EventStore` returns for the same database (rows,
filters, the player's audience boundary, snapshots and the chain checks on them), a read
command must not import SQLAlchemy, and anything but a SQLite file at head (another revision,
memory, PostgreSQL, a file that is no database) must take the full store's path.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from campaign.autoplay import autoplay
from campaign.changes import changes_since
from campaign.events import (
    UMPIRE,
    Audience,
    MapLoaded,
    RecordedEvent,
    TurnEnded,
    UmpireNoted,
)
from campaign.playeraccess import player_access
from campaign.players import PlayerSecrets
from campaign.projections import PROJECTION_NAME, PROJECTION_VERSION
from campaign.service import CampaignService, plan_campaign
from campaign.sqlitereads import SqliteReads, sqlite_file
from campaign.store import EventStore
from campaign.storetypes import Lineage, Store
from campaign.strategic import unit_order
from tests.conftest import CountingNonces, FixedClock, reset_postgres

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ("red", "blue")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A 2-player campaign of 4 turns with a branch rewound to turn 2 and played on."""
    url = f"sqlite:///{tmp_path_factory.mktemp('reads') / 'reads.db'}"
    service = CampaignService.open(url, clock=FixedClock(), create=True, nonces=CountingNonces())
    try:
        service.new_campaign(plan_campaign("reads", PLAYERS, seed="reads-19", map_spec="classic"))
        main = service.target("reads")
        autoplay(service, main, 4, 19)
        service.rewind(main, 2, new_branch="again")
        autoplay(service, service.target("reads", "again"), 1, 20)
        service.use_branch("reads", "main")
    finally:
        service.close()
    return url


def _both(url: str) -> tuple[EventStore, SqliteReads]:
    reads = SqliteReads.open(url, FixedClock())
    assert reads is not None
    return EventStore.open(url, FixedClock(), create=False), reads


def _read_calls(store: Store, lineage: Lineage) -> list[object]:
    """Every read the service makes of a store, with each filter, on one branch."""
    head = store.head(lineage)[0]
    return [
        store.head(lineage),
        store.hash_at(lineage, 1),
        store.hash_at(lineage, head // 2),
        store.hash_at(lineage, head + 1),
        list(store.read(lineage)),
        list(store.read(lineage, after_version=head // 3, upto_version=head // 2)),
        list(store.read(lineage, upto_turn=2)),
        list(store.read(lineage, turn=1, types=[TurnEnded.TYPE, UmpireNoted.TYPE])),
        *(list(store.read(lineage, visible_to=p)) for p in (*PLAYERS, "nobody", "r%d", "re_")),
        store.replay(lineage),
        store.replay(lineage, head // 2, {UmpireNoted.TYPE, TurnEnded.TYPE}),
        list(store.read_stored(lineage)),
        list(store.read_chain(lineage)),
        [store.last_version_of_turn(lineage, t) for t in range(6)],
        store.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION, None),
        store.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION, head // 2),
        store.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION + 1, None),
        store.snapshots_of(lineage),
    ]


def test_the_light_reads_return_the_full_stores_rows(played: str) -> None:
    full, light = _both(played)
    try:
        assert light.campaigns() == full.campaigns()
        assert light.resolve_campaign(None) == full.resolve_campaign(None) == "reads"
        assert light.active_branch("reads") == full.active_branch("reads")
        assert light.campaign_seed("reads") == full.campaign_seed("reads")
        assert light.branches("reads") == full.branches("reads")
        assert light.database == full.database
        for branch in ("main", "again"):
            lineage = full.lineage("reads", branch)
            assert light.lineage("reads", branch) == lineage
            assert len(lineage.segments) == (2 if branch == "again" else 1)
            assert _read_calls(light, lineage) == _read_calls(full, lineage)
            assert light.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION, None)
    finally:
        full.close()
        light.close()


def test_the_light_reads_refuse_as_the_full_store_does(played: str) -> None:
    full, light = _both(played)
    try:
        for store in (full, light):
            with pytest.raises(Exception, match="no campaign named 'other'") as refused:
                store.resolve_campaign("other")
            assert type(refused.value).__name__ == "CampaignNotFoundError"
            with pytest.raises(Exception, match="has no branch 'gone'") as refused:
                store.lineage("reads", "gone")
            assert type(refused.value).__name__ == "BranchNotFoundError"
    finally:
        full.close()
        light.close()


def test_a_service_on_the_light_reads_answers_as_on_the_full_store(played: str) -> None:
    full = CampaignService.open(played, clock=FixedClock())
    light = CampaignService.open_to_read(played, clock=FixedClock())
    assert isinstance(light.store, SqliteReads)
    try:
        for branch in ("main", "again"):
            lineage = full.target("reads", branch)
            for service in (full, light):
                service.folded.clear()  # each answers from its own store, nothing kept
            assert light.status(lineage) == full.status(lineage)
            assert light.turn_status(lineage) == full.turn_status(lineage)
            assert light.log(lineage, limit=20) == full.log(lineage, limit=20)
            assert light.battles(lineage) == full.battles(lineage)
            for player in PLAYERS:
                assert light.report(lineage, player) == full.report(lineage, player)
                assert light.report(lineage, player, 1) == full.report(lineage, player, 1)
                assert light.log(lineage, viewer=player) == full.log(lineage, viewer=player)
                assert light.orders_template(lineage, player) == full.orders_template(
                    lineage, player
                )
            for viewer in (UMPIRE, *PLAYERS):
                assert light.state_at(lineage, 2, viewer) == full.state_at(lineage, 2, viewer)
        assert light.verify(full.target("reads")) == full.verify(full.target("reads"))
    finally:
        full.close()
        light.close()


def test_the_umpires_last_events_are_read_alone(played: str) -> None:
    """`umpire log --limit N` reads the branch's last N events, not the whole log before
    dropping all but them (issue 19), and they are the whole log's last N, on a branch too."""
    service = CampaignService.open_to_read(played, clock=FixedClock())
    decoded: list[int] = []
    read = service.store.read

    def counting(*args: Any, **kwargs: Any) -> Iterator[RecordedEvent]:
        for recorded in read(*args, **kwargs):
            decoded.append(recorded.version)
            yield recorded

    try:
        for branch in ("main", "again"):
            lineage = service.target("reads", branch)
            whole = service.log(lineage)
            decoded.clear()
            service.store.read = counting  # type: ignore[method-assign]
            try:
                assert service.log(lineage, limit=5) == whole[-5:]
                assert decoded == [e.version for e in whole[-5:]]
                assert service.log(lineage, limit=len(whole) + 9) == whole
                assert (
                    service.log(lineage, turn=1, limit=2) == [e for e in whole if e.turn == 1][-2:]
                )
            finally:
                service.store.read = read  # type: ignore[method-assign]
    finally:
        service.close()


def test_an_orders_template_reads_not_the_umpires_map(played: str) -> None:
    """A player's orders template takes his entry hex from the public chart: it neither reads
    nor parses the umpire's map file, 100 kB of TOML on a 600-star map (issue 19)."""
    service = CampaignService.open_to_read(played, clock=FixedClock())
    asked: list[Sequence[str]] = []
    read = service.store.read

    def noting(*args: Any, **kwargs: Any) -> Iterator[RecordedEvent]:
        asked.append(kwargs.get("types", ()))
        return read(*args, **kwargs)

    try:
        lineage = service.target("reads")
        before = {player: service.orders_template(lineage, player) for player in PLAYERS}
        service.store.read = noting  # type: ignore[method-assign]
        for player in PLAYERS:
            assert service.orders_template(lineage, player) == before[player]
        assert not [types for types in asked if MapLoaded.TYPE in types]
    finally:
        service.store.read = read  # type: ignore[method-assign]
        service.close()


def test_a_write_on_the_light_reads_goes_through_the_full_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'write.db'}"
    CampaignService.open(url, create=True).close()
    service = CampaignService.open_to_read(url, clock=FixedClock())
    try:
        service.new_campaign(plan_campaign("w", PLAYERS, seed="w", map_spec="classic"))
        lineage = service.target("w")
        service.note(lineage, "written", Audience.everyone())
        assert service.log(lineage)[-1].event == UmpireNoted(text="written")
    finally:
        service.close()


def test_the_light_reads_list_the_same_secret_holders(tmp_path: Path) -> None:
    """`umpire player list` reads who holds a secret through sqlite3 alone: the same players,
    times, rotations and signing keys as the full store (issue 19)."""
    url = f"sqlite:///{tmp_path / 'keys.db'}"
    service = CampaignService.open(url, clock=FixedClock(), create=True)
    try:
        service.new_campaign(plan_campaign("k", ("red", "blue", "green"), seed="k"))
        keys = PlayerSecrets(service.store)
        keys.issue("k", "blue")
        keys.issue("k", "red")
        keys.rotate("k", "red")
    finally:
        service.close()
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:  # a secret from before 0004
        conn.execute("UPDATE player_secrets SET signing_key = NULL WHERE player = 'blue'")
    full, light = _both(url)
    try:
        held = full.secret_holders("k")
        assert [(h.player, h.rotations, h.signs_orders) for h in held] == [
            ("blue", 0, False),
            ("red", 1, True),
        ]
        assert all(h.issued_at.utcoffset() is not None for h in held)  # read back as UTC
        assert light.secret_holders("k") == held
        assert light.secret_holders("nobody") == full.secret_holders("nobody") == []
        assert player_access(light, "k") == PlayerSecrets(full).access("k")
    finally:
        full.close()
        light.close()


def test_only_a_sqlite_file_at_head_is_read_without_sqlalchemy(
    played: str, tmp_path: Path, pg_url: str
) -> None:
    assert sqlite_file("umpire.db") == Path("umpire.db")
    assert sqlite_file(played) == Path(played.removeprefix("sqlite:///"))
    for other in ("sqlite://", ":memory:", "sqlite:///x.db?mode=ro", "sqlite:///a%20b.db", pg_url):
        assert sqlite_file(other) is None
    assert SqliteReads.open(str(tmp_path / "missing.db")) is None
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    assert SqliteReads.open(str(junk)) is None
    older = tmp_path / "older.db"
    older.write_bytes(Path(played.removeprefix("sqlite:///")).read_bytes())
    with sqlite3.connect(older) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0005'")
    conn.close()
    assert SqliteReads.open(str(older)) is None
    with pytest.raises(Exception, match="umpire db upgrade"):
        CampaignService.open_to_read(str(older))  # the full store names the way out


def test_postgresql_is_read_through_the_full_store(pg_url: str) -> None:
    reset_postgres(pg_url)
    writer = CampaignService.open(pg_url, clock=FixedClock(), create=True)
    reader = CampaignService.open_to_read(pg_url)
    try:
        writer.new_campaign(plan_campaign("pg", PLAYERS, seed="pg-19", map_spec="classic"))
        assert isinstance(reader.store, EventStore)
        lineage = reader.target("pg")
        assert reader.status(lineage) == writer.status(lineage)
        assert reader.report(lineage, "red") == writer.report(lineage, "red")
    finally:
        reader.close()
        writer.close()


def test_a_read_command_imports_no_sqlalchemy(played: str) -> None:
    probe = (
        "import sys\n"
        "from cli import app\n"
        "for argv in (['status'], ['report', '--player', 'red'], ['log', '--limit', '5'],"
        " ['campaigns'], ['battles', 'list'], ['turn', 'status'], ['branches'],"
        " ['orders', 'template', '--player', 'red'], ['schedule', 'show'],"
        " ['map', 'show', '--as-player', 'red'], ['tech', 'list', '--player', 'red'],"
        " ['player', 'list']):\n"
        f"    app([*argv, '--db', {played!r}], standalone_mode=False)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'alembic'))\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "HEAVY []"


def test_a_report_from_his_events_read_once_is_what_his_views_say(played: str) -> None:
    """`report` folds his events read once: the same as `state_at` and `player_view` give."""
    service = CampaignService.open_to_read(played, clock=FixedClock())
    try:
        lineage = service.target("reads")
        for player in PLAYERS:
            seen = service.player_view(lineage, player)
            for turn in range(5):
                report = service.report(lineage, player, turn)
                at_end = service.state_at(lineage, turn, player)
                assert report.news == tuple(e for e in seen if e.turn == turn)
                assert (report.turn, report.empire) == (at_end.turn, at_end.empires.get(player))
                assert report.units == tuple(sorted(at_end.units.values(), key=unit_order))
                if turn > 0:
                    before = service.state_at(lineage, turn - 1, player)
                    assert report.changes == changes_since(before, at_end, player)
    finally:
        service.close()


def test_an_edited_snapshot_is_refused_by_the_light_reads_too(played: str, tmp_path: Path) -> None:
    """Issue 13's checks on snapshots hold on the light path: the same one is served."""
    edited = tmp_path / "edited.db"
    edited.write_bytes(Path(played.removeprefix("sqlite:///")).read_bytes())
    full, light = _both(str(edited))
    try:
        newest = light.snapshots_of(light.lineage("reads", "main"))[-1]
        with sqlite3.connect(edited) as conn:  # an edit that forgot the digest
            conn.execute("UPDATE snapshots SET state = state || ' ' WHERE id = ?", (newest.id,))
        conn.close()
        lineage = full.lineage("reads", "main")
        served = light.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION, None)
        assert served == full.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION, None)
        assert served is not None
        assert served.version < newest.version
    finally:
        full.close()
        light.close()
