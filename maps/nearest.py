"""Nearest-cell questions answered without measuring every cell against every target.

A computer player asks, for each hex his ships can reach, how near the closest unexplored star
is (issue 19). Measuring every reachable hex against every star costs the whole map each time;
`HexIndex` files the targets by square blocks of axial coordinates so a question looks only at
the blocks near it, and `closest_to_any` finds exactly what the full measurement finds.

>>> index = HexIndex([Hex(0, 0), Hex(9, 9)])
>>> index.within(Hex(1, 0), 2)
[Hex(q=0, r=0)]
>>> closest_to_any([Hex(3, 0), Hex(1, 1), Hex(5, 5)], index)
[Hex(q=1, r=1)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from maps.hexes import Hex

__all__ = ["HexIndex", "closest_to_any"]

BLOCK = 8  # axial columns and rows per block


class HexIndex:
    """Target hexes filed by block: `within` a radius and `nearest_distance` look only at
    the blocks that can hold an answer."""

    def __init__(self, targets: Iterable[Hex]) -> None:
        self._blocks: dict[tuple[int, int], list[Hex]] = defaultdict(list)
        for cell in targets:
            self._blocks[cell.q // BLOCK, cell.r // BLOCK].append(cell)
        self._count = sum(len(b) for b in self._blocks.values())

    def __len__(self) -> int:
        return self._count

    def within(self, centre: Hex, radius: int) -> list[Hex]:
        """Return the targets at most `radius` steps from `centre` (in filing order).

        A hex `radius` steps away differs by at most `radius` in q and in r, so only the
        blocks that overlap that square can hold one.
        """
        found: list[Hex] = []
        blocks = self._blocks
        for bq in range((centre.q - radius) // BLOCK, (centre.q + radius) // BLOCK + 1):
            for br in range((centre.r - radius) // BLOCK, (centre.r + radius) // BLOCK + 1):
                for cell in blocks.get((bq, br), ()):
                    if centre.distance(cell) <= radius:
                        found.append(cell)
        return found

    def nearest_distance(self, centre: Hex) -> int | None:
        """Return the distance from `centre` to its nearest target (None with no targets)."""
        if not self._count:
            return None
        radius = BLOCK
        while True:
            found = self.within(centre, radius)
            if found:  # any target further than `radius` is further than these
                return min(centre.distance(c) for c in found)
            radius *= 2


def closest_to_any(cells: list[Hex], targets: HexIndex) -> list[Hex]:
    """Return the cells (in their order) at the least distance from any target.

    Exactly `[c for c in cells if nearest(c) == min(nearest)]` for `cells` near each other.
    They lie within `spread` of the first: a target further from it than its nearest target
    plus twice `spread` is further from every cell than that nearest target is, so only the
    targets within that radius are measured.

    Raises:
        ValueError: no cells, or no targets.
    """
    if not cells or not len(targets):
        raise ValueError("closest_to_any needs cells and targets")
    anchor = cells[0]
    spread = max(anchor.distance(c) for c in cells)
    nearest_to_anchor = targets.nearest_distance(anchor)
    assert nearest_to_anchor is not None
    near = targets.within(anchor, nearest_to_anchor + 2 * spread)
    # `Hex.distance` written out (cube coordinates: q, r and q + r), the sum doubled: the same
    # order, in a third of the time (a scout asks this of every hex in reach, issue 19).
    cubes = [(t.q, t.r, t.q + t.r) for t in near]
    nearest = [
        min(abs(q - tq) + abs(r - tr) + abs(q + r - ts) for tq, tr, ts in cubes) // 2
        for q, r in cells
    ]
    best = min(nearest)
    return [c for c, d in zip(cells, nearest, strict=True) if d == best]
