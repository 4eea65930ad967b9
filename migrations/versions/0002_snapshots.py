"""Snapshots: saved projection states that make state-at-turn fast.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create the snapshots table (derived data: never part of the hash chain)."""
    op.create_table(
        "snapshots",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("stream_id", BIG_ID, sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("projection", sa.String(64), nullable=False),
        sa.Column("projection_version", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint(
            "stream_id", "version", "projection", name="uq_snapshots_stream_version_projection"
        ),
    )


def downgrade() -> None:
    """Drop the snapshots table."""
    op.drop_table("snapshots")
