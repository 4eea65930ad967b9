"""The event log: campaigns, streams (one per branch) and the append-only events table.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# SQLite only autoincrements an INTEGER PRIMARY KEY; PostgreSQL gets a BIGINT identity.
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create campaigns, streams and events."""
    op.create_table(
        "campaigns",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("seed", sa.Text(), nullable=False),
        sa.Column("active_branch", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "streams",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
        sa.Column("branch", sa.String(64), nullable=False),
        sa.Column("parent_id", BIG_ID, sa.ForeignKey("streams.id"), nullable=True),
        sa.Column("fork_version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("campaign_id", "branch", name="uq_streams_campaign_branch"),
    )
    op.create_table(
        "events",
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
    )
    op.create_index("ix_events_stream_turn", "events", ["stream_id", "turn"])


def downgrade() -> None:
    """Drop the event log."""
    op.drop_index("ix_events_stream_turn", table_name="events")
    op.drop_table("events")
    op.drop_table("streams")
    op.drop_table("campaigns")
