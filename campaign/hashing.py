"""The tamper-evident hash chain over the event log.

Each event's hash covers the previous event's hash and everything the event says: its
version, type, schema version, audience, actor, game turn and canonical payload text. Editing
one byte of any of these breaks the chain from that event on. `recorded_at` and the global
position are bookkeeping, not facts of the campaign, and stay outside the hash, so the same
seed, orders and secrets give the same chain, byte for byte, on any backend.

A player holds the chain hashes of his own events (his log, package, state and receipts).
Where one small event hidden from him lies between two of his, he knows the hash before it
and the hash after it, so with plain hashes he could hash every guess of it (a unit, a hex
and an order; a die) until one chains. A campaign made since migration 0007 therefore has a
chain key (`campaigns.chain_key`: 32 random bytes, never in an event, never shown to a
player, never revealed with the seed), and each event's hash covers a salt only the key
gives: HMAC-SHA256 of the key over the stream that holds the event and its version. Without
the salt no guess can be checked (docs/security.md, "The chain key").
Campaigns made before it have no key and keep their plain hashes (`chain_hasher(None)`).

>>> h = chain_hash(GENESIS_HASH, 1, "turn_ended", 1, "*", "umpire", 0, '{"turn":0}')
>>> len(h), h == chain_hash(GENESIS_HASH, 1, "turn_ended", 1, "*", "umpire", 0, '{"turn":0}')
(64, True)
>>> keyed = chain_hasher("ab" * 32)
>>> keyed(GENESIS_HASH, 1, 1, "turn_ended", 1, "*", "umpire", 0, '{"turn":0}') == h
False
>>> chain_hasher(None)(GENESIS_HASH, 1, 1, "turn_ended", 1, "*", "umpire", 0, '{"turn":0}') == h
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

GENESIS_HASH = "0" * 64
CHAIN_KEY_BYTES = 32
_SALT_CONTEXT = b"stellar-umpire/chain-salt/v1\x1f"

# previous hash, stream id, version, type, schema version, audience, actor, turn, payload
ChainHasher = Callable[[str, int, int, str, int, str, str, int, str], str]


def chain_hash(
    previous: str,
    version: int,
    event_type: str,
    schema_version: int,
    audience: str,
    actor: str,
    turn: int,
    payload: str,
    salt: str = "",
) -> str:
    """Return the hex SHA-256 linking an event to the one before it.

    The fields are joined by the unit separator (0x1f) and hashed as UTF-8: one string
    built and encoded once (`umpire verify` hashes every event of a branch, issue 19). With
    a `salt` (a keyed campaign's, `SaltKey.salt`) it follows the previous hash; without one the
    hash is a campaign's of before migration 0007, unchanged.
    """
    salted = f"{salt}\x1f" if salt else ""
    return hashlib.sha256(
        f"{previous}\x1f{salted}{version}\x1f{event_type}\x1f{schema_version}\x1f{audience}"
        f"\x1f{actor}\x1f{turn}\x1f{payload}".encode()
    ).hexdigest()


def check_chain_key(key: str) -> bytes:
    """Return a chain key's bytes.

    Raises:
        ValueError: it is not 32 bytes in hex.
    """
    raw = bytes.fromhex(key)
    if len(raw) != CHAIN_KEY_BYTES:
        raise ValueError(f"a chain key is {CHAIN_KEY_BYTES} bytes in hex, not {len(raw)}")
    return raw


class SaltKey:
    """A chain key, ready to salt events: HMAC-SHA256 with its two padded key blocks hashed
    once (RFC 2104's precomputation), since `umpire verify` salts every event of a branch
    and `hmac.digest` pays for the key schedule each time (5 us against 1.3 us here).

    >>> import hmac
    >>> key = bytes(range(32))
    >>> SaltKey(key).salt(3, 14) == hmac.new(
    ...     key, _SALT_CONTEXT + b"3\x1f14", hashlib.sha256
    ... ).hexdigest()
    True
    """

    def __init__(self, key: bytes) -> None:
        block = key.ljust(hashlib.sha256().block_size, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in block) + _SALT_CONTEXT)
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in block))

    def salt(self, stream_id: int, version: int) -> str:
        """Return the secret salt of the event at `version` of stream `stream_id` (hex):
        HMAC-SHA256(key, context, stream, version).

        Each is its own HMAC of the key, so one salt disclosed (to open one event's hash)
        gives away no other. The stream is in it so that the same event at the same version
        of two branches hashes differently: a player cannot tell from his hashes whether
        what was hidden from him is the same after a rewind.
        """
        inner = self._inner.copy()
        inner.update(f"{stream_id}\x1f{version}".encode())
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest()


def chain_hasher(key: str | None) -> ChainHasher:
    """Return how a campaign with chain key `key` (None: made before 0007) hashes an event.

    Raises:
        ValueError: the key is not 32 bytes in hex.
    """
    salts = None if key is None else SaltKey(check_chain_key(key))

    def hashed(
        previous: str,
        stream_id: int,
        version: int,
        event_type: str,
        schema_version: int,
        audience: str,
        actor: str,
        turn: int,
        payload: str,
    ) -> str:
        # No key: the plain chain, which never covered the stream or a salt.
        salt = "" if salts is None else salts.salt(stream_id, version)
        return chain_hash(
            previous, version, event_type, schema_version, audience, actor, turn, payload, salt
        )

    return hashed
