"""Record sheets and cost tables as golden text at a fixed width."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console, RenderableType

from tactical.battle import BattleSetup, DummySetup, ShipSetup, context, initial_state
from tactical.designs import builtin_ships, load_builtin
from tactical.points import build, price
from tactical.render import THEME, battle_plot, cost_table, design_table, record_sheet
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


def test_battle_plot_in_a_bogey_battle() -> None:
    """The counters are centred in the frame (the caption's x range runs either side of them,
    not from the westernmost off to the east), and a dummy bogey is drawn as a ? and counts
    towards the frame (001 L955-957)."""
    setup = BattleSetup(
        sides=("red", "blue"),
        bogeys=True,
        ships=(
            ShipSetup(id="r1", side="red", design="frigate", x=0, y=0, course=12),
            ShipSetup(id="b1", side="blue", design="frigate", x=0, y=88, course=6),
        ),
        dummies=(DummySetup(id="d1", side="blue", x=-20, y=88, course=6),),
    )
    ctx = context(setup)
    lines = render(battle_plot(ctx, initial_state(ctx), width=41, height=12)).splitlines()
    # 4 MU a column (88 MU over 11 rows of 2 columns), centred on x = -10: column 20.
    assert lines[0] == "·       ·       · ?   b ·       ·       ·"
    assert lines[11] == "                      r                  "
    assert lines[12] == (
        "x -90 to 70 MU, y 0 to 88 MU; ? a dummy bogey, plain letters unidentified ships"
    )
