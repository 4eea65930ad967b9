"""Terminal pictures, as golden text at a fixed width."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, Group, RenderableType
from rich.text import Text

from maps import StarMap, generate
from maps.builtin import load_builtin
from maps.render import (
    THEME,
    HexGrid,
    SystemsRow,
    SystemsTable,
    _grid_lines,
    _systems_rows,
    _systems_table,
    render_map,
    render_systems,
    render_text_map,
)

GOLDEN = Path(__file__).parent / "golden"


def draw(renderable: RenderableType, width: int = 100) -> str:
    console = Console(
        file=io.StringIO(), width=width, color_system=None, theme=THEME, legacy_windows=False
    )
    console.print(renderable)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


@pytest.mark.parametrize("name", ["lafayette", "classic"])
def test_show_matches_golden_text(name: str) -> None:
    text = draw(render_map(load_builtin(name)))
    golden = GOLDEN / f"{name}_show.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_grid_shows_stars_entries_and_clouds_in_their_hexes() -> None:
    lines = draw(render_text_map(load_builtin("lafayette"))).splitlines()
    # Row 09 of odd columns is text line 1 + 2 * 8; column 09 starts at 3 + 3 * 8.
    row09 = lines[1 + 2 * 8]
    assert row09.startswith("09 @E")
    assert row09[3 + 3 * 8 : 3 + 3 * 8 + 2] == "Y2"  # Lafayette, yellow, 2 planets
    classic = draw(render_text_map(load_builtin("classic")))
    assert "░░" in classic


def test_fog_hides_planets_of_unexplored_systems() -> None:
    m = load_builtin("lafayette")
    text = draw(render_map(m, explored={"Lafayette"}))
    assert "unexplored" in text
    assert "T100*" in text  # Lafayette's planets are known
    assert "T80" not in text  # Hudson's are not
    assert "Y?" in text


# `render_map` draws the grid and the systems table with its own renderables (`HexGrid`,
# `SystemsTable`, issue 19): they must print the very bytes rich's `Text` and `Table` print, in
# every mode `umpire map show` meets: colour or none (a pipe), NO_COLOR, any terminal width,
# soft wrap (the CLI's console) or cropping (the tests' and a default console).
MODES = [
    (color, no_color, soft_wrap)
    for color in (None, "standard", "256", "truecolor")
    for no_color in (False, True)
    for soft_wrap in (True, False)
    if not (color is None and no_color)
]


def paint(renderable: RenderableType, width: int, mode: tuple[str | None, bool, bool]) -> str:
    color, no_color, soft_wrap = mode
    console = Console(
        file=io.StringIO(),
        width=width,
        color_system=color,  # type: ignore[arg-type]
        no_color=no_color,
        soft_wrap=soft_wrap,
        force_terminal=color is not None,
        theme=THEME,
        legacy_windows=False,
    )
    console.print(renderable)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def _maps() -> dict[str, StarMap]:
    return {
        "classic": load_builtin("classic"),
        "lafayette": load_builtin("lafayette"),
        "generated": generate(7, players=3, stars=100),
    }


@pytest.mark.parametrize("width", [1, 12, 40, 60, 80, 100, 132, 250])
@pytest.mark.parametrize("mode", MODES, ids=str)
def test_the_grid_and_the_table_print_as_rich_prints_them(
    width: int, mode: tuple[str | None, bool, bool]
) -> None:
    for starmap in _maps().values():
        some = {s.name for s in sorted(starmap.systems, key=lambda s: s.name)[::3]}
        for explored in (None, some):
            # In a group, as `render_map` prints them (a console folds a `Text` printed alone).
            fast = Group(HexGrid(_grid_lines(starmap, explored)))
            rich = Group(render_text_map(starmap, explored=explored))
            assert paint(fast, width, mode) == paint(rich, width, mode)
            rows = _systems_rows(starmap, explored)
            table = SystemsTable(rows)
            assert paint(table, width, mode) == paint(
                render_systems(starmap, explored=explored), width, mode
            )


def test_the_600_star_map_prints_as_rich_prints_it() -> None:
    starmap = generate(2026, players=6, stars=600)  # bench/bench_cli.py's map
    explored = {s.name for s in starmap.systems if s.hex.q % 2}
    for width, mode in [
        (80, (None, False, True)),
        (80, ("256", False, True)),
        (100, ("truecolor", True, False)),
        (200, ("standard", False, True)),
    ]:
        fast = Group(
            HexGrid(_grid_lines(starmap, explored)), SystemsTable(_systems_rows(starmap, explored))
        )
        rich = Group(
            render_text_map(starmap, explored=explored), render_systems(starmap, explored=explored)
        )
        assert paint(fast, width, mode) == paint(rich, width, mode)


CELL_TEXT = st.text(alphabet=" abcXYZ019*,()<=[]:é漢\t\n", max_size=14)


@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(
        st.tuples(CELL_TEXT, CELL_TEXT, st.sampled_from(["blue", "red"]), CELL_TEXT, CELL_TEXT),
        max_size=6,
    ),
    width=st.integers(1, 120),
    mode=st.sampled_from(MODES),
)
def test_any_systems_table_prints_as_rich_prints_it(
    cells: list[tuple[str, str, str, str, str]], width: int, mode: tuple[str | None, bool, bool]
) -> None:
    """Wrapped, cut or unreadable cells (markup, emoji codes, wide characters, tabs) too."""
    rows: list[SystemsRow] = [
        (hex_, Text(name, style=f"star.{star}"), Text(star, style=f"star.{star}"), planets, extras)
        for hex_, name, star, planets, extras in cells
    ]
    assert paint(SystemsTable(rows), width, mode) == paint(_systems_table(rows), width, mode)
