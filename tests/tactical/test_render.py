"""Record sheets and cost tables as golden text at a fixed width."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console, RenderableType

from tactical.designs import builtin_ships, load_builtin
from tactical.points import build, price
from tactical.render import THEME, cost_table, design_table, record_sheet
from tactical.ship import PRESETS, apply_damage, fresh_state, hit_drive, with_system_status

GOLDEN = Path(__file__).parent / "golden"


def render(renderable: RenderableType, width: int = 100) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, theme=THEME)
    console.print(renderable)
    return buffer.getvalue()


def golden(name: str) -> str:
    return (GOLDEN / name).read_text(encoding="utf-8")


def test_ft2_heavy_cruiser_record_sheet() -> None:
    ship = build(load_builtin("heavy_cruiser", "ft2"), PRESETS["ft2"])
    assert render(record_sheet(ship)) == golden("ft2_heavy_cruiser.txt")


def test_damaged_continuum_heavy_cruiser_record_sheet() -> None:
    ship = build(load_builtin("heavy_cruiser", "continuum"), PRESETS["continuum"])
    state = apply_damage(ship, fresh_state(ship), 9).state
    state = with_system_status(state, "beam3-2", "destroyed")
    state = with_system_status(state, "pds-1", "damaged")
    state = hit_drive(state)
    assert render(record_sheet(ship, state)) == golden("continuum_heavy_cruiser_damaged.txt")


def test_cost_table() -> None:
    costing = price(load_builtin("con_am_12", "ft2"), PRESETS["ft2"])
    assert render(cost_table(costing)) == golden("ft2_con_am_12_cost.txt")


def test_design_table_lists_every_builtin() -> None:
    text = render(design_table(builtin_ships()))
    assert text == golden("design_list.txt")


def test_design_table_fits_an_80_column_terminal() -> None:
    text = render(design_table(builtin_ships()), width=80)
    assert "\N{HORIZONTAL ELLIPSIS}" not in text
    words = text.split()
    for design_id, ship in builtin_ships():
        assert design_id in words
        assert all(word in words for word in ship.name.split()), ship.name
