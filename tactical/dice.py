"""Dice for battles: an injected source keyed by stable strings, and the record of what it rolled.

Rules never call :mod:`random`. They ask a :class:`DiceSource` for ``roll(key, sides)``, where
the key names the die in the battle (``"t3/fire/ship-2/beam_b-1/0"``): turn, step, who rolls,
what for, which die. Three sources:

- :class:`SeededDice` derives each die from the battle seed and its key alone, so a battle's
  dice do not depend on the order they are asked for: ``Random(hmac-sha256(seed, key))``, read
  through ``random()``, the one method Python promises to keep stable across versions.
- :class:`ScriptedDice` hands out given values in order, for tests built from worked examples.
- :class:`ReplayDice` reads back the rolls an event recorded and raises if the rules ask for any
  other die: replaying a journal never rolls (STYLE 7).

:class:`RecordingDice` wraps a live source and keeps every roll for the event that used it.

>>> dice = ScriptedDice([1, 3, 6])
>>> [dice.roll("t1/fire/a/beam_b-1/0", 6) for _ in range(3)]
[1, 3, 6]
>>> SeededDice(7).roll("t1/initiative/nac/0", 6) == SeededDice(7).roll("t1/initiative/nac/0", 6)
True
"""

from __future__ import annotations

import hashlib
from _random import Random
from collections.abc import Iterable
from typing import Protocol

from msgspec import Struct

__all__ = [
    "DiceError",
    "DiceSource",
    "RecordingDice",
    "ReplayDice",
    "Roll",
    "ScriptedDice",
    "SeededDice",
]


class DiceError(RuntimeError):
    """A scripted or recorded dice source cannot give the die asked for."""


class DiceSource(Protocol):
    """Where the rules get their dice."""

    def roll(self, key: str, sides: int) -> int:
        """Return a uniform integer in ``1..sides`` for the die named ``key``."""
        ...


class Roll(Struct, frozen=True, array_like=True, gc=False):
    """One die as an event records it: which die, how many sides, what it showed."""

    key: str
    sides: int
    value: int


def _check_sides(sides: int) -> None:
    if sides < 1:
        raise ValueError(f"a die needs at least one side, got {sides}")


class SeededDice:
    """Dice derived from a seed and each die's key: the same key always shows the same face.

    >>> SeededDice(1).roll("t1/fire/a/beam_a-1/0", 6) in range(1, 7)
    True
    """

    def __init__(self, seed: int | str) -> None:
        self.seed = seed
        # The seed's HMAC-SHA256 (RFC 2104) as its two keyed SHA-256 states, the key padded
        # and XORed with 0x36 and 0x5C, copied for each die: cheaper than an HMAC object or
        # the one-shot hmac.digest. One generator seeded afresh for each die, random.Random's
        # own C core (its Python subclass adds only argument checks, and gauss, never read
        # here). The same digests and faces as a new HMAC and a new Random a die.
        self._inner, self._outer = _keyed(str(seed).encode())
        self._generator = Random()

    def roll(self, key: str, sides: int) -> int:
        """Return the face of the die named ``key``."""
        if sides < 1:
            _check_sides(sides)  # which refuses it
        inner = self._inner.copy()
        inner.update(key.encode())
        outer = self._outer.copy()
        outer.update(inner.digest())
        self._generator.seed(int.from_bytes(outer.digest(), "big"))
        return 1 + int(self._generator.random() * sides)

    def __getstate__(self) -> dict[str, object]:
        """Pickle the seed alone (hash states do not pickle): worker processes roll it."""
        return {"seed": self.seed}

    def __setstate__(self, state: dict[str, object]) -> None:
        seed = state["seed"]
        assert isinstance(seed, int | str)
        self.seed = seed
        self._inner, self._outer = _keyed(str(seed).encode())
        self._generator = Random()

    def __repr__(self) -> str:
        return f"SeededDice({self.seed!r})"


def _keyed(secret: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """HMAC-SHA256's inner and outer hash states keyed by ``secret`` (RFC 2104, as
    :mod:`hmac` keys them: a key longer than the block is hashed first)."""
    block = hashlib.sha256().block_size
    if len(secret) > block:
        secret = hashlib.sha256(secret).digest()
    secret = secret.ljust(block, b"\0")
    inner = hashlib.sha256(secret.translate(_INNER_PAD))
    outer = hashlib.sha256(secret.translate(_OUTER_PAD))
    return inner, outer


_INNER_PAD = bytes(x ^ 0x36 for x in range(256))
_OUTER_PAD = bytes(x ^ 0x5C for x in range(256))


class ScriptedDice:
    """Dice that show the given faces in order, whatever the key; for tests.

    Raises:
        DiceError: (from :meth:`roll`) the script is used up or a face does not fit the die.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    @property
    def remaining(self) -> int:
        """Return how many scripted faces are left."""
        return len(self._faces) - self._next

    def roll(self, key: str, sides: int) -> int:
        """Return the next scripted face."""
        _check_sides(sides)
        if self._next >= len(self._faces):
            raise DiceError(f"no scripted die left for {key!r} (d{sides})")
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise DiceError(f"scripted face {face} for {key!r} does not fit a d{sides}")
        self._next += 1
        return face


class RecordingDice:
    """Wrap a live source and keep every roll, in order, for the event that used them."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.rolls: list[Roll] = []

    def roll(self, key: str, sides: int) -> int:
        """Roll on the wrapped source and record the result."""
        value = self.source.roll(key, sides)
        self.rolls.append(Roll(key, sides, value))
        return value


class ReplayDice:
    """Read back recorded rolls in order; any other die is an error, never a fresh roll."""

    def __init__(self, rolls: Iterable[Roll]) -> None:
        self._rolls = tuple(rolls)
        self._next = 0

    def roll(self, key: str, sides: int) -> int:
        """Return the recorded value of this die.

        Raises:
            DiceError: the next recorded roll is a different die, or there is none.
        """
        if self._next >= len(self._rolls):
            raise DiceError(f"replay asked for {key!r} (d{sides}) but the event recorded no more")
        recorded = self._rolls[self._next]
        if recorded.key != key or recorded.sides != sides:
            raise DiceError(
                f"replay asked for {key!r} (d{sides}) but the event recorded "
                f"{recorded.key!r} (d{recorded.sides})"
            )
        self._next += 1
        return recorded.value

    def finish(self) -> None:
        """Check that every recorded roll was read.

        Raises:
            DiceError: some recorded rolls were not asked for.
        """
        if self._next != len(self._rolls):
            unread = self._rolls[self._next]
            raise DiceError(f"replay left recorded rolls unread, starting at {unread.key!r}")
