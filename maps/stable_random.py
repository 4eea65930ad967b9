"""Random choices that stay the same across Python versions, for seeded generators.

Only ``Random.random()`` is used: its stream is stable across versions, while ``randrange``,
``choice`` and ``shuffle`` have changed how they draw. The map generator and the campaign's
autoplay both choose with these, so the same seed gives the same map and the same orders.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")


def below(rng: random.Random, n: int) -> int:
    """Return an int in ``range(n)``."""
    return min(int(rng.random() * n), n - 1)


def percent(rng: random.Random, chance: int) -> bool:
    """Return True with a chance of ``chance`` in 100."""
    return below(rng, 100) < chance


def pick(rng: random.Random, items: Sequence[T]) -> T:
    """Return one of ``items``."""
    return items[below(rng, len(items))]


def between(rng: random.Random, low: int, high: int) -> int:
    """Return an int in ``low..high`` inclusive."""
    return low + below(rng, high - low + 1)


def shuffled(rng: random.Random, items: Iterable[T]) -> list[T]:
    """Return ``items`` in a random order (Fisher-Yates)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = below(rng, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def weighted(rng: random.Random, table: Sequence[tuple[T, int]]) -> T:
    """Return a value from ``(value, weight)`` pairs, each as likely as its weight."""
    roll = below(rng, sum(w for _, w in table))
    for value, weight in table:
        if roll < weight:
            return value
        roll -= weight
    raise AssertionError("unreachable: the roll is below the total weight")
