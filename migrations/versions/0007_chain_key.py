"""A secret chain key per campaign (session 11): chain hashes salted so players cannot guess.

A player holds the chain hash of each of his events. With one small event hidden from him
between two of his, plain hashes let him hash guesses of it (a move, a die) until one
chains. From this revision a new campaign has a chain key, 32 random bytes, and each event's
hash covers a salt only the key gives (`campaign/hashing.py`). Campaigns made before it keep
their plain hashes, which players' receipts hold: the column stays NULL for them.

The downgrade drops the keys: a campaign made at this revision then no longer verifies
(its hashes need the key), so back the database up before downgrading.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# Tables this revision touches: campaigns.


def upgrade() -> None:
    """Add campaigns.chain_key, NULL for every campaign already made (plain hashes)."""
    op.add_column("campaigns", sa.Column("chain_key", sa.String(64), nullable=True))


def downgrade() -> None:
    """Drop campaigns.chain_key.

    Not by rebuilding the table, as SQLite's batch mode would: the campaigns are referenced
    by the streams, and dropping the old table would break those foreign keys. SQLite drops
    a plain column in place since 3.35.
    """
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE campaigns DROP COLUMN chain_key")
    else:
        op.drop_column("campaigns", "chain_key")
