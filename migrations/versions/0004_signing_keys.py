"""Orders-signing keys: the public half of each player's signing key pair (issue 6).

A player signs orders files with a key pair derived from his secret (`campaign/signing.py`);
the umpire's inbox checks them with the public key stored here. Secrets issued before this
revision have none (NULL) until they are rotated.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add player_secrets.signing_key: a hex Ed25519 public key, NULL for older secrets."""
    op.add_column("player_secrets", sa.Column("signing_key", sa.String(64), nullable=True))


def downgrade() -> None:
    """Drop player_secrets.signing_key (SQLite rebuilds the table to drop a column)."""
    with op.batch_alter_table("player_secrets") as batch:
        batch.drop_column("signing_key")
