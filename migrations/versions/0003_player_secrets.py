"""Player secrets: one salted hash per player of a campaign, for remote play (issue 6).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create the player_secrets table (never part of the hash chain; never plaintext)."""
    op.create_table(
        "player_secrets",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("campaign_id", BIG_ID, sa.ForeignKey("campaigns.id"), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("kdf", sa.String(64), nullable=False),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("digest", sa.String(128), nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rotations", sa.Integer(), nullable=False),
        sa.UniqueConstraint("campaign_id", "player", name="uq_player_secrets_campaign_player"),
    )


def downgrade() -> None:
    """Drop the player_secrets table."""
    op.drop_table("player_secrets")
