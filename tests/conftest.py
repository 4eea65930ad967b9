"""Shared fixtures: the three store backends, and a scratch PostgreSQL database.

PostgreSQL tests never skip. When the server at UMPIRE_TEST_PG (default: the CI machine's
127.0.0.1:5432, user postgres, trust auth) cannot be reached they fail, loudly.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
import typer.testing
from sqlalchemy.engine import make_url

from campaign.service import CampaignService
from campaign.store import EventStore

PG_ADMIN_URL = os.environ.get(
    "UMPIRE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
BACKENDS = ["sqlite-memory", "sqlite-file", "postgresql"]

# typer builds an app's click command afresh on every `CliRunner.invoke`: for `umpire`'s
# whole app that is a tenth of a second or more, paid thousands of times by the suite (half
# the 44-turn campaigns' CLI time). The suite builds each app's command once; a command keeps
# no state between invocations (click makes a new context for each).
typer.testing._get_command = functools.cache(typer.testing._get_command)


class FixedClock:
    """A clock that ticks one second per reading, so stored times are reproducible."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def _admin_engine() -> sa.Engine:
    return sa.create_engine(make_url(PG_ADMIN_URL), isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """Create a scratch database on the PostgreSQL server; drop it after the session."""
    name = f"umpire_test_{os.getpid()}"
    admin = _admin_engine()
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL at {PG_ADMIN_URL} is unreachable ({exc.orig}); the store's contract "
            "tests must run against it. Start it or point UMPIRE_TEST_PG at a server.",
            pytrace=False,
        )
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as conn:
        conn.exec_driver_sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        )
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
    admin.dispose()


def reset_postgres(url: str) -> None:
    """Empty every umpire table (the schema stays at head)."""
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        tables = sa.inspect(conn).get_table_names()
        if "events" in tables:
            conn.exec_driver_sql(
                "TRUNCATE snapshots, events, streams, campaigns RESTART IDENTITY CASCADE"
            )
    engine.dispose()


@pytest.fixture
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database of the parametrised backend."""
    kind = request.param
    if kind == "sqlite-memory":
        return "sqlite://"
    if kind == "sqlite-file":
        return f"sqlite:///{tmp_path / 'umpire.db'}"
    url: str = request.getfixturevalue("pg_url")
    reset_postgres(url)
    return url


@pytest.fixture
def store(backend_url: str) -> Iterator[EventStore]:
    """An event store on an empty database of each backend."""
    opened = EventStore.open(backend_url, clock=FixedClock())
    yield opened
    opened.close()


@pytest.fixture
def service(backend_url: str) -> Iterator[CampaignService]:
    """A campaign service on an empty database of each backend."""
    opened = CampaignService.open(backend_url, clock=FixedClock(), create=True)
    yield opened
    opened.close()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that uses `backend_url` on all three backends."""
    if "backend_url" in metafunc.fixturenames:
        metafunc.parametrize("backend_url", BACKENDS, indirect=True)


class CountingNonces:
    """Commitment nonces that repeat from run to run, so a replayed campaign hashes the same.

    Only tests use this: the umpire draws every nonce from `secrets` (issue 13).
    """

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"{self.count:064x}"
