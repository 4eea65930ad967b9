"""Hex geometry: axial coordinates, distance, neighbours, rings, lines and printed labels.

The campaign map is a grid of flat-topped hexes laid out in columns, like the printed maps of
board wargames. A cell is held as axial ``(q, r)``; people read it as a four-digit label
``CCRR`` (column, row, both counted from 01), e.g. ``0712``.

Offset layout: columns are vertical; every second column (labels 02, 04, ...) sits half a hex
lower than its neighbours ("odd-q" with 0-based columns).

>>> Hex(0, 0).distance(Hex(3, -1))
3
>>> label(Hex(6, 8))
'0712'
>>> parse_label("0712")
Hex(q=6, r=8)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

__all__ = [
    "DIRECTIONS",
    "Hex",
    "from_offset",
    "label",
    "line",
    "parse_label",
    "ring",
    "spiral",
    "to_offset",
]

# A label is two digits of column then two digits of row: 01..99 each.
LABEL_MAX = 99


class Hex(NamedTuple):
    """One hex cell in axial coordinates (cube ``s`` is ``-q - r``).

    A ``NamedTuple`` so that hexes are hashable, compare and sort like ``(q, r)`` tuples (sorted
    order is what makes path tie-breaks reproducible) and cost no more than a tuple.
    """

    q: int
    r: int

    @property
    def s(self) -> int:
        """Return the third cube coordinate."""
        return -self.q - self.r

    def distance(self, other: Hex) -> int:
        """Return the number of hex steps between two cells.

        >>> Hex(0, 0).distance(Hex(2, 2))
        4
        """
        dq = self.q - other.q
        dr = self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def neighbours(self) -> tuple[Hex, ...]:
        """Return the six adjacent cells, in sorted order."""
        q, r = self.q, self.r
        # Adding one vector to sorted vectors keeps them sorted.
        return tuple(Hex(q + dq, r + dr) for dq, dr in _SORTED_DIRECTIONS)

    def __add__(self, other: object) -> Hex:
        """Add two hexes as vectors (tuple concatenation makes no sense for a cell)."""
        if not isinstance(other, Hex):
            return NotImplemented
        return Hex(self.q + other.q, self.r + other.r)

    def scale(self, k: int) -> Hex:
        """Return this hex as a vector multiplied by ``k``."""
        return Hex(self.q * k, self.r * k)


# The six axial direction vectors, clockwise from "north-east" for flat-topped hexes.
DIRECTIONS: tuple[Hex, ...] = (
    Hex(1, -1),
    Hex(1, 0),
    Hex(0, 1),
    Hex(-1, 1),
    Hex(-1, 0),
    Hex(0, -1),
)
_SORTED_DIRECTIONS: tuple[Hex, ...] = tuple(sorted(DIRECTIONS))


def ring(center: Hex, radius: int) -> list[Hex]:
    """Return the cells exactly ``radius`` steps from ``center`` (just ``center`` for 0).

    >>> len(ring(Hex(0, 0), 2))
    12

    Raises:
        ValueError: if ``radius`` is negative.
    """
    if radius < 0:
        raise ValueError(f"ring radius must be >= 0, got {radius!r}")
    if radius == 0:
        return [center]
    cells: list[Hex] = []
    cell = center + DIRECTIONS[4].scale(radius)
    for direction in DIRECTIONS:
        for _ in range(radius):
            cells.append(cell)
            cell = cell + direction
    return cells


def spiral(center: Hex, radius: int) -> Iterator[Hex]:
    """Yield every cell within ``radius`` steps of ``center``, nearest rings first.

    Raises:
        ValueError: if ``radius`` is negative.
    """
    if radius < 0:
        raise ValueError(f"spiral radius must be >= 0, got {radius!r}")
    for k in range(radius + 1):
        yield from ring(center, k)


def _cube_round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return Hex(int(rq), int(rr))


def line(a: Hex, b: Hex) -> list[Hex]:
    """Return the cells on the straight line from ``a`` to ``b``, both ends included.

    Consecutive cells are adjacent and the list has ``a.distance(b) + 1`` cells. Points exactly
    on a hex edge are nudged by a fixed epsilon, so the result is always the same.

    >>> line(Hex(0, 0), Hex(3, 0))
    [Hex(q=0, r=0), Hex(q=1, r=0), Hex(q=2, r=0), Hex(q=3, r=0)]
    """
    n = a.distance(b)
    if n == 0:
        return [a]
    eps_q, eps_r = 1e-6, 2e-6
    aq, ar = a.q + eps_q, a.r + eps_r
    bq, br = b.q + eps_q, b.r + eps_r
    return [_cube_round(aq + (bq - aq) * i / n, ar + (br - ar) * i / n) for i in range(n + 1)]


def to_offset(cell: Hex) -> tuple[int, int]:
    """Return the 0-based ``(column, row)`` of a cell in the printed column layout."""
    col = cell.q
    row = cell.r + (col - (col & 1)) // 2
    return col, row


def from_offset(col: int, row: int) -> Hex:
    """Return the cell at 0-based ``(column, row)`` of the printed column layout."""
    return Hex(col, row - (col - (col & 1)) // 2)


def label(cell: Hex) -> str:
    """Return the printed ``CCRR`` label of a cell, e.g. ``'0712'``.

    Raises:
        ValueError: if the cell's column or row is outside 01..99.
    """
    col, row = to_offset(cell)
    if not (0 <= col < LABEL_MAX and 0 <= row < LABEL_MAX):
        raise ValueError(f"hex {cell!r} has no four-digit label (column {col + 1}, row {row + 1})")
    return f"{col + 1:02d}{row + 1:02d}"


def parse_label(text: str) -> Hex:
    """Return the cell named by a printed ``CCRR`` label such as ``'0712'``.

    Raises:
        ValueError: if ``text`` is not four digits with column and row in 01..99.
    """
    if len(text) != 4 or not text.isascii() or not text.isdigit():
        raise ValueError(f"hex label {text!r} is not four digits CCRR (column, row), e.g. '0712'")
    col, row = int(text[:2]), int(text[2:])
    if col == 0 or row == 0:
        raise ValueError(f"hex label {text!r}: column and row count from 01")
    return from_offset(col - 1, row - 1)
