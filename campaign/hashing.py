"""The tamper-evident hash chain over the event log.

Each event's hash covers the previous event's hash and everything the event says: its
version, type, schema version, audience, actor, game turn and canonical payload text. Editing
one byte of any of these breaks the chain from that event on. `recorded_at` and the global
position are bookkeeping, not facts of the campaign, and stay outside the hash, so the same
seed and orders give the same chain, byte for byte, on any backend.

>>> h = chain_hash(GENESIS_HASH, 1, "turn_ended", 1, "*", "umpire", 0, '{"turn":0}')
>>> len(h), h == chain_hash(GENESIS_HASH, 1, "turn_ended", 1, "*", "umpire", 0, '{"turn":0}')
(64, True)
"""

from __future__ import annotations

import hashlib

GENESIS_HASH = "0" * 64


def chain_hash(
    previous: str,
    version: int,
    event_type: str,
    schema_version: int,
    audience: str,
    actor: str,
    turn: int,
    payload: str,
) -> str:
    """Return the hex SHA-256 linking an event to the one before it.

    The fields are joined by the unit separator (0x1f) and hashed as UTF-8: one string
    built and encoded once (`umpire verify` hashes every event of a branch, issue 19).
    """
    return hashlib.sha256(
        f"{previous}\x1f{version}\x1f{event_type}\x1f{schema_version}\x1f{audience}"
        f"\x1f{actor}\x1f{turn}\x1f{payload}".encode()
    ).hexdigest()
