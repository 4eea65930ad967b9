"""Hypothesis strategies and an independent reference for the cloud movement rules."""

from __future__ import annotations

from hypothesis import strategies as st

from maps.hexes import Hex, from_offset

coords = st.integers(min_value=-60, max_value=60)
hexes = st.builds(Hex, coords, coords)


@st.composite
def small_maps(draw: st.DrawFn) -> tuple[int, int, frozenset[Hex]]:
    """Draw (width, height, clouds) for a small map with random cloud hexes."""
    width = draw(st.integers(min_value=1, max_value=9))
    height = draw(st.integers(min_value=1, max_value=9))
    cells = [from_offset(c, r) for c in range(width) for r in range(height)]
    clouds = draw(st.sets(st.sampled_from(cells), max_size=len(cells) // 2))
    return width, height, frozenset(clouds)


def legal_turn(path: list[Hex] | tuple[Hex, ...], clouds: frozenset[Hex], speed: int) -> bool:
    """Return whether a one-turn path (start first) obeys 004 section 5.1, written afresh.

    A cloud hex may be entered only as the first hex of the move (the move began next to it)
    and then the move ends; leaving a cloud costs nothing special.
    """
    steps = path[1:]
    if len(steps) > speed:
        return False
    for a, b in zip(path, steps, strict=False):
        if a.distance(b) != 1:
            return False
    cloud_steps = [i for i, cell in enumerate(steps) if cell in clouds]
    return cloud_steps in ([], [0]) and (not cloud_steps or len(steps) == 1)


def reference_reach(
    start: Hex, speed: int, cells: frozenset[Hex], clouds: frozenset[Hex]
) -> dict[Hex, int]:
    """Return end hex -> fewest steps, by enumerating every legal path (small speeds only)."""
    best: dict[Hex, int] = {start: 0}

    def walk(path: list[Hex]) -> None:
        for d in ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)):
            n = Hex(path[-1].q + d[0], path[-1].r + d[1])
            if n not in cells or n in path:
                continue
            new = [*path, n]
            if not legal_turn(new, clouds, speed):
                continue
            if len(new) - 1 < best.get(n, speed + 1):
                best[n] = len(new) - 1
            walk(new)

    walk([start])
    return best
