"""Hex geometry: properties with hypothesis, plus printed-label examples."""

from __future__ import annotations

import doctest
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

import maps.hexes
from maps.hexes import (
    DIRECTIONS,
    Hex,
    from_offset,
    label,
    line,
    parse_label,
    ring,
    spiral,
    to_offset,
)
from tests.maps.strategies import hexes

radii = st.integers(min_value=0, max_value=12)


def test_doctests_pass() -> None:
    failures, tried = doctest.testmod(maps.hexes)
    assert tried > 0
    assert failures == 0


@given(hexes, hexes)
def test_distance_is_symmetric(a: Hex, b: Hex) -> None:
    assert a.distance(b) == b.distance(a)


@given(hexes, hexes)
def test_distance_is_zero_only_to_itself(a: Hex, b: Hex) -> None:
    assert (a.distance(b) == 0) == (a == b)


@given(hexes, hexes, hexes)
def test_triangle_inequality(a: Hex, b: Hex, c: Hex) -> None:
    assert a.distance(c) <= a.distance(b) + b.distance(c)


@given(hexes)
def test_six_distinct_neighbours_at_distance_one(a: Hex) -> None:
    ns = a.neighbours()
    assert len(set(ns)) == 6
    assert list(ns) == sorted(ns)
    assert all(a.distance(n) == 1 for n in ns)


@given(hexes, radii)
def test_ring_has_6k_cells_at_distance_k(center: Hex, k: int) -> None:
    cells = ring(center, k)
    assert len(cells) == (6 * k if k else 1)
    assert len(set(cells)) == len(cells)
    assert all(center.distance(c) == k for c in cells)


@given(hexes, radii)
def test_spiral_is_the_whole_disc(center: Hex, k: int) -> None:
    cells = list(spiral(center, k))
    assert len(cells) == len(set(cells)) == 3 * k * (k + 1) + 1
    assert [center.distance(c) for c in cells] == sorted(center.distance(c) for c in cells)


def test_negative_radius_is_refused() -> None:
    with pytest.raises(ValueError, match="radius must be >= 0"):
        ring(Hex(0, 0), -1)
    with pytest.raises(ValueError, match="radius must be >= 0"):
        list(spiral(Hex(0, 0), -1))


@given(hexes, hexes)
def test_line_is_a_shortest_chain_of_adjacent_cells(a: Hex, b: Hex) -> None:
    cells = line(a, b)
    assert cells[0] == a
    assert cells[-1] == b
    assert len(cells) == a.distance(b) + 1
    assert all(x.distance(y) == 1 for x, y in itertools.pairwise(cells))


def test_line_along_an_axis() -> None:
    assert line(Hex(0, 0), Hex(0, 3)) == [Hex(0, 0), Hex(0, 1), Hex(0, 2), Hex(0, 3)]


@given(st.integers(0, 98), st.integers(0, 98))
def test_offset_and_label_round_trip(col: int, row: int) -> None:
    cell = from_offset(col, row)
    assert to_offset(cell) == (col, row)
    text = label(cell)
    assert text == f"{col + 1:02d}{row + 1:02d}"
    assert parse_label(text) == cell


@pytest.mark.parametrize(
    ("text", "col", "row"),
    [("0101", 0, 0), ("0712", 6, 11), ("0201", 1, 0), ("9999", 98, 98)],
)
def test_labels_read_column_then_row(text: str, col: int, row: int) -> None:
    assert to_offset(parse_label(text)) == (col, row)


def test_even_label_columns_sit_half_a_hex_lower() -> None:
    # 0101 touches 0201 (below-right) and 0201 touches 0302 only via 0202's column shift:
    # on the printed map 0201 is half a hex below 0101 and 0301.
    assert parse_label("0101").distance(parse_label("0201")) == 1
    assert parse_label("0301").distance(parse_label("0201")) == 1
    assert parse_label("0102").distance(parse_label("0201")) == 1
    assert parse_label("0102").distance(parse_label("0202")) == 1
    assert parse_label("0101").distance(parse_label("0202")) == 2


@pytest.mark.parametrize("text", ["712", "07120", "07a2", "0012", "0700", "", "٠٧١٢"])
def test_bad_labels_are_refused_with_the_input_quoted(text: str) -> None:
    with pytest.raises(ValueError, match="hex label"):
        parse_label(text)


def test_cells_off_the_label_grid_have_no_label() -> None:
    with pytest.raises(ValueError, match="no four-digit label"):
        label(Hex(-1, 0))


@given(hexes, st.sampled_from(DIRECTIONS))
def test_adding_a_direction_moves_one_hex(a: Hex, d: Hex) -> None:
    assert (a + d).distance(a) == 1
    assert isinstance(a + d, Hex)
