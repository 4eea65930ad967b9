"""Alembic environment for stellar-umpire.

Migrations declare the tables they touch and never import the application's modules, so an
old migration keeps working whatever the code around it becomes (JupyterHub's rule).
The umpire's `db` module passes an open connection in `config.attributes["connection"]`;
the plain `alembic` command line works too, with `-x url=...` or `sqlalchemy.url`.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=None, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the connection we were given, or on a URL."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("give the database with -x url=... or sqlalchemy.url")
    engine = create_engine(url)
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("stellar-umpire migrations run online only")
run_migrations_online()
