"""Snapshots bound to the hash chain (issue 13): the chain hash at their version, and a digest.

A snapshot is derived data. From this revision each one names the hash of the event at its
version and carries a digest over that hash and its own contents; the umpire serves a snapshot
only while both still match, and `umpire verify` refolds the log and compares every snapshot.
Snapshots saved before this revision are bound to nothing, so the upgrade deletes them: the
state is folded from the log until the next turn ends and saves a new one.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

# Tables this revision touches: snapshots.


def upgrade() -> None:
    """Delete the unbound snapshots; add snapshots.chain_hash and snapshots.digest."""
    op.execute("DELETE FROM snapshots")
    with op.batch_alter_table("snapshots") as batch:
        batch.add_column(sa.Column("chain_hash", sa.String(64), nullable=False))
        batch.add_column(sa.Column("digest", sa.String(64), nullable=False))


def downgrade() -> None:
    """Drop the two columns (SQLite rebuilds the table to drop a column)."""
    with op.batch_alter_table("snapshots") as batch:
        batch.drop_column("digest")
        batch.drop_column("chain_hash")
