"""Terminal pictures, as golden text at a fixed width."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from maps.builtin import load_builtin
from maps.render import THEME, render_map, render_text_map

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
