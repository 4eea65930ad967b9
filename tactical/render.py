"""Rich renderables for ships and battles: the record sheet, a points breakdown, the design
list, a battle's ships turn by turn and a battle's odds.

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

from tactical.battle import BattleContext, BattleState, ShipInPlay
from tactical.odds import Odds
from tactical.points import Costing
from tactical.ship import CostLine, Ship, ShipState, fresh_state

__all__ = [
    "THEME",
    "battle_table",
    "cost_table",
    "design_table",
    "odds_table",
    "record_sheet",
]

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
        "battle.active": "green",
        "battle.away": "yellow",
        "battle.gone": "red",
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


_STATUS_STYLE = {"active": "battle.active", "away": "battle.away", "destroyed": "battle.gone"}


def _status(ship: ShipInPlay) -> Text:
    away = ship.status == "away" and ship.returns is not None
    text = f"away to turn {ship.returns}" if away else ship.status
    return Text(text, style=_STATUS_STYLE.get(ship.status, ""))


def _at(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def _damage(ship: ShipInPlay) -> Text:
    """The drive's state and the systems hit: destroyed ones in red, damaged ones in yellow."""
    parts: list[tuple[str, str]] = []
    if ship.record.drive != "ok":
        parts.append((f"drive {ship.record.drive}", "sheet.status.damaged"))
    for system in ship.record.systems:
        if system.status != "ok":
            parts.append((system.id, f"sheet.status.{system.status}"))
    text = Text()
    for index, (words, style) in enumerate(parts):
        text.append(", " if index else "")
        text.append(words, style=style)
    return text


def battle_table(ctx: BattleContext, state: BattleState, title: str = "") -> Table:
    """Return every ship of a battle, side by side: status, hull boxes left, where it is and
    its damage (a ship off the table or destroyed has no place)."""
    table = Table(
        title=title or None,
        title_justify="left",
        header_style="sheet.label",
        box=None,
        padding=(0, 1, 0, 0),
    )
    for name in ("Side", "Ship", "Design", "Status", "Hull", "At", "Crs", "Spd"):
        table.add_column(
            name, justify="right" if name in ("Hull", "Crs", "Spd") else "left", no_wrap=True
        )
    table.add_column("Systems hit", min_width=12)
    order = {side: index for index, side in enumerate(ctx.setup.sides)}
    for ship in sorted(state.ships, key=lambda s: order[s.side]):
        sheet = ctx.sheets[ship.id]
        on_table = ship.status == "active"
        table.add_row(
            ship.side,
            ship.id,
            ship.design,
            _status(ship),
            f"{sheet.hull_boxes - sum(ship.record.hull_lost)}/{sheet.hull_boxes}",
            f"{_at(ship.x)},{_at(ship.y)}" if on_table else "",
            str(ship.course) if on_table else "",
            str(ship.speed) if on_table else "",
            _damage(ship),
        )
    return table


def odds_table(figures: Odds) -> Table:
    """Return each side's win rate and losses (mean ± standard deviation) over the runs."""
    table = Table(
        title=f"{figures.runs} battles from seed {figures.seed}",
        title_justify="left",
        header_style="sheet.label",
        caption=f"draws {figures.draws:.1%} · {figures.turns:.1f} turns on average",
        caption_justify="left",
    )
    for name in ("Side", "Wins", "Ships lost", "Points lost"):
        table.add_column(name, justify="left" if name == "Side" else "right")
    for side in figures.sides:
        table.add_row(
            side.side,
            f"{side.wins:.1%}",
            f"{side.ships_lost:.2f} ± {side.ships_lost_sd:.2f}",
            f"{side.points_lost:.0f} ± {side.points_lost_sd:.0f}",
        )
    return table


def battle_plot(ctx: BattleContext, state: BattleState, width: int = 64, height: int = 12) -> Text:
    """Return a rough plot of the ships on the table, north up: each ship is its side's
    initial in the side's colour (``*`` where ships of both sides share a cell), framed by the
    extent of the ships, which the caption gives in MU."""
    on_table = [ship for ship in state.ships if ship.status == "active"]
    if not on_table:
        return Text("no ship on the table", style="sheet.dim")
    xs = [ship.x for ship in on_table]
    ys = [ship.y for ship in on_table]
    left, bottom = min(xs), min(ys)
    # MU per column; a row is two columns high, as terminal cells are about twice as tall.
    scale = max((max(xs) - left) / (width - 1), (max(ys) - bottom) / (2 * (height - 1)), 0.25)
    cells: dict[tuple[int, int], set[str]] = {}
    for ship in on_table:
        column = round((ship.x - left) / scale)
        row = height - 1 - round((ship.y - bottom) / (2 * scale))
        cells.setdefault((row, column), set()).add(ship.side)
    styles = ("green", "red", "cyan", "magenta", "yellow", "blue")
    colour = {side: styles[index % len(styles)] for index, side in enumerate(ctx.setup.sides)}
    text = Text()
    for row in range(height):
        for column in range(width):
            sides = cells.get((row, column))
            if not sides:
                text.append("·" if row % 4 == 0 and column % 8 == 0 else " ", style="sheet.dim")
            elif len(sides) > 1:
                text.append("*", style="bold")
            else:
                (side,) = sides
                text.append(side[0], style=f"bold {colour[side]}")
        text.append("\n")
    text.append(
        f"x {_at(left)} to {_at(left + scale * (width - 1))} MU, "
        f"y {_at(bottom)} to {_at(bottom + 2 * scale * (height - 1))} MU",
        style="sheet.dim",
    )
    return text
