"""The host's tables (issue 18): players' contacts and the outbox of notifications.

Neither is an event: a player's e-mail address or webhook URL never enters the log, so it is
in no one's view; the outbox's unique key makes a notification decided twice (a restarted or
second host) queued once.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create player_contacts and notifications."""
    op.create_table(
        "player_contacts",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("email", sa.Text(), nullable=True),
        sa.Column("webhook", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("campaign_id", "player", name="uq_player_contacts_campaign_player"),
    )
    op.create_table(
        "notifications",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
        sa.Column("key", sa.String(255), nullable=False, unique=True),
        sa.Column("recipient", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("attachments", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
    )


def downgrade() -> None:
    """Drop the host's tables."""
    op.drop_table("notifications")
    op.drop_table("player_contacts")
