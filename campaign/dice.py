"""Dice: seeded and position-keyed, manual, or scripted; every outcome becomes a `Roll`.

A seeded roll is a pure function of the campaign seed and a stable key naming the roll
(turn, phase, subject, index). Replaying, rewinding or changing an unrelated order never
shifts a roll, and once the seed is revealed anyone can recompute every seeded roll from the
log. Rules never roll on replay: each outcome is stored in the event that used it.

A die the umpire rules rolled again (issue 6) is rolled under its key's next generation
(`1/exploration/fleet-7/0#2`): its face is still a pure function of the seed and the key.

>>> dice = SeededDice("demo-seed")
>>> roll = dice.roll(DiceKey(turn=1, phase="exploration", subject="fleet-7"), sides=6)
>>> roll == dice.roll(DiceKey(turn=1, phase="exploration", subject="fleet-7"), sides=6)
True
>>> 1 <= roll.value <= 6
True
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Literal, Protocol

import msgspec

from campaign.errors import DiceError, InvalidInputError

RollSource = Literal["seeded", "manual", "scripted"]

_KEY_PART = re.compile(r"^[A-Za-z0-9_.:-]+$")
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-")
_KEY_TEXT = re.compile(
    r"(\d+)/([A-Za-z0-9_.:-]+)/([A-Za-z0-9_.:%-]+)/(\d+)"  # turn/phase/subject/index
    r"(?:#([2-9]|[1-9]\d+))?"  # a re-roll's generation: the first roll has no `#1`
)
_DICE_EXPRESSION = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*$")
SEED_COMMITMENT_PREFIX = b"stellar-umpire/seed/v1:"


class DiceKey(msgspec.Struct, frozen=True):
    """The stable name of one die: which turn, which phase, whose roll, which die.

    `generation` counts the times the die was rolled by the umpire's rulings: 1 is the die as
    the rules roll it, and its key has no suffix, so every key rolled before re-rolls existed
    derives its face exactly as it did. A re-roll is generation 2, 3... (`#2` in the key).

    >>> str(DiceKey(turn=3, phase="exploration", subject="fleet-12", index=1))
    '3/exploration/fleet-12/1'
    >>> str(DiceKey(turn=3, phase="exploration", subject="fleet-12", index=1, generation=2))
    '3/exploration/fleet-12/1#2'
    """

    turn: int
    phase: str
    subject: str
    index: int = 0
    generation: int = 1

    def __post_init__(self) -> None:
        if not _KEY_PART.match(self.phase):
            raise InvalidInputError(f"dice phase {self.phase!r} must be letters, digits or _.:-")
        if not self.subject:
            raise InvalidInputError("a die's subject must not be empty")
        if self.generation < 1:
            raise InvalidInputError(f"a die's generation is 1 or more, not {self.generation}")

    def __str__(self) -> str:
        key = f"{self.turn}/{self.phase}/{escape_subject(self.subject)}/{self.index}"
        return key if self.generation == 1 else f"{key}#{self.generation}"

    @property
    def first(self) -> DiceKey:
        """Return the key of this die as the rules first roll it (generation 1)."""
        return msgspec.structs.replace(self, generation=1)

    @classmethod
    def parse(cls, text: str) -> DiceKey:
        """Read a key back from its `turn/phase/subject/index[#generation]` form.

        >>> DiceKey.parse("3/exploration/fleet-12/1#2").generation
        2
        """
        match = _KEY_TEXT.fullmatch(text)
        if not match:
            raise InvalidInputError(
                f"dice key {text!r} is not of the form turn/phase/subject/index[#generation]"
            )
        turn, phase, escaped, index, generation = match.groups()
        subject = _unescape_subject(escaped)
        if subject is None:
            raise InvalidInputError(f"dice key {text!r}: {escaped!r} is not a subject's escape")
        return cls(
            turn=int(turn),
            phase=phase,
            subject=subject,
            index=int(index),
            generation=int(generation) if generation is not None else 1,
        )


def escape_subject(subject: str) -> str:
    """Return a die's subject as its key writes it: other than letters, digits and _.:-,
    each UTF-8 byte is written %XX, so any name (a star called `Proxima (b)`) makes a key.

    Subjects made only of those characters, as every key rolled before escaping existed,
    are written as they are, so their faces derive exactly as they did.

    >>> escape_subject("Proxima (b).red-S1")
    'Proxima%20%28b%29.red-S1'
    """
    if all(ch in _SAFE for ch in subject):
        return subject
    return "".join(
        ch if ch in _SAFE else "".join(f"%{byte:02X}" for byte in ch.encode("utf-8", "replace"))
        for ch in subject
    )


def _unescape_subject(escaped: str) -> str | None:
    """Return the subject `escape_subject` wrote as `escaped`, or None if it wrote no such."""
    parts = escaped.split("%")
    data = bytearray(parts[0].encode())
    for part in parts[1:]:
        if len(part) < 2 or not all(c in "0123456789ABCDEF" for c in part[:2]):
            return None
        data.append(int(part[:2], 16))
        data += part[2:].encode()
    try:
        subject = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return subject if subject and escape_subject(subject) == escaped else None


class Roll(msgspec.Struct, frozen=True):
    """One die's outcome, as stored in the event that used it."""

    key: str
    sides: int
    value: int
    source: RollSource = "seeded"


