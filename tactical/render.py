"""Rich renderables for ships: the record sheet, a points breakdown and the design list.

The only tactical module that imports rich. Colours come from :data:`THEME` by name; give it to
the console (``Console(theme=THEME)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from tactical.points import Costing
from tactical.ship import CostLine, Ship, ShipState, fresh_state

__all__ = ["THEME", "cost_table", "design_table", "record_sheet"]

THEME = Theme(
    {
        "sheet.title": "bold",
        "sheet.label": "bold",
        "sheet.dim": "dim",
        "sheet.open": "green",
        "sheet.lost": "red",
        "sheet.armour": "cyan",
        "sheet.warning": "yellow",
        "sheet.status.ok": "green",
        "sheet.status.damaged": "yellow",
        "sheet.status.destroyed": "red",
    }
)

OPEN_BOX, LOST_BOX = "□", "■"
ARMOUR_OPEN, ARMOUR_LOST = "○", "●"


def _number(value: float) -> str:
    return f"{value:g}"


def _summary(ship: Ship) -> Text:
    hull = ship.hull.replace("_", " ")
    parts = [
        f"{ship.hull_class} ({hull})",
        f"mass {ship.mass}",
        f"thrust {ship.thrust}",
        f"FTL {'yes' if ship.ftl else 'no'}",
        f"screens {ship.screens}",
        f"FireCons {ship.fire_controls}",
    ]
    if ship.crew_factor:
        parts.append(f"crew factor {ship.crew_factor}")
    return Text(" · ".join(parts))


def _track(ship: Ship, state: ShipState) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", style="sheet.dim")
    grid.add_column()
    if ship.armour:
        armour = Text()
        armour.append(ARMOUR_LOST * state.armour_lost, style="sheet.lost")
        armour.append(ARMOUR_OPEN * (ship.armour - state.armour_lost), style="sheet.armour")
        grid.add_row("armour", armour)
    for number, (size, lost) in enumerate(zip(ship.rows, state.hull_lost, strict=True), start=1):
        row = Text()
        row.append(LOST_BOX * lost, style="sheet.lost")
        row.append(OPEN_BOX * (size - lost), style="sheet.open")
        grid.add_row(f"row {number}", row)
    return grid


def _systems(ship: Ship, state: ShipState) -> Table:
    table = Table(expand=False, box=None, padding=(0, 2, 0, 0), header_style="sheet.label")
    table.add_column("System")
    table.add_column("Id", style="sheet.dim")
    table.add_column("Arcs")
    table.add_column("Status")
    table.add_column("Load", justify="right")
    drive = {"ok": "ok", "half": "half thrust", "disabled": "disabled"}[state.drive]
    if ship.thrust:
        table.add_row(f"Drive, thrust {ship.thrust}", "drive", "", Text(drive), "")
    if ship.ftl:
        table.add_row("FTL drive", "ftl", "", Text(state.ftl), "")
    for spec, sys_state in zip(ship.systems, state.systems, strict=True):
        load = ""
        if sys_state.fighters is not None and spec.bay_capacity is not None:
            load = f"{sys_state.fighters}/{spec.bay_capacity} fighters"
        elif sys_state.ammo is not None and spec.ammo is not None:
            load = f"{sys_state.ammo}/{spec.ammo}"
        table.add_row(
            spec.label,
            spec.id,
            "/".join(spec.arcs),
            Text(sys_state.status, style=f"sheet.status.{sys_state.status}"),
            load,
        )
    return table


def _cost_lines(
    lines: Sequence[CostLine], points: int, mass_used: float, allowance: float
) -> Table:
    table = Table(box=None, padding=(0, 2, 0, 0), header_style="sheet.label", show_footer=True)
    table.add_column("Item", footer="Total")
    table.add_column("Mass", justify="right", footer=f"{_number(mass_used)}/{_number(allowance)}")
    table.add_column("Points", justify="right", footer=str(points))
    table.add_column("Source", style="sheet.dim")
    for line in lines:
        table.add_row(
            line.item, _number(line.mass) if line.mass else "—", _number(line.points), line.source
        )
    return table


def record_sheet(ship: Ship, state: ShipState | None = None) -> RenderableType:
    """Return the ship's record sheet: summary, damage track, systems and points."""
    state = state or fresh_state(ship)
    parts: list[RenderableType] = [
        _summary(ship),
        Text(""),
        Text(f"Damage track: {ship.hull_boxes} boxes, lost top row first", style="sheet.label"),
        _track(ship, state),
        Text(""),
        _systems(ship, state),
        Text(""),
        _cost_lines(ship.cost, ship.points, ship.mass_used, ship.mass_allowance),
    ]
    parts.extend(Text(f"note: {warning}", style="sheet.warning") for warning in ship.warnings)
    if ship.provenance:
        parts.extend([Text(""), Text(ship.provenance, style="sheet.dim")])
    return Panel(
        Group(*parts),
        title=Text(ship.name, style="sheet.title"),
        subtitle=f"{ship.rules} · preset {ship.preset} · {ship.points} points",
        title_align="left",
        subtitle_align="right",
    )


def cost_table(costing: Costing) -> RenderableType:
    """Return a design's points breakdown with its warnings."""
    parts: list[RenderableType] = [
        _cost_lines(costing.lines, costing.points, costing.mass_used, costing.mass_allowance)
    ]
    parts.extend(Text(f"note: {warning}", style="sheet.warning") for warning in costing.warnings)
    return Panel(
        Group(*parts),
        title=Text(costing.design, style="sheet.title"),
        subtitle=f"{costing.rules} · preset {costing.preset} · {costing.points} points",
        title_align="left",
        subtitle_align="right",
    )


def design_table(ships: Iterable[tuple[str, Ship]]) -> RenderableType:
    """Return a table of built-in designs; Fit says whether the fit is the rules text or ours."""
    table = Table(header_style="sheet.label", box=None, padding=(0, 1, 0, 0))
    # Short numeric headers keep the table inside 80 columns; names then wrap at word breaks.
    for name in ("Id", "Name", "Rules", "Class", "Mass", "Thr", "Pts", "Fit"):
        table.add_column(
            name,
            justify="right" if name in ("Mass", "Thr", "Pts") else "left",
            no_wrap=name != "Name",
            min_width=len("Battledreadnought") if name == "Name" else None,
        )
    for design_id, ship in ships:
        source = "project" if ship.provenance.startswith("project design") else "text"
        table.add_row(
            design_id,
            ship.name,
            ship.rules,
            ship.hull_class,
            str(ship.mass),
            str(ship.thrust),
            str(ship.points),
            source,
        )
    return table