class DiceSource(Protocol):
    """Anything rules can roll with."""

    def roll(self, key: DiceKey, sides: int = 6) -> Roll:
        """Roll one die named `key` with `sides` faces."""
        ...


def seed_commitment(seed: str) -> str:
    """Return the public hash that commits the campaign to `seed` before any die is rolled."""
    return hashlib.sha256(SEED_COMMITMENT_PREFIX + seed.encode()).hexdigest()


def seeded_value(seed: str, key: str, sides: int) -> int:
    """Return the face a seeded die named `key` shows; a pure function of seed and key.

    The key is mixed into the seed with HMAC-SHA256 and the face drawn with
    `Random.random()`, the one `random` method Python promises to keep stable across versions.
    A re-roll's key carries its generation (`...#2`), so it draws a new, equally checkable face.
    """
    digest = hmac.new(seed.encode(), f"{key}#d{sides}".encode(), hashlib.sha256).digest()
    return 1 + int(random.Random(int.from_bytes(digest, "big")).random() * sides)


class SeededDice:
    """Dice derived from the campaign seed and each roll's key."""

    def __init__(self, seed: str) -> None:
        self._seed = seed

    def roll(self, key: DiceKey, sides: int = 6) -> Roll:
        """Roll the die named `key`; the same key always gives the same face."""
        _check_sides(sides)
        return Roll(key=str(key), sides=sides, value=seeded_value(self._seed, str(key), sides))


class RerolledDice:
    """Roll the dice the umpire ruled rolled again at their new generation, the rest as given.

    `generations` maps a die's first key to the generation it is rolled at now (issue 6).

    >>> dice = RerolledDice(SeededDice("demo-seed"), {"1/exploration/fleet-7/0": 2})
    >>> dice.roll(DiceKey(turn=1, phase="exploration", subject="fleet-7")).key
    '1/exploration/fleet-7/0#2'
    """

    def __init__(self, source: DiceSource, generations: Mapping[str, int]) -> None:
        self._source = source
        self._generations = dict(generations)

    def roll(self, key: DiceKey, sides: int = 6) -> Roll:
        """Roll `key` on the wrapped source, at the generation a ruling gave it, if any."""
        generation = self._generations.get(str(key.first))
        if generation is not None:
            key = msgspec.structs.replace(key, generation=generation)
        return self._source.roll(key, sides)


class ScriptedDice:
    """Dice that show the faces they were given, in order: for tests and worked examples."""

    def __init__(self, values: Iterable[int]) -> None:
        self._values: Iterator[int] = iter(values)

    def roll(self, key: DiceKey, sides: int = 6) -> Roll:
        """Return the next scripted face for `key`."""
        _check_sides(sides)
        value = next(self._values, None)
        if value is None:
            raise DiceError(f"the dice script ran out at roll {key}")
        return Roll(
            key=str(key), sides=sides, value=_check_face(value, sides, key), source="scripted"
        )


class ManualDice:
    """Physical dice: each face is typed at a prompt or taken from a list the umpire gave.

    `ask(key, sides)` returns the text the umpire typed; a bad answer raises `DiceError`
    (the prompt layer may ask again before calling here).
    """

    def __init__(
        self,
        results: Iterable[int] | None = None,
        ask: Callable[[DiceKey, int], int] | None = None,
    ) -> None:
        if (results is None) == (ask is None):
            raise ValueError("give manual dice either a list of results or a prompt")
        self._results = list(results) if results is not None else None
        self._used = 0
        self._ask = ask

    def roll(self, key: DiceKey, sides: int = 6) -> Roll:
        """Take the next physical result for `key`."""
        _check_sides(sides)
        if self._results is not None:
            if self._used >= len(self._results):
                raise DiceError(
                    f"{len(self._results)} result(s) given but more dice are needed (at {key})"
                )
            value = self._results[self._used]
            self._used += 1
        else:
            assert self._ask is not None
            value = self._ask(key, sides)
        return Roll(
            key=str(key), sides=sides, value=_check_face(value, sides, key), source="manual"
        )

    def unused(self) -> int:
        """Return how many listed results were not used."""
        return 0 if self._results is None else len(self._results) - self._used


def parse_dice_expression(text: str) -> tuple[int, int]:
    """Read `2d6`, `d6` or `D20` as (count, sides).

    >>> parse_dice_expression("2d6")
    (2, 6)
    >>> parse_dice_expression("d20")
    (1, 20)
    """
    match = _DICE_EXPRESSION.match(text)
    if not match:
        raise InvalidInputError(f"dice {text!r} must look like 2d6 or d20")
    count = int(match.group(1) or "1")
    sides = int(match.group(2))
    if not 1 <= count <= 100:
        raise InvalidInputError(f"dice {text!r}: roll between 1 and 100 dice at once")
    _check_sides(sides)
    return count, sides


def _check_sides(sides: int) -> None:
    if not 2 <= sides <= 1000:
        raise InvalidInputError(f"a die must have between 2 and 1000 sides, not {sides}")


def _check_face(value: int, sides: int, key: DiceKey) -> int:
    if not 1 <= value <= sides:
        raise DiceError(f"result {value} is not a face of a d{sides} (roll {key})")
    return value
